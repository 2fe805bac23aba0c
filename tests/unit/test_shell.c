// SPDX-License-Identifier: ISC
/*
 * Unit tests for policy/shell.c: the parser must find every simple
 * command (including those nested in substitutions, compounds and
 * here-documents), remove quoting, flag non-literal words, and refuse
 * what does not parse.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "policy/shell.h"
#include "tests/unit/unit.h"

static struct sh_list	L;
static char		E[200];

static int
parse(const char *s)
{
	sh_list_free(&L);
	return sh_parse(s, strlen(s), &L, E, sizeof(E));
}

/* Index of the first command whose argv[0] is name, or -1. */
static int
find(const char *name)
{
	size_t	i;

	for (i = 0; i < L.ncmds; i++)
		if (L.cmds[i].argc > 0 && strcmp(L.cmds[i].argv[0].text,
		    name) == 0)
			return (int)i;
	return -1;
}

START_TEST(simple_words_and_quotes)
{
	ck_assert_int_eq(parse("'g'it \"pu\"sh g\\it $'a\\x41\\tb'"), 0);
	ck_assert_uint_eq(L.ncmds, 1);
	ck_assert_uint_eq(L.cmds[0].argc, 4);
	ck_assert_str_eq(L.cmds[0].argv[0].text, "git");
	ck_assert_str_eq(L.cmds[0].argv[1].text, "push");
	ck_assert_str_eq(L.cmds[0].argv[2].text, "git");
	ck_assert_str_eq(L.cmds[0].argv[3].text, "aA\tb");
	ck_assert(L.cmds[0].argv[0].flags & SH_W_QUOTED);
	ck_assert((L.cmds[0].argv[0].flags & SH_W_NONLITERAL) == 0);
}
END_TEST

START_TEST(lists_and_pipelines)
{
	ck_assert_int_eq(parse("a && b || c; d & e | f |& g\nh"), 0);
	ck_assert_uint_eq(L.ncmds, 8);
	ck_assert(L.cmds[find("d")].flags & SH_C_BACKGROUND);
	ck_assert(L.cmds[find("f")].flags & SH_C_PIPE_IN);
	ck_assert(L.cmds[find("g")].flags & SH_C_PIPE_IN);
	ck_assert((L.cmds[find("e")].flags & SH_C_PIPE_IN) == 0);
	ck_assert(L.cmds[find("e")].flags & SH_C_PIPELINE);
}
END_TEST

START_TEST(substitutions_are_listed)
{
	ck_assert_int_eq(parse("echo $(git push) `rm x` \"$(a $(b))\" "
	    "<(c) >(d) ${x:-$(e)} $((1 + $(f)))"), 0);
	ck_assert_int_ge(find("git"), 0);
	ck_assert_int_ge(find("rm"), 0);
	ck_assert_int_ge(find("a"), 0);
	ck_assert_int_ge(find("b"), 0);
	ck_assert_int_ge(find("c"), 0);
	ck_assert_int_ge(find("d"), 0);
	ck_assert_int_ge(find("e"), 0);
	ck_assert_int_ge(find("f"), 0);
	ck_assert(L.cmds[find("git")].flags & SH_C_SUBST);
	ck_assert(L.cmds[find("echo")].argv[1].flags & SH_W_EXPAND);
	ck_assert(L.cmds[find("echo")].argv[1].flags & SH_W_UNQ_EXPAND);
	ck_assert((L.cmds[find("echo")].argv[3].flags & SH_W_UNQ_EXPAND) ==
	    0);
}
END_TEST

START_TEST(nested_substitution_in_backticks)
{
	ck_assert_int_eq(parse("x=`echo \\`id\\``"), 0);
	ck_assert_int_ge(find("id"), 0);
	ck_assert_int_ge(find("echo"), 0);
	ck_assert_int_eq(parse("echo $(echo $(echo $(sudo id)))"), 0);
	ck_assert_int_ge(find("sudo"), 0);
}
END_TEST

START_TEST(compounds)
{
	ck_assert_int_eq(parse("(a) ; { b; } ; if c; then d; elif e; then f;"
	    " else g; fi; for x in 1 2; do h; done; while i; do j; done; "
	    "until k; do l; done; case $y in m|n) o;; (*) p;; esac; "
	    "for ((i=0;i<2;i++)); do q; done; [[ -f r && s < t ]]; "
	    "((u++)); f() { v; }; function w { x; }"), 0);
	ck_assert_int_ge(find("a"), 0);
	ck_assert_int_ge(find("b"), 0);
	ck_assert_int_ge(find("g"), 0);
	ck_assert_int_ge(find("h"), 0);
	ck_assert_int_ge(find("l"), 0);
	ck_assert_int_ge(find("o"), 0);
	ck_assert_int_ge(find("p"), 0);
	ck_assert_int_ge(find("q"), 0);
	ck_assert_int_ge(find("[["), 0);
	ck_assert_uint_eq(L.cmds[find("[[")].argc, 8);
	ck_assert_int_ge(find("v"), 0);
	ck_assert_str_eq(L.cmds[find("v")].func, "f");
	ck_assert_str_eq(L.cmds[find("x")].func, "w");
	ck_assert_int_lt(find("m"), 0);	/* a pattern, not a command */
}
END_TEST

START_TEST(redirections)
{
	const struct sh_cmd *c;

	ck_assert_int_eq(parse("cmd >a 2>>b 3<c 2>&1 &>d >|e <>f >&g <&- "
	    "<<<h"), 0);
	c = &L.cmds[0];
	ck_assert_uint_eq(c->argc, 1);
	ck_assert_uint_eq(c->nredirs, 10);
	ck_assert(c->redirs[0].writes && c->redirs[0].op == SH_R_OUT);
	ck_assert(c->redirs[1].writes && c->redirs[1].fd == 2);
	ck_assert(!c->redirs[2].writes && c->redirs[2].fd == 3);
	ck_assert(!c->redirs[3].writes);	/* 2>&1 */
	ck_assert(c->redirs[4].writes && c->redirs[4].op == SH_R_OUTERR);
	ck_assert(c->redirs[5].writes);
	ck_assert(c->redirs[6].writes);		/* <> */
	ck_assert(c->redirs[7].writes);		/* >&g is &>g */
	ck_assert(!c->redirs[8].writes);
	ck_assert_str_eq(c->redirs[9].target.text, "h");
	ck_assert_int_eq(parse("{ a; } > out"), 0);
	ck_assert_uint_eq(L.ncmds, 2);
	ck_assert(L.cmds[1].redirs[0].writes);
	ck_assert(L.cmds[1].flags & SH_C_COMPOUND);
}
END_TEST

START_TEST(heredocs)
{
	const struct sh_redir *r;

	ck_assert_int_eq(parse("cat <<EOF > f\nhello $(whoami)\nEOF\n"
	    "cat <<'Q' <<-X\n$(not run)\nQ\n\tbody\n\tX\necho done"), 0);
	ck_assert_int_ge(find("whoami"), 0);
	ck_assert_int_lt(find("not"), 0);
	ck_assert_int_ge(find("echo"), 0);
	r = &L.cmds[find("cat")].redirs[0];
	ck_assert_int_eq(r->op, SH_R_HEREDOC);
	ck_assert_str_eq(r->target.text, "hello $(whoami)\n");
	ck_assert(r->target.flags & SH_W_EXPAND);
	ck_assert_int_eq(parse("cat <<'Q'\n$(x)\nQ"), 0);
	ck_assert_str_eq(L.cmds[0].redirs[0].target.text, "$(x)\n");
	ck_assert(L.cmds[0].redirs[0].target.flags & SH_W_QUOTED);
	ck_assert_int_eq(parse("cat <<EOF\nno end"), -1);
}
END_TEST

START_TEST(assignments_and_flags)
{
	ck_assert_int_eq(parse("A=1 B+=2 C=(x $(y)) cmd ~/a * {a,b} $V"), 0);
	ck_assert_int_ge(find("y"), 0);
	ck_assert_int_ge(find("cmd"), 0);
	ck_assert_uint_eq(L.cmds[find("cmd")].nassigns, 3);
	ck_assert(L.cmds[find("cmd")].argv[1].flags & SH_W_TILDE);
	ck_assert(L.cmds[find("cmd")].argv[2].flags & SH_W_GLOB);
	ck_assert(L.cmds[find("cmd")].argv[3].flags & SH_W_BRACE);
	ck_assert(L.cmds[find("cmd")].argv[4].flags & SH_W_UNQ_EXPAND);
	ck_assert_int_eq(parse("[ -f x ] && test"), 0);
	ck_assert((L.cmds[0].argv[0].flags & SH_W_NONLITERAL) == 0);
}
END_TEST

START_TEST(continuations_and_comments)
{
	ck_assert_int_eq(parse("git \\\n  push # $(sudo id)\n"), 0);
	ck_assert_uint_eq(L.ncmds, 1);
	ck_assert_uint_eq(L.cmds[0].argc, 2);
	ck_assert_str_eq(L.cmds[0].argv[1].text, "push");
}
END_TEST

START_TEST(malformed_input)
{
	static const char *const bad[] = { "ls |", "echo 'x", "echo \"x",
	    "if true; then", "(ls", "ls )", "a && ", "{ ls", "$(ls",
	    "echo `x", "case x in", "for x in a; do", ";", "ls ;; ls",
	    "done", "fi", "echo ${x", "f() ls", "[[ a", "a & & b",
	    NULL };
	int	i;

	for (i = 0; bad[i] != NULL; i++) {
		ck_assert_msg(parse(bad[i]) == -1, "parsed: %s", bad[i]);
		ck_assert(E[0] != '\0');
		ck_assert_uint_eq(L.ncmds, 0);
	}
	ck_assert_int_eq(sh_parse("ls\0x", 4, &L, E, sizeof(E)), -1);
}
END_TEST

START_TEST(depth_limits)
{
	char	*s;
	size_t	 i, n = 200;

	/* 200 nested subshells: refused, not a stack overflow. */
	s = malloc(4 * n + 3);
	for (i = 0; i < n; i++)
		memcpy(s + 2 * i, "( ", 2);
	s[2 * n] = 'a';
	for (i = 0; i < n; i++)
		memcpy(s + 2 * n + 1 + 2 * i, " )", 2);
	s[4 * n + 1] = '\0';
	ck_assert_int_eq(parse(s), -1);
	ck_assert(strstr(E, "nested") != NULL);
	free(s);
	/* $( nesting too. */
	s = malloc(3 * n + 2);
	for (i = 0; i < n; i++)
		memcpy(s + 2 * i, "$(", 2);
	s[2 * n] = 'a';
	for (i = 0; i < n; i++)
		s[2 * n + 1 + i] = ')';
	s[3 * n + 1] = '\0';
	ck_assert_int_eq(parse(s), -1);
	free(s);
	/* Moderate nesting is fine. */
	ck_assert_int_eq(parse("((((a))))"), 0);
	ck_assert_int_eq(parse("( ( ( ( a ) ) ) )"), 0);
	ck_assert_int_ge(find("a"), 0);
	/* Input size cap. */
	s = malloc(SH_MAX_INPUT + 2);
	memset(s, 'a', SH_MAX_INPUT + 1);
	s[SH_MAX_INPUT + 1] = '\0';
	ck_assert_int_eq(parse(s), -1);
	free(s);
}
END_TEST

static Suite *
shell_suite(void)
{
	Suite	*s = suite_create("shell");
	TCase	*tc = tcase_create("parse");

	tcase_add_test(tc, simple_words_and_quotes);
	tcase_add_test(tc, lists_and_pipelines);
	tcase_add_test(tc, substitutions_are_listed);
	tcase_add_test(tc, nested_substitution_in_backticks);
	tcase_add_test(tc, compounds);
	tcase_add_test(tc, redirections);
	tcase_add_test(tc, heredocs);
	tcase_add_test(tc, assignments_and_flags);
	tcase_add_test(tc, continuations_and_comments);
	tcase_add_test(tc, malformed_input);
	tcase_add_test(tc, depth_limits);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	int	 failed;

	failed = unit_run(shell_suite());
	sh_list_free(&L);
	return failed;
}
