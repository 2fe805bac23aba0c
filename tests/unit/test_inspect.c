// SPDX-License-Identifier: ISC
/*
 * Method and path rules on an inspected host (common/inspect.c), issue
 * 28: deny wins, allow rules are the only way in, prefixes cover whole
 * segments, and a path in any but its canonical spelling is refused.
 */
#include <check.h>
#include <string.h>

#include "common/inspect.h"
#include "tests/unit/unit.h"

static struct inspect_rule rules[8];
static int nrules;

static int
judge(const char *method, const char *target)
{
	char	why[300];

	return inspect_judge(rules, (size_t)nrules, method, target, why,
	    sizeof(why));
}

START_TEST(allow_and_deny)
{
	const char *why;

	nrules = inspect_rules_parse("allow GET /v2/\nallow HEAD /v2\n"
	    "deny * /v2/admin\ndeny DELETE\n", rules, 8, &why);
	ck_assert_int_eq(nrules, 4);
	ck_assert_int_eq(judge("GET", "/v2/x?q=/../y"), 0);
	ck_assert_int_eq(judge("HEAD", "/v2"), 0);
	ck_assert_int_eq(judge("HEAD", "/v2/a/b"), 0);
	ck_assert_int_eq(judge("HEAD", "/v2x"), -1);
	ck_assert_int_eq(judge("GET", "/v2"), -1);	/* "/v2/" only */
	ck_assert_int_eq(judge("GET", "/v2/admin/x"), -1);
	ck_assert_int_eq(judge("GET", "/v2/adminx"), 0);
	ck_assert_int_eq(judge("DELETE", "/v2/x"), -1);
	ck_assert_int_eq(judge("get", "/v2/x"), -1);	/* methods: case */
	ck_assert_int_eq(judge("POST", "/v2/x"), -1);
	/* deny only: everything else passes */
	nrules = inspect_rules_parse("deny DELETE /", rules, 8, &why);
	ck_assert_int_eq(nrules, 1);
	ck_assert_int_eq(judge("PUT", "/x"), 0);
	ck_assert_int_eq(judge("DELETE", "/"), -1);
}
END_TEST

START_TEST(noncanonical_refused)
{
	static const char *const bad[] = { "/v2/../x", "/v2/..", "/v2/./x",
	    "/v2//x", "/v2/%2e%2e/x", "/v2/%2E./x", "/v2/a%2Fb", "/v2/%5c",
	    "/v2/%25", "/v2/%41", "/v2/a#f", "/v2/a\\b", "/v2/%", "/v2/%4",
	    "/v2/%zz", "v2/x", "", "*", "http://h/v2/x", "/v2/\x01",
	    "/v2/..;/x", "/v2/..;a=b/x", "/v2/.;/x", "/v2/..;" };
	const char *why;
	size_t	i;

	nrules = inspect_rules_parse("allow * /", rules, 8, &why);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(judge("GET", bad[i]) == -1, "%s", bad[i]);
	ck_assert_int_eq(judge("GET", "/"), 0);
	ck_assert_int_eq(judge("GET", "/v2/a%20b/"), 0);
	ck_assert_int_eq(judge("GET", "/v2/.well-known/..x"), 0);
	ck_assert_int_eq(judge("GET", "/v2/a;v=1/b"), 0);
	ck_assert_int_eq(judge("GET", "/v2/...;/b"), 0);
}
END_TEST

START_TEST(bad_rules_refused)
{
	static const char *const bad[] = { "GET /", "allow", "allow  /",
	    "allow GET v2", "allow GET /v2?x", "allow G*T /",
	    "allow GET /a/../b",
	    "deny GET //", "permit GET /" };
	struct inspect_rule r;
	const char *why;
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(inspect_rule_parse(bad[i], &r, &why) == -1, "%s",
		    bad[i]);
	ck_assert_int_eq(inspect_rule_parse("deny *", &r, &why), 0);
	ck_assert_str_eq(r.path, "/");
	ck_assert_int_eq(r.deny, 1);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("inspect");
	TCase	*tc = tcase_create("inspect");

	tcase_add_test(tc, allow_and_deny);
	tcase_add_test(tc, noncanonical_refused);
	tcase_add_test(tc, bad_rules_refused);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
