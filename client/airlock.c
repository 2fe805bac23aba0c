// SPDX-License-Identifier: ISC
/*
 * airlock, the client CLI.  It holds nothing: every subcommand that needs
 * a decision asks airlockd over its socket, or starts a private airlockd
 * for the one invocation (R-P6).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_explain.h"
#include "client/cli_policy.h"
#include "common/host/paths.h"
#include "common/json.h"
#include "common/log.h"
#include "common/vis.h"
#include "common/xmalloc.h"

#define AIRLOCK_VERSION	"0.1.0"

/*
 * The subcommands, in the order the usage lists them: what each takes,
 * what it does (the usage's line), and a paragraph for `help CMD`.
 * Those that build a sandbox print their options from the option table
 * (cli_opt.c) themselves.
 */
struct cli_cmd {
	const char	*name;
	int		(*fn)(int, char **);
	const char	*args;
	const char	*what;
	const char	*more;
	int		 own_help;	/* the command prints its --help */
};

static int	version_main(int, char **);

static const struct cli_cmd cmds[] = {
	{ "run", cli_run_main, "[options] -- CMD [ARG...]",
	    "run one command in a sandbox", NULL, 1 },
	{ "claude", cli_claude_main, "[options] [-- ARG...]",
	    "the Claude Code CLI in a sandbox", NULL, 1 },
	{ "acp", cli_acp_main, "[options] -- AGENT [ARG...]",
	    "an ACP agent in a sandbox (stdio)", NULL, 1 },
	{ "profile", cli_profile_main, "--os linux|macos [options]",
	    "what a run would be allowed, for review", NULL, 1 },
	{ "matrix", cli_matrix_main, "[--json]",
	    "which boundary holds for which agent",
	    "Prints, for each agent airlock knows, which boundaries hold on\n"
	    "this host and which do not.  Options: --sandbox on|off,\n"
	    "--network on|off, --settings FILE, --socket PATH, --json.\n", 0 },
	{ "shell", cli_shell_main, "[--cwd DIR] [-- SHELL]",
	    "a shell in the terminal profile", NULL, 1 },
	{ "status", cli_status_main, "[--socket PATH] [--json]",
	    "what this host supports",
	    "Says whether a sandbox can be built here, with which backend,\n"
	    "what the kernel lacks and whether the helper daemons run; as\n"
	    "text, or as one JSON object with --json (for programs).  It\n"
	    "asks the airlockd on --socket PATH (or the default socket), or\n"
	    "a private one.  Exits 0 whatever it found.\n", 0 },
	{ "doctor", cli_doctor_main, "[--socket PATH] [--settings F]",
	    "check this host and install, each with ok/warn/fail",
	    "Checks what a sandbox needs (user namespaces, Landlock,\n"
	    "seccomp), the binaries and their modes, the socket, the\n"
	    "settings, the credentials file's mode, and runs a real\n"
	    "sandbox; each line says ok, warn or fail and the command that\n"
	    "shows the same by hand.  Exits 1 when a check failed.\n", 0 },
	{ "setup", cli_setup_main, "[--dry-run] [--root DIR] [--launcher P]",
	    "host provisioning that needs root (AppArmor)",
	    "Where AppArmor restricts unprivileged user namespaces, writes\n"
	    "and loads a profile granting them to the installed launcher;\n"
	    "elsewhere says nothing is needed.  Re-runnable: what is right\n"
	    "already is left alone.  --dry-run says what it would do,\n"
	    "--root DIR works on an image under DIR.  The last line is\n"
	    "setup: ok|cancelled|partial|error; exits 0 only for ok.\n", 0 },
	{ "fs", cli_fs_main, "[--workspace DIR] [--mode M] VERB ...",
	    "the file tools in a sandbox (JSON out)",
	    "The file tools an agent uses, run inside a sandbox of the\n"
	    "workspace: read PATH, write PATH (stdin), edit, apply-patch,\n"
	    "search PATTERN, find GLOB.  Options: --workspace DIR, --mode\n"
	    "M, --sandbox on|off, --settings FILE, --socket PATH.  Prints\n"
	    "one JSON object.\n", 0 },
	{ "policy", cli_policy_main,
	    "check [--mode M] [--settings F] [--json] -- 'LINE'",
	    "the command policy's verdict on LINE",
	    "check: judges a command line as `airlock run` judges its\n"
	    "command, without running it: exit 0 allow, 1 deny, 3 ask, with\n"
	    "the reason.  Options: --mode M, --settings FILE, --json.\n"
	    "\n"
	    "airlock policy egress [--settings F] [--allow-domain P]...\n"
	    "    [--network on|off] [--json]\n"
	    "egress: the hosts a run may reach (the effective allowlist and\n"
	    "denylist) and where each entry came from: the built-in\n"
	    "baseline, a settings file, or a flag.\n", 0 },
	{ "hook", cli_hook_main, "claude-pretooluse",
	    "Claude Code PreToolUse hook (stdin)",
	    "Claude Code's PreToolUse hook: reads the tool call on stdin and\n"
	    "answers allow, deny or ask as airlock's policy says.  Options:\n"
	    "--confined [--layers DIR], --mode M, --settings FILE.\n", 0 },
	{ "proxy-connect", cli_proxyconnect_main, "PROXY HOST PORT",
	    "a SOCKS5 tunnel for ssh in a sandbox",
	    "A SOCKS5 tunnel to HOST PORT through PROXY on stdin and stdout:\n"
	    "ssh's ProxyCommand inside a sandbox, where the network is\n"
	    "reached only through airlock's proxy.\n", 0 },
	{ "approve", cli_approve_main, "[--socket PATH]",
	    "answer approval requests (y/n/a)",
	    "Connects to airlockd (--socket PATH, AIRLOCK_SOCKET or the\n"
	    "default socket) and asks you each approval request of its\n"
	    "sessions: y allows once, n refuses, a allows for the session.\n",
	    0 },
	{ "audit", cli_audit_main, "[--session ID] [--since RFC3339]",
	    "the audit log of decisions",
	    "Prints the audit log of airlockd's decisions, one JSON object a\n"
	    "line: --session ID for one session, --since RFC3339 from a\n"
	    "time.\n", 0 },
	{ "worktree", cli_worktree_main, "provision|ls|rm",
	    "a conversation's copy-on-write copies",
	    "provision --conversation ID [--agent A ...] REPO...: a\n"
	    "copy-on-write copy of each repository for each agent of a\n"
	    "conversation; ls: the conversations; rm --conversation ID:\n"
	    "remove one.  Options: --settings FILE, --socket PATH, --json.\n",
	    0 },
	{ "settings", cli_settings_main, "[--explain] [--settings F]",
	    "the effective settings",
	    "Prints the effective settings airlock would use here; with\n"
	    "--explain, the file each value came from, and run's built-in\n"
	    "limits.  --settings FILE adds a settings file as run's does.\n",
	    1 },
	{ "version", version_main, "", "print airlock's version", NULL, 0 },
	{ "help", NULL, "[CMD]", "this list, or what CMD does", NULL, 0 },
	{ NULL, NULL, NULL, NULL, NULL, 0 },
};

static void
usage_list(FILE *f)
{
	const struct cli_cmd	*c;
	char			 head[80];

	fputs("usage: airlock <command> [options]\n", f);
	for (c = cmds; c->name != NULL; c++) {
		snprintf(head, sizeof(head), "%s %s", c->name, c->args);
		if (strlen(head) <= 30)
			fprintf(f, "  %-30s %s\n", head, c->what);
		else
			fprintf(f, "  %s\n  %-30s %s\n", head, "", c->what);
	}
	fputs("airlock help CMD (or airlock CMD --help) says more; see "
	    "airlock(1).\n", f);
}

/* No command or a bad one: the list on stderr, exit 2. */
static void __attribute__((noreturn))
usage(void)
{
	usage_list(stderr);
	exit(2);
}

static int
version_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("airlock %s\n", AIRLOCK_VERSION);
	return 0;
}

static const struct cli_cmd *
cmd_find(const char *name)
{
	const struct cli_cmd	*c;

	for (c = cmds; c->name != NULL; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/* Edits from a to b (Levenshtein), capped: names are short. */
static size_t
edits(const char *a, const char *b)
{
	size_t	 row[32], i, j, prev, tmp, la = strlen(a), lb = strlen(b);

	if (la >= 31 || lb >= 31)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = a[i - 1] == b[j - 1] ? prev :
			    1 + (prev < row[j] ? (prev < row[j - 1] ? prev :
			    row[j - 1]) : (row[j] < row[j - 1] ? row[j] :
			    row[j - 1]));
			prev = tmp;
		}
	}
	return row[lb];
}

/* `airlock runn`: say so, and name the nearest command when one is. */
static void __attribute__((noreturn))
unknown_command(const char *name)
{
	const struct cli_cmd	*c, *best = NULL;
	size_t			 d, bd = 3, n = strlen(name);

	for (c = cmds; c->name != NULL; c++) {
		d = n >= 2 && strncmp(c->name, name, n) == 0 ? 1 :
		    edits(name, c->name);
		if (d < bd) {
			bd = d;
			best = c;
		}
	}
	fprintf(stderr, "airlock: unknown command \"%s\"", vis(name));
	if (best != NULL)
		fprintf(stderr, "; did you mean \"%s\"?", best->name);
	fputs("\n(airlock --help lists the commands)\n", stderr);
	exit(2);
}

/* `airlock help CMD`, `airlock CMD --help`: on stdout, exit 0. */
static int
cmd_help(const struct cli_cmd *c)
{
	char	*av[] = { NULL, "--help", NULL };

	if (c->own_help) {
		av[0] = (char *)c->name;
		return c->fn(2, av);
	}
	printf("usage: airlock %s %s\n  %s.\n", c->name, c->args, c->what);
	if (c->more != NULL) {
		putchar('\n');
		fputs(c->more, stdout);
	}
	printf("See airlock(1).\n");
	return 0;
}

static int
is_help(const char *a)
{
	return a != NULL && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0);
}

/* A JSON value as text for people: strings bare, others as JSON. */
static void
human_value(FILE *f, const struct json *v)
{
	struct jgen	*j;
	const char	*buf;
	size_t		 len, i;

	if (v == NULL || v->type == JSON_NULL)
		fputs("-", f);
	else if (v->type == JSON_STRING)
		fputs(vis(v->str), f);
	else if (v->type == JSON_ARRAY && v->n == 0)
		fputs("none", f);
	else if (v->type == JSON_ARRAY) {
		for (i = 0; i < v->n; i++) {
			fputs(i > 0 ? "; " : "", f);
			human_value(f, v->items[i]);
		}
	} else {
		j = jgen_new();
		jgen_value(j, v);
		buf = jgen_buf(j, &len);
		fputs(vis_json(buf), f);
		jgen_free(j);
	}
}

/*
 * One field of host.status for a person: its label, and nothing when it
 * says nothing (an empty list, no hint); a field this client does not
 * know is shown under its own name.
 */
static void
status_line(FILE *f, const char *key, const struct json *v)
{
	static const struct {
		const char	*key, *label;
	} labels[] = {
		{ "installed", "installed" },
		{ "notes", "probe" },
		{ "installHint", "to fix" },
		{ "requiresInstall", "needs install" },
		{ "reasons", "why not" },
		{ "landlockAbi", "Landlock ABI" },
		{ "landlockGaps", "not enforced" },
		{ "seccomp", "seccomp" },
		{ "ptraceScope", "ptrace scope" },
		{ "ptraceBlocked", "ptrace blocked" },
		{ "limits", "limits" },
		{ "sessions", "sessions" },
	};
	const char	*label = key;
	size_t		 k;

	for (k = 0; k < sizeof(labels) / sizeof(labels[0]); k++)
		if (strcmp(labels[k].key, key) == 0)
			label = labels[k].label;
	if (v == NULL || v->type == JSON_NULL || (v->type == JSON_ARRAY &&
	    v->n == 0 && label != key) || (v->type == JSON_BOOL &&
	    !v->boolean && strcmp(key, "requiresInstall") == 0))
		return;
	fprintf(f, "  %-16s ", vis(label));
	if (v->type == JSON_BOOL)
		fputs(v->boolean ? "yes" : "no", f);
	else
		human_value(f, v);
	fputc('\n', f);
}

/*
 * R-P2: what a running daemon applied to itself, as it said; one that
 * is not running has nothing to show but why.  An airlockd too old to
 * say is named as such, never left blank.
 */
static void
status_restriction(FILE *f, const struct json *d)
{
	const struct json	*v = json_get(d, "running");
	const char		*r = json_get_str(d, "selfRestriction");

	if (v == NULL || v->type != JSON_BOOL || !v->boolean)
		return;
	fprintf(f, "           restricted: %s\n", r != NULL ? vis(r) :
	    "not reported (this airlockd does not say)");
}

/* `airlock status` for a person: what a person asks first, then all. */
static void
status_human(FILE *f, const struct json *res)
{
	const struct json	*d, *v;
	size_t			 i, k;

	v = json_get(res, "available");
	fprintf(f, "sandbox:   %s", v != NULL && v->type == JSON_BOOL &&
	    v->boolean ? "available" : "NOT available");
	fprintf(f, " (backend %s)", json_get_str(res, "backend") != NULL ?
	    vis(json_get_str(res, "backend")) : "none");
	v = json_get(res, "enabled");
	if (v != NULL && v->type == JSON_BOOL && !v->boolean)
		fputs(", DISABLED", f);
	v = json_get(res, "policyLocked");
	if (v != NULL && v->type == JSON_BOOL && v->boolean)
		fputs(", locked by managed policy", f);
	fputc('\n', f);
	for (i = 0; i < res->n; i++) {
		static const char *const shown[] = { "available", "backend",
		    "enabled", "policyLocked", "daemons", "guards", NULL };

		for (k = 0; shown[k] != NULL; k++)
			if (strcmp(res->keys[i], shown[k]) == 0)
				break;
		if (shown[k] != NULL)
			continue;
		status_line(f, res->keys[i], res->items[i]);
	}
	if ((d = json_get(res, "daemons")) != NULL &&
	    d->type == JSON_OBJECT)
		for (i = 0; i < d->n; i++) {
			v = json_get(d->items[i], "installed");
			if (v != NULL && v->type == JSON_BOOL && !v->boolean) {
				/* It never starts: sessions go without it. */
				fprintf(f, "daemon:    %-9s not installed\n",
				    vis(d->keys[i]));
				continue;
			}
			v = json_get(d->items[i], "running");
			fprintf(f, "daemon:    %-9s %s", vis(d->keys[i]),
			    v != NULL && v->type == JSON_BOOL && v->boolean ?
			    "running" : "not running");
			v = json_get(d->items[i], "starts");
			if (v != NULL && v->is_int && v->integer == 0)
				fputs(" (starts at a sandbox's first "
				    "connection)", f);
			else if (v != NULL && v->is_int)
				fprintf(f, " (started %lld time%s)",
				    (long long)v->integer, v->integer == 1 ?
				    "" : "s");
			fputc('\n', f);
			status_restriction(f, d->items[i]);
		}
	if ((d = json_get(res, "guards")) != NULL && d->type == JSON_OBJECT)
		for (i = 0; i < d->n; i++)
			fprintf(f, "guard:     %s %s\n", vis(d->keys[i]),
			    json_get_str(d->items[i], "guardRestriction") !=
			    NULL ? vis(json_get_str(d->items[i],
			    "guardRestriction")) : "not reported");
}

int
cli_status_main(int argc, char **argv)
{
	struct rpc	 rpc;
	struct json	*res;
	struct jgen	*j;
	const char	*sock = NULL, *buf;
	char		 err[512], *extra[] = { "--quiet", NULL };
	int		 code, i, json_out = 0;
	size_t		 len;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
			sock = argv[++i];
		else if (strcmp(argv[i], "--json") == 0)
			json_out = 1;
		else if (strcmp(argv[i], "--socket") == 0) {
			fprintf(stderr, "airlock status: --socket needs a "
			    "value (PATH)\n");
			return 2;
		} else {
			fprintf(stderr, "airlock status: unknown option %s\n"
			    "(airlock status --help for the options)\n",
			    vis(argv[i]));
			return 2;
		}
	}
	/* People read the text; programs ask for --json, whose object is
	 * host.status's result as it is.  A settings file a private
	 * airlockd cannot start with is an error, said once, not a
	 * status. */
	if (sock == NULL && explain_settings_check(NULL) == -1)
		return 1;
	/* R-H6: a query that ran exits 0, whatever it found. */
	if (rpc_open(&rpc, sock, sock == NULL, extra, err, sizeof(err)) ==
	    -1 || (res = rpc_call(&rpc, "host.status", NULL, NULL, NULL,
	    &code, err, sizeof(err))) == NULL) {
		j = jgen_new();
		jgen_obj_open(j);
		jgen_kbool(j, "available", 0);
		jgen_kbool(j, "installed", 0);
		jgen_kbool(j, "enabled", 0);
		jgen_kbool(j, "policyLocked", 0);
		jgen_kstr(j, "backend", "none");
		jgen_key(j, "reasons");
		jgen_arr_open(j);
		jgen_str(j, err);
		jgen_arr_close(j);
		jgen_key(j, "daemons");
		jgen_obj_open(j);
		jgen_obj_close(j);
		jgen_obj_close(j);
		buf = jgen_buf(j, &len);
		if (json_out)
			printf("%.*s\n", (int)len, buf);
		else
			printf("sandbox:   NOT available (airlockd: %s)\n",
			    err);
		jgen_free(j);
		if (rpc.fd != -1)
			rpc_close(&rpc);
		return 0;
	}
	if (!json_out && res->type == JSON_OBJECT)
		status_human(stdout, res);
	else {
		j = jgen_new();
		jgen_value(j, res);
		buf = jgen_buf(j, &len);
		printf("%.*s\n", (int)len, buf);
		jgen_free(j);
	}
	json_free(res);
	rpc_close(&rpc);
	return 0;
}

int
main(int argc, char *argv[])
{
	const struct cli_cmd	*c;

	airlock_debug_env();
	log_init("airlock", 0);
	if (argc < 2)
		usage();
	if (is_help(argv[1]) || (strcmp(argv[1], "help") == 0 && argc == 2)) {
		usage_list(stdout);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0 && (is_help(argv[2]) ||
	    strcmp(argv[2], "help") == 0)) {
		printf("usage: airlock help [CMD]\n  What CMD does and its "
		    "options (as airlock CMD --help), or the list:\n\n");
		usage_list(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0)
		return version_main(argc - 1, argv + 1);
	/* Not listed: the relay `airlock acp` starts inside its sandbox. */
	if (strcmp(argv[1], "acp-relay") == 0)
		return cli_acp_relay_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "help") == 0) {
		if ((c = cmd_find(argv[2])) == NULL || c->fn == NULL)
			unknown_command(argv[2]);
		return cmd_help(c);
	}
	if ((c = cmd_find(argv[1])) == NULL || c->fn == NULL)
		unknown_command(argv[1]);
	/*
	 * --help right after the command (or after its verb: worktree ls
	 * --help) is a question, whatever the command's own parser would
	 * make of it; later words are the command's (a file, a pattern).
	 */
	if (is_help(argv[2]) || (argc > 3 && argv[2][0] != '-' &&
	    is_help(argv[3]) && (strcmp(c->name, "worktree") == 0 ||
	    strcmp(c->name, "policy") == 0 || strcmp(c->name, "hook") == 0)))
		return cmd_help(c);
	return c->fn(argc - 1, argv + 1);
}
