// SPDX-License-Identifier: ISC
/*
 * Guardrails engine (see guard.h): effect classes to verdicts, and the
 * fail-closed rule that an unanswerable question is a no.
 */
#include <stdio.h>
#include <string.h>

#include "policy/classify.h"
#include "policy/guard.h"

void
pol_rules_default(enum pol_verdict rules[POL_CLASS_MAX])
{
	rules[POL_CLASS_CREATE_COMMIT] = POL_ALLOW;
	rules[POL_CLASS_OPEN_PULL_REQUEST] = POL_ASK;
	rules[POL_CLASS_PUBLISH_REVIEW_OR_MERGE] = POL_ASK;
	rules[POL_CLASS_WRITE_EXTERNAL_TRACKER] = POL_ASK;
	rules[POL_CLASS_INSTALL_PACKAGE] = POL_ASK;
	rules[POL_CLASS_NETWORK_ACCESS] = POL_ALLOW;
}

enum pol_verdict
pol_guard_classes(const enum pol_verdict *rules, unsigned classes,
    char *rule, size_t rulelen)
{
	enum pol_verdict defaults[POL_CLASS_MAX], v = POL_ALLOW, r;
	int		 c, found = 0;

	if (rules == NULL) {
		pol_rules_default(defaults);
		rules = defaults;
	}
	if (rule != NULL && rulelen > 0)
		snprintf(rule, rulelen, "default:allow");
	for (c = 0; c < POL_CLASS_MAX; c++) {
		if ((classes & POL_CLASS_BIT(c)) == 0)
			continue;
		r = rules[c];
		if ((unsigned)r > POL_DENY)
			r = POL_DENY;	/* a corrupt rule fails closed */
		if (!found || r > v) {
			v = r;
			found = 1;
			if (rule != NULL && rulelen > 0)
				snprintf(rule, rulelen, "rules.%s=%s",
				    pol_class_name((enum pol_class)c),
				    pol_verdict_name(r));
		}
	}
	return v;
}

enum pol_verdict
pol_guard_finish(enum pol_verdict v, int have_approver, char *rule,
    size_t rulelen)
{
	size_t	n;

	if (v != POL_ASK || have_approver)
		return v;
	if (rule != NULL && rulelen > 0) {
		n = strnlen(rule, rulelen - 1);
		snprintf(rule + n, rulelen - n, " (no approver: deny)");
	}
	return POL_DENY;
}

enum pol_verdict
pol_guard_tool(const enum pol_verdict *rules, enum pol_mode mode,
    unsigned classes, int mutating, int have_approver, char *rule,
    size_t rulelen)
{
	enum pol_verdict v;

	if (mutating && pol_mode_readonly(mode)) {
		if (rule != NULL && rulelen > 0)
			snprintf(rule, rulelen, "mode:%s", pol_mode_name(mode));
		return POL_DENY;
	}
	v = pol_guard_classes(rules, classes, rule, rulelen);
	return pol_guard_finish(v, have_approver, rule, rulelen);
}
