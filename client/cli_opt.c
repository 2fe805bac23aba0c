// SPDX-License-Identifier: ISC
/*
 * The option table of the commands that build a sandbox, its parser and
 * its help (cli_opt.h).  Each value is checked here, where the option is
 * named, so a bad one is refused with what is accepted before anything
 * starts.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_opt.h"
#include "common/host/paths.h"
#include "common/host/protect.h"
#include "common/host/settings.h"
#include "common/vis.h"
#include "common/xmalloc.h"
#include "policy/domain.h"

/* A day of wall time and 4096 processes: defaults a real run never hits
 * (the man page's LIMITS). */
#define RUN_DEFAULT_TIMEOUT	(24 * 3600)
#define RUN_DEFAULT_PIDS	4096

/* The command named in messages ("airlock run"), set by the parser. */
static const char *opt_prog = "airlock run";

void
cli_opt_usage_error(const char *prog, const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(%s --help for the options)\n", prog);
	exit(2);
}

void
cli_opt_reject(const char *prog, const char *word, int known,
    const char *accepted)
{
	if (known)
		cli_opt_usage_error(prog, "%s needs a value (%s)", vis(word),
		    accepted);
	if (word[0] == '-' && word[1] != '\0')
		cli_opt_usage_error(prog, "unknown option %s (%s)", vis(word),
		    accepted);
	cli_opt_usage_error(prog, "unexpected argument %s (%s)", vis(word),
	    accepted);
}

#define BAD(...)	cli_opt_usage_error(opt_prog, __VA_ARGS__)

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

static const char *const modes[] = {
	"chat", "plan", "review", "orchestrate", NULL,
};
static const char *const onoff[] = { "on", "off", NULL };
/* R-H5: microvm is asked for by name, and refused loudly where no VM
 * can boot; never a fallback. */
static const char *const sandboxes[] = { "on", "off", "microvm", NULL };

/* ~ and ~/x against the caller's $HOME; a relative path against the cwd. */
char *
cli_expand_path(const char *p)
{
	const char	*home;
	char		 cwd[PATH_MAX], *r;

	if (p[0] == '~' && (p[1] == '\0' || p[1] == '/')) {
		if ((home = getenv("HOME")) == NULL || home[0] != '/') {
			fprintf(stderr, "airlock: %s: $HOME is not set\n", p);
			exit(125);
		}
		xasprintf(&r, "%s%s", home, p + 1);
		return r;
	}
	if (p[0] == '/')
		return xstrdup(p);
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		fprintf(stderr, "airlock: getcwd: %s\n", strerror(errno));
		exit(125);
	}
	xasprintf(&r, "%s/%s", cwd, p);
	return r;
}

/*
 * SRC:DST, as docker's -v and bwrap's two words say it.  A value that
 * names an existing path whole is that path, colon or not; a DST that
 * names SRC (or resolves to it) is SRC's own path.  Any other DST, for
 * a writable bind as for a read-only one (airlockd repeats at DST the
 * rules that name paths under SRC: docs/DECISIONS.md), is a path in the
 * sandbox by protect_bind_dst's rules ("~" is the caller's home, which is the
 * sandbox's), into *dstp; the workspace and the other binds are
 * compared in cli_run.c.  Returns SRC (malloc'd).
 */
static char *
bind_source(const char *opt, const char *v, char **dstp)
{
	char	 rs[PATH_MAX], rd[PATH_MAX], why[PATH_MAX + 128];
	char	*src, *dst, *c, *a;

	*dstp = NULL;
	a = cli_expand_path(v);
	if (realpath(a, rs) != NULL || (c = strrchr(v, ':')) == NULL) {
		free(a);
		return xstrdup(v);
	}
	free(a);
	src = xstrndup(v, (size_t)(c - v));
	if (src[0] == '\0' || c[1] == '\0')
		BAD("%s %s: SRC:DST with both paths given", opt, vis(v));
	a = cli_expand_path(src);
	dst = cli_expand_path(c + 1);
	airlock_path_clean(a);
	airlock_path_clean(dst);
	if (strcmp(a, dst) == 0 || (realpath(a, rs) != NULL &&
	    (strcmp(rs, dst) == 0 || (realpath(dst, rd) != NULL &&
	    strcmp(rs, rd) == 0)))) {
		free(a);
		free(dst);
		return src;
	}
	free(a);
	free(dst);
	dst = c[1] == '~' && (c[2] == '\0' || c[2] == '/') ?
	    cli_expand_path(c + 1) : xstrdup(c + 1);
	if (protect_bind_dst(dst, why, sizeof(why)) != NULL)
		BAD("%s %s: DST %s: %s (DST is an absolute path in the "
		    "sandbox, in normal form, outside /proc, /sys, /dev and "
		    "/run/airlock, neither a system directory nor missing "
		    "inside one)", opt, vis(v), vis(dst), why);
	*dstp = dst;
	return src;
}

/* A bind into set, its DST (or "" for SRC's own path) into dsts. */
static void
add_bind_opt(char ***set, char ***dsts, const char *opt, const char *v)
{
	char	*dst, *s = bind_source(opt, v, &dst);

	*set = strv_add(*set, s);
	if (dsts != NULL)
		*dsts = strv_add(*dsts, dst != NULL ? dst : "");
	free(s);
	free(dst);
}

static void
add_to(char ***set, const char *v)
{
	*set = strv_add(*set, v);
}

#define SETTER(fn)	static void fn(struct run_opts *o, const char *v)

SETTER(set_workspace) { o->workspace = v; }
SETTER(set_events) { o->events = v; }
SETTER(set_settings) { o->settings = v; }
SETTER(set_socket) { o->sock = v; }
/*
 * The repository pushes may go to: "owner/name", or a remote URL
 * (https://host/owner/name, ssh://..., git@host:owner/name) that
 * airlockd reduces to one.  A word with a space or a control in it, or
 * neither form, is a typo: said now, not found out at the first push.
 */
SETTER(set_origin)
{
	const char	*slash = strchr(v, '/');
	size_t		 k;
	int		 url = strstr(v, "://") != NULL ||
	    (strchr(v, '@') != NULL && strchr(v, ':') != NULL);

	for (k = 0; v[k] != '\0'; k++)
		if ((unsigned char)v[k] <= ' ' || v[k] == 0x7f)
			break;
	if (v[0] == '\0' || v[k] != '\0' || (!url && (slash == NULL ||
	    slash == v || slash[1] == '\0' || strchr(slash + 1, '/') !=
	    NULL || strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
	    "qrstuvwxyz0123456789._-/") != strlen(v))))
		BAD("--origin \"%s\": a repository as owner/name, or its remote "
		    "URL (https://host/owner/name, git@host:owner/name)",
		    vis(v));
	o->origin = v;
}
SETTER(set_conv) { o->conv = v; }
SETTER(set_agent) { o->agent = v; }
SETTER(set_chdir) { o->chdir = v; }
SETTER(set_bind) { add_bind_opt(&o->binds, &o->bind_dsts, "--bind", v); }
SETTER(set_robind)
{
	add_bind_opt(&o->robinds, &o->robind_dsts, "--ro-bind", v);
}
SETTER(set_trybind)
{
	add_bind_opt(&o->trybinds, &o->trybind_dsts, "--bind-try", v);
}
SETTER(set_tryrobind)
{
	add_bind_opt(&o->tryrobinds, &o->tryrobind_dsts, "--ro-bind-try", v);
}
SETTER(set_deny_read)
{
	if (v[0] == '\0')
		BAD("--deny-read \"\": a path or glob");
	add_to(&o->deny_read, v);
}

SETTER(set_deny_write)
{
	if (v[0] == '\0')
		BAD("--deny-write \"\": a path or glob");
	add_to(&o->deny_write, v);
}
SETTER(set_quiet) { (void)v; o->quiet = 1; }
SETTER(set_nocheck) { (void)v; o->no_policy_check = 1; }
SETTER(set_tty) { (void)v; o->tty = 1; }
SETTER(set_notty) { (void)v; o->tty = 0; }
#ifdef AIRLOCK_TEST_BUILD
SETTER(set_unlisted) { o->unlisted = v; }
#endif

SETTER(set_mode)
{
	if (!one_of(v, modes))
		BAD("--mode %s: one of chat, plan, review, orchestrate", v);
	o->mode = v;
}

SETTER(set_sandbox)
{
	if (!one_of(v, sandboxes))
		BAD("--sandbox %s: on, off or microvm", v);
	o->sandbox = v;
}

SETTER(set_network)
{
	if (!one_of(v, onoff))
		BAD("--network %s: on or off", v);
	o->network = strcmp(v, "on") == 0;
}

SETTER(set_timeout)
{
	if (parse_duration(v, &o->timeout) == -1)
		BAD("--timeout %s: a duration such as 90, 90s, 15m or 2h", v);
}

SETTER(set_kill_after)
{
	if (parse_duration(v, &o->kill_after) == -1)
		BAD("--kill-after %s: a duration such as 5, 5s or 1m", v);
}

SETTER(set_memory)
{
	if (parse_size(v, &o->memory) == -1)
		BAD("--memory %s: a size such as 512M or 4G", v);
}

SETTER(set_output)
{
	if (parse_size(v, &o->output) == -1)
		BAD("--output-limit %s: a size such as 64M or 1G", v);
}

SETTER(set_pids)
{
	if (parse_count(v, &o->pids, 4194304) == -1)
		BAD("--pids %s: a number of processes, 1 to 4194304", v);
}

/*
 * NULL when v is a valid pattern; else a message naming v and what is
 * accepted.  The parser's own reasons speak of its internals ("invalid
 * port" for a URL), so the common mistakes are named first.
 */
const char *
egress_pattern_error(const char *flag, const char *v, char *buf, size_t len)
{
	return settings_domain_error(flag, v, buf, len);
}

SETTER(set_allow)
{
	char	note[320], bad[1024];

	if (egress_pattern_error("--allow-domain", v, bad,
	    sizeof(bad)) != NULL)
		BAD("%s", bad);
	o->allow = strv_add(o->allow, v);
	/* `airlock shell` passes '*' itself (its profile, said in its
	 * --help), and takes no --allow-domain: nobody typed this one. */
	if (strcmp(opt_prog, "airlock shell") != 0 &&
	    dom_pattern_note(v, note, sizeof(note)) != NULL)
		fprintf(stderr, "airlock: warning: --allow-domain '%s' %s\n",
		    v, note);
}

/* NAME=VALUE, or NAME alone for the caller's own value (docker -e). */
SETTER(set_env)
{
	static const char namech[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_";
	char	*kv;

	if (v[0] == '\0' || v[0] == '=' || (v[0] >= '0' && v[0] <= '9') ||
	    strspn(v, namech) != strcspn(v, "="))
		BAD("--env %s: NAME or NAME=VALUE, NAME of letters, digits "
		    "and _ not starting with a digit", v);
	if (strchr(v, '=') == NULL) {
		if (getenv(v) == NULL)
			BAD("--env %s: not set in this environment", v);
		xasprintf(&kv, "%s=%s", v, getenv(v));
	} else
		kv = xstrdup(v);
	o->envs = strv_add(o->envs, kv);
	free(kv);
}

#define A	CLI_ADAPTERS
const struct cli_opt cli_opts[] = {
	{ "--workspace", NULL, "DIR", A, "the workspace (default: the top "
	    "of the git repository the caller is in, else the cwd)",
	    set_workspace },
	{ "--chdir", NULL, "DIR", A, "the command's working directory "
	    "(default: the caller's, when inside the workspace)", set_chdir },
	{ "--mode", NULL, "MODE", A, "chat, plan, review or orchestrate "
	    "(default chat)", set_mode },
	{ "--bind", NULL, "SRC[:DST]", A, "bind a host path writable, at "
	    "DST in the sandbox if given (its protections hold there too)",
	    set_bind },
	{ "--ro-bind", NULL, "SRC[:DST]", A, "bind a host path read-only, "
	    "at DST in the sandbox if given (its secrets masked there too)",
	    set_robind },
	{ "--bind-try", NULL, "SRC[:DST]", A, "as --bind, only if SRC "
	    "exists", set_trybind },
	{ "--ro-bind-try", NULL, "SRC[:DST]", A, "as --ro-bind, only if SRC "
	    "exists", set_tryrobind },
	{ "--deny-read", NULL, "PATH", A, "a path or glob the command may "
	    "not read", set_deny_read },
	{ "--deny-write", NULL, "PATH", A, "a path or glob the command may "
	    "not write", set_deny_write },
	{ "--network", NULL, "on|off", A, "network through the proxy, or "
	    "none", set_network },
	{ "--allow-domain", NULL, "PATTERN", A, "a domain the network may "
	    "reach (host, *.host or *)", set_allow },
	{ "--timeout", NULL, "DURATION", A, "wall time (s, m, h; default "
	    "24h)", set_timeout },
	{ "--kill-after", NULL, "DURATION", A, "kill this long after the "
	    "first forwarded signal", set_kill_after },
	{ "--memory", NULL, "SIZE", A, "memory (K, M, G; default three "
	    "quarters of the machine's)", set_memory },
	{ "--pids", NULL, "N", A, "processes (default 4096)", set_pids },
	{ "--output-limit", NULL, "SIZE", A, "output per stream (default "
	    "16G)", set_output },
	{ "--env", "-e", "NAME[=VALUE]", A, "pass one variable on purpose "
	    "(NAME alone: the caller's value)", set_env },
	{ "--sandbox", NULL, "on|off|microvm", A, "off runs the command "
	    "unconfined, with a warning; microvm asks for a VM or fails",
	    set_sandbox },
	{ "--settings", NULL, "FILE", A | CLI_SHELL, "a settings file "
	    "instead of the default", set_settings },
	{ "--origin", NULL, "URL", A, "the repository pushes may go to",
	    set_origin },
	{ "--socket", NULL, "PATH", A, "a shared airlockd (also "
	    "AIRLOCK_SOCKET)", set_socket },
	{ "--events", NULL, "FILE", A, "the session's events, one JSON "
	    "object a line", set_events },
	{ "--conversation", NULL, "ID", A, "run in a provisioned "
	    "conversation (with --agent)", set_conv },
	{ "--agent", NULL, "AGENT", A, "as this agent of the conversation",
	    set_agent },
	{ "-t", NULL, NULL, A, "a terminal inside, even without one outside",
	    set_tty },
	{ "-T", NULL, NULL, A, "no terminal inside", set_notty },
	{ "--no-policy-check", NULL, NULL, A, "do not judge the command "
	    "line first", set_nocheck },
	{ "--quiet", NULL, NULL, A, "no summary of refusals afterwards",
	    set_quiet },
	{ "--claude", NULL, "PATH", CLI_CLAUDE, "the Claude Code CLI to run "
	    "(default: claude on PATH)", NULL },
	{ "--pass-through", NULL, "fs|terminal|all|none", CLI_ACP, "which "
	    "of the agent's requests reach the editor", NULL },
	{ "--cwd", NULL, "DIR", CLI_SHELL, "the shell's directory "
	    "(default: the cwd)", set_workspace },
	{ "--help", "-h", NULL, A | CLI_SHELL, "this help", NULL },
#ifdef AIRLOCK_TEST_BUILD
	/* Test build only (tests/tests.mk), never shipped. */
	{ "--test-unlisted-bind", NULL, "PATH", CLI_RUN, NULL, set_unlisted },
#endif
	{ NULL, NULL, NULL, 0, NULL, NULL },
};
#undef A

void
run_opts_init(struct run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = "chat";
	o->timeout = RUN_DEFAULT_TIMEOUT;
	o->pids = RUN_DEFAULT_PIDS;
	o->network = 1;
	o->tty = -1;
}

void
run_opts_free(struct run_opts *o)
{
	strv_free(o->binds);
	strv_free(o->robinds);
	strv_free(o->trybinds);
	strv_free(o->tryrobinds);
	strv_free(o->bind_dsts);
	strv_free(o->trybind_dsts);
	strv_free(o->robind_dsts);
	strv_free(o->tryrobind_dsts);
	strv_free(o->envs);
	strv_free(o->allow);
	strv_free(o->deny_read);
	strv_free(o->deny_write);
}

const struct cli_opt *
cli_opt_find(unsigned cmd, const char *name, size_t len)
{
	const struct cli_opt	*o;

	for (o = cli_opts; o->name != NULL; o++)
		if ((o->cmds & cmd) && ((strlen(o->name) == len &&
		    strncmp(name, o->name, len) == 0) || (o->alias != NULL &&
		    strlen(o->alias) == len && strncmp(name, o->alias,
		    len) == 0)))
			return o;
	return NULL;
}

/*
 * cmd's options from argv[1], each checked and stored in ro by the
 * table's setter, then shown to fn (cli_opt_walk's contract); passed on
 * in *pass when pass is not NULL.  The index of the command's first word.
 */
static int
opt_walk(unsigned cmd, int argc, char **argv, struct run_opts *ro,
    int (*fn)(void *, const struct cli_opt *, const char *, const char *),
    void *arg, char ***pass)
{
	const struct cli_opt	*o;
	const char		*a, *v;
	size_t			 n;
	int			 i;

	for (i = 1; i < argc; i++) {
		a = argv[i];
		if (strcmp(a, "--") == 0)
			return i + 1;
		if (a[0] != '-' || a[1] == '\0')
			return i;
		n = a[1] == '-' ? strcspn(a, "=") : strlen(a);
		if ((o = cli_opt_find(cmd, a, n)) == NULL) {
			if (fn(arg, NULL, a, NULL))
				continue;
			BAD("unknown option %.*s", (int)n, a);
		}
		if (o->metavar == NULL) {
			if (a[n] == '=')
				BAD("%s takes no value", o->name);
			v = NULL;
		} else if (a[n] == '=')
			v = a + n + 1;
		else if (i + 1 < argc && strcmp(argv[i + 1], "--") != 0)
			v = argv[++i];
		else
			BAD("%s needs a value (%s)%s", o->name, o->metavar,
			    i + 1 < argc ? " before --" : "");
		if (o->set != NULL)
			o->set(ro, v);
		if (fn(arg, o, a, v) || o->set == NULL || pass == NULL)
			continue;
		*pass = strv_add(*pass, o->name);
		if (v != NULL)
			*pass = strv_add(*pass, v);
	}
	return i;
}

struct parse_ctx {
	unsigned	 cmd;
	const char	*head;
};

/* cli_opt_parse's look at each option: --help only. */
static int
parse_help(void *arg, const struct cli_opt *o, const char *a, const char *v)
{
	const struct parse_ctx	*pc = arg;

	(void)a;
	(void)v;
	if (o != NULL && strcmp(o->name, "--help") == 0) {
		fputs(pc->head, stdout);
		cli_opt_help(stdout, pc->cmd);
		exit(0);
	}
	return 0;
}

int
cli_opt_parse(unsigned cmd, const char *prog, const char *head, int argc,
    char **argv, struct run_opts *ro)
{
	struct parse_ctx	pc = { cmd, head };

	opt_prog = prog;
	return opt_walk(cmd, argc, argv, ro, parse_help, &pc, NULL);
}

int
cli_opt_walk(unsigned cmd, const char *prog, int argc, char **argv,
    int (*fn)(void *, const struct cli_opt *, const char *, const char *),
    void *arg, char ***pass)
{
	struct run_opts	scratch;
	int		i;

	/* The values are checked now, before the adapter's set-up; the
	 * run they are passed to stores them. */
	opt_prog = prog;
	run_opts_init(&scratch);
	i = opt_walk(cmd, argc, argv, &scratch, fn, arg, pass);
	run_opts_free(&scratch);
	return i;
}

/* text from column 27, wrapped before column 80. */
static void
help_wrap(FILE *f, const char *text)
{
	const char	*p = text, *sp;
	size_t		 n;

	while (*p != '\0') {
		n = strlen(p);
		if (n > 52) {
			for (sp = p + 52; sp > p && *sp != ' '; sp--)
				;
			n = sp > p ? (size_t)(sp - p) : 52;
		}
		fprintf(f, "%.*s\n", (int)n, p);
		p += n;
		while (*p == ' ')
			p++;
		if (*p != '\0')
			fprintf(f, "%27s", "");
	}
}

void
cli_opt_help(FILE *f, unsigned cmd)
{
	const struct cli_opt	*o;
	char			 head[64];
	int			 w;

	for (o = cli_opts; o->name != NULL; o++) {
		if (!(o->cmds & cmd) || o->help == NULL)
			continue;
		w = snprintf(head, sizeof(head), "%s%s%s%s%s",
		    o->alias != NULL ? o->alias : "", o->alias != NULL ?
		    ", " : "", o->name, o->metavar != NULL ? " " : "",
		    o->metavar != NULL ? o->metavar : "");
		if (w < 24)
			fprintf(f, "  %-24s ", head);
		else
			fprintf(f, "  %s\n%27s", head, "");
		help_wrap(f, o->help);
	}
}
