// SPDX-License-Identifier: ISC
/*
 * airlock-proxyd: the per-session HTTP and SOCKS5 egress proxies (SPEC §6,
 * R-E1..R-E6, R-P2).  airlockd starts it with the channel on fd 3 and
 * hands it, per sandbox session, two listening sockets the launcher made
 * inside the sandbox's network namespace, plus the session's rules.
 * proxyd accepts from inside and dials out from the host's namespace, so
 * no bridge process is needed.
 *
 * proxyd_main() reads: initialise (event loop, resolver configuration from
 * /etc/resolv.conf and /etc/hosts: the last files it ever opens; the
 * host's interface addresses, special ranges for R-E5) → restrict
 * self (no file access, a seccomp allowlist, no capabilities) → say HELLO
 * → event loop.  If the link to airlockd closes or carries an invalid
 * frame, proxyd exits: airlockd restarts it and fails the affected
 * sessions closed.  Running out of descriptors is not such a frame: a
 * session whose listeners arrive truncated is refused alone and airlockd
 * told (MSG_PX_SESSION_FAILED); session.c keeps a reserve so that it
 * does not come to that, and a cap per session so that none starves
 * the rest.
 */
#include <sys/resource.h>
#include <sys/socket.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/dns.h>
#include <event2/event.h>

#include <openssl/ssl.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/sandbox_self.h"
#include "policy/egress.h"
#include "proxyd/proxyd.h"

struct event_base	*px_base;
struct evdns_base	*px_dns;

static struct msg_link	 px_link;
static struct event	*px_link_ev;
static struct event	*px_sigterm_ev;

/*
 * What proxyd may do once running: accept from the listeners it holds,
 * dial TCP and send DNS over UDP, splice, and exchange frames with
 * airlockd.  No path at all: every filesystem right is handled by
 * Landlock and none is granted; open() fails with EACCES in seccomp too.
 */
static const struct sbx_profile px_profile = {
	.name = "proxyd",
	.paths = NULL,
	.npaths = 0,
	.groups = SBX_SYS_STDIO | SBX_SYS_EVENT | SBX_SYS_INET |
	    SBX_SYS_SPLICE | SBX_SYS_UNIX,
};

void
px_violation(const struct px_session *s, const char *host, uint16_t port)
{
	struct msgbuf b;
	char	 target[300];

	if (strchr(host, ':') != NULL)
		snprintf(target, sizeof(target), "[%s]:%u", host, port);
	else
		snprintf(target, sizeof(target), "%s:%u", host, port);
	msgbuf_init(&b, MSG_PX_VIOLATION);
	msg_put_str(&b, s->id);
	msg_put_str(&b, "network-outbound");
	msg_put_str(&b, target);
	if (msg_send(&px_link, &b, NULL, 0) == -1)
		fatal("send violation to airlockd");
	msgbuf_free(&b);
}

void
px_violation_as(const char *id, const char *action, const char *target)
{
	struct msgbuf b;

	msgbuf_init(&b, MSG_PX_VIOLATION);
	msg_put_str(&b, id);
	msg_put_str(&b, action);
	msg_put_str(&b, target);
	if (msg_send(&px_link, &b, NULL, 0) == -1)
		fatal("send violation to airlockd");
	msgbuf_free(&b);
}

void
px_send(struct msgbuf *b)
{
	if (msg_send(&px_link, b, NULL, 0) == -1)
		fatal("send %s to airlockd", msg_type_name(b->type));
}

void
px_session_failed(const char *id, const char *reason)
{
	struct msgbuf b;

	msgbuf_init(&b, MSG_PX_SESSION_FAILED);
	msg_put_str(&b, id);
	msg_put_str(&b, reason);
	if (msg_send(&px_link, &b, NULL, 0) == -1)
		fatal("send session failure to airlockd");
	msgbuf_free(&b);
}

static void
px_shutdown(void)
{
	px_session_del_all();
	px_relay_shutdown();
	event_base_loopexit(px_base, NULL);
}

static void
px_dispatch_airlockd(int fd, short ev, void *arg)
{
	struct msg m;
	enum msg_result r;
	char	*id;

	(void)fd;
	(void)ev;
	(void)arg;
	for (;;) {
		/* untrusted-ish: frames from airlockd, validated by msg_recv */
		r = msg_recv(&px_link, &m);
		if (r == MSG_AGAIN)
			return;
		if (r == MSG_EOF) {
			/* airlockd exited: so do we, and every tunnel with us
			 * (as gatewayd does; not an error to shout about) */
			log_info("airlockd closed the channel: exiting");
			exit(0);
		}
		if (r == MSG_ERROR)
			fatalx("invalid frame from airlockd");
		if (r == MSG_FDS_LOST) {
			/* Out of fds: the one session fails, not proxyd. */
			if (m.info->type == MSG_PX_HOSTEP) {
				px_session_hostep_truncated(&m);
				msg_free(&m);
				continue;
			}
			if (m.info->type != MSG_PX_SESSION_ADD)
				fatalx("%s from airlockd lost its fds",
				    m.info->name);
			px_session_add_truncated(&m);
			msg_free(&m);
			continue;
		}
		switch (m.info->type) {
		case MSG_PX_SESSION_ADD:
			px_session_add(&m);
			break;
		case MSG_PX_SESSION_DEL:
			id = strdup(msg_get_str(&m));
			if (id == NULL)
				fatal("strdup");
			px_session_del(id);
			px_mask_del(id);
			free(id);
			break;
		case MSG_PX_MASK:
			px_mask_add(&m);
			break;
		case MSG_PX_HOSTEP:
			px_session_hostep(&m);
			break;
		case MSG_PX_UPSTREAM:
			px_session_upstream(&m);
			break;
		case MSG_PX_INSPECT:
			px_inspect_add(&m);
			break;
		case MSG_PX_MASK_END:
			px_mask_end(&m);
			break;
		case MSG_SHUTDOWN:
			log_info("shutdown requested");
			msg_free(&m);
			px_shutdown();
			return;
		default:
			fatalx("unexpected %s from airlockd", m.info->name);
		}
		msg_free(&m);
	}
}

static void
px_sigterm(int sig, short ev, void *arg)
{
	(void)sig;
	(void)ev;
	(void)arg;
	log_info("SIGTERM");
	px_shutdown();
}

/*
 * The resolver reads its configuration now: after sandbox_self() no file
 * can be opened.  AIRLOCK_RESOLV_CONF (set by tests, never by airlockd)
 * replaces /etc/resolv.conf, so tests can point proxyd at a DNS server on
 * loopback.
 */
static void
px_dns_init(void)
{
	const char *conf = getenv("AIRLOCK_RESOLV_CONF");
	int	 rc;

	if ((px_dns = evdns_base_new(px_base, 0)) == NULL)
		fatalx("evdns_base_new");
	rc = evdns_base_resolv_conf_parse(px_dns, DNS_OPTIONS_ALL,
	    conf != NULL ? conf : "/etc/resolv.conf");
	if (rc != 0)
		log_warnx("resolver configuration %s: error %d",
		    conf != NULL ? conf : "/etc/resolv.conf", rc);
	if (evdns_base_load_hosts(px_dns, NULL) != 0)
		log_warnx("cannot load /etc/hosts");
}

/*
 * R-E5: the host's own addresses are special ranges too -- a service on
 * the machine's LAN address is as local as one on 127.0.0.1.  Read now:
 * after sandbox_self() there is no netlink socket to ask with.  An
 * address the host gains later is not known (docs/SECURITY.md).
 */
static void
px_host_addrs(void)
{
	struct ifaddrs	*ifa, *i;
	const void	*sa;
	size_t		 n = 0;

	if (getifaddrs(&ifa) == -1) {
		log_warn("getifaddrs: the host's own addresses are unknown");
		return;
	}
	for (i = ifa; i != NULL; i = i->ifa_next) {
		if ((sa = i->ifa_addr) == NULL)
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			n += egress_host_addr_add(AF_INET,
			    &((const struct sockaddr_in *)sa)->sin_addr) == 0;
		else if (i->ifa_addr->sa_family == AF_INET6)
			n += egress_host_addr_add(AF_INET6,
			    &((const struct sockaddr_in6 *)sa)->sin6_addr) == 0;
	}
	freeifaddrs(ifa);
	log_debug("%zu host addresses are special", n);
}

/* Many tunnels mean many fds: take the whole hard limit. */
static void
px_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			log_warn("setrlimit RLIMIT_NOFILE");
	}
}

static int
proxyd_main(void)
{
	struct msgbuf b;
	int	 fl;

	/* ---- initialise ---- */
	log_init("proxyd", 0);
	log_pin_pid();		/* proxyd never forks */
	signal(SIGPIPE, SIG_IGN);
	px_raise_nofile();
	if (fcntl(MSG_CHILD_FD, F_GETFD) == -1)
		fatalx("no channel on fd %d", MSG_CHILD_FD);
	msg_link_init(&px_link, MSG_CHILD_FD, MSG_CH_PROXYD, MSG_DOWN,
	    "airlockd");
	/* A session's listeners that do not fit fail that session only. */
	px_link.trunc_ok = 1;
	if ((fl = fcntl(MSG_CHILD_FD, F_GETFL)) == -1 ||
	    fcntl(MSG_CHILD_FD, F_SETFL, fl | O_NONBLOCK) == -1)
		fatal("fcntl channel");
	if ((px_base = event_base_new()) == NULL)
		fatalx("event_base_new");
	px_dns_init();
	px_host_addrs();
	/*
	 * OpenSSL reads its configuration file once, at its first use:
	 * now, while files can still be opened, not at a session's first
	 * terminated connection, where the open would fail (tls.c).
	 */
	if (OPENSSL_init_ssl(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1)
		fatalx("OPENSSL_init_ssl");
	px_link_ev = event_new(px_base, MSG_CHILD_FD, EV_READ | EV_PERSIST,
	    px_dispatch_airlockd, NULL);
	px_sigterm_ev = evsignal_new(px_base, SIGTERM, px_sigterm, NULL);
	if (px_link_ev == NULL || px_sigterm_ev == NULL ||
	    event_add(px_link_ev, NULL) == -1 ||
	    evsignal_add(px_sigterm_ev, NULL) == -1)
		fatalx("event setup");

	px_fds_init();

	/* ---- restrict self (R-P2) ---- */
	sandbox_self(&px_profile);

	/* ---- say who we are, then serve ---- */
	msgbuf_init(&b, MSG_HELLO);
	msg_put_u32(&b, (uint32_t)getpid());
	msg_put_str(&b, sandbox_self_summary());
	if (msg_send(&px_link, &b, NULL, 0) == -1)
		fatal("send HELLO");
	msgbuf_free(&b);

	event_base_dispatch(px_base);
	log_info("exiting");
	return 0;
}

int
main(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	return proxyd_main();
}
