/* SPDX-License-Identifier: ISC */
/*
 * The effective hooks directory (SPEC R-L3): what core.hooksPath names
 * for the repositories of a writable bind, so that the plan protects it
 * like .git/hooks (supervisor/sv_plan.c).
 */
#ifndef AIRLOCK_HOOKSPATH_H
#define AIRLOCK_HOOKSPATH_H

/*
 * For the repositories at and below top (a writable bind; a few levels,
 * a bounded number), core.hooksPath as git, run as the user with home
 * as $HOME, reads it in every scope: absolute paths (as written and
 * resolved) and, for a relative value, that value too (a name at any
 * depth: another repository of the tree with the same layout), each
 * escaped as a namerule glob.  NULL if none.
 */
char	**hookspath_find(const char *top, const char *home);

#endif
