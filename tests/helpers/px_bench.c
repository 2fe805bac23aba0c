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
	char	 b = 'x';
	int	 fd;

	while (now() < a->until) {
		if ((fd = tunnel(a->proxy, a->port)) == -1) {
			a->errors++;
			continue;
		}
		if (write_full(fd, &b, 1) == 0 && read_full(fd, &b, 1) == 0)
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

int
main(int argc, char *argv[])
{
	uint16_t proxy;

	if (argc >= 2 && strcmp(argv[1], "serve") == 0)
		return serve();
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
