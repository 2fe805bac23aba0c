// SPDX-License-Identifier: ISC
/*
 * airlock-clone runs for worktree provisioning and spare copies: the
 * spawn, the frame loop and the end of the link in one place, so the
 * two callers each keep only what a frame means to them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/log.h"
#include "common/msg.h"
#include "supervisor/sv.h"
#include "supervisor/sv_clone.h"

void
sv_clone_init(struct sv_clone *c, void *arg)
{
	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->arg = arg;
}

void
sv_clone_close(struct sv_clone *c)
{
	if (c->ev != NULL) {
		event_free(c->ev);
		c->ev = NULL;
	}
	if (c->linked) {
		msg_link_close(&c->link);
		c->linked = 0;
	}
	c->pid = -1;
}

/* untrusted (a little): frames from airlock-clone, checked by msg_recv. */
static void
clone_frame(struct sv_clone *c, struct msg *m)
{
	struct sv_clone_done	d;
	uint64_t		f, b;

	switch (m->info->type) {
	case MSG_HELLO:
		(void)msg_get_u32(m);
		log_debug("airlock-clone: %s", msg_get_str(m));
		break;
	case MSG_CL_PROGRESS:
		f = msg_get_u64(m);
		b = msg_get_u64(m);
		if (c->progress != NULL)
			c->progress(c->arg, f, b);
		break;
	case MSG_CL_DONE:
		d.err = (int)msg_get_u32(m);
		d.files = msg_get_u64(m);
		d.bytes = msg_get_u64(m);
		d.skipped = msg_get_u64(m);
		d.vanished = msg_get_u64(m);
		d.why = msg_get_str(m);
		c->got_done = 1;
		c->done(c->arg, &d);
		break;
	default:
		break;
	}
}

static void
clone_read(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_clone	*c = arg;
	struct msg	 m;
	enum msg_result	 r;

	(void)fd;
	(void)ev;
	for (;;) {
		r = msg_recv(&c->link, &m);
		if (r == MSG_AGAIN)
			return;
		if (r != MSG_OK)
			break;
		clone_frame(c, &m);
		msg_free(&m);
		if (c->got_done)
			break;
	}
	sv_clone_close(c);
	c->ended(c->arg, c->got_done);
}

int
sv_clone_spawn(struct sv_clone *c, char **argv, char *err, size_t errlen)
{
	char	*path = sv_sibling("airlock-clone");
	int	 fd;

	if (access(path, X_OK) == -1) {
		snprintf(err, errlen, "airlock-clone not found (%s)", path);
		free(path);
		return -1;
	}
	c->got_done = 0;
	c->pid = sv_spawn(path, argv, &fd);
	free(path);
	if (c->pid == -1) {
		snprintf(err, errlen, "cannot start airlock-clone");
		return -1;
	}
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
		fatal("fcntl");
	msg_link_init(&c->link, fd, MSG_CH_CLONE, MSG_UP, "airlock-clone");
	c->linked = 1;
	c->ev = event_new(sv_base, fd, EV_READ | EV_PERSIST, clone_read, c);
	event_add(c->ev, NULL);
	return 0;
}
