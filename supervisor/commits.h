/* SPDX-License-Identifier: ISC */
/*
 * What the agent commits, the host checks out (SPEC R-L3).  A sandbox
 * may write git objects, the index and refs, so a commit, a tag or an
 * index entry can hold a path the filename rules would refuse to write
 * (.husky/_/pre-commit, .claude/settings.json); the host's own `git
 * reset --hard` or checkout would then write it.  airlockd takes a
 * snapshot of the refs, HEADs and indexes of the repositories of a
 * session's writable binds at launch and, once its sandbox has ended,
 * holds every ref moved to commits that add or change a protected path
 * (put back, the commit kept under refs/airlock/held/<session>/<ref>)
 * and restores every such index entry.
 */
#ifndef AIRLOCK_COMMITS_H
#define AIRLOCK_COMMITS_H

#include <sys/types.h>

struct namerule_set;
struct commits_snap;

/* The snapshot of the repositories at and below each of tops. */
struct commits_snap *commits_snapshot(char *const *tops);
/* -1 and why in err if a judge still works on one of its repositories
 * (its commits would look like the launch's own). */
int	commits_busy(struct commits_snap *, char *err, size_t errlen);

/*
 * What commits_judge() did, one call each: kind "ref" (ref held as
 * held, take: the command that takes it), "index" (an entry restored,
 * ref NULL), "pseudo" (ORIG_HEAD and the like put back); rule: the rule
 * that protects path when its name does not say it, else "".
 */
typedef void	 commits_report(void *arg, const char *kind,
		    const char *repo, const char *ref, const char *path,
		    const char *rule, const char *held, const char *take);

/*
 * After the sandbox ended: judge what moved against rules (the
 * session's filename rules) and put it back; sid names the held refs.
 * Frees snap.
 */
void	commits_judge(struct commits_snap *snap,
	    const struct namerule_set *rules, const char *sid,
	    commits_report *report, void *arg);
void	commits_free(struct commits_snap *);
/* Whether there is a repository to judge (at launch or made during
 * the run); none needs no judge. */
int	commits_pending(struct commits_snap *);

/*
 * commits_judge() in a child process, so that airlockd's event loop
 * goes on while its git runs: takes snap; NULL if no child could be
 * made (snap untouched: judge in place).  The job's fd (non-blocking) is read
 * with commits_job_read() whenever readable: each report is told, and
 * 1 is returned when the judge has ended, 0 while it goes on, -1 when
 * it ended without finishing (died, or spoke garbage): then
 * commits_job_snap() gives the snapshot back, to judge in place (what
 * the child put back already is found in place).  commits_job_wait()
 * blocks until the end.  The child is reaped by airlockd's SIGCHLD
 * handler as any other; commits_job_free() closes and frees.
 */
struct commits_job;
struct commits_job *commits_judge_start(struct commits_snap *snap,
	    const struct namerule_set *rules, const char *sid);
int	commits_job_fd(const struct commits_job *);
pid_t	commits_job_pid(const struct commits_job *);
int	commits_job_read(struct commits_job *, commits_report *, void *);
int	commits_job_wait(struct commits_job *, commits_report *, void *);
struct commits_snap *commits_job_snap(struct commits_job *);
void	commits_job_free(struct commits_job *);

#endif
