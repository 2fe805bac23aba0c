// SPDX-License-Identifier: ISC
/*
 * Unit tests for the client's option table (client/cli_opt.c): names
 * and aliases found for the right commands only, the parser's values,
 * SRC[:DST] of the bind options, and refusals that exit 2.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cli.h"
#include "client/cli_opt.h"
#include "common/xmalloc.h"
#include "tests/unit/unit.h"

START_TEST(find)
{
	const struct cli_opt *o, *e;

	e = cli_opt_find(CLI_RUN, "--env", 5);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_eq(cli_opt_find(CLI_RUN, "-e", 2), e);
	/* A name is matched whole: --bind is not --bind-try. */
	o = cli_opt_find(CLI_RUN, "--bind-try", 10);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(o->name, "--bind-try");
	ck_assert_ptr_null(cli_opt_find(CLI_RUN, "--bin", 5));
	/* Each command its own: shell takes no --bind, run no --cwd. */
	ck_assert_ptr_null(cli_opt_find(CLI_SHELL, "--bind", 6));
	ck_assert_ptr_null(cli_opt_find(CLI_RUN, "--cwd", 5));
	ck_assert_ptr_nonnull(cli_opt_find(CLI_SHELL, "--cwd", 5));
	ck_assert_ptr_nonnull(cli_opt_find(CLI_CLAUDE, "--claude", 8));
	ck_assert_ptr_null(cli_opt_find(CLI_RUN, "--claude", 8));
}
END_TEST

static int
walk_own(void *arg, const struct cli_opt *o, const char *a, const char *v)
{
	const char	**given = arg;

	(void)a;
	if (o != NULL && strcmp(o->name, "--claude") == 0)
		*given = v;
	return 0;
}

/* The adapters' walk: the run's options passed on by their long names
 * with their values, the adapter's own kept, the command's index. */
START_TEST(walk)
{
	char		*argv[] = { "claude", "-e", "A=1", "--chdir=x", "-t",
	    "--claude", "/bin/c", "--", "arg", NULL };
	char		**pass = NULL;
	const char	*given = NULL;
	int		 i;

	i = cli_opt_walk(CLI_CLAUDE, "airlock claude", 9, argv, walk_own,
	    &given, &pass);
	ck_assert_int_eq(i, 8);
	ck_assert_str_eq(given, "/bin/c");
	ck_assert_ptr_nonnull(pass);
	ck_assert_str_eq(pass[0], "--env");
	ck_assert_str_eq(pass[1], "A=1");
	ck_assert_str_eq(pass[2], "--chdir");
	ck_assert_str_eq(pass[3], "x");
	ck_assert_str_eq(pass[4], "-t");
	ck_assert_ptr_null(pass[5]);
	strv_free(pass);
}
END_TEST

START_TEST(table)
{
	const struct cli_opt *o, *p;

	for (o = cli_opts; o->name != NULL; o++) {
		ck_assert_msg(o->name[0] == '-', "%s", o->name);
		/* run's options all have a setter, but --help. */
		if ((o->cmds & CLI_RUN) && strcmp(o->name, "--help") != 0)
			ck_assert_msg(o->set != NULL, "%s", o->name);
		for (p = o + 1; p->name != NULL; p++)
			ck_assert_msg(strcmp(o->name, p->name) != 0 ||
			    (o->cmds & p->cmds) == 0, "%s twice", o->name);
	}
}
END_TEST

START_TEST(parse)
{
	struct run_opts	 o;
	char		*av[] = { "run", "-e", "A_1=x", "--chdir", "sub",
	    "--bind", "/tmp:/tmp", "--ro-bind=/usr", "--mode=plan", "-T",
	    "--pids", "7", "--", "cmd", "arg", NULL };
	int		 i;

	run_opts_init(&o);
	i = cli_opt_parse(CLI_RUN, "airlock run", "", 15, av, &o);
	ck_assert_int_eq(i, 13);
	ck_assert_str_eq(o.envs[0], "A_1=x");
	ck_assert_str_eq(o.chdir, "sub");
	ck_assert_str_eq(o.binds[0], "/tmp");
	ck_assert_str_eq(o.robinds[0], "/usr");
	ck_assert_str_eq(o.mode, "plan");
	ck_assert_int_eq(o.tty, 0);
	ck_assert_int_eq(o.pids, 7);
	run_opts_free(&o);
	/* The first word that is not an option starts the command. */
	run_opts_init(&o);
	ck_assert_int_eq(cli_opt_parse(CLI_RUN, "airlock run", "", 3,
	    (char *[]){ "run", "--quiet", "ls", NULL }, &o), 2);
	ck_assert_int_eq(o.quiet, 1);
	run_opts_free(&o);
}
END_TEST

/* --bind SRC:DST and --bind-try SRC:DST keep their DST, "" for none. */
START_TEST(bind_elsewhere)
{
	struct run_opts	 o;
	char		*av[] = { "run", "--bind", "/tmp:/srv/x", "--bind",
	    "/usr", "--bind-try", "/tmp:/srv/t", "--", "true", NULL };

	run_opts_init(&o);
	ck_assert_int_eq(cli_opt_parse(CLI_RUN, "airlock run", "", 9, av,
	    &o), 8);
	ck_assert_str_eq(o.binds[0], "/tmp");
	ck_assert_str_eq(o.bind_dsts[0], "/srv/x");
	ck_assert_str_eq(o.binds[1], "/usr");
	ck_assert_str_eq(o.bind_dsts[1], "");
	ck_assert_str_eq(o.trybinds[0], "/tmp");
	ck_assert_str_eq(o.trybind_dsts[0], "/srv/t");
	run_opts_free(&o);
}
END_TEST

/* Each refusal exits 2 (the test is forked). */
static void
refused(char *a, char *b)
{
	struct run_opts	 o;
	char		*av[] = { "run", a, b, "--", "true", NULL };

	run_opts_init(&o);
	(void)cli_opt_parse(CLI_RUN, "airlock run", "", b != NULL ? 5 : 2,
	    av, &o);
}

START_TEST(bind_dst_proc) { refused("--bind", "/tmp:/proc/x"); } END_TEST
START_TEST(bind_no_dst) { refused("--ro-bind", "/tmp:"); } END_TEST
START_TEST(env_digit) { refused("-e", "1BAD=x"); } END_TEST
START_TEST(unknown) { refused("--bogus", NULL); } END_TEST
START_TEST(flag_value) { refused("--quiet=1", NULL); } END_TEST
START_TEST(no_value) { refused("--chdir", NULL); } END_TEST
START_TEST(bad_mode) { refused("--mode", "write"); } END_TEST

int
main(void)
{
	Suite	*s = suite_create("cliopt");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, find);
	tcase_add_test(tc, table);
	tcase_add_test(tc, parse);
	tcase_add_test(tc, walk);
	tcase_add_test(tc, bind_elsewhere);
	tcase_add_exit_test(tc, bind_dst_proc, 2);
	tcase_add_exit_test(tc, bind_no_dst, 2);
	tcase_add_exit_test(tc, env_digit, 2);
	tcase_add_exit_test(tc, unknown, 2);
	tcase_add_exit_test(tc, flag_value, 2);
	tcase_add_exit_test(tc, no_value, 2);
	tcase_add_exit_test(tc, bad_mode, 2);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
