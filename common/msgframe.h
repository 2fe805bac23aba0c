/* SPDX-License-Identifier: ISC */
/*
 * Framing and the one validator (SPEC R-P4): what a frame is and the
 * calls that build, send, receive and read one.  The messages themselves
 * are listed in the catalogue, common/msg.h, whose launcher part
 * (common/msg_launch.h) is all that airlock-launcher and airlock-guard
 * know: a program links the frame code (msgframe.c; msgframe_more.c
 * adds what the launcher never calls, marked "more" below) and one
 * table, msg_launch.c (theirs) or msg.c (every message).
 *
 * Frame:   struct msg_hdr (8 bytes) | payload (len bytes) | nfds via
 *          SCM_RIGHTS on the first byte of the frame.
 * Payload: the fields of the schema, in order, little-endian host order
 *          (both ends are the same machine):
 *            'u'  uint32
 *            'q'  uint64
 *            's'  string: uint32 length including the terminating NUL,
 *                 then the bytes; no interior NUL; length >= 1
 *            'S'  the same, but a secret: msg_dump() prints "<redacted>"
 *            'b'  blob: uint32 length, then the bytes
 *            'v'  string vector: uint32 count, then count 's' strings
 * msg_recv() checks all of it (known type, channel, direction, version,
 * exact length, terminated strings, exact fd count, no MSG_CTRUNC) before a
 * handler sees the frame; anything else is an error that closes the link.
 * The one exception is a link that sets trunc_ok: a frame whose fds the
 * kernel truncated (the receiver was out of descriptors) is read to its
 * end, its fds closed, and handed over as MSG_FDS_LOST, so that the
 * receiver can fail what the frame was about instead of the whole link.
 */
#ifndef AIRLOCK_MSGFRAME_H
#define AIRLOCK_MSGFRAME_H

#include <stddef.h>
#include <stdint.h>

#define MSG_VERSION		1
#define MSG_MAX_PAYLOAD		(1U << 20)	/* 1 MiB */
#define MSG_MAX_FDS		4
#define MSG_MAX_STRV		4096		/* entries in a 'v' field */
#define MSG_CHILD_FD		3		/* the channel's fd in a child */

enum msg_chan {
	MSG_CH_LAUNCHER	= 1 << 0,
	MSG_CH_PROXYD	= 1 << 1,
	MSG_CH_GATEWAYD	= 1 << 2,
	MSG_CH_CLONE	= 1 << 3,	/* airlock-clone, one per copy */
	MSG_CH_GUARD	= 1 << 4,	/* init to airlock-guard: DOWN is
					   from init, UP from the guard */
	MSG_CH_ANY	= 0x1f,
};

enum msg_dir {
	MSG_DOWN	= 1 << 0,	/* airlockd -> child */
	MSG_UP		= 1 << 1,	/* child -> airlockd */
};

/* An entry of a catalogue: X(name, number, channels, direction, schema,
 * nfds, fields); "fields" documents the schema's fields by name. */
#define MSG_INFO(name, num, ch, dir, schema, nfds, doc)			\
	{ num, ch, dir, nfds, #name, schema, doc },
#define MSG_ENUM(name, num, ch, dir, schema, nfds, doc) name = num,

struct msg_hdr {
	uint16_t	type;
	uint8_t		version;
	uint8_t		nfds;
	uint32_t	len;
};

struct msg_type_info {
	uint16_t	 type;
	uint8_t		 chans;
	uint8_t		 dir;
	uint8_t		 nfds;
	const char	*name;
	const char	*schema;
	const char	*doc;
};

/* A received, validated frame. */
struct msg {
	const struct msg_type_info *info;
	uint8_t		*payload;
	size_t		 len;
	size_t		 off;		/* read cursor for msg_get_*() */
	int		 fds[MSG_MAX_FDS];
	int		 nfds;
	int		 field;		/* index into schema for msg_get_*() */
};

/* A frame being built. */
struct msgbuf {
	uint16_t	 type;
	uint8_t		*data;
	size_t		 len;
	size_t		 cap;
	int		 field;
};

/* One end of a socketpair and what it may carry. */
struct msg_link {
	int		 fd;
	uint8_t		 chan;		/* MSG_CH_* of this link */
	uint8_t		 recv_dir;	/* MSG_UP in airlockd, MSG_DOWN in child */
	const char	*peer;		/* for log lines */
	/* receive buffer for non-blocking use */
	uint8_t		*rbuf;
	size_t		 rlen;
	size_t		 rcap;
	int		 rfds[MSG_MAX_FDS * 4];
	int		 nrfds;
	int		 trunc_ok;	/* MSG_CTRUNC: MSG_FDS_LOST */
	int		 rtrunc;	/* the frame being read lost fds */
};

enum msg_result {
	MSG_OK = 0,
	MSG_AGAIN,		/* non-blocking: no complete frame yet */
	MSG_EOF,		/* peer closed cleanly between frames */
	MSG_ERROR,		/* invalid frame or I/O error: close the link */
	MSG_FDS_LOST,		/* trunc_ok links only: a valid frame whose
				   fds were truncated; m has none */
};

/* The linked table's (msg_launch.c or msg.c); NULL for an unknown type. */
const struct msg_type_info *msg_type_lookup(uint16_t);
const char	*msg_type_name(uint16_t);

void		 msg_link_init(struct msg_link *, int fd, uint8_t chan,
		    uint8_t recv_dir, const char *peer);
void		 msg_link_close(struct msg_link *);	/* more */

/* Building: fields must be added in schema order; checked. */
void		 msgbuf_init(struct msgbuf *, uint16_t type);
void		 msgbuf_free(struct msgbuf *);
void		 msg_put_u32(struct msgbuf *, uint32_t);
void		 msg_put_u64(struct msgbuf *, uint64_t);
void		 msg_put_str(struct msgbuf *, const char *);
/* more: */
void		 msg_put_blob(struct msgbuf *, const void *, size_t);
void		 msg_put_strv(struct msgbuf *, char *const *);
/* The pieces of the calls above, for msgframe_more.c. */
void		 msgbuf_append(struct msgbuf *, const void *, size_t);
void		 msgbuf_expect(struct msgbuf *, const char *kinds);
void		 msgbuf_put_string(struct msgbuf *, const char *);

/*
 * Send a complete frame (blocking; the socket may be non-blocking, in
 * which case it polls until the frame is out).  fds are not consumed.
 * Returns 0, or -1 with errno.
 */
int		 msg_send(struct msg_link *, struct msgbuf *,
		    const int *fds, int nfds);
/* Build-and-send for frames without fields. */
int		 msg_send_empty(struct msg_link *, uint16_t type);
void		 msg_frame_hdr(struct msg_link *, struct msgbuf *, int nfds,
		    struct msg_hdr *);

/*
 * Receive one frame.  Blocking links: waits for a whole frame.
 * Non-blocking links: reads what is there and returns MSG_AGAIN until a
 * whole frame is buffered.  On MSG_ERROR the reason is logged (with the
 * peer's name) and the caller must close the link.  On MSG_OK, m owns the
 * payload and the fds: release with msg_free() (closes unclaimed fds).
 */
enum msg_result	 msg_recv(struct msg_link *, struct msg *m);
void		 msg_free(struct msg *);

/* Read fields of a validated frame in schema order. */
uint32_t	 msg_get_u32(struct msg *);
uint64_t	 msg_get_u64(struct msg *);
const char	*msg_get_str(struct msg *);
const void	*msg_get_blob(struct msg *, size_t *lenp);
/* Returns a newly allocated NULL-terminated vector (strv_free()). */
char		**msg_get_strv(struct msg *);
/* Take ownership of fd i (it is then not closed by msg_free()). */
int		 msg_take_fd(struct msg *, int i);

/*
 * Validate a payload against a schema; 0 if it matches exactly, else -1
 * with *why set.  Exposed for the fuzzer and unit tests.
 */
int		 msg_validate(const struct msg_type_info *, const uint8_t *,
		    size_t, const char **why);
/* The header's checks, for msg_decode_mem (msg.c); 0 or -1 and *why. */
int		 msg_check_header(const struct msg_hdr *, uint8_t chan,
		    uint8_t dir, const struct msg_type_info **,
		    const char **why);

#endif
