// SPDX-License-Identifier: ISC
/*
 * Method and path rules on a TLS-terminated host (inspect.h).
 */
#include <stdio.h>
#include <string.h>

#include "common/inspect.h"
#include "common/xmalloc.h"

/* An HTTP token (RFC 9110 tchar). */
static int
tchar(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || (c != '\0' &&
	    strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/*
 * The path part of a target (up to '?'), len bytes, in its canonical
 * spelling: NULL, or why it is not.
 */
static const char *
path_noncanon(const char *p, size_t len)
{
	const char *end;
	size_t	i, seg;
	int	hi, lo, c;

	if (len == 0 || p[0] != '/')
		return "the path does not start with /";
	for (i = 0; i < len; i++) {
		c = (unsigned char)p[i];
		if (c <= ' ' || c >= 0x7f)
			return "a control or non-ASCII byte in the path";
		if (c == '#')
			return "a fragment in the request target";
		if (c == '\\')
			return "a backslash in the path";
		if (c != '%')
			continue;
		if (i + 2 >= len)
			return "a truncated percent-escape in the path";
		if ((hi = hex_digit((unsigned char)p[i + 1])) == -1 ||
		    (lo = hex_digit((unsigned char)p[i + 2])) == -1)
			return "a malformed percent-escape in the path";
		c = hi * 16 + lo;
		/* A server decodes these to what a rule would read
		 * differently: '/', '.', '\', '%', unreserved, controls. */
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~' || c == '/' || c == '\\' ||
		    c == '%' || c < 0x20 || c == 0x7f)
			return "a percent-escape of a character that needs "
			    "none (or of /, \\, %) in the path";
		i += 2;
	}
	/*
	 * Segments: none empty (//), none "." or "..", and none that is
	 * one of those before a ';': servers that strip path parameters
	 * before they resolve dot segments (Tomcat, Spring, Jetty) read
	 * /v2/..;/admin as /admin.
	 */
	for (i = 1, seg = 1; i <= len; i++) {
		if (i < len && p[i] != '/')
			continue;
		if (i == seg && i < len)
			return "an empty segment (//) in the path";
		if ((end = memchr(p + seg, ';', i - seg)) == NULL)
			end = p + i;
		if ((end - (p + seg) == 1 && p[seg] == '.') ||
		    (end - (p + seg) == 2 && p[seg] == '.' &&
		    p[seg + 1] == '.'))
			return "a dot segment (. or .., or one before ;) in "
			    "the path";
		seg = i + 1;
	}
	return NULL;
}

int
inspect_rule_parse(const char *text, struct inspect_rule *r,
    const char **why)
{
	const char	*p = text, *m, *path;
	size_t		 n;

	memset(r, 0, sizeof(*r));
	if (strncmp(p, "allow ", 6) == 0)
		p += 6;
	else if (strncmp(p, "deny ", 5) == 0) {
		r->deny = 1;
		p += 5;
	} else {
		*why = "a rule starts with allow or deny";
		return -1;
	}
	for (m = p; *p != '\0' && *p != ' '; p++)
		;
	n = (size_t)(p - m);
	if (n == 0 || n >= sizeof(r->method)) {
		*why = "no method (or one too long)";
		return -1;
	}
	memcpy(r->method, m, n);
	if (strcmp(r->method, "*") != 0)
		for (m = r->method; *m != '\0'; m++)
			if (!tchar((unsigned char)*m) || *m == '*') {
				*why = "the method is not an HTTP token "
				    "or *";
				return -1;
			}
	if (*p == '\0') {
		snprintf(r->path, sizeof(r->path), "/");
		return 0;
	}
	path = p + 1;
	if ((n = strlen(path)) >= sizeof(r->path)) {
		*why = "the path is too long";
		return -1;
	}
	if (strchr(path, '?') != NULL || (*why = path_noncanon(path, n)) !=
	    NULL) {
		if (strchr(path, '?') != NULL)
			*why = "a rule's path has no query";
		return -1;
	}
	memcpy(r->path, path, n + 1);
	return 0;
}

int
inspect_rules_parse(const char *text, struct inspect_rule *r, size_t max,
    const char **why)
{
	char		 line[INSPECT_RULE_MAX + 40];
	const char	*nl;
	size_t		 n, k = 0;

	while (*text != '\0') {
		if ((nl = strchr(text, '\n')) == NULL)
			nl = text + strlen(text);
		if ((n = (size_t)(nl - text)) >= sizeof(line)) {
			*why = "a rule is too long";
			return -1;
		}
		memcpy(line, text, n);
		line[n] = '\0';
		text = *nl == '\n' ? nl + 1 : nl;
		if (n == 0)
			continue;
		if (k == max) {
			*why = "too many rules";
			return -1;
		}
		if (inspect_rule_parse(line, &r[k], why) == -1)
			return -1;
		k++;
	}
	return (int)k;
}

/* Does rule path rp cover path p[0..len) (whole segments)? */
static int
path_under(const char *rp, const char *p, size_t len)
{
	size_t	n = strlen(rp);

	if (n > len || memcmp(rp, p, n) != 0)
		return 0;
	return n == len || rp[n - 1] == '/' || p[n] == '/';
}

static int
rule_matches(const struct inspect_rule *r, const char *method,
    const char *p, size_t len)
{
	if (strcmp(r->method, "*") != 0 && strcmp(r->method, method) != 0)
		return 0;
	return path_under(r->path, p, len);
}

int
inspect_judge(const struct inspect_rule *r, size_t n, const char *method,
    const char *target, char *why, size_t len)
{
	const char	*bad, *q;
	size_t		 plen, i;
	int		 nallow = 0;

	/* untrusted: method and target are from the sandbox */
	q = strchr(target, '?');
	plen = q != NULL ? (size_t)(q - target) : strlen(target);
	if (strchr(target, '#') != NULL)
		bad = "a fragment in the request target";
	else
		bad = path_noncanon(target, plen);
	if (bad != NULL) {
		snprintf(why, len, "request path not judged: %s", bad);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (r[i].deny && rule_matches(&r[i], method, target, plen)) {
			snprintf(why, len, "%s %.*s refused by the rule "
			    "\"deny %s %s\"", method, (int)plen, target,
			    r[i].method, r[i].path);
			return -1;
		}
	for (i = 0; i < n; i++) {
		if (r[i].deny)
			continue;
		nallow++;
		if (rule_matches(&r[i], method, target, plen))
			return 0;
	}
	if (nallow == 0)
		return 0;
	snprintf(why, len, "%s %.*s matches no allow rule of the host",
	    method, (int)plen, target);
	return -1;
}
