// SPDX-License-Identifier: ISC
/*
 * `airlock fs [--workspace DIR] [--mode M] VERB ...`: the file tools
 * (sv_fs.c) for scripts and tests, in a private session like
 * `airlock run`'s: one sandbox on the workspace, one call, JSON out.
 * Exit 0 on success, 1 when refused or failed (the JSON names the
 * rule), 2 on a usage error.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_opt.h"
#include "common/json.h"
#include "common/vis.h"
#include "common/xmalloc.h"

#define FS_STDIN_MAX	(3U << 20)	/* a write's content, before base64 */

static const char usage_text[] =
"usage: airlock fs [--workspace DIR] [--mode M] [--sandbox on|off]\n"
"                  [--settings FILE] [--socket PATH] VERB ...\n"
"  read PATH [--offset N] [--limit N]\n"
"  write PATH                       (content on stdin)\n"
"  edit PATH --old TEXT --new TEXT [--all]\n"
"  apply-patch                      (patch on stdin)\n"
"  search PATTERN [PATH] [--glob G] [-i] [--max N]\n"
"  find GLOB [PATH] [--max N]\n";

static void __attribute__((noreturn))
fs_usage(const char *why)
{
	if (why != NULL)
		fprintf(stderr, "airlock fs: %s\n", why);
	fputs(usage_text, stderr);
	exit(2);
}

static char *
read_stdin(size_t *lenp)
{
	size_t	 cap = 65536, n = 0;
	char	*buf = xmalloc(cap);
	ssize_t	 k;

	for (;;) {
		if (n == cap) {
			if (cap >= FS_STDIN_MAX) {
				fprintf(stderr, "airlock fs: stdin: more than "
				    "%u bytes\n", FS_STDIN_MAX);
				exit(1);
			}
			cap *= 2;
			buf = xreallocarray(buf, 1, cap);
		}
		if ((k = read(STDIN_FILENO, buf + n, cap - n)) == -1 &&
		    errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	*lenp = n;
	return buf;
}

static void
put_b64(struct jgen *j, const unsigned char *s, size_t n)
{
	static const char c[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char	*o = xmalloc((n + 2) / 3 * 4 + 1), *w = o;
	size_t	 i;

	for (i = 0; i + 2 < n; i += 3) {
		*w++ = c[s[i] >> 2];
		*w++ = c[((s[i] & 3) << 4) | (s[i + 1] >> 4)];
		*w++ = c[((s[i + 1] & 15) << 2) | (s[i + 2] >> 6)];
		*w++ = c[s[i + 2] & 63];
	}
	if (i < n) {
		*w++ = c[s[i] >> 2];
		*w++ = c[((s[i] & 3) << 4) | (i + 1 < n ? s[i + 1] >> 4 : 0)];
		*w++ = i + 1 < n ? c[(s[i + 1] & 15) << 2] : '=';
		*w++ = '=';
	}
	jgen_strn(j, o, (size_t)(w - o));
	free(o);
}

static long long
num(const char *s)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 0)
		cli_opt_usage_error("airlock fs", "%s: a number must be a "
		    "non-negative integer", vis(s));
	return v;
}

/* Whether verb takes the option a with a value. */
static int
fs_valued(const char *verb, const char *a)
{
	if (strcmp(a, "--offset") == 0 || strcmp(a, "--limit") == 0)
		return strcmp(verb, "read") == 0;
	if (strcmp(a, "--max") == 0)
		return strcmp(verb, "search") == 0 || strcmp(verb, "find") == 0;
	if (strcmp(a, "--glob") == 0)
		return strcmp(verb, "search") == 0;
	if (strcmp(a, "--old") == 0 || strcmp(a, "--new") == 0)
		return strcmp(verb, "edit") == 0;
	return 0;
}

/* The verb's params (without sessionId), or exit 2. */
static const char *
verb_params(int argc, char **argv, struct jgen *j)
{
	const char	*verb = argv[0], *method;
	const char	*pos[2] = { NULL, NULL };
	int		 i, npos = 0;
	char		*in;
	size_t		 len;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			for (i++; i < argc && npos < 2; i++)
				pos[npos++] = argv[i];
			if (i < argc)
				fs_usage("too many arguments");
			break;
		}
		if (a[0] == '-' && a[1] != '\0') {
			if (strcmp(a, "-i") == 0 && strcmp(verb, "search") == 0)
				jgen_kbool(j, "ignoreCase", 1);
			else if (strcmp(a, "--all") == 0 &&
			    strcmp(verb, "edit") == 0)
				jgen_kbool(j, "replaceAll", 1);
			else if (!fs_valued(verb, a))
				cli_opt_usage_error("airlock fs", "%s: "
				    "unknown option %s", verb, vis(a));
			else if (i + 1 >= argc)
				cli_opt_usage_error("airlock fs", "%s needs "
				    "a value", vis(a));
			else if ((strcmp(a, "--offset") == 0 ||
			    strcmp(a, "--limit") == 0) &&
			    strcmp(verb, "read") == 0)
				jgen_kint(j, a + 2, num(argv[++i]));
			else if (strcmp(a, "--max") == 0 &&
			    (strcmp(verb, "search") == 0 ||
			    strcmp(verb, "find") == 0))
				jgen_kint(j, "maxResults", num(argv[++i]));
			else if (strcmp(a, "--glob") == 0 &&
			    strcmp(verb, "search") == 0)
				jgen_kstr(j, "glob", argv[++i]);
			else
				jgen_kstr(j, a + 2, argv[++i]);
			continue;
		}
		if (npos == 2)
			fs_usage("too many arguments");
		pos[npos++] = a;
	}
	if (strcmp(verb, "read") == 0 || strcmp(verb, "write") == 0 ||
	    strcmp(verb, "edit") == 0) {
		if (npos != 1)
			fs_usage("one PATH");
		jgen_kstr(j, "path", pos[0]);
		method = strcmp(verb, "read") == 0 ? "fs.read" :
		    strcmp(verb, "write") == 0 ? "fs.write" : "fs.edit";
		if (strcmp(verb, "write") == 0) {
			in = read_stdin(&len);
			jgen_key(j, "base64");
			put_b64(j, (unsigned char *)in, len);
			free(in);
		}
		return method;
	}
	if (strcmp(verb, "apply-patch") == 0) {
		if (npos != 0)
			fs_usage("apply-patch takes the patch on stdin");
		in = read_stdin(&len);
		jgen_key(j, "patch");
		jgen_strn(j, in, len);
		free(in);
		return "fs.applyPatch";
	}
	if (strcmp(verb, "search") == 0 || strcmp(verb, "find") == 0) {
		if (npos < 1)
			fs_usage(strcmp(verb, "search") == 0 ? "search PATTERN"
			    " [PATH]" : "find GLOB [PATH]");
		jgen_kstr(j, strcmp(verb, "search") == 0 ? "pattern" : "glob",
		    pos[0]);
		if (npos == 2)
			jgen_kstr(j, "path", pos[1]);
		return strcmp(verb, "search") == 0 ? "fs.search" : "fs.find";
	}
	cli_opt_usage_error("airlock fs", "unknown verb %s: read, write, "
	    "edit, apply-patch, search or find", vis(verb));
}

/* A refusal's JSON: the rule is the message's first word. */
static void
print_refusal(int code, const char *err)
{
	struct jgen	*j = jgen_new();
	const char	*colon = strstr(err, ": ");
	const char	*buf;
	size_t		 len;

	jgen_obj_open(j);
	jgen_kbool(j, "ok", 0);
	jgen_key(j, "rule");
	if (code == -32030 && colon != NULL) {
		jgen_strn(j, err, (size_t)(colon - err));
		jgen_kstr(j, "message", colon + 2);
	} else {
		jgen_str(j, "error");
		jgen_kstr(j, "message", err);
	}
	jgen_kint(j, "code", code);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	cli_put_json(buf, len);
	jgen_free(j);
}

struct fs_opts {
	const char	*mode, *sandbox, *settings, *sock, *ws_arg;
};

/* The options before the verb; returns the verb's index. */
static int
fs_options(int argc, char **argv, struct fs_opts *o)
{
	int	i;

	o->mode = "chat";
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--workspace") != 0 &&
		    strcmp(argv[i], "--mode") != 0 &&
		    strcmp(argv[i], "--sandbox") != 0 &&
		    strcmp(argv[i], "--settings") != 0 &&
		    strcmp(argv[i], "--socket") != 0)
			cli_opt_usage_error("airlock fs", "unknown option %s",
			    vis(argv[i]));
		if (i + 1 >= argc || strcmp(argv[i + 1], "--") == 0)
			cli_opt_usage_error("airlock fs", "%s needs a value",
			    argv[i]);
		if (strcmp(argv[i], "--workspace") == 0)
			o->ws_arg = argv[++i];
		else if (strcmp(argv[i], "--mode") == 0)
			o->mode = argv[++i];
		else if (strcmp(argv[i], "--sandbox") == 0)
			o->sandbox = argv[++i];
		else if (strcmp(argv[i], "--settings") == 0)
			o->settings = argv[++i];
		else
			o->sock = argv[++i];
	}
	if (i >= argc)
		fs_usage(NULL);
	if (strcmp(o->mode, "chat") != 0 && strcmp(o->mode, "plan") != 0 &&
	    strcmp(o->mode, "review") != 0 &&
	    strcmp(o->mode, "orchestrate") != 0)
		cli_opt_usage_error("airlock fs", "--mode %s: chat, plan, "
		    "review or orchestrate", vis(o->mode));
	if (o->sandbox != NULL && strcmp(o->sandbox, "on") != 0 &&
	    strcmp(o->sandbox, "off") != 0)
		cli_opt_usage_error("airlock fs", "--sandbox %s: on or off",
		    vis(o->sandbox));
	return i;
}

/* A sandbox of the workspace alone, writable, without network. */
static struct json *
fs_launch(struct rpc *rpc, const struct fs_opts *o, const char *sid,
    const char *ws, int *code, char *err, size_t errlen)
{
	struct jgen	*j = jgen_new();
	struct json	*res;

	jgen_obj_open(j);
	jgen_key(j, "spec");
	jgen_obj_open(j);
	jgen_kstr(j, "sessionId", sid);
	jgen_kstr(j, "workspaceId", ws);
	jgen_kstr(j, "mode", o->mode);
	jgen_kstr(j, "guestWorkdir", ws);
	jgen_kbool(j, "networkEnabled", 0);
	if (o->sandbox != NULL && strcmp(o->sandbox, "off") == 0)
		jgen_kstr(j, "backend", "none");
	jgen_key(j, "bindMounts");
	jgen_arr_open(j);
	jgen_obj_open(j);
	jgen_kstr(j, "hostPath", ws);
	jgen_kstr(j, "guestPath", ws);
	jgen_kbool(j, "readOnly", 0);
	jgen_obj_close(j);
	jgen_arr_close(j);
	jgen_obj_close(j);
	jgen_obj_close(j);
	res = rpc_call(rpc, "sandbox.launch", jgen_buf(j, NULL), NULL, NULL,
	    code, err, errlen);
	jgen_free(j);
	return res;
}

int
cli_fs_main(int argc, char **argv)
{
	struct fs_opts	 o;
	const char	*method;
	char		 ws[PATH_MAX], sid[64], err[1024], *params;
	char		**extra = NULL;
	struct rpc	 rpc;
	struct json	*res;
	struct jgen	*j;
	int		 i, code, rc;

	memset(&o, 0, sizeof(o));
	i = fs_options(argc, argv, &o);
	if (realpath(o.ws_arg != NULL ? o.ws_arg : ".", ws) == NULL) {
		fprintf(stderr, "airlock fs: %s: %s\n", o.ws_arg != NULL ?
		    o.ws_arg : ".", strerror(errno));
		return 1;
	}
	if (strcmp(ws, "/") == 0) {
		fprintf(stderr, "airlock fs: workspace /: name a directory "
		    "with --workspace\n");
		return 2;
	}
	j = jgen_new();
	jgen_obj_open(j);
	snprintf(sid, sizeof(sid), "fs-%d-%ld", (int)getpid(),
	    (long)time(NULL));
	jgen_kstr(j, "sessionId", sid);
	method = verb_params(argc - i, argv + i, j);
	jgen_obj_close(j);
	params = xstrdup(jgen_buf(j, NULL));
	jgen_free(j);

	extra = rpc_private_args(o.sandbox, o.settings);
	if ((o.sock != NULL ? rpc_open(&rpc, o.sock, 0, NULL, err,
	    sizeof(err)) : rpc_open_private(&rpc, extra, err,
	    sizeof(err))) == -1) {
		strv_free(extra);
		print_refusal(-1, err);
		return 1;
	}
	strv_free(extra);
	if ((res = fs_launch(&rpc, &o, sid, ws, &code, err, sizeof(err))) ==
	    NULL) {
		print_refusal(code, err);
		free(params);
		rpc_close(&rpc);
		return 1;
	}
	json_free(res);
	res = rpc_call(&rpc, method, params, NULL, NULL, &code, err,
	    sizeof(err));
	free(params);
	if (res != NULL) {
		cli_print_json(res);
		json_free(res);
		rc = 0;
	} else {
		print_refusal(code, err);
		rc = 1;
	}
	snprintf(ws, sizeof(ws), "{\"sessionId\":\"%s\"}", sid);
	res = rpc_call(&rpc, "sandbox.destroy", ws, NULL, NULL, &code, err,
	    sizeof(err));
	json_free(res);
	rpc_close(&rpc);
	return rc;
}
