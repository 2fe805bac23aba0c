// SPDX-License-Identifier: ISC
/*
 * Suspend and resume (R-S1): SIGSTOP, then SIGCONT, to every process of
 * a session.  Not the cgroup freezer: airlockd must not touch cgroups on
 * hosts that did not delegate a subtree to it.  A sandbox's processes
 * are those of its pid namespace; its init (airlock-launcher) is left
 * running: it runs no code of the agent, and it must go on answering the
 * kill and destroy paths and the seccomp notifications in flight.
 *
 * A process that forks while the signals go out is found by the next
 * pass over /proc: SIGSTOP is sent until a pass finds no process that
 * was not sent it (a fork with a stop pending is restarted by the
 * kernel, so a pass converges).  Each signal goes through a pidfd taken
 * before the namespace is checked, so a reused pid is never signalled.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "supervisor/sv_sess.h"

#define SV_FREEZE_PASSES	64

static int
in_session(const struct sv_session *s, pid_t pid)
{
	char		path[64];
	struct stat	st;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	return stat(path, &st) == 0 && st.st_ino == s->pidns;
}

static int
seen(const pid_t *v, size_t n, pid_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == pid)
			return 1;
	return 0;
}

/* One pass: signal the processes not in *v yet; how many were new. */
static size_t
freeze_pass(struct sv_session *s, int sig, pid_t **v, size_t *n)
{
	DIR		*d;
	struct dirent	*de;
	size_t		 fresh = 0;
	pid_t		 pid;
	int		 fd;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid = (pid_t)strtol(de->d_name, NULL, 10);
		if (pid == s->init_pid || seen(*v, *n, pid))
			continue;
		if ((fd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1)
			continue;
		if (in_session(s, pid) &&
		    syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) == 0) {
			*v = xreallocarray(*v, *n + 1, sizeof(**v));
			(*v)[(*n)++] = pid;
			fresh++;
		}
		close(fd);
	}
	closedir(d);
	return fresh;
}

int
sv_freeze(struct sv_session *s, int sig)
{
	struct sv_exec	*x;
	pid_t		*v = NULL;
	size_t		 n = 0, pass;

	if (s->backend == SV_BACKEND_NONE) {
		/* Each command leads its own process group (setsid). */
		for (x = s->execs; x != NULL; x = x->next)
			if (!x->exited && x->pid > 0)
				(void)kill(-x->pid, sig);
		return 0;
	}
	/* Commands let out of the sandbox run on the host. */
	for (x = s->execs; x != NULL; x = x->next)
		if (x->unsandboxed && !x->exited && x->pid > 0)
			(void)kill(-x->pid, sig);
	if (s->pidns == 0)
		return -1;
	/* SIGCONT: one pass; what the continued fork is not stopped. */
	for (pass = 0; pass < SV_FREEZE_PASSES; pass++)
		if (freeze_pass(s, sig, &v, &n) == 0 || sig != SIGSTOP)
			break;
	free(v);
	if (pass == SV_FREEZE_PASSES) {
		log_warnx("session %s: processes still appearing after %d "
		    "passes", s->id, SV_FREEZE_PASSES);
		return -1;
	}
	return 0;
}
