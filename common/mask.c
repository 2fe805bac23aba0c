/* SPDX-License-Identifier: ISC */
/*
 * Credential masking: placeholders and the request-head rewrite (see
 * mask.h).  Everything here reads bytes from the sandbox; it is bounded
 * by MASK_HEAD_MAX and never copies a real value anywhere but into the
 * rewritten head it returns.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/b64.h"
#include "common/mask.h"

static const char mask_lower[] = "abcdefghijklmnopqrstuvwxyz";
static const char mask_upper[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
static const char mask_digit[] = "0123456789";

int
mask_placeholder(const char *real, const unsigned char *rnd, size_t nrnd,
    char *out, size_t outlen)
{
	size_t	n, i, keep = 0, changed = 0;

	n = strlen(real);
	if (n == 0 || n > MASK_VALUE_MAX || n >= outlen || nrnd < n)
		return -1;
	/* The prefix that names the kind of key ("sk-ant-api03-"). */
	for (i = 0; i < n && i < 16; i++)
		if (real[i] == '-' || real[i] == '_')
			keep = i + 1;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)real[i];

		if (i < keep)
			out[i] = (char)c;
		else if (islower(c))
			out[i] = mask_lower[rnd[i] % 26];
		else if (isupper(c))
			out[i] = mask_upper[rnd[i] % 26];
		else if (isdigit(c))
			out[i] = mask_digit[rnd[i] % 10];
		else
			out[i] = (char)c;
		if (i >= keep && isalnum(c))
			changed++;
	}
	out[n] = '\0';
	/*
	 * Too few random bytes would let the sandbox guess the rest of the
	 * key from its placeholder's fixed parts: at least 16 must change,
	 * and the placeholder must differ from the key.
	 */
	if (changed < 16 || strcmp(out, real) == 0) {
		memset(out, 0, n);
		return -1;
	}
	return 0;
}

/* A growing output buffer; zeroed when it grows, since it may hold a key. */
struct mbuf {
	char	*p;
	size_t	 len, cap;
};

static void
mb_put(struct mbuf *b, const char *s, size_t n)
{
	char	*np;
	size_t	 cap;

	if (b->len + n + 1 > b->cap) {
		cap = (b->len + n + 1) * 2;
		if ((np = malloc(cap)) == NULL)
			abort();
		if (b->p != NULL) {
			memcpy(np, b->p, b->len);
			mask_head_free(b->p, b->cap);
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
mask_head_free(char *p, size_t len)
{
	if (p == NULL)
		return;
	explicit_bzero(p, len);
	free(p);
}

/* Does s[0..n) contain needle? */
static const char *
mem_find(const char *s, size_t n, const char *needle)
{
	size_t	nl = strlen(needle);

	if (nl == 0 || nl > n)
		return NULL;
	return memmem(s, n, needle, nl);
}

/* Copy s[0..n) to b with every ph replaced by real. */
static int
put_replaced(struct mbuf *b, const char *s, size_t n, const char *ph,
    const char *real)
{
	const char	*f;
	size_t		 pl = strlen(ph);
	int		 did = 0;

	while ((f = mem_find(s, n, ph)) != NULL) {
		mb_put(b, s, (size_t)(f - s));
		mb_put(b, real, strlen(real));
		n -= (size_t)(f - s) + pl;
		s = f + pl;
		did = 1;
	}
	mb_put(b, s, n);
	return did;
}

static int
host_eq(const char *a, const char *b)
{
	return strcasecmp(a, b) == 0;
}

/* untrusted: from the sandbox.  Decode "Basic <b64>" if it is one. */
static unsigned char *
basic_decode(const char *v, size_t n, size_t *outlen)
{
	unsigned char	*out;

	while (n > 0 && (*v == ' ' || *v == '\t'))
		v++, n--;
	if (n < 6 || strncasecmp(v, "Basic ", 6) != 0)
		return NULL;
	v += 6, n -= 6;
	while (n > 0 && *v == ' ')
		v++, n--;
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if ((out = malloc(n / 4 * 3 + 4)) == NULL)
		abort();
	if (b64_decode(v, n, out, outlen) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

static int
bad(char *why, size_t whylen, const char *s)
{
	if (why != NULL && whylen > 0)
		snprintf(why, whylen, "%s", s);
	return -1;
}

/*
 * Check the shape: a request line of three fields, header lines with a
 * name and a colon, CRLF line ends, no NUL, no folded lines, ending in
 * the blank line.
 */
static int
head_shape(const char *h, size_t len, char *why, size_t whylen)
{
	const char	*p = h, *e = h + len, *nl;
	int		 first = 1;

	if (len > MASK_HEAD_MAX)
		return bad(why, whylen, "request head too long");
	if (len < 4 || memcmp(e - 4, "\r\n\r\n", 4) != 0)
		return bad(why, whylen,
		    "request head does not end in a blank line");
	if (memchr(h, '\0', len) != NULL)
		return bad(why, whylen, "NUL byte in the request head");
	while (p < e) {
		const char *q;

		nl = memchr(p, '\n', (size_t)(e - p));
		if (nl == NULL || nl == p || nl[-1] != '\r')
			return bad(why, whylen, "line not ended by CRLF");
		if (nl - 1 == p)	/* the blank line */
			return nl + 1 == e ? 0 :
			    bad(why, whylen, "bytes after the blank line");
		for (q = p; q < nl - 1; q++)
			if (*q == '\r')
				return bad(why, whylen,
				    "bare CR in the request head");
		if (first) {
			const char *s1, *s2;

			s1 = memchr(p, ' ', (size_t)(nl - p));
			s2 = s1 ? memchr(s1 + 1, ' ', (size_t)(nl - s1 - 1))
			    : NULL;
			if (s1 == NULL || s1 == p || s2 == NULL ||
			    s2 == s1 + 1 || (size_t)(nl - 1 - s2 - 1) < 8 ||
			    strncmp(s2 + 1, "HTTP/1.", 7) != 0)
				return bad(why, whylen,
				    "not an HTTP/1 request line");
			first = 0;
		} else {
			const char *c;

			if (*p == ' ' || *p == '\t')
				return bad(why, whylen,
				    "folded header line");
			c = memchr(p, ':', (size_t)(nl - p));
			if (c == NULL || c == p)
				return bad(why, whylen,
				    "header line without a name");
			for (q = p; q < c; q++)
				if (*q <= ' ' || *q == 0x7f)
					return bad(why, whylen,
					    "bad byte in a header name");
		}
		p = nl + 1;
	}
	return bad(why, whylen, "request head does not end in a blank line");
}

/* Is a placeholder of an entry for another host in the head? */
static int
exfil_scan(const char *h, size_t len, const char *host,
    const struct mask_ent *ents, size_t nent, size_t *which)
{
	const char	*p = h, *e = h + len, *nl;
	size_t		 i;

	for (i = 0; i < nent; i++) {
		if (host_eq(ents[i].host, host))
			continue;
		if (mem_find(h, len, ents[i].placeholder) != NULL) {
			*which = i;
			return 1;
		}
	}
	/* The same inside any Basic credentials, which hide it in base64. */
	for (; p < e && (nl = memchr(p, '\n', (size_t)(e - p))) != NULL;
	    p = nl + 1) {
		unsigned char	*d;
		size_t		 dl;
		const char	*c = memchr(p, ':', (size_t)(nl - p));

		if (c == NULL || (size_t)(c - p) != 13 ||
		    strncasecmp(p, "Authorization", 13) != 0)
			continue;
		if ((d = basic_decode(c + 1, (size_t)(nl - 1 - c - 1),
		    &dl)) == NULL)
			continue;
		for (i = 0; i < nent; i++)
			if (!host_eq(ents[i].host, host) &&
			    mem_find((char *)d, dl, ents[i].placeholder)) {
				*which = i;
				free(d);
				return 1;
			}
		free(d);
	}
	return 0;
}

/* The request line with query parameter values equal to a placeholder. */
static int
rewrite_target(struct mbuf *b, const char *p, size_t n, const char *host,
    const struct mask_ent *ents, size_t nent)
{
	const char	*q, *end, *s;
	size_t		 i;
	int		 did = 0;

	/* The target runs from the first space to the last. */
	q = memchr(p, ' ', n);
	end = p + n;
	while (end > q && end[-1] != ' ')
		end--;
	end--;
	s = memchr(q + 1, '?', (size_t)(end - q - 1));
	if (s == NULL) {
		mb_put(b, p, n);
		return 0;
	}
	s++;
	mb_put(b, p, (size_t)(s - p));
	while (s < end) {
		const char *amp, *eq;
		size_t	    kl;
		int	    hit = 0;

		amp = memchr(s, '&', (size_t)(end - s));
		if (amp == NULL)
			amp = end;
		eq = memchr(s, '=', (size_t)(amp - s));
		kl = eq ? (size_t)(eq - s) : 0;
		for (i = 0; eq != NULL && i < nent; i++) {
			if (ents[i].where != MASK_QUERY ||
			    !host_eq(ents[i].host, host) ||
			    strlen(ents[i].field) != kl ||
			    memcmp(ents[i].field, s, kl) != 0 ||
			    strlen(ents[i].placeholder) !=
			    (size_t)(amp - eq - 1) ||
			    memcmp(ents[i].placeholder, eq + 1,
			    (size_t)(amp - eq - 1)) != 0)
				continue;
			mb_put(b, s, kl + 1);
			mb_put(b, ents[i].real, strlen(ents[i].real));
			hit = did = 1;
			break;
		}
		if (!hit)
			mb_put(b, s, (size_t)(amp - s));
		if (amp < end)
			mb_put(b, "&", 1);
		s = amp + 1;
	}
	mb_put(b, end, (size_t)(p + n - end));
	return did;
}

/* One header line (without CRLF); 1 if it was rewritten. */
static int
rewrite_header(struct mbuf *b, const char *p, size_t n, const char *host,
    const struct mask_ent *ents, size_t nent)
{
	const char	*c = memchr(p, ':', n);
	size_t		 nl = (size_t)(c - p), i;

	for (i = 0; i < nent; i++) {
		const struct mask_ent *m = &ents[i];

		if (!host_eq(m->host, host))
			continue;
		if (m->where == MASK_HEADER && strlen(m->field) == nl &&
		    strncasecmp(m->field, p, nl) == 0 &&
		    mem_find(c + 1, n - nl - 1, m->placeholder) != NULL) {
			mb_put(b, p, nl + 1);
			put_replaced(b, c + 1, n - nl - 1, m->placeholder,
			    m->real);
			return 1;
		}
		if (m->where == MASK_BASIC && nl == 13 &&
		    strncasecmp(p, "Authorization", 13) == 0) {
			struct mbuf	 d = { NULL, 0, 0 };
			unsigned char	*raw;
			char		*enc;
			size_t		 rl;

			if ((raw = basic_decode(c + 1, n - nl - 1,
			    &rl)) == NULL)
				continue;
			if (!put_replaced(&d, (char *)raw, rl,
			    m->placeholder, m->real)) {
				mask_head_free(d.p, d.cap);
				explicit_bzero(raw, rl);
				free(raw);
				continue;
			}
			explicit_bzero(raw, rl);
			free(raw);
			enc = b64_encode((unsigned char *)d.p, d.len);
			mask_head_free(d.p, d.cap);
			mb_put(b, "Authorization: Basic ", 21);
			mb_put(b, enc, strlen(enc));
			mask_head_free(enc, strlen(enc));
			return 1;
		}
	}
	mb_put(b, p, n);
	return 0;
}

enum mask_verdict
mask_head(const char *head, size_t len, const char *host,
    const struct mask_ent *ents, size_t nent, char **out, size_t *outlen,
    size_t *which, char *why, size_t whylen)
{
	struct mbuf	 b = { NULL, 0, 0 };
	const char	*p = head, *e = head + len, *nl;
	int		 did = 0, first = 1;

	*out = NULL;
	*outlen = 0;
	if (why != NULL && whylen > 0)
		why[0] = '\0';
	if (head_shape(head, len, why, whylen) == -1)
		return MASK_BAD;
	if (exfil_scan(head, len, host, ents, nent, which))
		return MASK_EXFIL;
	while (p < e) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (nl - 1 == p) {
			mb_put(&b, "\r\n", 2);
			break;
		}
		if (first)
			did |= rewrite_target(&b, p, (size_t)(nl - 1 - p),
			    host, ents, nent);
		else
			did |= rewrite_header(&b, p, (size_t)(nl - 1 - p),
			    host, ents, nent);
		mb_put(&b, "\r\n", 2);
		first = 0;
		p = nl + 1;
	}
	if (!did) {
		mask_head_free(b.p, b.cap);
		return MASK_PASS;
	}
	/* Hand over a buffer whose size the caller knows for zeroing. */
	*out = b.p;
	*outlen = b.len;
	if (b.cap > b.len + 1)
		explicit_bzero(b.p + b.len, b.cap - b.len);
	return MASK_REWRITTEN;
}
