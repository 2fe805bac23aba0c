// SPDX-License-Identifier: ISC
/*
 * Wall clock steps.  A spare copy of a repository (sv_wtspare.c) is
 * brought up to date from the ctimes of the original since the copy
 * began, and the kernel stamps those from CLOCK_REALTIME: while the
 * clock is set back, a file changed gets a ctime older than the spare,
 * and the update would keep the spare's stale file.  A step back and
 * then forward again leaves nothing for the record's clock check to
 * see, so airlockd watches: a timerfd on CLOCK_REALTIME armed with
 * TFD_TIMER_CANCEL_ON_SET fails its read with ECANCELED whenever the
 * clock is set (settimeofday, clock_settime, NTP's steps; not its slow
 * slewing, which keeps ctimes in order), and the spares made before
 * that are dropped.
 */
#include <sys/timerfd.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/log.h"
#include "supervisor/sv.h"
#include "supervisor/sv_wtspare.h"

static int		 clock_fd = -1;
static struct event	*ev_clock;
#ifdef AIRLOCK_TEST_BUILD
static struct event	*ev_test;
#endif

/* Armed at the end of time: it never expires, only a step cancels it. */
static int
clock_arm(void)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)1 << 33;
	return timerfd_settime(clock_fd, TFD_TIMER_ABSTIME |
	    TFD_TIMER_CANCEL_ON_SET, &its, NULL);
}

static void
clock_stepped(const char *how)
{
	log_info("the wall clock was set (%s): spare copies made before "
	    "are dropped", how);
	sv_wtspare_clock_stepped();
}

static void
clock_cb(evutil_socket_t fd, short ev, void *arg)
{
	uint64_t	n;
	ssize_t		r;

	(void)ev;
	(void)arg;
	r = read(fd, &n, sizeof(n));
	if (r == (ssize_t)sizeof(n)) {		/* the end of time came */
		if (clock_arm() == -1)
			log_warn("timerfd_settime");
	} else if (r == -1 && errno == ECANCELED) {
		/* Armed again first: a second step is not missed. */
		if (clock_arm() == -1)
			log_warn("timerfd_settime");
		clock_stepped("timerfd canceled");
	}
}

#ifdef AIRLOCK_TEST_BUILD
/*
 * Test build only: SIGUSR2 stands for a step, which no test may make
 * on a shared machine (setting the clock needs CAP_SYS_TIME, and time
 * namespaces do not cover CLOCK_REALTIME).  hardening.sh and clock.sh
 * check that no shipped binary has this.
 */
static void
test_cb(evutil_socket_t sig, short ev, void *arg)
{
	(void)sig;
	(void)ev;
	(void)arg;
	clock_stepped("test-clock-step signal");
}
#endif

void
sv_clock_init(struct event_base *base)
{
#ifdef AIRLOCK_TEST_BUILD
	ev_test = evsignal_new(base, SIGUSR2, test_cb, NULL);
	evsignal_add(ev_test, NULL);
#endif
	if ((clock_fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK |
	    TFD_CLOEXEC)) == -1 || clock_arm() == -1) {
		/* Spares then rely on their records' clock check alone. */
		log_warn("wall clock steps will not be noticed: timerfd");
		if (clock_fd != -1)
			close(clock_fd);
		clock_fd = -1;
		return;
	}
	ev_clock = event_new(base, clock_fd, EV_READ | EV_PERSIST, clock_cb,
	    NULL);
	event_add(ev_clock, NULL);
}

void
sv_clock_stop(void)
{
	if (ev_clock != NULL)
		event_free(ev_clock);
	ev_clock = NULL;
	if (clock_fd != -1)
		close(clock_fd);
	clock_fd = -1;
#ifdef AIRLOCK_TEST_BUILD
	if (ev_test != NULL)
		event_free(ev_test);
	ev_test = NULL;
#endif
}
