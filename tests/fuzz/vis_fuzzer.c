// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for the terminal escaper (common/vis.c): arbitrary
 * bytes.  Properties: no crash or sanitizer report, the length within
 * VIS_MAX_GROWTH, no byte below 0x20 or DEL, no C1 control, bidi or
 * zero-width character in the output, and the output is a fixed point
 * but for its backslashes (what was shown holds nothing left to show).
 * And what a question shows (vis_ask): no control byte either, within
 * VIS_ASK_MAX and its marker, its head and tail those of the whole
 * (unlimited) form, so a cut leaves out only the middle, and says so.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/vis.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
ask(const uint8_t *data, size_t size)
{
	char	*in = malloc(size + 1), *full, *cut, *m, *e;
	size_t	 fl, cl, h, t, i;
	int	 c1, c2, ok;

	memcpy(in, data, size);
	in[size] = '\0';
	full = vis_ask(in, 0, &c1);
	cut = vis_ask(in, VIS_ASK_MAX, &c2);
	fl = strlen(full);
	cl = strlen(cut);
	for (i = 0; i < cl; i++)
		if ((unsigned char)cut[i] < 0x20 || cut[i] == 0x7f)
			abort();
	if (c1 != 0 || (c2 == 0 && strcmp(full, cut) != 0) ||
	    (c2 != 0 && fl <= VIS_ASK_MAX) || cl > VIS_ASK_MAX + 80)
		abort();
	/* head <... N bytes more, ...> tail: N is what is left out.  The
	 * input may hold the same words: one of the markers must fit. */
	for (m = c2 != 0 ? strstr(cut, " <... ") : NULL, ok = c2 == 0;
	    m != NULL && !ok; m = strstr(m + 1, " <... ")) {
		if ((e = strstr(m, " ...> ")) == NULL)
			break;
		h = (size_t)(m - cut);
		t = cl - (size_t)(e + 6 - cut);
		ok = t <= fl && strncmp(full, cut, h) == 0 &&
		    strcmp(full + fl - t, e + 6) == 0 &&
		    strtoul(m + 6, NULL, 10) == fl - h - t;
	}
	if (!ok)
		abort();
	free(full);
	free(cut);
	free(in);
}

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
	ask(data, size);
	return 0;
}
