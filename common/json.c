// SPDX-License-Identifier: ISC
/*
 * A DOM over yajl's callback parser (not yajl_tree: it accepts duplicate
 * keys silently) and a thin wrapper over yajl_gen.  Untrusted: every byte
 * parsed here comes from a client socket or a settings file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>

#include "common/json.h"
#include "common/log.h"
#include "common/xmalloc.h"

struct jparse {
	struct json	*root;
	struct json	*stack[JSON_MAX_DEPTH + 1];
	int		 depth;
	char		*pending_key;	/* key awaiting its value */
	const char	*error;
};

static struct json *
jnew(enum json_type t)
{
	struct json *j = xcalloc(1, sizeof(*j));

	j->type = t;
	return j;
}

void
json_free(struct json *j)
{
	size_t	i;

	if (j == NULL)
		return;
	for (i = 0; i < j->n; i++) {
		json_free(j->items[i]);
		if (j->keys != NULL)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->str);
	free(j);
}

static int
jadd(struct jparse *p, struct json *v)
{
	struct json *top;
	size_t	i;

	if (p->depth == 0) {
		if (p->root != NULL) {
			json_free(v);
			p->error = "more than one top-level value";
			return 0;
		}
		p->root = v;
		return 1;
	}
	top = p->stack[p->depth - 1];
	if (top->type == JSON_OBJECT) {
		if (p->pending_key == NULL) {
			json_free(v);
			p->error = "value without key";
			return 0;
		}
		for (i = 0; i < top->n; i++) {
			if (strcmp(top->keys[i], p->pending_key) == 0) {
				json_free(v);
				p->error = "duplicate key";
				return 0;
			}
		}
		top->keys = xreallocarray(top->keys, top->n + 1,
		    sizeof(*top->keys));
		top->keys[top->n] = p->pending_key;
		p->pending_key = NULL;
	}
	top->items = xreallocarray(top->items, top->n + 1,
	    sizeof(*top->items));
	top->items[top->n++] = v;
	return 1;
}

static int
push(struct jparse *p, struct json *v)
{
	if (p->depth >= JSON_MAX_DEPTH) {
		json_free(v);
		p->error = "nesting too deep";
		return 0;
	}
	if (!jadd(p, v))
		return 0;
	p->stack[p->depth++] = v;
	return 1;
}

static int
cb_null(void *ctx)
{
	return jadd(ctx, jnew(JSON_NULL));
}

static int
cb_bool(void *ctx, int b)
{
	struct json *j = jnew(JSON_BOOL);

	j->boolean = b != 0;
	return jadd(ctx, j);
}

static int
cb_number(void *ctx, const char *s, size_t len)
{
	struct json	*j = jnew(JSON_NUMBER);
	char		 buf[64], *end;

	if (len >= sizeof(buf)) {
		json_free(j);
		((struct jparse *)ctx)->error = "number too long";
		return 0;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* The literal, for jgen_value: an id such as 1e999999 comes back
	 * as sent, not as a double it does not fit. */
	j->str = xstrdup(buf);
	j->len = len;
	j->number = strtod(buf, NULL);
	if (strpbrk(buf, ".eE") == NULL) {
		errno = 0;
		j->integer = strtoll(buf, &end, 10);
		j->is_int = errno == 0 && *end == '\0';
	}
	return jadd(ctx, j);
}

static int
cb_string(void *ctx, const unsigned char *s, size_t len)
{
	struct json *j = jnew(JSON_STRING);

	j->str = xmalloc(len + 1);
	memcpy(j->str, s, len);
	j->str[len] = '\0';
	j->len = len;
	return jadd(ctx, j);
}

static int
cb_start_map(void *ctx)
{
	return push(ctx, jnew(JSON_OBJECT));
}

static int
cb_map_key(void *ctx, const unsigned char *s, size_t len)
{
	struct jparse *p = ctx;

	if (memchr(s, '\0', len) != NULL) {
		p->error = "NUL in key";
		return 0;
	}
	free(p->pending_key);
	p->pending_key = xstrndup((const char *)s, len);
	return 1;
}

static int
cb_end(void *ctx)
{
	struct jparse *p = ctx;

	p->depth--;
	return 1;
}

static int
cb_start_array(void *ctx)
{
	return push(ctx, jnew(JSON_ARRAY));
}

static const yajl_callbacks jcallbacks = {
	cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
	cb_start_map, cb_map_key, cb_end, cb_start_array, cb_end,
};

struct json *
json_parse(const char *buf, size_t len, char *err, size_t errlen)
{
	return json_parse_partial(buf, len, err, errlen, NULL);
}

/*
 * json_parse, and on failure, where partial is not NULL, what was read
 * before the error (the caller frees it; NULL when nothing was): a
 * JSON-RPC server answers a broken request with its id when the id came
 * before the break.  Only complete values are in it.
 */
struct json *
json_parse_partial(const char *buf, size_t len, char *err, size_t errlen,
    struct json **partial)
{
	struct jparse	 p;
	yajl_handle	 h;
	yajl_status	 st;
	unsigned char	*msg;

	memset(&p, 0, sizeof(p));
	if (partial != NULL)
		*partial = NULL;
	if (len > JSON_MAX_INPUT) {
		snprintf(err, errlen, "input over %u bytes", JSON_MAX_INPUT);
		return NULL;
	}
	h = yajl_alloc(&jcallbacks, NULL, &p);
	if (h == NULL)
		fatalx("yajl_alloc");
	/* Strings must be valid UTF-8; no comments; one value only. */
	st = yajl_parse(h, (const unsigned char *)buf, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(h);
	if (st != yajl_status_ok || p.root == NULL) {
		/* Where: line and column (in bytes) of the first byte the
		 * parser did not take, for people fixing a file by hand. */
		size_t	 off = yajl_get_bytes_consumed(h), i, line = 1;
		size_t	 col = 1;

		if (off > len)
			off = len;
		for (i = 0; i < off; i++) {
			if (buf[i] == '\n') {
				line++;
				col = 1;
			} else
				col++;
		}
		if (p.error != NULL)
			snprintf(err, errlen, "line %zu, column %zu: %s", line,
			    col, p.error);
		else if (st != yajl_status_ok) {
			msg = yajl_get_error(h, 0, NULL, 0);
			for (i = strlen((char *)msg); i > 0 &&
			    (msg[i - 1] == '\n' || msg[i - 1] == ' '); i--)
				msg[i - 1] = '\0';
			snprintf(err, errlen, "line %zu, column %zu: %s", line,
			    col, (const char *)msg);
			yajl_free_error(h, msg);
		} else
			snprintf(err, errlen, "empty input");
		yajl_free(h);
		free(p.pending_key);
		if (partial != NULL)
			*partial = p.root;
		else
			json_free(p.root);
		return NULL;
	}
	yajl_free(h);
	free(p.pending_key);
	return p.root;
}

const char *
json_type_name(enum json_type t)
{
	switch (t) {
	case JSON_NULL:
		return "null";
	case JSON_BOOL:
		return "boolean";
	case JSON_NUMBER:
		return "number";
	case JSON_STRING:
		return "string";
	case JSON_ARRAY:
		return "array";
	case JSON_OBJECT:
		return "object";
	}
	return "?";
}

struct json *
json_get(const struct json *o, const char *key)
{
	size_t	i;

	if (o == NULL || o->type != JSON_OBJECT)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return o->items[i];
	return NULL;
}

const char *
json_get_str(const struct json *o, const char *key)
{
	struct json *v = json_get(o, key);

	return v != NULL && v->type == JSON_STRING ? v->str : NULL;
}

int
json_get_bool(const struct json *o, const char *key, int dflt)
{
	struct json *v = json_get(o, key);

	return v != NULL && v->type == JSON_BOOL ? v->boolean : dflt;
}

/* ---- generator ---- */

struct jgen {
	yajl_gen	g;
};

struct jgen *
jgen_new(void)
{
	struct jgen *j = xcalloc(1, sizeof(*j));

	if ((j->g = yajl_gen_alloc(NULL)) == NULL)
		fatalx("yajl_gen_alloc");
	yajl_gen_config(j->g, yajl_gen_validate_utf8, 0);
	return j;
}

void
jgen_free(struct jgen *j)
{
	if (j == NULL)
		return;
	yajl_gen_free(j->g);
	free(j);
}

void
jgen_reset(struct jgen *j)
{
	yajl_gen_clear(j->g);
	yajl_gen_reset(j->g, NULL);
}

void jgen_obj_open(struct jgen *j) { yajl_gen_map_open(j->g); }
void jgen_obj_close(struct jgen *j) { yajl_gen_map_close(j->g); }
void jgen_arr_open(struct jgen *j) { yajl_gen_array_open(j->g); }
void jgen_arr_close(struct jgen *j) { yajl_gen_array_close(j->g); }
void jgen_null(struct jgen *j) { yajl_gen_null(j->g); }
void jgen_bool(struct jgen *j, int b) { yajl_gen_bool(j->g, b != 0); }
void jgen_int(struct jgen *j, long long v) { yajl_gen_integer(j->g, v); }

void
jgen_key(struct jgen *j, const char *k)
{
	jgen_str(j, k);
}

/*
 * Strings from the sandbox (output, paths) need not be UTF-8.  Invalid
 * sequences are replaced with U+FFFD so that the output is always valid
 * JSON; callers that need the exact bytes send them base64-encoded.
 */
void
jgen_strn(struct jgen *j, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	char	*out = NULL;
	size_t	 i = 0, o = 0, k, clen;

	for (i = 0; i < n; i += clen) {
		unsigned char c = u[i];

		clen = 1;
		if (c < 0x80)
			continue;
		if ((c & 0xe0) == 0xc0 && c >= 0xc2)
			clen = 2;
		else if ((c & 0xf0) == 0xe0)
			clen = 3;
		else if ((c & 0xf8) == 0xf0 && c <= 0xf4)
			clen = 4;
		else
			goto slow;
		if (i + clen > n)
			goto slow;
		for (k = 1; k < clen; k++)
			if ((u[i + k] & 0xc0) != 0x80)
				goto slow;
	}
	yajl_gen_string(j->g, u, n);
	return;
slow:
	out = xmalloc(n * 3 + 1);
	for (i = 0; i < n; i += clen) {
		unsigned char c = u[i];

		clen = 1;
		if (c < 0x80) {
			out[o++] = (char)c;
			continue;
		}
		if ((c & 0xe0) == 0xc0 && c >= 0xc2)
			clen = 2;
		else if ((c & 0xf0) == 0xe0)
			clen = 3;
		else if ((c & 0xf8) == 0xf0 && c <= 0xf4)
			clen = 4;
		else
			clen = 0;
		if (clen != 0 && i + clen <= n) {
			for (k = 1; k < clen; k++)
				if ((u[i + k] & 0xc0) != 0x80)
					break;
			if (k == clen) {
				memcpy(out + o, u + i, clen);
				o += clen;
				continue;
			}
		}
		clen = 1;
		memcpy(out + o, "\xef\xbf\xbd", 3);
		o += 3;
	}
	yajl_gen_string(j->g, (const unsigned char *)out, o);
	free(out);
}

void
jgen_str(struct jgen *j, const char *s)
{
	if (s == NULL)
		jgen_null(j);
	else
		jgen_strn(j, s, strlen(s));
}

void
jgen_value(struct jgen *j, const struct json *v)
{
	size_t	i;

	if (v == NULL) {
		jgen_null(j);
		return;
	}
	switch (v->type) {
	case JSON_NULL:
		jgen_null(j);
		break;
	case JSON_BOOL:
		jgen_bool(j, v->boolean);
		break;
	case JSON_NUMBER:
		if (v->str != NULL)
			yajl_gen_number(j->g, v->str, v->len);
		else if (v->is_int)
			jgen_int(j, v->integer);
		else
			yajl_gen_double(j->g, v->number);
		break;
	case JSON_STRING:
		jgen_strn(j, v->str, v->len);
		break;
	case JSON_ARRAY:
		jgen_arr_open(j);
		for (i = 0; i < v->n; i++)
			jgen_value(j, v->items[i]);
		jgen_arr_close(j);
		break;
	case JSON_OBJECT:
		jgen_obj_open(j);
		for (i = 0; i < v->n; i++) {
			jgen_key(j, v->keys[i]);
			jgen_value(j, v->items[i]);
		}
		jgen_obj_close(j);
		break;
	}
}

const char *
jgen_buf(struct jgen *j, size_t *lenp)
{
	const unsigned char *buf;
	size_t	len;

	yajl_gen_get_buf(j->g, &buf, &len);
	if (lenp != NULL)
		*lenp = len;
	return (const char *)buf;
}

void
jgen_kstr(struct jgen *j, const char *k, const char *v)
{
	jgen_key(j, k);
	jgen_str(j, v);
}

void
jgen_kint(struct jgen *j, const char *k, long long v)
{
	jgen_key(j, k);
	jgen_int(j, v);
}

void
jgen_kbool(struct jgen *j, const char *k, int v)
{
	jgen_key(j, k);
	jgen_bool(j, v);
}

struct json *
json_read_object(const char *path, size_t max)
{
	struct json	*m;
	char		*buf;
	ssize_t		 n;
	size_t		 len = 0;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return NULL;
	buf = xmalloc(max);
	while (len < max && (n = read(fd, buf + len, max - len)) > 0)
		len += (size_t)n;
	close(fd);
	m = json_parse(buf, len, NULL, 0);
	free(buf);
	if (m != NULL && m->type != JSON_OBJECT) {
		json_free(m);
		return NULL;
	}
	return m;
}

int
json_write_file(const char *path, const char *tmp, const char *buf,
    size_t len)
{
	int	fd;

	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1)
		return -1;
	if (write(fd, buf, len) == (ssize_t)len && fsync(fd) == 0 &&
	    close(fd) == 0 && rename(tmp, path) == 0)
		return 0;
	(void)unlink(tmp);
	return -1;
}
