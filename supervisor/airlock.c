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

#include "common/json.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "supervisor/cli.h"
#include "supervisor/cli_policy.h"

#define AIRLOCK_VERSION	"0.1.0"

static void
usage(void)
{
	fprintf(stderr,
"usage: airlock <command> [options]\n"
"  run [options] -- CMD [ARG...]   run one command in a sandbox\n"
"  status [--socket PATH]          what this host supports (JSON)\n"
"  policy check [--mode M] [--settings F] -- 'LINE'\n"
"                                  the command policy's verdict (JSON)\n"
"  hook claude-pretooluse          Claude Code PreToolUse hook (stdin)\n"
"  proxy-connect PROXY HOST PORT   SOCKS5 tunnel on stdin/stdout (ssh's\n"
"                                  ProxyCommand inside a sandbox)\n"
"  version\n"
"See airlock(1).\n");
	exit(2);
}

int
cli_status_main(int argc, char **argv)
{
	struct rpc	 rpc;
	struct json	*res;
	struct jgen	*j;
	const char	*sock = NULL, *buf;
	char		 err[512], *extra[] = { "--quiet", NULL };
	int		 code, i;
	size_t		 len;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
			sock = argv[++i];
		else
			usage();
	}
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
		printf("%.*s\n", (int)len, buf);
		jgen_free(j);
		if (rpc.fd != -1)
			rpc_close(&rpc);
		return 0;
	}
	j = jgen_new();
	jgen_value(j, res);
	buf = jgen_buf(j, &len);
	printf("%.*s\n", (int)len, buf);
	jgen_free(j);
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
	if (strcmp(argv[1], "status") == 0)
		return cli_status_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "policy") == 0)
		return cli_policy_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "hook") == 0)
		return cli_hook_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "proxy-connect") == 0)
		return cli_proxyconnect_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "version") == 0 ||
	    strcmp(argv[1], "--version") == 0) {
		printf("airlock %s\n", AIRLOCK_VERSION);
		return 0;
	}
	usage();
	return 2;
}
