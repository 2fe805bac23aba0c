// SPDX-License-Identifier: ISC
/*
 * Client connections of both proxies before they become tunnels: creation
 * with the handshake timeout, freeing (cancelling a pending dial), and the
 * hand-over to the splice relay once the target is connected.
 *
 * Syscalls per connection are what a proxy on a small host is measured
 * by, so the bufferevents here are used with two habits: the first read
 * is made right after accept(2) (the listeners defer accepting until the
 * client has sent something), and output is written at once by
 * px_bev_flush() instead of waiting for a write event, so an event is
 * registered only when a socket actually blocks.
 */
#include <sys/socket.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "proxyd/proxyd.h"

/* Early data larger than this after a CONNECT head is not a client. */
#define PX_EARLY_MAX	(128 * 1024)
/* The first read: a typical request head, or a SOCKS5 greeting. */
#define PX_FIRST_READ	(16 * 1024)

struct px_conn *
px_conn_new(struct px_session *s, enum px_conn_kind kind, int fd)
{
	struct px_conn *c = xcalloc(1, sizeof(*c));
	struct timeval tv = { PX_HANDSHAKE_TIMEOUT, 0 };

	c->s = s;
	c->kind = kind;
	/* no BEV_OPT_CLOSE_ON_FREE: the fd may move on to a tunnel */
	c->cbev = bufferevent_socket_new(px_base, fd, 0);
	if (c->cbev == NULL)
		fatalx("bufferevent_socket_new");
	/* writes go out through px_bev_flush() */
	bufferevent_disable(c->cbev, EV_WRITE);
	bufferevent_set_timeouts(c->cbev, &tv, NULL);
	TAILQ_INSERT_TAIL(&s->conns, c, entry);
	return c;
}

int
px_conn_read_now(struct px_conn *c)
{
	struct evbuffer *in = bufferevent_get_input(c->cbev);
	struct evbuffer_iovec v;
	ssize_t	 n;

	/* a bufferevent's input is frozen at the end for its own reads */
	evbuffer_unfreeze(in, 0);
	if (evbuffer_reserve_space(in, PX_FIRST_READ, &v, 1) < 1)
		fatalx("evbuffer_reserve_space");
	/* untrusted: the first bytes from the sandbox, parsed later */
	n = recv(bufferevent_getfd(c->cbev), v.iov_base, v.iov_len, 0);
	if (n > 0) {
		v.iov_len = (size_t)n;
		evbuffer_commit_space(in, &v, 1);
	}
	evbuffer_freeze(in, 0);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;
	return n > 0 ? 1 : -1;
}

void
px_bev_flush(struct bufferevent *bev)
{
	struct evbuffer *out = bufferevent_get_output(bev);
	int	 n;

	if (evbuffer_get_length(out) == 0)
		return;
	/* the output's start is frozen for the bufferevent's own writes */
	evbuffer_unfreeze(out, 1);
	n = evbuffer_write(out, bufferevent_getfd(bev));
	evbuffer_freeze(out, 1);
	/*
	 * Blocked, or an error: the write event takes over; it reports
	 * an error through the event callback as usual.
	 */
	if (n == -1 || evbuffer_get_length(out) > 0)
		bufferevent_enable(bev, EV_WRITE);
}

void
px_conn_free(struct px_conn *c)
{
	int	 fd;

	if (c == NULL)
		return;
	TAILQ_REMOVE(&c->s->conns, c, entry);
	px_dial_cancel(c->dial);
	px_http_free(c->http);
	fd = bufferevent_getfd(c->cbev);
	bufferevent_free(c->cbev);
	if (fd != -1)
		close(fd);
	free(c);
}

void
px_conn_close_all(struct px_session *s)
{
	struct px_conn *c;

	while ((c = TAILQ_FIRST(&s->conns)) != NULL)
		px_conn_free(c);
}

void
px_conn_to_tunnel(struct px_conn *c, int upstream)
{
	struct evbuffer *in = bufferevent_get_input(c->cbev);
	size_t	 n = evbuffer_get_length(in);
	char	 label[300];
	unsigned char *early = NULL;
	int	 fd = bufferevent_getfd(c->cbev);
	struct px_session *s = c->s;

	if (n > PX_EARLY_MAX) {
		log_warnx("session %s: %zu bytes of early data: closing",
		    s->id, n);
		close(upstream);
		px_conn_free(c);
		return;
	}
	if (n > 0) {
		early = xmalloc(n);
		evbuffer_remove(in, early, n);
	}
	if (strchr(c->host, ':') != NULL)
		snprintf(label, sizeof(label), "[%s]:%u", c->host, c->port);
	else
		snprintf(label, sizeof(label), "%s:%u", c->host, c->port);
	/* the fd moves to the tunnel: free the rest without closing it */
	TAILQ_REMOVE(&s->conns, c, entry);
	px_dial_cancel(c->dial);
	px_http_free(c->http);
	bufferevent_free(c->cbev);
	free(c);
	px_tunnel_start(s, fd, upstream, early, n, label);
	free(early);
}
