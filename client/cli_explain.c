// SPDX-License-Identifier: ISC
/*
 * The summary after `airlock run`: each refusal named with what was
 * refused (a host, a path) and, in the user's words, the rule that
 * refused it and how to allow it where there is a way.  Counts alone
 * made a person rerun with --events to learn which host or path it was.
 *
 * Everything here comes from events: the targets are untrusted (the
 * sandbox chose the path it wrote, the host it dialled, the stderr line
 * it printed) and are only ever shown through vis().
 */
#include <ctype.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cli_explain.h"
#include "common/host/protect.h"
#include "common/host/settings.h"
#include "common/vis.h"
#include "common/xmalloc.h"
#include "policy/domain.h"

/* How many of each kind are named before "and N more". */
#define EXPLAIN_SHOW	3

/* The kinds a person reads, in the order they are printed. */
enum ex_kind { EX_NETWORK, EX_WRITE, EX_READ, EX_FILE, EX_COMMAND, EX_GIT,
    EX_OTHER, EX_NKINDS };

static const char *const ex_kind_word[EX_NKINDS] = {
	"network", "write", "read", "file", "command", "git", "refused",
};

void
explain_init(struct explain *ex, int network_on)
{
	memset(ex, 0, sizeof(*ex));
	ex->network_on = network_on;
}

void
explain_free(struct explain *ex)
{
	size_t	i;

	for (i = 0; i < ex->n; i++) {
		free(ex->ev[i].action);
		free(ex->ev[i].target);
		free(ex->ev[i].why);
	}
	ex->n = 0;
}

/* untrusted: action, target and why come from airlockd's event. */
void
explain_add(struct explain *ex, const char *action, const char *target,
    const char *why)
{
	struct explain_ev *e;

	/* Said as it happens (cli_run.c), and not a refusal. */
	if (action != NULL && strcmp(action, "git-origin-changed") == 0)
		return;
	ex->total++;
	if (ex->n == EXPLAIN_MAX)
		return;
	e = &ex->ev[ex->n++];
	e->action = xstrdup(action != NULL ? action : "other");
	e->target = xstrdup(target != NULL ? target : "");
	e->why = why != NULL ? xstrdup(why) : NULL;
}

/* The denial phrases airlockd's stream scan looks for (sv_stream.c). */
static const char *const ex_denials[] = {
	"Permission denied", "Operation not permitted",
	"Read-only file system", "EPERM",
};

static int
ex_quote(char c)
{
	return c == '\'' || c == '"' || c == '`';
}

/* Drop quotes ('x', "x", `x', and the UTF-8 curly ones) around s. */
static void
ex_unquote(char *s)
{
	size_t	n = strlen(s);

	while (n > 0 && (ex_quote(s[n - 1]) || s[n - 1] == ' ' ||
	    s[n - 1] == ':' || s[n - 1] == ','))
		s[--n] = '\0';
	if (n >= 3 && strcmp(s + n - 3, "\xe2\x80\x99") == 0)
		s[n -= 3] = '\0';
	if (strncmp(s, "\xe2\x80\x98", 3) == 0)
		memmove(s, s + 3, (n -= 3) + 1);
	while (ex_quote(s[0]))
		memmove(s, s + 1, n--);
}

/*
 * The path an "os-denied" stderr line names, in the forms tools print:
 * "cat: /p: Permission denied", "sh: 1: cannot create p: Permission
 * denied", "touch: cannot touch 'p': ...", "PermissionError: [Errno 13]
 * Permission denied: '/p'".  NULL when no path can be told apart.
 */
static char *
ex_line_path(const char *line, int *readonly)
{
	const char	*d = NULL, *cut;
	char		*s, *p;
	size_t		 i;

	for (i = 0; i < sizeof(ex_denials) / sizeof(ex_denials[0]); i++)
		if ((d = strstr(line, ex_denials[i])) != NULL)
			break;
	if (d == NULL)
		return NULL;
	*readonly = i == 2;
	cut = d + strlen(ex_denials[i]);
	if (cut[0] == ':' && cut[1] == ' ' && cut[2] != '\0') {
		s = xstrdup(cut + 2);	/* python: "...denied: '/p'" */
		ex_unquote(s);
	} else {
		s = xstrndup(line, (size_t)(d - line));
		ex_unquote(s);
		if ((p = strrchr(s, ':')) != NULL && p[1] == ' ')
			memmove(s, p + 2, strlen(p + 2) + 1);
		/* "cannot create X", "can't open X": the last word; any
		 * other phrase is not a path. */
		if ((p = strrchr(s, ' ')) != NULL &&
		    (strncmp(s, "cannot ", 7) == 0 ||
		    strncmp(s, "can't ", 6) == 0 ||
		    strncmp(s, "failed to ", 10) == 0))
			memmove(s, p + 1, strlen(p + 1) + 1);
		ex_unquote(s);
	}
	if (s[0] == '\0' || strspn(s, "0123456789") == strlen(s) ||
	    strchr(s, ' ') != NULL) {
		free(s);
		return NULL;
	}
	return s;
}

/* Is rel (a path as the tool wrote it) the tail of abs? */
static int
ex_tail_of(const char *rel, const char *abs)
{
	size_t	rl, al;

	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	rl = strlen(rel);
	al = strlen(abs);
	if (rl == 0 || rl > al || strcmp(abs + al - rl, rel) != 0)
		return 0;
	return rl == al || abs[al - rl - 1] == '/';
}

/* The secret-set entry path is in ("~/.ssh", "/etc/shadow"), or NULL. */
static const char *
ex_secret(const char *path, char *buf, size_t len)
{
	const char	*home = getenv("HOME"), *e;
	size_t		 i, hl, el;
	int		 in_home;

	for (i = 0; (e = protect_secret_at(i, &in_home)) != NULL; i++) {
		if (in_home) {
			if (home == NULL || home[0] != '/')
				continue;
			hl = strlen(home);
			while (hl > 1 && home[hl - 1] == '/')
				hl--;
			if (strncmp(path, home, hl) != 0 || path[hl] != '/')
				continue;
			el = strlen(e);
			if (strncmp(path + hl + 1, e, el) != 0 ||
			    (path[hl + 1 + el] != '\0' &&
			    path[hl + 1 + el] != '/'))
				continue;
			snprintf(buf, len, "~/%s", e);
			return buf;
		}
		el = strlen(e);
		if (strncmp(path, e, el) == 0 &&
		    (path[el] == '\0' || path[el] == '/')) {
			snprintf(buf, len, "%s", e);
			return buf;
		}
	}
	return NULL;
}

/*
 * Whether P (or its real path REAL, when resolved) is the secret SEC
 * itself ("~/.ssh" or an absolute entry) rather than a path beneath it.
 */
static int
ex_secret_whole(const char *p, const char *real, const char *sec)
{
	const char	*home = getenv("HOME");
	char		 buf[PATH_MAX];

	if (sec[0] == '~' && home != NULL)
		snprintf(buf, sizeof(buf), "%s%s", home, sec + 1);
	else
		snprintf(buf, sizeof(buf), "%s", sec);
	return strcmp(p, buf) == 0 || strcmp(real, buf) == 0;
}

/*
 * The group of a write-protected name, for a person: which of the
 * built-in rules (common/host/protect.c) a path falls under.
 */
static const struct {
	const char	*glob;		/* a component, fnmatch() */
	const char	*why;
} ex_groups[] = {
	{ ".env", "secrets" }, { ".env.*", "secrets" },
	{ "*.key", "secrets" }, { "*.pem", "secrets" },
	{ ".envrc", "direnv runs it" },
	{ ".bashrc", "shell startup" }, { ".bash_profile", "shell startup" },
	{ ".bash_login", "shell startup" }, { ".bash_logout", "shell startup" },
	{ ".zshrc", "shell startup" }, { ".zprofile", "shell startup" },
	{ ".zshenv", "shell startup" }, { ".zlogin", "shell startup" },
	{ ".profile", "shell startup" },
	{ ".gitconfig", "git configuration" },
	{ ".gitmodules", "git configuration" },
	{ "hooks", "git hooks" },
	{ ".git", "git state: only what git itself writes" },
	{ ".vimrc", "editor startup" }, { ".nvimrc", "editor startup" },
	{ ".exrc", "editor startup" }, { ".nvim.lua", "editor startup" },
	{ "_vimrc", "editor startup" }, { "_exrc", "editor startup" },
	{ ".gvimrc", "editor startup" }, { "_gvimrc", "editor startup" },
	{ ".dir-locals.el", "editor startup" },
	{ ".dir-locals-2.el", "editor startup" },
	{ ".hg", "Mercurial configuration" }, { ".jj", "Jujutsu configuration" },
	{ "mise*.toml", "mise configuration" },
	{ ".mise*.toml", "mise configuration" }, { ".mise", "mise configuration" },
};

const char *
explain_write_group(const char *path)
{
	const char	*c, *slash;
	char		 comp[256];
	size_t		 i, n;
	const char	*best = NULL;
	int		 in_git = 0;

	for (c = path; *c != '\0'; c = slash + 1) {
		while (*c == '/')
			c++;
		slash = strchr(c, '/');
		n = slash != NULL ? (size_t)(slash - c) : strlen(c);
		if (n < sizeof(comp)) {
			memcpy(comp, c, n);
			comp[n] = '\0';
			for (i = 0; i < sizeof(ex_groups) /
			    sizeof(ex_groups[0]); i++) {
				if (fnmatch(ex_groups[i].glob, comp, 0) != 0)
					continue;
				/* "hooks" only inside .git; .git's own
				 * files say git state unless a finer
				 * group (hooks, config) follows. */
				if (strcmp(comp, "hooks") == 0 && !in_git)
					continue;
				if (strcmp(comp, ".git") == 0)
					in_git = 1;
				best = ex_groups[i].why;
			}
			if (in_git && strcmp(comp, "config") == 0)
				best = "git configuration";
		}
		if (slash == NULL)
			break;
	}
	return best != NULL ? best : "agent and editor project files";
}

/* The words for a refusal of the network kind (the proxy's): 0, or -1
 * when e is not one. */
static int
ex_network(const struct explain *ex, const struct explain_ev *e, char *why,
    size_t whylen)
{
	const char	*a = e->action, *c;
	char		 host[300];

	if (strcmp(a, "network-outbound") == 0) {
		if (!ex->network_on) {
			snprintf(why, whylen, "the network is off for this "
			    "run (--network on)");
			return 0;
		}
		snprintf(host, sizeof(host), "%s", e->target);
		if (host[0] == '[') {
			snprintf(why, whylen, "not in the allowlist");
			return 0;
		}
		if ((c = strrchr(host, ':')) != NULL)
			host[c - host] = '\0';
		/* untrusted: the sandbox named the host; a suggestion
		 * only for a plain name a person can read as such. */
		if (!dom_pattern_valid(host, &c) || strchr(host, '*') != NULL) {
			snprintf(why, whylen, "not in the allowlist");
			return 0;
		}
		snprintf(why, whylen, "not in the allowlist (add it with "
		    "--allow-domain %s)", vis(host));
		return 0;
	}
	if (strcmp(a, "network-request") == 0) {
		snprintf(why, whylen, "the method and path rules of this "
		    "host (sandbox.network.tls.inspect)");
		return 0;
	}
	if (strcmp(a, "credential-exfiltration") == 0) {
		snprintf(why, whylen, "a masked credential's placeholder "
		    "goes only to its own host (credentials.mask)");
		return 0;
	}
	if (strcmp(a, "tls-upstream-unverified") == 0) {
		snprintf(why, whylen, "the server's certificate is not "
		    "signed by a trusted CA (sandbox.network.tls.upstreamCA, "
		    "else the system's)");
		return 0;
	}
	if (strcmp(a, "network-connections") == 0) {
		snprintf(why, whylen, "too many connections at once");
		return 0;
	}
	return -1;
}

/* Sort one event into a kind and the words for its rule. */
static enum ex_kind
ex_describe(const struct explain *ex, const struct explain_ev *e,
    char **what, char *why, size_t whylen)
{
	const char	*a = e->action, *sec;
	char		 secbuf[128];
	int		 ro = 0;
	char		*path;

	*what = xstrdup(e->target[0] != '\0' ? e->target : "(not named)");
	if (ex_network(ex, e, why, whylen) == 0)
		return EX_NETWORK;
	if (strcmp(a, "guard-died") == 0) {
		snprintf(why, whylen, "airlock-guard, which checks them, "
		    "ended: the sandbox was closed");
		return EX_OTHER;
	}
	if (strcmp(a, "unix-connect") == 0) {
		snprintf(why, whylen, "a host socket the sandbox may not "
		    "connect to (sandbox.network.allowUnixSockets)");
		return EX_FILE;
	}
	if (strcmp(a, "unix-bind") == 0) {
		snprintf(why, whylen, "a unix socket of its own "
		    "(sandbox.network.allowUnixBind is false)");
		return EX_FILE;
	}
	if (strncmp(a, "file-", 5) == 0 && strcmp(a, "file-read") != 0) {
		if ((sec = ex_secret(e->target, secbuf, sizeof(secbuf)))
		    != NULL)
			snprintf(why, whylen, "in the secret set (%s)", sec);
		else
			snprintf(why, whylen, "protected file (%s)",
			    explain_write_group(e->target));
		return EX_WRITE;
	}
	if (strcmp(a, "git-not-judged") == 0) {
		snprintf(why, whylen, "a repository airlock could not judge: "
		    "nothing held there, see above");
		return EX_GIT;
	}
	if (strcmp(a, "git-object-held") == 0) {
		snprintf(why, whylen, "an object file written inside that is "
		    "not the object its name says: held, see above");
		return EX_GIT;
	}
	if (strcmp(a, "git-commit-held") == 0) {
		snprintf(why, whylen, "a protected file (%s) committed "
		    "inside: held, see above", explain_write_group(e->target));
		return EX_GIT;
	}
	if (strcmp(a, "os-denied") == 0) {
		if ((path = ex_line_path(e->target, &ro)) == NULL) {
			/* The line as the command printed it, quoted:
			 * its words are the sandbox's, not ours. */
			free(*what);
			xasprintf(what, "\"%s\"", e->target);
			snprintf(why, whylen, "denied inside the sandbox");
			return EX_FILE;
		}
		free(*what);
		*what = path;
		if (ro) {
			snprintf(why, whylen, "read-only in the sandbox "
			    "(only the workspace and --bind paths are "
			    "writable)");
			return EX_WRITE;
		}
		if ((sec = ex_secret(path, secbuf, sizeof(secbuf))) != NULL) {
			snprintf(why, whylen, "in the secret set (%s), "
			    "hidden from the sandbox", sec);
			return EX_READ;
		}
		snprintf(why, whylen, "denied inside the sandbox");
		return EX_FILE;
	}
	if (strcmp(a, "git-config-key") == 0 ||
	    strcmp(a, "git-remote-changed") == 0) {
		snprintf(why, whylen, "%s", strcmp(a, "git-config-key") == 0 ?
		    "a git configuration key the sandbox may not set" :
		    "the sandbox may not change a remote's URL");
		return EX_GIT;
	}
	if (strncmp(a, "git-push", 8) == 0) {
		snprintf(why, whylen, "%s", e->why != NULL ? vis(e->why) :
		    "the push rules");
		return EX_GIT;
	}
	if (strcmp(a, "command-denied") == 0) {
		snprintf(why, whylen, "%s", e->why != NULL ? vis(e->why) :
		    "the command rules of this mode (--mode)");
		return EX_COMMAND;
	}
	if (e->why != NULL)
		snprintf(why, whylen, "%s (%s)", vis(a), vis(e->why));
	else
		snprintf(why, whylen, "%s", vis(a));
	return EX_OTHER;
}

/*
 * A stderr line's denial that a precise event already reported (the
 * launcher refused the write and the tool then printed its EACCES).
 */
static int
ex_echo(const struct explain *ex, const struct explain_ev *e)
{
	char	*path;
	size_t	 i;
	int	 ro, hit = 0;

	if (strcmp(e->action, "os-denied") != 0 ||
	    (path = ex_line_path(e->target, &ro)) == NULL)
		return 0;
	for (i = 0; i < ex->n && !hit; i++)
		if (strncmp(ex->ev[i].action, "file-", 5) == 0 &&
		    ex_tail_of(path, ex->ev[i].target))
			hit = 1;
	free(path);
	return hit;
}

void
explain_print(const struct explain *ex, FILE *fp)
{
	char		 why[1024], *what;
	size_t		 shown[EX_NKINDS] = { 0 }, more[EX_NKINDS] = { 0 };
	size_t		 i, k, echoes = 0;
	enum ex_kind	 kind;

	if (ex->total == 0)
		return;
	for (i = 0; i < ex->n; i++)
		echoes += ex_echo(ex, &ex->ev[i]);
	if (ex->total - echoes == 0)
		return;
	fprintf(fp, "airlock: the sandbox refused:\n");
	for (k = 0; k < EX_NKINDS; k++) {
		for (i = 0; i < ex->n; i++) {
			if (ex_echo(ex, &ex->ev[i]))
				continue;
			kind = ex_describe(ex, &ex->ev[i], &what, why,
			    sizeof(why));
			if (kind != k) {
				free(what);
				continue;
			}
			if (shown[k] < EXPLAIN_SHOW) {
				fprintf(fp, "airlock:   %s: %s refused - %s\n",
				    ex_kind_word[k], vis(what), why);
				shown[k]++;
			} else
				more[k]++;
			free(what);
		}
		if (more[k] > 0)
			fprintf(fp, "airlock:   and %zu more %s refusal%s\n",
			    more[k], ex_kind_word[k], more[k] == 1 ? "" : "s");
	}
	if (ex->total > ex->n)
		fprintf(fp, "airlock:   and %zu more not kept\n",
		    ex->total - ex->n);
	fprintf(fp, "airlock: (--events FILE records every refusal)\n");
}

/*
 * A bind the secret set overrides: the bind is made, but the secret
 * inside it stays hidden (R-L2), so a person who asked for it would
 * otherwise learn only from an EACCES in the middle of the run.
 * untrusted: nothing; paths are the user's own arguments.
 */
void
explain_bind_warn(const char *flag, char *const *paths)
{
	char		 real[PATH_MAX], secbuf[128];
	const char	*sec, *p;
	size_t		 i;

	for (i = 0; paths != NULL && paths[i] != NULL; i++) {
		p = paths[i];
		if (realpath(p, real) == NULL)
			real[0] = '\0';
		if ((sec = ex_secret(p, secbuf, sizeof(secbuf))) == NULL &&
		    real[0] != '\0')
			sec = ex_secret(real, secbuf, sizeof(secbuf));
		if (sec == NULL || !ex_secret_whole(p, real, sec))
			continue;	/* beneath a secret: opened by name */
		fprintf(stderr, "airlock: warning: %s %s: %s is in the "
		    "secret set and stays unreadable inside the sandbox "
		    "(a bind or allowRead opens only a path beneath it, "
		    "named exactly); bind what the command needs\n", flag,
		    vis(p), sec);
	}
}

/* The entry of a flag's list that a field index n names, or NULL. */
static const char *
ex_nth(char *const *v, size_t *n)
{
	size_t	len = strv_len(v);

	if (*n < len)
		return v[*n];
	*n -= len;
	return NULL;
}

/* "bindMounts[3]" and the like: the flag and value the user typed. */
static int
ex_field(const struct explain_fields *f, const char *field, size_t n,
    char *out, size_t len)
{
	const char	*v;

	if (strcmp(field, "bindMounts") == 0) {
		if (f->workspace != NULL) {
			if (n == 0) {
				snprintf(out, len, "the workspace %s",
				    vis(f->workspace));
				return 0;
			}
			n--;
		}
		if ((v = ex_nth(f->binds, &n)) != NULL)
			return snprintf(out, len, "--bind %s", vis(v)), 0;
		if ((v = ex_nth(f->robinds, &n)) != NULL)
			return snprintf(out, len, "--ro-bind %s", vis(v)), 0;
		if ((v = ex_nth(f->trybinds, &n)) != NULL)
			return snprintf(out, len, "--bind-try %s", vis(v)), 0;
		if ((v = ex_nth(f->tryrobinds, &n)) != NULL)
			return snprintf(out, len, "--ro-bind-try %s",
			    vis(v)), 0;
		return snprintf(out, len, "a bind"), 0;
	}
	if (strcmp(field, "egressAllowlist") == 0)
		v = ex_nth(f->allow, &n), field = "--allow-domain";
	else if (strcmp(field, "passEnv") == 0)
		v = ex_nth(f->envs, &n), field = "--env";
	else if (strcmp(field, "denyRead") == 0)
		v = ex_nth(f->deny_read, &n), field = "--deny-read";
	else if (strcmp(field, "denyWrite") == 0)
		v = ex_nth(f->deny_write, &n), field = "--deny-write";
	else
		return -1;
	snprintf(out, len, "%s%s%s", field, v != NULL ? " " : "",
	    v != NULL ? vis(v) : "");
	return 0;
}

/*
 * `airlock worktree`'s "repos[N]: " and "agents[N]: " at the start of
 * *pp: a repository is named by its path right after, an agent id by
 * the flag.  1 when *pp moved past one.
 */
static int
ex_worktree(const char **pp, char *out, size_t len, size_t *o)
{
	static const struct {
		const char	*field, *say;
	} wt[] = { { "repos[", "" }, { "agents[", "--agent: " } };
	const char	*p = *pp, *q;
	size_t		 i, fl;

	for (i = 0; i < sizeof(wt) / sizeof(wt[0]); i++) {
		fl = strlen(wt[i].field);
		if (strncmp(p, wt[i].field, fl) != 0 ||
		    (q = strstr(p, "]: ")) == NULL ||
		    strspn(p + fl, "0123456789") != (size_t)(q - p - fl))
			continue;
		*o += snprintf(out + *o, len - *o, "%s", wt[i].say);
		*pp = q + 3;
		return 1;
	}
	return 0;
}

/* airlockd's names of what `run` sends, and the flags that send them. */
static const struct {
	const char	*field, *flag;
} ex_flags[] = {
	{ "conversationId", "--conversation" }, { "agentId", "--agent" },
	{ "bindMounts", "--bind" }, { "egressAllowlist", "--allow-domain" },
	{ "passEnv", "--env" }, { "denyRead", "--deny-read" },
	{ "denyWrite", "--deny-write" }, { "networkEnabled", "--network" },
	{ "guestWorkdir", "--workspace" }, { "originRepo", "--origin" },
};

/*
 * An error from airlockd in the words of the person who typed the flags:
 * "bindMounts[1]: ..." becomes "--bind /proc: ...", a spec id such as
 * "(R-L9)" is dropped, "argv" is "the command" and a message name's
 * size limit is said as one.  f NULL: only the ids and message names
 * (any command's error; the fields are known to `run` alone).
 * airlockd's own words stay for --json clients and its log; this is
 * only what a person reads.
 */
const char *
explain_words(const char *msg, const struct explain_fields *f, char *out,
    size_t len)
{
	char		 field[64], repl[1100];
	const char	*p = msg, *q;
	size_t		 o = 0, n, fl;

	out[0] = '\0';
	while (*p != '\0' && o + 1 < len) {
		fl = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
		    "VWXYZ");
		/* field[N] or field[N].sub */
		if (f != NULL && fl > 0 && fl < sizeof(field) &&
		    p[fl] == '[' &&
		    (p == msg || p[-1] == ' ') &&
		    strspn(p + fl + 1, "0123456789") > 0) {
			memcpy(field, p, fl);
			field[fl] = '\0';
			n = strtoul(p + fl + 1, NULL, 10);
			q = p + fl + 1 + strspn(p + fl + 1, "0123456789");
			if (*q == ']' && ex_field(f, field, n, repl,
			    sizeof(repl)) == 0) {
				q++;
				if (*q == '.')	/* .hostPath and the like */
					q += 1 + strspn(q + 1, "abcdefghijklm"
					    "nopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
					    "TUVWXYZ");
				o += snprintf(out + o, len - o, "%s", repl);
				p = q;
				continue;
			}
		}
		/* A field's name alone: the flag that sent it. */
		if (f != NULL && fl > 0 && (p == msg || !isalnum(
		    (unsigned char)p[-1]))) {
			size_t	k;

			for (k = 0; k < sizeof(ex_flags) /
			    sizeof(ex_flags[0]); k++)
				if (strlen(ex_flags[k].field) == fl &&
				    strncmp(p, ex_flags[k].field, fl) == 0)
					break;
			if (k < sizeof(ex_flags) / sizeof(ex_flags[0])) {
				o += snprintf(out + o, len - o, "%s",
				    ex_flags[k].flag);
				p += fl;
				continue;
			}
		}
		if (p == msg && ex_worktree(&p, out, len, &o))
			continue;
		/* "MSG_EXEC_IO: payload over N bytes" */
		if (strncmp(p, "MSG_", 4) == 0) {
			q = p + 4 + strspn(p + 4,
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
			if (q[0] == ':' && q[1] == ' ')
				q += 2;
			o += snprintf(out + o, len - o, "%s",
			    strncmp(q, "payload over ", 13) == 0 ?
			    "too much data at once for the sandbox, more than "
			    : "");
			if (strncmp(q, "payload over ", 13) == 0)
				q += 13;
			p = q;
			continue;
		}
		/* " (R-L9)", " (SPEC R-W4)" */
		if (p[0] == ' ' && p[1] == '(' && (strncmp(p + 2, "R-", 2) ==
		    0 || strncmp(p + 2, "SPEC R-", 7) == 0) &&
		    (q = strchr(p, ')')) != NULL && q - p < 20) {
			p = q + 1;
			continue;
		}
		if (f != NULL && p == msg &&
		    strncmp(p, "bindMounts: ", 12) == 0) {
			o += snprintf(out + o, len - o, "--bind: ");
			p += 12;
			continue;
		}
		if (f != NULL && p == msg && strncmp(p, "argv: ", 6) == 0) {
			o += snprintf(out + o, len - o, "the command: ");
			p += 6;
			continue;
		}
		out[o++] = *p++;
		out[o] = '\0';
	}
	if (o >= len)
		out[len - 1] = '\0';
	return out;
}

/*
 * The settings files a private airlockd would read, checked first: a
 * bad one is said once, by the client, and the command fails (airlockd
 * would otherwise die with its own line, racing ours, and leave a
 * status behind that looked like an answer).  The error goes to err.
 */
int
explain_settings_error(const char *cli_file, char *err, size_t errlen)
{
	struct settings	s;
	int		rv;

	settings_defaults(&s);
	rv = settings_load(&s, NULL, cli_file, NULL, err, errlen);
	settings_free(&s);
	return rv;
}

/* explain_settings_error, said on stderr. */
int
explain_settings_check(const char *cli_file)
{
	char	err[1024];

	if (explain_settings_error(cli_file, err, sizeof(err)) == -1) {
		fprintf(stderr, "airlock: %s\n", err);
		return -1;
	}
	return 0;
}
