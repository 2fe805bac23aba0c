// SPDX-License-Identifier: ISC
/*
 * Unit tests for the host probe's Yama check (supervisor/sv_probe.c):
 * kernel.yama.ptrace_scope 2 or 3 keeps init from reading a sandboxed
 * process's memory, so every write-intent call would fail; the probe
 * says so and marks the native backend unusable.  The sysctl's text is
 * parsed here, so no test hook is needed in the shipped airlockd.
 */
#include <check.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "tests/unit/unit.h"

START_TEST(parse_scope)
{
	ck_assert_int_eq(sv_probe_parse_ptrace_scope("0\n"), 0);
	ck_assert_int_eq(sv_probe_parse_ptrace_scope("1\n"), 1);
	ck_assert_int_eq(sv_probe_parse_ptrace_scope("2\n"), 2);
	ck_assert_int_eq(sv_probe_parse_ptrace_scope("3"), 3);
	ck_assert_int_eq(sv_probe_parse_ptrace_scope(NULL), -1);
	ck_assert_int_eq(sv_probe_parse_ptrace_scope(""), -1);
	ck_assert_int_eq(sv_probe_parse_ptrace_scope("x\n"), -1);
	ck_assert_int_eq(sv_probe_parse_ptrace_scope("2x\n"), -1);
	ck_assert_int_eq(sv_probe_parse_ptrace_scope("-1\n"), -1);
	ck_assert_int_eq(sv_probe_parse_ptrace_scope("99999999999999\n"), -1);
}
END_TEST

static struct sv_probe
usable(void)
{
	struct sv_probe p;

	memset(&p, 0, sizeof(p));
	p.available = p.userns = p.seccomp = 1;
	p.landlock_abi = 6;
	p.reasons = xcalloc(1, sizeof(char *));
	return p;
}

START_TEST(scope_blocks)
{
	struct sv_probe	p;
	int		s;

	for (s = 2; s <= 3; s++) {
		p = usable();
		sv_probe_ptrace(&p, s);
		ck_assert_int_eq(p.available, 0);
		ck_assert_int_eq(p.ptrace_blocked, 1);
		ck_assert_int_eq(p.ptrace_scope, s);
		ck_assert_ptr_nonnull(p.reasons[0]);
		ck_assert_ptr_nonnull(strstr(p.reasons[0],
		    "kernel.yama.ptrace_scope"));
		ck_assert_ptr_nonnull(strstr(p.reasons[0], "sysctl"));
		strv_free(p.reasons);
	}
}
END_TEST

START_TEST(scope_allows)
{
	struct sv_probe	p;
	int		s;

	for (s = -1; s <= 1; s++) {
		p = usable();
		sv_probe_ptrace(&p, s);
		ck_assert_int_eq(p.available, 1);
		ck_assert_int_eq(p.ptrace_blocked, 0);
		ck_assert_ptr_null(p.reasons[0]);
		strv_free(p.reasons);
	}
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("probe");
	TCase	*tc = tcase_create("probe");

	log_init("test_probe", 0);
	log_setverbose(-1);
	tcase_add_test(tc, parse_scope);
	tcase_add_test(tc, scope_blocks);
	tcase_add_test(tc, scope_allows);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
