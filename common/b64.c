// SPDX-License-Identifier: ISC
/*
 * Standard base64 (b64.h).  The decoder takes bytes from clients.
 */
#include <stdlib.h>
#include <string.h>

#include "common/b64.h"
#include "common/xmalloc.h"

static const char b64tbl[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
b64_encode(const unsigned char *p, size_t n)
{
	char	*o = xmalloc((n + 2) / 3 * 4 + 1), *w = o;
	size_t	 i;

	for (i = 0; i + 2 < n; i += 3) {
		*w++ = b64tbl[p[i] >> 2];
		*w++ = b64tbl[(p[i] & 3) << 4 | p[i + 1] >> 4];
		*w++ = b64tbl[(p[i + 1] & 15) << 2 | p[i + 2] >> 6];
		*w++ = b64tbl[p[i + 2] & 63];
	}
	if (i < n) {
		*w++ = b64tbl[p[i] >> 2];
		if (i + 1 < n) {
			*w++ = b64tbl[(p[i] & 3) << 4 | p[i + 1] >> 4];
			*w++ = b64tbl[(p[i + 1] & 15) << 2];
		} else {
			*w++ = b64tbl[(p[i] & 3) << 4];
			*w++ = '=';
		}
		*w++ = '=';
	}
	*w = '\0';
	return o;
}

/* untrusted: s (b64.h). */
int
b64_decode(const char *s, size_t n, unsigned char *out, size_t *outlen)
{
	unsigned	 acc = 0, bits = 0, v;
	size_t		 i, o = 0, pad = 0;
	const char	*p;

	for (i = 0; i < n; i++) {
		if (s[i] == '=') {
			pad++;
			continue;
		}
		/* Line breaks, as MIME encoders write them. */
		if (s[i] == '\n' || s[i] == '\r')
			continue;
		if (pad > 0 || s[i] == '\0' ||
		    (p = strchr(b64tbl, s[i])) == NULL)
			return -1;
		v = (unsigned)(p - b64tbl);
		acc = (acc << 6 | v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	if (pad > 2 || bits >= 6)
		return -1;
	*outlen = o;
	return 0;
}
