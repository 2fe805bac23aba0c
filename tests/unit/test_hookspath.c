// SPDX-License-Identifier: ISC
/*
 * Unit tests for hookspath_static: core.hooksPath read without git, for
 * the repositories past those git is asked about.  Real files in a
 * temporary directory, in the spellings git itself reads (any case of
 * section and key, quotes, comments, a key on the header's line), and
 * through include.path, includeIf, a gitfile and a commondir.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "supervisor/hookspath.h"
#include "tests/unit/unit.h"

static char	top[] = "/tmp/test_hookspath.XXXXXX";

static void
put(const char *rel, const char *text)
{
	char	 p[512], *s;
	FILE	*f;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	for (s = p + strlen(top) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		(void)mkdir(p, 0755);
		*s = '/';
	}
	ck_assert_ptr_nonnull(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
}

/* Whether v holds s (after top, when s starts with "/"). */
static int
has(char **v, const char *s)
{
	char	p[512];

	if (s[0] == '/')
		snprintf(p, sizeof(p), "%s%s", top, s);
	else
		snprintf(p, sizeof(p), "%s", s);
	return strv_in(v, p);
}

static char **
read_at(const char *rel)
{
	char	d[512], home[512];

	snprintf(d, sizeof(d), "%s/%s", top, rel);
	/* home: an empty directory of the test's, no global config. */
	snprintf(home, sizeof(home), "%s/home", top);
	return hookspath_static(NULL, d, home);
}

START_TEST(spellings)
{
	char	**v;

	put("a/.git/config", "[Core] # c\n\tbare = false\n"
	    "\tHooksPath = \".husky/_\" ; comment\n");
	v = read_at("a");
	ck_assert(has(v, ".husky/_"));
	ck_assert(has(v, "/a/.husky/_"));
	strv_free(v);
	put("b/.git/config", "[core] hookspath = hk\n");
	v = read_at("b");
	ck_assert(has(v, "hk"));
	ck_assert(has(v, "/b/hk"));
	strv_free(v);
	/* Another section's hookspath is no hooks directory. */
	put("c/.git/config", "[alias]\n\thookspath = nope\n");
	v = read_at("c");
	ck_assert_ptr_null(v);
}
END_TEST

START_TEST(includes)
{
	char	**v, inc[512];

	snprintf(inc, sizeof(inc), "[include]\n\tpath = ../team.cfg\n"
	    "[includeIf \"gitdir:/nowhere/\"]\n\tpath = %s/other.cfg\n", top);
	put("d/.git/config", inc);
	put("d/team.cfg", "[core]\n\thooksPath = .githooks\n");
	put("other.cfg", "[core]\n\thooksPath = /abs/hooks\n");
	v = read_at("d");
	ck_assert(has(v, ".githooks"));
	ck_assert(has(v, "/d/.githooks"));
	ck_assert(strv_in(v, "/abs/hooks"));
	/* The included files themselves: the sandbox must not fill them. */
	ck_assert(has(v, "/d/team.cfg"));
	ck_assert(has(v, "/other.cfg"));
	strv_free(v);
}
END_TEST

START_TEST(gitfile_and_commondir)
{
	char	**v;

	put("main/.git/config", "[core]\n\thooksPath = .husky\n");
	put("main/.git/worktrees/w/commondir", "../..\n");
	put("w/.git", "gitdir: ../main/.git/worktrees/w\n");
	v = read_at("w");
	ck_assert(has(v, ".husky"));
	ck_assert(has(v, "/w/.husky"));
	strv_free(v);
	/* Junk in a .git file: nothing read, nothing crashes. */
	put("j/.git", "junk\n");
	v = read_at("j");
	ck_assert_ptr_null(v);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("hookspath");
	TCase	*tc = tcase_create("static");
	char	 p[512];

	if (mkdtemp(top) == NULL)
		return 1;
	snprintf(p, sizeof(p), "%s/home", top);
	mkdir(p, 0755);
	tcase_add_test(tc, spellings);
	tcase_add_test(tc, includes);
	tcase_add_test(tc, gitfile_and_commondir);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
