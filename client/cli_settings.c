// SPDX-License-Identifier: ISC
/*
 * `airlock settings [--explain] [--settings FILE]`: the settings every
 * command of this user starts from, after the layers (the user's file or
 * srt's, --settings, managed policy) are merged; with --explain, the
 * file each value came from ("default" when none set it).  The run's
 * built-in limits are listed too: they are what a user compares with the
 * documentation (tests/integration/lifecycle.sh does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cli.h"
#include "common/host/settings.h"
#include "common/vis.h"
#include "common/xmalloc.h"

static void __attribute__((noreturn))
settings_usage(int code)
{
	fprintf(code == 0 ? stdout : stderr, "usage: airlock settings "
	    "[--explain] [--settings FILE]\n"
	    "  The effective settings; --explain adds the file each value "
	    "came from.\n");
	exit(code);
}

/* The file that set key last, or "default". */
static const char *
source_of(const struct settings *s, const char *key)
{
	size_t	i, kl = strlen(key);

	for (i = 0; s->sources != NULL && s->sources[i] != NULL; i++)
		if (strncmp(s->sources[i], key, kl) == 0 &&
		    s->sources[i][kl] == '\t')
			return s->sources[i] + kl + 1;
	return "default";
}

static void
line(const struct settings *s, int explain, const char *key,
    const char *value)
{
	if (explain)
		printf("%-36s %-12s %s\n", key, value, vis(source_of(s, key)));
	else
		printf("%-36s %s\n", key, value);
}

static void
line_int(const struct settings *s, int explain, const char *key, long v)
{
	char	buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	line(s, explain, key, buf);
}

static void
line_bool(const struct settings *s, int explain, const char *key, int v)
{
	line(s, explain, key, v ? "true" : "false");
}

int
cli_settings_main(int argc, char **argv)
{
	struct settings	 s;
	const char	*file = NULL;
	char		 err[1024], buf[64];
	int		 explain = 0, i;
	size_t		 k;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--explain") == 0)
			explain = 1;
		else if (strcmp(argv[i], "--settings") == 0 && i + 1 < argc)
			file = argv[++i];
		else if (strncmp(argv[i], "--settings=", 11) == 0)
			file = argv[i] + 11;
		else if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0)
			settings_usage(0);
		else {
			fprintf(stderr, "airlock settings: unknown option "
			    "%s\n", argv[i]);
			settings_usage(2);
		}
	}
	settings_defaults(&s);
	if (settings_load(&s, NULL, file, NULL, err, sizeof(err)) == -1) {
		fprintf(stderr, "airlock settings: %s\n", err);
		return 4;
	}
	settings_print_notes(&s, "airlock");
	line_bool(&s, explain, "sandbox.enabled", s.sandbox_enabled);
	line_bool(&s, explain, "sandbox.failIfUnavailable",
	    s.fail_if_unavailable);
	line_bool(&s, explain, "sandbox.allowUnsandboxedCommands",
	    s.allow_unsandboxed);
	line_bool(&s, explain, "sandbox.network.useBaseline",
	    s.egress_baseline);
	line_int(&s, explain, "sandbox.network.maxConnections",
	    (long)s.max_connections);
	line_int(&s, explain, "approvals.timeoutSeconds",
	    (long)s.approvals_timeout);
	line_int(&s, explain, "worktrees.spares", s.worktrees_spares);
	line_int(&s, explain, "acp.permissionTimeout",
	    s.acp_permission_timeout);
	/* Every other key a file set, as spelled there. */
	for (k = 0; s.sources != NULL && s.sources[k] != NULL; k++) {
		char *key = xstrdup(s.sources[k]);

		key[strcspn(key, "\t")] = '\0';
		if (strcmp(key, "sandbox.enabled") != 0 &&
		    strcmp(key, "sandbox.failIfUnavailable") != 0 &&
		    strcmp(key, "sandbox.allowUnsandboxedCommands") != 0 &&
		    strcmp(key, "sandbox.network.useBaseline") != 0 &&
		    strcmp(key, "sandbox.network.maxConnections") != 0 &&
		    strcmp(key, "approvals.timeoutSeconds") != 0 &&
		    strcmp(key, "worktrees.spares") != 0 &&
		    strcmp(key, "acp.permissionTimeout") != 0)
			line(&s, explain, key, "(set)");
		free(key);
	}
	/* airlock run's limits: options, not settings, but defaults a
	 * user reads about in airlock(1). */
	snprintf(buf, sizeof(buf), "%ds", RUN_DEFAULT_TIMEOUT);
	line(&s, explain, "run --timeout", buf);
	line_int(&s, explain, "run --pids", RUN_DEFAULT_PIDS);
	snprintf(buf, sizeof(buf), "%lluG",
	    (unsigned long long)(RUN_DEFAULT_OUTPUT >> 30));
	line(&s, explain, "run --output-limit", buf);
	settings_free(&s);
	return 0;
}
