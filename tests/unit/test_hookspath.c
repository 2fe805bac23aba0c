// SPDX-License-Identifier: ISC
/*
 * Unit tests for hookspath_static: core.hooksPath read without git, for
 * the repositories past those git is asked about.  Real files in a
 * temporary directory, in the spellings git itself reads (any case of
 * section and key, quotes, comments, a key on the header's line, CR LF,
 * continued values, a BOM, a NUL byte), and through include.path,
 * includeIf (ten levels, "~user/"), a gitfile and a commondir.
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
	char	**v, path[512], *old;

	put("main/.git/config", "[core]\n\thooksPath = .husky\n");
	put("main/.git/worktrees/w/commondir", "../..\n");
	put("w/.git", "gitdir: ../main/.git/worktrees/w\n");
	v = read_at("w");
	ck_assert(has(v, ".husky"));
	ck_assert(has(v, "/w/.husky"));
	strv_free(v);
	/* A gitfile's path as git takes it: less its trailing CRs and
	 * LFs only, so "sp " (with its space) is the git directory, not
	 * "sp" beside it. */
	put("sp/.git/config", "[core]\n\thooksPath = wrong\n");
	put("sp /config", "[core]\n\thooksPath = right\n");
	put("t/.git", "gitdir: ../sp \r\n");
	v = read_at("t");
	ck_assert(has(v, "right"));
	ck_assert(!has(v, "wrong"));
	strv_free(v);
	/* "%(prefix)/": git's prefix, above the bin/ of the git on PATH. */
	put("pfx/bin/git", "#!/bin/sh\n");
	snprintf(path, sizeof(path), "%s/pfx/bin/git", top);
	ck_assert_int_eq(chmod(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/pfx/bin", top);
	old = getenv("PATH") != NULL ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", path, 1);
	put("pf/.git/config", "[core]\n\thooksPath = %(prefix)/share/hk\n");
	v = read_at("pf");
	ck_assert(has(v, "/pfx/share/hk"));
	strv_free(v);
	if (old != NULL)
		setenv("PATH", old, 1);
	free(old);
	/* The files airlockd's GIT_CONFIG_GLOBAL and _SYSTEM name. */
	put("gl.cfg", "[core]\n\thooksPath = from-global\n");
	put("sy.cfg", "[core]\n\thooksPath = from-system\n");
	snprintf(path, sizeof(path), "%s/gl.cfg", top);
	setenv("GIT_CONFIG_GLOBAL", path, 1);
	snprintf(path, sizeof(path), "%s/sy.cfg", top);
	setenv("GIT_CONFIG_SYSTEM", path, 1);
	v = read_at("pf");
	ck_assert(has(v, "from-global"));
	ck_assert(has(v, "from-system"));
	strv_free(v);
	unsetenv("GIT_CONFIG_GLOBAL");
	unsetenv("GIT_CONFIG_SYSTEM");
	/* ... and its GIT_CONFIG_COUNT pairs. */
	setenv("GIT_CONFIG_COUNT", "2", 1);
	setenv("GIT_CONFIG_KEY_0", "user.name", 1);
	setenv("GIT_CONFIG_VALUE_0", "x", 1);
	setenv("GIT_CONFIG_KEY_1", "Core.HooksPath", 1);
	setenv("GIT_CONFIG_VALUE_1", "from-env", 1);
	v = read_at("pf");
	ck_assert(has(v, "from-env"));
	ck_assert(has(v, "/pf/from-env"));
	strv_free(v);
	unsetenv("GIT_CONFIG_COUNT");
	/* Junk in a .git file: nothing read, nothing crashes. */
	put("j/.git", "junk\n");
	v = read_at("j");
	ck_assert_ptr_null(v);
}
END_TEST

/* Spellings git reads that a line-by-line reader misses: CR LF, a
 * value continued by a backslash, a UTF-8 BOM, two headers on a line,
 * a "]" in a quoted subsection with the key on its line, a NUL byte in
 * an earlier value, a backslash at the end of the file. */
START_TEST(git_spellings)
{
	static const struct {
		const char	*dir, *text, *want;
		size_t		 len;
	} t[] = {
		{ "s1", "[core]\r\n\thooksPath = .husky/_\r\n", ".husky/_", 0 },
		{ "s2", "[core]\n\thooksPath = .hus\\\nky/_\n", ".husky/_", 0 },
		{ "s3", "[core]\r\n\thooksPath = .hus\\\r\nky/_\r\n",
		    ".husky/_", 0 },
		{ "s4", "\xef\xbb\xbf[core]\n\thooksPath = bom\n", "bom", 0 },
		{ "s5", "[alias][core]hooksPath=two\n", "two", 0 },
		{ "s6", "[core]\n\tx = a\0b\n\thooksPath = afternul\n",
		    "afternul", 38 },
		{ "s7", "[core]\n\thooksPath = \"q\"\\\n\"r\"\n", "qr", 0 },
		{ "s8", "[core]\n\thooksPath = atend\\", "atend", 0 },
		/* A tab inside: a space to older git, kept by newer. */
		{ "s9", "[core]\n\thooksPath = my\thooks\n", "my hooks", 0 },
		{ "s9", "[core]\n\thooksPath = my\thooks\n", "my\thooks", 0 },
	};
	char	**v, p[512];
	size_t	  i;
	FILE	 *f;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(p, sizeof(p), "%s/.git/config", t[i].dir);
		put(p, "");
		snprintf(p, sizeof(p), "%s/%s/.git/config", top, t[i].dir);
		ck_assert_ptr_nonnull(f = fopen(p, "w"));
		fwrite(t[i].text, 1, t[i].len ? t[i].len : strlen(t[i].text),
		    f);
		fclose(f);
		v = read_at(t[i].dir);
		ck_assert_msg(has(v, t[i].want), "%s: %s not read",
		    t[i].dir, t[i].want);
		strv_free(v);
	}
}
END_TEST

/* An include in a header whose quoted condition holds "]", the key on
 * the header's line. */
START_TEST(include_bracket)
{
	char	**v, inc[512];

	snprintf(inc, sizeof(inc), "[includeIf \"gitdir:%s/[b]k/\"]"
	    "path=../bk.cfg\n", top);
	put("bk/.git/config", inc);
	put("bk/bk.cfg", "[core]\n\thooksPath = bracket\n");
	v = read_at("bk");
	ck_assert(has(v, "bracket"));
	strv_free(v);
}
END_TEST

/* Git follows includes ten deep (config.c, MAX_INCLUDE_DEPTH). */
START_TEST(include_depth)
{
	char	**v, name[64], text[128];
	int	  i;

	put("dp/.git/config", "[include]\n\tpath = ../i1\n");
	for (i = 1; i < 10; i++) {
		snprintf(name, sizeof(name), "dp/i%d", i);
		snprintf(text, sizeof(text), "[include]\n\tpath = i%d\n",
		    i + 1);
		put(name, text);
	}
	put("dp/i10", "[core]\n\thooksPath = tendeep\n");
	v = read_at("dp");
	ck_assert(has(v, "tendeep"));
	ck_assert(has(v, "/dp/i10"));
	strv_free(v);
}
END_TEST

/* "~user/" as git's interpolate_path() takes it, for an include and
 * for the value. */
START_TEST(tilde_user)
{
	char	**v, inc[512];

	put("tu/tu.cfg", "[core]\n\thooksPath = ~root/../tilde\n");
	snprintf(inc, sizeof(inc), "[include]\n\tpath = ~root/..%s/tu/tu.cfg\n",
	    top);
	put("tu/.git/config", inc);
	v = read_at("tu");
	ck_assert(has(v, "/tu/tu.cfg"));
	ck_assert(strv_in(v, "/tilde"));
	strv_free(v);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("hookspath");
	TCase	*tc = tcase_create("static");
	char	 p[512];
	int	 rc;

	if (mkdtemp(top) == NULL)
		return 1;
	snprintf(p, sizeof(p), "%s/home", top);
	mkdir(p, 0755);
	tcase_add_test(tc, spellings);
	tcase_add_test(tc, includes);
	tcase_add_test(tc, gitfile_and_commondir);
	tcase_add_test(tc, git_spellings);
	tcase_add_test(tc, include_bracket);
	tcase_add_test(tc, include_depth);
	tcase_add_test(tc, tilde_user);
	suite_add_tcase(s, tc);
	rc = unit_run(s);
	unit_rmtree(top);
	return rc;
}
