/* SPDX-License-Identifier: ISC */
/*
 * Method and path rules on a TLS-terminated host (settings
 * sandbox.network.tls.inspect, docs/SETTINGS.md).  A rule is the text
 * "allow METHOD [PATH]" or "deny METHOD [PATH]": METHOD an HTTP token or
 * "*", PATH a prefix of whole segments ("/v2/" or "/v2" matches
 * "/v2/x", "/v2" does not match "/v2x"), "/" when absent.  A request is
 * refused when a deny rule matches it, or when the host has allow rules
 * and none matches.  A request target is judged only in its canonical
 * spelling: dot segments, empty segments, a fragment, a backslash and
 * percent-escapes of characters that need none are refused, never
 * normalised, so a server cannot read another path than the one judged.
 * Libc only: the settings, proxyd and tests/fuzz/maskstream_fuzzer.c use
 * it.
 */
#ifndef AIRLOCK_INSPECT_H
#define AIRLOCK_INSPECT_H

#include <stddef.h>

#define INSPECT_RULES_MAX	64
#define INSPECT_RULE_MAX	300	/* one rule's text */
#define INSPECT_HOSTS_MAX	32

struct inspect_rule {
	int	 deny;
	char	 method[32];	/* "*": any */
	char	 path[INSPECT_RULE_MAX];
};

/* "allow GET /v2/": 0, or -1 with why. */
int	 inspect_rule_parse(const char *text, struct inspect_rule *,
	    const char **why);
/*
 * Every line of text ("allow ...\ndeny ...\n"): the number of rules put
 * in r[0..max), or -1 with why.
 */
int	 inspect_rules_parse(const char *text, struct inspect_rule *r,
	    size_t max, const char **why);
/*
 * A request's method and origin-form target (untrusted: from the
 * sandbox) against r[0..n): 0 allowed, -1 refused with why, which names
 * the rule (or the spelling) that refused it.
 */
int	 inspect_judge(const struct inspect_rule *r, size_t n,
	    const char *method, const char *target, char *why, size_t len);

#endif
