/* SPDX-License-Identifier: ISC */
/*
 * git's pkt-line framing and the receive-pack request that gatewayd reads
 * (SPEC R-G2, R-G3).  Everything here is pure: bytes in, structures out, no
 * I/O, so the fuzzer and the unit tests drive it exactly as gatewayd does.
 *
 * A pkt-line is 4 hex digits of total length (header included) and the
 * data; 0000 is a flush, 0001 a delimiter, 0002 a response end; 0003 is
 * invalid and the maximum is 65520.  A receive-pack request body is:
 *
 *   <old> SP <new> SP <ref> NUL <capabilities> LF     first command
 *   <old> SP <new> SP <ref> LF                        further commands
 *   0000
 *   <push option> LF ... 0000                         if push-options
 *   PACK...                                           unless delete-only
 *
 * The reader is incremental because the body arrives in pieces of any
 * size; the command parser stops at the first byte of the pack, which is
 * never interpreted (it is streamed, R-G5).
 *
 * The report writer can only say "ng": a gateway that answers git itself
 * has forwarded nothing, and must never claim that a ref was updated.
 */
#ifndef AIRLOCK_PKTLINE_H
#define AIRLOCK_PKTLINE_H

#include <stddef.h>
#include <stdint.h>

#define PKT_MAX			65520		/* whole packet */
#define PKT_DATA_MAX		(PKT_MAX - 4)
#define PKT_SIDEBAND_MAX	(PKT_DATA_MAX - 1)	/* after the band */

/*
 * Per-push limits.  A push over them is refused whole with an "unpack"
 * error git prints: the gateway reads no more commands, so its
 * memory stays bounded whatever the client sends.
 */
#define RP_MAX_COMMANDS		10000
#define RP_MAX_COMMANDS_STR	"10000"
#define RP_MAX_OPTIONS		256
#define RP_MAX_BYTES		(8U << 20)	/* commands + options */
#define RP_CAP_VALUE_MAX	256		/* agent=, session-id= */

enum pkt_kind {
	PKT_DATA = 0,
	PKT_FLUSH,		/* 0000 */
	PKT_DELIM,		/* 0001 */
	PKT_RESPONSE_END,	/* 0002 */
};

enum pkt_result {
	PKT_MORE = 0,		/* all input consumed, no packet complete */
	PKT_PACKET,		/* a packet is complete: see out */
	PKT_ERROR,		/* invalid framing; *why says what */
};

/* One decoded packet; data points into the reader and lives until the
 * next pkt_reader_feed(). */
struct pkt {
	enum pkt_kind	 kind;
	const uint8_t	*data;
	size_t		 len;
};

struct pkt_reader {
	uint8_t		 hdr[4];
	size_t		 nhdr;
	size_t		 need;		/* data bytes of the current packet */
	size_t		 have;
	uint8_t		 buf[PKT_DATA_MAX];
};

void		 pkt_reader_init(struct pkt_reader *);
/*
 * untrusted: len bytes from the peer.  Consumes input up to and including
 * the end of at most one packet; *used says how much.  Call again with the
 * rest while it returns PKT_PACKET.
 */
enum pkt_result	 pkt_reader_feed(struct pkt_reader *, const uint8_t *,
		    size_t len, size_t *used, struct pkt *out,
		    const char **why);

/* ---- the receive-pack request ---- */

enum rp_kind {
	RP_CREATE = 1,		/* old is the zero id */
	RP_UPDATE,
	RP_DELETE,		/* new is the zero id */
};

/* Capabilities git may ask for that change how we must answer it. */
#define RP_CAP_REPORT_STATUS	(1U << 0)
#define RP_CAP_REPORT_STATUS_V2	(1U << 1)
#define RP_CAP_SIDE_BAND_64K	(1U << 2)
#define RP_CAP_SIDE_BAND	(1U << 3)
#define RP_CAP_ATOMIC		(1U << 4)
#define RP_CAP_PUSH_OPTIONS	(1U << 5)
#define RP_CAP_QUIET		(1U << 6)
#define RP_CAP_OFS_DELTA	(1U << 7)

struct rp_cmd {
	char		 old_id[65];
	char		 new_id[65];
	char		*ref;
	enum rp_kind	 kind;
};

enum rp_state {
	RP_COMMANDS = 0,	/* reading commands */
	RP_OPTIONS,		/* reading push options */
	RP_DONE,		/* request header read; the rest is the pack */
	RP_FAILED,		/* malformed: *err */
};

struct rp_request {
	enum rp_state	  state;
	struct pkt_reader rd;
	struct rp_cmd	 *cmds;
	size_t		  ncmds;
	size_t		  cmds_cap;
	char		**shallow;	/* ids of "shallow" lines, NULL-terminated */
	size_t		  nshallow;
	char		 *caps;		/* raw capability string, or NULL */
	uint32_t	  capflags;	/* RP_CAP_* */
	char		 *agent;	/* agent=, or NULL */
	char		 *session_id;	/* session-id=, or NULL */
	int		  over_limit;	/* failed on a per-push limit */
	int		  objfmt_given;	/* object-format= was sent */
	size_t		  hexlen;	/* 40 (sha1) or 64 (sha256) */
	char		**options;	/* push options, NULL-terminated */
	size_t		  noptions;
	size_t		  bytes;	/* consumed so far (cap) */
	const char	 *err;
};

struct rp_request *rp_request_new(void);
void		 rp_request_free(struct rp_request *);
/*
 * untrusted: decoded request body bytes from the sandbox.  Returns how
 * many bytes were consumed; when state becomes RP_DONE the remaining
 * bytes (len - returned) and everything after are the pack.  A request
 * with no command at all (just 0000: git's probe POST) ends in RP_DONE
 * with ncmds == 0.
 */
size_t		 rp_request_feed(struct rp_request *, const uint8_t *,
		    size_t len);
const char	*rp_kind_name(enum rp_kind);
/*
 * untrusted: the capability list of the first command (after its NUL).
 * Parsed as git's parse_feature_request() reads it: space-separated
 * "name" or "name=value" tokens, matched by name, so "push-options=1" is
 * push-options.  Sets capflags, hexlen (object-format=), agent and
 * session_id; push-cert in any form, an unknown object format and two
 * different values for one name fail the request.  0 or -1 (RP_FAILED).
 */
int		 rp_caps_parse(struct rp_request *, const uint8_t *, size_t);

/* ---- writing ---- */

/* A growable output buffer. */
struct pkt_buf {
	uint8_t		*data;
	size_t		 len;
	size_t		 cap;
};

void		 pkt_buf_free(struct pkt_buf *);
/* Append one data packet (len <= PKT_DATA_MAX; longer is -1). */
int		 pkt_put(struct pkt_buf *, const void *, size_t);
int		 pkt_putf(struct pkt_buf *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
void		 pkt_put_flush(struct pkt_buf *);
void		 pkt_put_delim(struct pkt_buf *);	/* 0001 (v2) */
/*
 * Side-band framing: data split into band packets (1 data, 2 progress,
 * 3 error) of at most PKT_SIDEBAND_MAX bytes each.
 */
void		 pkt_put_sideband(struct pkt_buf *, int band, const void *,
		    size_t);
/*
 * The refusal git reads instead of upstream's answer: "unpack ok" and one
 * "ng <ref> <reason>" for every command (reasons[i] for cmds[i]), then a
 * flush; inside side-band 1 (and a final flush) when the client asked for
 * side-band-64k or side-band.  Only "ng" can be written.  A reason is
 * sanitised to one line of printable ASCII.
 */
void		 rp_report_refusal(struct pkt_buf *, const struct rp_request *,
		    const char *const *reasons);
/*
 * The capability list upstream gets: the known capabilities that were
 * parsed, minus drop, in one canonical spelling, then object-format
 * (when sent, or sha256), session-id and agent.  Nothing of the client's text
 * passes unless it was parsed and understood.
 */
void		 rp_caps_write(struct pkt_buf *, const struct rp_request *,
		    uint32_t drop);
/*
 * A refusal of the whole request before its commands were all read:
 * "unpack <reason>" and a flush (in side-band 1 when asked for).  git
 * prints "error: remote unpack failed: <reason>" and fails every ref.
 */
void		 rp_report_unpack_error(struct pkt_buf *,
		    const struct rp_request *, const char *reason);
/*
 * untrusted: a protocol v2 ls-refs answer from the code host (pkt-lines
 * up to a flush).  Its symbolic refs, as *pairs: ref, target, ref,
 * target, ..., NULL (strv_free()).  0, or -1 with *why.
 */
int		 rp_lsrefs_symrefs(const uint8_t *, size_t, char ***pairs,
		    const char **why);
/*
 * Rewrite the request header for upstream: the same shallow lines and
 * commands, the capabilities minus the RP_CAP_* bits in drop_capflags, and
 * push options only when the push-options capability is kept.  Lets
 * gatewayd strip push options (that a code host would act on) without
 * touching the pack.
 */
void		 rp_request_rewrite(struct pkt_buf *, const struct rp_request *,
		    uint32_t drop_capflags);

#endif
