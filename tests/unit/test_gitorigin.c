// SPDX-License-Identifier: ISC
/*
 * Unit tests for gitorigin_local: real repositories made with the real
 * git in a temporary directory, and for each layout either the answer
 * `git config --get remote.origin.url` gives, or -1 (ask git).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/gitorigin.h"
#include "tests/unit/unit.h"

static char	top[] = "/tmp/test_gitorigin.XXXXXX";

static void
sh(const char *script)
{
	char	cmd[1024];

	snprintf(cmd, sizeof(cmd), "cd %s && %s", top, script);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* What gitorigin_local says for top/rel: its rc, and the URL or "". */
static int
local(const char *rel, char *out, size_t len)
{
	char	 p[512], *u;
	int	 r;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	r = gitorigin_local(p, &u);
	snprintf(out, len, "%s", u != NULL ? u : "");
	free(u);
	return r;
}

START_TEST(layouts)
{
	char	got[256];

	sh("git init -q r && git -C r remote add origin "
	    "https://h.example/acme/app.git && mkdir -p r/a/b && "
	    "git -C r -c user.name=t -c user.email=t@t commit -q "
	    "--allow-empty -m x");
	ck_assert_int_eq(local("r", got, sizeof(got)), 0);
	ck_assert_str_eq(got, "https://h.example/acme/app.git");
	/* from a subdirectory, as git -C finds it */
	ck_assert_int_eq(local("r/a/b", got, sizeof(got)), 0);
	ck_assert_str_eq(got, "https://h.example/acme/app.git");
	/* a linked worktree: gitdir file, commondir */
	sh("git -C r worktree add -q ../wt");
	ck_assert_int_eq(local("wt", got, sizeof(got)), 0);
	ck_assert_str_eq(got, "https://h.example/acme/app.git");
	/* set twice: the last one, as git --get */
	sh("printf '[remote \"origin\"]\\n\\turl = git@h.example:x/y.git\\n' "
	    ">> r/.git/config");
	ck_assert_int_eq(local("r", got, sizeof(got)), 0);
	ck_assert_str_eq(got, "git@h.example:x/y.git");
	/* no origin, and no repository at all */
	sh("git init -q plain");
	ck_assert_int_eq(local("plain", got, sizeof(got)), 0);
	ck_assert_str_eq(got, "");
	sh("mkdir -p none/x");
	ck_assert_int_eq(local("none/x", got, sizeof(got)), 0);
	ck_assert_str_eq(got, "");
	/* an include: git must answer */
	sh("git init -q inc && printf '[include]\\n\\tpath = ../o.cfg\\n' "
	    ">> inc/.git/config");
	ck_assert_int_eq(local("inc", got, sizeof(got)), -1);
	/* GIT_DIR moves the repository: git must answer */
	setenv("GIT_DIR", "/nonexistent", 1);
	ck_assert_int_eq(local("r", got, sizeof(got)), -1);
	unsetenv("GIT_DIR");
	/* a per-worktree config: git must answer */
	sh("git -C r config extensions.worktreeConfig true && "
	    "git -C r config --worktree user.name w");
	ck_assert_int_eq(local("r", got, sizeof(got)), -1);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("gitorigin");
	TCase	*tc = tcase_create("layouts");
	char	 cmd[128];
	int	 failed;

	if (mkdtemp(top) == NULL)
		return 1;
	/* The machine's own git settings must not change what git writes. */
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("HOME", top, 1);
	tcase_add_test(tc, layouts);
	suite_add_tcase(s, tc);
	failed = unit_run(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd) != 0)
		failed = 1;
	return failed;
}
