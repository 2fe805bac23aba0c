// SPDX-License-Identifier: ISC
/*
 * The byte relay of CONNECT and SOCKS5 tunnels: splice(2) from one socket
 * into a pipe and from the pipe into the other socket, so the payload
 * never enters proxyd's memory.  Pipes are taken from a small pool when a
 * direction has data and given back as soon as it is drained, so an idle
 * tunnel holds two sockets, two events and this small struct, nothing
 * else (the idle-tunnel memory target is a few KB).
 *
 * Each socket is watched by one edge-triggered event for reading and
 * writing, registered once, from the dial's connect (resolve.c hands its
 * registration over) to the close: no epoll_ctl(2) while a short
 * exchange flows.  Edge-triggered means an edge must never be lost, so
 * readiness is remembered per direction and a side is only considered
 * not ready after it answered EAGAIN, or after a read that provably
 * emptied it: fewer bytes than the (empty) pipe has slots cannot have
 * filled the pipe, so the socket had no more queued; bytes arriving later
 * raise a new edge.  A FIN already seen (EV_CLOSED) is read to its end of
 * file all the same.  This spares the EAGAIN read after each small
 * message, the common case of TLS and interactive use.
 *
 * The exception: a direction whose destination blocks stops watching its
 * source for reading until its pipe drained (pause_source(), four
 * epoll_ctl(2) per stall).  Edge-triggered epoll would otherwise wake
 * proxyd for every segment the source receives meanwhile (measured on a
 * 1 GiB transfer: 5 times the epoll_wait calls and 3 times the context
 * switches of level-triggered events).
 *
 * Each direction is a tiny state machine: pipe holds bytes → splice them
 * out while the destination is writable; pipe empty → splice in while the
 * source is readable; source at EOF and pipe empty → shut down the
 * destination's write side.  Both directions done, or any error: close
 * the tunnel.
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
#define PX_PUMP_ROUNDS	8		/* per wake-up, for fairness */

struct px_dir {
	int		 from;
	int		 to;
	int		 pipe[2];	/* -1: none held */
	size_t		 inpipe;	/* bytes in the pipe */
	uint64_t	 bytes;		/* delivered to "to" */
	int		 can_read;	/* from: not drained since its edge */
	int		 can_write;	/* to: no EAGAIN since its edge */
	int		 rdhup;		/* from: its FIN is queued */
	int		 paused;	/* from: not watched for reading */
	int		 eof;
	int		 done;
};

struct px_tunnel {
	TAILQ_ENTRY(px_tunnel)	 entry;
	struct px_session	*s;
	int			 client;
	int			 upstream;
	struct event		*cev;	/* client: PX_TUNNEL_EV */
	struct event		*uev;	/* upstream: PX_TUNNEL_EV */
	struct px_dir		 out;	/* client -> upstream */
	struct px_dir		 in;	/* upstream -> client */
	char			*label;
};

static int	px_pool[PX_PIPE_POOL][2];
static int	px_npool;
static size_t	px_pipes_out;	/* held by tunnels */
/* the fewest slots of any pipe made: reads below this emptied a socket */
static size_t	px_pipe_slots = PX_PIPE_SIZE;

static int
pipe_get(int p[2])
{
	if (px_npool > 0) {
		px_npool--;
		p[0] = px_pool[px_npool][0];
		p[1] = px_pool[px_npool][1];
		px_pipes_out++;
		return 0;
	}
	int	 sz;

	/* Not from the reserve: the tunnel fails, never proxyd. */
	if (!px_fd_room(2)) {
		errno = EMFILE;
		return -1;
	}
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == -1)
		return -1;
	px_pipes_out++;
	/* a larger pipe means fewer splice calls per GiB; best effort */
	if ((sz = fcntl(p[1], F_SETPIPE_SZ, PX_PIPE_SIZE)) == -1 &&
	    (sz = fcntl(p[1], F_GETPIPE_SZ)) == -1)
		sz = 0;		/* unknown: never assume a socket empty */
	if ((size_t)sz / (size_t)sysconf(_SC_PAGESIZE) < px_pipe_slots)
		px_pipe_slots = (size_t)sz / (size_t)sysconf(_SC_PAGESIZE);
	return 0;
}

/* Return an EMPTY pipe to the pool (or close it). */
static void
pipe_put(int p[2])
{
	if (p[0] == -1)
		return;
	px_pipes_out--;
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
	px_pipes_out--;
	close(p[0]);
	close(p[1]);
	p[0] = p[1] = -1;
}

void
px_relay_shutdown(void)
{
	px_relay_trim_pool();
}

void
px_relay_trim_pool(void)
{
	while (px_npool > 0) {
		px_npool--;
		close(px_pool[px_npool][0]);
		close(px_pool[px_npool][1]);
	}
}

size_t
px_relay_pipes(void)
{
	return px_pipes_out + (size_t)px_npool;
}

static void
tunnel_free(struct px_tunnel *t, const char *why)
{
	log_info("session %s: tunnel %s closed (%s): %llu bytes out, "
	    "%llu bytes in", t->s->id, t->label, why,
	    (unsigned long long)t->out.bytes, (unsigned long long)t->in.bytes);
	TAILQ_REMOVE(&t->s->tunnels, t, entry);
	t->s->nopen--;
	px_nopen_all--;
	if (t->out.inpipe == 0)
		pipe_put(t->out.pipe);
	else
		pipe_drop(t->out.pipe);
	if (t->in.inpipe == 0)
		pipe_put(t->in.pipe);
	else
		pipe_drop(t->in.pipe);
	/*
	 * Closing a socket takes it out of the epoll set; libevent's
	 * EPOLL_CTL_DEL on the closed fd then fails with EBADF, which it
	 * ignores: cheaper than a real removal followed by the close.
	 * Nothing can reuse the fd numbers in between (one thread).
	 */
	close(t->client);
	close(t->upstream);
	if (t->cev != NULL)
		event_free(t->cev);
	if (t->uev != NULL)
		event_free(t->uev);
	free(t->label);
	free(t);
}

static void tunnel_cb(int, short, void *);

/* Watch d->from for reading again (paused 0) or not (1); see the top. */
static void
pause_source(struct px_tunnel *t, struct px_dir *d, int paused)
{
	struct event *ev = d->from == t->client ? t->cev : t->uev;
	short	 what = PX_TUNNEL_EV;

	if (paused == d->paused)
		return;
	d->paused = paused;
	if (paused)
		what &= ~(EV_READ | EV_CLOSED);
	/*
	 * Registering anew reports what is ready by then: no edge that
	 * came during the pause is lost.
	 */
	event_del(ev);
	if (event_assign(ev, px_base, d->from, what, tunnel_cb, t) == -1 ||
	    event_add(ev, NULL) == -1)
		fatalx("tunnel event");
}

/*
 * Move bytes in one direction until a side would block, the source is at
 * EOF, or the round limit.  Returns -1 when the tunnel must close (it is
 * then not freed here), 1 when the round limit left work to do, else 0.
 */
static int
pump(struct px_tunnel *t, struct px_dir *d)
{
	struct px_dir *other = d == &t->out ? &t->in : &t->out;
	ssize_t	 n;
	int	 round;

	for (round = 0; round < PX_PUMP_ROUNDS; round++) {
		if (d->inpipe > 0) {
			if (!d->can_write)
				return 0;
			/*
			 * No SPLICE_F_MORE: it corks the last partial segment
			 * until a later send, and none may come.
			 */
			n = splice(d->pipe[0], NULL, d->to, NULL, d->inpipe,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n == -1) {
				if (errno == EAGAIN) {
					d->can_write = 0;
					pause_source(t, d, 1);
					return 0;
				}
				return -1;
			}
			d->inpipe -= (size_t)n;
			d->bytes += (uint64_t)n;
			if (d->inpipe == 0)
				pause_source(t, d, 0);
			continue;
		}
		if (d->eof) {
			pipe_put(d->pipe);
			if (!d->done) {
				/* the last one to finish closes instead */
				if (!other->done)
					(void)shutdown(d->to, SHUT_WR);
				d->done = 1;
			}
			return 0;
		}
		if (!d->can_read) {
			pipe_put(d->pipe);	/* idle: hold no pipe */
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
				d->can_read = 0;
				return 0;
			}
			return -1;
		}
		if (n == 0)
			d->eof = 1;
		else if ((size_t)n < px_pipe_slots && !d->rdhup)
			d->can_read = 0;	/* emptied (see the top) */
		d->inpipe = (size_t)n;
	}
	return 1;
}

static void
tunnel_cb(int fd, short ev, void *arg)
{
	struct px_tunnel *t = arg;
	int	 r1, r2 = 0;

	/* remember the edges: they are reported once */
	if (fd == t->client) {
		if (ev & (EV_READ | EV_CLOSED))
			t->out.can_read = 1;
		if (ev & EV_CLOSED)
			t->out.rdhup = 1;
		if (ev & EV_WRITE)
			t->in.can_write = 1;
	} else {
		if (ev & (EV_READ | EV_CLOSED))
			t->in.can_read = 1;
		if (ev & EV_CLOSED)
			t->in.rdhup = 1;
		if (ev & EV_WRITE)
			t->out.can_write = 1;
	}
	if ((r1 = pump(t, &t->out)) == -1 || (r2 = pump(t, &t->in)) == -1) {
		tunnel_free(t, strerror(errno));
		return;
	}
	if (t->out.done && t->in.done) {
		tunnel_free(t, "closed by both ends");
		return;
	}
	/*
	 * Round limit reached with bytes still moving: no new edge will
	 * come for them, so come back after the other ready events.
	 */
	if (r1 == 1 || r2 == 1)
		event_active(t->cev, 0, 0);
}

void
px_tunnel_start(struct px_session *s, int client, int upstream,
    short up_seen, const void *pending, size_t npending, const char *label)
{
	struct px_tunnel *t = xcalloc(1, sizeof(*t));
	ssize_t	 n;

	t->s = s;
	t->client = client;
	t->upstream = upstream;
	t->label = xstrdup(label);
	t->out.from = t->in.to = client;
	t->out.to = t->in.from = upstream;
	t->out.pipe[0] = t->out.pipe[1] = -1;
	t->in.pipe[0] = t->in.pipe[1] = -1;
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
	}
	/*
	 * The upstream's edges so far went to the dial's event, which hands
	 * its registration over to ours (resolve.c) within one turn of the
	 * loop, so what it saw is exact: readable (a server that speaks
	 * first) only if an edge said so, and then read to EAGAIN or EOF if
	 * a FIN was reported too; an upstream that was quiet costs no read,
	 * its first bytes raise a new edge.  The client socket is registered
	 * afresh, which reports its state at once: that edge runs the first
	 * pump.
	 */
	t->out.can_write = 1;
	t->in.can_read = (up_seen & (EV_READ | EV_CLOSED)) != 0;
	t->in.rdhup = (up_seen & EV_CLOSED) != 0;
	t->cev = event_new(px_base, client, PX_TUNNEL_EV, tunnel_cb, t);
	t->uev = event_new(px_base, upstream, PX_TUNNEL_EV, tunnel_cb, t);
	if (t->cev == NULL || t->uev == NULL ||
	    event_add(t->cev, NULL) == -1 || event_add(t->uev, NULL) == -1)
		fatalx("tunnel events");
}

void
px_tunnel_close_all(struct px_session *s)
{
	struct px_tunnel *t;

	while ((t = TAILQ_FIRST(&s->tunnels)) != NULL)
		tunnel_free(t, "session removed");
}
