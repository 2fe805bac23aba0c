// SPDX-License-Identifier: ISC
/*
 * `airlock run`: one command in one sandbox, through airlockd's client
 * socket like any other client (the desktop app uses the same methods).
 * The command's stdout and stderr pass through byte for byte; its exit
 * status is ours; 125 means the sandbox could not be built, with one line
 * on stderr saying why.
 */
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/json.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "supervisor/cli.h"
#include "supervisor/cli_policy.h"
#include "supervisor/gitorigin.h"

extern char **environ;

#define EXIT_SANDBOX	125
#define EXIT_CANNOT_RUN	126
#define EXIT_NOT_FOUND	127

/*
 * Defaults that a real agent run does not hit (docs/LIMITS in the man
 * page): a day of wall time, 4096 processes, 256 MiB of output per
 * stream, and three quarters of the machine's memory.
 */
#define RUN_DEFAULT_TIMEOUT	(24 * 3600)
#define RUN_DEFAULT_PIDS	4096

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

/* After the run: one line per class with its count, on stderr. */
static void
violation_summary(const struct run_state *st)
{
	size_t	i;

	if (st->nviol == 0)
		return;
	fprintf(stderr, "airlock: the sandbox refused:\n");
	for (i = 0; i < st->nviol; i++)
		fprintf(stderr, "airlock:   %-20s %ld\n", st->viol[i].action,
		    st->viol[i].count);
}

static void
usage(void)
{
	fprintf(stderr,
"usage: airlock run [--workspace DIR] [--mode chat|plan|review|orchestrate]\n"
"                   [--bind PATH]... [--ro-bind PATH]... [--events FILE]\n"
"                   [--sandbox on|off] [--settings FILE] [--timeout SECONDS]\n"
"                   [--memory SIZE] [--pids N] [--network on|off]\n"
"                   [--allow-domain PATTERN]... [--deny-read PATH]...\n"
"                   [--deny-write PATH]... [--origin URL] [--socket PATH]\n"
"                   [--no-policy-check] [--quiet]\n"
"                   -- CMD [ARG...]\n");
	exit(2);
}

static int
parse_size(const char *s, uint64_t *out)
{
	char		*end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		v <<= 10;
		end++;
		break;
	case 'm': case 'M':
		v <<= 20;
		end++;
		break;
	case 'g': case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (*end == 'i' || *end == 'B')
		end++;
	if (*end == 'B')
		end++;
	if (*end != '\0')
		return -1;
	*out = v;
	return 0;
}

static size_t
b64_decode(const char *in, unsigned char *out)
{
	unsigned	v = 0;
	int		bits = 0;
	size_t		o = 0;
	const char	*p;

	for (p = in; *p != '\0' && *p != '='; p++) {
		const char *tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789+/";
		const char *q = strchr(tbl, *p);

		if (q == NULL)
			continue;
		v = (v << 6) | (unsigned)(q - tbl);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(v >> bits);
		}
	}
	return o;
}

static void
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t	n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

static void
on_event(const struct json *ev, void *arg)
{
	struct run_state *st = arg;
	const char	*type = json_get_str(ev, "type");
	const char	*b64;
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
	if (strcmp(type, "stdout") == 0 || strcmp(type, "stderr") == 0) {
		unsigned char *out;

		if ((b64 = json_get_str(ev, "base64")) == NULL)
			return;
		out = xmalloc(strlen(b64));
		len = b64_decode(b64, out);
		write_all(type[3] == 'o' ? STDOUT_FILENO : STDERR_FILENO,
		    out, len);
		free(out);
	} else if (strcmp(type, "exit") == 0 && x != NULL && x->is_int &&
	    x->integer == st->exec_id) {
		code = json_get(ev, "exitCode");
		st->exit_code = code != NULL && code->is_int ?
		    (int)code->integer : 255;
		st->done = 1;
	} else if (strcmp(type, "violation") == 0) {
		violation_count(st, json_get_str(ev, "action"));
	} else if (strcmp(type, "killed") == 0) {
		const char *reason = json_get_str(ev, "reason");

		st->killed = 1;
		fprintf(stderr, "airlock: the sandbox was killed (%s)\n",
		    reason ? reason : "unknown");
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

static void
add_bind(struct jgen *j, const char *path, int ro)
{
	char	resolved[PATH_MAX];

	if (realpath(path, resolved) == NULL) {
		fprintf(stderr, "airlock: %s: %s\n", path, strerror(errno));
		exit(EXIT_SANDBOX);
	}
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
	why = json_get_str(json_get(launched, "details"), "unconfined");
	fprintf(stderr, "airlock: running UNCONFINED, with no sandbox: %s\n",
	    why != NULL ? why : "the supervisor chose no sandbox");
}

int
cli_run_main(int argc, char **argv)
{
	const char	*workspace = ".", *mode = "chat", *events = NULL;
	const char	*sandbox = NULL, *settings = NULL, *sock = NULL;
	const char	*unlisted = NULL, *origin = NULL;
	char		*origin_buf = NULL;
	char		**binds = NULL, **robinds = NULL, **allow = NULL;
	char		**deny_read = NULL, **deny_write = NULL, **extra = NULL;
	char		 ws[PATH_MAX], sid[64], err[1024], *params;
	unsigned long	 timeout = RUN_DEFAULT_TIMEOUT, pids = RUN_DEFAULT_PIDS;
	uint64_t	 memory = 0;
	int		 network = 1, i, code;
	struct run_state st;
	struct rpc	 rpc;
	struct origin_query oq = { -1, -1 };
	int		 local = -1, no_policy_check = 0, quiet = 0;
	struct jgen	*j;
	struct json	*res;
	const struct json *xid;
	struct sysinfo	 si;

	memset(&st, 0, sizeof(st));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

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
		if (i + 1 >= argc)
			usage();
		if (strcmp(a, "--workspace") == 0)
			workspace = argv[++i];
		else if (strcmp(a, "--mode") == 0)
			mode = argv[++i];
		else if (strcmp(a, "--bind") == 0)
			binds = strv_add(binds, argv[++i]);
		else if (strcmp(a, "--ro-bind") == 0)
			robinds = strv_add(robinds, argv[++i]);
		else if (strcmp(a, "--events") == 0)
			events = argv[++i];
		else if (strcmp(a, "--sandbox") == 0)
			sandbox = argv[++i];
		else if (strcmp(a, "--settings") == 0)
			settings = argv[++i];
		else if (strcmp(a, "--socket") == 0)
			sock = argv[++i];
		else if (strcmp(a, "--timeout") == 0)
			timeout = strtoul(argv[++i], NULL, 10);
		else if (strcmp(a, "--memory") == 0) {
			if (parse_size(argv[++i], &memory) == -1)
				usage();
		} else if (strcmp(a, "--pids") == 0)
			pids = strtoul(argv[++i], NULL, 10);
		else if (strcmp(a, "--network") == 0)
			network = strcmp(argv[++i], "off") != 0;
		else if (strcmp(a, "--allow-domain") == 0)
			allow = strv_add(allow, argv[++i]);
		else if (strcmp(a, "--deny-read") == 0)
			deny_read = strv_add(deny_read, argv[++i]);
		else if (strcmp(a, "--deny-write") == 0)
			deny_write = strv_add(deny_write, argv[++i]);
		else if (strcmp(a, "--origin") == 0)
			origin = argv[++i];
		else if (strcmp(a, "--test-unlisted-bind") == 0)
			unlisted = argv[++i];
		else
			usage();
	}
	if (i >= argc)
		usage();
	if (sandbox != NULL && strcmp(sandbox, "on") != 0 &&
	    strcmp(sandbox, "off") != 0)
		usage();
	/* R-C4: the command line itself, before anything starts. */
	if ((code = cli_run_guard(mode, settings, argv + i,
	    no_policy_check)) != 0)
		return code;
	if (memory == 0 && sysinfo(&si) == 0)
		memory = (uint64_t)si.totalram * si.mem_unit / 4 * 3;
	if (realpath(workspace, ws) == NULL) {
		fprintf(stderr, "airlock: workspace %s: %s\n", workspace,
		    strerror(errno));
		return EXIT_SANDBOX;
	}
	if (events != NULL && (st.events = fopen(events, "we")) == NULL) {
		fprintf(stderr, "airlock: %s: %s\n", events, strerror(errno));
		return EXIT_SANDBOX;
	}
	/* The worktree's own repository for the push gateway (R-G4): the
	 * workspace's origin as it is now, before anything runs in it;
	 * asked now, read once airlockd is starting. */
	if (origin == NULL && (local = gitorigin_local(ws, &origin_buf)) == -1)
		origin_ask(ws, &oq);

	/* A private supervisor for this one run when none is listening. */
	extra = strv_add(extra, "--quiet");
	if (sandbox != NULL) {
		extra = strv_add(extra, "--sandbox");
		extra = strv_add(extra, sandbox);
	}
	if (settings != NULL) {
		extra = strv_add(extra, "--settings");
		extra = strv_add(extra, settings);
	}
	if (rpc_open(&rpc, sock, sock == NULL, extra, err, sizeof(err)) ==
	    -1) {
		fprintf(stderr, "airlock: %s\n", err);
		free(origin_read(&oq));
		return EXIT_SANDBOX;
	}
	if (origin == NULL)
		origin = local == 0 ? origin_buf :
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
	jgen_kstr(j, "guestWorkdir", ws);
	jgen_kbool(j, "networkEnabled", network);
	if (sandbox != NULL && strcmp(sandbox, "off") == 0)
		jgen_kstr(j, "backend", "none");
	jgen_key(j, "bindMounts");
	jgen_arr_open(j);
	add_bind(j, ws, 0);
	for (size_t k = 0; binds && binds[k]; k++)
		add_bind(j, binds[k], 0);
	for (size_t k = 0; robinds && robinds[k]; k++)
		add_bind(j, robinds[k], 1);
	jgen_arr_close(j);
	jgen_key(j, "egressAllowlist");
	jgen_arr_open(j);
	for (size_t k = 0; allow && allow[k]; k++)
		jgen_str(j, allow[k]);
	jgen_arr_close(j);
	jgen_key(j, "denyRead");
	jgen_arr_open(j);
	for (size_t k = 0; deny_read && deny_read[k]; k++)
		jgen_str(j, deny_read[k]);
	jgen_arr_close(j);
	jgen_key(j, "denyWrite");
	jgen_arr_open(j);
	for (size_t k = 0; deny_write && deny_write[k]; k++)
		jgen_str(j, deny_write[k]);
	jgen_arr_close(j);
	if (unlisted != NULL)
		jgen_kstr(j, "testUnlistedBind", unlisted);
	if (origin != NULL)
		jgen_kstr(j, "originRepo", origin);
	jgen_key(j, "limits");
	jgen_obj_open(j);
	jgen_kint(j, "timeoutSec", (long long)timeout);
	jgen_kint(j, "memoryBytes", (long long)memory);
	jgen_kint(j, "pids", (long long)pids);
	jgen_obj_close(j);
	jgen_obj_close(j);
	jgen_key(j, "env");
	jgen_arr_open(j);
	for (char **e = environ; e != NULL && *e != NULL; e++)
		jgen_str(j, *e);
	jgen_arr_close(j);
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
	unconfined_say(res);
	json_free(res);

	j = jgen_new();
	jgen_obj_open(j);
	jgen_kstr(j, "sessionId", sid);
	jgen_kstr(j, "cwd", ws);
	jgen_key(j, "argv");
	jgen_arr_open(j);
	for (; i < argc; i++)
		jgen_str(j, argv[i]);
	jgen_arr_close(j);
	jgen_obj_close(j);
	res = rpc_call(&rpc, "sandbox.exec", jgen_buf(j, NULL), on_event, &st,
	    &code, err, sizeof(err));
	jgen_free(j);
	if (res == NULL) {
		fprintf(stderr, "airlock: %s\n", err);
		st.exit_code = code == 0 ? EXIT_SANDBOX : code == -32010 ?
		    EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
		goto out;
	}
	xid = json_get(res, "execId");
	st.exec_id = xid != NULL && xid->is_int ? (long)xid->integer : -1;
	json_free(res);
	if (rpc_wait(&rpc, on_event, &st, &st.done) == -1) {
		fprintf(stderr, "airlock: airlockd: connection lost\n");
		st.exit_code = EXIT_SANDBOX;
	}
out:
	snprintf(ws, sizeof(ws), "{\"sessionId\":\"%s\"}", sid);
	res = rpc_call(&rpc, "sandbox.destroy", ws, on_event, &st, &code,
	    err, sizeof(err));
	json_free(res);
	rpc_close(&rpc);
	if (!quiet)
		violation_summary(&st);
	if (st.events != NULL)
		fclose(st.events);
	strv_free(binds);
	strv_free(robinds);
	strv_free(allow);
	strv_free(deny_read);
	strv_free(deny_write);
	strv_free(extra);
	free(origin_buf);
	return st.exit_code;
}
