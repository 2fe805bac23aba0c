/* SPDX-License-Identifier: ISC */
/*
 * The macOS backend's profile (SPEC R-M1, R-M2): a resolved plan written
 * as a Seatbelt (SBPL) profile for sandbox-exec.  Plain C over strings,
 * no I/O, so that it builds and is tested on Linux; only the launcher's
 * spawn path (Darwin) would run it for real.  sbpl_check() is the
 * independent reader the tests and the fuzzer use: it parses a profile
 * as S-expressions and checks the invariants R-M1 promises.
 */
#ifndef AIRLOCK_SEATBELT_H
#define AIRLOCK_SEATBELT_H

#include <stddef.h>

/* What a run may do, in the host's own paths (binds show a host path at
 * that same path, so a plan's destinations are host paths). */
struct sbpl_plan {
	char *const	*read_deny;	/* the secret set: file-read* denied */
	char *const	*write_allow;	/* writable roots (subpaths) */
	char *const	*write_deny;	/* hard denies even inside them */
	char *const	*carve;		/* allowed again after home_deny */
	char *const	*home_deny;	/* a home's protected names (before
					   carve) */
	char *const	*home_rules;	/* the same as absolute globs: a node
					   and beneath, before carve */
	char *const	*name_rules;	/* final-component globs: ".env" */
	char *const	*path_rules;	/* trailing-components globs:
					   ".git/config" */
	char *const	*tree_rules;	/* a node and beneath: ".git/hooks" */
	char *const	*exec_grants;	/* execGrantRoots: exec allowed */
	const unsigned	*ports;		/* loopback TCP ports (proxies) */
	size_t		 nports;
	char *const	*unix_sockets;	/* the only unix sockets allowed */
};

/* The profile, NUL-terminated, to free(); never NULL. */
char	*sbpl_generate(const struct sbpl_plan *);
/* A glob of one path component as a case-insensitive POSIX regex body,
 * to free(). */
char	*sbpl_glob_regex(const char *glob);

/*
 * Read a profile and check R-M1's invariants: balanced parentheses, every
 * string closed and its escapes known, no control byte raw, the first
 * forms (version 1) and (allow default), every literal or subpath in a
 * deny has each of its ancestors under a file-write-unlink deny, and every
 * path under /tmp, /var or /etc (or /private/...) present in both
 * spellings.  0, or -1 with why in err.
 */
int	 sbpl_check(const char *profile, size_t len, char *err, size_t errlen);
/* 1 if a top-level (verb op ...) rule names (kind "path"), read back
 * through the escapes: what went in is what Seatbelt would see. */
int	 sbpl_has_rule(const char *profile, size_t len, const char *verb,
	    const char *op, const char *kind, const char *path);

#endif
