// SPDX-License-Identifier: ISC
/*
 * The byte relay of CONNECT and SOCKS5 tunnels: splice(2) from one socket
 * into a pipe and from the pipe into the other socket, so the payload
 * never enters proxyd's memory.  Pipes are taken from a small pool when a
 * direction has data and given back as soon as it is drained, so an idle
 * tunnel holds two sockets, four events and this small struct, nothing
 * else (the idle-tunnel memory target is a few KB).
 *
 * Each direction is a tiny state machine: pipe holds bytes → wait until
 * the destination is writable; pipe empty → wait until the source is
 * readable; source at EOF and pipe empty → shut down the destination's
 * write side.  Both directions done, or any error: close the tunnel.
 */
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "proxyd/proxyd.h"

#define PX_PIPE_SIZE	(1024 * 1024)	/* per splice round */
#define PX_PIPE_POOL	128		/* spare empty pipes kept */
#define PX_PUMP_ROUNDS	8		/* per event, for fairness */

struct px_dir {
	struct px_tunnel *t;
	int		 from;
	int		 to;
	int		 pipe[2];	/* -1: none held */
	size_t		 inpipe;	/* bytes in the pipe */
	uint64_t	 bytes;		/* delivered to "to" */
	int		 eof;
	int		 done;
	struct event	*rd;		/* from is readable */
	struct event	*wr;		/* to is writable */
	int		 rd_on;
	int		 wr_on;
};

struct px_tunnel {
	TAILQ_ENTRY(px_tunnel)	 entry;
	struct px_session	*s;
	int			 client;
	int			 upstream;
	struct px_dir		 out;	/* client -> upstream */
	struct px_dir		 in;	/* upstream -> client */
	char			*label;
};

static int	px_pool[PX_PIPE_POOL][2];
static int	px_npool;

static int
pipe_get(int p[2])
{
	if (px_npool > 0) {
		px_npool--;
		p[0] = px_pool[px_npool][0];
		p[1] = px_pool[px_npool][1];
		return 0;
	}
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == -1)
		return -1;
	/* a larger pipe means fewer splice calls per GiB; best effort */
	(void)fcntl(p[1], F_SETPIPE_SZ, PX_PIPE_SIZE);
	return 0;
}

/* Return an EMPTY pipe to the pool (or close it). */
static void
pipe_put(int p[2])
{
	if (p[0] == -1)
		return;
	if (px_npool < PX_PIPE_POOL) {
		px_pool[px_npool][0] = p[0];
		px_pool[px_npool][1] = p[1];
		px_npool++;
	} else {
		close(p[0]);
		close(p[1]);
	}
	p[0] = p[1] = -1;
}

static void
pipe_drop(int p[2])
{
	if (p[0] == -1)
		return;
	close(p[0]);
	close(p[1]);
	p[0] = p[1] = -1;
}

void
px_relay_shutdown(void)
{
	while (px_npool > 0) {
		px_npool--;
		close(px_pool[px_npool][0]);
		close(px_pool[px_npool][1]);
	}
}

static void
tunnel_free(struct px_tunnel *t, const char *why)
{
	log_info("session %s: tunnel %s closed (%s): %llu bytes out, "
	    "%llu bytes in", t->s->id, t->label, why,
	    (unsigned long long)t->out.bytes, (unsigned long long)t->in.bytes);
	TAILQ_REMOVE(&t->s->tunnels, t, entry);
	event_free(t->out.rd);
	event_free(t->out.wr);
	event_free(t->in.rd);
	event_free(t->in.wr);
	if (t->out.inpipe == 0)
		pipe_put(t->out.pipe);
	else
		pipe_drop(t->out.pipe);
	if (t->in.inpipe == 0)
		pipe_put(t->in.pipe);
	else
		pipe_drop(t->in.pipe);
	close(t->client);
	close(t->upstream);
	free(t->label);
	free(t);
}

static void
want(struct px_dir *d, int rd, int wr)
{
	if (rd != d->rd_on) {
		if (rd)
			event_add(d->rd, NULL);
		else
			event_del(d->rd);
		d->rd_on = rd;
	}
	if (wr != d->wr_on) {
		if (wr)
			event_add(d->wr, NULL);
		else
			event_del(d->wr);
		d->wr_on = wr;
	}
}

/*
 * Move bytes in one direction until something would block.  Returns -1
 * when the tunnel must close (it is then not freed here).
 */
static int
pump(struct px_dir *d)
{
	ssize_t	 n;
	int	 round;

	for (round = 0; round < PX_PUMP_ROUNDS; round++) {
		if (d->inpipe > 0) {
			n = splice(d->pipe[0], NULL, d->to, NULL, d->inpipe,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n == -1) {
				if (errno == EAGAIN) {
					want(d, 0, 1);
					return 0;
				}
				return -1;
			}
			d->inpipe -= (size_t)n;
			d->bytes += (uint64_t)n;
			continue;
		}
		if (d->eof) {
			want(d, 0, 0);
			pipe_put(d->pipe);
			if (!d->done) {
				/* the last direction to finish: close instead */
				if (!(d == &d->t->out ? d->t->in.done :
				    d->t->out.done))
					(void)shutdown(d->to, SHUT_WR);
				d->done = 1;
			}
			return 0;
		}
		if (d->pipe[0] == -1 && pipe_get(d->pipe) == -1) {
			log_warn("pipe");
			return -1;
		}
		n = splice(d->from, NULL, d->pipe[1], NULL, PX_PIPE_SIZE,
		    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n == -1) {
			if (errno == EAGAIN) {
				/* idle: hold no pipe */
				pipe_put(d->pipe);
				want(d, 1, 0);
				return 0;
			}
			return -1;
		}
		if (n == 0)
			d->eof = 1;
		d->inpipe = (size_t)n;
	}
	/* more may be waiting: stay interested, the loop comes back */
	want(d, d->inpipe == 0, d->inpipe > 0);
	return 0;
}

static void
dir_cb(int fd, short ev, void *arg)
{
	struct px_dir *d = arg;
	struct px_tunnel *t = d->t;

	(void)fd;
	(void)ev;
	if (pump(d) == -1) {
		tunnel_free(t, strerror(errno));
		return;
	}
	if (t->out.done && t->in.done)
		tunnel_free(t, "closed by both ends");
}

static void
dir_init(struct px_tunnel *t, struct px_dir *d, int from, int to)
{
	d->t = t;
	d->from = from;
	d->to = to;
	d->pipe[0] = d->pipe[1] = -1;
	d->rd = event_new(px_base, from, EV_READ | EV_PERSIST, dir_cb, d);
	d->wr = event_new(px_base, to, EV_WRITE | EV_PERSIST, dir_cb, d);
	if (d->rd == NULL || d->wr == NULL)
		fatalx("tunnel events");
}

void
px_tunnel_start(struct px_session *s, int client, int upstream,
    const void *pending, size_t npending, const char *label)
{
	struct px_tunnel *t = xcalloc(1, sizeof(*t));
	ssize_t	 n;

	t->s = s;
	t->client = client;
	t->upstream = upstream;
	t->label = xstrdup(label);
	dir_init(t, &t->out, client, upstream);
	dir_init(t, &t->in, upstream, client);
	TAILQ_INSERT_TAIL(&s->tunnels, t, entry);
	if (npending > 0) {
		/* bytes the client sent right after its request */
		if (pipe_get(t->out.pipe) == -1) {
			tunnel_free(t, "pipe");
			return;
		}
		n = write(t->out.pipe[1], pending, npending);
		if (n != (ssize_t)npending) {
			tunnel_free(t, "early data too large");
			return;
		}
		t->out.inpipe = npending;
		want(&t->out, 0, 1);
	} else
		want(&t->out, 1, 0);
	want(&t->in, 1, 0);
}

void
px_tunnel_close_all(struct px_session *s)
{
	struct px_tunnel *t;

	while ((t = TAILQ_FIRST(&s->tunnels)) != NULL)
		tunnel_free(t, "session removed");
}
