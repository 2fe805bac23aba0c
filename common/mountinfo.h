/* SPDX-License-Identifier: ISC */
/*
 * One field of /proc/self/mountinfo, parsed without I/O so that it can be
 * unit-tested: the launcher links this file (libc only).
 */
#ifndef AIRLOCK_MOUNTINFO_H
#define AIRLOCK_MOUNTINFO_H

/*
 * The mount point of one mountinfo line ("id parent major:minor root
 * MOUNTPOINT options ..."), with the kernel's octal escapes (\040 for a
 * space, ...) undone.  Modifies line in place; NULL for a short line.
 */
char	*mountinfo_point(char *line);

#endif
