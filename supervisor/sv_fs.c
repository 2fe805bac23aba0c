// SPDX-License-Identifier: ISC
/*
 * The file tools (SPEC R-C6): fs.read, fs.write, fs.edit,
 * fs.applyPatch, fs.search and fs.find on a live session.  Each call is
 * one exec of airlock-fs (fs/) inside the session's sandbox, the way
 * sandbox.exec runs a command, so a tool call can do no more than a
 * shell command of the same session: same namespaces, Landlock domain,
 * seccomp filter and init's filename-rule check of every create.  What
 * is decided here, before anything runs: the mode (plan, review and
 * orchestrate refuse every write, R-S5), the roots a path may resolve
 * in (the workdir, then the shared roots: the other binds), and the
 * filename rules airlock-fs judges each write by (the plan's table,
 * R-L4).  Refusals become the session's violation events.
 *
 * untrusted: params (the client's) and the helper's answer (it ran in
 * the sandbox, beside the agent's own processes).
 */
#include <sys/mman.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/host/hook.h"
#include "common/host/paths.h"
#include "common/host/protect.h"
#include "common/json.h"
#include "common/log.h"
#include "common/namerule.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"

#define SV_FS_ANSWER_MAX	(JSON_MAX_INPUT)


struct fs_call {
	struct sv_client *c;
	struct json	*id;
	char		*sid;
	char		*action;	/* "fs.write", for violations */
	int		 fd;		/* the helper's stdout */
	struct event	*ev;
	char		*buf;
	size_t		 len;
	int		 overflow;
	int		 eof;
	int		 exited;
	int		 status;
};

static struct json *
dup_json(const struct json *v)
{
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 len;
	struct json	*r;

	jgen_value(j, v);
	buf = jgen_buf(j, &len);
	r = json_parse(buf, len, NULL, 0);
	jgen_free(j);
	return r;
}

static int
is_under(const char *p, const char *dir)
{
	size_t	n = strlen(dir);

	return strncmp(p, dir, n) == 0 && (p[n] == '/' || p[n] == '\0' ||
	    (n == 1 && dir[0] == '/'));
}

/*
 * The files a patch names (either format fs.applyPatch takes), for a
 * refusal made before the patch is parsed: the first one, and how many
 * more.  untrusted: the patch is the caller's text; only its first
 * kilobytes of names are looked at, each name cut at the line's end.
 */
static void
patch_target(const char *patch, char *out, size_t outlen)
{
	static const char *const mark[] = {
		"*** Add File: ", "*** Update File: ", "*** Delete File: ",
		"+++ b/", "+++ ", NULL,
	};
	const char	*l, *nl, *name;
	size_t		 k, n, more = 0;

	out[0] = '\0';
	for (l = patch; l != NULL && *l != '\0'; l = nl != NULL ? nl + 1 :
	    NULL) {
		nl = strchr(l, '\n');
		n = nl != NULL ? (size_t)(nl - l) : strlen(l);
		for (k = 0; mark[k] != NULL; k++)
			if (n > strlen(mark[k]) &&
			    strncmp(l, mark[k], strlen(mark[k])) == 0)
				break;
		if (mark[k] == NULL)
			continue;
		name = l + strlen(mark[k]);
		n -= strlen(mark[k]);
		if (n == 9 && strncmp(name, "/dev/null", 9) == 0)
			continue;
		if (out[0] != '\0') {
			more++;
			continue;
		}
		snprintf(out, outlen, "%.*s", (int)(n < 512 ? n : 512), name);
	}
	if (more > 0 && strlen(out) + 32 < outlen)
		snprintf(out + strlen(out), outlen - strlen(out),
		    " (and %zu more)", more);
}

/* The refusal as the client sees it, and as the session's event. */
static void
refuse(struct fs_call *f, const struct json *ans)
{
	const char	*rule = json_get_str(ans, "rule");
	const char	*msg = json_get_str(ans, "message");
	const char	*path = json_get_str(ans, "path");
	char		 text[1200];

	if (rule == NULL)
		rule = "io-error";
	snprintf(text, sizeof(text), "%s: %s", rule, msg != NULL ? msg : "");
	/* Policy refusals are violations; a missing file is not. */
	if (strcmp(rule, "outside-workspace") == 0 ||
	    strcmp(rule, "protected-name") == 0 ||
	    strcmp(rule, "read-only-mode") == 0 ||
	    strcmp(rule, "read-only-path") == 0)
		sv_session_violation_rule(f->sid, f->action,
		    path != NULL ? path : "", rule);
	sv_client_error_data(f->c, f->id, RPC_FS_REFUSED, text, ans);
}

static void
call_free(struct fs_call *f)
{
	if (f->ev != NULL)
		event_free(f->ev);
	if (f->fd != -1)
		close(f->fd);
	sv_client_unref(f->c);
	json_free(f->id);
	free(f->sid);
	free(f->action);
	free(f->buf);
	free(f);
}

static void
call_finish(struct fs_call *f)
{
	struct json	*ans;
	const struct json *ok, *res;
	const char	*buf;
	char		 err[256];
	size_t		 len;
	struct jgen	*j;

	if (!f->eof || !f->exited)
		return;
	if (!sv_client_alive(f->c)) {
		call_free(f);
		return;
	}
	ans = f->overflow ? NULL : json_parse(f->buf, f->len, err,
	    sizeof(err));
	ok = json_get(ans, "ok");
	if (f->status != 0 || ans == NULL || ok == NULL ||
	    ok->type != JSON_BOOL) {
		snprintf(err, sizeof(err), "airlock-fs failed (%s %d)",
		    f->status == -1 ? "session ended" : "status", f->status);
		sv_client_error(f->c, f->id, RPC_INTERNAL_ERROR, err);
	} else if (!ok->boolean)
		refuse(f, ans);
	else if ((res = json_get(ans, "result")) != NULL &&
	    res->type == JSON_OBJECT) {
		j = jgen_new();
		jgen_value(j, res);
		buf = jgen_buf(j, &len);
		sv_client_result(f->c, f->id, buf, len);
		jgen_free(j);
	} else
		sv_client_error(f->c, f->id, RPC_INTERNAL_ERROR,
		    "airlock-fs: no result");
	json_free(ans);
	call_free(f);
}

static void
call_readable(evutil_socket_t fd, short ev, void *arg)
{
	struct fs_call	*f = arg;
	char		 tmp[65536];
	ssize_t		 n;

	(void)ev;
	n = read(fd, tmp, sizeof(tmp));
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		event_del(f->ev);
		f->eof = 1;
		call_finish(f);
		return;
	}
	if (f->len + (size_t)n > SV_FS_ANSWER_MAX) {
		f->overflow = 1;
		return;
	}
	f->buf = xreallocarray(f->buf, 1, f->len + (size_t)n);
	memcpy(f->buf + f->len, tmp, (size_t)n);
	f->len += (size_t)n;
}

static void
call_done(void *arg, int status)
{
	struct fs_call	*f = arg;

	f->exited = 1;
	f->status = status;
	call_finish(f);
}

/* The roots: the workdir, then every other bind that is not a runner's
 * state directory (the conversation's repos/, attachments). */
static void
put_roots(struct jgen *j, const struct sv_spec *sp, const char *workdir)
{
	size_t	i, k;

	jgen_key(j, "roots");
	jgen_arr_open(j);
	jgen_str(j, workdir);
	for (i = 0; i < sp->nbinds; i++) {
		const char *g = sp->binds[i].guest_path;

		if (g == NULL || g[0] != '/' || strcmp(g, "/") == 0 ||
		    is_under(workdir, g) || is_under(g, workdir) ||
		    strv_in(sp->runner_state_dirs, g))
			continue;
		for (k = 0; k < i; k++)
			if (strcmp(sp->binds[k].guest_path, g) == 0)
				break;
		if (k == i)
			jgen_str(j, g);
	}
	jgen_arr_close(j);
}

static void
put_rule(struct jgen *j, uint32_t kind, const char *pat, const char *exc)
{
	jgen_arr_open(j);
	jgen_int(j, kind);
	jgen_str(j, pat);
	jgen_str(j, exc != NULL ? exc : "");
	jgen_arr_close(j);
}

/* The plan's filename rules, scoped to the writable binds. */
static void
put_rules(struct jgen *j, const struct sv_spec *sp)
{
	const char	*pat, *exc;
	uint32_t	 kind;
	size_t		 i;

	jgen_key(j, "rules");
	jgen_arr_open(j);
	for (i = 0; i < sp->nbinds; i++)
		if (!sp->binds[i].read_only &&
		    !strv_in(sp->runner_state_dirs, sp->binds[i].guest_path))
			put_rule(j, NR_SCOPE, sp->binds[i].guest_path, NULL);
	for (i = 0; protect_rule_at(i, &kind, &pat, &exc); i++)
		if (kind != NR_GITSTATE)
			put_rule(j, kind, pat, exc);
	for (i = 0; sp->deny_write != NULL && sp->deny_write[i] != NULL; i++)
		if (sp->deny_write[i][0] == '/')
			put_rule(j, NR_ABS, sp->deny_write[i], NULL);
	for (i = 0; sp->protected_paths != NULL &&
	    sp->protected_paths[i] != NULL; i++)
		if (sp->protected_paths[i][0] == '/')
			put_rule(j, NR_ABS, sp->protected_paths[i], NULL);
	jgen_arr_close(j);
}

/* A call that waits for its lazy session's build (R-R1). */
struct fs_wait {
	struct sv_client *c;
	struct json	*id;
	struct json	*params;
	const char	*op, *action;
	int		 writes;
};

static void	fs_method(struct sv_client *, const struct json *,
		    const struct json *, const char *, const char *, int);

static void
fs_built(void *arg, const char *err)
{
	struct fs_wait	*w = arg;

	if (sv_client_alive(w->c) && err != NULL)
		sv_client_error(w->c, w->id, RPC_SANDBOX_ERROR, err);
	else if (sv_client_alive(w->c))
		fs_method(w->c, w->id, w->params, w->op, w->action,
		    w->writes);
	sv_client_unref(w->c);
	json_free(w->id);
	json_free(w->params);
	free(w);
}

static void
fs_method(struct sv_client *c, const struct json *id,
    const struct json *params, const char *op, const char *action,
    int writes)
{
	struct fs_wait	*w;
	struct sv_session *s;
	const struct sv_spec *sp;
	struct fs_call	*f;
	struct jgen	*j;
	const char	*buf, *sid = json_get_str(params, "sessionId");
	char		*argv[2], *host = NULL;
	size_t		 len;
	int		 mfd, pfd[2];

	if (sid == NULL) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "sessionId: required");
		return;
	}
	if ((s = sv_session_owned(c, sid)) == NULL) {
		sv_client_error(c, id, RPC_NO_SESSION, "no such session");
		return;
	}
	/* R-R1: as a first sandbox.exec, it joins the one build. */
	w = xcalloc(1, sizeof(*w));
	w->c = c;
	sv_client_ref(c);
	w->id = dup_json(id);
	w->params = dup_json(params);
	w->op = op;
	w->action = action;
	w->writes = writes;
	if (sv_session_when_built(c, s, fs_built, w))
		return;
	sv_client_unref(c);
	json_free(w->id);
	json_free(w->params);
	free(w);
	/* Not built, and not to be built by this call: nothing to run. */
	if (sv_session_workdir(s) == NULL) {
		sv_client_error(c, id, RPC_SANDBOX_ERROR,
		    "the sandbox is not running");
		return;
	}
	sp = sv_session_spec(s);
	/* R-S5: refused before anything is touched, or even run. */
	if (writes && pol_mode_readonly(sp->mode)) {
		const char	*path = json_get_str(params, "path");
		const char	*patch = json_get_str(params, "patch");
		struct json	*d;
		char		 text[300], named[600];

		/* A patch names its files inside: the first is the target. */
		if (path == NULL && patch != NULL) {
			patch_target(patch, named, sizeof(named));
			path = named;
		}

		snprintf(text, sizeof(text), "read-only-mode: the session is "
		    "in %s mode; %s is refused", pol_mode_name(sp->mode),
		    action);
		j = jgen_new();
		jgen_obj_open(j);
		jgen_kbool(j, "ok", 0);
		jgen_kstr(j, "rule", "read-only-mode");
		jgen_kstr(j, "message", text + 16);
		jgen_kstr(j, "path", path != NULL ? path : "");
		jgen_obj_close(j);
		buf = jgen_buf(j, &len);
		d = json_parse(buf, len, NULL, 0);
		jgen_free(j);
		sv_session_violation_rule(sid, action, path != NULL ? path :
		    "", "read-only-mode");
		sv_client_error_data(c, id, RPC_FS_REFUSED, text, d);
		json_free(d);
		return;
	}
	j = jgen_new();
	jgen_obj_open(j);
	jgen_kstr(j, "op", op);
	put_roots(j, sp, sv_session_workdir(s));
	put_rules(j, sp);
	jgen_key(j, "params");
	jgen_value(j, params);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	/* The request as stdin: a sealed memfd holds any size at once. */
	if ((mfd = memfd_create("airlock-fs", MFD_CLOEXEC)) == -1 ||
	    write(mfd, buf, len) != (ssize_t)len ||
	    lseek(mfd, 0, SEEK_SET) == -1 ||
	    pipe2(pfd, O_CLOEXEC | O_NONBLOCK) == -1) {
		if (mfd != -1)
			close(mfd);
		jgen_free(j);
		sv_client_error(c, id, RPC_INTERNAL_ERROR, strerror(errno));
		return;
	}
	jgen_free(j);
	(void)fcntl(pfd[0], F_SETPIPE_SZ, 1 << 20);
	f = xcalloc(1, sizeof(*f));
	f->c = c;
	sv_client_ref(c);
	f->id = dup_json(id);
	f->sid = xstrdup(sid);
	f->action = xstrdup(action);
	f->fd = pfd[0];
	f->ev = event_new(sv_base, pfd[0], EV_READ | EV_PERSIST,
	    call_readable, f);
	event_add(f->ev, NULL);
	/* Unconfined (backend none): the helper beside airlockd. */
	argv[0] = sv_session_confined(s) ? AIRLOCK_SANDBOX_FS :
	    (host = sv_sibling("airlock-fs"));
	argv[1] = NULL;
	if (sv_session_helper(c, id, params, argv, mfd, pfd[1], call_done,
	    f) == NULL)
		call_free(f);
	free(host);
}

void
sv_fs_read(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	fs_method(c, id, params, "read", "fs.read", 0);
}

void
sv_fs_write(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	fs_method(c, id, params, "write", "fs.write", 1);
}

void
sv_fs_edit(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	fs_method(c, id, params, "edit", "fs.edit", 1);
}

void
sv_fs_apply_patch(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	fs_method(c, id, params, "applyPatch", "fs.applyPatch", 1);
}

void
sv_fs_search(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	fs_method(c, id, params, "search", "fs.search", 0);
}

void
sv_fs_find(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	fs_method(c, id, params, "find", "fs.find", 0);
}
