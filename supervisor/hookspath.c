// SPDX-License-Identifier: ISC
/*
 * The effective hooks directory (SPEC R-L3).  A repository whose
 * core.hooksPath names a directory in the workspace (husky sets
 * ".husky/_" or ".husky") runs what is there on the user's next `git
 * commit` on the host, so that directory is protected like .git/hooks.
 * Git itself is asked, as the user, for each repository found at the top
 * of a writable bind and a few levels below it: every scope it reads
 * (system, global, local, worktree, includes) counts, exactly as the
 * host's git will later read them.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "common/gitstate.h"
#include "common/namerule.h"
#include "common/xmalloc.h"
#include "supervisor/hookspath.h"

#define HP_DEPTH	4	/* directory levels searched below a bind */
#define HP_DIRS		HOOKSPATH_DIRS	/* directories, per bind */
#define HP_REPOS	HOOKSPATH_REPOS	/* asked, per bind */
#define HP_WAIT_MS	3000	/* one git process, at most */
#define HP_OUT_MAX	(1 << 20)	/* what git config --list prints */
#define HP_INCLUDES	10	/* include levels git follows (config.c,
				   MAX_INCLUDE_DEPTH) */

/*
 * Run git -C dir with args (at most four, NULL-terminated) as the user
 * (airlockd's own uid) with home as $HOME, and return its output (all
 * of it, up to HP_OUT_MAX bytes, its length in *all; or with all NULL
 * its first line; free()), or NULL if it failed, printed nothing or took
 * too long (then it is killed).
 */
static char *
hp_git(const char *dir, const char *home, const char *const *args,
    size_t *all)
{
	static const char *const unset[] = { "GIT_DIR", "GIT_WORK_TREE",
	    "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_CEILING_DIRECTORIES",
	    "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", NULL };
	struct pollfd	 pfd;
	struct timespec	 t0, t;
	char		*buf;
	size_t		 len = 0, i, max = all ? HP_OUT_MAX : PATH_MAX + 1;
	ssize_t		 n;
	pid_t		 pid;
	int		 p[2], st, ms;

	if (pipe2(p, O_CLOEXEC) == -1)
		return NULL;
	if ((pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		return NULL;
	}
	if (pid == 0) {
		int	nul = open("/dev/null", O_RDWR);

		if (nul != -1) {
			dup2(nul, 0);
			dup2(nul, 2);
		}
		dup2(p[1], 1);
		for (i = 0; unset[i] != NULL; i++)
			unsetenv(unset[i]);
		if (home != NULL)
			setenv("HOME", home, 1);
		execlp("git", "git", "-C", dir, args[0], args[1], args[2],
		    args[3], (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	buf = xmalloc(max);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = HP_WAIT_MS - (int)((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (ms <= 0 || poll(&pfd, 1, ms) == 0) {
			kill(pid, SIGKILL);
			len = 0;
			break;
		}
		n = read(p[0], buf + len, max - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0 || (len += (size_t)n) == max - 1)
			break;
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	buf[len] = '\0';
	if (all == NULL)
		buf[strcspn(buf, "\n")] = '\0';
	else
		*all = len;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || buf[0] == '\0') {
		free(buf);
		return NULL;
	}
	return buf;
}

char *
hookspath_escape(const char *s)
{
	char	*o = xmalloc(strlen(s) * 2 + 1), *q = o;

	for (; *s != '\0'; s++) {
		if (strchr("*?[]\\", *s) != NULL)
			*q++ = '\\';
		*q++ = *s;
	}
	*q = '\0';
	return o;
}

static char **
hp_add(char **v, const char *s)
{
	char	*e = hookspath_escape(s);
	size_t	 i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (strcmp(v[i], e) == 0)
			break;
	if (v == NULL || v[i] == NULL)
		v = strv_add(v, e);
	free(e);
	return v;
}

/*
 * The files git reads config from for dir, beyond a git directory's own
 * config (which the content check judges): an include the user set may
 * name a file in the tree (include.path = ../.gitconfig-team), which
 * the sandbox could otherwise fill with any key.  Into v.
 */
static char **
hp_origins(char **v, const char *dir, const char *home)
{
	static const char *const list[] = { "config", "--list",
	    "--show-origin", "-z", NULL };
	char	*out, *o, *kv, *val, abs[PATH_MAX], real[PATH_MAX];
	char	 up[PATH_MAX], inc[PATH_MAX], *slash;
	size_t	 len, i;

	if ((out = hp_git(dir, home, list, &len)) == NULL)
		return v;
	/* Records: "file:PATH" NUL "key" LF "value" NUL. */
	for (i = 0; i < len; ) {
		o = out + i;
		i += strlen(o) + 1;
		if (i >= len)
			break;
		kv = out + i;
		i += strlen(kv) + 1;
		if (strncmp(o, "file:", 5) != 0 ||
		    namerule_lexical(dir, o + 5, abs, sizeof(abs)) != 0)
			continue;
		snprintf(up, sizeof(up), "%s", abs);
		if ((slash = strrchr(up, '/')) == NULL || slash == up)
			continue;
		*slash = '\0';
		/* An include names a file even while it is empty: the path
		 * as git takes it (~/, or beside the including file). */
		if ((val = strchr(kv, '\n')) != NULL &&
		    ((strncmp(kv, "includeif.", 10) == 0 &&
		    strncmp(val - 5, ".path", 5) == 0) ||
		    strncmp(kv, "include.path\n", 13) == 0)) {
			val++;
			if (strncmp(val, "~/", 2) == 0 && home != NULL)
				snprintf(inc, sizeof(inc), "%s%s", home, val + 1);
			else if (namerule_lexical(up, val, inc,
			    sizeof(inc)) != 0)
				inc[0] = '\0';
			if (inc[0] == '/') {
				v = hp_add(v, inc);
				if (realpath(inc, real) != NULL &&
				    strcmp(real, inc) != 0)
					v = hp_add(v, real);
			}
		}
		if ((strcmp(slash + 1, "config") == 0 ||
		    strcmp(slash + 1, "config.worktree") == 0) &&
		    (namerule_gitstate_name(strrchr(up, '/') + 1) ||
		    gitstate_is(AT_FDCWD, up)))
			continue;
		v = hp_add(v, abs);
		if (realpath(abs, real) != NULL && strcmp(real, abs) != 0)
			v = hp_add(v, real);
	}
	free(out);
	return v;
}

/*
 * Whether a config file may set core.hooksPath: it names the key, or
 * includes another file.  A file that is not there or not readable sets
 * nothing git could read either.  Saves a git process per repository
 * when no scope mentions the key (the usual case: a run's start-up).
 */
static int
hp_mentions(const char *path)
{
	char	 buf[8192];
	size_t	 n, i, keep = 0;
	int	 fd, hit = 0;
	ssize_t	 r;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return 0;
	/* Carry the last bytes over, so a word across reads is seen. */
	while (!hit && (r = read(fd, buf + keep, sizeof(buf) - 1 - keep)) >
	    0) {
		n = keep + (size_t)r;
		buf[n] = '\0';
		for (i = 0; i < n; i++)
			buf[i] = (char)tolower((unsigned char)buf[i]);
		hit = memchr(buf, '\0', n) != NULL ||
		    strstr(buf, "hookspath") != NULL ||
		    strstr(buf, "include") != NULL;
		keep = n < 16 ? n : 16;
		memmove(buf, buf + n - keep, keep);
	}
	close(fd);
	return hit;
}

/* Whether git must be asked at all: a scope that may set the key. */
static int	hp_gitdir(const char *);

static int
hp_worth_asking(const char *dir, const char *home)
{
	static const char *const env[] = { "GIT_CONFIG", "GIT_CONFIG_COUNT",
	    "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	    NULL };
	const char	*x = getenv("XDG_CONFIG_HOME");
	char		 p[PATH_MAX], gd[PATH_MAX + 8], cf[PATH_MAX + 32];
	struct stat	 st;
	size_t		 i;

	for (i = 0; env[i] != NULL; i++)
		if (getenv(env[i]) != NULL)
			return 1;
	if (hp_mentions("/etc/gitconfig"))
		return 1;
	if (home != NULL) {
		snprintf(p, sizeof(p), "%s/.gitconfig", home);
		if (hp_mentions(p))
			return 1;
		/* Both: airlockd's XDG_CONFIG_HOME may not be the caller's. */
		snprintf(p, sizeof(p), "%s/.config/git/config", home);
		if (hp_mentions(p))
			return 1;
		if (x != NULL && x[0] == '/' && (size_t)snprintf(p, sizeof(p),
		    "%s/git/config", x) < sizeof(p) && hp_mentions(p))
			return 1;
	}
	/* dir itself a git directory (a bare repository): its config. */
	if (hp_gitdir(dir)) {
		snprintf(cf, sizeof(cf), "%s/config", dir);
		return hp_mentions(cf);
	}
	/* The nearest .git at or above dir: a directory is read here;
	 * a gitfile (a worktree, a module) is git's to follow. */
	if ((size_t)snprintf(p, sizeof(p), "%s", dir) >= sizeof(p))
		return 1;
	for (;;) {
		snprintf(gd, sizeof(gd), "%s/.git", strcmp(p, "/") ? p : "");
		if (lstat(gd, &st) == 0)
			break;
		if (strcmp(p, "/") == 0 || strrchr(p, '/') == NULL)
			return 0;
		*strrchr(p, '/') = '\0';
		if (p[0] == '\0')
			snprintf(p, sizeof(p), "/");
	}
	if (!S_ISDIR(st.st_mode))
		return 1;
	snprintf(cf, sizeof(cf), "%s/config", gd);
	if (hp_mentions(cf))
		return 1;
	snprintf(cf, sizeof(cf), "%s/config.worktree", gd);
	return hp_mentions(cf);
}

/*
 * A hooks directory named by value (as git read it for the repository
 * whose work tree is at root), into v: the absolute path (as written
 * and resolved) and, for a relative value, the name too (the same
 * layout in any other repository of the tree).
 */
static char **
hp_value(char **v, const char *root, const char *hp)
{
	char		 abs[PATH_MAX], real[PATH_MAX];
	const char	*rel;

	if (hp[0] != '/') {
		if (namerule_lexical(root, hp, abs, sizeof(abs)) != 0)
			return v;
		for (rel = hp; strncmp(rel, "./", 2) == 0; rel += 2)
			;
		if (rel[0] != '\0' && strcmp(rel, ".") != 0 &&
		    strstr(rel, "..") == NULL)
			v = hp_add(v, rel);
	} else if (namerule_lexical("/", hp, abs, sizeof(abs)) != 0)
		return v;
	v = hp_add(v, abs);
	if (realpath(abs, real) != NULL && strcmp(real, abs) != 0)
		v = hp_add(v, real);
	return v;
}

/* Git's white space (git-compat-util.h's sane ctype): no \v, no \f. */
#define HP_SPACE(c)	((c) == ' ' || (c) == '\t' || (c) == '\n' || \
			    (c) == '\r')

/*
 * One config value as git reads it (config.c, parse_value()), from s up
 * to end: leading blanks dropped, quotes removed, \" \\ \n \t \b taken,
 * a backslash before a newline continuing the value on the next line, a
 * comment outside quotes ending it, trailing blanks outside quotes
 * dropped, CR LF read as LF, the value as a C string ending at a NUL.
 * Into out, and into alt as git before 2.45 read it (each blank between
 * words outside quotes a space); returns where the next line starts.
 */
static const char *
hp_unquote(const char *s, const char *end, char *out, char *alt,
    size_t len)
{
	size_t	o = 0, trim = 0;
	int	q = 0, comment = 0, cut = 0;
	char	c;

	for (; s < end; s++) {
		c = *s;
		if (c == '\r' && s + 1 < end && s[1] == '\n')
			continue;
		if (c == '\n') {
			s++;
			break;
		}
		if (comment)
			continue;
		if (HP_SPACE(c) && !q) {
			if (trim == 0)
				trim = o;
			if (o > 0 && !cut && o + 1 < len) {
				alt[o] = ' ';
				out[o++] = c;
			}
			continue;
		}
		if (!q && (c == '#' || c == ';')) {
			comment = 1;
			continue;
		}
		trim = 0;
		if (c == '\\') {
			if (s + 1 == end)
				break;
			c = *++s;
			if (c == '\r' && s + 1 < end && s[1] == '\n')
				c = *++s;
			if (c == '\n')
				continue;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'b' ?
			    '\b' : c;
		} else if (c == '"') {
			q = !q;
			continue;
		}
		if (c == '\0')
			cut = 1;
		if (!cut && o + 1 < len) {
			alt[o] = c;
			out[o++] = c;
		}
	}
	if (trim > 0)
		o = trim;
	out[o] = alt[o] = '\0';
	return s;
}

/*
 * A section header as git reads it (config.c, get_base_var()), s just
 * past its "[": the section's name, lower case, into sec ("" if none).
 * A quoted subsection may hold "]" and backslashed quotes.  Returns
 * where reading goes on: past the "]", or at the end of the line.
 */
static const char *
hp_header(const char *s, const char *end, char *sec, size_t len)
{
	size_t	n = 0;
	int	q = 0;

	for (; s < end && *s != '\n' && strchr(" \t\".]", *s) == NULL; s++)
		if (n + 1 < len)
			sec[n++] = (char)tolower((unsigned char)*s);
	sec[n] = '\0';
	for (; s < end && *s != '\n'; s++) {
		if (q && *s == '\\' && s + 1 < end && s[1] != '\n')
			s++;
		else if (*s == '"')
			q = !q;
		else if (!q && *s == ']')
			return s + 1;
	}
	sec[0] = '\0';
	return s;
}

/*
 * Git's prefix, as its system_path() gives it: the directory above the
 * bin/ that holds the git found on PATH (/usr for /usr/bin/git); into
 * out.  0, or -1 if there is none.
 */
static int
hp_git_prefix(char *out, size_t len)
{
	const char	*path = getenv("PATH"), *p, *end;
	char		 cand[PATH_MAX], real[PATH_MAX], *s;

	for (p = path != NULL ? path : "/usr/bin:/bin"; *p != '\0'; p = end) {
		end = p + strcspn(p, ":");
		if ((size_t)snprintf(cand, sizeof(cand), "%.*s/git",
		    (int)(end - p), p) < sizeof(cand) && cand[0] == '/' &&
		    access(cand, X_OK) == 0 && realpath(cand, real) != NULL &&
		    (s = strrchr(real, '/')) != NULL) {
			*s = '\0';
			if ((s = strrchr(real, '/')) == NULL)
				return -1;
			*s = '\0';
			snprintf(out, len, "%s", real[0] != '\0' ? real : "/");
			return 0;
		}
		if (*end == ':')
			end++;
	}
	return -1;
}

/*
 * A path value as git's interpolate_path() takes it: "~/" the user's
 * home, "~user/" that user's, "%(prefix)/" git's prefix; into out.  0,
 * or -1 if it names no one.
 */
static int
hp_tilde(const char *val, const char *home, char *out, size_t len)
{
	struct passwd	 pw, *pwp = NULL;
	char		 name[256], buf[4096];
	size_t		 n;

	if (strncmp(val, "%(prefix)/", 10) == 0) {
		if (hp_git_prefix(buf, sizeof(buf)) == -1 ||
		    (n = strlen(buf)) >= len)
			return -1;
		memcpy(out, buf, n + 1);
		if (n > 1 && n + 1 < len)
			out[n++] = '/';
		snprintf(out + n, len - n, "%s", val + 10);
		return 0;
	}
	if (val[0] != '~') {
		snprintf(out, len, "%s", val);
		return 0;
	}
	n = strcspn(val + 1, "/");
	if (n == 0) {
		if (home == NULL)
			return -1;
		snprintf(out, len, "%s%s", home, val + 1);
		return 0;
	}
	if (n >= sizeof(name))
		return -1;
	snprintf(name, sizeof(name), "%.*s", (int)n, val + 1);
	if (getpwnam_r(name, &pw, buf, sizeof(buf), &pwp) != 0 ||
	    pwp == NULL)
		return -1;
	snprintf(out, len, "%s%s", pw.pw_dir, val + 1 + n);
	return 0;
}

/*
 * Without git: core.hooksPath in the config file path, and in the files
 * it includes (include.path and every includeIf.*.path, whatever their
 * condition: more, never less, than git would read), depth levels
 * deep, into v as hp_value() takes it for the work tree at root.  The
 * included files themselves too: the sandbox must not fill them.  Read
 * as git's config.c reads it (git_parse_source()): a UTF-8 BOM, CR LF,
 * several headers on a line, a key after a header, NUL bytes.
 */
static char **
hp_static_file(char **v, const char *path, const char *root,
    const char *home, int depth)
{
	char		 sec[64], key[64], val[2][PATH_MAX], inc[PATH_MAX];
	char		 tv[PATH_MAX], up[PATH_MAX], *buf, *slash;
	const char	*s, *end, *p;
	size_t		 n, i;
	int		 fd;
	ssize_t		 r;

	if (depth == 0 || (fd = open(path, O_RDONLY | O_CLOEXEC |
	    O_NONBLOCK)) == -1)
		return v;
	buf = xmalloc(HP_OUT_MAX + 1);
	for (n = 0; n < HP_OUT_MAX && (r = read(fd, buf + n,
	    HP_OUT_MAX - n)) > 0; n += (size_t)r)
		;
	close(fd);
	buf[n] = '\0';
	end = buf + n;
	snprintf(up, sizeof(up), "%s", path);
	if ((slash = strrchr(up, '/')) != NULL)
		*slash = '\0';
	sec[0] = '\0';
	s = buf;
	if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	while (s < end) {
		if (HP_SPACE(*s)) {
			s++;
			continue;
		}
		if (*s == '[') {
			s = hp_header(s + 1, end, sec, sizeof(sec));
			continue;
		}
		/* A comment, or a line git refuses: the next line. */
		if (!isalpha((unsigned char)*s)) {
			if ((p = memchr(s, '\n', (size_t)(end - s))) == NULL)
				break;
			s = p + 1;
			continue;
		}
		for (n = 0; s < end && (isalnum((unsigned char)*s) ||
		    *s == '-'); s++)
			if (n + 1 < sizeof(key))
				key[n++] = (char)tolower((unsigned char)*s);
		key[n] = '\0';
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s == end || *s != '=')
			continue;
		s = hp_unquote(s + 1, end, val[0], val[1], sizeof(val[0]));
		for (i = 0; i < 2; i++) {
			if (val[i][0] == '\0' || (i == 1 &&
			    strcmp(val[0], val[1]) == 0))
				continue;
			if (strcmp(sec, "core") == 0 &&
			    strcmp(key, "hookspath") == 0) {
				if (hp_tilde(val[i], home, inc,
				    sizeof(inc)) == 0)
					v = hp_value(v, root, inc);
			} else if ((strcmp(sec, "include") == 0 ||
			    strcmp(sec, "includeif") == 0) &&
			    strcmp(key, "path") == 0 &&
			    hp_tilde(val[i], home, tv, sizeof(tv)) == 0 &&
			    namerule_lexical(up, tv, inc, sizeof(inc)) == 0) {
				v = hp_value(v, "/", inc);
				v = hp_static_file(v, inc, root, home,
				    depth - 1);
			}
		}
	}
	free(buf);
	return v;
}

/*
 * The git directory a gitfile dir/.git names ("gitdir: PATH", as git's
 * read_gitfile() takes it: trailing white space dropped, relative to
 * dir), into t.  0 if it names one, 1 if its path could not be
 * resolved (too long), -1 if dir/.git is no gitfile.  Untrusted: the
 * sandbox writes gitfiles.
 */
static int
hp_gitfile(const char *dir, char *t, size_t tlen)
{
	char	g[PATH_MAX + 8], buf[PATH_MAX + 16];

	if ((size_t)snprintf(g, sizeof(g), "%s/.git", dir) >= sizeof(g) ||
	    hookspath_dirfile(g, buf, sizeof(buf)) < 8 ||
	    strncmp(buf, "gitdir: ", 8) != 0)
		return -1;
	return namerule_lexical(dir, buf + 8, t, tlen) != 0 ? 1 : 0;
}

int
hookspath_dirfile(const char *path, char *buf, size_t len)
{
	ssize_t	n;
	int	fd;

	if (len == 0 || (fd = open(path, O_RDONLY | O_CLOEXEC |
	    O_NONBLOCK)) == -1)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	/* As git's read_gitfile_gently() and get_common_dir_noenv():
	 * less its trailing CRs and LFs only (a trailing space is part
	 * of the path). */
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	return (int)n;
}

/*
 * core.hooksPath in airlockd's GIT_CONFIG_COUNT pairs (GIT_CONFIG_KEY_n,
 * GIT_CONFIG_VALUE_n), as git takes them for every command: a key in
 * any case of its section and name.  At most 1,000 pairs looked at.
 */
static char **
hp_static_env(char **v, const char *dir, const char *home)
{
	const char	*c = getenv("GIT_CONFIG_COUNT"), *k, *val;
	char		 name[64], out[PATH_MAX], *end;
	unsigned long	 n, i;

	if (c == NULL || (n = strtoul(c, &end, 10)) == 0 || *end != '\0')
		return v;
	for (i = 0; i < n && i < 1000; i++) {
		snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%lu", i);
		if ((k = getenv(name)) == NULL ||
		    strcasecmp(k, "core.hookspath") != 0)
			continue;
		snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%lu", i);
		if ((val = getenv(name)) != NULL && val[0] != '\0' &&
		    hp_tilde(val, home, out, sizeof(out)) == 0)
			v = hp_value(v, dir, out);
	}
	return v;
}

/*
 * Without git, for a repository past the walk's bound: core.hooksPath
 * in every config file git reads for the repository at dir (its git
 * directory's config and config.worktree, its common directory's
 * config, the user's global and the system's), and their includes.
 */
char **
hookspath_static(char **v, const char *dir, const char *home)
{
	const char	*x = getenv("XDG_CONFIG_HOME");
	struct stat	 st;
	char		 gd[PATH_MAX + 8], t[PATH_MAX], f[PATH_MAX + 32];
	char		 buf[PATH_MAX + 16];

	v = hp_static_file(v, "/etc/gitconfig", dir, home, HP_INCLUDES + 1);
	if (home != NULL) {
		snprintf(f, sizeof(f), "%s/.gitconfig", home);
		v = hp_static_file(v, f, dir, home, HP_INCLUDES + 1);
		snprintf(f, sizeof(f), "%s/.config/git/config", home);
		v = hp_static_file(v, f, dir, home, HP_INCLUDES + 1);
	}
	/* As hp_worth_asking: airlockd's XDG_CONFIG_HOME too, and the
	 * files its GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM name (read as
	 * well as the usual ones, never instead: the user's shell may not
	 * set them). */
	if (x != NULL && x[0] == '/' && (size_t)snprintf(f, sizeof(f),
	    "%s/git/config", x) < sizeof(f))
		v = hp_static_file(v, f, dir, home, HP_INCLUDES + 1);
	if ((x = getenv("GIT_CONFIG_GLOBAL")) != NULL && x[0] == '/')
		v = hp_static_file(v, x, dir, home, HP_INCLUDES + 1);
	if ((x = getenv("GIT_CONFIG_SYSTEM")) != NULL && x[0] == '/')
		v = hp_static_file(v, x, dir, home, HP_INCLUDES + 1);
	v = hp_static_env(v, dir, home);
	snprintf(gd, sizeof(gd), "%s/.git", dir);
	if (stat(gd, &st) == -1)
		return v;
	if (!S_ISDIR(st.st_mode)) {
		if (!S_ISREG(st.st_mode) || hp_gitfile(dir, t, sizeof(t)) != 0)
			return v;
		snprintf(gd, sizeof(gd), "%s", t);
	}
	snprintf(f, sizeof(f), "%s/config", gd);
	v = hp_static_file(v, f, dir, home, HP_INCLUDES + 1);
	snprintf(f, sizeof(f), "%s/config.worktree", gd);
	v = hp_static_file(v, f, dir, home, HP_INCLUDES + 1);
	snprintf(f, sizeof(f), "%s/commondir", gd);
	if (hookspath_dirfile(f, buf, sizeof(buf)) > 0 &&
	    namerule_lexical(gd, buf, t, sizeof(t)) == 0) {
		snprintf(f, sizeof(f), "%s/config", t);
		v = hp_static_file(v, f, dir, home, HP_INCLUDES + 1);
	}
	return v;
}

/*
 * What one repository's core.hooksPath names, into v; *asked set when
 * git was asked (a scope may set the key).
 */
static char **
hp_repo(char **v, const char *dir, const char *home, int top, int *asked)
{
	static const char *const get[] = { "config", "--path", "--get",
	    "core.hooksPath", NULL };
	static const char *const toplevel[] = { "rev-parse",
	    "--show-toplevel", NULL, NULL, NULL };
	char	*hp, *root = NULL;

	if (!hp_worth_asking(dir, home))
		return v;
	*asked = 1;
	v = hp_origins(v, dir, home);
	if ((hp = hp_git(dir, home, get, NULL)) == NULL)
		return v;
	/* Relative to the worktree's top, where hooks run.  A bind's top
	 * in no repository yet (the global config's value) is where a
	 * `git init` inside would put one. */
	if (hp[0] != '/') {
		root = top ? hp_git(dir, home, toplevel, NULL) : NULL;
		if (root == NULL)
			root = xstrdup(dir);
	}
	v = hp_value(v, root != NULL ? root : "/", hp);
	free(root);
	free(hp);
	return v;
}

/* Whether gd is a git directory as git's is_git_directory() takes it:
 * a HEAD, and objects/ with refs/ or a commondir. */
static int
hp_gitdir(const char *gd)
{
	struct stat	st;
	char		p[PATH_MAX + 8];

	if ((size_t)snprintf(p, sizeof(p), "%s/HEAD", gd) >= sizeof(p))
		return 1;	/* fail closed: counted */
	return stat(p, &st) == 0 && gitstate_is(AT_FDCWD, gd);
}

int
hookspath_is_gitdir(const char *dir)
{
	return hp_gitdir(dir);
}

int
hookspath_is_repo(const char *dir)
{
	struct stat	 st;
	char		 g[PATH_MAX + 8], t[PATH_MAX];

	if ((size_t)snprintf(g, sizeof(g), "%s/.git", dir) >= sizeof(g))
		return 1;	/* fail closed: counted */
	/* Followed, as git follows a .git link. */
	if (stat(g, &st) == -1)
		return 0;
	if (S_ISDIR(st.st_mode))
		return hp_gitdir(g);
	if (!S_ISREG(st.st_mode))
		return 0;
	switch (hp_gitfile(dir, t, sizeof(t))) {
	case 0:
		return hp_gitdir(t);
	case 1:
		return 1;	/* fail closed: counted */
	default:
		return 0;
	}
}

int
hookspath_mentioned(const char *gitdir)
{
	char	p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/config", gitdir);
	if (hp_mentions(p))
		return 1;
	snprintf(p, sizeof(p), "%s/config.worktree", gitdir);
	return hp_mentions(p);
}

struct hp_walk {
	size_t	ndirs;		/* directories looked at */
	size_t	nrepos;		/* repositories git was asked of */
	int	full;		/* the directory bound reached */
};

/*
 * Repositories below dir (depth levels more): a ".git" entry that is a
 * repository.  The sandbox fills this tree: an entry that is no
 * repository counts for nothing; past the repositories git is asked
 * of, their config files are read without git (hookspath_static); past the
 * directory bound the walk ends as full, and the launch is refused:
 * no hooks directory can be protected that nobody looked for.
 */
static char **
hp_walk(char **v, const char *dir, const char *home, int depth,
    struct hp_walk *w)
{
	struct dirent	*e;
	struct stat	 st;
	DIR		*d;
	char		 p[PATH_MAX];
	int		 asked;

	if (depth == 0 || w->full || (d = opendir(dir)) == NULL)
		return v;
	while (!w->full && (e = readdir(d)) != NULL) {
		/* Files are not looked at: d_type says, where it can. */
		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, ".git") == 0 ||
		    strcmp(e->d_name, "node_modules") == 0 ||
		    (size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >=
		    sizeof(p) || lstat(p, &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		if (++w->ndirs > HP_DIRS) {
			w->full = 1;
			break;
		}
		if (hookspath_is_repo(p) || hp_gitdir(p)) {
			if (w->nrepos >= HP_REPOS)
				v = hookspath_static(v, p, home);
			else {
				asked = 0;
				v = hp_repo(v, p, home, 0, &asked);
				if (asked)
					w->nrepos++;
			}
		}
		v = hp_walk(v, p, home, depth - 1, w);
	}
	closedir(d);
	return v;
}

int
hookspath_find(const char *top, const char *home, char ***out, char *err,
    size_t errlen)
{
	struct hp_walk	 w = { 0, 0, 0 };
	char		**v = NULL;
	int		 asked = 0;

	v = hp_repo(v, top, home, 1, &asked);
	v = hp_walk(v, top, home, HP_DEPTH, &w);
	*out = v;
	if (!w.full)
		return 0;
	snprintf(err, errlen, "%s: more than %d directories within %d "
	    "levels: airlock could not look for git repositories (and the "
	    "hooks their core.hooksPath names) in all of them; make a "
	    "narrower directory writable (--workspace, --bind, allowWrite) "
	    "or remove the directories it does not need", top, HP_DIRS, HP_DEPTH);
	return -1;
}
