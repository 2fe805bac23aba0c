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
	/* The homes Linux shows as an empty tmpfs: their contents
	 * (file-read-data) denied but beneath read_allow, what the run
	 * binds there.  Names and metadata stay readable: path lookups and
	 * realpath() stat each component. */
	char *const	*read_private;
	char *const	*read_allow;
	/* The secret set: file-read* denied. */
	char *const	*read_deny;
	/* The writable roots (subpaths); exec is denied beneath them. */
	char *const	*write_allow;
	/* Hard denies, even inside the writable roots. */
	char *const	*write_deny;
	/* A home's protected paths and absolute globs, then its allowlist
	 * (carve), which reopens them. */
	char *const	*home_deny;
	char *const	*home_rules;
	char *const	*carve;
	/* Filename rules: the final component (".env"), the trailing
	 * components (".git/config"), a node and beneath (".git/hooks"). */
	char *const	*name_rules;
	char *const	*path_rules;
	char *const	*tree_rules;
	/* execGrantRoots: exec allowed again beneath them. */
	char *const	*exec_grants;
	/* Loopback TCP ports (the proxies), and the only unix sockets. */
	const unsigned	*ports;
	size_t		 nports;
	char *const	*unix_sockets;
};

/* The profile, NUL-terminated, to free(); never NULL. */
char	*sbpl_generate(const struct sbpl_plan *);
/* A glob as a case-insensitive POSIX regex body, to free(). */
char	*sbpl_glob_regex(const char *glob);

/*
 * Read a profile and check R-M1's invariants: balanced parentheses, every
 * string closed and its escapes known, no control byte raw, the first
 * forms (version 1) and (allow default), every literal or subpath in a
 * deny has each of its ancestors under a file-write-unlink deny, and every
 * path under /tmp, /var or /etc (or /private/...) present in both
 * spellings.  0, or -1 with why in err.
 */
int	 sbpl_check(const char *profile, size_t len, char *err,
	    size_t errlen);
/* 1 if a top-level (verb op ...) rule names (kind "path"), read back
 * through the escapes: what went in is what Seatbelt would see.  A rule
 * may name several operations ("(deny file-write* file-link ...)"). */
int	 sbpl_has_rule(const char *profile, size_t len, const char *verb,
	    const char *op, const char *kind, const char *path);
/* Every string of (kind "...") in the top-level (verb op ...) rules, read
 * back through the escapes (strv_free()), or NULL. */
char	**sbpl_rule_strings(const char *profile, size_t len,
	    const char *verb, const char *op, const char *kind);

#endif
