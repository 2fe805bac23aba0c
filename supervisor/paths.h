/* SPDX-License-Identifier: ISC */
/*
 * Paths that airlockd and the airlock client agree on.
 */
#ifndef AIRLOCK_PATHS_H
#define AIRLOCK_PATHS_H

/* $XDG_RUNTIME_DIR/airlock/airlockd.sock, else /tmp/airlock-UID/... */
char	*airlock_default_socket(void);

#endif
