// SPDX-License-Identifier: ISC
/*
 * `airlock proxy-connect PROXY-HOST:PORT HOST PORT`: ssh's ProxyCommand
 * inside a sandbox.  It speaks SOCKS5 (no authentication, CONNECT by
 * name: the proxy resolves and applies the allowlist) to the session's
 * proxy and then relays stdin/stdout to the tunnel, what `nc -X 5 -x`
 * did, so git over ssh needs nothing installed but ssh.  The
 * sandbox sees this binary read-only at AIRLOCK_SANDBOX_SELF.
 */
#include <sys/socket.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli_policy.h"
#include "common/socks.h"

static int
usage_pc(void)
{
	fprintf(stderr, "usage: airlock proxy-connect PROXY-HOST:PORT HOST "
	    "PORT\n");
	return 2;
}

static int
write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read until parse says OK or ERROR; the bytes stay in buf. */
static int
read_msg(int fd, uint8_t *buf, size_t cap, size_t *len)
{
	ssize_t	n;

	if (*len >= cap)
		return -1;
	if ((n = read(fd, buf + *len, cap - *len)) <= 0) {
		if (n == -1 && errno == EINTR)
			return 0;
		return -1;
	}
	*len += (size_t)n;
	return 0;
}

static int
dial(const char *hostport)
{
	struct addrinfo	 hints, *res, *ai;
	char		 host[256], *colon;
	int		 fd = -1, e;

	if (snprintf(host, sizeof(host), "%s", hostport) >= (int)sizeof(host) ||
	    (colon = strrchr(host, ':')) == NULL)
		return -1;
	*colon = '\0';
	if (host[0] == '[' && colon[-1] == ']') {
		colon[-1] = '\0';
		memmove(host, host + 1, strlen(host));
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if ((e = getaddrinfo(host, colon + 1, &hints, &res)) != 0) {
		fprintf(stderr, "airlock: proxy %s: %s\n", hostport,
		    gai_strerror(e));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol)) == -1)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd == -1)
		fprintf(stderr, "airlock: proxy %s: %s\n", hostport,
		    strerror(errno));
	return fd;
}

/* Copy both ways until the tunnel closes; stdin's EOF half-closes it. */
static int
relay(int s)
{
	struct pollfd	 p[2];
	char		 buf[16384];
	ssize_t		 n;
	int		 in_open = 1;

	for (;;) {
		p[0].fd = in_open ? STDIN_FILENO : -1;
		p[0].events = POLLIN;
		p[1].fd = s;
		p[1].events = POLLIN;
		if (poll(p, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (in_open && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			n = read(STDIN_FILENO, buf, sizeof(buf));
			if (n == -1 && errno == EINTR)
				continue;
			if (n <= 0) {
				in_open = 0;
				(void)shutdown(s, SHUT_WR);
			} else if (write_all(s, buf, (size_t)n) == -1)
				return 1;
		}
		if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(s, buf, sizeof(buf));
			if (n == -1 && errno == EINTR)
				continue;
			if (n <= 0)
				return n == 0 ? 0 : 1;
			if (write_all(STDOUT_FILENO, buf, (size_t)n) == -1)
				return 1;
		}
	}
}

int
cli_proxyconnect_main(int argc, char **argv)
{
	uint8_t		 msg[4 + 1 + 255 + 2], in[SOCKS_REPLY_MAX + 256];
	size_t		 hl, len = 0, used = 0;
	unsigned long	 port;
	char		*end;
	uint8_t		 rep = SOCKS_REP_FAILURE;
	enum socks_result r = SOCKS_MORE;
	int		 s;

	if (argc != 4)
		return usage_pc();
	hl = strlen(argv[2]);
	port = strtoul(argv[3], &end, 10);
	if (hl == 0 || hl > 255 || *end != '\0' || port == 0 || port > 65535)
		return usage_pc();
	if ((s = dial(argv[1])) == -1)
		return 1;
	/* Greeting: version 5, one method, no authentication. */
	if (write_all(s, "\x05\x01\x00", 3) == -1)
		goto fail;
	while (len < 2)
		if (read_msg(s, in, 2, &len) == -1)
			goto fail;
	if (in[0] != SOCKS_VERSION || in[1] != SOCKS_METHOD_NOAUTH) {
		fprintf(stderr, "airlock: proxy-connect: the proxy refused "
		    "the no-authentication method\n");
		goto out;
	}
	msg[0] = SOCKS_VERSION;
	msg[1] = SOCKS_CMD_CONNECT;
	msg[2] = 0;
	msg[3] = SOCKS_ATYP_DOMAIN;
	msg[4] = (uint8_t)hl;
	memcpy(msg + 5, argv[2], hl);
	msg[5 + hl] = (uint8_t)(port >> 8);
	msg[6 + hl] = (uint8_t)port;
	if (write_all(s, msg, 7 + hl) == -1)
		goto fail;
	len = 0;
	while ((r = socks_reply_parse(in, len, &used, &rep)) == SOCKS_MORE)
		if (read_msg(s, in, sizeof(in), &len) == -1)
			goto fail;
	if (r != SOCKS_OK || rep != SOCKS_REP_OK) {
		fprintf(stderr, "airlock: proxy-connect: %s:%lu refused by "
		    "the proxy (SOCKS reply %u)\n", argv[2], port,
		    (unsigned)rep);
		goto out;
	}
	/* Bytes after the reply are the server's: pass them on. */
	if (len > used && write_all(STDOUT_FILENO, in + used,
	    len - used) == -1)
		goto fail;
	return relay(s);
fail:
	fprintf(stderr, "airlock: proxy-connect: %s\n", errno != 0 ?
	    strerror(errno) : "the proxy closed the connection");
out:
	close(s);
	return 1;
}
