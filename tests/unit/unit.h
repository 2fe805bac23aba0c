/* SPDX-License-Identifier: ISC */
/*
 * What every unit test's main() does once its suite is built: run it,
 * report it the check way, and turn the failures into an exit status.
 */
#ifndef AIRLOCK_TESTS_UNIT_H
#define AIRLOCK_TESTS_UNIT_H

#include <check.h>
#include <ftw.h>
#include <stdio.h>

static inline int
unit_rm1(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path) == 0 ? 0 : -1;
}

/* Remove a test's temporary tree: a test leaves nothing in /tmp. */
static inline void
unit_rmtree(const char *dir)
{
	(void)nftw(dir, unit_rm1, 16, FTW_DEPTH | FTW_PHYS);
}

/* Run s (and free it): 0 if every test passed, else 1. */
static inline int
unit_run(Suite *s)
{
	SRunner	*sr = srunner_create(s);
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}

#endif
