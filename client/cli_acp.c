// SPDX-License-Identifier: ISC
/*
 * `airlock acp [run options] [--pass-through fs|terminal|all] -- AGENT
 * [ARG...]`: an Agent Client Protocol agent inside a sandbox (SPEC R-A2),
 * its stdio JSON-RPC relayed to the editor on ours.
 *
 * The agent is launched exactly as `airlock run` launches a command
 * (cli_run_adapter(), the one seam): what runs in the sandbox is this
 * binary's relay (`airlock acp-relay`, at AIRLOCK_SANDBOX_SELF), which
 * starts the agent as its child.  So the agent's requests to the client
 * are served inside the same sandbox: fs/read_text_file and
 * fs/write_text_file by airlock-fs (the file tools' path resolution and
 * filename rules, the refusal's rule named in the JSON-RPC error), the
 * terminal/ methods by running the command as another child there.
 * The editor sees those only with --pass-through.  A
 * session/request_permission goes to the editor; when it answers with an
 * error (or has gone), the relay answers from airlock's command policy.
 *
 * untrusted: every line of the agent (and the editor's are only
 * relayed, parsed for the few fields the relay needs).
 */
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_opt.h"
#include "client/cli_policy.h"
#include "common/acpframe.h"
#include "common/host/hook.h"
#include "common/host/paths.h"
#include "common/host/protect.h"
#include "common/host/settings.h"
#include "common/json.h"
#include "common/namerule.h"
#include "common/vis.h"
#include "common/xmalloc.h"
#include "policy/classify.h"
#include "policy/policy.h"

#define ACP_TERM_MAX		64
#define ACP_TERM_DEFAULT_LIMIT	(1U << 20)
#define ACP_PENDING_MAX		256
#define ACP_ERR_REFUSED		(-32030)	/* as the fs.* methods */

static void __attribute__((noreturn))
acp_usage(int code)
{
	fprintf(code == 0 ? stdout : stderr,
"usage: airlock acp [options] -- AGENT [ARG...]\n"
"  An ACP agent inside a sandbox, its JSON-RPC relayed on stdin/stdout;\n"
"  its file and terminal requests served inside the same sandbox.\n"
"  See airlock(1).\n"
"options:\n");
	cli_opt_help(code == 0 ? stdout : stderr, CLI_ACP);
	exit(code);
}

static int
pass_parse(const char *v, int *fs, int *term)
{
	char	*s = xstrdup(v), *p, *save = NULL;
	int	 rc = 0;

	*fs = *term = 0;
	for (p = strtok_r(s, ",", &save); p != NULL;
	    p = strtok_r(NULL, ",", &save)) {
		if (strcmp(p, "fs") == 0)
			*fs = 1;
		else if (strcmp(p, "terminal") == 0)
			*term = 1;
		else if (strcmp(p, "all") == 0)
			*fs = *term = 1;
		else if (strcmp(p, "none") != 0)
			rc = -1;
	}
	free(s);
	return rc;
}

/* What `airlock acp` collects on its way to cli_run_adapter(). */
struct acp_run {
	const char	*workspace, *mode, *pass, *settings;
	int		 unconfined, no_check, raw, pfs, pterm;
	char		**rargv;	/* airlock run's arguments */
	char		 rules[POL_CLASS_MAX + 1];
	char		 ptimeout[16];	/* acp.permissionTimeout */
	char		 ws[PATH_MAX];
};

/* One of the run's options on its way (cli_opt_walk): the relay's own
 * are read; --pass-through and --no-policy-check stay here. */
static int
acp_option(void *arg, const struct cli_opt *o, const char *a, const char *v)
{
	struct acp_run	*ar = arg;

	if (o == NULL) {
#ifdef AIRLOCK_TEST_BUILD
		/* The test build only: no relay at all, the agent's stdout
		 * straight to this side's check (acp_out()). */
		if (strcmp(a, "--test-no-relay") == 0)
			return ar->raw = 1;
#endif
		(void)a;
		return 0;
	}
	if (strcmp(o->name, "--help") == 0)
		acp_usage(0);
	if (strcmp(o->name, "--pass-through") == 0)
		ar->pass = v;
	else if (strcmp(o->name, "--no-policy-check") == 0)
		return ar->no_check = 1;
	else if (strcmp(o->name, "--workspace") == 0)
		ar->workspace = v;
	else if (strcmp(o->name, "--mode") == 0)
		ar->mode = v;
	else if (strcmp(o->name, "--sandbox") == 0)
		ar->unconfined = strcmp(v, "off") == 0;
	else if (strcmp(o->name, "--settings") == 0)
		ar->settings = v;
	return 0;
}

/*
 * The settings: acp.passThrough, and the policy's rules for the relay's
 * answers to permission requests.  0, or the status to exit with.
 */
static int
acp_settings(struct acp_run *ar)
{
	struct settings	set;
	char		err[1024];
	size_t		k;

	settings_defaults(&set);
	if (settings_load(&set, NULL, ar->settings, NULL, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "airlock acp: %s\n", err);
		settings_free(&set);
		return 125;
	}
	settings_print_notes(&set, "airlock acp");
	snprintf(ar->ptimeout, sizeof(ar->ptimeout), "%d",
	    set.acp_permission_timeout);
	for (k = 0; k < POL_CLASS_MAX; k++)
		ar->rules[k] = (char)('0' + set.rules[k]);
	ar->rules[POL_CLASS_MAX] = '\0';
	if (ar->pass == NULL) {
		ar->pfs = strv_in(set.acp_pass_through, "fs");
		ar->pterm = strv_in(set.acp_pass_through, "terminal");
	} else if (pass_parse(ar->pass, &ar->pfs, &ar->pterm) == -1) {
		fprintf(stderr, "airlock acp: --pass-through %s: fs, terminal, "
		    "all or none\n", ar->pass);
		settings_free(&set);
		return 2;
	}
	settings_free(&set);
	return 0;
}

/* The relay must know the workspace the run binds: the same one. */
static int
acp_workspace(struct acp_run *ar)
{
	char	cwd[PATH_MAX];

	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		fprintf(stderr, "airlock acp: getcwd: %s\n", strerror(errno));
		return -1;
	}
	if (ar->workspace == NULL) {
		default_workspace(cwd, ar->ws, sizeof(ar->ws));
		ar->rargv = strv_add(ar->rargv, "--workspace");
		ar->rargv = strv_add(ar->rargv, ar->ws);
	} else if (realpath(ar->workspace, ar->ws) == NULL) {
		fprintf(stderr, "airlock acp: workspace %s: %s\n",
		    ar->workspace, strerror(errno));
		return -1;
	}
	return 0;
}

/* What runs in the sandbox: airlock's relay, the agent its child. */
static int
acp_relay_argv(struct acp_run *ar)
{
	char	self[PATH_MAX];
	ssize_t	n;

	if (ar->unconfined) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0) {
			fprintf(stderr, "airlock acp: /proc/self/exe: %s\n",
			    strerror(errno));
			return -1;
		}
		self[n] = '\0';
		ar->rargv = strv_add(ar->rargv, self);
	} else
		ar->rargv = strv_add(ar->rargv, AIRLOCK_SANDBOX_SELF);
	ar->rargv = strv_add(ar->rargv, "acp-relay");
	ar->rargv = strv_add(ar->rargv, ar->ws);
	ar->rargv = strv_add(ar->rargv, ar->mode);
	ar->rargv = strv_add(ar->rargv, ar->pfs && ar->pterm ? "all" :
	    ar->pfs ? "fs" : ar->pterm ? "terminal" : "none");
	ar->rargv = strv_add(ar->rargv, ar->rules);
	ar->rargv = strv_add(ar->rargv, ar->ptimeout);
	ar->rargv = strv_add(ar->rargv, "--");
	return 0;
}

int
cli_acp_main(int argc, char **argv)
{
	struct acp_run	 ar;
	struct run_adapter ad;
	int		 i, rargc, rc;

	memset(&ar, 0, sizeof(ar));
	ar.mode = "chat";
	ar.rargv = strv_add(NULL, "acp");
	i = cli_opt_walk(CLI_ACP, "airlock acp", argc, argv, acp_option, &ar,
	    &ar.rargv);
	if (i >= argc) {
		fprintf(stderr, "airlock acp: no agent given\n");
		acp_usage(2);
	}
	if ((rc = acp_settings(&ar)) != 0)
		return rc;
	/* R-C4: the agent's own command line, as `airlock run` judges its
	 * command (the relay's line is airlock's, not the caller's). */
	if ((rc = cli_run_guard(ar.mode, ar.settings, argv + i,
	    ar.no_check)) != 0) {
		strv_free(ar.rargv);
		return rc;
	}
	if (acp_workspace(&ar) == -1)
		return 125;
	/* The agent's own commands are judged where they run; its stdio
	 * is JSON-RPC, never a terminal. */
	ar.rargv = strv_add(ar.rargv, "--no-policy-check");
	ar.rargv = strv_add(ar.rargv, "-T");
	ar.rargv = strv_add(ar.rargv, "--");
	if (!ar.raw && acp_relay_argv(&ar) == -1)
		return 125;
	for (; i < argc; i++)
		ar.rargv = strv_add(ar.rargv, argv[i]);
	for (rargc = 0; ar.rargv[rargc] != NULL; rargc++)
		;
	memset(&ad, 0, sizeof(ad));
	/* Confined or not at all, unless --sandbox off says so. */
	ad.require_sandbox = !ar.unconfined;
	/* What reaches the editor is checked on this side too. */
	ad.acp = 1;
	ad.acp_pass_fs = ar.pfs;
	ad.acp_pass_term = ar.pterm;
	rc = cli_run_adapter(rargc, ar.rargv, &ad);
	strv_free(ar.rargv);
	return rc;
}

/* ---- the relay, inside the sandbox ---- */

struct term {
	char	 id[24];
	pid_t	 pid;
	int	 fd;		/* its output, -1 at its end */
	char	*out;
	size_t	 olen;
	size_t	 limit;
	int	 truncated;
	int	 exited;
	int	 status;
	char	*waiters[ACP_PENDING_MAX]; /* ids of wait_for_exit calls */
	size_t	 nwaiters;
};

struct perm {
	char		*id;	/* the agent's id, as JSON text */
	struct json	*params;
	double		 asked;	/* when it went to the editor */
	int		 late;	/* answered by airlock: the editor's
				   answer, if it comes, is dropped */
};

struct relay {
	const char	*ws;
	enum pol_mode	 mode;
	int		 pass_fs;
	int		 pass_term;
	int		 to_agent;
	int		 to_editor;
	struct term	*terms[ACP_TERM_MAX];
	unsigned long	 next_term;
	struct perm	 perms[ACP_PENDING_MAX];
	enum pol_verdict rules[POL_CLASS_MAX];
	unsigned long	 dropped;	/* lines not relayed (drop_line()) */
	long		 perm_timeout;	/* acp.permissionTimeout, 0: none */
};

static void
put_all(int fd, const char *buf, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd p = { fd, POLLOUT, 0 };

				(void)poll(&p, 1, -1);
				continue;
			}
			return;	/* the reader has gone */
		}
		buf += n;
		len -= (size_t)n;
	}
}

static void
put_line(int fd, const char *buf, size_t len)
{
	put_all(fd, buf, len);
	put_all(fd, "\n", 1);
}

static void
put_jgen(int fd, struct jgen *j)
{
	const char	*b;
	size_t		 len;

	b = jgen_buf(j, &len);
	put_line(fd, b, len);
	jgen_free(j);
}

static char *
json_text(const struct json *v)
{
	struct jgen	*j = jgen_new();
	char		*s;

	jgen_value(j, v);
	s = xstrdup(jgen_buf(j, NULL));
	jgen_free(j);
	return s;
}

/* A response to the agent: idtext is the request's id as JSON text. */
static struct jgen *
answer_open(const char *idtext)
{
	struct jgen	*j = jgen_new();
	struct json	*id = json_parse(idtext, strlen(idtext), NULL, 0);

	jgen_obj_open(j);
	jgen_kstr(j, "jsonrpc", "2.0");
	jgen_key(j, "id");
	jgen_value(j, id);
	json_free(id);
	jgen_key(j, "result");
	return j;
}

static void
answer_empty(struct relay *r, const char *idtext)
{
	struct jgen *j = answer_open(idtext);

	jgen_obj_open(j);
	jgen_obj_close(j);
	jgen_obj_close(j);
	put_jgen(r->to_agent, j);
}

static void
answer_error(struct relay *r, const char *idtext, int code,
    const char *rule, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static void
answer_error(struct relay *r, const char *idtext, int code,
    const char *rule, const char *path, const char *fmt, ...)
{
	struct jgen	*j = jgen_new();
	struct json	*id = json_parse(idtext, strlen(idtext), NULL, 0);
	char		 msg[1024];
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	jgen_obj_open(j);
	jgen_kstr(j, "jsonrpc", "2.0");
	jgen_key(j, "id");
	jgen_value(j, id);
	json_free(id);
	jgen_key(j, "error");
	jgen_obj_open(j);
	jgen_kint(j, "code", code);
	jgen_kstr(j, "message", msg);
	if (rule != NULL) {
		jgen_key(j, "data");
		jgen_obj_open(j);
		jgen_kstr(j, "rule", rule);
		jgen_kstr(j, "path", path != NULL ? path : "");
		jgen_obj_close(j);
	}
	jgen_obj_close(j);
	jgen_obj_close(j);
	put_jgen(r->to_agent, j);
}

/* ---- files: one exec of airlock-fs per request ---- */

static void
put_rule(struct jgen *j, uint32_t kind, const char *pat, const char *exc)
{
	jgen_arr_open(j);
	jgen_int(j, kind);
	jgen_str(j, pat);
	jgen_str(j, exc != NULL ? exc : "");
	jgen_arr_close(j);
}

/*
 * The helper's answer, or NULL.  It runs as our child, so with our
 * sandbox (namespaces, Landlock, seccomp and init's check of creates);
 * the request holds the roots and rules as sv_fs.c builds them.
 */
static struct json *
fs_helper(struct relay *r, const char *op, const struct json *params)
{
	struct jgen	*j = jgen_new();
	const char	*buf, *pat, *exc;
	char		 helper[PATH_MAX], *out = NULL;
	size_t		 len, olen = 0, cap = 0, i;
	uint32_t	 kind;
	int		 mfd, pfd[2], st;
	ssize_t		 n;
	pid_t		 pid;
	struct json	*ans;

	jgen_obj_open(j);
	jgen_kstr(j, "op", op);
	jgen_key(j, "roots");
	jgen_arr_open(j);
	jgen_str(j, r->ws);
	jgen_arr_close(j);
	jgen_key(j, "rules");
	jgen_arr_open(j);
	put_rule(j, NR_SCOPE, r->ws, NULL);
	for (i = 0; protect_rule_at(i, &kind, &pat, &exc); i++)
		if (kind != NR_GITSTATE)
			put_rule(j, kind, pat, exc);
	jgen_arr_close(j);
	jgen_key(j, "params");
	jgen_value(j, params);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	if (access(AIRLOCK_SANDBOX_FS, X_OK) == 0)
		snprintf(helper, sizeof(helper), "%s", AIRLOCK_SANDBOX_FS);
	else {
		/* Unconfined (--sandbox off): the helper beside us. */
		n = readlink("/proc/self/exe", helper, sizeof(helper) - 16);
		helper[n > 0 ? n : 0] = '\0';
		if (strrchr(helper, '/') != NULL)
			strcpy(strrchr(helper, '/') + 1, "airlock-fs");
	}
	if ((mfd = memfd_create("airlock-fs", MFD_CLOEXEC)) == -1 ||
	    write(mfd, buf, len) != (ssize_t)len ||
	    lseek(mfd, 0, SEEK_SET) == -1 || pipe2(pfd, O_CLOEXEC) == -1) {
		jgen_free(j);
		return NULL;
	}
	jgen_free(j);
	if ((pid = fork()) == 0) {
		char	*av[2] = { helper, NULL };
		sigset_t all;

		sigfillset(&all);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		dup2(mfd, STDIN_FILENO);
		dup2(pfd[1], STDOUT_FILENO);
		execv(helper, av);
		_exit(127);
	}
	close(mfd);
	close(pfd[1]);
	for (;;) {
		if (olen == cap) {
			if (cap > JSON_MAX_INPUT)
				break;
			cap = cap ? cap * 2 : 65536;
			out = xreallocarray(out, 1, cap);
		}
		if ((n = read(pfd[0], out + olen, cap - olen)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			break;
		olen += (size_t)n;
	}
	close(pfd[0]);
	while (pid > 0 && waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	ans = pid > 0 && out != NULL ? json_parse(out, olen, NULL, 0) : NULL;
	free(out);
	return ans;
}

static void
serve_fs(struct relay *r, const char *idtext, const char *method,
    const struct json *params)
{
	const char	*path = json_get_str(params, "path");
	const struct json *v, *res;
	struct json	*ans, *p;
	struct jgen	*j;
	int		 write = strcmp(method, "fs/write_text_file") == 0;

	if (params == NULL || params->type != JSON_OBJECT || path == NULL) {
		answer_error(r, idtext, -32602, NULL, NULL, "path: required");
		return;
	}
	/* R-S5: a read-only mode writes nothing. */
	if (write && pol_mode_readonly(r->mode)) {
		answer_error(r, idtext, ACP_ERR_REFUSED, "read-only-mode",
		    path, "refused by airlock (rule read-only-mode): the "
		    "session is in %s mode", pol_mode_name(r->mode));
		return;
	}
	/* ACP's line/limit are airlock-fs's offset/limit; text unnumbered. */
	j = jgen_new();
	jgen_obj_open(j);
	jgen_kstr(j, "path", path);
	if (write) {
		if ((v = json_get(params, "content")) == NULL ||
		    v->type != JSON_STRING) {
			jgen_free(j);
			answer_error(r, idtext, -32602, NULL, NULL,
			    "content: a string");
			return;
		}
		jgen_key(j, "content");
		jgen_strn(j, v->str, v->len);
	} else {
		jgen_kbool(j, "numbered", 0);
		if ((v = json_get(params, "line")) != NULL && v->is_int)
			jgen_kint(j, "offset", v->integer);
		if ((v = json_get(params, "limit")) != NULL && v->is_int)
			jgen_kint(j, "limit", v->integer);
	}
	jgen_obj_close(j);
	p = json_parse(jgen_buf(j, NULL), strlen(jgen_buf(j, NULL)), NULL, 0);
	jgen_free(j);
	ans = fs_helper(r, write ? "write" : "read", p);
	json_free(p);
	if (ans == NULL) {
		answer_error(r, idtext, -32603, NULL, NULL, "airlock-fs "
		    "failed");
		return;
	}
	v = json_get(ans, "ok");
	if (v == NULL || v->type != JSON_BOOL || !v->boolean) {
		const char *rule = json_get_str(ans, "rule");

		answer_error(r, idtext, ACP_ERR_REFUSED, rule != NULL ? rule :
		    "refused", path, "refused by airlock (rule %s): %s",
		    rule != NULL ? rule : "refused",
		    json_get_str(ans, "message") != NULL ?
		    json_get_str(ans, "message") : "");
		json_free(ans);
		return;
	}
	res = json_get(ans, "result");
	if (write)
		answer_empty(r, idtext);
	else if (json_get_str(res, "type") != NULL &&
	    strcmp(json_get_str(res, "type"), "text") != 0)
		answer_error(r, idtext, ACP_ERR_REFUSED, "not-text", path,
		    "refused by airlock (rule not-text): %s is not UTF-8 "
		    "text", path);
	else {
		v = json_get(res, "content");
		j = answer_open(idtext);
		jgen_obj_open(j);
		jgen_key(j, "content");
		if (v != NULL && v->type == JSON_STRING)
			jgen_strn(j, v->str, v->len);
		else
			jgen_str(j, "");
		jgen_obj_close(j);
		jgen_obj_close(j);
		put_jgen(r->to_agent, j);
	}
	json_free(ans);
}

/* ---- terminals: children of the relay, so in its sandbox ---- */

static struct term *
term_find(struct relay *r, const struct json *params)
{
	const char	*id = json_get_str(params, "terminalId");
	size_t		 i;

	/* A released terminal is gone for the agent (pid < 0: dying). */
	for (i = 0; id != NULL && i < ACP_TERM_MAX; i++)
		if (r->terms[i] != NULL && r->terms[i]->pid > 0 &&
		    strcmp(r->terms[i]->id, id) == 0)
			return r->terms[i];
	return NULL;
}

static void
put_exit(struct jgen *j, const struct term *t)
{
	jgen_key(j, "exitCode");
	if (WIFEXITED(t->status))
		jgen_int(j, WEXITSTATUS(t->status));
	else
		jgen_null(j);
	jgen_key(j, "signal");
	if (WIFSIGNALED(t->status) && sigabbrev_np(WTERMSIG(t->status))) {
		char s[32];

		snprintf(s, sizeof(s), "SIG%s",
		    sigabbrev_np(WTERMSIG(t->status)));
		jgen_str(j, s);
	} else
		jgen_null(j);
}

/* Keep the last limit bytes, cut at a character boundary. */
static void
term_append(struct term *t, const char *buf, size_t n)
{
	size_t	cut;

	t->out = xreallocarray(t->out, 1, t->olen + n + 1);
	memcpy(t->out + t->olen, buf, n);
	t->olen += n;
	if (t->olen > t->limit) {
		cut = t->olen - t->limit;
		while (cut < t->olen && ((unsigned char)t->out[cut] & 0xc0) ==
		    0x80)
			cut++;
		memmove(t->out, t->out + cut, t->olen - cut);
		t->olen -= cut;
		t->truncated = 1;
	}
}

static void
term_free(struct relay *r, struct term *t)
{
	size_t	i;

	for (i = 0; i < ACP_TERM_MAX; i++)
		if (r->terms[i] == t)
			r->terms[i] = NULL;
	if (t->fd != -1)
		close(t->fd);
	for (i = 0; i < t->nwaiters; i++)
		free(t->waiters[i]);
	free(t->out);
	free(t);
}

static void
term_exited(struct relay *r, struct term *t, int status)
{
	struct jgen	*j;
	size_t		 i;

	t->exited = 1;
	t->status = status;
	for (i = 0; i < t->nwaiters; i++) {
		j = answer_open(t->waiters[i]);
		jgen_obj_open(j);
		put_exit(j, t);
		jgen_obj_close(j);
		jgen_obj_close(j);
		put_jgen(r->to_agent, j);
		free(t->waiters[i]);
	}
	t->nwaiters = 0;
	/* Released before its end: gone now. */
	if (t->pid == 0)
		term_free(r, t);
}

/* argv as one shell line: words that need it in single quotes. */
static char *
shell_line(char *const *av)
{
	char		*line = xstrdup(""), *n;
	const char	*w, *q;

	for (; *av != NULL; av++) {
		w = *av;
		if (w[0] != '\0' && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_-./=:,+@%") ==
		    strlen(w))
			xasprintf(&n, "%s%s%s", line, line[0] ? " " : "", w);
		else {
			char *e = xstrdup("'");

			for (q = w; *q != '\0'; q++) {
				char *t;

				xasprintf(&t, "%s%s", e, *q == '\'' ? "'\\''" :
				    (char[]){ *q, '\0' });
				free(e);
				e = t;
			}
			xasprintf(&n, "%s%s%s'", line, line[0] ? " " : "", e);
			free(e);
		}
		free(line);
		line = n;
	}
	return line;
}

static int
term_guard(struct relay *r, const char *idtext, char *const *av)
{
	struct pol_result *pr;
	char		*line;
	int		 rc = 0;

	/* sh -c LINE: the line is the command. */
	if (strcmp(av[0], "/bin/sh") == 0 && av[1] != NULL &&
	    strcmp(av[1], "-c") == 0 && av[2] != NULL && av[3] == NULL)
		line = xstrdup(av[2]);
	else
		line = shell_line(av);
	pr = pol_check(line, strlen(line), r->mode, r->rules);
	if (pr->verdict != POL_ALLOW) {
		answer_error(r, idtext, ACP_ERR_REFUSED, "command-policy", "",
		    "refused by airlock (rule command-policy): %s: %s%s%s",
		    pol_verdict_name(pr->verdict), pr->rule != NULL ?
		    pr->rule : "", pr->reason != NULL ? ": " : "",
		    pr->reason != NULL ? pr->reason : "");
		fprintf(stderr, "airlock acp: terminal command refused (%s): "
		    "%s\n", pol_verdict_name(pr->verdict), vis(line));
		rc = -1;
	}
	pol_result_free(pr);
	free(line);
	return rc;
}

/* A command line without args is run by the shell, as editors do;
 * with args, the program itself. */
static char **
term_argv(const char *cmd, const struct json *args)
{
	char	**av = NULL;
	size_t	  i;

	if (args == NULL || args->type != JSON_ARRAY || args->n == 0) {
		av = strv_add(av, "/bin/sh");
		av = strv_add(av, "-c");
		av = strv_add(av, cmd);
		return av;
	}
	av = strv_add(av, cmd);
	for (i = 0; i < args->n; i++)
		if (args->items[i]->type == JSON_STRING)
			av = strv_add(av, args->items[i]->str);
	return av;
}

/* The terminal's process: output to wfd, the editor's env, its dir. */
static void __attribute__((noreturn))
term_child(const char *dir, char **av, const struct json *env, int wfd)
{
	int		 nul = open("/dev/null", O_RDONLY);
	sigset_t	 all;
	size_t		 i;

	/* The relay's SIGCHLD is blocked for its signalfd. */
	sigfillset(&all);
	sigprocmask(SIG_UNBLOCK, &all, NULL);
	setpgid(0, 0);
	dup2(nul, STDIN_FILENO);
	dup2(wfd, STDOUT_FILENO);
	dup2(wfd, STDERR_FILENO);
	for (i = 0; env != NULL && env->type == JSON_ARRAY && i < env->n;
	    i++) {
		const char *k = json_get_str(env->items[i], "name");
		const char *v = json_get_str(env->items[i], "value");

		if (k != NULL && v != NULL && k[0] != '\0' &&
		    strchr(k, '=') == NULL)
			setenv(k, v, 1);
	}
	signal(SIGPIPE, SIG_DFL);
	if (chdir(dir) == -1) {
		dprintf(STDERR_FILENO, "airlock: %s: %s\n", dir,
		    strerror(errno));
		_exit(126);
	}
	execvp(av[0], av);
	dprintf(STDERR_FILENO, "airlock: %s: %s\n", av[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static void
term_create(struct relay *r, const char *idtext, const struct json *p)
{
	const char	*cmd = json_get_str(p, "command");
	const char	*cwd = json_get_str(p, "cwd");
	const struct json *args = json_get(p, "args"), *env, *lim;
	char		**av, dir[PATH_MAX];
	struct term	*t;
	struct jgen	*j;
	size_t		 slot;
	int		 pfd[2];
	pid_t		 pid;

	if (cmd == NULL || cmd[0] == '\0') {
		answer_error(r, idtext, -32602, NULL, NULL,
		    "command: required");
		return;
	}
	for (slot = 0; slot < ACP_TERM_MAX && r->terms[slot] != NULL; slot++)
		;
	if (slot == ACP_TERM_MAX) {
		answer_error(r, idtext, -32603, NULL, NULL, "too many "
		    "terminals (%d)", ACP_TERM_MAX);
		return;
	}
	av = term_argv(cmd, args);
	/* The command policy, as for a harness command: ask has no
	 * approver here, so only allow runs (R-C4). */
	if (term_guard(r, idtext, av) == -1) {
		strv_free(av);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", cwd != NULL && cwd[0] == '/' ? cwd :
	    r->ws);
	if (pipe2(pfd, O_CLOEXEC) == -1) {
		strv_free(av);
		answer_error(r, idtext, -32603, NULL, NULL, "pipe: %s",
		    strerror(errno));
		return;
	}
	env = json_get(p, "env");
	if ((pid = fork()) == 0)
		term_child(dir, av, env, pfd[1]);
	close(pfd[1]);
	strv_free(av);
	if (pid == -1) {
		close(pfd[0]);
		answer_error(r, idtext, -32603, NULL, NULL, "fork: %s",
		    strerror(errno));
		return;
	}
	t = xcalloc(1, sizeof(*t));
	t->pid = pid;
	t->fd = pfd[0];
	/* Read to its end at the exit, without waiting on a grandchild. */
	(void)fcntl(t->fd, F_SETFL, O_NONBLOCK);
	lim = json_get(p, "outputByteLimit");
	t->limit = lim != NULL && lim->is_int && lim->integer > 0 &&
	    lim->integer < (long long)ACP_TERM_DEFAULT_LIMIT * 16 ?
	    (size_t)lim->integer : ACP_TERM_DEFAULT_LIMIT;
	snprintf(t->id, sizeof(t->id), "term-%lu", ++r->next_term);
	r->terms[slot] = t;
	j = answer_open(idtext);
	jgen_obj_open(j);
	jgen_kstr(j, "terminalId", t->id);
	jgen_obj_close(j);
	jgen_obj_close(j);
	put_jgen(r->to_agent, j);
}

static void
serve_terminal(struct relay *r, const char *idtext, const char *method,
    const struct json *p)
{
	struct term	*t;
	struct jgen	*j;

	if (strcmp(method, "terminal/create") == 0) {
		term_create(r, idtext, p);
		return;
	}
	if ((t = term_find(r, p)) == NULL) {
		answer_error(r, idtext, -32602, NULL, NULL, "terminalId: no "
		    "such terminal");
		return;
	}
	if (strcmp(method, "terminal/output") == 0) {
		j = answer_open(idtext);
		jgen_obj_open(j);
		jgen_key(j, "output");
		jgen_strn(j, t->out != NULL ? t->out : "", t->olen);
		jgen_kbool(j, "truncated", t->truncated);
		if (t->exited) {
			jgen_key(j, "exitStatus");
			jgen_obj_open(j);
			put_exit(j, t);
			jgen_obj_close(j);
		}
		jgen_obj_close(j);
		jgen_obj_close(j);
		put_jgen(r->to_agent, j);
	} else if (strcmp(method, "terminal/wait_for_exit") == 0) {
		if (!t->exited && t->nwaiters < ACP_PENDING_MAX)
			t->waiters[t->nwaiters++] = xstrdup(idtext);
		else if (!t->exited)
			answer_error(r, idtext, -32603, NULL, NULL, "too many "
			    "waiters");
		else {
			j = answer_open(idtext);
			jgen_obj_open(j);
			put_exit(j, t);
			jgen_obj_close(j);
			jgen_obj_close(j);
			put_jgen(r->to_agent, j);
		}
	} else if (strcmp(method, "terminal/kill") == 0) {
		if (!t->exited)
			(void)kill(-t->pid, SIGKILL);
		answer_empty(r, idtext);
	} else if (strcmp(method, "terminal/release") == 0) {
		answer_empty(r, idtext);
		if (t->exited)
			term_free(r, t);
		else {
			(void)kill(-t->pid, SIGKILL);
			/* Reaped later, its waiters answered, then freed
			 * (term_exited()). */
			t->pid = -t->pid;
		}
	} else
		answer_error(r, idtext, -32601, NULL, NULL, "%s: no such "
		    "method", method);
}

/* ---- permissions ---- */

/*
 * airlock's own answer: the command policy for a command (execute), an
 * allow for what only reads, an ask (so a reject) for the rest.
 */
static void
answer_permission(struct relay *r, struct perm *pm)
{
	const struct json *tc = json_get(pm->params, "toolCall");
	const struct json *opts = json_get(pm->params, "options");
	const struct json *raw = json_get(tc, "rawInput");
	const char	*kind = json_get_str(tc, "kind");
	const char	*cmd = json_get_str(raw, "command");
	const char	*want, *want2, *pick = NULL;
	enum pol_verdict v = POL_ASK;
	struct jgen	*j;
	size_t		 i, k;

	if (cmd != NULL) {
		struct pol_result *pr = pol_check(cmd, strlen(cmd), r->mode,
		    r->rules);

		v = pr->verdict;
		/* untrusted: the agent's text, shown in an editor's log or
		 * on a terminal: escaped. */
		fprintf(stderr, "airlock acp: permission for `%s`: %s (%s)\n",
		    vis(cmd), pol_verdict_name(v), pr->rule != NULL ?
		    vis(pr->rule) : "no rule");
		pol_result_free(pr);
	} else if (kind != NULL && (strcmp(kind, "read") == 0 ||
	    strcmp(kind, "search") == 0 || strcmp(kind, "think") == 0))
		v = POL_ALLOW;
	want = v == POL_ALLOW ? "allow_once" : "reject_once";
	want2 = v == POL_ALLOW ? NULL : "reject_always";
	for (k = 0; k < 2 && pick == NULL; k++)
		for (i = 0; opts != NULL && opts->type == JSON_ARRAY &&
		    i < opts->n && pick == NULL; i++) {
			const char *ok = json_get_str(opts->items[i], "kind");
			const char *w = k == 0 ? want : want2;

			if (ok != NULL && w != NULL && strcmp(ok, w) == 0)
				pick = json_get_str(opts->items[i],
				    "optionId");
		}
	j = answer_open(pm->id);
	jgen_obj_open(j);
	jgen_key(j, "outcome");
	jgen_obj_open(j);
	if (pick != NULL) {
		jgen_kstr(j, "outcome", "selected");
		jgen_kstr(j, "optionId", pick);
	} else
		jgen_kstr(j, "outcome", "cancelled");
	jgen_obj_close(j);
	jgen_obj_close(j);
	jgen_obj_close(j);
	put_jgen(r->to_agent, j);
}

static void
perm_done(struct perm *pm)
{
	free(pm->id);
	json_free(pm->params);
	pm->id = NULL;
	pm->params = NULL;
	pm->late = 0;
}

static double
perm_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * An editor that never answers a permission request would hold the
 * agent for ever: after acp.permissionTimeout seconds airlock answers
 * from its own policy, as when the editor answers with an error.  The
 * slot stays (late) so that the editor's answer, if it comes after all,
 * is dropped rather than given to the agent as a second one.  Returns
 * the milliseconds until the next deadline, -1 for none.
 */
static int
perm_expire(struct relay *r)
{
	double	now = perm_now(), left, next = -1;
	size_t	i;

	if (r->perm_timeout <= 0)
		return -1;
	for (i = 0; i < ACP_PENDING_MAX; i++) {
		struct perm *pm = &r->perms[i];

		if (pm->id == NULL || pm->late)
			continue;
		left = pm->asked + (double)r->perm_timeout - now;
		if (left <= 0) {
			fprintf(stderr, "airlock acp: the editor did not "
			    "answer a permission request within %ld s "
			    "(acp.permissionTimeout); airlock's policy "
			    "answers\n", r->perm_timeout);
			answer_permission(r, pm);
			json_free(pm->params);
			pm->params = NULL;
			pm->late = 1;
			continue;
		}
		if (next == -1 || left < next)
			next = left;
	}
	return next < 0 ? -1 : (int)(next * 1000) + 1;
}

/* ---- the two directions ---- */

/* A message the relay took, written as it serialises it (acpframe.h). */
static void
put_msg(int fd, const struct json *m)
{
	char	*s;
	size_t	 len;

	s = acpf_serialise(m, &len);
	put_line(fd, s, len);
	free(s);
}

/*
 * A line the relay could not take is dropped, never passed on: the
 * peer's own parser may read it another way (the last of two "method"
 * keys, a float id as a request's), and the relay would have relayed a
 * request it never judged.  Said on stderr, with the line's start
 * escaped (untrusted: whoever wrote it), and to the agent as JSON-RPC
 * answers a message it cannot identify (id null); the editor gets an
 * _airlock/dropped notification (ACP's extension methods begin with
 * an underscore) naming the rule, never the line.
 */
static void
drop_line(struct relay *r, int agent_side, const char *line, size_t len,
    const char *why)
{
	struct jgen	*j;
	char		 shown[4 * 60 + 1];
	size_t		 i, o = 0;

	for (i = 0; i < len && i < 60; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			shown[o++] = (char)c;
		else
			o += (size_t)snprintf(shown + o, sizeof(shown) - o,
			    "\\x%02x", c);
	}
	shown[o] = '\0';
	fprintf(stderr, "airlock acp: dropped a line from the %s (%zu "
	    "bytes), not relayed: %s: %s%s\n", agent_side ? "agent" :
	    "editor", len, why, shown, len > 60 ? "..." : "");
	r->dropped++;
	if (!agent_side || r->to_agent == -1)
		return;
	j = jgen_new();
	jgen_obj_open(j);
	jgen_kstr(j, "jsonrpc", "2.0");
	jgen_key(j, "id");
	jgen_null(j);
	jgen_key(j, "error");
	jgen_obj_open(j);
	jgen_kint(j, "code", strncmp(why, "not JSON", 8) == 0 ? -32700 :
	    -32600);
	jgen_kstr(j, "message", why);
	jgen_obj_close(j);
	jgen_obj_close(j);
	put_jgen(r->to_agent, j);
	j = jgen_new();
	jgen_obj_open(j);
	jgen_kstr(j, "jsonrpc", "2.0");
	jgen_kstr(j, "method", "_airlock/dropped");
	jgen_key(j, "params");
	jgen_obj_open(j);
	jgen_kstr(j, "from", "agent");
	jgen_kstr(j, "reason", why);
	jgen_kint(j, "bytes", (long long)len);
	jgen_obj_close(j);
	jgen_obj_close(j);
	put_jgen(r->to_editor, j);
}

static void
from_agent(struct relay *r, char *line, size_t len)
{
	struct json	*m;
	const char	*method;
	char		*idtext, why[320];
	size_t		 i;
	enum acpf_kind	 k;

	/* untrusted: the agent's line */
	if ((k = acpf_take(line, len, &m, &method, why, sizeof(why))) ==
	    ACPF_INVALID) {
		drop_line(r, 1, line, len, why);
		return;
	}
	if (k == ACPF_REQUEST && ((!r->pass_fs &&
	    strncmp(method, "fs/", 3) == 0) || (!r->pass_term &&
	    strncmp(method, "terminal/", 9) == 0))) {
		idtext = json_text(json_get(m, "id"));
		if (method[0] == 'f' && (strcmp(method,
		    "fs/read_text_file") == 0 || strcmp(method,
		    "fs/write_text_file") == 0))
			serve_fs(r, idtext, method, json_get(m, "params"));
		else if (method[0] == 't')
			serve_terminal(r, idtext, method,
			    json_get(m, "params"));
		else
			answer_error(r, idtext, -32601, NULL, NULL,
			    "%s: no such method", method);
		free(idtext);
		json_free(m);
		return;
	}
	/*
	 * ACP has these only as requests; as a notification the editor
	 * has no business with them either (an editor that served one
	 * anyway would act outside the sandbox).
	 */
	if (k == ACPF_NOTIFICATION && ((!r->pass_fs &&
	    strncmp(method, "fs/", 3) == 0) || (!r->pass_term &&
	    strncmp(method, "terminal/", 9) == 0))) {
		snprintf(why, sizeof(why), "a notification of %.60s, which "
		    "airlock serves in the sandbox", method);
		json_free(m);
		drop_line(r, 1, line, len, why);
		return;
	}
	if (k == ACPF_REQUEST && strcmp(method,
	    "session/request_permission") == 0) {
		for (i = 0; i < ACP_PENDING_MAX && r->perms[i].id != NULL; i++)
			;
		if (i < ACP_PENDING_MAX) {
			r->perms[i].id = json_text(json_get(m, "id"));
			r->perms[i].asked = perm_now();
			r->perms[i].late = 0;
			idtext = json_text(json_get(m, "params"));
			r->perms[i].params = json_parse(idtext, strlen(idtext),
			    NULL, 0);
			free(idtext);
		}
	}
	put_msg(r->to_editor, m);
	json_free(m);
}

static struct perm *
perm_find(struct relay *r, const struct json *id)
{
	char	*t = json_text(id);
	size_t	 i;

	for (i = 0; i < ACP_PENDING_MAX; i++)
		if (r->perms[i].id != NULL && strcmp(r->perms[i].id, t) == 0)
			break;
	free(t);
	return i < ACP_PENDING_MAX ? &r->perms[i] : NULL;
}

/* The editor's initialize: airlock serves the files and terminals. */
static int
rewrite_initialize(struct relay *r, const struct json *m)
{
	const struct json *p = json_get(m, "params"), *cc;
	struct jgen	*j;
	size_t		 i, k;

	if (p == NULL || p->type != JSON_OBJECT || (r->pass_fs &&
	    r->pass_term))
		return 0;
	cc = json_get(p, "clientCapabilities");
	j = jgen_new();
	jgen_obj_open(j);
	for (i = 0; i < m->n; i++) {
		jgen_key(j, m->keys[i]);
		if (strcmp(m->keys[i], "params") != 0) {
			jgen_value(j, m->items[i]);
			continue;
		}
		jgen_obj_open(j);
		for (k = 0; k < p->n; k++)
			if (strcmp(p->keys[k], "clientCapabilities") != 0) {
				jgen_key(j, p->keys[k]);
				jgen_value(j, p->items[k]);
			}
		jgen_key(j, "clientCapabilities");
		jgen_obj_open(j);
		for (k = 0; cc != NULL && cc->type == JSON_OBJECT &&
		    k < cc->n; k++) {
			if ((!r->pass_fs && strcmp(cc->keys[k], "fs") == 0) ||
			    (!r->pass_term && strcmp(cc->keys[k],
			    "terminal") == 0))
				continue;
			jgen_key(j, cc->keys[k]);
			jgen_value(j, cc->items[k]);
		}
		if (!r->pass_fs) {
			jgen_key(j, "fs");
			jgen_obj_open(j);
			jgen_kbool(j, "readTextFile", 1);
			jgen_kbool(j, "writeTextFile", 1);
			jgen_obj_close(j);
		}
		if (!r->pass_term)
			jgen_kbool(j, "terminal", 1);
		jgen_obj_close(j);
		jgen_obj_close(j);
	}
	jgen_obj_close(j);
	put_jgen(r->to_agent, j);
	return 1;
}

static void
from_editor(struct relay *r, char *line, size_t len)
{
	struct json	*m;
	const char	*method;
	char		 why[320];
	struct perm	*pm;
	enum acpf_kind	 k;

	/* The same rule both ways: only what the relay took is relayed. */
	if ((k = acpf_take(line, len, &m, &method, why, sizeof(why))) ==
	    ACPF_INVALID) {
		drop_line(r, 0, line, len, why);
		return;
	}
	if (k == ACPF_RESPONSE &&
	    (pm = perm_find(r, json_get(m, "id"))) != NULL) {
		if (pm->late)
			fprintf(stderr, "airlock acp: the editor's late answer "
			    "to a permission request is dropped: airlock "
			    "answered it\n");
		else if (json_get(m, "error") != NULL) {
			fprintf(stderr, "airlock acp: the editor answered the "
			    "permission request with an error; airlock's "
			    "policy answers\n");
			answer_permission(r, pm);
		} else
			put_msg(r->to_agent, m);
		perm_done(pm);
	} else if (!(k == ACPF_REQUEST && strcmp(method, "initialize") == 0 &&
	    rewrite_initialize(r, m)))
		put_msg(r->to_agent, m);
	json_free(m);
}

static void
reap(struct relay *r, pid_t agent, int *agent_status, int *agent_done)
{
	pid_t	pid;
	int	st;
	size_t	i;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == agent) {
			*agent_status = st;
			*agent_done = 1;
			continue;
		}
		for (i = 0; i < ACP_TERM_MAX; i++) {
			struct term *t = r->terms[i];

			if (t == NULL || (t->pid != pid && t->pid != -pid))
				continue;
			if (t->pid == -pid)
				t->pid = 0;
			term_exited(r, t, st);
			break;
		}
	}
}

/*
 * argv: acp-relay WORKSPACE MODE PASS RULES PERMTIMEOUT -- AGENT [ARG...],
 * from
 * cli_acp_main() through the sandbox; not for people.
 */
/*
 * The relay's arguments (cli_acp_main() wrote them): the workspace, the
 * mode, what passes through, the policy's rules as the caller's settings
 * say, one digit a class (this side sees the sandbox's $HOME).
 */
static int
relay_args(struct relay *r, int argc, char **argv)
{
	size_t	i;

	if (argc < 8 || strcmp(argv[6], "--") != 0 || argv[1][0] != '/') {
		fprintf(stderr, "usage: airlock acp-relay WORKSPACE MODE PASS "
		    "RULES PERMTIMEOUT -- AGENT [ARG...]\n");
		return -1;
	}
	memset(r, 0, sizeof(*r));
	r->ws = argv[1];
	if (pol_mode_parse(argv[2], &r->mode) == -1)
		r->mode = POL_MODE_CHAT;
	(void)pass_parse(argv[3], &r->pass_fs, &r->pass_term);
	r->perm_timeout = strtol(argv[5], NULL, 10);
	for (i = 0; i < POL_CLASS_MAX; i++)
		r->rules[i] = strlen(argv[4]) == POL_CLASS_MAX &&
		    argv[4][i] >= '0' && argv[4][i] <= '2' ?
		    (enum pol_verdict)(argv[4][i] - '0') : POL_ASK;
	return 0;
}

/*
 * The agent, our child, on two pipes of ours; SIGCHLD to a signalfd
 * (*sfd).  The agent's pid, or -1 with a message.
 */
static pid_t
relay_spawn(char **av, int in[2], int out[2], int *sfd)
{
	sigset_t	sigs;
	pid_t		agent;

	/*
	 * The agent runs as our uid in our sandbox: while we are dumpable
	 * it may open /proc/OURPID/fd/1, our channel to the editor, and
	 * write requests around the relay.  Not dumpable, our /proc files
	 * are out of its reach (and ptrace too); what we fork and exec
	 * becomes dumpable again at its exec, as usual.
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1) {
		fprintf(stderr, "airlock acp: PR_SET_DUMPABLE: %s\n",
		    strerror(errno));
		return -1;
	}
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGCHLD);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	if ((*sfd = signalfd(-1, &sigs, SFD_CLOEXEC)) == -1 ||
	    pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1) {
		fprintf(stderr, "airlock acp: %s\n", strerror(errno));
		return -1;
	}
	(void)fcntl(in[1], F_SETPIPE_SZ, 1 << 20);
	(void)fcntl(out[0], F_SETPIPE_SZ, 1 << 20);
	if ((agent = fork()) == 0) {
		sigprocmask(SIG_UNBLOCK, &sigs, NULL);
		signal(SIGPIPE, SIG_DFL);
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		execvp(av[0], av);
		fprintf(stderr, "airlock acp: %s: %s\n", av[0],
		    strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (agent == -1) {
		fprintf(stderr, "airlock acp: fork: %s\n", strerror(errno));
		return -1;
	}
	close(in[0]);
	close(out[1]);
	return agent;
}

/* The end: what was dropped said, terminals killed, the agent's status. */
static int
relay_finish(struct relay *r, struct acpf *fa, struct acpf *fe, int status)
{
	size_t	i;

	if (fa->dropped + fe->dropped > 0)
		fprintf(stderr, "airlock acp: %lu over-long line(s) dropped\n",
		    fa->dropped + fe->dropped);
	if (r->dropped > 0)
		fprintf(stderr, "airlock acp: %lu line(s) not relayed: not "
		    "JSON-RPC messages airlock could take\n", r->dropped);
	for (i = 0; i < ACP_TERM_MAX; i++)
		if (r->terms[i] != NULL) {
			if (!r->terms[i]->exited && r->terms[i]->pid != 0)
				(void)kill(-(r->terms[i]->pid < 0 ?
				    -r->terms[i]->pid : r->terms[i]->pid),
				    SIGKILL);
			term_free(r, r->terms[i]);
		}
	acpf_free(fa);
	acpf_free(fe);
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	    128 + WTERMSIG(status);
}

int
cli_acp_relay_main(int argc, char **argv)
{
	struct relay	 r;
	struct acpf	 fa, fe;
	struct pollfd	 pfd[2 + ACP_TERM_MAX];
	struct term	*pt[2 + ACP_TERM_MAX];
	char		 buf[65536], *line;
	int		 in[2], out[2], sfd, status = 0, done = 0, n, rc;
	int		 eof_ed = 0, eof_ag = 0;
	size_t		 len, i;
	pid_t		 agent;
	ssize_t		 k;

	if (relay_args(&r, argc, argv) == -1)
		return 2;
	if ((agent = relay_spawn(argv + 7, in, out, &sfd)) == -1)
		return 125;
	r.to_agent = in[1];
	r.to_editor = STDOUT_FILENO;
	acpf_init(&fa);
	acpf_init(&fe);
	while (!eof_ag || !done) {
		n = 0;
		pfd[n].fd = sfd;
		pfd[n++].events = POLLIN;
		pfd[n].fd = eof_ag ? -1 : out[0];
		pfd[n++].events = POLLIN;
		pfd[n].fd = eof_ed ? -1 : STDIN_FILENO;
		pfd[n++].events = POLLIN;
		for (i = 0; i < ACP_TERM_MAX; i++)
			if (r.terms[i] != NULL && r.terms[i]->fd != -1) {
				pt[n] = r.terms[i];
				pfd[n].fd = r.terms[i]->fd;
				pfd[n++].events = POLLIN;
			}
		if (poll(pfd, (nfds_t)n, perm_expire(&r)) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		(void)perm_expire(&r);
		/* Output before exits, so that an exit sees all of it. */
		for (rc = 3; rc < n; rc++) {
			if (!(pfd[rc].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if ((k = read(pfd[rc].fd, buf, sizeof(buf))) > 0)
				term_append(pt[rc], buf, (size_t)k);
			else if (k == 0 || (errno != EINTR &&
			    errno != EAGAIN)) {
				close(pt[rc]->fd);
				pt[rc]->fd = -1;
			}
		}
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			if ((k = read(out[0], buf, sizeof(buf))) > 0) {
				acpf_feed(&fa, buf, (size_t)k);
				while ((line = acpf_next(&fa, &len)) != NULL)
					from_agent(&r, line, len);
			} else if (k == 0 || errno != EINTR)
				eof_ag = 1;
		}
		if (pfd[2].revents & (POLLIN | POLLHUP | POLLERR)) {
			if ((k = read(STDIN_FILENO, buf, sizeof(buf))) > 0) {
				acpf_feed(&fe, buf, (size_t)k);
				while ((line = acpf_next(&fe, &len)) != NULL)
					from_editor(&r, line, len);
			} else if (k == 0 || errno != EINTR) {
				/* The editor has gone: nobody answers. */
				eof_ed = 1;
				for (i = 0; i < ACP_PENDING_MAX; i++)
					if (r.perms[i].id != NULL) {
						if (!r.perms[i].late)
							answer_permission(&r,
							    &r.perms[i]);
						perm_done(&r.perms[i]);
					}
				close(r.to_agent);
				r.to_agent = -1;
			}
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == -1 &&
			    errno == EINTR)
				;
			/* A terminal's exit waits for the end of its
			 * output (it may still be in the pipe). */
			for (i = 0; i < ACP_TERM_MAX; i++)
				if (r.terms[i] != NULL && r.terms[i]->fd != -1)
					while ((k = read(r.terms[i]->fd, buf,
					    sizeof(buf))) > 0)
						term_append(r.terms[i], buf,
						    (size_t)k);
			reap(&r, agent, &status, &done);
		}
	}
	return relay_finish(&r, &fa, &fe, status);
}
