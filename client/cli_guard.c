// SPDX-License-Identifier: ISC
/*
 * `airlock run` judges its own command line before it starts anything
 * (R-C4): the same settings layers airlockd reads (the user's
 * file, --settings, the managed file), the same classifier and the run's
 * mode as `airlock policy check` and the hook.  deny refuses.  ask needs
 * an approver: the person at the terminal when stdin and stderr are one
 * (asked on /dev/tty), else there is none and ask is refused too
 * (pol_guard_finish).  The rule that decided is printed either way.
 * An interactive shell on the caller's terminal is not judged: the
 * person types its commands (interactive_shell()).
 *
 * This guards the caller's own command line, not the agent: what runs
 * inside is confined by the sandbox, not by this check, so
 * --no-policy-check (for tests that prove containment with commands the
 * policy refuses) weakens nothing, unless the managed layer sets rules,
 * which it then cannot skip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli_policy.h"
#include "common/host/settings.h"
#include "common/vis.h"
#include "common/xmalloc.h"
#include "policy/classify.h"
#include "policy/guard.h"

/* argv as one sh command line, every word single-quoted. */
static char *
quote_argv(char *const *argv, size_t *lenp)
{
	size_t	 n = 1, i;
	char	*s, *p;
	const char *c;

	for (i = 0; argv[i] != NULL; i++)
		for (n += 3, c = argv[i]; *c != '\0'; c++)
			n += *c == '\'' ? 4 : 1;
	s = p = xmalloc(n);
	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			*p++ = ' ';
		*p++ = '\'';
		for (c = argv[i]; *c != '\0'; c++) {
			if (*c == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else
				*p++ = *c;
		}
		*p++ = '\'';
	}
	*p = '\0';
	*lenp = (size_t)(p - s);
	return s;
}

/* The person at the terminal approves an ask, or not. */
static int
tty_approves(const char *reason, const char *rule)
{
	FILE	*tty;
	char	 line[32];
	int	 yes = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO) ||
	    (tty = fopen("/dev/tty", "r+e")) == NULL)
		return 0;
	/* The reason quotes the command line, which a script wrote. */
	fprintf(tty, "airlock: %s [%s]\nairlock: run it? [y/N] ", vis(reason),
	    vis(rule));
	fflush(tty);
	if (fgets(line, sizeof(line), tty) != NULL)
		yes = line[0] == 'y' || line[0] == 'Y';
	fclose(tty);
	return yes;
}

/*
 * An interactive shell on the caller's terminal: the commands are the
 * ones the person types, not a line an agent wrote, so there is nothing
 * to judge before it starts (the sandbox confines what they type, as it
 * confines anything).  Only a plain shell with no script and no -c, and
 * only when standard input is a terminal: `echo ... | airlock run -- sh`
 * reads hidden text and is judged (opaque).
 */
static int
interactive_shell(char *const *argv)
{
	static const char *const shells[] = {
		"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish",
	};
	static const char *const opts[] = {
		"-i", "-l", "-s", "-il", "-li", "--login", "--norc",
		"--noprofile", "--posix",
	};
	const char	*name;
	size_t		 i, k;

	if (argv[0] == NULL || !isatty(STDIN_FILENO))
		return 0;
	name = strrchr(argv[0], '/') != NULL ? strrchr(argv[0], '/') + 1 :
	    argv[0];
	for (i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (strcmp(name, shells[i]) == 0)
			break;
	if (i == sizeof(shells) / sizeof(shells[0]))
		return 0;
	for (i = 1; argv[i] != NULL; i++) {
		for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
			if (strcmp(argv[i], opts[k]) == 0)
				break;
		if (k == sizeof(opts) / sizeof(opts[0]))
			return 0;
	}
	return 1;
}

static int
managed_rules(const struct settings *s)
{
	char	key[64];
	int	c;

	for (c = 0; c < POL_CLASS_MAX; c++) {
		snprintf(key, sizeof(key), "rules.%s",
		    pol_class_name((enum pol_class)c));
		if (settings_is_locked(s, key))
			return 1;
	}
	return 0;
}

int
cli_run_guard(const char *mode_name, const char *settings_file,
    char *const *argv, int skip)
{
	struct settings		 s;
	struct pol_result	*r;
	enum pol_mode		 mode;
	enum pol_verdict	 v;
	char			 err[512], rule[256], *line;
	size_t			 len;

	if (pol_mode_parse(mode_name, &mode) == -1) {
		fprintf(stderr, "airlock: unknown mode %s\n", mode_name);
		return 2;
	}
	settings_defaults(&s);
	if (settings_load(&s, NULL, settings_file, NULL, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "airlock: %s\n", err);
		settings_free(&s);
		return 125;
	}
	/* What the settings ignore or approximate, once, before the run. */
	settings_print_notes(&s, "airlock");
	if (skip) {
		int locked = managed_rules(&s);

		if (locked)
			fprintf(stderr, "airlock: --no-policy-check refused: "
			    "managed policy %s sets rules\n",
			    s.managed_file != NULL ? s.managed_file :
			    SETTINGS_MANAGED_PATH);
		settings_free(&s);
		return locked ? 2 : 0;
	}
	if (interactive_shell(argv)) {
		settings_free(&s);
		return 0;
	}
	line = quote_argv(argv, &len);
	r = pol_check(line, len, mode, s.rules);
	snprintf(rule, sizeof(rule), "%s", r->rule != NULL ? r->rule : "");
	/* R-C4: ask with no approver is deny; a terminal is one. */
	if (r->verdict == POL_ASK && tty_approves(r->reason != NULL ?
	    r->reason : "", rule))
		v = POL_ALLOW;
	else
		v = pol_guard_finish(r->verdict, 0, rule, sizeof(rule));
	if (v != POL_ALLOW)
		fprintf(stderr, "airlock: refused by policy (%s mode): %s "
		    "[%s]\n", pol_mode_name(mode), r->reason != NULL ?
		    vis(r->reason) : "no reason", vis(rule));
	pol_result_free(r);
	free(line);
	settings_free(&s);
	return v == POL_ALLOW ? 0 : 126;
}
