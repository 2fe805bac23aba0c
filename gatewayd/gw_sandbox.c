/* SPDX-License-Identifier: ISC */
/*
 * gatewayd restricts itself (R-P2) once its CA store, resolver
 * configuration and channel are set up, before it reads a byte from the
 * sandbox or the network:
 *   - no_new_privs, not dumpable (it holds write tokens for one push),
 *     every capability dropped (permitted, effective, inheritable, ambient
 *     and the bounding set);
 *   - Landlock handling every filesystem right with no rule at all: the CA
 *     bundles were read at start-up, so no file is needed afterwards;
 *   - a seccomp allowlist (default: kill the process) of what an event
 *     loop with TCP/TLS client sockets, accepted connections and fd
 *     passing on the channel needs.  No open, no exec, no fork.
 * A kernel without Landlock is logged and shown in the summary; any other
 * failure is fatal: the daemon does not run half-restricted.
 *
 * This is written to be replaced by common/sandbox_self.h (a profile with
 * no paths and the STDIO, EVENT, INET and UNIX groups) once that lands.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "gatewayd/gw.h"

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER	(1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE	(1ULL << 14)
#endif

static int
drop_caps(void)
{
	struct __user_cap_header_struct	hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct	data[2];
	int				cap;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1 &&
	    errno != EINVAL)
		return -1;
	for (cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1 &&
		    errno != EINVAL && errno != EPERM)
			return -1;
	memset(data, 0, sizeof(data));
	return (int)syscall(SYS_capset, &hdr, data);
}

/* Returns the ABI used, 0 when the kernel has no Landlock. */
static int
landlock_nothing(void)
{
	struct landlock_ruleset_attr	attr;
	int				abi, fd;

	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi <= 0)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;
	if (abi >= 2)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr,
	    sizeof(attr.handled_access_fs), 0);
	if (fd == -1)
		fatal("landlock_create_ruleset");
	if (syscall(SYS_landlock_restrict_self, fd, 0) == -1)
		fatal("landlock_restrict_self");
	close(fd);
	return abi;
}

static const char *const gw_syscalls[] = {
	/* memory, time, exit */
	"brk", "mmap", "munmap", "mremap", "mprotect", "madvise",
	"clock_gettime", "clock_nanosleep", "nanosleep", "gettimeofday",
	"time", "exit", "exit_group", "getpid", "gettid", "getrandom",
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
	"futex", "restart_syscall", "sched_yield", "uname",
	"prlimit64", "getrlimit",
	/* fds */
	"read", "write", "readv", "writev", "close", "fcntl", "dup",
	"lseek", "fstat", "newfstatat", "ioctl", "pipe2",
	/* event loop */
	"epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
	"poll", "ppoll", "select", "pselect6", "eventfd2", "timerfd_create",
	"timerfd_settime",
	/* sockets: accepted git connections, upstream and DNS clients */
	"socket", "connect", "accept4", "accept", "bind", "getsockname",
	"getpeername", "getsockopt", "setsockopt", "shutdown", "sendto",
	"recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg",
	NULL,
};

char *
gw_restrict_self(void)
{
	scmp_filter_ctx	 ctx;
	char		*summary;
	int		 i, abi, nr;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("no_new_privs");
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		fatal("dumpable");
	if (drop_caps() == -1)
		fatal("dropping capabilities");
	if ((abi = landlock_nothing()) == 0)
		log_warnx("kernel without Landlock: gatewayd's file access "
		    "is limited by seccomp only (no open)");

	if ((ctx = seccomp_init(SCMP_ACT_KILL_PROCESS)) == NULL)
		fatalx("seccomp_init");
	for (i = 0; gw_syscalls[i] != NULL; i++) {
		nr = seccomp_syscall_resolve_name(gw_syscalls[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;	/* not on this architecture */
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0) != 0)
			fatalx("seccomp rule for %s", gw_syscalls[i]);
	}
	if (seccomp_load(ctx) != 0)
		fatalx("seccomp_load");
	seccomp_release(ctx);

	if (abi > 0)
		xasprintf(&summary, "landlock abi %d: no file access; "
		    "seccomp allowlist; no capabilities; no_new_privs", abi);
	else
		xasprintf(&summary, "landlock unavailable; seccomp allowlist "
		    "(no open); no capabilities; no_new_privs");
	return summary;
}
