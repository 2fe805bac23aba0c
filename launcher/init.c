// SPDX-License-Identifier: ISC
/*
 * The sandbox's init: pid 1 of the new pid namespace.  It builds the
 * root, confines itself (Landlock, capabilities) exactly as every command
 * will be, reports MSG_LAUNCH_READY, then serves airlockd on fd 3:
 * MSG_EXEC forks a command, MSG_EXEC_SIGNAL signals one, the exit of each
 * is reported, and orphans reparented to us are reaped silently.
 *
 * Before the first command, init starts airlock-guard (guard/), which
 * answers every command's seccomp notifications: each exec sends its
 * listener straight to the guard (exec.c), so init never holds one; the
 * guard's refusals come back here and go up to airlockd as they are.
 *
 * Fail closed: when airlockd says MSG_SHUTDOWN, closes the channel or
 * sends anything we do not expect, or when the guard ends, init kills
 * every process of the namespace and exits, and the kernel tears the
 * namespace down.  No command ever runs on without a supervisor or a
 * guard.  Init also dies with the launcher outside the namespace
 * (PDEATHSIG), so killing that process kills the sandbox.
 */
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg_launch.h"
#include "common/xmalloc.h"
#include "launcher/launcher.h"

/* A running command: its exec id and pid (= its session and group). */
struct init_exec {
	struct init_exec *next;
	uint32_t	  id;
	pid_t		  pid;
};

static struct init_exec *init_execs;
static struct msg_link	 init_guard = { .fd = -1 };
static pid_t		 init_guard_pid = -1;
static int		 init_guard_lq = -1;	/* for the listeners */

static void __attribute__((noreturn))
init_shutdown(const char *why)
{
	log_debug("init: %s: killing the sandbox", why);
	/* From pid 1, -1 means every other process of the namespace. */
	(void)kill(-1, SIGKILL);
	_exit(0);
}

/*
 * The guard is gone: its listeners closed with it, so every notified call
 * already fails (the kernel's ENOSYS); say so and end the sandbox.
 */
static void __attribute__((noreturn))
init_guard_died(void)
{
	struct msgbuf	b;

	msgbuf_init(&b, MSG_VIOLATION);
	msg_put_u32(&b, 0);
	msg_put_str(&b, "guard-died");
	msg_put_str(&b, "every file write");
	(void)msg_send(&launch_link, &b, NULL, 0);
	init_shutdown("airlock-guard ended");
}

/*
 * Fork the guard now, before any command and its seccomp filter (the
 * guard must not be under the filter it answers) and before init enters
 * the commands' nested Landlock domain (landlock_nest: the guard must be
 * out of their signals' reach), exec it from the fd main.c opened before
 * the mounts, hand it the filename rules and wait for its MSG_HELLO:
 * restricted, and ready before the first command.
 */
static void
init_guard_start(const struct launch_plan *plan)
{
	const struct launch_item *it;
	struct msgbuf	 b;
	struct msg	 m;
	sigset_t	 none;
	char		*argv[] = { "airlock-guard", NULL }, *envp[] = {
	    getenv("AIRLOCK_DEBUG") ? "AIRLOCK_DEBUG=1" : NULL, NULL };
	int		 sp[2], lq[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, lq) == -1)
		die("guard socketpair");
	if ((init_guard_pid = fork()) == -1)
		die("fork airlock-guard");
	if (init_guard_pid == 0) {
		/* Only its link (fd 3, in place of airlockd's) and the
		 * listeners' socket (fd 4; dup2 onto itself keeps its
		 * close-on-exec, hence F_SETFD) go over; the binary's fd
		 * moves above them first. */
		sigemptyset(&none);
		if (sigprocmask(SIG_SETMASK, &none, NULL) == 0 &&
		    (launch_guard_exe = fcntl(launch_guard_exe,
		    F_DUPFD_CLOEXEC, MSG_CHILD_FD + 2)) != -1 &&
		    dup2(sp[1], MSG_CHILD_FD) != -1 &&
		    dup2(lq[1], MSG_CHILD_FD + 1) != -1 &&
		    fcntl(MSG_CHILD_FD + 1, F_SETFD, 0) == 0 && close_range(
		    MSG_CHILD_FD + 2, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
			(void)execveat(launch_guard_exe, "", argv, envp,
			    AT_EMPTY_PATH);
		_exit(127);
	}
	close(sp[1]);
	close(lq[1]);
	init_guard_lq = lq[0];	/* each exec sends its listener there */
	msg_link_init(&init_guard, sp[0], MSG_CH_GUARD, MSG_UP, "guard");
	PLAN_FOREACH(it, plan, MSG_PLAN_WRITE_RULE) {
		msgbuf_init(&b, MSG_PLAN_WRITE_RULE);
		msg_put_u32(&b, it->op);
		msg_put_str(&b, it->src);
		msg_put_str(&b, it->dst);
		if (msg_send(&init_guard, &b, NULL, 0) == -1)
			die("send the rules to airlock-guard");
		msgbuf_free(&b);
	}
	if (msg_send_empty(&init_guard, MSG_PLAN_END) == -1 ||
	    msg_recv(&init_guard, &m) != MSG_OK)
		diex("airlock-guard did not start (see the log)");
	if (m.info->type != MSG_HELLO)
		diex("airlock-guard sent %s", m.info->name);
	(void)msg_get_u32(&m);
	log_debug("airlock-guard: %s", msg_get_str(&m));
	msg_free(&m);
}

/* untrusted: the guard's frames, validated; a refusal goes up as is. */
static void
init_guard_read(void)
{
	struct msgbuf	b;
	struct msg	m;

	if (msg_recv(&init_guard, &m) != MSG_OK ||
	    m.info->type != MSG_VIOLATION)
		init_guard_died();
	msgbuf_init(&b, MSG_VIOLATION);
	msg_put_u32(&b, msg_get_u32(&m));
	msg_put_str(&b, msg_get_str(&m));
	msg_put_str(&b, msg_get_str(&m));
	if (msg_send(&launch_link, &b, NULL, 0) == -1)
		init_shutdown("channel lost");
	msgbuf_free(&b);
	msg_free(&m);
}

static void
init_send_fail(uint32_t id, int err, const char *what)
{
	struct msgbuf	b;

	msgbuf_init(&b, MSG_EXEC_FAILED);
	msg_put_u32(&b, id);
	msg_put_u32(&b, (uint32_t)err);
	msg_put_str(&b, what);
	if (msg_send(&launch_link, &b, NULL, 0) == -1)
		init_shutdown("channel lost");
	msgbuf_free(&b);
}

static void
init_exec(const struct launch_plan *plan, struct msg *m)
{
	struct exec_req		 req;
	struct exec_failure	 fail;
	struct init_exec	*e;
	struct msgbuf		 b;
	struct winsize		 ws = { 0 };
	int			 out[2], err[2], rep[2], fds[2];
	int			 io = m->info->type == MSG_EXEC_IO;
	ssize_t			 n;
	pid_t			 pid;
	char			**env;
	siginfo_t		 si;

	/* untrusted: argv/envp/cwd are the agent's; we only pass them on. */
	memset(&req, 0, sizeof(req));
	req.id = msg_get_u32(m);
	req.pty = io && (msg_get_u32(m) & EXEC_F_PTY);
	req.cwd = msg_get_str(m);
	req.argv = msg_get_strv(m);
	req.envp = msg_get_strv(m);
	req.in = io ? (ws.ws_row = msg_get_u32(m), ws.ws_col =
	    msg_get_u32(m), msg_take_fd(m, 0)) : -1;
	if (req.argv[0] == NULL) {
		init_send_fail(req.id, EINVAL, "empty argv");
		goto done;
	}
	/*
	 * A terminal from the sandbox's own devpts: the slave is the
	 * command's stdio and controlling tty; the master goes up twice, in
	 * place of the two pipes.
	 */
	if (req.pty) {
		close(req.in);
		if ((out[0] = open("/dev/ptmx", O_RDWR | O_NOCTTY |
		    O_CLOEXEC)) == -1 || unlockpt(out[0]) == -1 ||
		    (out[1] = ioctl(out[0], TIOCGPTPEER, O_RDWR | O_NOCTTY |
		    O_CLOEXEC)) == -1 || ioctl(out[0], TIOCSWINSZ, &ws) == -1 ||
		    (err[0] = fcntl(out[0], F_DUPFD_CLOEXEC, 0)) == -1 ||
		    (err[1] = fcntl(out[1], F_DUPFD_CLOEXEC, 0)) == -1)
			die("exec pty");
		req.in = out[1];
	} else if (pipe2(out, O_CLOEXEC) == -1 || pipe2(err, O_CLOEXEC) == -1)
		die("exec pipes");
	if (pipe2(rep, O_CLOEXEC) == -1)
		die("exec pipes");
	req.out = out[1];
	req.err = err[1];
	req.report = rep[1];
	req.guard = init_guard_lq;
	/* vfork only if init has no child: none could stop it, and us too. */
	env = environ;	/* a vfork child sets it (exec.c) */
	if ((pid = waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == -1 ?
	    vfork() : fork()) == 0)
		exec_child(plan, &req);
	fail.err = errno;	/* the fork's, if it failed */
	environ = env;
	close(out[1]);
	close(err[1]);
	close(rep[1]);
	if (!req.pty && req.in != -1)
		close(req.in);
	if (pid == -1) {
		snprintf(fail.what, sizeof(fail.what), "fork");
		n = (ssize_t)sizeof(fail);
	} else	/* the report pipe closes on a successful execve */
		while ((n = read(rep[0], &fail, sizeof(fail))) == -1 &&
		    errno == EINTR)
			;
	close(rep[0]);
	if (n != 0 && n != (ssize_t)sizeof(fail)) {
		/* A report we cannot read: the child does not run. */
		(void)kill(pid, SIGKILL);
		fail.err = errno;
		snprintf(fail.what, sizeof(fail.what), "exec report");
		n = (ssize_t)sizeof(fail);
	}
	if (n == (ssize_t)sizeof(fail)) {
		fail.what[sizeof(fail.what) - 1] = '\0';
		init_send_fail(req.id, fail.err, fail.what);
		close(out[0]);
		close(err[0]);
		goto done;	/* the child is reaped as untracked */
	}

	e = xcalloc(1, sizeof(*e));
	e->id = req.id;
	e->pid = pid;
	e->next = init_execs;
	init_execs = e;
	msgbuf_init(&b, MSG_EXEC_STARTED);
	msg_put_u32(&b, req.id);
	msg_put_u32(&b, (uint32_t)pid);
	fds[0] = out[0];
	fds[1] = err[0];
	if (msg_send(&launch_link, &b, fds, 2) == -1)
		init_shutdown("channel lost");
	msgbuf_free(&b);
	close(out[0]);
	close(err[0]);
done:
	strv_free(req.argv);
	strv_free(req.envp);
}

static void
init_signal(struct msg *m)
{
	struct init_exec	*e;
	uint32_t		 id, sig;

	id = msg_get_u32(m);
	sig = msg_get_u32(m);
	for (e = init_execs; e != NULL; e = e->next)
		if (e->id == id)
			break;
	if (e == NULL) {
		log_debug("init: signal for exec %u, which is gone", id);
		return;
	}
	/* The exec is a session leader: its pid is its process group. */
	if (kill(-e->pid, (int)sig) == -1 && errno != ESRCH)
		log_warn("init: signal %u to exec %u", sig, id);
}

static void
init_reap(void)
{
	struct init_exec	*e, **ep;
	struct msgbuf		 b;
	int			 status;
	pid_t			 pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == init_guard_pid)
			init_guard_died();
		for (ep = &init_execs; (e = *ep) != NULL; ep = &e->next)
			if (e->pid == pid)
				break;
		if (e == NULL)
			continue;	/* an orphan reparented to us */
		*ep = e->next;
		msgbuf_init(&b, MSG_EXEC_EXIT);
		msg_put_u32(&b, e->id);
		msg_put_u32(&b, (uint32_t)status);
		if (msg_send(&launch_link, &b, NULL, 0) == -1)
			init_shutdown("channel lost");
		msgbuf_free(&b);
		free(e);
	}
}

static void __attribute__((noreturn))
init_loop(const struct launch_plan *plan, int sfd)
{
	struct pollfd		 pfd[3];
	struct signalfd_siginfo	 si;
	struct msg		 m;
	enum msg_result		 r;

	for (;;) {
		/* The channel, signals, the guard. */
		pfd[0] = (struct pollfd){ launch_link.fd, POLLIN, 0 };
		pfd[1] = (struct pollfd){ sfd, POLLIN, 0 };
		pfd[2] = (struct pollfd){ init_guard.fd, POLLIN, 0 };
		if (poll(pfd, 3, -1) == -1) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (pfd[2].revents != 0)
			init_guard_read();
		if (pfd[1].revents & POLLIN) {
			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				die("signalfd");
			/*
			 * A stop request counts only from outside (sender
			 * pid 0 in our namespace); a command signalling pid 1
			 * is ignored.
			 */
			if (si.ssi_signo != SIGCHLD && si.ssi_pid == 0)
				init_shutdown("terminated");
			init_reap();
		}
		if ((pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
			continue;
		/* untrusted: only in that a bad frame ends the sandbox. */
		if ((r = msg_recv(&launch_link, &m)) != MSG_OK)
			init_shutdown(r == MSG_EOF ? "airlockd closed the "
			    "channel" : "invalid frame");
		switch (m.info->type) {
		case MSG_EXEC:
		case MSG_EXEC_IO:
			init_exec(plan, &m);
			break;
		case MSG_EXEC_SIGNAL:
			init_signal(&m);
			break;
		case MSG_SHUTDOWN:
			init_shutdown("shutdown");
		default:
			log_warnx("init: unexpected %s", m.info->name);
			init_shutdown("protocol violation");
		}
		msg_free(&m);
	}
}

void
init_main(int pidpipe)
{
	struct launch_plan plan;
	struct pollfd	pfd;
	struct msgbuf	b;
	sigset_t	mask;
	int32_t		hostpid;
	uint32_t	abi, gaps;
	int		sfd;

	/*
	 * Init is not dumpable: no process, inside the sandbox (same uid,
	 * same Landlock domain) or outside, may ptrace the process that holds
	 * the channel to airlockd.  The launcher outside stays dumpable, so
	 * airlockd can find /proc/<launcher>/ns/pid_for_children.
	 */
	if (prctl(PR_SET_DUMPABLE, 0) == -1)
		die("PR_SET_DUMPABLE");
	/* Die with the launcher outside; then check it was still there. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		die("PR_SET_PDEATHSIG");
	pfd.fd = pidpipe;
	pfd.events = POLLIN;
	if (read(pidpipe, &hostpid, sizeof(hostpid)) != sizeof(hostpid) ||
	    poll(&pfd, 1, 0) != 0)
		_exit(1);	/* killed as a spare, or it says why itself */
	close(pidpipe);
	plan_recv(&plan);
	net_setup(&plan);

	/* Our own session: no terminal of the caller's reaches us. */
	if (setsid() == -1)
		die("setsid");
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) == -1)
		die("sigprocmask");
	if ((sfd = signalfd(-1, &mask, SFD_CLOEXEC)) == -1)
		die("signalfd");

	mount_build(&plan);
	/* For init and all it starts: Landlock and seccomp need it, and no
	 * execve in the sandbox may gain privileges. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		die("PR_SET_NO_NEW_PRIVS");
	abi = landlock_apply(&plan, &gaps);
	caps_drop_all();
	if (!(plan.flags & PLAN_F_SECCOMP_KNOWN))	/* else each exec's */
		exec_check_seccomp(&plan);
	init_guard_start(&plan);
	landlock_nest(&plan, abi);	/* the guard out of our reach */

	msgbuf_init(&b, MSG_LAUNCH_READY);
	msg_put_u32(&b, (uint32_t)hostpid);
	msg_put_u32(&b, abi);
	msg_put_u32(&b, gaps);
	if (msg_send(&launch_link, &b, NULL, 0) == -1)
		die("send MSG_LAUNCH_READY");
	msgbuf_free(&b);
	launch_ready = 1;
	log_debug("session %s: ready, init is pid %d", plan.session,
	    (int)hostpid);
	init_loop(&plan, sfd);
}
