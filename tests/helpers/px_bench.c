// SPDX-License-Identifier: ISC
/*
 * px_bench: load generator and loopback servers for tests/bench/proxy.sh,
 * so the proxies are measured against something faster than they are.
 *
 *   px_bench serve                      servers on 127.0.0.1; prints
 *                                       "sink=P http=Q echo=R", runs
 *                                       until stdin closes
 *   px_bench bulk PROXY PORT BYTES      one tunnel, BYTES to the sink;
 *                                       prints "BYTES SECONDS"
 *   px_bench tunnels PROXY PORT SECS THREADS
 *                                       new short tunnels (1-byte echo);
 *                                       prints "COUNT SECONDS"
 *   px_bench idle PROXY PORT COUNT      COUNT open tunnels to the echo
 *                                       server; prints "ready", holds
 *                                       them until stdin closes
 *   px_bench check PROXY PORT           one tunnel to the echo server:
 *                                       1 byte, then 1 MiB of a pattern
 *                                       both ways; exit 0 iff all came
 *                                       back intact
 *   px_bench nullproxy splice|rw        a test floor, not a product: the
 *                                       least a CONNECT proxy can do (see
 *                                       nullproxy()); prints "port=P",
 *                                       runs until stdin closes
 *
 * PROXY is the port of an HTTP CONNECT proxy on 127.0.0.1, or "-" to
 * connect directly.  The sink reads an 8-byte length, then that many
 * bytes, and answers one byte; the http server answers every request head
 * with a 6-byte body, kept alive; the echo server echoes.
 */
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFSZ	(256 * 1024)

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

static double
now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static int
tcp_connect(uint16_t port)
{
	struct sockaddr_in sin;
	int	 fd, one = 1;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		die("socket");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
read_full(int fd, void *p, size_t n)
{
	size_t	 off = 0;
	ssize_t	 r;

	while (off < n) {
		r = read(fd, (char *)p + off, n - off);
		if (r <= 0)
			return -1;
		off += (size_t)r;
	}
	return 0;
}

static int
write_full(int fd, const void *p, size_t n)
{
	size_t	 off = 0;
	ssize_t	 r;

	while (off < n) {
		r = write(fd, (const char *)p + off, n - off);
		if (r <= 0)
			return -1;
		off += (size_t)r;
	}
	return 0;
}

/* Open a tunnel to 127.0.0.1:port, through the proxy unless proxy 0. */
static int
tunnel(uint16_t proxy, uint16_t port)
{
	char	 buf[512], *end;
	int	 fd, n, len = 0;

	if (proxy == 0)
		return tcp_connect(port);
	if ((fd = tcp_connect(proxy)) == -1)
		return -1;
	n = snprintf(buf, sizeof(buf), "CONNECT 127.0.0.1:%u HTTP/1.1\r\n"
	    "Host: 127.0.0.1:%u\r\n\r\n", port, port);
	if (write_full(fd, buf, (size_t)n) == -1)
		goto fail;
	/*
	 * Read the answer head the way real clients do, buffered, not a
	 * byte per read(2): that would bill the client ~40 syscalls per
	 * proxied tunnel, CPU taken from the proxy on a small host.  None
	 * of the servers speaks first, so nothing may follow the head.
	 */
	for (;;) {
		if (len >= (int)sizeof(buf) - 1 ||
		    (n = (int)read(fd, buf + len, sizeof(buf) - 1 - len)) <= 0)
			goto fail;
		len += n;
		buf[len] = '\0';
		if ((end = strstr(buf, "\r\n\r\n")) != NULL)
			break;
	}
	if (end + 4 != buf + len)
		goto fail;
	if (strncmp(buf, "HTTP/1.1 200", 12) != 0 &&
	    strncmp(buf, "HTTP/1.0 200", 12) != 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* ---- servers ---- */

enum { K_LISTEN_SINK, K_LISTEN_HTTP, K_LISTEN_ECHO, K_SINK, K_HTTP, K_ECHO };

struct conn {
	int	 fd;
	int	 kind;
	uint64_t want;		/* sink: bytes still expected */
	int	 hdr;		/* sink: length bytes read */
	uint8_t	 lenbuf[8];
	char	 tail[4];	/* http: last bytes seen */
};

static int
listener(uint16_t *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int	 fd, one = 1;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) == -1)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 4096) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		die("listen");
	*port = ntohs(sin.sin_port);
	return fd;
}

static void
ep_add(int ep, int fd, int kind)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct epoll_event ev;

	if (c == NULL)
		die("calloc");
	c->fd = fd;
	c->kind = kind;
	ev.events = EPOLLIN;
	ev.data.ptr = c;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == -1)
		die("epoll_ctl");
}

static void
conn_close(struct conn *c)
{
	close(c->fd);
	free(c);
}

/* Count request heads (CRLF CRLF) across reads; answer each. */
static int
http_serve(struct conn *c, char *buf, ssize_t n)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n"
	    "Content-Type: text/plain\r\n\r\nhello\n";
	char	 out[64 * (sizeof(resp) - 1)];
	size_t	 olen = 0;
	ssize_t	 i;

	for (i = 0; i < n; i++) {
		memmove(c->tail, c->tail + 1, 3);
		c->tail[3] = buf[i];
		if (memcmp(c->tail, "\r\n\r\n", 4) == 0) {
			if (olen + sizeof(resp) - 1 > sizeof(out)) {
				if (write_full(c->fd, out, olen) == -1)
					return -1;
				olen = 0;
			}
			memcpy(out + olen, resp, sizeof(resp) - 1);
			olen += sizeof(resp) - 1;
			memset(c->tail, 0, 4);
		}
	}
	return olen > 0 ? write_full(c->fd, out, olen) : 0;
}

static int
serve(void)
{
	struct epoll_event evs[256];
	struct conn *c;
	uint16_t p1, p2, p3;
	char	*buf = malloc(BUFSZ);
	int	 ep, n, i, fd, one = 1;
	ssize_t	 r;

	if (buf == NULL || (ep = epoll_create1(0)) == -1)
		die("setup");
	ep_add(ep, listener(&p1), K_LISTEN_SINK);
	ep_add(ep, listener(&p2), K_LISTEN_HTTP);
	ep_add(ep, listener(&p3), K_LISTEN_ECHO);
	ep_add(ep, STDIN_FILENO, -1);
	printf("sink=%u http=%u echo=%u\n", p1, p2, p3);
	fflush(stdout);
	for (;;) {
		n = epoll_wait(ep, evs, 256, -1);
		if (n == -1 && errno == EINTR)
			continue;
		for (i = 0; i < n; i++) {
			c = evs[i].data.ptr;
			if (c->kind == -1)
				return 0;	/* stdin: done */
			if (c->kind <= K_LISTEN_ECHO) {
				while ((fd = accept4(c->fd, NULL, NULL, 0))
				    != -1) {
					setsockopt(fd, IPPROTO_TCP,
					    TCP_NODELAY, &one, sizeof(one));
					ep_add(ep, fd, c->kind + 3);
				}
				continue;
			}
			r = read(c->fd, buf, BUFSZ);
			if (r <= 0) {
				conn_close(c);
				continue;
			}
			if (c->kind == K_ECHO) {
				if (write_full(c->fd, buf, (size_t)r) == -1)
					conn_close(c);
			} else if (c->kind == K_HTTP) {
				if (http_serve(c, buf, r) == -1)
					conn_close(c);
			} else {
				ssize_t off = 0;

				while (c->hdr < 8 && off < r)
					c->lenbuf[c->hdr++] =
					    (uint8_t)buf[off++];
				if (c->hdr == 8 && c->want == 0 && off > 0) {
					memcpy(&c->want, c->lenbuf, 8);
					if (c->want == 0)
						c->want = 1;
				}
				if (c->hdr == 8 &&
				    (uint64_t)(r - off) >= c->want) {
					c->want = 0;
					c->hdr = 0;
					if (write_full(c->fd, "k", 1) == -1)
						conn_close(c);
				} else
					c->want -= (uint64_t)(r - off);
			}
		}
	}
}

/* ---- clients ---- */

static int
bulk(uint16_t proxy, uint16_t port, uint64_t bytes)
{
	char	*buf = calloc(1, BUFSZ);
	uint64_t left = bytes;
	double	 t0;
	size_t	 n;
	char	 k;
	int	 fd;

	if (buf == NULL || (fd = tunnel(proxy, port)) == -1)
		die("bulk tunnel");
	t0 = now();
	if (write_full(fd, &bytes, 8) == -1)
		die("write");
	while (left > 0) {
		n = left > BUFSZ ? BUFSZ : (size_t)left;
		if (write_full(fd, buf, n) == -1)
			die("write");
		left -= n;
	}
	if (read_full(fd, &k, 1) == -1)
		die("read ack");
	printf("%llu %.3f\n", (unsigned long long)bytes, now() - t0);
	close(fd);
	return 0;
}

struct tun_arg {
	uint16_t proxy, port;
	double	 until;
	uint64_t count;
	uint64_t errors;
};

static void *
tunnels_thread(void *p)
{
	struct tun_arg *a = p;
	char	 b = 'x', r;
	int	 fd;

	while (now() < a->until) {
		if ((fd = tunnel(a->proxy, a->port)) == -1) {
			a->errors++;
			continue;
		}
		/* counted only if the byte really came back */
		if (write_full(fd, &b, 1) == 0 && read_full(fd, &r, 1) == 0 &&
		    r == b)
			a->count++;
		else
			a->errors++;
		close(fd);
	}
	return NULL;
}

static int
tunnels(uint16_t proxy, uint16_t port, double secs, int nthreads)
{
	pthread_t th[64];
	struct tun_arg a[64];
	uint64_t total = 0, errors = 0;
	double	 t0 = now();
	int	 i;

	if (nthreads < 1 || nthreads > 64)
		nthreads = 4;
	for (i = 0; i < nthreads; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].proxy = proxy;
		a[i].port = port;
		a[i].until = t0 + secs;
		pthread_create(&th[i], NULL, tunnels_thread, &a[i]);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		total += a[i].count;
		errors += a[i].errors;
	}
	printf("%llu %.3f %llu\n", (unsigned long long)total, now() - t0,
	    (unsigned long long)errors);
	return 0;
}

static int
idle(uint16_t proxy, uint16_t port, int count)
{
	int	*fds = calloc((size_t)count, sizeof(int));
	char	 b = 'x', buf[16];
	int	 i;

	if (fds == NULL)
		die("calloc");
	for (i = 0; i < count; i++) {
		if ((fds[i] = tunnel(proxy, port)) == -1)
			die("idle tunnel");
		if (write_full(fds[i], &b, 1) == -1 ||
		    read_full(fds[i], &b, 1) == -1)
			die("idle echo");
	}
	printf("ready\n");
	fflush(stdout);
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	for (i = 0; i < count; i++)
		close(fds[i]);
	return 0;
}

/* ---- check: does a proxy relay bytes at all ---- */

static int
check(uint16_t proxy, uint16_t port)
{
	size_t	 len = 1024 * 1024, i;
	char	*out = malloc(len), *in = malloc(len), b = 'x';
	int	 fd;

	if (out == NULL || in == NULL)
		die("malloc");
	for (i = 0; i < len; i++)
		out[i] = (char)(i * 7 + i / 4096);
	if ((fd = tunnel(proxy, port)) == -1) {
		fprintf(stderr, "check: no tunnel\n");
		return 1;
	}
	if (write_full(fd, &b, 1) == -1 || read_full(fd, &b, 1) == -1 ||
	    b != 'x') {
		fprintf(stderr, "check: the 1-byte echo did not come back\n");
		return 1;
	}
	/*
	 * The echo server answers each read at once, so writing 1 MiB
	 * before reading could fill both directions' buffers; a thread
	 * would do, chunks of 64 KiB are simpler.
	 */
	for (i = 0; i < len; i += 65536) {
		if (write_full(fd, out + i, 65536) == -1 ||
		    read_full(fd, in + i, 65536) == -1) {
			fprintf(stderr, "check: relay broke at %zu\n", i);
			return 1;
		}
	}
	if (memcmp(in, out, len) != 0) {
		fprintf(stderr, "check: bytes changed in the relay\n");
		return 1;
	}
	/* a half-close must reach the server, and its close come back */
	shutdown(fd, SHUT_WR);
	if (read(fd, &b, 1) != 0) {
		fprintf(stderr, "check: no end of file after a half-close\n");
		return 1;
	}
	close(fd);
	free(out);
	free(in);
	return 0;
}

/*
 * ---- nullproxy: a test floor, not a product ----
 *
 * What any CONNECT proxy costs on this host, so the report can say how
 * far a real one is from it: one thread, epoll, no policy, no name
 * resolution, no timeouts, no logging, no limits.  Per tunnel: accept4(2)
 * (TCP_DEFER_ACCEPT: the head is there), one recv(2) of the head, only
 * "CONNECT a.b.c.d:port " understood, socket(2) with the flags set at
 * once, TCP_NODELAY (any proxy carrying interactive traffic sets it), a
 * nonblocking connect(2), the 200 when it completes, then the relay.
 *
 * The relay is edge-triggered: each direction remembers whether its
 * source may still hold bytes and its destination may take more, and a
 * read that returned fewer bytes than asked (rw) or than the pipe has
 * slots (splice) emptied the socket, so no EAGAIN round follows each
 * small message; a FIN already reported keeps the source marked
 * readable until its end of file is read.  The client is registered
 * without EPOLLOUT (writes to it rarely block: EPOLL_CTL_MOD adds it
 * then), the upstream with it (its connect needs it).  "splice" moves
 * bytes through a pipe per direction (pipes pooled, 1 MiB); "rw" through
 * a 64 KiB buffer per direction with read(2)/write(2).  Closing a socket
 * takes it out of the epoll set: no EPOLL_CTL_DEL.
 */
#define NP_PIPE_SIZE	(1024 * 1024)
#define NP_BUF		(64 * 1024)
#define NP_POOL		64

struct np_dir {
	int	 from, to;
	int	 p[2];		/* splice: -1 none */
	char	*buf;		/* rw */
	size_t	 off, held;	/* bytes in the pipe or buf[off..] */
	int	 rd, wr, rdhup, eof, done;
};

struct np_tun;
struct np_ref {
	struct np_tun	*t;
	int		 is_up;
};

struct np_tun {
	int		 c, u;
	int		 state;		/* 0 head, 1 connecting, 2 relay */
	int		 c_in_ep, c_out;	/* client registered, EPOLLOUT */
	int		 dead;
	char		 head[1024];
	size_t		 hlen;
	struct np_dir	 out, in;	/* client->upstream, back */
	struct np_ref	 cref, uref;
	struct np_tun	*next_dead;
};

static int	 np_ep, np_splice;
static int	 np_pool[NP_POOL][2], np_npool;
static size_t	 np_slots = NP_PIPE_SIZE / 4096;
static struct np_tun *np_dead;

static void
np_kill(struct np_tun *t)
{
	struct np_dir *d[2] = { &t->out, &t->in };
	int	 i;

	if (t->dead)
		return;
	t->dead = 1;
	close(t->c);
	if (t->u != -1)
		close(t->u);
	for (i = 0; i < 2; i++) {
		if (d[i]->p[0] == -1)
			continue;
		if (d[i]->held == 0 && np_npool < NP_POOL) {
			np_pool[np_npool][0] = d[i]->p[0];
			np_pool[np_npool++][1] = d[i]->p[1];
		} else {
			close(d[i]->p[0]);
			close(d[i]->p[1]);
		}
	}
	/* events for it may follow in the same batch: free after it */
	t->next_dead = np_dead;
	np_dead = t;
}

static int
np_pipe(int p[2])
{
	int	 sz;

	if (np_npool > 0) {
		np_npool--;
		p[0] = np_pool[np_npool][0];
		p[1] = np_pool[np_npool][1];
		return 0;
	}
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == -1)
		return -1;
	if ((sz = fcntl(p[1], F_SETPIPE_SZ, NP_PIPE_SIZE)) == -1)
		sz = fcntl(p[1], F_GETPIPE_SZ);
	if (sz > 0 && (size_t)sz / 4096 < np_slots)
		np_slots = (size_t)sz / 4096;
	return 0;
}

/* Move bytes one way until a side blocks; -1: close the tunnel. */
static int
np_pump(struct np_tun *t, struct np_dir *d)
{
	struct epoll_event ev;
	ssize_t	 n;

	for (;;) {
		if (d->held > 0) {
			if (!d->wr)
				return 0;
			if (np_splice)
				n = splice(d->p[0], NULL, d->to, NULL, d->held,
				    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			else
				n = send(d->to, d->buf + d->off, d->held,
				    MSG_NOSIGNAL);
			if (n == -1 && errno == EAGAIN) {
				d->wr = 0;
				if (d->to == t->c && !t->c_out) {
					t->c_out = 1;
					ev.events = EPOLLIN | EPOLLOUT |
					    EPOLLRDHUP | EPOLLET;
					ev.data.ptr = &t->cref;
					if (epoll_ctl(np_ep, EPOLL_CTL_MOD,
					    t->c, &ev) == -1)
						return -1;
				}
				return 0;
			}
			if (n == -1)
				return -1;
			d->held -= (size_t)n;
			d->off += (size_t)n;
			continue;
		}
		if (d->eof) {
			/* the last direction to end closes instead */
			if (!d->done && !(d == &t->out ? t->in : t->out).done)
				shutdown(d->to, SHUT_WR);
			d->done = 1;
			return 0;
		}
		if (!d->rd)
			return 0;
		if (np_splice) {
			if (d->p[0] == -1 && np_pipe(d->p) == -1)
				return -1;
			n = splice(d->from, NULL, d->p[1], NULL, NP_PIPE_SIZE,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		} else {
			if (d->buf == NULL && (d->buf = malloc(NP_BUF)) == NULL)
				return -1;
			n = recv(d->from, d->buf, NP_BUF, 0);
		}
		if (n == -1 && errno == EAGAIN) {
			d->rd = 0;
			return 0;
		}
		if (n == -1)
			return -1;
		if (n == 0)
			d->eof = 1;
		else if (!d->rdhup && (size_t)n <
		    (np_splice ? np_slots : (size_t)NP_BUF))
			d->rd = 0;	/* the socket is empty */
		d->held = (size_t)n;
		d->off = 0;
	}
}

static void
np_relay(struct np_tun *t)
{
	if (np_pump(t, &t->out) == -1 || np_pump(t, &t->in) == -1 ||
	    (t->out.done && t->in.done))
		np_kill(t);
}

/* The head is complete: dial the target it names. */
static void
np_dial(struct np_tun *t, char *end)
{
	struct sockaddr_in sin;
	struct epoll_event ev;
	char	*host = t->head + 8, *colon, *sp;
	int	 one = 1;

	*end = '\0';
	/* untrusted: a request head (only the bench's clients send one) */
	if (strncmp(t->head, "CONNECT ", 8) != 0 ||
	    (sp = strchr(host, ' ')) == NULL)
		goto fail;
	*sp = '\0';
	if ((colon = strrchr(host, ':')) == NULL)
		goto fail;
	*colon = '\0';
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		goto fail;
	/* nothing may follow the head: the bench's clients wait for 200 */
	if (end + 4 != t->head + t->hlen)
		goto fail;
	if ((t->u = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1)
		goto fail;
	t->out.to = t->in.from = t->u;
	setsockopt(t->u, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(t->u, (struct sockaddr *)&sin, sizeof(sin)) == -1 &&
	    errno != EINPROGRESS)
		goto fail;
	t->state = 1;
	ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
	ev.data.ptr = &t->uref;
	if (epoll_ctl(np_ep, EPOLL_CTL_ADD, t->u, &ev) == -1)
		goto fail;
	return;
fail:
	np_kill(t);
}

/* Read (more of) the head; dial once it is complete. */
static void
np_head(struct np_tun *t)
{
	struct epoll_event ev;
	char	*end;
	ssize_t	 n;

	n = recv(t->c, t->head + t->hlen, sizeof(t->head) - 1 - t->hlen, 0);
	if (n == -1 && errno == EAGAIN) {
		t->out.rd = 0;
		if (!t->c_in_ep) {
			t->c_in_ep = 1;
			ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
			ev.data.ptr = &t->cref;
			if (epoll_ctl(np_ep, EPOLL_CTL_ADD, t->c, &ev) == -1)
				np_kill(t);
		}
		return;
	}
	if (n <= 0) {
		np_kill(t);
		return;
	}
	t->hlen += (size_t)n;
	t->head[t->hlen] = '\0';
	if ((end = strstr(t->head, "\r\n\r\n")) != NULL)
		np_dial(t, end);
	else if (t->hlen == sizeof(t->head) - 1)
		np_kill(t);
	else
		np_head(t);	/* EAGAIN next, or more of the head */
}

static void
np_connected(struct np_tun *t, uint32_t events)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	struct epoll_event ev;

	if (events & (EPOLLERR | EPOLLHUP)) {
		np_kill(t);
		return;
	}
	if (send(t->c, ok, sizeof(ok) - 1, MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(ok) - 1) {
		np_kill(t);
		return;
	}
	t->state = 2;
	t->out.wr = 1;		/* just connected */
	t->in.wr = 1;		/* just written to */
	/* what the connect's edge said about the upstream is exact */
	t->in.rd = (events & (EPOLLIN | EPOLLRDHUP)) != 0;
	t->in.rdhup = (events & EPOLLRDHUP) != 0;
	if (!t->c_in_ep) {
		/* registering reports bytes already there */
		t->c_in_ep = 1;
		ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
		ev.data.ptr = &t->cref;
		if (epoll_ctl(np_ep, EPOLL_CTL_ADD, t->c, &ev) == -1) {
			np_kill(t);
			return;
		}
	}
	np_relay(t);
}

static void
np_accept(int lfd)
{
	struct np_tun *t;
	int	 fd;

	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC))
	    != -1) {
		if ((t = calloc(1, sizeof(*t))) == NULL)
			die("calloc");
		t->c = fd;
		t->u = -1;
		t->out.p[0] = t->out.p[1] = t->in.p[0] = t->in.p[1] = -1;
		t->out.from = t->in.to = fd;
		t->cref.t = t->uref.t = t;
		t->uref.is_up = 1;
		np_head(t);
	}
}

static int
nullproxy(const char *mode)
{
	struct epoll_event evs[256], ev;
	struct np_ref *r;
	struct np_tun *t;
	struct np_dir *src, *dst;
	uint16_t port;
	int	 lfd, n, i, v = 5;
	static int stdin_tag;

	np_splice = strcmp(mode, "splice") == 0;
	if (!np_splice && strcmp(mode, "rw") != 0)
		return 2;
	if ((np_ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		die("epoll_create1");
	lfd = listener(&port);
	setsockopt(lfd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &v, sizeof(v));
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	if (epoll_ctl(np_ep, EPOLL_CTL_ADD, lfd, &ev) == -1)
		die("epoll_ctl");
	ev.data.ptr = &stdin_tag;
	if (epoll_ctl(np_ep, EPOLL_CTL_ADD, STDIN_FILENO, &ev) == -1)
		die("epoll_ctl");
	printf("port=%u\n", port);
	fflush(stdout);
	for (;;) {
		n = epoll_wait(np_ep, evs, 256, -1);
		if (n == -1 && errno == EINTR)
			continue;
		for (i = 0; i < n; i++) {
			if (evs[i].data.ptr == NULL) {
				np_accept(lfd);
				continue;
			}
			if (evs[i].data.ptr == &stdin_tag)
				return 0;
			r = evs[i].data.ptr;
			t = r->t;
			if (t->dead)
				continue;
			src = r->is_up ? &t->in : &t->out;
			dst = r->is_up ? &t->out : &t->in;
			if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLERR |
			    EPOLLHUP))
				src->rd = 1;
			if (evs[i].events & EPOLLRDHUP)
				src->rdhup = 1;
			if (evs[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
				dst->wr = 1;
			if (t->state == 0)
				np_head(t);
			else if (t->state == 1 && r->is_up)
				np_connected(t, evs[i].events);
			else if (t->state == 2)
				np_relay(t);
		}
		while ((t = np_dead) != NULL) {
			np_dead = t->next_dead;
			free(t->out.buf);
			free(t->in.buf);
			free(t);
		}
	}
}

int
main(int argc, char *argv[])
{
	uint16_t proxy;

	if (argc >= 2 && strcmp(argv[1], "serve") == 0)
		return serve();
	if (argc == 3 && strcmp(argv[1], "nullproxy") == 0)
		return nullproxy(argv[2]);
	if (argc == 4 && strcmp(argv[1], "check") == 0)
		return check(strcmp(argv[2], "-") == 0 ? 0 :
		    (uint16_t)atoi(argv[2]), (uint16_t)atoi(argv[3]));
	if (argc < 5)
		goto usage;
	proxy = strcmp(argv[2], "-") == 0 ? 0 : (uint16_t)atoi(argv[2]);
	if (strcmp(argv[1], "bulk") == 0)
		return bulk(proxy, (uint16_t)atoi(argv[3]),
		    strtoull(argv[4], NULL, 10));
	if (strcmp(argv[1], "tunnels") == 0 && argc == 6)
		return tunnels(proxy, (uint16_t)atoi(argv[3]), atof(argv[4]),
		    atoi(argv[5]));
	if (strcmp(argv[1], "idle") == 0)
		return idle(proxy, (uint16_t)atoi(argv[3]), atoi(argv[4]));
usage:
	fprintf(stderr, "usage: see the comment at the top of px_bench.c\n");
	return 2;
}
