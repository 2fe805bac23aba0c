// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for the terminal escaper (common/vis.c): arbitrary
 * bytes.  Properties: no crash or sanitizer report, the length within
 * VIS_MAX_GROWTH, no byte below 0x20 or DEL, no C1 control, bidi or
 * zero-width character in the output, and the output is a fixed point
 * but for its backslashes (what was shown holds nothing left to show).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/vis.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const bad[] = { "\xc2\x80", "\xc2\x9b",
	    "\xc2\x9d", "\xc2\x9f", "\xe2\x80\xae", "\xe2\x80\x8b",
	    "\xe2\x81\xa6", "\xef\xbb\xbf", "\xe2\x80\xa8" };
	char	*out, *again;
	size_t	 o, a, i, sz = size * VIS_MAX_GROWTH + 1;

	out = malloc(sz);
	o = vis_n(out, sz, (const char *)data, size,
	    size > 0 ? data[0] & VIS_BS_KEEP : 0);
	if (o >= sz || strlen(out) != o)
		abort();
	for (i = 0; i < o; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			abort();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strstr(out, bad[i]) != NULL)
			abort();
	/* Escaping again changes only the backslashes. */
	again = malloc(o * VIS_MAX_GROWTH + 1);
	a = vis_n(again, o * VIS_MAX_GROWTH + 1, out, o, 0);
	for (i = 0; i < o; i++)
		if (out[i] == '\\')
			a--;
	if (a != o)
		abort();
	free(again);
	free(out);
	return 0;
}
