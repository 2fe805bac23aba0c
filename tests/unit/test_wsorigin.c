// SPDX-License-Identifier: ISC
/*
 * Unit tests for wsorigin_fix (issue 14): the workspace's upstream is
 * recorded on the first run, kept whatever the workspace says later,
 * replaced only by an explicit choice, and a new directory at the same
 * path is a new workspace.  Real directories in a temporary state dir.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/host/wsorigin.h"
#include "tests/unit/unit.h"

static char	top[] = "/tmp/test_wsorigin.XXXXXX";

/* wsorigin_fix for top/ws; origin and changed as strings ("" = NULL). */
static int
fix(const char *chosen, const char *seen, char *o, char *chg)
{
	char	 ws[512], err[256], *a, *b;
	int	 r;

	snprintf(ws, sizeof(ws), "%s/ws", top);
	r = wsorigin_fix(ws, chosen, seen, &a, &b, err, sizeof(err));
	snprintf(o, 128, "%s", a != NULL ? a : "");
	snprintf(chg, 128, "%s", b != NULL ? b : "");
	free(a);
	free(b);
	return r;
}

START_TEST(record)
{
	char	o[128], c[128], ws[512];

	snprintf(ws, sizeof(ws), "%s/ws", top);
	ck_assert_int_eq(mkdir(ws, 0700), 0);
	/* First run: what the workspace says is recorded. */
	ck_assert_int_eq(fix(NULL, "acme/app", o, c), 0);
	ck_assert_str_eq(o, "acme/app");
	ck_assert_str_eq(c, "");
	/* The agent changed it: the record wins, the change is said. */
	ck_assert_int_eq(fix(NULL, "other/repo", o, c), 0);
	ck_assert_str_eq(o, "acme/app");
	ck_assert_str_eq(c, "other/repo");
	ck_assert_int_eq(fix(NULL, NULL, o, c), 0);
	ck_assert_str_eq(o, "acme/app");
	ck_assert_str_eq(c, "(none)");
	/* Case alone is no change (code hosts compare without it). */
	ck_assert_int_eq(fix(NULL, "ACME/App", o, c), 0);
	ck_assert_str_eq(c, "");
	/* The user's explicit choice replaces the record. */
	ck_assert_int_eq(fix("acme/lib", "other/repo", o, c), 0);
	ck_assert_str_eq(o, "acme/lib");
	ck_assert_int_eq(fix(NULL, "other/repo", o, c), 0);
	ck_assert_str_eq(o, "acme/lib");
	ck_assert_str_eq(c, "other/repo");
	/* A new directory at the same path (another inode) is new; made
	 * beside the old one, so that its inode cannot be the old one's. */
	snprintf(c, sizeof(c), "%s/new", top);
	ck_assert_int_eq(mkdir(c, 0700), 0);
	ck_assert_int_eq(rmdir(ws), 0);
	ck_assert_int_eq(rename(c, ws), 0);
	/* No origin the first time is recorded as none, not "ask later". */
	ck_assert_int_eq(fix(NULL, NULL, o, c), 0);
	ck_assert_str_eq(o, "");
	ck_assert_int_eq(fix(NULL, "other/repo", o, c), 0);
	ck_assert_str_eq(o, "");
	ck_assert_str_eq(c, "other/repo");
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("wsorigin");
	TCase	*tc = tcase_create("record");
	char	 cmd[128];
	int	 failed;

	if (mkdtemp(top) == NULL)
		return 1;
	setenv("XDG_STATE_HOME", top, 1);
	tcase_add_test(tc, record);
	suite_add_tcase(s, tc);
	failed = unit_run(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd) != 0)
		failed = 1;
	return failed;
}
