/* SPDX-License-Identifier: ISC */
/*
 * Guardrails (SPEC R-C4): an effect class resolves to allow, ask or deny
 * from the settings rules; "ask" with no approver connected resolves to
 * deny.  Each decision names the rule that made it, for the audit log.
 * Pure: no I/O.
 */
#ifndef AIRLOCK_GUARD_H
#define AIRLOCK_GUARD_H

#include <stddef.h>

#include "policy/policy.h"

/* The defaults of SPEC §12 (create-commit and network-access allow). */
void	pol_rules_default(enum pol_verdict rules[POL_CLASS_MAX]);

/*
 * Resolve a set of effect classes (a mask of POL_CLASS_BIT()) against
 * rules (NULL: defaults): the strictest wins, ties go to the first class.
 * rule receives e.g. "rules.open-pull-request=ask", or "default:allow"
 * when classes is empty.
 */
enum pol_verdict pol_guard_classes(const enum pol_verdict *rules,
	    unsigned classes, char *rule, size_t rulelen);

/*
 * A mutating tool call (the agent's file tools, MCP tools that declare
 * effect classes) in mode: read-only modes deny it outright
 * ("mode:review"); otherwise its classes decide.  Then ask is resolved
 * against have_approver as pol_guard_finish() does.
 */
enum pol_verdict pol_guard_tool(const enum pol_verdict *rules,
	    enum pol_mode mode, unsigned classes, int mutating,
	    int have_approver, char *rule, size_t rulelen);

/*
 * The last step of every decision: ask with no approver connected is
 * deny.  rule (in/out, NUL-terminated) gets " (no approver: deny)"
 * appended when that happens.
 */
enum pol_verdict pol_guard_finish(enum pol_verdict, int have_approver,
	    char *rule, size_t rulelen);

#endif
