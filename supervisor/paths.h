/* SPDX-License-Identifier: ISC */
/*
 * Paths that airlockd and the airlock client agree on.
 */
#ifndef AIRLOCK_PATHS_H
#define AIRLOCK_PATHS_H

/* $XDG_RUNTIME_DIR/airlock/airlockd.sock, else /tmp/airlock-UID/... */
char	*airlock_default_socket(void);
/*
 * A binary next to the running one (the build directory, or bindir once
 * installed); else fallback_dir/name, or the bare name for a PATH search
 * when fallback_dir is NULL.
 */
char	*airlock_sibling(const char *name, const char *fallback_dir);

#endif
