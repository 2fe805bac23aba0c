// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for the terminal output filter: arbitrary command
 * output, cut at an arbitrary point into two calls.  Properties: no
 * crash or sanitizer report, never more out than in, no OSC 52
 * (clipboard) or UTF-8 C1 introducer in the output, and the output
 * passes the filter unchanged (what passed cannot hide a sequence).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/termfilter.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct term_filter	 f;
	char			*out, *again;
	size_t			 cut, o, a;

	cut = size > 0 ? data[0] % (size + 1) : 0;
	out = malloc(size + TF_SEQ_MAX + 1);
	tf_init(&f);
	o = tf_filter(&f, (const char *)data, cut, out);
	o += tf_filter(&f, (const char *)data + cut, size - cut, out + o);
	if (o > size)
		abort();
	if (memmem(out, o, "\x1b]52;", 5) != NULL ||
	    memmem(out, o, "\xc2\x9d", 2) != NULL)
		abort();
	again = malloc(o + TF_SEQ_MAX + 1);
	tf_init(&f);
	a = tf_filter(&f, out, o, again);
	/* A sequence still open at the end is held, not yet out. */
	if (a > o || memcmp(out, again, a) != 0 || (f.len == 0 && a != o))
		abort();
	free(again);
	free(out);
	return 0;
}
