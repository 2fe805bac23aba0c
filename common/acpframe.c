// SPDX-License-Identifier: ISC
/*
 * Newline-delimited JSON-RPC framing for ACP (see acpframe.h).
 * untrusted: the bytes fed, whoever wrote them.
 */
#include <stdlib.h>
#include <string.h>

#include "common/acpframe.h"
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
