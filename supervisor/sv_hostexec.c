// SPDX-License-Identifier: ISC
/*
 * The none backend (R-N1): a session without a sandbox runs its commands
 * on the host, with the same streams and events as a sandboxed one.
 * Whatever route led here (a none session, an approved override), a
 * managed sandbox.enabled=true or sandbox.allowUnsandboxedCommands=false
 * refuses the command: the lock holds at the one place every host
 * command passes, not only at the doors in front of it, and as the
 * managed file is now (settings_managed_forbids), so that a lock
 * installed while airlockd runs holds for its sessions already open.
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <linux/close_range.h>
#include <linux/magic.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/host/paths.h"
#include "common/host/wsorigin.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"
#include "supervisor/gwrepo.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"
#include "supervisor/sv_sess.h"

/* The child's failure before its command ran: which step (0 close_range,
 * 1 chdir, 2 execve) and errno, to the parent. */
static void __attribute__((noreturn))
host_exec_fail(int fd, int step, int e)
{
	int	rep[2] = { step, e };

	(void)!write(fd, rep, sizeof(rep));
	_exit(127);
}

int
host_exec(struct sv_exec *x, char *const argv[], const char *cwd,
    char *const envp[], char *errbuf, size_t errlen, int *errnop)
{
	const struct settings *set;
	char	why[512];
	int	out[2], err[2], ep[2], e = 0, rep[2];
	pid_t	pid;
	ssize_t	n;

	set = x->s != NULL && x->s->own_settings != NULL ?
	    x->s->own_settings : ssettings;
	if ((set != NULL && settings_forbid_unconfined(set, why,
	    sizeof(why)) != NULL) || settings_forbid_unconfined(&sv_settings,
	    why, sizeof(why)) != NULL || settings_managed_forbids(why,
	    sizeof(why)) != NULL) {
		*errnop = EPERM;
		snprintf(errbuf, errlen, "a command on the host refused: %s",
		    why);
		log_warnx("%s", errbuf);
		return -1;
	}

	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(err, O_CLOEXEC) == -1 ||
	    pipe2(ep, O_CLOEXEC) == -1) {
		snprintf(errbuf, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		snprintf(errbuf, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int devnull = x->stdin_fd != -1 ? x->stdin_fd :
		    open("/dev/null", O_RDONLY);
		sigset_t all;

		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		signal(SIGPIPE, SIG_DFL);
		(void)setsid();
		if (devnull == -1 || dup2(devnull, 0) == -1 ||
		    dup2(out[1], 1) == -1 || dup2(err[1], 2) == -1)
			_exit(127);
		/* Nothing of airlockd's beyond the three streams: what it
		 * inherited from its own parent is not close-on-exec.  ep[1]
		 * stays open until the exec, to report its failure. */
		if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) ==
		    -1)
			host_exec_fail(ep[1], 0, errno);
		if (chdir(cwd) == -1)
			host_exec_fail(ep[1], 1, errno);
		execvpe(argv[0], argv, envp);
		host_exec_fail(ep[1], 2, errno);
	}
	close(out[1]);
	close(err[1]);
	close(ep[1]);
	do {
		n = read(ep[0], rep, sizeof(rep));
	} while (n == -1 && errno == EINTR);
	close(ep[0]);
	if (n == sizeof(rep)) {
		close(out[0]);
		close(err[0]);
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			;
		/* *errnop is the command's own: only the command missing
		 * is "not found" (127), not a missing working directory. */
		*errnop = rep[0] == 2 ? rep[1] : 0;
		e = rep[1];
		if (rep[0] == 1)
			snprintf(errbuf, errlen, "chdir %s: %s", cwd,
			    strerror(e));
		else if (rep[0] == 0)
			snprintf(errbuf, errlen, "close_range: %s",
			    strerror(e));
		else
			snprintf(errbuf, errlen, "%s: %s", argv[0],
			    strerror(e));
		return -1;
	}
	x->pid = pid;
	exec_streams(x, out[0], err[0]);
	return 0;
}
