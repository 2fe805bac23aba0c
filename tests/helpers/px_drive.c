// SPDX-License-Identifier: ISC
/*
 * px_drive: stands in for airlockd in front of airlock-proxyd, so the
 * proxies can be tested and benchmarked without the rest of airlock.
 *
 *   px_drive [-n] [-d DENY]... [-H host] [-m MAX] PROXYD [ALLOW...]
 *
 * It starts PROXYD with a socketpair on fd 3, waits for its HELLO, makes
 * two listening sockets on 127.0.0.1 (ephemeral ports; -H picks another
 * loopback address), sends MSG_PX_SESSION_ADD with them and the ALLOW
 * patterns (-n: network off, -d: deny patterns, -m: the connections
 * the session may hold, 65536 unless given), and prints
 *   hello PID SUMMARY
 *   http_port=P
 *   socks_port=Q
 * then one line "violation SESSION ACTION TARGET" per MSG_PX_VIOLATION.
 * On EOF on stdin, SIGTERM or SIGINT it sends MSG_PX_SESSION_DEL and
 * MSG_SHUTDOWN and exits with proxyd's status.  If proxyd dies first it
 * prints "proxyd exited STATUS" and exits 1.
 */
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int
listener(const char *host, uint16_t *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int	 fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		fatal("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		fatalx("bad listen address %s", host);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 4096) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		fatal("listener");
	*port = ntohs(sin.sin_port);
	return fd;
}

static int
child_status(pid_t pid)
{
	int	 st;

	if (waitpid(pid, &st, 0) == -1)
		return 1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

int
main(int argc, char *argv[])
{
	struct msg_link link;
	struct msgbuf b;
	struct msg m;
	struct pollfd pfd[2];
	struct sigaction sa;
	char	*deny[64], *allow[1024], buf[256];
	const char *host = "127.0.0.1";
	int	 sv[2], fds[2], ch, ndeny = 0, network = 1, i, n;
	/* As airlockd's largest: the benches hold thousands of tunnels. */
	uint32_t max_open = 65536;
	uint16_t hport, sport;
	pid_t	 pid;
	enum msg_result r;

	log_init("px_drive", 0);
	while ((ch = getopt(argc, argv, "nd:H:m:")) != -1) {
		switch (ch) {
		case 'n':
			network = 0;
			break;
		case 'd':
			if (ndeny < 63)
				deny[ndeny++] = optarg;
			break;
		case 'H':
			host = optarg;
			break;
		case 'm':
			max_open = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: px_drive [-n] [-d deny]... "
			    "[-H addr] [-m max] proxyd [allow...]\n");
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || argc > 1000)
		fatalx("usage: px_drive [-n] [-d deny]... proxyd [allow...]");
	deny[ndeny] = NULL;
	for (i = 1; i < argc; i++)
		allow[i - 1] = argv[i];
	allow[argc - 1] = NULL;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		fatal("socketpair");
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		if (dup2(sv[1], MSG_CHILD_FD) == -1)
			fatal("dup2");
		execl(argv[0], argv[0], (char *)NULL);
		fatal("exec %s", argv[0]);
	}
	close(sv[1]);
	msg_link_init(&link, sv[0], MSG_CH_PROXYD, MSG_UP, "proxyd");

	if (msg_recv(&link, &m) != MSG_OK || m.info->type != MSG_HELLO) {
		printf("proxyd exited %d\n", child_status(pid));
		return 1;
	}
	n = (int)msg_get_u32(&m);
	printf("hello %d %s\n", n, msg_get_str(&m));
	msg_free(&m);

	fds[0] = listener(host, &hport);
	fds[1] = listener(host, &sport);
	msgbuf_init(&b, MSG_PX_SESSION_ADD);
	msg_put_str(&b, "s1");
	msg_put_u32(&b, network ? PX_F_NETWORK : 0);
	msg_put_u32(&b, max_open);
	msg_put_strv(&b, allow);
	msg_put_strv(&b, deny);
	if (msg_send(&link, &b, fds, 2) == -1)
		fatal("send SESSION_ADD");
	msgbuf_free(&b);
	close(fds[0]);
	close(fds[1]);
	printf("http_port=%u\nsocks_port=%u\n", hport, sport);
	fflush(stdout);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	pfd[0].fd = STDIN_FILENO;
	pfd[0].events = POLLIN;
	pfd[1].fd = link.fd;
	pfd[1].events = POLLIN;
	while (!stop) {
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll");
		}
		if (pfd[1].revents) {
			r = msg_recv(&link, &m);
			if (r != MSG_OK) {
				printf("proxyd exited %d\n", child_status(pid));
				return 1;
			}
			if (m.info->type == MSG_PX_VIOLATION) {
				const char *sid = msg_get_str(&m);
				const char *act = msg_get_str(&m);

				printf("violation %s %s %s\n", sid, act,
				    msg_get_str(&m));
			} else
				printf("message %s\n", m.info->name);
			fflush(stdout);
			msg_free(&m);
		}
		if (pfd[0].revents) {
			if (read(STDIN_FILENO, buf, sizeof(buf)) <= 0)
				break;
		}
	}
	msgbuf_init(&b, MSG_PX_SESSION_DEL);
	msg_put_str(&b, "s1");
	(void)msg_send(&link, &b, NULL, 0);
	msgbuf_free(&b);
	(void)msg_send_empty(&link, MSG_SHUTDOWN);
	/* drain what proxyd still says until it closes */
	while (msg_recv(&link, &m) == MSG_OK) {
		if (m.info->type == MSG_PX_VIOLATION) {
			const char *sid = msg_get_str(&m);
			const char *act = msg_get_str(&m);

			printf("violation %s %s %s\n", sid, act,
			    msg_get_str(&m));
		}
		msg_free(&m);
	}
	msg_link_close(&link);
	n = child_status(pid);
	printf("proxyd exited %d\n", n);
	return n;
}
