// SPDX-License-Identifier: ISC
/*
 * `airlock matrix [--sandbox on|off] [--network on|off] [--settings FILE]
 * [--socket PATH] [--json]` (SPEC R-A3): for this host and these settings,
 * each way airlock runs an agent or a shell (adapter) against each
 * boundary, and whether the boundary holds: "enforced" by what,
 * "partial" and why, or "not enforced" and why.  Computed from airlockd's
 * live probe (host.status) and the settings layers, never a fixed table:
 * a host without namespaces, --sandbox off, --network off or a missing
 * credentials file each change the answer.
 *
 * The client reads no credential: the credentials file is only looked at
 * (stat), as airlockd alone may read it (R-K1).
 */
#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_opt.h"
#include "common/host/settings.h"
#include "common/json.h"
#include "common/vis.h"
#include "common/xmalloc.h"

/* What the live host and the settings say, the matrix's only inputs. */
struct mx_host {
	int	 probed;	/* airlockd answered host.status */
	int	 sandbox;	/* available, enabled, backend not none */
	char	 backend[32];
	char	 why_not[256];	/* when !sandbox */
	long	 landlock;	/* ABI, 0: none */
	int	 seccomp;
	int	 network;	/* the session's network (--network) */
	int	 proxyd;	/* proxyd installed */
	int	 gatewayd;	/* gatewayd installed */
	int	 creds;		/* the credentials file is there, 0600 */
	char	 creds_why[256];
	size_t	 nhosts;	/* code hosts in the settings */
	size_t	 ndomains;	/* allowedDomains */
	int	 baseline;	/* the curated egress baseline joins */
	int	 acp_pass_fs;	/* acp.passThrough: the editor serves */
	int	 acp_pass_term;
};

enum mx_state { MX_ENFORCED, MX_PARTIAL, MX_NOT };

struct mx_cell {
	enum mx_state	 state;
	char		 text[320];
};

static const char *const adapters[] = {
	"claude", "acp", "harness command", "terminal native",
	"terminal none", NULL,
};
enum { AD_CLAUDE, AD_ACP, AD_HARNESS, AD_TNATIVE, AD_TNONE, AD_MAX };

static const char *const boundaries[] = {
	"worktree", "path checks", "mode surface", "guardrails",
	"credentials", "env", "OS sandbox", "network", "push gateway", NULL,
};
enum { BD_WORKTREE, BD_PATHS, BD_MODE, BD_GUARD, BD_CREDS, BD_ENV,
	BD_SANDBOX, BD_NETWORK, BD_PUSH, BD_MAX };

static void __attribute__((format(printf, 3, 4)))
cell(struct mx_cell *c, enum mx_state st, const char *fmt, ...)
{
	va_list	ap;

	c->state = st;
	va_start(ap, fmt);
	vsnprintf(c->text, sizeof(c->text), fmt, ap);
	va_end(ap);
}

static const char *
state_name(enum mx_state st)
{
	return st == MX_ENFORCED ? "enforced" : st == MX_PARTIAL ? "partial" :
	    "not enforced";
}

/*
 * `airlock acp` where it differs from a harness command: the relay in
 * the sandbox serves the agent's files (airlock-fs) and terminals unless
 * acp.passThrough hands them to the editor, whose process is unconfined.
 * 1 when decided here.
 */
static int
acp_decide(const struct mx_host *h, int sb, const char *os, int bd,
    struct mx_cell *c)
{
	const char *ed = h->acp_pass_fs && h->acp_pass_term ? "fs and "
	    "terminal" : h->acp_pass_fs ? "fs" : "terminal";
	int	    pass = h->acp_pass_fs || h->acp_pass_term;

	switch (bd) {
	case BD_PATHS:
		if (h->acp_pass_fs)
			cell(c, MX_PARTIAL, "acp.passThrough fs: the editor "
			    "writes the agent's files, unchecked%s", sb ?
			    "; the agent's own writes by the filename rules of "
			    "the sandbox" : "");
		else if (sb)
			cell(c, MX_ENFORCED, "airlock-fs in the sandbox for "
			    "fs/* (the workspace, the filename rules), and "
			    "the filename rules of %s", os);
		else
			cell(c, MX_PARTIAL, "airlock-fs judges fs/* paths "
			    "(the workspace, the filename rules); terminal "
			    "commands go unchecked (%s)", h->why_not);
		return 1;
	case BD_MODE:
		if (pass)
			cell(c, MX_PARTIAL, "acp.passThrough %s: the editor "
			    "serves that without a mode%s", ed, sb ? "; the "
			    "sandbox's read-only binds for the rest" : "");
		else if (sb)
			return 0;
		else
			cell(c, MX_PARTIAL, "the relay refuses fs/* writes in "
			    "read-only modes; terminal commands unchecked "
			    "(%s)", h->why_not);
		return 1;
	case BD_GUARD:
		if (h->acp_pass_term)
			cell(c, MX_PARTIAL, "acp.passThrough terminal: the "
			    "editor runs commands, no command policy; "
			    "permission requests the editor leaves get it");
		else
			cell(c, MX_ENFORCED, "the command policy before each "
			    "terminal/create (ask refuses: no approver), and "
			    "for permission requests the editor leaves");
		return 1;
	case BD_CREDS:
		if (sb && pass) {
			cell(c, MX_PARTIAL, "%s: the secret set is unreadable "
			    "to the agent, not to the editor serving %s "
			    "(acp.passThrough)", os, ed);
			return 1;
		}
		return 0;
	case BD_SANDBOX:
		if (sb && pass) {
			cell(c, MX_PARTIAL, "%s, except the %s the editor "
			    "serves (acp.passThrough)", os, ed);
			return 1;
		}
		return 0;
	}
	return 0;
}

static void
bd_worktree(const struct mx_host *h, int ad, int sb, const char *os,
    struct mx_cell *c)
{
	if (sb && ad != AD_TNATIVE)
		cell(c, MX_PARTIAL, "writes stay in the bound "
		    "workspace, by %s; a private worktree only for a "
		    "conversation (`airlock worktree provision`, then "
		    "--conversation)", os);
	else if (sb)
		cell(c, MX_PARTIAL, "the terminal profile writes the "
		    "cwd and $HOME, not a worktree");
	else
		cell(c, MX_NOT, "unconfined: %s", h->why_not);
}

static void
bd_paths(const struct mx_host *h, int ad, int sb, const char *os,
    struct mx_cell *c)
{
	if (ad == AD_CLAUDE && sb)
		cell(c, MX_ENFORCED, "the PreToolUse hook (Write, "
		    "Edit, MultiEdit paths) and the filename rules of "
		    "%s", os);
	else if (ad == AD_CLAUDE)
		cell(c, MX_PARTIAL, "the PreToolUse hook judges the "
		    "file tools' paths; a shell's writes go unchecked "
		    "(%s)", h->why_not);
	else if (sb)
		cell(c, MX_ENFORCED, "the filename rules of %s", os);
	else
		cell(c, MX_NOT, "unconfined: %s", h->why_not);
}

static void
bd_mode(const struct mx_host *h, int ad, int sb, const char *os,
    struct mx_cell *c)
{
	if (ad == AD_TNATIVE)
		cell(c, MX_NOT, "a terminal has no mode: the fixed "
		    "terminal profile applies");
	else if (sb)
		cell(c, MX_ENFORCED, "%s: read-only binds in plan, "
		    "review and orchestrate%s", os, ad == AD_CLAUDE ?
		    ", and the hook" : "");
	else if (ad == AD_CLAUDE)
		cell(c, MX_PARTIAL, "the hook refuses the file tools "
		    "and mutating commands in read-only modes; nothing "
		    "else (%s)", h->why_not);
	else
		cell(c, MX_PARTIAL, "the command policy refuses "
		    "mutating command lines in read-only modes; what "
		    "they run is unchecked (%s)", h->why_not);
}

static void
bd_guard(const struct mx_host *h, int ad, int sb, const char *os,
    struct mx_cell *c)
{
	/* The deciders share one signature. */
	(void)h;
	(void)os;
	if (ad == AD_CLAUDE)
		cell(c, MX_ENFORCED, "the PreToolUse hook, each Bash "
		    "call through the command policy%s", sb ?
		    " (confined: ask with no approver is deny)" : "");
	else if (ad == AD_HARNESS)
		cell(c, MX_ENFORCED, "the command policy, before each "
		    "command line");
	else
		cell(c, MX_NOT, "a person types: no command policy");
}

static void
bd_creds(const struct mx_host *h, int ad, int sb, const char *os,
    struct mx_cell *c)
{
	if (sb)
		cell(c, MX_ENFORCED, "%s: the secret set (~/.ssh, "
		    "~/.aws, ...) is unreadable; %s", os, h->creds ?
		    "code-host tokens stay in airlockd" :
		    "no code-host tokens configured");
	else if (ad == AD_CLAUDE)
		cell(c, MX_PARTIAL, "the hook refuses Bash words and "
		    "reads naming the secret set; nothing else (%s)",
		    h->why_not);
	else
		cell(c, MX_NOT, "unconfined: the secret set is "
		    "readable (%s)", h->why_not);
}

static void
bd_env(const struct mx_host *h, int ad, int sb, const char *os,
    struct mx_cell *c)
{
	/* The deciders share one signature. */
	(void)os;
	if (sb)
		cell(c, MX_ENFORCED, "airlockd's allowlist of variables%s",
		    ad == AD_CLAUDE ? ", plus the provider's key" :
		    "");
	else
		cell(c, MX_PARTIAL, "airlockd's allowlist, for an "
		    "unconfined process (%s)", h->why_not);
}

static void
bd_sandbox(const struct mx_host *h, int ad, int sb, const char *os,
    struct mx_cell *c)
{
	/* The deciders share one signature. */
	(void)ad;
	if (sb)
		cell(c, MX_ENFORCED, "%s", os);
	else
		cell(c, MX_NOT, "%s", h->why_not);
}

static void
bd_network(const struct mx_host *h, int ad, int sb, const char *os,
    struct mx_cell *c)
{
	if (!sb)
		cell(c, MX_NOT, "unconfined: the host's network (%s)",
		    h->why_not);
	else if (ad == AD_TNATIVE)
		cell(c, MX_PARTIAL, "the terminal profile opens every "
		    "domain through proxyd (logged)");
	else if (!h->network)
		cell(c, MX_ENFORCED, "%s: no network at all "
		    "(--network off)", os);
	else if (!h->proxyd)
		cell(c, MX_NOT, "airlock-proxyd is not installed: no "
		    "way out");
	else
		cell(c, MX_ENFORCED, "an empty network namespace; "
		    "proxyd allows %s%zu pattern%s of allowedDomains%s",
		    h->baseline ? "the curated baseline and " : "",
		    h->ndomains, h->ndomains == 1 ? "" : "s",
		    ad == AD_CLAUDE ? " and the provider's host" : "");
}

static void
bd_push(const struct mx_host *h, int ad, int sb, const char *os,
    struct mx_cell *c)
{
	/* The deciders share one signature. */
	(void)os;
	if (ad == AD_TNATIVE)
		cell(c, MX_NOT, "no push gateway in the terminal "
		    "profile: a person pushes with their own tools");
	else if (!sb)
		cell(c, MX_NOT, "unconfined: git pushes straight to "
		    "the remote with the user's credentials");
	else if (!h->network)
		cell(c, MX_ENFORCED, "no network: nothing can be "
		    "pushed");
	else if (!h->gatewayd)
		cell(c, MX_NOT, "airlock-gatewayd is not installed");
	else if (!h->creds)
		cell(c, MX_PARTIAL, "gatewayd applies the push rules "
		    "to %zu code host%s, but has no credentials (%s): "
		    "every push fails", h->nhosts, h->nhosts == 1 ?
		    "" : "s", h->creds_why);
	else
		cell(c, MX_ENFORCED, "gatewayd: the push rules for %zu "
		    "code host%s, airlockd's token", h->nhosts,
		    h->nhosts == 1 ? "" : "s");
}

typedef void (*mx_decider)(const struct mx_host *, int, int, const char *,
    struct mx_cell *);
/* Each boundary's cell for an adapter the early cases left. */
static const mx_decider deciders[] = {
	[BD_WORKTREE] = bd_worktree,
	[BD_PATHS] = bd_paths,
	[BD_MODE] = bd_mode,
	[BD_GUARD] = bd_guard,
	[BD_CREDS] = bd_creds,
	[BD_ENV] = bd_env,
	[BD_SANDBOX] = bd_sandbox,
	[BD_NETWORK] = bd_network,
	[BD_PUSH] = bd_push,
};

/* One adapter against one boundary, from the host alone. */
static void
decide(const struct mx_host *h, int ad, int bd, struct mx_cell *c)
{
	int	 sb = h->sandbox && ad != AD_TNONE;
	char	 os[160];

	snprintf(os, sizeof(os), "the OS sandbox (%s: namespaces%s%s)",
	    h->backend, h->landlock > 0 ? ", Landlock" : "",
	    h->seccomp ? ", seccomp" : "");
	if (ad == AD_ACP && acp_decide(h, sb, os, bd, c))
		return;
	if (ad == AD_TNONE) {
		cell(c, MX_NOT, "backend none is the host shell, by choice");
		return;
	}
	if (ad == AD_TNATIVE && !h->sandbox) {
		cell(c, MX_NOT, "no native terminal here: it fails to open "
		    "(%s)", h->why_not);
		return;
	}
	if (ad == AD_CLAUDE && !h->network) {
		cell(c, MX_NOT, "`airlock claude` does not start without the "
		    "network (its model is remote)");
		return;
	}
	if (bd >= 0 && (size_t)bd < sizeof(deciders) / sizeof(deciders[0]) &&
	    deciders[bd] != NULL)
		deciders[bd](h, ad, sb, os, c);
}

static int
jbool(const struct json *o, const char *k)
{
	const struct json *v = json_get(o, k);

	return v != NULL && v->type == JSON_BOOL && v->boolean;
}

/* The probe's answer into the host record. */
static void
from_status(struct mx_host *h, const struct json *res)
{
	const struct json	*v, *d;
	const char		*s;

	h->probed = 1;
	snprintf(h->backend, sizeof(h->backend), "%s",
	    (s = json_get_str(res, "backend")) != NULL ? s : "none");
	h->sandbox = jbool(res, "available") && jbool(res, "enabled") &&
	    strcmp(h->backend, "none") != 0;
	if ((v = json_get(res, "landlockAbi")) != NULL && v->is_int)
		h->landlock = (long)v->integer;
	h->seccomp = jbool(res, "seccomp");
	d = json_get(res, "daemons");
	h->proxyd = jbool(json_get(d, "proxyd"), "installed");
	h->gatewayd = jbool(json_get(d, "gatewayd"), "installed");
	if (h->sandbox)
		return;
	if (!jbool(res, "enabled"))
		snprintf(h->why_not, sizeof(h->why_not), "the sandbox is "
		    "turned off");
	else if ((v = json_get(res, "reasons")) != NULL &&
	    v->type == JSON_ARRAY && v->n > 0 &&
	    v->items[0]->type == JSON_STRING)
		snprintf(h->why_not, sizeof(h->why_not), "no sandbox: %s",
		    v->items[0]->str);
	else
		snprintf(h->why_not, sizeof(h->why_not), "no sandbox on this "
		    "host");
}

static void
creds_look(struct mx_host *h, const struct settings *s)
{
	struct stat	st;

	if (s->credentials_file == NULL)
		snprintf(h->creds_why, sizeof(h->creds_why), "credentials."
		    "file is not set");
	else if (stat(s->credentials_file, &st) == -1)
		snprintf(h->creds_why, sizeof(h->creds_why), "%s is missing",
		    s->credentials_file);
	else if ((st.st_mode & 077) != 0 || st.st_uid != getuid())
		snprintf(h->creds_why, sizeof(h->creds_why), "%s is not "
		    "yours and 0600", s->credentials_file);
	else
		h->creds = 1;
}

#define MX_ACCEPTED	"it takes --sandbox on|off, --network on|off, " \
	"--settings FILE, --socket PATH and --json"

/* --sandbox and --network: on or off, named as typed when not. */
static int
matrix_onoff(const char *opt, const char *v)
{
	if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
		cli_opt_usage_error("airlock matrix", "%s %s: on or off", opt,
		    vis(v));
	return strcmp(v, "on") == 0;
}

/* The options; the flags a run would take go into h. */
static void
matrix_options(int argc, char **argv, struct mx_host *h, const char **sock,
    const char **file, const char **sandbox, int *json_out)
{
	const char	*a;
	int		 i, known;

	for (i = 1; i < argc; i++) {
		a = argv[i];
		known = strcmp(a, "--socket") == 0 ||
		    strcmp(a, "--settings") == 0 ||
		    strcmp(a, "--sandbox") == 0 || strcmp(a, "--network") == 0;
		if (strcmp(a, "--json") == 0)
			*json_out = 1;
		else if (!known || i + 1 >= argc)
			cli_opt_reject("airlock matrix", a, known, MX_ACCEPTED);
		else if (strcmp(a, "--socket") == 0)
			*sock = argv[++i];
		else if (strcmp(a, "--settings") == 0)
			*file = argv[++i];
		else if (strcmp(a, "--sandbox") == 0) {
			(void)matrix_onoff(a, argv[++i]);
			*sandbox = argv[i];
		} else
			h->network = matrix_onoff(a, argv[++i]);
	}
}

/* What the settings say: credentials, code hosts, passThrough, domains. */
static void
matrix_settings(struct mx_host *h, const struct settings *s)
{
	size_t	k;

	creds_look(h, s);
	h->nhosts = s->nhosts;
	for (k = 0; s->acp_pass_through != NULL &&
	    s->acp_pass_through[k] != NULL; k++) {
		h->acp_pass_fs |= strcmp(s->acp_pass_through[k], "fs") == 0;
		h->acp_pass_term |= strcmp(s->acp_pass_through[k],
		    "terminal") == 0;
	}
	h->baseline = s->egress_baseline;
	for (h->ndomains = 0; s->allowed_domains != NULL &&
	    s->allowed_domains[h->ndomains] != NULL; h->ndomains++)
		;
}

/* The live probe, from the airlockd a run would use. */
static void
matrix_probe(struct mx_host *h, const char *sock, const char *file,
    const char *sandbox)
{
	struct rpc	 rpc;
	struct json	*res = NULL;
	char		 err[512], **extra;
	int		 code;

	extra = rpc_private_args(sandbox, file);
	if ((sock != NULL ? rpc_open(&rpc, sock, 0, NULL, err, sizeof(err)) :
	    rpc_open_private(&rpc, extra, err, sizeof(err))) == -1 ||
	    (res = rpc_call(&rpc, "host.status", NULL, NULL, NULL, &code, err,
	    sizeof(err))) == NULL) {
		snprintf(h->backend, sizeof(h->backend), "none");
		snprintf(h->why_not, sizeof(h->why_not), "airlockd did not "
		    "answer: %.200s", err);
	} else
		from_status(h, res);
	if (sandbox != NULL && strcmp(sandbox, "off") == 0 && h->sandbox) {
		h->sandbox = 0;	/* a shared airlockd ignores our flag */
		snprintf(h->why_not, sizeof(h->why_not), "the sandbox is "
		    "turned off");
	}
	if (rpc.fd != -1)
		rpc_close(&rpc);
	json_free(res);
	strv_free(extra);
}

/* Every adapter against every boundary, as text or one JSON object. */
static void
matrix_print(const struct mx_host *h, int json_out)
{
	struct mx_cell	 c;
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 len;
	int		 a, b;

	jgen_obj_open(j);
	jgen_key(j, "host");
	jgen_obj_open(j);
	jgen_kbool(j, "probed", h->probed);
	jgen_kbool(j, "sandbox", h->sandbox);
	jgen_kstr(j, "backend", h->backend);
	jgen_kbool(j, "network", h->network);
	jgen_kbool(j, "credentials", h->creds);
	jgen_obj_close(j);
	jgen_key(j, "adapters");
	jgen_obj_open(j);
	for (a = 0; adapters[a] != NULL; a++) {
		if (!json_out)
			printf("%s%s:\n", a > 0 ? "\n" : "", adapters[a]);
		jgen_key(j, adapters[a]);
		jgen_obj_open(j);
		for (b = 0; boundaries[b] != NULL; b++) {
			decide(h, a, b, &c);
			if (!json_out)
				printf("  %-13s %s%s\n", boundaries[b],
				    c.state == MX_ENFORCED ? "enforced by " :
				    c.state == MX_PARTIAL ? "partial: " :
				    "not enforced: ", c.text);
			jgen_key(j, boundaries[b]);
			jgen_obj_open(j);
			jgen_kstr(j, "state", state_name(c.state));
			jgen_kstr(j, c.state == MX_ENFORCED ? "by" : "why",
			    c.text);
			jgen_obj_close(j);
		}
		jgen_obj_close(j);
	}
	jgen_obj_close(j);
	jgen_obj_close(j);
	if (json_out) {
		buf = jgen_buf(j, &len);
		printf("%.*s\n", (int)len, buf);
	}
	jgen_free(j);
}

int
cli_matrix_main(int argc, char **argv)
{
	struct mx_host	 h;
	struct settings	 s;
	const char	*sock = NULL, *file = NULL, *sandbox = NULL;
	char		 err[512];
	int		 json_out = 0;

	memset(&h, 0, sizeof(h));
	h.network = 1;
	matrix_options(argc, argv, &h, &sock, &file, &sandbox, &json_out);
	settings_defaults(&s);
	if (settings_load(&s, NULL, file, NULL, err, sizeof(err)) == -1) {
		fprintf(stderr, "airlock: %s\n", err);
		settings_free(&s);
		return 4;
	}
	matrix_settings(&h, &s);
	matrix_probe(&h, sock, file, sandbox);
	matrix_print(&h, json_out);
	settings_free(&s);
	return fflush(stdout) == 0 ? 0 : 1;
}
