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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/gitstate.h"
#include "common/namerule.h"
#include "common/xmalloc.h"
#include "supervisor/hookspath.h"

#define HP_DEPTH	4	/* directory levels searched below a bind */
#define HP_DIRS		4000	/* directories looked at, per bind */
#define HP_REPOS	32	/* repositories asked, per bind */
#define HP_WAIT_MS	3000	/* one git process, at most */
#define HP_OUT_MAX	(1 << 20)	/* what git config --list prints */

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

/* A literal path as a namerule glob: its metacharacters escaped. */
static char *
hp_escape(const char *s)
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
	char	*e = hp_escape(s);
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

/* What one repository's core.hooksPath names, into v. */
static char **
hp_repo(char **v, const char *dir, const char *home, int top)
{
	static const char *const get[] = { "config", "--path", "--get",
	    "core.hooksPath", NULL };
	static const char *const toplevel[] = { "rev-parse",
	    "--show-toplevel", NULL, NULL, NULL };
	char	*hp, *root = NULL, abs[PATH_MAX], real[PATH_MAX], *r;
	const char *rel;

	if (!hp_worth_asking(dir, home))
		return v;
	v = hp_origins(v, dir, home);
	if ((hp = hp_git(dir, home, get, NULL)) == NULL)
		return v;
	if (hp[0] != '/') {
		/* Relative to the worktree's top, where hooks run.  A
		 * bind's top in no repository yet (the global config's
		 * value) is where a `git init` inside would put one. */
		root = top ? hp_git(dir, home, toplevel, NULL) : NULL;
		if (root == NULL)
			root = xstrdup(dir);
		if (namerule_lexical(root, hp, abs, sizeof(abs)) != 0)
			goto out;
		/* The same name in any other repository of the tree. */
		for (rel = hp; strncmp(rel, "./", 2) == 0; rel += 2)
			;
		if (rel[0] != '\0' && strcmp(rel, ".") != 0 &&
		    strstr(rel, "..") == NULL)
			v = hp_add(v, rel);
	} else if (namerule_lexical("/", hp, abs, sizeof(abs)) != 0)
		goto out;
	v = hp_add(v, abs);
	if ((r = realpath(abs, real)) != NULL && strcmp(real, abs) != 0)
		v = hp_add(v, real);
out:
	free(root);
	free(hp);
	return v;
}

/* Repositories below dir (depth levels more): a ".git" entry. */
static char **
hp_walk(char **v, const char *dir, const char *home, int depth,
    size_t *ndirs, size_t *nrepos)
{
	struct dirent	*e;
	struct stat	 st;
	DIR		*d;
	char		 p[PATH_MAX], g[PATH_MAX + 8];

	if (depth == 0 || (d = opendir(dir)) == NULL)
		return v;
	while ((e = readdir(d)) != NULL && *ndirs < HP_DIRS &&
	    *nrepos < HP_REPOS) {
		/* Files are not looked at: d_type says, where it can. */
		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, ".git") == 0 ||
		    strcmp(e->d_name, "node_modules") == 0 ||
		    (size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >=
		    sizeof(p) || lstat(p, &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		(*ndirs)++;
		if ((size_t)snprintf(g, sizeof(g), "%s/.git", p) < sizeof(g) &&
		    lstat(g, &st) == 0) {
			(*nrepos)++;
			v = hp_repo(v, p, home, 0);
		}
		v = hp_walk(v, p, home, depth - 1, ndirs, nrepos);
	}
	closedir(d);
	return v;
}

char **
hookspath_find(const char *top, const char *home)
{
	char	**v = NULL;
	size_t	  ndirs = 0, nrepos = 0;

	v = hp_repo(v, top, home, 1);
	return hp_walk(v, top, home, HP_DEPTH, &ndirs, &nrepos);
}
