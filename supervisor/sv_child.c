// SPDX-License-Identifier: ISC
/*
 * Starting children: the launcher (one per sandbox) and the daemons.
 * fork+exec, never fork alone, so that no secret in airlockd's memory is
 * in a child's (OpenBSD imsg daemons, STYLE.md).  The channel is one end
 * of a SOCK_STREAM socketpair on fd 3; stdin is /dev/null; stdout goes to
 * stderr, which is the log; nothing else is inherited.  Every child gets
 * PR_SET_PDEATHSIG(SIGKILL): if airlockd dies, its sandboxes and daemons
 * die with it rather than run on unsupervised (fail closed, R-P1).
 *
 * vfork, not fork: the child only sets up its descriptors and
 * execs, so it borrows airlockd's memory instead of copying its page
 * tables and making airlockd fault on every page it writes afterwards,
 * a large share of a cold `airlock run` on a virtual machine.  Signals
 * are blocked across it, so that no handler of airlockd's (libevent's)
 * runs in the child on the shared memory; the child sets its own
 * dispositions to the default before it unblocks them.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/host/paths.h"
#include "common/log.h"
#include "common/sigdfl.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"

#ifndef AIRLOCK_LIBEXECDIR
#define AIRLOCK_LIBEXECDIR "/usr/local/libexec/airlock"
#endif

/*
 * The helpers are found once, at airlockd's start and before any sandbox
 * runs (sv_siblings_init): next to airlockd, else in AIRLOCK_LIBEXECDIR.
 * A daemon starts when a sandbox first connects to it, long after; found
 * again then, a file planted next to airlockd where the helper was
 * missing (by a sandbox that can write that directory) would have run
 * outside any sandbox.
 */
static const char *const helpers[] = {
	"airlock-launcher", "airlock-proxyd", "airlock-gatewayd",
	"airlock-fs", "airlock-clone",
};
static char	*helper_path[sizeof(helpers) / sizeof(helpers[0])];

void
sv_siblings_init(void)
{
	size_t	i;

	for (i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++)
		if (helper_path[i] == NULL)
			helper_path[i] = airlock_sibling(helpers[i],
			    AIRLOCK_LIBEXECDIR);
}

char *
sv_sibling(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++)
		if (helper_path[i] != NULL && strcmp(name, helpers[i]) == 0)
			return xstrdup(helper_path[i]);
	return airlock_sibling(name, AIRLOCK_LIBEXECDIR);
}

pid_t
sv_spawn(const char *path, char *const argv[], int *fdp)
{
	int		sp[2], devnull, serr;
	pid_t		pid, ppid = getpid();
	sigset_t	all, old;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1)
		return -1;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if ((pid = vfork()) == -1) {
		serr = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(sp[0]);
		close(sp[1]);
		errno = serr;
		return -1;
	}
	if (pid == 0) {
		/* Shares airlockd's memory until execv: no stdio, no
		 * malloc, no return; _exit only. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 ||
		    getppid() != ppid)
			_exit(127);
		if (sp[1] != MSG_CHILD_FD) {
			if (dup2(sp[1], MSG_CHILD_FD) == -1)
				_exit(127);
		} else if (fcntl(sp[1], F_SETFD, 0) == -1)
			_exit(127);
		if ((devnull = open("/dev/null", O_RDONLY)) == -1 ||
		    dup2(devnull, STDIN_FILENO) == -1 ||
		    dup2(STDERR_FILENO, STDOUT_FILENO) == -1)
			_exit(127);
		if (syscall(SYS_close_range, MSG_CHILD_FD + 1, ~0U, 0) == -1)
			for (int fd = MSG_CHILD_FD + 1; fd < 1024; fd++)
				close(fd);
		/* Caught ones (exec would reset them anyway), and the two
		 * airlockd ignores; what the user ignored stays ignored. */
		sig_default_caught();
		(void)signal(SIGPIPE, SIG_DFL);
		(void)signal(SIGCHLD, SIG_DFL);
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		execv(path, argv);
		{
			/* One write(2), as stdio would share airlockd's. */
			const char *e = strerror(errno);

			(void)!write(STDERR_FILENO, "airlockd: exec ", 15);
			(void)!write(STDERR_FILENO, path, strlen(path));
			(void)!write(STDERR_FILENO, ": ", 2);
			(void)!write(STDERR_FILENO, e, strlen(e));
			(void)!write(STDERR_FILENO, "\n", 1);
		}
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(sp[1]);
	*fdp = sp[0];
	return pid;
}
