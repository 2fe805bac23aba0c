// SPDX-License-Identifier: ISC
/*
 * JSON for `airlock policy check` and the Claude Code PreToolUse hook
 * (see hook.h).  The hook runs once per tool call, has no approver and no
 * connection to airlockd: it answers from the settings and pol_check()
 * alone.  "ask" is a valid answer to Claude Code (it then asks the user),
 * so the hook passes it through rather than turning it into deny.
 *
 * Untrusted: the hook's stdin comes from the agent's runtime and carries
 * the command the agent wants to run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/xmalloc.h"
#include "policy/classify.h"
#include "policy/guard.h"
#include "supervisor/hook.h"

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

char *
hook_claude_pretooluse(const char *in, size_t len, int mode_forced,
    enum pol_mode mode, const struct settings *s, int *vout)
{
	static const char *const writers[] = { "Write", "Edit", "MultiEdit",
	    "NotebookEdit", NULL };
	static const char *const fetchers[] = { "WebFetch", "WebSearch",
	    NULL };
	struct json		*j;
	const struct json	*ti;
	const char		*tool, *cmd, *pm;
	struct pol_result	*r;
	char			 err[256], rule[160], *out;
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
	if (strcmp(tool, "Bash") == 0) {
		ti = json_get(j, "tool_input");
		if ((cmd = json_get_str(ti, "command")) == NULL) {
			json_free(j);
			return decision("deny", "airlock: Bash call without a "
			    "command");
		}
		r = pol_check(cmd, json_get(ti, "command")->len, mode,
		    s != NULL ? s->rules : NULL);
		*vout = r->verdict;
		out = decision(pol_verdict_name(r->verdict), "airlock: %s "
		    "[%s]", r->reason, r->rule);
		pol_result_free(r);
		json_free(j);
		return out;
	}
	if (is_tool(tool, writers) && pol_mode_readonly(mode)) {
		out = decision("deny", "airlock: %s mode is read-only: %s "
		    "changes files [mode:%s]", pol_mode_name(mode), tool,
		    pol_mode_name(mode));
		json_free(j);
		return out;
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
