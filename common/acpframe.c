// SPDX-License-Identifier: ISC
/*
 * Newline-delimited JSON-RPC framing for ACP (see acpframe.h).
 * untrusted: the bytes fed, whoever wrote them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/acpframe.h"
#include "common/vis.h"
#include "common/xmalloc.h"

void
acpf_init(struct acpf *f)
{
	memset(f, 0, sizeof(*f));
}

void
acpf_free(struct acpf *f)
{
	free(f->buf);
	memset(f, 0, sizeof(*f));
}

void
acpf_feed(struct acpf *f, const char *p, size_t n)
{
	/* What acpf_next() handed out is gone: compact first. */
	if (f->start > 0) {
		memmove(f->buf, f->buf + f->start, f->len - f->start);
		f->len -= f->start;
		f->start = 0;
	}
	while (n > 0) {
		const char *nl;
		size_t	    k;

		/* An over-long line is skipped up to its end, so that it
		 * never grows the buffer past the cap. */
		if (f->skipping) {
			if ((nl = memchr(p, '\n', n)) == NULL)
				return;
			n -= (size_t)(nl + 1 - p);
			p = nl + 1;
			f->skipping = 0;
			continue;
		}
		nl = memchr(p, '\n', n);
		k = nl != NULL ? (size_t)(nl + 1 - p) : n;
		if (f->len + k > ACPF_LINE_MAX + 1) {
			/* The tail of buf is the partial long line. */
			const char *last = f->len > 0 ?
			    memrchr(f->buf, '\n', f->len) : NULL;

			f->len = last != NULL ? (size_t)(last + 1 - f->buf) : 0;
			f->dropped++;
			f->skipping = 1;
			continue;
		}
		if (f->len + k > f->cap) {
			size_t cap = f->cap ? f->cap : 4096;

			while (cap < f->len + k)
				cap *= 2;
			f->buf = xreallocarray(f->buf, 1, cap + 1);
			f->cap = cap;
		}
		memcpy(f->buf + f->len, p, k);
		f->len += k;
		p += k;
		n -= k;
	}
}

char *
acpf_next(struct acpf *f, size_t *lenp)
{
	char	*s, *nl;
	size_t	 k;

	while (f->start < f->len) {
		s = f->buf + f->start;
		if ((nl = memchr(s, '\n', f->len - f->start)) == NULL)
			return NULL;
		k = (size_t)(nl - s);
		f->start += k + 1;
		if (k > 0 && s[k - 1] == '\r')
			k--;
		if (k == 0)
			continue;
		s[k] = '\0';
		*lenp = k;
		return s;
	}
	return NULL;
}

static int
good_id(const struct json *id)
{
	return id->type == JSON_STRING || id->type == JSON_NULL ||
	    (id->type == JSON_NUMBER && id->is_int);
}

enum acpf_kind
acpf_classify(const struct json *msg, const char **method)
{
	const struct json *id, *m;

	*method = NULL;
	if (msg == NULL || msg->type != JSON_OBJECT)
		return ACPF_INVALID;
	id = json_get(msg, "id");
	if ((m = json_get(msg, "method")) != NULL) {
		if (m->type != JSON_STRING || memchr(m->str, '\0', m->len))
			return ACPF_INVALID;
		*method = m->str;
		if (id == NULL)
			return ACPF_NOTIFICATION;
		return good_id(id) ? ACPF_REQUEST : ACPF_INVALID;
	}
	if (id == NULL || !good_id(id))
		return ACPF_INVALID;
	if ((json_get(msg, "result") != NULL) ==
	    (json_get(msg, "error") != NULL))
		return ACPF_INVALID;
	return ACPF_RESPONSE;
}

/* Are n bytes at s well-formed UTF-8? */
static int
acpf_utf8(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t	 i, l;
	uint32_t cp;

	for (i = 0; i < n; i += l)
		if ((l = u[i] < 0x80 ? 1 : vis_utf8(u + i, n - i, &cp)) == 0)
			return 0;
	return 1;
}

/* Is every string of v, keys included, well-formed UTF-8? */
static int
acpf_utf8_all(const struct json *v)
{
	size_t	i;

	if (v->type == JSON_STRING)
		return acpf_utf8(v->str, v->len);
	for (i = 0; i < v->n; i++)
		if ((v->keys != NULL && !acpf_utf8(v->keys[i],
		    strlen(v->keys[i]))) || !acpf_utf8_all(v->items[i]))
			return 0;
	return 1;
}

enum acpf_kind
acpf_take(const char *line, size_t len, struct json **msgp,
    const char **method, char *why, size_t whylen)
{
	struct json	*m;
	const struct json *id, *mt;
	char		 err[256];
	enum acpf_kind	 k;

	*msgp = NULL;
	*method = NULL;
	if ((m = json_parse(line, len, err, sizeof(err))) == NULL) {
		snprintf(why, whylen, "not JSON airlock can parse: %s", err);
		return ACPF_INVALID;
	}
	/*
	 * JSON is UTF-8 (RFC 8259): an editor decodes anything else with
	 * replacement characters, so it would not read the message the
	 * relay classified.
	 */
	if (!acpf_utf8_all(m)) {
		snprintf(why, whylen, "a string that is not UTF-8");
		json_free(m);
		return ACPF_INVALID;
	}
	if ((k = acpf_classify(m, method)) != ACPF_INVALID) {
		*msgp = m;
		return k;
	}
	/* Say which rule of JSON-RPC 2.0 the message broke. */
	id = json_get(m, "id");
	mt = json_get(m, "method");
	if (m->type != JSON_OBJECT)
		snprintf(why, whylen, "a JSON %s, not a JSON-RPC object",
		    json_type_name(m->type));
	else if (mt != NULL && mt->type != JSON_STRING)
		snprintf(why, whylen, "its method is a %s, not a string",
		    json_type_name(mt->type));
	else if (mt != NULL && memchr(mt->str, '\0', mt->len) != NULL)
		snprintf(why, whylen, "its method holds a NUL");
	else if (id != NULL && !(id->type == JSON_STRING ||
	    id->type == JSON_NULL || (id->type == JSON_NUMBER && id->is_int)))
		snprintf(why, whylen, "its id %.40s is not a string, an "
		    "integer or null", id->type == JSON_NUMBER ? id->str :
		    json_type_name(id->type));
	else if (id == NULL)
		snprintf(why, whylen, "neither a method nor an id");
	else
		snprintf(why, whylen, "a response with %s result and error",
		    json_get(m, "result") != NULL ? "both" : "neither");
	json_free(m);
	*method = NULL;
	return ACPF_INVALID;
}

char *
acpf_serialise(const struct json *msg, size_t *lenp)
{
	struct jgen	*j = jgen_new();
	const char	*b;
	char		*s;
	size_t		 len;

	/* yajl's generator escapes every control character: one line. */
	jgen_value(j, msg);
	b = jgen_buf(j, &len);
	s = xmalloc(len + 1);
	memcpy(s, b, len);
	s[len] = '\0';
	jgen_free(j);
	*lenp = len;
	return s;
}
