/* SPDX-License-Identifier: ISC */
/*
 * The syntax of a full git ref name, as git check-ref-format checks it
 * without options.  It is protocol, like the pkt-line framing beside it:
 * gatewayd refuses a push naming a ref git itself would refuse before any
 * rule sees it (so that refs/heads//main cannot walk around a rule for
 * refs/heads/main), and airlockd checks the same before it asks its rules.
 * Pure: no I/O, no allocation.
 */
#ifndef AIRLOCK_REFNAME_H
#define AIRLOCK_REFNAME_H

/*
 * The longest ref name accepted.  git has no such limit; one here keeps a
 * refusal's message and every copy of the name small.
 */
#define REFNAME_MAX	1024

/*
 * 1 when ref is a valid full ref name by git check-ref-format's rules
 * (at least one '/', no "..", no control characters, space, ~ ^ : ? * [
 * or backslash, no component starting with '.' or ending in ".lock", no
 * "@{", not "@", no leading, trailing or double '/', no trailing '.'),
 * and is at most REFNAME_MAX bytes; else 0 (also for NULL).
 */
int	refname_valid(const char *ref);

#endif
