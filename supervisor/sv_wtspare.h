/* SPDX-License-Identifier: ISC */
/*
 * Spare copies of registered repositories: after a
 * provisioning, airlockd makes a copy of each repository it copied in
 * the background, under DATADIR/@spares; the next provisioning of the
 * same repository takes it (one rename) and has airlock-clone bring it
 * up to date instead of copying the whole tree.
 */
#ifndef AIRLOCK_SV_WTSPARE_H
#define AIRLOCK_SV_WTSPARE_H

#include <stddef.h>

struct jgen;

#define WT_SPARES_DIR	"@spares"	/* '@': never a conversation id */

extern int	 sv_wtspare_off;	/* --no-spares: take, never make */

/*
 * Move the spare of the repository src (a real path) to dst, which must
 * not exist.  1: dst is now a copy of src made at or after *since
 * (nanoseconds, CLOCK_REALTIME), for `airlock-clone update`; 0: no
 * usable spare, nothing changed.
 */
int	 sv_wtspare_take(const char *datadir, const char *src,
	    const char *dst, long long *since);

/* After a provisioning: make (in the background) a spare of src. */
void	 sv_wtspare_queue(const char *datadir, const char *src);

/* worktree.list: "spares": [{source, ready, since}]. */
void	 sv_wtspare_gen(struct jgen *, const char *datadir);

/* A path a run must never write: datadir/@spares. */
char	*sv_wtspare_dir(const char *datadir);

/*
 * The wall clock was set (sv_clock.c): no spare made before now is
 * taken, and those in the data dirs seen are removed.
 */
void	 sv_wtspare_clock_stepped(void);

/* airlockd exits: a spare half made is left for the next spare job. */
void	 sv_wtspare_stop(void);

#endif
