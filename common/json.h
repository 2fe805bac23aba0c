/* SPDX-License-Identifier: ISC */
/*
 * JSON for the client socket and the settings files, and nowhere else
 * (internal IPC is binary, see msg.h).  yajl stays behind this one module
 * so that it could be swapped: callers see a small DOM and a generator.
 * The parser caps input size and nesting and rejects duplicate keys (two
 * spellings of one key are how a policy file says one thing to a reviewer
 * and another to the program).
 */
#ifndef AIRLOCK_JSON_H
#define AIRLOCK_JSON_H

#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_INPUT	(4U << 20)
#define JSON_MAX_DEPTH	64

enum json_type {
	JSON_NULL = 0,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json {
	enum json_type	  type;
	int		  boolean;
	double		  number;
	int		  is_int;	/* number was an integer literal */
	long long	  integer;
	char		 *str;		/* NUL-terminated; strlen may be < len;
					   a number's literal as parsed */
	size_t		  len;
	struct json	**items;	/* array elements or object values */
	char		**keys;		/* object keys */
	size_t		  n;
};

/* Parse; NULL on error with a message in err. */
struct json	*json_parse(const char *, size_t, char *err, size_t errlen);
struct json	*json_parse_partial(const char *, size_t, char *err,
		    size_t errlen, struct json **partial);
/*
 * A file holding one JSON object of at most max bytes (not followed if
 * a symlink): the object, or NULL (absent, unreadable, not an object).
 */
struct json	*json_read_object(const char *path, size_t max);
/*
 * Put len bytes of generated JSON at path all at once: written to tmp
 * (0600, not through a symlink), fsync'ed, renamed.  0, or -1 (tmp
 * removed).
 */
int		 json_write_file(const char *path, const char *tmp,
		    const char *buf, size_t len);
void		 json_free(struct json *);
const char	*json_type_name(enum json_type);

/* Object lookup; NULL when absent or when obj is not an object. */
struct json	*json_get(const struct json *obj, const char *key);
/* Typed lookups: NULL / dflt when absent or of another type. */
const char	*json_get_str(const struct json *, const char *key);
int		 json_get_bool(const struct json *, const char *key, int dflt);

/* Generator. */
struct jgen;
struct jgen	*jgen_new(void);
void		 jgen_free(struct jgen *);
void		 jgen_obj_open(struct jgen *);
void		 jgen_obj_close(struct jgen *);
void		 jgen_arr_open(struct jgen *);
void		 jgen_arr_close(struct jgen *);
void		 jgen_key(struct jgen *, const char *);
void		 jgen_str(struct jgen *, const char *);
void		 jgen_strn(struct jgen *, const char *, size_t);
void		 jgen_int(struct jgen *, long long);
void		 jgen_bool(struct jgen *, int);
void		 jgen_null(struct jgen *);
/* Copy a parsed value into the output. */
void		 jgen_value(struct jgen *, const struct json *);
/* The text so far (valid until the next call); *lenp gets its length. */
const char	*jgen_buf(struct jgen *, size_t *lenp);
/* Start a new document on the same generator. */
void		 jgen_reset(struct jgen *);
/* Convenience: a key and a value. */
void		 jgen_kstr(struct jgen *, const char *, const char *);
void		 jgen_kint(struct jgen *, const char *, long long);
void		 jgen_kbool(struct jgen *, const char *, int);

#endif
