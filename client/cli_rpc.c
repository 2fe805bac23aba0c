// SPDX-License-Identifier: ISC
/*
 * The client's side of the JSON-RPC connection.  If no airlockd answers
 * on the socket, a private one is started for this invocation on a
 * socketpair (`airlockd --fd 3`), and stops when the connection closes:
 * nothing has to be set up by hand (R-P6).
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_explain.h"
#include "common/host/paths.h"
#include "common/host/settings.h"
#include "common/json.h"
#include "common/log.h"
#include "common/sigdfl.h"
#include "common/vis.h"
#include "common/xmalloc.h"

/*
 * R-C5 before a private airlockd starts: a run with no sandbox (--sandbox
 * off, or AIRLOCK_SANDBOX=off, which the private airlockd inherits) that
 * the settings forbid is refused here, once, in the words of the flag and
 * the setting, instead of by airlockd's fatal line and then our own
 * "connection closed".  1 (err set) if refused.
 */
static int
private_unconfined_refused(const char *settings, const char *sandbox,
    char *err, size_t errlen)
{
	struct settings	 s;
	const char	*env, *from = NULL, *why;
	char		 buf[512], lerr[512];

	env = getenv("AIRLOCK_SANDBOX");
	if (sandbox != NULL && (strcmp(sandbox, "off") == 0 ||
	    strcmp(sandbox, "0") == 0 || strcmp(sandbox, "false") == 0))
		from = "--sandbox off";
	else if (sandbox == NULL && env != NULL && (strcmp(env, "off") == 0 ||
	    strcmp(env, "0") == 0 || strcmp(env, "false") == 0))
		from = "AIRLOCK_SANDBOX=off";
	if (from == NULL)
		return 0;
	settings_defaults(&s);
	if (settings_load(&s, NULL, settings, NULL, lerr, sizeof(lerr)) == -1) {
		settings_free(&s);
		return 0;	/* said by explain_settings_error */
	}
	if ((why = settings_forbid_unconfined(&s, buf, sizeof(buf))) != NULL)
		snprintf(err, errlen, "%s refused: %s; run without it (the "
		    "sandbox on) or change that setting", from, why);
	settings_free(&s);
	return why != NULL;
}

static int
start_private(struct rpc *r, char *const *extra, char *err, size_t errlen)
{
	int		 sp[2], serr;
	char		*path, **argv = NULL;
	const char	*settings = NULL, *sandbox = NULL;
	size_t		 i;
	pid_t		 pid;
	sigset_t	 all, old;

	/* Settings airlockd would refuse start none: its fatal line would
	 * race the client's own. */
	for (i = 0; extra != NULL && extra[i] != NULL; i++) {
		if (strcmp(extra[i], "--settings") == 0 && extra[i + 1] != NULL)
			settings = extra[i + 1];
		if (strcmp(extra[i], "--sandbox") == 0 && extra[i + 1] != NULL)
			sandbox = extra[i + 1];
	}
	if (explain_settings_error(settings, err, errlen) == -1)
		return -1;
	if (private_unconfined_refused(settings, sandbox, err, errlen))
		return -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	path = airlock_sibling("airlockd", NULL);
	argv = strv_add(argv, "airlockd");
	argv = strv_add(argv, "--fd");
	argv = strv_add(argv, "3");
	for (i = 0; extra != NULL && extra[i] != NULL; i++)
		argv = strv_add(argv, extra[i]);
	/*
	 * vfork: the child only execs, so it borrows this
	 * process's memory instead of copying its page tables, on the
	 * critical path of a cold `airlock run`.  Signals stay blocked
	 * until the child has set its own dispositions.
	 */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if ((pid = vfork()) == -1) {
		serr = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		snprintf(err, errlen, "fork: %s", strerror(serr));
		strv_free(argv);
		free(path);
		return -1;
	}
	if (pid == 0) {
		/*
		 * The private supervisor lives exactly as long as we do,
		 * and in a session of its own: a signal sent to the
		 * caller's process group (timeout(1), kill -TERM -PGID,
		 * Ctrl-C on a pipeline) is ours to forward to the
		 * command, and would otherwise end the supervisor first.
		 */
		(void)setsid();
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (dup2(sp[1], 3) == -1)
			_exit(127);
		/* Caught signals back to the default (exec would). */
		sig_default_caught();
		signal(SIGINT, SIG_IGN);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (strchr(path, '/') != NULL)
			execv(path, argv);
		else
			execvp(path, argv);
		{
			/* write(2), not stdio: the memory is ours. */
			const char *e = strerror(errno);

			(void)!write(STDERR_FILENO,
			    "airlock: cannot start airlockd (", 32);
			(void)!write(STDERR_FILENO, path, strlen(path));
			(void)!write(STDERR_FILENO, "): ", 3);
			(void)!write(STDERR_FILENO, e, strlen(e));
			(void)!write(STDERR_FILENO, "\n", 1);
		}
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(sp[1]);
	strv_free(argv);
	free(path);
	r->fd = sp[0];
	r->private_pid = pid;
	return 0;
}

/* A private airlockd, without looking for a shared one (airlock run). */
void
cli_print_json(const struct json *v)
{
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 len;

	jgen_value(j, v);
	buf = jgen_buf(j, &len);
	cli_put_json(buf, len);
	jgen_free(j);
}

/*
 * A JSON answer on stdout.  JSON escapes C0 controls but passes C1
 * controls, bidi overrides and bytes that are not UTF-8 as they are;
 * the strings are a sandbox's (file names, contents) or airlockd's, so
 * on a person's terminal the line is escaped too (its own backslashes
 * kept), as `airlock audit` does.  A pipe gets the JSON unchanged.
 */
void
cli_put_json(const char *buf, size_t len)
{
	char	*o;
	size_t	 n;

	if (!isatty(STDOUT_FILENO)) {
		printf("%.*s\n", (int)len, buf);
		return;
	}
	n = len * VIS_MAX_GROWTH + 1;
	o = xmalloc(n);
	vis_n(o, n, buf, len, VIS_BS_KEEP);
	printf("%s\n", o);
	free(o);
}

/* A private airlockd's arguments: quiet, and the client's --sandbox and
 * --settings (NULL: not given). */
char **
rpc_private_args(const char *sandbox, const char *settings)
{
	/* A private airlockd exits after its one job: a spare copy it
	 * began would be killed half made (sv_wtspare.c). */
	char	**a = strv_add(strv_add(NULL, "--quiet"), "--no-spares");

	if (sandbox != NULL) {
		a = strv_add(a, "--sandbox");
		a = strv_add(a, sandbox);
	}
	if (settings != NULL) {
		a = strv_add(a, "--settings");
		a = strv_add(a, settings);
	}
	return a;
}

int
rpc_open_private(struct rpc *r, char *const *extra, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->private_pid = -1;
	return start_private(r, extra, err, errlen);
}

int
rpc_open(struct rpc *r, const char *sock, int allow_private,
    char *const *extra, char *err, size_t errlen)
{
	struct sockaddr_un sun;
	char	*def = NULL;
	int	 fd;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->private_pid = -1;
	if (sock == NULL)
		sock = def = airlock_default_socket();
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(sock) < sizeof(sun.sun_path) &&
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) != -1) {
		memcpy(sun.sun_path, sock, strlen(sock));
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
			r->fd = fd;
			free(def);
			return 0;
		}
		close(fd);
	}
	if (!allow_private) {
		snprintf(err, errlen, "no airlockd listening on %s", sock);
		free(def);
		return -1;
	}
	free(def);
	return start_private(r, extra, err, errlen);
}

/* One line from the connection; NULL at EOF. */
static char *
read_line(struct rpc *r, size_t *lenp)
{
	char	*nl, *line;
	ssize_t	 n;
	size_t	 len;

	for (;;) {
		if (r->rlen > 0 &&
		    (nl = memchr(r->rbuf, '\n', r->rlen)) != NULL) {
			len = (size_t)(nl - r->rbuf);
			line = xstrndup(r->rbuf, len);
			memmove(r->rbuf, nl + 1, r->rlen - len - 1);
			r->rlen -= len + 1;
			*lenp = len;
			return line;
		}
		if (r->rcap - r->rlen < 65536) {
			r->rcap = r->rcap ? r->rcap * 2 : 131072;
			r->rbuf = xreallocarray(r->rbuf, 1, r->rcap);
		}
		n = read(r->fd, r->rbuf + r->rlen, r->rcap - r->rlen);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return NULL;
		r->rlen += (size_t)n;
	}
}

static int
write_all(int fd, const char *buf, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The request's first byte carries the fds (SCM_RIGHTS), if any. */
static int
send_req(struct rpc *r, long id, const char *method, const char *params,
    const int *fds, int nfds)
{
	char		*req;
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(4 * sizeof(int))];
	} cbuf;
	struct iovec	 iov;
	struct msghdr	 mh;
	struct cmsghdr	*cm;
	ssize_t		 n;
	int		 rc;

	xasprintf(&req, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"%s\","
	    "\"params\":%s}\n", id, method, params ? params : "{}");
	if (nfds == 0) {
		rc = write_all(r->fd, req, strlen(req));
		free(req);
		return rc;
	}
	memset(&mh, 0, sizeof(mh));
	memset(&cbuf, 0, sizeof(cbuf));
	iov.iov_base = req;
	iov.iov_len = 1;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.buf;
	mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
	while ((n = sendmsg(r->fd, &mh, MSG_NOSIGNAL)) == -1 && errno == EINTR)
		;
	rc = n == 1 ? write_all(r->fd, req + 1, strlen(req) - 1) : -1;
	free(req);
	return rc;
}

void
rpc_send(struct rpc *r, const char *method, const char *params)
{
	(void)send_req(r, ++r->next_id, method, params, NULL, 0);
}

struct json *
rpc_call(struct rpc *r, const char *method, const char *params,
    rpc_notify_fn fn, void *arg, int *code, char *err, size_t errlen)
{
	return rpc_call_fds(r, method, params, NULL, 0, fn, arg, code, err,
	    errlen);
}

struct json *
rpc_call_fds(struct rpc *r, const char *method, const char *params,
    const int *fds, int nfds, rpc_notify_fn fn, void *arg, int *code,
    char *err, size_t errlen)
{
	char		*line, perr[128], words[1024];
	long		 id = ++r->next_id;
	size_t		 len;
	struct json	*msg, *res;
	const struct json *jid, *e;

	*code = 0;
	if (send_req(r, id, method, params, fds, nfds) == -1) {
		snprintf(err, errlen, "airlockd: connection lost");
		return NULL;
	}
	while ((line = read_line(r, &len)) != NULL) {
		msg = json_parse(line, len, perr, sizeof(perr));
		free(line);
		if (msg == NULL)
			continue;
		if (json_get(msg, "method") != NULL) {
			if (fn != NULL)
				fn(json_get(msg, "params"), arg);
			json_free(msg);
			continue;
		}
		jid = json_get(msg, "id");
		if (jid == NULL || !jid->is_int || jid->integer != id) {
			json_free(msg);
			continue;
		}
		if ((e = json_get(msg, "error")) != NULL) {
			const struct json *c = json_get(e, "code");
			const char *m = json_get_str(e, "message");

			*code = c != NULL && c->is_int ? (int)c->integer : -1;
			/* untrusted: a message may quote what a client
			 * or a sandbox sent; it ends on a terminal. */
			snprintf(err, errlen, "%s", m ? explain_words(vis(m),
			    NULL, words, sizeof(words)) : "error");
			json_free(msg);
			return NULL;
		}
		res = json_get(msg, "result");
		if (res == NULL) {
			json_free(msg);
			snprintf(err, errlen, "airlockd: reply without result");
			*code = -1;
			return NULL;
		}
		/* Detach the result from the message. */
		{
			size_t i;

			for (i = 0; i < msg->n; i++)
				if (msg->items[i] == res)
					msg->items[i] = NULL;
			for (i = 0; i < msg->n; i++)
				if (msg->items[i] == NULL) {
					memmove(&msg->items[i],
					    &msg->items[i + 1],
					    (msg->n - i - 1) *
					    sizeof(*msg->items));
					free(msg->keys[i]);
					memmove(&msg->keys[i], &msg->keys[i + 1],
					    (msg->n - i - 1) *
					    sizeof(*msg->keys));
					msg->n--;
					break;
				}
		}
		json_free(msg);
		return res;
	}
	snprintf(err, errlen, "airlockd: connection closed");
	return NULL;
}

/*
 * One read from the connection (it is readable; do_read 0: none, for
 * what rpc_call() left buffered), then every complete line:
 * notifications go to fn, answers to rpc_send() are dropped.
 * -1 when the connection ended.
 */
int
rpc_pump(struct rpc *r, int do_read, rpc_notify_fn fn, void *arg)
{
	char		*nl, perr[128];
	ssize_t		 n;
	size_t		 len, off = 0;
	struct json	*msg;

	if (!do_read)
		goto lines;
	if (r->rcap - r->rlen < 65536) {
		r->rcap = r->rcap ? r->rcap * 2 : 131072;
		r->rbuf = xreallocarray(r->rbuf, 1, r->rcap);
	}
	n = read(r->fd, r->rbuf + r->rlen, r->rcap - r->rlen);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return -1;
	r->rlen += (size_t)n;
lines:
	while (r->rlen > 0 &&
	    (nl = memchr(r->rbuf + off, '\n', r->rlen - off)) != NULL) {
		len = (size_t)(nl - (r->rbuf + off));
		msg = json_parse(r->rbuf + off, len, perr, sizeof(perr));
		off += len + 1;
		if (msg == NULL)
			continue;
		if (json_get(msg, "method") != NULL)
			fn(json_get(msg, "params"), arg);
		json_free(msg);
	}
	memmove(r->rbuf, r->rbuf + off, r->rlen - off);
	r->rlen -= off;
	return 0;
}

int
rpc_wait(struct rpc *r, rpc_notify_fn fn, void *arg, int *stop)
{
	char		*line, perr[128];
	size_t		 len;
	struct json	*msg;

	while (!*stop && (line = read_line(r, &len)) != NULL) {
		msg = json_parse(line, len, perr, sizeof(perr));
		free(line);
		if (msg == NULL)
			continue;
		if (json_get(msg, "method") != NULL)
			fn(json_get(msg, "params"), arg);
		json_free(msg);
	}
	return *stop ? 0 : -1;
}

/*
 * A private airlockd exits when its connection closes.  We do not wait
 * for it: every sandbox of ours was destroyed synchronously before, and
 * when we exit its PDEATHSIG takes it and its daemons down regardless.
 */
void
rpc_close(struct rpc *r)
{
	if (r->fd != -1)
		close(r->fd);
	r->fd = -1;
	r->private_pid = -1;
	free(r->rbuf);
	r->rbuf = NULL;
}
