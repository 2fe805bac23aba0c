// SPDX-License-Identifier: ISC
/*
 * airlock-guard's main: initialise, restrict self, serve.  The sandbox's
 * init forks and execs us (launcher/init.c) with our link on fd 3 and
 * nothing else; we are already in the sandbox's namespaces, root,
 * Landlock domain and uid, with no capability.  We read the filename
 * rules (MSG_PLAN_WRITE_RULE ... MSG_PLAN_END), restrict ourselves
 * further, say MSG_HELLO, then take each exec's seccomp listener (on
 * fd 4, from the exec itself: common/msg_launch.h) and answer its calls
 * (notify.c).  Init going away (EOF) ends us; our ending ends the
 * sandbox (init sees it), and every call notified meanwhile fails, since
 * its listener closed with us.
 */
#include <sys/prctl.h>
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg_launch.h"
#include "common/sandbox_self.h"
#include "common/xmalloc.h"
#include "guard/guard.h"

#define GUARD_LQ_FD	(MSG_CHILD_FD + 1)	/* the listeners' socket */

struct msg_link guard_link;

/*
 * What we may still do: the filesystem of the sandbox's Landlock domain,
 * which we keep as it is (we perform the commands' writes in it, and
 * read their memory, which a layer of our own would forbid), and of the
 * syscalls only those of emulation (sandbox_self.h, SBX_SYS_EMULATE): no
 * execve, no socket of our own (we bind and connect copies of the
 * commands'), no ptrace.
 */
static const struct sbx_profile guard_profile = {
	.name = "guard",
	.groups = SBX_SYS_STDIO | SBX_SYS_EVENT | SBX_SYS_RPATH |
	    SBX_SYS_UNIX | SBX_SYS_WPATH | SBX_SYS_EMULATE,
	.in_domain = 1,
};

/* untrusted: only in that a bad frame from init ends us. */
static uint16_t
guard_recv(struct msg *m)
{
	enum msg_result	r;

	if ((r = msg_recv(&guard_link, m)) == MSG_EOF)
		_exit(0);
	if (r != MSG_OK)
		fatalx("invalid frame from init");
	return m->info->type;
}

/*
 * An exec's listener: one packet of its 4-byte exec id and exactly one
 * fd.  Only init's own children hold the other end, until their execve
 * (it is close-on-exec): anything else is our bug, and fatal.
 */
static void
guard_take_listener(void)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int) * 2)];
		struct cmsghdr	align;
	} u;
	uint32_t	 id;
	struct iovec	 iov = { &id, sizeof(id) };
	struct msghdr	 mh = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr	*c;
	ssize_t		 n;
	int		 fd;

	if ((n = recvmsg(GUARD_LQ_FD, &mh, MSG_CMSG_CLOEXEC)) == 0)
		_exit(0);	/* init is gone */
	if (n == -1 && errno == EINTR)
		return;
	c = CMSG_FIRSTHDR(&mh);
	if (n != (ssize_t)sizeof(id) || (mh.msg_flags & (MSG_CTRUNC |
	    MSG_TRUNC)) || c == NULL || c->cmsg_level != SOL_SOCKET ||
	    c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
		fatalx("a malformed listener packet");
	memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	notify_add(fd, id);
}

static void __attribute__((noreturn))
guard_loop(void)
{
	struct pollfd	*pfd = NULL;
	struct msg	 m;
	size_t		 n, cap = 0;

	for (;;) {
		if (cap < 2 + notify_pollfds(NULL)) {
			cap = 2 + notify_pollfds(NULL) * 2;
			pfd = xreallocarray(pfd, cap, sizeof(*pfd));
		}
		pfd[0] = (struct pollfd){ guard_link.fd, POLLIN, 0 };
		pfd[1] = (struct pollfd){ GUARD_LQ_FD, POLLIN, 0 };
		n = notify_pollfds(pfd + 2);
		if (poll(pfd, 2 + n, notify_timeout()) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll");
		}
		notify_service(pfd + 2, n);
		if (pfd[1].revents != 0)
			guard_take_listener();
		if (pfd[0].revents == 0)
			continue;
		if (guard_recv(&m) == MSG_SHUTDOWN)
			_exit(0);
		fatalx("unexpected %s from init", m.info->name);
	}
}

int
main(void)
{
	struct msgbuf	b;
	struct msg	m;
	const char	*pat;
	uint32_t	kind;
	uint16_t	t;

	/* First: nothing in the sandbox may read or trace us. */
	if (prctl(PR_SET_DUMPABLE, 0) == -1)
		_exit(1);
	log_init("guard", 0);
	if (getenv("AIRLOCK_DEBUG") == NULL)
		log_setverbose(-1);	/* our stderr may be the user's */
	if (close_range(GUARD_LQ_FD + 1, ~0U, 0) == -1)
		fatal("close_range");
	msg_link_init(&guard_link, MSG_CHILD_FD, MSG_CH_GUARD, MSG_DOWN,
	    "init");
	signal(SIGPIPE, SIG_IGN);
	/* A connect that would block is made in a child: the kernel reaps. */
	signal(SIGCHLD, SIG_IGN);

	while ((t = guard_recv(&m)) == MSG_PLAN_WRITE_RULE) {
		kind = msg_get_u32(&m);
		pat = msg_get_str(&m);
		notify_rule(kind, pat, msg_get_str(&m));
		msg_free(&m);
	}
	if (t != MSG_PLAN_END)
		fatalx("unexpected %s from init", m.info->name);
	msg_free(&m);
	notify_setup();
	sandbox_self(&guard_profile);

	msgbuf_init(&b, MSG_HELLO);
	msg_put_u32(&b, (uint32_t)getpid());
	msg_put_str(&b, sandbox_self_summary());
	if (msg_send(&guard_link, &b, NULL, 0) == -1)
		fatal("send MSG_HELLO");
	msgbuf_free(&b);
	guard_loop();
}
