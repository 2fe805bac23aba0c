/* SPDX-License-Identifier: ISC */
/*
 * Self-restriction of a daemon after start-up (SPEC R-P2), in the spirit
 * of OpenBSD's unveil and pledge: Landlock with a static path table
 * (unveil), a seccomp allowlist built from named syscall groups (pledge),
 * no capabilities and no_new_privs.  One call, at the top of a daemon's
 * main after its setup, before it reads a byte from anyone.
 *
 * Fail closed: a missing Landlock is reported in the summary and logged
 * loudly, never papered over; seccomp or capability failures are fatal.
 */
#ifndef AIRLOCK_SANDBOX_SELF_H
#define AIRLOCK_SANDBOX_SELF_H

#include <stddef.h>
#include <stdint.h>

/* Landlock filesystem rights for a path rule (values of the kernel ABI). */
#define SBX_FS_EXECUTE		(1ULL << 0)
#define SBX_FS_WRITE_FILE	(1ULL << 1)
#define SBX_FS_READ_FILE	(1ULL << 2)
#define SBX_FS_READ_DIR		(1ULL << 3)
#define SBX_FS_REMOVE_DIR	(1ULL << 4)
#define SBX_FS_REMOVE_FILE	(1ULL << 5)
#define SBX_FS_MAKE_DIR		(1ULL << 7)
#define SBX_FS_MAKE_REG		(1ULL << 8)
#define SBX_FS_MAKE_SYM		(1ULL << 12)

/* A path the process may still use, and how. */
struct sbx_path {
	const char	*path;
	uint64_t	 access;	/* SBX_FS_* */
};

/* Syscall groups (pledge-like promises). */
#define SBX_SYS_STDIO	(1U << 0)	/* memory, time, fd I/O */
#define SBX_SYS_EVENT	(1U << 1)	/* epoll/poll, eventfd, pipes */
#define SBX_SYS_INET	(1U << 2)	/* TCP/UDP clients, accept */
#define SBX_SYS_SPLICE	(1U << 3)	/* splice(2) relays */
#define SBX_SYS_RPATH	(1U << 4)	/* open (Landlock limits) */
#define SBX_SYS_UNIX	(1U << 5)	/* fd passing on unix sockets */
#define SBX_SYS_WPATH	(1U << 6)	/* create, clone (FICLONE), remove
					   files; set modes and times */
#define SBX_SYS_THREAD	(1U << 7)	/* pthreads: clone(CLONE_THREAD) */
#define SBX_SYS_EMULATE	(1U << 8)	/* perform a sandboxed process's
					   calls (airlock-guard): the seccomp
					   notification ioctls, its memory
					   and sockets, the *at writes, bind
					   and connect, fork */

struct sbx_profile {
	const char		*name;		/* for log lines */
	const struct sbx_path	*paths;		/* Landlock rules */
	size_t			 npaths;
	unsigned		 groups;	/* SBX_SYS_* */
	int			 in_domain;	/* acts for processes of its
						   own Landlock domain: keeps
						   it, adds no layer (paths
						   unused) */
};

/*
 * Restrict the calling process (all threads must not exist yet).
 * Returns 0; on a failure that leaves the process less restricted than
 * asked, it calls fatal(): a daemon does not run half-sandboxed.  A kernel
 * without Landlock is the one exception: it is logged as a warning and
 * shown in the summary.
 */
int		 sandbox_self(const struct sbx_profile *);

/* One line describing what sandbox_self() did, for MSG_HELLO. */
const char	*sandbox_self_summary(void);

#endif
