// SPDX-License-Identifier: ISC
/*
 * Client connections of both proxies before they become tunnels: creation
 * with the handshake timeout, freeing (cancelling a pending dial), and the
 * hand-over to the splice relay once the target is connected.
 */
#include <sys/socket.h>

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
	bufferevent_set_timeouts(c->cbev, &tv, NULL);
	TAILQ_INSERT_TAIL(&s->conns, c, entry);
	return c;
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
