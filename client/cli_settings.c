// SPDX-License-Identifier: ISC
/*
 * `airlock settings [--explain] [--settings FILE]`: the settings every
 * command of this user starts from, after the layers (the user's file or
 * srt's, --settings, managed policy) are merged; with --explain, the
 * file each value came from ("default" when none set it).  The run's
 * built-in limits are listed too: they are what a user compares with the
 * documentation (tests/integration/lifecycle.sh does).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cli.h"
#include "common/host/settings.h"
#include "common/json.h"
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

static void	line(const struct settings *, int, const char *,
		    const char *);
static void	line_from(const char *, const char *, const char *);

/*
 * The value key has in file, as spelled there (keys joined with dots,
 * as record_sources() in settings.c joins them); NULL if it cannot be
 * read back.  Settings files hold no secrets (a credential's value is
 * refused there), so every value may be shown.
 */
static struct json *
leaf_find(struct json *v, const char *prefix, const char *want)
{
	struct json	*r = NULL;
	char		*k;
	size_t		 i;

	if (v->type != JSON_OBJECT || v->n == 0)
		return prefix != NULL && strcmp(prefix, want) == 0 ? v : NULL;
	for (i = 0; i < v->n && r == NULL; i++) {
		if (prefix == NULL)
			k = xstrdup(v->keys[i]);
		else
			xasprintf(&k, "%s.%s", prefix, v->keys[i]);
		if (strncmp(want, k, strlen(k)) == 0)
			r = leaf_find(v->items[i], k, want);
		free(k);
	}
	return r;
}

static struct json *
file_json(const char *file)
{
	FILE	*f;
	char	*buf = NULL, err[256];
	size_t	 cap = 0, len = 0, n;
	struct json *root = NULL;

	if ((f = fopen(file, "re")) == NULL)
		return NULL;
	do {
		if (len + 4096 > cap)
			buf = xreallocarray(buf, 1, cap = len + 65536);
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0 && len < (4U << 20));
	fclose(f);
	if (buf != NULL)
		root = json_parse(buf, len, err, sizeof(err));
	free(buf);
	return root;
}

/* key's value from the file that set it, one line a list element. */
static void
line_values(const struct settings *s, int explain, const char *key)
{
	const char	*file = source_of(s, key);
	struct json	*root = file_json(file), *v;
	struct jgen	*j;
	size_t		 i;

	v = root != NULL ? leaf_find(root, NULL, key) : NULL;
	/* An srt file spells sandbox.network as network. */
	if (v == NULL && root != NULL && strncmp(key, "sandbox.", 8) == 0)
		v = leaf_find(root, NULL, key + 8);
	if (v == NULL)
		line(s, explain, key, "(set)");
	else if (v->type == JSON_ARRAY && v->n == 0)
		line(s, explain, key, "[]");
	for (i = 0; v != NULL && v->type == JSON_ARRAY && i < v->n; i++) {
		if (v->items[i]->type == JSON_STRING) {
			char *q;

			xasprintf(&q, "\"%s\"", vis(v->items[i]->str));
			line_from(i == 0 ? key : "", q, explain ? file :
			    NULL);
			free(q);
			continue;
		}
		j = jgen_new();
		jgen_value(j, v->items[i]);
		line_from(i == 0 ? key : "", vis(jgen_buf(j, NULL)),
		    explain ? file : NULL);
		jgen_free(j);
	}
	if (v != NULL && v->type != JSON_ARRAY) {
		j = jgen_new();
		jgen_value(j, v);
		line(s, explain, key, vis(jgen_buf(j, NULL)));
		jgen_free(j);
	}
	json_free(root);
}

static void
line_from(const char *key, const char *value, const char *from)
{
	if (from != NULL)
		printf("%-36s %-12s %s\n", key, value, vis(from));
	else
		printf("%-36s %s\n", key, value);
}

static void
line(const struct settings *s, int explain, const char *key,
    const char *value)
{
	line_from(key, value, explain ? source_of(s, key) : NULL);
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

/* useBaseline, which an srt file's allowedDomains turns off unsaid. */
static void
baseline_line(const struct settings *s, int explain)
{
	const char	*k = "sandbox.network.useBaseline";
	const char	*file = source_of(s, k);
	struct json	*root;
	char		 from[PATH_MAX + 64];
	int		 said;

	if (!explain || s->egress_baseline || strcmp(file, "default") == 0) {
		line_bool(s, explain, k, s->egress_baseline);
		return;
	}
	root = file_json(file);
	said = root != NULL && leaf_find(root, NULL, k) != NULL;
	json_free(root);
	snprintf(from, sizeof(from), "%s%s", file, said ? "" : " (its srt "
	    "network.allowedDomains is the whole list)");
	line_from(k, "false", from);
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
	baseline_line(&s, explain);
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
			line_values(&s, explain, key);
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
