// SPDX-License-Identifier: ISC
/*
 * The settings file (see settings.h and docs/SETTINGS.md): built-in
 * defaults, then layers merged in order.  Each layer is checked completely
 * before any of it is applied, so a bad file changes nothing.  Keys set by
 * the managed layer are recorded as locked and no other layer can change
 * them.  The sandbox-runtime format (top-level "network" and
 * "filesystem") maps onto sandbox.*; its keys airlock does not implement
 * are accepted with a note rather than an error, so an srt user's file
 * loads unchanged.
 *
 * Untrusted: the user's and the --settings files are read as untrusted
 * JSON (size-capped, duplicate keys rejected by common/json.c).
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/host/settings.h"
#include "common/inspect.h"
#include "common/json.h"
#include "common/mask.h"
#include "common/vis.h"
#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/guard.h"
#include "policy/push.h"

struct mctx {
	struct settings	*s;
	const char	*origin;
	int		 managed;
	int		 apply;		/* 0: only check */
	int		 srt;		/* the layer is in srt's format */
	char		*err;
	size_t		 errlen;
	char		**seen;		/* keys this layer set */
};

/* srt keys that have no airlock equivalent: accepted, noted, ignored. */
static const char *const srt_network_ignored[] = {
    "allowAllUnixSockets", "allowLocalBinding", "allowManagedDomainsOnly",
    "mitmProxy", NULL };
static const char *const srt_fs_ignored[] = { "allowGitConfig", NULL };
static const char *const srt_top_ignored[] = { "ignoreViolations",
    "enableWeakerNestedSandbox", "enableWeakerNetworkIsolation", "ripgrep",
    "mandatoryDenySearchDepth", "allowPty", "seccomp", NULL };

static int
in_list(const char *s, const char *const *l)
{
	for (; *l != NULL; l++)
		if (strcmp(s, *l) == 0)
			return 1;
	return 0;
}

static int
fail(struct mctx *m, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int
fail(struct mctx *m, const char *key, const char *fmt, ...)
{
	va_list	ap;
	int	n = 0;

	if (m->err == NULL || m->errlen == 0)
		return -1;
	if (key != NULL)
		n = snprintf(m->err, m->errlen, "%s: key %s: ", m->origin, key);
	else
		n = snprintf(m->err, m->errlen, "%s: ", m->origin);
	if (n < 0 || (size_t)n >= m->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(m->err + n, m->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static void
note(struct mctx *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
note(struct mctx *m, const char *fmt, ...)
{
	va_list	 ap;
	char	 buf[512];
	int	 n;

	if (!m->apply)
		return;
	n = snprintf(buf, sizeof(buf), "%s: ", m->origin);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	m->s->notes = strv_add(m->s->notes, buf);
}

void
settings_print_notes(const struct settings *s, const char *prog)
{
	size_t	i, j;

	for (i = 0; s->notes != NULL && s->notes[i] != NULL; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(s->notes[j], s->notes[i]) == 0)
				break;
		if (j == i)
			fprintf(stderr, "%s: warning: %s\n", prog,
			    s->notes[i]);
	}
}

char *
settings_expand_home(const char *p)
{
	const char	*home;
	struct passwd	*pw;
	char		*r;

	if (p == NULL)
		return NULL;
	if (p[0] != '~' || (p[1] != '\0' && p[1] != '/'))
		return xstrdup(p);
	home = getenv("HOME");
	if (home == NULL || home[0] != '/') {
		pw = getpwuid(getuid());
		home = pw != NULL ? pw->pw_dir : "/";
	}
	xasprintf(&r, "%s%s", home, p + 1);
	return r;
}

static char **
strv_empty(void)
{
	return xcalloc(1, sizeof(char *));
}

static void
hosts_free(struct code_host *h, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(h[i].name);
		strv_free(h[i].push_prefixes);
		free(h[i].upstream);
		free(h[i].ca_bundle);
	}
	free(h);
}

static void
push_rules_free(struct push_rule *r, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(r[i].ref);
	free(r);
}

static void	inspect_free(struct inspect_setting *, size_t);

void
settings_free(struct settings *s)
{
	if (s == NULL)
		return;
	strv_free(s->enabled_platforms);
	strv_free(s->allow_write);
	strv_free(s->deny_write);
	strv_free(s->allow_read);
	strv_free(s->deny_read);
	strv_free(s->home_writable);
	strv_free(s->env_pass);
	strv_free(s->acp_pass_through);
	strv_free(s->allowed_domains);
	strv_free(s->denied_domains);
	strv_free(s->allow_unix_sockets);
	hosts_free(s->hosts, s->nhosts);
	strv_free(s->linked_repos);
	push_rules_free(s->push_rules, s->npush_rules);
	free(s->credentials_file);
	free(s->tls_upstream_ca);
	free(s->worktrees_dir);
	strv_free(s->locked);
	strv_free(s->notes);
	strv_free(s->sources);
	free(s->managed_file);
	free(s->unsandboxed_from);
	settings_masks_free(s->masks, s->nmasks);
	inspect_free(s->inspect, s->ninspect);
	free(s->upstream_http);
	free(s->upstream_socks5);
	strv_free(s->upstream_no_proxy);
	free(s->upstream_credential);
	memset(s, 0, sizeof(*s));
}

/*
 * Caches a bound home keeps writable (docs/SETTINGS.md): package
 * downloads that tools verify or merely reuse.  Directories that hold
 * code the host runs (~/.cargo/bin, ~/.npm/_npx, ~/.local/bin) are not
 * among them.
 */
static const char *const home_writable_default[] = {
	"~/.cache", "~/.npm/_cacache", "~/.npm/_logs", "~/.cargo/registry",
	"~/.cargo/git", "~/.m2/repository", "~/.gradle/caches", NULL,
};

void
settings_defaults(struct settings *s)
{
	static const char *const prefixes[] = { "https://github.com/",
	    "git@github.com:", "ssh://git@github.com/", NULL };
	static const struct { const char *ref; enum pol_verdict v; } pr[] = {
		{ "refs/heads/main", POL_DENY },
		{ "refs/heads/release/*", POL_ASK },
		{ "refs/heads/*", POL_ALLOW },
	};
	size_t	i;

	memset(s, 0, sizeof(*s));
	s->sandbox_enabled = 1;
	s->fail_if_unavailable = 0;
	s->allow_unsandboxed = 1;
	s->approvals_timeout = 60;
	s->worktrees_spares = 4;
	s->max_connections = SETTINGS_MAX_CONNECTIONS;
	s->egress_baseline = 1;
	s->enabled_platforms = strv_add(strv_add(NULL, "linux"), "macos");
	s->allow_write = strv_empty();
	s->deny_write = strv_empty();
	s->allow_read = strv_empty();
	s->deny_read = strv_empty();
	s->home_writable = strv_empty();
	for (i = 0; home_writable_default[i] != NULL; i++) {
		char *e = settings_expand_home(home_writable_default[i]);

		s->home_writable = strv_add(s->home_writable, e);
		free(e);
	}
	s->env_pass = strv_empty();
	s->acp_pass_through = strv_empty();
	s->acp_permission_timeout = SETTINGS_ACP_PERMISSION_TIMEOUT;
	s->allowed_domains = strv_empty();
	s->denied_domains = strv_empty();
	s->allow_unix_sockets = strv_empty();
	s->allow_unix_bind = 1;
	pol_rules_default(s->rules);
	s->nhosts = 1;
	s->hosts = xcalloc(1, sizeof(*s->hosts));
	s->hosts[0].name = xstrdup("github");
	s->hosts[0].push_prefixes = strv_empty();
	for (i = 0; prefixes[i] != NULL; i++)
		s->hosts[0].push_prefixes = strv_add(s->hosts[0].push_prefixes,
		    prefixes[i]);
	s->hosts[0].upstream = xstrdup("https://github.com/");
	s->linked_repos = strv_empty();
	s->npush_rules = sizeof(pr) / sizeof(pr[0]);
	s->push_rules = xcalloc(s->npush_rules, sizeof(*s->push_rules));
	for (i = 0; i < s->npush_rules; i++) {
		s->push_rules[i].ref = xstrdup(pr[i].ref);
		s->push_rules[i].action = pr[i].v;
	}
	s->credentials_file =
	    settings_expand_home("~/.config/airlock/credentials.json");
	s->locked = strv_empty();
	s->notes = strv_empty();
}

int
settings_is_locked(const struct settings *s, const char *key)
{
	size_t	i, kl = strlen(key), ll;

	for (i = 0; s->locked != NULL && s->locked[i] != NULL; i++) {
		ll = strlen(s->locked[i]);
		if (strcmp(s->locked[i], key) == 0)
			return 1;
		/* A locked parent locks its children and vice versa. */
		if (ll < kl && strncmp(key, s->locked[i], ll) == 0 &&
		    key[ll] == '.')
			return 1;
		if (kl < ll && strncmp(s->locked[i], key, kl) == 0 &&
		    s->locked[i][kl] == '.')
			return 1;
	}
	return 0;
}

/*
 * May this layer set canonical key?  Errors on a key set twice in one
 * layer (e.g. sandbox.network.allowedDomains and srt's
 * network.allowedDomains); returns 0 (skip) for a key the managed layer
 * locked; records managed keys as locked.
 */
static int
claim(struct mctx *m, const char *key, const char *spelled)
{
	size_t	i;

	for (i = 0; m->seen != NULL && m->seen[i] != NULL; i++)
		if (strcmp(m->seen[i], key) == 0)
			return fail(m, spelled, "set twice (also as %s)", key);
	m->seen = strv_add(m->seen, key);
	if (m->managed) {
		if (m->apply && !settings_is_locked(m->s, key))
			m->s->locked = strv_add(m->s->locked, key);
		return 1;
	}
	if (settings_is_locked(m->s, key)) {
		note(m, "%s is set by managed policy (policyLocked); this "
		    "layer's value is ignored", key);
		return 0;
	}
	return 1;
}

static int
get_bool(struct mctx *m, const char *key, const char *spelled,
    const struct json *v, int *dst)
{
	int	c;

	if (v->type != JSON_BOOL)
		return fail(m, spelled, "expected boolean, got %s",
		    json_type_name(v->type));
	if ((c = claim(m, key, spelled)) <= 0)
		return c;
	if (m->apply)
		*dst = v->boolean != 0;
	return 0;
}

static int
get_strv(struct mctx *m, const char *key, const char *spelled,
    const struct json *v, char ***dst, int expand)
{
	char	**nv;
	size_t	  i;
	int	  c;

	if (v->type != JSON_ARRAY)
		return fail(m, spelled, "expected array of strings, got %s",
		    json_type_name(v->type));
	for (i = 0; i < v->n; i++) {
		if (v->items[i]->type != JSON_STRING)
			return fail(m, spelled, "element %zu: expected string, "
			    "got %s", i, json_type_name(v->items[i]->type));
		if (strlen(v->items[i]->str) != v->items[i]->len)
			return fail(m, spelled, "element %zu: NUL byte", i);
	}
	if ((c = claim(m, key, spelled)) <= 0)
		return c;
	if (!m->apply)
		return 0;
	nv = strv_empty();
	for (i = 0; i < v->n; i++) {
		if (expand) {
			char *e = settings_expand_home(v->items[i]->str);
			nv = strv_add(nv, e);
			free(e);
		} else
			nv = strv_add(nv, v->items[i]->str);
	}
	strv_free(*dst);
	*dst = nv;
	return 0;
}

static int
want_object(struct mctx *m, const char *spelled, const struct json *v)
{
	if (v->type != JSON_OBJECT)
		return fail(m, spelled, "expected object, got %s",
		    json_type_name(v->type));
	return 0;
}

static int
get_string(struct mctx *m, const char *spelled, const struct json *v,
    int nullable)
{
	if (v->type == JSON_NULL && nullable)
		return 0;
	if (v->type != JSON_STRING)
		return fail(m, spelled, "expected string%s, got %s",
		    nullable ? " or null" : "", json_type_name(v->type));
	if (strlen(v->str) != v->len)
		return fail(m, spelled, "NUL byte in string");
	return 0;
}

/* The string lists of one settings object, each at its offset. */
struct list_key {
	const char	*name;
	size_t		 off;	/* of a char ** in struct settings */
};

static const struct list_key fs_keys[] = {
	{ "allowWrite", offsetof(struct settings, allow_write) },
	{ "denyWrite", offsetof(struct settings, deny_write) },
	{ "allowRead", offsetof(struct settings, allow_read) },
	{ "denyRead", offsetof(struct settings, deny_read) },
	{ "homeWritable", offsetof(struct settings, home_writable) },
	{ NULL, 0 }
};

static const struct list_key env_keys[] = {
	{ "pass", offsetof(struct settings, env_pass) },
	{ NULL, 0 }
};

static const struct list_key net_keys[] = {
	{ "allowedDomains", offsetof(struct settings, allowed_domains) },
	{ "deniedDomains", offsetof(struct settings, denied_domains) },
	/* Host unix sockets bound into the sandbox one by one, checked
	 * (absolute, a socket) at launch: supervisor/sv_plan.c. */
	{ "allowUnixSockets", offsetof(struct settings, allow_unix_sockets) },
	{ NULL, 0 }
};

const char *
settings_domain_error(const char *flag, const char *v, char *buf, size_t len)
{
	const char	*why, *accepted = "a host name (example.com), a "
	    "wildcard (*.example.com), either with :PORT, or an IP address "
	    "or CIDR range";
	const char	*s;
	char		 what[300], host[256];

	if (dom_pattern_valid(v, &why))
		return NULL;
	if (flag != NULL)
		snprintf(what, sizeof(what), "%s %s", flag, vis(v));
	else
		snprintf(what, sizeof(what), "\"%s\"", vis(v));
	if ((s = strstr(v, "://")) != NULL) {
		snprintf(host, sizeof(host), "%.*s",
		    (int)strcspn(s + 3, "/?#"), s + 3);
		snprintf(buf, len, "%s: a domain, not a URL: give %s (here: "
		    "%s%s%s%s)", what, accepted, flag != NULL ? flag : "\"",
		    flag != NULL ? " " : "", vis(host), flag != NULL ? "" :
		    "\"");
	} else if (v[0] == '\0')
		snprintf(buf, len, "%s needs a domain: %s", flag != NULL ?
		    flag : "\"\"", accepted);
	else if (strchr(v, '/') != NULL && strchr(v, '.') != NULL &&
	    strspn(v, "0123456789./:abcdefABCDEF") != strlen(v))
		snprintf(buf, len, "%s: a domain has no path: give %s", what,
		    accepted);
	else
		snprintf(buf, len, "%s: not a domain pattern (%s): give %s",
		    what, why, accepted);
	return buf;
}

/*
 * The entries of list k, one by one: one the proxy or the plan could not
 * use would otherwise be left out in silence, an allowance that never
 * works or a denial that never holds.  Domains are checked as
 * --allow-domain's are; an empty path would mean the workspace itself;
 * env.pass takes variable names.
 */
static int
check_entries(struct mctx *m, const char *sp, const char *k,
    const struct json *v)
{
	static const char namech[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_";
	const char	*e;
	char		 buf[1024];
	size_t		 i;

	for (i = 0; v->type == JSON_ARRAY && i < v->n; i++) {
		e = v->items[i]->str;
		if (strcmp(k, "allowedDomains") == 0 ||
		    strcmp(k, "deniedDomains") == 0) {
			if (settings_domain_error(NULL, e, buf,
			    sizeof(buf)) != NULL)
				return fail(m, sp, "element %zu %s", i, buf);
		} else if (strcmp(k, "pass") == 0) {
			if (e[0] == '\0' || (e[0] >= '0' && e[0] <= '9') ||
			    strspn(e, namech) != strlen(e))
				return fail(m, sp, "element %zu \"%s\": not a "
				    "variable name (letters, digits and _, not "
				    "first a digit)", i, vis(e));
		} else if (e[0] == '\0')
			return fail(m, sp, "element %zu is empty: give a path "
			    "(an empty one would name the workspace itself)",
			    i);
	}
	return 0;
}

/* A note for each allowed domain a person should hear about ('*'). */
static void
note_domains(struct mctx *m, const char *sp, const struct json *v)
{
	char	buf[320];
	size_t	i;

	if (v->type != JSON_ARRAY)
		return;
	for (i = 0; i < v->n; i++)
		if (v->items[i]->type == JSON_STRING &&
		    dom_pattern_note(v->items[i]->str, buf, sizeof(buf)) !=
		    NULL)
			note(m, "%s: '%s' %s", sp, v->items[i]->str, buf);
}

/*
 * sandbox.filesystem or sandbox.network (canon), spelled pfx (srt's
 * top-level "filesystem" and "network" too): every key one of keys, a
 * string list (paths with ~ expanded when expand), or one of ignored,
 * sandbox-runtime settings airlock notes and skips.
 */
static void
inspect_free(struct inspect_setting *is, size_t n)
{
	size_t	i;

	for (i = 0; is != NULL && i < n; i++) {
		free(is[i].host);
		free(is[i].rules);
	}
	free(is);
}

static int	mask_host_ok(const char *);
static void	source_set(struct settings *, const char *, const char *);

/*
 * One sandbox.network.tls.inspect[i]: {"host": name, "allow": [rule],
 * "deny": [rule]}, a rule "METHOD" or "METHOD /path" (common/inspect.h);
 * checked, and copied into is when applying.
 */
static int
merge_inspect_one(struct mctx *m, const char *pfx, const struct json *o,
    size_t idx, struct inspect_setting *is)
{
	struct inspect_rule r;
	const struct json *v;
	const char	*why;
	char		 sp[200], line[INSPECT_RULE_MAX + 16];
	char		*rules = NULL;
	size_t		 j, k, nrules = 0;

	snprintf(sp, sizeof(sp), "%s[%zu]", pfx, idx);
	if (want_object(m, sp, o) == -1)
		return -1;
	for (j = 0; j < o->n; j++) {
		const char *kk = o->keys[j];

		v = o->items[j];
		snprintf(sp, sizeof(sp), "%s[%zu].%s", pfx, idx, kk);
		if (strcmp(kk, "host") == 0) {
			if (get_string(m, sp, v, 0) == -1)
				return -1;
			if (!mask_host_ok(v->str))
				return fail(m, sp, "\"%s\" is not a host name "
				    "(no port, no wildcard)", v->str);
			continue;
		}
		if (strcmp(kk, "allow") != 0 && strcmp(kk, "deny") != 0)
			return fail(m, sp, "unknown key (expected host, allow "
			    "or deny)");
		if (v->type != JSON_ARRAY)
			return fail(m, sp, "expected array of \"METHOD /path"
			    "\", got %s", json_type_name(v->type));
		for (k = 0; k < v->n; k++) {
			if (get_string(m, sp, v->items[k], 0) == -1)
				return -1;
			snprintf(line, sizeof(line), "%s %s", kk,
			    v->items[k]->str);
			if (strlen(v->items[k]->str) >= INSPECT_RULE_MAX ||
			    strchr(line, '\n') != NULL ||
			    inspect_rule_parse(line, &r, &why) == -1)
				return fail(m, sp, "\"%s\": %s (expected "
				    "\"METHOD\" or \"METHOD /path\")",
				    v->items[k]->str,
				    strlen(v->items[k]->str) >=
				    INSPECT_RULE_MAX ? "too long" : why);
			if (++nrules > INSPECT_RULES_MAX)
				return fail(m, sp, "more than %d rules",
				    INSPECT_RULES_MAX);
			if (is != NULL) {
				char *t;

				xasprintf(&t, "%s%s\n", rules != NULL ? rules :
				    "", line);
				free(rules);
				rules = t;
			}
		}
	}
	snprintf(sp, sizeof(sp), "%s[%zu]", pfx, idx);
	if (json_get_str(o, "host") == NULL)
		return fail(m, sp, "needs \"host\"");
	if (nrules == 0)
		return fail(m, sp, "needs \"allow\" or \"deny\" rules");
	if (is == NULL)
		return 0;
	is->host = xstrdup(json_get_str(o, "host"));
	for (k = 0; is->host[k] != '\0'; k++)
		is->host[k] = (char)tolower((unsigned char)is->host[k]);
	is->rules = rules;
	return 0;
}

/* sandbox.network.tls.inspect: the whole list, replaced per layer. */
static int
merge_inspect(struct mctx *m, const char *sp, const struct json *a)
{
	struct inspect_setting *is;
	size_t		 i, j;
	int		 c;

	if (a->type != JSON_ARRAY)
		return fail(m, sp, "expected array, got %s",
		    json_type_name(a->type));
	if (a->n > INSPECT_HOSTS_MAX)
		return fail(m, sp, "more than %d hosts", INSPECT_HOSTS_MAX);
	for (i = 0; i < a->n; i++) {
		if (merge_inspect_one(m, sp, a->items[i], i, NULL) == -1)
			return -1;
		for (j = 0; j < i; j++)
			if (strcasecmp(json_get_str(a->items[i], "host"),
			    json_get_str(a->items[j], "host")) == 0)
				return fail(m, sp, "host \"%s\" given twice",
				    json_get_str(a->items[i], "host"));
	}
	if ((c = claim(m, "sandbox.network.tls.inspect", sp)) <= 0 ||
	    !m->apply)
		return c;
	is = xcalloc(a->n ? a->n : 1, sizeof(*is));
	for (i = 0; i < a->n; i++)
		merge_inspect_one(m, sp, a->items[i], i, &is[i]);
	inspect_free(m->s->inspect, m->s->ninspect);
	m->s->inspect = is;
	m->s->ninspect = a->n;
	return 0;
}

/*
 * sandbox.network.tls: {"upstreamCA": path, "inspect": [...]}:
 * upstreamCA names the PEM certificates proxyd verifies a terminated
 * host's server with (docs/SETTINGS.md); without it, the system's
 * bundle.  inspect lists the hosts whose requests are judged by method
 * and path.
 */
static int
merge_net_tls(struct mctx *m, const struct json *o, const char *pfx)
{
	char	sp[160];
	size_t	i;
	int	c;

	if (want_object(m, pfx, o) == -1)
		return -1;
	for (i = 0; i < o->n; i++) {
		snprintf(sp, sizeof(sp), "%s.%s", pfx, o->keys[i]);
		if (strcmp(o->keys[i], "inspect") == 0) {
			if (merge_inspect(m, sp, o->items[i]) == -1)
				return -1;
			continue;
		}
		if (strcmp(o->keys[i], "upstreamCA") != 0)
			return fail(m, sp, "unknown key (expected "
			    "upstreamCA or inspect)");
		if (get_string(m, sp, o->items[i], 0) == -1)
			return -1;
		if (o->items[i]->len == 0)
			return fail(m, sp, "empty");
		if ((c = claim(m, "sandbox.network.tls.upstreamCA", sp)) <= 0)
			return c;
		if (m->apply) {
			free(m->s->tls_upstream_ca);
			m->s->tls_upstream_ca =
			    settings_expand_home(o->items[i]->str);
		}
	}
	return 0;
}

/*
 * An upstream proxy's address: "[http://]HOST:PORT" (http) or
 * "[socks5://]HOST:PORT", HOST an IP literal (IPv6 in brackets) or
 * localhost.  proxyd cannot resolve names once restricted without a
 * second lookup on every dial, so a name is refused here, by key.
 * Returns the normalised "ADDRESS:PORT" in out, or -1.
 */
static int
upstream_addr(struct mctx *m, const char *sp, const char *v,
    const char *scheme, char *out, size_t outlen)
{
	char		 host[80];
	const char	*h = v, *colon;
	uint8_t		 a[16];
	unsigned long	 port;
	char		*end;
	size_t		 hl;
	int		 af;

	if (strncmp(h, "https://", 8) == 0)
		return fail(m, sp, "\"%s\": a TLS connection to the proxy is "
		    "not supported: give its http:// address (proxyd's "
		    "tunnels carry their own TLS)", v);
	if (strncmp(h, scheme, strlen(scheme)) == 0)
		h += strlen(scheme);
	if ((colon = strrchr(h, ':')) == NULL || colon == h)
		return fail(m, sp, "\"%s\": expected %sADDRESS:PORT", v,
		    scheme);
	hl = (size_t)(colon - h);
	if (h[0] == '[' && hl > 2 && h[hl - 1] == ']') {
		h++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return fail(m, sp, "\"%s\": address too long", v);
	memcpy(host, h, hl);
	host[hl] = '\0';
	if (strcmp(host, "localhost") == 0)
		snprintf(host, sizeof(host), "127.0.0.1");
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (!isdigit((unsigned char)colon[1]) || *end != '\0' || errno != 0 ||
	    port < 1 || port > 65535)
		return fail(m, sp, "\"%s\": port must be 1 to 65535", v);
	if (!dom_host_is_ip(host, &af, a))
		return fail(m, sp, "\"%s\": the address must be an IP address "
		    "or localhost (no name, no path)", v);
	snprintf(out, outlen, af == AF_INET6 ? "[%s]:%lu" : "%s:%lu", host,
	    port);
	return 0;
}

static void
upstream_set(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

/*
 * sandbox.network.upstream: {"http": "http://ADDR:PORT", "socks5":
 * "ADDR:PORT", "noProxy": [pattern], "credential": "ENTRY"}: the
 * proxies proxyd dials through after its own decision (docs/SETTINGS.md).
 */
static int
merge_net_upstream(struct mctx *m, const struct json *o, const char *pfx)
{
	char	 sp[160], key[160], a[128];
	const char *why;
	size_t	 i, j;
	int	 c;

	if (want_object(m, pfx, o) == -1)
		return -1;
	for (i = 0; i < o->n; i++) {
		const char *k = o->keys[i];
		const struct json *v = o->items[i];

		snprintf(sp, sizeof(sp), "%s.%s", pfx, k);
		snprintf(key, sizeof(key), "sandbox.network.upstream.%s", k);
		if (strcmp(k, "noProxy") == 0) {
			if (v->type == JSON_ARRAY)
				for (j = 0; j < v->n; j++)
					if (v->items[j]->type == JSON_STRING &&
					    !dom_pattern_valid(v->items[j]->str,
					    &why))
						return fail(m, sp, "\"%s\": %s",
						    v->items[j]->str, why);
			if (get_strv(m, key, sp, v, &m->s->upstream_no_proxy,
			    0) == -1)
				return -1;
			continue;
		}
		if (strcmp(k, "http") != 0 && strcmp(k, "socks5") != 0 &&
		    strcmp(k, "credential") != 0)
			return fail(m, sp, "unknown key (expected http, "
			    "socks5, noProxy or credential)");
		if (get_string(m, sp, v, 0) == -1)
			return -1;
		if (strcmp(k, "credential") == 0) {
			if (v->len == 0 || v->len > 128)
				return fail(m, sp, "expected the name of a "
				    "credentials file entry");
			snprintf(a, sizeof(a), "%s", v->str);
		} else if (upstream_addr(m, sp, v->str, strcmp(k, "http") ==
		    0 ? "http://" : "socks5://", a, sizeof(a)) == -1)
			return -1;
		if ((c = claim(m, key, sp)) <= 0) {
			if (c < 0)
				return -1;
			continue;
		}
		if (!m->apply)
			continue;
		upstream_set(strcmp(k, "http") == 0 ? &m->s->upstream_http :
		    strcmp(k, "socks5") == 0 ? &m->s->upstream_socks5 :
		    &m->s->upstream_credential, a);
	}
	return 0;
}

/*
 * srt's network.httpProxyPort / socksProxyPort (Claude Code's
 * sandbox.network.*): a proxy on the local host the sandbox's traffic
 * goes through.  srt then skips its own
 * filtering; airlock keeps deciding first and dials through it
 * (docs/DECISIONS.md).
 */
static int
merge_srt_proxy_port(struct mctx *m, const char *sp, const char *k,
    const struct json *v)
{
	char	 a[32];
	int	 http = strcmp(k, "httpProxyPort") == 0, c;

	if (!v->is_int || v->integer < 1 || v->integer > 65535)
		return fail(m, sp, "expected a port, 1 to 65535");
	if ((c = claim(m, http ? "sandbox.network.upstream.http" :
	    "sandbox.network.upstream.socks5", sp)) <= 0)
		return c;
	if (!m->apply)
		return 0;
	snprintf(a, sizeof(a), "127.0.0.1:%lld", (long long)v->integer);
	upstream_set(http ? &m->s->upstream_http : &m->s->upstream_socks5, a);
	note(m, "%s: traffic the allowlist admits goes through the proxy on "
	    "127.0.0.1:%lld (airlock still decides first)", sp,
	    (long long)v->integer);
	return 0;
}

static int
merge_lists(struct mctx *m, const struct json *o, const char *pfx,
    const char *canon, const struct list_key *keys,
    const char *const *ignored, int expand)
{
	char			 sp[128], key[128];
	const struct list_key	*lk;
	size_t			 i;

	if (want_object(m, pfx, o) == -1)
		return -1;
	for (i = 0; i < o->n; i++) {
		const char *k = o->keys[i];

		snprintf(sp, sizeof(sp), "%s.%s", pfx, k);
		snprintf(key, sizeof(key), "%s.%s", canon, k);
		for (lk = keys; lk->name != NULL; lk++)
			if (strcmp(k, lk->name) == 0)
				break;
		if (lk->name != NULL) {
			if (get_strv(m, key, sp, o->items[i],
			    (char ***)((char *)m->s + lk->off), expand) == -1)
				return -1;
			if (check_entries(m, sp, k, o->items[i]) == -1)
				return -1;
			if (strcmp(k, "allowedDomains") == 0)
				note_domains(m, sp, o->items[i]);
			/* srt: the user's allowedDomains is the whole
			 * allowlist (no baseline), unless a layer says. */
			if (m->apply && strcmp(pfx, "network") == 0 &&
			    strcmp(k, "allowedDomains") == 0 &&
			    !settings_is_locked(m->s,
			    "sandbox.network.useBaseline")) {
				m->s->egress_baseline = 0;
				source_set(m->s, "sandbox.network.useBaseline",
				    m->origin);
				note(m, "%s: a sandbox-runtime list, so it is "
				    "the whole allowlist (no built-in "
				    "baseline)", sp);
			}
		} else if (strcmp(canon, "sandbox.network") == 0 &&
		    strcmp(pfx, canon) == 0 &&
		    strcmp(k, "maxConnections") == 0) {
			const struct json *v = o->items[i];
			int c;

			/* proxyd's per-session cap (docs/SETTINGS.md). */
			if (!v->is_int || v->integer < 1 ||
			    v->integer > SETTINGS_MAX_CONNECTIONS_MAX)
				return fail(m, sp, "expected an integer, 1 to "
				    "%d", SETTINGS_MAX_CONNECTIONS_MAX);
			if ((c = claim(m, key, sp)) <= 0)
				return c;
			if (m->apply)
				m->s->max_connections = (unsigned)v->integer;
		} else if (strcmp(canon, "sandbox.network") == 0 &&
		    strcmp(k, "tls") == 0) {
			if (merge_net_tls(m, o->items[i], sp) == -1)
				return -1;
		} else if (strcmp(canon, "sandbox.network") == 0 &&
		    strcmp(k, "allowUnixBind") == 0) {
			if (get_bool(m, key, sp, o->items[i],
			    &m->s->allow_unix_bind) == -1)
				return -1;
		} else if (strcmp(canon, "sandbox.network") == 0 &&
		    strcmp(pfx, canon) == 0 && strcmp(k, "upstream") == 0) {
			if (merge_net_upstream(m, o->items[i], sp) == -1)
				return -1;
		} else if (strcmp(canon, "sandbox.network") == 0 &&
		    (strcmp(k, "httpProxyPort") == 0 ||
		    strcmp(k, "socksProxyPort") == 0)) {
			if (merge_srt_proxy_port(m, sp, k, o->items[i]) == -1)
				return -1;
		} else if (strcmp(canon, "sandbox.network") == 0 &&
		    strcmp(k, "useBaseline") == 0) {
			if (get_bool(m, key, sp, o->items[i],
			    &m->s->egress_baseline) == -1)
				return -1;
		} else if (ignored != NULL && in_list(k, ignored))
			note(m, "%s is a sandbox-runtime setting airlock does "
			    "not support; ignored", sp);
		else
			return fail(m, sp, "unknown key");
	}
	return 0;
}

/* sandbox.filesystem, or srt's top-level filesystem. */
static int
merge_fs(struct mctx *m, const struct json *o, const char *pfx)
{
	return merge_lists(m, o, pfx, "sandbox.filesystem", fs_keys,
	    strcmp(pfx, "filesystem") == 0 ? srt_fs_ignored : NULL, 1);
}

/* sandbox.network, or srt's top-level network. */
static int
merge_net(struct mctx *m, const struct json *o, const char *pfx)
{
	return merge_lists(m, o, pfx, "sandbox.network", net_keys,
	    srt_network_ignored, 0);
}

static int
merge_sandbox(struct mctx *m, const struct json *o)
{
	struct settings	*s = m->s;
	char		 sp[128];
	size_t		 i, j;

	if (want_object(m, "sandbox", o) == -1)
		return -1;
	for (i = 0; i < o->n; i++) {
		const char *k = o->keys[i];
		const struct json *v = o->items[i];

		snprintf(sp, sizeof(sp), "sandbox.%s", k);
		if (strcmp(k, "enabled") == 0) {
			if (get_bool(m, sp, sp, v, &s->sandbox_enabled) == -1)
				return -1;
		} else if (strcmp(k, "failIfUnavailable") == 0) {
			if (get_bool(m, sp, sp, v,
			    &s->fail_if_unavailable) == -1)
				return -1;
		} else if (strcmp(k, "allowUnsandboxedCommands") == 0) {
			int was = s->allow_unsandboxed;

			if (get_bool(m, sp, sp, v, &s->allow_unsandboxed) == -1)
				return -1;
			if (m->apply && (was != s->allow_unsandboxed ||
			    m->managed)) {
				free(s->unsandboxed_from);
				s->unsandboxed_from = xstrdup(m->origin);
			}
		} else if (strcmp(k, "enabledPlatforms") == 0) {
			if (v->type == JSON_ARRAY)
				for (j = 0; j < v->n; j++)
					if (v->items[j]->type == JSON_STRING &&
					    strcmp(v->items[j]->str,
					    "linux") != 0 &&
					    strcmp(v->items[j]->str,
					    "macos") != 0)
						return fail(m, sp, "unknown "
						    "platform \"%.40s\" "
						    "(linux, "
						    "macos)", v->items[j]->str);
			if (get_strv(m, sp, sp, v, &s->enabled_platforms,
			    0) == -1)
				return -1;
		} else if (strcmp(k, "filesystem") == 0) {
			if (merge_fs(m, v, "sandbox.filesystem") == -1)
				return -1;
		} else if (strcmp(k, "network") == 0) {
			if (merge_net(m, v, "sandbox.network") == -1)
				return -1;
		} else if (strcmp(k, "allowTerminalControl") == 0) {
			/* Output's terminal-acting escapes pass. */
			if (get_bool(m, sp, sp, v,
			    &s->allow_term_control) == -1)
				return -1;
		} else if (strcmp(k, "env") == 0) {
			/* Names passed into every run on purpose (R-L9). */
			if (merge_lists(m, v, sp, sp, env_keys, NULL, 0) == -1)
				return -1;
		} else
			return fail(m, sp, "unknown key");
	}
	return 0;
}

static int
merge_rules(struct mctx *m, const struct json *o)
{
	enum pol_class	 c;
	enum pol_verdict vd;
	char		 sp[128];
	size_t		 i;
	int		 rv;

	if (want_object(m, "rules", o) == -1)
		return -1;
	for (i = 0; i < o->n; i++) {
		snprintf(sp, sizeof(sp), "rules.%s", o->keys[i]);
		if (pol_class_parse(o->keys[i], &c) == -1)
			return fail(m, sp, "unknown effect class ("
			    "create-commit,"
			    " open-pull-request, publish-review-or-merge, "
			    "write-external-tracker, install-package, "
			    "network-access)");
		if (o->items[i]->type != JSON_STRING ||
		    pol_verdict_parse(o->items[i]->str, &vd) == -1)
			return fail(m, sp, "expected \"allow\", \"ask\" or "
			    "\"deny\"");
		if ((rv = claim(m, sp, sp)) == -1)
			return -1;
		if (rv == 1 && m->apply)
			m->s->rules[c] = vd;
	}
	return 0;
}

static int
merge_hosts(struct mctx *m, const struct json *a)
{
	struct code_host *h = NULL;
	char		  sp[128];
	size_t		  i, j, k, n = 0;
	int		  c;

	if (a->type != JSON_ARRAY)
		return fail(m, "git.codeHosts", "expected array, got %s",
		    json_type_name(a->type));
	for (i = 0; i < a->n; i++) {
		const struct json *o = a->items[i];
		int have_name = 0, have_up = 0;

		snprintf(sp, sizeof(sp), "git.codeHosts[%zu]", i);
		if (want_object(m, sp, o) == -1)
			return -1;
		for (j = 0; j < o->n; j++) {
			const char *kk = o->keys[j];
			const struct json *v = o->items[j];

			snprintf(sp, sizeof(sp), "git.codeHosts[%zu].%s", i,
			    kk);
			if (strcmp(kk, "name") == 0 ||
			    strcmp(kk, "upstream") == 0) {
				if (get_string(m, sp, v, 0) == -1)
					return -1;
				if (v->len == 0)
					return fail(m, sp, "empty");
				if (kk[0] == 'n')
					have_name = 1;
				else
					have_up = 1;
			} else if (strcmp(kk, "caBundle") == 0) {
				if (get_string(m, sp, v, 1) == -1)
					return -1;
			} else if (strcmp(kk, "caseInsensitive") == 0) {
				if (v->type != JSON_BOOL)
					return fail(m, sp, "expected boolean");
			} else if (strcmp(kk, "pushUrlPrefixes") == 0) {
				if (v->type != JSON_ARRAY)
					return fail(m, sp, "expected array of "
					    "strings");
				for (k = 0; k < v->n; k++)
					if (get_string(m, sp, v->items[k],
					    0) == -1)
						return -1;
			} else
				return fail(m, sp, "unknown key");
		}
		snprintf(sp, sizeof(sp), "git.codeHosts[%zu]", i);
		if (!have_name)
			return fail(m, sp, "missing \"name\"");
		if (!have_up)
			return fail(m, sp, "missing \"upstream\"");
	}
	if ((c = claim(m, "git.codeHosts", "git.codeHosts")) <= 0 || !m->apply)
		return c;
	h = xcalloc(a->n ? a->n : 1, sizeof(*h));
	for (i = 0; i < a->n; i++) {
		const struct json *o = a->items[i], *v;

		h[i].name = xstrdup(json_get_str(o, "name"));
		h[i].upstream = xstrdup(json_get_str(o, "upstream"));
		if (json_get_str(o, "caBundle") != NULL)
			h[i].ca_bundle = settings_expand_home(
			    json_get_str(o, "caBundle"));
		h[i].case_sensitive = !json_get_bool(o, "caseInsensitive", 1);
		h[i].push_prefixes = strv_empty();
		if ((v = json_get(o, "pushUrlPrefixes")) != NULL)
			for (k = 0; k < v->n; k++)
				h[i].push_prefixes = strv_add(
				    h[i].push_prefixes, v->items[k]->str);
		n++;
	}
	hosts_free(m->s->hosts, m->s->nhosts);
	m->s->hosts = h;
	m->s->nhosts = n;
	return 0;
}

static int
merge_push_rules(struct mctx *m, const struct json *a)
{
	struct push_rule *r;
	enum pol_verdict  vd;
	char		  sp[128];
	size_t		  i, j;
	int		  c;

	if (a->type != JSON_ARRAY)
		return fail(m, "git.pushRules", "expected array, got %s",
		    json_type_name(a->type));
	for (i = 0; i < a->n; i++) {
		const struct json *o = a->items[i];
		int have_ref = 0, have_action = 0;

		snprintf(sp, sizeof(sp), "git.pushRules[%zu]", i);
		if (want_object(m, sp, o) == -1)
			return -1;
		for (j = 0; j < o->n; j++) {
			snprintf(sp, sizeof(sp), "git.pushRules[%zu].%s", i,
			    o->keys[j]);
			if (strcmp(o->keys[j], "ref") == 0) {
				if (get_string(m, sp, o->items[j], 0) == -1)
					return -1;
				if (o->items[j]->len == 0)
					return fail(m, sp, "empty");
				have_ref = 1;
			} else if (strcmp(o->keys[j], "action") == 0) {
				if (o->items[j]->type != JSON_STRING ||
				    pol_verdict_parse(o->items[j]->str,
				    &vd) == -1)
					return fail(m, sp, "expected \"allow\","
					    " \"ask\" or \"deny\"");
				have_action = 1;
			} else
				return fail(m, sp, "unknown key");
		}
		snprintf(sp, sizeof(sp), "git.pushRules[%zu]", i);
		if (!have_ref || !have_action)
			return fail(m, sp, "needs \"ref\" and \"action\"");
	}
	if ((c = claim(m, "git.pushRules", "git.pushRules")) <= 0 || !m->apply)
		return c;
	r = xcalloc(a->n ? a->n : 1, sizeof(*r));
	for (i = 0; i < a->n; i++) {
		r[i].ref = xstrdup(json_get_str(a->items[i], "ref"));
		pol_verdict_parse(json_get_str(a->items[i], "action"),
		    &r[i].action);
	}
	push_rules_free(m->s->push_rules, m->s->npush_rules);
	m->s->push_rules = r;
	m->s->npush_rules = a->n;
	return 0;
}

static int
merge_git(struct mctx *m, const struct json *o)
{
	char	sp[128];
	size_t	i;

	if (want_object(m, "git", o) == -1)
		return -1;
	for (i = 0; i < o->n; i++) {
		snprintf(sp, sizeof(sp), "git.%s", o->keys[i]);
		if (strcmp(o->keys[i], "codeHosts") == 0) {
			if (merge_hosts(m, o->items[i]) == -1)
				return -1;
		} else if (strcmp(o->keys[i], "pushRules") == 0) {
			if (merge_push_rules(m, o->items[i]) == -1)
				return -1;
		} else if (strcmp(o->keys[i], "linkedRepos") == 0) {
			if (get_strv(m, sp, sp, o->items[i],
			    &m->s->linked_repos, 0) == -1)
				return -1;
		} else
			return fail(m, sp, "unknown key");
	}
	return 0;
}

void
settings_masks_free(struct mask_setting *ms, size_t n)
{
	size_t	i;

	for (i = 0; ms != NULL && i < n; i++) {
		free(ms[i].name);
		free(ms[i].host);
		free(ms[i].field);
		strv_free(ms[i].command);
	}
	free(ms);
}

/* A variable name a shell accepts: [A-Za-z_][A-Za-z0-9_]*. */
static int
mask_name_ok(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* A host name as the allowlist spells one: no port, no wildcard. */
static int
mask_host_ok(const char *s)
{
	size_t	n = strlen(s);

	if (n == 0 || n > 253 || *s == '.' || s[n - 1] == '.')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '.')
			return 0;
	return 1;
}

/* An HTTP token (a header or parameter name). */
static int
mask_field_ok(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f || *s == ':' ||
		    *s == '=' || *s == '&' || *s == '?' || *s == '#')
			return 0;
	return 1;
}

/* One credentials.mask[i]: checked, and copied into ms when applying. */
static int
merge_mask_one(struct mctx *m, const struct json *o, size_t idx,
    struct mask_setting *ms)
{
	const struct json *v;
	char		   sp[128];
	size_t		   j, k, nwhere = 0;

	snprintf(sp, sizeof(sp), "credentials.mask[%zu]", idx);
	if (want_object(m, sp, o) == -1)
		return -1;
	for (j = 0; j < o->n; j++) {
		const char *kk = o->keys[j];

		v = o->items[j];
		snprintf(sp, sizeof(sp), "credentials.mask[%zu].%s", idx, kk);
		if (strcmp(kk, "name") == 0 || strcmp(kk, "host") == 0 ||
		    strcmp(kk, "header") == 0 || strcmp(kk, "query") == 0) {
			if (get_string(m, sp, v, 0) == -1)
				return -1;
			if (kk[0] == 'n' && !mask_name_ok(v->str))
				return fail(m, sp, "\"%s\" is not a variable "
				    "name", v->str);
			if (kk[0] == 'h' && !mask_host_ok(v->str))
				return fail(m, sp, "\"%s\" is not a host name "
				    "(no port, no wildcard)", v->str);
			if ((kk[0] == 'q' || kk[1] == 'e') &&
			    !mask_field_ok(v->str))
				return fail(m, sp, "\"%s\" is not a %s name",
				    v->str, kk[0] == 'q' ? "parameter" :
				    "header");
			if (kk[0] == 'q' || kk[1] == 'e')
				nwhere++;
		} else if (strcmp(kk, "basic") == 0) {
			if (v->type != JSON_BOOL || !v->boolean)
				return fail(m, sp, "expected true");
			nwhere++;
		} else if (strcmp(kk, "source") == 0) {
			const struct json *c;

			if (v->type == JSON_STRING &&
			    strcmp(v->str, "file") == 0)
				continue;
			if (v->type != JSON_OBJECT || v->n != 1 ||
			    (c = json_get(v, "command")) == NULL ||
			    c->type != JSON_ARRAY || c->n == 0)
				return fail(m, sp, "expected \"file\" or "
				    "{\"command\": [\"prog\", ...]}");
			for (k = 0; k < c->n; k++)
				if (get_string(m, sp, c->items[k], 0) == -1)
					return -1;
			/* As in the credentials file: no $PATH search. */
			if (c->items[0]->str[0] != '/')
				return fail(m, sp, "the command's program must "
				    "be an absolute path");
		} else
			return fail(m, sp, "unknown key (expected name, host, "
			    "header, query, basic or source)");
	}
	snprintf(sp, sizeof(sp), "credentials.mask[%zu]", idx);
	if (json_get_str(o, "name") == NULL || json_get_str(o, "host") == NULL)
		return fail(m, sp, "needs \"name\" and \"host\"");
	if (nwhere != 1)
		return fail(m, sp, "needs exactly one of \"header\", "
		    "\"query\" or \"basic\" (where the real value goes)");
	if (ms == NULL)
		return 0;
	ms->name = xstrdup(json_get_str(o, "name"));
	ms->host = xstrdup(json_get_str(o, "host"));
	for (k = 0; ms->host[k] != '\0'; k++)
		ms->host[k] = (char)tolower((unsigned char)ms->host[k]);
	if (json_get_str(o, "header") != NULL) {
		ms->where = MASK_HEADER;
		ms->field = xstrdup(json_get_str(o, "header"));
	} else if (json_get_str(o, "query") != NULL) {
		ms->where = MASK_QUERY;
		ms->field = xstrdup(json_get_str(o, "query"));
	} else
		ms->where = MASK_BASIC;
	if ((v = json_get(o, "source")) != NULL && v->type == JSON_OBJECT) {
		v = json_get(v, "command");
		ms->command = strv_empty();
		for (k = 0; k < v->n; k++)
			ms->command = strv_add(ms->command, v->items[k]->str);
	}
	return 0;
}

/* credentials.mask: the whole list, replaced per layer. */
static int
merge_masks(struct mctx *m, const struct json *a)
{
	struct mask_setting *ms;
	size_t		     i, j;
	int		     c;

	if (a->type != JSON_ARRAY)
		return fail(m, "credentials.mask", "expected array, got %s",
		    json_type_name(a->type));
	for (i = 0; i < a->n; i++) {
		if (merge_mask_one(m, a->items[i], i, NULL) == -1)
			return -1;
		for (j = 0; j < i; j++)
			if (strcmp(json_get_str(a->items[i], "name"),
			    json_get_str(a->items[j], "name")) == 0)
				return fail(m, "credentials.mask", "name \"%s\" "
				    "given twice", json_get_str(a->items[i],
				    "name"));
	}
	if ((c = claim(m, "credentials.mask", "credentials.mask")) <= 0 ||
	    !m->apply)
		return c;
	ms = xcalloc(a->n ? a->n : 1, sizeof(*ms));
	for (i = 0; i < a->n; i++)
		merge_mask_one(m, a->items[i], i, &ms[i]);
	settings_masks_free(m->s->masks, m->s->nmasks);
	m->s->masks = ms;
	m->s->nmasks = a->n;
	return 0;
}

static int
merge_credentials(struct mctx *m, const struct json *o)
{
	size_t	i;
	int	c;

	/* srt has a credentials section of its own: in an srt-format file
	 * it is warned about and ignored, not fatal, so the file loads. */
	if (!m->srt && want_object(m, "credentials", o) == -1)
		return -1;
	if (o->type != JSON_OBJECT) {
		note(m, "credentials: not airlock's {\"file\": …} (a "
		    "sandbox-runtime section?); ignored");
		return 0;
	}
	for (i = 0; i < o->n; i++) {
		if (!m->srt && strcmp(o->keys[i], "mask") == 0) {
			if (merge_masks(m, o->items[i]) == -1)
				return -1;
			continue;
		}
		if (strcmp(o->keys[i], "file") != 0) {
			char sp[128];

			snprintf(sp, sizeof(sp), "credentials.%s", o->keys[i]);
			if (!m->srt)
				return fail(m, sp, "unknown key");
			note(m, "credentials.%s is not supported (a "
			    "sandbox-runtime credentials setting?); ignored",
			    o->keys[i]);
			continue;
		}
		if (get_string(m, "credentials.file", o->items[i], 0) == -1)
			return -1;
		if (o->items[i]->len == 0)
			return fail(m, "credentials.file", "empty");
		if ((c = claim(m, "credentials.file", "credentials.file")) <= 0)
			return c;
		if (m->apply) {
			free(m->s->credentials_file);
			m->s->credentials_file =
			    settings_expand_home(o->items[i]->str);
		}
	}
	return 0;
}

/* approvals.timeoutSeconds: 1 .. 86400, default 60. */
static int
merge_approvals(struct mctx *m, const struct json *o)
{
	size_t	i;
	int	c;

	if (want_object(m, "approvals", o) == -1)
		return -1;
	for (i = 0; i < o->n; i++) {
		const struct json *v = o->items[i];

		if (strcmp(o->keys[i], "timeoutSeconds") != 0)
			return fail(m, o->keys[i], "unknown key");
		if (!v->is_int || v->integer < 1 || v->integer > 86400)
			return fail(m, "approvals.timeoutSeconds", "expected "
			    "an integer of seconds, 1 to 86400");
		if ((c = claim(m, "approvals.timeoutSeconds",
		    "approvals.timeoutSeconds")) <= 0)
			return c;
		if (m->apply)
			m->s->approvals_timeout = (unsigned)v->integer;
	}
	return 0;
}

/*
 * worktrees.dataDir: where conversations' copies live;
 * worktrees.spares: how many repositories airlockd keeps a spare copy of.
 */
static int
merge_worktrees(struct mctx *m, const struct json *o)
{
	const struct json *v;
	size_t	i;
	int	c;

	if (want_object(m, "worktrees", o) == -1)
		return -1;
	for (i = 0; i < o->n; i++) {
		v = o->items[i];
		if (strcmp(o->keys[i], "spares") == 0) {
			if (!v->is_int || v->integer < 0 || v->integer > 64)
				return fail(m, "worktrees.spares", "expected "
				    "an integer, 0 to 64");
			if ((c = claim(m, "worktrees.spares",
			    "worktrees.spares")) <= 0)
				return c;
			if (m->apply)
				m->s->worktrees_spares = (int)v->integer;
			continue;
		}
		if (strcmp(o->keys[i], "dataDir") != 0) {
			char sp[128];

			snprintf(sp, sizeof(sp), "worktrees.%s", o->keys[i]);
			return fail(m, sp, "unknown key");
		}
		if (get_string(m, "worktrees.dataDir", v, 0) == -1)
			return -1;
		if (v->len == 0)
			return fail(m, "worktrees.dataDir", "empty");
		if ((c = claim(m, "worktrees.dataDir",
		    "worktrees.dataDir")) <= 0)
			return c;
		if (m->apply) {
			free(m->s->worktrees_dir);
			m->s->worktrees_dir = settings_expand_home(v->str);
		}
	}
	return 0;
}

/* acp.passThrough: what `airlock acp` leaves to the editor;
 * acp.permissionTimeout: how long it waits for the editor's answer. */
static int
merge_acp(struct mctx *m, const struct json *o)
{
	static const char *const what[] = { "fs", "terminal", NULL };
	const struct json *v;
	size_t	i, k;

	if (want_object(m, "acp", o) == -1)
		return -1;
	for (i = 0; i < o->n; i++) {
		char sp[128];

		snprintf(sp, sizeof(sp), "acp.%s", o->keys[i]);
		v = o->items[i];
		if (strcmp(o->keys[i], "permissionTimeout") == 0) {
			int c;

			if (!v->is_int || v->integer < 0 ||
			    v->integer > 86400)
				return fail(m, sp, "expected a number of "
				    "seconds, 0 (wait for ever) to 86400");
			if ((c = claim(m, sp, sp)) <= 0)
				return c;
			if (m->apply)
				m->s->acp_permission_timeout = (int)v->integer;
			continue;
		}
		if (strcmp(o->keys[i], "passThrough") != 0)
			return fail(m, sp, "unknown key");
		for (k = 0; v->type == JSON_ARRAY && k < v->n; k++)
			if (v->items[k]->type == JSON_STRING &&
			    !in_list(v->items[k]->str, what))
				return fail(m, sp, "element %zu: \"fs\" or "
				    "\"terminal\"", k);
		if (get_strv(m, "acp.passThrough", sp, v,
		    &m->s->acp_pass_through, 0) == -1)
			return -1;
	}
	return 0;
}

static int
merge_root(struct mctx *m, const struct json *root)
{
	size_t	i;
	int	rv = 0;

	if (root->type != JSON_OBJECT)
		return fail(m, NULL, "the top level must be an object");
	m->srt = json_get(root, "network") != NULL ||
	    json_get(root, "filesystem") != NULL;
	for (i = 0; i < root->n && rv == 0; i++) {
		const char *k = root->keys[i];
		const struct json *v = root->items[i];

		if (strcmp(k, "sandbox") == 0)
			rv = merge_sandbox(m, v);
		else if (strcmp(k, "rules") == 0)
			rv = merge_rules(m, v);
		else if (strcmp(k, "git") == 0)
			rv = merge_git(m, v);
		else if (strcmp(k, "credentials") == 0)
			rv = merge_credentials(m, v);
		else if (strcmp(k, "worktrees") == 0)
			rv = merge_worktrees(m, v);
		else if (strcmp(k, "acp") == 0)
			rv = merge_acp(m, v);
		else if (strcmp(k, "network") == 0)
			rv = merge_net(m, v, "network");
		else if (strcmp(k, "filesystem") == 0)
			rv = merge_fs(m, v, "filesystem");
		else if (strcmp(k, "approvals") == 0)
			rv = merge_approvals(m, v);
		else if (strcmp(k, "$schema") == 0)
			continue;
		else if (in_list(k, srt_top_ignored))
			note(m, "%s is a sandbox-runtime setting airlock does "
			    "not support; ignored", k);
		else
			rv = fail(m, k, "unknown key");
	}
	return rv;
}

/* key was set by file: its "key\tfile" in s->sources, replaced. */
static void
source_set(struct settings *s, const char *key, const char *file)
{
	char	*e;
	size_t	 i, kl = strlen(key);

	for (i = 0; s->sources != NULL && s->sources[i] != NULL; i++)
		if (strncmp(s->sources[i], key, kl) == 0 &&
		    s->sources[i][kl] == '\t') {
			free(s->sources[i]);
			xasprintf(&s->sources[i], "%s\t%s", key, file);
			return;
		}
	xasprintf(&e, "%s\t%s", key, file);
	s->sources = strv_add(s->sources, e);
	free(e);
}

/*
 * Which file set each key (settings --explain): every leaf of the layer,
 * spelled as in the file (srt's network and filesystem under sandbox.),
 * "key\tfile", replacing an earlier layer's.
 */
static void
record_sources(struct settings *s, const struct json *v, const char *key,
    const char *file)
{
	char	*k;
	size_t	 i;

	if (v->type == JSON_OBJECT && v->n > 0) {
		for (i = 0; i < v->n; i++) {
			/* srt's top-level network and filesystem are
			 * sandbox.network and sandbox.filesystem: one key
			 * whichever layer spelled it how. */
			if (key == NULL && (strcmp(v->keys[i], "network") ==
			    0 || strcmp(v->keys[i], "filesystem") == 0))
				xasprintf(&k, "sandbox.%s", v->keys[i]);
			else if (key == NULL)
				k = xstrdup(v->keys[i]);
			else
				xasprintf(&k, "%s.%s", key, v->keys[i]);
			record_sources(s, v->items[i], k, file);
			free(k);
		}
		return;
	}
	if (key != NULL)
		source_set(s, key, file);
}

int
settings_merge_text(struct settings *s, const char *text, size_t len,
    const char *origin, int managed, char *err, size_t errlen)
{
	struct mctx	 m;
	struct json	*root;
	char		 jerr[256];
	int		 rv;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	memset(&m, 0, sizeof(m));
	m.s = s;
	m.origin = origin != NULL ? origin : "settings";
	m.managed = managed;
	m.err = err;
	m.errlen = errlen;
	if ((root = json_parse(text, len, jerr, sizeof(jerr))) == NULL)
		return fail(&m, NULL, "%s", jerr);
	/* Check the whole layer first: a bad file changes nothing. */
	rv = merge_root(&m, root);
	strv_free(m.seen);
	m.seen = NULL;
	if (rv == 0) {
		m.apply = 1;
		rv = merge_root(&m, root);
		strv_free(m.seen);
		if (rv == 0)
			record_sources(s, root, NULL, m.origin);
		if (managed) {
			free(s->managed_file);
			s->managed_file = xstrdup(m.origin);
		}
	}
	json_free(root);
	return rv;
}

const char *
settings_forbid_unconfined(const struct settings *s, char *buf, size_t len)
{
	if (s->sandbox_enabled && settings_is_locked(s, "sandbox.enabled")) {
		snprintf(buf, len, "managed policy %s sets sandbox.enabled: "
		    "true", s->managed_file != NULL ? s->managed_file :
		    SETTINGS_MANAGED_PATH);
		return buf;
	}
	if (!s->allow_unsandboxed) {
		int managed = settings_is_locked(s,
		    "sandbox.allowUnsandboxedCommands");

		snprintf(buf, len, "%s%s sets sandbox.allowUnsandboxedCommands:"
		    " false", managed ? "managed policy " : "",
		    s->unsandboxed_from != NULL ? s->unsandboxed_from :
		    "settings");
		return buf;
	}
	return NULL;
}

static int load_one(struct settings *, const char *, int, int, char *,
    size_t);

/*
 * The managed layer as it is on disk now.  airlockd reads every layer
 * at its start and lives for weeks; a lock an admin installs meanwhile
 * holds from the next unconfined command, not from airlockd's next
 * start.  A managed file that is there but cannot be taken (unreadable,
 * malformed, writable by others) forbids: a broken lock is no
 * permission.
 */
const char *
settings_managed_forbids(char *buf, size_t len)
{
	struct settings	 m;
	const char	*why;
	char		 err[512];

	settings_defaults(&m);
	if (load_one(&m, SETTINGS_MANAGED_PATH, 1, 1, err, sizeof(err)) ==
	    -1) {
		snprintf(buf, len, "managed policy cannot be taken (%s)", err);
		why = buf;
	} else
		why = settings_forbid_unconfined(&m, buf, len);
	settings_free(&m);
	return why;
}

/* Read a whole settings file; 1 if absent and optional. */
static int
read_file(const char *path, int optional, int managed, char **out,
    size_t *lenp, char *err, size_t errlen)
{
	struct stat	 st;
	char		*buf;
	size_t		 off = 0;
	ssize_t		 r;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1) {
		if (optional && errno == ENOENT)
			return 1;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (managed && (st.st_mode & (S_IWGRP | S_IWOTH))) {
		/* Anyone who can write it could unlock the policy. */
		snprintf(err, errlen, "%s: managed settings must not be "
		    "writable by group or others", path);
		close(fd);
		return -1;
	}
	if ((size_t)st.st_size > JSON_MAX_INPUT) {
		snprintf(err, errlen, "%s: larger than %u bytes", path,
		    JSON_MAX_INPUT);
		close(fd);
		return -1;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (off < (size_t)st.st_size) {
		r = read(fd, buf + off, (size_t)st.st_size - off);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		off += (size_t)r;
	}
	close(fd);
	buf[off] = '\0';
	*out = buf;
	*lenp = off;
	return 0;
}

static int
load_one(struct settings *s, const char *path, int optional, int managed,
    char *err, size_t errlen)
{
	char	*buf = NULL;
	size_t	 len = 0;
	int	 rv;

	rv = read_file(path, optional, managed, &buf, &len, err, errlen);
	if (rv != 0)
		return rv == 1 ? 0 : -1;
	rv = settings_merge_text(s, buf, len, path, managed, err, errlen);
	free(buf);
	return rv;
}

/*
 * An srt user's settings: with no airlock settings file of the user's
 * and a ~/.srt-settings.json (sandbox-runtime's), that file is the user
 * layer -- its format is understood (srt.sh) -- and a note says so, once
 * per command that prints notes.  Returns the file to load; frees def
 * when it is replaced.
 */
static char *
srt_fallback(struct settings *s, char *def)
{
	char		*srt;
	struct stat	 st;

	if (def == NULL || stat(def, &st) == 0 || errno != ENOENT)
		return def;
	srt = settings_expand_home("~/.srt-settings.json");
	if (srt == NULL || stat(srt, &st) == -1) {
		free(srt);
		return def;
	}
	{
		char *n;

		xasprintf(&n, "no %s: using srt's settings, %s", def, srt);
		s->notes = strv_add(s->notes, n);
		free(n);
	}
	free(def);
	return srt;
}

int
settings_load(struct settings *s, const char *user_file, const char *cli_file,
    const char *managed_file, char *err, size_t errlen)
{
	char	*def = NULL;
	int	 rv;

	if (user_file == NULL) {
		def = settings_expand_home("~/.config/airlock/settings.json");
		def = srt_fallback(s, def);
	}
	rv = load_one(s, user_file != NULL ? user_file : def,
	    user_file == NULL, 0, err, errlen);
	free(def);
	if (rv == 0 && cli_file != NULL)
		rv = load_one(s, cli_file, 0, 0, err, errlen);
	if (rv == 0)
		rv = load_one(s, managed_file != NULL ? managed_file :
		    SETTINGS_MANAGED_PATH, managed_file == NULL, 1, err,
		    errlen);
	if (rv == -1) {
		settings_free(s);
		settings_defaults(s);
	}
	return rv;
}

enum pol_verdict
settings_push_decide(const struct settings *s, const char *ref,
    enum pol_push_kind kind, char *reason, size_t reasonlen)
{
	struct pol_push_rule	*r;
	enum pol_verdict	 v;
	size_t			 i;

	r = xcalloc(s->npush_rules ? s->npush_rules : 1, sizeof(*r));
	for (i = 0; i < s->npush_rules; i++) {
		r[i].ref = s->push_rules[i].ref;
		r[i].action = s->push_rules[i].action;
	}
	v = pol_push_rule(r, s->npush_rules, ref, kind, reason, reasonlen);
	free(r);
	return v;
}
