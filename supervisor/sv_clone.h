// SPDX-License-Identifier: ISC
/*
 * One airlock-clone run, for the two modules that start them (worktree
 * provisioning, sv_worktree.c, and spare copies, sv_wtspare.c): spawn
 * with the access check, read its frames, hand each PROGRESS and the one
 * DONE to the caller, and tell it when the helper's link has closed.
 */
#ifndef AIRLOCK_SV_CLONE_H
#define AIRLOCK_SV_CLONE_H

#include <sys/types.h>

#include <stdint.h>

#include "common/msg.h"

/* What airlock-clone's DONE frame says (common/msg.h, MSG_CL_DONE). */
struct sv_clone_done {
	int		 err;		/* 0: done, else an errno */
	uint64_t	 files, bytes, skipped, vanished;
	const char	*why;		/* a sentence or ""; valid during
					   the callback only */
};

struct sv_clone {
	pid_t		 pid;		/* -1: none running */
	int		 linked;
	int		 got_done;
	struct msg_link	 link;
	struct event	*ev;
	/* Callbacks; progress may be NULL.  ended runs once per helper,
	 * after its link is closed: got_done says whether DONE came. */
	void		(*progress)(void *, uint64_t files, uint64_t bytes);
	void		(*done)(void *, const struct sv_clone_done *);
	void		(*ended)(void *, int got_done);
	void		*arg;
};

/* pid -1, nothing linked. */
void	sv_clone_init(struct sv_clone *, void *arg);
/*
 * Start airlock-clone ARGV (argv[0] "airlock-clone").  -1: not started,
 * with a sentence for a person in err; no callback then runs.
 */
int	sv_clone_spawn(struct sv_clone *, char **argv, char *err,
	    size_t errlen);
/* Close the link and drop the event (the helper, if any, is reaped by
 * airlockd's SIGCHLD handler); no callback runs. */
void	sv_clone_close(struct sv_clone *);

#endif
