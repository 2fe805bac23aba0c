// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for common/mask.c: the request-head judgement reads
 * heads from the sandbox.  Any input is judged within its bounds; the
 * real value appears in an output only toward its own host, and a head
 * that reaches another host with a placeholder is never passed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mask.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define REAL_A	"REALAAAAsecret0123456789"
#define REAL_B	"REALBBBBsecret9876543210"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct mask_ent ents[] = {
		{ "a.example", MASK_HEADER, "Authorization",
		    "sk-ant-PLACEHOLDERaaaa0001", REAL_A },
		{ "b.example", MASK_QUERY, "key",
		    "sk-PLACEHOLDERbbbb00000002", REAL_B },
		{ "b.example", MASK_BASIC, NULL,
		    "sk-PLACEHOLDERcccc00000003", REAL_B },
	};
	static const char *const hosts[] = { "a.example", "b.example",
	    "c.example", "A.EXAMPLE" };
	enum mask_verdict v;
	const char	*host;
	char		*out, why[128];
	size_t		 n, w;

	if (size < 1)
		return 0;
	host = hosts[data[0] % 4];
	v = mask_head((const char *)data + 1, size - 1, host, ents, 3, &out,
	    &n, &w, why, sizeof(why));
	if ((v == MASK_REWRITTEN) != (out != NULL))
		abort();
	if (v == MASK_EXFIL && w >= 3)
		abort();
	if (out != NULL) {
		/* Only the host's own value may appear. */
		if (data[0] % 4 != 1 && memmem(out, n, REAL_B,
		    strlen(REAL_B)) != NULL &&
		    memmem(data + 1, size - 1, REAL_B, strlen(REAL_B)) == NULL)
			abort();
		if (data[0] % 4 == 1 && memmem(out, n, REAL_A,
		    strlen(REAL_A)) != NULL &&
		    memmem(data + 1, size - 1, REAL_A, strlen(REAL_A)) == NULL)
			abort();
		if (n < 4 || memcmp(out + n - 4, "\r\n\r\n", 4) != 0)
			abort();
		mask_head_free(out, n);
	}
	/* Toward a host with no entry, a placeholder is always refused. */
	if (data[0] % 4 == 2 && v != MASK_BAD && v != MASK_EXFIL &&
	    memmem(data + 1, size - 1, "sk-ant-PLACEHOLDERaaaa0001", 26))
		abort();
	return 0;
}
