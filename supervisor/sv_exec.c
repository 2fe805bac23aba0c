// SPDX-License-Identifier: ISC
/*
 * The per-exec methods: sandbox.exec, sandbox.signal, sandbox.resize.
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

#include <event2/event.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"
#include "supervisor/gwrepo.h"
#include "supervisor/paths.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"
#include "supervisor/sv_sess.h"
#include "supervisor/wsorigin.h"

static int
pipe_fd(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

void
sv_session_exec(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s;
	struct sv_exec	*x;
	struct msgbuf	 b;
	char		**argv, **xenv, **envp, err[512];
	const char	*cwd, *jv;
	const struct json *t = NULL;
	int		 e = 0, pipes, tty = 0, pfd[3] = { -1, -1, -1 };
	uint32_t	 rows = 0, cols = 0;

	if ((s = session_param(c, id, params)) == NULL)
		return;
	argv = json_strv(param(params, "argv"));
	if (argv == NULL || argv[0] == NULL || argv[0][0] == '\0') {
		strv_free(argv);
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "argv: a non-empty array of strings");
		return;
	}
	if ((xenv = json_strv(param(params, "env"))) == NULL) {
		strv_free(argv);
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "env: an array of NAME=value strings");
		return;
	}
	/*
	 * "stdio":"pipes": the client passed three pipe ends with this
	 * request (stdin's read end, stdout's and stderr's write ends) and
	 * the output goes there instead of into events; "tty" asks for a
	 * terminal inside.  "output":"text" puts text in the events.
	 */
	pipes = (jv = json_get_str(params, "stdio")) != NULL &&
	    strcmp(jv, "pipes") == 0;
	if (pipes && (sv_client_take_fds(c, pfd, 3) == -1 ||
	    !pipe_fd(pfd[0]) || !pipe_fd(pfd[1]) || !pipe_fd(pfd[2]))) {
		if (pfd[0] != -1)
			for (e = 0; e < 3; e++)
				close(pfd[e]);
		strv_free(argv);
		strv_free(xenv);
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "stdio: \"pipes\" needs three pipes passed with the "
		    "request");
		return;
	}
	if ((t = param(params, "tty")) != NULL && pipes) {
		const struct json *r = json_get(t, "rows");
		const struct json *k = json_get(t, "cols");

		tty = 1;
		rows = r != NULL && r->is_int ? (uint32_t)r->integer : 24;
		cols = k != NULL && k->is_int ? (uint32_t)k->integer : 80;
	}
	t = NULL;
	cwd = json_get_str(params, "cwd");
	if (cwd == NULL)
		cwd = s->plan.workdir;
	envp = sv_env_build(s->caller_env, s->plan.env_base, xenv);
	for (e = 0; s->pass_env && s->pass_env[e]; e++)
		envp = env_set(envp, s->pass_env[e]);
	e = 0;

	x = xcalloc(1, sizeof(*x));
	x->s = s;
	x->id = ++s->next_exec;
	x->out.fd = x->err.fd = x->in.fd = -1;
	x->out.dst = x->err.dst = x->in.dst = x->stdin_fd = -1;
	if (pipes) {
		x->stdin_fd = pfd[0];
		x->out.dst = pfd[1];
		x->err.dst = pfd[2];
		x->pty = tty && s->backend != SV_BACKEND_NONE;
	}
	jv = json_get_str(params, "output");
	x->text = jv != NULL && strcmp(jv, "text") == 0;
	x->next = s->execs;
	s->execs = x;
	set_state(s, ST_ACTIVE);

	if (s->spec.limits.timeout_sec > 0 ||
	    ((t = param(params, "timeoutSec")) != NULL && t->is_int &&
	    t->integer > 0)) {
		uint64_t secs = s->spec.limits.timeout_sec;

		if (t != NULL && t->is_int && t->integer > 0)
			secs = (uint64_t)t->integer;
		exec_timeout_arm(x, secs * 1000);
	}

	if (s->backend == SV_BACKEND_NONE) {
		if (host_exec(x, argv, cwd, envp, err, sizeof(err), &e) == -1) {
			sv_client_error(c, id, e == ENOENT ? -32010 : -32011,
			    err);
			x->done = 1;
			update_active(s);
		} else {
			struct jgen *j = jgen_new();
			const char *buf;
			size_t len;

			jgen_obj_open(j);
			jgen_kint(j, "execId", x->id);
			jgen_kint(j, "pid", x->pid);
			jgen_kbool(j, "tty", x->pty);
			jgen_obj_close(j);
			buf = jgen_buf(j, &len);
			sv_client_result(c, id, buf, len);
			jgen_free(j);
		}
	} else {
		msgbuf_init(&b, pipes ? MSG_EXEC_IO : MSG_EXEC);
		msg_put_u32(&b, x->id);
		if (pipes)
			msg_put_u32(&b, x->pty ? EXEC_F_PTY : 0);
		msg_put_str(&b, cwd);
		msg_put_strv(&b, argv);
		msg_put_strv(&b, envp);
		if (pipes) {
			msg_put_u32(&b, rows);
			msg_put_u32(&b, cols);
		}
		x->reply_id = dup_id(id);
		if (msg_send(&s->link, &b, &x->stdin_fd, pipes) == -1)
			session_kill(s, "cannot send to the launcher");
		msgbuf_free(&b);
	}
	strv_free(argv);
	strv_free(xenv);
	strv_free(envp);
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
	int		 sig = SIGTERM;

	if ((s = session_param(c, id, params)) == NULL)
		return;
	if (jx == NULL || !jx->is_int ||
	    (x = exec_find(s, (uint32_t)jx->integer)) == NULL || x->done) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "execId: no running exec");
		return;
	}
	if (js != NULL && js->is_int && js->integer > 0 && js->integer < 65)
		sig = (int)js->integer;
	if (s->backend == SV_BACKEND_NONE)
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
