// SPDX-License-Identifier: ISC
/*
 * Names of verdicts, effect classes and modes, in both directions.
 */
#include <string.h>

#include "policy/policy.h"

static const char *const verdict_names[] = { "allow", "ask", "deny" };
static const char *const class_names[POL_CLASS_MAX] = {
	"create-commit", "open-pull-request", "publish-review-or-merge",
	"write-external-tracker", "install-package", "network-access",
};
static const char *const mode_names[] = {
	"chat", "plan", "review", "orchestrate",
};

static int
lookup(const char *const *names, int n, const char *s)
{
	int	i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

const char *
pol_verdict_name(enum pol_verdict v)
{
	return (unsigned)v < 3 ? verdict_names[v] : "deny";
}

int
pol_verdict_parse(const char *s, enum pol_verdict *v)
{
	int	i = lookup(verdict_names, 3, s);

	if (i < 0)
		return -1;
	*v = (enum pol_verdict)i;
	return 0;
}

const char *
pol_class_name(enum pol_class c)
{
	return (unsigned)c < POL_CLASS_MAX ? class_names[c] : "unknown";
}

int
pol_class_parse(const char *s, enum pol_class *c)
{
	int	i = lookup(class_names, POL_CLASS_MAX, s);

	if (i < 0)
		return -1;
	*c = (enum pol_class)i;
	return 0;
}

const char *
pol_mode_name(enum pol_mode m)
{
	return (unsigned)m < 4 ? mode_names[m] : "chat";
}

int
pol_mode_parse(const char *s, enum pol_mode *m)
{
	int	i = lookup(mode_names, 4, s);

	if (i < 0)
		return -1;
	*m = (enum pol_mode)i;
	return 0;
}

int
pol_mode_readonly(enum pol_mode m)
{
	return m != POL_MODE_CHAT;
}
