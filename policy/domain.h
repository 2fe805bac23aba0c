/* SPDX-License-Identifier: ISC */
/*
 * Egress host patterns (SPEC R-E3): what a rule in a network allowlist or
 * denylist looks like and whether a host:port matches it.  Pure.
 *
 * Pattern syntax:
 *   example.com            that name only
 *   *.example.com          any name below example.com (a.b.example.com
 *                          too), never example.com itself
 *   bedrock.*.amazonaws.com  exactly one label in place of the '*'
 *   *                      any host (domain or IP address)
 *   10.0.0.1, 10.0.0.0/8   IPv4 literal or CIDR block
 *   ::1, fd00::/8          IPv6 literal or CIDR block
 *   [::1]:22, [fd00::/8]:22  the same with a port
 *   any of the above + ":port" (IPv6 forms only in brackets)
 * Exactly one '*' at most, and it is a whole label.  Matching is
 * case-insensitive and ignores one trailing dot on both sides.  An IP
 * literal never matches a domain pattern (only IP rules and "*").
 */
#ifndef AIRLOCK_DOMAIN_H
#define AIRLOCK_DOMAIN_H

#include <stddef.h>
#include <stdint.h>

#define DOM_NAME_MAX	256

enum dom_kind {
	DOM_EXACT = 1,		/* example.com */
	DOM_WILD_LEFT,		/* *.example.com */
	DOM_WILD_MID,		/* bedrock.*.amazonaws.com */
	DOM_ANY,		/* * */
	DOM_IP,			/* literal or CIDR */
};

struct dom_pattern {
	enum dom_kind	 kind;
	char		 name[DOM_NAME_MAX];	/* normalised, no '*' */
	size_t		 prefix_len;	/* WILD_MID: "bedrock." */
	int		 af;		/* DOM_IP: AF_INET or AF_INET6 */
	uint8_t		 addr[16];	/* DOM_IP: network address */
	int		 plen;		/* DOM_IP: prefix length */
	uint16_t	 port;		/* 0: any port */
};

/* Parse a pattern; 0, or -1 with *why set (the pattern is invalid). */
int	 dom_pattern_parse(const char *s, struct dom_pattern *p,
	    const char **why);
/* Whether s is a valid pattern; *why set when not. */
int	 dom_pattern_valid(const char *s, const char **why);

/*
 * Whether host:port matches p.  host is as from a request target or a
 * SOCKS request (IPv6 without brackets); an IP literal host matches only
 * DOM_IP and DOM_ANY patterns.
 */
int	 dom_pattern_match(const struct dom_pattern *p, const char *host,
	    uint16_t port);
/*
 * The same for many patterns: the host parsed once (IP literal or
 * normalised name) by dom_host_prepare(), then matched against each
 * pattern without parsing it again.  A rule list is long (the baseline
 * allowlist), and parsing per pattern cost more than the matching.
 */
struct dom_host {
	int		 is_ip;
	int		 af;		/* is_ip: AF_INET or AF_INET6 */
	uint8_t		 addr[16];	/* is_ip */
	int		 name_ok;	/* !is_ip: name is usable */
	char		 name[DOM_NAME_MAX];	/* normalised */
	size_t		 len;
};
void	 dom_host_prepare(const char *host, struct dom_host *h);
int	 dom_pattern_match_host(const struct dom_pattern *p,
	    const struct dom_host *h, uint16_t port);
/* Whether a resolved address af/addr (4 or 16 bytes) and port match p. */
int	 dom_pattern_match_addr(const struct dom_pattern *p, int af,
	    const void *addr, uint16_t port);

/*
 * What a person should be told about an allow rule, in their words, or
 * NULL: "*" opens the whole internet; a rule for loopback without a port
 * (localhost, 127.0.0.1, ::1, 127.0.0.0/8) reaches nothing there, as
 * only a rule with a port opens one of the host's own services.  The
 * text goes into buf (len bytes), which is returned.
 */
const char *dom_pattern_note(const char *s, char *buf, size_t len);
/* Parse-and-match convenience; an invalid pattern matches nothing. */
int	 dom_match(const char *pattern, const char *host, uint16_t port);

/*
 * Whether host is an IP literal (strict dotted quad, or IPv6 without
 * brackets); fills af and addr[16] when it is.
 */
/* 1 when the first plen bits of address a equal those of net. */
int	 dom_prefix_match(const uint8_t *a, const uint8_t *net, int plen);
int	 dom_host_is_ip(const char *host, int *af, uint8_t *addr);

#endif
