// SPDX-License-Identifier: ISC
/*
 * Strings for a person's terminal (vis.h).  untrusted: every byte of the
 * input, which may come from a sandbox or from any client of airlockd.
 * The output holds only printable ASCII and UTF-8 characters that
 * neither act on the terminal nor reorder or hide text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vis.h"
#include "common/xmalloc.h"

/*
 * Characters shown as <U+XXXX>: the bidi controls (ALM, LRM, RLM, the
 * embeddings, overrides and isolates), the zero-width and invisible
 * characters (ZWSP, ZWNJ, ZWJ, word joiner, invisible operators, soft
 * hyphen, Hangul fillers, Mongolian vowel separator, BOM), line and
 * paragraph separators, the interlinear annotations and the tags.  A
 * reader cannot see them, and each can make a shown string read as
 * another (Trojan Source).
 */
static int
vis_hidden(uint32_t cp)
{
	return cp == 0x00ad || cp == 0x034f || cp == 0x061c ||
	    cp == 0x115f || cp == 0x1160 || cp == 0x17b4 || cp == 0x17b5 ||
	    cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
	    (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2060 && cp <= 0x206f) || cp == 0x3164 ||
	    cp == 0xfeff || cp == 0xffa0 || (cp >= 0xfff9 && cp <= 0xfffb) ||
	    (cp >= 0xe0000 && cp <= 0xe007f);
}

/*
 * The length of the well-formed UTF-8 sequence at s (at most n bytes)
 * and its code point; 0 if it is not one (overlong, surrogate, past
 * U+10FFFF, cut short).
 */
size_t
vis_utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t	len, i;
	uint32_t c;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return len;
}

/* Append what fits of s (len bytes) at dst + o; o grows regardless. */
static void
vis_put(char *dst, size_t dstsz, size_t *o, const char *s, size_t len)
{
	size_t	i;

	for (i = 0; i < len; i++, (*o)++)
		if (*o + 1 < dstsz)
			dst[*o] = s[i];
}

size_t
vis_n(char *dst, size_t dstsz, const char *src, size_t n, int flags)
{
	const unsigned char *s = (const unsigned char *)src;
	char		 tmp[16];
	size_t		 i = 0, o = 0, len;
	uint32_t	 cp;

	while (i < n) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f) {
			if (c == '\\' && !(flags & VIS_BS_KEEP))
				vis_put(dst, dstsz, &o, "\\\\", 2);
			else
				vis_put(dst, dstsz, &o, (const char *)&c, 1);
			i++;
			continue;
		}
		if (c < 0x80) {
			if (c == 0x1b)
				vis_put(dst, dstsz, &o, "\\e", 2);
			else if (c == '\n')
				vis_put(dst, dstsz, &o, "\\n", 2);
			else if (c == '\r')
				vis_put(dst, dstsz, &o, "\\r", 2);
			else if (c == '\t')
				vis_put(dst, dstsz, &o, "\\t", 2);
			else {
				snprintf(tmp, sizeof(tmp), "\\x%02x", c);
				vis_put(dst, dstsz, &o, tmp, 4);
			}
			i++;
			continue;
		}
		if ((len = vis_utf8(s + i, n - i, &cp)) == 0) {
			/* Not UTF-8: the byte, visibly. */
			snprintf(tmp, sizeof(tmp), "\\x%02x", c);
			vis_put(dst, dstsz, &o, tmp, 4);
			i++;
			continue;
		}
		if (cp < 0xa0) {
			/* C1: 8-bit CSI, OSC, DCS on some terminals. */
			snprintf(tmp, sizeof(tmp), "\\x%02x", (unsigned)cp);
			vis_put(dst, dstsz, &o, tmp, 4);
		} else if (vis_hidden(cp)) {
			snprintf(tmp, sizeof(tmp), "<U+%04X>", (unsigned)cp);
			vis_put(dst, dstsz, &o, tmp, strlen(tmp));
		} else
			vis_put(dst, dstsz, &o, (const char *)s + i, len);
		i += len;
	}
	if (dstsz > 0)
		dst[o < dstsz ? o : dstsz - 1] = '\0';
	return o;
}

static char *
vis_dup(const char *src, int flags)
{
	size_t	 n, sz;
	char	*dst;

	if (src == NULL)
		return xstrdup("-");
	n = strlen(src);
	sz = n * VIS_MAX_GROWTH + 1;
	dst = xmalloc(sz);
	(void)vis_n(dst, sz, src, n, flags);
	return dst;
}

char *
vis_str(const char *src)
{
	return vis_dup(src, 0);
}

static const char *
vis_ring(const char *src, int flags)
{
	static char	*ring[VIS_RING];
	static size_t	 next;
	char		*s = vis_dup(src, flags);

	free(ring[next]);
	ring[next] = s;
	next = (next + 1) % VIS_RING;
	return s;
}

const char *
vis(const char *src)
{
	return vis_ring(src, 0);
}

const char *
vis_json(const char *src)
{
	return vis_ring(src, VIS_BS_KEEP);
}
