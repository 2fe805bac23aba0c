/* SPDX-License-Identifier: ISC */
/*
 * A settings structure built by hand for the supervisor helpers' unit
 * tests (they must not depend on the settings parser): one GitHub-like
 * host and one GitHub Enterprise-like host.
 */
#ifndef AIRLOCK_TEST_SV_FIXTURE_H
#define AIRLOCK_TEST_SV_FIXTURE_H

#include <string.h>

#include "common/host/settings.h"

static char *fx_gh_prefixes[] = { "https://github.com/", "git@github.com:",
    "ssh://git@github.com/", NULL };
static char *fx_ghe_prefixes[] = { "https://ghe.example.com/", NULL };
static struct code_host fx_hosts[] = {
	{ "github", fx_gh_prefixes, "https://127.0.0.1:8443/", NULL, 0 },
	{ "ghe", fx_ghe_prefixes, "https://ghe.example.com/api/git", NULL, 0 },
};
static char *fx_linked[] = { "acme/app", "Acme/Lib", NULL };

static void
fx_settings(struct settings *s)
{
	memset(s, 0, sizeof(*s));
	s->hosts = fx_hosts;
	s->nhosts = 2;
	s->linked_repos = fx_linked;
}

#endif
