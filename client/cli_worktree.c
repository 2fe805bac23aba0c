// SPDX-License-Identifier: ISC
/*
 * `airlock worktree`: a conversation's copy-on-write copies (SPEC §5).
 * The client decides nothing: it asks airlockd (a private one, like
 * `airlock run`, unless --socket or AIRLOCK_SOCKET names a shared one)
 * and prints the answer.
 *
 *   airlock worktree provision --conversation ID [--agent A]... REPO...
 *   airlock worktree ls
 *   airlock worktree rm --conversation ID
 *
 * provision prints the JSON result on stdout; on a terminal, stderr shows
 * a progress line from the worktree.progress notifications (R-W5).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_opt.h"
#include "common/json.h"
#include "common/vis.h"
#include "common/xmalloc.h"

static const char usage_text[] =
"usage: airlock worktree provision --conversation ID [--agent A]... REPO...\n"
"       airlock worktree ls [--json]\n"
"       airlock worktree rm --conversation ID\n"
"  --socket PATH      a shared airlockd (also AIRLOCK_SOCKET)\n"
"  --settings FILE    settings for the private airlockd (worktrees.dataDir)\n";

#define WT_ACCEPTED \
	"it takes --conversation ID, --agent A, --socket PATH, " \
	"--settings FILE and --json"

static void __attribute__((noreturn))
wt_usage(void)
{
	fputs(usage_text, stderr);
	exit(2);
}

struct wt_progress {
	int	 tty;
	int	 shown;
};

static void
wt_progress(const struct json *params, void *arg)
{
	struct wt_progress *p = arg;
	const struct json *f, *b;
	const char	*repo;

	if (!p->tty)
		return;
	f = json_get(params, "files");
	b = json_get(params, "bytes");
	repo = json_get_str(params, "repo");
	if (f == NULL || b == NULL || !f->is_int || !b->is_int)
		return;
	fprintf(stderr, "\rairlock: cloning %s%s%lld files, %.1f MB   ",
	    repo != NULL ? repo : "", repo != NULL ? ": " : "",
	    f->integer, (double)b->integer / 1e6);
	p->shown = 1;
}

static void
print_ls(const struct json *res)
{
	const struct json *cs = json_get(res, "conversations"), *r, *a, *sp;
	size_t		 i, k;

	/* untrusted: names and paths other clients chose. */
	printf("data dir: %s\n", vis(json_get_str(res, "dataDir")));
	for (i = 0; cs != NULL && cs->type == JSON_ARRAY && i < cs->n; i++) {
		printf("%s\n", vis(json_get_str(cs->items[i],
		    "conversationId")));
		r = json_get(cs->items[i], "sources");
		for (k = 0; r != NULL && r->type == JSON_OBJECT && k < r->n;
		    k++)
			printf("  repos/%s  (from %s)\n", vis(r->keys[k]),
			    r->items[k]->type == JSON_STRING ?
			    vis(r->items[k]->str) : "?");
		a = json_get(cs->items[i], "agents");
		for (k = 0; a != NULL && a->type == JSON_OBJECT && k < a->n;
		    k++)
			printf("  agents/%s\n", vis(a->keys[k]));
	}
	sp = json_get(res, "spares");
	for (i = 0; sp != NULL && sp->type == JSON_ARRAY && i < sp->n; i++)
		printf("spare of %s: %s (changes since %s are re-cloned)\n",
		    vis(json_get_str(sp->items[i], "source")),
		    json_get_bool(sp->items[i], "ready", 0) ? "ready" :
		    "being made", vis(json_get_str(sp->items[i], "since")));
}

struct wt_opts {
	const char	*sock, *settings, *conv;
	char		**agents, **repos;
	int		 json_out;
};

/* The options and repositories after the verb; -1: exit 2 said. */
static int
wt_options(int argc, char **argv, struct wt_opts *o)
{
	char	real[PATH_MAX];
	int	i;

	for (i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--json") == 0)
			o->json_out = 1;
		else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage_text, stdout);
			exit(0);
		} else if (a[0] == '-' && a[1] == '-' && i + 1 < argc) {
			if (strcmp(a, "--socket") == 0)
				o->sock = argv[++i];
			else if (strcmp(a, "--settings") == 0)
				o->settings = argv[++i];
			else if (strcmp(a, "--conversation") == 0)
				o->conv = argv[++i];
			else if (strcmp(a, "--agent") == 0)
				o->agents = strv_add(o->agents, argv[++i]);
			else
				cli_opt_reject("airlock worktree", a, 0,
				    WT_ACCEPTED);
		} else if (a[0] == '-')
			cli_opt_reject("airlock worktree", a,
			    strcmp(a, "--socket") == 0 ||
			    strcmp(a, "--settings") == 0 ||
			    strcmp(a, "--conversation") == 0 ||
			    strcmp(a, "--agent") == 0, WT_ACCEPTED);
		else if (realpath(a, real) == NULL) {
			fprintf(stderr, "airlock worktree: %s: %s\n", a,
			    strerror(errno));
			return -1;
		} else
			o->repos = strv_add(o->repos, real);
	}
	return 0;
}

/* The verb's method, its arguments checked (wt_usage() if wrong). */
static const char *
wt_method(const char *cmd, const struct wt_opts *o)
{
	if (strcmp(cmd, "provision") == 0) {
		if (o->conv == NULL || (o->repos == NULL && o->agents == NULL))
			cli_opt_usage_error("airlock worktree", "provision "
			    "needs --conversation ID and a REPO or --agent");
		return "worktree.provision";
	}
	if (strcmp(cmd, "ls") == 0 || strcmp(cmd, "list") == 0) {
		if (o->conv != NULL || o->repos != NULL || o->agents != NULL)
			cli_opt_usage_error("airlock worktree", "ls takes only "
			    "--json, --socket and --settings");
		return "worktree.list";
	}
	if (strcmp(cmd, "rm") == 0 || strcmp(cmd, "remove") == 0) {
		if (o->conv == NULL || o->repos != NULL || o->agents != NULL)
			cli_opt_usage_error("airlock worktree", "rm needs "
			    "--conversation ID, and nothing else");
		return "worktree.remove";
	}
	wt_usage();
	return NULL;
}

static struct jgen *
wt_params(const char *method, const struct wt_opts *o)
{
	struct jgen	*j = jgen_new();
	size_t		 k;

	jgen_obj_open(j);
	if (o->conv != NULL)
		jgen_kstr(j, "conversationId", o->conv);
	if (strcmp(method, "worktree.provision") == 0) {
		jgen_key(j, "repos");
		jgen_arr_open(j);
		for (k = 0; o->repos != NULL && o->repos[k] != NULL; k++)
			jgen_str(j, o->repos[k]);
		jgen_arr_close(j);
		jgen_key(j, "agents");
		jgen_arr_open(j);
		for (k = 0; o->agents != NULL && o->agents[k] != NULL; k++)
			jgen_str(j, o->agents[k]);
		jgen_arr_close(j);
	}
	jgen_obj_close(j);
	return j;
}

int
cli_worktree_main(int argc, char **argv)
{
	struct wt_progress prog = { 0, 0 };
	struct wt_opts	 o;
	struct rpc	 rpc;
	struct json	*res;
	struct jgen	*j;
	const char	*cmd, *method, *buf;
	char		**extra = NULL, err[1024];
	size_t		 len;
	int		 code, rc = 0;

	if (argc < 2)
		wt_usage();
	cmd = argv[1];
	if (strcmp(cmd, "provision") != 0 && strcmp(cmd, "ls") != 0 &&
	    strcmp(cmd, "list") != 0 && strcmp(cmd, "rm") != 0 &&
	    strcmp(cmd, "remove") != 0)
		cli_opt_usage_error("airlock worktree", "unknown verb %s: "
		    "provision, ls or rm", vis(cmd));
	memset(&o, 0, sizeof(o));
	if (wt_options(argc, argv, &o) == -1)
		return 2;
	method = wt_method(cmd, &o);
	j = wt_params(method, &o);
	if (o.sock == NULL && (o.sock = getenv("AIRLOCK_SOCKET")) != NULL &&
	    o.sock[0] == '\0')
		o.sock = NULL;
	extra = rpc_private_args(NULL, o.settings);
	if ((o.sock != NULL ? rpc_open(&rpc, o.sock, 0, NULL, err,
	    sizeof(err)) : rpc_open_private(&rpc, extra, err,
	    sizeof(err))) == -1) {
		fprintf(stderr, "airlock: %s\n", err);
		rc = 1;
		goto out;
	}
	prog.tty = isatty(STDERR_FILENO);
	buf = jgen_buf(j, &len);
	res = rpc_call(&rpc, method, buf, wt_progress, &prog, &code, err,
	    sizeof(err));
	if (prog.shown)
		fputc('\n', stderr);
	if (res == NULL) {
		fprintf(stderr, "airlock worktree %s: %s\n", cmd, err);
		rc = 1;
	} else {
		if (strcmp(method, "worktree.list") == 0 && !o.json_out &&
		    isatty(STDOUT_FILENO))
			print_ls(res);
		else
			cli_print_json(res);
		json_free(res);
	}
	rpc_close(&rpc);
out:
	jgen_free(j);
	strv_free(o.agents);
	strv_free(o.repos);
	strv_free(extra);
	return rc;
}
