// SPDX-License-Identifier: ISC
/*
 * Client connections of both proxies before they become tunnels: creation
 * with the handshake timeout, freeing (cancelling a pending dial), and the
 * hand-over to the splice relay once the target is connected.
 *
 * Syscalls per connection are what a proxy on a small host is measured
 * by, so the bufferevents here are used with three habits: the first read
 * is made right after accept(2) (the listeners defer accepting until the
 * client has sent something); output is written at once by
 * px_bev_flush() instead of waiting for a write event, so an event is
 * registered only when a socket actually blocks; and reading is done by
 * a px_reader, one recv(2) per readable event where libevent makes two
 * syscalls.  Per kept-alive request that is 4 syscalls instead of 12.
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
/* At most this much per read of a px_reader. */
#define PX_READ_MAX	(64 * 1024)

static void
reader_sync(struct px_reader *r)
{
	int	 want = r->on;

	if (r->high > 0 &&
	    evbuffer_get_length(bufferevent_get_input(r->bev)) >= r->high)
		want = 0;	/* until the protocol drains the input */
	if (want && !r->added) {
		if (event_add(r->ev, r->tmo.tv_sec > 0 ? &r->tmo : NULL) ==
		    -1)
			fatalx("reader event_add");
		r->added = 1;
	} else if (!want && r->added) {
		event_del(r->ev);
		r->added = 0;
	}
}

static void
reader_wm_cb(struct evbuffer *in, const struct evbuffer_cb_info *info,
    void *arg)
{
	struct px_reader *r = arg;

	(void)in;
	(void)info;
	reader_sync(r);
}

static void
reader_cb(int fd, short ev, void *arg)
{
	struct px_reader *r = arg;
	struct evbuffer *in = bufferevent_get_input(r->bev);
	struct evbuffer_iovec v;
	size_t	 want = PX_READ_MAX, len;
	ssize_t	 n;
	short	 what;

	if (ev & EV_TIMEOUT) {
		px_reader_off(r);
		r->eventcb(r->bev, BEV_EVENT_TIMEOUT | BEV_EVENT_READING,
		    r->arg);
		return;
	}
	if (r->high > 0) {
		if ((len = evbuffer_get_length(in)) >= r->high) {
			reader_sync(r);
			return;
		}
		if (r->high - len < want)
			want = r->high - len;
	}
	/* a bufferevent's input is frozen at the end for its own reads */
	evbuffer_unfreeze(in, 0);
	if (evbuffer_reserve_space(in, (ssize_t)want, &v, 1) < 1)
		fatalx("evbuffer_reserve_space");
	if (v.iov_len > want)
		v.iov_len = want;
	/* untrusted: bytes from the sandbox or from the remote server */
	n = recv(fd, v.iov_base, v.iov_len, 0);
	if (n > 0) {
		v.iov_len = (size_t)n;
		evbuffer_commit_space(in, &v, 1);
	}
	evbuffer_freeze(in, 0);
	if (n > 0) {
		r->readcb(r->bev, r->arg);
		return;
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	what = (n == 0 ? BEV_EVENT_EOF : BEV_EVENT_ERROR) | BEV_EVENT_READING;
	px_reader_off(r);
	r->eventcb(r->bev, what, r->arg);
}

void
px_reader_init(struct px_reader *r, struct bufferevent *bev,
    bufferevent_data_cb readcb, bufferevent_event_cb eventcb, void *arg,
    int timeout_s, size_t high)
{
	memset(r, 0, sizeof(*r));
	r->bev = bev;
	r->readcb = readcb;
	r->eventcb = eventcb;
	r->arg = arg;
	r->high = high;
	r->tmo.tv_sec = timeout_s;
	r->ev = event_new(px_base, bufferevent_getfd(bev),
	    EV_READ | EV_PERSIST, reader_cb, r);
	if (r->ev == NULL)
		fatalx("reader event");
	if (high > 0 && (r->wm = evbuffer_add_cb(bufferevent_get_input(bev),
	    reader_wm_cb, r)) == NULL)
		fatalx("evbuffer_add_cb");
}

void
px_reader_on(struct px_reader *r)
{
	r->on = 1;
	if (r->added && r->tmo.tv_sec > 0)
		/* a new wait for the client: a new idle timeout */
		(void)event_add(r->ev, &r->tmo);
	else
		reader_sync(r);
}

void
px_reader_off(struct px_reader *r)
{
	r->on = 0;
	reader_sync(r);
}

void
px_reader_free(struct px_reader *r)
{
	if (r->ev == NULL)
		return;
	if (r->wm != NULL)
		evbuffer_remove_cb_entry(bufferevent_get_input(r->bev), r->wm);
	event_free(r->ev);
	r->ev = NULL;
}

struct px_conn *
px_conn_new(struct px_session *s, enum px_conn_kind kind, int fd)
{
	struct px_conn *c = xcalloc(1, sizeof(*c));

	c->s = s;
	c->kind = kind;
	/* no BEV_OPT_CLOSE_ON_FREE: the fd may move on to a tunnel */
	c->cbev = bufferevent_socket_new(px_base, fd, 0);
	if (c->cbev == NULL)
		fatalx("bufferevent_socket_new");
	/* writes go out through px_bev_flush(), reads through c->rd */
	bufferevent_disable(c->cbev, EV_WRITE);
	TAILQ_INSERT_TAIL(&s->conns, c, entry);
	/* counted until its last socket closes, tunnel or not */
	s->nopen++;
	px_nopen_all++;
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

/*
 * A connection whose fd moved to a tunnel or a TLS termination: free the
 * rest without closing the fd; its place in the session's counts moves
 * with it.
 */
void
px_conn_release(struct px_conn *c)
{
	TAILQ_REMOVE(&c->s->conns, c, entry);
	px_dial_cancel(c->dial);
	px_http_free(c->http);
	px_reader_free(&c->rd);
	bufferevent_free(c->cbev);
	free(c);
}

void
px_conn_free(struct px_conn *c)
{
	int	 fd;

	if (c == NULL)
		return;
	TAILQ_REMOVE(&c->s->conns, c, entry);
	c->s->nopen--;
	px_nopen_all--;
	px_dial_cancel(c->dial);
	px_http_free(c->http);
	px_reader_free(&c->rd);
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
px_conn_to_tunnel(struct px_conn *c, int upstream, short up_seen)
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
	px_conn_release(c);	/* the fd moves to the tunnel */
	px_tunnel_start(s, fd, upstream, up_seen, early, n, label);
	free(early);
}
