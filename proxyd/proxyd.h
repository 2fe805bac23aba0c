/* SPDX-License-Identifier: ISC */
/*
 * airlock-proxyd internals shared between its files: sessions (session.c),
 * the HTTP proxy (http.c), the SOCKS5 proxy (socks.c), name resolution and
 * dialing after the policy checks (resolve.c) and the splice relay
 * (relay.c).  One process, one libevent loop, no threads.
 */
#ifndef AIRLOCK_PROXYD_H
#define AIRLOCK_PROXYD_H

#include <sys/queue.h>
#include <sys/socket.h>

#include <stdint.h>

#include <event2/bufferevent.h>
#include <event2/event.h>

struct egress_rules;
struct px_conn;
struct px_tunnel;
struct px_http;
struct bufferevent;

#define PX_SESSION_ID_MAX	128
#define PX_HANDSHAKE_TIMEOUT	30	/* s to send a head */
#define PX_CONNECT_TIMEOUT	30	/* seconds to resolve and connect */

/*
 * sandbox.network.upstream: proxies the session's allowed connections
 * are dialed through (resolve.c), after proxyd's own decision.
 */
struct px_upstream {
	struct sockaddr_storage	 http;	/* ss_family 0: none */
	socklen_t		 http_len;
	struct sockaddr_storage	 socks;
	socklen_t		 socks_len;
	char			*auth;		/* user:pass or NULL */
	char			**no_proxy;	/* dialed directly */
};

struct px_session {
	TAILQ_ENTRY(px_session)	 entry;
	char			*id;
	unsigned		 flags;		/* PX_F_* */
	struct egress_rules	*rules;		/* NULL: refuse all */
	int			 http_fd;
	int			 socks_fd;
	struct event		*http_ev;
	struct event		*socks_ev;
	struct event		*retry_ev;	/* accept paused */
	TAILQ_HEAD(, px_conn)	 conns;	/* not yet tunnels */
	TAILQ_HEAD(, px_tunnel)	 tunnels;	/* spliced relays */
	uint64_t		 nconns;
	uint32_t		 max_open;	/* its cap */
	uint32_t		 nopen;		/* conns + tunnels now */
	int			 refusing;	/* refusal said */
	uint64_t		 nrefused;
	struct px_upstream	*up;		/* NULL: dial directly */
	/* the host-header endpoint (MSG_PX_HOSTEP); -1: none */
	int			 hostep_fd;
	struct event		*hostep_ev;
	char			*hostep_pem;	/* trust, until first use */
	size_t			 hostep_pemlen;
	void			*hostep_ctx;	/* SSL_CTX toward servers */
};

/* Globals of the one process (main.c). */
extern struct event_base	*px_base;
extern struct evdns_base	*px_dns;

/* main.c: report a refusal to airlockd as MSG_PX_VIOLATION. */
void	 px_violation(const struct px_session *, const char *host,
	    uint16_t port);
/* main.c: the same with the action and target given. */
void	 px_violation_as(const char *id, const char *action,
	    const char *target);
/* main.c: send a frame to airlockd (fatal if it cannot). */
struct msgbuf;
void	 px_send(struct msgbuf *);
/* main.c: tell airlockd a session could not be taken (it fails it). */
void	 px_session_failed(const char *id, const char *reason);

/*
 * session.c: proxyd's file descriptors, shared by every session.  Each
 * connection is counted as the two sockets it may hold (the client's and
 * the upstream's), each session as its two listeners, each pipe as two;
 * PX_FD_RESERVE of the limit (a quarter of a limit below 256) is never
 * given to a connection or a pipe, so that a new session's listeners and
 * the frames of the channel to airlockd always arrive.
 */
#define PX_FD_RESERVE	64
void	 px_fds_init(void);
/* Do n more descriptors fit outside the reserve? */
int	 px_fd_room(unsigned n);
extern uint64_t	 px_nopen_all;	/* connections of every session */

/* session.c */
struct msg;
void	 px_session_add(struct msg *);
/* A session's listeners arrived without their fds (MSG_FDS_LOST). */
void	 px_session_add_truncated(struct msg *);
void	 px_session_del(const char *id);
/* MSG_PX_HOSTEP: the session's host-header endpoint and its trust. */
void	 px_session_hostep(struct msg *);
void	 px_session_hostep_truncated(struct msg *);
/* MSG_PX_UPSTREAM: the session's upstream proxies. */
void	 px_session_upstream(struct msg *);
void	 px_session_del_all(void);
/* Decide on host:port; on refusal report the violation, fill reason. */
int	 px_session_allows(struct px_session *, const char *host,
	    uint16_t port, char *reason, size_t reasonlen);

/*
 * conn.c: the read side of a bufferevent, done here.  libevent's own
 * reads ask ioctl(FIONREAD) before every readv(2); this is one recv(2).
 * The bufferevent keeps its buffers and its writes (px_bev_flush()); its
 * own EV_READ is never enabled.  The callbacks get what a bufferevent's
 * would: readcb after bytes arrived, eventcb with BEV_EVENT_READING and
 * EOF, ERROR or TIMEOUT (reading is then off).
 */
struct px_reader {
	struct bufferevent	*bev;
	struct event		*ev;
	struct evbuffer_cb_entry *wm;	/* resumes after the high water */
	bufferevent_data_cb	 readcb;
	bufferevent_event_cb	 eventcb;
	void			*arg;
	size_t			 high;	/* input this large: stop; 0: never */
	struct timeval		 tmo;	/* idle read timeout; 0: none */
	int			 on;	/* wanted by the protocol */
	int			 added;	/* registered with the loop */
};

void	 px_reader_init(struct px_reader *, struct bufferevent *,
	    bufferevent_data_cb, bufferevent_event_cb, void *arg,
	    int timeout_s, size_t high);
/* Start (or keep) reading; restarts the idle timeout. */
void	 px_reader_on(struct px_reader *);
void	 px_reader_off(struct px_reader *);
/* Before the bufferevent is freed; NULL-safe on an unused reader. */
void	 px_reader_free(struct px_reader *);

/*
 * A client connection while it is not (yet) a spliced tunnel: reading a
 * SOCKS5 handshake or an HTTP request head, waiting for the dial, or
 * forwarding absolute-form HTTP requests (http.c).  Buffered with
 * bufferevents; a tunnel frees all of this.
 */
enum px_conn_kind {
	PX_CONN_HTTP = 1,
	PX_CONN_SOCKS,
};

struct px_conn {
	TAILQ_ENTRY(px_conn)	 entry;
	struct px_session	*s;
	enum px_conn_kind	 kind;
	int			 state;		/* per kind */
	struct bufferevent	*cbev;		/* the sandbox side */
	struct px_reader	 rd;		/* cbev's reading */
	struct px_dial		*dial;
	char			 host[256];	/* target being dialed */
	uint16_t		 port;
	struct px_http		*http;		/* forwarding */
};

/* conn.c */
struct px_conn *px_conn_new(struct px_session *, enum px_conn_kind, int fd);
void	 px_conn_free(struct px_conn *);
void	 px_conn_release(struct px_conn *);
/*
 * Read what the client sent already, without waiting for an event: 1
 * bytes added to the input, 0 nothing yet, -1 EOF or error.
 */
int	 px_conn_read_now(struct px_conn *);
/*
 * Write a bufferevent's output now; only what would block is left to
 * its write event (bufferevents here keep EV_WRITE disabled otherwise).
 */
void	 px_bev_flush(struct bufferevent *);
/* Close every handshake/forwarding connection of a session. */
void	 px_conn_close_all(struct px_session *);
/*
 * Turn a connection whose dial succeeded into a spliced tunnel: whatever
 * the client already sent past its request goes first.  Frees c.
 */
void	 px_conn_to_tunnel(struct px_conn *, int upstream, short up_seen);

/* Connection kinds accepted from a session's listeners. */
void	 px_http_accept(struct px_session *, int fd);
void	 px_socks_accept(struct px_session *, int fd);
/* The host-header endpoint: origin-form requests routed by Host. */
void	 px_hostep_accept(struct px_session *, int fd);
void	 px_http_free(struct px_http *);

/*
 * resolve.c: after the target passed the allowlist, resolve it, check
 * every address (R-E5), dial the checked address.  Exactly one callback,
 * never from inside px_dial() itself, unless px_dial_cancel() came first.
 */
enum px_dial_status {
	PX_DIAL_OK = 0,
	PX_DIAL_REFUSED,	/* an address failed the R-E5 check */
	PX_DIAL_NXDOMAIN,	/* name did not resolve */
	PX_DIAL_UNREACHABLE,	/* every address refused the connection */
	PX_DIAL_TIMEOUT,
};

/*
 * seen (PX_DIAL_OK): the events the socket's registration reported from
 * connect(2) on; EV_READ or EV_CLOSED means bytes or a FIN may already
 * wait.  Exact for a tunnel: its registration passes to the relay with
 * no turn of the loop in between (px_tunnel_start()'s up_seen).
 */
typedef void (*px_dial_cb)(int fd, enum px_dial_status, short seen,
    const char *reason, void *arg);
struct px_dial;

/*
 * flags: PX_DIAL_TUNNEL, the fd will go to px_tunnel_start() (the
 * callback's duty); PX_DIAL_SOCKS, the client came through the SOCKS5
 * listener (it prefers the SOCKS5 upstream).
 */
#define PX_DIAL_TUNNEL	1
#define PX_DIAL_SOCKS	2
struct px_dial *px_dial(struct px_session *, const char *host, uint16_t port,
	    int flags, px_dial_cb cb, void *arg);
void	 px_dial_cancel(struct px_dial *);

/*
 * relay.c: splice bytes between two connected sockets until both
 * directions are closed.  Consumes both fds.  up_seen: what the
 * upstream's registration reported so far (the dial's seen; pass
 * EV_READ | EV_CLOSED when unknown).  pending/npending: bytes the client
 * already sent past its request that must reach the upstream first.
 * label: "host:port" for the close log line.
 */
/*
 * The one registration of a tunnel's socket, from the dial's connect to
 * the close (resolve.c uses it for the connect so it can be handed over).
 */
#define PX_TUNNEL_EV	(EV_READ | EV_WRITE | EV_CLOSED | EV_ET | EV_PERSIST)
void	 px_tunnel_start(struct px_session *, int client, int upstream,
	    short up_seen, const void *pending, size_t npending,
	    const char *label);
void	 px_tunnel_close_all(struct px_session *);
void	 px_relay_shutdown(void);
/* Pipes held, in tunnels and in the pool. */
size_t	 px_relay_pipes(void);
/* Close the pool's spare pipes: descriptors for connections. */
void	 px_relay_trim_pool(void);

/*
 * tls.c: masked credentials (MSG_PX_MASK, MSG_PX_MASK_END), the session
 * CA, TLS termination toward a masked host.  px_mask_judge_plain():
 * a head proxyd reads itself (CONNECT, plain HTTP) toward host; 0 to go
 * on, -1 refused with reason (reported to airlockd).
 */
void	 px_mask_add(struct msg *);
void	 px_mask_end(struct msg *);
void	 px_mask_del(const char *sid);
int	 px_mask_host(const struct px_session *, const char *host);
void	 px_inspect_add(struct msg *);
int	 px_inspect_host(const struct px_session *, const char *host);
struct http_request;
int	 px_inspect_judge_plain(struct px_session *,
	    const struct http_request *, char *reason, size_t reasonlen);
int	 px_mask_judge_plain(struct px_session *, const void *head,
	    size_t len, const char *host, uint16_t port, int connect,
	    char *reason, size_t reasonlen);
/* Take over a dialed CONNECT to a masked host (frees the conn). */
void	 px_mitm_start(struct px_conn *, int upstream);
void	 px_mitm_close_all(struct px_session *);
/*
 * The host-header endpoint's dialed connection: the sandbox's side in
 * clear (a unix socket inside), TLS toward host verified against the
 * session's trust, each request head judged as on a terminated one.
 * Takes c (freed) and upstream; what c read already goes first.
 */
void	 px_hostep_start(struct px_conn *, int upstream);
void	 px_hostep_ctx_free(struct px_session *);
/* The session's upstream trust loaded (once): 0, or -1 with err. */
int	 px_hostep_trust(struct px_session *, char *err, size_t errlen);

#endif
