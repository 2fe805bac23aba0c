// SPDX-License-Identifier: ISC
/*
 * `airlock run`: one command in one sandbox, through airlockd's client
 * socket like any other client (the desktop app uses the same methods).
 * The command's stdout and stderr pass through byte for byte; its exit
 * status is ours; 125 means the sandbox could not be built, with one line
 * on stderr saying why.
 */
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_policy.h"
#include "client/gitorigin.h"
#include "common/acpframe.h"
#include "common/host/paths.h"
#include "common/json.h"
#include "common/log.h"
#include "common/termfilter.h"
#include "common/vis.h"
#include "common/xmalloc.h"
#include "policy/domain.h"

extern char **environ;

#define EXIT_SANDBOX	125
#define EXIT_CANNOT_RUN	126
#define EXIT_NOT_FOUND	127

/*
 * Defaults that a real agent run does not hit (docs/LIMITS in the man
 * page): a day of wall time, 4096 processes, 16 GiB of output per
 * stream, and three quarters of the machine's memory.
 */
#define RUN_DEFAULT_TIMEOUT	(24 * 3600)
#define RUN_DEFAULT_PIDS	4096
/* The output passes through, nothing is held: a cap for runaways only. */
#define RUN_DEFAULT_OUTPUT	(16ULL << 30)

struct run_state {
	FILE	*events;
	int	 exit_code;
	int	 done;
	long	 exec_id;
	int	 killed;
	struct {			/* violations by class, for the */
		char	 action[40];	/* summary after the run */
		long	 count;
	}	 viol[16];
	size_t	 nviol;
	char	**opened;		/* built-in write rules that
					   settings' allowWrite opened */
};

/* Count one violation event by its action (the summary's classes). */
static void
violation_count(struct run_state *st, const char *action)
{
	size_t	i;

	if (action == NULL)
		action = "other";
	for (i = 0; i < st->nviol; i++)
		if (strcmp(st->viol[i].action, action) == 0)
			break;
	if (i == st->nviol) {
		if (st->nviol == sizeof(st->viol) / sizeof(st->viol[0]))
			i--;		/* the last slot takes the rest */
		else {
			snprintf(st->viol[i].action,
			    sizeof(st->viol[i].action), "%s", action);
			st->nviol++;
		}
	}
	st->viol[i].count++;
}

/*
 * The built-in write protections settings' allowWrite opened on purpose
 * (names from airlockd's own table).
 */
static void
opened_say(const struct run_state *st)
{
	size_t	i;

	for (i = 0; st->opened != NULL && st->opened[i] != NULL; i++)
		fprintf(stderr, "airlock: note: settings' allowWrite opened "
		    "the built-in write protection of \"%s\" for this run\n",
		    st->opened[i]);
}

/* After the run: one line per class with its count, on stderr. */
static void
violation_summary(const struct run_state *st)
{
	size_t	i;

	if (st->nviol == 0)
		return;
	fprintf(stderr, "airlock: the sandbox refused:\n");
	for (i = 0; i < st->nviol; i++)
		fprintf(stderr, "airlock:   %-20s %ld\n",
		    vis(st->viol[i].action), st->viol[i].count);
}


static const char usage_text[] =
"usage: airlock run [options] [--] CMD [ARG...]\n"
"  --workspace DIR       the workspace (default: the top of the git\n"
"                        repository the caller is in, else the cwd)\n"
"  --mode chat|plan|review|orchestrate\n"
"  --bind PATH, --ro-bind PATH       bind a host path (writable, read-only)\n"
"  --bind-try PATH, --ro-bind-try PATH  the same, only if PATH exists\n"
"  --deny-read PATH, --deny-write PATH  paths or globs, added to the sets\n"
"  --network on|off      --allow-domain PATTERN\n"
"  --timeout DURATION    (s, m, h; default 24h)  --kill-after DURATION\n"
"  --memory SIZE         (K, M, G)   --pids N   --output-limit SIZE\n"
"  --env NAME[=VALUE]    pass one variable on purpose\n"
"  -t, -T                a terminal inside: force it, or never\n"
"  --sandbox on|off      --settings FILE   --origin URL\n"
"  --socket PATH         a shared airlockd (also AIRLOCK_SOCKET)\n"
"  --events FILE         the session's events, one JSON object a line\n"
"  --conversation ID --agent A  run as agent A of a provisioned conversation\n"
"                        (mounts: its private dir, the conversation's repos/)\n"
"  --no-policy-check     do not judge the command line first\n"
"  --quiet               no summary of refusals afterwards\n"
"  -h, --help\n";

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "airlock run: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(airlock run --help for the options)\n");
	exit(2);
}

/* 123, 123K/M/G (binary), optional "iB"/"B"; > 0. */
static int
parse_size(const char *s, uint64_t *out)
{
	char		*end;
	unsigned long long v;
	int		 shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case 't': case 'T':
		shift = 40;
		break;
	}
	if (shift != 0) {
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
	}
	if (*end == 'B')
		end++;
	if (*end != '\0' || v == 0 || v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

/* 90, 90s, 15m, 2h; > 0 and at most a year. */
static int
parse_duration(const char *s, unsigned long *out)
{
	char		*end;
	unsigned long	 v, mul = 1;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || end == s)
		return -1;
	if (*end == 's')
		end++;
	else if (*end == 'm')
		mul = 60, end++;
	else if (*end == 'h')
		mul = 3600, end++;
	if (*end != '\0' || v == 0 || v > 366UL * 86400 / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static int
parse_count(const char *s, unsigned long *out, unsigned long max)
{
	char	*end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno != 0 || *end != '\0' || *out == 0 || *out > max ? -1 : 0;
}

static int
one_of(const char *v, const char *const *set)
{
	for (; *set != NULL; set++)
		if (strcmp(v, *set) == 0)
			return 1;
	return 0;
}

static int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t	n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * What airlockd held when the sandbox ended: a commit of a protected
 * path (the ref put back, the commit kept) or an index entry restored.
 * Said whether --quiet or not: the user's repository changed.
 */
static void
held_say(const struct json *ev)
{
	const char	*kind = json_get_str(ev, "kind");
	const char	*repo = json_get_str(ev, "repository");
	const char	*ref = json_get_str(ev, "ref");
	const char	*path = json_get_str(ev, "path");
	const char	*take = json_get_str(ev, "take");

	if (kind == NULL || path == NULL)
		return;
	if (strcmp(kind, "index") == 0)
		fprintf(stderr, "airlock: restored the index entry of %s in "
		    "%s: staged inside the sandbox, a protected path\n",
		    vis(path), vis(repo));
	else if (take != NULL)
		fprintf(stderr, "airlock: held %s of %s: it commits %s, a "
		    "protected path; the commit is kept, to take it: %s\n",
		    vis(ref), vis(repo), vis(path), vis(take));
	else
		fprintf(stderr, "airlock: put back %s of %s: it named a "
		    "commit of %s, a protected path\n", vis(ref), vis(repo),
		    vis(path));
}

static void
on_event(const struct json *ev, void *arg)
{
	struct run_state *st = arg;
	const char	*type = json_get_str(ev, "type");
	const struct json *x, *code;
	struct jgen	*j;
	const char	*buf;
	size_t		 len;

	if (type == NULL)
		return;
	if (st->events != NULL) {
		j = jgen_new();
		jgen_value(j, ev);
		buf = jgen_buf(j, &len);
		fwrite(buf, 1, len, st->events);
		fputc('\n', st->events);
		fflush(st->events);
		jgen_free(j);
	}
	x = json_get(ev, "execId");
	if (strcmp(type, "exit") == 0 && x != NULL && x->is_int &&
	    x->integer == st->exec_id) {
		code = json_get(ev, "exitCode");
		st->exit_code = code != NULL && code->is_int ?
		    (int)code->integer : 255;
		st->done = 1;
	} else if (strcmp(type, "violation") == 0) {
		violation_count(st, json_get_str(ev, "action"));
		if ((buf = json_get_str(ev, "action")) != NULL &&
		    strcmp(buf, "git-origin-changed") == 0) {
			const char *t = json_get_str(ev, "target");

			fprintf(stderr, "airlock: the workspace's origin is "
			    "now %s; pushes still go only to the repository "
			    "recorded the first time airlock ran here "
			    "(--origin changes it)\n", vis(t));
		}
	} else if (strcmp(type, "rules-opened") == 0 &&
	    (x = json_get(ev, "rules")) != NULL && x->type == JSON_ARRAY &&
	    st->opened == NULL) {
		for (size_t i = 0; i < x->n; i++)
			if (x->items[i]->type == JSON_STRING)
				st->opened = strv_add(st->opened,
				    x->items[i]->str);
		opened_say(st);
	} else if (strcmp(type, "held") == 0) {
		held_say(ev);
	} else if (strcmp(type, "killed") == 0) {
		const char *reason = json_get_str(ev, "reason");

		st->killed = 1;
		if (reason == NULL || strcmp(reason, "manual") != 0)
			fprintf(stderr, "airlock: the sandbox was killed "
			    "(%s)\n", vis(reason));
	}
}

/*
 * `git config --get remote.origin.url` of the workspace, asked while
 * airlockd starts (git's own start-up is the slowest step of a cold
 * run): origin_ask() starts it, origin_read() waits for the answer, the
 * URL or NULL.
 */
struct origin_query {
	pid_t	pid;
	int	fd;
};

static void
origin_ask(const char *ws, struct origin_query *q)
{
	int	 p[2];

	q->pid = -1;
	q->fd = -1;
	if (pipe2(p, O_CLOEXEC) == -1)
		return;
	if ((q->pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (q->pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		dup2(p[1], 1);
		if (devnull != -1)
			dup2(devnull, 2);
		execlp("git", "git", "-C", ws, "config", "--get",
		    "remote.origin.url", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	q->fd = p[0];
}

static char *
origin_read(struct origin_query *q)
{
	char	 buf[1024];
	ssize_t	 n;
	size_t	 len = 0;
	int	 status;

	if (q->pid == -1)
		return NULL;
	while (len < sizeof(buf) - 1 &&
	    (n = read(q->fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(q->fd);
	while (waitpid(q->pid, &status, 0) == -1 && errno == EINTR)
		;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	buf[len] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || len == 0)
		return NULL;
	return xstrdup(buf);
}

/* ~ and ~/x against the caller's $HOME; a relative path against the cwd. */
static char *
expand_path(const char *p)
{
	const char	*home;
	char		 cwd[PATH_MAX], *r;

	if (p[0] == '~' && (p[1] == '\0' || p[1] == '/')) {
		if ((home = getenv("HOME")) == NULL || home[0] != '/') {
			fprintf(stderr, "airlock: %s: $HOME is not set\n", p);
			exit(EXIT_SANDBOX);
		}
		xasprintf(&r, "%s%s", home, p + 1);
		return r;
	}
	if (p[0] == '/')
		return xstrdup(p);
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		fprintf(stderr, "airlock: getcwd: %s\n", strerror(errno));
		exit(EXIT_SANDBOX);
	}
	xasprintf(&r, "%s/%s", cwd, p);
	return r;
}

/*
 * A writable bind named inside the workspace through a symbolic link
 * (one an agent may have planted there) that leads outside it would make
 * the link's target writable: refused with the reason, as srt skips such
 * a write path.  Binding the target by its own name says it is meant.
 */
static int
bind_link_check(const char *path, const char *ws)
{
	char	resolved[PATH_MAX], *abs = expand_path(path);
	size_t	n = strlen(ws);
	int	rc = 0;

	airlock_path_clean(abs);
	if (strncmp(abs, ws, n) == 0 && (abs[n] == '/' || n == 1) &&
	    realpath(abs, resolved) != NULL && !(strncmp(resolved, ws, n) ==
	    0 && (resolved[n] == '\0' || resolved[n] == '/' || n == 1))) {
		fprintf(stderr, "airlock: --bind %s: a symbolic link in the "
		    "workspace to %s, outside it: refused (bind %s by its own "
		    "name to make it writable)\n", path, resolved, resolved);
		rc = -1;
	}
	free(abs);
	return rc;
}

/* A bind of a path that does not exist is an error naming it; with
 * --bind-try it is left out. */
static void
add_bind(struct jgen *j, const char *path, int ro, int try)
{
	char	resolved[PATH_MAX], *abs = expand_path(path);

	if (realpath(abs, resolved) == NULL) {
		if (try && errno == ENOENT) {
			free(abs);
			return;
		}
		fprintf(stderr, "airlock: %s %s: %s\n", ro ? "--ro-bind" :
		    "--bind", path, strerror(errno));
		exit(EXIT_SANDBOX);
	}
	free(abs);
	jgen_obj_open(j);
	jgen_kstr(j, "hostPath", resolved);
	jgen_kstr(j, "guestPath", resolved);
	jgen_kbool(j, "readOnly", ro);
	jgen_obj_close(j);
}

/*
 * R-C5: a command that will run with no sandbox says so, and why, on
 * stderr, whoever decided it (this client, a shared airlockd's flags,
 * the settings, the host); --quiet does not silence it.
 */
static void
unconfined_say(const struct json *launched)
{
	const char	*b = json_get_str(launched, "backend"), *why;

	if (b == NULL || strcmp(b, "none") != 0)
		return;
	why = json_get_str(launched, "unsandboxedReason");
	fprintf(stderr, "airlock: WARNING: running UNCONFINED, NOT "
	    "sandboxed: %s\n",
	    why != NULL ? vis(why) : "the supervisor chose no sandbox");
}

/*
 * Without --workspace: the top of the git repository the caller is in
 * (a directory holding .git, found as git finds it, upwards), else the
 * caller's directory; also when that top is $HOME or /.
 */
void
default_workspace(const char *cwd, char *ws, size_t len)
{
	char		 dir[PATH_MAX], probe[PATH_MAX + 8], *slash;
	const char	*home;

	snprintf(dir, sizeof(dir), "%s", cwd);
	for (;;) {
		snprintf(probe, sizeof(probe), "%s/.git", dir);
		if (access(probe, F_OK) == 0)
			break;
		if ((slash = strrchr(dir, '/')) == NULL || dir[0] == '\0') {
			snprintf(ws, len, "%s", cwd);
			return;
		}
		*slash = '\0';
	}
	/* A repository of the whole home or file system (dotfiles) is
	 * not a project: binding it all would be a surprise. */
	home = getenv("HOME");
	if (dir[0] == '\0' || (home != NULL && realpath(home, probe) != NULL &&
	    strcmp(probe, dir) == 0))
		snprintf(ws, len, "%s", cwd);
	else
		snprintf(ws, len, "%s", dir);
}

/* ---- the command's standard streams ---- */

struct run_io {
	int		 out, err;	/* our ends of the command's pipes */
	int		 in;		/* the write end of its stdin, or -1 */
	int		 src;		/* our stdin while it lasts, or -1 */
	char		*ibuf;		/* IBUF_SIZE, static */
	size_t		 ioff, ilen;
	int		 tty;		/* a terminal inside */
	int		 filter;	/* stdout is a terminal: filter it */
	int		 nosplice;
	struct term_filter tf;
	int		 raw;		/* our terminal is in raw mode */
	struct termios	 saved;
	const struct run_adapter *acp;	/* stdout is ACP: acp_out() */
	struct acpf	 af;
};

static struct run_io *raw_io;

/* Outside struct run_io, which is zeroed per run: a memset of 64 KiB
 * faulted in 16 pages (~20 us each on our VM) of a buffer most runs never
 * fill. */
#define IBUF_SIZE	65536
static char	 run_ibuf[IBUF_SIZE];

/* TCSANOW: a terminal that has stopped reading must not hold us. */
static void
raw_restore(void)
{
	if (raw_io != NULL && raw_io->raw) {
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &raw_io->saved);
		raw_io->raw = 0;
	}
}

/*
 * `airlock acp`: the relay inside the sandbox passes the editor only what
 * it parsed and classified, but it runs as the agent's user beside the
 * agent.  So its output is taken again here, on the host, the same way
 * (acpframe.h): only a message taken is written, as serialised here; a
 * request the relay serves itself (fs/, terminal/, unless passed through)
 * never reaches the editor however it got into the stream.
 * untrusted: the sandbox's stdout.
 */
static int
acp_out(struct run_io *io, int to, const char *buf, size_t n)
{
	const struct run_adapter *ad = io->acp;
	struct json	*m;
	const char	*method;
	char		*line, *s, why[320];
	size_t		 len, slen;
	enum acpf_kind	 k;

	acpf_feed(&io->af, buf, n);
	while ((line = acpf_next(&io->af, &len)) != NULL) {
		k = acpf_take(line, len, &m, &method, why, sizeof(why));
		if (k != ACPF_INVALID && k != ACPF_RESPONSE &&
		    ((!ad->acp_pass_fs && strncmp(method, "fs/", 3) == 0) ||
		    (!ad->acp_pass_term && strncmp(method, "terminal/",
		    9) == 0))) {
			snprintf(why, sizeof(why), "%.60s, which airlock "
			    "serves in the sandbox", method);
			json_free(m);
			k = ACPF_INVALID;
		}
		if (k == ACPF_INVALID) {
			fprintf(stderr, "airlock acp: the sandbox's output "
			    "held a line (%zu bytes) the editor must not get: "
			    "%s; dropped\n", len, why);
			continue;
		}
		s = acpf_serialise(m, &slen);
		json_free(m);
		if (write_all(to, s, slen) == -1 ||
		    write_all(to, "\n", 1) == -1) {
			free(s);
			return -1;
		}
		free(s);
	}
	return 0;
}

/* One round of a command's output to ours; -1 at its end. */
static int
pump_out(struct run_io *io, int from, int to)
{
	/* Static, not on the stack: the stack-clash probes of a 128 KiB
	 * frame touch every page of it at each start (a page fault is
	 * ~20 us on a VM), and the splice path never uses them. */
	static char buf[65536], fbuf[65536 + TF_SEQ_MAX];
	ssize_t	 n;
	size_t	 m;

	if (from == io->out && !io->filter && !io->nosplice &&
	    io->acp == NULL) {
		n = splice(from, NULL, to, NULL, 1 << 20, SPLICE_F_MOVE);
		if (n > 0)
			return 0;
		if (n == 0)
			return -1;
		if (errno == EINTR || errno == EAGAIN)
			return 0;
		if (errno != EINVAL)
			return -1;
		io->nosplice = 1;	/* a terminal, an O_APPEND file */
	}
	n = read(from, buf, sizeof(buf));
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return -1;
	/* Our reader gone (`| head`): closing our end stops the command's
	 * stream, as a pipe would have. */
	if (from == io->out && io->acp != NULL)
		return acp_out(io, to, buf, (size_t)n);
	if (from == io->out && io->filter) {
		m = tf_filter(&io->tf, buf, (size_t)n, fbuf);
		return write_all(to, fbuf, m);
	}
	return write_all(to, buf, (size_t)n);
}

/* Our stdin to the command's: read when there is room, write what fits. */
static void
pump_in(struct run_io *io, int readable)
{
	ssize_t	n;

	if (readable && io->ilen == 0) {
		n = read(io->src, io->ibuf, IBUF_SIZE);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			return;
		if (n <= 0) {
			/* End of file passed on: the command reads EOF (on
			 * a terminal, as the VEOF character would give). */
			io->src = -1;
			if (!io->tty) {
				close(io->in);
				io->in = -1;
				return;
			}
			io->ibuf[0] = 0x04;
			n = 1;
		}
		io->ioff = 0;
		io->ilen = (size_t)n;
	}
	while (io->ioff < io->ilen) {
		n = write(io->in, io->ibuf + io->ioff, io->ilen - io->ioff);
		if (n == -1 && errno == EAGAIN)
			return;
		if (n <= 0) {
			/* The command closed its stdin: stop forwarding. */
			close(io->in);
			io->in = io->src = -1;
			io->ilen = io->ioff = 0;
			return;
		}
		io->ioff += (size_t)n;
	}
	io->ilen = io->ioff = 0;
	if (io->src == -1 && !io->tty && io->in != -1) {
		close(io->in);
		io->in = -1;
	}
}

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
send_signal(struct rpc *rpc, const char *sid, long xid, int sig)
{
	char	buf[256];

	snprintf(buf, sizeof(buf), "{\"sessionId\":\"%s\",\"execId\":%ld,"
	    "\"signal\":%d}", sid, xid, sig);
	rpc_send(rpc, "sandbox.signal", buf);
}

static void
send_winsize(struct rpc *rpc, const char *sid, long xid)
{
	struct winsize	ws;
	char		buf[256];

	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == -1)
		return;
	snprintf(buf, sizeof(buf), "{\"sessionId\":\"%s\",\"execId\":%ld,"
	    "\"rows\":%u,\"cols\":%u}", sid, xid, ws.ws_row, ws.ws_col);
	rpc_send(rpc, "sandbox.resize", buf);
}

/*
 * The command runs: its output to ours, our input to it, our signals to
 * it (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, as `docker run` does);
 * a second SIGINT within a second, or --kill-after S after the first
 * forwarded signal, kills the sandbox.  Ends when the exit event has
 * come and both output pipes are at their end.  Returns the status to
 * exit with.
 */
static int
run_loop(struct rpc *rpc, struct run_state *st, struct run_io *io,
    const char *sid, int sfd, unsigned long kill_after)
{
	struct pollfd		 pfd[6];
	struct signalfd_siginfo	 si;
	double			 last_int = -10, deadline = 0;
	int			 forced = -1, deadsig = 0, n, i, timeout;

	(void)rpc_pump(rpc, 0, on_event, st);
	while (!st->done || io->out != -1 || io->err != -1) {
		n = 0;
		pfd[n].fd = rpc->fd;
		pfd[n++].events = POLLIN;
		pfd[n].fd = sfd;
		pfd[n++].events = POLLIN;
		pfd[n].fd = io->out;
		pfd[n++].events = POLLIN;
		pfd[n].fd = io->err;
		pfd[n++].events = POLLIN;
		pfd[n].fd = io->ilen == 0 && io->in != -1 ? io->src : -1;
		pfd[n++].events = POLLIN;
		pfd[n].fd = io->ilen > 0 ? io->in : -1;
		pfd[n++].events = POLLOUT;
		timeout = -1;
		if (deadline > 0) {
			double left = deadline - now_s();

			timeout = left <= 0 ? 0 : (int)(left * 1000) + 1;
		}
		if (poll(pfd, (nfds_t)n, timeout) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (deadline > 0 && now_s() >= deadline) {
			send_signal(rpc, sid, st->exec_id, SIGKILL);
			forced = 128 + deadsig;
			deadline = 0;
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR) &&
		    rpc_pump(rpc, 1, on_event, st) == -1) {
			raw_restore();
			fprintf(stderr, "airlock: airlockd: connection lost\n");
			return EXIT_SANDBOX;
		}
		if (pfd[1].revents & POLLIN &&
		    read(sfd, &si, sizeof(si)) == sizeof(si)) {
			int sig = (int)si.ssi_signo;

			if (sig == SIGWINCH) {
				if (io->tty)
					send_winsize(rpc, sid, st->exec_id);
				continue;
			}
			if (sig == SIGINT && now_s() - last_int < 1.0) {
				send_signal(rpc, sid, st->exec_id, SIGKILL);
				forced = 128 + SIGINT;
				continue;
			}
			if (sig == SIGINT)
				last_int = now_s();
			send_signal(rpc, sid, st->exec_id, sig);
			if (kill_after > 0 && deadline == 0 && forced == -1) {
				deadline = now_s() + (double)kill_after;
				deadsig = sig;
			}
		}
		for (i = 2; i <= 3; i++) {
			int *fd = i == 2 ? &io->out : &io->err;

			if (*fd == -1 || !(pfd[i].revents &
			    (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (pump_out(io, *fd, i == 2 ? STDOUT_FILENO :
			    STDERR_FILENO) == -1) {
				close(*fd);
				*fd = -1;
			}
		}
		if (pfd[4].fd != -1 && pfd[4].revents & (POLLIN | POLLHUP |
		    POLLERR))
			pump_in(io, 1);
		if (pfd[5].fd != -1 && pfd[5].revents & (POLLOUT | POLLERR))
			pump_in(io, 0);
	}
	raw_restore();
	if (!st->done) {
		fprintf(stderr, "airlock: airlockd: connection lost\n");
		return EXIT_SANDBOX;
	}
	return forced != -1 ? forced : st->exit_code;
}

static const char *const modes[] = {
	"chat", "plan", "review", "orchestrate", NULL,
};
static const char *const onoff[] = { "on", "off", NULL };

/*
 * The run options, every one of which takes a value: airlock run parses
 * them, and the adapters (claude, acp) pass them on and must find where
 * their own arguments begin.  One list, so an option added here is known
 * to all three.
 */
static const char *const run_valued[] = {
	"--workspace", "--mode", "--bind", "--ro-bind", "--bind-try",
	"--ro-bind-try", "--events", "--sandbox", "--settings", "--socket",
	"--timeout", "--memory", "--pids", "--network", "--allow-domain",
	"--deny-read", "--deny-write", "--origin", "--kill-after",
	"--output-limit", "--env", "--conversation", "--agent", NULL,
};

const char *
cli_run_valued(const char *name, size_t len)
{
	size_t	i;

	for (i = 0; run_valued[i] != NULL; i++)
		if (strlen(run_valued[i]) == len &&
		    strncmp(name, run_valued[i], len) == 0)
			return run_valued[i];
	return NULL;
}

int
cli_run_main(int argc, char **argv)
{
	return cli_run_adapter(argc, argv, NULL);
}

/*
 * The run, for `airlock run` (ad NULL) and for the adapters that launch
 * an agent the same way with their own state (`airlock claude`).
 */
int
cli_run_adapter(int argc, char **argv, const struct run_adapter *ad)
{
	const char	*workspace = NULL, *mode = "chat", *events = NULL;
	const char	*sandbox = NULL, *settings = NULL, *sock = NULL;
	const char	*origin = NULL, *seen = NULL;
	const char	*conv = NULL, *agent = NULL;
#ifdef AIRLOCK_TEST_BUILD
	const char	*unlisted = NULL;
#endif
	char		*origin_buf = NULL;
	char		**binds = NULL, **robinds = NULL, **allow = NULL;
	char		**trybinds = NULL, **tryrobinds = NULL, **envs = NULL;
	char		**deny_read = NULL, **deny_write = NULL, **extra = NULL;
	char		 ws[PATH_MAX], cwd[PATH_MAX], sid[64], err[1024];
	char		*params;
	unsigned long	 timeout = RUN_DEFAULT_TIMEOUT, pids = RUN_DEFAULT_PIDS;
	unsigned long	 kill_after = 0;
	uint64_t	 memory = 0, output = 0;
	int		 network = 1, i, code, tty = -1, pfd[6], sfd;
	int		 allow_tc;
	struct run_state st;
	static struct run_io io;	/* raw_io points here */
	struct rpc	 rpc;
	struct origin_query oq = { -1, -1 };
	int		 local = -1, no_policy_check = 0, quiet = 0;
	struct jgen	*j;
	struct json	*res;
	const struct json *xid, *passed;
	struct sysinfo	 si;
	sigset_t	 sigs;

	/* A write to a gone airlockd or reader is an error, not a death
	 * by SIGPIPE (the command's own disposition is reset inside). */
	signal(SIGPIPE, SIG_IGN);
	memset(&st, 0, sizeof(st));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		char	    name[64], *eq;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-')
			break;
		if (strcmp(a, "--no-policy-check") == 0) {
			no_policy_check = 1;
			continue;
		}
		if (strcmp(a, "--quiet") == 0) {
			quiet = 1;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage_text, stdout);
			exit(0);
		}
		if (strcmp(a, "-t") == 0 || strcmp(a, "-T") == 0) {
			tty = a[1] == 't';
			continue;
		}
		/* --flag VALUE or --flag=VALUE */
		snprintf(name, sizeof(name), "%s", a);
		if ((eq = strchr(name, '=')) != NULL) {
			*eq = '\0';
			v = a + (eq - name) + 1;
		} else if (i + 1 < argc)
			v = argv[++i];
		else
			v = NULL;
		a = name;
#define FLAG(f) (strcmp(a, f) == 0)
		if (cli_run_valued(a, strlen(a)) == NULL
#ifdef AIRLOCK_TEST_BUILD
		    && !FLAG("--test-unlisted-bind")
#endif
		    )
			usage_error("unknown option %s", a);
		if (v == NULL)
			usage_error("%s needs a value", a);
		if (FLAG("--workspace"))
			workspace = v;
		else if (FLAG("--mode")) {
			if (!one_of(v, modes))
				usage_error("--mode %s: one of chat, plan, "
				    "review, orchestrate", v);
			mode = v;
		} else if (FLAG("--bind"))
			binds = strv_add(binds, v);
		else if (FLAG("--ro-bind"))
			robinds = strv_add(robinds, v);
		else if (FLAG("--bind-try"))
			trybinds = strv_add(trybinds, v);
		else if (FLAG("--ro-bind-try"))
			tryrobinds = strv_add(tryrobinds, v);
		else if (FLAG("--events"))
			events = v;
		else if (FLAG("--sandbox")) {
			if (!one_of(v, onoff))
				usage_error("--sandbox %s: on or off", v);
			sandbox = v;
		} else if (FLAG("--settings"))
			settings = v;
		else if (FLAG("--socket"))
			sock = v;
		else if (FLAG("--timeout")) {
			if (parse_duration(v, &timeout) == -1)
				usage_error("--timeout %s: a duration such as "
				    "90, 90s, 15m or 2h", v);
		} else if (FLAG("--kill-after")) {
			if (parse_duration(v, &kill_after) == -1)
				usage_error("--kill-after %s: a duration such "
				    "as 5, 5s or 1m", v);
		} else if (FLAG("--memory")) {
			if (parse_size(v, &memory) == -1)
				usage_error("--memory %s: a size such as 512M "
				    "or 4G", v);
		} else if (FLAG("--output-limit")) {
			if (parse_size(v, &output) == -1)
				usage_error("--output-limit %s: a size such as "
				    "64M or 1G", v);
		} else if (FLAG("--pids")) {
			if (parse_count(v, &pids, 4194304) == -1)
				usage_error("--pids %s: a number of processes, "
				    "1 to 4194304", v);
		} else if (FLAG("--network")) {
			if (!one_of(v, onoff))
				usage_error("--network %s: on or off", v);
			network = strcmp(v, "on") == 0;
		} else if (FLAG("--allow-domain")) {
			char	note[320];

			allow = strv_add(allow, v);
			if (dom_pattern_note(v, note, sizeof(note)) != NULL)
				fprintf(stderr, "airlock: warning: "
				    "--allow-domain '%s' %s\n", v, note);
		}
		else if (FLAG("--deny-read"))
			deny_read = strv_add(deny_read, v);
		else if (FLAG("--deny-write"))
			deny_write = strv_add(deny_write, v);
		else if (FLAG("--origin"))
			origin = v;
		else if (FLAG("--conversation"))
			conv = v;
		else if (FLAG("--agent"))
			agent = v;
		else if (FLAG("--env")) {
			char *kv;

			if (v[0] == '\0' || v[0] == '=' ||
			    strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl"
			    "mnopqrstuvwxyz0123456789_") != strcspn(v, "="))
				usage_error("--env %s: NAME or NAME=VALUE",
				    v);
			if (strchr(v, '=') == NULL) {
				if (getenv(v) == NULL)
					usage_error("--env %s: not set in this "
					    "environment", v);
				xasprintf(&kv, "%s=%s", v, getenv(v));
			} else
				kv = xstrdup(v);
			envs = strv_add(envs, kv);
			free(kv);
		}
#ifdef AIRLOCK_TEST_BUILD
		/* Test build only (tests/tests.mk), never shipped. */
		else if (FLAG("--test-unlisted-bind"))
			unlisted = v;
#endif
#undef FLAG
	}
	if (i >= argc)
		usage_error("no command given");
	if (sock == NULL && (sock = getenv("AIRLOCK_SOCKET")) != NULL &&
	    sock[0] == '\0')
		sock = NULL;

	/*
	 * A private airlockd unless a shared one is named: whatever listens
	 * on the default socket may run with another HOME or settings.  It
	 * starts now, so that its exec, linking and probe overlap our own
	 * checks below (issue 15); a run refused before its launch just
	 * closes it (it dies with us in any case: PDEATHSIG).
	 */
	extra = rpc_private_args(sandbox, settings);
	memset(&rpc, 0, sizeof(rpc));
	rpc.fd = -1;
	rpc.private_pid = -1;
	if (sock == NULL && rpc_open_private(&rpc, extra, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "airlock: %s\n", err);
		return EXIT_SANDBOX;
	}
	/* R-C4: the command line itself, before anything starts. */
	if ((code = cli_run_guard(mode, settings, argv + i,
	    no_policy_check)) != 0) {
		rpc_close(&rpc);
		return code;
	}
	if (memory == 0 && sysinfo(&si) == 0)
		memory = (uint64_t)si.totalram * si.mem_unit / 4 * 3;
	if (getcwd(ws, sizeof(ws)) == NULL || realpath(ws, cwd) == NULL) {
		fprintf(stderr, "airlock: getcwd: %s\n", strerror(errno));
		rpc_close(&rpc);
		return EXIT_SANDBOX;
	}
	if (workspace == NULL)
		default_workspace(cwd, ws, sizeof(ws));
	else {
		char *w = expand_path(workspace);

		if (realpath(w, ws) == NULL) {
			fprintf(stderr, "airlock: workspace %s: %s\n",
			    workspace, strerror(errno));
			free(w);
			rpc_close(&rpc);
			return EXIT_SANDBOX;
		}
		free(w);
	}
	/* issue 12: a bind of / would hide the sandbox's own /dev and /proc
	 * (airlockd refuses it too); say so instead of failing inside. */
	if (strcmp(ws, "/") == 0) {
		fprintf(stderr, "airlock: workspace /: the whole filesystem "
		    "cannot be a workspace (it would hide the sandbox's own "
		    "/dev and /proc); name a directory with --workspace\n");
		rpc_close(&rpc);
		return EXIT_SANDBOX;
	}
	for (size_t k = 0; binds && binds[k]; k++)
		if (bind_link_check(binds[k], ws) == -1) {
			rpc_close(&rpc);
			return EXIT_SANDBOX;
		}
	for (size_t k = 0; trybinds && trybinds[k]; k++)
		if (bind_link_check(trybinds[k], ws) == -1) {
			rpc_close(&rpc);
			return EXIT_SANDBOX;
		}
	/* Start where the caller is when that is inside the workspace. */
	{
		size_t n = strlen(ws);

		if (!(strncmp(cwd, ws, n) == 0 && (cwd[n] == '\0' ||
		    cwd[n] == '/' || n == 1)))
			snprintf(cwd, sizeof(cwd), "%s", ws);
	}
	if (events != NULL && (st.events = fopen(events, "we")) == NULL) {
		fprintf(stderr, "airlock: %s: %s\n", events, strerror(errno));
		rpc_close(&rpc);
		return EXIT_SANDBOX;
	}
	/* The worktree's own repository for the push gateway (R-G4): the
	 * workspace's origin as it is now, before anything runs in it;
	 * asked now, read once airlockd is starting. */
	if (origin == NULL && conv == NULL &&
	    (local = gitorigin_local(ws, &origin_buf)) == -1)
		origin_ask(ws, &oq);

	if (sock != NULL && rpc_open(&rpc, sock, 0, NULL, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "airlock: %s\n", err);
		free(origin_read(&oq));
		return EXIT_SANDBOX;
	}
	/* What the config says is the user's choice only the first time
	 * (airlockd records it, issue 14); --origin is always the user's. */
	if (sock != NULL) {
		struct ucred	cr;
		socklen_t	crlen = sizeof(cr);

		if (getsockopt(rpc.fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) ==
		    -1)
			cr.pid = 0;
		fprintf(stderr, "airlock: served by the shared airlockd on %s "
		    "(pid %d)\n", sock, (int)cr.pid);
	}
	if (origin == NULL && conv == NULL)
		seen = local == 0 ? origin_buf :
		    (origin_buf = origin_read(&oq));
	snprintf(sid, sizeof(sid), "run-%d-%ld", (int)getpid(),
	    (long)time(NULL));

	/* The spec (SPEC §3), plus this client's environment, which
	 * airlockd filters through its allowlist (R-L9). */
	j = jgen_new();
	jgen_obj_open(j);
	jgen_key(j, "spec");
	jgen_obj_open(j);
	jgen_kstr(j, "sessionId", sid);
	jgen_kstr(j, "workspaceId", ws);
	jgen_kstr(j, "mode", mode);
	/* In a conversation, airlockd mounts what the conversation has
	 * (R-W4) and the agent's own directory is the working one. */
	if (conv != NULL) {
		jgen_kstr(j, "conversationId", conv);
		jgen_kstr(j, "agentId", agent != NULL ? agent : "");
	} else
		jgen_kstr(j, "guestWorkdir", ws);
	jgen_kbool(j, "networkEnabled", network);
	if (sandbox != NULL && strcmp(sandbox, "off") == 0)
		jgen_kstr(j, "backend", "none");
	jgen_key(j, "bindMounts");
	jgen_arr_open(j);
	if (conv == NULL)
		add_bind(j, ws, 0, 0);
	for (size_t k = 0; binds && binds[k]; k++)
		add_bind(j, binds[k], 0, 0);
	for (size_t k = 0; robinds && robinds[k]; k++)
		add_bind(j, robinds[k], 1, 0);
	for (size_t k = 0; trybinds && trybinds[k]; k++)
		add_bind(j, trybinds[k], 0, 1);
	for (size_t k = 0; tryrobinds && tryrobinds[k]; k++)
		add_bind(j, tryrobinds[k], 1, 1);
	jgen_arr_close(j);
	jgen_key(j, "egressAllowlist");
	jgen_arr_open(j);
	for (size_t k = 0; allow && allow[k]; k++)
		jgen_str(j, allow[k]);
	jgen_arr_close(j);
	/* Paths as the caller typed them: relative to the cwd, ~ to
	 * $HOME (issue 11: a relative entry was dropped silently). */
	jgen_key(j, "denyRead");
	jgen_arr_open(j);
	for (size_t k = 0; deny_read && deny_read[k]; k++) {
		char *a = expand_path(deny_read[k]);

		jgen_str(j, a);
		free(a);
	}
	jgen_arr_close(j);
	jgen_key(j, "denyWrite");
	jgen_arr_open(j);
	for (size_t k = 0; deny_write && deny_write[k]; k++) {
		char *a = expand_path(deny_write[k]);

		jgen_str(j, a);
		free(a);
	}
	jgen_arr_close(j);
#ifdef AIRLOCK_TEST_BUILD
	if (unlisted != NULL)
		jgen_kstr(j, "testUnlistedBind", unlisted);
#endif
	/* An agent's own state (its config dir): writable in every mode. */
	if (ad != NULL && ad->runner_state != NULL) {
		jgen_key(j, "runnerStateDirs");
		jgen_arr_open(j);
		for (size_t k = 0; ad->runner_state[k] != NULL; k++)
			jgen_str(j, ad->runner_state[k]);
		jgen_arr_close(j);
	}
	if (ad != NULL && ad->runner_private != NULL) {
		jgen_key(j, "runnerPrivateDirs");
		jgen_arr_open(j);
		for (size_t k = 0; ad->runner_private[k] != NULL; k++)
			jgen_str(j, ad->runner_private[k]);
		jgen_arr_close(j);
	}
	if (ad != NULL && ad->no_push_gateway)
		jgen_kbool(j, "pushGateway", 0);
	if (origin != NULL)
		jgen_kstr(j, "originRepo", origin);
	if (seen != NULL)
		jgen_kstr(j, "workspaceOrigin", seen);
	jgen_key(j, "limits");
	jgen_obj_open(j);
	jgen_kint(j, "timeoutSec", (long long)timeout);
	jgen_kint(j, "memoryBytes", (long long)memory);
	jgen_kint(j, "pids", (long long)pids);
	jgen_kint(j, "outputBytes", (long long)(output != 0 ? output :
	    RUN_DEFAULT_OUTPUT));
	jgen_obj_close(j);
	jgen_obj_close(j);
	jgen_key(j, "env");
	jgen_arr_open(j);
	for (char **e = environ; e != NULL && *e != NULL; e++)
		jgen_str(j, *e);
	jgen_arr_close(j);
	/* A shared airlockd serves this run with our settings and $HOME
	 * (the secret set is ours); a private one was started with them. */
	if (sock != NULL) {
		char *sf = settings != NULL ? expand_path(settings) : NULL;

		if (getenv("HOME") != NULL && getenv("HOME")[0] == '/')
			jgen_kstr(j, "home", getenv("HOME"));
		if (sf != NULL)
			jgen_kstr(j, "settingsFile", sf);
		free(sf);
	}
	jgen_key(j, "passEnv");
	jgen_arr_open(j);
	for (size_t k = 0; envs && envs[k]; k++)
		jgen_str(j, envs[k]);
	jgen_arr_close(j);
	/* Built by the exec that follows (R-R1): our exec is on its way
	 * while the sandbox is built, instead of after its answer. */
	jgen_kbool(j, "lazy", 1);
	jgen_obj_close(j);
	params = xstrndup(jgen_buf(j, NULL), SIZE_MAX);
	res = rpc_call(&rpc, "sandbox.launch", params, on_event, &st, &code,
	    err, sizeof(err));
	free(params);
	jgen_free(j);
	if (res == NULL) {
		fprintf(stderr, "airlock: the sandbox could not be built: %s\n",
		    err);
		rpc_close(&rpc);
		return EXIT_SANDBOX;
	}
	/* A native terminal never runs on the host under that label. */
	if (ad != NULL && ad->require_sandbox &&
	    json_get_str(res, "backend") != NULL &&
	    strcmp(json_get_str(res, "backend"), "none") == 0) {
		fprintf(stderr, "airlock: no sandbox here (%s): refusing to "
		    "run unconfined\n", json_get_str(res,
		    "unsandboxedReason") != NULL ? vis(json_get_str(res,
		    "unsandboxedReason")) : "backend none");
		json_free(res);
		st.exit_code = EXIT_SANDBOX;
		goto out;
	}
	unconfined_say(res);
	/* Each variable passed on purpose, named once (never its value). */
	xid = json_get(res, "allowTerminalControl");
	allow_tc = xid != NULL && xid->type == JSON_BOOL && xid->boolean;
	passed = json_get(res, "passedEnv");
	for (size_t k = 0; passed != NULL && k < passed->n; k++)
		if (passed->items[k]->type == JSON_STRING)
			fprintf(stderr, "airlock: passing %s into the "
			    "sandbox\n", passed->items[k]->str);
	json_free(res);

	/*
	 * Three pipes of ours carry the command's stdin, stdout and stderr
	 * through airlockd: every byte once, and a full pipe makes the
	 * command wait (flow control), never loses output.  A terminal
	 * inside when our stdin is one (ssh -t, docker -it).
	 */
	memset(&io, 0, sizeof(io));
	io.ibuf = run_ibuf;
	if (tty == -1)
		tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	io.tty = tty;
	io.filter = isatty(STDOUT_FILENO) && !allow_tc;
	tf_init(&io.tf);
	if (ad != NULL && ad->acp) {
		io.acp = ad;
		acpf_init(&io.af);
	}
	if (pipe2(pfd, O_CLOEXEC) == -1 || pipe2(pfd + 2, O_CLOEXEC) == -1 ||
	    pipe2(pfd + 4, O_CLOEXEC) == -1) {
		fprintf(stderr, "airlock: pipe: %s\n", strerror(errno));
		st.exit_code = EXIT_SANDBOX;
		goto out;
	}
	(void)fcntl(pfd[2], F_SETPIPE_SZ, 1 << 20);
	(void)fcntl(pfd[1], F_SETFL, O_NONBLOCK);
	io.in = pfd[1];
	io.src = STDIN_FILENO;
	io.out = pfd[2];
	io.err = pfd[4];
	{
		int	 give[3] = { pfd[0], pfd[3], pfd[5] };
		struct winsize wsz;

		j = jgen_new();
		jgen_obj_open(j);
		jgen_kstr(j, "sessionId", sid);
		if (conv == NULL)
			jgen_kstr(j, "cwd", cwd);
		jgen_kstr(j, "stdio", "pipes");
		if (tty) {
			if (ioctl(STDIN_FILENO, TIOCGWINSZ, &wsz) == -1)
				wsz.ws_row = 24, wsz.ws_col = 80;
			jgen_key(j, "tty");
			jgen_obj_open(j);
			jgen_kint(j, "rows", wsz.ws_row);
			jgen_kint(j, "cols", wsz.ws_col);
			jgen_obj_close(j);
		}
		jgen_key(j, "argv");
		jgen_arr_open(j);
		for (; i < argc; i++)
			jgen_str(j, argv[i]);
		jgen_arr_close(j);
		jgen_obj_close(j);
		res = rpc_call_fds(&rpc, "sandbox.exec", jgen_buf(j, NULL),
		    give, 3, on_event, &st, &code, err, sizeof(err));
		jgen_free(j);
		close(pfd[0]);
		close(pfd[3]);
		close(pfd[5]);
	}
	if (res == NULL) {
		/* The sandbox is built for this exec (lazy). */
		if (code == -32000)	/* RPC_SANDBOX_ERROR */
			fprintf(stderr, "airlock: the sandbox could not be "
			    "built: %s\n", err);
		else
			fprintf(stderr, "airlock: %s\n", err);
		st.exit_code = code == 0 || code == -32000 ?
		    EXIT_SANDBOX : code == -32010 ? EXIT_NOT_FOUND :
		    EXIT_CANNOT_RUN;
		goto out;
	}
	xid = json_get(res, "execId");
	st.exec_id = xid != NULL && xid->is_int ? (long)xid->integer : -1;
	/* No terminal where there is no sandbox (--sandbox off): pipes. */
	xid = json_get(res, "tty");
	io.tty = tty && xid != NULL && xid->type == JSON_BOOL && xid->boolean;
	json_free(res);

	/* Our signals come to the loop; the command gets them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGQUIT);
	sigaddset(&sigs, SIGWINCH);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	if ((sfd = signalfd(-1, &sigs, SFD_CLOEXEC)) == -1) {
		fprintf(stderr, "airlock: signalfd: %s\n", strerror(errno));
		st.exit_code = EXIT_SANDBOX;
		goto out;
	}
	if (io.tty && isatty(STDIN_FILENO) &&
	    tcgetattr(STDIN_FILENO, &io.saved) == 0) {
		struct termios raw = io.saved;

		/* Raw: Ctrl-C, Ctrl-Z and the rest reach the terminal
		 * inside as bytes; restored on every way out. */
		cfmakeraw(&raw);
		raw_io = &io;
		atexit(raw_restore);
		if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0)
			io.raw = 1;
	}
	st.exit_code = run_loop(&rpc, &st, &io, sid, sfd, kill_after);
	close(sfd);
out:
	raw_restore();
	acpf_free(&io.af);
	snprintf(ws, sizeof(ws), "{\"sessionId\":\"%s\"}", sid);
	res = rpc_call(&rpc, "sandbox.destroy", ws, on_event, &st, &code,
	    err, sizeof(err));
	json_free(res);
	rpc_close(&rpc);
	if (!quiet)
		violation_summary(&st);
	/* Said when the run starts and again here, --quiet or not. */
	opened_say(&st);
	strv_free(st.opened);
	if (st.events != NULL)
		fclose(st.events);
	strv_free(binds);
	strv_free(robinds);
	strv_free(trybinds);
	strv_free(tryrobinds);
	strv_free(envs);
	strv_free(allow);
	strv_free(deny_read);
	strv_free(deny_write);
	strv_free(extra);
	free(origin_buf);
	return st.exit_code;
}
