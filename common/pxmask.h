/* SPDX-License-Identifier: ISC */
/*
 * The masked-credential frames between airlockd and proxyd (MSG_PX_MASK,
 * MSG_PX_MASK_END, MSG_PX_CA): their fields checked beyond what the
 * schema says, so that proxyd never holds an entry its rewrite could
 * misread and never answers with a certificate that is not one.  Libc
 * only; fuzzed through tests/fuzz/msg_fuzzer.c.
 */
#ifndef AIRLOCK_PXMASK_H
#define AIRLOCK_PXMASK_H

#include <stddef.h>

struct msg;

#define PXMASK_MAX	64	/* masked credentials per session */

/* One MSG_PX_MASK, its strings pointing into the frame. */
struct pxmask_wire {
	const char	*sid;
	const char	*name;		/* the variable inside */
	const char	*host;		/* lower case, no port */
	int		 where;		/* enum mask_where */
	const char	*field;		/* "" for MASK_BASIC */
	const char	*placeholder;
	const char	*real;		/* secret: never in why */
};

/*
 * Read and check a validated MSG_PX_MASK: a session id, a variable name,
 * a host name or address literal in lower case, a known place, a field
 * name for a header or a query (none for basic), a placeholder and a
 * value of the same length (1..MASK_VALUE_MAX) that differ, of visible
 * ASCII only.  0, or -1 with *why (never any part of a value).
 */
int	 pxmask_decode(struct msg *, struct pxmask_wire *, const char **why);

/* A host a value may go to: a lower-case DNS name or IPv4 literal. */
int	 pxmask_host_ok(const char *);

/* The session id and bundle of a validated MSG_PX_MASK_END. */
int	 pxmask_end_decode(struct msg *, const char **sid, const void **pem,
	    size_t *pemlen, const char **why);

#endif
