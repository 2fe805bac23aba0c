// SPDX-License-Identifier: ISC
/* Strings for a person's terminal (common/vis.c): what is shown how. */
#include <check.h>
#include <string.h>

#include "common/vis.h"
#include "tests/unit/unit.h"

START_TEST(text_passes)
{
	ck_assert_str_eq(vis("git push origin main"), "git push origin main");
	ck_assert_str_eq(vis("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
	    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	ck_assert_str_eq(vis(NULL), "-");
	ck_assert_str_eq(vis("a\\b"), "a\\\\b");
}
END_TEST

START_TEST(controls_shown)
{
	/* The forged prompt of issue 25. */
	ck_assert_str_eq(vis("id > ~/X\r\033[2K[REQ] ls -la allow? \033[8m"),
	    "id > ~/X\\r\\e[2K[REQ] ls -la allow? \\e[8m");
	ck_assert_str_eq(vis("\t\n\x7f\x01"), "\\t\\n\\x7f\\x01");
	/* C1 controls as UTF-8 (CSI, OSC) and bare. */
	ck_assert_str_eq(vis("\xc2\x9b" "2J\xc2\x9d"), "\\x9b2J\\x9d");
	ck_assert_str_eq(vis("\x9b" "2J"), "\\x9b2J");
}
END_TEST

START_TEST(hidden_shown)
{
	/* RLO, LRI, PDI, ZWSP, ZWJ, BOM, a tag, LS. */
	ck_assert_str_eq(vis("a\xe2\x80\xae" "b"), "a<U+202E>b");
	ck_assert_str_eq(vis("\xe2\x81\xa6x\xe2\x81\xa9"), "<U+2066>x<U+2069>");
	ck_assert_str_eq(vis("r\xe2\x80\x8bm"), "r<U+200B>m");
	ck_assert_str_eq(vis("\xe2\x80\x8d\xef\xbb\xbf"), "<U+200D><U+FEFF>");
	ck_assert_str_eq(vis("\xf3\xa0\x80\x81"), "<U+E0001>");
	ck_assert_str_eq(vis("\xe2\x80\xa8"), "<U+2028>");
}
END_TEST

START_TEST(not_utf8)
{
	/* Overlong ESC, a surrogate, a cut sequence, past U+10FFFF. */
	ck_assert_str_eq(vis("\xc0\x9b"), "\\xc0\\x9b");
	ck_assert_str_eq(vis("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	ck_assert_str_eq(vis("\xe2\x80"), "\\xe2\\x80");
	ck_assert_str_eq(vis("\xf4\x90\x80\x80"),
	    "\\xf4\\x90\\x80\\x80");
}
END_TEST

START_TEST(bounded)
{
	char	buf[8];
	size_t	n;

	n = vis_n(buf, sizeof(buf), "\033\033\033\033\033", 5, 0);
	ck_assert_uint_eq(n, 10);
	ck_assert_str_eq(buf, "\\e\\e\\e\\");
	n = vis_n(buf, 0, "abc", 3, 0);
	ck_assert_uint_eq(n, 3);
	/* A NUL inside the length is a byte like another. */
	n = vis_n(buf, sizeof(buf), "a\0b", 3, 0);
	ck_assert_str_eq(buf, "a\\x00b");
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("vis");
	TCase	*tc = tcase_create("vis");

	tcase_add_test(tc, text_passes);
	tcase_add_test(tc, controls_shown);
	tcase_add_test(tc, hidden_shown);
	tcase_add_test(tc, not_utf8);
	tcase_add_test(tc, bounded);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
