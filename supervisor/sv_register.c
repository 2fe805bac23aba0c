// SPDX-License-Identifier: ISC
/*
 * A session's registration with the daemons: its listeners go to proxyd
 * and gatewayd once the sandbox is ready, again to a restarted gatewayd,
 * and a daemon's death fails its sessions closed.
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
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"
#include "supervisor/gwrepo.h"
#include "supervisor/paths.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"
#include "supervisor/sv_sess.h"
#include "supervisor/wsorigin.h"

void
register_daemons(struct sv_session *s)
{
	struct msgbuf	 b;
	struct msg_link	*l;
	char		**allow = NULL, **deny = NULL;
	size_t		 i;
	int		 fds[2];

	if (s->listen_fd[LISTEN_HTTP] != -1 &&
	    s->listen_fd[LISTEN_SOCKS] != -1 &&
	    (l = sv_daemon_link(SV_DAEMON_PROXYD)) != NULL) {
		/* R-E4: baseline + GitHub + the spec's list + settings;
		 * network off: empty (the proxies still listen). */
		const struct settings *set = s->own_settings != NULL ?
		    s->own_settings : ssettings;

		allow = egress_allowlist(s->spec.network_enabled,
		    s->spec.egress_allowlist, set->allowed_domains);
		/* An srt file's allowedDomains is the whole list. */
		if (!set->egress_baseline)
			allow = egress_drop_baseline(allow,
			    s->spec.egress_allowlist, set->allowed_domains);
		deny = xcalloc(1, sizeof(char *));
		for (i = 0; set->denied_domains &&
		    set->denied_domains[i]; i++)
			deny = strv_add(deny, set->denied_domains[i]);
		msgbuf_init(&b, MSG_PX_SESSION_ADD);
		msg_put_str(&b, s->id);
		msg_put_u32(&b, s->spec.network_enabled ? PX_F_NETWORK : 0);
		msg_put_strv(&b, allow);
		msg_put_strv(&b, deny);
		fds[0] = s->listen_fd[LISTEN_HTTP];
		fds[1] = s->listen_fd[LISTEN_SOCKS];
		if (msg_send(l, &b, fds, 2) == 0)
			s->px_registered = 1;
		else
			sv_daemon_failed(SV_DAEMON_PROXYD, "send failed");
		msgbuf_free(&b);
		strv_free(allow);
		strv_free(deny);
	}
	if (s->listen_fd[LISTEN_GIT] != -1 &&
	    (l = sv_daemon_link(SV_DAEMON_GATEWAYD)) != NULL) {
		msgbuf_init(&b, MSG_GW_RUN_ADD);
		msg_put_str(&b, s->id);
		fds[0] = s->listen_fd[LISTEN_GIT];
		if (msg_send(l, &b, fds, 1) == 0)
			s->gw_registered = 1;
		else {
			s->gw_lost = 1;
			sv_daemon_failed(SV_DAEMON_GATEWAYD, "send failed");
		}
		msgbuf_free(&b);
	} else if (s->listen_fd[LISTEN_GIT] != -1)
		s->gw_lost = 1;	/* gatewayd is restarting: at its hello */
	/* The daemons hold their own copies now.  The gateway's stays
	 * here too: a restarted gatewayd gets it again (issue 14). */
	for (i = 0; i < LISTEN_MAX; i++)
		if (s->listen_fd[i] != -1 && i != LISTEN_GIT) {
			close(s->listen_fd[i]);
			s->listen_fd[i] = -1;
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
	size_t	i;

	if (!s->px_registered)
		return;
	for (i = 0; i < sizeof(http_names) / sizeof(http_names[0]); i++)
		env_add(s, http_names[i], "http://127.0.0.1:",
		    LISTEN_PORT_HTTP, "");
	env_add(s, "ALL_PROXY", "socks5h://127.0.0.1:", LISTEN_PORT_SOCKS, "");
	env_add(s, "all_proxy", "socks5h://127.0.0.1:", LISTEN_PORT_SOCKS, "");
	/* airlock's own SOCKS client, bound into the sandbox: no nc. */
	env_add(s, "GIT_SSH_COMMAND", "ssh -o ProxyCommand='"
	    AIRLOCK_SANDBOX_SELF " proxy-connect 127.0.0.1:",
	    LISTEN_PORT_SOCKS, " %h %p'");
}

void
sv_sessions_daemon_died(enum sv_daemon_kind k)
{
	struct sv_session *s;

	for (s = sessions; s != NULL; s = s->next) {
		if (s->state == ST_DESTROYED || s->state == ST_ERROR)
			continue;
		/*
		 * A gatewayd failure fails closed only the sessions whose
		 * push was in flight; the others keep their listener and
		 * are registered again when gatewayd is back (issue 14).
		 */
		if (k == SV_DAEMON_GATEWAYD && s->gw_registered &&
		    !sv_gw_in_flight(s->id)) {
			s->gw_registered = 0;
			s->gw_lost = 1;
			continue;
		}
		if ((k == SV_DAEMON_PROXYD && s->px_registered) ||
		    (k == SV_DAEMON_GATEWAYD && s->gw_registered)) {
			if (k == SV_DAEMON_PROXYD)
				s->px_registered = 0;
			else
				s->gw_registered = 0;
			event_killed(s, NULL, k == SV_DAEMON_PROXYD ?
			    "proxy-died" : "gateway-died");
			session_kill(s, k == SV_DAEMON_PROXYD ?
			    "proxyd died" : "gatewayd died");
		}
	}
}

/* gatewayd (re)started: hand it the listeners of the live sessions. */
void
sv_sessions_gw_restarted(void)
{
	struct sv_session *s;
	struct msgbuf	 b;
	struct msg_link	*l;

	for (s = sessions; s != NULL; s = s->next) {
		/* Only those registered before: a session still being
		 * built registers itself when it is ready. */
		if (!s->gw_lost || s->state == ST_DESTROYED ||
		    s->state == ST_ERROR || s->gw_registered ||
		    s->listen_fd[LISTEN_GIT] == -1 ||
		    (l = sv_daemon_link(SV_DAEMON_GATEWAYD)) == NULL)
			continue;
		s->gw_lost = 0;
		msgbuf_init(&b, MSG_GW_RUN_ADD);
		msg_put_str(&b, s->id);
		if (msg_send(l, &b, &s->listen_fd[LISTEN_GIT], 1) == 0) {
			s->gw_registered = 1;
			log_info("session %s: registered again with the "
			    "restarted gatewayd", s->id);
		} else
			sv_daemon_failed(SV_DAEMON_GATEWAYD, "send failed");
		msgbuf_free(&b);
	}
}
