// SPDX-License-Identifier: ISC
/*
 * A session's registration with the daemons: its listeners go to proxyd
 * and gatewayd once the sandbox is ready and the daemon runs, or else at
 * the first connection to them, which starts the daemon; again to a
 * restarted gatewayd; and a daemon's death fails its sessions closed.
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <linux/magic.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/host/paths.h"
#include "common/host/wsorigin.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"
#include "supervisor/sv_nodeproxy.h"
#include "supervisor/credentials.h"
#include "supervisor/gwrepo.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"
#include "supervisor/sv_sess.h"

/* The daemon that serves listener kind i, and the listeners it takes. */
#define LISTEN_DAEMON(i) ((i) == LISTEN_GIT ? SV_DAEMON_GATEWAYD : \
	SV_DAEMON_PROXYD)

static void	listen_activate(evutil_socket_t, short, void *);

/*
 * Add a vector's size in a frame to *bytes; 0 when it has more strings
 * than a frame takes (msg_put_strv() would be fatal to airlockd).
 */
static int
strv_fits(char *const *v, size_t *bytes)
{
	size_t	n;

	for (n = 0; v != NULL && v[n] != NULL; n++)
		*bytes += sizeof(uint32_t) + strlen(v[n]) + 1;
	*bytes += sizeof(uint32_t);
	return n <= MSG_MAX_STRV;
}

/*
 * sandbox.network.upstream to proxyd.  The proxy's "user:password" is
 * read here, from the credentials file (never the sandbox); one that
 * cannot be read is logged and none is sent: the upstream then refuses
 * (407) and the sandbox sees 502, closed, never a direct dial.
 */
static int
register_upstream(struct sv_session *s, const struct settings *set,
    struct msg_link *l)
{
	struct msgbuf	 b;
	struct cred_store *cs = NULL;
	struct mask_setting m;
	char		*auth = NULL, err[256];
	char		*none[] = { NULL };
	int		 rc;

	if (set->upstream_credential != NULL) {
		memset(&m, 0, sizeof(m));
		m.name = set->upstream_credential;
		snprintf(err, sizeof(err), "no credentials file");
		if (set->credentials_file != NULL && (cs = cred_load(
		    set->credentials_file, err, sizeof(err))) != NULL)
			auth = cred_mask_value(cs, &m, err, sizeof(err));
		cred_free(cs);
		if (auth == NULL)
			log_warnx("session %s: sandbox.network.upstream."
			    "credential: %s", s->id, err);
	}
	msgbuf_init(&b, MSG_PX_UPSTREAM);
	msg_put_str(&b, s->id);
	msg_put_str(&b, set->upstream_http != NULL ? set->upstream_http : "");
	msg_put_str(&b, set->upstream_socks5 != NULL ?
	    set->upstream_socks5 : "");
	msg_put_str(&b, auth != NULL ? auth : "");
	msg_put_strv(&b, set->upstream_no_proxy != NULL ?
	    set->upstream_no_proxy : none);
	cred_secret_free(auth);
	rc = msg_send(l, &b, NULL, 0);
	msgbuf_free(&b);
	return rc;
}

/*
 * The host-header endpoint's listener, with the certificates proxyd
 * verifies its servers with: those of the TLS-terminated path
 * (sandbox.network.tls.upstreamCA, else the system's).  None found:
 * sent empty, and proxyd answers each request with why (502).
 */
static int
register_hostep(struct sv_session *s, const struct settings *set,
    struct msg_link *l)
{
	struct msgbuf	b;
	char		*up, err[512];
	int		 rc;

	if ((up = sv_mask_upstream_bundle(set, err, sizeof(err))) == NULL)
		log_warnx("session %s: host-header endpoint: %s", s->id, err);
	msgbuf_init(&b, MSG_PX_HOSTEP);
	msg_put_str(&b, s->id);
	msg_put_blob(&b, up != NULL ? up : "", up != NULL ? strlen(up) : 0);
	rc = msg_send(l, &b, &s->hostep_fd, 1);
	msgbuf_free(&b);
	free(up);
	return rc;
}

/* -1: the send failed; -2: the session's lists do not fit a frame. */
static int
register_proxyd(struct sv_session *s, struct msg_link *l)
{
	struct msgbuf	 b;
	char		**allow, **deny;
	size_t		 i, n;
	int		 fds[2], rc;
	/* R-E4: baseline + GitHub + the spec's list + settings; network
	 * off: empty (the proxies still listen). */
	const struct settings *set = s->own_settings != NULL ?
	    s->own_settings : ssettings;

	allow = egress_allowlist(s->spec.network_enabled,
	    s->spec.egress_allowlist, set->allowed_domains);
	/* An srt file's allowedDomains is the whole list. */
	if (!set->egress_baseline)
		allow = egress_drop_baseline(allow, s->spec.egress_allowlist,
		    set->allowed_domains);
	deny = xcalloc(1, sizeof(char *));
	for (i = 0; set->denied_domains && set->denied_domains[i]; i++)
		deny = strv_add(deny, set->denied_domains[i]);
	n = 3 * sizeof(uint32_t) + strlen(s->id) + 1;
	if (!strv_fits(allow, &n) || !strv_fits(deny, &n) ||
	    n > MSG_MAX_PAYLOAD) {
		strv_free(allow);
		strv_free(deny);
		return -2;
	}
	msgbuf_init(&b, MSG_PX_SESSION_ADD);
	msg_put_str(&b, s->id);
	msg_put_u32(&b, s->spec.network_enabled ? PX_F_NETWORK : 0);
	/* proxyd holds it to a fair share of its descriptors too. */
	msg_put_u32(&b, set->max_connections);
	msg_put_strv(&b, allow);
	msg_put_strv(&b, deny);
	fds[0] = s->listen_fd[LISTEN_HTTP];
	fds[1] = s->listen_fd[LISTEN_SOCKS];
	rc = msg_send(l, &b, fds, 2);
	msgbuf_free(&b);
	strv_free(allow);
	strv_free(deny);
	if (rc == 0 && (set->upstream_http != NULL ||
	    set->upstream_socks5 != NULL))
		rc = register_upstream(s, set, l);
	if (rc == 0 && s->hostep_fd != -1)
		rc = register_hostep(s, set, l);
	return rc;
}

static int
register_gatewayd(struct sv_session *s, struct msg_link *l)
{
	struct msgbuf	b;
	int		rc;

	msgbuf_init(&b, MSG_GW_RUN_ADD);
	msg_put_str(&b, s->id);
	rc = msg_send(l, &b, &s->listen_fd[LISTEN_GIT], 1);
	msgbuf_free(&b);
	return rc;
}

static void
listen_watch(struct sv_session *s, enum sv_daemon_kind k, int on)
{
	int	i;

	/* proxyd's host-header endpoint starts it as its listeners do */
	if (k == SV_DAEMON_PROXYD && s->hostep_fd != -1) {
		if (s->ev_hostep != NULL)
			event_free(s->ev_hostep);
		s->ev_hostep = NULL;
		if (on) {
			s->ev_hostep = event_new(sbase, s->hostep_fd,
			    EV_READ, listen_activate, s);
			event_add(s->ev_hostep, NULL);
		}
	}
	for (i = 1; i < LISTEN_MAX; i++) {
		if (LISTEN_DAEMON(i) != k || s->listen_fd[i] == -1)
			continue;
		if (s->ev_listen[i] != NULL) {
			event_free(s->ev_listen[i]);
			s->ev_listen[i] = NULL;
		}
		if (on) {
			s->ev_listen[i] = event_new(sbase, s->listen_fd[i],
			    EV_READ, listen_activate, s);
			event_add(s->ev_listen[i], NULL);
		}
	}
}

/* Close k's listeners: connections waiting there are refused. */
static void
listen_close(struct sv_session *s, enum sv_daemon_kind k)
{
	int	i;

	listen_watch(s, k, 0);
	if (k == SV_DAEMON_PROXYD && s->hostep_fd != -1) {
		close(s->hostep_fd);
		s->hostep_fd = -1;
	}
	for (i = 1; i < LISTEN_MAX; i++)
		if (LISTEN_DAEMON(i) == k && s->listen_fd[i] != -1) {
			close(s->listen_fd[i]);
			s->listen_fd[i] = -1;
		}
}

/* Refuse k's connections, never go around the daemon. */
static void
listen_refuse(struct sv_session *s, enum sv_daemon_kind k)
{
	log_warnx("session %s: %s could not be started: closing its "
	    "listeners", s->id, k == SV_DAEMON_PROXYD ? "proxyd" :
	    "gatewayd");
	listen_close(s, k);
	s->dstate[k] = DS_NONE;
}

/* Does a connection wait in k's listeners (or has airlockd none)? */
static int
listen_waiting(struct sv_session *s, enum sv_daemon_kind k)
{
	struct pollfd	pfd;
	int		i, held = 0;

	if (k == SV_DAEMON_PROXYD && s->hostep_fd != -1) {
		pfd.fd = s->hostep_fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 0) == 1)
			return 1;
	}

	for (i = 1; i < LISTEN_MAX; i++) {
		if (LISTEN_DAEMON(i) != k || s->listen_fd[i] == -1)
			continue;
		held++;
		pfd.fd = s->listen_fd[i];
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 0) == 1)
			return 1;
	}
	return held == 0;
}

/*
 * Hand the session's listeners to daemon k, which runs.  proxyd keeps
 * the only copies once it said hello (until then it may yet turn out
 * not to start); airlockd keeps the gateway's too, for a restarted
 * gatewayd.
 */
static void
register_one(struct sv_session *s, enum sv_daemon_kind k)
{
	struct msg_link	*l;
	int		 rc;

	listen_watch(s, k, 0);
	if ((l = sv_daemon_link(k)) == NULL) {
		listen_refuse(s, k);
		return;
	}
	rc = k == SV_DAEMON_PROXYD ? register_proxyd(s, l) :
	    register_gatewayd(s, l);
	if (rc == -2) {
		/* untrusted: the client's lists; refused, not fatal. */
		log_warnx("session %s: its egress lists are more than "
		    "proxyd takes: closing its proxy listeners", s->id);
		listen_close(s, k);
		s->dstate[k] = DS_NONE;
		return;
	}
	if (rc == -1) {
		s->dstate[k] = DS_WANTED;	/* at its next start */
		sv_daemon_failed(k, "send failed");
		return;
	}
	s->dstate[k] = DS_REGISTERED;
	if (k == SV_DAEMON_PROXYD && sv_daemon_ready(k))
		listen_close(s, k);
}

/* A sandbox connected to a listener that no daemon serves yet. */
static void
listen_activate(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_session *s = arg;
	enum sv_daemon_kind k;
	int		 i;

	(void)ev;
	for (i = 1; i < LISTEN_MAX; i++)
		if (s->listen_fd[i] == fd)
			break;
	if (fd != -1 && fd == s->hostep_fd)
		i = LISTEN_HTTP;
	if (i == LISTEN_MAX || s->dstate[LISTEN_DAEMON(i)] != DS_IDLE)
		return;
	k = LISTEN_DAEMON(i);
	listen_watch(s, k, 0);
	s->dstate[k] = DS_WANTED;
	if (sv_daemon_up(k))
		register_one(s, k);
	else
		sv_daemon_want(k);
}

/*
 * The sandbox is ready: each daemon that runs gets the session's
 * listeners now; for one that does not, airlockd holds them and starts
 * it at the first connection, which waits in the listener's backlog.
 */
void
register_daemons(struct sv_session *s)
{
	enum sv_daemon_kind k;
	int		 i, have;

	for (k = 0; k < SV_DAEMON_MAX; k++) {
		have = 0;
		for (i = 1; i < LISTEN_MAX; i++)
			if (LISTEN_DAEMON(i) == k && s->listen_fd[i] != -1)
				have++;
		if (have != (k == SV_DAEMON_PROXYD ? 2 : 1) ||
		    !sv_daemon_present(k)) {
			listen_close(s, k);
			s->dstate[k] = DS_NONE;
		} else if (sv_daemon_up(k))
			register_one(s, k);
		else {
			s->dstate[k] = DS_IDLE;
			listen_watch(s, k, 1);
		}
	}
}

/* The session ends: the daemons forget it, its listeners close. */
void
unregister_daemons(struct sv_session *s)
{
	static const uint32_t del[SV_DAEMON_MAX] = {
		[SV_DAEMON_PROXYD] = MSG_PX_SESSION_DEL,
		[SV_DAEMON_GATEWAYD] = MSG_GW_RUN_DEL,
	};
	struct msgbuf	 b;
	struct msg_link	*l;
	enum sv_daemon_kind k;

	for (k = 0; k < SV_DAEMON_MAX; k++) {
		/* proxyd also forgets a session's masked values and CA. */
		if ((s->dstate[k] == DS_REGISTERED || (k == SV_DAEMON_PROXYD &&
		    s->mask_sent)) && (l = sv_daemon_link(k)) != NULL) {
			if (k == SV_DAEMON_PROXYD)
				s->mask_sent = 0;
			msgbuf_init(&b, del[k]);
			msg_put_str(&b, s->id);
			(void)msg_send(l, &b, NULL, 0);
			msgbuf_free(&b);
		}
		s->dstate[k] = DS_NONE;
		listen_close(s, k);
	}
}

static void
env_add(struct sv_session *s, const char *name, const char *pre, int port,
    const char *post)
{
	char	*kv;

	xasprintf(&kv, "%s=%s%d%s", name, pre, port, post);
	s->plan.env_base = strv_add(s->plan.env_base, kv);
	free(kv);
}

/*
 * R-L8: the proxies' addresses.  NO_PROXY does not list loopback: a host
 * service the user allowed (localhost:5432) is reached through the proxy;
 * the gateway is exempted by the run's git config instead.
 */
void
proxy_env(struct sv_session *s)
{
	static const char *const http_names[] = { "HTTP_PROXY",
	    "HTTPS_PROXY", "http_proxy", "https_proxy" };
	static const char *const tool_names[] = { "GRPC_PROXY",
	    "grpc_proxy", "npm_config_proxy", "npm_config_https_proxy",
	    "YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "PIP_PROXY" };
	char	*java;
	size_t	i;

	if (s->dstate[SV_DAEMON_PROXYD] == DS_NONE)
		return;
	for (i = 0; i < sizeof(http_names) / sizeof(http_names[0]); i++)
		env_add(s, http_names[i], "http://127.0.0.1:",
		    LISTEN_PORT_HTTP, "");
	env_add(s, "ALL_PROXY", "socks5h://127.0.0.1:", LISTEN_PORT_SOCKS, "");
	env_add(s, "all_proxy", "socks5h://127.0.0.1:", LISTEN_PORT_SOCKS, "");
	/*
	 * Tools that read none of those: gRPC, the Google Cloud SDK, the
	 * JVM (its proxy properties only; its default exceptions would
	 * send loopback direct, where nothing of the host listens), npm,
	 * yarn and pip.  Each names the HTTP listener.
	 */
	for (i = 0; i < sizeof(tool_names) / sizeof(tool_names[0]); i++)
		env_add(s, tool_names[i], "http://127.0.0.1:",
		    LISTEN_PORT_HTTP, "");
	s->plan.env_base = strv_add(s->plan.env_base,
	    "CLOUDSDK_PROXY_TYPE=http");
	s->plan.env_base = strv_add(s->plan.env_base,
	    "CLOUDSDK_PROXY_ADDRESS=127.0.0.1");
	env_add(s, "CLOUDSDK_PROXY_PORT", "", LISTEN_PORT_HTTP, "");
	xasprintf(&java, "JAVA_TOOL_OPTIONS=-Dhttp.proxyHost=127.0.0.1 "
	    "-Dhttp.proxyPort=%d -Dhttps.proxyHost=127.0.0.1 "
	    "-Dhttps.proxyPort=%d -Dhttp.nonProxyHosts=", LISTEN_PORT_HTTP,
	    LISTEN_PORT_HTTP);
	s->plan.env_base = strv_add(s->plan.env_base, java);
	free(java);
	/* Node's fetch() reads none of them: a preload of airlock's. */
	s->plan.env_base = strv_add(s->plan.env_base,
	    "NODE_OPTIONS=--require=" SV_RUN_NODE_PROXY);
	/* airlock's own SOCKS client, bound into the sandbox: no nc. */
	env_add(s, "GIT_SSH_COMMAND", "ssh -o ProxyCommand='"
	    AIRLOCK_SANDBOX_SELF " proxy-connect 127.0.0.1:",
	    LISTEN_PORT_SOCKS, " %h %p'");
}

void
sv_sessions_daemon_died(enum sv_daemon_kind k, int ready)
{
	struct sv_session *s;

	for (s = sessions; s != NULL; s = s->next) {
		if (s->state == ST_DESTROYED || s->state == ST_ERROR)
			continue;
		/* Masked credentials: the CA and values died with it. */
		if (k == SV_DAEMON_PROXYD && s->mask_sent) {
			s->mask_sent = 0;
			if (s->mask_wait) {
				s->mask_wait = 0;
				launch_failed(s, "credentials.mask: "
				    "airlock-proxyd died before the session's "
				    "CA was made");
				continue;
			}
			s->dstate[k] = DS_NONE;
			event_killed(s, NULL, "proxy-died");
			session_kill(s, "proxyd died: the session's masked "
			    "credentials and CA went with it");
			continue;
		}
		/*
		 * One that died before its hello could not be started:
		 * the connections that wait for it are refused, as when
		 * its binary is gone; a crash at every start would keep
		 * them waiting for ever (git has no timeout).  Sessions
		 * with none waiting keep their listeners (proxyd's too:
		 * airlockd keeps them until its hello) and go on, since
		 * nothing of theirs went through it.
		 */
		if (!ready && (s->dstate[k] == DS_WANTED ||
		    s->dstate[k] == DS_REGISTERED)) {
			if (s->dstate[k] == DS_WANTED || listen_waiting(s, k))
				listen_refuse(s, k);
			else {
				s->dstate[k] = DS_IDLE;
				listen_watch(s, k, 1);
			}
			continue;
		}
		if (s->dstate[k] != DS_REGISTERED)
			continue;
		/*
		 * A gatewayd failure fails closed only the sessions whose
		 * push was in flight; the others keep their listener, which
		 * starts gatewayd again at their next push.
		 */
		if (k == SV_DAEMON_GATEWAYD && !sv_gw_in_flight(s->id)) {
			s->dstate[k] = DS_IDLE;
			listen_watch(s, k, 1);
			continue;
		}
		s->dstate[k] = DS_NONE;
		event_killed(s, NULL, k == SV_DAEMON_PROXYD ?
		    "proxy-died" : "gateway-died");
		session_kill(s, k == SV_DAEMON_PROXYD ?
		    "proxyd died" : "gatewayd died");
	}
}

/*
 * proxyd could not take session sid (its listeners arrived truncated,
 * proxyd being out of descriptors, or were not listeners): that session
 * fails closed, alone, as all of them would if proxyd had died.
 */
void
sv_sessions_proxy_failed(const char *sid, const char *reason)
{
	struct sv_session *s = sv_session_find(sid);

	if (s == NULL || s->state == ST_DESTROYED || s->state == ST_ERROR ||
	    s->dstate[SV_DAEMON_PROXYD] != DS_REGISTERED) {
		log_warnx("proxyd could not take session %s (%s): no such "
		    "session here", sid, reason);
		return;
	}
	log_warnx("session %s: proxyd could not take it: %s", sid, reason);
	s->dstate[SV_DAEMON_PROXYD] = DS_NONE;
	listen_close(s, SV_DAEMON_PROXYD);
	event_killed(s, NULL, "proxy-refused");
	session_kill(s, "proxyd could not take its listeners");
}

/*
 * Daemon k was started (or failed to start): the sessions that hold
 * listeners for it are registered, the idle ones too (a message each,
 * and no watch left); if it is not up, those waiting are refused.
 */
void
sv_sessions_daemon_up(enum sv_daemon_kind k)
{
	struct sv_session *s;

	for (s = sessions; s != NULL; s = s->next) {
		if (s->state == ST_DESTROYED || s->state == ST_ERROR)
			continue;
		if (s->dstate[k] == DS_WANTED ||
		    (s->dstate[k] == DS_IDLE && sv_daemon_up(k)))
			register_one(s, k);
	}
}

/* Daemon k said hello: proxyd now holds its listeners alone. */
void
sv_sessions_daemon_ready(enum sv_daemon_kind k)
{
	struct sv_session *s;

	if (k != SV_DAEMON_PROXYD)
		return;
	for (s = sessions; s != NULL; s = s->next)
		if (s->dstate[k] == DS_REGISTERED)
			listen_close(s, k);
}

/* Does a connection wait for daemon k? */
int
sv_sessions_want(enum sv_daemon_kind k)
{
	struct sv_session *s;

	for (s = sessions; s != NULL; s = s->next)
		if (s->dstate[k] == DS_WANTED && s->state != ST_DESTROYED &&
		    s->state != ST_ERROR)
			return 1;
	return 0;
}
