// SPDX-License-Identifier: ISC
/*
 * Filename rules at creation time (SPEC R-L3, R-L4): folding, matching
 * and the .git/config content check.  Pure string functions, libc only,
 * shared by airlock-launcher (launcher/notify.c), the unit tests and the
 * fuzzer.  See namerule.h for the rule kinds.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/namerule.h"
#include "common/xmalloc.h"

#define NR_MAX_STARSTAR	4	/* "**" per pattern: bounds the matcher */

struct nr_rule {
	uint32_t	  kind;
	char		**comp;		/* folded pattern components */
	size_t		  ncomp;
	size_t		  nreal;	/* without the appended "**" */
	char		 *except;	/* folded final-component glob */
	char		 *scope;	/* NR_SCOPE, NR_CARVE: the directory */
};

struct namerule_set {
	struct nr_rule	*r;
	size_t		 n;
	int		 nscope;
	int		 ngitscope;
	int		 gitstate;	/* NR_GITSTATE given */
};

/* ---- folding ---- */

/* One UTF-8 sequence: its length, or 0 if it is not well formed. */
static size_t
utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t	n, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
	} else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* No overlong forms, surrogates or values beyond U+10FFFF. */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 ||
	    c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Characters that render as nothing: dropped. */
static int
fold_invisible(uint32_t c)
{
	return c == 0xad || c == 0x34f || c == 0x61c || c == 0x115f ||
	    c == 0x1160 || c == 0x17b4 || c == 0x17b5 || c == 0x3164 ||
	    c == 0xfeff || c == 0xffa0 ||
	    (c >= 0x300 && c <= 0x36f) ||	/* combining diacritics */
	    (c >= 0x180b && c <= 0x180f) ||
	    (c >= 0x1ab0 && c <= 0x1aff) || (c >= 0x1dc0 && c <= 0x1dff) ||
	    (c >= 0x200b && c <= 0x200f) ||	/* ZWSP, ZWNJ, ZWJ, marks */
	    (c >= 0x202a && c <= 0x202e) ||	/* bidi embeddings */
	    (c >= 0x2060 && c <= 0x206f) ||	/* word joiner, isolates */
	    (c >= 0x20d0 && c <= 0x20ff) ||
	    (c >= 0xfe00 && c <= 0xfe0f) ||	/* variation selectors */
	    (c >= 0xfe20 && c <= 0xfe2f) ||
	    (c >= 0x1d173 && c <= 0x1d17a) ||
	    (c >= 0xe0000 && c <= 0xe0fff);	/* tags, VS supplement */
}

/*
 * Compatibility forms that NFKC maps to ASCII, folded to lower case.
 * Returns the ASCII replacement in buf, or NULL to keep the character.
 */
static const char *
fold_compat(uint32_t c, char *buf)
{
	static const char *const lig[] = {
		"ff", "fi", "fl", "ffi", "ffl", "st", "st",
	};
	uint32_t i;

	buf[1] = '\0';
	if (c >= 0xff01 && c <= 0xff5e)		/* fullwidth ASCII */
		c -= 0xfee0;
	else if (c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
	    c == 0x202f || c == 0x205f || c == 0x3000)
		c = ' ';
	else if (c == 0x2024 || c == 0xfe52)	/* one dot leader, small . */
		c = '.';
	else if (c == 0x212a)			/* Kelvin sign */
		c = 'k';
	else if (c == 0x17f)			/* long s */
		c = 's';
	else if (c >= 0x1d400 && c <= 0x1d6a3) {	/* math letters */
		i = (c - 0x1d400) % 52;
		c = i < 26 ? 'a' + i : 'a' + i - 26;
	} else if (c >= 0x1d7ce && c <= 0x1d7ff)	/* math digits */
		c = '0' + (c - 0x1d7ce) % 10;
	else if (c >= 0x24b6 && c <= 0x24cf)	/* circled capitals */
		c = 'a' + (c - 0x24b6);
	else if (c >= 0x24d0 && c <= 0x24e9)	/* circled small */
		c = 'a' + (c - 0x24d0);
	else if (c >= 0x1f130 && c <= 0x1f149)	/* squared capitals */
		c = 'a' + (c - 0x1f130);
	else if (c >= 0xfb00 && c <= 0xfb06)	/* ligatures */
		return lig[c - 0xfb00];
	else if (c >= 0xc0 && c <= 0xde && c != 0xd7) {	/* Latin-1 caps */
		c += 0x20;
		buf[0] = (char)(0xc0 | (c >> 6));
		buf[1] = (char)(0x80 | (c & 0x3f));
		buf[2] = '\0';
		return buf;
	} else if (c >= 0x80)
		return NULL;
	buf[0] = (char)tolower((int)c);
	return buf;
}

size_t
namerule_fold(const char *in, size_t len, char *out)
{
	const unsigned char *s = (const unsigned char *)in;
	const char	*rep;
	char		 buf[4];
	size_t		 i = 0, o = 0, n, rl;
	uint32_t	 c;

	while (i < len) {
		if ((n = utf8_decode(s + i, len - i, &c)) == 0) {
			out[o++] = (char)s[i++];	/* not UTF-8: as is */
			continue;
		}
		if (fold_invisible(c)) {
			i += n;
			continue;
		}
		if ((rep = fold_compat(c, buf)) == NULL) {
			memcpy(out + o, s + i, n);
			o += n;
		} else {
			/* Never longer than the input it replaces. */
			rl = strlen(rep);
			memcpy(out + o, rep, rl);
			o += rl;
		}
		i += n;
	}
	/* Trailing dots and spaces do not make another name. */
	while (o > 0 && (out[o - 1] == '.' || out[o - 1] == ' '))
		o--;
	out[o] = '\0';
	return o;
}

/* ---- rules ---- */

struct namerule_set *
namerule_new(void)
{
	return calloc(1, sizeof(struct namerule_set));
}

static void
nr_rule_clear(struct nr_rule *r)
{
	size_t	i;

	for (i = 0; i < r->ncomp; i++)
		free(r->comp[i]);
	free(r->comp);
	free(r->except);
	free(r->scope);
}

void
namerule_free(struct namerule_set *set)
{
	size_t	i;

	if (set == NULL)
		return;
	for (i = 0; i < set->n; i++)
		nr_rule_clear(&set->r[i]);
	free(set->r);
	free(set);
}

size_t
namerule_count(const struct namerule_set *set)
{
	return set->n;
}

static char *
nr_fold_dup(const char *s, size_t len)
{
	char	*o;

	if ((o = malloc(len + 1)) == NULL)
		return NULL;
	namerule_fold(s, len, o);
	return o;
}

/* Split pattern into folded components; "**" stays as is. */
static int
nr_split(struct nr_rule *r, const char *pat, int starstar)
{
	const char	*p = pat, *e;
	char		**v;
	size_t		 nss = 0;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = strchr(p, '/');
		if (e == NULL)
			e = p + strlen(p);
		if ((v = reallocarray(r->comp, r->ncomp + 2,
		    sizeof(*v))) == NULL)
			return -1;
		r->comp = v;
		if ((v[r->ncomp] = nr_fold_dup(p, (size_t)(e - p))) == NULL)
			return -1;
		if (strcmp(v[r->ncomp], "**") == 0)
			nss++;
		r->ncomp++;
		p = e;
	}
	r->nreal = r->ncomp;
	if (starstar) {
		if ((r->comp[r->ncomp] = strdup("**")) == NULL)
			return -1;
		r->ncomp++;
		nss++;
	}
	return nss > NR_MAX_STARSTAR ? -1 : 0;
}

int
namerule_add(struct namerule_set *set, uint32_t kind, const char *pattern,
    const char *except)
{
	struct nr_rule	 r, *v;
	size_t		 n;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	if (pattern[0] == '\0' || kind < NR_NAME || kind >= NR_UNIXSOCK)
		goto inval;
	/* A switch, not a pattern: common/gitstate.c finds the state. */
	if (kind == NR_GITSTATE) {
		set->gitstate = 1;
		return 0;
	}
	if (kind == NR_SCOPE || kind == NR_CARVE || kind == NR_GITSCOPE) {
		if (pattern[0] != '/' || (r.scope = strdup(pattern)) == NULL)
			goto inval;
		/* "/" is everything; otherwise no trailing slash. */
		n = strlen(r.scope);
		while (n > 1 && r.scope[n - 1] == '/')
			r.scope[--n] = '\0';
	} else {
		if ((kind == NR_NAME && strchr(pattern, '/') != NULL) ||
		    (kind == NR_ABS || kind == NR_HOME) != (pattern[0] == '/'))
			goto inval;
		if (nr_split(&r, pattern, kind == NR_TREE || kind == NR_ABS ||
		    kind == NR_HOME) == -1 || r.nreal == 0)
			goto inval;
		if (except != NULL && except[0] != '\0' &&
		    (r.except = nr_fold_dup(except, strlen(except))) == NULL)
			goto inval;
	}
	if ((v = reallocarray(set->r, set->n + 1, sizeof(*v))) == NULL)
		goto inval;
	set->r = v;
	set->r[set->n++] = r;
	if (kind == NR_SCOPE)
		set->nscope++;
	if (kind == NR_GITSCOPE)
		set->ngitscope++;
	return 0;
inval:
	nr_rule_clear(&r);
	errno = EINVAL;
	return -1;
}

/* Does the pattern sequence match the component sequence exactly? */
static int
nr_seq(char *const *p, size_t np, char *const *c, size_t nc)
{
	size_t	i;

	while (np > 0) {
		if (strcmp(p[0], "**") == 0) {
			for (i = 0; i <= nc; i++)
				if (nr_seq(p + 1, np - 1, c + i, nc - i))
					return 1;
			return 0;
		}
		if (nc == 0 || fnmatch(p[0], c[0], 0) != 0)
			return 0;
		p++, np--, c++, nc--;
	}
	return nc == 0;
}

/* The first np pattern components against the path, per the kind. */
static int
nr_match_n(const struct nr_rule *r, size_t np, char *const *c, size_t nc)
{
	size_t	s;

	if (r->kind == NR_ABS || r->kind == NR_HOME)
		return nr_seq(r->comp, np, c, nc);
	if (r->kind == NR_NAME)
		return nc > 0 && fnmatch(r->comp[0], c[nc - 1], 0) == 0;
	for (s = 0; s <= nc; s++)
		if (nr_seq(r->comp, np, c + s, nc - s))
			return 1;
	return 0;
}

/* 1: the rule covers the path; 2: the path is an ancestor of a match. */
static int
nr_rule_match(const struct nr_rule *r, char *const *c, size_t nc,
    unsigned int flags)
{
	size_t	j;

	if (r->except != NULL && nc > 0 &&
	    fnmatch(r->except, c[nc - 1], 0) == 0)
		return 0;
	if (nr_match_n(r, r->ncomp, c, nc))
		return 1;
	/* Not a prefix ending in "**": any path would be an ancestor. */
	if (flags & NR_F_PREFIX)
		for (j = 1; j < r->nreal; j++)
			if (strcmp(r->comp[j - 1], "**") != 0 &&
			    nr_match_n(r, j, c, nc))
				return 2;
	return 0;
}

static int
nr_under(const char *path, const char *dir)
{
	size_t	n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return 1;
	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

enum namerule_verdict
namerule_check(const struct namerule_set *set, const char *path,
    unsigned int flags)
{
	enum namerule_verdict	 v = NR_ALLOW;
	const char		*p, *e, *last = NULL;
	char			*buf = NULL, **comp = NULL;
	size_t			 i, nc = 0, len, o = 0, ll = 0;
	int			 m, in = set->nscope == 0 ||
				    (flags & NR_F_ANYWHERE);
	int			 carved = 0, above = 0;

	for (i = 0; i < set->n && !in; i++)
		if (set->r[i].kind == NR_SCOPE &&
		    nr_under(path, set->r[i].scope))
			in = 1;
	if (!in)
		return NR_ALLOW;
	/* A carve-out is compared as spelled: only that exact name. */
	for (i = 0; i < set->n; i++) {
		if (set->r[i].kind != NR_CARVE)
			continue;
		if (nr_under(path, set->r[i].scope))
			carved = 1;
		else if (nr_under(set->r[i].scope, path))
			above = 1;
	}

	len = strlen(path);
	/* Fail closed: a path we cannot even hold is refused. */
	if ((buf = malloc(len + 1)) == NULL ||
	    (comp = calloc(len / 2 + 2, sizeof(*comp))) == NULL) {
		v = NR_DENY;
		goto out;
	}
	for (p = path; *p != '\0'; p = e) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		if ((e = strchr(p, '/')) == NULL)
			e = p + strlen(p);
		last = p;
		ll = (size_t)(e - p);
		comp[nc++] = buf + o;
		o += namerule_fold(p, (size_t)(e - p), buf + o) + 1;
	}
	/* "." and "..": an existing directory, not a new name. */
	if (last == NULL || (ll == 1 && last[0] == '.') ||
	    (ll == 2 && last[0] == '.' && last[1] == '.'))
		goto out;
	for (i = 0; i < set->n; i++) {
		if (set->r[i].kind == NR_SCOPE || set->r[i].kind == NR_CARVE ||
		    set->r[i].kind == NR_GITSCOPE)
			continue;
		if ((m = nr_rule_match(&set->r[i], comp, nc, flags)) == 0)
			continue;
		/* An empty directory on the way to a carve-out is harmless;
		 * a tree renamed or linked there, or a symlink, is not. */
		if (set->r[i].kind == NR_HOME && (carved ||
		    (above && !(flags & NR_F_PREFIX))))
			continue;
		/* A carve-out (a runner's session directory, a cache) is the
		 * runner's or the user's: no project lives there. */
		if (set->r[i].kind == NR_TREE && carved)
			continue;
		if (set->r[i].kind != NR_GITCONFIG || m == 2) {
			v = NR_DENY;
			break;
		}
		v = NR_CHECK_CONFIG;
	}
out:
	free(buf);
	free(comp);
	return v;
}

/* ---- git state ---- */

int
namerule_gitstate_on(const struct namerule_set *set)
{
	return set->gitstate;
}

int
namerule_scope(const struct namerule_set *set, const char *path)
{
	size_t	i, n;
	int	best = -1;

	if (set->nscope == 0 && set->ngitscope == 0)
		return 0;
	for (i = 0; i < set->n; i++)
		if ((set->r[i].kind == NR_SCOPE ||
		    set->r[i].kind == NR_GITSCOPE) &&
		    nr_under(path, set->r[i].scope) &&
		    (int)(n = strlen(set->r[i].scope)) > best)
			best = n == 1 ? 0 : (int)n;
	return best;
}

int
namerule_gitstate_name(const char *name)
{
	char	buf[NAME_MAX + 1];
	size_t	n = strlen(name);

	if (n > NAME_MAX)
		return 0;
	namerule_fold(name, n, buf);
	return strcmp(buf, ".git") == 0;
}

int
namerule_gitstate_mark(const char *name)
{
	return strcasecmp(name, "objects") == 0 ||
	    strcasecmp(name, "refs") == 0 ||
	    strcasecmp(name, "commondir") == 0;
}

/*
 * What git's porcelain writes in a git directory (init, clone, fetch,
 * commit, merge, rebase, cherry-pick, stash, bisect, worktree,
 * submodule, gc), from its sources.  Trees: anything beneath, since
 * their contents are data git reads as data; a git directory nested in
 * one (modules/<name>, worktrees/<name>) is git state of its own and
 * meets this list itself.  Files: the final component, fnmatch() on
 * exact bytes.  A lock file of any of them ("<name>.lock") too.
 */
static const char *const gs_trees[] = {
	"objects", "refs", "logs", "reftable", "modules", "worktrees",
	"rebase-merge", "rebase-apply", "sequencer", "rr-cache",
	"lost-found", "NOTES_MERGE_WORKTREE",
};
static const char *const gs_files[] = {
	"HEAD", "*_HEAD", "AUTO_MERGE", "index", "index.stash.*",
	"sharedindex.*", "next-index-*", "packed-refs", "packed-refs.new",
	"COMMIT_EDITMSG", "MERGE_MSG",
	"MERGE_MODE", "MERGE_RR", "MERGE_AUTOSTASH", "SQUASH_MSG",
	"TAG_EDITMSG", "NOTES_EDITMSG", "EDIT_DESCRIPTION", "BISECT_*",
	"shallow", "description", "gc.pid", "gc.log", "commondir", "gitdir",
	"locked", "info", "hooks", "info/exclude", "info/sparse-checkout",
	/* The directory git init's template makes; a file in it (or in
	 * remotes/) names a remote's URL outside the config's allowlist,
	 * and porcelain never writes one. */
	"branches",
	"info/refs", "info/refs_*", "hooks/*.sample",
	/* git init's probe of symlink support: a file, then a symlink. */
	"t??????",
};

static enum namerule_verdict
gs_rel(const char *rel, size_t len)
{
	char	p[PATH_MAX];
	size_t	i, n;

	if (len >= sizeof(p))
		return NR_DENY;
	memcpy(p, rel, len);
	p[len] = '\0';
	n = strcspn(p, "/");
	for (i = 0; i < sizeof(gs_trees) / sizeof(gs_trees[0]); i++)
		if (strlen(gs_trees[i]) == n && strncmp(p, gs_trees[i], n) == 0)
			return NR_ALLOW_TREE;
	if (strcmp(p, "config") == 0 || strcmp(p, "config.worktree") == 0)
		return NR_CHECK_CONFIG;
	for (i = 0; i < sizeof(gs_files) / sizeof(gs_files[0]); i++)
		if (fnmatch(gs_files[i], p, FNM_PATHNAME) == 0)
			return NR_ALLOW;
	/* A lock of a listed name (config.lock: a plain file, renamed
	 * into place through the content check). */
	if (len > 5 && strcmp(p + len - 5, ".lock") == 0 &&
	    gs_rel(p, len - 5) != NR_DENY)
		return NR_ALLOW;
	return NR_DENY;
}

enum namerule_verdict
namerule_gitstate_rel(const char *rel)
{
	size_t	len = strlen(rel);

	while (len > 0 && rel[len - 1] == '/')
		len--;
	if (len == 0 || (len == 1 && rel[0] == '.'))
		return NR_ALLOW;
	/* ".." or "." inside: not a name git writes. */
	if (strstr(rel, "/./") != NULL || strstr(rel, "/../") != NULL ||
	    strncmp(rel, "./", 2) == 0 || strncmp(rel, "../", 3) == 0 ||
	    strcmp(rel, "..") == 0)
		return NR_DENY;
	return gs_rel(rel, len);
}

int
namerule_lexical(const char *dir, const char *path, char *out, size_t len)
{
	const char	*p, *e;
	size_t		 o, n;

	if (path[0] == '/')
		o = 0;
	else if ((o = strlen(dir)) >= len)
		return -ENAMETOOLONG;
	else
		memmove(out, dir, o);	/* out may be dir */
	while (o > 0 && out[o - 1] == '/')
		o--;
	for (p = path; *p != '\0'; p = e) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = p + strcspn(p, "/");
		n = (size_t)(e - p);
		if (n == 1 && p[0] == '.')
			continue;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			continue;
		}
		if (o + n + 2 > len)
			return -ENAMETOOLONG;
		out[o++] = '/';
		memcpy(out + o, p, n);
		o += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/* ---- path arguments ---- */

int
namerule_split(int pid, const char *base, const char *path, char *dir,
    size_t dirlen, char *name, size_t namelen)
{
	static const struct {
		const char *from, *to;
	} map[] = {
		{ "/proc/self", "" }, { "/proc/thread-self", "" },
		{ "/dev/fd", "/fd" }, { "/dev/stdin", "/fd/0" },
		{ "/dev/stdout", "/fd/1" }, { "/dev/stderr", "/fd/2" },
	};
	char		 p[PATH_MAX + 64];
	const char	*nm;
	size_t		 i, n, dl;
	int		 w;

	snprintf(p, sizeof(p), "%s", path);
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		n = strlen(map[i].from);
		if (strncmp(path, map[i].from, n) == 0 &&
		    (path[n] == '\0' || path[n] == '/')) {
			snprintf(p, sizeof(p), "/proc/%d%s%s", pid, map[i].to,
			    path + n);
			break;
		}
	}
	if ((n = strlen(p)) == 0)
		return -ENOENT;
	for (dl = n; dl > 1 && p[dl - 1] == '/'; dl--)
		;
	p[dl] = '\0';
	if ((nm = strrchr(p, '/')) == NULL) {
		nm = p;
		w = snprintf(dir, dirlen, "%s", base);
	} else {
		w = snprintf(dir, dirlen, "%s%s%.*s", p[0] == '/' ? "" : base,
		    p[0] == '/' ? "" : "/", (int)(nm - p + 1), p);
		nm++;
	}
	if (*nm == '\0')
		nm = ".";
	if (strlen(nm) > NAME_MAX || w < 0 || (size_t)w >= dirlen ||
	    snprintf(name, namelen, "%s%s", nm, dl < n ? "/" : "") >=
	    (int)namelen)
		return -ENAMETOOLONG;
	return 0;
}

int
namerule_join(char *abs, size_t size, size_t plen, const char *name,
    int *proc)
{
	abs[plen] = '\0';
	/* Nothing of init's own: it holds the channel and the listeners. */
	if (strcmp(abs, "/proc/1") == 0 || strncmp(abs, "/proc/1/", 8) == 0)
		return -EACCES;
	*proc = strncmp(abs, "/proc/", 6) == 0;
	if ((size_t)snprintf(abs + plen, size - plen, "%s%.*s", plen == 1 ?
	    "" : "/", (int)strcspn(name, "/"), name) >= size - plen)
		return -ENAMETOOLONG;
	return 0;
}

/* ---- .git/config ---- */

enum { GS_NONE, GS_SUB };		/* subsection */

/* The shape a value must have. */
enum {
	GV_BOOL,	/* true/false/yes/no/on/off/an integer/none */
	GV_INT,		/* a decimal integer */
	GV_WORD,	/* one of words ("a|b"), any case */
	GV_BOOLWORD,	/* a boolean, or one of words */
	GV_TEXT,	/* data git never runs or follows: one printable line */
	GV_URL,		/* where git fetches from: see gc_url() */
	GV_PATH,	/* a directory: inside the caller's scope only */
	GV_WTREE,	/* a work tree: GV_PATH, and not inside git state */
};

/*
 * Git config by allowlist (SPEC R-L3).  Inside git state a config file
 * may set only what git's porcelain writes there in normal work, each
 * with the shape git writes it in; every other key, whatever it does,
 * is refused unless the file being replaced already had it (the user's
 * own).  The sources, from git's tree: setup.c (init, reinit: core.*,
 * extensions.*, receive.denyNonFastforwards for --shared),
 * builtin/clone.c (remote.*, core.bare, submodule.active and recurse),
 * builtin/remote.c (remote.*, branch.*.remote, remote.pushDefault),
 * branch.c and builtin/branch.c (branch.*), builtin/submodule--helper.c
 * and submodule.c (submodule.*, core.worktree of a module),
 * worktree.c and builtin/worktree.c (extensions.worktreeConfig,
 * core.bare, core.worktree moved to config.worktree),
 * builtin/sparse-checkout.c and sparse-index.c (core.sparseCheckout*,
 * index.sparse), builtin/gc.c (maintenance.auto, .strategy).  Beside
 * them, the preferences users set per repository that change only how
 * git does its own work (pull.rebase, push.default, ...).  Section and
 * key are compared lower-case; "*" is any key.  docs/SECURITY.md, "Git
 * config by allowlist", has the table.
 */
static const struct gc_allow {
	const char	*sec;
	int		 sub;
	const char	*key;
	int		 shape;
	const char	*words;
} gc_allow[] = {
	{ "core", GS_NONE, "repositoryformatversion", GV_INT, NULL },
	{ "core", GS_NONE, "filemode", GV_BOOL, NULL },
	{ "core", GS_NONE, "bare", GV_BOOL, NULL },
	{ "core", GS_NONE, "logallrefupdates", GV_BOOLWORD, "always" },
	{ "core", GS_NONE, "ignorecase", GV_BOOL, NULL },
	{ "core", GS_NONE, "precomposeunicode", GV_BOOL, NULL },
	{ "core", GS_NONE, "symlinks", GV_BOOL, NULL },
	{ "core", GS_NONE, "sharedrepository", GV_BOOLWORD,
	    "group|all|world|everybody|umask" },
	/* Not the git directory: a checkout there writes hooks and config. */
	{ "core", GS_NONE, "worktree", GV_WTREE, NULL },
	{ "core", GS_NONE, "sparsecheckout", GV_BOOL, NULL },
	{ "core", GS_NONE, "sparsecheckoutcone", GV_BOOL, NULL },
	{ "core", GS_NONE, "splitindex", GV_BOOL, NULL },
	{ "core", GS_NONE, "untrackedcache", GV_BOOLWORD, "keep" },
	/* A boolean only: "true" is git's own daemon, a path a program. */
	{ "core", GS_NONE, "fsmonitor", GV_BOOL, NULL },
	{ "core", GS_NONE, "autocrlf", GV_BOOLWORD, "input" },
	{ "core", GS_NONE, "eol", GV_WORD, "lf|crlf|native" },
	{ "core", GS_NONE, "safecrlf", GV_BOOLWORD, "warn" },
	{ "extensions", GS_NONE, "worktreeconfig", GV_BOOL, NULL },
	{ "extensions", GS_NONE, "objectformat", GV_WORD, "sha1|sha256" },
	{ "extensions", GS_NONE, "compatobjectformat", GV_WORD,
	    "sha1|sha256" },
	{ "extensions", GS_NONE, "refstorage", GV_WORD, "files|reftable" },
	/* A remote's name; an unknown name is taken for a URL. */
	{ "extensions", GS_NONE, "partialclone", GV_URL, NULL },
	{ "extensions", GS_NONE, "relativeworktrees", GV_BOOL, NULL },
	{ "extensions", GS_NONE, "submodulepathconfig", GV_BOOL, NULL },
	{ "extensions", GS_NONE, "preciousobjects", GV_BOOL, NULL },
	{ "remote", GS_SUB, "url", GV_URL, NULL },
	{ "remote", GS_SUB, "pushurl", GV_URL, NULL },
	{ "remote", GS_SUB, "fetch", GV_TEXT, NULL },
	{ "remote", GS_SUB, "push", GV_TEXT, NULL },
	{ "remote", GS_SUB, "mirror", GV_BOOL, NULL },
	{ "remote", GS_SUB, "tagopt", GV_WORD, "--no-tags|--tags" },
	{ "remote", GS_SUB, "prune", GV_BOOL, NULL },
	{ "remote", GS_SUB, "prunetags", GV_BOOL, NULL },
	{ "remote", GS_SUB, "promisor", GV_BOOL, NULL },
	{ "remote", GS_SUB, "partialclonefilter", GV_TEXT, NULL },
	{ "remote", GS_SUB, "skipdefaultupdate", GV_BOOL, NULL },
	{ "remote", GS_SUB, "skipfetchall", GV_BOOL, NULL },
	{ "remote", GS_NONE, "pushdefault", GV_URL, NULL },
	/* branch.*.remote may be a URL where no remote has that name. */
	{ "branch", GS_SUB, "remote", GV_URL, NULL },
	{ "branch", GS_SUB, "pushremote", GV_URL, NULL },
	{ "branch", GS_SUB, "merge", GV_TEXT, NULL },
	{ "branch", GS_SUB, "rebase", GV_BOOLWORD,
	    "merges|interactive|preserve" },
	{ "branch", GS_SUB, "description", GV_TEXT, NULL },
	{ "branch", GS_NONE, "autosetupmerge", GV_BOOLWORD,
	    "always|inherit|simple" },
	{ "branch", GS_NONE, "autosetuprebase", GV_WORD,
	    "never|local|remote|always" },
	{ "user", GS_NONE, "name", GV_TEXT, NULL },
	{ "user", GS_NONE, "email", GV_TEXT, NULL },
	{ "user", GS_NONE, "signingkey", GV_TEXT, NULL },
	{ "submodule", GS_SUB, "url", GV_URL, NULL },
	{ "submodule", GS_SUB, "active", GV_BOOL, NULL },
	/* Never "!command": submodule--helper copies only these. */
	{ "submodule", GS_SUB, "update", GV_WORD,
	    "checkout|rebase|merge|none" },
	{ "submodule", GS_SUB, "branch", GV_TEXT, NULL },
	{ "submodule", GS_SUB, "fetchrecursesubmodules", GV_BOOLWORD,
	    "on-demand" },
	{ "submodule", GS_SUB, "ignore", GV_WORD, "none|untracked|dirty|all" },
	{ "submodule", GS_SUB, "shallow", GV_BOOL, NULL },
	{ "submodule", GS_SUB, "gitdir", GV_PATH, NULL },
	{ "submodule", GS_NONE, "active", GV_TEXT, NULL },
	{ "submodule", GS_NONE, "recurse", GV_BOOL, NULL },
	{ "submodule", GS_NONE, "alternatelocation", GV_WORD,
	    "no|superproject" },
	{ "submodule", GS_NONE, "alternateerrorstrategy", GV_WORD,
	    "die|info|ignore" },
	{ "submodule", GS_NONE, "propagatebranches", GV_BOOL, NULL },
	{ "receive", GS_NONE, "denynonfastforwards", GV_BOOL, NULL },
	{ "receive", GS_NONE, "denycurrentbranch", GV_BOOLWORD,
	    "refuse|warn|ignore|updateinstead" },
	{ "index", GS_NONE, "sparse", GV_BOOL, NULL },
	{ "maintenance", GS_NONE, "auto", GV_BOOL, NULL },
	{ "maintenance", GS_NONE, "strategy", GV_WORD,
	    "none|incremental|gc|geometric" },
	/* Preferences: how git does its own work, nothing more. */
	{ "pull", GS_NONE, "rebase", GV_BOOLWORD, "merges|interactive" },
	{ "pull", GS_NONE, "ff", GV_BOOLWORD, "only" },
	{ "push", GS_NONE, "default", GV_WORD,
	    "nothing|current|upstream|tracking|simple|matching" },
	{ "push", GS_NONE, "autosetupremote", GV_BOOL, NULL },
	{ "fetch", GS_NONE, "prune", GV_BOOL, NULL },
	{ "fetch", GS_NONE, "prunetags", GV_BOOL, NULL },
	{ "fetch", GS_NONE, "recursesubmodules", GV_BOOLWORD, "on-demand" },
	{ "merge", GS_NONE, "ff", GV_BOOLWORD, "only" },
	{ "merge", GS_NONE, "conflictstyle", GV_WORD, "merge|diff3|zdiff3" },
	{ "rerere", GS_NONE, "enabled", GV_BOOL, NULL },
	{ "rerere", GS_NONE, "autoupdate", GV_BOOL, NULL },
	{ "init", GS_NONE, "defaultbranch", GV_TEXT, NULL },
	{ "color", GS_NONE, "ui", GV_BOOLWORD, "auto|always|never" },
	{ "advice", GS_NONE, "*", GV_BOOL, NULL },
};

static int
gc_is_bool(const char *v)
{
	static const char *const b[] = {
		"", "true", "false", "yes", "no", "on", "off",
	};
	size_t	i;

	if (v == NULL)
		return 1;
	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		if (strcasecmp(v, b[i]) == 0)
			return 1;
	if (*v == '-' || *v == '+')
		v++;
	if (*v == '\0')
		return 0;
	while (isdigit((unsigned char)*v))
		v++;
	return *v == '\0';
}

static int
gc_is_word(const char *v, const char *words)
{
	const char	*w, *e;
	size_t		 n;

	if (v == NULL)
		return 0;
	n = strlen(v);
	for (w = words; *w != '\0'; w = *e ? e + 1 : e) {
		e = w + strcspn(w, "|");
		if ((size_t)(e - w) == n && strncasecmp(v, w, n) == 0)
			return 1;
	}
	return 0;
}

/* One printable line: no control character, nothing a terminal acts on. */
static int
gc_is_text(const char *v)
{
	if (v == NULL)
		return 0;
	for (; *v != '\0'; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			return 0;
	return 1;
}

/*
 * A URL git reaches without a program of anyone's choosing (transport.c,
 * transport_get()): "https://", "http://", "ssh://", "git://",
 * "file://" (scheme in lower case: any other spelling names a remote
 * helper), an scp-like "host:path", a local path, a remote's name.
 * Never "<transport>::<address>" (ext::, fd:: or any helper), never an
 * option ("-..."), never a host or user beginning with '-' ("@-",
 * "[-", "://-"), which ssh would read as an option.
 */
static int
gc_url(const char *v)
{
	static const char *const schemes[] = {
		"https://", "http://", "ssh://", "git://", "file://",
		"git+ssh://", "ssh+git://",
	};
	size_t	i, n;

	if (!gc_is_text(v) || v[0] == '\0' || v[0] == '-' ||
	    strstr(v, "::") != NULL || strstr(v, "@-") != NULL ||
	    strstr(v, "[-") != NULL)
		return 0;
	if (strstr(v, "://") == NULL)
		return 1;
	for (i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		n = strlen(schemes[i]);
		if (strncmp(v, schemes[i], n) == 0)
			return v[n] != '-';
	}
	return 0;
}

struct gc_ctx {
	char		***found;
	int		(*inside)(const char *, int, void *);
	void		 *arg;
};

/*
 * NULL if section[.sub].key = val is on the allowlist, in its shape;
 * else why not (a constant string).
 */
static const char *
gc_refused(const struct gc_ctx *x, const char *sec, int hassub,
    const char *key, const char *val)
{
	const struct gc_allow *a;
	size_t		 i;
	int		 ok;

	for (i = 0; i < sizeof(gc_allow) / sizeof(gc_allow[0]); i++) {
		a = &gc_allow[i];
		if (strcmp(a->sec, sec) != 0 || (a->sub == GS_SUB) != hassub ||
		    (strcmp(a->key, "*") != 0 && strcmp(a->key, key) != 0))
			continue;
		switch (a->shape) {
		case GV_BOOL:
			ok = gc_is_bool(val);
			break;
		case GV_INT:
			ok = val != NULL && val[0] != '\0' &&
			    val[strspn(val, "0123456789")] == '\0';
			break;
		case GV_WORD:
			ok = gc_is_word(val, a->words);
			break;
		case GV_BOOLWORD:
			ok = gc_is_bool(val) || gc_is_word(val, a->words);
			break;
		case GV_TEXT:
			ok = gc_is_text(val);
			break;
		case GV_URL:
			ok = gc_url(val);
			if (!ok)
				return "not a URL git reaches without a "
				    "helper program";
			break;
		case GV_PATH:
		case GV_WTREE:
			ok = gc_is_text(val) && val[0] != '\0' &&
			    x->inside != NULL && x->inside(val,
			    a->shape == GV_WTREE, x->arg);
			if (!ok)
				return "a path outside the writable tree";
			break;
		default:
			ok = 0;
			break;
		}
		return ok ? NULL : "a value git does not write there";
	}
	return "not on the allowlist";
}

struct gc_parse {
	const char	*b;
	size_t		 len;
	size_t		 i;
};

static int
gc_next(struct gc_parse *p)
{
	int	c;

	if (p->i >= p->len)
		return EOF;
	c = (unsigned char)p->b[p->i++];
	/* git reads "\r\n" as "\n". */
	if (c == '\r' && p->i < p->len && p->b[p->i] == '\n')
		c = (unsigned char)p->b[p->i++];
	return c;
}

static int
gc_keychar(int c)
{
	return isalnum(c) || c == '-';
}

/*
 * "[section]", "[section \"sub\"]" or "[section.sub]" after the '[':
 * sec gets the lower-cased section, sub the subsection ("" if none).
 */
static int
gc_header(struct gc_parse *p, char *sec, char *sub, size_t len, int *hassub)
{
	size_t	n = 0, m = 0;
	int	c;
	char	*dot;

	*hassub = 0;
	sub[0] = '\0';
	for (;;) {
		if ((c = gc_next(p)) == EOF || n + 1 >= len)
			return -1;
		if (c == ']')
			break;
		if (isspace(c)) {
			/* The extended form: the subsection is quoted. */
			while ((c = gc_next(p)) == ' ' || c == '\t')
				;
			if (c != '"')
				return -1;
			for (;;) {
				if ((c = gc_next(p)) == EOF || c == '\n' ||
				    m + 1 >= len)
					return -1;
				if (c == '"')
					break;
				if (c == '\\' && ((c = gc_next(p)) == EOF ||
				    c == '\n'))
					return -1;
				sub[m++] = (char)c;
			}
			sub[m] = '\0';
			if (gc_next(p) != ']')
				return -1;
			*hassub = 1;
			break;
		}
		if (!gc_keychar(c) && c != '.')
			return -1;
		sec[n++] = (char)tolower(c);
	}
	sec[n] = '\0';
	/* The deprecated [section.sub] form. */
	if ((dot = strchr(sec, '.')) != NULL) {
		*dot = '\0';
		snprintf(sub, len, "%s", dot + 1);
		*hassub = 1;
	}
	return sec[0] == '\0' ? -1 : 0;
}

/* A value after '=', as git decodes it; *out is malloc'd. */
static int
gc_value(struct gc_parse *p, char **out)
{
	char	*v;
	size_t	 n = 0, space = 0;
	int	 c, quote = 0;

	if ((v = malloc(p->len + 1)) == NULL)
		return -1;
	for (;;) {
		c = gc_next(p);
		if (c == EOF || c == '\n') {
			if (quote)
				goto bad;
			break;
		}
		if (!quote && (c == ';' || c == '#')) {
			while ((c = gc_next(p)) != EOF && c != '\n')
				;
			break;
		}
		if (!quote && isspace(c)) {
			if (n > 0)
				space++;
			continue;
		}
		for (; space > 0; space--)
			v[n++] = ' ';
		if (c == '\\') {
			switch (c = gc_next(p)) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				goto bad;
			}
		} else if (c == '"') {
			quote = !quote;
			continue;
		}
		v[n++] = (char)c;
	}
	v[n] = '\0';
	*out = v;
	return 0;
bad:
	free(v);
	return -1;
}

/*
 * Walk the entries of a config text: cb gets each (section, whether it
 * has a subsection, the subsection, key, value or NULL) in order.  0 at
 * the end; -1 if the text does not parse (*where: the byte), or when cb
 * returned -1.
 */
typedef int (*gc_entry_cb)(const char *, int, const char *, const char *,
    const char *, void *);

static int
gc_walk(const char *buf, size_t len, gc_entry_cb cb, void *arg,
    size_t *where)
{
	struct gc_parse	 p = { buf, len, 0 };
	char		 sec[256], sub[256], key[256], *val;
	size_t		 n;
	int		 c, hassub = 0, have = 0, r;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		p.i = 3;
	for (;;) {
		if ((c = gc_next(&p)) == EOF)
			return 0;
		if (isspace(c))
			continue;
		if (c == '#' || c == ';') {
			while ((c = gc_next(&p)) != EOF && c != '\n')
				;
			continue;
		}
		if (c == '[') {
			if (gc_header(&p, sec, sub, sizeof(sec), &hassub) == -1)
				break;
			have = 1;
			continue;
		}
		if (!isalpha(c) || !have)
			break;
		n = 0;
		do {
			if (n + 1 >= sizeof(key))
				goto unparsable;
			key[n++] = (char)tolower(c);
		} while ((c = gc_next(&p)) != EOF && gc_keychar(c));
		key[n] = '\0';
		while (c == ' ' || c == '\t')
			c = gc_next(&p);
		val = NULL;
		if (c != '\n' && c != EOF) {
			if (c != '=' || gc_value(&p, &val) == -1)
				break;
		}
		r = cb(sec, hassub, sub, key, val, arg);
		free(val);
		if (r == -1)
			return -1;
	}
unparsable:
	*where = p.i;
	return -1;
}

/* gc_walk: collect the entries not on the allowlist, two strings each. */
static int
gc_collect(const char *sec, int hassub, const char *sub, const char *key,
    const char *val, void *arg)
{
	const struct gc_ctx *x = arg;
	const char	*no;
	char		*e;

	if ((no = gc_refused(x, sec, hassub, key, val)) == NULL)
		return 0;
	xasprintf(&e, "%s\037%d%s\037%s\037%d%s", sec, hassub, sub, key,
	    val != NULL, val ? val : "");
	*x->found = strv_add(*x->found, e);
	free(e);
	/* The subsection is not shown: it may carry a URL and a token. */
	xasprintf(&e, "%s%s.%s: %s", sec, hassub ? ".<sub>" : "", key, no);
	*x->found = strv_add(*x->found, e);
	free(e);
	return 0;
}

/*
 * Collect the entries of a config text that the allowlist refuses: two
 * strings each in *found, the entry (section, subsection, key, value)
 * and its name and the reason for messages.  -1 if the text does not
 * parse.
 */
static int
gc_scan(const char *buf, size_t len, struct gc_ctx *x, char *why,
    size_t whylen)
{
	size_t	where = 0;

	if (gc_walk(buf, len, gc_collect, x, &where) == 0)
		return 0;
	snprintf(why, whylen, "unparsable at byte %zu", where);
	return -1;
}

/* gc_walk, for namerule_gitconfig_get(). */
struct gc_get {
	const char	*sec, *sub, *key;
	char		*val;
	int		 found;
};

static int
gc_pick(const char *sec, int hassub, const char *sub, const char *key,
    const char *val, void *arg)
{
	struct gc_get	*g = arg;

	/* An include would bring entries this walk cannot see. */
	if (strcmp(sec, "include") == 0 || strcmp(sec, "includeif") == 0)
		return -1;
	if (strcmp(sec, g->sec) != 0 || strcmp(key, g->key) != 0 ||
	    (g->sub == NULL ? hassub : !hassub || strcmp(sub, g->sub) != 0))
		return 0;
	free(g->val);
	g->val = val != NULL ? xstrdup(val) : NULL;
	g->found = 1;
	return 0;
}

int
namerule_gitconfig_get(const char *buf, size_t len, const char *sec,
    const char *sub, const char *key, char **val)
{
	struct gc_get	g = { sec, sub, key, NULL, 0 };
	size_t		where;

	*val = NULL;
	if (gc_walk(buf, len, gc_pick, &g, &where) == -1) {
		free(g.val);
		return -1;
	}
	if (!g.found || g.val == NULL)
		return 0;
	*val = g.val;
	return 1;
}

int
namerule_gitconfig_check_at(const char *buf, size_t len, const char *old,
    size_t oldlen, int (*inside)(const char *, int, void *), void *arg,
    char *why, size_t whylen)
{
	char		**nw = NULL, **ow = NULL, dummy[8];
	struct gc_ctx	  xn = { &nw, inside, arg };
	struct gc_ctx	  xo = { &ow, inside, arg };
	size_t		  i, j;
	int		  rc = 0;

	if (gc_scan(buf, len, &xn, why, whylen) == -1) {
		strv_free(nw);
		return -1;
	}
	/* What the current file already sets is not the agent's doing. */
	if (old != NULL && gc_scan(old, oldlen, &xo, dummy,
	    sizeof(dummy)) == -1) {
		strv_free(ow);
		ow = NULL;
	}
	for (i = 0; nw != NULL && nw[i] != NULL && rc == 0; i += 2) {
		for (j = 0; ow != NULL && ow[j] != NULL; j += 2)
			if (strcmp(ow[j], nw[i]) == 0)
				break;
		if (ow == NULL || ow[j] == NULL) {
			snprintf(why, whylen, "%s", nw[i + 1]);
			rc = -1;
		}
	}
	strv_free(nw);
	strv_free(ow);
	return rc;
}

int
namerule_gitconfig_check(const char *buf, size_t len, const char *old,
    size_t oldlen, char *why, size_t whylen)
{
	return namerule_gitconfig_check_at(buf, len, old, oldlen, NULL, NULL,
	    why, whylen);
}

/* gc_walk: collect remote.<name>.url and .pushurl entries. */
static int
gc_remote(const char *sec, int hassub, const char *sub, const char *key,
    const char *val, void *arg)
{
	char	***found = arg, *e;

	if (strcmp(sec, "remote") != 0 || !hassub || (strcmp(key, "url") !=
	    0 && strcmp(key, "pushurl") != 0))
		return 0;
	xasprintf(&e, "remote.%s.%s=%s", sub, key, val ? val : "");
	*found = strv_add(*found, e);
	free(e);
	return 0;
}

int
namerule_gitconfig_remote_changed(const char *buf, size_t len,
    const char *old, size_t oldlen, char *why, size_t whylen)
{
	char	**nw = NULL, **ow = NULL;
	size_t	  i, j, where;
	int	  rc = 0;

	if (gc_walk(buf, len, gc_remote, &nw, &where) == -1) {
		strv_free(nw);
		return 0;
	}
	if (old != NULL && gc_walk(old, oldlen, gc_remote, &ow, &where) == -1) {
		strv_free(ow);
		ow = NULL;
	}
	for (i = 0; nw != NULL && nw[i] != NULL && rc == 0; i++) {
		for (j = 0; ow != NULL && ow[j] != NULL; j++)
			if (strcmp(ow[j], nw[i]) == 0)
				break;
		if (ow == NULL || ow[j] == NULL) {
			/* The key, not the URL: it may carry a token. */
			snprintf(why, whylen, "%.*s", (int)strcspn(nw[i], "="),
			    nw[i]);
			rc = 1;
		}
	}
	strv_free(nw);
	strv_free(ow);
	return rc;
}

/* ---- .gitmodules ---- */

/*
 * .gitmodules by allowlist: what `git submodule add` and `git config -f
 * .gitmodules` write for a submodule, from git's submodule-config.c
 * (parse_config: path, url, branch, shallow, ignore,
 * fetchRecurseSubmodules, update).  The host's `git submodule update`
 * clones each url and checks it out at path, so a url must use a scheme
 * git runs no program for (https, http, ssh, git, file, a local or an
 * scp-like path; never ext::, fd:: or another transport helper), and a
 * path must stay in the worktree.
 */
int
namerule_gitmodules_name(const char *name)
{
	char	buf[NAME_MAX + 1];
	size_t	n = strlen(name);

	if (n > NAME_MAX)
		return 0;
	namerule_fold(name, n, buf);
	return strcmp(buf, ".gitmodules") == 0;
}

static int
gm_url(const char *v)
{
	static const char *const ok[] = {
		"https://", "http://", "ssh://", "git://", "git+ssh://",
		"ssh+git://", "file://", "./", "../", "/",
	};
	const char	*c, *s;
	size_t		 i;

	/* What config's URLs must be, and one of these shapes. */
	if (!gc_url(v))
		return 0;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strncasecmp(v, ok[i], strlen(ok[i])) == 0)
			return 1;
	/* scp-like "user@host:path" (no "scheme://" and no transport). */
	c = strchr(v, ':');
	s = strchr(v, '/');
	return c != NULL && c != v && (s == NULL || s > c) &&
	    strncmp(c, "://", 3) != 0 && strcspn(v, ":") ==
	    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-@[]");
}

/* A path inside the worktree: relative, no "..", no git directory. */
static int
gm_path(const char *v)
{
	const char	*p, *e;
	char		 c[NAME_MAX + 1];
	size_t		 n;

	if (*v == '\0' || *v == '/' || *v == '-')
		return 0;
	for (p = v; *p != '\0'; p = *e != '\0' ? e + 1 : e) {
		e = p + strcspn(p, "/");
		if ((n = (size_t)(e - p)) > NAME_MAX)
			return 0;
		memcpy(c, p, n);
		c[n] = '\0';
		if (strcmp(c, "..") == 0 || namerule_gitstate_name(c))
			return 0;
	}
	return 1;
}

static int
gm_oneof(const char *v, const char *const *set)
{
	for (; *set != NULL; set++)
		if (strcasecmp(v, *set) == 0)
			return 1;
	return 0;
}

/* gc_walk: the first entry off the list ends the walk, named in arg. */
static int
gm_entry(const char *sec, int hassub, const char *sub, const char *key,
    const char *val, void *arg)
{
	static const char *const bools[] = { "true", "false", "yes", "no",
	    "on", "off", "1", "0", NULL };
	static const char *const recurse[] = { "true", "false", "yes", "no",
	    "on", "off", "1", "0", "on-demand", NULL };
	static const char *const ignore[] = { "none", "untracked", "dirty",
	    "all", NULL };
	static const char *const update[] = { "checkout", "rebase", "merge",
	    "none", NULL };
	char	*why = arg;
	int	 ok = 0;

	if (strcmp(sec, "submodule") == 0 && hassub && val != NULL &&
	    gc_is_text(val) && gc_is_text(sub)) {
		if (strcmp(key, "path") == 0)
			ok = gm_path(val);
		else if (strcmp(key, "url") == 0)
			ok = gm_url(val);
		else if (strcmp(key, "branch") == 0)
			ok = *val != '-';
		else if (strcmp(key, "shallow") == 0)
			ok = gm_oneof(val, bools);
		else if (strcmp(key, "ignore") == 0)
			ok = gm_oneof(val, ignore);
		else if (strcmp(key, "fetchrecursesubmodules") == 0)
			ok = gm_oneof(val, recurse);
		else if (strcmp(key, "update") == 0)
			ok = gm_oneof(val, update);
	}
	if (ok)
		return 0;
	snprintf(why, 128, "%s%s.%s%s not allowed in .gitmodules", sec,
	    hassub ? ".<name>" : "", key, val == NULL ? " (no value)" : "");
	return -1;
}

int
namerule_gitmodules_check(const char *buf, size_t len, char *why,
    size_t whylen)
{
	char	w[128] = "";
	size_t	where = 0;

	if (gc_walk(buf, len, gm_entry, w, &where) == 0)
		return 0;
	if (w[0] != '\0')
		snprintf(why, whylen, "%s", w);
	else
		snprintf(why, whylen, "unparsable at byte %zu", where);
	return -1;
}
