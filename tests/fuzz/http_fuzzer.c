// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for common/http.c: the request and response head
 * parsers, the authority parser and the chunked decoder all read untrusted
 * bytes from the sandbox or a remote server.  The first input byte picks
 * the entry point and how the chunked decoder splits its input.  A
 * parsed request's Host is also routed as proxyd's host-header endpoint
 * routes it.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/http.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_chunked(const uint8_t *p, size_t len, size_t step)
{
	struct http_chunked c;
	size_t	 off = 0, used, dl, piece, total = 0;
	enum http_chunk_result res;

	http_chunked_init(&c);
	while (off < len) {
		piece = len - off < step ? len - off : step;
		res = http_chunked_feed(&c, p + off, piece, &used, &dl);
		if (res == HTTP_CHUNK_ERROR)
			return;
		if (used > piece || dl > used)
			__builtin_trap();
		total += dl;
		off += used;
		if (res == HTTP_CHUNK_DONE)
			return;
	}
	(void)total;
}

/*
 * proxyd's host-header endpoint routes an origin-form request by its
 * Host header, parsed as an authority with port 443 by default: what
 * it then judges and dials must be a host, never bytes that could
 * split a line or name a zone.
 */
static void
fuzz_host_route(const struct http_request *rq)
{
	const char *v = http_header_get(rq->hdrs, rq->nhdrs, "host"), *why;
	char	 host[HTTP_HOST_MAX];
	uint16_t port;
	int	 v6;

	if (v == NULL || http_authority_parse(v, strlen(v), 443, host, &port,
	    &v6, &why) == -1)
		return;
	if (host[0] == '\0' || strlen(host) >= HTTP_HOST_MAX ||
	    strpbrk(host, "\r\n\t %@/") != NULL ||
	    (!v6 && strchr(host, ':') != NULL))
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_request rq;
	struct http_response rs;
	const char *why;
	char	 host[HTTP_HOST_MAX];
	uint16_t port;
	int	 v6;
	size_t	 hl;
	uint8_t	 sel;

	if (size < 1)
		return 0;
	sel = data[0];
	data++;
	size--;
	switch (sel & 3) {
	case 0:
		if (http_head_scan(data, size, &hl) == HTTP_SCAN_DONE)
			size = hl;
		if (http_request_parse(data, size, &rq, &why) == 0) {
			if (rq.form == HTTP_FORM_ABSOLUTE &&
			    (rq.path == NULL || rq.path[0] != '/'))
				__builtin_trap();
			fuzz_host_route(&rq);
			http_request_free(&rq);
		}
		break;
	case 1:
		if (http_head_scan(data, size, &hl) == HTTP_SCAN_DONE)
			size = hl;
		if (http_response_parse(data, size, sel & 4, sel & 8, &rs,
		    &why) == 0)
			http_response_free(&rs);
		break;
	case 2:
		if (http_authority_parse((const char *)data, size,
		    sel & 4 ? 443 : 0, host, &port, &v6, &why) == 0 &&
		    strlen(host) >= HTTP_HOST_MAX)
			__builtin_trap();
		break;
	default:
		fuzz_chunked(data, size, (sel >> 2) + 1);
		break;
	}
	return 0;
}
