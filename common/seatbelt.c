// SPDX-License-Identifier: ISC
/*
 * The Seatbelt (SBPL) profile of a run (SPEC R-M1, R-M2).  The profile
 * starts from (allow default) and takes away, in the order Seatbelt reads
 * it (a later rule wins over an earlier one for the same operation):
 * reading the secret set; writing anywhere but the writable roots; then
 * writing the hard-denied paths and names even inside those roots; the
 * unlink (and so the rename) of every denied path and of each of its
 * ancestors, so that moving a parent away cannot carry a denied file out
 * of its rule; exec under a writable root but for execGrantRoots; and all
 * network but the loopback proxy ports, the system resolver's socket and
 * the unix sockets the plan names.
 *
 * Every path is written in both spellings macOS has for it (/tmp and
 * /private/tmp, /var and /private/var, /etc and /private/etc): Seatbelt
 * matches the path a call resolves to, and a rule in the other spelling
 * would match nothing.  Every string is escaped (quote, backslash and
 * control bytes), so no path from a plan can close its string and add a
 * rule of its own.  Only absolute paths are written: a relative one has
 * no meaning to Seatbelt and would otherwise be a silent no-op.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/seatbelt.h"
#include "common/xmalloc.h"

/*
 * Programs never run from a sandbox, wherever they are (R-M1): the
 * keychain's command-line door, AppleScript (which drives other apps
 * outside the sandbox), screen capture, and launchctl, which would start
 * a job outside it.  After the grants, so that no grant reopens them.
 */
static char *const dangerous[] = {
	"/usr/bin/security", "/usr/bin/osascript", "/usr/sbin/screencapture",
	"/bin/launchctl", "/usr/bin/open", NULL,
};

/* $TMPDIR, in both spellings, as an SBPL string. */
#define DARWIN_TMPDIR	"\"^/(private/)?var/folders/[^/]+/[^/]+/T/\""

struct sbuf {
	char	*s;
	size_t	 len, cap;
};

static void
sb_putn(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xreallocarray(b->s, b->cap, 1);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void
sb_put(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

/* An SBPL (TinyScheme) string literal: quote, backslash and every byte
 * below 0x20 or DEL escaped; UTF-8 passes as it is. */
static void
sb_str(struct sbuf *b, const char *s)
{
	char	hex[8];

	sb_put(b, "\"");
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			hex[0] = '\\';
			hex[1] = (char)c;
			sb_putn(b, hex, 2);
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(hex, sizeof(hex), "\\x%02x", c);
			sb_put(b, hex);
		} else
			sb_putn(b, (const char *)&c, 1);
	}
	sb_put(b, "\"");
}

/*
 * The other spelling of a path under a /private alias, or NULL.  In any
 * case of its letters: a Mac's file system is case-insensitive, so
 * /pRivate/etc is /private/etc, and /etc its twin.
 */
static char *
other_spelling(const char *p)
{
	static const char *const alias[] = { "/tmp", "/var", "/etc" };
	char	*o;
	size_t	 i, n;

	for (i = 0; i < sizeof(alias) / sizeof(alias[0]); i++) {
		n = strlen(alias[i]);
		if (strncasecmp(p, alias[i], n) == 0 &&
		    (p[n] == '/' || p[n] == '\0')) {
			xasprintf(&o, "/private%s", p);
			return o;
		}
		if (strncasecmp(p, "/private", 8) == 0 &&
		    strncasecmp(p + 8, alias[i], n) == 0 &&
		    (p[8 + n] == '/' || p[8 + n] == '\0'))
			return xstrdup(p + 8);
	}
	return NULL;
}

/* The absolute paths of v in both spellings, each once. */
static char **
spelt(char **out, char *const *v)
{
	char	*o;
	size_t	 i;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		if (v[i][0] != '/')
			continue;
		if (!strv_in(out, v[i]))
			out = strv_add(out, v[i]);
		if ((o = other_spelling(v[i])) != NULL) {
			if (!strv_in(out, o))
				out = strv_add(out, o);
			free(o);
		}
	}
	return out;
}

/* One rule: "(verb op (kind "p") ...)" over paths; nothing when empty,
 * since a rule with no filter would apply to every path. */
static void
rule_paths(struct sbuf *b, const char *head, const char *kind,
    char *const *v)
{
	size_t	i;

	if (v == NULL || v[0] == NULL)
		return;
	sb_put(b, "(");
	sb_put(b, head);
	for (i = 0; v[i] != NULL; i++) {
		sb_put(b, "\n    (");
		sb_put(b, kind);
		sb_put(b, " ");
		sb_str(b, v[i]);
		sb_put(b, ")");
	}
	sb_put(b, ")\n");
}

/* One byte as a regex matching it alone, letters in either case. */
static void
re_byte(struct sbuf *b, unsigned char c)
{
	char	cc[6];

	if (isascii(c) && isalpha(c)) {
		snprintf(cc, sizeof(cc), "[%c%c]", tolower(c), toupper(c));
		sb_put(b, cc);
	} else if (c != '\0' && strchr(".[]()*+?{}|^$\\", c) != NULL) {
		cc[0] = '\\';
		cc[1] = (char)c;
		sb_putn(b, cc, 2);
	} else
		sb_putn(b, (const char *)&c, 1);
}

static void
set_add(unsigned char *set, unsigned char c)
{
	set[c >> 3] |= (unsigned char)(1U << (c & 7));
	if (isascii(c) && isalpha(c)) {
		c = (unsigned char)(islower(c) ? toupper(c) : tolower(c));
		set[c >> 3] |= (unsigned char)(1U << (c & 7));
	}
}

static int
set_has(const unsigned char *set, unsigned char c)
{
	return (set[c >> 3] & (1U << (c & 7))) != 0;
}

/*
 * A bracket expression at g ("[...]", n bytes), as fnmatch() reads it
 * on Linux (namerule.c): its length, or 0 when it is none ('[' is then
 * itself).  set gets its bytes in both cases; *plain is 0 when it holds
 * what is rendered here as any byte instead (a class name, an escape, a
 * byte above 0x7f, an odd range), which only widens a deny.
 */
static size_t
glob_class(const char *g, size_t n, unsigned char *set, int *neg,
    int *plain)
{
	size_t		 i = 1, start;
	unsigned char	 c, z;
	const char	*e;
	char		 end[2];

	memset(set, 0, 32);
	*neg = 0;
	*plain = 1;
	if (i < n && (g[i] == '!' || g[i] == '^')) {
		*neg = 1;
		i++;
	}
	for (start = i; i < n; i++) {
		c = (unsigned char)g[i];
		if (c == ']' && i > start)
			return i + 1;
		end[0] = i + 1 < n ? g[i + 1] : '\0';
		end[1] = ']';
		if (c == '[' && end[0] != '\0' && strchr(":.=", end[0]) !=
		    NULL && (e = memmem(g + i + 2, n - i - 2, end, 2)) != NULL) {
			*plain = 0;
			i = (size_t)(e - g) + 1;
		} else if (c == '\\' || c == '[' || c >= 0x80 || c < 0x20) {
			*plain = 0;
			if (c == '\\')
				i++;
		} else if (i + 2 < n && g[i + 1] == '-' && g[i + 2] != ']') {
			z = (unsigned char)g[i + 2];
			if (z < c || z >= 0x7f || z == '\\' || z == '[')
				*plain = 0;
			for (; c <= z && c < 0x80; c++)
				set_add(set, c);
			i += 2;
		} else
			set_add(set, c);
	}
	return 0;
}

/* The bytes of a set as a bracket expression's body: ']' first and '-'
 * last, where POSIX takes them as themselves. */
static void
set_body(struct sbuf *b, const unsigned char *set)
{
	unsigned char	c;

	if (set_has(set, ']'))
		sb_put(b, "]");
	for (c = 0x20; c < 0x7f; c++)
		if (c != ']' && c != '-' && c != '/' && set_has(set, c))
			sb_putn(b, (const char *)&c, 1);
	if (set_has(set, '-'))
		sb_put(b, "-");
}

/* How many bytes the set holds, and (when one letter in both cases or
 * one byte) that byte in *only. */
static int
set_single(const unsigned char *set, unsigned char *only)
{
	unsigned int	c, k = 0;

	for (c = 0; c < 256; c++)
		if (set_has(set, (unsigned char)c)) {
			if (k == 0 || (isascii(c) && isalpha(c) &&
			    tolower(c) == tolower(*only)))
				*only = k == 0 ? (unsigned char)c : *only;
			else
				return 0;
			k++;
		}
	return k > 0;
}

/*
 * One glob component (n bytes at g) into b as a regex (b may be NULL):
 * '*' and '?' stay inside the component, a bracket expression is a set,
 * a backslash makes the next byte itself, letters match either case,
 * everything else is literal; "**" is any path.  Returns 1 when the
 * component names one name (no wildcard), whose bytes go to lit.
 */
static int
glob_part(struct sbuf *b, struct sbuf *lit, const char *g, size_t n)
{
	unsigned char	 set[32], c;
	size_t		 i, k;
	int		 neg, plain, literal = 1;

	if (n == 2 && g[0] == '*' && g[1] == '*') {
		if (b != NULL)
			sb_put(b, ".*");
		return 0;
	}
	for (i = 0; i < n; i++) {
		c = (unsigned char)g[i];
		if (c == '*' || c == '?') {
			if (b != NULL)
				sb_put(b, c == '*' ? "[^/]*" : "[^/]");
			literal = 0;
			continue;
		}
		if (c == '[' && (k = glob_class(g + i, n - i, set, &neg,
		    &plain)) > 0) {
			i += k - 1;
			if (plain && !neg && set_single(set, &c))
				goto one;
			literal = 0;
			if (b == NULL)
				continue;
			if (!plain)
				sb_put(b, "[^/]");
			else {
				sb_put(b, neg ? "[^/" : "[");
				set_body(b, set);
				sb_put(b, "]");
			}
			continue;
		}
		if (c == '\\' && i + 1 < n)
			c = (unsigned char)g[++i];
one:
		if (b != NULL)
			re_byte(b, c);
		if (lit != NULL)
			sb_putn(lit, (const char *)&c, 1);
	}
	return literal;
}

char *
sbpl_glob_regex(const char *glob)
{
	struct sbuf	b = { NULL, 0, 0 };
	const char	*s, *e;
	int		dstar = 0;

	sb_put(&b, "");
	for (s = glob; *s != '\0'; s = *e == '/' ? e + 1 : e) {
		e = strchrnul(s, '/');
		if (s != glob && !dstar)
			sb_put(&b, "/");
		/* A "**" before another component is zero or more
		 * directories, as on Linux (namerule.c): a/ then (.* /)? */
		dstar = e - s == 2 && s[0] == '*' && s[1] == '*' && *e == '/';
		if (dstar)
			sb_put(&b, "(.*/)?");
		else
			(void)glob_part(&b, NULL, s, (size_t)(e - s));
	}
	return b.s;
}

/*
 * The literal directories an absolute glob starts with ("/a/b" of
 * "/a/b/ *.key"), unescaped; the whole path when no component is a
 * pattern.  *first is 1 when the first component already is one.
 */
static char *
glob_prefix(const char *glob, int *first)
{
	struct sbuf	 lit = { NULL, 0, 0 };
	const char	*s, *e;
	size_t		 keep = 0;

	sb_put(&lit, "");
	*first = 0;
	for (s = glob + 1; ; s = e + 1) {
		e = strchrnul(s, '/');
		if (e == s && *e == '\0')
			break;
		sb_put(&lit, "/");
		if (!glob_part(NULL, &lit, s, (size_t)(e - s))) {
			*first = s == glob + 1;
			lit.len = keep;
			lit.s[keep] = '\0';
			break;
		}
		keep = lit.len;
		if (*e == '\0')
			break;
	}
	if (keep == 0)
		sb_put(&lit, "/");
	return lit.s;
}

/*
 * An absolute glob in the spellings the kernel may show its matches in:
 * itself, and its /private twin (/tmp, /private/tmp), or, when its
 * first component is a pattern (which may match tmp), the glob beneath
 * /private too.  Returns the twin or NULL.
 */
static char *
glob_twin(const char *glob)
{
	char	*o, *p;
	int	 first;

	if ((o = other_spelling(glob)) != NULL)
		return o;
	p = glob_prefix(glob, &first);
	free(p);
	if (first)
		xasprintf(&o, "/private%s", glob);
	return o;
}

/* A rule per kind of filename rule: anchored after a "/", so that
 * "*.key" never matches a directory's middle. */
static void
rule_regex(struct sbuf *b, char *const *v, const char *tail, int *open,
    const char *head)
{
	char	*r, *full, *g[2];
	size_t	 i, j;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		if (v[i][0] == '\0')
			continue;
		/* An absolute glob in both spellings (/tmp, /private/tmp). */
		g[0] = v[i];
		g[1] = v[i][0] == '/' ? glob_twin(v[i]) : NULL;
		for (j = 0; j < 2 && g[j] != NULL; j++) {
			r = sbpl_glob_regex(g[j][0] == '/' ? g[j] + 1 : g[j]);
			xasprintf(&full, "%s%s%s", g[j][0] == '/' ? "^/" :
			    "/", r, tail);
			if (!*open) {
				sb_put(b, "(");
				sb_put(b, head);
				*open = 1;
			}
			sb_put(b, "\n    (regex ");
			sb_str(b, full);
			sb_put(b, ")");
			free(full);
			free(r);
		}
		free(g[1]);
	}
}

/*
 * Each path of v (in both spellings already) as a regex of either case:
 * APFS is case-insensitive by default, and a protected path that does
 * not exist yet could be created as .BASHRC, a name a literal or
 * subpath filter does not match.
 */
static void
rule_nocase(struct sbuf *b, char *const *v, int *open, const char *head)
{
	struct sbuf	 r;
	const char	*p;
	size_t		 i;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		if (v[i][0] != '/' || v[i][1] == '\0')
			continue;
		r.s = NULL;
		r.len = r.cap = 0;
		sb_put(&r, "^");
		for (p = v[i]; *p != '\0'; p++)
			re_byte(&r, (unsigned char)*p);
		sb_put(&r, "(/|$)");
		if (!*open) {
			sb_put(b, "(");
			sb_put(b, head);
			*open = 1;
		}
		sb_put(b, "\n    (regex ");
		sb_str(b, r.s);
		sb_put(b, ")");
		free(r.s);
	}
}

/*
 * The literal directories in front of each absolute glob (the whole
 * path when it has no pattern), in each spelling its regex has:
 * renaming one of them would carry what the regex protects out of its
 * reach and back.
 */
static char **
glob_prefixes(char **out, char *const *v)
{
	char	*g[2], *a;
	size_t	 i, j;
	int	 first;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		if (v[i][0] != '/')
			continue;
		g[0] = v[i];
		g[1] = glob_twin(v[i]);
		for (j = 0; j < 2 && g[j] != NULL; j++) {
			a = glob_prefix(g[j], &first);
			if (a[1] != '\0') {
				char *const one[] = { a, NULL };

				out = spelt(out, one);
			}
			free(a);
		}
		free(g[1]);
	}
	return out;
}

/* Every denied path and each of its ancestors but "/". */
static char **
ancestors(char **out, char *const *v)
{
	char	*a, *s;
	size_t	 i;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		a = xstrdup(v[i]);
		for (;;) {
			if (a[0] == '/' && a[1] != '\0' && !strv_in(out, a))
				out = strv_add(out, a);
			if ((s = strrchr(a, '/')) == NULL || s == a)
				break;
			*s = '\0';
		}
		free(a);
	}
	return out;
}

char *
sbpl_generate(const struct sbpl_plan *pl)
{
	struct sbuf	 b = { NULL, 0, 0 };
	char		**priv = spelt(NULL, pl->read_private);
	char		**ropen = spelt(NULL, pl->read_allow);
	char		**secret = spelt(NULL, pl->read_deny);
	char		**wr = spelt(NULL, pl->write_allow);
	char		**home = spelt(NULL, pl->home_deny);
	char		**carve = spelt(NULL, pl->carve);
	char		**hard = spelt(NULL, pl->write_deny);
	char		**grant = spelt(NULL, pl->exec_grants);
	char		**sock = spelt(NULL, pl->unix_sockets);
	char		**anc = NULL, **resolver, **globs;
	char		*const dns[] = { "/var/run/mDNSResponder", NULL };
	char		 port[48];
	size_t		 i;
	int		 open = 0;

	resolver = spelt(NULL, dns);
	hard = spelt(hard, secret);
	sb_put(&b, "(version 1)\n(allow default)\n");
	if (priv != NULL && priv[0] != NULL) {
		sb_put(&b, ";; the home: only what the run binds there\n");
		rule_paths(&b, "deny file-read-data", "subpath", priv);
		rule_paths(&b, "allow file-read-data", "subpath", ropen);
	}
	sb_put(&b, ";; the secret set: not readable\n");
	rule_paths(&b, "deny file-read*", "subpath", secret);
	sb_put(&b, ";; writes only beneath the writable roots\n"
	    "(deny file-write*)\n");
	rule_paths(&b, "allow file-write*", "subpath", wr);
	/*
	 * The user's temporary directory, $TMPDIR (/var/folders/xx/yyy/T),
	 * as /tmp is: compilers and package managers write there.  Not its
	 * sibling C, the user's caches, which the host's own tools load
	 * from (clang's modules, ...).  Unix permissions keep other users'
	 * directories out, whatever the regex matches.
	 */
	sb_put(&b, "(allow file-write*\n    (regex " DARWIN_TMPDIR "))\n");
	/* The devices every shell writes (Linux gives the sandbox its own
	 * /dev): 2>/dev/null, the terminal, a new pty. */
	sb_put(&b, "(allow file-write*\n"
	    "    (literal \"/dev/null\")\n"
	    "    (literal \"/dev/zero\")\n"
	    "    (literal \"/dev/tty\")\n"
	    "    (literal \"/dev/ptmx\")\n"
	    "    (regex \"^/dev/ttys[0-9]+$\")\n"
	    "    (regex \"^/dev/fd/[0-9]+$\"))\n");
	/*
	 * Protected paths are not written, nor given a second name by a
	 * hard link (file-link names the file linked) through which they
	 * would be.
	 */
	sb_put(&b, ";; protected names in a home, then its allowlist\n");
	rule_paths(&b, "deny file-write* file-link", "subpath", home);
	rule_nocase(&b, home, &open, "deny file-write* file-link");
	rule_regex(&b, pl->home_rules, "(/|$)", &open,
	    "deny file-write* file-link");
	if (open)
		sb_put(&b, ")\n");
	open = 0;
	rule_paths(&b, "allow file-write*", "subpath", carve);
	sb_put(&b, ";; hard denies, even inside the writable roots\n");
	rule_paths(&b, "deny file-write* file-link", "subpath", hard);
	rule_nocase(&b, hard, &open, "deny file-write* file-link");
	rule_regex(&b, pl->name_rules, "$", &open,
	    "deny file-write* file-link");
	rule_regex(&b, pl->path_rules, "$", &open,
	    "deny file-write* file-link");
	rule_regex(&b, pl->tree_rules, "(/|$)", &open,
	    "deny file-write* file-link");
	if (open)
		sb_put(&b, ")\n");
	sb_put(&b, ";; no rename or unlink of a denied path or an ancestor\n");
	anc = ancestors(anc, priv);
	anc = ancestors(anc, secret);
	anc = ancestors(anc, home);
	anc = ancestors(anc, hard);
	globs = glob_prefixes(NULL, pl->tree_rules);
	globs = glob_prefixes(globs, pl->path_rules);
	globs = glob_prefixes(globs, pl->home_rules);
	globs = glob_prefixes(globs, pl->name_rules);
	anc = ancestors(anc, globs);
	strv_free(globs);
	rule_paths(&b, "deny file-write-unlink", "literal", anc);
	/*
	 * No repository made or moved into place: the hooks and config
	 * rules are regexes on names, which a directory prepared under
	 * another name and renamed to sub/.git would carry its files past.
	 * So no `.git` is created (Seatbelt checks a rename's new name as
	 * a creation) or removed, in any case; Linux lets git make them
	 * and judges their content instead (the git-state allowlist).
	 */
	sb_put(&b, ";; no .git made, moved in or removed\n"
	    "(deny file-write-create file-write-unlink\n"
	    "    (regex \"/\\\\.[gG][iI][tT]$\"))\n");
	/* Linux's own pid namespace: the run signals its own processes
	 * only, never the user's others. */
	sb_put(&b, ";; signals within the sandbox only\n(deny signal)\n"
	    "(allow signal (target same-sandbox))\n");
	sb_put(&b, ";; no exec of what the run could have written\n");
	rule_paths(&b, "deny process-exec", "subpath", wr);
	rule_paths(&b, "deny process-exec", "subpath", carve);
	sb_put(&b, "(deny process-exec\n    (regex " DARWIN_TMPDIR "))\n");
	rule_paths(&b, "allow process-exec", "subpath", grant);
	rule_paths(&b, "deny process-exec", "literal", dangerous);
	/*
	 * "localhost" is 127.0.0.1 and ::1 to Seatbelt; neither the tcp
	 * nor the ip form matches the IPv4-mapped ::ffff:127.0.0.1 that a
	 * dual-stack socket connects from, so such a client is refused
	 * (closed, not open) and must use an AF_INET socket.
	 */
	sb_put(&b, ";; network: the loopback proxies, the resolver, named "
	    "sockets\n(deny network*)\n");
	if (pl->nports > 0) {
		sb_put(&b, "(allow network-outbound");
		for (i = 0; i < pl->nports; i++) {
			snprintf(port, sizeof(port), "localhost:%u",
			    pl->ports[i]);
			sb_put(&b, "\n    (remote tcp ");
			sb_str(&b, port);
			sb_put(&b, ")");
		}
		sb_put(&b, ")\n");
	}
	rule_paths(&b, "allow network-outbound", "literal", resolver);
	if (sock != NULL && sock[0] != NULL) {
		sb_put(&b, "(allow network-outbound");
		for (i = 0; sock[i] != NULL; i++) {
			sb_put(&b, "\n    (remote unix-socket (path-literal ");
			sb_str(&b, sock[i]);
			sb_put(&b, "))");
		}
		sb_put(&b, ")\n");
	}
	strv_free(priv);
	strv_free(ropen);
	strv_free(secret);
	strv_free(wr);
	strv_free(home);
	strv_free(carve);
	strv_free(hard);
	strv_free(grant);
	strv_free(sock);
	strv_free(anc);
	strv_free(resolver);
	return b.s;
}
