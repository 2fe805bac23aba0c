// SPDX-License-Identifier: ISC
#ifndef AIRLOCK_PROTECT_H
#define AIRLOCK_PROTECT_H

#include <stddef.h>
#include <stdint.h>

/* System directories visible read-only (R-L1). */
extern const char *const protect_sys_dirs[];
extern const size_t n_protect_sys_dirs;

/* /etc entries masked although /etc is visible (R-L1). */
extern const char *const protect_etc_secrets[];
extern const size_t n_protect_etc_secrets;

/* The secret set, relative to $HOME (R-L2). */
extern const char *const protect_home_secrets[];
extern const size_t n_protect_home_secrets;

/* Protected names mounted read-only where they exist at launch (R-L3). */
extern const char *const protect_existing[];
extern const size_t n_protect_existing;

/* The filename rules checked at creation time (R-L3, R-L4). */
struct protect_rule {
	uint32_t	 kind;		/* NR_* (common/namerule.h) */
	const char	*pattern;
	const char	*except;
};
extern const struct protect_rule protect_write_rules[];
extern const size_t n_protect_write_rules;

/*
 * The i-th filename rule (0 past the end), and the i-th entry of the
 * secret set (NULL past the end; *in_home: relative to $HOME, else
 * absolute), for the hook and the file tools.
 */
int	 protect_rule_at(size_t i, uint32_t *kind, const char **pattern,
	    const char **except);
const char *protect_secret_at(size_t i, int *in_home);

/*
 * A carve-out is opened by its canonical path: 1 if real (given's
 * canonical spelling) lies beneath secret (or its canonical spelling)
 * as another entry than given names there (the secret itself opens
 * nothing, so a link to it is no such entry), *inside 1 if given
 * is not beneath secret at all (a link elsewhere into it).
 */
int	 protect_resolves_into(const char *given, const char *real,
	    const char *secret, int *inside);

/*
 * Where a read-only bind may be shown at another path than its own
 * (--ro-bind SRC:DST): NULL, or why not (in why, one phrase for
 * "DST: <why>").  The lexical rules and the system directories, which
 * the sandbox shows from this machine; the workspace and the other
 * binds are the caller's to compare.
 */
const char *protect_bind_dst(const char *dst, char *why, size_t len);

#endif
