// SPDX-License-Identifier: ISC
/*
 * SOCKS5 parsing (see common/socks.h).  Every byte here comes from the
 * sandbox.  A domain is held to the same host grammar as an HTTP request
 * target (common/http.c), so that the two proxies can never disagree on
 * what a name is; an IP literal sent as a domain is accepted as the
 * literal.
 */
#include <sys/socket.h>
#include <arpa/inet.h>

#include <string.h>

#include "common/http.h"
#include "common/socks.h"

enum socks_result
socks_greeting_parse(const void *vbuf, size_t len, size_t *used, int *noauth)
{
	const uint8_t *b = vbuf;
	size_t	 i;

	/* untrusted: the client's method selection */
	*noauth = 0;
	if (len >= 1 && b[0] != SOCKS_VERSION)
		return SOCKS_ERROR;
	if (len < 2)
		return SOCKS_MORE;
	if (b[1] == 0)
		return SOCKS_ERROR;
	if (len < 2 + (size_t)b[1])
		return SOCKS_MORE;
	for (i = 0; i < b[1]; i++)
		if (b[2 + i] == SOCKS_METHOD_NOAUTH)
			*noauth = 1;
	*used = 2 + (size_t)b[1];
	return SOCKS_OK;
}

static int
domain_ok(const char *name, size_t len, struct socks_request *r)
{
	char	 tmp[SOCKS_HOST_MAX];
	uint16_t port;
	int	 v6;
	const char *why;

	if (len == 0 || len >= sizeof(tmp))
		return 0;
	memcpy(tmp, name, len);
	tmp[len] = '\0';
	if (memchr(name, '\0', len) != NULL)
		return 0;
	if (inet_pton(AF_INET6, tmp, r->addr) == 1) {
		memcpy(r->host, tmp, len + 1);
		return 1;
	}
	/* A name holds no port: "host:80" is malformed, not "host". */
	if (memchr(name, ':', len) != NULL)
		return 0;
	return http_authority_parse(name, len, 1, r->host, &port, &v6,
	    &why) == 0 && !v6;
}

enum socks_result
socks_request_parse(const void *vbuf, size_t len, size_t *used,
    struct socks_request *r, uint8_t *rep)
{
	const uint8_t *b = vbuf;
	size_t	 alen, need;

	/* untrusted: the client's request */
	memset(r, 0, sizeof(*r));
	*rep = SOCKS_REP_FAILURE;
	if (len >= 1 && b[0] != SOCKS_VERSION)
		return SOCKS_ERROR;
	if (len >= 3 && b[2] != 0)
		return SOCKS_ERROR;
	if (len < 5)
		return SOCKS_MORE;
	r->cmd = b[1];
	r->atyp = b[3];
	switch (r->atyp) {
	case SOCKS_ATYP_IPV4:
		alen = 4;
		need = 4 + alen + 2;
		break;
	case SOCKS_ATYP_IPV6:
		alen = 16;
		need = 4 + alen + 2;
		break;
	case SOCKS_ATYP_DOMAIN:
		alen = b[4];
		need = 5 + alen + 2;
		break;
	default:
		*rep = SOCKS_REP_ATYP_UNSUPPORTED;
		return SOCKS_ERROR;
	}
	if (len < need)
		return SOCKS_MORE;
	r->port = (uint16_t)(b[need - 2] << 8 | b[need - 1]);
	switch (r->atyp) {
	case SOCKS_ATYP_IPV4:
		r->af = AF_INET;
		memcpy(r->addr, b + 4, 4);
		inet_ntop(AF_INET, r->addr, r->host, sizeof(r->host));
		break;
	case SOCKS_ATYP_IPV6:
		r->af = AF_INET6;
		memcpy(r->addr, b + 4, 16);
		inet_ntop(AF_INET6, r->addr, r->host, sizeof(r->host));
		break;
	default:
		if (!domain_ok((const char *)b + 5, alen, r))
			return SOCKS_ERROR;
		memset(r->addr, 0, sizeof(r->addr));
		break;
	}
	if (r->port == 0)
		return SOCKS_ERROR;
	*used = need;
	return SOCKS_OK;
}

size_t
socks_reply_build(uint8_t *out, uint8_t rep, int af, const void *addr,
    uint16_t port)
{
	size_t	n = 4;

	out[0] = SOCKS_VERSION;
	out[1] = rep;
	out[2] = 0;
	if (af == AF_INET6) {
		out[3] = SOCKS_ATYP_IPV6;
		memcpy(out + n, addr, 16);
		n += 16;
	} else {
		out[3] = SOCKS_ATYP_IPV4;
		if (af == AF_INET)
			memcpy(out + n, addr, 4);
		else
			memset(out + n, 0, 4);
		n += 4;
	}
	out[n++] = (uint8_t)(port >> 8);
	out[n++] = (uint8_t)port;
	return n;
}

enum socks_result
socks_reply_parse(const void *buf, size_t len, size_t *used, uint8_t *rep)
{
	const uint8_t	*p = buf;
	size_t		 need;

	/* untrusted: the proxy's bytes. */
	if (len < 5)
		return SOCKS_MORE;
	if (p[0] != SOCKS_VERSION)
		return SOCKS_ERROR;
	switch (p[3]) {
	case SOCKS_ATYP_IPV4:
		need = 4 + 4 + 2;
		break;
	case SOCKS_ATYP_IPV6:
		need = 4 + 16 + 2;
		break;
	case SOCKS_ATYP_DOMAIN:
		need = 4 + 1 + (size_t)p[4] + 2;
		break;
	default:
		return SOCKS_ERROR;
	}
	if (len < need)
		return SOCKS_MORE;
	*rep = p[1];
	*used = need;
	return SOCKS_OK;
}
