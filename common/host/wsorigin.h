/* SPDX-License-Identifier: ISC */
/*
 * The workspace's upstream repository, recorded by airlockd outside every
 * sandbox (R-G4; see wsorigin.c).
 */
#ifndef AIRLOCK_WSORIGIN_H
#define AIRLOCK_WSORIGIN_H

#include <stddef.h>

/* $XDG_STATE_HOME/airlock, else ~/.local/state/airlock; NULL without
 * HOME.  free(). */
char	*airlock_state_dir(void);

/*
 * The origin ("owner/name") a run in workspace may push to.  chosen: the
 * user's explicit choice (--origin, the app's originRepo) or NULL; seen:
 * what the workspace's config says now, or NULL.  chosen replaces the
 * record; else the record wins; else (first run) seen is recorded.
 * 0 with *origin (NULL: none) and *changed (NULL, or the origin the
 * config names now when it differs from the record); -1 with err when
 * nothing can be recorded.  free() both.
 */
int	 wsorigin_fix(const char *workspace, const char *chosen,
	    const char *seen, char **origin, char **changed, char *err,
	    size_t errlen);

/* The record's file (NULL: none can be) and the origin it holds
 * (*recorded, NULL: none).  free() both. */
char	*wsorigin_record(const char *workspace, char **recorded);

#endif
