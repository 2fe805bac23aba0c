/* SPDX-License-Identifier: ISC */
/* A plan's frames read back, and the plan as a Seatbelt profile. */
#ifndef AIRLOCK_SV_SBPL_H
#define AIRLOCK_SV_SBPL_H

#include <stddef.h>

struct msg;
struct sv_plan;

/* Decode frame i of a plan built by sv_plan_build(); 0 or -1. */
int	 sv_plan_msg(const struct sv_plan *, size_t i, struct msg *);
/* The plan's Seatbelt profile, checked by sbpl_check(); NULL with err
 * when the reader refuses it. */
char	*sv_plan_sbpl(const struct sv_plan *, char *const *exec_grants,
	    char *err, size_t errlen);
#if defined(__APPLE__)
/* The run under sandbox-exec (sv_darwin.c); returns only on failure. */
int	 sv_darwin_exec(const struct sv_plan *, char *const *exec_grants,
	    char *const argv[], char *const envp[], const char *cwd,
	    char *err, size_t errlen);
#endif

#endif
