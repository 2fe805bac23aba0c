// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for common/json.c's parser (the partial tree of a
 * broken input too), the settings merge and
 * the Claude Code hook decision.  The fuzz build links common/ and
 * policy/, so the two supervisor files are compiled in here; the hook's
 * rule tables come from sv_plan.c, linked beside (tests/tests.mk).
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/json.h"
#include "common/host/hook.c"
#include "common/host/settings.c"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* sv_plan.c (linked for the hook's rule tables) asks this of seccomp;
 * the hook never builds a plan. */
int	sv_seccomp_notify(void);
int
sv_seccomp_notify(void)
{
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct settings	 s;
	struct json	*j, *part;
	char		 err[256], *out;
	int		 v;

	/* What a broken request leaves (airlockd answers with its id). */
	if ((j = json_parse_partial((const char *)data, size, err,
	    sizeof(err), &part)) != NULL)
		json_free(j);
	else {
		(void)json_get(part, "id");
		json_free(part);
	}
	settings_defaults(&s);
	(void)settings_merge_text(&s, (const char *)data, size, "fuzz",
	    size > 0 && (data[0] & 1), err, sizeof(err));
	(void)settings_merge_text(&s, (const char *)data, size, "fuzz2", 0,
	    err, sizeof(err));
	out = hook_claude_pretooluse((const char *)data, size, 0,
	    POL_MODE_CHAT, &s, &v);
	free(out);
	settings_free(&s);
	return 0;
}
