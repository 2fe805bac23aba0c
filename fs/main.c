// SPDX-License-Identifier: ISC
/*
 * airlock-fs: one file-tool request in, one answer out (SPEC R-C6).
 * airlockd (supervisor/sv_fs.c) execs it inside the session's sandbox
 * like any command, so it runs with the session's namespaces, Landlock
 * domain and seccomp filter and can do no more than a shell command of
 * that session; it adds the path confinement a shell does not have
 * (resolve.c) and the filename rules before anything is touched.
 *
 * Request (stdin): {"op": "read"|"write"|"edit"|"applyPatch"|"search"|
 * "find", "roots": [workdir, shared roots...], "rules": [[kind,
 * pattern, except], ...], "params": {...}}.  Answer (stdout):
 * {"ok": true, "result": {...}} or {"ok": false, "rule": ..., "message":
 * ..., "path": ...}.  Exit 0 either way; anything else is a crash.
 *
 * untrusted: params are the agent's.  roots and rules are airlockd's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/json.h"
#include "common/namerule.h"
#include "common/xmalloc.h"
#include "fs/fs.h"
#include "fs/fs_int.h"

#define FS_REQ_MAX	(JSON_MAX_INPUT)

int
fs_refuse(struct fs_ctx *c, const char *rule, const char *path,
    const char *fmt, ...)
{
	va_list	ap;

	c->rule = rule;
	snprintf(c->path, sizeof(c->path), "%s", path != NULL ? path : "");
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static const struct {
	const char	*name;
	int		(*fn)(struct fs_ctx *, const struct json *,
			    struct jgen *);
} ops[] = {
	{ "read", fs_op_read },
	{ "write", fs_op_write },
	{ "edit", fs_op_edit },
	{ "applyPatch", fs_op_patch },
	{ "search", fs_op_search },
	{ "find", fs_op_find },
};

static void
put(const char *buf, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		if ((n = write(STDOUT_FILENO, buf, len)) == -1) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		buf += n;
		len -= (size_t)n;
	}
}

static void
answer_refusal(const struct fs_ctx *c)
{
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 len;

	jgen_obj_open(j);
	jgen_kbool(j, "ok", 0);
	jgen_kstr(j, "rule", c->rule);
	jgen_key(j, "message");
	fs_jstr_lossy(j, c->msg, strlen(c->msg));
	jgen_key(j, "path");
	fs_jstr_lossy(j, c->path, strlen(c->path));
	if (c->matches >= 0)
		jgen_kint(j, "matches", c->matches);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	put(buf, len);
	put("\n", 1);
	jgen_free(j);
}

static char *
read_all(int fd, size_t *lenp)
{
	size_t	 cap = 65536, n = 0;
	char	*buf = xmalloc(cap);
	ssize_t	 k;

	for (;;) {
		if (n == cap) {
			if (cap > FS_REQ_MAX)
				break;
			cap *= 2;
			buf = xreallocarray(buf, 1, cap);
		}
		if ((k = read(fd, buf + n, cap - n)) == -1 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	*lenp = n;
	return buf;
}

static int
setup(struct fs_ctx *c, const struct json *req)
{
	const struct json *roots = json_get(req, "roots");
	const struct json *rules = json_get(req, "rules");
	char		 link[64], buf[PATH_MAX];
	ssize_t		 n;
	size_t		 i;

	if (roots == NULL || roots->type != JSON_ARRAY || roots->n == 0)
		return fs_refuse(c, "invalid-request", "", "no roots");
	c->nroots = roots->n;
	c->roots = xcalloc(c->nroots, sizeof(*c->roots));
	c->canon = xcalloc(c->nroots, sizeof(*c->canon));
	c->rootfd = xcalloc(c->nroots, sizeof(*c->rootfd));
	for (i = 0; i < c->nroots; i++) {
		const struct json *r = roots->items[i];

		if (r->type != JSON_STRING || r->str[0] != '/')
			return fs_refuse(c, "invalid-request", "", "a root "
			    "that is not an absolute path");
		c->roots[i] = xstrdup(r->str);
		c->rootfd[i] = open(r->str, O_PATH | O_DIRECTORY | O_CLOEXEC);
		snprintf(link, sizeof(link), "/proc/self/fd/%d",
		    c->rootfd[i]);
		if (c->rootfd[i] == -1 ||
		    (n = readlink(link, buf, sizeof(buf) - 1)) <= 0) {
			/* A shared root that is not there: unused. */
			if (i == 0)
				return fs_refuse(c, "not-found", r->str,
				    "the workdir %s is not there", r->str);
			c->canon[i] = xstrdup(r->str);
			continue;
		}
		buf[n] = '\0';
		c->canon[i] = xstrdup(buf);
	}
	for (i = 0; rules != NULL && rules->type == JSON_ARRAY &&
	    i < rules->n; i++) {
		const struct json *r = rules->items[i];

		if (r->type != JSON_ARRAY || r->n != 3 ||
		    !r->items[0]->is_int || r->items[1]->type != JSON_STRING ||
		    r->items[2]->type != JSON_STRING)
			continue;
		if (c->rules == NULL)
			c->rules = namerule_new();
		(void)namerule_add(c->rules, (uint32_t)r->items[0]->integer,
		    r->items[1]->str, r->items[2]->str[0] ?
		    r->items[2]->str : NULL);
	}
	return 0;
}

static void
ctx_free(struct fs_ctx *c)
{
	size_t	i;

	for (i = 0; i < c->nroots; i++) {
		free(c->roots[i]);
		free(c->canon[i]);
		if (c->rootfd[i] > 0)
			close(c->rootfd[i]);
	}
	free(c->roots);
	free(c->canon);
	free(c->rootfd);
	if (c->rules != NULL)
		namerule_free(c->rules);
}

int
main(void)
{
	struct fs_ctx	 c;
	struct json	*req;
	struct jgen	*j;
	const char	*op, *out;
	char		*in, err[256];
	size_t		 len, i, outlen;
	int		 rc = -1;

	memset(&c, 0, sizeof(c));
	c.matches = -1;
	in = read_all(STDIN_FILENO, &len);
	if ((req = json_parse(in, len, err, sizeof(err))) == NULL) {
		fs_refuse(&c, "invalid-request", "", "request: %s", err);
		answer_refusal(&c);
		return 0;
	}
	free(in);
	j = jgen_new();
	jgen_obj_open(j);
	jgen_kbool(j, "ok", 1);
	jgen_key(j, "result");
	jgen_obj_open(j);
	op = json_get_str(req, "op");
	if (setup(&c, req) == 0) {
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
			if (op != NULL && strcmp(op, ops[i].name) == 0)
				break;
		if (i == sizeof(ops) / sizeof(ops[0]))
			fs_refuse(&c, "invalid-request", "", "unknown op");
		else
			rc = ops[i].fn(&c, json_get(req, "params"), j);
	}
	if (rc == -1)
		answer_refusal(&c);
	else {
		jgen_obj_close(j);
		jgen_obj_close(j);
		out = jgen_buf(j, &outlen);
		put(out, outlen);
		put("\n", 1);
	}
	jgen_free(j);
	json_free(req);
	ctx_free(&c);
	return 0;
}
