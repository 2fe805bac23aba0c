// SPDX-License-Identifier: ISC
/*
 * `airlock profile --os linux|macos [run options]`: what a run would be
 * allowed, for a reviewer on any machine.  This file only takes --os out
 * of the command line; the run options are `airlock run`'s own table and
 * the request is the one a run sends (cli_run_profile()), answered by
 * airlockd's sandbox.profile with the plan a launch would build.
 */
#include <stdlib.h>
#include <string.h>

#include "client/cli.h"
#include "client/cli_opt.h"
#include "common/xmalloc.h"

int
cli_profile_main(int argc, char **argv)
{
	char		**av = xcalloc((size_t)argc + 1, sizeof(*av));
	const char	*os = NULL;
	int		 i, n = 0, help = 0, code;

	for (i = 0; i < argc; i++) {
		if (i > 0 && strcmp(argv[i], "--") == 0) {
			for (; i < argc; i++)
				av[n++] = argv[i];
			break;
		}
		if (i > 0 && strcmp(argv[i], "--os") == 0) {
			if (i + 1 >= argc)
				cli_opt_usage_error("airlock profile",
				    "--os needs a value: linux or macos");
			os = argv[++i];
			continue;
		}
		if (i > 0 && strncmp(argv[i], "--os=", 5) == 0) {
			os = argv[i] + 5;
			continue;
		}
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0)
			help = 1;
		av[n++] = argv[i];
	}
	if (!help && os == NULL)
		cli_opt_usage_error("airlock profile", "--os is required: "
		    "linux (the plan as JSON) or macos (the Seatbelt "
		    "profile)");
	if (!help && strcmp(os, "linux") != 0 && strcmp(os, "macos") != 0)
		cli_opt_usage_error("airlock profile", "--os %s: linux or "
		    "macos", os);
	code = cli_run_profile(n, av, os != NULL ? os : "linux");
	free(av);
	return code;
}
