/* SPDX-License-Identifier: ISC */
/*
 * The one message catalogue (SPEC R-P4).  Every message that can cross a
 * socketpair between airlock's processes is listed in MSG_CATALOGUE below
 * with its channel, its direction, its payload schema and how many fds it
 * carries.  An auditor reads this file to know everything that can pass.
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
 *
 * Directions: DOWN is from airlockd to its child, UP is from the child.
 * Type ranges: 0x01xx launcher, 0x02xx proxyd, 0x03xx gatewayd,
 * 0x04xx airlock-clone,
 * 0x00xx any channel.
 */
#ifndef AIRLOCK_MSG_H
#define AIRLOCK_MSG_H

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
	MSG_CH_ANY	= 0xf,
};

enum msg_dir {
	MSG_DOWN	= 1 << 0,	/* airlockd -> child */
	MSG_UP		= 1 << 1,	/* child -> airlockd */
};

/*
 * X(name, number, channels, direction, schema, nfds, fields)
 * "fields" documents the schema's fields by name, in order.
 */
#define MSG_CATALOGUE(X)						\
	/* ---- any channel ---- */					\
	X(MSG_HELLO, 0x0001, MSG_CH_ANY, MSG_UP, "us", 0,		\
	    "pid, self-restriction summary (R-P2; shown by `status`)")	\
	X(MSG_SHUTDOWN, 0x0002, MSG_CH_ANY, MSG_DOWN, "", 0,		\
	    "(none): finish and exit")					\
									\
	/* ---- launcher: the launch plan, sent once, in order ---- */	\
	X(MSG_PLAN_BEGIN, 0x0101, MSG_CH_LAUNCHER, MSG_DOWN, "suuu", 0,\
	    "session id, flags (PLAN_F_*), uid, gid")			\
	X(MSG_PLAN_OP, 0x0102, MSG_CH_LAUNCHER, MSG_DOWN, "uuss", 0,	\
	    "op (PLAN_OP_*), flags (PLAN_OPF_*), source, destination")	\
	X(MSG_PLAN_FILE, 0x0103, MSG_CH_LAUNCHER, MSG_DOWN, "sub", 0,	\
	    "destination, mode, contents (a file created in the root)")\
	X(MSG_PLAN_LANDLOCK, 0x0104, MSG_CH_LAUNCHER, MSG_DOWN, "qs", 0,\
	    "LANDLOCK_ACCESS_FS_* bits allowed beneath path, path")	\
	X(MSG_PLAN_RLIMIT, 0x0105, MSG_CH_LAUNCHER, MSG_DOWN, "uqq", 0,\
	    "resource (RLIMIT_*), soft, hard; applied to every exec")	\
	X(MSG_PLAN_SECCOMP, 0x0106, MSG_CH_LAUNCHER, MSG_DOWN, "ub", 0,\
	    "flags (PLAN_SECF_*), struct sock_filter[] built by gen_seccomp")\
	X(MSG_PLAN_LISTEN, 0x0107, MSG_CH_LAUNCHER, MSG_DOWN, "uu", 0,	\
	    "kind (LISTEN_*), port: a TCP listener on 127.0.0.1:port"	\
	    " inside the netns (the netns is new: any port is free)")	\
	X(MSG_PLAN_END, 0x0108, MSG_CH_LAUNCHER, MSG_DOWN, "", 0,	\
	    "(none): build the sandbox now")				\
	X(MSG_PLAN_WRITE_RULE, 0x0109, MSG_CH_LAUNCHER, MSG_DOWN, "uss", 0,\
	    "kind (NR_*, common/namerule.h), pattern, exception glob on"\
	    " the final component or \"\": a filename rule the R-L4"	\
	    " handler in init applies to write-intent syscalls")	\
	/* ---- launcher: progress and results ---- */			\
	X(MSG_LAUNCH_SOCKET, 0x0110, MSG_CH_LAUNCHER, MSG_UP, "uu", 1,	\
	    "kind (LISTEN_*), port; fd: the listening socket")		\
	X(MSG_LAUNCH_READY, 0x0111, MSG_CH_LAUNCHER, MSG_UP, "uuu", 0,	\
	    "init pid (host view), landlock ABI used, LL_GAP_* not enforced")\
	X(MSG_LAUNCH_FAILED, 0x0112, MSG_CH_LAUNCHER, MSG_UP, "s", 0,	\
	    "reason: what could not be built")				\
	/* ---- launcher: exec server ---- */				\
	X(MSG_EXEC, 0x0120, MSG_CH_LAUNCHER, MSG_DOWN, "usvv", 0,	\
	    "exec id, cwd, argv, envp (complete, built by airlockd)")	\
	X(MSG_EXEC_STARTED, 0x0121, MSG_CH_LAUNCHER, MSG_UP, "uu", 2,	\
	    "exec id, pid (sandbox view); fds: stdout, stderr read ends")\
	X(MSG_EXEC_FAILED, 0x0122, MSG_CH_LAUNCHER, MSG_UP, "uus", 0,	\
	    "exec id, errno, what failed")				\
	X(MSG_EXEC_EXIT, 0x0123, MSG_CH_LAUNCHER, MSG_UP, "uu", 0,	\
	    "exec id, wait status")					\
	X(MSG_EXEC_SIGNAL, 0x0124, MSG_CH_LAUNCHER, MSG_DOWN, "uu", 0,	\
	    "exec id, signal: sent to the exec's process group")	\
	X(MSG_EXEC_IO, 0x0125, MSG_CH_LAUNCHER, MSG_DOWN, "uusvvuu", 1,\
	    "exec id, flags (EXEC_F_*), cwd, argv, envp, rows, columns;"\
	    " fd: the command's stdin (a pipe; closed with EXEC_F_PTY,"\
	    " where a terminal of the sandbox's devpts is its stdio and"\
	    " MSG_EXEC_STARTED carries the master twice)")		\
	X(MSG_VIOLATION, 0x0130, MSG_CH_LAUNCHER, MSG_UP, "uss", 0,	\
	    "exec id, action (file-write-create, ...), target path")	\
									\
	/* ---- proxyd ---- */						\
	X(MSG_PX_SESSION_ADD, 0x0201, MSG_CH_PROXYD, MSG_DOWN, "suuvv", 2,\
	    "session id, flags (PX_F_*), connections the session may hold"\
	    " open at once, allow patterns, deny patterns;"		\
	    " fds: HTTP listener, SOCKS5 listener")			\
	X(MSG_PX_SESSION_DEL, 0x0202, MSG_CH_PROXYD, MSG_DOWN, "s", 0,	\
	    "session id: close its listeners and every tunnel")	\
	X(MSG_PX_MASK, 0x0203, MSG_CH_PROXYD, MSG_DOWN, "sssussS", 0,	\
	    "session id, variable name, host, where (MASK_HEADER,"	\
	    " MASK_QUERY, MASK_BASIC), header or parameter name (\"\""	\
	    " for basic), placeholder, real value (secret): one masked"\
	    " credential (common/pxmask.h checks it), sent before"	\
	    " MSG_PX_MASK_END")						\
	X(MSG_PX_MASK_END, 0x0204, MSG_CH_PROXYD, MSG_DOWN, "sb", 0,	\
	    "session id, the PEM certificates that verify upstream"	\
	    " servers: proxyd makes the session's CA and answers"	\
	    " MSG_PX_CA")						\
	X(MSG_PX_INSPECT, 0x0205, MSG_CH_PROXYD, MSG_DOWN, "sss", 0,	\
	    "session id, host, its method and path rules (one \"allow"\
	    " METHOD PATH\" or \"deny ...\" a line, common/inspect.h):"\
	    " the host's connections are terminated and each request"	\
	    " judged; sent before MSG_PX_MASK_END")			\
	X(MSG_PX_VIOLATION, 0x0210, MSG_CH_PROXYD, MSG_UP, "sss", 0,	\
	    "session id, action (network-outbound, network-connections),"\
	    " target host:port or the count refused")			\
	X(MSG_PX_SESSION_FAILED, 0x0211, MSG_CH_PROXYD, MSG_UP, "ss", 0,\
	    "session id, reason: proxyd could not take the session (its"\
	    " listeners arrived truncated or are not listeners); airlockd"\
	    " fails that session alone")				\
	X(MSG_PX_CA, 0x0212, MSG_CH_PROXYD, MSG_UP, "sus", 0,		\
	    "session id, ok, the session CA's certificate in PEM (its"	\
	    " key never leaves proxyd) or why there is none")		\
									\
	/* ---- gatewayd ---- */					\
	X(MSG_GW_RUN_ADD, 0x0301, MSG_CH_GATEWAYD, MSG_DOWN, "s", 1,	\
	    "session id; fd: the run's gateway listener")		\
	X(MSG_GW_RUN_DEL, 0x0302, MSG_CH_GATEWAYD, MSG_DOWN, "s", 0,	\
	    "session id: revoke; later pushes are refused")		\
	X(MSG_GW_REPO_REQ, 0x0310, MSG_CH_GATEWAYD, MSG_UP, "uss", 0,	\
	    "request id, session id, repository path from the URL")	\
	X(MSG_GW_REPO_ANS, 0x0311, MSG_CH_GATEWAYD, MSG_DOWN, "uusss", 0,\
	    "request id, allowed, upstream URL, CA bundle path or \"\","\
	    " reason")							\
	X(MSG_GW_REF_REQ, 0x0312, MSG_CH_GATEWAYD, MSG_UP, "ussu", 0,	\
	    "request id, session id, ref name, GW_REF_* kind")		\
	X(MSG_GW_REF_ANS, 0x0313, MSG_CH_GATEWAYD, MSG_DOWN, "uus", 0,	\
	    "request id, allowed, reason (names the rule)")		\
	X(MSG_GW_TOKEN_REQ, 0x0314, MSG_CH_GATEWAYD, MSG_UP, "uss", 0,	\
	    "request id, session id, repository path")			\
	X(MSG_GW_TOKEN_ANS, 0x0315, MSG_CH_GATEWAYD, MSG_DOWN, "uuS", 0,\
	    "request id, ok, write token for this one push (secret)")	\
	X(MSG_GW_PUSH_DONE, 0x0316, MSG_CH_GATEWAYD, MSG_UP, "ussu", 0,\
	    "request id, session id, summary, GW_DONE_* outcome")	\
	X(MSG_GW_CONN_END, 0x0317, MSG_CH_GATEWAYD, MSG_UP, "s", 0,	\
	    "session id: a connection that asked about a repository"	\
	    " ended (airlockd counts the session's pushes in flight)")	\
									\
	/* ---- airlock-clone (its job is on its command line) ---- */	\
	X(MSG_CL_PROGRESS, 0x0401, MSG_CH_CLONE, MSG_UP, "qqq", 0,	\
	    "files, bytes, entries skipped (at most every 250 ms)")	\
	X(MSG_CL_DONE, 0x0402, MSG_CH_CLONE, MSG_UP, "uqqqqs", 0,	\
	    "errno (0: done), files, bytes, skipped special files,"	\
	    " vanished entries, error sentence or \"\"")

enum msg_type {
#define MSG_ENUM(name, num, ch, dir, schema, nfds, doc) name = num,
	MSG_CATALOGUE(MSG_ENUM)
#undef MSG_ENUM
};

/* MSG_PLAN_BEGIN flags */
#define PLAN_F_NET_NS		(1U << 0)	/* new netns with only lo */
#define PLAN_F_LANDLOCK_NET	(1U << 1)	/* TCP connect: own listeners */
#define PLAN_F_LANDLOCK_SCOPE	(1U << 2)	/* scope abstract unix, signals */
#define PLAN_F_SECCOMP_KNOWN	(1U << 3)	/* this kernel loaded the
						   programs for an earlier
						   launch: no check child */

/* MSG_PLAN_OP ops: applied in order, bubblewrap style. */
enum plan_op {
	PLAN_OP_BIND = 1,	/* bind source at destination */
	PLAN_OP_TMPFS,		/* tmpfs at destination; a source, when
				 * not empty, is its size in bytes */
	PLAN_OP_DIR,		/* mkdir -p destination */
	PLAN_OP_PROC,		/* new proc at destination */
	PLAN_OP_DEV,		/* minimal /dev at destination; a source
				 * sizes its /dev/shm, as for TMPFS */
	PLAN_OP_MASK,		/* make destination unreadable (deny-read) */
	PLAN_OP_REMOUNT_RO,	/* destination read-only (write-protect) */
	PLAN_OP_SYMLINK,	/* symlink source at destination */
	PLAN_OP_CHDIR_HOME,	/* reserved */
	PLAN_OP_MAX
};

/* MSG_PLAN_OP flags */
#define PLAN_OPF_RO		(1U << 0)	/* BIND: read-only */
#define PLAN_OPF_OPTIONAL	(1U << 1)	/* missing source: skip */
#define PLAN_OPF_DEV		(1U << 2)	/* BIND: allow device nodes */

/* MSG_EXEC_IO flags */
#define EXEC_F_PTY		(1U << 0)	/* a new pty as the ctty */

/* MSG_PLAN_SECCOMP flags */
#define PLAN_SECF_NOTIFY	(1U << 0)	/* filter has USER_NOTIF rules */

/* MSG_PLAN_LISTEN / MSG_LAUNCH_SOCKET kinds */
enum listen_kind {
	LISTEN_HTTP = 1,
	LISTEN_SOCKS,
	LISTEN_GIT,
	LISTEN_MAX
};

/*
 * The ports inside every sandbox's own network namespace.  Fixed, so the
 * plan (environment, git config) can name them before the launcher has
 * made the sockets; nothing else can bind there (Landlock denies TCP bind).
 */
#define LISTEN_PORT_HTTP	3128
#define LISTEN_PORT_SOCKS	1080
#define LISTEN_PORT_GIT		9418

/* MSG_LAUNCH_READY: what the kernel's Landlock ABI could not enforce. */
#define LL_GAP_NONE		(1U << 0)	/* no Landlock at all */
#define LL_GAP_REFER		(1U << 1)	/* ABI < 2 */
#define LL_GAP_TRUNCATE		(1U << 2)	/* ABI < 3 */
#define LL_GAP_NET		(1U << 3)	/* ABI < 4 */
#define LL_GAP_IOCTL_DEV	(1U << 4)	/* ABI < 5 */
#define LL_GAP_SCOPE		(1U << 5)	/* ABI < 6 */

/* MSG_PX_SESSION_ADD flags */
#define PX_F_NETWORK		(1U << 0)	/* network on (else deny all) */

/* MSG_GW_REF_REQ kinds */
enum gw_ref_kind {
	GW_REF_CREATE = 1,
	GW_REF_UPDATE,
	GW_REF_DELETE,
};

/* MSG_GW_PUSH_DONE outcomes */
enum gw_done {
	GW_DONE_REFUSED = 0,
	GW_DONE_FORWARDED = 1,
	GW_DONE_NOCRED = 2,	/* refused: no write credential */
};

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

const struct msg_type_info *msg_type_lookup(uint16_t);
const char	*msg_type_name(uint16_t);

void		 msg_link_init(struct msg_link *, int fd, uint8_t chan,
		    uint8_t recv_dir, const char *peer);
void		 msg_link_close(struct msg_link *);

/* Building: fields must be added in schema order; checked. */
void		 msgbuf_init(struct msgbuf *, uint16_t type);
void		 msgbuf_free(struct msgbuf *);
void		 msg_put_u32(struct msgbuf *, uint32_t);
void		 msg_put_u64(struct msgbuf *, uint64_t);
void		 msg_put_str(struct msgbuf *, const char *);
void		 msg_put_blob(struct msgbuf *, const void *, size_t);
void		 msg_put_strv(struct msgbuf *, char *const *);

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
/* Decode a frame held entirely in memory (header + payload, no fds). */
int		 msg_decode_mem(const uint8_t *, size_t, uint8_t chan,
		    uint8_t dir, struct msg *, const char **why);

/* Print a frame readably (secrets redacted) into buf. */
void		 msg_dump(const struct msg *, char *buf, size_t len);

#endif
