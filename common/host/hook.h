/* SPDX-License-Identifier: ISC */
/*
 * The JSON faces of the command policy: the output of `airlock policy
 * check` and the Claude Code PreToolUse hook (SPEC R-A1).  Kept apart
 * from cli_policy.c so that unit tests can call them and airlockd can
 * reuse the result rendering.
 */
#ifndef AIRLOCK_HOOK_H
#define AIRLOCK_HOOK_H

#include <stddef.h>
#include <stdint.h>

#include "common/host/settings.h"
#include "policy/classify.h"

/*
 * {"verdict":…,"mode":…,"classes":[…],"commands":[{"argv":[…],
 * "verdict":…,"reason":…,"rule":…}],"rule":…,"reason":…}.  Returns a
 * malloc'd NUL-terminated string.
 */
char	*policy_result_json(const struct pol_result *, enum pol_mode);

/*
 * Decide one PreToolUse payload (untrusted: from the agent's runtime).
 * mode_forced: use mode; otherwise "permission_mode":"plan" selects plan
 * and anything else chat.  Returns the JSON to print (malloc'd); *vout
 * gets the decision, or -1 when the hook leaves the call to Claude Code's
 * own permission flow (output "{}").
 */
char	*hook_claude_pretooluse(const char *in, size_t len, int mode_forced,
	    enum pol_mode mode, const struct settings *, int *vout);

/*
 * The same for a Claude Code that runs confined in bypass-permissions
 * mode (`airlock claude`, `hook claude-pretooluse --confined`): an ask
 * with no approver is a deny (R-C4), with the ask's reason.
 */
char	*hook_claude_confined(const char *in, size_t len, int mode_forced,
	    enum pol_mode mode, const struct settings *, int *vout);

#endif
