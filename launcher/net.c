// SPDX-License-Identifier: ISC
/*
 * The sandbox's network (SPEC R-L8): a new network namespace has only a
 * loopback device, down; we bring it up with SIOCSIFFLAGS (one ioctl; no
 * libnl to link).  Then, still before the fork, we make each listener
 * the plan asks for: a TCP socket on 127.0.0.1, port chosen by the
 * kernel, created INSIDE the namespace and sent up to airlockd, which
 * hands it to proxyd or gatewayd.  A socket keeps the namespace it was
 * made in, so those daemons accept the sandbox's connections from the
 * host: no bridge process.  We keep only the port numbers, for
 * Landlock's connect rules.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg_launch.h"
#include "launcher/launcher.h"

static void
net_lo_up(void)
{
	struct ifreq	ifr;
	int		fd;

	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", sizeof("lo"));
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		die("lo: socket");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == -1)
		die("lo: SIOCGIFFLAGS");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) == -1)
		die("lo: SIOCSIFFLAGS");
	close(fd);
}

static uint16_t
net_listen(uint32_t kind, uint32_t port)
{
	struct sockaddr_in	 sin;
	socklen_t		 slen = sizeof(sin);
	struct msgbuf		 b;
	int			 fd;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		die("listener socket");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)port);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		die("listener bind 127.0.0.1:%u", port);
	if (listen(fd, 128) == -1)
		die("listen");
	if (getsockname(fd, (struct sockaddr *)&sin, &slen) == -1)
		die("getsockname");

	msgbuf_init(&b, MSG_LAUNCH_SOCKET);
	msg_put_u32(&b, kind);
	msg_put_u32(&b, ntohs(sin.sin_port));
	if (msg_send(&launch_link, &b, &fd, 1) == -1)
		die("send MSG_LAUNCH_SOCKET");
	msgbuf_free(&b);
	close(fd);
	return ntohs(sin.sin_port);
}

void
net_setup(struct launch_plan *plan)
{
	struct launch_item	*it;

	net_lo_up();	/* every sandbox has its netns (plan_recv()) */
	PLAN_FOREACH(it, plan, MSG_PLAN_LISTEN) {
		it->port = net_listen(it->op, it->port);
		log_debug("listener kind %u on 127.0.0.1:%u", it->op,
		    it->port);
	}
}
