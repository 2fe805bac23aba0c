/* SPDX-License-Identifier: ISC */
/*
 * Standard base64 (RFC 4648, with padding), for terminal bytes carried
 * in JSON-RPC (supervisor/sv_terminal.c).
 */
#ifndef AIRLOCK_B64_H
#define AIRLOCK_B64_H

#include <stddef.h>

/* NUL-terminated text of n bytes (free() it). */
char	*b64_encode(const unsigned char *, size_t n);
/*
 * untrusted: s, n characters.  Decodes into out, which has room for
 * n / 4 * 3 + 3 bytes; -1 on a character outside the alphabet, padding
 * that is not at the end, or a length no encoder gives.
 */
int	 b64_decode(const char *s, size_t n, unsigned char *out,
	    size_t *outlen);

#endif
