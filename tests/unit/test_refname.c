/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for common/refname.c: every name in a table, and a few
 * hundred names drawn at random from the pieces that matter to git's
 * rules, judged the same way as `git check-ref-format` judges them (the
 * real git is run on each one), plus airlock's own length limit.
 */
#include <sys/wait.h>

#include <check.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/refname.h"
#include "tests/unit/unit.h"

extern char **environ;

/* 1 when `git check-ref-format name` accepts name, 0 when it refuses. */
static int
git_says(const char *name)
{
	posix_spawn_file_actions_t fa;
	char		*argv[] = { "git", "check-ref-format", (char *)name,
			    NULL };
	pid_t		 pid;
	int		 st;

	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	ck_assert_msg(posix_spawnp(&pid, "git", &fa, NULL, argv,
	    environ) == 0, "cannot run git");
	posix_spawn_file_actions_destroy(&fa);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) <= 1,
	    "git check-ref-format failed to run (status %d)", st);
	return WEXITSTATUS(st) == 0;
}

static const char *const good[] = {
	"refs/heads/main", "refs/heads/feature/x-1", "refs/tags/v1.0",
	"refs/heads/a.b", "refs/heads/@x", "refs/heads/x@", "refs/heads/@",
	"refs/heads/\xc3\xbcn\xc3\xaf", "refs/heads/a.lockx",
	"refs/heads/x./y", "refs/heads/{a}", "refs/heads/a@b{",
	"refs/heads/lock", "refs/heads/a-lock", "heads/x", "a/b",
	"refs/heads/#x", "refs/heads/a!b", "refs/heads/%41",
	NULL
};
static const char *const bad[] = {
	"", "main", "HEAD", "@", "/refs/heads/x", "refs/heads/x/",
	"refs//heads", "refs/heads/.x", "refs/heads/x.", "refs/.heads/x",
	"refs/heads/x.lock", "refs/heads/x.lock/y", "refs/heads/.lock",
	"refs/heads/a..b", "refs/heads/..", "refs/heads/.", "refs/heads/a b",
	"refs/heads/a~1", "refs/heads/a^", "refs/a:b", "refs/heads/a?",
	"refs/heads/a*", "refs/heads/*", "refs/heads/a[", "refs/a\\b",
	"refs/heads/a@{1}", "refs/heads/@{", "refs/heads/\x01",
	"refs/heads/\x1f", "refs/heads/\x7f", "refs/heads/a\tb",
	"refs/heads/a\nb", "./refs/x", "refs/heads/x/.",
	NULL
};

START_TEST(table)
{
	int	i;

	for (i = 0; good[i] != NULL; i++) {
		ck_assert_msg(refname_valid(good[i]), "refused %s", good[i]);
		ck_assert_msg(git_says(good[i]), "git refuses %s", good[i]);
	}
	for (i = 0; bad[i] != NULL; i++) {
		ck_assert_msg(!refname_valid(bad[i]), "accepted %s", bad[i]);
		/* git can be given neither an empty name nor an argument
		 * that is not there; the rest it refuses as we do. */
		if (bad[i][0] != '\0')
			ck_assert_msg(!git_says(bad[i]), "git accepts %s",
			    bad[i]);
	}
	ck_assert(!refname_valid(NULL));
}
END_TEST

/*
 * Names built from the pieces git's rules look at, in every order: the
 * judgement must be git's for each.  A fixed seed keeps a failure
 * reproducible; the name is in the message.
 */
START_TEST(random_like_git)
{
	static const char *const piece[] = {
		"refs", "heads", "a", "x", "/", "/", ".", "..", ".lock",
		"lock", "@", "{", "}", "@{", "~", "^", ":", "?", "*", "[",
		"]", "\\", " ", "\x01", "\x7f", "\xc3\xa9", "-", "_", "#",
	};
	const size_t	 np = sizeof(piece) / sizeof(piece[0]);
	char		 name[128];
	unsigned int	 seed = 29;
	int		 i, j, n, agree = 0, valid = 0;

	for (i = 0; i < 400; i++) {
		name[0] = '\0';
		if (i % 2 == 0)
			strcpy(name, "refs/");
		n = 1 + rand_r(&seed) % 6;
		for (j = 0; j < n; j++)
			strcat(name, piece[rand_r(&seed) % np]);
		/* git would take a leading '-' for an option. */
		if (name[0] == '\0' || name[0] == '-')
			continue;
		ck_assert_msg(refname_valid(name) == git_says(name),
		    "airlock says %d, git the other, for \"%s\"",
		    refname_valid(name), name);
		agree++;
		valid += refname_valid(name);
	}
	/* Both kinds were drawn, so the comparison meant something. */
	ck_assert_int_gt(valid, 20);
	ck_assert_int_gt(agree - valid, 20);
}
END_TEST

START_TEST(length)
{
	char	ref[REFNAME_MAX + 16];

	memset(ref, 'a', sizeof(ref));
	memcpy(ref, "refs/heads/", 11);
	ref[REFNAME_MAX + 1] = '\0';
	ck_assert(!refname_valid(ref));
	ref[REFNAME_MAX] = '\0';
	ck_assert(refname_valid(ref));
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("refname");
	TCase	*tc = tcase_create("refname");

	/* A guard against a hang, not a bound: 400 runs of git under load. */
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, table);
	tcase_add_test(tc, random_like_git);
	tcase_add_test(tc, length);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
