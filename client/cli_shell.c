// SPDX-License-Identifier: ISC
/*
 * `airlock shell [--cwd DIR] [--settings FILE] [-- SHELL [ARG...]]`: a
 * shell in the fixed terminal profile (SPEC R-A4), on this terminal: the
 * cwd and $HOME writable, the network open (every domain, through
 * proxyd, logged), the secret set unreadable, no push gateway.  It is
 * what airlockd's native terminals (terminal.open, sv_terminal.c) run on
 * their PTY, and a person can type it too.  Built as `airlock run`
 * builds its sandbox (cli_run_adapter()); where no sandbox can be built
 * it fails (exit 125) instead of handing out a host shell.
 */
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_opt.h"
#include "common/xmalloc.h"

static const char shell_head[] =
"usage: airlock shell [options] [-- SHELL [ARG...]]\n"
"  A shell (yours, or SHELL) in the terminal profile: the directory and\n"
"  $HOME writable, the secret set unreadable, no push gateway, and the\n"
"  network open to every host through airlock's proxy, as the domain\n"
"  pattern '*' opens it for `airlock run` (this machine's loopback and\n"
"  private networks stay closed; deniedDomains apply).\n"
"  Fails (125) where no sandbox can be built.  See airlock(1).\n"
"options:\n";

int
cli_shell_main(int argc, char **argv)
{
	struct run_adapter ad;
	struct run_opts	 o;
	struct passwd	*pw;
	const char	*cwd, *settings, *home, *shell;
	char		**rargv = NULL, here[PATH_MAX];
	int		 i, n, rc;

	run_opts_init(&o);
	i = cli_opt_parse(CLI_SHELL, "airlock shell", shell_head, argc, argv,
	    &o);
	cwd = o.workspace;
	settings = o.settings;
	if (cwd == NULL)
		cwd = getcwd(here, sizeof(here)) != NULL ? here : "/";
	if ((home = getenv("HOME")) == NULL || home[0] != '/') {
		fprintf(stderr, "airlock shell: $HOME is not set\n");
		return 125;
	}
	if ((shell = getenv("SHELL")) == NULL || shell[0] != '/')
		shell = (pw = getpwuid(getuid())) != NULL &&
		    pw->pw_shell[0] == '/' ? pw->pw_shell : "/bin/sh";

	rargv = strv_add(rargv, "shell");
	rargv = strv_add(rargv, "--quiet");
	rargv = strv_add(rargv, "--workspace");
	rargv = strv_add(rargv, cwd);
	if (strcmp(cwd, home) != 0) {
		rargv = strv_add(rargv, "--bind-try");
		rargv = strv_add(rargv, home);
	}
	rargv = strv_add(rargv, "--network");
	rargv = strv_add(rargv, "on");
	rargv = strv_add(rargv, "--allow-domain");
	rargv = strv_add(rargv, "*");
	if (settings != NULL) {
		rargv = strv_add(rargv, "--settings");
		rargv = strv_add(rargv, settings);
	}
	/* A person types: their commands are theirs to judge. */
	rargv = strv_add(rargv, "--no-policy-check");
	rargv = strv_add(rargv, "--");
	if (i < argc)
		for (; i < argc; i++)
			rargv = strv_add(rargv, argv[i]);
	else
		rargv = strv_add(rargv, shell);
	for (n = 0; rargv[n] != NULL; n++)
		;
	memset(&ad, 0, sizeof(ad));
	ad.no_push_gateway = 1;
	ad.require_sandbox = 1;
	rc = cli_run_adapter(n, rargv, &ad);
	strv_free(rargv);
	return rc;
}
