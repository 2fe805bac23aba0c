// SPDX-License-Identifier: ISC
/*
 * Push rules (see push.h).  Untrusted: ref names come from the sandbox,
 * in the ref-update commands of a push; patterns come from the settings
 * file.
 */
#include <stdio.h>
#include <string.h>

#include "common/refname.h"
#include "policy/push.h"

const char *
pol_push_kind_name(enum pol_push_kind k)
{
	switch (k) {
	case POL_PUSH_CREATE:
		return "create";
	case POL_PUSH_DELETE:
		return "delete";
	case POL_PUSH_UPDATE:
		break;
	}
	return "update";
}

/* A character class at p (just after '['); *end gets the char after ']'. */
static int
class_match(const char *p, char c, const char **end)
{
	int	neg = 0, hit = 0;

	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	if (*p == ']') {
		hit = c == ']';
		p++;
	}
	while (*p != '\0' && *p != ']') {
		if (p[1] == '-' && p[2] != '\0' && p[2] != ']') {
			if (c >= p[0] && c <= p[2])
				hit = 1;
			p += 3;
		} else {
			if (c == *p)
				hit = 1;
			p++;
		}
	}
	if (*p != ']')
		return -1;	/* unterminated: '[' is literal */
	*end = p + 1;
	return hit != neg;
}

/*
 * Iterative glob with one backtrack point: correct because '*' matches
 * every character here, so a later star supersedes an earlier one.
 * O(len(pattern) * len(ref)) at worst.
 */
int
pol_ref_match(const char *pat, const char *ref)
{
	const char	*star = NULL, *mark = NULL, *end;
	int		 m;

	if (pat == NULL || ref == NULL)
		return 0;
	while (*ref != '\0') {
		if (*pat == '*') {
			while (*pat == '*')
				pat++;
			star = pat;
			mark = ref;
			continue;
		}
		if (*pat == '?' && *ref != '/') {
			pat++;
			ref++;
			continue;
		}
		if (*pat == '[') {
			m = class_match(pat + 1, *ref, &end);
			if (m == 1) {
				pat = end;
				ref++;
				continue;
			}
			if (m == -1 && *ref == '[') {
				pat++;
				ref++;
				continue;
			}
		} else if (*pat != '\0' && *pat != '?' && *pat == *ref) {
			pat++;
			ref++;
			continue;
		}
		if (star == NULL)
			return 0;
		pat = star;
		ref = ++mark;
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

enum pol_verdict
pol_push_rule(const struct pol_push_rule *rules, size_t n, const char *ref,
    enum pol_push_kind kind, char *reason, size_t reasonlen)
{
	const char	*kn = pol_push_kind_name(kind);
	enum pol_verdict v;
	size_t		 i;

	if (!refname_valid(ref)) {
		if (reason != NULL && reasonlen > 0)
			snprintf(reason, reasonlen, "%s of an invalid ref name "
			    "denied", kn);
		return POL_DENY;
	}
	for (i = 0; i < n; i++) {
		if (rules[i].ref == NULL || !pol_ref_match(rules[i].ref, ref))
			continue;
		v = rules[i].action;
		if ((unsigned)v > POL_DENY)
			v = POL_DENY;
		if (reason != NULL && reasonlen > 0)
			snprintf(reason, reasonlen, "%s of %s %s by push rule "
			    "%zu (%s)", kn, ref, v == POL_ALLOW ? "allowed" :
			    v == POL_ASK ? "needs approval" : "denied", i + 1,
			    rules[i].ref);
		return v;
	}
	if (reason != NULL && reasonlen > 0)
		snprintf(reason, reasonlen, "%s of %s denied: no push rule "
		    "matches", kn, ref);
	return POL_DENY;
}
