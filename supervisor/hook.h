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

#include "policy/classify.h"
#include "supervisor/settings.h"

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

/*
 * The plan's rule tables (defined in sv_plan.c), for the hook: the i-th
 * built-in filename rule (0 past the end), and the i-th entry of the
 * secret set (NULL past the end; *in_home: relative to $HOME, else
 * absolute).
 */
int	 sv_rules_write(size_t i, uint32_t *kind, const char **pattern,
	    const char **except);
const char *sv_rules_secret(size_t i, int *in_home);

#endif
