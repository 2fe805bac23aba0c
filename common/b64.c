// SPDX-License-Identifier: ISC
/*
 * Base64 decoding (RFC 4648 §4).  untrusted: the text a client sends;
 * any byte outside the alphabet, a length not a multiple of 4 or padding
 * anywhere but at the end refuses the whole input.
 */
#include "common/b64.h"

static int
b64_val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long
b64_decode(const char *in, size_t len, unsigned char *out)
{
	size_t	i, o = 0, pad = 0;
	int	v[4], k;

	if (len % 4 != 0)
		return -1;
	for (i = 0; i < len; i += 4) {
		for (k = 0; k < 4; k++) {
			if (in[i + k] == '=' && i + 4 == len && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad > 0 || (v[k] = b64_val((unsigned char)
			    in[i + k])) == -1)
				return -1;
		}
		out[o++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (pad < 2)
			out[o++] = (unsigned char)((v[1] & 15) << 4 |
			    v[2] >> 2);
		if (pad < 1)
			out[o++] = (unsigned char)((v[2] & 3) << 6 | v[3]);
	}
	return (long)o;
}
