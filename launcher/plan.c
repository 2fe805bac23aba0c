// SPDX-License-Identifier: ISC
/*
 * Receive the launch plan and hold it: MSG_PLAN_BEGIN, any number of
 * entries, MSG_PLAN_END.  Entries are kept in one list in the order they
 * arrived, because mounts and files are applied in that order (a tmpfs
 * on $HOME must come before the binds beneath it).  msg_recv() has
 * already validated every frame's layout; here we only check the values
 * the layout cannot express (known op numbers, absolute paths) and refuse
 * anything out of sequence.  Nothing is interpreted or decided.
 */
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg_launch.h"
#include "common/xmalloc.h"
#include "launcher/launcher.h"

static uint16_t
plan_recv_one(struct msg *m, int first)
{
	enum msg_result	r;

	/* untrusted: only in the sense that a bad frame must stop us. */
	if ((r = msg_recv(&launch_link, m)) == MSG_EOF && first)
		_exit(0);	/* a spare airlockd no longer needs */
	if (r != MSG_OK)
		diex("%s during the plan", r == MSG_EOF ?
		    "airlockd closed the channel" : "invalid frame");
	return m->info->type;
}

static char *
plan_path(const char *p, const char *what)
{
	if (p[0] != '/')
		diex("plan: %s \"%s\" is not absolute", what, p);
	return xstrdup(p);
}

static void
plan_add(struct launch_plan *plan, struct msg *m)
{
	struct launch_item	*it;
	const void		*data;
	uint32_t		 port;

	it = xcalloc(1, sizeof(*it));
	it->type = m->info->type;
	switch (it->type) {
	case MSG_PLAN_OP:
		it->op = msg_get_u32(m);
		it->flags = msg_get_u32(m);
		it->src = xstrdup(msg_get_str(m));
		it->dst = plan_path(msg_get_str(m), "destination");
		if (it->op < PLAN_OP_BIND || it->op >= PLAN_OP_MAX ||
		    it->op == PLAN_OP_CHDIR_HOME)
			diex("plan: unknown op %u", it->op);
		if (it->op == PLAN_OP_BIND && it->src[0] != '/')
			diex("plan: bind source \"%s\" is not absolute",
			    it->src);
		/* A tmpfs size goes into mount options: digits only. */
		if ((it->op == PLAN_OP_TMPFS || it->op == PLAN_OP_DEV) &&
		    (strlen(it->src) > 20 ||
		    strspn(it->src, "0123456789") != strlen(it->src)))
			diex("plan: tmpfs size \"%s\" is not a number",
			    it->src);
		break;
	case MSG_PLAN_FILE:
		it->dst = plan_path(msg_get_str(m), "file");
		it->mode = msg_get_u32(m) & 07777;
		data = msg_get_blob(m, &it->len);
		it->data = xmalloc(it->len + 1);
		memcpy(it->data, data, it->len);
		break;
	case MSG_PLAN_LANDLOCK:
		it->access = msg_get_u64(m);
		it->dst = plan_path(msg_get_str(m), "landlock path");
		break;
	case MSG_PLAN_RLIMIT:
		it->op = msg_get_u32(m);
		it->soft = msg_get_u64(m);
		it->hard = msg_get_u64(m);
		break;
	case MSG_PLAN_SECCOMP:
		it->flags = msg_get_u32(m);
		data = msg_get_blob(m, &it->len);
		/* struct sock_filter is 8 bytes; the kernel caps at 4096. */
		if (it->len == 0 || it->len % 8 != 0 || it->len / 8 > 4096)
			diex("plan: seccomp program of %zu bytes", it->len);
		it->data = xmalloc(it->len);
		memcpy(it->data, data, it->len);
		break;
	case MSG_PLAN_LISTEN:
		it->op = msg_get_u32(m);
		port = msg_get_u32(m);
		if (it->op < LISTEN_HTTP || it->op >= LISTEN_MAX)
			diex("plan: unknown listener kind %u", it->op);
		/* 0: the kernel's choice (tests); LAUNCH_SOCKET says which. */
		if (port > UINT16_MAX)
			diex("plan: listener port %u", port);
		it->port = (uint16_t)port;
		break;
	case MSG_PLAN_WRITE_RULE:
		/* Checked when notify_setup() compiles the rule set. */
		it->op = msg_get_u32(m);
		it->src = xstrdup(msg_get_str(m));
		it->dst = xstrdup(msg_get_str(m));
		break;
	default:
		diex("plan: %s out of sequence", m->info->name);
	}
	*plan->tail = it;
	plan->tail = &it->next;
}

void
plan_recv(struct launch_plan *plan)
{
	struct msg	m;

	memset(plan, 0, sizeof(*plan));
	plan->tail = &plan->items;

	if (plan_recv_one(&m, 1) != MSG_PLAN_BEGIN)
		diex("plan: expected MSG_PLAN_BEGIN, got %s", m.info->name);
	plan->session = xstrdup(msg_get_str(&m));
	plan->flags = msg_get_u32(&m);
	plan->uid = msg_get_u32(&m);
	plan->gid = msg_get_u32(&m);
	msg_free(&m);
	/* Only the caller's own ids: we never map anyone else (R-L1). */
	if (plan->uid != geteuid() || plan->gid != getegid())
		diex("plan uid/gid %u/%u are not the caller's %u/%u",
		    plan->uid, plan->gid, geteuid(), getegid());
	if (!(plan->flags & PLAN_F_NET_NS))
		diex("plan: every sandbox has its own network namespace");

	while (plan_recv_one(&m, 0) != MSG_PLAN_END) {
		plan_add(plan, &m);
		msg_free(&m);
	}
	msg_free(&m);
	log_debug("session %s: plan received", plan->session);
}
