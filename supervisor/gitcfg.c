// SPDX-License-Identifier: ISC
/*
 * Renders the run's sandbox-private ~/.gitconfig (see gitcfg.h).  The
 * values come from settings, which the agent cannot write, but they are
 * still quoted for git's config syntax so that no value can start a new
 * section or key.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/host/settings.h"
#include "common/xmalloc.h"
#include "supervisor/gitcfg.h"

struct sbuf {
	char	*s;
	size_t	 len;
	size_t	 cap;
};

static void
sb_add(struct sbuf *b, const char *s)
{
	size_t	n = strlen(s);

	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap)
			b->cap = b->cap ? b->cap * 2 : 1024;
		b->s = xreallocarray(b->s, 1, b->cap);
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

/* A quoted config value: "..." with \ and " escaped; no newline. */
static int
sb_value(struct sbuf *b, const char *v)
{
	char	c[3];

	if (strpbrk(v, "\n\r") != NULL)
		return -1;
	sb_add(b, "\"");
	for (; *v != '\0'; v++) {
		if ((unsigned char)*v < 0x20 && *v != '\t')
			return -1;
		c[0] = *v;
		c[1] = '\0';
		if (*v == '\\' || *v == '"') {
			c[0] = '\\';
			c[1] = *v;
			c[2] = '\0';
		}
		sb_add(b, c);
	}
	sb_add(b, "\"");
	return 0;
}

/* A subsection name ([url "..."]): no quote, backslash or newline. */
static int
subsection_ok(const char *s)
{
	return strpbrk(s, "\"\\\n\r") == NULL && *s != '\0';
}

static int
host_name_ok(const char *s)
{
	if (*s == '\0' || *s == '.')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' &&
		    *s != '-')
			return 0;
	return 1;
}

/* "https://host[:port]/..." -> "https://host[:port]" for credential.<url>. */
static char *
https_origin(const char *prefix)
{
	const char	*p;

	if (strncmp(prefix, "https://", 8) != 0)
		return NULL;
	p = strchr(prefix + 8, '/');
	return xstrndup(prefix, p ? (size_t)(p - prefix) : strlen(prefix));
}

char *
gitcfg_render(const struct settings *s, const char *base, const char *helper)
{
	struct sbuf	 b = { 0 };
	char		*gw, *url, *origin;
	size_t		 i, j, blen = strlen(base);

	while (blen > 0 && base[blen - 1] == '/')
		blen--;
	gw = xstrndup(base, blen);
	if (!subsection_ok(gw))
		goto bad;
	sb_add(&b, "# airlock: this run's git configuration, generated for "
	    "the sandbox.\n# Pushes go through airlock's gateway; the "
	    "write token never enters the sandbox.\n");
	for (i = 0; i < s->nhosts; i++) {
		const struct code_host *h = &s->hosts[i];

		if (!host_name_ok(h->name))
			goto bad;
		xasprintf(&url, "%s/%s/", gw, h->name);
		sb_add(&b, "[url \"");
		sb_add(&b, url);
		sb_add(&b, "\"]\n");
		free(url);
		for (j = 0; h->push_prefixes && h->push_prefixes[j]; j++) {
			sb_add(&b, "\tpushInsteadOf = ");
			if (sb_value(&b, h->push_prefixes[j]) == -1)
				goto bad;
			sb_add(&b, "\n");
		}
	}
	/* R-L8: the gateway is on the sandbox's loopback, not behind the
	 * proxy; an empty proxy overrides http_proxy for it. */
	sb_add(&b, "[http \"");
	sb_add(&b, gw);
	sb_add(&b, "/\"]\n\tproxy = \"\"\n");
	/* No credential helper from anywhere else; the read-only one,
	 * scoped to the code hosts' HTTPS origins, for fetch. */
	sb_add(&b, "[credential]\n\thelper = \"\"\n");
	for (i = 0; helper != NULL && i < s->nhosts; i++) {
		const struct code_host *h = &s->hosts[i];

		for (j = 0; h->push_prefixes && h->push_prefixes[j]; j++) {
			if ((origin = https_origin(h->push_prefixes[j]))
			    == NULL)
				continue;
			if (!subsection_ok(origin)) {
				free(origin);
				goto bad;
			}
			sb_add(&b, "[credential \"");
			sb_add(&b, origin);
			sb_add(&b, "\"]\n\thelper = \"\"\n\thelper = ");
			free(origin);
			if (sb_value(&b, helper) == -1)
				goto bad;
			sb_add(&b, "\n");
		}
	}
	/* Safe defaults: no remote helpers that run commands, no
	 * transport that bypasses the gateway by running ssh. */
	sb_add(&b, "[protocol \"ext\"]\n\tallow = never\n"
	    "[protocol \"fd\"]\n\tallow = never\n"
	    "[push]\n\tdefault = simple\n");
	free(gw);
	return b.s;
bad:
	free(gw);
	free(b.s);
	return NULL;
}
