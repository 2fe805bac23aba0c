// SPDX-License-Identifier: ISC
/*
 * Resolve and dial (SPEC R-E5).  Called only for a target that already
 * passed the session's allowlist.  proxyd resolves the name itself (evdns,
 * configured at start-up), checks EVERY address the name resolved to, and
 * refuses the connection if any of them is loopback, link-local, private,
 * metadata or otherwise special and not explicitly allowed: a name that
 * answers with a public address and 127.0.0.1 is a rebinding attempt, not
 * a choice.  The connection then goes to one of the checked addresses,
 * never to a second lookup's answer.
 *
 * The connect is watched by an edge-triggered read+write event.  For a
 * tunnel, the relay registers the same kind of event on the socket before
 * this one is freed, so the socket stays in the epoll set unchanged from
 * connect(2) to close(2).
 */
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/dns.h>
#include <event2/event.h>
#include <event2/util.h>

#include "common/b64.h"
#include "common/http.h"
#include "common/log.h"
#include "common/socks.h"
#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"
#include "proxyd/proxyd.h"

#define PX_DIAL_MAX_ADDRS	8

struct px_dial {
	struct px_session	*s;
	char			 host[DOM_NAME_MAX];
	uint16_t		 port;
	px_dial_cb		 cb;
	void			*arg;
	int			 tunnel;	/* fd will be spliced */
	int			 connected;
	short			 seen;		/* events since connect(2) */
	struct evdns_getaddrinfo_request *req;
	int			 cancelled;
	struct event		*done_ev;	/* delivers the callback */
	struct event		*conn_ev;	/* connect in progress */
	struct sockaddr_storage	 addrs[PX_DIAL_MAX_ADDRS];
	socklen_t		 lens[PX_DIAL_MAX_ADDRS];
	int			 naddrs;
	int			 cur;
	int			 fd;
	enum px_dial_status	 status;
	char			 reason[EGRESS_REASON_MAX];
	/* through an upstream proxy: its kind and the handshake's step */
	int			 via;		/* 0 or VIA_* */
	int			 hs;		/* HS_* */
};

enum { VIA_HTTP = 1, VIA_SOCKS };
enum { HS_NONE = 0, HS_HTTP, HS_SOCKS_METHOD, HS_SOCKS_AUTH, HS_SOCKS_REPLY };

static void dial_next(struct px_dial *);
static int dial_handshake(struct px_dial *, short);
static void dial_upstream(struct px_dial *);
static int hs_start(struct px_dial *);

static void
dial_free(struct px_dial *d)
{
	if (d->done_ev != NULL)
		event_free(d->done_ev);
	if (d->conn_ev != NULL)
		event_free(d->conn_ev);
	if (d->fd != -1)
		close(d->fd);
	free(d);
}

static void
dial_done_cb(int fd, short ev, void *arg)
{
	struct px_dial *d = arg;
	px_dial_cb cb = d->cb;
	void	*cbarg = d->arg;
	int	 rfd = d->fd;
	short	 seen = d->seen & (EV_READ | EV_CLOSED);
	enum px_dial_status st = d->status;
	char	 reason[EGRESS_REASON_MAX];

	(void)fd;
	(void)ev;
	memcpy(reason, d->reason, sizeof(reason));
	d->fd = -1;		/* ownership goes to the callback */
	if (st == PX_DIAL_OK && d->tunnel) {
		/* the relay takes over the registration (see the top) */
		cb(rfd, st, seen, reason, cbarg);
		dial_free(d);
		return;
	}
	dial_free(d);
	cb(rfd, st, seen, reason, cbarg);
}

/* Finish with a status; the callback runs from the loop, not from here. */
static void
dial_finish(struct px_dial *d, enum px_dial_status st, const char *reason)
{
	d->status = st;
	/*
	 * A dial that failed early passes its own reason back: snprintf
	 * onto its own source is undefined (glibc leaves it empty).
	 */
	if (reason != d->reason)
		snprintf(d->reason, sizeof(d->reason), "%s", reason);
	if (st != PX_DIAL_OK && d->fd != -1) {
		close(d->fd);
		d->fd = -1;
	}
	event_active(d->done_ev, 0, 0);
}

/*
 * R-E5, for addresses the host gained after proxyd read its interfaces:
 * a connection whose local address is its remote address went to this
 * host.  The address becomes special from now on, and this connection
 * is refused unless an IP rule names it.  0 to go on, -1 if refused.
 */
static int
dial_is_self(struct px_dial *d)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len = sizeof(ss);
	const struct sockaddr_storage *to = &d->addrs[d->cur];
	const void		*a, *b;
	char			 reason[EGRESS_REASON_MAX];
	size_t			 n;

	if (getsockname(d->fd, (struct sockaddr *)&ss, &len) == -1 ||
	    ss.ss_family != to->ss_family)
		return 0;
	if (ss.ss_family == AF_INET) {
		a = &((struct sockaddr_in *)&ss)->sin_addr;
		b = &((const struct sockaddr_in *)to)->sin_addr;
		n = 4;
	} else if (ss.ss_family == AF_INET6) {
		a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
		b = &((const struct sockaddr_in6 *)to)->sin6_addr;
		n = 16;
	} else
		return 0;
	if (memcmp(a, b, n) != 0)
		return 0;
	(void)egress_host_addr_add(ss.ss_family, b);
	if (egress_rules_check_addr(d->s->rules, d->host, ss.ss_family, b,
	    d->port, reason, sizeof(reason)) == POL_ALLOW)
		return 0;
	event_free(d->conn_ev);
	d->conn_ev = NULL;
	log_info("session %s: refused %s:%u: %s", d->s->id, d->host, d->port,
	    reason);
	px_violation(d->s, d->host, d->port);
	dial_finish(d, PX_DIAL_REFUSED, reason);
	return -1;
}

static void
dial_connected(int fd, short ev, void *arg)
{
	struct px_dial *d = arg;
	int	 err = 0;
	socklen_t len = sizeof(err);

	(void)fd;
	d->seen |= ev;		/* for the relay, see px_dial_cb */
	if (d->connected)
		return;		/* a later edge before the hand-over */
	if (d->hs != HS_NONE) {
		if (dial_handshake(d, ev) == 1)
			return;		/* more to read */
		goto done;
	}
	if (ev & EV_TIMEOUT)
		err = ETIMEDOUT;
	/*
	 * Writable alone means connected: a failed connect also raises
	 * EPOLLERR, which libevent reports as read and write.  Readable
	 * too (an error, or a server that spoke first): ask the socket.
	 */
	else if ((ev & (EV_READ | EV_CLOSED)) &&
	    getsockopt(d->fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		err = errno;
	if (err == 0 && !d->via && dial_is_self(d) == -1)
		return;
	if (err == 0 && d->via) {
		/* connected to the upstream proxy: ask it for the target */
		if (hs_start(d) == 0)
			return;
		goto done;
	}
	if (err == 0) {
done:
		if (d->status != PX_DIAL_OK) {
			event_free(d->conn_ev);
			d->conn_ev = NULL;
			dial_finish(d, d->status, d->reason);
			return;
		}
		d->connected = 1;
		if (!d->tunnel) {
			event_free(d->conn_ev);
			d->conn_ev = NULL;
		}
		dial_finish(d, PX_DIAL_OK, "connected");
		return;
	}
	event_free(d->conn_ev);
	d->conn_ev = NULL;
	log_debug("connect %s:%u (address %d): %s", d->host, d->port,
	    d->cur, strerror(err));
	close(d->fd);
	d->fd = -1;
	d->cur++;
	if (d->cur >= d->naddrs) {
		dial_finish(d, err == ETIMEDOUT ? PX_DIAL_TIMEOUT :
		    PX_DIAL_UNREACHABLE, strerror(err));
		return;
	}
	dial_next(d);
}

/* The handshake failed: the dial ends with why (never a direct dial). */
static int
hs_fail(struct px_dial *d, const char *why)
{
	d->status = PX_DIAL_UNREACHABLE;
	snprintf(d->reason, sizeof(d->reason), "upstream proxy: %s", why);
	log_info("session %s: %s:%u: %s", d->s->id, d->host, d->port,
	    d->reason);
	return 0;
}

static int
hs_send(struct px_dial *d, const void *buf, size_t len)
{
	/* a fresh connection's send buffer takes a handshake whole */
	if (send(d->fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
		return hs_fail(d, "cannot send") - 1;
	return 0;
}

/* The target as the upstream is told it: a name, or a literal. */
static int
hs_start(struct px_dial *d)
{
	const struct px_upstream *up = d->s->up;
	char	 req[1024], *b64;
	uint8_t	 g[4];
	int	 n;

	if (d->via == VIA_SOCKS) {
		g[0] = 5;
		g[1] = up->auth != NULL ? 2 : 1;
		g[2] = up->auth != NULL ? 2 : 0;	/* user/password */
		g[3] = 0;				/* or none */
		d->hs = HS_SOCKS_METHOD;
		return hs_send(d, g, up->auth != NULL ? 4 : 3);
	}
	n = snprintf(req, sizeof(req), strchr(d->host, ':') != NULL ?
	    "CONNECT [%s]:%u HTTP/1.1\r\nHost: [%s]:%u\r\n" :
	    "CONNECT %s:%u HTTP/1.1\r\nHost: %s:%u\r\n", d->host, d->port,
	    d->host, d->port);
	if (up->auth != NULL) {
		b64 = b64_encode((const unsigned char *)up->auth,
		    strlen(up->auth));
		if (strlen(b64) > 400) {
			free(b64);
			return hs_fail(d, "credential too long") - 1;
		}
		n += snprintf(req + n, sizeof(req) - (size_t)n,
		    "Proxy-Authorization: Basic %s\r\n", b64);
		explicit_bzero(b64, strlen(b64));
		free(b64);
	}
	n += snprintf(req + n, sizeof(req) - (size_t)n, "\r\n");
	d->hs = HS_HTTP;
	n = hs_send(d, req, (size_t)n);
	explicit_bzero(req, sizeof(req));
	return n;
}

/* Read exactly what one answer holds, not a byte of the target's. */
static ssize_t
hs_peek(struct px_dial *d, uint8_t *buf, size_t len)
{
	ssize_t	 n = recv(d->fd, buf, len, MSG_PEEK);

	if (n == 0)
		return hs_fail(d, "closed the connection") - 1;
	if (n == -1 && errno != EAGAIN && errno != EINTR)
		return hs_fail(d, strerror(errno)) - 1;
	return n == -1 ? 0 : n;
}

/*
 * One step of the upstream's handshake on a readable edge: 1 to wait
 * for more, 0 when done (d->status says how).
 */
static int
dial_handshake(struct px_dial *d, short ev)
{
	const struct px_upstream *up = d->s->up;
	uint8_t	 buf[4096], req[600];
	const char *e, *why;
	struct http_response r;
	ssize_t	 n;
	size_t	 hl, ul, pl, hn;
	uint8_t	 rep;
	int	 af;

	if (ev & EV_TIMEOUT)
		return hs_fail(d, "timed out");
	/* untrusted-ish: the upstream proxy's answers */
	if ((n = hs_peek(d, buf, sizeof(buf) - 1)) <= 0)
		return n == 0 && d->status == PX_DIAL_OK ? 1 : 0;
	switch (d->hs) {
	case HS_HTTP:
		switch (http_head_scan(buf, (size_t)n, &hl)) {
		case HTTP_SCAN_MORE:
			return (size_t)n < sizeof(buf) - 1 ? 1 :
			    hs_fail(d, "answer head too long");
		case HTTP_SCAN_ERROR:
			return hs_fail(d, "malformed answer");
		default:
			break;
		}
		(void)recv(d->fd, buf, hl, 0);
		if (http_response_parse(buf, hl, 0, 1, &r, &why) == -1)
			return hs_fail(d, why);
		if (r.status / 100 != 2) {
			snprintf((char *)req, sizeof(req), "answered %d %.64s",
			    r.status, r.reason);
			http_response_free(&r);
			return hs_fail(d, (char *)req);
		}
		http_response_free(&r);
		return 0;
	case HS_SOCKS_METHOD:
		if (n < 2)
			return 1;
		(void)recv(d->fd, buf, 2, 0);
		if (buf[0] != 5 || (buf[1] != 0 && buf[1] != 2) ||
		    (buf[1] == 2 && up->auth == NULL))
			return hs_fail(d, "no acceptable SOCKS5 method");
		if (buf[1] == 2) {
			/* RFC 1929: VER ULEN UNAME PLEN PASSWD */
			e = strchr(up->auth, ':');
			ul = e != NULL ? (size_t)(e - up->auth) : 0;
			pl = e != NULL ? strlen(e + 1) : 0;
			if (e == NULL || ul == 0 || ul > 255 || pl > 255)
				return hs_fail(d, "credential is not "
				    "user:password");
			req[0] = 1;
			req[1] = (uint8_t)ul;
			memcpy(req + 2, up->auth, ul);
			req[2 + ul] = (uint8_t)pl;
			memcpy(req + 3 + ul, e + 1, pl);
			d->hs = HS_SOCKS_AUTH;
			n = hs_send(d, req, 3 + ul + pl);
			explicit_bzero(req, sizeof(req));
			return n == 0 ? 1 : 0;
		}
		goto request;
	case HS_SOCKS_AUTH:
		if (n < 2)
			return 1;
		(void)recv(d->fd, buf, 2, 0);
		if (buf[1] != 0)
			return hs_fail(d, "SOCKS5 credentials refused");
request:
		req[0] = 5;
		req[1] = 1;
		req[2] = 0;
		if (dom_host_is_ip(d->host, &af, buf)) {
			req[3] = af == AF_INET ? 1 : 4;
			hn = af == AF_INET ? 4 : 16;
			memcpy(req + 4, buf, hn);
			hn += 4;
		} else {
			req[3] = 3;
			req[4] = (uint8_t)strlen(d->host);
			memcpy(req + 5, d->host, req[4]);
			hn = 5 + (size_t)req[4];
		}
		req[hn++] = (uint8_t)(d->port >> 8);
		req[hn++] = (uint8_t)d->port;
		d->hs = HS_SOCKS_REPLY;
		return hs_send(d, req, hn) == 0 ? 1 : 0;
	default:	/* HS_SOCKS_REPLY */
		switch (socks_reply_parse(buf, (size_t)n, &hl, &rep)) {
		case SOCKS_MORE:
			return 1;
		case SOCKS_ERROR:
			return hs_fail(d, "malformed SOCKS5 reply");
		default:
			break;
		}
		(void)recv(d->fd, buf, hl, 0);
		if (rep != 0) {
			snprintf((char *)req, sizeof(req), "SOCKS5 reply %u",
			    rep);
			return hs_fail(d, (char *)req);
		}
		return 0;
	}
}

static void
dial_next(struct px_dial *d)
{
	struct timeval tv = { PX_CONNECT_TIMEOUT, 0 };
	int	 one = 1;

	for (; d->cur < d->naddrs; d->cur++) {
		d->fd = socket(d->addrs[d->cur].ss_family,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (d->fd == -1)
			continue;
		(void)setsockopt(d->fd, IPPROTO_TCP, TCP_NODELAY, &one,
		    sizeof(one));
		if (connect(d->fd, (struct sockaddr *)&d->addrs[d->cur],
		    d->lens[d->cur]) == 0 || errno == EINPROGRESS) {
			d->conn_ev = event_new(px_base, d->fd, PX_TUNNEL_EV,
			    dial_connected, d);
			if (d->conn_ev == NULL ||
			    event_add(d->conn_ev, &tv) == -1)
				fatalx("connect event");
			return;
		}
		close(d->fd);
		d->fd = -1;
	}
	dial_finish(d, PX_DIAL_UNREACHABLE, "connection refused");
}

/* Check one address; on refusal finish the dial and report. */
static int
dial_check(struct px_dial *d, int af, const void *addr)
{
	char	 reason[EGRESS_REASON_MAX];

	if (egress_rules_check_addr(d->s->rules, d->host, af, addr, d->port,
	    reason, sizeof(reason)) == POL_ALLOW)
		return 0;
	log_info("session %s: refused %s:%u: %s", d->s->id, d->host, d->port,
	    reason);
	px_violation(d->s, d->host, d->port);
	dial_finish(d, PX_DIAL_REFUSED, reason);
	return -1;
}

static void
dial_add(struct px_dial *d, int af, const void *addr)
{
	struct sockaddr_in *sin;
	struct sockaddr_in6 *sin6;

	if (d->naddrs == PX_DIAL_MAX_ADDRS)
		return;
	memset(&d->addrs[d->naddrs], 0, sizeof(d->addrs[0]));
	if (af == AF_INET) {
		sin = (struct sockaddr_in *)&d->addrs[d->naddrs];
		sin->sin_family = AF_INET;
		sin->sin_port = htons(d->port);
		memcpy(&sin->sin_addr, addr, 4);
		d->lens[d->naddrs] = sizeof(*sin);
	} else {
		sin6 = (struct sockaddr_in6 *)&d->addrs[d->naddrs];
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(d->port);
		memcpy(&sin6->sin6_addr, addr, 16);
		d->lens[d->naddrs] = sizeof(*sin6);
	}
	d->naddrs++;
}

static void
dial_dns_cb(int result, struct evutil_addrinfo *res, void *arg)
{
	struct px_dial *d = arg;
	struct evutil_addrinfo *ai;
	const void *addr;

	d->req = NULL;
	if (d->cancelled) {
		if (res != NULL)
			evutil_freeaddrinfo(res);
		dial_free(d);
		return;
	}
	if (result != 0 || res == NULL) {
		if (res != NULL)
			evutil_freeaddrinfo(res);
		/*
		 * Not resolvable here, the usual case behind a corporate
		 * proxy: the upstream resolves the name it is given.
		 */
		if (d->via) {
			dial_upstream(d);
			return;
		}
		dial_finish(d, PX_DIAL_NXDOMAIN, evutil_gai_strerror(result));
		return;
	}
	/* untrusted: answers from the network's DNS */
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (ai->ai_family == AF_INET)
			addr = &((struct sockaddr_in *)ai->ai_addr)->sin_addr;
		else if (ai->ai_family == AF_INET6)
			addr = &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;
		else
			continue;
		if (dial_check(d, ai->ai_family, addr) == -1) {
			evutil_freeaddrinfo(res);
			return;
		}
		dial_add(d, ai->ai_family, addr);
	}
	evutil_freeaddrinfo(res);
	/* every address passed R-E5: the upstream is told the name */
	if (d->via) {
		dial_upstream(d);
		return;
	}
	if (d->naddrs == 0) {
		dial_finish(d, PX_DIAL_NXDOMAIN, "no usable address");
		return;
	}
	dial_next(d);
}

/*
 * Which upstream a connection goes through: none when the session has
 * none or host matches noProxy; else the one of the client's kind
 * (HTTP for the HTTP proxy's, SOCKS5 for SOCKS5's), or the other.
 */
static int
dial_via(const struct px_session *s, const char *host, uint16_t port,
    int from_socks)
{
	const struct px_upstream *up = s->up;
	size_t	 i;

	if (up == NULL)
		return 0;
	for (i = 0; up->no_proxy != NULL && up->no_proxy[i] != NULL; i++)
		if (dom_match(up->no_proxy[i], host, port))
			return 0;
	if (up->http_len != 0 && (!from_socks || up->socks_len == 0))
		return VIA_HTTP;
	return VIA_SOCKS;
}

/* Dial the upstream instead of the target's addresses (checked). */
static void
dial_upstream(struct px_dial *d)
{
	const struct px_upstream *up = d->s->up;

	d->naddrs = 1;
	d->cur = 0;
	if (d->via == VIA_HTTP) {
		memcpy(&d->addrs[0], &up->http, sizeof(up->http));
		d->lens[0] = up->http_len;
	} else {
		memcpy(&d->addrs[0], &up->socks, sizeof(up->socks));
		d->lens[0] = up->socks_len;
	}
	dial_next(d);
}

struct px_dial *
px_dial(struct px_session *s, const char *host, uint16_t port, int flags,
    px_dial_cb cb, void *arg)
{
	int	 tunnel = (flags & PX_DIAL_TUNNEL) != 0;
	struct px_dial *d = xcalloc(1, sizeof(*d));
	struct evutil_addrinfo hints;
	struct evdns_getaddrinfo_request *req;
	uint8_t	 a[16];
	int	 af;

	d->s = s;
	d->port = port;
	d->cb = cb;
	d->arg = arg;
	d->tunnel = tunnel;
	d->fd = -1;
	snprintf(d->host, sizeof(d->host), "%s", host);
	d->via = dial_via(s, host, port, (flags & PX_DIAL_SOCKS) != 0);
	if ((d->done_ev = event_new(px_base, -1, 0, dial_done_cb, d)) == NULL)
		fatalx("dial event");

	if (dom_host_is_ip(host, &af, a)) {
		/* a literal is checked like any resolved address */
		if (dial_check(d, af, a) == 0) {
			dial_add(d, af, a);
			if (d->via)
				dial_upstream(d);
			else
				dial_next(d);
		}
		return d;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_protocol = IPPROTO_TCP;
	req = evdns_getaddrinfo(px_dns, host, NULL, &hints, dial_dns_cb, d);
	/* NULL: the answer came synchronously (hosts file) or failed */
	if (req != NULL && d->naddrs == 0 && d->status == PX_DIAL_OK &&
	    d->fd == -1)
		d->req = req;
	return d;
}

void
px_dial_cancel(struct px_dial *d)
{
	if (d == NULL)
		return;
	if (d->req != NULL) {
		/* dial_dns_cb() frees d when the cancellation arrives */
		d->cancelled = 1;
		evdns_getaddrinfo_cancel(d->req);
		return;
	}
	dial_free(d);
}
