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
#include "client/cli_policy.h"
#include "common/json.h"
#include "common/log.h"
#include "common/vis.h"
#include "common/xmalloc.h"

#define AIRLOCK_VERSION	"0.1.0"

static void
usage(void)
{
	fprintf(stderr,
"usage: airlock <command> [options]\n"
"  run [options] -- CMD [ARG...]   run one command in a sandbox\n"
"  claude [options] [-- ARG...]    the Claude Code CLI in a sandbox\n"
"  acp [options] -- AGENT [ARG...] an ACP agent in a sandbox (stdio)\n"
"  matrix [--json]                 which boundary holds for which agent\n"
"  shell [--cwd DIR] [-- SHELL]    a shell in the terminal profile\n"
"  status [--socket PATH] [--json] what this host supports\n"
"  fs [--workspace DIR] [--mode M] VERB ...\n"
"                                  the file tools in a sandbox (JSON out)\n"
"  policy check [--mode M] [--settings F] [--json] -- 'LINE'\n"
"                                  the command policy's verdict (exit 0\n"
"                                  allow, 1 deny, 3 ask)\n"
"  hook claude-pretooluse          Claude Code PreToolUse hook (stdin)\n"
"  proxy-connect PROXY HOST PORT   SOCKS5 tunnel on stdin/stdout (ssh's\n"
"                                  ProxyCommand inside a sandbox)\n"
"  approve [--socket PATH]        answer approval requests (y/n/a)\n"
"  audit [--session ID] [--since RFC3339]\n"
"                                  the audit log of decisions\n"
"  worktree provision|ls|rm       a conversation's copy-on-write copies\n"
"  settings [--explain] [--settings F]\n"
"                                  the effective settings, and with\n"
"                                  --explain the file of each value\n"
"  version\n"
"See airlock(1).\n");
	exit(2);
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

/* `airlock status` on a terminal: what a person asks first, then all. */
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
		    "enabled", "policyLocked", "daemons", NULL };

		for (k = 0; shown[k] != NULL; k++)
			if (strcmp(res->keys[i], shown[k]) == 0)
				break;
		if (shown[k] != NULL)
			continue;
		fprintf(f, "  %-16s ", vis(res->keys[i]));
		human_value(f, res->items[i]);
		fputc('\n', f);
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
		}
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
		else
			usage();
	}
	/* People on a terminal read; scripts (and --json) parse. */
	json_out = json_out || !isatty(STDOUT_FILENO);
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
	log_init("airlock", 0);
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "run") == 0)
		return cli_run_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "claude") == 0)
		return cli_claude_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "acp") == 0)
		return cli_acp_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "acp-relay") == 0)
		return cli_acp_relay_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "matrix") == 0)
		return cli_matrix_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "shell") == 0)
		return cli_shell_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "fs") == 0)
		return cli_fs_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "status") == 0)
		return cli_status_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "policy") == 0)
		return cli_policy_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "hook") == 0)
		return cli_hook_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "proxy-connect") == 0)
		return cli_proxyconnect_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "approve") == 0)
		return cli_approve_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "audit") == 0)
		return cli_audit_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "worktree") == 0)
		return cli_worktree_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "settings") == 0)
		return cli_settings_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "version") == 0 ||
	    strcmp(argv[1], "--version") == 0) {
		printf("airlock %s\n", AIRLOCK_VERSION);
		return 0;
	}
	usage();
	return 2;
}
