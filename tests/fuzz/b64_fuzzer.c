// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for common/b64.c: the decoder takes terminal input
 * from clients (terminal.input); any input is decoded within its bound,
 * and every encoding decodes back to its bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/b64.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char	*out;
	char		*enc;
	size_t		 n;

	out = malloc(size / 4 * 3 + 3);
	if (b64_decode((const char *)data, size, out, &n) == 0 &&
	    n > size / 4 * 3 + 3)
		abort();
	free(out);
	enc = b64_encode(data, size);
	out = malloc(strlen(enc) / 4 * 3 + 3);
	if (b64_decode(enc, strlen(enc), out, &n) != 0 || n != size ||
	    memcmp(out, data, size) != 0)
		abort();
	free(out);
	free(enc);
	return 0;
}
