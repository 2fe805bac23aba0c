// SPDX-License-Identifier: ISC
/*
 * One launcher started ahead of need (a fresh sandbox per run,
 * fast).  A launcher enters its namespaces before it reads a plan
 * (launcher/ns.c), so the exec, the dynamic linking and the unshare of
 * the next sandbox happen while nobody waits for them; a launch takes
 * the spare and sends it its plan.  The next spare starts when a session
 * ends or SPARE_REFILL_MS after the take, whichever comes first: not at
 * once, where its exec and unshare would take the CPU from the sandbox
 * being built (two cores here, and the client, airlockd and the launcher
 * all on the critical path), and a half-started spare is as good as a
 * ready one to the next launch (its plan waits in the channel).
 *
 * A spare holds nothing of any session: its own empty namespaces, our
 * channel and PDEATHSIG, as every launcher.  One at most; launches at the
 * same time start their own launchers.  A launcher says
 * nothing before its plan unless it failed, so a spare whose channel is
 * readable or hung up is dropped and the launch starts a fresh one, which
 * reports its own failure the usual way: a spare never turns a failure
 * into a silent success or the other way round.
 *
 * A private airlockd (`airlock run` without --socket, --fd) serves one
 * launch: it starts its spare at once, so that the launcher's start
 * overlaps the client's, and never a second.
 */
#include <sys/types.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/log.h"
#include "supervisor/sv.h"

#define SPARE_REFILL_MS	100

static pid_t		 spare_pid = -1;
static int		 spare_fd = -1;
static int		 spare_refill;	/* start another after a take */
static struct event	*spare_ev;	/* the deferred start */

static pid_t
launcher_start(int *fdp)
{
	char	*path, *argv[2];
	pid_t	 pid;
	int	 serr;

	path = sv_sibling("airlock-launcher");
	argv[0] = "airlock-launcher";
	argv[1] = NULL;
	pid = sv_spawn(path, argv, fdp);
	serr = errno;
	free(path);
	errno = serr;
	return pid;
}

static void
spare_start(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	(void)arg;
	if (spare_pid != -1)
		return;
	if ((spare_pid = launcher_start(&spare_fd)) == -1)
		log_warn("spare launcher");
	else
		log_debug("spare launcher %d started", (int)spare_pid);
}

static void
spare_drop(void)
{
	if (spare_pid == -1)
		return;
	(void)kill(spare_pid, SIGKILL);	/* reaped by the SIGCHLD handler */
	close(spare_fd);
	spare_pid = -1;
	spare_fd = -1;
}

void
sv_spare_init(struct event_base *base, int refill)
{
	spare_refill = refill;
	spare_ev = evtimer_new(base, spare_start, NULL);
	spare_start(-1, 0, NULL);
}

static void
spare_refill_in(long ms)
{
	struct timeval	tv = { ms / 1000, (ms % 1000) * 1000 };

	if (spare_refill && spare_ev != NULL && spare_pid == -1 &&
	    (ms == 0 || !evtimer_pending(spare_ev, NULL)))
		evtimer_add(spare_ev, &tv);
}

/* A session ended: its CPU is free for the next sandbox's launcher. */
void
sv_spare_session_ended(void)
{
	spare_refill_in(0);
}

/* A launcher for a launch: the spare when it is alive, else a new one. */
pid_t
sv_spare_take(int *fdp)
{
	struct pollfd	pfd;
	pid_t		pid;

	if (spare_pid != -1) {
		pfd.fd = spare_fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, 0) == 0) {
			pid = spare_pid;
			*fdp = spare_fd;
			spare_pid = -1;
			spare_fd = -1;
			spare_refill_in(SPARE_REFILL_MS);
			return pid;
		}
		log_debug("spare launcher %d gone", (int)spare_pid);
		spare_drop();
	}
	spare_refill_in(SPARE_REFILL_MS);
	return launcher_start(fdp);
}

/* The SIGCHLD reaper found pid; 1 if it was the spare. */
int
sv_spare_reaped(pid_t pid)
{
	if (pid == -1 || pid != spare_pid)
		return 0;
	close(spare_fd);
	spare_pid = -1;
	spare_fd = -1;
	return 1;
}

void
sv_spare_stop(void)
{
	spare_drop();
	if (spare_ev != NULL) {
		event_free(spare_ev);
		spare_ev = NULL;
	}
}
