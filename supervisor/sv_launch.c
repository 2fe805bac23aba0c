// SPDX-License-Identifier: ISC
/*
 * sandbox.launch and the launcher link: the spec becomes a plan sent to a
 * new airlock-launcher, whose messages are dispatched by a table of
 * {type, states it is valid in, handler} (as OpenSSH's monitor does): a
 * message in any other state kills the sandbox.
 *
 * Untrusted: every frame from a launcher (msg_recv validates it; a bad
 * one kills that sandbox) and every request from a client.
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
#include "supervisor/gwrepo.h"
#include "supervisor/commits.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"
#include "supervisor/sv_sess.h"
#include "supervisor/sv_worktree.h"

void
launch_failed(struct sv_session *s, const char *why)
{
	free(s->error);
	s->error = xstrdup(why);
	/* The client says it to the person; the log keeps it. */
	log_info("session %s: sandbox could not be built: %s", s->id, why);
	if (s->launch_reply != NULL) {
		sv_client_error(s->owner, s->launch_reply, RPC_SANDBOX_ERROR,
		    why);
		json_free(s->launch_reply);
		s->launch_reply = NULL;
	}
	s->building = 0;
	set_state(s, ST_ERROR);
	/* R-R1: the commands that waited for this build get its reason;
	 * the session is built again by the next (session_kill). */
	if (s->lazy) {
		s->build_failed = 1;
		exec_waiters_run(s, why);
	}
}

/*
 * R-H5: a microvm asked for is refused loudly, naming what is missing:
 * the kernel's KVM device (absent, or closed to airlockd's user) and the
 * VM monitor, which this airlock does not have (no microvm backend is
 * built in), so that the user knows neither a group nor a package alone
 * will do.
 */
static void
microvm_refusal(char *err, size_t errlen)
{
	char	kvm[160];

	if (access("/dev/kvm", F_OK) == -1)
		snprintf(kvm, sizeof(kvm), "/dev/kvm does not exist (no KVM: "
		    "virtualisation off or not exposed to this machine)");
	else if (access("/dev/kvm", R_OK | W_OK) == -1)
		snprintf(kvm, sizeof(kvm), "/dev/kvm is not open to uid %u "
		    "(the kvm group)", (unsigned)getuid());
	else
		snprintf(kvm, sizeof(kvm), "/dev/kvm is usable");
	snprintf(err, errlen, "backend microvm cannot boot a VM here: %s; "
	    "and this airlock has no VM monitor (no microvm backend is "
	    "built in); the native backend (the default) is what it has",
	    kvm);
}

/*
 * The session's pid namespace, seen through the launcher's
 * pid_for_children: init itself is not dumpable (nothing inside may
 * ptrace the process that holds the channel), the waiting launcher
 * parent outside the namespace is.
 */
static ino_t
pidns_of_launcher(pid_t launcher)
{
	char		path[64];
	struct stat	st;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid_for_children",
	    (int)launcher);
	if (stat(path, &st) == -1)
		return 0;
	return st.st_ino;
}

/*
 * A pidfd for the sandbox's init, so that session_kill can signal it
 * without a pid-reuse race.  The pid is init's only while the launcher,
 * its parent, has not reaped it: the pidfd is kept only when the
 * process it names has the launcher as parent and is still alive after
 * that was read (a dead pid could have been reused).  -1 otherwise.
 */
static int
init_pidfd_open(pid_t init, pid_t launcher)
{
	char	 path[64], buf[512], *p;
	FILE	*f;
	int	 fd, ppid = -1;

	if (init <= 0 || launcher <= 0 ||
	    (fd = (int)syscall(SYS_pidfd_open, init, 0)) == -1)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)init);
	if ((f = fopen(path, "re")) != NULL) {
		/* pid (comm) state ppid: comm may hold spaces and ")" */
		if (fgets(buf, sizeof(buf), f) != NULL &&
		    (p = strrchr(buf, ')')) != NULL)
			(void)sscanf(p + 1, " %*c %d", &ppid);
		fclose(f);
	}
	if (ppid != (int)launcher ||
	    syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The launcher's messages, each with the states of its session it may
 * arrive in (a bit per enum sv_state): anything else kills the sandbox.
 */
static void
launcher_socket(struct sv_session *s, struct msg *m)
{
	uint32_t	kind;

	kind = msg_get_u32(m);
	(void)msg_get_u32(m);
	if (kind == 0 || kind >= LISTEN_MAX || s->listen_fd[kind] != -1) {
		session_kill(s, "launcher sent an unexpected socket");
		return;
	}
	s->listen_fd[kind] = msg_take_fd(m, 0);
}

static void
launcher_ready(struct sv_session *s, struct msg *m)
{
	/* Ready: the launcher's check child loaded our seccomp program (or
	 * an earlier one did), so the next plan can say it is known. */
	bpf_known = 1;
	s->init_pid = (pid_t)msg_get_u32(m);
	s->init_pidfd = init_pidfd_open(s->init_pid, s->launcher_pid);
	s->ll_abi = msg_get_u32(m);
	s->ll_gaps = msg_get_u32(m);
	s->pidns = pidns_of_launcher(s->launcher_pid);
	if (s->pidns == 0 && s->spec.limits.memory_bytes > 0) {
		session_kill(s, "cannot find the sandbox's pid namespace for "
		    "the memory limit");
		return;
	}
	register_daemons(s);
	proxy_env(s);
	set_state(s, ST_WARM);
	event_simple(s, "ready");
	if (s->spec.limits.memory_bytes > 0) {
		struct timeval tv = { 0, SV_WATCHDOG_MS * 1000 };

		s->watchdog = event_new(sbase, -1, EV_PERSIST, watchdog_cb, s);
		evtimer_add(s->watchdog, &tv);
	}
	if (s->launch_reply != NULL) {
		reply_handle(s, s->launch_reply);
		json_free(s->launch_reply);
		s->launch_reply = NULL;
	}
	s->building = 0;
	exec_waiters_run(s, NULL);
}

static void
launcher_failed(struct sv_session *s, struct msg *m)
{
	launch_failed(s, msg_get_str(m));
	session_kill(s, NULL);
}

static void
launcher_exec_started(struct sv_session *s, struct msg *m)
{
	struct sv_exec	*x;
	uint32_t	 id;
	struct jgen	*j;
	const char	*buf;
	size_t		 len;

	id = msg_get_u32(m);
	if ((x = exec_find(s, id)) == NULL || x->pid != 0) {
		session_kill(s, "launcher: EXEC_STARTED for no exec");
		return;
	}
	x->pid = (pid_t)msg_get_u32(m);
	exec_streams(x, msg_take_fd(m, 0), msg_take_fd(m, 1));
	exec_input_flush(x);
	if (x->reply_id != NULL) {
		j = jgen_new();
		jgen_obj_open(j);
		jgen_kint(j, "execId", x->id);
		jgen_kint(j, "pid", x->pid);
		jgen_kbool(j, "tty", x->pty);
		jgen_obj_close(j);
		buf = jgen_buf(j, &len);
		sv_client_result(s->owner, x->reply_id, buf, len);
		jgen_free(j);
		json_free(x->reply_id);
		x->reply_id = NULL;
	}
}

static void
launcher_exec_failed(struct sv_session *s, struct msg *m)
{
	struct sv_exec	*x;
	uint32_t	 id, err;
	const char	*what;
	char		 msgtxt[512];

	id = msg_get_u32(m);
	err = msg_get_u32(m);
	what = msg_get_str(m);
	if ((x = exec_find(s, id)) == NULL || x->done) {
		session_kill(s, "launcher: EXEC_FAILED for no exec");
		return;
	}
	snprintf(msgtxt, sizeof(msgtxt), "%s: %s", what, strerror((int)err));
	if (x->reply_id != NULL) {
		/* Not found (127) is the command itself missing, not a
		 * working directory or anything else before it. */
		sv_client_error(s->owner, x->reply_id, err == ENOENT &&
		    strncmp(what, "execve ", 7) == 0 ? -32010 : -32011,
		    msgtxt);
		json_free(x->reply_id);
		x->reply_id = NULL;
	}
	x->done = 1;
	if (x->helper_done != NULL) {
		stream_close(&x->out);
		stream_close(&x->err);
		x->helper_done(x->helper_arg, 127 << 8);
		x->helper_done = NULL;
	}
	update_active(s);
}

static void
launcher_exec_exit(struct sv_session *s, struct msg *m)
{
	struct sv_exec	*x;
	uint32_t	 id;

	id = msg_get_u32(m);
	if ((x = exec_find(s, id)) == NULL || x->exited) {
		session_kill(s, "launcher: EXEC_EXIT for no exec");
		return;
	}
	exec_exited(x, (int)msg_get_u32(m));
}

static void
launcher_violation(struct sv_session *s, struct msg *m)
{
	const char	*action, *target;

	(void)msg_get_u32(m);
	action = msg_get_str(m);
	target = msg_get_str(m);
	event_violation(s, action, target, NULL);
}

static void
launcher_hello(struct sv_session *s, struct msg *m)
{
	(void)s;
	(void)m;
}

static const struct {
	uint16_t	 type;
	unsigned	 states;
	void		(*fn)(struct sv_session *, struct msg *);
} launcher_msgs[] = {
	{ MSG_HELLO,		SV_SB_ANY,		launcher_hello },
	{ MSG_LAUNCH_SOCKET,	SV_SB(ST_CREATED),	launcher_socket },
	{ MSG_LAUNCH_READY,	SV_SB(ST_CREATED),	launcher_ready },
	{ MSG_LAUNCH_FAILED,	SV_SB(ST_CREATED) | SV_SB_LIVE,
	    launcher_failed },
	{ MSG_EXEC_STARTED,	SV_SB_LIVE,		launcher_exec_started },
	{ MSG_EXEC_FAILED,	SV_SB_LIVE,		launcher_exec_failed },
	{ MSG_EXEC_EXIT,	SV_SB_LIVE,		launcher_exec_exit },
	{ MSG_VIOLATION,	SV_SB_LIVE,		launcher_violation },
};

static void
launcher_dispatch(struct sv_session *s, struct msg *m)
{
	char	why[128];
	size_t	i;

	for (i = 0; i < sizeof(launcher_msgs) / sizeof(launcher_msgs[0]);
	    i++) {
		if (launcher_msgs[i].type != m->info->type)
			continue;
		if (!(launcher_msgs[i].states & SV_SB(s->state))) {
			snprintf(why, sizeof(why), "launcher sent %s in state "
			    "%s", m->info->name, sv_state_name(s->state));
			session_kill(s, why);
			return;
		}
		launcher_msgs[i].fn(s, m);
		return;
	}
	session_kill(s, "launcher sent an unexpected message");
}

static void
launcher_read(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_session *s = arg;
	struct msg	m;
	enum msg_result	r;

	(void)fd;
	(void)ev;
	for (;;) {
		r = msg_recv(&s->link, &m);
		if (r == MSG_AGAIN)
			return;
		if (r != MSG_OK) {
			if (s->state == ST_CREATED)
				launch_failed(s, r == MSG_EOF ?
				    "the launcher exited before the sandbox "
				    "was ready" : "invalid frame from the "
				    "launcher");
			session_kill(s, r == MSG_EOF ? NULL :
			    "invalid frame from the launcher");
			return;
		}
		launcher_dispatch(s, &m);
		msg_free(&m);
		if (s->link.fd == -1)
			return;
	}
}

/*
 * The plan's frames (none carries fds) in as few writes as the socket
 * takes: ~140 frames were each a sendmsg.  The stream is byte
 * for byte what msg_send() of each would write, checked the same way.
 */
static int
plan_send(struct msg_link *l, struct msgbuf *bs, size_t n)
{
	struct msg_hdr	 hdr;
	struct pollfd	 pfd;
	uint8_t		*buf;
	size_t		 i, total = 0, off = 0;
	ssize_t		 w;

	for (i = 0; i < n; i++)
		total += sizeof(hdr) + bs[i].len;
	buf = xmalloc(total);
	for (i = 0; i < n; i++) {
		msg_frame_hdr(l, &bs[i], 0, &hdr);
		memcpy(buf + off, &hdr, sizeof(hdr));
		if (bs[i].len > 0)	/* data is NULL for an empty frame */
			memcpy(buf + off + sizeof(hdr), bs[i].data,
			    bs[i].len);
		off += sizeof(hdr) + bs[i].len;
	}
	for (off = 0; off < total; ) {
		if ((w = send(l->fd, buf + off, total - off,
		    MSG_NOSIGNAL)) == -1) {
			pfd.fd = l->fd;
			pfd.events = POLLOUT;
			if (errno == EINTR || (errno == EAGAIN &&
			    poll(&pfd, 1, -1) != -1))
				continue;
			break;
		}
		off += (size_t)w;
	}
	free(buf);
	return off == total ? 0 : -1;
}

/*
 * Build the session's sandbox: the plan, a launcher, the plan sent.  0
 * when the launcher is working on it (READY or a failure follows), -1
 * with err when it could not start.
 */
/*
 * The session's plan, built from its spec with what airlockd knows of
 * this host; shared by a launch and by sandbox.profile, so that what a
 * reviewer reads is what a launch would send.
 */
int
session_plan(struct sv_session *s, char *err, size_t errlen)
{
	struct sv_plan_ctx ctx;
	char		*path, **ownp, *bundle;
	size_t		 i;

	memset(&ctx, 0, sizeof(ctx));
	ctx.settings = s->own_settings != NULL ? s->own_settings : ssettings;
	/* Masked credentials: the build waits for proxyd's CA. */
	switch (sv_mask_begin(s, ctx.settings, err, errlen)) {
	case -1:
		return -1;
	case 1:
		return 0;
	default:
		break;
	}
	ctx.ca_bundle = bundle = sv_mask_bundle(s, ctx.settings);
	ctx.mask_env = s->mask_env;
	ctx.login_copy = s->login_copy;
	ctx.login_file = s->spec.login_file;
	ctx.home = s->home;
	ctx.uid = getuid();
	ctx.gid = getgid();
	ctx.with_proxy = sv_daemon_present(SV_DAEMON_PROXYD);
	ctx.with_gateway = sv_daemon_present(SV_DAEMON_GATEWAYD);
	if (ctx.with_proxy) {
		if (sv_hostep_make(s, err, errlen) == -1) {
			free(bundle);
			return -1;
		}
		ctx.hostep_path = sv_hostep_path(s);
	}
	sv_seccomp_program(&ctx.bpf, &ctx.bpf_len);
	ctx.bpf_known = bpf_known;
	ctx.own_paths = ownp = own_paths();
	/* A shared airlockd: the caller's settings file is airlock's own
	 * too. */
	if (s->settings_path != NULL)
		ctx.own_paths = ownp = strv_add(ownp, s->settings_path);
	for (i = 0; s->caller_env != NULL && s->caller_env[i] != NULL; i++) {
		if (strncmp(s->caller_env[i], "PATH=", 5) == 0)
			ctx.caller_path = s->caller_env[i] + 5;
		else if (strncmp(s->caller_env[i], "XDG_RUNTIME_DIR=", 16) ==
		    0)
			ctx.caller_runtime = s->caller_env[i] + 16;
	}
	ctx.control_socket = sv_client_socket();
	/* The file tools' helper, bound by its canonical path. */
	if ((path = sv_sibling("airlock-fs")) != NULL) {
		ctx.fs_helper = realpath(path, NULL);
		free(path);
	}
	i = sv_plan_build(&s->spec, &ctx, &s->plan, err, errlen) == -1;
	free(bundle);
	free((char *)ctx.hostep_path);
	strv_free(ownp);
	free((char *)ctx.fs_helper);
	return i ? -1 : 0;
}

int
session_build(struct sv_session *s, char *err, size_t errlen)
{
	int	fd;

	if (session_plan(s, err, errlen) == -1)
		return -1;
	/* Protections the settings opened on purpose: the client says so. */
	if (s->plan.opened != NULL) {
		struct jgen *j = event_begin(s, "rules-opened");

		jgen_key(j, "rules");
		jgen_arr_open(j);
		for (size_t k = 0; s->plan.opened[k] != NULL; k++)
			jgen_str(j, s->plan.opened[k]);
		jgen_arr_close(j);
		event_end(s, j);
	}

	/* What the agent may commit is judged against this at the end:
	 * the refs, HEADs and indexes of the writable binds' repositories. */
	if (s->commits == NULL && s->plan.rules != NULL) {
		s->commits = commits_snapshot(s->plan.tops);
		if (commits_busy(s->commits, err, errlen) == -1) {
			commits_free(s->commits);
			s->commits = NULL;
			return -1;
		}
	}

	s->launcher_pid = sv_spare_take(&fd);
	if (s->launcher_pid == -1) {
		snprintf(err, errlen, "cannot start the launcher: %s",
		    strerror(errno));
		return -1;
	}
	msg_link_init(&s->link, fd, MSG_CH_LAUNCHER, MSG_UP, "launcher");
	/*
	 * A launcher that failed before its plan (a spare that could not
	 * make its namespaces) closed its end: its MSG_LAUNCH_FAILED, or
	 * its exit, is read below and names the real reason.
	 */
	if (plan_send(&s->link, s->plan.frames, s->plan.nframes) == -1 &&
	    errno != EPIPE && errno != ECONNRESET) {
		snprintf(err, errlen, "cannot send the plan to the launcher: "
		    "%s", strerror(errno));
		session_kill(s, NULL);
		return -1;
	}
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
		fatal("fcntl");
	s->ev_link = event_new(sbase, fd, EV_READ | EV_PERSIST, launcher_read,
	    s);
	event_add(s->ev_link, NULL);
	s->building = 1;
	return 0;
}

/*
 * The spec's lists that cannot be applied stop the launch: a bad
 * allowlist pattern, a denyRead or denyWrite entry.  1 after the
 * client has its error.
 */
int
spec_entries_bad(struct sv_client *c, const struct json *id,
    const struct sv_spec *spec)
{
	char		err[512];
	const char	*why;
	size_t		i;

	for (i = 0; spec->egress_allowlist && spec->egress_allowlist[i];
	    i++)
		if (!dom_pattern_valid(spec->egress_allowlist[i], &why)) {
			snprintf(err, sizeof(err), "egressAllowlist[%zu]: "
			    "\"%s\": %s", i, spec->egress_allowlist[i], why);
			sv_client_error(c, id, RPC_INVALID_PARAMS, err);
			return 1;
		}
	for (i = 0; spec->deny_read && spec->deny_read[i]; i++)
		if (deny_entry_bad(c, id, "denyRead", i, spec->deny_read[i]))
			return 1;
	for (i = 0; spec->deny_write && spec->deny_write[i]; i++)
		if (deny_entry_bad(c, id, "denyWrite", i, spec->deny_write[i]))
			return 1;
	return 0;
}

/*
 * R-H4, R-H5: which backend, and why a session runs unconfined; never
 * an unconfined fallback where the settings or the host forbid it.  -1
 * after the client has its error.
 */
int
launch_backend(struct sv_client *c, const struct json *id,
    const struct sv_spec *spec, const struct settings *set,
    enum sv_backend *want, const char **unconfined)
{
	char	err[512];

	*want = spec->backend != NULL ? sv_backend_parse(spec->backend) :
	    SV_BACKEND_NATIVE;
	if (*want == SV_BACKEND_MICROVM) {
		microvm_refusal(err, sizeof(err));
		sv_client_error(c, id, RPC_SANDBOX_ERROR, err);
		return -1;
	}
	if (spec->backend != NULL && *want == SV_BACKEND_NONE &&
	    strcmp(spec->backend, "none") == 0) {
		/* R-C5: managed policy wins over the caller's wish. */
		if (settings_forbid_unconfined(set, err,
		    sizeof(err)) != NULL || settings_managed_forbids(err,
		    sizeof(err)) != NULL) {
			char msg[600];

			snprintf(msg, sizeof(msg), "--sandbox off refused: "
			    "%s", err);
			sv_client_error(c, id, RPC_SANDBOX_ERROR, msg);
			return -1;
		}
		*want = SV_BACKEND_NONE;
		*unconfined = "the client asked for it (--sandbox off)";
	} else if (!ssandbox_on) {
		*want = SV_BACKEND_NONE;
		*unconfined = "airlockd runs with --sandbox off (or "
		    "AIRLOCK_SANDBOX=off)";
	} else if (!set->sandbox_enabled) {
		*want = SV_BACKEND_NONE;
		*unconfined = "sandbox.enabled is false in the settings";
	} else if (sprobe->ptrace_blocked) {
		/* Every write would fail: refuse, never run unconfined. */
		snprintf(err, sizeof(err), "cannot start a sandbox: %s",
		    sprobe->reasons[0]);
		sv_client_error(c, id, RPC_SANDBOX_ERROR, err);
		return -1;
	} else if (!sprobe->available) {
		if (set->fail_if_unavailable) {
			snprintf(err, sizeof(err), "no OS-native agent "
			    "sandbox on this host (%s) and "
			    "sandbox.failIfUnavailable is set",
			    sprobe->install_hint);
			sv_client_error(c, id, RPC_SANDBOX_ERROR, err);
			return -1;
		}
		*want = SV_BACKEND_NONE;
		*unconfined = "no OS-native agent sandbox on this host";
	} else
		*want = SV_BACKEND_NATIVE;
	return 0;
}

/* The session's record, from the launch's spec (which it takes). */
static struct sv_session *
session_new(struct sv_client *c, const struct json *params,
    struct sv_spec *spec, enum sv_backend want, const char *unconfined)
{
	struct sv_session *s;
	size_t		 i;

	s = xcalloc(1, sizeof(*s));
	s->id = xstrdup(spec->session_id);
	s->spec = *spec;
	s->backend = want;
	s->unconfined = unconfined;
	s->owner = c;
	s->link.fd = -1;
	s->launcher_pid = -1;
	s->init_pidfd = -1;
	s->reap_fd = -1;
	for (i = 0; i < LISTEN_MAX; i++)
		s->listen_fd[i] = -1;
	s->hostep_fd = -1;
	s->next = sessions;
	sessions = s;
	s->caller_env = json_strv(param(params, "env"));
	now_rfc3339(s->created_at, sizeof(s->created_at));
	s->detached = json_get_bool(params, "detached", 0);
	s->lazy = json_get_bool(params, "lazy", 0);
	s->uid = sv_client_uid(c);
	return s;
}

/*
 * The workspace's origin changed since it was recorded (changed, freed
 * here).  A change is one the client saw: a caller that did not look at
 * the workspace's config (airlock fs, worktree, matrix) has nothing to
 * compare, and says nothing about pushes.  The client tells the user;
 * the log keeps it as information.
 */
static void
origin_note(struct sv_session *s, char *changed)
{
	const char	*rec = s->spec.origin_repo;

	if (changed != NULL && s->spec.workspace_origin != NULL) {
		log_info("session %s: the workspace's origin is now %s, not "
		    "the recorded %s: pushes still go only to %s", s->id,
		    changed, rec != NULL ? rec : "(none)", rec != NULL ? rec :
		    "linked repositories");
		event_violation(s, "git-origin-changed", changed, NULL);
	}
	free(changed);
}

/* No sandbox (the backend none, past the gate): ready at once. */
static void
launch_unconfined(struct sv_session *s, const struct json *id)
{
	char	*kv;

	s->plan.workdir = xstrdup(s->spec.guest_workdir != NULL ?
	    s->spec.guest_workdir : s->spec.nbinds > 0 ?
	    s->spec.binds[0].host_path : s->home);
	s->plan.env_base = strv_add(NULL, "AIRLOCK_SANDBOX=none");
	xasprintf(&kv, "HOME=%s", s->home);
	s->plan.env_base = strv_add(s->plan.env_base, kv);
	free(kv);
	set_state(s, ST_WARM);
	event_simple(s, "ready");
	reply_handle(s, (struct json *)id);
}

void
sv_session_launch(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	char		*origin = NULL, *origin_changed = NULL;
	struct sv_session *s;
	struct sv_spec	 spec;
	char		 err[512], *path, **pass;
	const char	*unconfined = NULL;
	enum sv_backend	 want;
	struct settings	*own = NULL;
	const struct settings *set;
	char		*home = NULL;

	if (sv_spec_from_json(param(params, "spec"), &spec, err,
	    sizeof(err)) == -1) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, err);
		return;
	}
	sv_spec_canonical(&spec);
	if (spec_entries_bad(c, id, &spec))
		goto bad_spec;
	/*
	 * A shared airlockd serves the caller with the caller's settings
	 * file and $HOME (so the secret set is the caller's, not this
	 * daemon's); a private one was started with them.
	 */
	if (session_settings(c, id, params, &own, &home) == -1)
		goto bad_spec;
	set = own != NULL ? own : ssettings;
	if ((pass = pass_env(c, id, params, set)) == NULL) {
bad_spec:
		if (own != NULL) {
			settings_free(own);
			free(own);
		}
		free(home);
		sv_spec_free(&spec);
		return;
	}
	/* originRepo may be a remote URL: keep "owner/name". */
	origin_normalise(&spec.origin_repo);
	origin_normalise(&spec.workspace_origin);
	(void)sv_session_replace_failed(c, spec.session_id);
	if (sv_session_find(spec.session_id) != NULL) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "sessionId: a session with this id exists");
		strv_free(pass);
		goto bad_spec;
	}
	/* A conversation's mounts; registered checkouts. */
	if (sv_worktree_spec(&spec, set, home, err, sizeof(err)) == -1) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, err);
		strv_free(pass);
		goto bad_spec;
	}
	sv_spec_canonical(&spec);

	if (launch_backend(c, id, &spec, set, &want, &unconfined) == -1) {
		strv_free(pass);
		goto bad_spec;
	}

	/* The upstream is the user's, recorded outside. */
	if (wsorigin_fix(spec.workspace_id != NULL &&
	    spec.workspace_id[0] == '/' ? spec.workspace_id : spec.nbinds > 0 ?
	    spec.binds[0].host_path : NULL, spec.origin_repo,
	    spec.workspace_origin, &origin, &origin_changed, err,
	    sizeof(err)) == -1) {
		log_warnx("session %s: the workspace's origin: %s; pushes go "
		    "only to linked repositories", spec.session_id, err);
		origin = NULL;
	}
	free(spec.origin_repo);
	spec.origin_repo = origin;
	s = session_new(c, params, &spec, want, unconfined);
	s->pass_env = pass;
	s->own_settings = own;
	s->home = home != NULL ? home : xstrdup(caller_home(getuid()));
	event_simple(s, "starting");
	origin_note(s, origin_changed);
	if (want == SV_BACKEND_NONE) {
		launch_unconfined(s, id);
		return;
	}
	s->settings_path = (path = (char *)json_get_str(params,
	    "settingsFile")) != NULL ? realpath(path, NULL) : NULL;
	/* R-R1: a lazy session is built by its first command. */
	if (s->lazy) {
		reply_handle(s, (struct json *)id);
		return;
	}
	if (session_build(s, err, sizeof(err)) == -1) {
		set_state(s, ST_ERROR);
		free(s->error);
		s->error = xstrdup(err);
		sv_client_error(c, id, RPC_SANDBOX_ERROR, err);
		return;
	}
	s->launch_reply = dup_id(id);
}
