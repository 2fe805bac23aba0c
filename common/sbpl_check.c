// SPDX-License-Identifier: ISC
/*
 * A small reader of SBPL profiles and the checks of R-M1 over what it
 * reads (common/seatbelt.h).  It is written apart from the generator and
 * shares none of its code, so that the unit tests, the fuzzer and
 * `airlock profile --os macos` (which checks what it prints) judge the
 * generator's output rather than repeat its assumptions.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/seatbelt.h"
#include "common/xmalloc.h"

#define SX_MAXDEPTH	16

enum sx_type { SX_LIST, SX_STR, SX_ATOM };

struct sx {
	enum sx_type	  type;
	char		 *text;		/* SX_STR decoded, SX_ATOM */
	struct sx	**kid;
	size_t		  nkid;
};

struct sx_reader {
	const char	*p, *end;
	char		*err;
	size_t		 errlen;
	int		 failed;
};

static void
sx_fail(struct sx_reader *r, const char *fmt, ...)
{
	va_list	ap;

	if (r->failed)
		return;
	r->failed = 1;
	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
}

static void
sx_free(struct sx *x)
{
	size_t	i;

	if (x == NULL)
		return;
	for (i = 0; i < x->nkid; i++)
		sx_free(x->kid[i]);
	free(x->kid);
	free(x->text);
	free(x);
}

static void
sx_skip(struct sx_reader *r)
{
	while (r->p < r->end) {
		if (*r->p == ';') {
			while (r->p < r->end && *r->p != '\n')
				r->p++;
		} else if (*r->p == ' ' || *r->p == '\n' || *r->p == '\t')
			r->p++;
		else
			break;
	}
}

/* A string: every escape one the reader knows, no raw control byte. */
static struct sx *
sx_string(struct sx_reader *r)
{
	struct sx	*x = xcalloc(1, sizeof(*x));
	char		*out = xmalloc((size_t)(r->end - r->p) + 1);
	size_t		 n = 0;
	int		 h, l;

	x->type = SX_STR;
	for (r->p++; r->p < r->end && *r->p != '"'; r->p++) {
		unsigned char c = (unsigned char)*r->p;

		if (c < 0x20 || c == 0x7f) {
			sx_fail(r, "a raw control byte 0x%02x in a string",
			    c);
			break;
		}
		if (c != '\\') {
			out[n++] = (char)c;
			continue;
		}
		if (++r->p >= r->end)
			break;
		if (*r->p == '"' || *r->p == '\\')
			out[n++] = *r->p;
		else if (*r->p == 'x' && r->end - r->p >= 3 &&
		    (h = hex_digit(r->p[1])) >= 0 && (l = hex_digit(r->p[2])) >= 0) {
			out[n++] = (char)(h * 16 + l);
			r->p += 2;
		} else {
			sx_fail(r, "an unknown escape \\%c in a string",
			    *r->p);
			break;
		}
	}
	if (r->p >= r->end)
		sx_fail(r, "a string is not closed");
	else
		r->p++;
	out[n] = '\0';
	x->text = out;
	return x;
}

static struct sx *
sx_read(struct sx_reader *r, int depth)
{
	struct sx	*x, *k;
	const char	*s;

	sx_skip(r);
	if (r->failed || r->p >= r->end) {
		sx_fail(r, "unexpected end of the profile");
		return NULL;
	}
	if (*r->p == '"')
		return sx_string(r);
	if (*r->p == ')') {
		sx_fail(r, "an unbalanced \")\"");
		return NULL;
	}
	x = xcalloc(1, sizeof(*x));
	if (*r->p != '(') {
		for (s = r->p; r->p < r->end && strchr("() \t\n\";",
		    *r->p) == NULL; r->p++)
			;
		x->type = SX_ATOM;
		x->text = xstrndup(s, (size_t)(r->p - s));
		return x;
	}
	if (depth >= SX_MAXDEPTH) {
		sx_fail(r, "nested deeper than %d", SX_MAXDEPTH);
		free(x);
		return NULL;
	}
	x->type = SX_LIST;
	r->p++;
	for (;;) {
		sx_skip(r);
		if (r->p >= r->end) {
			sx_fail(r, "an unbalanced \"(\"");
			break;
		}
		if (*r->p == ')') {
			r->p++;
			break;
		}
		if ((k = sx_read(r, depth + 1)) == NULL)
			break;
		x->kid = xreallocarray(x->kid, x->nkid + 1, sizeof(*x->kid));
		x->kid[x->nkid++] = k;
		if (r->failed)
			break;
	}
	return x;
}

static int
is_atom(const struct sx *x, const char *s)
{
	return x != NULL && x->type == SX_ATOM && strcmp(x->text, s) == 0;
}

/* The paths a filter names: (literal p), (subpath p), (path-literal p),
 * at any depth. */
static void
paths_of(const struct sx *x, const char *kind, char ***out)
{
	size_t	i;

	if (x->type != SX_LIST)
		return;
	if (x->nkid == 2 && x->kid[0]->type == SX_ATOM &&
	    x->kid[1]->type == SX_STR && (kind == NULL ?
	    (is_atom(x->kid[0], "literal") || is_atom(x->kid[0], "subpath") ||
	    is_atom(x->kid[0], "path-literal")) : is_atom(x->kid[0], kind))) {
		*out = strv_add(*out, x->kid[1]->text);
		return;
	}
	for (i = 0; i < x->nkid; i++)
		paths_of(x->kid[i], kind, out);
}

/*
 * The other spelling of p under a /private alias, or NULL; in any case of
 * its letters, as the Mac's case-insensitive file system reads it.
 */
static const char *
spelling_twin(const char *p, char *buf, size_t len)
{
	static const char *const alias[] = { "/tmp", "/var", "/etc" };
	size_t	i, n;

	for (i = 0; i < 3; i++) {
		n = strlen(alias[i]);
		if (strncasecmp(p, alias[i], n) == 0 && (p[n] == '/' ||
		    p[n] == '\0')) {
			snprintf(buf, len, "/private%s", p);
			return buf;
		}
		if (strncasecmp(p, "/private", 8) == 0 && strncasecmp(p + 8,
		    alias[i], n) == 0 && (p[8 + n] == '/' || p[8 + n] == '\0'))
			return p + 8;
	}
	return NULL;
}

/*
 * The literal path an anchored regex starts with, read back: "\c" is c,
 * "[xX]" (one letter in both cases) is x, any other byte but a regex
 * operator is itself.  *full is 1 when the regex ends there (with "$" or
 * "(/|$)"), so it names that one path (and what is beneath); otherwise
 * the path is cut to its last "/", the directories the pattern starts
 * in.  NULL for a regex that is not anchored at "/": it has none.
 */
static char *
regex_prefix(const char *re, int *full)
{
	char	*out = xmalloc(strlen(re) + 2), *sl;
	size_t	 n = 0;

	*full = 0;
	if (re[0] != '^' || re[1] != '/') {
		free(out);
		return NULL;
	}
	for (re++; *re != '\0';) {
		if (re[0] == '\\' && re[1] != '\0') {
			out[n++] = re[1];
			re += 2;
		} else if (re[0] == '[' && re[1] != '\0' && re[2] != '\0' &&
		    re[3] == ']' && re[1] >= 'a' && re[1] <= 'z' &&
		    re[2] == re[1] - 'a' + 'A') {
			out[n++] = re[1];
			re += 4;
		} else if (strchr(".[]()*+?{}|^$\\", *re) == NULL)
			out[n++] = *re++;
		else
			break;
	}
	out[n] = '\0';
	if (strcmp(re, "$") == 0 || strcmp(re, "(/|$)") == 0)
		*full = 1;
	else if ((sl = strrchr(out, '/')) != NULL)
		sl[sl == out ? 1 : 0] = '\0';
	return out;
}

/* Is p (or, case-blind, a spelling of it) in v? */
static int
in_nocase(char *const *v, const char *p)
{
	size_t	i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (strcasecmp(v[i], p) == 0)
			return 1;
	return 0;
}

static int
forms_check(struct sx **top, size_t ntop, struct sx_reader *r)
{
	char	**denied = NULL, **unlink = NULL, **all = NULL, *a, *s;
	char	**res = NULL, **pre = NULL, **anch = NULL;
	char	  twin[8192];
	const char *t;
	size_t	  i;
	int	  full;

	if (ntop < 2 || top[0]->nkid != 2 || !is_atom(top[0]->kid[0],
	    "version") || !is_atom(top[0]->kid[1], "1"))
		sx_fail(r, "the first form is not (version 1)");
	else if (top[1]->nkid != 2 || !is_atom(top[1]->kid[0], "allow") ||
	    !is_atom(top[1]->kid[1], "default"))
		sx_fail(r, "the second form is not (allow default)");
	for (i = 2; i < ntop && !r->failed; i++) {
		struct sx *f = top[i];

		if (f->type != SX_LIST || f->nkid < 2 ||
		    !(is_atom(f->kid[0], "allow") ||
		    is_atom(f->kid[0], "deny")) || f->kid[1]->type != SX_ATOM) {
			sx_fail(r, "form %zu is not an allow or deny rule",
			    i + 1);
			break;
		}
		/* A rule with no filter applies everywhere: only the
		 * resets (writes, network, signals) may be one. */
		if (f->nkid == 2 && !(is_atom(f->kid[0], "deny") &&
		    (is_atom(f->kid[1], "file-write*") ||
		    is_atom(f->kid[1], "network*") ||
		    is_atom(f->kid[1], "signal")))) {
			sx_fail(r, "(%s %s) has no filter", f->kid[0]->text,
			    f->kid[1]->text);
			break;
		}
		paths_of(f, NULL, &all);
		if (is_atom(f->kid[0], "deny") &&
		    is_atom(f->kid[1], "file-write-unlink"))
			paths_of(f, "literal", &unlink);
		else if (is_atom(f->kid[0], "deny") &&
		    (is_atom(f->kid[1], "file-read*") ||
		    is_atom(f->kid[1], "file-write*"))) {
			paths_of(f, NULL, &denied);
			paths_of(f, "regex", &res);
		}
	}
	/*
	 * A deny regex anchored at "/" pins its literal directories (or,
	 * naming one path, that path) as a literal deny does: they go
	 * with the literal denies to the ancestor check; and its /tmp,
	 * /var, /etc forms need their /private twins among the regexes.
	 */
	for (i = 0; res != NULL && res[i] != NULL; i++) {
		if ((a = regex_prefix(res[i], &full)) == NULL)
			continue;
		anch = strv_add(anch, a);
		if (a[1] != '\0')
			denied = strv_add(denied, a);
		free(a);
	}
	for (i = 0; anch != NULL && anch[i] != NULL && !r->failed; i++) {
		if ((t = spelling_twin(anch[i], twin, sizeof(twin))) == NULL)
			continue;
		/* Any regex whose prefix is the twin, or beneath it. */
		pre = NULL;
		for (size_t j = 0; anch[j] != NULL; j++)
			if (strncasecmp(anch[j], t, strlen(t)) == 0)
				pre = anch;
		if (pre == NULL)
			sx_fail(r, "the regex of %s is written without its "
			    "twin %s", anch[i], t);
	}
	for (i = 0; denied != NULL && denied[i] != NULL && !r->failed; i++) {
		a = xstrdup(denied[i]);
		for (;;) {
			if (a[0] == '/' && a[1] != '\0' &&
			    !in_nocase(unlink, a))
				sx_fail(r, "%s is denied but its ancestor %s "
				    "may be renamed", denied[i], a);
			if ((s = strrchr(a, '/')) == NULL || s == a)
				break;
			*s = '\0';
		}
		free(a);
	}
	for (i = 0; all != NULL && all[i] != NULL && !r->failed; i++)
		if ((t = spelling_twin(all[i], twin, sizeof(twin))) != NULL &&
		    !in_nocase(all, t))
			sx_fail(r, "%s is named without its twin %s", all[i],
			    t);
	strv_free(denied);
	strv_free(unlink);
	strv_free(all);
	strv_free(res);
	strv_free(anch);
	return r->failed ? -1 : 0;
}

int
sbpl_check(const char *profile, size_t len, char *err, size_t errlen)
{
	struct sx_reader r = { profile, profile + len, err, errlen, 0 };
	struct sx	**top = NULL;
	struct sx	*x;
	size_t		 ntop = 0, i;
	int		 rv;

	if (memchr(profile, '\0', len) != NULL)
		sx_fail(&r, "a NUL byte in the profile");
	for (;;) {
		sx_skip(&r);
		if (r.failed || r.p >= r.end)
			break;
		if ((x = sx_read(&r, 0)) == NULL)
			break;
		top = xreallocarray(top, ntop + 1, sizeof(*top));
		top[ntop++] = x;
		if (x->type != SX_LIST)
			sx_fail(&r, "a top-level %s outside any form",
			    x->type == SX_STR ? "string" : "atom");
	}
	rv = r.failed ? -1 : forms_check(top, ntop, &r);
	for (i = 0; i < ntop; i++)
		sx_free(top[i]);
	free(top);
	return rv;
}

/* Does the rule x (verb op1 op2 ... filters) name the operation op? */
static int
names_op(const struct sx *x, const char *op)
{
	size_t	i;

	for (i = 1; i < x->nkid && x->kid[i]->type == SX_ATOM; i++)
		if (strcmp(x->kid[i]->text, op) == 0)
			return 1;
	return 0;
}

char **
sbpl_rule_strings(const char *profile, size_t len, const char *verb,
    const char *op, const char *kind)
{
	char		 err[64];
	struct sx_reader r = { profile, profile + len, err, sizeof(err), 0 };
	struct sx	*x;
	char		**v = NULL;

	for (;;) {
		sx_skip(&r);
		if (r.failed || r.p >= r.end ||
		    (x = sx_read(&r, 0)) == NULL)
			break;
		if (!r.failed && x->type == SX_LIST && x->nkid >= 2 &&
		    is_atom(x->kid[0], verb) && names_op(x, op))
			paths_of(x, kind, &v);
		sx_free(x);
	}
	if (r.failed) {
		strv_free(v);
		v = NULL;
	}
	return v;
}

/* Does a top-level (verb op ...) form name (kind "path")? */
int
sbpl_has_rule(const char *profile, size_t len, const char *verb,
    const char *op, const char *kind, const char *path)
{
	char	**v = sbpl_rule_strings(profile, len, verb, op, kind);
	int	  found = strv_in(v, path);

	strv_free(v);
	return found;
}
