/* SPDX-License-Identifier: ISC */
/*
 * airlock-gatewayd's internal interfaces: the runs it serves (one
 * listening socket each, made inside the run's network namespace, so a
 * connection's run is known from the socket it arrived on), the client
 * connections from the sandbox's git, the questions it asks airlockd, and
 * the upstream side (TLS to the code host).  gatewayd holds no policy: every
 * decision is airlockd's answer to a question.
 */
#ifndef AIRLOCK_GW_H
#define AIRLOCK_GW_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <zlib.h>

#include "common/http.h"
#include "common/msg.h"
#include "common/pktline.h"

struct event_base;
struct evdns_base;
struct evconnlistener;
struct bufferevent;
struct evbuffer;
struct msg;
struct gw_conn;

#define GW_BUF_HIGH	(1U << 20)	/* pause the sender above this */
#define GW_BUF_LOW	(256U << 10)	/* and resume below this */
#define GW_IO_CHUNK	(256U << 10)	/* per read/write syscall; libevent's
					   default of 4 KiB costs a 200 MB push
					   50,000 trips round the loop */
#define GW_LSREFS_MAX	(32U << 20)	/* upstream's ref list, whole */
#define GW_CHUNK_MAX	(64ULL << 20)	/* a request body's chunk */
#define GW_HEAD_TIMEOUT	30		/* seconds for a request head */
#define GW_IO_TIMEOUT	600		/* seconds of silence mid-push */
#define GW_MAX_CONNS	32		/* per run: one agent cannot starve
					   the other runs of fds */
#define GW_LOG_INTERVAL	10		/* seconds between refusal
					   lines per session */
#define GW_LINK_WINDOW	32		/* questions to airlockd in
					   flight: their answers fit in
					   the socket buffer (req_pump) */

struct gw_session {
	TAILQ_ENTRY(gw_session)	 entry;
	char			*id;
	struct evconnlistener	*listener;
	TAILQ_HEAD(, gw_conn)	 conns;
	size_t			 nconns;
	time_t			 log_at;	/* gw_log_refusal() */
	unsigned		 log_quiet;
};

/* What a connection is doing now. */
enum gw_state {
	GW_ST_HEAD = 0,		/* reading the request head */
	GW_ST_WAIT_REPO,	/* asked airlockd: is this repo allowed */
	GW_ST_COMMANDS,		/* reading the push's command list */
	GW_ST_WAIT_REFS,	/* asked the push rule for every ref */
	GW_ST_WAIT_TOKEN,	/* asked for the write token */
	GW_ST_SYMREFS,		/* asked upstream for its symbolic refs */
	GW_ST_UPSTREAM,		/* forwarding to / relaying from upstream */
	GW_ST_DRAIN,		/* refusing: reading the rest of the body */
	GW_ST_CLOSING,		/* flushing our answer, then close */
};

enum gw_kind {
	GW_K_ADVERTISE = 1,	/* GET info/refs?service=git-receive-pack */
	GW_K_RECEIVE_PACK,	/* POST git-receive-pack */
};

/* A parsed upstream URL. */
struct gw_url {
	int	 tls;
	char	 host[HTTP_HOST_MAX];
	uint16_t port;
	int	 is_v6;
	char	*path;		/* "/acme/app.git", no trailing slash */
};

struct gw_conn {
	TAILQ_ENTRY(gw_conn)	 entry;
	int			 in_list;
	int			 asked;		/* airlockd knows */
	struct gw_session	*sess;
	struct bufferevent	*cbev;		/* the sandbox's git */
	struct bufferevent	*ubev;		/* the code host */
	enum gw_state		 state;
	enum gw_kind		 kind;
	char			*repo;		/* "acme/app.git" from the URL */
	char			*user_agent;
	struct gw_url		 up;
	char			*ca_path;	/* "" for the system store */

	/* request body framing (untrusted: from the sandbox) */
	enum http_body		 body;
	uint64_t		 body_left;	/* HTTP_BODY_LENGTH */
	struct http_chunked	 chunked;
	int			 body_done;
	int			 gzip;
	z_stream		 zs;
	int			 zs_init;
	int			 zs_end;
	int			 expect_continue;

	/* the push */
	struct rp_request	*rq;
	struct evbuffer		*pending;	/* decoded bytes after the
						   command list */
	char			**reasons;	/* per command: NULL = allowed */
	char			**allowed;	/* per command: the rule that
						   allowed it */
	int			 nocred;	/* refused: no write token */
	size_t			 nanswers;
	int			 refused;	/* some ref refused */
	char			*refusal;	/* refuse every ref: why */
	char			*token;		/* until the push starts */
	struct evbuffer		*answer;	/* sent once the body is read */
	const char		*err;		/* static text for a 400 */

	/* upstream response */
	int			 resp_started;	/* head relayed to client */
	struct evbuffer		*resp_head;	/* until it is complete */
	int			 resp_status;
	uint64_t		 sent_bytes;	/* decoded bytes upstream */
};

/* main.c */
extern struct event_base	*gw_base;
extern struct evdns_base	*gw_dns;
/*
 * Ask airlockd.  Returns the request id; the answer is delivered to
 * gw_conn_answer() unless the connection is gone by then.
 */
uint32_t	 gw_ask_repo(struct gw_conn *);
uint32_t	 gw_ask_ref(struct gw_conn *, size_t cmd);
uint32_t	 gw_ask_token(struct gw_conn *);
void		 gw_forget(struct gw_conn *);	/* drop pending questions */
void		 gw_push_done(struct gw_conn *, const char *summary,
		    enum gw_done);

/* gw_conn.c: one client connection. */
/* A refusal's log line, at most one per GW_LOG_INTERVAL per session. */
void		 gw_log_refusal(struct gw_session *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
void		 gw_conn_accept(struct gw_session *, int fd);
void		 gw_conn_free(struct gw_conn *);
/* Answers from airlockd, in the order of the request kinds above. */
void		 gw_conn_repo_answer(struct gw_conn *, int allowed,
		    const char *url, const char *ca, const char *reason);
void		 gw_conn_ref_answer(struct gw_conn *, size_t cmd, int allowed,
		    const char *reason);
/* consumes token: zeroed and freed here whatever happens */
void		 gw_conn_token_answer(struct gw_conn *, int ok, char *token);
/* Answer the client with a plain HTTP error and close. */
void		 gw_conn_http_error(struct gw_conn *, int status,
		    const char *text);
/* Upstream caught up: read the client's body again. */
void		 gw_conn_resume_body(struct gw_conn *);
/* Upstream finished or failed: close once the client has it all. */
void		 gw_conn_upstream_done(struct gw_conn *);
/*
 * Upstream's ref list (a protocol v2 ls-refs answer, NULL with why if
 * it could not be had): updates through a symbolic ref are refused.
 */
void		 gw_conn_symrefs(struct gw_conn *, const uint8_t *, size_t,
		    const char *why);
/* Refuse every ref of the push (after the body is read) and close. */
void		 gw_conn_refuse_push(struct gw_conn *, const char *reason);

/* gw_up.c: the code host side. */
int		 gw_url_parse(const char *, struct gw_url *, const char **why);
void		 gw_url_free(struct gw_url *);
/* Load the system store and every CA bundle given; before restricting. */
int		 gw_tls_init(char *const *ca_files);
/*
 * Connect upstream and send the request; token is used for the
 * Authorization header and zeroed by the caller.  Returns 0 or -1 with
 * *why (no secret in it).
 */
int		 gw_up_start(struct gw_conn *, const char *token,
		    const char **why);
/* The same for upstream's ls-refs (symrefs); gw_conn_symrefs() at end. */
int		 gw_up_lsrefs(struct gw_conn *, const char *token,
		    const char **why);
/* Client-to-upstream body bytes (decoded; chunked on the wire). */
void		 gw_up_send_body(struct gw_conn *, const void *, size_t);
/* The same, moving n bytes out of an evbuffer without copying them. */
void		 gw_up_move_body(struct gw_conn *, struct evbuffer *, size_t);
void		 gw_up_end_body(struct gw_conn *);
/* The client drained below the low-water mark: read upstream again. */
void		 gw_up_resume(struct gw_conn *);

/* gw_sandbox.c: R-P2 self-restriction; returns a summary for HELLO. */
char		*gw_restrict_self(void);

#endif
