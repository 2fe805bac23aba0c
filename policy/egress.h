/* SPDX-License-Identifier: ISC */
/*
 * Egress decisions (SPEC R-E2, R-E4, R-E5): the curated baseline
 * allowlist, the hard deny list that wins over every allow, composing a
 * session's allowlist, and the two checks proxyd makes for every
 * connection: the target host:port against the rules (before any DNS),
 * then each resolved address against the special ranges (loopback,
 * link-local, private, CGNAT, unspecified, multicast, documentation,
 * benchmarking, metadata, and the host's own addresses).  Pure but for
 * the table of the host's addresses, which proxyd fills once.
 */
#ifndef AIRLOCK_EGRESS_H
#define AIRLOCK_EGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "policy/policy.h"

#define EGRESS_REASON_MAX	192

/* NULL-terminated lists, for the supervisor's `status` and for tests. */
extern const char *const egress_baseline[];
extern const char *const egress_hard_deny[];
/* The baseline group of pattern ("git hosting"), NULL if not in it. */
const char *egress_baseline_group(const char *pattern);

/*
 * The session's allowlist: baseline + GitHub + spec_extra (the spec's
 * egressAllowlist) + settings_allowed (workspace settings), without
 * duplicates; invalid patterns are left out (the caller validates user
 * input with dom_pattern_valid() first and reports it).  network_enabled
 * 0 gives an empty list.  Either extra list may be NULL.  strv_free().
 */
char	**egress_allowlist(int network_enabled, char *const *spec_extra,
	    char *const *settings_allowed);
/*
 * The same list without the baseline entries neither extra list names
 * (the settings turned the baseline off).  Frees v; strv_free().
 */
char	**egress_drop_baseline(char **v, char *const *spec_extra,
	    char *const *settings_allowed);

/* Compiled rules of one session. */
struct egress_rules;

/*
 * Compile allow and deny patterns (either may be NULL).  An invalid allow
 * pattern is skipped (allows less); an invalid deny pattern fails the
 * whole set (fails closed): NULL with *why naming the pattern problem.
 */
struct egress_rules *egress_rules_new(char *const *allow, char *const *deny,
	    const char **why);
void	 egress_rules_free(struct egress_rules *);

/*
 * Decide on a target host:port as requested (name or IP literal, before
 * DNS): hard deny, then the session's deny patterns, then the allow
 * patterns.  reason names the deciding rule, e.g. "allowed by
 * '*.github.com'", "hard-denied: '169.254.169.254'", "not in allowlist".
 */
enum pol_verdict egress_rules_decide(const struct egress_rules *,
	    const char *host, uint16_t port, char *reason, size_t reasonlen);

/*
 * Check one address the target resolved to (or the literal itself):
 * hard-denied addresses are always refused; loopback, link-local,
 * private (RFC 1918, ULA), CGNAT, unspecified, multicast, broadcast,
 * documentation, benchmarking, reserved addresses and the host's own
 * (egress_host_addr_add) are refused unless an IP rule (literal or CIDR) of the
 * allowlist covers address and port, or host is "localhost" allowed by an
 * exact "localhost" rule and the address is loopback.  IPv4-mapped IPv6
 * addresses are checked as IPv4.  af is AF_INET (addr 4 bytes) or
 * AF_INET6 (16 bytes).
 */
enum pol_verdict egress_rules_check_addr(const struct egress_rules *,
	    const char *host, int af, const void *addr, uint16_t port,
	    char *reason, size_t reasonlen);

/* One-shot conveniences that compile the lists each call. */
enum pol_verdict egress_decide(char *const *allow, char *const *deny,
	    const char *host, uint16_t port, char *reason, size_t reasonlen);
enum pol_verdict egress_check_addr(char *const *allow, const char *host,
	    int af, const void *addr, uint16_t port, char *reason,
	    size_t reasonlen);

/* Name of the special range addr falls in ("loopback", ...), or NULL. */
const char *egress_addr_special(int af, const void *addr);

/*
 * The host's own interface addresses, special as "host" (a service there
 * is on this machine).  proxyd adds them before it restricts itself;
 * -1 for an unknown family or a full table.  Process-wide.
 */
#define EGRESS_HOST_ADDRS_MAX	256
int	egress_host_addr_add(int af, const void *addr);
void	egress_host_addrs_clear(void);

#endif
