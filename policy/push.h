/* SPDX-License-Identifier: ISC */
/*
 * Push rules (SPEC §12 git.pushRules, R-G2): the gateway asks, per ref
 * update, whether it may go upstream.  First matching rule wins; no match
 * is deny.  A name git itself would refuse (common/refname.h) is denied
 * before any rule is read.  Pure: no I/O.
 *
 * Ref patterns: '*' matches any run of characters INCLUDING '/', as in
 * git refspecs ("refs/heads/\*" is every branch, "refs/heads/release/\*"
 * also covers release/1.2/hotfix).  This is deliberate: with a '*' that
 * stopped at '/', a deny or ask rule for release/\* could be bypassed by
 * pushing release/x/y.  '**' means the same as '*'.  '?' matches one
 * character other than '/'; [abc], [a-z] and [!a] are character classes.
 * A pattern without wildcards must equal the ref.
 */
#ifndef AIRLOCK_PUSH_H
#define AIRLOCK_PUSH_H

#include <stddef.h>

#include "policy/policy.h"

enum pol_push_kind {
	POL_PUSH_CREATE = 0,	/* old id all zeros */
	POL_PUSH_UPDATE,
	POL_PUSH_DELETE,	/* new id all zeros */
};

struct pol_push_rule {
	const char	*ref;		/* pattern */
	enum pol_verdict action;
};

/*
 * Decide one ref update.  reason receives e.g. "update of refs/heads/main
 * denied by push rule 1 (refs/heads/main)" or "... no push rule matches".
 * An invalid ref name is denied whatever the rules say.
 */
enum pol_verdict pol_push_rule(const struct pol_push_rule *rules, size_t n,
	    const char *ref, enum pol_push_kind kind, char *reason,
	    size_t reasonlen);
/* 1 when ref matches pattern (semantics above), else 0. */
int	pol_ref_match(const char *pattern, const char *ref);
const char *pol_push_kind_name(enum pol_push_kind);

#endif
