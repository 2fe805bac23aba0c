// SPDX-License-Identifier: ISC
/*
 * `airlock claude [run options] [-- claude args...]`: the real Claude
 * Code CLI inside a sandbox, launched exactly as `airlock run` launches
 * a command (cli_run_adapter()), with what the CLI needs added (SPEC
 * R-A1):
 *
 * - its config dir (~/.claude/) read-only but for the directories the
 *   CLI writes during a session (claude_state), writable in every mode;
 *   whatever its settings layers run is write-protected (R-L3); its
 *   state file ~/.claude.json as a private copy (it also names MCP
 *   servers, commands the host runs);
 * - a generated settings layer (--settings, inline JSON) that sends Bash
 *   and the file writers to `airlock hook claude-pretooluse --confined`
 *   and switches off the CLI's non-essential traffic;
 * - bypass-permissions mode: the sandbox is the boundary, and the hook,
 *   told that it runs confined, denies what the policy denies or asks
 *   (docs/HOOKS.md);
 * - the LLM provider's host allowed through proxyd, and the provider's
 *   variables (the API key the user configured) passed on purpose;
 *   nothing else of the caller's environment beyond airlockd's allowlist
 *   (R-L9).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_opt.h"
#include "common/host/paths.h"
#include "common/host/settings.h"
#include "common/json.h"
#include "common/xmalloc.h"

/*
 * The provider's variables, passed when set: the key or token the user
 * configured, the endpoint and the model choice.  Cloud providers'
 * credentials (Bedrock, Vertex) are files and profiles this list does
 * not carry: `--env` passes them on purpose.
 */
static const char *const provider_env[] = {
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
	"ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "ANTHROPIC_SMALL_FAST_MODEL",
	"ANTHROPIC_DEFAULT_OPUS_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL",
	"ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_CUSTOM_HEADERS", NULL,
};

/*
 * The provider's variables that hold a credential, and the header the
 * CLI sends each in.  Passed from the caller's environment, each is
 * masked: the sandbox gets a placeholder, proxyd puts the value in that
 * header toward the provider's host alone (maskPassed).
 */
static const char *const provider_keys[][2] = {
	{ "ANTHROPIC_API_KEY", "x-api-key" },
	{ "ANTHROPIC_AUTH_TOKEN", "authorization" },
	{ "CLAUDE_CODE_OAUTH_TOKEN", "authorization" },
};

/*
 * A runner's own state directory, by allowlist: read-only in
 * the sandbox except the directories the runner writes during a session,
 * which hold data its next session on the host reads as data.  For
 * Claude Code, measured by running the CLI (2.1) under a mock of the
 * Messages API and listing what it wrote: transcripts and memory
 * (projects), todo lists, plans, the edited files' checkpoints
 * (file-history), pasted text.  Everything else stays read-only: its
 * settings, CLAUDE.md, commands, agents, skills, hooks, plugins, a
 * status-line script, a local install (local/), IDE lock files (ide/),
 * the backups of ~/.claude.json.  What the CLI sources into its shell
 * (shell-snapshots/, session-env/: it will not run a command without
 * the latter) a session on the host would source too, so the sandbox
 * gets its own, a tmpfs each, never kept.  A runner added later gets a
 * table of its own.
 */
struct runner_state {
	const char		*dir;		/* beneath $HOME */
	const char *const	*session;	/* writable, beneath dir */
	const char *const	*private;	/* writable, not kept */
};

static const char *const claude_session[] = {
	"projects", "todos", "plans", "file-history", "paste-cache", NULL,
};

/* Written during a session but sourced by the CLI's shell (by a host
 * session's too): the sandbox's own, a tmpfs each, never kept. */
static const char *const claude_private[] = {
	"session-env", "shell-snapshots", NULL,
};

/* The Claude login, in the state dir: never bound (claude_login()). */
#define CLAUDE_LOGIN_FILE	".credentials.json"

static const struct runner_state claude_state = {
	".claude", claude_session, claude_private,
};

/*
 * The keys of Claude Code's settings whose values the CLI runs as
 * commands (hooks, the status line, credential helpers).
 */
static const char *const run_keys[] = {
	"command", "apiKeyHelper", "awsAuthRefresh", "awsCredentialExport",
	"otelHeadersHelper", NULL,
};

/* Documented switches for everything but the model's own requests. */
static const char *const quiet_env[][2] = {
	{ "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1" },
	{ "DISABLE_TELEMETRY", "1" },
	{ "DISABLE_ERROR_REPORTING", "1" },
	{ "DISABLE_AUTOUPDATER", "1" },
	{ "DISABLE_BUG_COMMAND", "1" },
	{ NULL, NULL },
};

/*
 * untrusted-ish: one word of a command from a settings layer, its
 * quotes removed.  The file it names, or NULL: absolute, "~/", "$HOME/",
 * "$CLAUDE_PROJECT_DIR/" (the form Claude Code's documentation gives for
 * a project's hook), or relative, from the project, where the CLI runs
 * it ("./x", "tools/x.sh", or a file that is there: "sh hook.sh").
 */
static char *
command_word(const char *w, const char *home, const char *cwd)
{
	static const char *const pfx[][2] = {
		{ "~/", "h" }, { "$HOME/", "h" }, { "${HOME}/", "h" },
		{ "$CLAUDE_PROJECT_DIR/", "p" },
		{ "${CLAUDE_PROJECT_DIR}/", "p" },
	};
	struct stat	 st;
	char		*p;
	size_t		 i, n;

	for (i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++) {
		n = strlen(pfx[i][0]);
		if (strncmp(w, pfx[i][0], n) == 0) {
			xasprintf(&p, "%s/%s", pfx[i][1][0] == 'h' ? home :
			    cwd, w + n);
			return p;
		}
	}
	if (w[0] == '/')
		return xstrdup(w);
	if (w[0] == '\0' || w[0] == '-' || w[0] == '$' ||
	    strpbrk(w, ":=*?") != NULL)
		return NULL;
	/* A word without a slash only if it names a file there, not
	 * every program's name or argument. */
	xasprintf(&p, "%s/%s", cwd, w);
	if (strchr(w, '/') == NULL && (lstat(p, &st) == -1 ||
	    S_ISDIR(st.st_mode))) {
		free(p);
		return NULL;
	}
	return p;
}

/*
 * untrusted-ish: a command string from a settings layer.  Each word that
 * names a file (command_word()) goes on the list: the sandbox may not
 * write what the host's CLI will run.  Quotes join a word as the
 * shell's do ("$CLAUDE_PROJECT_DIR"/tools/x.sh).
 */
static char **
command_paths(char **v, const char *cmd, const char *home, const char *cwd)
{
	char	*dup = xstrdup(cmd), *w, *save = NULL, *p, *q, *r,
		 real[PATH_MAX];
	struct stat st;

	for (w = strtok_r(dup, " \t\n;&|()<>`", &save); w != NULL;
	    w = strtok_r(NULL, " \t\n;&|()<>`", &save)) {
		for (q = r = w; *r != '\0'; r++)
			if (*r != '\'' && *r != '"')
				*q++ = *r;
		*q = '\0';
		if ((p = command_word(w, home, cwd)) == NULL)
			continue;
		airlock_path_clean(p);
		/* A directory (`cd /tmp && ...`) is where it runs, not what. */
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			free(p);
			continue;
		}
		v = strv_add(v, p);
		if (realpath(p, real) != NULL && strcmp(real, p) != 0)
			v = strv_add(v, real);
		free(p);
	}
	free(dup);
	return v;
}

/* untrusted-ish: each string of an argument array, as one word. */
static char **
command_args(char **v, const struct json *a, const char *home,
    const char *cwd)
{
	char	*p, real[PATH_MAX];
	struct stat st;
	size_t	 i;

	for (i = 0; i < a->n; i++) {
		if (a->items[i]->type != JSON_STRING ||
		    (p = command_word(a->items[i]->str, home, cwd)) == NULL)
			continue;
		airlock_path_clean(p);
		if (stat(p, &st) == -1 || !S_ISDIR(st.st_mode)) {
			v = strv_add(v, p);
			if (realpath(p, real) != NULL && strcmp(real, p) != 0)
				v = strv_add(v, real);
		}
		free(p);
	}
	return v;
}

static char **
settings_walk(char **v, const struct json *j, const char *home,
    const char *cwd, int depth)
{
	size_t	i, k;

	if (j == NULL || depth > 16)
		return v;
	for (i = 0; i < j->n; i++) {
		if (j->type == JSON_OBJECT && j->items[i]->type == JSON_STRING)
			for (k = 0; run_keys[k] != NULL; k++)
				if (strcmp(j->keys[i], run_keys[k]) == 0)
					v = command_paths(v, j->items[i]->str,
					    home, cwd);
		/* An MCP server's arguments: "args": ["tools/server.js"]. */
		if (j->type == JSON_OBJECT && strcmp(j->keys[i], "args") == 0 &&
		    j->items[i]->type == JSON_ARRAY)
			v = command_args(v, j->items[i], home, cwd);
		if (j->type == JSON_OBJECT || j->type == JSON_ARRAY)
			v = settings_walk(v, j->items[i], home, cwd,
			    depth + 1);
	}
	return v;
}

/*
 * The files Claude Code's settings layers and MCP server configurations
 * run, as --deny-write paths.
 */
static char **
settings_commands(const char *home, const char *cwd)
{
	static const char *const layers[] = {
		"/.claude/settings.json", "/.claude/settings.local.json",
		"/.claude/settings.json", "/.claude/settings.local.json",
		"/etc/claude-code/managed-settings.json",
		/* MCP servers the host's CLI starts: the user's (top level
		 * and per project) and the project's. */
		"/.claude.json", "/.mcp.json",
	};
	struct json	*j;
	char		**v = NULL, *p;
	size_t		  i;

	for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		xasprintf(&p, "%s%s", i < 2 || i == 5 ? home :
		    i < 4 || i == 6 ? cwd : "", layers[i]);
		if ((j = json_read_object(p, JSON_MAX_INPUT)) == NULL) {
			free(p);
			continue;
		}
		if (i == 5) {
			/* The user's servers and this project's only: a
			 * relative path of another project's names a file
			 * there, not here. */
			v = settings_walk(v, json_get(j, "mcpServers"), home,
			    cwd, 0);
			v = settings_walk(v, json_get(json_get(j, "projects"),
			    cwd), home, cwd, 0);
		} else
			v = settings_walk(v, j, home, cwd, 0);
		json_free(j);
		free(p);
	}
	return v;
}

static void __attribute__((noreturn))
claude_usage(int code)
{
	fprintf(code == 0 ? stdout : stderr,
"usage: airlock claude [options] [-- CLAUDE-ARG...]\n"
"  The Claude Code CLI (`claude` on PATH, or --claude PATH) inside a\n"
"  sandbox, in bypass-permissions mode, its tool calls judged by\n"
"  airlock's hook.  See airlock(1).\n"
"options:\n");
	cli_opt_help(code == 0 ? stdout : stderr, CLI_CLAUDE);
	exit(code);
}

/* `claude` on PATH, resolved; NULL when there is none. */
static char *
find_claude(const char *given)
{
	const char	*path = getenv("PATH");
	char		 buf[PATH_MAX], res[PATH_MAX], *copy, *d, *save = NULL;
	char		*r = NULL;

	if (given != NULL)
		return realpath(given, res) != NULL && access(res, X_OK) == 0 ?
		    xstrdup(res) : NULL;
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = xstrdup(path);
	for (d = strtok_r(copy, ":", &save); d != NULL && r == NULL;
	    d = strtok_r(NULL, ":", &save)) {
		if (d[0] != '/')
			continue;
		snprintf(buf, sizeof(buf), "%s/claude", d);
		if (access(buf, X_OK) == 0 && realpath(buf, res) != NULL)
			r = xstrdup(res);
	}
	free(copy);
	return r;
}

/*
 * untrusted-ish: the caller's ANTHROPIC_BASE_URL.  Its host[:port] for
 * --allow-domain, or NULL when it is not an http(s) URL.
 */
static char *
provider_host(const char *url)
{
	const char	*h;
	size_t		 n;
	char		*r;

	if (strncmp(url, "https://", 8) == 0)
		h = url + 8;
	else if (strncmp(url, "http://", 7) == 0)
		h = url + 7;
	else
		return NULL;
	if (strchr(h, '@') != NULL && strchr(h, '@') < h + strcspn(h, "/"))
		h = strchr(h, '@') + 1;	/* user:password@ */
	n = strcspn(h, "/?#");
	if (n == 0 || n > 255)
		return NULL;
	r = xstrndup(h, n);
	if (strspn(r, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789.-:[]") != n) {
		free(r);
		return NULL;
	}
	return r;
}

/* s as one word for sh -c: single-quoted, ' as '\''. */
static char *
sq(const char *s)
{
	char	*r = xmalloc(strlen(s) * 4 + 3), *w = r;

	*w++ = '\'';
	for (; *s != '\0'; s++)
		if (*s == '\'') {
			memcpy(w, "'\\''", 4);
			w += 4;
		} else
			*w++ = *s;
	*w++ = '\'';
	*w = '\0';
	return r;
}

/* The settings layer handed to the CLI with --settings (inline JSON). */
static char *
claude_settings(const char *mode, const char *layers, int unconfined,
    const char *airlock_settings)
{
	struct jgen	*j = jgen_new();
	char		*cmd, *r, *self, *qmode, *qset;
	size_t		 i;

	/* The airlock binary every sandbox has at a fixed path (with the
	 * network on, which the CLI needs anyway).  --sandbox off: this
	 * binary, and the hook's own rule (ask stays ask). */
	qmode = sq(mode);
	if (unconfined) {
		char *a = airlock_sibling("airlock", NULL);

		self = sq(a);
		free(a);
		qset = airlock_settings != NULL ? sq(airlock_settings) : NULL;
		xasprintf(&cmd, "%s hook claude-pretooluse --mode %s%s%s",
		    self, qmode, qset != NULL ? " --settings " : "",
		    qset != NULL ? qset : "");
		free(self);
		free(qset);
	} else
		xasprintf(&cmd, "%s hook claude-pretooluse --confined --layers "
		    "%s --mode %s", AIRLOCK_SANDBOX_SELF, layers, qmode);
	free(qmode);
	jgen_obj_open(j);
	jgen_key(j, "hooks");
	jgen_obj_open(j);
	jgen_key(j, "PreToolUse");
	jgen_arr_open(j);
	jgen_obj_open(j);
	jgen_kstr(j, "matcher", "Bash|Write|Edit|MultiEdit|NotebookEdit");
	jgen_key(j, "hooks");
	jgen_arr_open(j);
	jgen_obj_open(j);
	jgen_kstr(j, "type", "command");
	jgen_kstr(j, "command", cmd);
	jgen_kint(j, "timeout", 30);
	jgen_obj_close(j);
	jgen_arr_close(j);
	jgen_obj_close(j);
	jgen_arr_close(j);
	jgen_obj_close(j);
	jgen_key(j, "env");
	jgen_obj_open(j);
	for (i = 0; quiet_env[i][0] != NULL; i++)
		jgen_kstr(j, quiet_env[i][0], quiet_env[i][1]);
	jgen_obj_close(j);
	jgen_obj_close(j);
	r = xstrndup(jgen_buf(j, NULL), SIZE_MAX);
	jgen_free(j);
	free(cmd);
	return r;
}

static const char *const layer_names[] = {
	"user.json", "cli.json", "managed.json", "claude.json",
	"claude-settings.json", "claude-settings.local.json", NULL,
};

/* One settings layer copied as it is, "{}" when there is none. */
static int
layer_copy(const char *src, const char *dir, const char *name)
{
	char	 buf[65536], *dst;
	ssize_t	 n;
	int	 in = -1, out, rc = 0;

	if (src != NULL && (in = open(src, O_RDONLY | O_CLOEXEC)) == -1 &&
	    errno != ENOENT) {
		fprintf(stderr, "airlock claude: %s: %s\n", src,
		    strerror(errno));
		return -1;
	}
	xasprintf(&dst, "%s/%s", dir, name);
	if ((out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1) {
		fprintf(stderr, "airlock claude: %s: %s\n", dst,
		    strerror(errno));
		free(dst);
		if (in != -1)
			close(in);
		return -1;
	}
	if (in == -1)
		rc = write(out, "{}\n", 3) == 3 ? 0 : -1;
	else
		while ((n = read(in, buf, sizeof(buf))) > 0 && rc == 0)
			rc = write(out, buf, (size_t)n) == n ? 0 : -1;
	if (close(out) == -1)
		rc = -1;
	if (in != -1)
		close(in);
	if (rc == -1)
		fprintf(stderr, "airlock claude: %s: cannot write\n", dst);
	free(dst);
	return rc;
}

static void
layers_remove(const char *dir)
{
	char	*p;
	size_t	 i;

	for (i = 0; layer_names[i] != NULL; i++) {
		xasprintf(&p, "%s/%s", dir, layer_names[i]);
		(void)unlink(p);
		free(p);
	}
	(void)rmdir(dir);
}

/*
 * ~/.claude.json holds, with a Console login, the API key itself
 * ("primaryApiKey"): the copy leaves it out (claude_provider() passes
 * it masked instead).  A file that does not parse is copied only if it
 * does not name that key.
 */
#define STATE_KEY	"primaryApiKey"

/* Does the file hold STATE_KEY's name anywhere: 1, 0, or -1 (unread)? */
static int
names_key(const char *path)
{
	char	 buf[65536 + sizeof(STATE_KEY)];
	size_t	 keep = 0, klen = strlen(STATE_KEY);
	ssize_t	 n;
	int	 fd, r = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while (r == 0 && (n = read(fd, buf + keep, sizeof(buf) - keep)) > 0) {
		n += (ssize_t)keep;
		if (memmem(buf, (size_t)n, STATE_KEY, klen) != NULL)
			r = 1;
		/* The last bytes again: a name split between reads. */
		keep = (size_t)n < klen ? (size_t)n : klen - 1;
		memmove(buf, buf + n - keep, keep);
	}
	if (n == -1)
		r = -1;
	close(fd);
	return r;
}

static int
state_copy(const char *src, const char *dir, const char *name, char **key)
{
	struct json	*j;
	struct jgen	*g;
	const char	*raw;
	char		*dst;
	size_t		 i, n;
	int		 fd, rc = 0;

	if ((j = json_read_object(src, JSON_MAX_INPUT)) == NULL) {
		if (names_key(src) == 0)
			return layer_copy(src, dir, name);
		fprintf(stderr, "airlock claude: %s: not copied into the "
		    "sandbox (it could not be read as JSON, and may hold an "
		    "API key)\n", src);
		return 0;
	}
	g = jgen_new();
	jgen_obj_open(g);
	for (i = 0; i < j->n; i++)
		if (strcmp(j->keys[i], STATE_KEY) != 0) {
			jgen_key(g, j->keys[i]);
			jgen_value(g, j->items[i]);
		} else if (j->items[i]->type == JSON_STRING &&
		    j->items[i]->str[0] != '\0' && *key == NULL)
			*key = xstrdup(j->items[i]->str);
	jgen_obj_close(g);
	xasprintf(&dst, "%s/%s", dir, name);
	raw = jgen_buf(g, &n);
	if ((fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1 || write(fd, raw, n) != (ssize_t)n) {
		fprintf(stderr, "airlock claude: %s: cannot write\n", dst);
		rc = -1;
	}
	if (fd != -1 && close(fd) == -1)
		rc = -1;
	free(dst);
	jgen_free(g);
	json_free(j);
	return rc;
}

/* The copies go when airlock claude does, whichever way it ends. */
static char	*layers_dir;

static void
layers_atexit(void)
{
	if (layers_dir != NULL)
		layers_remove(layers_dir);
	free(layers_dir);
	layers_dir = NULL;
}

/*
 * The sandbox keeps airlock's own settings files unreadable, so the
 * hook inside reads copies of the layers, taken now, in a private
 * directory bound read-only (the agent cannot change its policy):
 * DIR/user.json, cli.json (--settings), managed.json.
 */
static char *
layers_copy(const char *home, const char *cli, char **key)
{
	char	*dir, *user;
	int	 rc;

	dir = xstrdup("/tmp/airlock-claude.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		fprintf(stderr, "airlock claude: mkdtemp: %s\n",
		    strerror(errno));
		free(dir);
		return NULL;
	}
	xasprintf(&user, "%s/.config/airlock/settings.json", home);
	rc = layer_copy(user, dir, layer_names[0]);
	free(user);
	if (rc == 0)
		rc = layer_copy(cli, dir, layer_names[1]);
	if (rc == 0)
		rc = layer_copy(SETTINGS_MANAGED_PATH, dir, layer_names[2]);
	/* The CLI's state file, copied in by claude_argv()'s wrapper. */
	xasprintf(&user, "%s/.claude.json", home);
	if (rc == 0 && access(user, F_OK) == 0)
		rc = state_copy(user, dir, layer_names[3], key);
	free(user);
	if (rc == -1) {
		layers_remove(dir);
		free(dir);
		return NULL;
	}
	return dir;
}

/* What `airlock claude` collects on its way to cli_run_adapter(). */
struct claude_run {
	const char	*mode, *settings, *given;
	int		 network, unconfined;
	char		**rargv;	/* airlock run's arguments */
	char		**state, **priv; /* runnerState/PrivateDirs */
	char		 home[PATH_MAX];
	char		*login;		/* the Claude login file, if any */
	char		*mhost;		/* the provider's host, no port */
	char		**masked;	/* maskPassed: name, host, header */
	const char	*layers;	/* the private copies (layers_copy) */
	char		**skeys;	/* NAME=VALUE: keys the CLI's settings
					   held, left out of their copies */
	char		*pkey;		/* a Console login's key, left out of
					   the copy of ~/.claude.json */
};

/* One of the run's options on its way (cli_opt_walk): the few the CLI's
 * own set-up needs are read; --claude is ours alone. */
static int
claude_option(void *arg, const struct cli_opt *o, const char *a,
    const char *v)
{
	struct claude_run	*cr = arg;

	(void)a;
	if (o == NULL)
		return 0;
	if (strcmp(o->name, "--help") == 0)
		claude_usage(0);
	if (strcmp(o->name, "--claude") == 0)
		cr->given = v;
	else if (strcmp(o->name, "--mode") == 0)
		cr->mode = v;
	else if (strcmp(o->name, "--settings") == 0)
		cr->settings = v;
	else if (strcmp(o->name, "--network") == 0)
		cr->network = strcmp(v, "off") != 0;
	else if (strcmp(o->name, "--sandbox") == 0)
		cr->unconfined = strcmp(v, "off") == 0;
	return 0;
}

/* dir/name[k] made (0700) and added to *set; -1 with a message. */
static int
claude_mkdirs(const char *dir, const char *const *names, char ***set)
{
	char	*p;
	size_t	 k;

	for (k = 0; names[k] != NULL; k++) {
		xasprintf(&p, "%s/%s", dir, names[k]);
		if (mkdir(p, 0700) == -1 && errno != EEXIST) {
			fprintf(stderr, "airlock claude: %s: %s\n", p,
			    strerror(errno));
			free(p);
			return -1;
		}
		*set = strv_add(*set, p);
		free(p);
	}
	return 0;
}

/*
 * The state dir's entries the sandbox sees, by allowlist: what the CLI
 * reads to work as the user set it up.  Never the login (airlockd shows
 * a copy in its place), its leftovers (.credentials.json.tmp.*),
 * backups/ (copies of ~/.claude.json, with a Console login's key), nor
 * an entry a later CLI adds.  The session directories are bound
 * writable by runnerStateDirs.
 */
static const char *const claude_shown[] = {
	"settings.json", "settings.local.json", "CLAUDE.md", "commands",
	"agents", "skills", "hooks", "plugins", "output-styles", "ide",
	"local", NULL,
};

/* A variable of the CLI's settings "env" that holds a credential. */
static int
settings_secret(const char *name)
{
	size_t	j;

	for (j = 0; j < sizeof(provider_keys) / sizeof(provider_keys[0]); j++)
		if (strcmp(name, provider_keys[j][0]) == 0)
			return 1;
	return strcmp(name, "ANTHROPIC_CUSTOM_HEADERS") == 0;
}

/*
 * A settings file of the state dir whose "env" sets a credential (a
 * documented set-up): the sandbox gets a private copy without it, bound
 * at the file's name, and the key goes in masked like the caller's
 * (claude_provider()); ANTHROPIC_CUSTOM_HEADERS, free text, is left
 * out.  0: the file is shown as it is; 1: a copy is bound instead, or
 * nothing when the file does not parse.
 */
static int
settings_view(struct claude_run *cr, const char *path, const char *name)
{
	struct json	*j, *env;
	struct jgen	*g;
	const char	*buf;
	char		*dst, *b, *kv;
	size_t		 i, k, n, hit = 0;
	int		 fd;

	if ((j = json_read_object(path, JSON_MAX_INPUT)) == NULL) {
		fprintf(stderr, "airlock claude: %s: not shown to the CLI (it "
		    "could not be read as JSON)\n", path);
		return 1;
	}
	env = json_get(j, "env");
	for (i = 0; env != NULL && env->type == JSON_OBJECT && i < env->n; i++)
		hit += settings_secret(env->keys[i]);
	if (hit == 0) {
		json_free(j);
		return 0;
	}
	g = jgen_new();
	jgen_obj_open(g);
	for (i = 0; i < j->n; i++) {
		jgen_key(g, j->keys[i]);
		if (j->items[i] != env) {
			jgen_value(g, j->items[i]);
			continue;
		}
		jgen_obj_open(g);
		for (k = 0; k < env->n; k++) {
			if (!settings_secret(env->keys[k])) {
				jgen_key(g, env->keys[k]);
				jgen_value(g, env->items[k]);
			} else if (env->items[k]->type == JSON_STRING &&
			    strcmp(env->keys[k], "ANTHROPIC_CUSTOM_HEADERS") !=
			    0 && env->items[k]->str[0] != '\0') {
				xasprintf(&kv, "%s=%s", env->keys[k],
				    env->items[k]->str);
				cr->skeys = strv_add(cr->skeys, kv);
				explicit_bzero(kv, strlen(kv));
				free(kv);
			}
		}
		jgen_obj_close(g);
	}
	jgen_obj_close(g);
	xasprintf(&dst, "%s/claude-%s", cr->layers, name);
	buf = jgen_buf(g, &n);
	if ((fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1 || write(fd, buf, n) != (ssize_t)n) {
		fprintf(stderr, "airlock claude: %s: cannot write: %s not "
		    "shown to the CLI\n", dst, path);
	} else {
		xasprintf(&b, "%s:%s", dst, path);
		cr->rargv = strv_add(cr->rargv, "--ro-bind");
		cr->rargv = strv_add(cr->rargv, b);
		free(b);
	}
	if (fd != -1)
		close(fd);
	free(dst);
	jgen_free(g);
	json_free(j);
	return 1;
}

/*
 * The state dir as the sandbox sees it: each allowed entry bound
 * read-only on its own, in the home's private tmpfs; a symbolic link is
 * not (what it points at may be anything, a secret included), nor
 * anything but a directory or a regular file.  Not the directory whole:
 * a mount on the login file's name would come off when the host's CLI
 * renews the login (it renames a new file over it), and the new file
 * would show.  Files a settings command runs from the dir (a status
 * line) are bound too: run_files, from settings_commands().
 */
static int
claude_state_view(struct claude_run *cr, const char *dir, char **run_files)
{
	struct stat	 st;
	char		*p;
	size_t		 i, n = strlen(dir);

	for (i = 0; claude_shown[i] != NULL; i++) {
		xasprintf(&p, "%s/%s", dir, claude_shown[i]);
		if (lstat(p, &st) == 0 && (S_ISDIR(st.st_mode) ||
		    S_ISREG(st.st_mode)) && (strncmp(claude_shown[i],
		    "settings", 8) != 0 || settings_view(cr, p,
		    claude_shown[i]) == 0)) {
			cr->rargv = strv_add(cr->rargv, "--ro-bind-try");
			cr->rargv = strv_add(cr->rargv, p);
		}
		free(p);
	}
	for (i = 0; run_files != NULL && run_files[i] != NULL; i++) {
		p = run_files[i];
		if (strncmp(p, dir, n) != 0 || p[n] != '/' ||
		    strchr(p + n + 1, '/') != NULL ||
		    lstat(p, &st) == -1 || !S_ISREG(st.st_mode) ||
		    strncmp(p + n + 1, CLAUDE_LOGIN_FILE,
		    strlen(CLAUDE_LOGIN_FILE)) == 0)
			continue;
		cr->rargv = strv_add(cr->rargv, "--ro-bind-try");
		cr->rargv = strv_add(cr->rargv, p);
	}
	return 0;
}

/*
 * Its state dir and the session directories exist before the sandbox
 * binds them: the dir read-only, those writable on top
 * (runnerStateDirs).  What the settings run is never writable.
 */
static int
claude_state_dirs(struct claude_run *cr)
{
	char	*s, cwd[PATH_MAX], **runs;
	size_t	 k;
	int	 rc = 0;

	xasprintf(&s, "%s/%s", cr->home, claude_state.dir);
	if (mkdir(s, 0700) == -1 && errno != EEXIST) {
		fprintf(stderr, "airlock claude: %s: %s\n", s, strerror(errno));
		free(s);
		return -1;
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		snprintf(cwd, sizeof(cwd), "/nonexistent");
	runs = settings_commands(cr->home, cwd);
	(void)claude_state_view(cr, s, runs);
	if (claude_mkdirs(s, claude_state.session, &cr->state) == -1 ||
	    claude_mkdirs(s, claude_state.private, &cr->priv) == -1)
		rc = -1;
	free(s);
	for (k = 0; runs != NULL && runs[k] != NULL; k++) {
		cr->rargv = strv_add(cr->rargv, "--deny-write");
		cr->rargv = strv_add(cr->rargv, runs[k]);
	}
	strv_free(runs);
	return rc;
}

/*
 * Is name a credentials.mask variable of the settings the run will use?
 * airlockd then gives the sandbox its placeholder (and refuses an --env
 * of it), so the caller's value is not passed.  Settings that do not
 * load are airlock run's to report.
 */
static int
claude_masked(const struct claude_run *cr, const char *name)
{
	struct settings	 set;
	char		 err[512];
	size_t		 i;
	int		 hit = 0;

	settings_defaults(&set);
	if (settings_load(&set, NULL, cr->settings, NULL, err,
	    sizeof(err)) == 0)
		for (i = 0; i < set.nmasks; i++)
			if (strcmp(set.masks[i].name, name) == 0)
				hit = 1;
	settings_free(&set);
	return hit;
}

/* hp (host[:port]) as a masked host: lower case, no port; NULL for an
 * IPv6 literal, which a masked entry cannot name. */
static char *
mask_host(const char *hp)
{
	char	*h;
	size_t	 n;

	if (hp[0] == '[' || hp[0] == ':')
		return NULL;
	h = xstrndup(hp, strcspn(hp, ":"));
	for (n = 0; h[n] != '\0'; n++)
		if (h[n] >= 'A' && h[n] <= 'Z')
			h[n] += 'a' - 'A';
	return h;
}

/* Refused rather than the real credential handed in. */
static int
mask_refused(const char *hp, const char *what)
{
	fprintf(stderr, "airlock claude: %s: %s can be masked only toward a "
	    "host name or IPv4 address: give ANTHROPIC_BASE_URL a name for "
	    "it\n", hp, what);
	return -1;
}

/*
 * The user's Claude login (~/.claude/.credentials.json), when there is
 * one: airlockd reads it, the sandbox sees a copy holding placeholders,
 * and proxyd puts the token on the wire toward the provider's host
 * alone.
 */
static int
claude_login(struct claude_run *cr, const char *hp)
{
	struct stat	 st;
	char		 what[PATH_MAX + 32];

	if (cr->unconfined)
		return 0;
	xasprintf(&cr->login, "%s/%s/%s", cr->home, claude_state.dir,
	    CLAUDE_LOGIN_FILE);
	if (lstat(cr->login, &st) == -1) {
		free(cr->login);
		cr->login = NULL;
		return 0;
	}
	if (cr->mhost == NULL) {
		snprintf(what, sizeof(what), "the Claude login (%s)",
		    cr->login);
		return mask_refused(hp, what);
	}
	return 0;
}

/* The provider: its host through proxyd, its variables passed, those
 * holding a credential masked. */
static int
claude_provider(struct claude_run *cr)
{
	const char	*url = getenv("ANTHROPIC_BASE_URL");
	const char	*v;
	char		*s, *kv;
	size_t		 k, j, n;
	int		 keyed = 0, clear;

	s = url != NULL && url[0] != '\0' ? provider_host(url) :
	    xstrdup("api.anthropic.com");
	if (s == NULL) {
		fprintf(stderr, "airlock claude: ANTHROPIC_BASE_URL %s: not an "
		    "http(s) URL\n", url);
		return -1;
	}
	cr->rargv = strv_add(cr->rargv, "--allow-domain");
	cr->rargv = strv_add(cr->rargv, s);
	cr->mhost = mask_host(s);
	/* A masked value never crosses plain HTTP (proxyd refuses its
	 * placeholder there): toward an http:// provider the keys go in as
	 * they are, said so, and the login is not shown. */
	clear = url != NULL && strncmp(url, "http://", 7) == 0;
	/* The CLI takes a key before the login: with a key set, the login
	 * is not shown at all (nor its expiry judged). */
	for (j = 0; j < sizeof(provider_keys) / sizeof(provider_keys[0]); j++)
		if ((v = getenv(provider_keys[j][0])) != NULL && v[0] != '\0')
			keyed = 1;
	if (cr->skeys != NULL)
		keyed = 1;
	/* A Console login keeps its key in ~/.claude.json, left out of
	 * the copy inside: passed as the CLI's variable, masked. */
	if (!keyed && !cr->unconfined && cr->pkey != NULL) {
		xasprintf(&kv, "ANTHROPIC_API_KEY=%s", cr->pkey);
		cr->rargv = strv_add(cr->rargv, "--env");
		cr->rargv = strv_add(cr->rargv, kv);
		explicit_bzero(kv, strlen(kv));
		free(kv);
		keyed = 1;
		if (clear) {
			fprintf(stderr, "airlock claude: %s is http://: the "
			    "Console login's key goes in unmasked\n", url);
		} else if (cr->mhost == NULL) {
			(void)mask_refused(s, "the Console login's key in "
			    "~/.claude.json");
			free(s);
			return -1;
		} else {
			cr->masked = strv_add(cr->masked, "ANTHROPIC_API_KEY");
			cr->masked = strv_add(cr->masked, cr->mhost);
			cr->masked = strv_add(cr->masked, "x-api-key");
		}
	}
	if (!keyed && clear && !cr->unconfined) {
		fprintf(stderr, "airlock claude: %s is http://: the Claude "
		    "login is not shown to the CLI (masked only over "
		    "https)\n", url);
		keyed = 1;
	}
	if (!keyed && claude_login(cr, s) == -1) {
		free(s);
		return -1;
	}
	for (k = 0; provider_env[k] != NULL; k++) {
		/* The CLI's settings set it (their copy does not): their
		 * value, as the CLI would take it. */
		n = strlen(provider_env[k]);
		for (j = 0, v = NULL; cr->skeys != NULL && cr->skeys[j] != NULL;
		    j++)
			if (strncmp(cr->skeys[j], provider_env[k], n) == 0 &&
			    cr->skeys[j][n] == '=')
				v = cr->skeys[j];
		if (v == NULL && ((v = getenv(provider_env[k])) == NULL ||
		    v[0] == '\0' || claude_masked(cr, provider_env[k])))
			continue;	/* "" is unset: a common idiom */
		cr->rargv = strv_add(cr->rargv, "--env");
		cr->rargv = strv_add(cr->rargv, strchr(v, '=') != NULL &&
		    strncmp(v, provider_env[k], n) == 0 && v[n] == '=' ? v :
		    provider_env[k]);
		if (strcmp(provider_env[k], "ANTHROPIC_CUSTOM_HEADERS") == 0 &&
		    !cr->unconfined)
			fprintf(stderr, "airlock claude: ANTHROPIC_CUSTOM_HEADERS "
			    "goes in unmasked: a key in it reaches the agent\n");
		for (j = 0; !cr->unconfined && j < sizeof(provider_keys) /
		    sizeof(provider_keys[0]); j++) {
			if (strcmp(provider_keys[j][0], provider_env[k]) != 0)
				continue;
			if (clear) {
				fprintf(stderr, "airlock claude: %s is http://: "
				    "%s goes in unmasked\n", url,
				    provider_env[k]);
				continue;
			}
			if (cr->mhost == NULL) {
				(void)mask_refused(s, provider_env[k]);
				free(s);
				return -1;
			}
			cr->masked = strv_add(cr->masked, provider_env[k]);
			cr->masked = strv_add(cr->masked, cr->mhost);
			cr->masked = strv_add(cr->masked, provider_keys[j][1]);
		}
	}
	free(s);
	/* Claude Code refuses bypass mode as root unless told it runs in
	 * a sandbox, which it does. */
	if (!cr->unconfined) {
		cr->rargv = strv_add(cr->rargv, "--env");
		cr->rargv = strv_add(cr->rargv, "IS_SANDBOX=1");
	}
	return 0;
}

/* After "--": the CLI, its settings and mode, then the caller's words. */
static char *
claude_command(struct claude_run *cr, const char *claude,
    const char *layers, int argc, char **argv, int i)
{
	char	*s, *json;

	cr->rargv = strv_add(cr->rargv, "--");
	/*
	 * ~/.claude.json holds, beside the CLI's counters, the user's MCP
	 * servers: commands the host's next CLI would run.  So the sandbox's
	 * CLI gets a private copy in its own (tmpfs) home, and what it
	 * writes there is not written back.
	 */
	xasprintf(&s, "%s/claude.json", layers);
	if (!cr->unconfined && access(s, F_OK) == 0) {
		cr->rargv = strv_add(cr->rargv, "/bin/sh");
		cr->rargv = strv_add(cr->rargv, "-c");
		cr->rargv = strv_add(cr->rargv, "cp -- \"$0\" "
		    "\"$HOME/.claude.json\" 2>/dev/null; exec \"$@\"");
		cr->rargv = strv_add(cr->rargv, s);
	}
	free(s);
	cr->rargv = strv_add(cr->rargv, claude);
	json = claude_settings(cr->mode, layers, cr->unconfined,
	    cr->settings);
	cr->rargv = strv_add(cr->rargv, "--settings");
	cr->rargv = strv_add(cr->rargv, json);
	/* Bypass mode only where the sandbox is the boundary; asked for
	 * --sandbox off, the CLI keeps its own prompts. */
	if (!cr->unconfined) {
		cr->rargv = strv_add(cr->rargv, "--permission-mode");
		cr->rargv = strv_add(cr->rargv, "bypassPermissions");
	}
	for (; i < argc; i++)
		cr->rargv = strv_add(cr->rargv, argv[i]);
	return json;
}

/* The CLI's checks before anything is made: network, CLI, $HOME. */
static int
claude_check(struct claude_run *cr, char **claude)
{
	const char	*home;

	if (!cr->network) {
		fprintf(stderr, "airlock claude: the CLI needs the network to "
		    "reach its model (--network off)\n");
		return 2;
	}
	if ((*claude = find_claude(cr->given)) == NULL) {
		fprintf(stderr, "airlock claude: %s: the Claude Code CLI is "
		    "not installed (npm install -g @anthropic-ai/claude-code)"
		    "\n", cr->given != NULL ? cr->given : "claude");
		return 127;
	}
	if ((home = getenv("HOME")) == NULL || home[0] != '/' ||
	    realpath(home, cr->home) == NULL) {
		fprintf(stderr, "airlock claude: $HOME is not set\n");
		return 125;
	}
	return 0;
}

int
cli_claude_main(int argc, char **argv)
{
	struct claude_run cr;
	struct run_adapter ad;
	char		*claude = NULL, *json, *layers, dir[PATH_MAX];
	int		 i, rargc, rc;

	memset(&cr, 0, sizeof(cr));
	cr.mode = "chat";
	cr.network = 1;
	cr.rargv = strv_add(NULL, "claude");
	i = cli_opt_walk(CLI_CLAUDE, "airlock claude", argc, argv,
	    claude_option, &cr, &cr.rargv);
	if ((rc = claude_check(&cr, &claude)) != 0)
		return rc;
	/* airlock's settings, for the hook inside (layers_copy()), and
	 * the private copies the state dir's view needs. */
	if ((layers = layers_copy(cr.home, cr.settings, &cr.pkey)) == NULL)
		return 125;
	layers_dir = layers;
	atexit(layers_atexit);
	cr.layers = layers;
	if (claude_state_dirs(&cr) == -1)
		return 125;
	/* The CLI's own package, read-only, where it lies outside the
	 * system directories the sandbox shows anyway. */
	snprintf(dir, sizeof(dir), "%s", claude);
	*strrchr(dir, '/') = '\0';
	cr.rargv = strv_add(cr.rargv, "--ro-bind-try");
	cr.rargv = strv_add(cr.rargv, dir);
	if (claude_provider(&cr) == -1)
		return 2;
	cr.rargv = strv_add(cr.rargv, "--ro-bind");
	cr.rargv = strv_add(cr.rargv, layers);
	/* The agent's commands are judged one by one by the hook. */
	cr.rargv = strv_add(cr.rargv, "--no-policy-check");
	json = claude_command(&cr, claude, layers, argc, argv, i);
	for (rargc = 0; cr.rargv[rargc] != NULL; rargc++)
		;
	memset(&ad, 0, sizeof(ad));
	ad.runner_state = cr.state;
	ad.runner_private = cr.priv;
	ad.login_file = cr.login;
	ad.login_host = cr.mhost;
	ad.mask_passed = cr.masked;
	/* Confined or not at all, unless --sandbox off says so. */
	ad.require_sandbox = !cr.unconfined;
	rc = cli_run_adapter(rargc, cr.rargv, &ad);
	free(json);
	free(claude);
	strv_free(cr.state);
	strv_free(cr.priv);
	strv_free(cr.rargv);
	free(cr.login);
	free(cr.mhost);
	strv_free(cr.masked);
	strv_free(cr.skeys);
	if (cr.pkey != NULL)
		explicit_bzero(cr.pkey, strlen(cr.pkey));
	free(cr.pkey);
	return rc;
}
