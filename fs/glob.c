// SPDX-License-Identifier: ISC
/*
 * Globs for fs.find, fs.search's file filter and .gitignore lines.  Not
 * fnmatch(3): "**" must span directories and {a,b} must expand, as
 * ripgrep's and the agents' own globs do.  Patterns and paths are both
 * the agent's, so matching is bounded: components by a table (no
 * backtracking across "**"), one component by the classic single-star
 * backtrack, alternatives by a budget.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "fs/fs.h"

/* The end of a [...] class starting at p[i] == '[', or 0: not a class. */
static size_t
class_end(const char *p, size_t n, size_t i)
{
	size_t	j = i + 1;

	if (j < n && (p[j] == '!' || p[j] == '^'))
		j++;
	if (j < n && p[j] == ']')
		j++;
	while (j < n && p[j] != ']')
		j++;
	return j < n ? j : 0;
}

static int
class_match(const char *p, size_t start, size_t end, unsigned char c)
{
	size_t	i = start + 1;
	int	neg = 0, hit = 0;

	if (p[i] == '!' || p[i] == '^') {
		neg = 1;
		i++;
	}
	for (; i < end; i++) {
		unsigned char lo = (unsigned char)p[i], hi = lo;

		if (i + 2 < end && p[i + 1] == '-') {
			hi = (unsigned char)p[i + 2];
			i += 2;
		}
		if (c >= lo && c <= hi)
			hit = 1;
	}
	return hit != neg;
}

/* One component against one segment (no '/' in either). */
static int
seg_match(const char *p, size_t pn, const char *s, size_t sn)
{
	size_t	pi = 0, si = 0, star_p = (size_t)-1, star_s = 0, e;

	while (si < sn) {
		if (pi < pn && p[pi] == '*') {
			star_p = ++pi;
			star_s = si;
			continue;
		}
		if (pi < pn) {
			if (p[pi] == '?') {
				pi++;
				si++;
				continue;
			}
			if (p[pi] == '[' && (e = class_end(p, pn, pi)) != 0) {
				if (class_match(p, pi, e,
				    (unsigned char)s[si])) {
					pi = e + 1;
					si++;
					continue;
				}
			} else if (p[pi] == '\\' && pi + 1 < pn) {
				if (p[pi + 1] == s[si]) {
					pi += 2;
					si++;
					continue;
				}
			} else if (p[pi] == s[si]) {
				pi++;
				si++;
				continue;
			}
		}
		if (star_p == (size_t)-1)
			return 0;
		pi = star_p;
		si = ++star_s;
	}
	while (pi < pn && p[pi] == '*')
		pi++;
	return pi == pn;
}

struct comp {
	const char	*s;
	size_t		 n;
};

static size_t
split(const char *s, struct comp *v, size_t max)
{
	size_t	k = 0;
	const char *e;

	for (;;) {
		if (k == max)
			return max + 1;
		e = strchr(s, '/');
		v[k].s = s;
		v[k].n = e != NULL ? (size_t)(e - s) : strlen(s);
		k++;
		if (e == NULL)
			return k;
		s = e + 1;
	}
}

#define GLOB_MAX_COMP	1024
#define GLOB_STACK	64	/* components matched without malloc */

/* Component lists: m[i][j] = P[i..] matches N[j..], two rows. */
static int
comp_match(const char *pat, const char *path)
{
	struct comp	 sp[GLOB_STACK + 1], sn[GLOB_STACK + 1], *p, *n;
	unsigned char	 r1[GLOB_STACK + 2], r2[GLOB_STACK + 2];
	size_t		 np, nn, i, j;
	unsigned char	*cur, *nxt, *t;
	int		 r, heap = 0;

	p = sp;
	n = sn;
	np = split(pat, p, GLOB_STACK);
	nn = split(path, n, GLOB_STACK);
	if (np > GLOB_STACK || nn > GLOB_STACK) {
		heap = 1;
		p = xreallocarray(NULL, GLOB_MAX_COMP + 1, sizeof(*p));
		n = xreallocarray(NULL, GLOB_MAX_COMP + 1, sizeof(*n));
		np = split(pat, p, GLOB_MAX_COMP);
		nn = split(path, n, GLOB_MAX_COMP);
		if (np > GLOB_MAX_COMP || nn > GLOB_MAX_COMP) {
			free(p);
			free(n);
			return 0;
		}
		cur = xcalloc(nn + 1, 1);
		nxt = xcalloc(nn + 1, 1);
	} else {
		cur = r1;
		nxt = r2;
		memset(nxt, 0, nn + 1);
	}
	nxt[nn] = 1;		/* row np: only the empty rest matches */
	for (i = np; i-- > 0;) {
		int dstar = p[i].n == 2 && p[i].s[0] == '*' &&
		    p[i].s[1] == '*';

		for (j = nn + 1; j-- > 0;) {
			if (dstar)
				cur[j] = nxt[j] || (j < nn && cur[j + 1]);
			else
				cur[j] = j < nn && nxt[j + 1] &&
				    seg_match(p[i].s, p[i].n, n[j].s, n[j].n);
		}
		t = nxt;
		nxt = cur;
		cur = t;
	}
	r = nxt[0];
	if (heap) {
		free(cur);
		free(nxt);
		free(p);
		free(n);
	}
	return r;
}

/* The first {...} with a top-level ',': *open and *close, or 0. */
static int
find_brace(const char *p, size_t *open, size_t *close)
{
	size_t	i, j, n = strlen(p);
	int	depth, comma;

	for (i = 0; i < n; i++) {
		if (p[i] == '\\' && i + 1 < n) {
			i++;
			continue;
		}
		if (p[i] != '{')
			continue;
		depth = 0;
		comma = 0;
		for (j = i; j < n; j++) {
			if (p[j] == '\\' && j + 1 < n) {
				j++;
				continue;
			}
			if (p[j] == '{')
				depth++;
			else if (p[j] == '}' && --depth == 0)
				break;
			else if (p[j] == ',' && depth == 1)
				comma = 1;
		}
		if (j < n && comma) {
			*open = i;
			*close = j;
			return 1;
		}
	}
	return 0;
}

static int
alt_match(const char *pat, const char *path, int *budget)
{
	size_t	 o, c, i, start, plen = strlen(pat);
	int	 depth = 0;
	char	*buf;

	if (--*budget < 0)
		return 0;
	if (!find_brace(pat, &o, &c))
		return comp_match(pat, path);
	buf = xmalloc(plen + 1);
	for (i = start = o + 1; i <= c; i++) {
		if (pat[i] == '\\' && i + 1 < c) {
			i++;
			continue;
		}
		if (pat[i] == '{')
			depth++;
		else if (pat[i] == '}' && i < c)
			depth--;
		if (i < c && (pat[i] != ',' || depth != 0))
			continue;
		memcpy(buf, pat, o);
		memcpy(buf + o, pat + start, i - start);
		memcpy(buf + o + (i - start), pat + c + 1, plen - c - 1);
		buf[o + (i - start) + plen - c - 1] = '\0';
		if (alt_match(buf, path, budget)) {
			free(buf);
			return 1;
		}
		if (*budget < 0)
			break;
		start = i + 1;
	}
	free(buf);
	return 0;
}

int
fs_glob_match(const char *pat, const char *path)
{
	int	budget = FS_GLOB_MAX_ALT;

	return alt_match(pat, path, &budget);
}
