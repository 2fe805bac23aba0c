// SPDX-License-Identifier: ISC
/*
 * JSON for `airlock policy check` and the Claude Code PreToolUse hook
 * (see hook.h).  The hook runs once per tool call, has no approver and no
 * connection to airlockd: it answers from the settings, pol_check() and
 * the plan's own rule tables alone.  It never loosens Claude Code: its
 * answers are "deny" or "ask" with a reason, or no opinion ("{}"), never
 * "allow", which would make Claude Code skip its own permission rules.
 * Write-like and Read-like tools run outside any sandbox when Claude Code
 * itself is not confined, so their paths are judged here against the
 * same filename rules, protected and secret sets the sandbox enforces.
 *
 * Untrusted: the hook's stdin comes from the agent's runtime and carries
 * the command the agent wants to run.
 */
#include <fnmatch.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/host/hook.h"
#include "common/host/paths.h"
#include "common/host/protect.h"
#include "common/json.h"
#include "common/namerule.h"
#include "common/xmalloc.h"
#include "policy/classify.h"
#include "policy/guard.h"

static char *
take(struct jgen *g)
{
	const char	*b;
	size_t		 n;
	char		*s;

	b = jgen_buf(g, &n);
	s = xmalloc(n + 1);
	memcpy(s, b, n);
	s[n] = '\0';
	jgen_free(g);
	return s;
}

char *
policy_result_json(const struct pol_result *r, enum pol_mode mode)
{
	struct jgen	*g = jgen_new();
	size_t		 i;
	char		**a;
	int		 c;

	jgen_obj_open(g);
	jgen_kstr(g, "verdict", pol_verdict_name(r->verdict));
	jgen_kstr(g, "mode", pol_mode_name(mode));
	jgen_key(g, "classes");
	jgen_arr_open(g);
	for (c = 0; c < POL_CLASS_MAX; c++)
		if (r->classes & POL_CLASS_BIT(c))
			jgen_str(g, pol_class_name((enum pol_class)c));
	jgen_arr_close(g);
	jgen_key(g, "commands");
	jgen_arr_open(g);
	for (i = 0; i < r->ncmds; i++) {
		jgen_obj_open(g);
		jgen_key(g, "argv");
		jgen_arr_open(g);
		for (a = r->cmds[i].argv; a != NULL && *a != NULL; a++)
			jgen_str(g, *a);
		jgen_arr_close(g);
		jgen_kstr(g, "verdict", pol_verdict_name(r->cmds[i].verdict));
		jgen_kstr(g, "reason", r->cmds[i].reason);
		jgen_kstr(g, "rule", r->cmds[i].rule);
		jgen_obj_close(g);
	}
	jgen_arr_close(g);
	jgen_kstr(g, "rule", r->rule);
	jgen_kstr(g, "reason", r->reason);
	jgen_obj_close(g);
	return take(g);
}

static char *
decision(const char *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static char *
decision(const char *d, const char *fmt, ...)
{
	struct jgen	*g = jgen_new();
	va_list		 ap;
	char		 reason[512];

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	jgen_obj_open(g);
	jgen_key(g, "hookSpecificOutput");
	jgen_obj_open(g);
	jgen_kstr(g, "hookEventName", "PreToolUse");
	jgen_kstr(g, "permissionDecision", d);
	jgen_kstr(g, "permissionDecisionReason", reason);
	jgen_obj_close(g);
	jgen_obj_close(g);
	return take(g);
}

static int
is_tool(const char *t, const char *const *l)
{
	for (; *l != NULL; l++)
		if (strcmp(t, *l) == 0)
			return 1;
	return 0;
}

static const char *
home_dir(void)
{
	const char	*h = getenv("HOME");
	struct passwd	*pw;

	if (h != NULL && h[0] == '/')
		return h;
	pw = getpwuid(getuid());
	return pw != NULL && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
}

/*
 * untrusted: p, a path from the payload.  Absolute and clean: "~" and
 * $HOME expanded, a relative path taken beneath cwd.  NULL when it
 * cannot be made absolute.
 */
static char *
abs_clean(const char *p, const char *cwd)
{
	const char	*home = home_dir();
	char		*a;

	if (p == NULL || p[0] == '\0')
		return NULL;
	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0') && home != NULL)
		xasprintf(&a, "%s/%s", home, p + 1);
	else if (strncmp(p, "$HOME", 5) == 0 && (p[5] == '/' ||
	    p[5] == '\0') && home != NULL)
		xasprintf(&a, "%s/%s", home, p + 5);
	else if (strncmp(p, "${HOME}", 7) == 0 && (p[7] == '/' ||
	    p[7] == '\0') && home != NULL)
		xasprintf(&a, "%s/%s", home, p + 7);
	else if (p[0] == '/')
		a = xstrdup(p);
	else if (cwd != NULL && cwd[0] == '/')
		xasprintf(&a, "%s/%s", cwd, p);
	else
		return NULL;
	airlock_path_clean(a);
	return a;
}

/*
 * The same path with its longest existing prefix resolved (symlinks on
 * the host: a link in the workspace may point at ~/.bashrc).
 */
static char *
resolved(const char *a)
{
	char	 buf[PATH_MAX], *tmp, *slash, *r;

	tmp = xstrdup(a);
	for (;;) {
		if (realpath(tmp, buf) != NULL) {
			if (a[strlen(tmp)] == '\0')
				r = xstrdup(buf);
			else
				xasprintf(&r, "%s%s", strcmp(buf, "/") == 0 ?
				    "" : buf, a + strlen(tmp));
			free(tmp);
			return r;
		}
		if ((slash = strrchr(tmp, '/')) == NULL || slash == tmp)
			break;
		*slash = '\0';
	}
	free(tmp);
	return xstrdup(a);
}

/* Is p the directory d or beneath it? */
static int
beneath(const char *p, const char *d)
{
	size_t	n = strlen(d);

	while (n > 1 && d[n - 1] == '/')
		n--;
	if (n == 1 && d[0] == '/')
		return 1;
	return strncmp(p, d, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/*
 * Which entry of the secret set (built-in, then settings' denyRead) p is
 * in, copied to what; ancestor: also when p is a directory above one
 * (a recursive search from there reads it).  0: none.
 */
static int
secret_of(const char *p, const struct settings *s, int ancestor,
    char *what, size_t whatlen)
{
	const char	*home = home_dir(), *e;
	char		*full;
	size_t		 i;
	int		 in_home, hit;

	for (i = 0; (e = protect_secret_at(i, &in_home)) != NULL; i++) {
		if (in_home && home == NULL)
			continue;
		if (in_home)
			xasprintf(&full, "%s/%s", home, e);
		else
			full = xstrdup(e);
		hit = beneath(p, full) || (ancestor && beneath(full, p));
		if (hit)
			snprintf(what, whatlen, "%s%s", in_home ? "~/" : "", e);
		free(full);
		if (hit)
			return 1;
	}
	for (i = 0; s != NULL && s->deny_read && s->deny_read[i]; i++) {
		if ((full = abs_clean(s->deny_read[i], NULL)) == NULL)
			continue;
		hit = beneath(p, full) || fnmatch(full, p, FNM_PATHNAME) == 0 ||
		    (ancestor && beneath(full, p));
		if (hit)
			snprintf(what, whatlen, "denyRead %s", s->deny_read[i]);
		free(full);
		if (hit)
			return 1;
	}
	return 0;
}

/* Both spellings of a payload path: as written (cleaned) and resolved. */
static int
secret_any(const char *p, const char *cwd, const struct settings *s,
    int ancestor, char *what, size_t whatlen)
{
	char	*a, *r;
	int	 hit;

	if ((a = abs_clean(p, cwd)) == NULL)
		return 0;
	r = resolved(a);
	hit = secret_of(a, s, ancestor, what, whatlen) ||
	    secret_of(r, s, ancestor, what, whatlen);
	free(a);
	free(r);
	return hit;
}

/*
 * A file writer's path against the filename rules (R-L3, R-L4), the
 * protected and secret sets and the workspace.  Returns the decision
 * ("deny", "ask") with why, or NULL: no objection.
 */
static const char *
judge_write(const char *path, const char *cwd, const struct settings *s,
    char *why, size_t whylen)
{
	struct namerule_set	*ns;
	enum namerule_verdict	 nv;
	const char		*pat, *exc, *verdict = NULL;
	char			*a, *r, *sp[2], what[256];
	uint32_t		 kind;
	size_t			 i, k;

	if ((a = abs_clean(path, cwd)) == NULL) {
		snprintf(why, whylen, "a path that is not absolute (%.200s)",
		    path != NULL ? path : "none");
		return "ask";
	}
	r = resolved(a);
	sp[0] = a;
	sp[1] = r;
	for (k = 0; k < 2 && verdict == NULL; k++) {
		if (secret_of(sp[k], s, 0, what, sizeof(what))) {
			snprintf(why, whylen, "%.300s is in the secret set "
			    "(%s) [write-protected]", sp[k], what);
			verdict = "deny";
			break;
		}
		for (i = 0; verdict == NULL &&
		    protect_rule_at(i, &kind, &pat, &exc); i++) {
			ns = namerule_new();
			if (namerule_add(ns, NR_SCOPE, "/", NULL) == 0 &&
			    namerule_add(ns, kind, pat, exc) == 0 &&
			    (nv = namerule_check(ns, sp[k], 0)) != NR_ALLOW) {
				snprintf(why, whylen, "%.300s matches the "
				    "filename rule %s%s [write-protected]",
				    sp[k], pat, nv == NR_CHECK_CONFIG ?
				    " (its content is checked in the "
				    "sandbox)" : "");
				verdict = nv == NR_CHECK_CONFIG ? "ask" :
				    "deny";
			}
			namerule_free(ns);
		}
		for (i = 0; verdict == NULL && s != NULL && s->deny_write &&
		    s->deny_write[i]; i++) {
			char *d = abs_clean(s->deny_write[i], cwd);

			if (d != NULL && (beneath(sp[k], d) ||
			    fnmatch(d, sp[k], FNM_PATHNAME) == 0)) {
				snprintf(why, whylen, "%.300s is denied by "
				    "denyWrite %s [write-protected]", sp[k],
				    s->deny_write[i]);
				verdict = "deny";
			}
			free(d);
		}
	}
	if (verdict == NULL) {
		int inside = cwd != NULL && cwd[0] == '/' &&
		    beneath(a, cwd) && beneath(r, cwd);

		for (i = 0; !inside && s != NULL && s->allow_write &&
		    s->allow_write[i]; i++) {
			char *d = abs_clean(s->allow_write[i], cwd);

			inside = d != NULL && beneath(a, d) && beneath(r, d);
			free(d);
		}
		if (!inside) {
			snprintf(why, whylen, "%.300s is outside the workspace "
			    "%.200s [workspace]", r, cwd != NULL ? cwd :
			    "(unknown)");
			verdict = "ask";
		}
	}
	free(a);
	free(r);
	return verdict;
}

/*
 * untrusted: cmd.  Does a word of the command line name something in the
 * secret set?  Words are split on blanks, quotes and shell operators, so
 * redirections ("< ~/.ssh/id_rsa") count too.
 */
static int
bash_reads_secret(const char *cmd, size_t len, const char *cwd,
    const struct settings *s, char *what, size_t whatlen)
{
	static const char sep[] = " \t\n\r;&|<>()'\"`=,";
	char	*copy, *w, *save = NULL;
	int	 hit = 0;

	copy = xmalloc(len + 1);
	memcpy(copy, cmd, len);
	copy[len] = '\0';
	for (w = strtok_r(copy, sep, &save); w != NULL && !hit;
	    w = strtok_r(NULL, sep, &save))
		hit = secret_any(w, cwd, s, 0, what, whatlen);
	free(copy);
	return hit;
}

char *
hook_claude_pretooluse(const char *in, size_t len, int mode_forced,
    enum pol_mode mode, const struct settings *s, int *vout)
{
	static const char *const writers[] = { "Write", "Edit", "MultiEdit",
	    "NotebookEdit", NULL };
	static const char *const readers[] = { "Read", "Grep", "Glob",
	    "NotebookRead", "LS", NULL };
	static const char *const fetchers[] = { "WebFetch", "WebSearch",
	    NULL };
	struct json		*j;
	const struct json	*ti, *dd;
	const char		*tool, *cmd, *pm, *cwd, *path, *d;
	struct pol_result	*r;
	char			 err[256], rule[160], why[800], what[256];
	char			*out, wd[PATH_MAX];
	enum pol_verdict	 v;

	*vout = POL_DENY;
	/* untrusted: the PreToolUse payload. */
	if ((j = json_parse(in, len, err, sizeof(err))) == NULL)
		return decision("deny", "airlock: cannot parse the hook input "
		    "(%s)", err);
	if (j->type != JSON_OBJECT ||
	    (tool = json_get_str(j, "tool_name")) == NULL) {
		json_free(j);
		return decision("deny", "airlock: hook input without "
		    "tool_name");
	}
	if (!mode_forced) {
		pm = json_get_str(j, "permission_mode");
		mode = pm != NULL && strcmp(pm, "plan") == 0 ? POL_MODE_PLAN :
		    POL_MODE_CHAT;
	}
	/* The workspace: the session's directory, as Claude Code says. */
	if ((cwd = json_get_str(j, "cwd")) == NULL || cwd[0] != '/')
		cwd = getcwd(wd, sizeof(wd));
	ti = json_get(j, "tool_input");
	if (strcmp(tool, "Bash") == 0) {
		if ((cmd = json_get_str(ti, "command")) == NULL) {
			json_free(j);
			return decision("deny", "airlock: Bash call without a "
			    "command");
		}
		len = json_get(ti, "command")->len;
		r = pol_check(cmd, len, mode, s != NULL ? s->rules : NULL);
		dd = json_get(ti, "dangerouslyDisableSandbox");
		out = NULL;
		if (r->verdict == POL_DENY) {
			*vout = POL_DENY;
			out = decision("deny", "airlock: %s [%s]", r->reason,
			    r->rule);
		} else if (bash_reads_secret(cmd, len, cwd, s, what,
		    sizeof(what))) {
			*vout = POL_DENY;
			out = decision("deny", "airlock: the command names %s, "
			    "in the secret set [secret-read]", what);
		} else if (dd != NULL && dd->type == JSON_BOOL &&
		    dd->boolean) {
			if (s != NULL && settings_forbid_unconfined(s, why,
			    sizeof(why)) != NULL) {
				*vout = POL_DENY;
				out = decision("deny", "airlock: "
				    "sandboxOverride: running outside the "
				    "sandbox is forbidden: %s [sandboxOverride]",
				    why);
			} else {
				*vout = POL_ASK;
				out = decision("ask", "airlock: "
				    "sandboxOverride: the command asks to run "
				    "outside the sandbox [sandboxOverride]");
			}
		} else if (r->verdict == POL_ASK) {
			*vout = POL_ASK;
			out = decision("ask", "airlock: %s [%s]", r->reason,
			    r->rule);
		}
		pol_result_free(r);
		json_free(j);
		if (out != NULL)
			return out;
		/* Allowed by the policy: no opinion, never "allow", so
		 * Claude Code's own permission rules still apply. */
		*vout = -1;
		return xstrdup("{}");
	}
	if (is_tool(tool, writers)) {
		if (pol_mode_readonly(mode)) {
			out = decision("deny", "airlock: %s mode is read-only: "
			    "%s changes files [mode:%s]", pol_mode_name(mode),
			    tool, pol_mode_name(mode));
			json_free(j);
			return out;
		}
		path = json_get_str(ti, strcmp(tool, "NotebookEdit") == 0 &&
		    json_get_str(ti, "notebook_path") != NULL ?
		    "notebook_path" : "file_path");
		if ((d = judge_write(path, cwd, s, why, sizeof(why))) != NULL) {
			*vout = strcmp(d, "deny") == 0 ? POL_DENY : POL_ASK;
			out = decision(d, "airlock: %s: %s", tool, why);
			json_free(j);
			return out;
		}
	}
	if (is_tool(tool, readers)) {
		int	search = strcmp(tool, "Read") != 0 &&
		    strcmp(tool, "NotebookRead") != 0;

		path = json_get_str(ti, "file_path");
		if (path == NULL)
			path = json_get_str(ti, "notebook_path");
		if (path == NULL)
			path = json_get_str(ti, "path");
		if (path == NULL && search)
			path = cwd;
		if (path != NULL && secret_any(path, cwd, s, 0, what,
		    sizeof(what))) {
			out = decision("deny", "airlock: %s of %.300s: it is "
			    "in the secret set (%s) [secret-read]", tool, path,
			    what);
			json_free(j);
			return out;
		}
		if (path != NULL && search && secret_any(path, cwd, s, 1, what,
		    sizeof(what))) {
			*vout = POL_ASK;
			out = decision("ask", "airlock: %s beneath %.300s "
			    "would search the secret set (%s) [secret-read]",
			    tool, path, what);
			json_free(j);
			return out;
		}
	}
	if (is_tool(tool, fetchers)) {
		v = pol_guard_classes(s != NULL ? s->rules : NULL,
		    POL_CLASS_BIT(POL_CLASS_NETWORK_ACCESS), rule,
		    sizeof(rule));
		if (v != POL_ALLOW) {
			*vout = v;
			out = decision(pol_verdict_name(v), "airlock: %s is "
			    "network access [%s]", tool, rule);
			json_free(j);
			return out;
		}
	}
	/* Anything else: no opinion; Claude Code's own rules apply. */
	json_free(j);
	*vout = -1;
	return xstrdup("{}");
}

/*
 * Inside `airlock claude` the CLI runs in its bypass-permissions mode:
 * the sandbox is the boundary and Claude Code asks nobody.  An "ask"
 * would then be a prompt that never comes (-p) or a click past the
 * policy, so confined, ask goes to airlock's approver; with none
 * reachable from inside the sandbox (R-C4) ask is deny, said so.
 */
char *
hook_claude_confined(const char *in, size_t len, int mode_forced,
    enum pol_mode mode, const struct settings *s, int *vout)
{
	struct json	*j;
	const char	*why;
	char		*out, *r, err[64];

	out = hook_claude_pretooluse(in, len, mode_forced, mode, s, vout);
	if (*vout != POL_ASK)
		return out;
	j = json_parse(out, strlen(out), err, sizeof(err));
	why = json_get_str(json_get(j, "hookSpecificOutput"),
	    "permissionDecisionReason");
	*vout = POL_DENY;
	r = decision("deny", "%s (confined, no approver: deny)",
	    why != NULL ? why : "airlock: ask");
	json_free(j);
	free(out);
	return r;
}
