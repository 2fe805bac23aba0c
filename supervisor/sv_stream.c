// SPDX-License-Identifier: ISC
/*
 * An exec's output streams and its exit: events mode (stdout/stderr
 * events) or pipe mode (`airlock run`: spliced into the client's own
 * pipes), flow control back to the command, the output cap, the exit
 * event after the last output, the per-exec timeout.
 *
 * Untrusted: every byte a command writes.
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

#include <event2/buffer.h>
#include <event2/event.h>

#include "common/host/paths.h"
#include "common/host/wsorigin.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"
#include "supervisor/gwrepo.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"
#include "supervisor/sv_sess.h"

static void	exec_maybe_done(struct sv_exec *);

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

void
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
void
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

/* SIGKILL to one exec's process group. */
void
exec_kill(struct sv_exec *x)
{
	struct msgbuf	b;

	if (x->s->backend == SV_BACKEND_NONE || x->unsandboxed) {
		if (x->pid > 0)
			(void)kill(-x->pid, SIGKILL);
		return;
	}
	msgbuf_init(&b, MSG_EXEC_SIGNAL);
	msg_put_u32(&b, x->id);
	msg_put_u32(&b, SIGKILL);
	(void)msg_send(&x->s->link, &b, NULL, 0);
	msgbuf_free(&b);
}

/* ---- sandbox.input: bytes for an exec's stdin or terminal ---- */

void
input_close(struct sv_exec *x)
{
	if (x->inev != NULL) {
		event_free(x->inev);
		x->inev = NULL;
	}
	if (x->input_fd != -1) {
		close(x->input_fd);
		x->input_fd = -1;
	}
	if (x->inbuf != NULL) {
		evbuffer_free(x->inbuf);
		x->inbuf = NULL;
	}
}

static void
input_writable(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	exec_input_flush(arg);
}

/*
 * Write what sandbox.input queued, as far as the pipe or terminal takes
 * it; the rest waits for it to be writable.  A terminal's input goes to
 * a copy of its master (the output stream owns the other).
 */
void
exec_input_flush(struct sv_exec *x)
{
	int	n;

	if (x->done || x->inbuf == NULL)
		return;
	if (x->input_fd == -1 && x->pty) {
		if (x->out.fd == -1)
			return;		/* not started yet */
		if ((x->input_fd = fcntl(x->out.fd, F_DUPFD_CLOEXEC, 0)) ==
		    -1)
			return;
		(void)fcntl(x->input_fd, F_SETFL, O_NONBLOCK);
	}
	if (x->input_fd == -1)
		return;
	while (evbuffer_get_length(x->inbuf) > 0) {
		n = evbuffer_write(x->inbuf, x->input_fd);
		if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
			if (x->inev == NULL)
				x->inev = event_new(sbase, x->input_fd,
				    EV_WRITE, input_writable, x);
			event_add(x->inev, NULL);
			return;
		}
		if (n <= 0) {	/* the command closed its stdin */
			evbuffer_drain(x->inbuf,
			    evbuffer_get_length(x->inbuf));
			break;
		}
	}
	if (x->in_eof && !x->pty)
		input_close(x);
}

void
exec_free(struct sv_exec *x)
{
	if (x->helper_done != NULL)
		x->helper_done(x->helper_arg, -1);
	stream_close(&x->out);
	stream_close(&x->err);
	stream_close(&x->in);
	if (x->stdin_fd != -1)
		close(x->stdin_fd);
	input_close(x);
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

void
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
	input_close(x);
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
	/* R-C4: how it ran, and what it was refused. */
	jgen_kbool(j, "sandboxed", !x->unsandboxed &&
	    x->s->backend != SV_BACKEND_NONE);
	jgen_kbool(j, "sandboxEnabled", ssandbox_on &&
	    (x->s->own_settings != NULL ? x->s->own_settings :
	    ssettings)->sandbox_enabled);
	jgen_kbool(j, "dangerouslyDisableSandbox", x->unsandboxed);
	jgen_kstr(j, "backend", x->unsandboxed ? "none" :
	    sv_backend_name(x->s->backend));
	jgen_kint(j, "violations", x->s->nviolations - x->viol_start);
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

void
exec_exited(struct sv_exec *x, int status)
{
	x->exited = 1;
	x->status = status;
	exec_maybe_done(x);
}

struct sv_exec *
exec_find(struct sv_session *s, uint32_t id)
{
	struct sv_exec *x;

	for (x = s->execs; x != NULL; x = x->next)
		if (x->id == id)
			return x;
	return NULL;
}

void
exec_timeout_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_exec	*x = arg;
	struct sv_session *s = x->s;

	(void)fd;
	(void)ev;
	if (x->done)
		return;
	event_killed(s, x, "timeout");
	/* An exec's own timeoutSec ends that command, its process group:
	 * the session stays warm for the next one. */
	if (x->own_timeout) {
		exec_kill(x);
		return;
	}
	/* The session's limit, the whole session: "leaves no process
	 * behind" includes what the command started in the background. */
	session_kill(s, "timeout");
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void
exec_timeout_arm(struct sv_exec *x, uint64_t ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000 };

	if (x->timeout == NULL)
		x->timeout = evtimer_new(sbase, exec_timeout_cb, x);
	x->deadline_ms = now_ms() + ms;
	evtimer_add(x->timeout, &tv);
}

/* R-S1: a suspended session's clock does not run. */
void
exec_timeout_pause(struct sv_exec *x)
{
	uint64_t now = now_ms();

	if (x->timeout == NULL || x->done ||
	    !evtimer_pending(x->timeout, NULL))
		return;
	evtimer_del(x->timeout);
	x->left_ms = x->deadline_ms > now ? x->deadline_ms - now : 0;
	x->tpaused = 1;
}

void
exec_timeout_resume(struct sv_exec *x)
{
	if (!x->tpaused)
		return;
	x->tpaused = 0;
	if (!x->done)
		exec_timeout_arm(x, x->left_ms);
}
