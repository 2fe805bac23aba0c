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

/* The other spelling of a path under a /private alias, or NULL. */
static char *
other_spelling(const char *p)
{
	static const char *const alias[] = { "/tmp", "/var", "/etc" };
	char	*o;
	size_t	 i, n;

	for (i = 0; i < sizeof(alias) / sizeof(alias[0]); i++) {
		n = strlen(alias[i]);
		if (strncmp(p, alias[i], n) == 0 &&
		    (p[n] == '/' || p[n] == '\0')) {
			xasprintf(&o, "/private%s", p);
			return o;
		}
		if (strncmp(p, "/private", 8) == 0 &&
		    strncmp(p + 8, alias[i], n) == 0 &&
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

/* One glob component into b as a regex: * and ? stay inside the
 * component, letters match either case, everything else is literal. */
static void
glob_part(struct sbuf *b, const char *g, size_t n)
{
	char	 cc[6];
	size_t	 i;

	if (n == 2 && g[0] == '*' && g[1] == '*') {
		sb_put(b, ".*");
		return;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)g[i];

		if (c == '*')
			sb_put(b, "[^/]*");
		else if (c == '?')
			sb_put(b, "[^/]");
		else if (isascii(c) && isalpha(c)) {
			snprintf(cc, sizeof(cc), "[%c%c", tolower(c),
			    toupper(c));
			sb_put(b, cc);
			sb_put(b, "]");
		} else if (strchr(".[]()+{}|^$\\", c) != NULL && c != '\0') {
			cc[0] = '\\';
			cc[1] = (char)c;
			sb_putn(b, cc, 2);
		} else
			sb_putn(b, (const char *)&c, 1);
	}
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
			glob_part(&b, s, (size_t)(e - s));
	}
	return b.s;
}

/* A rule per kind of filename rule: anchored after a "/", so that
 * "*.key" never matches a directory's middle. */
static void
rule_regex(struct sbuf *b, char *const *v, const char *tail, int *open)
{
	char	*r, *full;
	size_t	 i;

	char	*g[2];
	size_t	 j;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		if (v[i][0] == '\0')
			continue;
		/* An absolute glob in both spellings (/tmp, /private/tmp). */
		g[0] = v[i];
		g[1] = v[i][0] == '/' ? other_spelling(v[i]) : NULL;
		for (j = 0; j < 2 && g[j] != NULL; j++) {
			r = sbpl_glob_regex(g[j][0] == '/' ? g[j] + 1 : g[j]);
			xasprintf(&full, "%s%s%s", g[j][0] == '/' ? "^/" :
			    "/", r, tail);
			if (!*open) {
				sb_put(b, "(deny file-write*");
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
 * The literal directories in front of each absolute glob, in both
 * spellings: renaming one of them would carry what the regex protects
 * out of its reach and back.
 */
static char **
glob_prefixes(char **out, char *const *v)
{
	char	*a, *s;
	size_t	 i;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		if (v[i][0] != '/' || (s = strpbrk(v[i], "*?[")) == NULL)
			continue;
		a = xstrndup(v[i], (size_t)(s - v[i]));
		if ((s = strrchr(a, '/')) != NULL)
			*s = '\0';
		if (a[0] == '/' && a[1] != '\0') {
			char *const one[] = { a, NULL };

			out = spelt(out, one);
		}
		free(a);
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
	sb_put(&b, ";; the secret set: not readable\n");
	rule_paths(&b, "deny file-read*", "subpath", secret);
	sb_put(&b, ";; writes only beneath the writable roots\n"
	    "(deny file-write*)\n");
	rule_paths(&b, "allow file-write*", "subpath", wr);
	/* The devices every shell writes (Linux gives the sandbox its own
	 * /dev): 2>/dev/null, the terminal, a new pty. */
	sb_put(&b, "(allow file-write*\n"
	    "    (literal \"/dev/null\")\n"
	    "    (literal \"/dev/zero\")\n"
	    "    (literal \"/dev/tty\")\n"
	    "    (literal \"/dev/ptmx\")\n"
	    "    (regex \"^/dev/ttys[0-9]+$\")\n"
	    "    (regex \"^/dev/fd/[0-9]+$\"))\n");
	sb_put(&b, ";; protected names in a home, then its allowlist\n");
	rule_paths(&b, "deny file-write*", "subpath", home);
	rule_regex(&b, pl->home_rules, "(/|$)", &open);
	if (open)
		sb_put(&b, ")\n");
	open = 0;
	rule_paths(&b, "allow file-write*", "subpath", carve);
	sb_put(&b, ";; hard denies, even inside the writable roots\n");
	rule_paths(&b, "deny file-write*", "subpath", hard);
	rule_regex(&b, pl->name_rules, "$", &open);
	rule_regex(&b, pl->path_rules, "$", &open);
	rule_regex(&b, pl->tree_rules, "(/|$)", &open);
	if (open)
		sb_put(&b, ")\n");
	sb_put(&b, ";; no rename or unlink of a denied path or an ancestor\n");
	anc = ancestors(anc, secret);
	anc = ancestors(anc, home);
	anc = ancestors(anc, hard);
	globs = glob_prefixes(NULL, pl->tree_rules);
	globs = glob_prefixes(globs, pl->path_rules);
	globs = glob_prefixes(globs, pl->home_rules);
	anc = ancestors(anc, globs);
	strv_free(globs);
	rule_paths(&b, "deny file-write-unlink", "literal", anc);
	sb_put(&b, ";; no exec of what the run could have written\n");
	rule_paths(&b, "deny process-exec", "subpath", wr);
	rule_paths(&b, "deny process-exec", "subpath", carve);
	rule_paths(&b, "allow process-exec", "subpath", grant);
	rule_paths(&b, "deny process-exec", "literal", dangerous);
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
