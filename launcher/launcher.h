/* SPDX-License-Identifier: ISC */
/*
 * airlock-launcher: builds ONE sandbox from a fully resolved plan sent by
 * airlockd on fd 3, then stays as the sandbox's init (pid 1 of its pid
 * namespace) and runs commands in it on request.  Nothing here decides
 * anything: every path, flag, rule and filter arrives in the plan.  Any
 * failure while building is die(): MSG_LAUNCH_FAILED and exit, no
 * recovery paths (bubblewrap style).
 *
 * One file per concern: main.c (the sequence), plan.c (receive and hold
 * the plan), ns.c (namespaces, id maps), net.c (loopback, listeners),
 * mount.c (the root), landlock.c, caps.c, init.c (pid 1, which starts
 * airlock-guard: the filename rules, R-L4), exec.c (the child side of one
 * command).
 */
#ifndef AIRLOCK_LAUNCHER_H
#define AIRLOCK_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/msg_launch.h"

/*
 * One entry of the plan, in the order received.  Which fields are used
 * depends on type (MSG_PLAN_*):
 *   OP:       op, flags, src, dst
 *   FILE:     dst, mode, data/len
 *   LANDLOCK: access, dst (the path)
 *   RLIMIT:   op (resource), soft, hard
 *   SECCOMP:  flags (PLAN_SECF_*), data/len (struct sock_filter[])
 *   LISTEN:   op (LISTEN_*), port (filled in when the socket is made)
 *   WRITE_RULE: op (NR_*), src (pattern), dst (exception, maybe "")
 */
struct launch_item {
	struct launch_item *next;
	uint16_t	 type;
	uint32_t	 op;
	uint32_t	 flags;
	uint32_t	 mode;
	uint64_t	 access;
	uint64_t	 soft;
	uint64_t	 hard;
	uint16_t	 port;
	char		*src;
	char		*dst;
	void		*data;
	size_t		 len;
};

struct launch_plan {
	char		*session;
	uint32_t	 flags;		/* PLAN_F_* */
	uint32_t	 uid;
	uint32_t	 gid;
	struct launch_item *items;
	struct launch_item **tail;
};

/* Iterate over the plan's entries of one MSG_PLAN_* type, in order. */
#define PLAN_FOREACH(it, plan, t)					\
	for ((it) = (plan)->items; (it) != NULL; (it) = (it)->next)	\
		if ((it)->type == (t))

/* main.c: the link to airlockd and failure reporting. */
extern struct msg_link launch_link;
extern int launch_ready;	/* MSG_LAUNCH_READY sent: no LAUNCH_FAILED */
extern int launch_guard_exe;	/* airlock-guard, O_PATH, from the host */
void	launch_die(int with_errno, const char *, ...)
	    __attribute__((format(printf, 2, 3), noreturn));
#define die(...)	launch_die(1, __VA_ARGS__)	/* ": strerror" */
#define diex(...)	launch_die(0, __VA_ARGS__)

/* plan.c */
void	plan_recv(struct launch_plan *);

/* ns.c */
void	ns_enter(void);

/* net.c */
void	net_setup(struct launch_plan *);

/* mount.c */
void	mount_build(const struct launch_plan *);

/* landlock.c: returns the ABI used (0: none); *gaps gets LL_GAP_*. */
uint32_t landlock_apply(const struct launch_plan *, uint32_t *gaps);
void	 landlock_nest(const struct launch_plan *, uint32_t abi);

/* caps.c */
void	caps_drop_all(void);

/* init.c */
void	init_main(int pidpipe) __attribute__((noreturn));

/* exec.c: the child side of one command; never returns. */
struct exec_req {
	uint32_t	 id;
	const char	*cwd;
	char		**argv;
	char		**envp;
	int		 in;		/* stdin, or -1 for /dev/null */
	int		 pty;		/* out is a pty: make it the ctty */
	int		 out;		/* write end of stdout pipe */
	int		 err;		/* write end of stderr pipe */
	int		 report;	/* CLOEXEC pipe for exec failures */
	int		 guard;		/* to airlock-guard: listener */
};
struct exec_failure {
	int32_t		 err;
	char		 what[120];
};
void	exec_check_seccomp(const struct launch_plan *);
void	exec_child(const struct launch_plan *, const struct exec_req *)
	    __attribute__((noreturn));

#endif
