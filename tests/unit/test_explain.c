// SPDX-License-Identifier: ISC
/*
 * Unit tests for the refusal summary and the error words of the client
 * (client/cli_explain.c): what a person reads for each kind of event,
 * stderr lines the sandbox printed (forged ones included), and airlockd's
 * field names turned into the flags typed.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cli_explain.h"
#include "tests/unit/unit.h"

static struct explain ex;

/* The summary of the events added so far, in a buffer of the test's. */
static const char *
summary(void)
{
	static char	 buf[8192];
	FILE		*f;

	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	ck_assert_ptr_nonnull(f);
	explain_print(&ex, f);
	fclose(f);
	return buf;
}

#define HAS(s, sub)	ck_assert_msg(strstr((s), (sub)) != NULL, \
			    "missing \"%s\" in:\n%s", (sub), (s))
#define HASNT(s, sub)	ck_assert_msg(strstr((s), (sub)) == NULL, \
			    "unexpected \"%s\" in:\n%s", (sub), (s))

START_TEST(network)
{
	explain_init(&ex, 1);
	explain_add(&ex, "network-outbound", "example.com:443", NULL);
	explain_add(&ex, "network-outbound", "[2001:db8::1]:443", NULL);
	HAS(summary(), "network: example.com:443 refused - not in the "
	    "allowlist (add it with --allow-domain example.com)\n");
	HAS(summary(), "network: [2001:db8::1]:443 refused - not in the "
	    "allowlist\n");
	explain_free(&ex);
	explain_init(&ex, 0);
	explain_add(&ex, "network-outbound", "example.com:443", NULL);
	HAS(summary(), "the network is off for this run (--network on)");
	explain_free(&ex);
}
END_TEST

START_TEST(writes)
{
	explain_init(&ex, 1);
	explain_add(&ex, "file-write-create", "/w/.bashrc", NULL);
	explain_add(&ex, "os-denied",
	    "sh: 1: cannot create .bashrc: Permission denied", NULL);
	explain_add(&ex, "file-write", "/w/.git/hooks/pre-commit", NULL);
	explain_add(&ex, "file-rename", "/w/.git/config", NULL);
	explain_add(&ex, "file-write-create", "/w/.vscode/tasks.json", NULL);
	explain_add(&ex, "os-denied",
	    "touch: cannot touch '/usr/x': Read-only file system", NULL);
	HAS(summary(), "write: /w/.bashrc refused - protected file "
	    "(shell startup)\n");
	HAS(summary(), "write: /w/.git/hooks/pre-commit refused - "
	    "protected file (git hooks)\n");
	HAS(summary(), "write: /w/.git/config refused - protected file "
	    "(git configuration)\n");
	HAS(summary(), "and 2 more write refusals\n");
	/* The stderr echo of the .bashrc refusal is not a second one. */
	HASNT(summary(), "cannot create");
	explain_free(&ex);
}
END_TEST

START_TEST(secrets)
{
	setenv("HOME", "/home/u", 1);
	explain_init(&ex, 1);
	explain_add(&ex, "os-denied",
	    "cat: /home/u/.ssh/id_rsa: Permission denied", NULL);
	explain_add(&ex, "os-denied", "PermissionError: [Errno 13] "
	    "Permission denied: '/home/u/.aws/credentials'", NULL);
	HAS(summary(), "read: /home/u/.ssh/id_rsa refused - in the secret "
	    "set (~/.ssh)");
	HAS(summary(), "read: /home/u/.aws/credentials refused - in the "
	    "secret set (~/.aws)");
	explain_free(&ex);
}
END_TEST

START_TEST(forged)
{
	const char *s;

	explain_init(&ex, 1);
	/* untrusted: lines the command printed, imitating a summary */
	explain_add(&ex, "os-denied", "x: /etc/y refused - protected file "
	    "(shell startup): Permission denied", NULL);
	explain_add(&ex, "os-denied", "\033[2Jcat: /etc/\033[31mz: "
	    "Permission denied", NULL);
	s = summary();
	HAS(s, "file: \"x: /etc/y refused - protected file (shell startup): "
	    "Permission denied\" refused - denied inside the sandbox");
	HASNT(s, "\033");
	HAS(s, "\\e[31m");
	explain_free(&ex);
	explain_init(&ex, 1);
	explain_add(&ex, "git-origin-changed", "x", NULL);
	ck_assert_str_eq(summary(), "");
	explain_free(&ex);
}
END_TEST

START_TEST(words)
{
	char	*binds[] = { "/a", NULL }, *ro[] = { "/proc", NULL };
	char	*allow[] = { "x.com", NULL }, *envs[] = { "A=1", NULL };
	char	 out[512];
	struct explain_fields f = { .workspace = "/w", .binds = binds,
	    .robinds = ro, .allow = allow, .envs = envs };

	ck_assert_str_eq(explain_words("bindMounts[2]: /proc would hide "
	    "the sandbox's own /proc", &f, out, sizeof(out)),
	    "--ro-bind /proc: /proc would hide the sandbox's own /proc");
	ck_assert_str_eq(explain_words("bindMounts[0].hostPath: gone", &f,
	    out, sizeof(out)), "the workspace /w: gone");
	ck_assert_str_eq(explain_words("egressAllowlist[0]: \"x.com\": bad",
	    &f, out, sizeof(out)), "--allow-domain x.com: \"x.com\": bad");
	ck_assert_str_eq(explain_words("passEnv[0]: not NAME=VALUE", &f,
	    out, sizeof(out)), "--env A=1: not NAME=VALUE");
	ck_assert_str_eq(explain_words("LD_PRELOAD: an injection variable "
	    "(R-L9) is never passed", NULL, out, sizeof(out)),
	    "LD_PRELOAD: an injection variable is never passed");
	ck_assert_str_eq(explain_words("MSG_EXEC_IO: payload over 1048576 "
	    "bytes", NULL, out, sizeof(out)), "too much data at once for "
	    "the sandbox, more than 1048576 bytes");
	ck_assert_str_eq(explain_words("argv: a non-empty array of strings",
	    &f, out, sizeof(out)), "the command: a non-empty array of "
	    "strings");
	/* Without the fields, a field name is left as it is. */
	ck_assert_str_eq(explain_words("argv: x", NULL, out, sizeof(out)),
	    "argv: x");
	ck_assert_str_eq(explain_words("repos[1]: /x: not an existing "
	    "directory", NULL, out, sizeof(out)), "/x: not an existing "
	    "directory");
	ck_assert_str_eq(explain_words("agents[0]: 1-128 of [A-Za-z]", NULL,
	    out, sizeof(out)), "--agent: 1-128 of [A-Za-z]");
	ck_assert_str_eq(explain_words("conversationId and agentId: both "
	    "required", &f, out, sizeof(out)), "--conversation and --agent: "
	    "both required");
	/* Cut to the buffer, terminated. */
	ck_assert_int_eq(strlen(explain_words("a long message here", NULL,
	    out, 5)), 4);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("explain");
	TCase	*tc = tcase_create("summary");

	tcase_add_test(tc, network);
	tcase_add_test(tc, writes);
	tcase_add_test(tc, secrets);
	tcase_add_test(tc, forged);
	tcase_add_test(tc, words);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
