// SPDX-License-Identifier: ISC
/*
 * Patches for fs.applyPatch: unified diffs as `git apply` takes them and
 * the "*** Begin Patch" envelope Codex-style agents emit.  Parsing and
 * applying are pure (strings in, strings out) so that the fuzzer drives
 * exactly this code; airlock-fs does the I/O, all hunks of all files
 * first, then the writes, so that one hunk that does not apply leaves
 * every file as it was.
 *
 * untrusted: the whole patch text, and the files it applies to.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "fs/fs.h"

#define PATCH_MAX_FILES	4096

struct line {
	const char	*s;
	size_t		 n;	/* without the newline */
};

struct reader {
	char		*buf;
	size_t		 len;
	size_t		 off;
};

static int
next_line(struct reader *r, struct line *l)
{
	char	*e;

	if (r->off >= r->len)
		return 0;
	l->s = r->buf + r->off;
	e = memchr(l->s, '\n', r->len - r->off);
	l->n = e != NULL ? (size_t)(e - l->s) : r->len - r->off;
	r->off += l->n + (e != NULL);
	if (l->n > 0 && l->s[l->n - 1] == '\r')
		l->n--;
	return 1;
}

static int
peek_line(struct reader *r, struct line *l)
{
	size_t	off = r->off;
	int	got = next_line(r, l);

	r->off = off;
	return got;
}

static int
starts(const struct line *l, const char *p)
{
	size_t	n = strlen(p);

	return l->n >= n && memcmp(l->s, p, n) == 0;
}

static struct fs_pfile *
add_file(struct fs_patch *p)
{
	struct fs_pfile *f;

	if (p->nfiles >= PATCH_MAX_FILES)
		return NULL;
	p->files = xreallocarray(p->files, p->nfiles + 1, sizeof(*p->files));
	f = &p->files[p->nfiles++];
	memset(f, 0, sizeof(*f));
	return f;
}

static struct fs_hunk *
add_hunk(struct fs_pfile *f)
{
	struct fs_hunk *h;

	f->hunks = xreallocarray(f->hunks, f->nhunks + 1, sizeof(*f->hunks));
	h = &f->hunks[f->nhunks++];
	memset(h, 0, sizeof(*h));
	return h;
}

static void
add_pline(struct fs_hunk *h, char kind, const char *s, size_t n)
{
	h->lines = xreallocarray(h->lines, h->nlines + 1, sizeof(*h->lines));
	h->lines[h->nlines].kind = kind;
	h->lines[h->nlines].text = s;
	h->lines[h->nlines].len = n;
	h->nlines++;
}

/* A path as text: trimmed; NULL if empty or holding a NUL. */
static char *
path_dup(const char *s, size_t n)
{
	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0 || memchr(s, '\0', n) != NULL)
		return NULL;
	return xstrndup(s, n);
}

/*
 * A ---/+++ or "rename from" path: git quotes odd names in C style; a
 * tab ends the name (a timestamp follows in GNU diffs); /dev/null is
 * none; "a/" and "b/" prefixes go when strip is set (-p1).
 */
static char *
diff_path(const char *s, size_t n, int strip, int *devnull)
{
	char	*out, *w;
	size_t	 i;

	*devnull = 0;
	if (n > 0 && s[0] == '"') {
		out = w = xmalloc(n + 1);
		for (i = 1; i < n && s[i] != '"'; i++) {
			if (s[i] == '\\' && i + 1 < n) {
				i++;
				if (s[i] >= '0' && s[i] <= '7' && i + 2 < n) {
					*w++ = (char)(((s[i] - '0') << 6) |
					    ((s[i + 1] - '0') << 3) |
					    (s[i + 2] - '0'));
					i += 2;
					continue;
				}
				*w++ = s[i] == 't' ? '\t' : s[i] == 'n' ?
				    '\n' : s[i];
			} else
				*w++ = s[i];
		}
		*w = '\0';
		if (w == out || memchr(out, '\0', (size_t)(w - out)) != NULL) {
			free(out);
			return NULL;
		}
	} else {
		const char *tab = memchr(s, '\t', n);

		if (tab != NULL)
			n = (size_t)(tab - s);
		if ((out = path_dup(s, n)) == NULL)
			return NULL;
	}
	if (strcmp(out, "/dev/null") == 0) {
		*devnull = 1;
		free(out);
		return NULL;
	}
	if (strip && (strncmp(out, "a/", 2) == 0 ||
	    strncmp(out, "b/", 2) == 0) && out[2] != '\0')
		memmove(out, out + 2, strlen(out + 2) + 1);
	return out;
}

static int
parse_num(const char **p, const char *end, long *v)
{
	long	n = 0;

	if (*p >= end || !isdigit((unsigned char)**p))
		return -1;
	while (*p < end && isdigit((unsigned char)**p)) {
		if (n > 100000000)
			return -1;
		n = n * 10 + (**p - '0');
		(*p)++;
	}
	*v = n;
	return 0;
}

/* "@@ -a[,b] +c[,d] @@" */
static int
parse_range(const struct line *l, struct fs_hunk *h)
{
	const char	*p = l->s + 3, *end = l->s + l->n;

	h->old_len = h->new_len = 1;
	if (p >= end || *p++ != '-' || parse_num(&p, end, &h->old_start))
		return -1;
	if (p < end && *p == ',' && (p++, parse_num(&p, end, &h->old_len)))
		return -1;
	if (p + 1 >= end || *p++ != ' ' || *p++ != '+' ||
	    parse_num(&p, end, &h->new_start))
		return -1;
	if (p < end && *p == ',' && (p++, parse_num(&p, end, &h->new_len)))
		return -1;
	if (p + 2 >= end || memcmp(p, " @@", 3) != 0)
		return -1;
	return 0;
}

static int
fail(char *err, size_t errlen, const char *what, size_t lineno)
{
	snprintf(err, errlen, "line %zu: %s", lineno, what);
	return -1;
}

/* ---- unified diffs ---- */

static int
ufail(char *err, size_t errlen, char **a, char **b, const char *what,
    size_t lineno)
{
	free(*a);
	free(*b);
	*a = *b = NULL;
	return fail(err, errlen, what, lineno);
}

static int
parse_unified(struct reader *r, struct fs_patch *p, char *err, size_t errlen)
{
	struct line	 l;
	struct fs_pfile	*f = NULL;
	struct fs_hunk	*h;
	size_t		 lineno = 0;
	int		 dn, git = 0, strip = 1;
	char		*gold = NULL, *gnew = NULL;
	long		 o, n;

	while (next_line(r, &l)) {
		lineno++;
		if (starts(&l, "diff --git ")) {
			const char *sp;

			/* "diff --git a/x b/x": the names come again
			 * below, except for a pure rename or mode change. */
			if ((f = add_file(p)) == NULL)
				return ufail(err, errlen, &gold, &gnew, "too many files",
				    lineno);
			git = 1;
			free(gold);
			free(gnew);
			gold = gnew = NULL;
			sp = memmem(l.s + 11, l.n - 11, " b/", 3);
			if (sp != NULL) {
				gold = diff_path(l.s + 11,
				    (size_t)(sp - (l.s + 11)), 1, &dn);
				gnew = diff_path(sp + 1,
				    (size_t)(l.s + l.n - sp - 1), 1, &dn);
			}
			f->old_path = gold != NULL ? xstrdup(gold) : NULL;
			f->new_path = gnew != NULL ? xstrdup(gnew) : NULL;
			continue;
		}
		if (f != NULL && git && f->nhunks == 0) {
			if (starts(&l, "new file mode")) {
				f->op = FS_PATCH_ADD;
				continue;
			}
			if (starts(&l, "deleted file mode")) {
				f->op = FS_PATCH_DELETE;
				continue;
			}
			if (starts(&l, "rename from ") ||
			    starts(&l, "copy from ")) {
				size_t k = starts(&l, "copy") ? 10 : 12;

				if (starts(&l, "copy"))
					return ufail(err, errlen, &gold, &gnew, "copies are "
					    "not supported", lineno);
				free(f->old_path);
				f->old_path = diff_path(l.s + k, l.n - k, 0,
				    &dn);
				continue;
			}
			if (starts(&l, "rename to ")) {
				free(f->new_path);
				f->new_path = diff_path(l.s + 10, l.n - 10, 0,
				    &dn);
				continue;
			}
			if (starts(&l, "GIT binary patch") ||
			    starts(&l, "Binary files "))
				return ufail(err, errlen, &gold, &gnew, "binary patches are "
				    "not supported", lineno);
		}
		if (starts(&l, "--- ")) {
			struct line l2;
			char	*a, *b;
			int	 dna, dnb;

			if (!peek_line(r, &l2) || !starts(&l2, "+++ "))
				continue;	/* prose that looks alike */
			(void)next_line(r, &l2);
			lineno++;
			if (!git || f == NULL || f->nhunks > 0) {
				if ((f = add_file(p)) == NULL)
					return ufail(err, errlen, &gold, &gnew, "too many "
					    "files", lineno);
			}
			git = 0;	/* the next ---/+++ is a new file */
			a = diff_path(l.s + 4, l.n - 4, strip, &dna);
			b = diff_path(l2.s + 4, l2.n - 4, strip, &dnb);
			if ((a == NULL && !dna) || (b == NULL && !dnb)) {
				free(a);
				free(b);
				return ufail(err, errlen, &gold, &gnew, "a file name is "
				    "missing", lineno);
			}
			free(f->old_path);
			free(f->new_path);
			f->old_path = a;
			f->new_path = b;
			if (dna)
				f->op = FS_PATCH_ADD;
			else if (dnb)
				f->op = FS_PATCH_DELETE;
			continue;
		}
		if (starts(&l, "@@ ")) {
			if (f == NULL || (f->old_path == NULL &&
			    f->new_path == NULL))
				return ufail(err, errlen, &gold, &gnew, "a hunk before any "
				    "file header", lineno);
			h = add_hunk(f);
			if (parse_range(&l, h) == -1)
				return ufail(err, errlen, &gold, &gnew, "a malformed @@ "
				    "line", lineno);
			o = h->old_len;
			n = h->new_len;
			while ((o > 0 || n > 0) && next_line(r, &l)) {
				lineno++;
				if (l.n == 0 || l.s[0] == ' ') {
					/* An empty line: empty context (as
					 * some editors strip the space). */
					add_pline(h, ' ', l.n ? l.s + 1 : l.s,
					    l.n ? l.n - 1 : 0);
					o--;
					n--;
				} else if (l.s[0] == '-') {
					add_pline(h, '-', l.s + 1, l.n - 1);
					o--;
				} else if (l.s[0] == '+') {
					add_pline(h, '+', l.s + 1, l.n - 1);
					n--;
				} else if (l.s[0] == '\\')
					continue;
				else
					return ufail(err, errlen, &gold, &gnew, "a hunk "
					    "line must start with ' ', '-' or "
					    "'+'", lineno);
				if (o < 0 || n < 0)
					return ufail(err, errlen, &gold, &gnew, "a hunk "
					    "longer than its @@ line says",
					    lineno);
			}
			if (o > 0 || n > 0)
				return ufail(err, errlen, &gold, &gnew, "a hunk shorter than "
				    "its @@ line says", lineno);
			/* "\ No newline at end of file" for its side. */
			while (peek_line(r, &l) && l.n > 0 && l.s[0] == '\\') {
				char k = h->nlines ?
				    h->lines[h->nlines - 1].kind : ' ';

				(void)next_line(r, &l);
				lineno++;
				if (k != '+')
					h->old_nonl = 1;
				if (k != '-')
					h->new_nonl = 1;
			}
			continue;
		}
	}
	free(gold);
	free(gnew);
	gold = gnew = NULL;
	if (p->nfiles == 0)
		return ufail(err, errlen, &gold, &gnew, "no file in the patch", lineno);
	for (size_t i = 0; i < p->nfiles; i++) {
		f = &p->files[i];
		if ((f->op != FS_PATCH_ADD && f->old_path == NULL) ||
		    (f->op != FS_PATCH_DELETE && f->new_path == NULL))
			return ufail(err, errlen, &gold, &gnew, "a file without its name",
			    lineno);
		if (f->op == FS_PATCH_ADD) {
			free(f->old_path);
			f->old_path = NULL;
		} else if (f->op == FS_PATCH_DELETE) {
			free(f->new_path);
			f->new_path = NULL;
		}
	}
	return 0;
}

/* ---- the "*** Begin Patch" envelope ---- */

static int
env_path(const struct line *l, const char *head, char **out)
{
	size_t	k = strlen(head);

	*out = path_dup(l->s + k, l->n - k);
	return *out != NULL ? 0 : -1;
}

static int
parse_envelope(struct reader *r, struct fs_patch *p, char *err,
    size_t errlen)
{
	struct line	 l;
	struct fs_pfile	*f = NULL;
	struct fs_hunk	*h = NULL;
	size_t		 lineno = 1;
	int		 ended = 0;

	while (next_line(r, &l)) {
		lineno++;
		if (starts(&l, "*** End Patch")) {
			ended = 1;
			break;
		}
		if (starts(&l, "*** Add File: ") ||
		    starts(&l, "*** Delete File: ") ||
		    starts(&l, "*** Update File: ")) {
			if ((f = add_file(p)) == NULL)
				return fail(err, errlen, "too many files",
				    lineno);
			h = NULL;
			if (starts(&l, "*** Add File: ")) {
				f->op = FS_PATCH_ADD;
				if (env_path(&l, "*** Add File: ",
				    &f->new_path) == -1)
					return fail(err, errlen, "no path",
					    lineno);
				h = add_hunk(f);
			} else if (starts(&l, "*** Delete File: ")) {
				f->op = FS_PATCH_DELETE;
				if (env_path(&l, "*** Delete File: ",
				    &f->old_path) == -1)
					return fail(err, errlen, "no path",
					    lineno);
			} else {
				if (env_path(&l, "*** Update File: ",
				    &f->old_path) == -1)
					return fail(err, errlen, "no path",
					    lineno);
				f->new_path = xstrdup(f->old_path);
			}
			continue;
		}
		if (f == NULL)
			return fail(err, errlen, "expected \"*** Add File:\", "
			    "\"*** Update File:\" or \"*** Delete File:\"",
			    lineno);
		if (f->op == FS_PATCH_ADD) {
			if (l.n == 0 || l.s[0] != '+')
				return fail(err, errlen, "an added file's "
				    "lines start with '+'", lineno);
			add_pline(h, '+', l.s + 1, l.n - 1);
			continue;
		}
		if (f->op == FS_PATCH_DELETE)
			return fail(err, errlen, "a deleted file has no "
			    "lines", lineno);
		if (starts(&l, "*** Move to: ")) {
			if (f->nhunks > 0)
				return fail(err, errlen, "\"*** Move to:\" "
				    "comes before the hunks", lineno);
			free(f->new_path);
			if (env_path(&l, "*** Move to: ", &f->new_path) == -1)
				return fail(err, errlen, "no path", lineno);
			continue;
		}
		if (starts(&l, "*** End of File")) {
			if (h == NULL)
				return fail(err, errlen, "\"*** End of File\" "
				    "outside a hunk", lineno);
			h->at_eof = 1;
			continue;
		}
		if (starts(&l, "@@")) {
			h = add_hunk(f);
			if (l.n > 3 && l.s[2] == ' ') {
				h->anchor = l.s + 3;
				h->anchor_len = l.n - 3;
			}
			continue;
		}
		if (starts(&l, "***"))
			return fail(err, errlen, "an unknown \"***\" line",
			    lineno);
		if (h == NULL)
			h = add_hunk(f);
		else if (h->at_eof)
			return fail(err, errlen, "lines after \"*** End of "
			    "File\"", lineno);
		if (l.n == 0)
			add_pline(h, ' ', l.s, 0);
		else if (l.s[0] == ' ' || l.s[0] == '-' || l.s[0] == '+')
			add_pline(h, l.s[0], l.s + 1, l.n - 1);
		else
			return fail(err, errlen, "a hunk line must start with "
			    "' ', '-' or '+'", lineno);
	}
	if (!ended)
		return fail(err, errlen, "no \"*** End Patch\"", lineno);
	if (p->nfiles == 0)
		return fail(err, errlen, "no file in the patch", lineno);
	for (size_t i = 0; i < p->nfiles; i++)
		if (p->files[i].op == FS_PATCH_UPDATE &&
		    p->files[i].nhunks == 0 &&
		    strcmp(p->files[i].old_path, p->files[i].new_path) == 0)
			return fail(err, errlen, "an update without a hunk",
			    lineno);
	return 0;
}

int
fs_patch_parse(const char *buf, size_t len, struct fs_patch *p, char *err,
    size_t errlen)
{
	struct reader	r;
	struct line	l;
	int		rc;

	memset(p, 0, sizeof(*p));
	p->text = xmalloc(len + 1);
	memcpy(p->text, buf, len);
	p->text[len] = '\0';
	r.buf = p->text;
	r.len = len;
	r.off = 0;
	/* The envelope begins with its marker (after blank lines). */
	while (peek_line(&r, &l) && l.n == 0)
		(void)next_line(&r, &l);
	if (peek_line(&r, &l) && starts(&l, "*** Begin Patch")) {
		(void)next_line(&r, &l);
		rc = parse_envelope(&r, p, err, errlen);
	} else
		rc = parse_unified(&r, p, err, errlen);
	if (rc == -1) {
		fs_patch_free(p);
		memset(p, 0, sizeof(*p));
	}
	return rc;
}

void
fs_patch_free(struct fs_patch *p)
{
	size_t	i, j;

	if (p == NULL)
		return;
	for (i = 0; i < p->nfiles; i++) {
		for (j = 0; j < p->files[i].nhunks; j++)
			free(p->files[i].hunks[j].lines);
		free(p->files[i].hunks);
		free(p->files[i].old_path);
		free(p->files[i].new_path);
	}
	free(p->files);
	free(p->text);
}

/* ---- applying ---- */

struct text {
	struct line	*v;
	size_t		 n;
	size_t		 cap;
	int		 nonl;	/* the last line has no newline */
};

static void
text_push(struct text *t, const char *s, size_t n)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	t->v[t->n].s = s;
	t->v[t->n].n = n;
	t->n++;
}

static void
text_split(struct text *t, const char *s, size_t len)
{
	const char	*e;

	memset(t, 0, sizeof(*t));
	while (len > 0) {
		if ((e = memchr(s, '\n', len)) == NULL) {
			text_push(t, s, len);
			t->nonl = 1;
			return;
		}
		text_push(t, s, (size_t)(e - s));
		len -= (size_t)(e - s) + 1;
		s = e + 1;
	}
}

/* How lines compare: exactly, then (the envelope only, as Codex does)
 * ignoring trailing, then surrounding, whitespace. */
static int
line_eq(const char *a, size_t an, const char *b, size_t bn, int fuzz)
{
	if (fuzz >= 2)
		while (an > 0 && isspace((unsigned char)*a)) {
			a++;
			an--;
		}
	if (fuzz >= 2)
		while (bn > 0 && isspace((unsigned char)*b)) {
			b++;
			bn--;
		}
	if (fuzz >= 1) {
		while (an > 0 && isspace((unsigned char)a[an - 1]))
			an--;
		while (bn > 0 && isspace((unsigned char)b[bn - 1]))
			bn--;
	}
	/* A CR the file keeps is not the patch's business. */
	if (an == bn + 1 && a[an - 1] == '\r')
		an--;
	return an == bn && memcmp(a, b, an) == 0;
}

static int
hunk_at(const struct text *t, size_t pos, const struct fs_hunk *h, int fuzz)
{
	size_t	i, k = pos;

	for (i = 0; i < h->nlines; i++) {
		if (h->lines[i].kind == '+')
			continue;
		if (k >= t->n || !line_eq(t->v[k].s, t->v[k].n,
		    h->lines[i].text, h->lines[i].len, fuzz))
			return 0;
		k++;
	}
	return 1;
}

static size_t
hunk_old(const struct fs_hunk *h)
{
	size_t	i, n = 0;

	for (i = 0; i < h->nlines; i++)
		n += h->lines[i].kind != '+';
	return n;
}

/*
 * Where a hunk goes, at or after from: unified hunks near their line
 * number (the nearest match wins, as patch(1) does), envelope hunks
 * after their anchor, the first match (at the end with End of File).
 */
static int
hunk_find(const struct text *t, size_t from, long hint,
    const struct fs_hunk *h, int envelope, size_t *pos)
{
	size_t	nold = hunk_old(h), last, d;
	int	fuzz;

	if (t->n < nold)
		return -1;
	last = t->n - nold;
	if (from > last)
		return -1;
	if (!envelope) {
		size_t want = hint > 0 ? (size_t)hint - 1 : 0;

		if (nold == 0) {
			/* Pure insertion: after line old_start. */
			want = (size_t)hint;
			if (want < from || want > t->n)
				return -1;
			*pos = want;
			return 0;
		}
		if (want < from)
			want = from;
		if (want > last)
			want = last;
		for (d = 0; d <= t->n; d++) {
			if (want + d <= last && hunk_at(t, want + d, h, 0)) {
				*pos = want + d;
				return 0;
			}
			if (d > 0 && d <= want && want - d >= from &&
			    hunk_at(t, want - d, h, 0)) {
				*pos = want - d;
				return 0;
			}
			if (want + d > last && (d > want || want - d < from))
				break;
		}
		return -1;
	}
	if (h->anchor != NULL) {
		size_t	i;

		for (i = from; i < t->n; i++)
			if (line_eq(t->v[i].s, t->v[i].n, h->anchor,
			    h->anchor_len, 2))
				break;
		if (i == t->n)
			return -1;
		from = i + 1;
		if (from > last)
			return nold == 0 && from <= t->n ?
			    (*pos = from, 0) : -1;
	}
	if (nold == 0) {
		*pos = h->anchor != NULL ? from : t->n;
		return 0;
	}
	for (fuzz = 0; fuzz < 3; fuzz++) {
		if (h->at_eof && hunk_at(t, last, h, fuzz)) {
			*pos = last;
			return 0;
		}
		for (d = from; d <= last; d++)
			if (hunk_at(t, d, h, fuzz)) {
				*pos = d;
				return 0;
			}
	}
	return -1;
}

int
fs_patch_apply(const struct fs_pfile *f, const char *old, size_t oldlen,
    char **out, size_t *outlen, char *err, size_t errlen)
{
	struct text	 t, o;
	size_t		 i, j, from = 0, pos, total = 0, k;
	int		 envelope, nonl;
	long		 delta = 0;
	char		*w;

	*out = NULL;
	*outlen = 0;
	if (f->op == FS_PATCH_DELETE) {
		*out = xstrdup("");
		return 0;
	}
	text_split(&t, old != NULL ? old : "", old != NULL ? oldlen : 0);
	memset(&o, 0, sizeof(o));
	nonl = t.nonl;
	/* An envelope's hunks carry no line numbers. */
	envelope = 1;
	for (i = 0; i < f->nhunks; i++)
		if (f->hunks[i].old_start != 0 || f->hunks[i].new_start != 0)
			envelope = 0;
	for (i = 0; i < f->nhunks; i++) {
		const struct fs_hunk *h = &f->hunks[i];

		if (hunk_find(&t, from, h->old_start + delta, h, envelope,
		    &pos) == -1) {
			snprintf(err, errlen, "hunk %zu of %s does not apply",
			    i + 1, f->new_path ? f->new_path : f->old_path);
			free(t.v);
			free(o.v);
			return -1;
		}
		for (k = from; k < pos; k++)
			text_push(&o, t.v[k].s, t.v[k].n);
		for (j = 0; j < h->nlines; j++)
			if (h->lines[j].kind != '-')
				text_push(&o, h->lines[j].text,
				    h->lines[j].len);
		from = pos + hunk_old(h);
		delta += (long)(h->new_len - h->old_len);
		if (from == t.n) {
			/* The hunk reached the end: its newline state. */
			if (!envelope)
				nonl = h->new_nonl;
			else if (f->op == FS_PATCH_ADD)
				nonl = 0;
		}
	}
	for (k = from; k < t.n; k++)
		text_push(&o, t.v[k].s, t.v[k].n);
	if (f->op == FS_PATCH_ADD && envelope)
		nonl = 0;
	for (k = 0; k < o.n; k++)
		total += o.v[k].n + 1;
	*out = w = xmalloc(total + 1);
	for (k = 0; k < o.n; k++) {
		memcpy(w, o.v[k].s, o.v[k].n);
		w += o.v[k].n;
		if (k + 1 < o.n || !nonl)
			*w++ = '\n';
	}
	*w = '\0';
	*outlen = (size_t)(w - *out);
	free(t.v);
	free(o.v);
	return 0;
}
