// SPDX-License-Identifier: ISC
/*
 * `airlock policy check [--mode MODE] [--settings FILE] [--json] -- 'LINE'`
 * prints the command policy's verdict, readable on a terminal and as JSON
 * with --json or when stdout is not a terminal; it exits 0 for allow, 1
 * for deny, 3 for ask, 2 on a usage error and 4 when the settings cannot
 * be loaded.  `airlock hook
 * claude-pretooluse [--mode MODE] [--settings FILE]` answers one Claude
 * Code PreToolUse call on stdin (see docs/HOOKS.md).  Neither needs
 * airlockd: the policy is a pure library and the settings are files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli_explain.h"
#include "client/cli_opt.h"
#include "client/cli_policy.h"
#include "common/host/hook.h"
#include "common/host/settings.h"
#include "common/json.h"
#include "common/vis.h"
#include "common/xmalloc.h"
#include "policy/classify.h"

static int
usage_policy(void)
{
	fprintf(stderr, "usage: airlock policy check [--mode MODE] "
	    "[--settings FILE] [--json] -- 'COMMAND LINE'\n"
	    "       airlock policy egress [--settings FILE] "
	    "[--allow-domain PATTERN]... [--json]\n"
	    "       MODE: chat (default), plan, review, orchestrate\n");
	return 2;
}

static int
usage_hook(void)
{
	fprintf(stderr, "usage: airlock hook claude-pretooluse [--confined "
	    "[--layers DIR]]\n       [--mode MODE] [--settings FILE] < "
	    "payload.json\n");
	return 2;
}

static void	policy_result_human(const struct pol_result *, enum pol_mode,
		    FILE *);

/* --json, for `policy check` (the hook always speaks JSON). */
static int	json_out;

#define POL_ACCEPTED	"it takes --mode MODE, --settings FILE and --json"

/* Parse --mode, --settings, --json; returns the index after them (a bad
 * one said, exit 2). */
static int
parse_opts(const char *prog, int argc, char **argv, int i, int *mode_set,
    enum pol_mode *mode, const char **file)
{
	const char	*v;

	for (; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return i + 1;
		if (strcmp(argv[i], "--json") == 0) {
			json_out = 1;
			continue;
		}
		if (strncmp(argv[i], "--mode=", 7) == 0 ||
		    strcmp(argv[i], "--mode") == 0) {
			if (argv[i][6] == '=')
				v = argv[i] + 7;
			else if (i + 1 < argc)
				v = argv[++i];
			else
				cli_opt_reject(prog, argv[i], 1, "MODE: chat, "
				    "plan, review or orchestrate");
			if (pol_mode_parse(v, mode) == -1)
				cli_opt_usage_error(prog, "--mode %s: chat, "
				    "plan, review or orchestrate", vis(v));
			*mode_set = 1;
		} else if (strncmp(argv[i], "--settings=", 11) == 0)
			*file = argv[i] + 11;
		else if (strcmp(argv[i], "--settings") == 0) {
			if (i + 1 >= argc)
				cli_opt_reject(prog, argv[i], 1, "a FILE");
			*file = argv[++i];
		} else if (argv[i][0] == '-')
			cli_opt_reject(prog, argv[i], 0, POL_ACCEPTED);
		else
			return i;
	}
	return i;
}

int
cli_policy_main(int argc, char **argv)
{
	struct settings		 s;
	struct pol_result	*r;
	enum pol_mode		 mode = POL_MODE_CHAT;
	const char		*file = NULL;
	char			 err[512], *line, *out;
	size_t			 len = 0, off = 0;
	int			 i, set = 0, rc;

	if (argc >= 2 && strcmp(argv[1], "egress") == 0)
		return cli_policy_egress(argc, argv);
	if (argc < 2)
		return usage_policy();
	if (strcmp(argv[1], "check") != 0)
		cli_opt_usage_error("airlock policy", "unknown verb %s: check "
		    "or egress", vis(argv[1]));
	if ((i = parse_opts("airlock policy check", argc, argv, 2, &set,
	    &mode, &file)) >= argc)
		cli_opt_usage_error("airlock policy check", "no COMMAND LINE "
		    "given (after --)");
	settings_defaults(&s);
	if (settings_load(&s, NULL, file, NULL, err, sizeof(err)) == -1) {
		fprintf(stderr, "airlock: %s\n", err);
		settings_free(&s);
		return 4;	/* 1 and 3 are verdicts, 2 a usage error */
	}
	settings_print_notes(&s, "airlock");
	/* Several words after "--" are one line joined by spaces. */
	for (int k = i; k < argc; k++)
		len += strlen(argv[k]) + 1;
	line = xmalloc(len + 1);
	for (int k = i; k < argc; k++) {
		if (k > i)
			line[off++] = ' ';
		memcpy(line + off, argv[k], strlen(argv[k]));
		off += strlen(argv[k]);
	}
	line[off] = '\0';
	r = pol_check(line, off, mode, s.rules);
	/* People on a terminal read; scripts (and --json) parse. */
	if (json_out || !isatty(STDOUT_FILENO)) {
		out = policy_result_json(r, mode);
		printf("%s\n", out);
		free(out);
	} else
		policy_result_human(r, mode, stdout);
	rc = r->verdict == POL_ALLOW ? 0 : r->verdict == POL_DENY ? 1 : 3;
	free(line);
	pol_result_free(r);
	settings_free(&s);
	return fflush(stdout) == 0 ? rc : 1;
}

/* The verdict, the deciding rule and reason, then each command. */
static void
policy_result_human(const struct pol_result *r, enum pol_mode mode, FILE *f)
{
	size_t	 i;
	char	**a;
	int	 c, first = 1;

	fprintf(f, "%s  (%s mode)  %s\n", pol_verdict_name(r->verdict),
	    pol_mode_name(mode), r->rule != NULL ? vis(r->rule) : "");
	if (r->reason != NULL && r->reason[0] != '\0')
		fprintf(f, "  why: %s\n", vis(r->reason));
	for (c = 0; c < POL_CLASS_MAX; c++)
		if (r->classes & POL_CLASS_BIT(c)) {
			fprintf(f, "%s%s", first ? "  classes: " : ", ",
			    pol_class_name((enum pol_class)c));
			first = 0;
		}
	if (!first)
		fputc('\n', f);
	if (r->ncmds > 1)
		for (i = 0; i < r->ncmds; i++) {
			fprintf(f, "  %-5s ", pol_verdict_name(
			    r->cmds[i].verdict));
			for (a = r->cmds[i].argv; a != NULL && *a != NULL; a++)
				fprintf(f, "%s%.60s", a == r->cmds[i].argv ?
				    "" : " ", vis(*a));
			fprintf(f, "   [%s]\n", r->cmds[i].rule != NULL ?
			    vis(r->cmds[i].rule) : "");
		}
}

int
cli_hook_main(int argc, char **argv)
{
	struct settings	 s;
	enum pol_mode	 mode = POL_MODE_CHAT;
	const char	*file = NULL;
	char		 err[512], *buf, *out;
	size_t		 len = 0, cap = 65536;
	ssize_t		 n;
	int		 i, set = 0, v, loaded, confined = 0;
	const char	*layers = NULL;
	char		*lu = NULL, *lc = NULL, *lm = NULL;

	if (argc < 2)
		return usage_hook();
	if (strcmp(argv[1], "claude-pretooluse") != 0)
		cli_opt_usage_error("airlock hook", "unknown verb %s: "
		    "claude-pretooluse (the hook `airlock setup` registers)",
		    vis(argv[1]));
	/* --confined: registered so by `airlock claude` (hook.h), with
	 * --layers DIR: copies of the settings layers (user.json, cli.json,
	 * managed.json), since the sandbox keeps airlock's own files
	 * unreadable. */
	i = 2;
	if (argc > 2 && strcmp(argv[2], "--confined") == 0) {
		confined = 1;
		i = 3;
		if (argc > 4 && strcmp(argv[3], "--layers") == 0) {
			layers = argv[4];
			i = 5;
		}
	}
	if ((i = parse_opts("airlock hook", argc, argv, i, &set, &mode,
	    &file)) != argc)
		cli_opt_reject("airlock hook", argv[i], 0, "it reads the "
		    "payload on stdin and takes --mode MODE and --settings "
		    "FILE");
	/* untrusted: the PreToolUse payload on stdin, size-capped. */
	buf = xmalloc(cap);
	for (;;) {
		if (len == cap) {
			if (cap >= JSON_MAX_INPUT)
				break;
			cap *= 2;
			buf = xreallocarray(buf, cap, 1);
		}
		n = read(STDIN_FILENO, buf + len, cap - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	settings_defaults(&s);
	if (layers != NULL) {
		xasprintf(&lu, "%s/user.json", layers);
		xasprintf(&lc, "%s/cli.json", layers);
		xasprintf(&lm, "%s/managed.json", layers);
		/* The copies stand for the layers (and --settings). */
		loaded = settings_load(&s, lu, lc, lm, err, sizeof(err)) == 0;
	} else
		loaded = settings_load(&s, NULL, file, NULL, err,
		    sizeof(err)) == 0;
	free(lu);
	free(lc);
	free(lm);
	if (!loaded) {
		/* Fail closed: a broken policy must not allow everything. */
		fprintf(stderr, "airlock: %s\n", err);
		printf("{\"hookSpecificOutput\":{\"hookEventName\":"
		    "\"PreToolUse\",\"permissionDecision\":\"deny\","
		    "\"permissionDecisionReason\":\"airlock: the settings "
		    "cannot be loaded\"}}\n");
	} else {
		out = confined ? hook_claude_confined(buf, len, set, mode,
		    &s, &v) : hook_claude_pretooluse(buf, len, set, mode, &s,
		    &v);
		printf("%s\n", out);
		free(out);
	}
	settings_free(&s);
	free(buf);
	return fflush(stdout) == 0 ? 0 : 1;
}
