// SPDX-License-Identifier: ISC
/*
 * airlockd, the supervisor (SPEC §1): holds policy, settings, credentials
 * and the client socket, makes every decision, and starts the processes
 * that apply them.  It never daemonizes: it runs in the foreground under
 * the desktop app, `airlock run` or a systemd user unit, and logs to
 * stderr (R-P5).
 *
 *   airlockd [--socket PATH | --fd N] [--sandbox on|off]
 *            [--settings FILE] [--no-spares] [--quiet] [-d]
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/host/paths.h"
#include "common/host/settings.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "supervisor/sv_terminal.h"
#include "supervisor/sv_wtspare.h"

int		 sv_sandbox_on = 1;
struct sv_probe	 sv_host;
struct settings	 sv_settings;
char		*sv_settings_file;
struct event_base *sv_base;

static void
usage(void)
{
	fprintf(stderr, "usage: airlockd [--socket PATH | --fd N] "
	    "[--sandbox on|off] [--settings FILE] [--no-spares]\n"
	    "                [--quiet] [-d]\n");
	exit(2);
}

void
sv_quit(void)
{
	if (sv_base != NULL)
		event_base_loopbreak(sv_base);
}

static void
on_signal(evutil_socket_t sig, short ev, void *arg)
{
	(void)ev;
	(void)arg;
	log_info("signal %d: shutting down", (int)sig);
	sv_quit();
}

static void
on_sigchld(evutil_socket_t sig, short ev, void *arg)
{
	pid_t	pid;
	int	status;

	(void)sig;
	(void)ev;
	(void)arg;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (sv_daemon_reaped(pid) || sv_spare_reaped(pid))
			continue;
		if (sv_terminal_reaped(pid, status))
			continue;
		(void)sv_session_reaped(pid, status);
	}
}

/* R-H4: --sandbox beats AIRLOCK_SANDBOX beats the default (on). */
static int
parse_onoff(const char *s)
{
	if (strcmp(s, "on") == 0 || strcmp(s, "1") == 0 ||
	    strcmp(s, "true") == 0)
		return 1;
	if (strcmp(s, "off") == 0 || strcmp(s, "0") == 0 ||
	    strcmp(s, "false") == 0)
		return 0;
	return -1;
}

/* airlockd's command line. */
struct opts {
	const char	*sock;		/* --socket */
	int		 fd;		/* --fd: one client, then exit */
	int		 sb;		/* --sandbox: 1, 0, -1 not given */
	int		 quiet, debug;
};

static void
parse_args(int argc, char *argv[], struct opts *o)
{
	char	*end;
	int	 i;

	memset(o, 0, sizeof(*o));
	o->fd = o->sb = -1;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
			o->sock = argv[++i];
		else if (strcmp(argv[i], "--fd") == 0 && i + 1 < argc) {
			o->fd = (int)strtol(argv[++i], &end, 10);
			if (*end != '\0' || o->fd < 0)
				usage();
		} else if (strcmp(argv[i], "--sandbox") == 0 && i + 1 < argc) {
			if ((o->sb = parse_onoff(argv[++i])) == -1)
				usage();
		} else if (strcmp(argv[i], "--settings") == 0 && i + 1 < argc)
			sv_settings_file = argv[++i];
		else if (strcmp(argv[i], "--quiet") == 0)
			o->quiet = 1;
		else if (strcmp(argv[i], "--no-spares") == 0)
			sv_wtspare_off = 1;	/* short-lived: a spare
						   would die half made */
		else if (strcmp(argv[i], "-d") == 0)
			o->debug = 1;
		else
			usage();
	}
}

/* R-H1..R-H3: the one startup line on what protects the sandboxes. */
static void
say_sandbox(void)
{
	if (!sv_sandbox_on)
		log_info("agent sandbox DISABLED by --sandbox off");
	else if (!sv_settings.sandbox_enabled)
		log_info("agent sandbox DISABLED by settings "
		    "(sandbox.enabled=false)");
	else if (sv_host.available)
		log_info("agent sandbox ON (%s)", sv_host.notes);
	else
		log_info("no OS-native agent sandbox on this host (%s)",
		    sv_host.install_hint);
}

/* Clients: the one of --fd, systemd's socket (lfd), or our own.  The
 * default socket's name is kept in *defsock (freed by the caller). */
static void
clients_start(const struct opts *o, int lfd, char **defsock)
{
	const char	*sock = o->sock;

	if (o->fd != -1)
		sv_client_adopt(sv_base, o->fd, 1);
	else if (lfd >= 0) {
		if (sv_client_listen_fd(sv_base, lfd) == -1)
			fatal("socket activation: the passed socket");
		log_info("listening on %s (socket activation)",
		    sv_client_socket());
	} else {
		if (sock == NULL)
			sock = *defsock = airlock_default_socket();
		if (sv_client_listen(sv_base, sock, *defsock != NULL) == -1)
			fatal("listen on %s", sock);
		log_info("listening on %s", sock);
	}
}

/*
 * What airlockd may do once it serves (R-P2), and why no less; applied
 * by sv_self_restrict() (sv_self.c) after start-up, before the first
 * child is started and the first request is read:
 *
 * - capabilities: none.  It runs as the user and needs no privilege.
 * - no_new_privs: nothing it starts gains privilege by exec (no setuid
 *   or file capabilities): the launchers need none (user namespaces),
 *   and an unsandboxed host command (the none backend) cannot sudo.
 * - not dumpable: it holds credentials.
 * - seccomp, a denylist (EPERM): no modules, kexec, reboot, swap,
 *   process accounting, port I/O, clock setting, open_by_handle_at,
 *   quotactl, vhangup, perf events, bpf, userfaultfd or io_uring, and no
 *   call of another architecture's table.  Not an allowlist, as proxyd's
 *   and gatewayd's are: every process airlock starts is its child and
 *   inherits the filter, and the launchers mount, unshare and pivot, the
 *   sandboxes' commands may ptrace their own processes, and the none
 *   backend's commands are the user's own programs.
 * - Landlock: none, for the same reason.  airlockd reads whatever the
 *   user names (workspaces, git repositories, settings), writes
 *   worktrees and spares anywhere the user keeps repositories, and
 *   starts the launchers, whose sandboxes see the user's files, and
 *   proxyd and gatewayd, which dial out over TCP: a Landlock domain of
 *   airlockd's would be theirs too, so no file or TCP rule of it could
 *   be narrower than theirs.  The sandboxes and the daemons add their
 *   own domains.  `airlock status` says so, in airlockd's line.
 *
 * A step the kernel refuses ends airlockd (fail closed).
 */
int
main(int argc, char *argv[])
{
	struct opts	 o;
	const char	*env, *why, *sb_from = "--sandbox off";
	char		*defsock = NULL, err[512];
	int		 lfd = -1;
	struct event	*ev_int, *ev_term, *ev_chld;
	struct rlimit	 rl = { 0, 0 };

	airlock_debug_env();
	log_init("airlockd", 0);
	parse_args(argc, argv, &o);
	log_init("airlockd", o.debug);
	/* systemd's socket (airlockd.socket), taken before any fd is
	 * opened; --fd and --socket say otherwise. */
	if (o.fd == -1 && o.sock == NULL &&
	    (lfd = sv_client_activated(err, sizeof(err))) == -2)
		fatalx("%s", err);
	if (o.sb == -1 && (env = getenv("AIRLOCK_SANDBOX")) != NULL &&
	    env[0] != '\0') {
		if ((o.sb = parse_onoff(env)) == -1)
			fatalx("AIRLOCK_SANDBOX=%s: expected on or off", env);
		sb_from = "AIRLOCK_SANDBOX=off";
	}
	sv_sandbox_on = o.sb != 0;

	/*
	 * airlockd will hold credentials: keep them out of core dumps and
	 * away from other processes of the same user (ptrace needs
	 * dumpable).
	 */
	if (prctl(PR_SET_DUMPABLE, 0) == -1)
		fatal("PR_SET_DUMPABLE");
	(void)setrlimit(RLIMIT_CORE, &rl);
	signal(SIGPIPE, SIG_IGN);

	settings_defaults(&sv_settings);
	if (settings_load(&sv_settings, NULL, sv_settings_file, NULL, err,
	    sizeof(err)) == -1)
		fatalx("settings: %s", err);
	/* R-C5: managed policy wins over a flag or the environment. */
	if (!sv_sandbox_on && (why = settings_forbid_unconfined(&sv_settings,
	    err, sizeof(err))) != NULL)
		fatalx("%s refused: %s", sb_from, why);

	/* Exactly one startup line (a private airlockd under `airlock run
	 * --quiet` keeps it to itself); AIRLOCK_DEBUG asks for the trace
	 * even of a private airlockd. */
	if (o.quiet && getenv("AIRLOCK_DEBUG") == NULL) {
		log_setverbose(-1);
		setenv("AIRLOCK_LOG_QUIET", "1", 1);	/* for the children */
	} else
		settings_print_notes(&sv_settings, "airlockd");
	/*
	 * proxyd and gatewayd are only found here, not started: airlockd
	 * starts each at a sandbox's first connection to it (sv_daemon.c),
	 * so a run that never connects does not pay for their start.
	 * Their messages are handled only once the loop runs, after
	 * sv_sessions_init().
	 */
	if ((sv_base = event_base_new()) == NULL)
		fatalx("event_base_new");
	ev_chld = evsignal_new(sv_base, SIGCHLD, on_sigchld, NULL);
	ev_int = evsignal_new(sv_base, SIGINT, on_signal, NULL);
	ev_term = evsignal_new(sv_base, SIGTERM, on_signal, NULL);
	evsignal_add(ev_chld, NULL);
	evsignal_add(ev_int, NULL);
	evsignal_add(ev_term, NULL);
	sv_siblings_init();	/* before any sandbox runs */
	/* Before the first child: everything airlockd starts is under it. */
	sv_self_init(sv_base);
	sv_self_restrict();
	/* The first sandbox's launcher, before the daemons (it is on the
	 * critical path, they are not until the sandbox is ready), and
	 * overlapping the probe and, in a private airlockd, the client. */
	if (sv_sandbox_on && sv_settings.sandbox_enabled)
		sv_spare_init(sv_base, o.fd == -1);
	sv_daemons_init(sv_base);
	sv_clock_init(sv_base);

	sv_probe_run(&sv_host);
	sv_hostep_sweep();
	say_sandbox();
	if (!sv_host.available)
		sv_spare_stop();
	sv_sessions_init(sv_base, &sv_settings, &sv_host, sv_sandbox_on);
	clients_start(&o, lfd, &defsock);

	event_base_dispatch(sv_base);

	sv_self_stop();
	sv_clients_close_all();
	sv_sessions_shutdown();
	sv_spare_stop();
	sv_wtspare_stop();
	sv_clock_stop();
	sv_terminals_shutdown();
	sv_daemons_stop();
	event_free(ev_chld);
	event_free(ev_int);
	event_free(ev_term);
	event_base_free(sv_base);
	settings_free(&sv_settings);
	sv_probe_free(&sv_host);
	free(defsock);
	return 0;
}
