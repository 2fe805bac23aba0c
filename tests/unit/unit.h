/* SPDX-License-Identifier: ISC */
/*
 * What every unit test's main() does once its suite is built: run it,
 * report it the check way, and turn the failures into an exit status.
 */
#ifndef AIRLOCK_TESTS_UNIT_H
#define AIRLOCK_TESTS_UNIT_H

#include <check.h>

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
