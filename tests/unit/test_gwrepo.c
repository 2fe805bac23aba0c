/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for supervisor/gwrepo.c: gateway path -> code host and
 * upstream URL, and the R-G4 decision (own repository or linked only).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/gwrepo.h"
#include "tests/unit/sv_fixture.h"
#include "tests/unit/unit.h"

START_TEST(test_allowed)
{
	struct settings	s;
	struct gwrepo	r;
	char		why[256];

	fx_settings(&s);
	ck_assert_int_eq(gwrepo_resolve(&s, NULL, "github/acme/app.git", &r,
	    why, sizeof(why)), 0);
	ck_assert_str_eq(r.host->name, "github");
	ck_assert_str_eq(r.repo, "acme/app");
	ck_assert_str_eq(r.upstream, "https://127.0.0.1:8443/acme/app.git");
	gwrepo_free(&r);
	/* Without .git, other case, another host, upstream without '/'. */
	ck_assert_int_eq(gwrepo_resolve(&s, NULL, "ghe/acme/lib", &r, why,
	    sizeof(why)), 0);
	/* Matched without case, forwarded as linkedRepos spells it. */
	ck_assert_str_eq(r.upstream,
	    "https://ghe.example.com/api/git/Acme/Lib.git");
	gwrepo_free(&r);
	ck_assert_int_eq(gwrepo_resolve(&s, "Me/Own", "github/ME/OWN.git",
	    &r, why, sizeof(why)), 0);
	ck_assert_str_eq(r.upstream, "https://127.0.0.1:8443/Me/Own.git");
	gwrepo_free(&r);
	/* A case-sensitive host (caseInsensitive: false) matches exactly. */
	s.hosts[1].case_sensitive = 1;
	ck_assert_int_eq(gwrepo_resolve(&s, NULL, "ghe/acme/lib", &r, why,
	    sizeof(why)), -1);
	ck_assert_int_eq(gwrepo_resolve(&s, NULL, "ghe/Acme/Lib", &r, why,
	    sizeof(why)), 0);
	gwrepo_free(&r);
	s.hosts[1].case_sensitive = 0;
	/* The worktree's own repository, not in linkedRepos. */
	ck_assert_int_eq(gwrepo_resolve(&s, "me/own", "github/me/own.git",
	    &r, why, sizeof(why)), 0);
	gwrepo_free(&r);
}
END_TEST

START_TEST(test_refused)
{
	struct settings	s;
	struct gwrepo	r;
	char		why[256];
	const char	*bad[] = {
		"github/acme/other.git",	/* not linked */
		"gitlab/acme/app.git",		/* unknown host */
		"github/acme/app/extra.git",	/* too deep */
		"github/acme",			/* too shallow */
		"github/../app.git",
		"github/acme/.app.git",
		"github//app.git",
		"acme/app.git",			/* no host part */
		"github/acme/app.git/",
		"",
	};
	size_t		i;

	fx_settings(&s);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(gwrepo_resolve(&s, "me/own", bad[i], &r, why,
		    sizeof(why)) == -1, "allowed %s", bad[i]);
		ck_assert(why[0] != '\0');
		ck_assert_ptr_null(r.repo);
	}
	gwrepo_resolve(&s, NULL, "github/acme/other.git", &r, why,
	    sizeof(why));
	ck_assert_str_eq(why, "acme/other is neither this worktree's "
	    "repository nor linked to the workspace");
}
END_TEST

START_TEST(test_from_url)
{
	struct settings	 s;
	const struct code_host *h = NULL;
	char		*r;

	fx_settings(&s);
	r = gwrepo_from_url(&s, "git@github.com:acme/app.git", &h);
	ck_assert_str_eq(r, "acme/app");
	ck_assert_str_eq(h->name, "github");
	free(r);
	r = gwrepo_from_url(&s, "https://ghe.example.com/t/x", &h);
	ck_assert_str_eq(r, "t/x");
	ck_assert_str_eq(h->name, "ghe");
	free(r);
	ck_assert_ptr_null(gwrepo_from_url(&s, "https://evil.example/a/b",
	    NULL));
	ck_assert_ptr_null(gwrepo_from_url(&s, "https://github.com/a/b/c",
	    NULL));
}
END_TEST

int
main(void)
{
	Suite	*su = suite_create("gwrepo");
	TCase	*tc = tcase_create("core");
	int	 failed;

	tcase_add_test(tc, test_allowed);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_from_url);
	suite_add_tcase(su, tc);
	failed = unit_run(su);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
