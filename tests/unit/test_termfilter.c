// SPDX-License-Identifier: ISC
/* The terminal output filter (common/termfilter.c): what passes, what not. */
#include <check.h>
#include <string.h>

#include "common/termfilter.h"
#include "tests/unit/unit.h"

static const char *
run(const char *in, size_t cut)
{
	static char		out[1024];
	struct term_filter	f;
	size_t			n = strlen(in), o;

	tf_init(&f);
	if (cut > n)
		cut = n;
	o = tf_filter(&f, in, cut, out);
	o += tf_filter(&f, in + cut, n - cut, out + o);
	out[o] = '\0';
	return out;
}

START_TEST(display_passes)
{
	const char *s = "plain \033[1;31mred\033[0m \033[2J\033[H\033(B"
	    "\033]0;title\007\033]8;;http://x\033\\link\033]8;;\033\\"
	    " caf\xc3\xa9 \xc2\xa9";

	ck_assert_str_eq(run(s, 5), s);
	ck_assert_str_eq(run(s, 13), s);
}
END_TEST

START_TEST(acting_dropped)
{
	/* OSC 52 clipboard, in both terminators, split anywhere. */
	for (size_t cut = 0; cut < 20; cut++) {
		ck_assert_str_eq(run("a\033]52;c;aGk=\007b", cut), "ab");
		ck_assert_str_eq(run("a\033]52;c;aGk=\033\\b", cut), "ab");
	}
	ck_assert_str_eq(run("\033]11;?\007x", 0), "x");	/* colour */
	ck_assert_str_eq(run("\033P+q544e\033\\x", 0), "x");	/* DCS */
	ck_assert_str_eq(run("\033[21tx\033[8;1;1t", 0), "x");	/* CSI t */
	ck_assert_str_eq(run("\xc2\x9d" "52;c;aGk=\007x", 0), "52;c;aGk=\007x");
	/* No sequence hides inside another. */
	ck_assert_str_eq(run("\033]0;t\033]52;c;aGk=\007x", 0), "x");
	ck_assert_str_eq(run("\033[\033]52;c;aGk=\007x", 0), "x");
	ck_assert_str_eq(run("\033]0;a\030\033]52;c;aGk=\007x", 0), "\030x");
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("termfilter");
	TCase	*tc = tcase_create("filter");

	tcase_add_test(tc, display_passes);
	tcase_add_test(tc, acting_dropped);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
