// SPDX-License-Identifier: ISC
/*
 * The child side of one command, between init's fork and execve.  It
 * inherits init's confinement (namespaces, root, Landlock, no
 * capabilities) and adds what is per command: its own session (so it
 * cannot reach the caller's terminal, R-L6), stdio on /dev/null and two
 * pipes, no other fd (R-L7), the plan's rlimits (R-S4), no_new_privs and
 * the seccomp filters airlockd compiled (R-L6), loaded last so that they
 * constrain the command and not this setup.  A failure is written to the
 * report pipe, which closes by itself on a successful execve, so init
 * can tell "could not start" from "started and exited".
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher/launcher.h"

extern char **environ;

/*
 * Load every seccomp program of the plan once, in a throwaway child, so
 * that a program the kernel rejects fails the launch (MSG_LAUNCH_FAILED)
 * instead of every exec.
 */
void
exec_check_seccomp(const struct launch_plan *plan)
{
	const struct launch_item	*it;
	struct sock_fprog		 prog;
	int				 status;
	pid_t				 pid;

	if ((pid = fork()) == -1)
		die("fork");
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
			_exit(errno);
		PLAN_FOREACH(it, plan, MSG_PLAN_SECCOMP) {
			prog.len = (unsigned short)(it->len /
			    sizeof(prog.filter[0]));
			prog.filter = it->data;
			if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    (it->flags & PLAN_SECF_NOTIFY) ?
			    SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog) == -1)
				_exit(errno);
		}
		_exit(0);
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			die("waitpid");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	errno = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	die("seccomp program rejected by the kernel");
}

static void __attribute__((noreturn))
exec_fail(const struct exec_req *req, const char *what, const char *arg)
{
	struct exec_failure	f;

	memset(&f, 0, sizeof(f));
	f.err = errno;
	snprintf(f.what, sizeof(f.what), "%s%s%s", what, arg ? " " : "",
	    arg ? arg : "");
	/* Nothing more to do if even this fails: init sees a bare exit. */
	if (write(req->report, &f, sizeof(f)) != (ssize_t)sizeof(f))
		_exit(127);
	_exit(127);
}

void
exec_child(const struct launch_plan *plan, const struct exec_req *req)
{
	const struct launch_item	*it;
	struct sock_fprog		 prog;
	struct rlimit			 rl;
	sigset_t			 none;
	unsigned int			 flags;
	int				 fd, sig;

	/* Init blocks and catches signals; a command starts clean. */
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
		exec_fail(req, "sigprocmask", NULL);
	for (sig = 1; sig < NSIG; sig++)
		(void)signal(sig, SIG_DFL);
	if (setsid() == -1)
		exec_fail(req, "setsid", NULL);

	if ((fd = open("/dev/null", O_RDONLY)) == -1)
		exec_fail(req, "open", "/dev/null");
	if (dup2(fd, 0) == -1 || dup2(req->out, 1) == -1 ||
	    dup2(req->err, 2) == -1)
		exec_fail(req, "dup2", NULL);
	/* Everything else, the channel included, closes at execve. */
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == -1)
		exec_fail(req, "close_range", NULL);

	PLAN_FOREACH(it, plan, MSG_PLAN_RLIMIT) {
		rl.rlim_cur = it->soft;
		rl.rlim_max = it->hard;
		if (setrlimit((int)it->op, &rl) == -1)
			exec_fail(req, "setrlimit", NULL);
	}
	if (chdir(req->cwd) == -1)
		exec_fail(req, "chdir", req->cwd);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		exec_fail(req, "PR_SET_NO_NEW_PRIVS", NULL);

	PLAN_FOREACH(it, plan, MSG_PLAN_SECCOMP) {
		prog.len = (unsigned short)(it->len / sizeof(prog.filter[0]));
		prog.filter = it->data;
		flags = 0;
		if (it->flags & PLAN_SECF_NOTIFY)
			flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
		if ((fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    flags, &prog)) == -1)
			exec_fail(req, "seccomp", NULL);
		/*
		 * TODO(notify): hand this listener to init (SCM_RIGHTS over
		 * a socketpair made before the fork) for the R-L4 handler.
		 * Until then it is closed at execve, and a USER_NOTIF rule
		 * makes its syscall fail with ENOSYS: closed, not open.
		 */
		if (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER)
			(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	}

	/* execvpe searches the PATH of environ: make it the command's. */
	environ = req->envp;
	execvpe(req->argv[0], req->argv, req->envp);
	exec_fail(req, "execve", req->argv[0]);
}
