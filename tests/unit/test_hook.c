// SPDX-License-Identifier: ISC
/*
 * Unit tests for common/host/hook.c: the Claude Code PreToolUse decision
 * for the recorded payloads in tests/data/hook/, modes, non-Bash tools,
 * malformed input, and the `airlock policy check` JSON.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/host/hook.h"
#include "common/json.h"
#include "tests/unit/unit.h"

static struct settings S;

static char *
slurp(const char *name, size_t *lenp)
{
	char	 path[512], *buf;
	FILE	*f;
	long	 n;

	/* The tests run from the repository root, as make check does. */
	snprintf(path, sizeof(path), "tests/data/hook/%s", name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s (run from the repo root)",
	    path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*lenp = (size_t)n;
	return buf;
}

/* Run the hook and return permissionDecision ("" when there is none). */
static char *
decide(const char *in, size_t len, int forced, enum pol_mode mode,
    char **reason)
{
	struct json	*j, *h;
	char		*out, *d;
	int		 v;

	out = hook_claude_pretooluse(in, len, forced, mode, &S, &v);
	j = json_parse(out, strlen(out), NULL, 0);
	ck_assert_msg(j != NULL, "hook output is not JSON: %s", out);
	h = json_get(j, "hookSpecificOutput");
	if (h == NULL) {
		ck_assert_int_eq(v, -1);
		d = strdup("");
		if (reason != NULL)
			*reason = strdup("");
	} else {
		ck_assert_str_eq(json_get_str(h, "hookEventName"),
		    "PreToolUse");
		d = strdup(json_get_str(h, "permissionDecision"));
		ck_assert_str_eq(d, pol_verdict_name((enum pol_verdict)v));
		if (reason != NULL)
			*reason = strdup(json_get_str(h,
			    "permissionDecisionReason"));
	}
	json_free(j);
	free(out);
	return d;
}

static const char *run_(const char *);

static void
expect_file(const char *name, const char *want, const char *needle)
{
	size_t	 len;
	char	*in = slurp(name, &len), *d, *reason;

	d = decide(in, len, 0, POL_MODE_CHAT, &reason);
	ck_assert_msg(strcmp(d, want) == 0, "%s: %s, want %s (%s)", name, d,
	    want, reason);
	ck_assert_msg(strstr(reason, needle) != NULL, "%s: reason %s", name,
	    reason);
	free(d);
	free(reason);
	free(in);
}

START_TEST(recorded_payloads)
{
	/* What the policy allows gets no opinion, never "allow". */
	expect_file("allow.json", "", "");
	expect_file("ask.json", "ask", "ask:git-push");
	expect_file("deny.json", "deny", "hard-deny:privilege-escalation");
	expect_file("bash-secret.json", "deny", "~/.ssh");
	expect_file("bash-rm.json", "", "");
	expect_file("bash-nosandbox.json", "ask", "sandboxOverride");
	expect_file("write-env.json", "deny", "filename rule .env");
	expect_file("write-hook.json", "deny", "filename rule .git/hooks/*");
	expect_file("write-bashrc.json", "deny", "filename rule .bashrc");
	expect_file("read-ssh.json", "deny", "secret set (~/.ssh)");
	expect_file("write-ok.json", "", "");
}
END_TEST

START_TEST(sandbox_override_forbidden)
{
	/* Settings or managed policy that forbid unsandboxed commands turn
	 * the override's ask into a deny naming the file. */
	ck_assert_int_eq(settings_merge_text(&S, "{\"sandbox\":{"
	    "\"allowUnsandboxedCommands\":false}}", 46, "/etc/m.json", 1, NULL,
	    0), 0);
	expect_file("bash-nosandbox.json", "deny", "/etc/m.json");
	/* A policy deny still wins over the override's ask. */
	ck_assert_str_eq(run_("{\"tool_name\":\"Bash\",\"tool_input\":{"
	    "\"command\":\"sudo id\",\"dangerouslyDisableSandbox\":true}}"),
	    "deny");
}
END_TEST

START_TEST(paths)
{
	/* Writes: outside the workspace is a question; a key anywhere, a
	 * hook at depth, a denyWrite entry are refused. */
	ck_assert_str_eq(run_("{\"tool_name\":\"Write\",\"cwd\":"
	    "\"/home/dev/src/app\",\"tool_input\":{\"file_path\":"
	    "\"/home/dev/other/x.py\"}}"), "ask");
	ck_assert_str_eq(run_("{\"tool_name\":\"Write\",\"cwd\":"
	    "\"/home/dev/src/app\",\"tool_input\":{\"file_path\":"
	    "\"sub/../deep/server.pem\"}}"), "deny");
	ck_assert_str_eq(run_("{\"tool_name\":\"MultiEdit\",\"cwd\":"
	    "\"/home/dev/src/app\",\"tool_input\":{\"file_path\":"
	    "\"/home/dev/src/app/a/b/.git/hooks/post-merge\"}}"), "deny");
	ck_assert_str_eq(run_("{\"tool_name\":\"NotebookEdit\",\"cwd\":"
	    "\"/home/dev/src/app\",\"tool_input\":{\"notebook_path\":"
	    "\"/home/dev/src/app/.envrc\"}}"), "deny");
	ck_assert_str_eq(run_("{\"tool_name\":\"Write\",\"cwd\":"
	    "\"/home/dev/src/app\",\"tool_input\":{\"file_path\":"
	    "\"/home/dev/src/app/.git/hooks/pre-commit.sample\"}}"), "");
	ck_assert_int_eq(settings_merge_text(&S, "{\"sandbox\":{"
	    "\"filesystem\":{\"denyWrite\":[\"/home/dev/src/app/vendor\"]}}}",
	    69, "u.json", 0, NULL, 0), 0);
	ck_assert_str_eq(run_("{\"tool_name\":\"Edit\",\"cwd\":"
	    "\"/home/dev/src/app\",\"tool_input\":{\"file_path\":"
	    "\"/home/dev/src/app/vendor/lib.c\"}}"), "deny");
	/* Reads: the secret set, by any spelling; a search above it asks. */
	ck_assert_str_eq(run_("{\"tool_name\":\"Read\",\"cwd\":"
	    "\"/home/dev/src/app\",\"tool_input\":{\"file_path\":"
	    "\"../../.aws/credentials\"}}"), "deny");
	ck_assert_str_eq(run_("{\"tool_name\":\"Grep\",\"cwd\":"
	    "\"/home/dev/src/app\",\"tool_input\":{\"pattern\":\"x\","
	    "\"path\":\"/home/dev/.gnupg\"}}"), "deny");
	ck_assert_str_eq(run_("{\"tool_name\":\"Glob\",\"cwd\":"
	    "\"/home/dev/src/app\",\"tool_input\":{\"pattern\":\"**\","
	    "\"path\":\"/home/dev\"}}"), "ask");
	ck_assert_str_eq(run_("{\"tool_name\":\"Read\",\"cwd\":"
	    "\"/home/dev/src/app\",\"tool_input\":{\"file_path\":"
	    "\"/etc/shadow\"}}"), "deny");
	ck_assert_str_eq(run_("{\"tool_name\":\"Read\",\"cwd\":"
	    "\"/home/dev/src/app\",\"tool_input\":{\"file_path\":"
	    "\"/home/dev/src/app/README\"}}"), "");
	/* Bash: a secret in a redirection or through $HOME. */
	ck_assert_str_eq(run_("{\"tool_name\":\"Bash\",\"cwd\":"
	    "\"/home/dev/src/app\",\"tool_input\":{\"command\":"
	    "\"wc -c < $HOME/.netrc\"}}"), "deny");
}
END_TEST

static const char *
run(const char *in, int forced, enum pol_mode mode)
{
	static char	 buf[32];
	char		*d = decide(in, strlen(in), forced, mode, NULL);

	snprintf(buf, sizeof(buf), "%s", d);
	free(d);
	return buf;
}

static const char *
run_(const char *in)
{
	return run(in, 0, POL_MODE_CHAT);
}

START_TEST(modes_and_tools)
{
	const char *w = "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":"
	    "\"echo hi > f\"},\"permission_mode\":\"default\"}";
	const char *wp = "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":"
	    "\"echo hi > f\"},\"permission_mode\":\"plan\"}";

	ck_assert_str_eq(run(w, 0, POL_MODE_CHAT), "");
	ck_assert_str_eq(run(wp, 0, POL_MODE_CHAT), "deny");
	ck_assert_str_eq(run(w, 1, POL_MODE_REVIEW), "deny");
	/* Non-Bash tools: file writers are denied in read-only modes... */
	ck_assert_str_eq(run("{\"tool_name\":\"Edit\",\"tool_input\":{}}", 1,
	    POL_MODE_PLAN), "deny");
	/* ...and otherwise left to Claude Code's own rules. */
	ck_assert_str_eq(run("{\"tool_name\":\"Edit\",\"cwd\":\"/w\","
	    "\"tool_input\":{\"file_path\":\"/w/f.c\"}}", 0,
	    POL_MODE_CHAT), "");
	/* ...an Edit with no path is a question, not a pass. */
	ck_assert_str_eq(run("{\"tool_name\":\"Edit\",\"tool_input\":{}}", 0,
	    POL_MODE_CHAT), "ask");
	ck_assert_str_eq(run("{\"tool_name\":\"Read\",\"tool_input\":{}}", 1,
	    POL_MODE_REVIEW), "");
	ck_assert_str_eq(run("{\"tool_name\":\"WebFetch\",\"tool_input\":{}}",
	    0, POL_MODE_CHAT), "");
	S.rules[POL_CLASS_NETWORK_ACCESS] = POL_ASK;
	ck_assert_str_eq(run("{\"tool_name\":\"WebFetch\",\"tool_input\":{}}",
	    0, POL_MODE_CHAT), "ask");
	ck_assert_str_eq(run("{\"tool_name\":\"Bash\",\"tool_input\":{"
	    "\"command\":\"curl https://x\"}}", 0, POL_MODE_CHAT), "ask");
}
END_TEST

START_TEST(malformed)
{
	ck_assert_str_eq(run("not json", 0, POL_MODE_CHAT), "deny");
	ck_assert_str_eq(run("[]", 0, POL_MODE_CHAT), "deny");
	ck_assert_str_eq(run("{\"tool_input\":{}}", 0, POL_MODE_CHAT), "deny");
	ck_assert_str_eq(run("{\"tool_name\":\"Bash\"}", 0, POL_MODE_CHAT),
	    "deny");
	ck_assert_str_eq(run("{\"tool_name\":\"Bash\",\"tool_input\":{"
	    "\"command\":\"ls |\"}}", 0, POL_MODE_CHAT), "deny");
	ck_assert_str_eq(run("{\"tool_name\":\"Bash\",\"tool_input\":{"
	    "\"command\":\"ls\\u0000; sudo id\"}}", 0, POL_MODE_CHAT), "deny");
}
END_TEST

/* Confined (airlock claude): ask is deny with the ask's reason; deny and
 * no opinion are unchanged. */
START_TEST(confined)
{
	static const char push[] = "{\"tool_name\":\"Bash\",\"cwd\":"
	    "\"/tmp\",\"tool_input\":{\"command\":\"git push origin "
	    "main\"}}";
	static const char sudo[] = "{\"tool_name\":\"Bash\",\"cwd\":"
	    "\"/tmp\",\"tool_input\":{\"command\":\"sudo id\"}}";
	static const char ls[] = "{\"tool_name\":\"Bash\",\"cwd\":"
	    "\"/tmp\",\"tool_input\":{\"command\":\"ls\"}}";
	char	*out;
	int	 v;

	out = hook_claude_pretooluse(push, strlen(push), 0, POL_MODE_CHAT, &S,
	    &v);
	ck_assert_int_eq(v, POL_ASK);
	free(out);
	out = hook_claude_confined(push, strlen(push), 0, POL_MODE_CHAT, &S,
	    &v);
	ck_assert_int_eq(v, POL_DENY);
	ck_assert_msg(strstr(out, "\"deny\"") != NULL &&
	    strstr(out, "git-push") != NULL &&
	    strstr(out, "no approver: deny") != NULL, "%s", out);
	free(out);
	out = hook_claude_confined(sudo, strlen(sudo), 0, POL_MODE_CHAT, &S,
	    &v);
	ck_assert_int_eq(v, POL_DENY);
	ck_assert(strstr(out, "no approver") == NULL);
	free(out);
	out = hook_claude_confined(ls, strlen(ls), 0, POL_MODE_CHAT, &S, &v);
	ck_assert_int_eq(v, -1);
	ck_assert_str_eq(out, "{}");
	free(out);
}
END_TEST

START_TEST(policy_check_json)
{
	struct pol_result	*r;
	struct json		*j, *cmds;
	char			*out;

	r = pol_check("npm i x && git push", 19, POL_MODE_CHAT, NULL);
	out = policy_result_json(r, POL_MODE_CHAT);
	j = json_parse(out, strlen(out), NULL, 0);
	ck_assert(j != NULL);
	ck_assert_str_eq(json_get_str(j, "verdict"), "ask");
	ck_assert_str_eq(json_get_str(j, "mode"), "chat");
	ck_assert_str_eq(json_get_str(j, "rule"), "rules.install-package=ask");
	ck_assert_uint_eq(json_get(j, "classes")->n, 1);
	ck_assert_str_eq(json_get(j, "classes")->items[0]->str,
	    "install-package");
	cmds = json_get(j, "commands");
	ck_assert_uint_eq(cmds->n, 2);
	ck_assert_str_eq(cmds->items[1]->items[0]->items[1]->str, "push");
	ck_assert_str_eq(json_get_str(cmds->items[1], "verdict"), "ask");
	ck_assert(json_get_str(cmds->items[1], "reason") != NULL);
	json_free(j);
	free(out);
	pol_result_free(r);
}
END_TEST

static void
setup(void)
{
	/* The recorded payloads' user. */
	setenv("HOME", "/home/dev", 1);
	settings_defaults(&S);
}

static void
teardown(void)
{
	settings_free(&S);
}

int
main(void)
{
	Suite	*s = suite_create("hook");
	TCase	*tc = tcase_create("hook");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, recorded_payloads);
	tcase_add_test(tc, sandbox_override_forbidden);
	tcase_add_test(tc, paths);
	tcase_add_test(tc, modes_and_tools);
	tcase_add_test(tc, malformed);
	tcase_add_test(tc, policy_check_json);
	tcase_add_test(tc, confined);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
