/* SPDX-License-Identifier: ISC */
/*
 * Standard base64 (RFC 4648, with padding), decoding only: the input of
 * sandbox.input.  Strict: no whitespace, no missing padding.
 */
#ifndef AIRLOCK_B64_H
#define AIRLOCK_B64_H

#include <stddef.h>

/*
 * Decode len bytes of untrusted text into out (room for len / 4 * 3
 * bytes).  The number of bytes, or -1 when it is not base64.
 */
long	b64_decode(const char *in, size_t len, unsigned char *out);

#endif
