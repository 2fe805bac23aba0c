/* SPDX-License-Identifier: ISC */
/*
 * Newline-delimited JSON-RPC framing, as the Agent Client Protocol
 * speaks it over an agent's stdio (`airlock acp`, client/cli_acp.c),
 * and the one look at a message the relay needs: request, response or
 * notification, and its method.
 *
 * untrusted: every byte (the agent runs in the sandbox; the editor's
 * side is treated the same).
 */
#ifndef AIRLOCK_ACPFRAME_H
#define AIRLOCK_ACPFRAME_H

#include <stddef.h>

#include "common/json.h"

/* A line longer than this is dropped whole (and counted). */
#define ACPF_LINE_MAX	(JSON_MAX_INPUT)

struct acpf {
	char	*buf;
	size_t	 len;
	size_t	 cap;
	size_t	 start;		/* the next line begins here */
	int	 skipping;	/* inside an over-long line */
	unsigned long dropped;	/* over-long lines dropped */
};

void	 acpf_init(struct acpf *);
void	 acpf_free(struct acpf *);
/* Append bytes read from the stream. */
void	 acpf_feed(struct acpf *, const char *, size_t);
/*
 * The next complete line, without its '\n' (and a '\r' before it),
 * NUL-terminated, valid until the next call; NULL when none is complete.
 * Empty lines are skipped.
 */
char	*acpf_next(struct acpf *, size_t *lenp);

enum acpf_kind {
	ACPF_INVALID = 0,	/* not a JSON-RPC object */
	ACPF_REQUEST,		/* method and id */
	ACPF_NOTIFICATION,	/* method, no id */
	ACPF_RESPONSE,		/* id, result or error, no method */
};

/*
 * What msg is; *method points into it (NULL for a response).  An id
 * must be a string, an integer or null, as JSON-RPC 2.0 says.
 */
enum acpf_kind acpf_classify(const struct json *msg, const char **method);

/*
 * One line as the relay takes it: parsed (common/json.c refuses
 * duplicate keys, NUL in keys, over-deep nesting) and classified.  On
 * ACPF_INVALID, *msgp is NULL and why says in a few words what is wrong
 * with the line; otherwise *msgp is the message (the caller frees it)
 * and *method points into it as acpf_classify() says.  Only a message
 * taken here is relayed, and then as acpf_serialise() writes it, never
 * as the bytes that came in: a peer reading JSON another way (the last
 * of two keys, a float id) sees what the relay classified.
 */
enum acpf_kind acpf_take(const char *line, size_t len, struct json **msgp,
	    const char **method, char *why, size_t whylen);
/* msg as one line of JSON text, without its '\n'; the caller frees it. */
char	*acpf_serialise(const struct json *msg, size_t *lenp);

#endif
