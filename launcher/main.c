// SPDX-License-Identifier: ISC
/*
 * airlock-launcher's main: the launch sequence, straight-line.  airlockd
 * fork+execs us with the plan's socketpair on fd 3 (SPEC R-P1), fd 0 on
 * /dev/null and fd 2 on its log, often before any session needs us.  We
 * enter the namespaces and fork the sandbox's init, which then receives
 * the plan (init.c).  This process only waits: it stays outside the pid
 * namespace so that killing it (init has PDEATHSIG) kills the sandbox.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg_launch.h"
#include "launcher/launcher.h"

struct msg_link launch_link;
int launch_ready;
int launch_guard_exe = -1;

void
launch_die(int with_errno, const char *fmt, ...)
{
	char		 line[512];
	struct msgbuf	 b;
	va_list		 ap;
	int		 saved = errno, n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (with_errno && n >= 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, ": %s", strerror(saved));
	log_warnx("%s", line);
	/* Before ready, airlockd waits for a verdict: give it the reason. */
	if (!launch_ready && launch_link.fd != -1) {
		msgbuf_init(&b, MSG_LAUNCH_FAILED);
		msg_put_str(&b, line);
		(void)msg_send(&launch_link, &b, NULL, 0);
		msgbuf_free(&b);
	}
	_exit(1);
}

/*
 * The launcher outside the pid namespace: hand init its host pid, keep
 * the pipe open (init checks it to know we were alive when its
 * PDEATHSIG was armed), wait, and exit with init's status.
 */
static void __attribute__((noreturn))
launch_wait(pid_t init, int pidpipe)
{
	int32_t	hostpid = (int32_t)init;
	int	status;

	/* We keep nothing, not even the caps of the user namespace. */
	caps_drop_all();
	if (write(pidpipe, &hostpid, sizeof(hostpid)) != sizeof(hostpid))
		die("pid pipe");
	while (waitpid(init, &status, 0) == -1)
		if (errno != EINTR)
			die("waitpid init");
	_exit(WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
	    WEXITSTATUS(status));
}

/*
 * airlock-guard beside us, opened now, while the host's tree is in view:
 * init execs it from this fd inside a root that does not show it.
 */
static void
launch_open_guard(void)
{
	char	path[PATH_MAX];
	ssize_t	n;

	if ((n = readlink("/proc/self/exe", path, sizeof(path) - 16)) <= 0)
		die("readlink /proc/self/exe");
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, "airlock-guard");
	if ((launch_guard_exe = open(path, O_PATH | O_CLOEXEC)) == -1)
		die("%s", path);
}

int
main(void)
{
	int			 pp[2];
	pid_t			 pid;

	log_init("launcher", 0);
	msg_link_init(&launch_link, -1, MSG_CH_LAUNCHER, MSG_DOWN, "airlockd");

	/* Nothing of airlockd's but the channel may reach the sandbox. */
	if (close_range(MSG_CHILD_FD + 1, ~0U, 0) == -1)
		die("close_range");
	if (fcntl(MSG_CHILD_FD, F_SETFD, FD_CLOEXEC) == -1)
		die("fd %d is not the channel", MSG_CHILD_FD);
	launch_link.fd = MSG_CHILD_FD;
	signal(SIGPIPE, SIG_IGN);
	launch_open_guard();

	ns_enter();
	if (pipe2(pp, O_CLOEXEC) == -1)
		die("pipe");
	if ((pid = fork()) == -1)
		die("fork init");
	if (pid != 0) {
		/* Init owns the channel from now on. */
		close(pp[0]);
		close(launch_link.fd);
		launch_link.fd = -1;
		launch_wait(pid, pp[1]);
	}
	close(pp[1]);
	init_main(pp[0]);
}
