/* SPDX-License-Identifier: ISC */
/*
 * Credential masking (R-K1, R-K2): the sandbox holds a placeholder of a
 * credential's shape, and only the request head sent to the credential's
 * own host gets the real value.  This file is the part that needs no
 * event loop and no TLS: making a placeholder, and judging and rewriting
 * one HTTP/1.x request head.  It is libc only, so the fuzzer and the unit
 * tests drive it directly.
 */
#ifndef AIRLOCK_MASK_H
#define AIRLOCK_MASK_H

#include <stddef.h>

#define MASK_VALUE_MAX	4096	/* longest credential value */
#define MASK_HEAD_MAX	65536	/* longest request head judged */

/* Where the real value goes in a request head to its host. */
enum mask_where {
	MASK_HEADER = 1,	/* inside the value of header `field` */
	MASK_QUERY,		/* the value of query parameter `field` */
	MASK_BASIC,		/* the user:password of Authorization: Basic */
};

struct mask_ent {
	const char	*host;		/* lower case, no port */
	enum mask_where	 where;
	const char	*field;		/* header or parameter name */
	const char	*placeholder;	/* what the sandbox holds */
	const char	*real;		/* never logged, never returned */
};

enum mask_verdict {
	MASK_PASS = 0,	/* no placeholder: the head goes unchanged */
	MASK_REWRITTEN,	/* placeholders replaced for this host */
	MASK_EXFIL,	/* a placeholder toward another host: refuse */
	MASK_BAD,	/* not a request head this file accepts */
};

/*
 * A placeholder of real's shape: the same length, a prefix up to and
 * including the last '-' or '_' of its first 16 bytes kept (so
 * "sk-ant-api03-" stays), every other letter or digit replaced by a
 * random one of its class, other bytes kept.  rnd: random bytes, at least
 * as many as real is long.  Returns 0, or -1 if real is empty, too long
 * or has no byte to randomize (a placeholder equal to it would leak it).
 */
int	 mask_placeholder(const char *real, const unsigned char *rnd,
	    size_t nrnd, char *out, size_t outlen);

/*
 * Judge one request head toward host (the name the client dialed or the
 * SNI, no port).  untrusted: head is from the sandbox.  head/len: the
 * bytes up to and including the blank line.  On MASK_REWRITTEN *out is a
 * malloc'ed head of *outlen bytes (the caller zeroes and frees it with
 * mask_head_free(); it holds the real value).  On MASK_EXFIL *which is
 * the index of the entry whose placeholder was seen.  why (may be NULL)
 * gets a reason for MASK_BAD, never any part of a value.
 */
enum mask_verdict mask_head(const char *head, size_t len, const char *host,
	    const struct mask_ent *, size_t nent, char **out, size_t *outlen,
	    size_t *which, char *why, size_t whylen);
void	 mask_head_free(char *, size_t len);

#endif
