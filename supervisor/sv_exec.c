// SPDX-License-Identifier: ISC
/*
 * The per-exec methods: sandbox.exec (argv, or a shell line judged by
 * policy/ first: deny refuses it, ask puts it to an approver),
 * sandbox.input, sandbox.signal, sandbox.resize.
 *
 * Untrusted: every request from a client.
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <linux/magic.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "common/b64.h"
#include "common/host/paths.h"
#include "common/host/wsorigin.h"
#include "common/log.h"
#include "common/vis.h"
#include "common/xmalloc.h"
#include "policy/classify.h"
#include "policy/domain.h"
#include "policy/egress.h"
#include "supervisor/gwrepo.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"
#include "supervisor/sv_sess.h"

static int
pipe_fd(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/*
 * A parsed sandbox.exec: started at once, or once an approver allowed it
 * (sv_approval.c).  Until then the session may end: it is found again
 * by its id.
 */
struct sv_xreq {
	struct sv_xreq	*next;		/* waiting for a lazy build */
	char		*sid;
	struct sv_client *c;
	struct json	*id;
	char		**argv;
	char		**xenv;		/* the exec's own variables */
	char		**envp;
	char		*cwd;
	int		 pfd[3];	/* pipe mode: the client's pipes */
	int		 pipes;
	int		 pty;		/* a terminal inside */
	int		 input;		/* events mode: fed by sandbox.input */
	uint32_t	 rows, cols;
	int		 text;
	uint64_t	 timeout_sec;	/* 0: none */
	int		 own_timeout;	/* this exec's: kills it alone */
	int		 unsandboxed;	/* dangerouslyDisableSandbox */
	sv_built_fn	 built;		/* not an exec: airlockd's own
					   request waiting for the build */
	void		*built_arg;
};

static void
xreq_free(struct sv_xreq *r)
{
	int	i;

	for (i = 0; i < 3; i++)
		if (r->pfd[i] != -1)
			close(r->pfd[i]);
	strv_free(r->argv);
	strv_free(r->xenv);
	strv_free(r->envp);
	free(r->cwd);
	free(r->sid);
	json_free(r->id);
	sv_client_unref(r->c);
	free(r);
}

static void
reply_started(struct sv_client *c, const struct json *id, struct sv_exec *x)
{
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 len;

	jgen_obj_open(j);
	jgen_kint(j, "execId", x->id);
	jgen_kint(j, "pid", x->pid);
	jgen_kbool(j, "tty", x->pty);
	jgen_kbool(j, "sandboxed", !x->unsandboxed &&
	    x->s->backend != SV_BACKEND_NONE);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	sv_client_result(c, id, buf, len);
	jgen_free(j);
}

/*
 * R-R1: r waits for the lazy session's one build, which the first of
 * them starts; every waiter gets its end (exec_waiters_run).
 */
static void
build_join(struct sv_session *s, struct sv_xreq *r)
{
	struct sv_xreq	**wp;
	char		 err[512];

	for (wp = &s->waiting; *wp != NULL; wp = &(*wp)->next)
		;
	r->next = NULL;
	*wp = r;
	if (s->building || s->ending)
		return;
	log_info("session %s: built for its first command", s->id);
	if (session_build(s, err, sizeof(err)) == -1) {
		free(s->error);
		s->error = xstrdup(err);
		log_info("session %s: sandbox could not be built: %s",
		    s->id, err);
		/* The waiters get err, and the session is built again by
		 * the next command, once a launcher started is gone. */
		s->build_failed = 1;
		session_kill(s, NULL);
	}
}

int
sv_session_when_built(struct sv_client *c, struct sv_session *s,
    sv_built_fn fn, void *arg)
{
	struct sv_xreq	*r;

	if (s->state != ST_CREATED || !s->lazy || s->owner != c)
		return 0;
	r = xcalloc(1, sizeof(*r));
	r->pfd[0] = r->pfd[1] = r->pfd[2] = -1;
	r->c = c;
	sv_client_ref(c);
	r->sid = xstrdup(s->id);
	r->built = fn;
	r->built_arg = arg;
	build_join(s, r);
	return 1;
}

/* The bytes of an exec's message to the launcher, as msg_put_* counts. */
static size_t
exec_bytes(const struct sv_xreq *r)
{
	size_t	n = 32 + strlen(r->cwd);

	for (size_t i = 0; r->argv != NULL && r->argv[i] != NULL; i++)
		n += sizeof(uint32_t) + strlen(r->argv[i]) + 1;
	for (size_t i = 0; r->envp != NULL && r->envp[i] != NULL; i++)
		n += sizeof(uint32_t) + strlen(r->envp[i]) + 1;
	return n;
}

/*
 * AIRLOCK_DEBUG: the trace names the command each exec runs, so that a
 * run's lines can be told apart.  untrusted: the argv is the client's
 * (an agent's command line): each word escaped (vis doubles a
 * backslash, so a \" added here is unambiguous) and in double quotes,
 * so that `a b` and `"a" "b"` differ; cut to a line.
 */
static void
exec_trace(const struct sv_session *s, const struct sv_xreq *r, int host)
{
	char		 line[600];
	const char	*w;
	size_t		 i, n = 0;

	line[0] = '\0';
	for (i = 0; r->argv != NULL && r->argv[i] != NULL &&
	    n < sizeof(line) - 8; i++) {
		line[n++] = i > 0 ? ' ' : '"';
		if (i > 0)
			line[n++] = '"';
		for (w = vis(r->argv[i]); *w != '\0' &&
		    n < sizeof(line) - 4; w++) {
			if (*w == '"')
				line[n++] = '\\';
			line[n++] = *w;
		}
		line[n++] = '"';
		line[n] = '\0';
	}
	log_debug("session %s: exec %s%s%s", s->id, line,
	    r->argv != NULL && r->argv[i] != NULL ? " ..." : "",
	    host ? " (unconfined)" : "");
}

/*
 * The exec's record in its session, its streams from r: the client's
 * pipes, or a pipe of ours (in) that sandbox.input feeds, or a terminal.
 */
static struct sv_exec *
exec_new(struct sv_session *s, struct sv_xreq *r, int host, int in[2])
{
	struct sv_exec	*x;

	x = xcalloc(1, sizeof(*x));
	x->s = s;
	x->id = ++s->next_exec;
	x->out.fd = x->err.fd = x->in.fd = -1;
	x->out.dst = x->err.dst = x->in.dst = x->stdin_fd = -1;
	x->input_fd = -1;
	x->unsandboxed = r->unsandboxed;
	if (r->pipes) {
		x->stdin_fd = r->pfd[0];
		x->out.dst = r->pfd[1];
		x->err.dst = r->pfd[2];
		r->pfd[0] = r->pfd[1] = r->pfd[2] = -1;
		x->pty = r->pty && !host;
	} else if (in[0] != -1) {
		x->stdin_fd = in[0];
		x->pty = r->pty && !host;
		x->events_in = 1;
		if (x->pty)
			close(in[1]);	/* the terminal's master takes input */
		else {
			x->input_fd = in[1];
			(void)fcntl(in[1], F_SETFL, O_NONBLOCK);
		}
	}
	x->text = r->text;
	x->viol_start = s->nviolations;
	x->next = s->execs;
	s->execs = x;
	set_state(s, ST_ACTIVE);
	if (r->timeout_sec > 0) {
		x->own_timeout = r->own_timeout;
		exec_timeout_arm(x, r->timeout_sec * 1000);
	}
	return x;
}

/* The command to the launcher, in one message with its stdin. */
static void
exec_send(struct sv_session *s, struct sv_xreq *r, struct sv_exec *x)
{
	struct msgbuf	b;
	int		io = r->pipes || x->events_in;

	msgbuf_init(&b, io ? MSG_EXEC_IO : MSG_EXEC);
	msg_put_u32(&b, x->id);
	if (io)
		msg_put_u32(&b, x->pty ? EXEC_F_PTY : 0);
	msg_put_str(&b, r->cwd);
	msg_put_strv(&b, r->argv);
	msg_put_strv(&b, r->envp);
	if (io) {
		msg_put_u32(&b, r->rows);
		msg_put_u32(&b, r->cols);
	}
	x->reply_id = dup_id(r->id);
	if (msg_send(&s->link, &b, &x->stdin_fd, io) == -1)
		session_kill(s, "cannot send to the launcher");
	else if (x->events_in) {
		/* The launcher has its own copy. */
		close(x->stdin_fd);
		x->stdin_fd = -1;
	}
	msgbuf_free(&b);
}

/* The session r can run in, or NULL after the error is answered. */
static struct sv_session *
exec_session(struct sv_xreq *r)
{
	struct sv_session *s = sv_session_find(r->sid);

	if (s != NULL && s->owner == r->c && (s->state == ST_WARM ||
	    s->state == ST_ACTIVE))
		return s;
	sv_client_error(r->c, r->id, RPC_SANDBOX_ERROR, s == NULL ?
	    "the session ended" : s->state == ST_SUSPENDED ?
	    "the session is suspended (sandbox.resume continues it)" :
	    s->state == ST_CREATED ? "the sandbox is not ready" :
	    "the sandbox is not running");
	return NULL;
}

/*
 * Start a parsed exec in its session, if that is still running; 1 when
 * it waits for the session's lazy build instead (the session keeps r).
 */
static int
exec_start(struct sv_xreq *r)
{
	struct sv_session *s = sv_session_find(r->sid);
	struct sv_exec	*x;
	char		 err[512];
	int		 e = 0, in[2] = { -1, -1 }, host;

	if (!sv_client_alive(r->c))
		return 0;
	/* R-R1: the first commands of a lazy session wait on one build. */
	if (s != NULL && s->owner == r->c && s->state == ST_CREATED &&
	    s->lazy) {
		build_join(s, r);
		return 1;
	}
	if ((s = exec_session(r)) == NULL)
		return 0;
	host = s->backend == SV_BACKEND_NONE || r->unsandboxed;
	exec_trace(s, r, host);
	if (r->cwd == NULL)
		r->cwd = xstrdup(s->plan.workdir);
	if (r->envp == NULL) {
		/* On the host, the sandbox's own variables (its proxies)
		 * are wrong: the caller's allowed ones and the exec's. */
		r->envp = sv_env_build(s->caller_env, r->unsandboxed ? NULL :
		    s->plan.env_base, r->xenv);
		for (e = 0; s->pass_env && s->pass_env[e]; e++)
			r->envp = env_set(r->envp, s->pass_env[e]);
	}
	/* One message carries the command to the launcher: too big a
	 * command line or environment is the client's error, not a
	 * reason for airlockd to stop (msg_send's limit is fatal). */
	if (!host && (exec_bytes(r) > MSG_MAX_PAYLOAD - 64 ||
	    strv_len(r->argv) > MSG_MAX_STRV ||
	    strv_len(r->envp) > MSG_MAX_STRV)) {
		snprintf(err, sizeof(err), "the command and its environment "
		    "come to %zu bytes, more than the %u a sandbox takes "
		    "(pass large values in a file)", exec_bytes(r),
		    MSG_MAX_PAYLOAD - 64);
		sv_client_error(r->c, r->id, RPC_INVALID_PARAMS, err);
		return 0;
	}
	if (!r->pipes && (r->input || r->pty) &&
	    pipe2(in, O_CLOEXEC) == -1) {
		snprintf(err, sizeof(err), "pipe: %s", strerror(errno));
		sv_client_error(r->c, r->id, RPC_INTERNAL_ERROR, err);
		return 0;
	}
	x = exec_new(s, r, host, in);
	if (!host) {
		exec_send(s, r, x);
		return 0;
	}
	if (host_exec(x, r->argv, r->cwd, r->envp, err, sizeof(err), &e) ==
	    -1) {
		sv_client_error(r->c, r->id, e == ENOENT ? -32010 : -32011,
		    err);
		x->done = 1;
		update_active(s);
	} else {
		reply_started(r->c, r->id, x);
		exec_input_flush(x);
	}
	return 0;
}

void
exec_waiters_run(struct sv_session *s, const char *err)
{
	struct sv_xreq	*r;

	while ((r = s->waiting) != NULL) {
		s->waiting = r->next;
		if (r->built != NULL)
			r->built(r->built_arg, err);
		else if (err != NULL)
			sv_client_error(r->c, r->id, RPC_SANDBOX_ERROR, err);
		else if (exec_start(r))
			continue;
		xreq_free(r);
	}
}

/* An approver's answer for a waiting exec (sv_approval.c). */
static void
exec_approved(void *arg, int allowed, const char *why)
{
	struct sv_xreq	*r = arg;
	char		 msg[600];

	if (allowed) {
		if (exec_start(r))
			return;
	} else if (sv_client_alive(r->c)) {
		snprintf(msg, sizeof(msg), "refused: %.500s", why);
		sv_client_error(r->c, r->id, RPC_POLICY_DENIED, msg);
	}
	xreq_free(r);
}

static int
signal_parse(const struct json *js)
{
	static const struct {
		const char	*name;
		int		 sig;
	} sigs[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
		{ "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 },
		{ "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
		{ "CONT", SIGCONT }, { "STOP", SIGSTOP }, { "TSTP", SIGTSTP },
		{ "WINCH", SIGWINCH },
	};
	const char	*n;
	size_t		 i;

	if (js == NULL)
		return SIGTERM;
	if (js->is_int)
		return js->integer > 0 && js->integer < 65 ?
		    (int)js->integer : -1;
	if (js->type != JSON_STRING)
		return -1;
	n = js->str;
	if (strncmp(n, "SIG", 3) == 0)
		n += 3;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (strcmp(n, sigs[i].name) == 0)
			return sigs[i].sig;
	return -1;
}

/*
 * argv as one shell-quoted line: what an approver is shown, and what a
 * standing allowance of an unsandboxed command is keyed on, must be the
 * whole command, not argv[0] ("sh" says nothing of "sh -c '...'").
 */
static char *
argv_line(char *const argv[])
{
	struct evbuffer	*b = evbuffer_new();
	const char	*p;
	char		*line;
	size_t		 i, n;

	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			evbuffer_add(b, " ", 1);
		p = argv[i];
		if (p[0] != '\0' && strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_./=:,@%+-") ==
		    strlen(p)) {
			evbuffer_add(b, p, strlen(p));
			continue;
		}
		evbuffer_add(b, "'", 1);
		for (; *p != '\0'; p++)
			if (*p == '\'')
				evbuffer_add(b, "'\\''", 4);
			else
				evbuffer_add(b, p, 1);
		evbuffer_add(b, "'", 1);
	}
	n = evbuffer_get_length(b);
	line = xmalloc(n + 1);
	evbuffer_remove(b, line, n);
	line[n] = '\0';
	evbuffer_free(b);
	return line;
}

/*
 * The rule of an ask verdict, for the approver and for a standing
 * allowance: every distinct rule that asks in the line, sorted, not only
 * the first (pol_check names the first strictest command): with one
 * "git push" allowed for the session, "git push; curl ... | sh" must
 * still be asked, for its second part.
 */
static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *
ask_rules(const struct pol_result *pr)
{
	const char	**v;
	char		*line = xstrdup(""), *t;
	size_t		 i, j, n = 0;

	v = xcalloc(pr->ncmds + 1, sizeof(*v));
	for (i = 0; i < pr->ncmds; i++) {
		if (pr->cmds[i].verdict != POL_ASK ||
		    pr->cmds[i].rule == NULL)
			continue;
		for (j = 0; j < n && strcmp(v[j], pr->cmds[i].rule) != 0; j++)
			;
		if (j == n)
			v[n++] = pr->cmds[i].rule;
	}
	if (n == 0 && pr->rule != NULL)
		v[n++] = pr->rule;
	qsort(v, n, sizeof(*v), str_cmp);
	for (i = 0; i < n; i++) {
		xasprintf(&t, "%s%s%s", line, i > 0 ? " + " : "", v[i]);
		free(line);
		line = t;
	}
	free(v);
	return line;
}

/*
 * sandbox.exec's parameters, decoded and checked once into a request;
 * NULL after the error is answered.  *cmdp: the "command" shell line,
 * or NULL for an argv.
 */
static struct sv_xreq *
xreq_decode(struct sv_client *c, const struct json *id,
    const struct json *params, const struct sv_session *s,
    const char **cmdp)
{
	struct sv_xreq	*r;
	const char	*jv, *cmd, *bad = NULL;
	const struct json *t;

	r = xcalloc(1, sizeof(*r));
	r->pfd[0] = r->pfd[1] = r->pfd[2] = -1;
	r->c = c;
	sv_client_ref(c);
	r->id = dup_id(id);
	r->sid = xstrdup(s->id);
	/* "command": one shell line, judged by policy/ before it runs. */
	*cmdp = cmd = json_get_str(params, "command");
	if (cmd != NULL && param(params, "argv") != NULL)
		bad = "argv and command: one or the other";
	else if (cmd != NULL && (cmd[0] == '\0' || strlen(cmd) !=
	    param(params, "command")->len))
		bad = "command: a non-empty shell line";
	else if (cmd != NULL) {
		r->argv = strv_add(NULL, "/bin/sh");
		r->argv = strv_add(r->argv, "-c");
		r->argv = strv_add(r->argv, cmd);
	} else
		r->argv = json_strv(param(params, "argv"));
	if (bad == NULL && (r->argv == NULL || r->argv[0] == NULL ||
	    r->argv[0][0] == '\0'))
		bad = "argv: a non-empty array of strings";
	if (bad == NULL && (r->xenv = json_strv(param(params, "env"))) ==
	    NULL)
		bad = "env: an array of NAME=value strings";
	/*
	 * "stdio":"pipes": the client passed three pipe ends with this
	 * request (stdin's read end, stdout's and stderr's write ends) and
	 * the output goes there instead of into events; "tty" asks for a
	 * terminal inside.  "output":"text" puts text in the events.
	 * Events mode: "pty" {cols, rows} gives the command a terminal and
	 * "stdin": true a pipe, both fed by sandbox.input.
	 */
	r->pipes = (jv = json_get_str(params, "stdio")) != NULL &&
	    strcmp(jv, "pipes") == 0;
	if (bad == NULL && r->pipes && (sv_client_take_fds(c, r->pfd, 3) ==
	    -1 || !pipe_fd(r->pfd[0]) || !pipe_fd(r->pfd[1]) ||
	    !pipe_fd(r->pfd[2])))
		bad = "stdio: \"pipes\" needs three pipes passed with the "
		    "request";
	if (bad != NULL) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, bad);
		xreq_free(r);
		return NULL;
	}
	if ((t = param(params, r->pipes ? "tty" : "pty")) != NULL &&
	    t->type == JSON_OBJECT) {
		const struct json *jr = json_get(t, "rows");
		const struct json *jk = json_get(t, "cols");

		r->pty = 1;
		r->rows = jr != NULL && jr->is_int && jr->integer > 0 &&
		    jr->integer < 65536 ? (uint32_t)jr->integer : 24;
		r->cols = jk != NULL && jk->is_int && jk->integer > 0 &&
		    jk->integer < 65536 ? (uint32_t)jk->integer : 80;
	}
	r->input = !r->pipes && json_get_bool(params, "stdin", 0);
	jv = json_get_str(params, "output");
	r->text = jv != NULL && strcmp(jv, "text") == 0;
	r->timeout_sec = s->spec.limits.timeout_sec;
	if ((t = param(params, "timeoutSec")) != NULL && t->is_int &&
	    t->integer > 0) {
		r->timeout_sec = (uint64_t)t->integer;
		r->own_timeout = 1;
	}
	/* The default cwd and the environment come from the plan: made at
	 * exec_start(), after a lazy session's build. */
	if ((jv = json_get_str(params, "cwd")) != NULL)
		r->cwd = xstrdup(jv);
	r->unsandboxed = json_get_bool(params, "dangerouslyDisableSandbox",
	    0);
	return r;
}

/* R-C5: an unsandboxed command, only past the gate (the settings, then
 * a person's answer). */
static void
exec_unsandboxed(struct sv_session *s, struct sv_xreq *r, const char *cmd,
    const struct settings *set)
{
	char	err[512], why[600];
	char	*line = cmd != NULL ? xstrdup(cmd) : argv_line(r->argv);

	if (settings_forbid_unconfined(set, err, sizeof(err)) != NULL ||
	    settings_managed_forbids(err, sizeof(err)) != NULL) {
		snprintf(why, sizeof(why), "dangerouslyDisableSandbox "
		    "refused: %s", err);
		sv_audit(s->id, "sandbox-override", line, "deny",
		    "sandbox.allowUnsandboxedCommands", NULL);
		event_violation(s, "sandbox-override", why, NULL);
		sv_client_error(r->c, r->id, RPC_POLICY_DENIED, why);
		xreq_free(r);
	} else
		sv_approval_request(s->id, "sandbox-override", line, 0,
		    "sandbox.allowUnsandboxedCommands", "sandboxOverride",
		    exec_approved, r);
	free(line);
}

/* R-C4: the shell line judged in the session's mode: run, asked or
 * refused with the rule that refused it. */
static void
exec_judge(struct sv_session *s, struct sv_xreq *r, const char *cmd,
    const struct settings *set)
{
	struct pol_result *pr;
	char		 err[512], rule[256], why[600], *asks;

	pr = pol_check(cmd, strlen(cmd), s->spec.mode, set->rules);
	snprintf(rule, sizeof(rule), "%s", pr->rule != NULL ? pr->rule : "");
	snprintf(why, sizeof(why), "%s [%s]", pr->reason != NULL ?
	    pr->reason : "no reason", rule);
	switch (pr->verdict) {
	case POL_ALLOW:
		sv_audit(s->id, "command", cmd, "allow", rule, NULL);
		if (!exec_start(r))
			xreq_free(r);
		break;
	case POL_ASK:
		asks = ask_rules(pr);
		sv_approval_request(s->id, "command", cmd, pr->classes, asks,
		    pr->reason != NULL ? pr->reason : "ask", exec_approved, r);
		free(asks);
		break;
	default:
		sv_audit(s->id, "command", cmd, "deny", rule, NULL);
		event_violation(s, "command-denied", cmd, NULL);
		snprintf(err, sizeof(err), "refused by policy (%s mode): "
		    "%.400s", pol_mode_name(s->spec.mode), why);
		sv_client_error(r->c, r->id, RPC_POLICY_DENIED, err);
		xreq_free(r);
		break;
	}
	pol_result_free(pr);
}

/*
 * Forget the session's commands that are over: exit told, no answer
 * owed, no helper to call.  A warm session lives for weeks and runs
 * thousands of commands; kept, each would hold its record for the
 * session's life.  Done only here, as a request comes in, where no
 * callback of any exec is on the stack to use one freed under it.  An
 * id forgotten is answered as one that ended (exec_find finds none).
 */
static void
exec_prune(struct sv_session *s)
{
	struct sv_exec	**xp, *x;

	for (xp = &s->execs; (x = *xp) != NULL; ) {
		if (x->done && x->reply_id == NULL && x->helper_done == NULL) {
			*xp = x->next;
			exec_free(x);
		} else
			xp = &x->next;
	}
}

void
sv_session_exec(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session	*s;
	struct sv_xreq		*r;
	const struct settings	*set;
	const char		*cmd;

	if ((s = session_param(c, id, params)) == NULL)
		return;
	exec_prune(s);
	if ((r = xreq_decode(c, id, params, s, &cmd)) == NULL)
		return;
	set = s->own_settings != NULL ? s->own_settings : ssettings;
	if (r->unsandboxed)
		exec_unsandboxed(s, r, cmd, set);
	else if (cmd == NULL) {
		if (!exec_start(r))
			xreq_free(r);
	} else
		exec_judge(s, r, cmd, set);
}

void
sv_session_signal(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s;
	const struct json *jx = param(params, "execId");
	const struct json *js = param(params, "signal");
	struct sv_exec	*x;
	struct msgbuf	 b;
	int		 sig;

	if ((s = session_param(c, id, params)) == NULL)
		return;
	if (jx == NULL || !jx->is_int ||
	    (x = exec_find(s, (uint32_t)jx->integer)) == NULL || x->done) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "execId: no running exec");
		return;
	}
	if ((sig = signal_parse(js)) == -1) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "signal: a signal "
		    "number or name (KILL, TERM, INT, HUP, ...)");
		return;
	}
	if (s->backend == SV_BACKEND_NONE || x->unsandboxed)
		kill(-x->pid, sig);
	else {
		msgbuf_init(&b, MSG_EXEC_SIGNAL);
		msg_put_u32(&b, x->id);
		msg_put_u32(&b, (uint32_t)sig);
		(void)msg_send(&s->link, &b, NULL, 0);
		msgbuf_free(&b);
	}
	if (sig == SIGKILL)
		event_killed(s, x, "manual");
	sv_client_result(c, id, "{}", 2);
}

/*
 * sandbox.input {sessionId, execId, base64, eof?}: bytes for the stdin
 * of an exec started with "stdin": true or a "pty" (its terminal); eof
 * closes that stdin (a terminal gets its EOF character, ^D).  At most
 * SV_INPUT_MAX bytes wait for a slow reader: more is refused, not
 * buffered without bound.
 */
void
sv_session_input(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s;
	const struct json *jx = param(params, "execId");
	const struct json *jb = param(params, "base64");
	struct sv_exec	*x;
	unsigned char	*buf;
	size_t		 n = 0;

	if ((s = session_param(c, id, params)) == NULL)
		return;
	if (jx == NULL || !jx->is_int ||
	    (x = exec_find(s, (uint32_t)jx->integer)) == NULL || x->done ||
	    !x->events_in) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "execId: no running "
		    "exec started with \"stdin\": true or a \"pty\"");
		return;
	}
	if (x->in_eof) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "execId: its input "
		    "was closed (eof)");
		return;
	}
	if (jb != NULL && jb->type != JSON_STRING) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "base64: a string");
		return;
	}
	if (x->inbuf == NULL)
		x->inbuf = evbuffer_new();
	if (jb != NULL) {
		if (evbuffer_get_length(x->inbuf) + jb->len / 4 * 3 >
		    SV_INPUT_MAX) {
			sv_client_error(c, id, RPC_SANDBOX_ERROR, "input: over "
			    "1 MiB waits for the command to read it; send "
			    "again later");
			return;
		}
		buf = xmalloc(jb->len / 4 * 3 + 3);
		if (b64_decode(jb->str, jb->len, buf, &n) == -1) {
			free(buf);
			sv_client_error(c, id, RPC_INVALID_PARAMS,
			    "base64: not base64");
			return;
		}
		evbuffer_add(x->inbuf, buf, n);
		free(buf);
	}
	if (json_get_bool(params, "eof", 0)) {
		x->in_eof = 1;
		if (x->pty)
			evbuffer_add(x->inbuf, "\004", 1);
	}
	exec_input_flush(x);
	sv_client_result(c, id, "{}", 2);
}

/* sandbox.resize: the window size of an exec's terminal (its SIGWINCH). */
void
sv_session_resize(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s;
	const struct json *jx = param(params, "execId");
	const struct json *r = param(params, "rows");
	const struct json *k = param(params, "cols");
	struct sv_exec	*x;
	struct winsize	 ws;

	if ((s = session_param(c, id, params)) == NULL)
		return;
	if (jx == NULL || !jx->is_int ||
	    (x = exec_find(s, (uint32_t)jx->integer)) == NULL || x->done ||
	    !x->pty || x->out.fd == -1) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "execId: no running exec with a terminal");
		return;
	}
	if (r == NULL || !r->is_int || k == NULL || !k->is_int ||
	    r->integer < 0 || r->integer > 65535 || k->integer < 0 ||
	    k->integer > 65535) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "rows, cols: integers 0..65535");
		return;
	}
	memset(&ws, 0, sizeof(ws));
	ws.ws_row = (unsigned short)r->integer;
	ws.ws_col = (unsigned short)k->integer;
	/* The kernel sends SIGWINCH to the terminal's foreground group. */
	if (ioctl(x->out.fd, TIOCSWINSZ, &ws) == -1)
		log_warn("session %s: TIOCSWINSZ", s->id);
	sv_client_result(c, id, "{}", 2);
}

/*
 * airlockd's own command in a client's session (the file tools,
 * sv_fs.c): like sandbox.exec with pipes, but stdin is in_fd, stdout and
 * stderr go to out_fd, and nothing reaches the event stream; done gets
 * the wait status (-1: the session went away) once it exited and its
 * output is closed.  NULL after answering the client with the error.
 */
struct sv_session *
sv_session_helper(struct sv_client *c, const struct json *id,
    const struct json *params, char *const argv[], int in_fd, int out_fd,
    sv_helper_done done, void *arg)
{
	struct sv_session *s;
	struct sv_exec	*x;
	struct msgbuf	 b;
	char		**envp, err[512];
	int		 e = 0;

	if ((s = session_param(c, id, params)) == NULL ||
	    (s->state != ST_WARM && s->state != ST_ACTIVE)) {
		if (s != NULL)
			sv_client_error(c, id, RPC_SANDBOX_ERROR, s->state ==
			    ST_CREATED ? "the sandbox is not ready" :
			    s->state == ST_SUSPENDED ? "the session is "
			    "suspended (sandbox.resume continues it)" :
			    "the sandbox is not running");
		close(in_fd);
		close(out_fd);
		return NULL;
	}
	exec_prune(s);
	x = xcalloc(1, sizeof(*x));
	x->s = s;
	x->id = ++s->next_exec;
	x->out.fd = x->err.fd = x->in.fd = -1;
	x->in.dst = -1;
	x->input_fd = -1;
	x->stdin_fd = in_fd;
	x->out.dst = out_fd;
	x->viol_start = s->nviolations;
	if ((x->err.dst = fcntl(out_fd, F_DUPFD_CLOEXEC, 0)) == -1) {
		close(in_fd);
		close(out_fd);
		free(x);
		sv_client_error(c, id, RPC_INTERNAL_ERROR, "fcntl");
		return NULL;
	}
	x->next = s->execs;
	s->execs = x;
	set_state(s, ST_ACTIVE);
	envp = sv_env_build(NULL, s->plan.env_base, NULL);
	if (s->backend == SV_BACKEND_NONE) {
		if (host_exec(x, argv, s->plan.workdir, envp, err, sizeof(err),
		    &e) == -1) {
			x->done = 1;
			update_active(s);
			strv_free(envp);
			sv_client_error(c, id, e == ENOENT ? -32010 : -32011,
			    err);
			return NULL;
		}
		x->helper_done = done;
		x->helper_arg = arg;
	} else {
		msgbuf_init(&b, MSG_EXEC_IO);
		msg_put_u32(&b, x->id);
		msg_put_u32(&b, 0);
		msg_put_str(&b, s->plan.workdir);
		msg_put_strv(&b, (char **)argv);
		msg_put_strv(&b, envp);
		msg_put_u32(&b, 0);
		msg_put_u32(&b, 0);
		/* From here on, done is called whatever happens. */
		x->helper_done = done;
		x->helper_arg = arg;
		if (msg_send(&s->link, &b, &x->stdin_fd, 1) == -1)
			session_kill(s, "cannot send to the launcher");
		msgbuf_free(&b);
	}
	strv_free(envp);
	return s;
}
