// SPDX-License-Identifier: ISC
/*
 * TEMPORARY: built-in defaults only, until the settings parser lands
 * (policy branch).  A settings file given explicitly is refused rather
 * than ignored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "supervisor/settings.h"

void
settings_defaults(struct settings *s)
{
	memset(s, 0, sizeof(*s));
	s->sandbox_enabled = 1;
	s->allow_unsandboxed = 1;
}

int
settings_load(struct settings *s, const char *user_file, const char *cli_file,
    const char *managed_file, char *err, size_t errlen)
{
	(void)s;
	(void)user_file;
	(void)managed_file;
	if (cli_file != NULL) {
		snprintf(err, errlen, "%s: settings files are not supported "
		    "by this build", cli_file);
		return -1;
	}
	return 0;
}

void
settings_free(struct settings *s)
{
	memset(s, 0, sizeof(*s));
}
