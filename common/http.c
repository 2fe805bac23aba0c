// SPDX-License-Identifier: ISC
/*
 * Strict HTTP/1.x head parsing, authority parsing and the chunked decoder
 * (see common/http.h for the contract).  Every byte handled here is
 * untrusted: it comes from the sandbox or from a remote server.  The code
 * never guesses: whatever RFC 9112 does not allow, or allows only for
 * compatibility with broken peers (obs-fold, bare LF, lists of
 * Content-Length values), is an error.
 */
#include <arpa/inet.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/http.h"
#include "common/xmalloc.h"

#define HTTP_CL_MAX	(1ULL << 62)	/* larger: reject */

/* tchar of RFC 9110 section 5.6.2 */
static int
is_tchar(unsigned char c)
{
	if (isalnum(c) && c < 0x80)
		return 1;
	return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* field-vchar, SP and HTAB; obs-text is tolerated in values only */
static int
is_field_char(unsigned char c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

enum http_scan
http_head_scan(const void *vbuf, size_t len, size_t *headlen)
{
	const unsigned char *b = vbuf;
	size_t	 i;

	/* untrusted: bytes from a peer, possibly a partial head */
	for (i = 0; i < len; i++) {
		if (i >= HTTP_HEAD_MAX)
			return HTTP_SCAN_ERROR;
		if (b[i] != '\n')
			continue;
		if (i == 0 || b[i - 1] != '\r')
			return HTTP_SCAN_ERROR;		/* bare LF */
		if (i == 1)
			return HTTP_SCAN_ERROR;	/* empty first line */
		if (i >= 3 && b[i - 2] == '\n' && b[i - 3] == '\r') {
			*headlen = i + 1;
			return HTTP_SCAN_DONE;
		}
	}
	if (len >= HTTP_HEAD_MAX)
		return HTTP_SCAN_ERROR;
	return HTTP_SCAN_MORE;
}

/*
 * Split a head copied into buf (NUL-terminated at len) into lines, each
 * terminated by NUL where its CRLF was.  The head must end with an empty
 * line; it is not counted.
 */
static int
split_lines(char *buf, size_t len, char **lines, size_t maxlines,
    size_t *nlines, const char **why)
{
	size_t	 i, start = 0, n = 0;

	if (len < 4 || memcmp(buf + len - 4, "\r\n\r\n", 4) != 0) {
		*why = "incomplete head";
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = buf[i];

		if (c == '\0') {
			*why = "NUL in head";
			return -1;
		}
		if (c == '\n') {
			*why = "bare LF";
			return -1;
		}
		if (c != '\r')
			continue;
		if (i + 1 >= len || buf[i + 1] != '\n') {
			*why = "CR without LF";
			return -1;
		}
		buf[i] = '\0';
		if (i == start) {
			/* the empty line: must be the end of the head */
			if (i + 2 != len) {
				*why = "data after end of head";
				return -1;
			}
			*nlines = n;
			return 0;
		}
		if (n == maxlines) {
			*why = "too many header fields";
			return -1;
		}
		lines[n++] = buf + start;
		i++;
		start = i + 1;
	}
	*why = "incomplete head";
	return -1;
}

/* Parse "name: value" in place; rejects obs-fold and space before ':'. */
static int
parse_field(char *line, struct http_header *h, const char **why)
{
	char	*p = line, *v, *end;

	if (*p == ' ' || *p == '\t') {
		*why = "obs-fold";
		return -1;
	}
	while (is_tchar((unsigned char)*p))
		p++;
	if (p == line || *p != ':') {
		*why = *p == ' ' || *p == '\t' ? "space before colon" :
		    "invalid header name";
		return -1;
	}
	*p++ = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	v = p;
	for (; *p != '\0'; p++) {
		if (!is_field_char((unsigned char)*p)) {
			*why = "control character in header value";
			return -1;
		}
	}
	end = p;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*end = '\0';
	h->name = line;
	h->value = v;
	return 0;
}

const char *
http_header_get(const struct http_header *h, size_t n, const char *name)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcasecmp(h[i].name, name) == 0)
			return h[i].value;
	return NULL;
}

static size_t
header_count(const struct http_header *h, size_t n, const char *name)
{
	size_t	i, c = 0;

	for (i = 0; i < n; i++)
		if (strcasecmp(h[i].name, name) == 0)
			c++;
	return c;
}

int
http_list_has(const char *value, const char *token)
{
	size_t	 tl = strlen(token), n;
	const char *p = value, *e;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		e = p;
		while (*e != '\0' && *e != ',')
			e++;
		n = e - p;
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n == tl && strncasecmp(p, token, tl) == 0)
			return 1;
		p = e;
	}
	return 0;
}

static int
parse_version(const char *s, int *minor)
{
	if (strncmp(s, "HTTP/1.", 7) != 0 || (s[7] != '0' && s[7] != '1'))
		return -1;
	*minor = s[7] - '0';
	return 0;
}

static int
parse_content_length(const char *v, uint64_t *out)
{
	uint64_t n = 0;
	size_t	 i;

	if (*v == '\0')
		return -1;
	for (i = 0; v[i] != '\0'; i++) {
		if (v[i] < '0' || v[i] > '9' || i >= 19)
			return -1;
		n = n * 10 + (uint64_t)(v[i] - '0');
	}
	if (n > HTTP_CL_MAX)
		return -1;
	*out = n;
	return 0;
}

/*
 * Content-Length and Transfer-Encoding, common to requests and responses.
 * Returns 0 with *te_chunked, *te_other, *has_cl set, or -1.
 */
static int
parse_framing(const struct http_header *h, size_t n, int *has_cl,
    uint64_t *cl, int *has_te, int *te_chunked, const char **why)
{
	const char *v;
	size_t	 ncl = header_count(h, n, "Content-Length");
	size_t	 nte = header_count(h, n, "Transfer-Encoding");

	*has_cl = *has_te = *te_chunked = 0;
	if (ncl > 1) {
		*why = "duplicate Content-Length";
		return -1;
	}
	if (nte > 1) {
		*why = "duplicate Transfer-Encoding";
		return -1;
	}
	if (ncl == 1 && nte == 1) {
		*why = "both Content-Length and Transfer-Encoding";
		return -1;
	}
	if (ncl == 1) {
		v = http_header_get(h, n, "Content-Length");
		if (parse_content_length(v, cl) == -1) {
			*why = "invalid Content-Length";
			return -1;
		}
		*has_cl = 1;
	}
	if (nte == 1) {
		v = http_header_get(h, n, "Transfer-Encoding");
		*has_te = 1;
		*te_chunked = strcasecmp(v, "chunked") == 0;
	}
	return 0;
}

static int
keep_alive(const struct http_header *h, size_t n, int minor)
{
	const char *c = http_header_get(h, n, "Connection");

	if (header_count(h, n, "Connection") > 1)
		return 0;
	if (minor == 0)
		return c != NULL && http_list_has(c, "keep-alive");
	return c == NULL || !http_list_has(c, "close");
}

/* Strict dotted quad: four decimal parts 0..255, no leading zeros. */
static int
is_dotted_quad(const char *s, size_t len)
{
	size_t	 i, parts = 0, digits = 0;
	unsigned v = 0;

	for (i = 0; i <= len; i++) {
		if (i == len || s[i] == '.') {
			if (digits == 0 || v > 255 || (digits > 1 &&
			    s[i - digits] == '0'))
				return 0;
			parts++;
			digits = 0;
			v = 0;
			continue;
		}
		if (s[i] < '0' || s[i] > '9' || ++digits > 3)
			return 0;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	return parts == 4;
}

/*
 * A last label that looks numeric ("1", "0x7f") makes resolvers treat the
 * whole name as an IPv4 address in some legacy form (inet_aton): only the
 * strict dotted quad is accepted, so that what we match is what we dial.
 */
static int
last_label_numeric(const char *s, size_t len)
{
	size_t	 i, start = 0;

	for (i = 0; i < len; i++)
		if (s[i] == '.')
			start = i + 1;
	s += start;
	len -= start;
	if (len == 0)
		return 0;
	if (len > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < len; i++)
			if (!isxdigit((unsigned char)s[i]))
				return 0;
		return 1;
	}
	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int
check_reg_name(const char *s, size_t len, const char **why)
{
	size_t	 i, label = 0, total = len;

	if (len == 0) {
		*why = "empty host";
		return -1;
	}
	if (s[len - 1] == '.')
		total--;	/* one trailing dot: the root */
	if (total == 0 || total > 253) {
		*why = "host name length";
		return -1;
	}
	for (i = 0; i < total; i++) {
		unsigned char c = s[i];

		if (c == '.') {
			if (label == 0) {
				*why = "empty label in host";
				return -1;
			}
			label = 0;
			continue;
		}
		if (!(c < 0x80 && (isalnum(c) || c == '-' || c == '_'))) {
			*why = "invalid character in host";
			return -1;
		}
		if (++label > 63) {
			*why = "host label too long";
			return -1;
		}
	}
	if (label == 0) {
		*why = "empty label in host";
		return -1;
	}
	/* "10.0.0.1." is not an address to match as one: refuse it */
	if (last_label_numeric(s, total) &&
	    (!is_dotted_quad(s, total) || total != len)) {
		*why = "ambiguous numeric host";
		return -1;
	}
	return 0;
}

int
http_authority_parse(const char *s, size_t len, uint16_t default_port,
    char *host, uint16_t *port, int *is_v6, const char **why)
{
	const char *h, *p = NULL;
	size_t	 hl, pl = 0, i;
	unsigned long v;
	unsigned char a6[16];
	char	 tmp[64];

	/* untrusted: an authority from a request line or a SOCKS request */
	*is_v6 = 0;
	if (memchr(s, '@', len) != NULL) {
		*why = "userinfo in authority";
		return -1;
	}
	if (len > 0 && s[0] == '[') {
		const char *rb = memchr(s, ']', len);

		if (rb == NULL) {
			*why = "unterminated IPv6 literal";
			return -1;
		}
		h = s + 1;
		hl = rb - h;
		if (hl == 0 || hl >= sizeof(tmp)) {
			*why = "invalid IPv6 literal";
			return -1;
		}
		for (i = 0; i < hl; i++) {
			if (!isxdigit((unsigned char)h[i]) && h[i] != ':' &&
			    h[i] != '.') {
				*why = "invalid IPv6 literal";
				return -1;
			}
		}
		memcpy(tmp, h, hl);
		tmp[hl] = '\0';
		if (inet_pton(AF_INET6, tmp, a6) != 1) {
			*why = "invalid IPv6 literal";
			return -1;
		}
		*is_v6 = 1;
		i = rb + 1 - s;
		if (i < len) {
			if (s[i] != ':') {
				*why = "junk after IPv6 literal";
				return -1;
			}
			p = s + i + 1;
			pl = len - i - 1;
		}
	} else {
		const char *colon = memchr(s, ':', len);

		h = s;
		hl = colon != NULL ? (size_t)(colon - s) : len;
		if (colon != NULL) {
			p = colon + 1;
			pl = len - hl - 1;
		}
		if (check_reg_name(h, hl, why) == -1)
			return -1;
	}
	if (hl >= HTTP_HOST_MAX) {
		*why = "host too long";
		return -1;
	}
	for (i = 0; i < hl; i++)
		host[i] = (char)tolower((unsigned char)h[i]);
	host[hl] = '\0';

	if (p == NULL) {
		if (default_port == 0) {
			*why = "port required";
			return -1;
		}
		*port = default_port;
		return 0;
	}
	if (pl == 0 || pl > 5) {
		*why = "invalid port";
		return -1;
	}
	v = 0;
	for (i = 0; i < pl; i++) {
		if (p[i] < '0' || p[i] > '9') {
			*why = "invalid port";
			return -1;
		}
		v = v * 10 + (unsigned long)(p[i] - '0');
	}
	if (v == 0 || v > 65535) {
		*why = "invalid port";
		return -1;
	}
	*port = (uint16_t)v;
	return 0;
}

/*
 * Request target: decide its form and, for absolute form, split scheme,
 * authority and path.  extra is room after the head copy for a path that
 * must be rebuilt ("http://h?q" has path "/?q").
 */
static int
parse_target(struct http_request *r, char *extra, const char **why)
{
	const char *t = r->target, *a, *ae;
	size_t	 i, sl;
	uint16_t defport;

	if (strchr(t, '#') != NULL) {
		*why = "fragment in request target";
		return -1;
	}
	if (strcmp(r->method, "CONNECT") == 0) {
		r->form = HTTP_FORM_AUTHORITY;
		return http_authority_parse(t, strlen(t), 0, r->host,
		    &r->port, &r->host_is_v6, why);
	}
	if (strcmp(t, "*") == 0) {
		if (strcmp(r->method, "OPTIONS") != 0) {
			*why = "asterisk form outside OPTIONS";
			return -1;
		}
		r->form = HTTP_FORM_ASTERISK;
		return 0;
	}
	if (t[0] == '/') {
		r->form = HTTP_FORM_ORIGIN;
		r->path = t;
		return 0;
	}
	/* absolute form: scheme "://" authority path-abempty [ "?" query ] */
	for (sl = 0; isalpha((unsigned char)t[sl]) ||
	    (sl > 0 && (isdigit((unsigned char)t[sl]) || t[sl] == '+' ||
	    t[sl] == '-' || t[sl] == '.')); sl++)
		;
	if (sl == 0 || strncmp(t + sl, "://", 3) != 0) {
		*why = "invalid request target";
		return -1;
	}
	if (sl >= sizeof(r->scheme)) {
		*why = "unsupported scheme";
		return -1;
	}
	for (i = 0; i < sl; i++)
		r->scheme[i] = (char)tolower((unsigned char)t[i]);
	r->scheme[sl] = '\0';
	if (strcmp(r->scheme, "http") == 0)
		defport = 80;
	else if (strcmp(r->scheme, "https") == 0)
		defport = 443;
	else {
		*why = "unsupported scheme";
		return -1;
	}
	a = t + sl + 3;
	ae = a + strcspn(a, "/?");
	if (http_authority_parse(a, ae - a, defport, r->host, &r->port,
	    &r->host_is_v6, why) == -1)
		return -1;
	r->form = HTTP_FORM_ABSOLUTE;
	if (*ae == '/')
		r->path = ae;
	else {
		extra[0] = '/';
		strcpy(extra + 1, ae);
		r->path = extra;
	}
	return 0;
}

static int
is_method_ok(const char *m)
{
	if (*m == '\0')
		return 0;
	for (; *m != '\0'; m++)
		if (!is_tchar((unsigned char)*m))
			return 0;
	return 1;
}

/* Split the head into lines and header fields; shared by both parsers. */
static int
parse_head(const void *buf, size_t len, char **copy, char **first,
    struct http_header **hdrs, size_t *nhdrs, size_t extra,
    const char **why)
{
	char	*lines[HTTP_HEADERS_MAX + 1];
	size_t	 n, i;

	*copy = NULL;
	*hdrs = NULL;
	*nhdrs = 0;
	if (len > HTTP_HEAD_MAX) {
		*why = "head too long";
		return -1;
	}
	*copy = xmalloc(len + 1 + extra);
	memcpy(*copy, buf, len);
	(*copy)[len] = '\0';
	if (split_lines(*copy, len, lines, HTTP_HEADERS_MAX + 1, &n,
	    why) == -1)
		return -1;
	if (n == 0) {
		*why = "empty head";
		return -1;
	}
	*first = lines[0];
	*hdrs = xcalloc(n, sizeof(**hdrs));
	for (i = 1; i < n; i++)
		if (parse_field(lines[i], &(*hdrs)[i - 1], why) == -1)
			return -1;
	*nhdrs = n - 1;
	return 0;
}

int
http_request_parse(const void *buf, size_t len, struct http_request *r,
    const char **why)
{
	char	*line, *sp1, *sp2, *p;
	int	 has_cl, has_te, te_chunked;
	size_t	 nhost;

	/* untrusted: a request head from the sandbox */
	memset(r, 0, sizeof(*r));
	if (parse_head(buf, len, &r->buf, &line, &r->hdrs, &r->nhdrs,
	    len + 2, why) == -1)
		goto fail;
	for (p = line; *p != '\0'; p++) {
		if ((unsigned char)*p <= 0x20 && *p != ' ') {
			*why = "control character in request line";
			goto fail;
		}
		if ((unsigned char)*p >= 0x7f) {
			*why = "non-ASCII in request line";
			goto fail;
		}
	}
	if ((sp1 = strchr(line, ' ')) == NULL ||
	    (sp2 = strchr(sp1 + 1, ' ')) == NULL ||
	    strchr(sp2 + 1, ' ') != NULL) {
		*why = "malformed request line";
		goto fail;
	}
	*sp1 = *sp2 = '\0';
	r->method = line;
	r->target = sp1 + 1;
	if (!is_method_ok(r->method)) {
		*why = "invalid method";
		goto fail;
	}
	if (*r->target == '\0') {
		*why = "empty request target";
		goto fail;
	}
	if (parse_version(sp2 + 1, &r->minor) == -1 || sp2[9] != '\0') {
		*why = "unsupported HTTP version";
		goto fail;
	}
	if (parse_target(r, r->buf + len + 1, why) == -1)
		goto fail;

	nhost = header_count(r->hdrs, r->nhdrs, "Host");
	if (nhost > 1) {
		*why = "duplicate Host";
		goto fail;
	}
	if (nhost == 0 && r->minor == 1) {
		*why = "missing Host";
		goto fail;
	}
	if (parse_framing(r->hdrs, r->nhdrs, &has_cl, &r->content_length,
	    &has_te, &te_chunked, why) == -1)
		goto fail;
	if (has_te) {
		if (r->minor == 0) {
			*why = "Transfer-Encoding in HTTP/1.0";
			goto fail;
		}
		if (!te_chunked) {
			*why = "unsupported Transfer-Encoding";
			goto fail;
		}
		r->body = HTTP_BODY_CHUNKED;
	} else if (has_cl && r->content_length > 0)
		r->body = HTTP_BODY_LENGTH;
	else
		r->body = HTTP_BODY_NONE;
	r->keep_alive = keep_alive(r->hdrs, r->nhdrs, r->minor);
	return 0;
fail:
	http_request_free(r);
	return -1;
}

void
http_request_free(struct http_request *r)
{
	if (r == NULL)
		return;
	free(r->buf);
	free(r->hdrs);
	memset(r, 0, sizeof(*r));
}

int
http_response_parse(const void *buf, size_t len, int head_request,
    int connect_request, struct http_response *r, const char **why)
{
	char	*line, *p;
	int	 has_cl, has_te, te_chunked;
	size_t	 i;

	/* untrusted: a response head from a remote server */
	memset(r, 0, sizeof(*r));
	if (parse_head(buf, len, &r->buf, &line, &r->hdrs, &r->nhdrs, 0,
	    why) == -1)
		goto fail;
	if (parse_version(line, &r->minor) == -1 || line[8] != ' ') {
		*why = "malformed status line";
		goto fail;
	}
	p = line + 9;
	for (i = 0; i < 3; i++) {
		if (p[i] < '0' || p[i] > '9') {
			*why = "malformed status code";
			goto fail;
		}
	}
	r->status = (p[0] - '0') * 100 + (p[1] - '0') * 10 + (p[2] - '0');
	if (r->status < 100) {
		*why = "malformed status code";
		goto fail;
	}
	p += 3;
	if (*p == ' ')
		p++;
	else if (*p != '\0') {
		*why = "malformed status line";
		goto fail;
	}
	r->reason = p;
	for (; *p != '\0'; p++) {
		if (!is_field_char((unsigned char)*p)) {
			*why = "control character in reason phrase";
			goto fail;
		}
	}
	if (parse_framing(r->hdrs, r->nhdrs, &has_cl, &r->content_length,
	    &has_te, &te_chunked, why) == -1)
		goto fail;
	r->keep_alive = keep_alive(r->hdrs, r->nhdrs, r->minor);
	if (head_request || (r->status >= 100 && r->status < 200) ||
	    r->status == 204 || r->status == 304 ||
	    (connect_request && r->status >= 200 && r->status < 300))
		r->body = HTTP_BODY_NONE;
	else if (has_te && te_chunked && r->minor == 1)
		r->body = HTTP_BODY_CHUNKED;
	else if (has_te) {
		/* RFC 9112 6.3: read until close; never reuse */
		r->body = HTTP_BODY_CLOSE;
		r->keep_alive = 0;
	} else if (has_cl)
		r->body = r->content_length > 0 ? HTTP_BODY_LENGTH :
		    HTTP_BODY_NONE;
	else {
		r->body = HTTP_BODY_CLOSE;
		r->keep_alive = 0;
	}
	return 0;
fail:
	http_response_free(r);
	return -1;
}

void
http_response_free(struct http_response *r)
{
	if (r == NULL)
		return;
	free(r->buf);
	free(r->hdrs);
	memset(r, 0, sizeof(*r));
}

/* ---- chunked transfer coding ---- */

enum {
	CS_SIZE = 0,	/* chunk-size hex digits */
	CS_EXT,		/* chunk extensions up to CR */
	CS_SIZE_LF,	/* LF after the size line */
	CS_DATA,	/* chunk data */
	CS_DATA_CR,	/* CR after data */
	CS_DATA_LF,	/* LF after data */
	CS_TRAILER,	/* start of a trailer line or the final CRLF */
	CS_TRAILER_LINE,
	CS_TRAILER_LF,
	CS_END_LF,	/* LF of the final empty line */
	CS_DONE,
	CS_ERROR,
};

void
http_chunked_init(struct http_chunked *c)
{
	memset(c, 0, sizeof(*c));
	c->state = CS_SIZE;
}

static enum http_chunk_result
chunk_fail(struct http_chunked *c, const char *why)
{
	c->state = CS_ERROR;
	c->why = why;
	return HTTP_CHUNK_ERROR;
}

enum http_chunk_result
http_chunked_feed(struct http_chunked *c, const void *vin, size_t len,
    size_t *used, size_t *datalen)
{
	const unsigned char *in = vin;
	size_t	 i = 0, n;
	uint64_t max;
	int	 h;

	/* untrusted: a chunked body from the sandbox or a server */
	*used = 0;
	*datalen = 0;
	if (c->state == CS_ERROR)
		return HTTP_CHUNK_ERROR;
	if (c->state == CS_DONE)
		return HTTP_CHUNK_DONE;
	while (i < len) {
		unsigned char ch = in[i];

		switch (c->state) {
		case CS_DATA:
			n = len - i;
			if (n > c->remaining)
				n = (size_t)c->remaining;
			c->remaining -= n;
			if (c->remaining == 0)
				c->state = CS_DATA_CR;
			*used = i + n;
			*datalen = n;
			return HTTP_CHUNK_DATA;
		case CS_SIZE:
			if (++c->linelen > HTTP_CHUNK_LINE_MAX)
				return chunk_fail(c, "chunk line too long");
			if ((h = hex_digit(ch)) != -1) {
				max = c->max_chunk ? c->max_chunk :
				    HTTP_CL_MAX;
				if (c->remaining > (max >> 4) ||
				    c->remaining * 16 + (uint64_t)h > max)
					return chunk_fail(c,
					    "chunk size too large");
				c->remaining = c->remaining * 16 +
				    (uint64_t)h;
				c->ndigits++;
			} else if (c->ndigits > 0 && ch == ';')
				c->state = CS_EXT;
			else if (c->ndigits > 0 && ch == '\r')
				c->state = CS_SIZE_LF;
			else
				return chunk_fail(c, "invalid chunk size");
			break;
		case CS_EXT:
			if (++c->linelen > HTTP_CHUNK_LINE_MAX)
				return chunk_fail(c, "chunk line too long");
			if (ch == '\r')
				c->state = CS_SIZE_LF;
			else if (!is_field_char(ch))
				return chunk_fail(c,
				    "control character in chunk extension");
			break;
		case CS_SIZE_LF:
			if (ch != '\n')
				return chunk_fail(c, "CR without LF");
			c->linelen = 0;
			c->ndigits = 0;
			c->state = c->remaining == 0 ? CS_TRAILER : CS_DATA;
			break;
		case CS_DATA_CR:
			if (ch != '\r')
				return chunk_fail(c, "missing CRLF after data");
			c->state = CS_DATA_LF;
			break;
		case CS_DATA_LF:
			if (ch != '\n')
				return chunk_fail(c, "missing CRLF after data");
			c->state = CS_SIZE;
			break;
		case CS_TRAILER:
			if (ch == '\r') {
				c->state = CS_END_LF;
				break;
			}
			if (!is_tchar(ch))
				return chunk_fail(c, "invalid trailer field");
			c->state = CS_TRAILER_LINE;
			/* FALLTHROUGH */
		case CS_TRAILER_LINE:
			if (++c->trailerlen > HTTP_TRAILER_MAX)
				return chunk_fail(c, "trailers too long");
			if (ch == '\r')
				c->state = CS_TRAILER_LF;
			else if (!is_field_char(ch))
				return chunk_fail(c,
				    "control character in trailer");
			break;
		case CS_TRAILER_LF:
			if (ch != '\n')
				return chunk_fail(c, "CR without LF");
			c->state = CS_TRAILER;
			break;
		case CS_END_LF:
			if (ch != '\n')
				return chunk_fail(c, "CR without LF");
			c->state = CS_DONE;
			*used = i + 1;
			return HTTP_CHUNK_DONE;
		default:
			return chunk_fail(c, "internal state");
		}
		i++;
	}
	*used = len;
	return HTTP_CHUNK_MORE;
}

const char *
http_status_text(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 411:
		return "Length Required";
	case 413:
		return "Content Too Large";
	case 415:
		return "Unsupported Media Type";
	case 417:
		return "Expectation Failed";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 501:
		return "Not Implemented";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	default:
		/* By class: a status line always has its reason phrase. */
		return status >= 500 ? "Server Error" : status >= 400 ?
		    "Client Error" : status >= 300 ? "Redirection" :
		    status >= 200 ? "Success" : "Informational";
	}
}
