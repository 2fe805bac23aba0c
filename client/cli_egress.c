// SPDX-License-Identifier: ISC
/*
 * `airlock policy egress [--settings FILE] [--allow-domain PATTERN]...
 * [--network on|off] [--json]`: the allowlist a run with the same
 * settings and flags would get, each entry with where it came from (the
 * built-in baseline and its group, the settings file that set it, the
 * flag), and the deny lists that win over it.  It composes the list as
 * airlockd does (policy/egress.c), from the same settings files, without
 * a running airlockd.
 *
 * Also the check of a domain pattern a person typed, in their words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli_explain.h"
#include "client/cli_opt.h"
#include "common/host/settings.h"
#include "common/json.h"
#include "common/vis.h"
#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"

static int
egress_usage(FILE *f, int rc)
{
	fprintf(f, "usage: airlock policy egress [--settings FILE] "
	    "[--allow-domain PATTERN]...\n"
	    "                            [--network on|off] [--json]\n"
	    "  the hosts a run may connect to, and where each entry came "
	    "from\n");
	return rc;
}

/*
 * The file whose allowedDomains (or deniedDomains) is the effective one:
 * lists replace, so it is the last layer that names one, as the
 * settings recorded it (an srt file's network.allowedDomains included).
 */
static const char *
egress_list_file(const struct settings *s, int denied)
{
	const char	*key = denied ? "sandbox.network.deniedDomains" :
	    "sandbox.network.allowedDomains";
	size_t		 i, kl = strlen(key);

	for (i = 0; s->sources != NULL && s->sources[i] != NULL; i++)
		if (strncmp(s->sources[i], key, kl) == 0 &&
		    s->sources[i][kl] == '\t')
			return s->sources[i] + kl + 1;
	return NULL;
}

struct egress_row {
	const char	*pattern;
	char		 from[600];
};

static void
egress_print(const struct egress_row *rows, size_t n, const char *title,
    int json, int first)
{
	size_t	i;

	if (json) {
		printf("%s\"%s\":[", first ? "" : ",", title);
		for (i = 0; i < n; i++)
			printf("%s{\"pattern\":\"%s\",\"from\":\"%s\"}",
			    i ? "," : "", vis_json(rows[i].pattern),
			    vis_json(rows[i].from));
		printf("]");
		return;
	}
	printf("%s (%zu):\n", title, n);
	for (i = 0; i < n; i++)
		printf("  %-36s %s\n", vis(rows[i].pattern), vis(rows[i].from));
}

static struct egress_row *
egress_rows(char *const *allow, char *const *flags, char *const *set,
    const char *setfile, int baseline, size_t *np)
{
	struct egress_row	*rows;
	const char		*g;
	size_t			 n = strv_len(allow), i, o;

	rows = xcalloc(n + 1, sizeof(*rows));
	for (i = 0; i < n; i++) {
		rows[i].pattern = allow[i];
		o = 0;
		/* With the baseline off, an entry of it is here only
		 * because a list or a flag names it. */
		if (baseline && (g = egress_baseline_group(allow[i])) != NULL)
			o += snprintf(rows[i].from + o, sizeof(rows[i].from) -
			    o, "baseline (%s)", g);
		if (strv_in(set, allow[i]) && o < sizeof(rows[i].from))
			o += snprintf(rows[i].from + o, sizeof(rows[i].from) -
			    o, "%ssettings %s", o ? "; " : "",
			    setfile != NULL ? setfile : "(a settings layer)");
		if (strv_in(flags, allow[i]) && o < sizeof(rows[i].from))
			snprintf(rows[i].from + o, sizeof(rows[i].from) - o,
			    "%s--allow-domain", o ? "; " : "");
	}
	*np = n;
	return rows;
}

int
cli_policy_egress(int argc, char **argv)
{
	struct settings		 s;
	struct egress_row	*rows, *drows;
	const char		*cli_file = NULL, *dfile;
	char			 err[1024], **flags = NULL, **allow;
	char			**deny = NULL;
	size_t			 n, nd = 0, i;
	int			 json = 0, network = 1;

	for (int k = 2; k < argc; k++) {
		const char *a = argv[k];

		if (strcmp(a, "--json") == 0)
			json = 1;
		else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return egress_usage(stdout, 0);
		else if ((strcmp(a, "--settings") == 0 ||
		    strcmp(a, "--allow-domain") == 0 ||
		    strcmp(a, "--network") == 0) && k + 1 >= argc) {
			fprintf(stderr, "airlock policy egress: %s needs a "
			    "value\n", a);
			return 2;
		} else if (strcmp(a, "--settings") == 0)
			cli_file = argv[++k];
		else if (strcmp(a, "--network") == 0) {
			a = argv[++k];
			if (strcmp(a, "on") != 0 && strcmp(a, "off") != 0) {
				fprintf(stderr, "airlock policy egress: "
				    "--network %s: on or off\n", vis(a));
				return 2;
			}
			network = strcmp(a, "on") == 0;
		} else if (strcmp(a, "--allow-domain") == 0) {
			a = argv[++k];
			if (egress_pattern_error("--allow-domain", a, err,
			    sizeof(err)) != NULL) {
				fprintf(stderr, "airlock policy egress: %s\n",
				    err);
				return 2;
			}
			flags = strv_add(flags, a);
		} else
			cli_opt_reject("airlock policy egress", a, 0,
			    "it takes --settings FILE, --allow-domain PATTERN, "
			    "--network on|off and --json");
	}
	settings_defaults(&s);
	if (settings_load(&s, NULL, cli_file, NULL, err, sizeof(err)) == -1) {
		fprintf(stderr, "airlock: %s\n", err);
		settings_free(&s);
		strv_free(flags);
		return 4;
	}
	settings_print_notes(&s, "airlock");
	allow = egress_allowlist(network, flags, s.allowed_domains);
	if (!s.egress_baseline)
		allow = egress_drop_baseline(allow, flags, s.allowed_domains);
	rows = egress_rows(allow, flags, s.allowed_domains,
	    egress_list_file(&s, 0), s.egress_baseline, &n);
	dfile = egress_list_file(&s, 1);
	for (i = 0; egress_hard_deny[i] != NULL; i++)
		deny = strv_add(deny, egress_hard_deny[i]);
	for (i = 0; s.denied_domains != NULL && s.denied_domains[i]; i++)
		deny = strv_add(deny, s.denied_domains[i]);
	drows = xcalloc(strv_len(deny) + 1, sizeof(*drows));
	for (i = 0; deny != NULL && deny[i] != NULL; i++, nd++) {
		drows[i].pattern = deny[i];
		snprintf(drows[i].from, sizeof(drows[i].from), "%s%s",
		    i < strv_len((char *const *)egress_hard_deny) ?
		    "built in (the hard deny list)" : "settings ",
		    i < strv_len((char *const *)egress_hard_deny) ? "" :
		    dfile != NULL ? dfile : "(a settings layer)");
	}
	if (json)
		printf("{\"network\":%s,", network ? "true" : "false");
	else if (!network)
		printf("the network is off: nothing is allowed\n");
	egress_print(rows, n, json ? "allow" : "allowed", json, 1);
	egress_print(drows, nd, json ? "deny" : "refused even when allowed",
	    json, json ? 0 : 1);
	if (json)
		printf("}\n");
	free(rows);
	free(drows);
	strv_free(allow);
	strv_free(deny);
	strv_free(flags);
	settings_free(&s);
	return fflush(stdout) == 0 ? 0 : 1;
}
