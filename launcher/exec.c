// SPDX-License-Identifier: ISC
/*
 * The child side of one command, between init's vfork and execve.  It
 * inherits init's confinement (namespaces, root, Landlock, no
 * capabilities) and adds what is per command: its own session (so it
 * cannot reach the caller's terminal, R-L6), stdin from the client's pipe
 * or /dev/null, two pipes or a pty of its own, no other fd (R-L7), the
 * plan's rlimits (R-S4) and the seccomp filters airlockd compiled (R-L6;
 * no_new_privs is init's, inherited), loaded last so that they constrain
 * the command and not this setup.  A failure is written to the report
 * pipe, which closes by itself on a successful execve, so init can tell
 * "could not start" from "started and exited".  The seccomp listener
 * goes to airlock-guard (R-L4) before the execve.  Maybe a vfork child
 * (init.c): our own state only.
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
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
 * Load one program.  A listener's caller waits killably only once init
 * has the call (WAIT_KILLABLE_RECV, 5.19): a signal cannot restart a
 * call init has already performed.  Older kernels load without it.
 */
static int
exec_load(const struct launch_item *it)
{
	struct sock_fprog	prog;
	unsigned int		flags = 0;
	int			fd;

	prog.len = (unsigned short)(it->len / sizeof(prog.filter[0]));
	prog.filter = it->data;
	if (it->flags & PLAN_SECF_NOTIFY)
		flags = SECCOMP_FILTER_FLAG_NEW_LISTENER |
		    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	if (fd == -1 && errno == EINVAL && flags != 0)
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	return fd;
}

/*
 * Load every seccomp program of the plan once, in a throwaway child, so
 * that a program the kernel rejects fails the launch (MSG_LAUNCH_FAILED)
 * instead of every exec.  vfork: the child's calls touch only its own
 * state (per-task filters, its own fd table); a fork cost 3-4 ms here.
 */
void
exec_check_seccomp(const struct launch_plan *plan)
{
	const struct launch_item	*it;
	int				 status;
	pid_t				 pid;

	if ((pid = vfork()) == -1)
		die("vfork");
	if (pid == 0) {
		PLAN_FOREACH(it, plan, MSG_PLAN_SECCOMP)
			if (exec_load(it) == -1)
				_exit(errno);
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

/* One seqpacket to the guard: our exec id, and the listener. */
static int
exec_pass(const struct exec_req *req, int fd)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	align;
	} u;
	struct iovec	 iov = { (void *)&req->id, sizeof(req->id) };
	struct msghdr	 mh = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr	*c = CMSG_FIRSTHDR(&mh);

	memset(&u, 0, sizeof(u));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(req->guard, &mh, MSG_NOSIGNAL) ==
	    (ssize_t)sizeof(req->id) ? 0 : -1;
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
	(void)!write(req->report, &f, sizeof(f));
	_exit(127);
}

void
exec_child(const struct launch_plan *plan, const struct exec_req *req)
{
	const struct launch_item	*it;
	struct rlimit			 rl;
	sigset_t			 none;
	int				 fd, sig;

	/* Init blocks and catches signals; a command starts clean. */
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
		exec_fail(req, "sigprocmask", NULL);
	for (sig = 1; sig < NSIG; sig++)
		(void)signal(sig, SIG_DFL);
	if (setsid() == -1)
		exec_fail(req, "setsid", NULL);

	if (req->pty && ioctl(req->out, TIOCSCTTY, 0) == -1)
		exec_fail(req, "TIOCSCTTY", NULL);
	if ((fd = req->in) == -1 && (fd = open("/dev/null", O_RDONLY)) == -1)
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

	PLAN_FOREACH(it, plan, MSG_PLAN_SECCOMP) {
		if ((fd = exec_load(it)) == -1)
			exec_fail(req, "seccomp", NULL);
		/*
		 * The listener goes to the guard (R-L4) and never stays here:
		 * a command holding it could answer its own calls.
		 */
		if ((it->flags & PLAN_SECF_NOTIFY) &&
		    (exec_pass(req, fd) == -1 || close(fd) == -1))
			exec_fail(req, "pass listener", NULL);
	}

	/* execvpe searches the PATH of environ: make it the command's. */
	environ = req->envp;
	execvpe(req->argv[0], req->argv, req->envp);
	exec_fail(req, "execve", req->argv[0]);
}
