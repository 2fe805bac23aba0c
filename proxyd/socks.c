// SPDX-License-Identifier: ISC
/*
 * The SOCKS5 proxy of a session (R-E1): no-auth only; CONNECT with IPv4,
 * domain or IPv6 targets; BIND and UDP ASSOCIATE answered "command not
 * supported".  A refused target gets reply 0x02 and a violation.  After a
 * successful reply the connection becomes a spliced tunnel.
 */
#include <sys/socket.h>
#include <netinet/in.h>

#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "common/log.h"
#include "common/socks.h"
#include "policy/egress.h"
#include "proxyd/proxyd.h"

enum {
	SS_GREETING = 0,
	SS_REQUEST,
	SS_DIAL,
	SS_CLOSING,
};

static void
socks_close_after_write(struct px_conn *c)
{
	c->state = SS_CLOSING;
	px_reader_off(&c->rd);
	if (evbuffer_get_length(bufferevent_get_output(c->cbev)) == 0)
		px_conn_free(c);
	else
		/* the write callback frees c once the reply is out */
		bufferevent_enable(c->cbev, EV_WRITE);
}

static void
socks_reply(struct px_conn *c, uint8_t rep, int close_after)
{
	uint8_t	 out[SOCKS_REPLY_MAX];
	size_t	 n = socks_reply_build(out, rep, 0, NULL, 0);

	bufferevent_write(c->cbev, out, n);
	if (close_after)
		socks_close_after_write(c);
}

static void
socks_dialed(int fd, enum px_dial_status st, short seen, const char *reason,
    void *arg)
{
	struct px_conn *c = arg;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	uint8_t	 out[SOCKS_REPLY_MAX], rep;
	const void *addr = NULL;
	uint16_t port = 0;
	int	 af = 0;
	size_t	 n;

	c->dial = NULL;
	if (st != PX_DIAL_OK) {
		log_info("session %s: socks %s:%u: %s", c->s->id, c->host,
		    c->port, reason);
		switch (st) {
		case PX_DIAL_REFUSED:
			rep = SOCKS_REP_NOT_ALLOWED;
			break;
		case PX_DIAL_NXDOMAIN:
			rep = SOCKS_REP_HOST_UNREACH;
			break;
		case PX_DIAL_TIMEOUT:
			rep = SOCKS_REP_TTL;
			break;
		default:
			rep = SOCKS_REP_REFUSED;
			break;
		}
		socks_reply(c, rep, 1);
		return;
	}
	/* the bound address: what the upstream socket is bound to */
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
		af = ss.ss_family;
		if (af == AF_INET) {
			addr = &((struct sockaddr_in *)&ss)->sin_addr;
			port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
		} else if (af == AF_INET6) {
			addr = &((struct sockaddr_in6 *)&ss)->sin6_addr;
			port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
		} else
			af = 0;
	}
	n = socks_reply_build(out, SOCKS_REP_OK, af, addr, port);
	/* the output buffer is empty here: the reply goes out now */
	if (send(bufferevent_getfd(c->cbev), out, n, MSG_NOSIGNAL) !=
	    (ssize_t)n) {
		close(fd);
		px_conn_free(c);
		return;
	}
	px_conn_to_tunnel(c, fd, seen);
}

static void
socks_read(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct socks_request r;
	const uint8_t *p;
	size_t	 len, used = 0;
	enum socks_result res;
	char	 reason[EGRESS_REASON_MAX];
	uint8_t	 rep, sel[2] = { SOCKS_VERSION, SOCKS_METHOD_NOAUTH };
	int	 noauth;

	/* untrusted: the SOCKS5 handshake from the sandbox */
	while (c->state == SS_GREETING || c->state == SS_REQUEST) {
		len = evbuffer_get_length(in);
		if (len == 0) {
			px_reader_on(&c->rd);
			return;
		}
		if (len > 600)
			len = 600;	/* a request is at most 262 bytes */
		p = evbuffer_pullup(in, (ssize_t)len);
		if (c->state == SS_GREETING) {
			res = socks_greeting_parse(p, len, &used, &noauth);
			if (res == SOCKS_MORE) {
				px_reader_on(&c->rd);
				return;
			}
			if (res == SOCKS_ERROR) {
				px_conn_free(c);
				return;
			}
			evbuffer_drain(in, used);
			if (!noauth) {
				sel[1] = SOCKS_METHOD_NONE;
				bufferevent_write(bev, sel, sizeof(sel));
				socks_close_after_write(c);
				return;
			}
			bufferevent_write(bev, sel, sizeof(sel));
			px_bev_flush(bev);
			c->state = SS_REQUEST;
			continue;
		}
		res = socks_request_parse(p, len, &used, &r, &rep);
		if (res == SOCKS_MORE) {
			px_reader_on(&c->rd);
			return;
		}
		if (res == SOCKS_ERROR) {
			socks_reply(c, rep, 1);
			return;
		}
		evbuffer_drain(in, used);
		if (r.cmd != SOCKS_CMD_CONNECT) {
			socks_reply(c, SOCKS_REP_CMD_UNSUPPORTED, 1);
			return;
		}
		snprintf(c->host, sizeof(c->host), "%s", r.host);
		c->port = r.port;
		if (!px_session_allows(c->s, c->host, c->port, reason,
		    sizeof(reason))) {
			socks_reply(c, SOCKS_REP_NOT_ALLOWED, 1);
			return;
		}
		/* An inspected host's requests are judged inside TLS the
		 * HTTP proxy terminates: an opaque SOCKS tunnel to it would
		 * pass them unjudged. */
		if (px_inspect_host(c->s, c->host)) {
			snprintf(reason, sizeof(reason), "%.64s:%u: inspected "
			    "(tls.inspect): HTTP proxy only", c->host,
			    c->port);
			log_info("session %s: refused %s", c->s->id, reason);
			px_violation_as(c->s->id, "network-request", reason);
			socks_reply(c, SOCKS_REP_NOT_ALLOWED, 1);
			return;
		}
		c->state = SS_DIAL;
		px_reader_off(&c->rd);
		c->dial = px_dial(c->s, c->host, c->port,
		    PX_DIAL_TUNNEL | PX_DIAL_SOCKS, socks_dialed, c);
		return;
	}
}

static void
socks_write(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;

	/* drained: later output is written by px_bev_flush() again */
	bufferevent_disable(bev, EV_WRITE);
	if (c->state == SS_CLOSING)
		px_conn_free(c);
}

static void
socks_event(struct bufferevent *bev, short what, void *arg)
{
	struct px_conn *c = arg;

	(void)bev;
	(void)what;
	/* EOF, error or handshake timeout before the tunnel: drop it */
	px_conn_free(c);
}

void
px_socks_accept(struct px_session *s, int fd)
{
	struct px_conn *c = px_conn_new(s, PX_CONN_SOCKS, fd);

	c->state = SS_GREETING;
	bufferevent_setcb(c->cbev, NULL, socks_write, socks_event, c);
	px_reader_init(&c->rd, c->cbev, socks_read, socks_event, c,
	    PX_HANDSHAKE_TIMEOUT, 0);
	switch (px_conn_read_now(c)) {
	case -1:
		px_conn_free(c);
		break;
	case 0:
		px_reader_on(&c->rd);
		break;
	default:
		/* it enables reading itself while a message is incomplete */
		socks_read(c->cbev, c);
		break;
	}
}
