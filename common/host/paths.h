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
 * installed); else, when fallback_dir is given, one in ../libexec/airlock
 * from the running one's directory (the same install, wherever it was
 * put), else fallback_dir/name; the bare name for a PATH search when
 * fallback_dir is NULL.
 */
char	*airlock_sibling(const char *name, const char *fallback_dir);

/*
 * Where a sandbox sees the airlock client (read-only), for ssh's
 * ProxyCommand (`airlock proxy-connect`): no netcat needed inside.
 */
/* Drop ".", "..", repeated and trailing slashes of an absolute path. */
void	airlock_path_clean(char *);
/*
 * AIRLOCK_DEBUG set to "" or "0" means off: unset it, so that neither
 * this process (log_init() reads it as set or not) nor what it starts
 * traces.  Called first by the client and by airlockd.
 */
void	airlock_debug_env(void);

#define AIRLOCK_SANDBOX_SELF	"/run/airlock/bin/airlock"
/* The file tools' helper, where the sandbox sees it. */
#define AIRLOCK_SANDBOX_FS	"/run/airlock/bin/airlock-fs"

#endif
