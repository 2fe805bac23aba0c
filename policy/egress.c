// SPDX-License-Identifier: ISC
/*
 * Egress lists and decisions (see policy/egress.h).  The baseline is what
 * a coding agent needs to work at all (its model API, git hosting,
 * package registries, model catalogs); everything else must be allowed by
 * the spec or the workspace settings.  The hard deny list names endpoints
 * that hand out credentials (cloud instance metadata) or accept arbitrary
 * uploads from any client (telemetry sinks, an exfiltration channel no
 * coding task needs); no allow, not even "*", reaches them.
 */
#include <sys/socket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"

const char *const egress_baseline[] = {
	/* LLM API providers */
	"api.anthropic.com",
	"api.openai.com",
	"*.openai.azure.com",
	"generativelanguage.googleapis.com",
	"aiplatform.googleapis.com",
	"oauth2.googleapis.com",
	"bedrock-runtime.*.amazonaws.com",
	"bedrock.*.amazonaws.com",
	"api.mistral.ai",
	"api.groq.com",
	"api.deepseek.com",
	"api.x.ai",
	"api.cohere.com",
	"api.together.xyz",
	"openrouter.ai",
	/* git hosting, GitHub first (R-E4) */
	"github.com",
	"*.github.com",
	"*.githubusercontent.com",
	"ghcr.io",
	"gitlab.com",
	"bitbucket.org",
	/* package registries */
	"registry.npmjs.org",
	"registry.yarnpkg.com",
	"nodejs.org",
	"pypi.org",
	"files.pythonhosted.org",
	"crates.io",
	"static.crates.io",
	"index.crates.io",
	"static.rust-lang.org",
	"proxy.golang.org",
	"sum.golang.org",
	"rubygems.org",
	"index.rubygems.org",
	"repo.maven.apache.org",
	"repo1.maven.org",
	"api.nuget.org",
	"deb.debian.org",
	"security.debian.org",
	"archive.ubuntu.com",
	"security.ubuntu.com",
	/* model catalogs */
	"huggingface.co",
	"*.huggingface.co",
	"*.hf.co",
	"ollama.com",
	"registry.ollama.ai",
	NULL
};

/*
 * The baseline's groups, by the first entry of each, for a person asking
 * where an entry came from (`airlock policy egress`).
 */
static const struct {
	const char	*first;
	const char	*group;
} egress_groups[] = {
	{ "api.anthropic.com", "LLM API providers" },
	{ "github.com", "git hosting" },
	{ "registry.npmjs.org", "package registries" },
	{ "huggingface.co", "model catalogs" },
};

const char *
egress_baseline_group(const char *pattern)
{
	const char	*group = NULL;
	size_t		 i, g;

	for (i = 0; egress_baseline[i] != NULL; i++) {
		for (g = 0; g < sizeof(egress_groups) /
		    sizeof(egress_groups[0]); g++)
			if (strcmp(egress_baseline[i],
			    egress_groups[g].first) == 0)
				group = egress_groups[g].group;
		if (strcmp(egress_baseline[i], pattern) == 0)
			return group;
	}
	return NULL;
}

const char *const egress_hard_deny[] = {
	/* cloud instance metadata: credentials for the host's identity */
	"169.254.169.254",		/* AWS, GCP, Azure, OCI, ... */
	"fd00:ec2::254",		/* AWS IMDS over IPv6 */
	"169.254.170.2",		/* AWS ECS task credentials */
	"100.100.100.200",		/* Alibaba Cloud */
	"192.0.0.192",			/* Oracle Cloud (classic) */
	"metadata.google.internal",
	"metadata",			/* GCE short name */
	/* telemetry sinks: accept arbitrary payloads from any client */
	"*.ingest.sentry.io",
	"*.ingest.us.sentry.io",
	"api.segment.io",
	"dc.services.visualstudio.com",
	NULL
};

struct egress_rule {
	struct dom_pattern	 pat;
	const char		*text;
};

struct egress_rules {
	struct egress_rule	*allow;
	size_t			 nallow;
	struct egress_rule	*deny;
	size_t			 ndeny;
	struct egress_rule	*hard;
	size_t			 nhard;
	char			**strings;	/* owned rule texts */
};

static int
strv_has(char *const *v, const char *s)
{
	for (; v != NULL && *v != NULL; v++)
		if (strcasecmp(*v, s) == 0)
			return 1;
	return 0;
}

static char **
add_valid(char **v, const char *s)
{
	const char *why;

	if (!dom_pattern_valid(s, &why) || strv_has(v, s))
		return v;
	return strv_add(v, s);
}

char **
egress_allowlist(int network_enabled, char *const *spec_extra,
    char *const *settings_allowed)
{
	char	**v = xcalloc(1, sizeof(*v));
	size_t	 i;

	if (!network_enabled)
		return v;
	for (i = 0; egress_baseline[i] != NULL; i++)
		v = add_valid(v, egress_baseline[i]);
	for (i = 0; spec_extra != NULL && spec_extra[i] != NULL; i++)
		v = add_valid(v, spec_extra[i]);
	for (i = 0; settings_allowed != NULL && settings_allowed[i] != NULL;
	    i++)
		v = add_valid(v, settings_allowed[i]);
	return v;
}

char **
egress_drop_baseline(char **v, char *const *spec_extra,
    char *const *settings_allowed)
{
	char	**out = xcalloc(1, sizeof(*out));
	size_t	  i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (!strv_has((char *const *)egress_baseline, v[i]) ||
		    strv_has(spec_extra, v[i]) ||
		    strv_has(settings_allowed, v[i]))
			out = strv_add(out, v[i]);
	strv_free(v);
	return out;
}

static size_t
count(const void *const *v)
{
	size_t	n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

static int
compile(struct egress_rules *r, const char *const *src,
    struct egress_rule **out, size_t *nout, int strict, const char **why)
{
	size_t	 n = count((const void *const *)src), i;

	*out = xcalloc(n + 1, sizeof(**out));
	*nout = 0;
	for (i = 0; i < n; i++) {
		struct egress_rule *e = &(*out)[*nout];

		if (dom_pattern_parse(src[i], &e->pat, why) == -1) {
			if (strict)
				return -1;
			continue;
		}
		r->strings = strv_add(r->strings, src[i]);
		e->text = r->strings[strv_len(r->strings) - 1];
		(*nout)++;
	}
	return 0;
}

struct egress_rules *
egress_rules_new(char *const *allow, char *const *deny, const char **why)
{
	struct egress_rules *r = xcalloc(1, sizeof(*r));
	const char *w;

	r->strings = xcalloc(1, sizeof(char *));
	if (compile(r, egress_hard_deny, &r->hard, &r->nhard, 1, why) == -1 ||
	    compile(r, (const char *const *)deny, &r->deny, &r->ndeny, 1,
	    why) == -1) {
		egress_rules_free(r);
		return NULL;
	}
	(void)compile(r, (const char *const *)allow, &r->allow, &r->nallow, 0,
	    &w);
	return r;
}

void
egress_rules_free(struct egress_rules *r)
{
	if (r == NULL)
		return;
	free(r->allow);
	free(r->deny);
	free(r->hard);
	strv_free(r->strings);
	free(r);
}

static const struct egress_rule *
find_host(const struct egress_rule *v, size_t n, const struct dom_host *host,
    uint16_t port)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (dom_pattern_match_host(&v[i].pat, host, port))
			return &v[i];
	return NULL;
}

static const struct egress_rule *
find_addr(const struct egress_rule *v, size_t n, int af, const void *addr,
    uint16_t port, int ip_only)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (ip_only && v[i].pat.kind != DOM_IP)
			continue;
		if (dom_pattern_match_addr(&v[i].pat, af, addr, port))
			return &v[i];
	}
	return NULL;
}

enum pol_verdict
egress_rules_decide(const struct egress_rules *r, const char *host,
    uint16_t port, char *reason, size_t reasonlen)
{
	const struct egress_rule *e;
	struct dom_host h;

	/* untrusted: host from the sandbox, parsed once for every rule */
	dom_host_prepare(host, &h);
	if ((e = find_host(r->hard, r->nhard, &h, port)) != NULL) {
		snprintf(reason, reasonlen, "hard-denied: '%s'", e->text);
		return POL_DENY;
	}
	if ((e = find_host(r->deny, r->ndeny, &h, port)) != NULL) {
		snprintf(reason, reasonlen, "denied by '%s'", e->text);
		return POL_DENY;
	}
	if ((e = find_host(r->allow, r->nallow, &h, port)) != NULL) {
		snprintf(reason, reasonlen, "allowed by '%s'", e->text);
		return POL_ALLOW;
	}
	snprintf(reason, reasonlen, r->nallow == 0 ?
	    "not in allowlist (allowlist empty)" : "not in allowlist");
	return POL_DENY;
}

struct special_range {
	int		 af;
	uint8_t		 net[16];
	int		 plen;
	const char	*name;
};

static const struct special_range special[] = {
	{ AF_INET, { 0 }, 8, "unspecified" },
	{ AF_INET, { 10 }, 8, "private" },
	{ AF_INET, { 100, 64 }, 10, "cgnat" },
	{ AF_INET, { 127 }, 8, "loopback" },
	{ AF_INET, { 169, 254 }, 16, "link-local" },
	{ AF_INET, { 172, 16 }, 12, "private" },
	{ AF_INET, { 192, 0, 0 }, 24, "reserved" },
	{ AF_INET, { 192, 0, 2 }, 24, "documentation" },	/* TEST-NET-1 */
	{ AF_INET, { 192, 88, 99 }, 24, "reserved" },	/* 6to4 relay */
	{ AF_INET, { 192, 168 }, 16, "private" },
	{ AF_INET, { 198, 18 }, 15, "benchmarking" },
	{ AF_INET, { 198, 51, 100 }, 24, "documentation" },	/* TEST-NET-2 */
	{ AF_INET, { 203, 0, 113 }, 24, "documentation" },	/* TEST-NET-3 */
	{ AF_INET, { 224 }, 4, "multicast" },
	{ AF_INET, { 240 }, 4, "reserved" },
	{ AF_INET6, { 0 }, 128, "unspecified" },
	{ AF_INET6, { [15] = 1 }, 128, "loopback" },
	{ AF_INET6, { 0 }, 96, "reserved" },	/* IPv4-compatible */
	{ AF_INET6, { 0x01 }, 64, "reserved" },	/* 100::/64 discard */
	{ AF_INET6, { 0x20, 0x01, 0x00, 0x02 }, 48, "benchmarking" },
	{ AF_INET6, { 0x20, 0x01 }, 23, "reserved" },	/* IETF protocols */
	{ AF_INET6, { 0x20, 0x01, 0x0d, 0xb8 }, 32, "documentation" },
	{ AF_INET6, { 0x3f, 0xff }, 20, "documentation" },	/* RFC 9637 */
	{ AF_INET6, { 0xfe, 0x80 }, 10, "link-local" },
	{ AF_INET6, { 0xfe, 0xc0 }, 10, "private" },	/* site-local */
	{ AF_INET6, { 0xfc }, 7, "private" },		/* ULA */
	{ AF_INET6, { 0xff }, 8, "multicast" },
};

/*
 * An IPv6 address that carries an IPv4 address the host would reach:
 * IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4
 * (2002:aabb:ccdd::).  Returns a pointer to the 4 bytes, or NULL.
 */
static const uint8_t *
embedded_v4(const uint8_t *a)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t nat64[12] = { 0x00, 0x64, 0xff, 0x9b };

	if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0)
		return a + 12;
	if (a[0] == 0x20 && a[1] == 0x02)
		return a + 2;
	return NULL;
}

/*
 * The host's own addresses: a service listening on one of them is on
 * this machine, whatever range the address is in.  Set once by proxyd
 * before it restricts itself (it cannot read them afterwards).
 */
static struct {
	int	 af;
	uint8_t	 a[16];
} host_addrs[EGRESS_HOST_ADDRS_MAX];
static size_t	n_host_addrs;

int
egress_host_addr_add(int af, const void *addr)
{
	size_t	i, len = af == AF_INET ? 4 : 16;

	if (af != AF_INET && af != AF_INET6)
		return -1;
	for (i = 0; i < n_host_addrs; i++)
		if (host_addrs[i].af == af &&
		    memcmp(host_addrs[i].a, addr, len) == 0)
			return 0;
	if (n_host_addrs == EGRESS_HOST_ADDRS_MAX)
		return -1;
	host_addrs[n_host_addrs].af = af;
	memset(host_addrs[n_host_addrs].a, 0, sizeof(host_addrs[0].a));
	memcpy(host_addrs[n_host_addrs].a, addr, len);
	n_host_addrs++;
	return 0;
}

void
egress_host_addrs_clear(void)
{
	n_host_addrs = 0;
}

const char *
egress_addr_special(int af, const void *vaddr)
{
	const uint8_t *a = vaddr, *v4;
	size_t	 i;

	if (af == AF_INET6 && (v4 = embedded_v4(a)) != NULL)
		return egress_addr_special(AF_INET, v4);
	for (i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (special[i].af == af &&
		    dom_prefix_match(a, special[i].net, special[i].plen))
			return special[i].name;
	for (i = 0; i < n_host_addrs; i++)
		if (host_addrs[i].af == af && memcmp(host_addrs[i].a, a,
		    af == AF_INET ? 4 : 16) == 0)
			return "host";
	return NULL;
}

enum pol_verdict
egress_rules_check_addr(const struct egress_rules *r, const char *host,
    int af, const void *vaddr, uint16_t port, char *reason,
    size_t reasonlen)
{
	const struct egress_rule *e;
	const uint8_t *a = vaddr, *v4;
	const char *kind;
	char	 h[DOM_NAME_MAX];
	size_t	 i, hl;
	int	 host_local;

	/* A mapped address is the IPv4 host it embeds: check that one. */
	if (af == AF_INET6 && (v4 = embedded_v4(a)) != NULL &&
	    egress_addr_special(AF_INET, v4) != NULL) {
		af = AF_INET;
		a = v4;
	}
	if ((e = find_addr(r->hard, r->nhard, af, a, port, 1)) != NULL) {
		snprintf(reason, reasonlen, "hard-denied address: '%s'",
		    e->text);
		return POL_DENY;
	}
	if ((e = find_addr(r->deny, r->ndeny, af, a, port, 1)) != NULL) {
		snprintf(reason, reasonlen, "address denied by '%s'", e->text);
		return POL_DENY;
	}
	if ((kind = egress_addr_special(af, a)) == NULL) {
		snprintf(reason, reasonlen, "public address");
		return POL_ALLOW;
	}
	/*
	 * Loopback (and 0.0.0.0, which reaches it) is where the host keeps
	 * services that trust local callers: a rule reaches one only when it
	 * names a port as well (127.0.0.1:5432, localhost:5432).  A rule
	 * without one (localhost, 127.0.0.0/8) would open every such service
	 * at once; it matches nothing here, and the CLI warns about it.
	 */
	host_local = strcmp(kind, "loopback") == 0 ||
	    strcmp(kind, "unspecified") == 0;
	for (i = 0; i < r->nallow; i++) {
		e = &r->allow[i];
		if (e->pat.kind != DOM_IP ||
		    !dom_pattern_match_addr(&e->pat, af, a, port) ||
		    (host_local && e->pat.port == 0))
			continue;
		snprintf(reason, reasonlen, "%s address allowed by '%s'",
		    kind, e->text);
		return POL_ALLOW;
	}
	if (strcmp(kind, "loopback") == 0 && host != NULL) {
		hl = strlen(host);
		if (hl > 0 && host[hl - 1] == '.')
			hl--;
		if (hl < sizeof(h)) {
			memcpy(h, host, hl);
			h[hl] = '\0';
		} else
			h[0] = '\0';
		for (i = 0; i < r->nallow; i++) {
			e = &r->allow[i];
			if (e->pat.kind == DOM_EXACT &&
			    strcmp(e->pat.name, "localhost") == 0 &&
			    strcasecmp(h, "localhost") == 0 &&
			    e->pat.port != 0 && e->pat.port == port) {
				snprintf(reason, reasonlen,
				    "loopback allowed by '%s'", e->text);
				return POL_ALLOW;
			}
		}
	}
	snprintf(reason, reasonlen, "resolves to a %s address", kind);
	return POL_DENY;
}

enum pol_verdict
egress_decide(char *const *allow, char *const *deny, const char *host,
    uint16_t port, char *reason, size_t reasonlen)
{
	struct egress_rules *r;
	enum pol_verdict v;
	const char *why;

	if ((r = egress_rules_new(allow, deny, &why)) == NULL) {
		snprintf(reason, reasonlen, "invalid deny rule: %s", why);
		return POL_DENY;
	}
	v = egress_rules_decide(r, host, port, reason, reasonlen);
	egress_rules_free(r);
	return v;
}

enum pol_verdict
egress_check_addr(char *const *allow, const char *host, int af,
    const void *addr, uint16_t port, char *reason, size_t reasonlen)
{
	struct egress_rules *r;
	enum pol_verdict v;
	const char *why;

	if ((r = egress_rules_new(allow, NULL, &why)) == NULL) {
		snprintf(reason, reasonlen, "internal: %s", why);
		return POL_DENY;
	}
	v = egress_rules_check_addr(r, host, af, addr, port, reason,
	    reasonlen);
	egress_rules_free(r);
	return v;
}
