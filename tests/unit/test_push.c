// SPDX-License-Identifier: ISC
/*
 * Unit tests for policy/push.c: ref globs, first-match-wins push rules
 * with no match denied, and an invalid name denied whatever the rules.
 */
#include <check.h>
#include <string.h>

#include "policy/push.h"
#include "tests/unit/unit.h"

static const struct pol_push_rule defaults[] = {
	{ "refs/heads/main", POL_DENY },
	{ "refs/heads/release/*", POL_ASK },
	{ "refs/heads/*", POL_ALLOW },
};

START_TEST(glob)
{
	ck_assert(pol_ref_match("refs/heads/main", "refs/heads/main"));
	ck_assert(!pol_ref_match("refs/heads/main", "refs/heads/main2"));
	ck_assert(!pol_ref_match("refs/heads/main", "refs/heads/mai"));
	ck_assert(pol_ref_match("refs/heads/*", "refs/heads/x"));
	/* '*' crosses '/': nested names cannot dodge a rule. */
	ck_assert(pol_ref_match("refs/heads/*", "refs/heads/feature/x"));
	ck_assert(pol_ref_match("refs/heads/release/*",
	    "refs/heads/release/1.0/hotfix"));
	ck_assert(!pol_ref_match("refs/heads/release/*", "refs/heads/release"));
	ck_assert(pol_ref_match("refs/heads/**", "refs/heads/a/b"));
	ck_assert(pol_ref_match("refs/*/main", "refs/heads/main"));
	ck_assert(!pol_ref_match("refs/tags/*", "refs/heads/x"));
	ck_assert(pol_ref_match("refs/heads/v?", "refs/heads/v1"));
	ck_assert(!pol_ref_match("refs/heads/v?", "refs/heads/v/"));
	ck_assert(pol_ref_match("refs/heads/[a-c]x", "refs/heads/bx"));
	ck_assert(!pol_ref_match("refs/heads/[a-c]x", "refs/heads/dx"));
	ck_assert(pol_ref_match("refs/heads/[!a]x", "refs/heads/bx"));
	ck_assert(!pol_ref_match("refs/heads/[!a]x", "refs/heads/ax"));
	ck_assert(pol_ref_match("*", "anything/at/all"));
	ck_assert(pol_ref_match("refs/*/*-wip", "refs/heads/a-wip"));
	ck_assert(!pol_ref_match("refs/*/*-wip", "refs/heads/a-wipx"));
	ck_assert(!pol_ref_match(NULL, "x"));
	ck_assert(!pol_ref_match("x", NULL));
}
END_TEST

START_TEST(rules)
{
	char	r[256];

	ck_assert_int_eq(pol_push_rule(defaults, 3, "refs/heads/main",
	    POL_PUSH_UPDATE, r, sizeof(r)), POL_DENY);
	ck_assert(strstr(r, "update of refs/heads/main") != NULL);
	ck_assert(strstr(r, "rule 1") != NULL);
	ck_assert_int_eq(pol_push_rule(defaults, 3, "refs/heads/release/2",
	    POL_PUSH_CREATE, r, sizeof(r)), POL_ASK);
	ck_assert(strstr(r, "create of") != NULL);
	ck_assert_int_eq(pol_push_rule(defaults, 3, "refs/heads/feature/x",
	    POL_PUSH_DELETE, r, sizeof(r)), POL_ALLOW);
	ck_assert(strstr(r, "delete of") != NULL);
	/* No match: deny. */
	ck_assert_int_eq(pol_push_rule(defaults, 3, "refs/tags/v1",
	    POL_PUSH_CREATE, r, sizeof(r)), POL_DENY);
	ck_assert(strstr(r, "no push rule matches") != NULL);
	ck_assert_int_eq(pol_push_rule(NULL, 0, "refs/heads/x",
	    POL_PUSH_UPDATE, r, sizeof(r)), POL_DENY);
	/* First match wins, even when a later rule is stricter. */
	{
		const struct pol_push_rule o[] = {
			{ "refs/heads/*", POL_ALLOW },
			{ "refs/heads/main", POL_DENY },
		};
		ck_assert_int_eq(pol_push_rule(o, 2, "refs/heads/main",
		    POL_PUSH_UPDATE, r, sizeof(r)), POL_ALLOW);
	}
	/* Invalid names are denied whatever the rules say. */
	ck_assert_int_eq(pol_push_rule(defaults, 3, "refs/heads/a..b",
	    POL_PUSH_UPDATE, r, sizeof(r)), POL_DENY);
	ck_assert(strstr(r, "invalid") != NULL);
	ck_assert_int_eq(pol_push_rule(defaults, 3, "refs/heads/x", 2, NULL,
	    0), POL_ALLOW);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("push");
	TCase	*tc = tcase_create("push");

	tcase_add_test(tc, glob);
	tcase_add_test(tc, rules);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
