// SPDX-License-Identifier: ISC
/*
 * The session table (SPEC §3, R-S1..R-S4): one entry per sandbox, and
 * its state machine.  A session is launched once (sv_launch.c: its
 * launcher builds the sandbox and stays as its init), then runs many
 * execs (sv_exec.c); every exec's output, exit, kill and violation
 * becomes an event on the owner's stream (sv_event.c, sv_stream.c).
 * Limits are enforced by the per-exec timeout (sv_stream.c), the memory
 * watchdog (sv_watchdog.c) and the output cap per stream.
 *
 * Untrusted: every request from a client.
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

static const char *const state_names[] = {
	"created", "warm", "active", "suspended", "destroyed", "error",
};

struct sv_session *sessions;
struct event_base *sbase;
const struct settings *ssettings;
const struct sv_probe *sprobe;
int		 ssandbox_on;
int		 bpf_known;

static void	session_free(struct sv_session *);

const char *
sv_state_name(enum sv_state st)
{
	return state_names[st];
}

struct sv_session *
sv_session_find(const char *id)
{
	struct sv_session *s;

	for (s = sessions; s != NULL; s = s->next)
		if (strcmp(s->id, id) == 0 && s->state != ST_DESTROYED)
			return s;
	return NULL;
}

const char *
sv_session_origin(const struct sv_session *s)
{
	return s->spec.origin_repo;
}

static int
bind_under(const char *p, const char *dir)
{
	size_t	n = strlen(dir);

	return p != NULL && strncmp(p, dir, n) == 0 && (p[n] == '\0' ||
	    p[n] == '/');
}

/*
 * A session counts from its launch until it is destroyed: one that is
 * lazy, building, warm or suspended has (or will have at its next
 * command) the mounts, and one that failed holds the conversation's
 * lock (sv_worktree.c) until then too.
 */
char **
sv_sessions_using(const char *conv, const char *dir)
{
	struct sv_session *s;
	char		**ids = NULL;
	size_t		 i;

	for (s = sessions; s != NULL; s = s->next) {
		if (s->state == ST_DESTROYED)
			continue;
		if (s->spec.conversation_id != NULL &&
		    strcmp(s->spec.conversation_id, conv) == 0) {
			ids = strv_add(ids, s->id);
			continue;
		}
		for (i = 0; i < s->spec.nbinds; i++)
			if (bind_under(s->spec.binds[i].host_path, dir)) {
				ids = strv_add(ids, s->id);
				break;
			}
	}
	return ids;
}

static void
unlink_session(struct sv_session *s)
{
	struct sv_session **pp;

	for (pp = &sessions; *pp != NULL; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			return;
		}
}

/*
 * HANDLE (R-S1): {sessionId, state, backend, mode, pid, createdAt,
 * commands, violations, error?} and the details of this implementation.
 */
void
handle_json(struct jgen *j, struct sv_session *s)
{
	jgen_obj_open(j);
	jgen_kstr(j, "sessionId", s->id);
	jgen_kstr(j, "backend", sv_backend_name(s->backend));
	jgen_kstr(j, "mode", pol_mode_name(s->spec.mode));
	jgen_key(j, "pid");
	if (s->init_pid > 0)
		jgen_int(j, s->init_pid);
	else
		jgen_null(j);
	jgen_kstr(j, "createdAt", s->created_at);
	jgen_kint(j, "commands", s->next_exec);
	jgen_kint(j, "violations", s->nviolations);
	jgen_kbool(j, "detached", s->detached);
	if (s->backend == SV_BACKEND_NONE && s->unconfined != NULL)
		jgen_kstr(j, "unsandboxedReason", s->unconfined);
	jgen_kstr(j, "state", state_names[s->state]);
	if (s->error != NULL)
		jgen_kstr(j, "error", s->error);
	jgen_kbool(j, "allowTerminalControl", (s->own_settings != NULL ?
	    s->own_settings : ssettings)->allow_term_control);
	jgen_key(j, "passedEnv");
	jgen_arr_open(j);
	for (size_t i = 0; s->pass_env && s->pass_env[i]; i++)
		jgen_strn(j, s->pass_env[i], strcspn(s->pass_env[i], "="));
	jgen_arr_close(j);
	jgen_key(j, "details");
	jgen_obj_open(j);
	jgen_kstr(j, "workdir", s->plan.workdir != NULL ? s->plan.workdir :
	    s->spec.guest_workdir);
	if (s->init_pid > 0)
		jgen_kint(j, "pid", s->init_pid);
	jgen_kstr(j, "mode", pol_mode_name(s->spec.mode));
	jgen_kbool(j, "networkEnabled", s->spec.network_enabled);
	if (s->backend == SV_BACKEND_NATIVE) {
		jgen_kint(j, "landlockAbi", s->ll_abi);
		jgen_kint(j, "landlockGaps", s->ll_gaps);
		jgen_kbool(j, "proxy",
		    s->dstate[SV_DAEMON_PROXYD] != DS_NONE);
		jgen_kbool(j, "gateway",
		    s->dstate[SV_DAEMON_GATEWAYD] != DS_NONE);
		jgen_kstr(j, "limits", "rlimits+watchdog");
		if (s->init_pid > 0)
			sv_self_guard_json(j, s->init_pid);
	}
	jgen_obj_close(j);
	jgen_obj_close(j);
}

void
reply_handle(struct sv_session *s, struct json *id)
{
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 len;

	handle_json(j, s);
	buf = jgen_buf(j, &len);
	sv_client_result(s->owner, id, buf, len);
	jgen_free(j);
}

void
set_state(struct sv_session *s, enum sv_state st)
{
	s->state = st;
}

void
update_active(struct sv_session *s)
{
	struct sv_exec *x;

	if (s->state != ST_WARM && s->state != ST_ACTIVE)
		return;
	for (x = s->execs; x != NULL; x = x->next)
		if (!x->done) {
			set_state(s, ST_ACTIVE);
			return;
		}
	set_state(s, ST_WARM);
}

/*
 * Sessions destroyed while their launcher was still ending: out of the
 * table (no method finds them), freed once the launcher is reaped.
 */
static struct sv_session *ending;

static void	session_end(struct sv_session *);
static void	session_free_now(struct sv_session *);

/*
 * The killed sandbox's launcher exited (its pidfd became readable), or
 * did not within SV_KILL_WAIT_MS: then it is killed (init has
 * PDEATHSIG) and waited for again, as long as it takes, since nothing
 * may claim the sandbox gone while it may run.  The SIGCHLD reaper may
 * have reaped it first (sv_session_reaped ends the session then, and
 * this event is gone with it).
 */
static void
reap_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sv_session *s = arg;
	pid_t		 r;
	int		 status;

	(void)fd;
	if ((what & EV_TIMEOUT) && !(what & EV_READ)) {
		log_warnx("launcher %d: the sandbox did not end within %d "
		    "ms, killing the launcher", (int)s->launcher_pid,
		    SV_KILL_WAIT_MS);
		kill(s->launcher_pid, SIGKILL);
		event_add(s->ev_reap, NULL);
		return;
	}
	r = waitpid(s->launcher_pid, &status, WNOHANG);
	if (r == 0) {
		event_add(s->ev_reap, NULL);
		return;
	}
	session_end(s);
}

/* One thing the judge held or restored: an event, and a violation for
 * the run's summary. */
static void
commits_said(void *arg, const char *kind, const char *repo, const char *ref,
    const char *path, const char *rule, const char *held, const char *take)
{
	struct sv_session *s = arg;
	struct jgen	*j;

	log_warnx("session %s: %s: %s %s: %s", s->id, repo, kind,
	    ref != NULL ? ref : "", path);
	j = event_begin(s, "held");
	jgen_kstr(j, "kind", kind);
	jgen_kstr(j, "repository", repo);
	if (ref != NULL)
		jgen_kstr(j, "ref", ref);
	jgen_kstr(j, "path", path);
	if (rule != NULL && rule[0] != '\0')
		jgen_kstr(j, "rule", rule);
	if (held != NULL)
		jgen_kstr(j, "heldAs", held);
	if (take != NULL)
		jgen_kstr(j, "take", take);
	event_end(s, j);
	/* A repository the judge could not judge held nothing. */
	event_violation(s, strcmp(kind, "unjudged") == 0 ? "git-not-judged" :
	    strncmp(kind, "object", 6) == 0 ? "git-object-held" :
	    "git-commit-held", path, NULL);
}

/* The judge has ended (r: commits_job_read's). */
static void
judge_finish(struct sv_session *s, int r)
{
	/* Never left unjudged: a judge that died (killed, or out of
	 * memory) is done again here, in the loop, slower but whole. */
	if (r == -1) {
		log_warnx("session %s: the commit judge ended before it "
		    "finished: judging in place", s->id);
		commits_judge(commits_job_snap(s->judge), s->plan.rules,
		    s->id, commits_said, s);
	}
	if (s->ev_judge != NULL) {
		event_free(s->ev_judge);
		s->ev_judge = NULL;
	}
	commits_job_free(s->judge);
	s->judge = NULL;
}

static void
judge_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sv_session *s = arg;
	int		 r;

	(void)fd;
	(void)what;
	if ((r = commits_job_read(s->judge, commits_said, s)) != 0) {
		judge_finish(s, r);
		session_end(s);
	}
}

/*
 * Judge what the sandbox left in git.  Its git processes take up to
 * seconds each, so the judge runs in a child (commits_judge_start) and
 * its reports come back as events of the loop: 1 while it runs (the
 * session's end goes on from judge_cb), 0 when there was nothing to
 * judge or it was judged in place (no child or no event could be made:
 * slower, never unjudged).
 */
int
session_commits_judge(struct sv_session *s)
{
	struct commits_snap *c = s->commits;

	if (c == NULL)
		return 0;
	s->commits = NULL;
	if (!commits_pending(c)) {
		commits_free(c);
		return 0;
	}
	if ((s->judge = commits_judge_start(c, s->plan.rules, s->id)) ==
	    NULL) {
		log_warn("session %s: no child for the commit judge, "
		    "judging in place", s->id);
		commits_judge(c, s->plan.rules, s->id, commits_said, s);
		return 0;
	}
	s->ev_judge = event_new(sbase, commits_job_fd(s->judge),
	    EV_READ | EV_PERSIST, judge_cb, s);
	if (s->ev_judge != NULL && event_add(s->ev_judge, NULL) == 0)
		return 1;
	log_warnx("session %s: no event for the commit judge, waiting for "
	    "it in place", s->id);
	judge_finish(s, commits_job_wait(s->judge, commits_said, s));
	return 0;
}

/*
 * Wait for the launcher's end without blocking the event loop: an
 * event on its pidfd, with SV_KILL_WAIT_MS as its timeout.  Without a
 * pidfd (EMFILE), the launcher is killed and reaped at once: its death
 * reaches init through PDEATHSIG, and the wait stays short.  0 when
 * the end is awaited, -1 when the launcher is already reaped.
 */
static int
reap_start(struct sv_session *s)
{
	struct timeval	tv = { SV_KILL_WAIT_MS / 1000,
			    (SV_KILL_WAIT_MS % 1000) * 1000 };
	int		status;

	s->reap_fd = (int)syscall(SYS_pidfd_open, s->launcher_pid, 0);
	if (s->reap_fd != -1) {
		s->ev_reap = event_new(sbase, s->reap_fd, EV_READ, reap_cb,
		    s);
		event_add(s->ev_reap, &tv);
		return 0;
	}
	log_warn("launcher %d: pidfd_open, killing the launcher",
	    (int)s->launcher_pid);
	kill(s->launcher_pid, SIGKILL);
	while (waitpid(s->launcher_pid, &status, 0) == -1 && errno == EINTR)
		;
	s->launcher_pid = -1;
	sv_spare_session_ended();
	return -1;
}

/*
 * End a session's sandbox: the daemons forget the session at once, and
 * every exec still running gets its exit once the launcher is gone.
 * Init is killed, not only the launcher: the launcher's death reaches
 * init through PDEATHSIG later, so its waitpid would return while the
 * sandbox still runs.  Pid 1 dying makes the kernel kill the rest of
 * its pid namespace, and init becomes a zombie only once every one of
 * them is gone; the launcher then reaps it and exits.  So the
 * launcher's exit, waited for before any exit event or answer is sent
 * (session_end), means nothing of the sandbox runs and no process of it
 * is left, even a zombie: a caller told that the session ended can rely
 * on it.  The wait is an event, never a loop that blocks airlockd: the
 * other sessions' output flows meanwhile.  It is bounded
 * (SV_KILL_WAIT_MS): a process stuck in the kernel could hold init, and
 * then the launcher is killed (init has PDEATHSIG).
 */
void
session_kill(struct sv_session *s, const char *why)
{
	if (s->ending)
		return;
	if (why != NULL)
		log_warnx("session %s: %s: killing its sandbox", s->id, why);
	if (s->ev_link != NULL) {
		event_free(s->ev_link);
		s->ev_link = NULL;
	}
	if (s->link.fd != -1) {
		(void)msg_send_empty(&s->link, MSG_SHUTDOWN);
		msg_link_close(&s->link);
	}
	if (s->launcher_pid > 0 && (s->init_pidfd == -1 ||
	    syscall(SYS_pidfd_send_signal, s->init_pidfd, SIGKILL, NULL,
	    0) == -1))
		kill(s->launcher_pid, SIGKILL);
	if (s->init_pidfd != -1) {
		close(s->init_pidfd);
		s->init_pidfd = -1;
	}
	if (s->watchdog != NULL) {
		event_free(s->watchdog);
		s->watchdog = NULL;
	}
	unregister_daemons(s);
	if (s->state != ST_DESTROYED && s->state != ST_ERROR)
		set_state(s, why != NULL ? ST_ERROR : ST_DESTROYED);
	if (why != NULL && s->error == NULL)
		s->error = xstrdup(why);
	if (s->launcher_pid > 0 && reap_start(s) == 0) {
		s->ending = 1;
		s->end_why = why != NULL ? xstrdup(why) : NULL;
		return;
	}
	session_end(s);
}

/*
 * The launcher is gone: what waited for the sandbox's end is told, and
 * a session destroyed meanwhile is freed.
 */
static void
session_end(struct sv_session *s)
{
	struct sv_session **pp;
	struct sv_exec	*x;
	const char	*why = s->end_why;

	if (s->ending && s->ev_reap != NULL) {
		event_free(s->ev_reap);
		s->ev_reap = NULL;
		close(s->reap_fd);
		s->reap_fd = -1;
		s->launcher_pid = -1;
		sv_spare_session_ended();
	}
	/* Nothing of the sandbox runs now: what it left in git is final,
	 * and is judged before the commands' exits are told.  The session
	 * stays ending (not rebuilt, not freed) while the judge runs;
	 * judge_cb comes back here. */
	if (s->judge != NULL)
		return;
	if (session_commits_judge(s) == 1) {
		s->ending = 1;
		return;
	}
	s->ending = 0;
	for (x = s->execs; x != NULL; x = x->next) {
		if (x->reply_id != NULL) {
			sv_client_error(s->owner, x->reply_id,
			    RPC_SANDBOX_ERROR, "the sandbox ended");
			json_free(x->reply_id);
			x->reply_id = NULL;
		}
		if (!x->done) {
			if (!x->exited) {
				x->exited = 1;
				x->status = SIGKILL; /* as if signalled */
			}
			exec_emit_exit(x);
		}
	}
	if (s->launch_reply != NULL)
		launch_failed(s, why != NULL ? why : "the sandbox ended");
	/* R-R1: a lazy build that failed, or was cut short, is tried
	 * again by the next command; those that waited get the reason. */
	if (s->lazy && (s->build_failed || s->building)) {
		s->building = 0;
		exec_waiters_run(s, s->error != NULL ? s->error :
		    "the sandbox ended");
		session_rebuildable(s);
	}
	free(s->end_why);
	s->end_why = NULL;
	if (s->free_pending) {
		for (pp = &ending; *pp != NULL; pp = &(*pp)->next)
			if (*pp == s) {
				*pp = s->next;
				break;
			}
		session_free_now(s);
	}
}

void
session_rebuildable(struct sv_session *s)
{
	sv_plan_free(&s->plan);
	memset(&s->plan, 0, sizeof(s->plan));
	s->init_pid = 0;
	s->pidns = 0;
	s->ll_abi = s->ll_gaps = 0;
	s->build_failed = 0;
	set_state(s, ST_CREATED);
}

/*
 * Free a session out of the table; one whose launcher is still ending
 * waits for it in the ending list (session_end frees it).
 */
static void
session_free(struct sv_session *s)
{
	exec_waiters_run(s, "the session ended");
	session_kill(s, NULL);
	if (s->ending) {
		s->free_pending = 1;
		s->next = ending;
		ending = s;
		return;
	}
	session_free_now(s);
}

static void
session_free_now(struct sv_session *s)
{
	struct sv_exec *x, *nx;
	char		buf[256];

	/* sandbox.destroy is answered once nothing of the sandbox runs. */
	if (s->destroy_reply != NULL) {
		snprintf(buf, sizeof(buf), "{\"sessionId\":\"%s\","
		    "\"state\":\"destroyed\"}", s->id);
		if (s->owner != NULL)
			sv_client_result(s->owner, s->destroy_reply, buf,
			    strlen(buf));
		json_free(s->destroy_reply);
	}
	for (x = s->execs; x != NULL; x = nx) {
		nx = x->next;
		exec_free(x);
	}
	json_free(s->launch_reply);
	sv_spec_free(&s->spec);
	sv_plan_free(&s->plan);
	strv_free(s->caller_env);
	strv_free(s->pass_env);
	if (s->own_settings != NULL) {
		settings_free(s->own_settings);
		free(s->own_settings);
	}
	free(s->home);
	free(s->settings_path);
	sv_mask_free(s);
	sv_hostep_free(s);
	free(s->error);
	free(s->id);
	free(s);
}

/* The SIGCHLD reaper found a host pid. */
int
sv_session_reaped(pid_t pid, int status)
{
	struct sv_session *s;
	struct sv_exec	*x;

	/* A killed sandbox's launcher, reaped before its pidfd event. */
	for (s = ending; s != NULL; s = s->next)
		if (s->launcher_pid == pid) {
			session_end(s);
			return 1;
		}
	for (s = sessions; s != NULL; s = s->next) {
		if (s->ending && s->launcher_pid == pid) {
			session_end(s);
			return 1;
		}
		if (s->launcher_pid == pid) {
			s->launcher_pid = -1;
			if (s->state == ST_CREATED)
				launch_failed(s, "the launcher exited");
			session_kill(s, s->state == ST_DESTROYED ? NULL :
			    "the launcher exited");
			return 1;
		}
		/* Host processes: the none backend's, and unsandboxed
		 * commands of any session. */
		for (x = s->execs; x != NULL; x = x->next)
			if (x->pid == pid && !x->exited &&
			    (s->backend == SV_BACKEND_NONE || x->unsandboxed)) {
				exec_exited(x, status);
				return 1;
			}
	}
	return 0;
}

/* ---- JSON-RPC methods ---- */

void
sv_sessions_init(struct event_base *base, const struct settings *st,
    const struct sv_probe *p, int sandbox_on)
{
	sbase = base;
	ssettings = st;
	sprobe = p;
	ssandbox_on = sandbox_on;
}

struct sv_session *
session_param(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	const char	*sid = json_get_str(params, "sessionId");
	struct sv_session *s;

	if (sid == NULL) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "sessionId: required");
		return NULL;
	}
	if ((s = sv_session_owned(c, sid)) == NULL) {
		sv_client_error(c, id, RPC_NO_SESSION, "no such session");
		return NULL;
	}
	return s;
}

int
sv_session_check(struct sv_client *c, const struct json *id,
    const struct json *params, unsigned states)
{
	struct sv_session *s;

	if ((s = session_param(c, id, params)) == NULL)
		return -1;
	if (states & SV_SB(s->state))
		return 0;
	sv_client_error(c, id, RPC_SANDBOX_ERROR, s->state == ST_CREATED ?
	    "the sandbox is not ready" : s->state == ST_SUSPENDED ?
	    "the session is suspended (sandbox.resume continues it)" :
	    s->state == ST_WARM || s->state == ST_ACTIVE ?
	    "the session is not suspended" : "the sandbox is not running");
	return -1;
}

static void
reply_handle_to(struct sv_client *c, const struct json *id,
    struct sv_session *s)
{
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 len;

	handle_json(j, s);
	buf = jgen_buf(j, &len);
	sv_client_result(c, id, buf, len);
	jgen_free(j);
}

/* sandbox.suspend: every process stops, and so do its exec timeouts. */
void
sv_session_suspend(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s = session_param(c, id, params);
	struct sv_exec	*x;

	if (sv_freeze(s, SIGSTOP) == -1) {
		(void)sv_freeze(s, SIGCONT);
		sv_client_error(c, id, RPC_SANDBOX_ERROR, "cannot stop the "
		    "session's processes");
		return;
	}
	for (x = s->execs; x != NULL; x = x->next)
		exec_timeout_pause(x);
	set_state(s, ST_SUSPENDED);
	log_info("session %s: suspended", s->id);
	event_simple(s, "suspended");
	reply_handle_to(c, id, s);
}

void
sv_session_resume(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s = session_param(c, id, params);
	struct sv_exec	*x;

	(void)sv_freeze(s, SIGCONT);
	set_state(s, ST_WARM);
	update_active(s);
	for (x = s->execs; x != NULL; x = x->next)
		exec_timeout_resume(x);
	log_info("session %s: resumed", s->id);
	event_simple(s, "resumed");
	reply_handle_to(c, id, s);
}

/* sandbox.list: every session of this airlockd (one user's, R-P5). */
void
sv_session_list(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s;
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 len;

	(void)params;
	jgen_obj_open(j);
	jgen_key(j, "sessions");
	jgen_arr_open(j);
	for (s = sessions; s != NULL; s = s->next)
		if (s->state != ST_DESTROYED)
			handle_json(j, s);
	jgen_arr_close(j);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	sv_client_result(c, id, buf, len);
	jgen_free(j);
}

/*
 * sandbox.attach: a detached session's events and control move to this
 * connection (the same user's: airlockd serves no other, R-P5), from
 * now on.  A session tied to its connection is not taken over.
 */
void
sv_session_attach(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	const char	*sid = json_get_str(params, "sessionId");
	struct sv_session *s;

	if (sid == NULL) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "sessionId: required");
		return;
	}
	if ((s = sv_session_find(sid)) == NULL ||
	    sv_client_uid(c) != s->uid) {
		sv_client_error(c, id, RPC_NO_SESSION, "no such session");
		return;
	}
	if (!s->detached) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "the session was "
		    "not launched with \"detached\": true");
		return;
	}
	s->owner = c;
	log_info("session %s: attached", s->id);
	reply_handle_to(c, id, s);
	event_simple(s, "attached");
}

/* sandbox.status: one HANDLE, for any connection of this user. */
void
sv_session_status(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	const char	*sid = json_get_str(params, "sessionId");
	struct sv_session *s;

	if (sid == NULL) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "sessionId: required");
		return;
	}
	if ((s = sv_session_find(sid)) == NULL) {
		sv_client_error(c, id, RPC_NO_SESSION, "no such session");
		return;
	}
	reply_handle_to(c, id, s);
}

static void
session_destroy(struct sv_session *s)
{
	struct sv_exec *x;

	for (x = s->execs; x != NULL; x = x->next)
		if ((s->backend == SV_BACKEND_NONE || x->unsandboxed) &&
		    !x->exited && x->pid > 0)
			kill(-x->pid, SIGKILL);
	session_kill(s, NULL);
	set_state(s, ST_DESTROYED);
	sv_approvals_session_gone(s->id);
	unlink_session(s);
	session_free(s);
}

/*
 * A session of this client's whose sandbox failed (state "error") keeps
 * its id only to report why: a new sandbox.launch with that id replaces
 * it, as a retry of the same launch should.  Returns 1 when one was.
 */
int
sv_session_replace_failed(struct sv_client *c, const char *sid)
{
	struct sv_session *s;

	if ((s = sv_session_owned(c, sid)) == NULL || s->state != ST_ERROR)
		return 0;
	log_info("session %s: launched again, its failed sandbox forgotten",
	    s->id);
	session_destroy(s);
	return 1;
}

void
sv_session_destroy(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s;

	if ((s = session_param(c, id, params)) == NULL)
		return;
	/* Answered when it is freed (session_free_now). */
	json_free(s->destroy_reply);
	s->destroy_reply = dup_id(id);
	session_destroy(s);
}

int
sv_sessions_owned(const struct sv_client *c)
{
	struct sv_session *s;

	for (s = sessions; s != NULL; s = s->next)
		if (s->owner == c)
			return 1;
	return 0;
}

void
sv_sessions_client_gone(struct sv_client *c)
{
	struct sv_session *s, *next;

	for (s = ending; s != NULL; s = s->next)
		if (s->owner == c)
			s->owner = NULL;
	for (s = sessions; s != NULL; s = next) {
		next = s->next;
		if (s->owner != c)
			continue;
		s->owner = NULL;
		/* A detached session waits for sandbox.attach. */
		if (s->detached && s->state != ST_DESTROYED &&
		    s->state != ST_ERROR) {
			log_info("session %s: detached, its connection "
			    "closed", s->id);
			continue;
		}
		session_destroy(s);
	}
}

void
sv_sessions_shutdown(void)
{
	struct sv_session *s;
	struct pollfd	 pfd;

	while ((s = sessions) != NULL) {
		sessions = s->next;
		session_free(s);
	}
	/* The loop has stopped: the launchers still ending are waited
	 * for here, as long as SV_KILL_WAIT_MS each, then killed. */
	while ((s = ending) != NULL) {
		/* A judge running: its end, waited for, ends the session
		 * (the refs it puts back are worth the wait). */
		if (s->judge != NULL) {
			judge_finish(s, commits_job_wait(s->judge,
			    commits_said, s));
			session_end(s);
			continue;
		}
		pfd.fd = s->reap_fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, SV_KILL_WAIT_MS) != 1)
			kill(s->launcher_pid, SIGKILL);
		while (waitpid(s->launcher_pid, NULL, 0) == -1 &&
		    errno == EINTR)
			;
		session_end(s);
	}
}

void
sv_status_json(struct jgen *j)
{
	struct sv_session *s;
	size_t		 n = 0, i;

	for (s = sessions; s != NULL; s = s->next)
		n++;
	jgen_kint(j, "sessions", (long long)n);
	(void)i;
	/* R-P2: each built sandbox's airlock-guard (sv_self.c). */
	jgen_key(j, "guards");
	jgen_obj_open(j);
	for (s = sessions; s != NULL; s = s->next)
		if (s->backend == SV_BACKEND_NATIVE && s->init_pid > 0) {
			jgen_key(j, s->id);
			jgen_obj_open(j);
			sv_self_guard_json(j, s->init_pid);
			jgen_obj_close(j);
		}
	jgen_obj_close(j);
}

/*
 * The one rule for every method on a session (sandbox.exec and the
 * others through session_param, the file tools directly): the
 * connection that launched it or attached it last, which is of the
 * session's uid (sandbox.attach checks it).
 */
struct sv_session *
sv_session_owned(struct sv_client *c, const char *sid)
{
	struct sv_session *s;

	if (sid == NULL || (s = sv_session_find(sid)) == NULL ||
	    s->owner != c || sv_client_uid(c) != s->uid)
		return NULL;
	return s;
}

int
sv_session_confined(const struct sv_session *s)
{
	return s->backend != SV_BACKEND_NONE;
}

const struct sv_spec *
sv_session_spec(const struct sv_session *s)
{
	return &s->spec;
}

const char *
sv_session_workdir(const struct sv_session *s)
{
	return s->plan.workdir;
}
