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
#include "client/cli_explain.h"
#include "client/cli_opt.h"
#include "client/cli_policy.h"
#include "client/gitorigin.h"
#include "common/acpframe.h"
#include "common/host/paths.h"
#include "common/host/protect.h"
#include "common/host/wsorigin.h"
#include "common/json.h"
#include "common/log.h"
#include "common/termfilter.h"
#include "common/vis.h"
#include "common/xmalloc.h"

extern char **environ;

#define EXIT_SANDBOX	125
#define EXIT_CANNOT_RUN	126
#define EXIT_NOT_FOUND	127

/* RUN_DEFAULT_*: client/cli.h (airlock settings --explain shows them). */

struct run_state {
	FILE	*events;
	int	 exit_code;
	int	 done;
	long	 exec_id;
	int	 killed;
	struct explain ex;		/* the refusals, for the summary
					   after the run */
	char	**opened;		/* built-in write rules that
					   settings' allowWrite opened */
	const char *ws;			/* the workspace, for messages */
};

/*
 * The workspace's git origin is not the one airlock recorded: said once,
 * with where the record is and the one command that accepts the new
 * origin (--origin makes a choice the record).  untrusted: the new
 * origin is the workspace's config, which the agent could write.
 */
static void
origin_changed_say(const struct run_state *st, const char *now)
{
	char	*rec = NULL, *file, *n;

	n = xstrdup(vis(now != NULL ? now : "(none)"));
	file = wsorigin_record(st->ws, &rec);
	fprintf(stderr, "airlock: this workspace's git origin is now %s, "
	    "but airlock recorded %s%s%s; pushes still go only to %s.  To "
	    "accept the new origin: airlock run --origin %s -- true\n",
	    n, rec != NULL ? rec : "no origin",
	    file != NULL ? " in " : "", file != NULL ? file : "",
	    rec != NULL ? rec : "repositories linked to the session", n);
	free(n);
	free(rec);
	free(file);
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

/* After the run: each refusal named, with its rule (cli_explain.c). */
static void
violation_summary(const struct run_state *st)
{
	explain_print(&st->ex, stderr);
}

/* airlockd's error in the words of the flags typed (cli_explain.c). */
static const char *
run_words(const char *err, const struct run_opts *o, const char *ws)
{
	static char		 out[2048];
	struct explain_fields	 f = {
		.workspace = ws, .binds = o->binds, .robinds = o->robinds,
		.trybinds = o->trybinds, .tryrobinds = o->tryrobinds,
		.allow = o->allow, .envs = o->envs,
	};

	return explain_words(err, &f, out, sizeof(out));
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
	const char	*rule = json_get_str(ev, "rule");
	char		 r[512];

	if (kind == NULL || path == NULL)
		return;
	/* A repository the judge could not reach (its walk's bound):
	 * named, for the user to check before checking it out. */
	if (strcmp(kind, "unjudged") == 0) {
		fprintf(stderr, "airlock: not judged: %s (%s): check what "
		    "was committed there before checking it out\n", vis(path),
		    rule != NULL ? vis(rule) : "");
		return;
	}
	/* An object file the judge could not verify (airlockd's words
	 * say why): moved out of the store, or removed. */
	if (strcmp(kind, "object") == 0 || strcmp(kind,
	    "object-not-removed") == 0) {
		const char *held = json_get_str(ev, "heldAs");

		if (strcmp(kind, "object-not-removed") == 0)
			fprintf(stderr, "airlock: NOT held %s of %s: %s; it "
			    "could not be moved or removed: check the "
			    "repository (git fsck) before any checkout\n",
			    vis(path), vis(repo), rule != NULL ? vis(rule) :
			    "");
		else if (held != NULL)
			fprintf(stderr, "airlock: held %s of %s: %s; moved to "
			    "%s\n", vis(path), vis(repo), rule != NULL ?
			    vis(rule) : "", vis(held));
		else
			fprintf(stderr, "airlock: held %s of %s: %s; "
			    "removed\n", vis(path), vis(repo), rule != NULL ?
			    vis(rule) : "");
		return;
	}
	/* An operation in progress written inside (a rebase, a sequence,
	 * an autostash, a bisection): taken away whole. */
	if (strcmp(kind, "state") == 0 || strcmp(kind,
	    "state-not-removed") == 0) {
		const char *held = json_get_str(ev, "heldAs");

		fprintf(stderr, "airlock: %s %s of %s: %s, written during the "
		    "run%s%s\n", strcmp(kind, "state") == 0 ? "took away" :
		    "could NOT take away", vis(path), vis(repo),
		    rule != NULL ? vis(rule) : "", held != NULL ?
		    "; kept in " : ": do not continue or abort it on the host",
		    held != NULL ? vis(held) : "");
		return;
	}
	/* A reflog entry taken out (git stash pop, @{N} and git checkout -
	 * read them as refs): kept where held says. */
	if (strcmp(kind, "reflog") == 0) {
		const char *held = json_get_str(ev, "heldAs");

		const char *at = held != NULL ? vis(held) :
		    "nowhere (it could not be kept)";

		if (ref != NULL && strcmp(ref, path) == 0)
			fprintf(stderr, "airlock: took an entry out of the "
			    "reflog %s of %s: %s; kept in %s\n", vis(ref),
			    vis(repo), rule != NULL ? vis(rule) : "", at);
		else
			fprintf(stderr, "airlock: took an entry out of the "
			    "reflog %s of %s: a checkout of it would write %s, "
			    "a protected path (%s); kept in %s\n", ref != NULL ?
			    vis(ref) : "", vis(repo), vis(path), rule != NULL &&
			    rule[0] != '\0' ? vis(rule) :
			    explain_write_group(path), at);
		return;
	}
	/* The rule: airlockd's words for a link or a .gitmodules, else
	 * the built-in group the path's name falls under. */
	snprintf(r, sizeof(r), "%s", rule != NULL ? vis(rule) :
	    explain_write_group(path));
	if (strcmp(kind, "index") == 0)
		fprintf(stderr, "airlock: restored the index entry of %s in "
		    "%s: staged inside the sandbox, a protected path (%s)\n",
		    vis(path), vis(repo), r);
	else if (take != NULL)
		fprintf(stderr, "airlock: held %s of %s: a checkout of it "
		    "would write %s, a protected path (%s); the commit is "
		    "kept, to take it: %s\n", vis(ref), vis(repo), vis(path),
		    r, vis(take));
	else
		fprintf(stderr, "airlock: put back %s of %s: a checkout of it "
		    "would write %s, a protected path (%s)\n", vis(ref),
		    vis(repo), vis(path), r);
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
		/* An origin change is no refusal: said once, not summed. */
		if ((buf = json_get_str(ev, "action")) != NULL &&
		    strcmp(buf, "git-origin-changed") == 0)
			origin_changed_say(st, json_get_str(ev, "target"));
		else
			explain_add(&st->ex, buf, json_get_str(ev, "target"),
			    json_get_str(ev, "reason") != NULL ?
			    json_get_str(ev, "reason") :
			    json_get_str(ev, "rule"));
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

/*
 * A writable bind named inside the workspace through a symbolic link
 * (one an agent may have planted there) that leads outside it would make
 * the link's target writable: refused with the reason, as srt skips such
 * a write path.  Binding the target by its own name says it is meant.
 */
static int
bind_link_check(const char *path, const char *ws)
{
	char	resolved[PATH_MAX], *abs = cli_expand_path(path);
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

/*
 * A bind is a carve-out taken by its canonical path: one that resolves
 * to another entry of a secret (the user's own ~/.ssh/known_hosts ->
 * id_rsa), or from elsewhere into one, would open what was never named.
 * Refused, naming both paths.
 */
static void
bind_secret_check(const char *flag, char *abs, const char *resolved)
{
	const char	*home = getenv("HOME"), *sec;
	char		 s[PATH_MAX];
	size_t		 i;
	int		 in_home, inside;

	airlock_path_clean(abs);
	if (strcmp(abs, resolved) == 0)
		return;
	for (i = 0; (sec = protect_secret_at(i, &in_home)) != NULL; i++) {
		if (in_home && (home == NULL || home[0] != '/'))
			continue;
		snprintf(s, sizeof(s), "%s%s%s", in_home ? home : "",
		    in_home ? "/" : "", sec);
		if (!protect_resolves_into(abs, resolved, s, &inside))
			continue;
		fprintf(stderr, "airlock: %s %s resolves to %s, %s the secret "
		    "%s: refused (a carve-out opens only what it names; bind "
		    "%s itself if that is meant)\n", flag, abs, resolved,
		    inside ? "inside" : "another entry of", s, resolved);
		exit(EXIT_SANDBOX);
	}
}

/* Is path equal to or beneath dir? */
static int
bind_under(const char *path, const char *dir)
{
	size_t	n = strlen(dir);

	return (n == 1 && dir[0] == '/') || (strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/'));
}

/*
 * A bind shown elsewhere (SRC:DST) is refused when the host
 * holds what the sandbox would show there from elsewhere: SRC / (the
 * host's /proc and /dev with it) or a path inside /dev.
 */
static void
bind_moved_check(const char *flag, const char *path, const char *dst,
    const char *resolved)
{
	if (strcmp(resolved, "/") != 0 && !bind_under(resolved, "/dev"))
		return;
	fprintf(stderr, "airlock: %s %s:%s: SRC %s the host's %s, which the "
	    "sandbox never shows (bind the directories needed one by "
	    "one)\n", flag, vis(path), vis(dst), strcmp(resolved, "/") == 0 ?
	    "/ holds" : "is inside", strcmp(resolved, "/") == 0 ?
	    "/proc, /sys and /dev" : "/dev");
	exit(EXIT_SANDBOX);
}

/*
 * A DST shares no path with the workspace or another bind: one inside
 * another bind would have its mount point made on the host, one above
 * hides it or is hidden.  Each SRC:DST against the workspace,
 * every bind at its own path (canonical) and every other DST.
 */
static void
bind_dst_overlap(const struct run_opts *o, const char *ws)
{
	char *const	*sets[4] = { o->binds, o->trybinds, o->robinds,
			    o->tryrobinds };
	char *const	*dsts[4] = { o->bind_dsts, o->trybind_dsts,
			    o->robind_dsts, o->tryrobind_dsts };
	static const char *const opts[4] = { "--bind", "--bind-try",
			    "--ro-bind", "--ro-bind-try" };
	char		 r[PATH_MAX], **seen = NULL, **said = NULL, *a, *t;
	const char	*d;
	size_t		 i, k, m, n;

	/* Each place with the user's words for it. */
	if (o->conv == NULL) {
		seen = strv_add(seen, ws);
		xasprintf(&t, "the workspace %s", vis(ws));
		said = strv_add(said, t);
		free(t);
	}
	for (i = 0; i < 4; i++)
		for (k = 0; sets[i] != NULL && sets[i][k] != NULL; k++) {
			d = dsts[i] != NULL ? dsts[i][k] : "";
			a = cli_expand_path(sets[i][k]);
			/* A -try bind of a missing SRC is left out. */
			if (realpath(a, r) == NULL && errno == ENOENT &&
			    (i == 1 || i == 3)) {
				seen = strv_add(seen, "");
				said = strv_add(said, "");
				free(a);
				continue;
			}
			seen = strv_add(seen, d[0] != '\0' ? d :
			    realpath(a, r) != NULL ? r : a);
			free(a);
			xasprintf(&t, "%s %s%s%s", opts[i], vis(sets[i][k]),
			    d[0] != '\0' ? ":" : "", d[0] != '\0' ? vis(d) : "");
			said = strv_add(said, t);
			free(t);
		}
	for (i = 0, n = o->conv == NULL; i < 4; i++)
		for (k = 0; sets[i] != NULL && sets[i][k] != NULL; k++, n++) {
			if (dsts[i] == NULL || (d = dsts[i][k])[0] == '\0' ||
			    seen[n][0] == '\0')
				continue;
			for (m = 0; seen[m] != NULL; m++) {
				if (m == n || seen[m][0] == '\0' ||
				    (!bind_under(d, seen[m]) &&
				    !bind_under(seen[m], d)))
					continue;
				fprintf(stderr, "airlock: %s %s:%s: DST %s "
				    "shares its place with %s (a destination "
				    "is neither inside nor above the workspace "
				    "or another bind)\n", opts[i],
				    vis(sets[i][k]), vis(d), vis(d), said[m]);
				strv_free(seen);
				strv_free(said);
				exit(EXIT_SANDBOX);
			}
		}
	strv_free(seen);
	strv_free(said);
}

/* A bind of a path that does not exist is an error naming it; with
 * --bind-try it is left out.  dst: where the sandbox shows it, or NULL
 * (or "") for its own path. */
static void
add_bind(struct jgen *j, const char *path, const char *dst, int ro,
    int try)
{
	char		 resolved[PATH_MAX], *abs = cli_expand_path(path);
	const char	*opt = ro ? (try ? "--ro-bind-try" : "--ro-bind") :
			    try ? "--bind-try" : "--bind";

	if (dst != NULL && dst[0] == '\0')
		dst = NULL;
	if (realpath(abs, resolved) == NULL) {
		if (try && errno == ENOENT) {
			free(abs);
			return;
		}
		fprintf(stderr, "airlock: %s %s: %s\n", opt, vis(path),
		    strerror(errno));
		free(abs);
		exit(EXIT_SANDBOX);
	}
	/* The sandbox mounts a /proc of its own (its own processes): a
	 * host /proc entry (/proc/self is the client's pid) is not there
	 * to bind onto, and the launcher would fail on it. */
	if (strncmp(resolved, "/proc", 5) == 0 && (resolved[5] == '\0' ||
	    resolved[5] == '/')) {
		if (resolved[5] == '\0')
			fprintf(stderr, "airlock: %s %s: /proc would hide the "
			    "sandbox's own /proc, which it mounts afresh for "
			    "its own processes: refused (bind a file or "
			    "directory outside /proc)\n", opt, vis(path));
		else
			fprintf(stderr, "airlock: %s %s: resolves to %s, inside "
			    "/proc, which the sandbox mounts afresh for its own "
			    "processes: refused (bind a file or directory "
			    "outside /proc)\n", opt, vis(path),
			    vis(resolved));
		free(abs);
		exit(EXIT_SANDBOX);
	}
	if (dst != NULL)
		bind_moved_check(opt, path, dst, resolved);
	bind_secret_check(opt, abs, resolved);
	free(abs);
	jgen_obj_open(j);
	jgen_kstr(j, "hostPath", resolved);
	jgen_kstr(j, "guestPath", dst != NULL ? dst : resolved);
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
	double		 intr_at;	/* raw: our last Ctrl-C key, or 0 */
	size_t		 intr_out;	/* output bytes since it */
	int		 intr_kill;	/* a second one: kill the sandbox */
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
		if (n > 0) {
			io->intr_out += (size_t)n;
			return 0;
		}
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
	io->intr_out += (size_t)n;
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

static double now_s(void);

/*
 * In raw mode Ctrl-C is a byte for the terminal inside, not a signal to
 * us: a command that traps INT would keep it for ever.  A second Ctrl-C
 * key within a second kills the sandbox, as without a terminal -- unless
 * the command answered the first with output beyond the echoed "^C" (a
 * shell's new prompt, an agent's "press Ctrl-C again"): a command that
 * answers is not stuck, and double Ctrl-C at a prompt is common.  A key
 * is a read of that one byte alone; pasted text is not counted.
 */
static void
intr_key(struct run_io *io, const char *buf, ssize_t n)
{
	double	t;

	if (!io->raw || n != 1 ||
	    (unsigned char)buf[0] != io->saved.c_cc[VINTR])
		return;
	t = now_s();
	if (io->intr_at > 0 && t - io->intr_at < 1.0 && io->intr_out <= 4)
		io->intr_kill = 1;
	io->intr_at = t;
	io->intr_out = 0;
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
		} else
			intr_key(io, io->ibuf, n);
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

			/* A terminal inside gets the new size (its kernel
			 * signals the foreground group); pipes, the signal
			 * itself, as airlock(1) says. */
			if (sig == SIGWINCH && io->tty) {
				send_winsize(rpc, sid, st->exec_id);
				continue;
			}
			if (sig == SIGWINCH) {
				send_signal(rpc, sid, st->exec_id, sig);
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
		if (io->intr_kill && forced == -1) {
			send_signal(rpc, sid, st->exec_id, SIGKILL);
			forced = 128 + SIGINT;
		}
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

static const char run_head[] =
"usage: airlock run [options] [--] CMD [ARG...]\n"
"  Run one command in a new sandbox: the workspace writable, the system\n"
"  read-only, the secret set unreadable, the network through airlock's\n"
"  proxy.  The command's output and exit status are airlock's; 125 means\n"
"  the sandbox could not be built.  See airlock(1).\n"
"options:\n";

int
cli_run_main(int argc, char **argv)
{
	return cli_run_adapter(argc, argv, NULL);
}

/* One run: what it was asked, and what it has found and opened so far. */
struct run_ctx {
	struct run_opts		 o;
	const struct run_adapter *ad;
	char			**cmd;	/* the command's argv */
	int			 ncmd;
	char			 ws[PATH_MAX], cwd[PATH_MAX], sid[64];
	char			 err[1024];
	char			**extra;	/* private airlockd's */
	char			*origin_buf;
	const char		*seen;	/* the workspace's origin */
	struct origin_query	 oq;
	int			 local;
	struct rpc		 rpc;
	struct run_state	 st;
	int			 allow_tc;
};

/*
 * A private airlockd unless a shared one is named: whatever listens on
 * the default socket may run with another HOME or settings.  It starts
 * first, so that its exec, linking and probe overlap our own checks;
 * a run refused before its launch just closes it (it dies
 * with us in any case: PDEATHSIG).
 */
static int
run_start_private(struct run_ctx *rc)
{
	if (rc->o.sock == NULL && (rc->o.sock = getenv("AIRLOCK_SOCKET")) !=
	    NULL && rc->o.sock[0] == '\0')
		rc->o.sock = NULL;
	/* microvm is the spec's backend, not airlockd's on|off switch. */
	rc->extra = rpc_private_args(rc->o.sandbox != NULL &&
	    strcmp(rc->o.sandbox, "microvm") == 0 ? NULL : rc->o.sandbox,
	    rc->o.settings);
	memset(&rc->rpc, 0, sizeof(rc->rpc));
	rc->rpc.fd = -1;
	rc->rpc.private_pid = -1;
	if (rc->o.sock == NULL && rpc_open_private(&rc->rpc, rc->extra,
	    rc->err, sizeof(rc->err)) == -1) {
		fprintf(stderr, "airlock: %s\n", rc->err);
		return -1;
	}
	return 0;
}

/* The workspace: --workspace, else the caller's repository or cwd. */
static int
run_workspace(struct run_ctx *rc)
{
	char	*w;

	if (getcwd(rc->ws, sizeof(rc->ws)) == NULL ||
	    realpath(rc->ws, rc->cwd) == NULL) {
		fprintf(stderr, "airlock: getcwd: %s\n", strerror(errno));
		return -1;
	}
	if (rc->o.workspace == NULL) {
		default_workspace(rc->cwd, rc->ws, sizeof(rc->ws));
		return 0;
	}
	w = cli_expand_path(rc->o.workspace);
	if (realpath(w, rc->ws) == NULL) {
		fprintf(stderr, "airlock: workspace %s: %s\n",
		    rc->o.workspace, strerror(errno));
		free(w);
		return -1;
	}
	free(w);
	/* A bind of / would hide the sandbox's own /dev and /proc
	 * (airlockd refuses it too); say so instead of failing inside. */
	if (strcmp(rc->ws, "/") == 0) {
		fprintf(stderr, "airlock: workspace /: the whole filesystem "
		    "cannot be a workspace (it would hide the sandbox's own "
		    "/dev and /proc); name a directory with --workspace\n");
		return -1;
	}
	return 0;
}

/*
 * The command's working directory: --chdir (a path inside the sandbox,
 * which shows host paths at their own names; relative to the caller's
 * cwd), else the caller's cwd when it is inside the workspace, else the
 * workspace.
 */
static void
run_workdir(struct run_ctx *rc)
{
	size_t	 n = strlen(rc->ws);
	char	*d;

	if (rc->o.chdir != NULL) {
		d = cli_expand_path(rc->o.chdir);
		airlock_path_clean(d);
		snprintf(rc->cwd, sizeof(rc->cwd), "%s", d);
		free(d);
		return;
	}
	if (!(strncmp(rc->cwd, rc->ws, n) == 0 && (rc->cwd[n] == '\0' ||
	    rc->cwd[n] == '/' || n == 1)))
		snprintf(rc->cwd, sizeof(rc->cwd), "%s", rc->ws);
}

/* What is checked before anything starts: the command line (R-C4), the
 * workspace, the binds, the working directory, the events file. */
static int
run_prepare(struct run_ctx *rc)
{
	struct sysinfo	si;
	int		code;
	size_t		k;

	/* R-C4: the command line itself, before anything starts. */
	if ((code = cli_run_guard_sock(rc->o.mode, rc->o.settings, rc->cmd,
	    rc->o.no_policy_check, rc->o.sock, rc->o.sandbox != NULL &&
	    strcmp(rc->o.sandbox, "off") == 0)) != 0)
		return code;
	if (rc->o.memory == 0 && sysinfo(&si) == 0)
		rc->o.memory = (uint64_t)si.totalram * si.mem_unit / 4 * 3;
	if (run_workspace(rc) == -1)
		return EXIT_SANDBOX;
	for (k = 0; rc->o.binds && rc->o.binds[k]; k++)
		if (bind_link_check(rc->o.binds[k], rc->ws) == -1)
			return EXIT_SANDBOX;
	for (k = 0; rc->o.trybinds && rc->o.trybinds[k]; k++)
		if (bind_link_check(rc->o.trybinds[k], rc->ws) == -1)
			return EXIT_SANDBOX;
	run_workdir(rc);
	rc->st.ex.network_on = rc->o.network;
	explain_bind_warn("--bind", rc->o.binds);
	explain_bind_warn("--ro-bind", rc->o.robinds);
	explain_bind_warn("--bind-try", rc->o.trybinds);
	explain_bind_warn("--ro-bind-try", rc->o.tryrobinds);
	if (rc->o.events != NULL &&
	    (rc->st.events = fopen(rc->o.events, "we")) == NULL) {
		fprintf(stderr, "airlock: %s: %s\n", rc->o.events,
		    strerror(errno));
		return EXIT_SANDBOX;
	}
	return 0;
}

/*
 * The worktree's own repository for the push gateway (R-G4): the
 * workspace's origin as it is now, before anything runs in it, asked
 * while a shared airlockd is connected.  What the config says is the
 * user's choice only the first time (airlockd records it);
 * --origin is always the user's.
 */
static int
run_connect(struct run_ctx *rc)
{
	struct ucred	cr;
	socklen_t	crlen = sizeof(cr);
	int		ask = rc->o.origin == NULL && rc->o.conv == NULL;

	if (ask && (rc->local = gitorigin_local(rc->ws, &rc->origin_buf)) ==
	    -1)
		origin_ask(rc->ws, &rc->oq);
	if (rc->o.sock != NULL && rpc_open(&rc->rpc, rc->o.sock, 0, NULL,
	    rc->err, sizeof(rc->err)) == -1) {
		fprintf(stderr, "airlock: %s\n", rc->err);
		free(origin_read(&rc->oq));
		return -1;
	}
	if (rc->o.sock != NULL) {
		if (getsockopt(rc->rpc.fd, SOL_SOCKET, SO_PEERCRED, &cr,
		    &crlen) == -1)
			cr.pid = 0;
		fprintf(stderr, "airlock: served by the shared airlockd on %s "
		    "(pid %d)\n", rc->o.sock, (int)cr.pid);
	}
	if (ask)
		rc->seen = rc->local == 0 ? rc->origin_buf :
		    (rc->origin_buf = origin_read(&rc->oq));
	rc->st.ws = rc->ws;
	snprintf(rc->sid, sizeof(rc->sid), "run-%d-%ld", (int)getpid(),
	    (long)time(NULL));
	return 0;
}

static void
spec_strs(struct jgen *j, const char *key, char *const *v, int expand)
{
	char	*a;

	jgen_key(j, key);
	jgen_arr_open(j);
	for (; v != NULL && *v != NULL; v++) {
		/* Paths as the caller typed them: relative to the cwd, ~ to
		 * $HOME: a relative entry is never dropped. */
		a = expand ? cli_expand_path(*v) : xstrdup(*v);
		jgen_str(j, a);
		free(a);
	}
	jgen_arr_close(j);
}

/* bindMounts: the workspace (outside a conversation), then the binds. */
static void
spec_binds(struct jgen *j, const struct run_ctx *rc)
{
	const struct run_opts *o = &rc->o;
	size_t	k;

	bind_dst_overlap(o, rc->ws);
	jgen_key(j, "bindMounts");
	jgen_arr_open(j);
	if (o->conv == NULL)
		add_bind(j, rc->ws, NULL, 0, 0);
	for (k = 0; o->binds && o->binds[k]; k++)
		add_bind(j, o->binds[k], o->bind_dsts[k], 0, 0);
	for (k = 0; o->robinds && o->robinds[k]; k++)
		add_bind(j, o->robinds[k], o->robind_dsts[k], 1, 0);
	for (k = 0; o->trybinds && o->trybinds[k]; k++)
		add_bind(j, o->trybinds[k], o->trybind_dsts[k], 0, 1);
	for (k = 0; o->tryrobinds && o->tryrobinds[k]; k++)
		add_bind(j, o->tryrobinds[k], o->tryrobind_dsts[k], 1, 1);
	jgen_arr_close(j);
}

/* What an adapter adds: an agent's own state, writable in every mode. */
static void
spec_adapter(struct jgen *j, const struct run_adapter *ad)
{
	size_t	k;

	if (ad == NULL)
		return;
	if (ad->runner_state != NULL)
		spec_strs(j, "runnerStateDirs", ad->runner_state, 0);
	if (ad->runner_private != NULL)
		spec_strs(j, "runnerPrivateDirs", ad->runner_private, 0);
	if (ad->no_push_gateway)
		jgen_kbool(j, "pushGateway", 0);
	for (k = 0; ad->mask_passed != NULL && ad->mask_passed[k] != NULL &&
	    ad->mask_passed[k + 1] != NULL && ad->mask_passed[k + 2] != NULL;
	    k += 3) {
		if (k == 0) {
			jgen_key(j, "maskPassed");
			jgen_arr_open(j);
		}
		jgen_obj_open(j);
		jgen_kstr(j, "name", ad->mask_passed[k]);
		jgen_kstr(j, "host", ad->mask_passed[k + 1]);
		jgen_kstr(j, "header", ad->mask_passed[k + 2]);
		jgen_obj_close(j);
		if (ad->mask_passed[k + 3] == NULL)
			jgen_arr_close(j);
	}
	if (ad->login_file != NULL && ad->login_host != NULL) {
		jgen_key(j, "claudeLogin");
		jgen_obj_open(j);
		jgen_kstr(j, "file", ad->login_file);
		jgen_kstr(j, "host", ad->login_host);
		jgen_obj_close(j);
	}
}

/* The spec (SPEC §3) of sandbox.launch. */
static void
spec_body(struct jgen *j, const struct run_ctx *rc)
{
	const struct run_opts *o = &rc->o;

	jgen_obj_open(j);
	jgen_kstr(j, "sessionId", rc->sid);
	jgen_kstr(j, "workspaceId", rc->ws);
	jgen_kstr(j, "mode", o->mode);
	/* In a conversation, airlockd mounts what the conversation has
	 * (R-W4) and the agent's own directory is the working one. */
	if (o->conv != NULL) {
		jgen_kstr(j, "conversationId", o->conv);
		jgen_kstr(j, "agentId", o->agent != NULL ? o->agent : "");
	} else
		jgen_kstr(j, "guestWorkdir", rc->ws);
	jgen_kbool(j, "networkEnabled", o->network);
	if (o->sandbox != NULL && strcmp(o->sandbox, "off") == 0)
		jgen_kstr(j, "backend", "none");
	else if (o->sandbox != NULL && strcmp(o->sandbox, "microvm") == 0)
		jgen_kstr(j, "backend", "microvm");
	spec_binds(j, rc);
	spec_strs(j, "egressAllowlist", o->allow, 0);
	spec_strs(j, "denyRead", o->deny_read, 1);
	spec_strs(j, "denyWrite", o->deny_write, 1);
#ifdef AIRLOCK_TEST_BUILD
	if (o->unlisted != NULL)
		jgen_kstr(j, "testUnlistedBind", o->unlisted);
#endif
	spec_adapter(j, rc->ad);
	if (o->origin != NULL)
		jgen_kstr(j, "originRepo", o->origin);
	if (rc->seen != NULL)
		jgen_kstr(j, "workspaceOrigin", rc->seen);
	jgen_key(j, "limits");
	jgen_obj_open(j);
	jgen_kint(j, "timeoutSec", (long long)o->timeout);
	jgen_kint(j, "memoryBytes", (long long)o->memory);
	jgen_kint(j, "pids", (long long)o->pids);
	jgen_kint(j, "outputBytes", (long long)(o->output != 0 ? o->output :
	    RUN_DEFAULT_OUTPUT));
	jgen_obj_close(j);
	jgen_obj_close(j);
}

/* sandbox.launch's params: the spec, plus this client's environment,
 * which airlockd filters through its allowlist. */
static char *
run_launch_params(const struct run_ctx *rc, const char *os)
{
	struct jgen	*j = jgen_new();
	char		*params, *sf;
	const char	*home = getenv("HOME");

	jgen_obj_open(j);
	jgen_key(j, "spec");
	spec_body(j, rc);
	spec_strs(j, "env", environ, 0);
	/* A shared airlockd serves this run with our settings and $HOME
	 * (the secret set is ours); a private one was started with them. */
	if (rc->o.sock != NULL) {
		if (home != NULL && home[0] == '/')
			jgen_kstr(j, "home", home);
		if (rc->o.settings != NULL) {
			sf = cli_expand_path(rc->o.settings);
			jgen_kstr(j, "settingsFile", sf);
			free(sf);
		}
	}
	spec_strs(j, "passEnv", rc->o.envs, 0);
	/* Built by the exec that follows (R-R1): our exec is on its way
	 * while the sandbox is built, instead of after its answer.  A
	 * profile (os) builds only the plan. */
	if (os != NULL)
		jgen_kstr(j, "os", os);
	else
		jgen_kbool(j, "lazy", 1);
	jgen_obj_close(j);
	params = xstrndup(jgen_buf(j, NULL), SIZE_MAX);
	jgen_free(j);
	return params;
}

/* sandbox.launch; 0, or the status to exit with. */
static int
run_launch(struct run_ctx *rc)
{
	struct json		*res;
	const struct json	*x, *passed;
	const char		*b, *why;
	char			*params = run_launch_params(rc, NULL);
	int			 code;
	size_t			 k;

	res = rpc_call(&rc->rpc, "sandbox.launch", params, on_event, &rc->st,
	    &code, rc->err, sizeof(rc->err));
	free(params);
	if (res == NULL) {
		fprintf(stderr, "airlock: the sandbox could not be built: %s\n",
		    run_words(rc->err, &rc->o, rc->o.conv == NULL ? rc->ws :
		    NULL));
		return EXIT_SANDBOX;
	}
	/* A native terminal never runs on the host under that label. */
	b = json_get_str(res, "backend");
	if (rc->ad != NULL && rc->ad->require_sandbox && b != NULL &&
	    strcmp(b, "none") == 0) {
		why = json_get_str(res, "unsandboxedReason");
		fprintf(stderr, "airlock: no sandbox here (%s): refusing to "
		    "run unconfined\n", why != NULL ? vis(why) :
		    "backend none");
		json_free(res);
		return EXIT_SANDBOX;
	}
	unconfined_say(res);
	x = json_get(res, "allowTerminalControl");
	rc->allow_tc = x != NULL && x->type == JSON_BOOL && x->boolean;
	/* Each variable passed on purpose, named once (never its value). */
	passed = json_get(res, "passedEnv");
	for (k = 0; passed != NULL && k < passed->n; k++)
		if (passed->items[k]->type == JSON_STRING)
			fprintf(stderr, "airlock: passing %s into the "
			    "sandbox\n", passed->items[k]->str);
	json_free(res);
	return 0;
}

/*
 * Three pipes of ours carry the command's stdin, stdout and stderr
 * through airlockd: every byte once, and a full pipe makes the command
 * wait (flow control), never loses output.  A terminal inside when our
 * stdin is one (ssh -t, docker -it).  pfd: the command's ends at 0, 3, 5.
 */
static int
run_io_setup(struct run_ctx *rc, struct run_io *io, int pfd[6])
{
	memset(io, 0, sizeof(*io));
	io->ibuf = run_ibuf;
	if (rc->o.tty == -1)
		rc->o.tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	io->tty = rc->o.tty;
	io->filter = isatty(STDOUT_FILENO) && !rc->allow_tc;
	tf_init(&io->tf);
	if (rc->ad != NULL && rc->ad->acp) {
		io->acp = rc->ad;
		acpf_init(&io->af);
	}
	if (pipe2(pfd, O_CLOEXEC) == -1 || pipe2(pfd + 2, O_CLOEXEC) == -1 ||
	    pipe2(pfd + 4, O_CLOEXEC) == -1) {
		fprintf(stderr, "airlock: pipe: %s\n", strerror(errno));
		return -1;
	}
	(void)fcntl(pfd[2], F_SETPIPE_SZ, 1 << 20);
	(void)fcntl(pfd[1], F_SETFL, O_NONBLOCK);
	io->in = pfd[1];
	io->src = STDIN_FILENO;
	io->out = pfd[2];
	io->err = pfd[4];
	return 0;
}

/* sandbox.exec's params: the command, where it starts, its terminal. */
static char *
run_exec_params(const struct run_ctx *rc)
{
	struct jgen	*j = jgen_new();
	struct winsize	 wsz;
	char		*params;
	int		 k;

	jgen_obj_open(j);
	jgen_kstr(j, "sessionId", rc->sid);
	if (rc->o.conv == NULL || rc->o.chdir != NULL)
		jgen_kstr(j, "cwd", rc->cwd);
	jgen_kstr(j, "stdio", "pipes");
	if (rc->o.tty) {
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
	for (k = 0; k < rc->ncmd; k++)
		jgen_str(j, rc->cmd[k]);
	jgen_arr_close(j);
	jgen_obj_close(j);
	params = xstrndup(jgen_buf(j, NULL), SIZE_MAX);
	jgen_free(j);
	return params;
}

/* sandbox.exec with the pipes' far ends; 0, or the status to exit with. */
static int
run_exec(struct run_ctx *rc, struct run_io *io)
{
	struct json		*res;
	const struct json	*x;
	char			*params;
	int			 pfd[6], code;

	if (run_io_setup(rc, io, pfd) == -1)
		return EXIT_SANDBOX;
	params = run_exec_params(rc);
	{
		int give[3] = { pfd[0], pfd[3], pfd[5] };

		res = rpc_call_fds(&rc->rpc, "sandbox.exec", params, give, 3,
		    on_event, &rc->st, &code, rc->err, sizeof(rc->err));
	}
	free(params);
	close(pfd[0]);
	close(pfd[3]);
	close(pfd[5]);
	if (res == NULL) {
		/* The sandbox is built for this exec (lazy). */
		const char *w = run_words(rc->err, &rc->o, rc->o.conv ==
		    NULL ? rc->ws : NULL);

		if (code == -32000)	/* RPC_SANDBOX_ERROR */
			fprintf(stderr, "airlock: the sandbox could not be "
			    "built: %s\n", w);
		else
			fprintf(stderr, "airlock: %s\n", w);
		return code == 0 || code == -32000 ? EXIT_SANDBOX :
		    code == -32010 ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
	}
	x = json_get(res, "execId");
	rc->st.exec_id = x != NULL && x->is_int ? (long)x->integer : -1;
	/* No terminal where there is no sandbox (--sandbox off): pipes. */
	x = json_get(res, "tty");
	io->tty = rc->o.tty && x != NULL && x->type == JSON_BOOL &&
	    x->boolean;
	json_free(res);
	return 0;
}

/* Our signals come to the loop, our terminal goes raw; then the loop. */
static int
run_attached(struct run_ctx *rc, struct run_io *io)
{
	struct termios	raw;
	sigset_t	sigs;
	int		sfd, code;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGQUIT);
	sigaddset(&sigs, SIGWINCH);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	if ((sfd = signalfd(-1, &sigs, SFD_CLOEXEC)) == -1) {
		fprintf(stderr, "airlock: signalfd: %s\n", strerror(errno));
		return EXIT_SANDBOX;
	}
	if (io->tty && isatty(STDIN_FILENO) &&
	    tcgetattr(STDIN_FILENO, &io->saved) == 0) {
		/* Raw: Ctrl-C, Ctrl-Z and the rest reach the terminal
		 * inside as bytes; restored on every way out. */
		raw = io->saved;
		cfmakeraw(&raw);
		raw_io = io;
		atexit(raw_restore);
		if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0)
			io->raw = 1;
	}
	code = run_loop(&rc->rpc, &rc->st, io, rc->sid, sfd,
	    rc->o.kill_after);
	close(sfd);
	return code;
}

/* The sandbox removed, the summary said, everything freed. */
static void
run_finish(struct run_ctx *rc, struct run_io *io)
{
	struct json	*res;
	char		 buf[128];
	int		 code;

	raw_restore();
	acpf_free(&io->af);
	snprintf(buf, sizeof(buf), "{\"sessionId\":\"%s\"}", rc->sid);
	res = rpc_call(&rc->rpc, "sandbox.destroy", buf, on_event, &rc->st,
	    &code, rc->err, sizeof(rc->err));
	json_free(res);
	rpc_close(&rc->rpc);
	if (!rc->o.quiet)
		violation_summary(&rc->st);
	/* Said when the run starts and again here, --quiet or not. */
	opened_say(&rc->st);
	strv_free(rc->st.opened);
	explain_free(&rc->st.ex);
	if (rc->st.events != NULL)
		fclose(rc->st.events);
}

static void
run_ctx_free(struct run_ctx *rc)
{
	run_opts_free(&rc->o);
	strv_free(rc->extra);
	free(rc->origin_buf);
	free(rc);
}

/*
 * The run, for `airlock run` (ad NULL) and for the adapters that launch
 * an agent the same way with their own state (`airlock claude`).
 */
int
cli_run_adapter(int argc, char **argv, const struct run_adapter *ad)
{
	static struct run_io io;	/* raw_io points here */
	struct run_ctx	*rc = xcalloc(1, sizeof(*rc));
	char		 prog[64];
	int		 i, code;

	/* A write to a gone airlockd or reader is an error, not a death
	 * by SIGPIPE (the command's own disposition is reset inside). */
	signal(SIGPIPE, SIG_IGN);
	rc->ad = ad;
	rc->oq.pid = rc->oq.fd = rc->local = -1;
	run_opts_init(&rc->o);
	/* argv[0]: run, or the adapter's own name (claude, acp, shell). */
	snprintf(prog, sizeof(prog), "airlock %s", argv[0]);
	i = cli_opt_parse(CLI_RUN, prog, run_head, argc, argv, &rc->o);
	if (i >= argc)
		cli_opt_usage_error(prog, "no command given");
	if (argv[i][0] == '\0')
		cli_opt_usage_error(prog, "the command is an empty word "
		    "(\"\"): give a program's name or path");
	rc->cmd = argv + i;
	rc->ncmd = argc - i;
	if (run_start_private(rc) == -1) {
		run_ctx_free(rc);
		return EXIT_SANDBOX;
	}
	if ((code = run_prepare(rc)) != 0 || run_connect(rc) == -1) {
		rpc_close(&rc->rpc);
		run_ctx_free(rc);
		return code != 0 ? code : EXIT_SANDBOX;
	}
	memset(&io, 0, sizeof(io));
	if ((code = run_launch(rc)) == 0 && (code = run_exec(rc, &io)) == 0)
		code = run_attached(rc, &io);
	run_finish(rc, &io);
	run_ctx_free(rc);
	return code;
}

/* ---- airlock profile ---- */

static const char profile_head[] =
"usage: airlock profile --os linux|macos [run options] [-- CMD ...]\n"
"  Print what a run with these options would be allowed, without running\n"
"  anything: --os linux prints the plan airlockd would send the launcher\n"
"  as JSON (binds, masks, Landlock rights, limits, listeners, filename\n"
"  rules, environment names); --os macos prints the Seatbelt profile the\n"
"  macOS backend would run it under.  See airlock(1).\n"
"options:\n"
"  --os linux|macos      which form (required)\n";

/*
 * `airlock profile`: the params `airlock run` would send, to
 * sandbox.profile instead of sandbox.launch; airlockd decodes and plans
 * them with the launch's own code.  A command, if given, is ignored: the
 * plan does not depend on it.
 */
int
cli_run_profile(int argc, char **argv, const char *os)
{
	struct run_ctx	*rc = xcalloc(1, sizeof(*rc));
	struct sysinfo	 si;
	struct json	*res;
	const char	*p;
	char		*params;
	int		 code = EXIT_SANDBOX, rcode;
	size_t		 k;

	run_opts_init(&rc->o);
	(void)cli_opt_parse(CLI_RUN, "airlock profile", profile_head, argc,
	    argv, &rc->o);
	if (rc->o.memory == 0 && sysinfo(&si) == 0)
		rc->o.memory = (uint64_t)si.totalram * si.mem_unit / 4 * 3;
	if (run_start_private(rc) == -1)
		goto out;
	if (run_workspace(rc) == -1)
		goto out;
	for (k = 0; rc->o.binds && rc->o.binds[k]; k++)
		if (bind_link_check(rc->o.binds[k], rc->ws) == -1)
			goto out;
	run_workdir(rc);
	if (rc->o.sock != NULL && rpc_open(&rc->rpc, rc->o.sock, 0, NULL,
	    rc->err, sizeof(rc->err)) == -1) {
		fprintf(stderr, "airlock: %s\n", rc->err);
		goto out;
	}
	snprintf(rc->sid, sizeof(rc->sid), "profile-%d", (int)getpid());
	params = run_launch_params(rc, os);
	res = rpc_call(&rc->rpc, "sandbox.profile", params, NULL, NULL,
	    &rcode, rc->err, sizeof(rc->err));
	free(params);
	if (res == NULL) {
		fprintf(stderr, "airlock profile: %s\n", rc->err);
		goto out;
	}
	if (strcmp(os, "macos") == 0 && (p = json_get_str(res,
	    "profile")) != NULL)
		fputs(p, stdout);
	else {
		struct jgen *j = jgen_new();

		jgen_value(j, res);
		printf("%s\n", jgen_buf(j, NULL));
		jgen_free(j);
	}
	json_free(res);
	code = fflush(stdout) == 0 ? 0 : EXIT_SANDBOX;
out:
	rpc_close(&rc->rpc);
	run_ctx_free(rc);
	return code;
}
