// SPDX-License-Identifier: ISC
/*
 * The macOS backend's spawn (SPEC R-M1, R-M2): a run's command under
 * sandbox-exec, with the profile common/seatbelt.c makes from the run's
 * plan, in the plan's environment and working directory.  It is built on
 * Darwin alone: on Linux airlock-launcher does this job with namespaces,
 * so no Linux program links this file (supervisor.mk leaves it out) and
 * `make loc` does not count it.  It has never run: the unit build only
 * checks that it compiles as Darwin would (-D__APPLE__ -fsyntax-only).
 */
#if defined(__APPLE__)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "supervisor/sv_sbpl.h"

#define SANDBOX_EXEC	"/usr/bin/sandbox-exec"

/*
 * Replace the calling process (airlockd's child for the run) with argv
 * under sandbox-exec.  envp is the run's environment (the plan's when
 * NULL), cwd its working directory (the plan's when NULL).  Returns only
 * on failure, -1 with why in err: a profile the reader refuses, a
 * directory that cannot be entered, no sandbox-exec.  Never runs the
 * command without the profile.
 */
int
sv_darwin_exec(const struct sv_plan *p, char *const *exec_grants,
    char *const argv[], char *const envp[], const char *cwd, char *err,
    size_t errlen)
{
	char	**av, *profile;
	size_t	  n, i;

	for (n = 0; argv != NULL && argv[n] != NULL; n++)
		;
	if (n == 0) {
		snprintf(err, errlen, "no command to run");
		return -1;
	}
	if ((profile = sv_plan_sbpl(p, exec_grants, err, errlen)) == NULL)
		return -1;
	if (cwd == NULL)
		cwd = p->workdir;
	if (cwd != NULL && chdir(cwd) == -1) {
		snprintf(err, errlen, "%s: %s", cwd, strerror(errno));
		free(profile);
		return -1;
	}
	/* sandbox-exec -p PROFILE -- command args: the "--" ends its
	 * options, so a command named "-f" is not read as one. */
	av = xreallocarray(NULL, n + 5, sizeof(*av));
	av[0] = "sandbox-exec";
	av[1] = "-p";
	av[2] = profile;
	av[3] = "--";
	for (i = 0; i < n; i++)
		av[4 + i] = argv[i];
	av[4 + n] = NULL;
	execve(SANDBOX_EXEC, av, envp != NULL ? envp : p->env_base);
	snprintf(err, errlen, "%s: %s", SANDBOX_EXEC, strerror(errno));
	free(av);
	free(profile);
	return -1;
}
#endif
