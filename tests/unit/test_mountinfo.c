// SPDX-License-Identifier: ISC
/*
 * Unit tests for the mountinfo parser the launcher uses to find every
 * submount it must remount read-only.
 */
#include <check.h>
#include <string.h>

#include "common/mountinfo.h"
#include "tests/unit/unit.h"

START_TEST(plain_and_escaped)
{
	char	a[] = "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - "
	    "ext3 /dev/root rw\n";
	char	b[] = "40 35 0:5 / /with\\040space\\011tab rw - tmpfs t rw\n";
	char	c[] = "1 2 3:4 /";
	char	d[] = "";

	ck_assert_str_eq(mountinfo_point(a), "/mnt/parent");
	ck_assert_str_eq(mountinfo_point(b), "/with space\ttab");
	ck_assert_ptr_null(mountinfo_point(c));
	ck_assert_ptr_null(mountinfo_point(d));
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("mountinfo");
	TCase	*tc = tcase_create("parse");

	tcase_add_test(tc, plain_and_escaped);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
