// SPDX-License-Identifier: ISC
/*
 * Egress host patterns (see policy/domain.h).  Patterns come from the
 * settings files and the spec (trusted-ish, but validated: an invalid one
 * is rejected, never half-applied); hosts come from the sandbox
 * (untrusted), so matching normalises its input itself and never assumes
 * a canonical form.
 */
#include <sys/socket.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/domain.h"

/*
 * Copy host lower-cased without one trailing dot into out[DOM_NAME_MAX].
 * Returns -1 when it does not fit or is empty.
 */
static int
normalise(const char *s, size_t len, char *out)
{
	size_t	i;

	if (len > 0 && s[len - 1] == '.')
		len--;
	if (len == 0 || len >= DOM_NAME_MAX)
		return -1;
	for (i = 0; i < len; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[len] = '\0';
	return 0;
}

static int
valid_label(const char *s, size_t len)
{
	size_t	i;

	if (len == 0 || len > 63)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (!(c < 0x80 && (isalnum(c) || c == '-' || c == '_')))
			return 0;
	}
	return 1;
}

/* Every label of name valid, except the one at index wild (if >= 0). */
static int
valid_labels(const char *name, int wild, int *nlabels)
{
	const char *p = name, *e;
	int	 i = 0;

	for (;;) {
		e = strchr(p, '.');
		if (e == NULL)
			e = p + strlen(p);
		if (i == wild) {
			if (e - p != 1 || *p != '*')
				return 0;
		} else if (!valid_label(p, e - p))
			return 0;
		i++;
		if (*e == '\0')
			break;
		p = e + 1;
	}
	*nlabels = i;
	return 1;
}

int
dom_host_is_ip(const char *host, int *af, uint8_t *addr)
{
	char	 tmp[64];
	size_t	 len = strlen(host);

	if (len >= sizeof(tmp))
		return 0;
	memcpy(tmp, host, len + 1);
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, tmp, addr) == 1) {
		*af = AF_INET;
		return 1;
	}
	if (inet_pton(AF_INET6, tmp, addr) == 1) {
		*af = AF_INET6;
		return 1;
	}
	return 0;
}

static int
parse_port(const char *s, uint16_t *port)
{
	unsigned long v = 0;
	size_t	 i;

	if (*s == '\0' || strlen(s) > 5)
		return -1;
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

/* "addr" or "addr/len" for family af; the host bits must be zero. */
static int
parse_ip(const char *s, int af, struct dom_pattern *p, const char **why)
{
	char	 tmp[64];
	const char *slash = strchr(s, '/');
	size_t	 alen = slash != NULL ? (size_t)(slash - s) : strlen(s);
	int	 max = af == AF_INET ? 32 : 128, i, bits;
	char	*end;
	long	 v;

	if (alen == 0 || alen >= sizeof(tmp)) {
		*why = "invalid address";
		return -1;
	}
	memcpy(tmp, s, alen);
	tmp[alen] = '\0';
	memset(p->addr, 0, sizeof(p->addr));
	if (inet_pton(af, tmp, p->addr) != 1) {
		*why = "invalid address";
		return -1;
	}
	p->af = af;
	p->plen = max;
	if (slash != NULL) {
		if (!isdigit((unsigned char)slash[1]) ||
		    (slash[1] == '0' && slash[2] != '\0')) {
			*why = "invalid prefix length";
			return -1;
		}
		v = strtol(slash + 1, &end, 10);
		if (*end != '\0' || v < 0 || v > max) {
			*why = "invalid prefix length";
			return -1;
		}
		p->plen = (int)v;
	}
	/* host bits set (10.0.0.1/8) is almost always a typo: refuse */
	for (i = 0; i < max / 8; i++) {
		bits = p->plen - i * 8;
		if (bits >= 8)
			continue;
		if (bits <= 0 ? p->addr[i] != 0 :
		    (p->addr[i] & (0xff >> bits)) != 0) {
			*why = "host bits set in CIDR block";
			return -1;
		}
	}
	p->kind = DOM_IP;
	return 0;
}

static int
parse_name(const char *s, struct dom_pattern *p, const char **why)
{
	char	 n[DOM_NAME_MAX];
	const char *star;
	int	 nlabels, wild = -1, i;
	uint8_t	 a[16];
	int	 af;

	if (strcmp(s, "*") == 0) {
		p->kind = DOM_ANY;
		return 0;
	}
	if (normalise(s, strlen(s), n) == -1 || strlen(n) > 253) {
		*why = "invalid name length";
		return -1;
	}
	if ((star = strchr(n, '*')) != NULL) {
		if (strchr(star + 1, '*') != NULL) {
			*why = "more than one '*'";
			return -1;
		}
		/* the index of the label that holds '*' */
		wild = 0;
		for (i = 0; n + i < star; i++)
			if (n[i] == '.')
				wild++;
	}
	if (!valid_labels(n, wild, &nlabels)) {
		*why = wild >= 0 ? "'*' must be a whole label" :
		    "invalid name";
		return -1;
	}
	if (wild >= 0 && wild == nlabels - 1) {
		*why = "'*' cannot be the last label";
		return -1;
	}
	if (wild < 0 && dom_host_is_ip(n, &af, a)) {
		/* handled by the caller as an IP rule */
		*why = "internal: IP literal";
		return -1;
	}
	if (wild < 0) {
		p->kind = DOM_EXACT;
		strcpy(p->name, n);
	} else if (wild == 0) {
		p->kind = DOM_WILD_LEFT;
		strcpy(p->name, n + 1);		/* ".example.com" */
	} else {
		p->kind = DOM_WILD_MID;
		p->prefix_len = (size_t)(star - n);	/* "bedrock." */
		/* name holds "bedrock..amazonaws.com": prefix, suffix */
		memcpy(p->name, n, p->prefix_len);
		strcpy(p->name + p->prefix_len, star + 1);
	}
	return 0;
}

int
dom_pattern_parse(const char *s, struct dom_pattern *p, const char **why)
{
	char	 buf[DOM_NAME_MAX + 16];
	char	*colon, *host = buf;
	const char *rb;
	uint8_t	 a[16];
	int	 af;
	size_t	 ncolons = 0, i;

	memset(p, 0, sizeof(*p));
	*why = "invalid pattern";
	if (strlen(s) >= sizeof(buf)) {
		*why = "pattern too long";
		return -1;
	}
	strcpy(buf, s);
	for (i = 0; buf[i] != '\0'; i++) {
		if ((unsigned char)buf[i] <= 0x20 ||
		    (unsigned char)buf[i] >= 0x7f) {
			*why = "invalid character";
			return -1;
		}
		if (buf[i] == ':')
			ncolons++;
	}
	if (buf[0] == '[') {
		if ((rb = strchr(buf, ']')) == NULL) {
			*why = "unterminated '['";
			return -1;
		}
		if (rb[1] == ':') {
			if (parse_port(rb + 2, &p->port) == -1) {
				*why = "invalid port";
				return -1;
			}
		} else if (rb[1] != '\0') {
			*why = "junk after ']'";
			return -1;
		}
		buf[rb - buf] = '\0';
		return parse_ip(buf + 1, AF_INET6, p, why);
	}
	if (ncolons > 1)
		return parse_ip(buf, AF_INET6, p, why);
	if ((colon = strchr(buf, ':')) != NULL) {
		*colon = '\0';
		if (parse_port(colon + 1, &p->port) == -1) {
			*why = "invalid port";
			return -1;
		}
	}
	if (strchr(host, '/') != NULL)
		return parse_ip(host, AF_INET, p, why);
	if (dom_host_is_ip(host, &af, a))
		return parse_ip(host, af, p, why);
	if (strcmp(host, "*") == 0 && p->port != 0) {
		p->kind = DOM_ANY;
		return 0;
	}
	return parse_name(host, p, why);
}

int
dom_pattern_valid(const char *s, const char **why)
{
	struct dom_pattern p;

	return dom_pattern_parse(s, &p, why) == 0;
}

int
dom_prefix_match(const uint8_t *a, const uint8_t *net, int plen)
{
	int	 i, bits;
	uint8_t	 mask;

	for (i = 0; plen > 0; i++, plen -= 8) {
		bits = plen >= 8 ? 8 : plen;
		mask = (uint8_t)(0xff << (8 - bits));
		if ((a[i] & mask) != (net[i] & mask))
			return 0;
	}
	return 1;
}

int
dom_pattern_match_addr(const struct dom_pattern *p, int af, const void *addr,
    uint16_t port)
{
	if (p->port != 0 && p->port != port)
		return 0;
	if (p->kind == DOM_ANY)
		return 1;
	if (p->kind != DOM_IP || p->af != af)
		return 0;
	return dom_prefix_match(addr, p->addr, p->plen);
}

void
dom_host_prepare(const char *host, struct dom_host *h)
{
	/* untrusted: host from the sandbox's request */
	h->name_ok = 0;
	h->len = 0;
	if ((h->is_ip = dom_host_is_ip(host, &h->af, h->addr)))
		return;
	if (normalise(host, strlen(host), h->name) == -1)
		return;
	h->name_ok = 1;
	h->len = strlen(h->name);
}

int
dom_pattern_match(const struct dom_pattern *p, const char *host,
    uint16_t port)
{
	struct dom_host h;

	if (p->port != 0 && p->port != port)
		return 0;
	if (p->kind == DOM_ANY)
		return 1;
	dom_host_prepare(host, &h);
	return dom_pattern_match_host(p, &h, port);
}

int
dom_pattern_match_host(const struct dom_pattern *p, const struct dom_host *dh,
    uint16_t port)
{
	const char *h = dh->name;
	size_t	 hl = dh->len, nl, sl;

	if (p->port != 0 && p->port != port)
		return 0;
	if (p->kind == DOM_ANY)
		return 1;
	if (dh->is_ip)
		return dom_pattern_match_addr(p, dh->af, dh->addr, port);
	if (p->kind == DOM_IP || !dh->name_ok)
		return 0;
	nl = strlen(p->name);
	switch (p->kind) {
	case DOM_EXACT:
		return strcmp(h, p->name) == 0;
	case DOM_WILD_LEFT:
		/* name is ".example.com": at least one label before it */
		return hl > nl && strcmp(h + hl - nl, p->name) == 0;
	case DOM_WILD_MID:
		sl = nl - p->prefix_len;	/* ".amazonaws.com" */
		if (hl <= nl || strncmp(h, p->name, p->prefix_len) != 0 ||
		    strcmp(h + hl - sl, p->name + p->prefix_len) != 0)
			return 0;
		/* the middle must be exactly one non-empty label */
		return memchr(h + p->prefix_len, '.',
		    hl - nl) == NULL;
	default:
		return 0;
	}
}

const char *
dom_pattern_note(const char *s, char *buf, size_t len)
{
	static const uint8_t lo6[16] = { [15] = 1 };
	struct dom_pattern	 p;
	const char		*why;
	char			 port[24];
	int			 lo;

	if (dom_pattern_parse(s, &p, &why) == -1)
		return NULL;
	if (p.port != 0)
		snprintf(port, sizeof(port), "on port %u", (unsigned)p.port);
	else
		snprintf(port, sizeof(port), "on any port");
	if (p.kind == DOM_ANY) {
		snprintf(buf, len, "lets the sandbox connect to every host on "
		    "the internet, by any name or public address, %s, so what "
		    "it can read can be sent anywhere; this machine's "
		    "loopback, private networks and own addresses stay "
		    "closed, and denied domains still apply", port);
		return buf;
	}
	if (p.port != 0)
		return NULL;
	lo = (p.kind == DOM_EXACT && strcmp(p.name, "localhost") == 0) ||
	    (p.kind == DOM_IP && p.af == AF_INET && p.addr[0] == 127) ||
	    (p.kind == DOM_IP && p.af == AF_INET && p.addr[0] == 0) ||
	    (p.kind == DOM_IP && p.af == AF_INET6 && p.plen == 128 &&
	    memcmp(p.addr, lo6, 16) == 0);
	if (!lo)
		return NULL;
	snprintf(buf, len, "reaches none of this machine's own services: "
	    "loopback is opened one service at a time, by a rule with a port "
	    "(localhost:5432 or 127.0.0.1:5432)");
	return buf;
}

int
dom_match(const char *pattern, const char *host, uint16_t port)
{
	struct dom_pattern p;
	const char *why;

	if (dom_pattern_parse(pattern, &p, &why) == -1)
		return 0;
	return dom_pattern_match(&p, host, port);
}
