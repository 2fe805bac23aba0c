// SPDX-License-Identifier: ISC
/*
 * proxyd sessions: one per sandbox session, each with its own pair of
 * listeners (never shared, R-E1) and its own compiled rules.  Removing a
 * session closes its listeners, every connection still in a handshake or
 * forwarding HTTP, and every tunnel.  Rules come from airlockd; the hard
 * deny list is applied here whatever airlockd sends.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"
#include "proxyd/proxyd.h"

static TAILQ_HEAD(, px_session) px_sessions =
    TAILQ_HEAD_INITIALIZER(px_sessions);

#define PX_ACCEPT_BATCH	64
#define PX_DEFER_ACCEPT	5	/* s a connection may wait for its bytes */

uint64_t	 px_nopen_all;
static uint64_t	 px_nsessions;
static uint64_t	 px_fd_limit;	/* RLIMIT_NOFILE, as raised */
static uint64_t	 px_fd_reserve;
static uint64_t	 px_fd_base;	/* open before any session */
#ifdef AIRLOCK_TEST_BUILD
static int	 px_no_share;
#endif

/*
 * Once, before the sandbox: the limit (main.c raised it to the hard one)
 * and what is open already (the channel, the resolver's sockets, the
 * event loop's).  A lazily opened descriptor of libevent's comes out of
 * the reserve's slack.
 */
void
px_fds_init(void)
{
	struct rlimit rl;
	int	 fd, top;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > INT_MAX)
		px_fd_limit = INT_MAX;
	else
		px_fd_limit = rl.rlim_cur;
	px_fd_reserve = px_fd_limit >= 4 * PX_FD_RESERVE ? PX_FD_RESERVE :
	    px_fd_limit / 4;
#ifdef AIRLOCK_TEST_BUILD
	/* edges.sh's control: no reserve and no share, so that the test
	 * shows a hog does starve the others without them. */
	if (getenv("AIRLOCK_TEST_NO_FAIR_SHARE") != NULL) {
		px_fd_reserve = 0;
		px_no_share = 1;
	}
#endif
	top = px_fd_limit < 4096 ? (int)px_fd_limit : 4096;
	for (fd = 0; fd < top; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			px_fd_base++;
	log_info("%llu file descriptors, %llu of them kept for new "
	    "sessions, %llu open", (unsigned long long)px_fd_limit,
	    (unsigned long long)px_fd_reserve,
	    (unsigned long long)px_fd_base);
}

static uint64_t
fds_used(void)
{
	return px_fd_base + 2 * px_nsessions + 2 * px_nopen_all +
	    2 * (uint64_t)px_relay_pipes();
}

int
px_fd_room(unsigned n)
{
	return fds_used() + n + px_fd_reserve <= px_fd_limit;
}

/*
 * Of the connections proxyd's limit allows (each counted as two
 * descriptors), no session may open more than a share of one more than
 * there are sessions, whatever its setting says: alone it takes at most
 * half, and a session that comes later still finds room.  One that
 * holds more than a later share keeps what it has and opens no more.
 */
static uint32_t
fair_share(void)
{
	uint64_t avail = px_fd_limit > px_fd_base + px_fd_reserve ?
	    px_fd_limit - px_fd_base - px_fd_reserve : 0;
	uint64_t share = avail / 2 / (px_nsessions + 1);

#ifdef AIRLOCK_TEST_BUILD
	if (px_no_share)
		return UINT32_MAX;
#endif
	if (share < 1)
		share = 1;
	return share > UINT32_MAX ? UINT32_MAX : (uint32_t)share;
}

/*
 * Whether s may have one more connection: under its cap, and with room
 * outside the reserve (the pool's idle pipes go first).  A refusal is
 * said once until a connection is admitted again: in the log, and to
 * airlockd as a violation of the session.
 */
static int
session_admit(struct px_session *s)
{
	char	 target[128];
	int	 cap = s->nopen >= s->max_open || s->nopen >= fair_share();

	if (!cap) {
		if (!px_fd_room(2))
			px_relay_trim_pool();
		if (px_fd_room(2)) {
			s->refusing = 0;
			return 1;
		}
	}
	s->nrefused++;
	if (s->refusing)
		return 0;
	s->refusing = 1;
	if (cap)
		snprintf(target, sizeof(target), "%u connections open, its "
		    "cap (sandbox.network.maxConnections %u, its fair share "
		    "%u)", s->nopen, s->max_open, fair_share());
	else
		snprintf(target, sizeof(target), "%u connections open; "
		    "proxyd's file descriptors are in use", s->nopen);
	log_warnx("session %s: new connection refused: %s", s->id, target);
	px_violation_as(s->id, "network-connections", target);
	return 0;
}

static struct px_session *
session_find(const char *id)
{
	struct px_session *s;

	TAILQ_FOREACH(s, &px_sessions, entry)
		if (strcmp(s->id, id) == 0)
			return s;
	return NULL;
}

static void
session_resume(int fd, short ev, void *arg)
{
	struct px_session *s = arg;

	(void)fd;
	(void)ev;
	event_add(s->http_ev, NULL);
	event_add(s->socks_ev, NULL);
	if (s->hostep_ev != NULL)
		event_add(s->hostep_ev, NULL);
}

static void
session_pause(struct px_session *s)
{
	struct timeval tv = { 1, 0 };

	event_del(s->http_ev);
	event_del(s->socks_ev);
	if (s->hostep_ev != NULL)
		event_del(s->hostep_ev);
	event_add(s->retry_ev, &tv);
}

static void
session_accept(int lfd, short ev, void *arg, int is_http)
{
	struct px_session *s = arg;
	int	 fd, i;

	(void)ev;
	for (i = 0; i < PX_ACCEPT_BATCH; i++) {
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			if (errno == EAGAIN || errno == EINTR ||
			    errno == ECONNABORTED)
				return;
			/*
			 * Out of fds (or worse): the listener stays readable,
			 * so pause it for a second instead of spinning.
			 */
			log_warn("session %s: accept", s->id);
			session_pause(s);
			return;
		}
		s->nconns++;
		/* Refused: closed at once, so the client is not left
		 * waiting (the reserve had room for the accept). */
		if (!session_admit(s)) {
			close(fd);
			continue;
		}
		if (is_http == 2)
			px_hostep_accept(s, fd);
		else if (is_http)
			px_http_accept(s, fd);
		else
			px_socks_accept(s, fd);
	}
}

static void
session_accept_http(int fd, short ev, void *arg)
{
	session_accept(fd, ev, arg, 1);
}

static void
session_accept_socks(int fd, short ev, void *arg)
{
	session_accept(fd, ev, arg, 0);
}

static void
session_accept_hostep(int fd, short ev, void *arg)
{
	session_accept(fd, ev, arg, 2);
}

/* A listener handed to us must be a listening TCP socket. */
static int
check_listener(int fd)
{
	int	 v = 0, fl;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &len) == -1 ||
	    v != 1)
		return -1;
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len) == -1 ||
	    v != SOCK_STREAM)
		return -1;
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		return -1;
	/*
	 * Both protocols have the client speak first: accept(2) returns
	 * a connection once its first bytes are in, and they are read
	 * right away (px_conn_read_now()), one wake-up instead of two.
	 * Best effort: without it the first read just finds nothing.
	 */
	v = PX_DEFER_ACCEPT;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &v, sizeof(v));
	return 0;
}

static void
session_free(struct px_session *s)
{
	if (s == NULL)
		return;
	if (s->retry_ev != NULL)
		event_free(s->retry_ev);
	if (s->http_ev != NULL)
		event_free(s->http_ev);
	if (s->socks_ev != NULL)
		event_free(s->socks_ev);
	if (s->http_fd != -1)
		close(s->http_fd);
	if (s->socks_fd != -1)
		close(s->socks_fd);
	if (s->hostep_ev != NULL)
		event_free(s->hostep_ev);
	if (s->hostep_fd != -1)
		close(s->hostep_fd);
	free(s->hostep_pem);
	px_hostep_ctx_free(s);
	px_conn_close_all(s);
	px_tunnel_close_all(s);
	px_mitm_close_all(s);
	if (s->up != NULL) {
		if (s->up->auth != NULL)
			explicit_bzero(s->up->auth, strlen(s->up->auth));
		free(s->up->auth);
		strv_free(s->up->no_proxy);
		free(s->up);
	}
	egress_rules_free(s->rules);
	free(s->id);
	free(s);
	px_nsessions--;
}

void
px_session_add(struct msg *m)
{
	struct px_session *s;
	const char *id, *why;
	char	**allow, **deny;
	unsigned flags;
	uint32_t max_open;

	id = msg_get_str(m);
	flags = msg_get_u32(m);
	max_open = msg_get_u32(m);
	allow = msg_get_strv(m);
	deny = msg_get_strv(m);
	/*
	 * A session airlockd got wrong fails closed on its own: its
	 * listeners are closed (the sandbox sees no proxy), other sessions
	 * carry on.
	 */
	if (strlen(id) == 0 || strlen(id) >= PX_SESSION_ID_MAX ||
	    session_find(id) != NULL) {
		log_warnx("session add: bad or duplicate id: refused");
		if (strlen(id) > 0 && strlen(id) < PX_SESSION_ID_MAX &&
		    session_find(id) == NULL)
			px_session_failed(id, "a bad session id");
		goto refuse;
	}

	s = xcalloc(1, sizeof(*s));
	px_nsessions++;
	s->id = xstrdup(id);
	s->flags = flags;
	s->max_open = max_open > 0 ? max_open : 1;
	TAILQ_INIT(&s->conns);
	TAILQ_INIT(&s->tunnels);
	s->hostep_fd = -1;
	s->http_fd = msg_take_fd(m, 0);
	s->socks_fd = msg_take_fd(m, 1);
	if (check_listener(s->http_fd) == -1 ||
	    check_listener(s->socks_fd) == -1) {
		log_warnx("session %s: fds are not listening TCP sockets: "
		    "refused", id);
		px_session_failed(id, "its listeners are not listening TCP "
		    "sockets");
		session_free(s);
		strv_free(allow);
		strv_free(deny);
		return;
	}
	if (flags & PX_F_NETWORK) {
		s->rules = egress_rules_new(allow, deny, &why);
		if (s->rules == NULL)
			/* a deny we cannot apply: refuse everything */
			log_warnx("session %s: invalid deny rule (%s): "
			    "network refused", id, why);
	}
	s->http_ev = event_new(px_base, s->http_fd, EV_READ | EV_PERSIST,
	    session_accept_http, s);
	s->socks_ev = event_new(px_base, s->socks_fd, EV_READ | EV_PERSIST,
	    session_accept_socks, s);
	s->retry_ev = evtimer_new(px_base, session_resume, s);
	if (s->http_ev == NULL || s->socks_ev == NULL || s->retry_ev == NULL ||
	    event_add(s->http_ev, NULL) == -1 ||
	    event_add(s->socks_ev, NULL) == -1)
		fatalx("session %s: listener events", id);
	TAILQ_INSERT_TAIL(&px_sessions, s, entry);
	log_info("session %s: network %s, %zu allow, %zu deny rules, at most "
	    "%u connections (a fair share now: %u)", id, s->rules != NULL ?
	    "on" : "off", strv_len(allow), strv_len(deny), s->max_open,
	    fair_share());
	strv_free(allow);
	strv_free(deny);
	return;
refuse:
	strv_free(allow);
	strv_free(deny);
	/* msg_free() closes the listeners we did not take */
}

/*
 * The frame arrived whole, its listeners did not (proxyd was out of
 * descriptors): that session fails, alone; airlockd is told and ends
 * it, the others go on.
 */
void
px_session_add_truncated(struct msg *m)
{
	const char *id = msg_get_str(m);

	log_warnx("session %s: its listeners arrived truncated (out of "
	    "file descriptors): refused", id);
	if (session_find(id) == NULL)
		px_session_failed(id, "its listeners arrived truncated: "
		    "proxyd is out of file descriptors");
}

/*
 * MSG_PX_HOSTEP: the session's host-header endpoint, a unix socket
 * airlockd made and bound into the sandbox, and the certificates its
 * upstream servers are verified with (kept as PEM, loaded at the first
 * request: most sessions never use it; none when airlockd found none,
 * and each request is then answered why).  A listener that is not one
 * fails the session closed, as bad listeners do.
 */
void
px_session_hostep(struct msg *m)
{
	struct px_session *s;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	const char *id;
	const void *pem;
	size_t	 len;
	int	 fd;

	id = msg_get_str(m);
	pem = msg_get_blob(m, &len);
	if ((s = session_find(id)) == NULL || s->hostep_fd != -1) {
		log_warnx("session %s: host-header endpoint for no session "
		    "or twice: refused", id);
		return;		/* msg_free() closes the fd */
	}
	fd = msg_take_fd(m, 0);
	if (check_listener(fd) == -1 || getsockname(fd, (struct sockaddr *)&ss,
	    &sl) == -1 || ss.ss_family != AF_UNIX) {
		close(fd);
		log_warnx("session %s: the host-header endpoint is not a "
		    "listening unix socket: refused", id);
		px_session_failed(id, "its host-header endpoint is not a "
		    "listening unix socket");
		return;
	}
	s->hostep_fd = fd;
	if (len > 0) {
		s->hostep_pem = xmalloc(len);
		memcpy(s->hostep_pem, pem, len);
		s->hostep_pemlen = len;
	}
	s->hostep_ev = event_new(px_base, fd, EV_READ | EV_PERSIST,
	    session_accept_hostep, s);
	if (s->hostep_ev == NULL || event_add(s->hostep_ev, NULL) == -1)
		fatalx("session %s: host-header endpoint event", id);
}

void
px_session_hostep_truncated(struct msg *m)
{
	const char *id = msg_get_str(m);

	log_warnx("session %s: its host-header endpoint arrived truncated "
	    "(out of file descriptors): refused", id);
	px_session_failed(id, "its host-header endpoint arrived truncated: "
	    "proxyd is out of file descriptors");
}

void
px_session_del(const char *id)
{
	struct px_session *s;

	if ((s = session_find(id)) == NULL) {
		log_warnx("session %s: not found", id);
		return;
	}
	TAILQ_REMOVE(&px_sessions, s, entry);
	log_info("session %s: removed after %llu connections", id,
	    (unsigned long long)s->nconns);
	session_free(s);
}

void
px_session_del_all(void)
{
	struct px_session *s;

	while ((s = TAILQ_FIRST(&px_sessions)) != NULL) {
		TAILQ_REMOVE(&px_sessions, s, entry);
		session_free(s);
	}
}

int
px_session_allows(struct px_session *s, const char *host, uint16_t port,
    char *reason, size_t reasonlen)
{
	/* untrusted: host and port from the sandbox */
	if (s->rules == NULL) {
		snprintf(reason, reasonlen, "network disabled");
		px_violation(s, host, port);
		return 0;
	}
	if (egress_rules_decide(s->rules, host, port, reason, reasonlen) !=
	    POL_ALLOW) {
		log_info("session %s: refused %s:%u: %s", s->id, host, port,
		    reason);
		px_violation(s, host, port);
		return 0;
	}
	return 1;
}

/* "ADDRESS:PORT" (IPv6 in brackets), as settings.c normalised it. */
static socklen_t
upstream_addr(const char *a, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	const char *colon = strrchr(a, ':');
	char	 host[64];
	size_t	 hl;
	long	 port;
	int	 af;
	uint8_t	 ad[16];

	memset(ss, 0, sizeof(*ss));
	if (colon == NULL || (hl = (size_t)(colon - a)) < 1 ||
	    hl >= sizeof(host))
		return 0;
	if (a[0] == '[' && hl > 2 && a[hl - 1] == ']') {
		a++;
		hl -= 2;
	}
	memcpy(host, a, hl);
	host[hl] = '\0';
	port = strtol(colon + 1, NULL, 10);
	if (port < 1 || port > 65535 || !dom_host_is_ip(host, &af, ad))
		return 0;
	if (af == AF_INET) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		memcpy(&sin->sin_addr, ad, 4);
		return sizeof(*sin);
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons((uint16_t)port);
	memcpy(&sin6->sin6_addr, ad, 16);
	return sizeof(*sin6);
}

void
px_session_upstream(struct msg *m)
{
	struct px_session *s;
	struct px_upstream *up;
	const char *id, *http, *socks, *auth;
	char	**np;

	id = msg_get_str(m);
	http = msg_get_str(m);
	socks = msg_get_str(m);
	auth = msg_get_str(m);
	np = msg_get_strv(m);
	if ((s = session_find(id)) == NULL || s->up != NULL) {
		log_warnx("session %s: upstream for no session", id);
		strv_free(np);
		return;
	}
	up = xcalloc(1, sizeof(*up));
	up->http_len = *http != '\0' ? upstream_addr(http, &up->http) : 0;
	up->socks_len = *socks != '\0' ? upstream_addr(socks, &up->socks) : 0;
	if ((*http != '\0' && up->http_len == 0) ||
	    (*socks != '\0' && up->socks_len == 0))
		fatalx("MSG_PX_UPSTREAM: bad address from airlockd");
	up->auth = *auth != '\0' ? xstrdup(auth) : NULL;
	up->no_proxy = np;
	s->up = up;
	log_info("session %s: upstream http %s, socks5 %s, %zu noProxy "
	    "patterns%s", id, *http ? http : "none", *socks ? socks : "none",
	    strv_len(np), up->auth != NULL ? ", with credentials" : "");
}
