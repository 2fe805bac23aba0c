// SPDX-License-Identifier: ISC
/*
 * The session table (SPEC §3, R-S1..R-S4): one entry per sandbox.  A
 * session is launched once (its launcher builds the sandbox and stays as
 * its init), then runs many execs; every exec's output, exit, kill and
 * violation becomes an event on the owner's stream, in order, with a
 * monotonic seq.  Limits are enforced here: the wall timeout per exec,
 * the memory watchdog over the session's pid namespace (cgroup v2 is not
 * used: on hosts where it is not delegated airlockd must not touch
 * cgroups), the output cap per stream.
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
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"
#include "supervisor/wsorigin.h"

#define SV_READ_CHUNK		65536
#define SV_EXIT_GRACE_MS	300	/* output after exit, from orphans */
#define SV_WATCHDOG_MS		100
#define SV_DEFAULT_OUTPUT	(256ULL << 20)
#define SV_MAX_VIOL		64	/* distinct stream violations */
#define SV_MAX_PRECISE		4096	/* precise violations per session */

enum sv_state {
	ST_CREATED = 0,
	ST_WARM,
	ST_ACTIVE,
	ST_SUSPENDED,
	ST_DESTROYED,
	ST_ERROR,
};

static const char *const state_names[] = {
	"created", "warm", "active", "suspended", "destroyed", "error",
};

struct sv_exec;

struct sv_stream {
	struct sv_exec	*x;
	int		 fd;
	int		 is_err;
	struct event	*ev;
	uint64_t	 bytes;
	char		 line[512];	/* partial line, for R-L10 */
	size_t		 linelen;
};

struct sv_exec {
	struct sv_exec	*next;
	struct sv_session *s;
	uint32_t	 id;
	pid_t		 pid;		/* sandbox view (native) or host */
	struct json	*reply_id;	/* sandbox.exec awaiting its answer */
	struct sv_stream out, err;
	int		 exited;
	int		 status;
	int		 done;		/* exit event sent */
	struct event	*timeout;
	struct event	*grace;
};

struct sv_session {
	struct sv_session *next;
	char		*id;
	enum sv_backend	 backend;
	enum sv_state	 state;
	char		*error;
	struct sv_client *owner;
	struct json	*launch_reply;	/* sandbox.launch awaiting READY */
	struct sv_spec	 spec;
	struct sv_plan	 plan;
	pid_t		 launcher_pid;
	pid_t		 init_pid;	/* host view */
	ino_t		 pidns;		/* inode of init's pid namespace */
	struct msg_link	 link;
	struct event	*ev_link;
	int		 listen_fd[LISTEN_MAX];
	int		 listen_port[LISTEN_MAX];
	int		 px_registered;
	int		 gw_registered;
	int		 gw_lost;	/* gatewayd died; re-register */
	unsigned	 ll_abi;
	unsigned	 ll_gaps;
	uint64_t	 seq;
	uint32_t	 next_exec;
	struct sv_exec	*execs;
	struct event	*watchdog;
	uint64_t	 peak_rss;
	unsigned	 viol_hash[SV_MAX_VIOL];
	unsigned	 nviol;
	unsigned	 nprecise;
	char		**caller_env;
};

static struct sv_session *sessions;
static struct event_base *sbase;
static const struct settings *ssettings;
static const struct sv_probe *sprobe;
static int		 ssandbox_on;
static void		*bpf;
static size_t		 bpf_len;

static void	session_kill(struct sv_session *, const char *why);
static void	session_free(struct sv_session *);
static void	exec_maybe_done(struct sv_exec *);

/* ---- helpers ---- */

static void
now_rfc3339(char *buf, size_t len)
{
	struct timespec	ts;
	struct tm	tm;
	size_t		n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
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

/* Begin an event object: the common fields of R-S2. */
static struct jgen *
event_begin(struct sv_session *s, const char *type)
{
	struct jgen	*j = jgen_new();
	char		 ts[64];

	now_rfc3339(ts, sizeof(ts));
	jgen_obj_open(j);
	jgen_kstr(j, "type", type);
	jgen_kint(j, "seq", (long long)++s->seq);
	jgen_kstr(j, "time", ts);
	jgen_kstr(j, "sessionId", s->id);
	return j;
}

static void
event_end(struct sv_session *s, struct jgen *j)
{
	const char	*buf;
	size_t		 len;

	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	if (s->owner != NULL && sv_client_alive(s->owner))
		sv_client_notify(s->owner, "sandbox.event", buf, len);
	jgen_free(j);
}

static void
event_simple(struct sv_session *s, const char *type)
{
	struct jgen *j = event_begin(s, type);

	jgen_kstr(j, "backend", sv_backend_name(s->backend));
	event_end(s, j);
}

static void
event_killed(struct sv_session *s, struct sv_exec *x, const char *reason)
{
	struct jgen *j = event_begin(s, "killed");

	if (x != NULL)
		jgen_kint(j, "execId", x->id);
	jgen_kstr(j, "reason", reason);
	event_end(s, j);
	log_info("session %s: killed (%s)", s->id, reason);
}

static unsigned
hash_str(const char *a, const char *b)
{
	unsigned h = 2166136261u;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 16777619u;
	h = (h ^ 0xff) * 16777619u;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 16777619u;
	return h;
}

/*
 * Precise violations (proxy, gateway, filename rules) are each reported;
 * those guessed from a stream (R-L10) are deduplicated on (action, key),
 * so a tool retrying in a loop is one event; key is the target unless the
 * caller normalised it.  Both are capped per session.
 */
static void
event_violation_key(struct sv_session *s, const char *action,
    const char *target, const char *key, const char *raw)
{
	struct jgen	*j;
	unsigned	 h = hash_str(action, key), i;

	if (strcmp(action, "os-denied") == 0) {
		for (i = 0; i < s->nviol; i++)
			if (s->viol_hash[i] == h)
				return;
		if (s->nviol >= SV_MAX_VIOL)
			return;
		s->viol_hash[s->nviol++] = h;
	} else if (++s->nprecise > SV_MAX_PRECISE)
		return;
	j = event_begin(s, "violation");
	jgen_kstr(j, "action", action);
	jgen_kstr(j, "target", target);
	if (raw != NULL)
		jgen_kstr(j, "raw", raw);
	event_end(s, j);
}

static void
event_violation(struct sv_session *s, const char *action, const char *target,
    const char *raw)
{
	event_violation_key(s, action, target, target, raw);
}

void
sv_session_violation(const char *sid, const char *action, const char *target)
{
	struct sv_session *s = sv_session_find(sid);

	if (s == NULL)
		return;
	event_violation(s, action, target, NULL);
}

static void
handle_json(struct jgen *j, struct sv_session *s)
{
	jgen_obj_open(j);
	jgen_kstr(j, "sessionId", s->id);
	jgen_kstr(j, "backend", sv_backend_name(s->backend));
	jgen_kstr(j, "state", state_names[s->state]);
	if (s->error != NULL)
		jgen_kstr(j, "error", s->error);
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
		jgen_kbool(j, "proxy", s->px_registered);
		jgen_kbool(j, "gateway", s->gw_registered);
		jgen_kstr(j, "limits", "rlimits+watchdog");
	}
	jgen_obj_close(j);
	jgen_obj_close(j);
}

static void
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

static void
set_state(struct sv_session *s, enum sv_state st)
{
	s->state = st;
}

static void
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

/* ---- exec output ---- */

/*
 * A retry loop's lines differ in counters, pids and timestamps: the
 * dedup key collapses every run of digits, so "attempt 1: Operation not
 * permitted" and "attempt 2: ..." are one violation.
 */
static void
denial_key(const char *line, char *key, size_t len)
{
	size_t	o = 0;

	for (; *line != '\0' && o + 1 < len; line++) {
		if (*line >= '0' && *line <= '9') {
			if (o == 0 || key[o - 1] != '#')
				key[o++] = '#';
			continue;
		}
		key[o++] = *line;
	}
	key[o] = '\0';
}

static void
scan_denials(struct sv_stream *st, const char *buf, size_t n)
{
	char	key[sizeof(st->line)];
	size_t	i;

	for (i = 0; i < n; i++) {
		char c = buf[i];

		if (c != '\n' && st->linelen < sizeof(st->line) - 1) {
			st->line[st->linelen++] = c;
			continue;
		}
		if (c != '\n')
			continue;	/* overlong: keep the head only */
		st->line[st->linelen] = '\0';
		if (strstr(st->line, "Operation not permitted") != NULL ||
		    strstr(st->line, "Permission denied") != NULL ||
		    strstr(st->line, "EPERM") != NULL ||
		    strstr(st->line, "Read-only file system") != NULL) {
			denial_key(st->line, key, sizeof(key));
			event_violation_key(st->x->s, "os-denied", st->line,
			    key, NULL);
		}
		st->linelen = 0;
	}
}

static void
stream_close(struct sv_stream *st)
{
	if (st->ev != NULL) {
		event_free(st->ev);
		st->ev = NULL;
	}
	if (st->fd != -1) {
		close(st->fd);
		st->fd = -1;
	}
}

static void
stream_read(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_stream *st = arg;
	struct sv_exec	*x = st->x;
	struct sv_session *s = x->s;
	char		 buf[SV_READ_CHUNK];
	ssize_t		 n;
	struct jgen	*j;
	uint64_t	 cap = s->spec.limits.output_bytes ?
	    s->spec.limits.output_bytes : SV_DEFAULT_OUTPUT;

	(void)ev;
	n = read(fd, buf, sizeof(buf));
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		stream_close(st);
		exec_maybe_done(x);
		return;
	}
	if (st->bytes + (uint64_t)n > cap) {
		stream_close(st);
		event_killed(s, x, "output");
		session_kill(s, "output limit");
		return;
	}
	st->bytes += (uint64_t)n;
	j = event_begin(s, st->is_err ? "stderr" : "stdout");
	jgen_kint(j, "execId", x->id);
	jgen_key(j, "data");
	jgen_strn(j, buf, (size_t)n);
	{
		/* Exact bytes for clients that pass output through. */
		static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789+/";
		char	*b64 = xmalloc(((size_t)n + 2) / 3 * 4 + 1);
		size_t	 i, o = 0;

		for (i = 0; i + 2 < (size_t)n; i += 3) {
			unsigned v = (unsigned char)buf[i] << 16 |
			    (unsigned char)buf[i + 1] << 8 |
			    (unsigned char)buf[i + 2];
			b64[o++] = tbl[v >> 18];
			b64[o++] = tbl[(v >> 12) & 63];
			b64[o++] = tbl[(v >> 6) & 63];
			b64[o++] = tbl[v & 63];
		}
		if (i < (size_t)n) {
			unsigned v = (unsigned char)buf[i] << 16;

			if (i + 1 < (size_t)n)
				v |= (unsigned char)buf[i + 1] << 8;
			b64[o++] = tbl[v >> 18];
			b64[o++] = tbl[(v >> 12) & 63];
			b64[o++] = i + 1 < (size_t)n ? tbl[(v >> 6) & 63] :
			    '=';
			b64[o++] = '=';
		}
		b64[o] = '\0';
		jgen_kstr(j, "base64", b64);
		free(b64);
	}
	event_end(s, j);
	if (st->is_err)
		scan_denials(st, buf, (size_t)n);
}

static void
stream_open(struct sv_exec *x, struct sv_stream *st, int fd, int is_err)
{
	st->x = x;
	st->fd = fd;
	st->is_err = is_err;
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
		log_warn("fcntl");
	st->ev = event_new(sbase, fd, EV_READ | EV_PERSIST, stream_read, st);
	event_add(st->ev, NULL);
}

static void
exec_free(struct sv_exec *x)
{
	stream_close(&x->out);
	stream_close(&x->err);
	if (x->timeout != NULL)
		event_free(x->timeout);
	if (x->grace != NULL)
		event_free(x->grace);
	json_free(x->reply_id);
	free(x);
}

static int
exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 255;
}

static void
exec_emit_exit(struct sv_exec *x)
{
	struct jgen *j;

	if (x->done)
		return;
	x->done = 1;
	if (x->timeout != NULL)
		evtimer_del(x->timeout);
	if (x->grace != NULL)
		evtimer_del(x->grace);
	stream_close(&x->out);
	stream_close(&x->err);
	j = event_begin(x->s, "exit");
	jgen_kint(j, "execId", x->id);
	jgen_kint(j, "exitCode", exit_code(x->status));
	if (WIFSIGNALED(x->status))
		jgen_kint(j, "signal", WTERMSIG(x->status));
	event_end(x->s, j);
	update_active(x->s);
}

static void
exec_grace_cb(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	exec_emit_exit(arg);
}

/* The exit event follows the last output, or a short grace period when
 * an orphan still holds the pipes open. */
static void
exec_maybe_done(struct sv_exec *x)
{
	struct timeval tv = { 0, SV_EXIT_GRACE_MS * 1000 };

	if (!x->exited || x->done)
		return;
	if (x->out.fd == -1 && x->err.fd == -1) {
		exec_emit_exit(x);
		return;
	}
	if (x->grace == NULL) {
		x->grace = evtimer_new(sbase, exec_grace_cb, x);
		evtimer_add(x->grace, &tv);
	}
}

static void
exec_exited(struct sv_exec *x, int status)
{
	x->exited = 1;
	x->status = status;
	exec_maybe_done(x);
}

static struct sv_exec *
exec_find(struct sv_session *s, uint32_t id)
{
	struct sv_exec *x;

	for (x = s->execs; x != NULL; x = x->next)
		if (x->id == id)
			return x;
	return NULL;
}

static void
exec_timeout_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_exec	*x = arg;
	struct sv_session *s = x->s;

	(void)fd;
	(void)ev;
	if (x->done)
		return;
	event_killed(s, x, "timeout");
	/* The whole session: "leaves no process behind" includes what the
	 * command started in the background. */
	session_kill(s, "timeout");
}

/* ---- memory watchdog ---- */

/*
 * What the session's own tmpfs mounts hold: RAM that no process's RSS
 * shows (a file written to /tmp stays after its writer exits).  Seen
 * through /proc/<pid>/root of a command inside, which resolves in the
 * sandbox's mount tree; init is not dumpable, the commands are.  Only a
 * tmpfs is counted, whatever a path turns out to be.
 */
static uint64_t
session_tmpfs(struct sv_session *s, const char *pid)
{
	struct statfs	sf;
	char		path[PATH_MAX];
	uint64_t	total = 0;
	size_t		i;

	for (i = 0; s->plan.tmpfs != NULL && s->plan.tmpfs[i] != NULL; i++) {
		snprintf(path, sizeof(path), "/proc/%s/root%s", pid,
		    s->plan.tmpfs[i]);
		if (statfs(path, &sf) == -1)
			return UINT64_MAX;	/* try another pid */
		if (sf.f_type == TMPFS_MAGIC && sf.f_blocks >= sf.f_bfree)
			total += (uint64_t)(sf.f_blocks - sf.f_bfree) *
			    (uint64_t)sf.f_bsize;
	}
	return total;
}

static uint64_t
session_rss(struct sv_session *s)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[300], buf[128];
	struct stat	 st;
	uint64_t	 total = 0, pages, fs = UINT64_MAX;
	long		 pagesize = sysconf(_SC_PAGESIZE);
	int		 fd;
	ssize_t		 n;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/pid", de->d_name);
		if (stat(path, &st) == -1 || st.st_ino != s->pidns)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/statm", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if (sscanf(buf, "%*u %lu", &pages) == 1)
			total += pages * (uint64_t)pagesize;
		if (fs == UINT64_MAX)
			fs = session_tmpfs(s, de->d_name);
	}
	closedir(d);
	if (fs != UINT64_MAX)
		total += fs;
	return total;
}

static void
watchdog_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_session *s = arg;
	uint64_t	 rss;
	struct sv_exec	*x;

	(void)fd;
	(void)ev;
	if (s->pidns == 0 || s->state == ST_DESTROYED ||
	    s->state == ST_ERROR)
		return;
	rss = session_rss(s);
	if (rss > s->peak_rss)
		s->peak_rss = rss;
	if (rss > s->spec.limits.memory_bytes) {
		for (x = s->execs; x != NULL && x->done; x = x->next)
			;
		event_killed(s, x, "oom");
		session_kill(s, "memory limit");
	}
}

/* ---- launcher link ---- */

static void
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
		allow = egress_allowlist(s->spec.network_enabled,
		    s->spec.egress_allowlist, ssettings->allowed_domains);
		deny = xcalloc(1, sizeof(char *));
		for (i = 0; ssettings->denied_domains &&
		    ssettings->denied_domains[i]; i++)
			deny = strv_add(deny, ssettings->denied_domains[i]);
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
static void
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
	env_add(s, "GIT_SSH_COMMAND", "ssh -o ProxyCommand='nc -X 5 -x "
	    "127.0.0.1:", LISTEN_PORT_SOCKS, " %h %p'");
}

static void
launch_failed(struct sv_session *s, const char *why)
{
	free(s->error);
	s->error = xstrdup(why);
	log_warnx("session %s: sandbox could not be built: %s", s->id, why);
	if (s->launch_reply != NULL) {
		sv_client_error(s->owner, s->launch_reply, RPC_SANDBOX_ERROR,
		    why);
		json_free(s->launch_reply);
		s->launch_reply = NULL;
	}
	set_state(s, ST_ERROR);
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

static void
launcher_dispatch(struct sv_session *s, struct msg *m)
{
	struct sv_exec	*x;
	uint32_t	 kind, id, err;
	const char	*what, *action, *target;
	struct jgen	*j;
	const char	*buf;
	size_t		 len;

	switch (m->info->type) {
	case MSG_LAUNCH_SOCKET:
		kind = msg_get_u32(m);
		(void)msg_get_u32(m);
		if (kind == 0 || kind >= LISTEN_MAX ||
		    s->listen_fd[kind] != -1 || s->state != ST_CREATED) {
			session_kill(s, "launcher sent an unexpected socket");
			return;
		}
		s->listen_fd[kind] = msg_take_fd(m, 0);
		break;
	case MSG_LAUNCH_READY:
		if (s->state != ST_CREATED) {
			session_kill(s, "launcher sent READY twice");
			return;
		}
		s->init_pid = (pid_t)msg_get_u32(m);
		s->ll_abi = msg_get_u32(m);
		s->ll_gaps = msg_get_u32(m);
		s->pidns = pidns_of_launcher(s->launcher_pid);
		if (s->pidns == 0 && s->spec.limits.memory_bytes > 0) {
			session_kill(s, "cannot find the sandbox's pid "
			    "namespace for the memory limit");
			return;
		}
		register_daemons(s);
		proxy_env(s);
		set_state(s, ST_WARM);
		event_simple(s, "ready");
		if (s->spec.limits.memory_bytes > 0) {
			struct timeval tv = { 0, SV_WATCHDOG_MS * 1000 };

			s->watchdog = event_new(sbase, -1, EV_PERSIST,
			    watchdog_cb, s);
			evtimer_add(s->watchdog, &tv);
		}
		if (s->launch_reply != NULL) {
			reply_handle(s, s->launch_reply);
			json_free(s->launch_reply);
			s->launch_reply = NULL;
		}
		break;
	case MSG_LAUNCH_FAILED:
		launch_failed(s, msg_get_str(m));
		session_kill(s, NULL);
		break;
	case MSG_EXEC_STARTED:
		id = msg_get_u32(m);
		if ((x = exec_find(s, id)) == NULL || x->pid != 0) {
			session_kill(s, "launcher: EXEC_STARTED for no exec");
			return;
		}
		x->pid = (pid_t)msg_get_u32(m);
		stream_open(x, &x->out, msg_take_fd(m, 0), 0);
		stream_open(x, &x->err, msg_take_fd(m, 1), 1);
		if (x->reply_id != NULL) {
			j = jgen_new();
			jgen_obj_open(j);
			jgen_kint(j, "execId", x->id);
			jgen_kint(j, "pid", x->pid);
			jgen_obj_close(j);
			buf = jgen_buf(j, &len);
			sv_client_result(s->owner, x->reply_id, buf, len);
			jgen_free(j);
			json_free(x->reply_id);
			x->reply_id = NULL;
		}
		break;
	case MSG_EXEC_FAILED:
		id = msg_get_u32(m);
		err = msg_get_u32(m);
		what = msg_get_str(m);
		if ((x = exec_find(s, id)) == NULL || x->done) {
			session_kill(s, "launcher: EXEC_FAILED for no exec");
			return;
		}
		{
			char msgtxt[512];

			snprintf(msgtxt, sizeof(msgtxt), "%s: %s", what,
			    strerror((int)err));
			if (x->reply_id != NULL) {
				sv_client_error(s->owner, x->reply_id,
				    err == ENOENT ? -32010 : -32011, msgtxt);
				json_free(x->reply_id);
				x->reply_id = NULL;
			}
		}
		x->done = 1;
		update_active(s);
		break;
	case MSG_EXEC_EXIT:
		id = msg_get_u32(m);
		if ((x = exec_find(s, id)) == NULL || x->exited) {
			session_kill(s, "launcher: EXEC_EXIT for no exec");
			return;
		}
		exec_exited(x, (int)msg_get_u32(m));
		break;
	case MSG_VIOLATION:
		(void)msg_get_u32(m);
		action = msg_get_str(m);
		target = msg_get_str(m);
		event_violation(s, action, target, NULL);
		break;
	case MSG_HELLO:
		break;
	default:
		session_kill(s, "launcher sent an unexpected message");
		break;
	}
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
 * End a session's sandbox: the launcher is killed (its init has
 * PDEATHSIG, and pid 1 dying kills the whole pid namespace), the daemons
 * forget the session, and every exec still running gets its exit.
 */
static void
session_kill(struct sv_session *s, const char *why)
{
	struct msgbuf	 b;
	struct msg_link	*l;
	struct sv_exec	*x;
	int		 status, i;

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
	if (s->launcher_pid > 0) {
		kill(s->launcher_pid, SIGKILL);
		while (waitpid(s->launcher_pid, &status, 0) == -1 &&
		    errno == EINTR)
			;
		s->launcher_pid = -1;
	}
	if (s->watchdog != NULL) {
		event_free(s->watchdog);
		s->watchdog = NULL;
	}
	if (s->px_registered && (l = sv_daemon_link(SV_DAEMON_PROXYD))) {
		msgbuf_init(&b, MSG_PX_SESSION_DEL);
		msg_put_str(&b, s->id);
		(void)msg_send(l, &b, NULL, 0);
		msgbuf_free(&b);
	}
	s->px_registered = 0;
	if (s->gw_registered && (l = sv_daemon_link(SV_DAEMON_GATEWAYD))) {
		msgbuf_init(&b, MSG_GW_RUN_DEL);
		msg_put_str(&b, s->id);
		(void)msg_send(l, &b, NULL, 0);
		msgbuf_free(&b);
	}
	s->gw_registered = 0;
	for (i = 0; i < LISTEN_MAX; i++)
		if (s->listen_fd[i] != -1) {
			close(s->listen_fd[i]);
			s->listen_fd[i] = -1;
		}
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
				x->status = SIGKILL;	/* as if signalled */
			}
			exec_emit_exit(x);
		}
	}
	if (s->launch_reply != NULL)
		launch_failed(s, why != NULL ? why : "the sandbox ended");
	if (s->state != ST_DESTROYED && s->state != ST_ERROR)
		set_state(s, why != NULL ? ST_ERROR : ST_DESTROYED);
	if (why != NULL && s->error == NULL)
		s->error = xstrdup(why);
}

static void
session_free(struct sv_session *s)
{
	struct sv_exec *x, *nx;

	session_kill(s, NULL);
	for (x = s->execs; x != NULL; x = nx) {
		nx = x->next;
		exec_free(x);
	}
	json_free(s->launch_reply);
	sv_spec_free(&s->spec);
	sv_plan_free(&s->plan);
	strv_free(s->caller_env);
	free(s->error);
	free(s->id);
	free(s);
}

/* ---- none backend: the command runs on the host (R-N1) ---- */

static int
host_exec(struct sv_exec *x, char *const argv[], const char *cwd,
    char *const envp[], char *errbuf, size_t errlen, int *errnop)
{
	int	out[2], err[2], ep[2], e = 0;
	pid_t	pid;
	ssize_t	n;

	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(err, O_CLOEXEC) == -1 ||
	    pipe2(ep, O_CLOEXEC) == -1) {
		snprintf(errbuf, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		snprintf(errbuf, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		sigset_t all;

		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		signal(SIGPIPE, SIG_DFL);
		(void)setsid();
		if (devnull == -1 || dup2(devnull, 0) == -1 ||
		    dup2(out[1], 1) == -1 || dup2(err[1], 2) == -1)
			_exit(127);
		if (chdir(cwd) == -1) {
			e = errno;
			(void)!write(ep[1], &e, sizeof(e));
			_exit(127);
		}
		execvpe(argv[0], argv, envp);
		e = errno;
		(void)!write(ep[1], &e, sizeof(e));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	close(ep[1]);
	do {
		n = read(ep[0], &e, sizeof(e));
	} while (n == -1 && errno == EINTR);
	close(ep[0]);
	if (n == sizeof(e)) {
		close(out[0]);
		close(err[0]);
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			;
		*errnop = e;
		snprintf(errbuf, errlen, "%s: %s", argv[0], strerror(e));
		return -1;
	}
	x->pid = pid;
	stream_open(x, &x->out, out[0], 0);
	stream_open(x, &x->err, err[0], 1);
	return 0;
}

/* The SIGCHLD reaper found a host pid. */
int
sv_session_reaped(pid_t pid, int status)
{
	struct sv_session *s;
	struct sv_exec	*x;

	for (s = sessions; s != NULL; s = s->next) {
		if (s->launcher_pid == pid) {
			s->launcher_pid = -1;
			if (s->state == ST_CREATED)
				launch_failed(s, "the launcher exited");
			session_kill(s, s->state == ST_DESTROYED ? NULL :
			    "the launcher exited");
			return 1;
		}
		if (s->backend != SV_BACKEND_NONE)
			continue;
		for (x = s->execs; x != NULL; x = x->next)
			if (x->pid == pid && !x->exited) {
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

static const struct json *
param(const struct json *params, const char *key)
{
	return json_get(params, key);
}

static char **
json_strv(const struct json *v)
{
	char	**out = xcalloc(1, sizeof(char *));
	size_t	 i;

	if (v == NULL || v->type != JSON_ARRAY)
		return out;
	for (i = 0; i < v->n; i++) {
		if (v->items[i]->type != JSON_STRING ||
		    strlen(v->items[i]->str) != v->items[i]->len) {
			strv_free(out);
			return NULL;
		}
		out = strv_add(out, v->items[i]->str);
	}
	return out;
}

static struct json *
dup_id(const struct json *id)
{
	struct jgen	*j = jgen_new();
	struct json	*copy;
	const char	*buf;
	size_t		 len;
	char		 err[64];

	jgen_value(j, id);
	buf = jgen_buf(j, &len);
	copy = json_parse(buf, len, err, sizeof(err));
	jgen_free(j);
	return copy;
}

static const char *
caller_home(uid_t uid)
{
	struct passwd *pw;
	const char *h = getenv("HOME");

	if (h != NULL && h[0] == '/')
		return h;
	if ((pw = getpwuid(uid)) != NULL)
		return pw->pw_dir;
	return "/tmp";
}

/* A remote URL of a code host -> "owner/name" (else NULL). */
static void
origin_normalise(char **o)
{
	char	*r;

	if (*o == NULL || !(strstr(*o, "://") || strchr(*o, '@') ||
	    strchr(*o, ':')))
		return;
	r = gwrepo_from_url(ssettings, *o, NULL);
	free(*o);
	*o = r;
}

void
sv_session_launch(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	char		*origin = NULL, *origin_changed = NULL;
	struct sv_session *s;
	struct sv_plan_ctx ctx;
	struct sv_spec	 spec;
	char		 err[512], *path, *argv[2];
	enum sv_backend	 want;
	size_t		 i;
	int		 fd;

	if (sv_spec_from_json(param(params, "spec"), &spec, err,
	    sizeof(err)) == -1) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, err);
		return;
	}
	for (i = 0; spec.egress_allowlist && spec.egress_allowlist[i]; i++) {
		const char *why;

		if (!dom_pattern_valid(spec.egress_allowlist[i], &why)) {
			snprintf(err, sizeof(err), "egressAllowlist[%zu]: "
			    "\"%s\": %s", i, spec.egress_allowlist[i], why);
			sv_client_error(c, id, RPC_INVALID_PARAMS, err);
			sv_spec_free(&spec);
			return;
		}
	}
	/* originRepo may be a remote URL: keep "owner/name". */
	origin_normalise(&spec.origin_repo);
	origin_normalise(&spec.workspace_origin);
	if (sv_session_find(spec.session_id) != NULL) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "sessionId: a session with this id exists");
		sv_spec_free(&spec);
		return;
	}

	/* R-H4, R-H5: which backend. */
	want = spec.backend != NULL ? sv_backend_parse(spec.backend) :
	    SV_BACKEND_NATIVE;
	if (want == SV_BACKEND_MICROVM) {
		sv_client_error(c, id, RPC_SANDBOX_ERROR, "backend microvm "
		    "was asked for and this host cannot boot a VM");
		sv_spec_free(&spec);
		return;
	}
	if (spec.backend != NULL && want == SV_BACKEND_NONE &&
	    strcmp(spec.backend, "none") == 0)
		want = SV_BACKEND_NONE;
	else if (!ssandbox_on || !ssettings->sandbox_enabled)
		want = SV_BACKEND_NONE;
	else if (!sprobe->available) {
		if (ssettings->fail_if_unavailable) {
			snprintf(err, sizeof(err), "no OS-native agent "
			    "sandbox on this host (%s) and "
			    "sandbox.failIfUnavailable is set",
			    sprobe->install_hint);
			sv_client_error(c, id, RPC_SANDBOX_ERROR, err);
			sv_spec_free(&spec);
			return;
		}
		want = SV_BACKEND_NONE;
	} else
		want = SV_BACKEND_NATIVE;

	/* The upstream is the user's, recorded outside (issue 14). */
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
	s = xcalloc(1, sizeof(*s));
	s->id = xstrdup(spec.session_id);
	s->spec = spec;
	s->backend = want;
	s->owner = c;
	s->link.fd = -1;
	s->launcher_pid = -1;
	for (i = 0; i < LISTEN_MAX; i++)
		s->listen_fd[i] = -1;
	s->next = sessions;
	sessions = s;
	s->caller_env = json_strv(param(params, "env"));
	event_simple(s, "starting");
	if (origin_changed != NULL) {
		log_warnx("session %s: the workspace's origin is now %s, not "
		    "the recorded %s: pushes still go only to %s", s->id,
		    origin_changed, s->spec.origin_repo ? s->spec.origin_repo :
		    "(none)", s->spec.origin_repo ? s->spec.origin_repo :
		    "linked repositories");
		event_violation(s, "git-origin-changed", origin_changed, NULL);
		free(origin_changed);
	}

	if (want == SV_BACKEND_NONE) {
		s->plan.workdir = xstrdup(s->spec.guest_workdir != NULL ?
		    s->spec.guest_workdir : s->spec.nbinds > 0 ?
		    s->spec.binds[0].host_path : caller_home(getuid()));
		s->plan.env_base = strv_add(NULL, "AIRLOCK_SANDBOX=none");
		{
			char *kv;

			xasprintf(&kv, "HOME=%s", caller_home(getuid()));
			s->plan.env_base = strv_add(s->plan.env_base, kv);
			free(kv);
		}
		set_state(s, ST_WARM);
		event_simple(s, "ready");
		reply_handle(s, (struct json *)id);
		return;
	}

	if (bpf == NULL && sv_seccomp_compile(&bpf, &bpf_len) == -1) {
		launch_failed(s, "cannot compile the seccomp filter");
		s->launch_reply = NULL;
		sv_client_error(c, id, RPC_SANDBOX_ERROR,
		    "cannot compile the seccomp filter");
		return;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.settings = ssettings;
	ctx.home = caller_home(getuid());
	ctx.uid = getuid();
	ctx.gid = getgid();
	ctx.with_proxy = sv_daemon_up(SV_DAEMON_PROXYD);
	ctx.with_gateway = sv_daemon_up(SV_DAEMON_GATEWAYD);
	ctx.bpf = bpf;
	ctx.bpf_len = bpf_len;
	if (sv_plan_build(&s->spec, &ctx, &s->plan, err, sizeof(err)) == -1) {
		set_state(s, ST_ERROR);
		s->error = xstrdup(err);
		sv_client_error(c, id, RPC_SANDBOX_ERROR, err);
		return;
	}

	path = sv_sibling("airlock-launcher");
	argv[0] = "airlock-launcher";
	argv[1] = NULL;
	s->launcher_pid = sv_spawn(path, argv, &fd);
	free(path);
	if (s->launcher_pid == -1) {
		snprintf(err, sizeof(err), "cannot start the launcher: %s",
		    strerror(errno));
		set_state(s, ST_ERROR);
		s->error = xstrdup(err);
		sv_client_error(c, id, RPC_SANDBOX_ERROR, err);
		return;
	}
	msg_link_init(&s->link, fd, MSG_CH_LAUNCHER, MSG_UP, "launcher");
	for (i = 0; i < s->plan.nframes; i++) {
		if (msg_send(&s->link, &s->plan.frames[i], NULL, 0) == -1) {
			snprintf(err, sizeof(err), "cannot send the plan to "
			    "the launcher: %s", strerror(errno));
			s->launch_reply = dup_id(id);
			launch_failed(s, err);
			session_kill(s, NULL);
			return;
		}
	}
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
		fatal("fcntl");
	s->ev_link = event_new(sbase, fd, EV_READ | EV_PERSIST, launcher_read,
	    s);
	event_add(s->ev_link, NULL);
	s->launch_reply = dup_id(id);
}

static struct sv_session *
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
	if ((s = sv_session_find(sid)) == NULL || s->owner != c) {
		sv_client_error(c, id, RPC_NO_SESSION, "no such session");
		return NULL;
	}
	return s;
}

void
sv_session_exec(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s;
	struct sv_exec	*x;
	struct msgbuf	 b;
	char		**argv, **xenv, **envp, err[512];
	const char	*cwd;
	const struct json *t = NULL;
	int		 e = 0;

	if ((s = session_param(c, id, params)) == NULL)
		return;
	if (s->state != ST_WARM && s->state != ST_ACTIVE) {
		sv_client_error(c, id, RPC_SANDBOX_ERROR, s->state ==
		    ST_CREATED ? "the sandbox is not ready" :
		    "the sandbox is not running");
		return;
	}
	argv = json_strv(param(params, "argv"));
	if (argv == NULL || argv[0] == NULL || argv[0][0] == '\0') {
		strv_free(argv);
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "argv: a non-empty array of strings");
		return;
	}
	if ((xenv = json_strv(param(params, "env"))) == NULL) {
		strv_free(argv);
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "env: an array of NAME=value strings");
		return;
	}
	cwd = json_get_str(params, "cwd");
	if (cwd == NULL)
		cwd = s->plan.workdir;
	envp = sv_env_build(s->caller_env, s->plan.env_base, xenv);

	x = xcalloc(1, sizeof(*x));
	x->s = s;
	x->id = ++s->next_exec;
	x->out.fd = x->err.fd = -1;
	x->next = s->execs;
	s->execs = x;
	set_state(s, ST_ACTIVE);

	if (s->spec.limits.timeout_sec > 0 ||
	    ((t = param(params, "timeoutSec")) != NULL && t->is_int &&
	    t->integer > 0)) {
		struct timeval tv = { s->spec.limits.timeout_sec, 0 };

		if (t != NULL && t->is_int && t->integer > 0)
			tv.tv_sec = (time_t)t->integer;
		x->timeout = evtimer_new(sbase, exec_timeout_cb, x);
		evtimer_add(x->timeout, &tv);
	}

	if (s->backend == SV_BACKEND_NONE) {
		if (host_exec(x, argv, cwd, envp, err, sizeof(err), &e) == -1) {
			sv_client_error(c, id, e == ENOENT ? -32010 : -32011,
			    err);
			x->done = 1;
			update_active(s);
		} else {
			struct jgen *j = jgen_new();
			const char *buf;
			size_t len;

			jgen_obj_open(j);
			jgen_kint(j, "execId", x->id);
			jgen_kint(j, "pid", x->pid);
			jgen_obj_close(j);
			buf = jgen_buf(j, &len);
			sv_client_result(c, id, buf, len);
			jgen_free(j);
		}
	} else {
		msgbuf_init(&b, MSG_EXEC);
		msg_put_u32(&b, x->id);
		msg_put_str(&b, cwd);
		msg_put_strv(&b, argv);
		msg_put_strv(&b, envp);
		x->reply_id = dup_id(id);
		if (msg_send(&s->link, &b, NULL, 0) == -1)
			session_kill(s, "cannot send to the launcher");
		msgbuf_free(&b);
	}
	strv_free(argv);
	strv_free(xenv);
	strv_free(envp);
}

void
sv_session_signal(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s;
	const struct json *jx = param(params, "execId");
	const struct json *js = param(params, "signal");
	struct sv_exec	*x;
	struct msgbuf	 b;
	int		 sig = SIGTERM;

	if ((s = session_param(c, id, params)) == NULL)
		return;
	if (jx == NULL || !jx->is_int ||
	    (x = exec_find(s, (uint32_t)jx->integer)) == NULL || x->done) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "execId: no running exec");
		return;
	}
	if (js != NULL && js->is_int && js->integer > 0 && js->integer < 65)
		sig = (int)js->integer;
	if (s->backend == SV_BACKEND_NONE)
		kill(-x->pid, sig);
	else {
		msgbuf_init(&b, MSG_EXEC_SIGNAL);
		msg_put_u32(&b, x->id);
		msg_put_u32(&b, (uint32_t)sig);
		(void)msg_send(&s->link, &b, NULL, 0);
		msgbuf_free(&b);
	}
	if (sig == SIGKILL)
		event_killed(s, x, "manual");
	sv_client_result(c, id, "{}", 2);
}

static void
session_destroy(struct sv_session *s)
{
	struct sv_exec *x;

	if (s->backend == SV_BACKEND_NONE)
		for (x = s->execs; x != NULL; x = x->next)
			if (!x->exited && x->pid > 0)
				kill(-x->pid, SIGKILL);
	session_kill(s, NULL);
	set_state(s, ST_DESTROYED);
	unlink_session(s);
	session_free(s);
}

void
sv_session_destroy(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s;
	char		   buf[256];

	if ((s = session_param(c, id, params)) == NULL)
		return;
	snprintf(buf, sizeof(buf), "{\"sessionId\":\"%s\",\"state\":"
	    "\"destroyed\"}", s->id);
	session_destroy(s);
	sv_client_result(c, id, buf, strlen(buf));
}

void
sv_sessions_client_gone(struct sv_client *c)
{
	struct sv_session *s, *next;

	for (s = sessions; s != NULL; s = next) {
		next = s->next;
		if (s->owner == c) {
			s->owner = NULL;
			session_destroy(s);
		}
	}
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

void
sv_sessions_shutdown(void)
{
	struct sv_session *s;

	while ((s = sessions) != NULL) {
		sessions = s->next;
		session_free(s);
	}
	free(bpf);
	bpf = NULL;
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
}
