// SPDX-License-Identifier: ISC
/*
 * Terminals for the user (SPEC R-A4): JSON-RPC terminal.open {backend,
 * cwd, cols, rows, shell?, sessionId?} -> {terminalId}, terminal.input
 * {terminalId, base64}, terminal.resize {terminalId, cols, rows},
 * terminal.close {terminalId}; output comes as terminal.output
 * {terminalId, base64} notifications and the end as terminal.exit
 * {terminalId, exitCode, signal}.
 *
 * airlockd holds the PTY's master.  Backend "none" runs the shell on it
 * directly: the host shell, by the user's choice, asked for by name (the
 * default is "native") and refused where the settings forbid unconfined
 * commands (a managed sandbox.enabled=true).  Backend "native" runs
 * `airlock shell` on it, which builds the fixed terminal profile's
 * sandbox ($HOME and the cwd writable, network open through proxyd, the
 * secret set unreadable, no push gateway) exactly as `airlock run -t`
 * builds a sandbox with a terminal inside: its raw-mode relay, window
 * size and signal forwarding are the PTY plumbing both share.  Where no
 * sandbox can be built here the open fails; a host PTY never carries the
 * native label (and `airlock shell` itself refuses to run unconfined).
 *
 * Untrusted: the clients' parameters (same uid, but not to crash us) and
 * the bytes the terminal writes, which pass through as base64 unread.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "common/b64.h"
#include "common/host/paths.h"
#include "common/json.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "supervisor/sv_terminal.h"

#define TERM_MAX	64		/* open terminals per airlockd */
#define TERM_IN_MAX	(1U << 20)	/* queued input, per terminal */
#define TERM_KILL_SEC	3		/* close: SIGHUP, then SIGKILL */

struct sv_term {
	struct sv_term	 *next;
	unsigned	  id;
	char		  name[32];	/* "term-N" */
	int		  native;
	struct sv_client *owner;
	int		  master;
	pid_t		  pid;		/* session leader on the PTY */
	struct event	 *rev, *wev, *kill;
	struct evbuffer	 *in;		/* input not yet written */
	int		  eof;		/* the master read EIO or EOF */
	int		  paused;	/* the client is congested */
	int		  reaped;
	int		  status;
	char		 *session_id;
};

static struct sv_term	*terms;
static unsigned		 next_term;

static void
term_notify(struct sv_term *t, const char *method, struct jgen *j)
{
	const char	*buf;
	size_t		 len;

	buf = jgen_buf(j, &len);
	if (sv_client_alive(t->owner))
		sv_client_notify(t->owner, method, buf, len);
	jgen_free(j);
}

static void
term_free(struct sv_term *t)
{
	struct sv_term **pp;

	for (pp = &terms; *pp != NULL; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	if (t->rev != NULL)
		event_free(t->rev);
	if (t->wev != NULL)
		event_free(t->wev);
	if (t->kill != NULL)
		event_free(t->kill);
	if (t->in != NULL)
		evbuffer_free(t->in);
	if (t->master != -1)
		close(t->master);
	sv_client_unref(t->owner);
	free(t->session_id);
	free(t);
}

/* The shell is gone and its output read: say how it ended, forget it. */
static void
term_maybe_done(struct sv_term *t)
{
	struct jgen	*j;

	if (!t->reaped || !t->eof)
		return;
	j = jgen_new();
	jgen_obj_open(j);
	jgen_kstr(j, "terminalId", t->name);
	if (WIFEXITED(t->status))
		jgen_kint(j, "exitCode", WEXITSTATUS(t->status));
	else {
		jgen_kint(j, "exitCode", 128 + WTERMSIG(t->status));
		jgen_kint(j, "signal", WTERMSIG(t->status));
	}
	jgen_obj_close(j);
	term_notify(t, "terminal.exit", j);
	term_free(t);
}

/* One read of the master: a terminal.output; 0 at its end (EIO). */
static int
term_pump(struct sv_term *t)
{
	unsigned char	 buf[32768];
	struct jgen	*j;
	char		*b64;
	ssize_t		 n;

	n = read(t->master, buf, sizeof(buf));
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return -1;
	if (n <= 0)
		return 0;	/* EIO: the PTY's other side is closed */
	b64 = b64_encode(buf, (size_t)n);
	j = jgen_new();
	jgen_obj_open(j);
	jgen_kstr(j, "terminalId", t->name);
	jgen_kstr(j, "base64", b64);
	jgen_obj_close(j);
	free(b64);
	term_notify(t, "terminal.output", j);
	return 1;
}

static void
term_read(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_term	*t = arg;

	(void)fd;
	(void)ev;
	if (term_pump(t) == 0) {
		event_del(t->rev);
		t->eof = 1;
		term_maybe_done(t);
	} else if (sv_client_congested(t->owner)) {
		/* Flow control: the shell's writes wait, nothing is lost. */
		event_del(t->rev);
		t->paused = 1;
	}
}

void
sv_terminals_client_drained(struct sv_client *c)
{
	struct sv_term	*t;

	for (t = terms; t != NULL; t = t->next)
		if (t->owner == c && t->paused && !t->eof) {
			t->paused = 0;
			event_add(t->rev, NULL);
		}
}

static void
term_write(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_term	*t = arg;
	int		 n;

	(void)ev;
	n = evbuffer_write(t->in, fd);
	if (n == -1 && errno != EAGAIN && errno != EINTR)
		evbuffer_drain(t->in, evbuffer_get_length(t->in));
	if (evbuffer_get_length(t->in) > 0)
		event_add(t->wev, NULL);
}

static void
term_kill_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_term	*t = arg;

	(void)fd;
	(void)ev;
	if (!t->reaped)
		kill(-t->pid, SIGKILL);
}

int
sv_terminal_reaped(pid_t pid, int status)
{
	struct sv_term	*t;

	for (t = terms; t != NULL; t = t->next)
		if (t->pid == pid && !t->reaped) {
			t->reaped = 1;
			t->status = status;
			/* What the shell wrote last is in the master: pass
			 * it on before the exit.  A background process that
			 * keeps the PTY open does not hold the exit back. */
			while (!t->eof && term_pump(t) == 1)
				;
			event_del(t->rev);
			t->eof = 1;
			term_maybe_done(t);
			return 1;
		}
	return 0;
}

static struct sv_term *
term_param(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	const char	*name = json_get_str(params, "terminalId");
	struct sv_term	*t;

	for (t = terms; name != NULL && t != NULL; t = t->next)
		if (strcmp(t->name, name) == 0 && t->owner == c)
			return t;
	sv_client_error(c, id, RPC_INVALID_PARAMS, "terminalId: no open "
	    "terminal of this client");
	return NULL;
}

static int
dim(const struct json *params, const char *k, int def)
{
	const struct json *v = json_get(params, k);

	if (v == NULL)
		return def;
	if (!v->is_int || v->integer < 1 || v->integer > 4096)
		return -1;
	return (int)v->integer;
}

/* The child's environment: what a login would set, nothing of ours. */
static char **
term_env(const struct passwd *pw, const char *shell)
{
	char	**env = NULL, *kv;
	const char *v;

	/* airlockd's $HOME, as for a run (the secret set is beneath it). */
	v = getenv("HOME");
	xasprintf(&kv, "HOME=%s", v != NULL && v[0] == '/' ? v : pw->pw_dir);
	env = strv_add(env, kv);
	free(kv);
	xasprintf(&kv, "USER=%s", pw->pw_name);
	env = strv_add(env, kv);
	free(kv);
	xasprintf(&kv, "LOGNAME=%s", pw->pw_name);
	env = strv_add(env, kv);
	free(kv);
	xasprintf(&kv, "SHELL=%s", shell);
	env = strv_add(env, kv);
	free(kv);
	v = getenv("PATH");
	xasprintf(&kv, "PATH=%s", v != NULL ? v :
	    "/usr/local/bin:/usr/bin:/bin");
	env = strv_add(env, kv);
	free(kv);
	v = getenv("LANG");
	xasprintf(&kv, "LANG=%s", v != NULL ? v : "C.UTF-8");
	env = strv_add(env, kv);
	free(kv);
	env = strv_add(env, "TERM=xterm-256color");
	return env;
}

/* terminal.open's parameters, decoded and checked once. */
struct term_req {
	const char		*backend;	/* "native" or "none" */
	int			 native;
	const char		*cwd;
	const char		*shell;
	const char		*session_id;	/* or NULL */
	int			 cols, rows;
	const struct passwd	*pw;
};

/*
 * Decode and check terminal.open's parameters into R; on a refusal the
 * client has its error and -1 is returned.  Strings point into PARAMS
 * or the passwd entry.
 */
static int
term_decode(struct sv_client *c, const struct json *id,
    const struct json *params, struct term_req *r)
{
	struct stat	st;
	char		buf[256], msg[600];

	memset(r, 0, sizeof(*r));
	/* The sandbox unless the client asks for the host by name: a
	 * client that says nothing never gets an unconfined shell. */
	if ((r->backend = json_get_str(params, "backend")) == NULL)
		r->backend = "native";
	if (strcmp(r->backend, "none") != 0 &&
	    strcmp(r->backend, "native") != 0) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "backend: \"none\" "
		    "or \"native\"");
		return -1;
	}
	r->native = strcmp(r->backend, "native") == 0;
	/* R-C5: a host shell is an unconfined command like any other. */
	if (!r->native && (settings_forbid_unconfined(&sv_settings, buf,
	    sizeof(buf)) != NULL || settings_managed_forbids(buf,
	    sizeof(buf)) != NULL)) {
		snprintf(msg, sizeof(msg), "backend \"none\" (a shell on "
		    "the host) refused: %s", buf);
		sv_client_error(c, id, RPC_SANDBOX_ERROR, msg);
		return -1;
	}
	r->cwd = json_get_str(params, "cwd");
	if (r->cwd == NULL || r->cwd[0] != '/' || stat(r->cwd, &st) == -1 ||
	    !S_ISDIR(st.st_mode)) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "cwd: an existing "
		    "directory, absolute");
		return -1;
	}
	if ((r->cols = dim(params, "cols", 80)) == -1 ||
	    (r->rows = dim(params, "rows", 24)) == -1) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "cols, rows: "
		    "integers 1..4096");
		return -1;
	}
	if ((r->pw = getpwuid(getuid())) == NULL || r->pw->pw_dir[0] != '/') {
		sv_client_error(c, id, RPC_INTERNAL_ERROR, "no home directory "
		    "for this user");
		return -1;
	}
	if ((r->shell = json_get_str(params, "shell")) == NULL)
		r->shell = r->pw->pw_shell[0] == '/' ? r->pw->pw_shell :
		    "/bin/sh";
	if (r->shell[0] != '/' || access(r->shell, X_OK) == -1) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "shell: an absolute "
		    "path of an executable");
		return -1;
	}
	r->session_id = json_get_str(params, "sessionId");
	return 0;
}

/*
 * Whether this airlockd can open one more terminal of R's kind; the
 * client has its error otherwise.  R-A4: native only where this
 * airlockd can build a sandbox.
 */
static int
term_admit(struct sv_client *c, const struct json *id,
    const struct term_req *r)
{
	struct sv_term	*t;
	char		 buf[256];
	int		 n;

	for (n = 0, t = terms; t != NULL; t = t->next)
		n++;
	if (n >= TERM_MAX) {
		sv_client_error(c, id, RPC_INTERNAL_ERROR, "too many open "
		    "terminals");
		return -1;
	}
	if (r->native && !(sv_sandbox_on && sv_settings.sandbox_enabled &&
	    sv_host.available)) {
		snprintf(buf, sizeof(buf), "native terminal: no sandbox here "
		    "(%s)", !sv_sandbox_on ? "--sandbox off" :
		    !sv_settings.sandbox_enabled ? "sandbox.enabled is false" :
		    sv_host.reasons != NULL && sv_host.reasons[0] != NULL ?
		    sv_host.reasons[0] : "the host cannot");
		sv_client_error(c, id, RPC_SANDBOX_ERROR, buf);
		return -1;
	}
	return 0;
}

/* The shell's command line: inside `airlock shell` when native. */
static char **
term_argv(struct sv_client *c, const struct json *id,
    const struct term_req *r)
{
	char	**argv = NULL, *self;

	if (r->native) {
		self = airlock_sibling("airlock", NULL);
		if (self[0] != '/' || access(self, X_OK) == -1) {
			free(self);
			sv_client_error(c, id, RPC_SANDBOX_ERROR, "native "
			    "terminal: the airlock client is not installed "
			    "next to airlockd");
			return NULL;
		}
		argv = strv_add(argv, self);
		free(self);
		argv = strv_add(argv, "shell");
		argv = strv_add(argv, "--cwd");
		argv = strv_add(argv, r->cwd);
		if (sv_settings_file != NULL) {
			argv = strv_add(argv, "--settings");
			argv = strv_add(argv, sv_settings_file);
		}
		argv = strv_add(argv, "--");
	}
	return strv_add(argv, r->shell);
}

/* The child: a session of its own on the pseudo-terminal SLAVE. */
static void __attribute__((noreturn))
term_child(const char *slave, const char *cwd, char **argv, char **env)
{
	sigset_t	all;
	int		s;

	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	if (setsid() == -1 || (s = open(slave, O_RDWR)) == -1)
		_exit(126);
	(void)ioctl(s, TIOCSCTTY, 0);
	if (dup2(s, 0) == -1 || dup2(s, 1) == -1 || dup2(s, 2) == -1)
		_exit(126);
	closefrom(3);
	if (chdir(cwd) == -1)
		_exit(126);
	execve(argv[0], argv, env);
	_exit(127);
}

/*
 * A pseudo-terminal of R's size and ARGV started on it: the master in
 * *MP and the child's pid, or -1 with a sentence in ERR.
 */
static pid_t
term_spawn(const struct term_req *r, char **argv, int *mp, const char **err)
{
	struct winsize	 ws;
	char		**env, *slave, path[256];
	int		 m;
	pid_t		 pid;

	if ((m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1 ||
	    grantpt(m) == -1 || unlockpt(m) == -1 ||
	    (slave = ptsname(m)) == NULL) {
		*err = "cannot open a pseudo-terminal";
		if (m != -1)
			close(m);
		return -1;
	}
	memset(&ws, 0, sizeof(ws));
	ws.ws_col = (unsigned short)r->cols;
	ws.ws_row = (unsigned short)r->rows;
	(void)ioctl(m, TIOCSWINSZ, &ws);
	snprintf(path, sizeof(path), "%s", slave);
	env = term_env(r->pw, r->shell);
	if ((pid = fork()) == -1) {
		*err = "fork failed";
		close(m);
		strv_free(env);
		return -1;
	}
	if (pid == 0)
		term_child(path, r->cwd, argv, env);
	strv_free(env);
	(void)fcntl(m, F_SETFL, O_NONBLOCK);
	*mp = m;
	return pid;
}

void
sv_terminal_open(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct term_req	 r;
	struct sv_term	*t;
	struct jgen	*j;
	const char	*err, *res;
	char		**argv;
	size_t		 len;
	int		 m;
	pid_t		 pid;

	if (term_decode(c, id, params, &r) == -1 ||
	    term_admit(c, id, &r) == -1 ||
	    (argv = term_argv(c, id, &r)) == NULL)
		return;
	pid = term_spawn(&r, argv, &m, &err);
	strv_free(argv);
	if (pid == -1) {
		sv_client_error(c, id, RPC_INTERNAL_ERROR, err);
		return;
	}

	t = xcalloc(1, sizeof(*t));
	t->id = ++next_term;
	snprintf(t->name, sizeof(t->name), "term-%u", t->id);
	t->native = r.native;
	t->owner = c;
	sv_client_ref(c);
	t->master = m;
	t->pid = pid;
	t->in = evbuffer_new();
	t->rev = event_new(sv_base, m, EV_READ | EV_PERSIST, term_read, t);
	t->wev = event_new(sv_base, m, EV_WRITE, term_write, t);
	event_add(t->rev, NULL);
	if (r.session_id != NULL)
		t->session_id = xstrdup(r.session_id);
	t->next = terms;
	terms = t;
	log_info("terminal %s: %s shell %s in %s (pid %d)", t->name,
	    r.backend, r.shell, r.cwd, (int)pid);

	j = jgen_new();
	jgen_obj_open(j);
	jgen_kstr(j, "terminalId", t->name);
	jgen_kstr(j, "backend", r.backend);
	jgen_obj_close(j);
	res = jgen_buf(j, &len);
	sv_client_result(c, id, res, len);
	jgen_free(j);
}

void
sv_terminal_input(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	const struct json *v = json_get(params, "base64");
	struct sv_term	*t;
	unsigned char	*buf;
	size_t		 n;

	if ((t = term_param(c, id, params)) == NULL)
		return;
	if (v == NULL || v->type != JSON_STRING) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "base64: a string");
		return;
	}
	if (evbuffer_get_length(t->in) + v->len / 4 * 3 > TERM_IN_MAX) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "the terminal is "
		    "not reading its input");
		return;
	}
	buf = xmalloc(v->len / 4 * 3 + 3);
	if (b64_decode(v->str, v->len, buf, &n) == -1) {
		free(buf);
		sv_client_error(c, id, RPC_INVALID_PARAMS, "base64: not "
		    "base64");
		return;
	}
	evbuffer_add(t->in, buf, n);
	free(buf);
	term_write(t->master, EV_WRITE, t);
	sv_client_result(c, id, "{}", 2);
}

void
sv_terminal_resize(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_term	*t;
	struct winsize	 ws;
	int		 cols, rows;

	if ((t = term_param(c, id, params)) == NULL)
		return;
	if ((cols = dim(params, "cols", -1)) == -1 ||
	    (rows = dim(params, "rows", -1)) == -1) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "cols, rows: "
		    "integers 1..4096");
		return;
	}
	memset(&ws, 0, sizeof(ws));
	ws.ws_col = (unsigned short)cols;
	ws.ws_row = (unsigned short)rows;
	/* The kernel tells the PTY's foreground group (SIGWINCH); inside
	 * native, `airlock shell` passes it on as sandbox.resize. */
	if (ioctl(t->master, TIOCSWINSZ, &ws) == -1) {
		sv_client_error(c, id, RPC_INTERNAL_ERROR, "TIOCSWINSZ");
		return;
	}
	sv_client_result(c, id, "{}", 2);
}

static void
term_hangup(struct sv_term *t)
{
	struct timeval	tv = { TERM_KILL_SEC, 0 };

	if (t->reaped)
		return;
	kill(-t->pid, SIGHUP);
	if (t->kill == NULL) {
		t->kill = evtimer_new(sv_base, term_kill_cb, t);
		evtimer_add(t->kill, &tv);
	}
}

void
sv_terminal_close(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_term	*t;

	if ((t = term_param(c, id, params)) == NULL)
		return;
	/* As a closed terminal window: SIGHUP, then SIGKILL; the exit
	 * notification follows. */
	term_hangup(t);
	sv_client_result(c, id, "{}", 2);
}

void
sv_terminals_client_gone(struct sv_client *c)
{
	struct sv_term	*t;

	for (t = terms; t != NULL; t = t->next)
		if (t->owner == c)
			term_hangup(t);
}

void
sv_terminals_shutdown(void)
{
	struct sv_term	*t;

	while ((t = terms) != NULL) {
		if (!t->reaped)
			kill(-t->pid, SIGKILL);
		term_free(t);
	}
}
