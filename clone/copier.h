/* SPDX-License-Identifier: ISC */
/*
 * The tree copier of airlock-clone (SPEC §5, R-W1/R-W3): a whole
 * directory tree recreated copy-on-write.  Regular files are cloned with
 * FICLONE (reflink) and nothing else: a filesystem that cannot share
 * extents fails the copy, it never falls back to copying bytes.
 * Directories, symlinks, modes and times are recreated; fifos, sockets
 * and devices are skipped and counted; entries that vanish while the walk
 * runs are counted, not errors.  Every name is resolved relative to its
 * directory's fd (openat, fdopendir): no path is walked twice.
 *
 * Shared by airlock-clone and the copier's property test, which links
 * this file alone.
 */
#ifndef AIRLOCK_COPIER_H
#define AIRLOCK_COPIER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Counters, updated while the copy runs (read them with cp_stats_get). */
struct cp_stats {
	uint64_t	files;		/* regular files cloned */
	uint64_t	bytes;		/* their apparent size */
	uint64_t	dirs;
	uint64_t	symlinks;
	uint64_t	skipped;	/* fifos, sockets, devices */
	uint64_t	vanished;	/* gone between listing and copying */
	uint64_t	changed;	/* cp_update: entries re-made or removed */
};

struct cp_job;

/*
 * Copy the tree under the directory srcfd into the existing, empty
 * directory dstfd with nthreads workers (>= 1).  Neither fd is consumed.
 * The copy runs in the background: poll it with cp_wait().
 * Returns NULL with errno set when it cannot start.
 */
struct cp_job	*cp_start(int srcfd, int dstfd, int nthreads);
/*
 * cp_start for a spare copy that cp_update will bring up to date: each
 * directory of the copy also carries its source directory's identity
 * (an extended attribute, which cp_update checks and removes).
 */
struct cp_job	*cp_spare(int srcfd, int dstfd, int nthreads);
/*
 * Bring dstfd, a complete copy of the tree under srcfd that cp_start
 * began at or after *since (CLOCK_REALTIME), up to date with it: what
 * changed in the source since then (by ctime, which nothing but the
 * kernel sets, and by each directory's listing) is made again or removed;
 * the rest is kept as it is.  The counters then describe the whole tree,
 * as a copy would, and `changed` what had to be redone.  Polled like
 * cp_start's job.
 */
struct cp_job	*cp_update(int srcfd, int dstfd, const struct timespec *since,
		    int nthreads);
/*
 * Wait up to ms milliseconds; 1 when the copy has finished, 0 if not yet.
 * The counters so far are copied to *st either way.
 */
int		 cp_wait(struct cp_job *, unsigned ms, struct cp_stats *st);
/*
 * After cp_wait() returned 1: 0 on success, else the errno of the first
 * failure, with a sentence in msg naming what failed and, for a
 * filesystem that cannot reflink, the filesystem and the fix.
 */
int		 cp_result(struct cp_job *, char *msg, size_t msglen);
void		 cp_free(struct cp_job *);

/*
 * Remove everything beneath the directory dirfd (not the directory
 * itself), without following symlinks; directories we own but may not
 * write are made writable first.  *count grows by the entries removed.
 * 0, or -1 with errno and a sentence in msg.
 */
int		 cp_empty_dir(int dirfd, uint64_t *count, char *msg,
		    size_t msglen);

/* The name of a filesystem by its statfs f_type ("xfs", "ext4", ...). */
const char	*cp_fs_name(long f_type);

#endif
