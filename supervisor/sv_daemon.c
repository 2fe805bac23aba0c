// SPDX-License-Identifier: ISC
/*
 * Supervision of the long-lived daemons, proxyd and gatewayd (R-P1).
 * airlockd starts each one itself when a sandbox first connects to one of
 * its listeners (a run that never uses the network or pushes does not pay
 * for its start), keeps one socketpair to it, restarts it with a backoff
 * when it dies and is wanted again, and fails the sessions that depended
 * on it closed: their sandboxes are killed, because a session whose proxy
 * or gateway vanished must not continue with a different path out.  One
 * that dies before its hello never served: it could not be started.
 * Every frame from a daemon is untrusted: msg_recv() validates it, and a
 * bad one closes the link, which counts as the daemon dying.
 */
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"

struct sv_daemon {
	const char	*name;		/* binary name */
	uint8_t		 chan;
	pid_t		 pid;
	int		 up;
	int		 present;	/* binary exists */
	struct msg_link	 link;
	struct event	*ev;
	struct event	*restart;
	struct event	*hello_to;	/* started, no hello yet */
	struct timeval	 started;	/* for "not reported" */
	unsigned	 backoff_ms;
	unsigned	 restarts;
	char		*restriction;	/* from MSG_HELLO */
};

static struct sv_daemon daemons[SV_DAEMON_MAX] = {
	[SV_DAEMON_PROXYD] = { .name = "airlock-proxyd",
	    .chan = MSG_CH_PROXYD },
	[SV_DAEMON_GATEWAYD] = { .name = "airlock-gatewayd",
	    .chan = MSG_CH_GATEWAYD },
};
static struct event_base *dbase;

/* A daemon's start takes milliseconds; one without a hello by then is
 * stuck, and the connections that wait for it would wait for ever. */
#define SV_DAEMON_HELLO_SEC	10

static void	daemon_start(struct sv_daemon *);

static void
daemon_down(struct sv_daemon *d, const char *why)
{
	int	status, ready = d->restriction != NULL;
	enum sv_daemon_kind kind = (enum sv_daemon_kind)(d - daemons);
	struct timeval tv;

	if (!d->up)
		return;
	log_warnx("%s (pid %d) %s%s: failing its sessions closed; it "
	    "starts again at a sandbox's next connection", d->name,
	    (int)d->pid, why, ready ? "" : " before its hello");
	d->up = 0;
	if (d->ev != NULL) {
		event_free(d->ev);
		d->ev = NULL;
	}
	if (d->hello_to != NULL)
		evtimer_del(d->hello_to);
	msg_link_close(&d->link);
	if (d->pid > 0) {
		kill(d->pid, SIGKILL);
		while (waitpid(d->pid, &status, 0) == -1 && errno == EINTR)
			;
		d->pid = -1;
	}
	free(d->restriction);
	d->restriction = NULL;
	sv_sessions_daemon_died(kind, ready);
	if (kind == SV_DAEMON_GATEWAYD)
		sv_gw_daemon_died();
	sv_self_reported();
	if (dbase == NULL)
		return;
	/* Not restarted now: the timer only delays the next start, which
	 * comes when a sandbox connects again (sv_daemon_want). */
	d->backoff_ms = d->backoff_ms ? d->backoff_ms * 2 : 100;
	if (d->backoff_ms > 5000)
		d->backoff_ms = 5000;
	tv.tv_sec = d->backoff_ms / 1000;
	tv.tv_usec = (d->backoff_ms % 1000) * 1000;
	evtimer_add(d->restart, &tv);
}

static void
daemon_dispatch(struct sv_daemon *d, struct msg *m)
{
	const char *sid, *action, *target;

	switch (m->info->type) {
	case MSG_HELLO:
		(void)msg_get_u32(m);
		free(d->restriction);
		d->restriction = xstrdup(msg_get_str(m));
		d->backoff_ms = 0;
		evtimer_del(d->hello_to);
		log_info("%s ready: %s", d->name, d->restriction);
		sv_sessions_daemon_ready((enum sv_daemon_kind)(d - daemons));
		sv_self_reported();
		break;
	case MSG_PX_VIOLATION:
		sid = msg_get_str(m);
		action = msg_get_str(m);
		target = msg_get_str(m);
		sv_session_refused(sid, action, target, "network egress");
		break;
	case MSG_PX_CA:
		sv_mask_ca(m);
		break;
	case MSG_PX_SESSION_FAILED:
		sid = msg_get_str(m);
		sv_sessions_proxy_failed(sid, msg_get_str(m));
		break;
	default:
		if (d->chan == MSG_CH_GATEWAYD) {
			sv_gw_dispatch(&d->link, m);
			break;
		}
		log_warnx("%s: unexpected %s", d->name, m->info->name);
		break;
	}
}

static void
daemon_read(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_daemon *d = arg;
	struct msg	m;
	enum msg_result	r;

	(void)fd;
	(void)ev;
	for (;;) {
		r = msg_recv(&d->link, &m);
		if (r == MSG_AGAIN)
			return;
		if (r == MSG_EOF) {
			daemon_down(d, "closed its link");
			return;
		}
		if (r == MSG_ERROR) {
			daemon_down(d, "sent an invalid frame");
			return;
		}
		daemon_dispatch(d, &m);
		msg_free(&m);
		if (!d->up)
			return;
	}
}

static void
daemon_restart_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_daemon *d = arg;

	(void)fd;
	(void)ev;
	if (sv_sessions_want((enum sv_daemon_kind)(d - daemons))) {
		daemon_start(d);
		sv_sessions_daemon_up((enum sv_daemon_kind)(d - daemons));
	}
}

static void
daemon_hello_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_daemon *d = arg;
	char		 why[64];

	(void)fd;
	(void)ev;
	snprintf(why, sizeof(why), "said no hello within %d s",
	    SV_DAEMON_HELLO_SEC);
	if (d->up && d->restriction == NULL)
		daemon_down(d, why);
}

/* Is d's binary at path?  Said once, when it is found missing. */
static int
daemon_found(struct sv_daemon *d, const char *path)
{
	int	was = d->present;

	d->present = access(path, X_OK) == 0;
	if (was && !d->present)
		log_warnx("%s not found (%s): sessions get no %s", d->name,
		    path, d->chan == MSG_CH_PROXYD ? "network" :
		    "push gateway");
	return d->present;
}

static void
daemon_start(struct sv_daemon *d)
{
	struct timeval	 tv = { SV_DAEMON_HELLO_SEC, 0 };
	char	*path, **argv = NULL;
	size_t	 i;
	int	 fd;

	path = sv_sibling(d->name);
	if (!daemon_found(d, path)) {
		free(path);
		return;
	}
	argv = strv_add(argv, d->name);
	/* gatewayd cannot open files once restricted: it loads the code
	 * hosts' CA bundles at start. */
	if (d->chan == MSG_CH_GATEWAYD)
		for (i = 0; i < sv_settings.nhosts; i++)
			if (sv_settings.hosts[i].ca_bundle != NULL) {
				argv = strv_add(argv, "-C");
				argv = strv_add(argv,
				    sv_settings.hosts[i].ca_bundle);
			}
	d->pid = sv_spawn(path, argv, &fd);
	strv_free(argv);
	if (d->pid == -1) {
		log_warn("spawn %s", path);
		free(path);
		return;
	}
	free(path);
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
		fatal("fcntl");
	msg_link_init(&d->link, fd, d->chan, MSG_UP, d->name);
	d->ev = event_new(dbase, fd, EV_READ | EV_PERSIST, daemon_read, d);
	event_add(d->ev, NULL);
	evtimer_add(d->hello_to, &tv);
	(void)gettimeofday(&d->started, NULL);
	d->up = 1;
	d->restarts++;
	log_debug("started %s pid %d", d->name, (int)d->pid);
}

/* Whether each daemon is installed; none is started yet. */
void
sv_daemons_init(struct event_base *base)
{
	char	*path;
	int	 i;

	dbase = base;
	for (i = 0; i < SV_DAEMON_MAX; i++) {
		daemons[i].pid = -1;
		daemons[i].restart = evtimer_new(base, daemon_restart_cb,
		    &daemons[i]);
		daemons[i].hello_to = evtimer_new(base, daemon_hello_cb,
		    &daemons[i]);
		path = sv_sibling(daemons[i].name);
		daemons[i].present = 1;		/* said if it is not */
		(void)daemon_found(&daemons[i], path);
		free(path);
	}
}

/*
 * A sandbox connected to one of k's listeners: start k unless it runs or
 * its backoff after a death is running (the timer starts it then).
 */
void
sv_daemon_want(enum sv_daemon_kind k)
{
	struct sv_daemon *d = &daemons[k];

	if (d->up || evtimer_pending(d->restart, NULL))
		return;
	daemon_start(d);
	/* Its link buffers what we send before it reads: the sessions
	 * waiting are registered now (or, if it did not start, their
	 * listeners closed), not at its hello. */
	sv_sessions_daemon_up(k);
}

int
sv_daemon_present(enum sv_daemon_kind k)
{
	return daemons[k].present;
}

/* Up and past its hello: it has started. */
int
sv_daemon_ready(enum sv_daemon_kind k)
{
	return daemons[k].up && daemons[k].restriction != NULL;
}

void
sv_daemons_stop(void)
{
	int	i, status;

	for (i = 0; i < SV_DAEMON_MAX; i++) {
		struct sv_daemon *d = &daemons[i];

		if (d->restart != NULL) {
			event_free(d->restart);
			d->restart = NULL;
		}
		if (d->hello_to != NULL) {
			event_free(d->hello_to);
			d->hello_to = NULL;
		}
		if (!d->up)
			continue;
		(void)msg_send_empty(&d->link, MSG_SHUTDOWN);
		d->up = 0;
		if (d->ev != NULL)
			event_free(d->ev);
		d->ev = NULL;
		msg_link_close(&d->link);
		kill(d->pid, SIGTERM);
		while (waitpid(d->pid, &status, 0) == -1 && errno == EINTR)
			;
	}
	dbase = NULL;
}

int
sv_daemon_up(enum sv_daemon_kind k)
{
	return daemons[k].up;
}

struct msg_link *
sv_daemon_link(enum sv_daemon_kind k)
{
	return daemons[k].up ? &daemons[k].link : NULL;
}

/* A send failed: the daemon is as good as dead. */
void
sv_daemon_failed(enum sv_daemon_kind k, const char *why)
{
	daemon_down(&daemons[k], why);
}

/* The SIGCHLD reaper found pid; returns 1 if it was a daemon. */
int
sv_daemon_reaped(pid_t pid)
{
	int	i;

	for (i = 0; i < SV_DAEMON_MAX; i++) {
		if (daemons[i].up && daemons[i].pid == pid) {
			daemons[i].pid = -1;
			daemon_down(&daemons[i], "exited");
			return 1;
		}
	}
	return 0;
}

int
sv_daemons_unreported(void)
{
	int	i;

	for (i = 0; i < SV_DAEMON_MAX; i++)
		if (daemons[i].up && daemons[i].restriction == NULL)
			return 1;
	return 0;
}

/*
 * What d applied, as it said, or why there is nothing to show: never
 * nothing (R-P2).  A daemon that runs but has not said it yet was
 * waited for (sv_self_status) and is shown as such.
 */
static void
daemon_restriction(struct sv_daemon *d, char *buf, size_t len)
{
	struct timeval	now, dt;

	if (d->up && d->restriction != NULL)
		snprintf(buf, len, "%s", d->restriction);
	else if (d->up) {
		(void)gettimeofday(&now, NULL);
		timersub(&now, &d->started, &dt);
		snprintf(buf, len, "not reported: started %lld.%01ld s ago "
		    "and has not said what it applied yet (it is restarted "
		    "if it says nothing within %d s)", (long long)dt.tv_sec,
		    (long)(dt.tv_usec / 100000), SV_DAEMON_HELLO_SEC);
	} else if (!d->present)
		snprintf(buf, len, "not running: not installed");
	else if (d->restarts == 0)
		snprintf(buf, len, "not running: it starts, and restricts "
		    "itself, at a sandbox's first connection to it");
	else
		snprintf(buf, len, "not running: it ended; it starts again "
		    "at a sandbox's next connection to it");
}

void
sv_daemons_status(struct jgen *j)
{
	char	buf[1024];
	int	i;

	jgen_obj_open(j);
	/* airlockd itself, in the same form. */
	jgen_key(j, "airlockd");
	jgen_obj_open(j);
	jgen_kbool(j, "running", 1);
	jgen_kint(j, "pid", getpid());
	jgen_kbool(j, "installed", 1);
	jgen_kbool(j, "reported", 1);
	jgen_kstr(j, "selfRestriction", sv_self_summary());
	jgen_obj_close(j);
	for (i = 0; i < SV_DAEMON_MAX; i++) {
		struct sv_daemon *d = &daemons[i];

		jgen_key(j, d->name + strlen("airlock-"));
		jgen_obj_open(j);
		jgen_kbool(j, "running", d->up);
		if (d->up)
			jgen_kint(j, "pid", d->pid);
		jgen_kbool(j, "installed", d->present);
		jgen_kint(j, "starts", d->restarts);
		jgen_kbool(j, "reported", d->up && d->restriction != NULL);
		daemon_restriction(d, buf, sizeof(buf));
		jgen_kstr(j, "selfRestriction", buf);
		jgen_obj_close(j);
	}
	jgen_obj_close(j);
}
