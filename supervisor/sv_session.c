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
#include "supervisor/paths.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"
#include "supervisor/wsorigin.h"

#define SV_READ_CHUNK		65536
#define SV_SPLICE_CHUNK		(1U << 20)
#define SV_PIPE_SIZE		(1 << 20)
#define SV_EXIT_GRACE_MS	300	/* output after exit, from orphans */
#define SV_WATCHDOG_MS		100
#define SV_KILL_WAIT_MS		5000	/* for a killed sandbox to end */
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

/*
 * One output stream of an exec.  Events mode: each read becomes a
 * stdout/stderr event (base64, or text when the client asked for it).
 * Pipe mode (`airlock run`): the bytes go on into the client's own pipe,
 * dst, spliced when the kernel can.  Either way a full client stops the
 * reading (ev deleted) so the command's writes block, and nothing read is
 * dropped: flow control from the client back to the command.
 */
struct sv_stream {
	struct sv_exec	*x;
	int		 fd;
	int		 is_err;
	struct event	*ev;
	uint64_t	 bytes;
	char		 line[512];	/* partial line, for R-L10 */
	size_t		 linelen;
	int		 paused;	/* events mode: client congested */
	int		 dst;		/* pipe mode: the client's pipe */
	struct event	*wev;		/* dst writable again */
	char		*pend;		/* read, not yet written to dst */
	size_t		 pendoff, pendlen;
	int		 nosplice;
	int		 is_in;		/* the client's stdin to a pty */
};

struct sv_exec {
	struct sv_exec	*next;
	struct sv_session *s;
	uint32_t	 id;
	pid_t		 pid;		/* sandbox view (native) or host */
	struct json	*reply_id;	/* sandbox.exec awaiting its answer */
	struct sv_stream out, err;
	struct sv_stream in;		/* pipe mode with a pty only */
	int		 stdin_fd;	/* pipe mode: to pass on, or -1 */
	int		 pty;
	int		 exited;
	int		 status;
	int		 done;		/* exit event sent */
	int		 text;		/* events carry "data", not "base64" */
	struct event	*timeout;
	struct event	*grace;
	uint64_t	 grace_mark;	/* bytes moved when grace was armed */
	sv_helper_done	 helper_done;	/* airlockd's own exec (sv_fs.c):
					   no events, this instead */
	void		*helper_arg;
};

struct sv_session {
	struct sv_session *next;
	char		*id;
	enum sv_backend	 backend;
	const char	*unconfined;	/* why backend none, for the client */
	enum sv_state	 state;
	char		*error;
	struct sv_client *owner;
	struct json	*launch_reply;	/* sandbox.launch awaiting READY */
	struct sv_spec	 spec;
	struct sv_plan	 plan;
	pid_t		 launcher_pid;
	pid_t		 init_pid;	/* host view */
	int		 init_pidfd;	/* init, for session_kill */
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
	char		**pass_env;	/* NAME=VALUE passed on purpose */
	struct settings	*own_settings;	/* the client's, on a shared airlockd */
	char		*home;		/* the caller's $HOME */
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

/* A file tool's refusal (sv_fs.c), with the rule that decided it. */
void
sv_session_violation_rule(const char *sid, const char *action,
    const char *target, const char *rule)
{
	struct sv_session *s = sv_session_find(sid);
	struct jgen	*j;

	if (s == NULL || ++s->nprecise > SV_MAX_PRECISE)
		return;
	j = event_begin(s, "violation");
	jgen_kstr(j, "action", action);
	jgen_kstr(j, "target", target);
	jgen_kstr(j, "rule", rule);
	event_end(s, j);
}

struct sv_session *
sv_session_owned(struct sv_client *c, const char *sid)
{
	struct sv_session *s;

	if (sid == NULL || (s = sv_session_find(sid)) == NULL ||
	    s->owner != c)
		return NULL;
	return s;
}

int
sv_session_confined(const struct sv_session *s)
{
	return s->backend != SV_BACKEND_NONE;
}

static void
handle_json(struct jgen *j, struct sv_session *s)
{
	jgen_obj_open(j);
	jgen_kstr(j, "sessionId", s->id);
	jgen_kstr(j, "backend", sv_backend_name(s->backend));
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
	if (st->wev != NULL) {
		event_free(st->wev);
		st->wev = NULL;
	}
	if (st->fd != -1) {
		close(st->fd);
		st->fd = -1;
	}
	if (st->dst != -1) {
		close(st->dst);
		st->dst = -1;
	}
	free(st->pend);
	st->pend = NULL;
	st->pendlen = st->pendoff = 0;
}

static void
b64_encode(struct jgen *j, const char *buf, size_t n)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	char	*b64 = xmalloc((n + 2) / 3 * 4 + 1);
	size_t	 i, o = 0;

	for (i = 0; i + 2 < n; i += 3) {
		unsigned v = (unsigned char)buf[i] << 16 |
		    (unsigned char)buf[i + 1] << 8 |
		    (unsigned char)buf[i + 2];
		b64[o++] = tbl[v >> 18];
		b64[o++] = tbl[(v >> 12) & 63];
		b64[o++] = tbl[(v >> 6) & 63];
		b64[o++] = tbl[v & 63];
	}
	if (i < n) {
		unsigned v = (unsigned char)buf[i] << 16;

		if (i + 1 < n)
			v |= (unsigned char)buf[i + 1] << 8;
		b64[o++] = tbl[v >> 18];
		b64[o++] = tbl[(v >> 12) & 63];
		b64[o++] = i + 1 < n ? tbl[(v >> 6) & 63] : '=';
		b64[o++] = '=';
	}
	b64[o] = '\0';
	jgen_kstr(j, "base64", b64);
	free(b64);
}

/* Pipe mode: write what is pending; 1 when it is all out. */
static int
stream_flush(struct sv_stream *st)
{
	ssize_t	n;

	while (st->pendoff < st->pendlen) {
		n = write(st->dst, st->pend + st->pendoff,
		    st->pendlen - st->pendoff);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN) {
			event_add(st->wev, NULL);
			return 0;
		}
		if (n <= 0) {
			/* The client closed its end: nobody wants more. */
			st->pendoff = st->pendlen = 0;
			return -1;
		}
		st->pendoff += (size_t)n;
	}
	st->pendoff = st->pendlen = 0;
	return 1;
}

static void
stream_writable(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_stream *st = arg;
	int		  r;

	(void)fd;
	(void)ev;
	if ((r = stream_flush(st)) == 0)
		return;
	if (r == -1) {
		stream_close(st);
		if (!st->is_in)
			exec_maybe_done(st->x);
		return;
	}
	event_add(st->ev, NULL);
}

static void
stream_over_cap(struct sv_stream *st)
{
	struct sv_exec	*x = st->x;

	stream_close(st);
	event_killed(x->s, x, "output");
	session_kill(x->s, "output limit");
}

/*
 * Pipe mode, stdout: splice from the command's pipe into the client's,
 * never more than the cap allows.  0 when it moved bytes, 1 at the
 * command's end of file, -1 when the caller should copy instead.
 */
static int
stream_splice(struct sv_stream *st, uint64_t cap)
{
	size_t	 want = SV_SPLICE_CHUNK;
	ssize_t	 n;
	char	 c;

	if (cap - st->bytes < want)
		want = (size_t)(cap - st->bytes);
	if (want == 0) {
		if ((n = read(st->fd, &c, 1)) > 0)
			stream_over_cap(st);
		else if (n == 0)
			return 1;
		return 0;
	}
	n = splice(st->fd, NULL, st->dst, NULL, want,
	    SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	if (n > 0) {
		st->bytes += (uint64_t)n;
		return 0;
	}
	if (n == 0)
		return 1;
	if (errno == EAGAIN) {
		/* The command's pipe is empty or the client's is full:
		 * wait for the client's; a spurious wake-up costs one
		 * round. */
		event_del(st->ev);
		event_add(st->wev, NULL);
		return 0;
	}
	if (errno == EINTR)
		return 0;
	if (errno == EPIPE)
		return 1;
	st->nosplice = 1;
	return -1;
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
	int		 r;
	uint64_t	 cap = s->spec.limits.output_bytes ?
	    s->spec.limits.output_bytes : SV_DEFAULT_OUTPUT;

	(void)ev;
	if (st->dst != -1 && !st->is_err && !st->nosplice) {
		if ((r = stream_splice(st, cap)) == 0)
			return;
		if (r == 1) {
			stream_close(st);
			exec_maybe_done(x);
			return;
		}
	}
	n = read(fd, buf, sizeof(buf));
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* A pty's master reads EIO once the last slave is closed. */
		stream_close(st);
		if (!st->is_in)
			exec_maybe_done(x);
		return;
	}
	if (!st->is_in && st->bytes + (uint64_t)n > cap) {
		stream_over_cap(st);
		return;
	}
	if (!st->is_in)
		st->bytes += (uint64_t)n;
	if (st->is_err)
		scan_denials(st, buf, (size_t)n);
	if (st->dst != -1) {
		st->pend = xreallocarray(st->pend, 1, sizeof(buf));
		memcpy(st->pend, buf, (size_t)n);
		st->pendoff = 0;
		st->pendlen = (size_t)n;
		if ((r = stream_flush(st)) == -1) {
			stream_close(st);
			if (!st->is_in)
				exec_maybe_done(x);
		} else if (r == 0)
			event_del(st->ev);
		return;
	}
	/* Each byte once: base64 (exact), or text if the client asked. */
	j = event_begin(s, st->is_err ? "stderr" : "stdout");
	jgen_kint(j, "execId", x->id);
	if (x->text) {
		jgen_key(j, "data");
		jgen_strn(j, buf, (size_t)n);
	} else
		b64_encode(j, buf, (size_t)n);
	event_end(s, j);
	if (sv_client_congested(s->owner)) {
		event_del(st->ev);
		st->paused = 1;
	}
}

void
sv_sessions_client_drained(struct sv_client *c)
{
	struct sv_session *s;
	struct sv_exec	*x;

	for (s = sessions; s != NULL; s = s->next) {
		if (s->owner != c)
			continue;
		for (x = s->execs; x != NULL; x = x->next) {
			if (x->out.paused && x->out.ev != NULL)
				event_add(x->out.ev, NULL);
			if (x->err.paused && x->err.ev != NULL)
				event_add(x->err.ev, NULL);
			x->out.paused = x->err.paused = 0;
		}
	}
}

/* dst: the client's pipe (pipe mode, taken over), or -1 for events. */
static void
stream_open(struct sv_exec *x, struct sv_stream *st, int fd, int is_err,
    int dst)
{
	st->x = x;
	st->fd = fd;
	st->is_err = is_err;
	st->dst = dst;
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
		log_warn("fcntl");
	/* Fewer, larger rounds; the user's pipe budget allows 1 MiB. */
	(void)fcntl(fd, F_SETPIPE_SZ, SV_PIPE_SIZE);
	st->ev = event_new(sbase, fd, EV_READ | EV_PERSIST, stream_read, st);
	if (dst != -1) {
		if (fcntl(dst, F_SETFL, O_NONBLOCK) == -1)
			log_warn("fcntl");
		(void)fcntl(dst, F_SETPIPE_SZ, SV_PIPE_SIZE);
		st->wev = event_new(sbase, dst, EV_WRITE, stream_writable,
		    st);
	}
	event_add(st->ev, NULL);
}

/*
 * The command's output fds arrived: in a pty's case both are its master,
 * which also takes the client's stdin and follows its window size.
 */
static void
exec_streams(struct sv_exec *x, int out, int err)
{
	int	dst_err = x->err.dst, dst_in;

	if (x->stdin_fd != -1 && !x->pty) {
		close(x->stdin_fd);	/* passed on to the command */
		x->stdin_fd = -1;
	}
	if (!x->pty) {
		stream_open(x, &x->out, out, 0, x->out.dst);
		stream_open(x, &x->err, err, 1, dst_err);
		return;
	}
	close(err);
	if (dst_err != -1)
		close(dst_err);		/* one stream on a terminal */
	x->err.dst = -1;
	x->out.nosplice = 1;
	stream_open(x, &x->out, out, 0, x->out.dst);
	if (x->stdin_fd == -1 || (dst_in = fcntl(out, F_DUPFD_CLOEXEC, 0)) ==
	    -1)
		return;
	x->in.is_in = 1;
	x->in.nosplice = 1;
	stream_open(x, &x->in, x->stdin_fd, 0, dst_in);
	x->stdin_fd = -1;
}

static void
exec_free(struct sv_exec *x)
{
	if (x->helper_done != NULL)
		x->helper_done(x->helper_arg, -1);
	stream_close(&x->out);
	stream_close(&x->err);
	stream_close(&x->in);
	if (x->stdin_fd != -1)
		close(x->stdin_fd);
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
	stream_close(&x->in);
	if (x->helper_done != NULL) {
		x->helper_done(x->helper_arg, x->status);
		x->helper_done = NULL;
		update_active(x->s);
		return;
	}
	j = event_begin(x->s, "exit");
	jgen_kint(j, "execId", x->id);
	jgen_kint(j, "exitCode", exit_code(x->status));
	if (WIFSIGNALED(x->status))
		jgen_kint(j, "signal", WTERMSIG(x->status));
	event_end(x->s, j);
	update_active(x->s);
}

static int
stream_waiting(const struct sv_stream *st)
{
	return st->paused || st->pendlen > 0 ||
	    (st->wev != NULL && event_pending(st->wev, EV_WRITE, NULL));
}

static uint64_t
exec_moved(const struct sv_exec *x)
{
	return x->out.bytes + x->err.bytes;
}

/*
 * The grace period ends the exec only once its output has stopped: bytes
 * still flowing, or waiting for a slow client, are not an orphan's.
 */
static void
exec_grace_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_exec	*x = arg;
	struct timeval	 tv = { 0, SV_EXIT_GRACE_MS * 1000 };

	(void)fd;
	(void)ev;
	if (exec_moved(x) != x->grace_mark || stream_waiting(&x->out) ||
	    stream_waiting(&x->err)) {
		x->grace_mark = exec_moved(x);
		evtimer_add(x->grace, &tv);
		return;
	}
	exec_emit_exit(x);
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
		x->grace_mark = exec_moved(x);
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
 * through /proc/<pid>/task/<tid>/root of a command inside, which
 * resolves in the sandbox's mount tree; init is not dumpable, the
 * commands are.  Only a tmpfs is counted, whatever a path turns out to
 * be.
 */
static uint64_t
session_tmpfs(struct sv_session *s, const char *task)
{
	struct statfs	sf;
	char		path[PATH_MAX];
	uint64_t	total = 0;
	size_t		i;

	for (i = 0; s->plan.tmpfs != NULL && s->plan.tmpfs[i] != NULL; i++) {
		snprintf(path, sizeof(path), "%s/root%s", task,
		    s->plan.tmpfs[i]);
		if (statfs(path, &sf) == -1)
			return UINT64_MAX;	/* try another pid */
		if (sf.f_type == TMPFS_MAGIC && sf.f_blocks >= sf.f_bfree)
			total += (uint64_t)(sf.f_blocks - sf.f_bfree) *
			    (uint64_t)sf.f_bsize;
	}
	return total;
}

/*
 * One thread group's resident memory, if it is in the session's pid
 * namespace; 0 otherwise.  The leader's /proc/<pid> entries describe the
 * leader's task: once it has exited (pthread_exit in main) they read as
 * empty while its other threads still hold the group's memory, so a
 * group whose leader does not answer is read through its live tasks.
 * *tmpfs gets the session's tmpfs usage, seen from the first task that
 * can show it.
 */
static uint64_t
group_rss(struct sv_session *s, const char *pid, uint64_t *tmpfs)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[384], buf[128], task[300];
	struct stat	 st;
	unsigned long	 pages = 0;
	long		 pagesize = sysconf(_SC_PAGESIZE);
	int		 fd;
	ssize_t		 n;

	/* Most of /proc is other processes: one stat decides. */
	snprintf(path, sizeof(path), "/proc/%s/ns/pid", pid);
	if (stat(path, &st) == 0 && st.st_ino != s->pidns)
		return 0;
	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(task, sizeof(task), "/proc/%s/task/%s", pid,
		    de->d_name);
		snprintf(path, sizeof(path), "%s/ns/pid", task);
		if (stat(path, &st) == -1 || st.st_ino != s->pidns)
			continue;
		if (*tmpfs == UINT64_MAX)
			*tmpfs = session_tmpfs(s, task);
		snprintf(path, sizeof(path), "%s/statm", task);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* Every task of the group shares one mm: count it once. */
		if (sscanf(buf, "%*u %lu", &pages) == 1 && pages > 0)
			break;
	}
	closedir(d);
	return (uint64_t)pages * (uint64_t)pagesize;
}

static uint64_t
session_rss(struct sv_session *s)
{
	DIR		*d;
	struct dirent	*de;
	uint64_t	 total = 0, fs = UINT64_MAX;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		total += group_rss(s, de->d_name, &fs);
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
	/* airlock's own SOCKS client, bound into the sandbox: no nc. */
	env_add(s, "GIT_SSH_COMMAND", "ssh -o ProxyCommand='"
	    AIRLOCK_SANDBOX_SELF " proxy-connect 127.0.0.1:",
	    LISTEN_PORT_SOCKS, " %h %p'");
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
		s->init_pidfd = init_pidfd_open(s->init_pid,
		    s->launcher_pid);
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
		exec_streams(x, msg_take_fd(m, 0), msg_take_fd(m, 1));
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
		if (x->helper_done != NULL) {
			stream_close(&x->out);
			stream_close(&x->err);
			x->helper_done(x->helper_arg, 127 << 8);
			x->helper_done = NULL;
		}
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
 * Wait until the launcher has exited, SV_KILL_WAIT_MS at most, then
 * kill it if it has not and reap it.
 */
static void
launcher_reap(pid_t pid)
{
	struct timespec	ts = { 0, 5 * 1000 * 1000 };
	int		i, status;
	pid_t		r;

	for (i = 0; i < SV_KILL_WAIT_MS / 5; i++) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r == -1 && errno != EINTR))
			return;
		nanosleep(&ts, NULL);
	}
	log_warnx("launcher %d: the sandbox did not end within %d ms, "
	    "killing the launcher", (int)pid, SV_KILL_WAIT_MS);
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
}

/*
 * End a session's sandbox, the daemons forget the session, and every
 * exec still running gets its exit.  Init is killed, not only the
 * launcher: the launcher's death reaches init through PDEATHSIG later,
 * so its waitpid would return while the sandbox still runs.  Pid 1
 * dying makes the kernel kill the rest of its pid namespace, and init
 * becomes a zombie only once every one of them is gone; the launcher
 * then reaps it and exits.  So the launcher's exit, waited for before
 * any exit event is sent, means nothing of the sandbox runs and no
 * process of it is left, even a zombie: a caller told that the session
 * ended can rely on it.  The wait is bounded (SV_KILL_WAIT_MS): a
 * process stuck in the kernel could hold init, and then the launcher is
 * killed as before (init has PDEATHSIG).
 */
static void
session_kill(struct sv_session *s, const char *why)
{
	struct msgbuf	 b;
	struct msg_link	*l;
	struct sv_exec	*x;
	int		 i;

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
		if (s->init_pidfd == -1 || syscall(SYS_pidfd_send_signal,
		    s->init_pidfd, SIGKILL, NULL, 0) == -1)
			kill(s->launcher_pid, SIGKILL);
		launcher_reap(s->launcher_pid);
		s->launcher_pid = -1;
	}
	if (s->init_pidfd != -1) {
		close(s->init_pidfd);
		s->init_pidfd = -1;
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
	strv_free(s->pass_env);
	if (s->own_settings != NULL) {
		settings_free(s->own_settings);
		free(s->own_settings);
	}
	free(s->home);
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
		int devnull = x->stdin_fd != -1 ? x->stdin_fd :
		    open("/dev/null", O_RDONLY);
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
	exec_streams(x, out[0], err[0]);
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

/*
 * airlock's own files that a run must never write, whatever it binds
 * (issue 11): the --settings file, the binaries the next run executes,
 * and the directory of the client socket.  sv_plan.c adds the user and
 * managed settings directories and the credentials file.
 */
static char **
own_paths(void)
{
	static const char *const bins[] = {
		"airlock", "airlockd", "airlock-launcher", "airlock-proxyd",
		"airlock-gatewayd",
	};
	char	**v = NULL, *p, *slash, self[PATH_MAX];
	ssize_t	 n;
	size_t	 i;

	if (sv_settings_file != NULL && (p = realpath(sv_settings_file,
	    NULL)) != NULL) {
		v = strv_add(v, p);
		free(p);
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		v = strv_add(v, self);
	}
	for (i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		p = sv_sibling(bins[i]);
		if (p[0] == '/')
			v = strv_add(v, p);
		free(p);
	}
	p = airlock_default_socket();
	if ((slash = strrchr(p, '/')) != NULL && slash != p) {
		*slash = '\0';
		v = strv_add(v, p);
	}
	free(p);
	return v;
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

/*
 * "home" and "settingsFile" of a launch: the caller's, for a shared
 * airlockd.  The settings load as this daemon's own do (the caller's
 * user file, the file named, the managed file on top), with ~ meaning
 * the caller's home.  The client is this uid (SO_PEERCRED): the home is
 * taken as given once it is an existing directory of ours.
 */
static int
session_settings(struct sv_client *c, const struct json *id,
    const struct json *params, struct settings **own, char **home)
{
	const char	*h = json_get_str(params, "home");
	const char	*f = json_get_str(params, "settingsFile");
	char		 err[1024], *saved = NULL;
	struct stat	 sb;
	int		 rc;

	*own = NULL;
	*home = NULL;
	if (h != NULL && (h[0] != '/' || stat(h, &sb) == -1 ||
	    !S_ISDIR(sb.st_mode) || sb.st_uid != getuid())) {
		snprintf(err, sizeof(err), "home: \"%.200s\" is not a "
		    "directory of this user", h);
		sv_client_error(c, id, RPC_INVALID_PARAMS, err);
		return -1;
	}
	if (h != NULL)
		*home = xstrdup(h);
	if (f == NULL && (h == NULL || strcmp(h, caller_home(getuid())) == 0))
		return 0;
	if (getenv("HOME") != NULL)
		saved = xstrdup(getenv("HOME"));
	if (h != NULL)
		setenv("HOME", h, 1);
	*own = xcalloc(1, sizeof(**own));
	settings_defaults(*own);
	/* NULL: the user file of $HOME, which is now the caller's. */
	rc = settings_load(*own, NULL, f, NULL, err, sizeof(err));
	if (saved != NULL) {
		setenv("HOME", saved, 1);
		free(saved);
	} else
		unsetenv("HOME");
	if (rc == -1) {
		settings_free(*own);
		free(*own);
		*own = NULL;
		free(*home);
		*home = NULL;
		sv_client_error(c, id, RPC_INVALID_PARAMS, err);
		return -1;
	}
	return 0;
}

static int
deny_entry_bad(struct sv_client *c, const struct json *id, const char *key,
    size_t i, const char *path)
{
	char	err[PATH_MAX + 128];

	if (path[0] == '/' || (path[0] == '~' && (path[1] == '/' ||
	    path[1] == '\0')))
		return 0;
	snprintf(err, sizeof(err), "%s[%zu]: \"%s\": not an absolute path "
	    "(relative to what?); it cannot be applied", key, i, path);
	sv_client_error(c, id, RPC_INVALID_PARAMS, err);
	return 1;
}

/* Replace or add NAME=VALUE in an environment vector. */
static char **
env_set(char **v, const char *kv)
{
	size_t	i, n = strcspn(kv, "=") + 1;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (strncmp(v[i], kv, n) == 0) {
			free(v[i]);
			v[i] = xstrdup(kv);
			return v;
		}
	return strv_add(v, kv);
}

/*
 * The variables passed on purpose (R-L9 allows them only so): the
 * client's "passEnv" (NAME=VALUE, from `airlock run --env`), then the
 * names of settings sandbox.env.pass with the caller's values.  An
 * injection variable is refused, naming it.  NULL after an error.
 */
static char **
pass_env(struct sv_client *c, const struct json *id,
    const struct json *params, const struct settings *set)
{
	char		**v = xcalloc(1, sizeof(*v)), **asked, **caller;
	char		 err[512];
	const char	*eq;
	size_t		 i, k, n;

	asked = json_strv(param(params, "passEnv"));
	caller = json_strv(param(params, "env"));
	for (i = 0; set->env_pass && set->env_pass[i]; i++) {
		n = strlen(set->env_pass[i]);
		for (k = 0; caller && caller[k]; k++)
			if (strncmp(caller[k], set->env_pass[i], n) == 0 &&
			    caller[k][n] == '=')
				asked = strv_add(asked, caller[k]);
	}
	for (i = 0; asked && asked[i]; i++) {
		char name[256];

		eq = strchr(asked[i], '=');
		n = eq != NULL ? (size_t)(eq - asked[i]) : 0;
		if (n == 0 || n >= sizeof(name)) {
			snprintf(err, sizeof(err), "passEnv[%zu]: not "
			    "NAME=VALUE", i);
			goto bad;
		}
		memcpy(name, asked[i], n);
		name[n] = '\0';
		if (sv_env_injection(name)) {
			snprintf(err, sizeof(err), "%s: an injection variable "
			    "(R-L9) is never passed into a sandbox", name);
			goto bad;
		}
		v = env_set(v, asked[i]);
		log_info("passing %s into the sandbox on purpose", name);
	}
	strv_free(asked);
	strv_free(caller);
	return v;
bad:
	sv_client_error(c, id, RPC_INVALID_PARAMS, err);
	strv_free(asked);
	strv_free(caller);
	strv_free(v);
	return NULL;
}

void
sv_session_launch(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	char		*origin = NULL, *origin_changed = NULL;
	struct sv_session *s;
	struct sv_plan_ctx ctx;
	struct sv_spec	 spec;
	char		 err[512], *path, *argv[2], **pass, **ownp;
	const char	*unconfined = NULL;
	enum sv_backend	 want;
	size_t		 i;
	int		 fd;
	struct settings	*own = NULL;
	const struct settings *set;
	char		*home = NULL;

	if (sv_spec_from_json(param(params, "spec"), &spec, err,
	    sizeof(err)) == -1) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, err);
		return;
	}
	sv_spec_canonical(&spec);
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
	/* issue 11: an entry that cannot be applied stops the launch. */
	for (i = 0; spec.deny_read && spec.deny_read[i]; i++)
		if (deny_entry_bad(c, id, "denyRead", i, spec.deny_read[i]))
			goto bad_spec;
	for (i = 0; spec.deny_write && spec.deny_write[i]; i++)
		if (deny_entry_bad(c, id, "denyWrite", i, spec.deny_write[i]))
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
	if (sv_session_find(spec.session_id) != NULL) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "sessionId: a session with this id exists");
		strv_free(pass);
		goto bad_spec;
	}

	/* R-H4, R-H5: which backend. */
	want = spec.backend != NULL ? sv_backend_parse(spec.backend) :
	    SV_BACKEND_NATIVE;
	if (want == SV_BACKEND_MICROVM) {
		sv_client_error(c, id, RPC_SANDBOX_ERROR, "backend microvm "
		    "was asked for and this host cannot boot a VM");
		strv_free(pass);
		goto bad_spec;
	}
	if (spec.backend != NULL && want == SV_BACKEND_NONE &&
	    strcmp(spec.backend, "none") == 0) {
		/* R-C5: managed policy wins over the caller's wish. */
		if (settings_forbid_unconfined(set, err,
		    sizeof(err)) != NULL) {
			char msg[600];

			snprintf(msg, sizeof(msg), "backend \"none\" "
			    "(--sandbox off) refused: %s", err);
			sv_client_error(c, id, RPC_SANDBOX_ERROR, msg);
			strv_free(pass);
			goto bad_spec;
		}
		want = SV_BACKEND_NONE;
		unconfined = "the client asked for it (--sandbox off)";
	} else if (!ssandbox_on) {
		want = SV_BACKEND_NONE;
		unconfined = "airlockd runs with --sandbox off (or "
		    "AIRLOCK_SANDBOX=off)";
	} else if (!set->sandbox_enabled) {
		want = SV_BACKEND_NONE;
		unconfined = "sandbox.enabled is false in the settings";
	} else if (sprobe->ptrace_blocked) {
		/* Every write would fail: refuse, never run unconfined. */
		snprintf(err, sizeof(err), "cannot start a sandbox: %s",
		    sprobe->reasons[0]);
		sv_client_error(c, id, RPC_SANDBOX_ERROR, err);
		strv_free(pass);
		goto bad_spec;
	} else if (!sprobe->available) {
		if (set->fail_if_unavailable) {
			snprintf(err, sizeof(err), "no OS-native agent "
			    "sandbox on this host (%s) and "
			    "sandbox.failIfUnavailable is set",
			    sprobe->install_hint);
			sv_client_error(c, id, RPC_SANDBOX_ERROR, err);
			strv_free(pass);
			goto bad_spec;
		}
		want = SV_BACKEND_NONE;
		unconfined = "no OS-native agent sandbox on this host";
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
	s->unconfined = unconfined;
	s->owner = c;
	s->link.fd = -1;
	s->launcher_pid = -1;
	s->init_pidfd = -1;
	for (i = 0; i < LISTEN_MAX; i++)
		s->listen_fd[i] = -1;
	s->next = sessions;
	sessions = s;
	s->caller_env = json_strv(param(params, "env"));
	s->pass_env = pass;
	s->own_settings = own;
	s->home = home != NULL ? home : xstrdup(caller_home(getuid()));
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
		    s->spec.binds[0].host_path : s->home);
		s->plan.env_base = strv_add(NULL, "AIRLOCK_SANDBOX=none");
		{
			char *kv;

			xasprintf(&kv, "HOME=%s", s->home);
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
	ctx.settings = s->own_settings != NULL ? s->own_settings : ssettings;
	ctx.home = s->home;
	ctx.uid = getuid();
	ctx.gid = getgid();
	ctx.with_proxy = sv_daemon_up(SV_DAEMON_PROXYD);
	ctx.with_gateway = sv_daemon_up(SV_DAEMON_GATEWAYD);
	ctx.bpf = bpf;
	ctx.bpf_len = bpf_len;
	ctx.own_paths = ownp = own_paths();
	/* A shared airlockd: the caller's settings file is airlock's own
	 * too. */
	if ((path = (char *)json_get_str(params, "settingsFile")) != NULL &&
	    (path = realpath(path, NULL)) != NULL) {
		ctx.own_paths = ownp = strv_add(ownp, path);
		free(path);
	}
	for (i = 0; s->caller_env != NULL && s->caller_env[i] != NULL; i++)
		if (strncmp(s->caller_env[i], "PATH=", 5) == 0)
			ctx.caller_path = s->caller_env[i] + 5;
	/* The file tools' helper, bound by its canonical path. */
	if ((path = sv_sibling("airlock-fs")) != NULL) {
		ctx.fs_helper = realpath(path, NULL);
		free(path);
	}
	i = sv_plan_build(&s->spec, &ctx, &s->plan, err, sizeof(err)) == -1;
	strv_free(ownp);
	free((char *)ctx.fs_helper);
	if (i) {
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

static int
pipe_fd(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

void
sv_session_exec(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s;
	struct sv_exec	*x;
	struct msgbuf	 b;
	char		**argv, **xenv, **envp, err[512];
	const char	*cwd, *jv;
	const struct json *t = NULL;
	int		 e = 0, pipes, tty = 0, pfd[3] = { -1, -1, -1 };
	uint32_t	 rows = 0, cols = 0;

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
	/*
	 * "stdio":"pipes": the client passed three pipe ends with this
	 * request (stdin's read end, stdout's and stderr's write ends) and
	 * the output goes there instead of into events; "tty" asks for a
	 * terminal inside.  "output":"text" puts text in the events.
	 */
	pipes = (jv = json_get_str(params, "stdio")) != NULL &&
	    strcmp(jv, "pipes") == 0;
	if (pipes && (sv_client_take_fds(c, pfd, 3) == -1 ||
	    !pipe_fd(pfd[0]) || !pipe_fd(pfd[1]) || !pipe_fd(pfd[2]))) {
		if (pfd[0] != -1)
			for (e = 0; e < 3; e++)
				close(pfd[e]);
		strv_free(argv);
		strv_free(xenv);
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "stdio: \"pipes\" needs three pipes passed with the "
		    "request");
		return;
	}
	if ((t = param(params, "tty")) != NULL && pipes) {
		const struct json *r = json_get(t, "rows");
		const struct json *k = json_get(t, "cols");

		tty = 1;
		rows = r != NULL && r->is_int ? (uint32_t)r->integer : 24;
		cols = k != NULL && k->is_int ? (uint32_t)k->integer : 80;
	}
	t = NULL;
	cwd = json_get_str(params, "cwd");
	if (cwd == NULL)
		cwd = s->plan.workdir;
	envp = sv_env_build(s->caller_env, s->plan.env_base, xenv);
	for (e = 0; s->pass_env && s->pass_env[e]; e++)
		envp = env_set(envp, s->pass_env[e]);
	e = 0;

	x = xcalloc(1, sizeof(*x));
	x->s = s;
	x->id = ++s->next_exec;
	x->out.fd = x->err.fd = x->in.fd = -1;
	x->out.dst = x->err.dst = x->in.dst = x->stdin_fd = -1;
	if (pipes) {
		x->stdin_fd = pfd[0];
		x->out.dst = pfd[1];
		x->err.dst = pfd[2];
		x->pty = tty && s->backend != SV_BACKEND_NONE;
	}
	jv = json_get_str(params, "output");
	x->text = jv != NULL && strcmp(jv, "text") == 0;
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
			jgen_kbool(j, "tty", x->pty);
			jgen_obj_close(j);
			buf = jgen_buf(j, &len);
			sv_client_result(c, id, buf, len);
			jgen_free(j);
		}
	} else {
		msgbuf_init(&b, pipes ? MSG_EXEC_IO : MSG_EXEC);
		msg_put_u32(&b, x->id);
		if (pipes)
			msg_put_u32(&b, x->pty ? EXEC_F_PTY : 0);
		msg_put_str(&b, cwd);
		msg_put_strv(&b, argv);
		msg_put_strv(&b, envp);
		if (pipes) {
			msg_put_u32(&b, rows);
			msg_put_u32(&b, cols);
		}
		x->reply_id = dup_id(id);
		if (msg_send(&s->link, &b, &x->stdin_fd, pipes) == -1)
			session_kill(s, "cannot send to the launcher");
		msgbuf_free(&b);
	}
	strv_free(argv);
	strv_free(xenv);
	strv_free(envp);
}

/*
 * airlockd's own command in a client's session (the file tools,
 * sv_fs.c): like sandbox.exec with pipes, but stdin is in_fd, stdout and
 * stderr go to out_fd, and nothing reaches the event stream; done gets
 * the wait status (-1: the session went away) once it exited and its
 * output is closed.  NULL after answering the client with the error.
 */
struct sv_session *
sv_session_helper(struct sv_client *c, const struct json *id,
    const struct json *params, char *const argv[], int in_fd, int out_fd,
    sv_helper_done done, void *arg)
{
	struct sv_session *s;
	struct sv_exec	*x;
	struct msgbuf	 b;
	char		**envp, err[512];
	int		 e = 0;

	if ((s = session_param(c, id, params)) == NULL ||
	    (s->state != ST_WARM && s->state != ST_ACTIVE)) {
		if (s != NULL)
			sv_client_error(c, id, RPC_SANDBOX_ERROR, s->state ==
			    ST_CREATED ? "the sandbox is not ready" :
			    "the sandbox is not running");
		close(in_fd);
		close(out_fd);
		return NULL;
	}
	x = xcalloc(1, sizeof(*x));
	x->s = s;
	x->id = ++s->next_exec;
	x->out.fd = x->err.fd = x->in.fd = -1;
	x->in.dst = -1;
	x->stdin_fd = in_fd;
	x->out.dst = out_fd;
	if ((x->err.dst = fcntl(out_fd, F_DUPFD_CLOEXEC, 0)) == -1) {
		close(in_fd);
		close(out_fd);
		free(x);
		sv_client_error(c, id, RPC_INTERNAL_ERROR, "fcntl");
		return NULL;
	}
	x->next = s->execs;
	s->execs = x;
	set_state(s, ST_ACTIVE);
	envp = sv_env_build(NULL, s->plan.env_base, NULL);
	if (s->backend == SV_BACKEND_NONE) {
		if (host_exec(x, argv, s->plan.workdir, envp, err, sizeof(err),
		    &e) == -1) {
			x->done = 1;
			update_active(s);
			strv_free(envp);
			sv_client_error(c, id, e == ENOENT ? -32010 : -32011,
			    err);
			return NULL;
		}
		x->helper_done = done;
		x->helper_arg = arg;
	} else {
		msgbuf_init(&b, MSG_EXEC_IO);
		msg_put_u32(&b, x->id);
		msg_put_u32(&b, 0);
		msg_put_str(&b, s->plan.workdir);
		msg_put_strv(&b, (char **)argv);
		msg_put_strv(&b, envp);
		msg_put_u32(&b, 0);
		msg_put_u32(&b, 0);
		/* From here on, done is called whatever happens. */
		x->helper_done = done;
		x->helper_arg = arg;
		if (msg_send(&s->link, &b, &x->stdin_fd, 1) == -1)
			session_kill(s, "cannot send to the launcher");
		msgbuf_free(&b);
	}
	strv_free(envp);
	return s;
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

/* sandbox.resize: the window size of an exec's terminal (its SIGWINCH). */
void
sv_session_resize(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session *s;
	const struct json *jx = param(params, "execId");
	const struct json *r = param(params, "rows");
	const struct json *k = param(params, "cols");
	struct sv_exec	*x;
	struct winsize	 ws;

	if ((s = session_param(c, id, params)) == NULL)
		return;
	if (jx == NULL || !jx->is_int ||
	    (x = exec_find(s, (uint32_t)jx->integer)) == NULL || x->done ||
	    !x->pty || x->out.fd == -1) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "execId: no running exec with a terminal");
		return;
	}
	if (r == NULL || !r->is_int || k == NULL || !k->is_int ||
	    r->integer < 0 || r->integer > 65535 || k->integer < 0 ||
	    k->integer > 65535) {
		sv_client_error(c, id, RPC_INVALID_PARAMS,
		    "rows, cols: integers 0..65535");
		return;
	}
	memset(&ws, 0, sizeof(ws));
	ws.ws_row = (unsigned short)r->integer;
	ws.ws_col = (unsigned short)k->integer;
	/* The kernel sends SIGWINCH to the terminal's foreground group. */
	if (ioctl(x->out.fd, TIOCSWINSZ, &ws) == -1)
		log_warn("session %s: TIOCSWINSZ", s->id);
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
