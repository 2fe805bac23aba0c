/* SPDX-License-Identifier: ISC */
/*
 * gw_drive: plays airlockd's part for airlock-gatewayd so the gateway can
 * be tested alone.  It fork+execs the gateway with a socketpair on fd 3,
 * makes a listening socket on 127.0.0.1, registers it as one run
 * (MSG_GW_RUN_ADD) and answers the gateway's questions from its command
 * line:
 *
 *   gw_drive -g GATEWAYD -P PORTFILE -u UPSTREAM_BASE [-c CA] [-C CA]...
 *            [-l owner/name]... [-r allow|deny:GLOB]... [-T TOKENFILE]
 *            [-E EVENTFILE] [-H HOSTNAME]
 *
 * -u is the code host's upstream base (https://127.0.0.1:8443/); -l a
 * linked repository; -r push rules, first match wins, no match denies;
 * -T a file holding the write token (never on a command line); -c the CA
 * bundle named in REPO answers, -C one passed to gatewayd at start; -H
 * the code host's name, the first segment of gateway paths as gitcfg.h
 * writes them (<gateway>/<host>/<owner>/<name>.git).  The
 * port is written to PORTFILE once the run is registered.  SIGUSR1 revokes
 * the run (MSG_GW_RUN_DEL), SIGTERM shuts the gateway down.  Events
 * (HELLO, PUSH_DONE, questions) are appended to EVENTFILE, one per line.
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/xmalloc.h"

static volatile sig_atomic_t got_usr1, got_term;
static FILE	*events;
static char	**linked, **rules;
static const char *upstream = "", *ca = "", *tokenfile, *hostname;

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		got_usr1 = 1;
	else
		got_term = 1;
}

static void
event_line(const char *fmt, ...)
{
	va_list	ap;

	if (events == NULL)
		return;
	va_start(ap, fmt);
	vfprintf(events, fmt, ap);
	va_end(ap);
	fputc('\n', events);
	fflush(events);
}

/* Without the "<host>/" segment when -H is given; NULL if it is missing. */
static const char *
strip_host(const char *path)
{
	size_t	n;

	if (hostname == NULL)
		return path;
	n = strlen(hostname);
	if (strncmp(path, hostname, n) != 0 || path[n] != '/')
		return NULL;
	return path + n + 1;
}

/* "acme/app.git" or "acme/app" against the linked "owner/name" list. */
static int
repo_allowed(const char *path)
{
	size_t	i, n;

	if ((path = strip_host(path)) == NULL)
		return 0;
	n = strlen(path);

	if (n > 4 && strcmp(path + n - 4, ".git") == 0)
		n -= 4;
	for (i = 0; linked != NULL && linked[i] != NULL; i++)
		if (strlen(linked[i]) == n && strncmp(linked[i], path, n) == 0)
			return 1;
	return 0;
}

static int
ref_rule(const char *ref, char *reason, size_t len)
{
	size_t	i;
	char	*colon;

	for (i = 0; rules != NULL && rules[i] != NULL; i++) {
		colon = strchr(rules[i], ':');
		if (colon == NULL || fnmatch(colon + 1, ref, 0) != 0)
			continue;
		snprintf(reason, len, "push to %s %s by rule %s", ref,
		    strncmp(rules[i], "allow", 5) == 0 ? "allowed" : "denied",
		    colon + 1);
		return strncmp(rules[i], "allow", 5) == 0;
	}
	snprintf(reason, len, "no push rule matches %s", ref);
	return 0;
}

static char *
read_token(void)
{
	char	buf[512];
	FILE	*f;
	size_t	n;

	if (tokenfile == NULL || (f = fopen(tokenfile, "r")) == NULL)
		return xstrdup("");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return xstrdup(buf);
}

static void
answer(struct msg_link *l, struct msg *m)
{
	struct msgbuf	 b;
	const char	*sid, *path, *ref;
	char		 reason[512], *url, *tok;
	uint32_t	 id, kind;
	int		 ok;

	switch (m->info->type) {
	case MSG_HELLO:
		id = msg_get_u32(m);
		event_line("HELLO pid=%u %s", id, msg_get_str(m));
		break;
	case MSG_GW_REPO_REQ:
		id = msg_get_u32(m);
		sid = msg_get_str(m);
		path = msg_get_str(m);
		ok = repo_allowed(path);
		event_line("REPO %s %s %s", sid, path, ok ? "allowed" :
		    "refused");
		xasprintf(&url, "%s%s", upstream, ok ? strip_host(path) : "");
		msgbuf_init(&b, MSG_GW_REPO_ANS);
		msg_put_u32(&b, id);
		msg_put_u32(&b, (uint32_t)ok);
		msg_put_str(&b, ok ? url : "");
		msg_put_str(&b, ok ? ca : "");
		msg_put_str(&b, ok ? "" : "repository is not linked to this "
		    "workspace");
		msg_send(l, &b, NULL, 0);
		msgbuf_free(&b);
		free(url);
		break;
	case MSG_GW_REF_REQ:
		id = msg_get_u32(m);
		sid = msg_get_str(m);
		ref = msg_get_str(m);
		kind = msg_get_u32(m);
		ok = ref_rule(ref, reason, sizeof(reason));
		event_line("REF %s %s kind=%u %s", sid, ref, kind,
		    ok ? "allowed" : "denied");
		msgbuf_init(&b, MSG_GW_REF_ANS);
		msg_put_u32(&b, id);
		msg_put_u32(&b, (uint32_t)ok);
		msg_put_str(&b, reason);
		msg_send(l, &b, NULL, 0);
		msgbuf_free(&b);
		break;
	case MSG_GW_TOKEN_REQ:
		id = msg_get_u32(m);
		sid = msg_get_str(m);
		path = msg_get_str(m);
		tok = read_token();
		event_line("TOKEN %s %s %s", sid, path, tok[0] ? "issued" :
		    "none");
		msgbuf_init(&b, MSG_GW_TOKEN_ANS);
		msg_put_u32(&b, id);
		msg_put_u32(&b, tok[0] != '\0');
		msg_put_str(&b, tok);
		msg_send(l, &b, NULL, 0);
		explicit_bzero(b.data, b.len);
		msgbuf_free(&b);
		freezero_str(tok);
		break;
	case MSG_GW_PUSH_DONE:
		(void)msg_get_u32(m);
		sid = msg_get_str(m);
		path = msg_get_str(m);
		event_line("PUSH_DONE %s forwarded=%u %s", sid,
		    msg_get_u32(m), path);
		break;
	case MSG_GW_CONN_END:
		event_line("CONN_END %s", msg_get_str(m));
		break;
	default:
		event_line("UNEXPECTED %s", m->info->name);
		break;
	}
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sin;
	socklen_t	 slen = sizeof(sin);
	struct sigaction sa;
	struct msg_link	 l;
	struct msgbuf	 b;
	struct msg	 m;
	struct pollfd	 pfd;
	const char	*gatewayd = NULL, *portfile = NULL;
	char		**gargv = NULL;
	FILE		*f;
	pid_t		 pid;
	int		 sp[2], lfd, ch, status, revoked = 0;

	log_init("gw_drive", 0);
	gargv = strv_add(gargv, "airlock-gatewayd");
	while ((ch = getopt(argc, argv, "C:E:H:P:T:c:dg:l:r:u:")) != -1) {
		switch (ch) {
		case 'C':
			gargv = strv_add(gargv, "-C");
			gargv = strv_add(gargv, optarg);
			break;
		case 'E':
			if ((events = fopen(optarg, "a")) == NULL)
				fatal("%s", optarg);
			break;
		case 'H':
			hostname = optarg;
			break;
		case 'P':
			portfile = optarg;
			break;
		case 'T':
			tokenfile = optarg;
			break;
		case 'c':
			ca = optarg;
			break;
		case 'd':
			gargv = strv_add(gargv, "-d");
			break;
		case 'g':
			gatewayd = optarg;
			break;
		case 'l':
			linked = strv_add(linked, optarg);
			break;
		case 'r':
			rules = strv_add(rules, optarg);
			break;
		case 'u':
			upstream = optarg;
			break;
		default:
			fprintf(stderr, "usage: see the top of gw_drive.c\n");
			return 2;
		}
	}
	if (gatewayd == NULL || portfile == NULL)
		fatalx("-g and -P are required");

	if ((lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		fatal("socket");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(lfd, 64) == -1 ||
	    getsockname(lfd, (struct sockaddr *)&sin, &slen) == -1)
		fatal("listen");

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1)
		fatal("socketpair");
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		if (dup2(sp[1], MSG_CHILD_FD) == -1)
			_exit(127);
		execv(gatewayd, gargv);
		_exit(127);
	}
	close(sp[1]);
	msg_link_init(&l, sp[0], MSG_CH_GATEWAYD, MSG_UP, "gatewayd");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	msgbuf_init(&b, MSG_GW_RUN_ADD);
	msg_put_str(&b, "run-1");
	if (msg_send(&l, &b, &lfd, 1) == -1)
		fatal("send RUN_ADD");
	msgbuf_free(&b);
	close(lfd);
	if ((f = fopen(portfile, "w")) == NULL)
		fatal("%s", portfile);
	fprintf(f, "%u\n", ntohs(sin.sin_port));
	fclose(f);
	event_line("PID %d", (int)pid);

	for (;;) {
		if (got_usr1 && !revoked) {
			msgbuf_init(&b, MSG_GW_RUN_DEL);
			msg_put_str(&b, "run-1");
			msg_send(&l, &b, NULL, 0);
			msgbuf_free(&b);
			revoked = 1;
			event_line("REVOKED run-1");
		}
		if (got_term) {
			msg_send_empty(&l, MSG_SHUTDOWN);
			break;
		}
		pfd.fd = l.fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll");
		}
		switch (msg_recv(&l, &m)) {
		case MSG_OK:
			answer(&l, &m);
			msg_free(&m);
			break;
		case MSG_AGAIN:
			break;
		case MSG_EOF:
		case MSG_ERROR:
		case MSG_FDS_LOST:
			event_line("GATEWAY_GONE");
			goto out;
		}
	}
out:
	msg_link_close(&l);
	strv_free(gargv);
	if (waitpid(pid, &status, 0) == pid) {
		event_line("EXIT %s %d", WIFSIGNALED(status) ? "signal" :
		    "status", WIFSIGNALED(status) ? WTERMSIG(status) :
		    WEXITSTATUS(status));
		/* A seccomp kill is a gateway bug the tests must see. */
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
			return 3;
	}
	return 0;
}
