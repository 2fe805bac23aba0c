// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for common/socks.c: the greeting and request parsers
 * read untrusted bytes from the sandbox.  The input is parsed as the
 * stream a client would send: greeting, then request, each fed in growing
 * prefixes as a non-blocking reader would see them; and first as a
 * server's reply, which airlock proxy-connect parses.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/socks.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct socks_request r;
	uint8_t	 out[SOCKS_REPLY_MAX], rep;
	size_t	 used = 0, i;
	int	 noauth;
	enum socks_result res = SOCKS_MORE;

	/* The same bytes as a server's reply, for airlock proxy-connect. */
	for (i = 0; i <= size && res == SOCKS_MORE; i++)
		res = socks_reply_parse(data, i, &used, &rep);
	if (res == SOCKS_OK && used > size)
		__builtin_trap();
	res = SOCKS_MORE;
	for (i = 0; i <= size && res == SOCKS_MORE; i++)
		res = socks_greeting_parse(data, i, &used, &noauth);
	if (res != SOCKS_OK)
		return 0;
	if (used > size)
		__builtin_trap();
	data += used;
	size -= used;
	res = SOCKS_MORE;
	for (i = 0; i <= size && res == SOCKS_MORE; i++)
		res = socks_request_parse(data, i, &used, &r, &rep);
	if (res == SOCKS_OK) {
		if (used > size || strlen(r.host) >= SOCKS_HOST_MAX)
			__builtin_trap();
		(void)socks_reply_build(out, SOCKS_REP_OK, r.af, r.addr,
		    r.port);
	}
	return 0;
}
