// SPDX-License-Identifier: ISC
/*
 * What the agent commits, the host checks out (SPEC R-L3; commits.h).
 *
 * Git is run here on repositories a sandbox has written, so it is run
 * as plumbing under a minimal environment: no system or global config,
 * no $HOME, hooks and fsmonitor off, replace refs ignored (a sandbox may
 * write refs/replace/ to show this judge other objects than the host
 * sees; such a ref is judged like any other), no optional locks, a
 * bounded time.  The repository's own config is read: its keys are the
 * user's or passed the sandbox's allowlist, and plumbing runs nothing
 * they name with hooks off.  Whatever cannot be judged (git failed, too
 * slow, too many commits) is held: judged unsafe.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <ctype.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/host/paths.h"
#include "common/namerule.h"
#include "common/sigdfl.h"
#include "common/xmalloc.h"
#include "supervisor/commits.h"
#include "supervisor/hookspath.h"

#define CM_DEPTH	3		/* directory levels below a bind */
#define CM_DIRS		HOOKSPATH_DIRS	/* directories, per bind */
#define CM_REPOS	HOOKSPATH_REPOS	/* repositories, per bind; at the
					   end, made during the run */
#define CM_UNSNAPPED	4096		/* past CM_REPOS, listed at launch */
#define CM_WAIT_MS	5000		/* one git process, at most */
#define CM_OUT_MAX	(64U << 20)	/* what one git prints */
#define CM_INDEX_MAX	(64U << 20)	/* an index kept at launch */
#define CM_PATHS	16		/* paths named per held ref */
#define CM_NULL_SHA	"0000000000000000000000000000000000000000"
#define CM_EMPTY_TREE	"4b825dc642cb6eb9a060e54bf8d69288fbee4904"

static const char *const cm_pseudo[] = { "ORIG_HEAD", "MERGE_HEAD",
    "CHERRY_PICK_HEAD", "REVERT_HEAD", "FETCH_HEAD", "BISECT_HEAD",
    "AUTO_MERGE", NULL };

struct cm_wt {
	char	*gitdir;	/* this work tree's own git directory */
	char	*top;		/* the work tree */
	char	*head;		/* HEAD's text at launch, NULL if new */
	char	*index;		/* the index's bytes at launch */
	size_t	 indexlen;
	char	*pseudo[8];	/* cm_pseudo's texts at launch */
};

struct cm_repo {
	char	*common;	/* the common git directory */
	char	*top;		/* the main work tree */
	char	*rtop;		/* top resolved, at launch */
	char	*refs;		/* for-each-ref at launch: "sha name\n" */
	char	**rl;		/* its reflogs at launch: path, bytes,
				   ... (cm_rl_take) */
	int	 rlfull;	/* ... not all of them kept */
	struct cm_wt *wts;
	size_t	 nwts;
	int	 locked;	/* its judge lock taken by airlockd */
};

struct commits_snap {
	struct cm_repo	*repos;
	size_t		 nrepos;
	size_t		 nlaunch;	/* repos[0..nlaunch): at launch */
	int		 found;		/* those made during the run too */
	int		 child;		/* judged in commits_judge_start's
					   child */
	char		**tops;
	char		 *full;		/* why the launch's walk is short:
					   at the end, what it found
					   unknown is not judged */
	char		 *fulltop;	/* the bind it stopped in */
	char		**unsnapped;	/* at launch, past CM_REPOS */
	char		**verify;	/* at the end: common, top, ... of
					   those past the bound: their
					   object stores verified */
	char		**runsnapped;	/* each one resolved, at launch */
	struct timespec	  t0;		/* the launch, CLOCK_REALTIME */
	char		**unjudged;	/* at the end: what, why, ... */
	size_t		  nunjudged;	/* all, named or not */
};

/*
 * The judge lock of a repository, held by airlockd while a session's
 * judge works on it, so that a launch on it (commits_busy) does not take
 * the held commits as its own starting point.  It lives beside the
 * user's airlockd socket ($XDG_RUNTIME_DIR/airlock/, which no sandbox
 * sees), named by the common directory's device and inode: nothing is
 * left in the user's repository, every airlockd of the user shares it,
 * and no sandbox can hold it or put a link in its place.
 * op: flock's.  The descriptor, or -1 (none, or EWOULDBLOCK).
 */
#define CM_LOCK_WAIT	30	/* seconds a judge waits for another's */

static int
cm_lock(const char *common, int op)
{
	struct stat	 st;
	char		*sock, *dir, *p;
	int		 fd;

	if (stat(common, &st) == -1)
		return -1;
	sock = airlock_default_socket();
	dir = dirname(sock);
	(void)mkdir(dir, 0700);
	xasprintf(&p, "%s/judge-%llx-%llx.lock", dir,
	    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	free(sock);
	fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
	    0600);
	free(p);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    flock(fd, op) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A file's bytes (up to max), or NULL. */
static char *
cm_read(const char *path, size_t max, size_t *lenp)
{
	struct stat	 st;
	char		*buf;
	size_t		 len = 0;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > max) {
		close(fd);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (len < (size_t)st.st_size &&
	    (n = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return buf;
}

/* A gitfile's or commondir's text as git reads it (hookspath_dirfile). */
static char *
cm_dirfile(const char *path)
{
	char	buf[PATH_MAX + 16];

	return hookspath_dirfile(path, buf, sizeof(buf)) == -1 ? NULL :
	    xstrdup(buf);
}

/* A small file's text, its trailing newline taken off. */
static char *
cm_text(const char *path)
{
	char	*s = cm_read(path, 1 << 16, NULL);

	if (s != NULL)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

/* cm_git's child: git, with nothing of airlockd's git environment, no
 * user or system config, on stdin in and stdout out. */
static void __attribute__((noreturn))
cm_git_child(const char **argv, const char *index, int in, int out)
{
	extern char **environ;
	char	**e, nm[128];
	int	  nul = open("/dev/null", O_RDWR);

	for (e = environ; *e != NULL; )
		if (strncmp(*e, "GIT_", 4) == 0) {
			snprintf(nm, sizeof(nm), "%.*s", (int)strcspn(*e, "="),
			    *e);
			unsetenv(nm);
		} else
			e++;
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_NO_REPLACE_OBJECTS", "1", 1);
	setenv("GIT_OPTIONAL_LOCKS", "0", 1);
	setenv("GIT_TERMINAL_PROMPT", "0", 1);
	setenv("GIT_ATTR_NOSYSTEM", "1", 1);
	setenv("HOME", "/nonexistent", 1);
	setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
	setenv("LC_ALL", "C", 1);
	if (index != NULL)
		setenv("GIT_INDEX_FILE", index, 1);
	dup2(in, 0);
	dup2(out, 1);
	if (nul != -1)
		dup2(nul, 2);
	execvp("git", (char *const *)argv);
	_exit(127);
}

/*
 * cm_git's output: what git writes on out while in (inlen bytes) goes
 * to *infd (closed and set to -1 when written), within CM_WAIT_MS and
 * CM_OUT_MAX; NULL (git killed) past either.
 */
static char *
cm_git_pump(pid_t pid, int out, int *infd, const char *in, size_t inlen,
    size_t *lenp, int wait_ms, int *late)
{
	struct pollfd	 pfd[2];
	struct timespec	 t0, t;
	char		*buf = NULL;
	size_t		 len = 0, cap = 0, off = 0;
	ssize_t		 r;
	int		 ms, nfd;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = wait_ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000);
		pfd[0].fd = out;
		pfd[0].events = POLLIN;
		pfd[1].fd = *infd;
		pfd[1].events = POLLOUT;
		nfd = *infd != -1 ? 2 : 1;
		if (ms <= 0 || poll(pfd, nfd, ms) == 0) {
			*late = 1;
			kill(pid, SIGKILL);
			free(buf);
			buf = NULL;
			len = 0;
			break;
		}
		if (nfd == 2 && pfd[1].revents != 0) {
			r = write(*infd, in + off, inlen - off);
			if (r > 0)
				off += (size_t)r;
			if ((r == -1 && errno != EAGAIN && errno != EINTR) ||
			    off == inlen) {
				close(*infd);
				*infd = -1;
			}
		}
		if (pfd[0].revents == 0)
			continue;
		if (cap - len < 65536) {
			if (cap >= CM_OUT_MAX) {
				kill(pid, SIGKILL);
				free(buf);
				buf = NULL;
				len = 0;
				break;
			}
			cap = cap ? cap * 2 : 65536 * 2;
			buf = xreallocarray(buf, 1, cap + 1);
		}
		r = read(out, buf + len, cap - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	*lenp = len;
	return buf;
}

/*
 * Run git with args (NULL-terminated) on gitdir (and top as its work
 * tree, if not NULL), in, if not NULL, on its stdin; index: another
 * index file; wait_ms: how long it may take.  Its output (*len), or
 * NULL if it failed (*late set if it took too long).
 */
static char *
cm_git_ms(const char *gitdir, const char *top, const char *index,
    const char *const *args, const char *in, size_t inlen, size_t *lenp,
    int wait_ms, int *late)
{
	const char	*argv[32];
	char		 gd[PATH_MAX + 16], wt[PATH_MAX + 16], *buf;
	size_t		 len = 0, i, n = 0;
	pid_t		 pid;
	int		 po[2], pi[2], st;

	*late = 0;

	snprintf(gd, sizeof(gd), "--git-dir=%s", gitdir);
	argv[n++] = "git";
	argv[n++] = "-c";
	argv[n++] = "core.hooksPath=/dev/null";
	argv[n++] = "-c";
	argv[n++] = "core.fsmonitor=false";
	argv[n++] = "-c";
	argv[n++] = "core.splitIndex=false";
	argv[n++] = gd;
	if (top != NULL) {
		snprintf(wt, sizeof(wt), "--work-tree=%s", top);
		argv[n++] = wt;
	}
	for (i = 0; args[i] != NULL && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (pipe2(po, O_CLOEXEC) == -1)
		return NULL;
	if (pipe2(pi, O_CLOEXEC) == -1) {
		close(po[0]);
		close(po[1]);
		return NULL;
	}
	if ((pid = fork()) == -1) {
		close(po[0]);
		close(po[1]);
		close(pi[0]);
		close(pi[1]);
		return NULL;
	}
	if (pid == 0)
		cm_git_child(argv, index, pi[0], po[1]);
	close(po[1]);
	close(pi[0]);
	if (in == NULL) {
		close(pi[1]);
		pi[1] = -1;
	} else
		(void)fcntl(pi[1], F_SETFL, O_NONBLOCK);
	buf = cm_git_pump(pid, po[0], &pi[1], in, inlen, &len, wait_ms,
	    late);
	close(po[0]);
	if (pi[1] != -1)
		close(pi[1]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		free(buf);
		return NULL;
	}
	if (buf == NULL)
		buf = xstrdup("");
	buf[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return buf;
}

/* cm_git_ms within CM_WAIT_MS. */
static char *
cm_git(const char *gitdir, const char *top, const char *index,
    const char *const *args, const char *in, size_t inlen, size_t *lenp)
{
	int	late;

	return cm_git_ms(gitdir, top, index, args, in, inlen, lenp,
	    CM_WAIT_MS, &late);
}

/* A work tree's state as it is now (HEAD, pseudo refs, the index). */
static void
cm_wt_take(struct cm_wt *w)
{
	char	p[PATH_MAX + 32];
	size_t	i;

	snprintf(p, sizeof(p), "%s/HEAD", w->gitdir);
	w->head = cm_text(p);
	for (i = 0; cm_pseudo[i] != NULL; i++) {
		snprintf(p, sizeof(p), "%s/%s", w->gitdir, cm_pseudo[i]);
		w->pseudo[i] = cm_read(p, 1 << 20, NULL);
	}
	snprintf(p, sizeof(p), "%s/index", w->gitdir);
	w->index = cm_read(p, CM_INDEX_MAX, &w->indexlen);
}

/* The work trees of a repository: the main one, then worktrees/. */
static void
cm_wts(struct cm_repo *r, int take)
{
	struct dirent	*e;
	DIR		*d;
	char		 p[PATH_MAX + 300], *g, *s;
	struct cm_wt	*w;

	r->wts = xcalloc(1, sizeof(*r->wts));
	r->nwts = 1;
	r->wts[0].gitdir = xstrdup(r->common);
	r->wts[0].top = xstrdup(r->top);
	if (take)
		cm_wt_take(&r->wts[0]);
	snprintf(p, sizeof(p), "%s/worktrees", r->common);
	if ((d = opendir(p)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/worktrees/%s/gitdir", r->common,
		    e->d_name);
		/* gitdir: the work tree's .git file. */
		if ((g = cm_text(p)) == NULL || g[0] != '/' ||
		    (s = strrchr(g, '/')) == NULL || s == g) {
			free(g);
			continue;
		}
		*s = '\0';
		r->wts = xreallocarray(r->wts, r->nwts + 1, sizeof(*r->wts));
		w = &r->wts[r->nwts++];
		memset(w, 0, sizeof(*w));
		xasprintf(&w->gitdir, "%s/worktrees/%s", r->common,
		    e->d_name);
		w->top = g;
		if (take)
			cm_wt_take(w);
	}
	closedir(d);
}

/*
 * A repository at top: a .git directory (or, at launch, a gitfile the
 * host made, followed).  At the end only directories are taken: a
 * gitfile made inside may name any repository of the user's.
 */
/* At the end: what could not be judged, and why (the first few named,
 * all counted). */
static void
cm_unjudged(struct commits_snap *s, const char *what, const char *why)
{
	if (s->nunjudged++ < CM_PATHS) {
		s->unjudged = strv_add(s->unjudged, what);
		s->unjudged = strv_add(s->unjudged, why);
	}
}

/* The reflogs kept at launch (judged at the end: cm_reflogs). */
#define CM_RL_MAX	(32U << 20)	/* reflog bytes kept, a repository */
#define CM_RL_FILES	10000		/* reflog files, a repository */

static int	cm_job_write(int, const char *, size_t);

/* The reflog files under dir (the logs/ of a git directory), into *v as
 * path, bytes, path, bytes, ...; *total counts what is kept. */
static void
cm_rl_walk(char ***v, const char *dir, int depth, size_t *total,
    size_t *files, int *full)
{
	struct dirent	*e;
	struct stat	 st;
	DIR		*d;
	char		 p[PATH_MAX], *t, *q;
	size_t		 len;

	if (depth == 0 || (d = opendir(dir)) == NULL) {
		if (depth == 0)
			*full = 1;
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >=
		    sizeof(p) || lstat(p, &st) == -1)
			continue;
		if (S_ISDIR(st.st_mode)) {
			cm_rl_walk(v, p, depth - 1, total, files, full);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		if (++*files > CM_RL_FILES || *total + (size_t)st.st_size >
		    CM_RL_MAX || (t = cm_read(p, CM_RL_MAX, &len)) == NULL) {
			*full = 1;
			continue;
		}
		*total += len;
		/* A NUL kept as \001: a file with one compares whole. */
		while ((q = memchr(t, '\0', len)) != NULL)
			*q = '\001';
		*v = strv_add(*v, p);
		*v = strv_add(*v, t);
		free(t);
	}
	closedir(d);
}

/* The reflogs of the repository r (its common logs/ and each linked
 * work tree's), as cm_rl_walk gives them.  *full: not all kept. */
static char **
cm_rl_take(const char *common, const struct cm_wt *wts, size_t nwts,
    int *full)
{
	char	**v = NULL, p[PATH_MAX + 16];
	size_t	  total = 0, files = 0, i;

	*full = 0;
	snprintf(p, sizeof(p), "%s/logs", common);
	cm_rl_walk(&v, p, 16, &total, &files, full);
	for (i = 1; i < nwts; i++) {
		snprintf(p, sizeof(p), "%s/logs", wts[i].gitdir);
		cm_rl_walk(&v, p, 16, &total, &files, full);
	}
	return v;
}

#define CM_SLACK	1	/* seconds: launch time, less (cm_after) */

/*
 * Whether st changed at or after t0: its status change time, which only
 * the kernel sets (a write, a chmod, a rename, a link), less a second
 * for file systems whose times are coarse.
 */
static int
cm_after(const struct stat *st, const struct timespec *t0)
{
	struct timespec	t = *t0;

	t.tv_sec -= CM_SLACK;
	return st->st_ctim.tv_sec > t.tv_sec || (st->st_ctim.tv_sec ==
	    t.tv_sec && st->st_ctim.tv_nsec >= t.tv_nsec);
}

/*
 * Whether anything under path (depth levels; at most *budget entries)
 * changed since t0: the status change time, which no one but the
 * kernel sets (a sandbox can set a file's mtime back, never its
 * ctime).  A walk past its budget counts as changed, and so does a
 * directory depth levels down: git takes a ref at any depth, and one
 * written there changes no ctime above it.
 */
static int
cm_changed_tree(const char *path, const struct timespec *t0, int depth,
    size_t *budget)
{
	struct dirent	*e;
	struct stat	 st;
	DIR		*d;
	char		 p[PATH_MAX];
	int		 ch = 0;

	if (lstat(path, &st) == -1)
		return 0;
	if (st.st_ctim.tv_sec > t0->tv_sec || (st.st_ctim.tv_sec ==
	    t0->tv_sec && st.st_ctim.tv_nsec >= t0->tv_nsec))
		return 1;
	if (!S_ISDIR(st.st_mode))
		return 0;
	if (depth == 0)
		return 1;
	if ((d = opendir(path)) == NULL)
		return 0;
	while (!ch && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (*budget == 0 || (size_t)snprintf(p, sizeof(p), "%s/%s",
		    path, e->d_name) >= sizeof(p)) {
			ch = 1;
			break;
		}
		(*budget)--;
		ch = cm_changed_tree(p, t0, depth - 1, budget);
	}
	closedir(d);
	return ch;
}

/*
 * Whether a repository whose refs were not kept at launch (common, its
 * git directory) changed during the run: its HEAD, refs, packed refs,
 * index, or any work tree's.  One that did not holds nothing new.
 */
static int
cm_changed(const char *common, const struct timespec *t0)
{
	static const char *const what[] = { "HEAD", "packed-refs", "refs",
	    "index", "reftable", "worktrees", "config", "config.worktree",
	    "commondir", NULL };
	char	p[PATH_MAX + 32];
	size_t	i, budget = 100000;

	for (i = 0; what[i] != NULL; i++) {
		snprintf(p, sizeof(p), "%s/%s", common, what[i]);
		if (cm_changed_tree(p, t0, 16, &budget))
			return 1;
	}
	return 0;
}

/*
 * Whether the git directory real lies in one of the writable binds.  One
 * outside all of them, reached through a gitfile, a commondir or a
 * symlink a run may have left inside, was not written by the sandbox:
 * its refs are the user's own to move, and are never judged.
 */
static int
cm_in_tops(const struct commits_snap *s, const char *real)
{
	char	r[PATH_MAX];
	size_t	i, n;

	for (i = 0; s->tops != NULL && s->tops[i] != NULL; i++) {
		if (realpath(s->tops[i], r) == NULL)
			continue;
		n = strlen(r);
		if (strcmp(r, "/") == 0 || (strncmp(real, r, n) == 0 &&
		    (real[n] == '\0' || real[n] == '/')))
			return 1;
	}
	return 0;
}

static void
cm_repo_add(struct commits_snap *s, const char *top, int launch)
{
	static const char *const fer[] = { "for-each-ref",
	    "--format=%(objectname) %(refname)", NULL };
	struct stat	 st;
	char		 g[PATH_MAX + 32], *t, *cd, real[PATH_MAX + 16];
	struct cm_repo	*r;
	size_t		 i;
	int		 follow;

	/* At the end, a gitfile is followed only to name what it leads
	 * to (below), never to judge it. */
	follow = launch || strv_in(s->unsnapped, top) || s->full != NULL;
	snprintf(g, sizeof(g), "%s/.git", top);
	if (lstat(g, &st) == -1) {
		/* top is itself a git directory: a bare repository, or a
		 * .git bound alone.  Its refs and index are the host's all
		 * the same (a checkout there writes what they name). */
		if (errno != ENOENT || !hookspath_is_gitdir(top))
			return;
		snprintf(g, sizeof(g), "%s", top);
	} else if (S_ISLNK(st.st_mode) && follow) {
		/* A .git symlink the host made, followed as git follows
		 * it; one made inside may lead to any repository of the
		 * user's and is not taken at the end. */
		if (stat(g, &st) == -1 || !S_ISDIR(st.st_mode))
			return;
	} else if (S_ISREG(st.st_mode) && follow) {
		if ((t = cm_dirfile(g)) == NULL || strncmp(t, "gitdir: ", 8) ||
		    namerule_lexical(top, t + 8, g, sizeof(g)) != 0) {
			free(t);
			return;
		}
		free(t);
	} else if (!S_ISDIR(st.st_mode))
		return;
	if (realpath(g, real) == NULL || strlen(real) > PATH_MAX - 16)
		return;
	/* A linked work tree (the host's): judged with its repository,
	 * paths taken from where it was found. */
	if ((size_t)snprintf(g, sizeof(g), "%s/commondir", real) <
	    sizeof(g) && (cd = cm_dirfile(g)) != NULL) {
		if (!follow || namerule_lexical(real, cd, g, sizeof(g)) != 0 ||
		    realpath(g, real) == NULL) {
			free(cd);
			return;
		}
		free(cd);
	}
	if (!cm_in_tops(s, real))
		return;
	for (i = 0; i < s->nrepos; i++)
		if (strcmp(s->repos[i].common, real) == 0)
			return;
	/* There at launch past the bound, or unknown after a launch
	 * walk that was not whole: its refs were not kept, so what is new
	 * in it cannot be told.  Named, never judged as all new. */
	if (!launch && (strv_in(s->unsnapped, top) || s->full != NULL)) {
		char	why[200];

		/* Its objects need no launch state: verified whatever
		 * else changed (cm_objects). */
		s->verify = strv_add(s->verify, real);
		s->verify = strv_add(s->verify, top);

		/* Nothing changed in it during the run: nothing to judge. */
		if (!cm_changed(real, &s->t0))
			return;
		if (strv_in(s->unsnapped, top))
			snprintf(why, sizeof(why), "a repository past the %d "
			    "whose refs airlock keeps at launch, changed "
			    "during the run", CM_REPOS);
		else
			snprintf(why, sizeof(why), "not looked at when the "
			    "run started (%s)", s->full);
		cm_unjudged(s, top, why);
		return;
	}
	/* Made during the run, beyond the bound: named, never skipped
	 * in silence. */
	if (!launch && s->nrepos - s->nlaunch >= CM_REPOS) {
		char	why[128];

		snprintf(why, sizeof(why), "a repository made during the "
		    "run beyond the %d airlock judges", CM_REPOS);
		cm_unjudged(s, top, why);
		return;
	}
	s->repos = xreallocarray(s->repos, s->nrepos + 1, sizeof(*s->repos));
	r = &s->repos[s->nrepos++];
	memset(r, 0, sizeof(*r));
	r->common = xstrdup(real);
	r->top = xstrdup(top);
	if (launch) {
		r->rtop = realpath(top, real) != NULL ? xstrdup(real) : NULL;
		r->refs = cm_git(r->common, NULL, NULL, fer, NULL, 0, NULL);
		if (r->refs == NULL)
			r->refs = xstrdup("");
		cm_wts(r, 1);
		r->rl = cm_rl_take(r->common, r->wts, r->nwts, &r->rlfull);
	}
}

/*
 * The repositories below dir (depth levels more).  The sandbox fills
 * this tree: a .git that is no repository counts for nothing.  At
 * launch, the repositories past CM_REPOS are listed without their
 * refs (named at the end as not judged), and past CM_UNSNAPPED of them
 * or CM_DIRS directories the walk ends with s->full saying why (what
 * the end finds unknown is then not judged either): never a walk that
 * stopped in silence, never a launch refused.
 */
static void
cm_walk(struct commits_snap *s, const char *top, const char *dir,
    int depth, size_t *ndirs, size_t *nrepos, int launch)
{
	struct dirent	*e;
	struct stat	 st;
	DIR		*d;
	char		 p[PATH_MAX], rp[PATH_MAX], why[128];
	int		 dot;

	if (depth == 0 || (launch && s->full != NULL) || *ndirs > CM_DIRS ||
	    (d = opendir(dir)) == NULL)
		return;
	while ((!launch || s->full == NULL) && *ndirs <= CM_DIRS &&
	    (e = readdir(d)) != NULL) {
		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, ".git") == 0 ||
		    strcmp(e->d_name, "node_modules") == 0 ||
		    (size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >=
		    sizeof(p) || lstat(p, &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		/* A dot directory is not searched, but one that is itself a
		 * git directory (the `.bare` layout) is a repository. */
		dot = e->d_name[0] == '.';
		if (dot && !hookspath_is_gitdir(p))
			continue;
		if (++*ndirs > CM_DIRS) {
			snprintf(why, sizeof(why), "more than %d directories "
			    "within %d levels: not all looked at", CM_DIRS,
			    CM_DEPTH);
			if (launch) {
				xasprintf(&s->full, "%s", why);
				s->fulltop = xstrdup(top);
			} else
				cm_unjudged(s, top, why);
			break;
		}
		if (hookspath_is_repo(p) || hookspath_is_gitdir(p)) {
			if (launch && ++*nrepos > CM_REPOS) {
				if (*nrepos - CM_REPOS > CM_UNSNAPPED) {
					xasprintf(&s->full, "more than %d git "
					    "repositories within %d levels "
					    "when the run started", CM_REPOS +
					    CM_UNSNAPPED, CM_DEPTH);
					s->fulltop = xstrdup(top);
					break;
				}
				s->unsnapped = strv_add(s->unsnapped, p);
				s->runsnapped = strv_add(s->runsnapped,
				    realpath(p, rp) != NULL ? rp : "");
			} else
				cm_repo_add(s, p, launch);
		}
		if (!dot)
			cm_walk(s, top, p, depth - 1, ndirs, nrepos, launch);
	}
	closedir(d);
}

static void
cm_find(struct commits_snap *s, char *const *tops, int launch)
{
	size_t	i, ndirs, nrepos;

	for (i = 0; tops != NULL && tops[i] != NULL; i++) {
		ndirs = nrepos = 0;
		cm_repo_add(s, tops[i], launch);
		cm_walk(s, tops[i], tops[i], CM_DEPTH, &ndirs, &nrepos,
		    launch);
	}
}

struct commits_snap *
commits_snapshot(char *const *tops)
{
	struct commits_snap *s = xcalloc(1, sizeof(*s));

	clock_gettime(CLOCK_REALTIME, &s->t0);
	for (size_t i = 0; tops != NULL && tops[i] != NULL; i++)
		s->tops = strv_add(s->tops, tops[i]);
	cm_find(s, tops, 1);
	return s;
}

int
commits_busy(struct commits_snap *s, char *err, size_t errlen)
{
	size_t	i;
	int	fd;

	for (i = 0; s != NULL && i < s->nrepos; i++) {
		if ((fd = cm_lock(s->repos[i].common, LOCK_EX | LOCK_NB)) !=
		    -1) {
			close(fd);
			continue;
		}
		if (errno != EWOULDBLOCK)
			continue;
		snprintf(err, errlen, "commits of a previous session in %s "
		    "are still being judged; try again in a moment",
		    s->repos[i].top);
		return -1;
	}
	return 0;
}

void
commits_free(struct commits_snap *s)
{
	size_t	i, j, k;

	if (s == NULL)
		return;
	for (i = 0; i < s->nrepos; i++) {
		struct cm_repo *r = &s->repos[i];

		for (j = 0; j < r->nwts; j++) {
			free(r->wts[j].gitdir);
			free(r->wts[j].top);
			free(r->wts[j].head);
			free(r->wts[j].index);
			for (k = 0; k < 8; k++)
				free(r->wts[j].pseudo[k]);
		}
		free(r->wts);
		free(r->common);
		free(r->top);
		free(r->rtop);
		free(r->refs);
		strv_free(r->rl);
	}
	free(s->repos);
	strv_free(s->tops);
	free(s->full);
	free(s->fulltop);
	strv_free(s->unsnapped);
	strv_free(s->runsnapped);
	strv_free(s->verify);
	strv_free(s->unjudged);
	free(s);
}

/* A growing string: s appended to *buf (*len bytes of *cap). */
static void
cm_cat(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t	n = strlen(s);

	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = xreallocarray(*buf, 1, *cap);
	}
	memcpy(*buf + *len, s, n + 1);
	*len += n;
}

/* ---- the judge ---- */

struct cm_judge {
	const struct namerule_set *rules;
	const char	*common;
	const char	*top;
	const char	*ttree;		/* the tree judged (its .gitmodules
					   names submodules), or NULL: the
					   work tree's .gitmodules */
	int		 depth;		/* submodules above this judge */
	char		**bad;		/* protected paths found */
	char		**why;		/* the rule of each, "" when the
					   path's name says it */
};

/* A protected path found, and the rule that protects it. */
static void
cm_bad(struct cm_judge *j, const char *path, const char *why)
{
	j->bad = strv_add(j->bad, path);
	j->why = strv_add(j->why, why);
}

static void
cm_clear(struct cm_judge *j)
{
	strv_free(j->bad);
	strv_free(j->why);
	j->bad = j->why = NULL;
}

/* A blob's bytes (a .gitmodules, a link's target), or NULL. */
static char *
cm_blob(const char *common, const char *sha, size_t *len)
{
	const char *const args[] = { "cat-file", "blob", sha, NULL };

	return cm_git(common, NULL, NULL, args, NULL, 0, len);
}

/* 1 if a component of path (relative, '/'-separated) folds to ".git". */
static int
cm_gitdir_name(const char *path)
{
	char		 comp[256];
	const char	*c, *e;
	size_t		 n;

	for (c = path; *c != '\0'; c = *e != '\0' ? e + 1 : e) {
		e = c + strcspn(c, "/");
		n = (size_t)(e - c);
		if (n >= sizeof(comp))
			continue;
		memcpy(comp, c, n);
		comp[n] = '\0';
		if (namerule_gitstate_name(comp))
			return 1;
	}
	return 0;
}

struct cm_pair {
	const char	*base;		/* a commit or tree, or NULL */
	const char	*tip;		/* the new value */
	char		 btree[72];	/* base's tree, "" for none */
	char		 ttree[72];	/* tip's tree, "" if nothing is
					   checked out (a blob) */
	int		 viahub;	/* compared with the hub's tree */
	char		**bad;
	char		**why;
};

static void	cm_pairs(struct cm_judge *, struct cm_pair *, size_t);
#define CM_SUB_DEPTH	4	/* submodules within submodules judged */

/*
 * The submodule at path (a gitlink added or changed to sha, from osha
 * or NULL): `git submodule update` on the host checks sha out there
 * from the submodule's git directory (modules/NAME of this one, NAME
 * the one .gitmodules gives path; or path/.git), which a sandbox
 * writes like any git state: a commit put there by plumbing brings
 * what no tree of this repository shows.  So its tree is judged there
 * as a ref's tip is (against osha's), its paths below path.  A commit
 * that is not there is fetched from the submodule's URL by the host:
 * not the sandbox's (a URL to a path in the workspace is judged there
 * too).
 */
static void
cm_gitlink(struct cm_judge *j, const char *path, const char *sha,
    const char *osha)
{
	const char	*ga[] = { "config", NULL, NULL, "--get-regexp",
	    "^submodule\\..*\\.path$", NULL };
	const char	*ex[] = { "cat-file", "-e", NULL, NULL };
	struct cm_judge	 sj;
	struct cm_pair	 pv;
	char		 src[PATH_MAX + 8], dirs[3][PATH_MAX + 64],
			 g[PATH_MAX + 64];
	char		*out, *l, *next, *val, *name = NULL, *url = NULL, *e,
			 p[PATH_MAX + 300], *t;
	size_t		 i, nd = 0, k;
	struct stat	 st;
	int		 have;

	if (j->depth >= CM_SUB_DEPTH)
		return;
	/* path/.git: a directory, or a gitfile git follows. */
	snprintf(g, sizeof(g), "%s/%s/.git", j->top, path);
	have = lstat(g, &st) == 0;
	if (have && S_ISDIR(st.st_mode))
		snprintf(dirs[nd++], sizeof(dirs[0]), "%s", g);
	else if (have && S_ISREG(st.st_mode) && (t = cm_dirfile(g)) != NULL) {
		snprintf(p, sizeof(p), "%s/%s", j->top, path);
		if (strncmp(t, "gitdir: ", 8) == 0 &&
		    namerule_lexical(p, t + 8, dirs[nd], sizeof(dirs[0])) == 0)
			nd++;
		free(t);
	}
	/* Its name and URL, from the .gitmodules the host reads. */
	if (j->ttree != NULL) {
		snprintf(src, sizeof(src), "%s:.gitmodules", j->ttree);
		ga[1] = "--blob";
	} else {
		snprintf(src, sizeof(src), "%s/.gitmodules", j->top);
		ga[1] = "--file";
	}
	ga[2] = src;
	out = cm_git(j->common, NULL, NULL, ga, NULL, 0, NULL);
	/* "submodule.NAME.path VALUE" and ".url" lines: the name whose
	 * path is path, then that name's URL. */
	for (l = out; l != NULL && *l != '\0'; l = next) {
		if ((next = strchr(l, '\n')) != NULL)
			*next++ = '\0';
		else
			next = l + strlen(l);
		if ((val = strchr(l, ' ')) == NULL)
			continue;
		*val++ = '\0';
		if ((e = strrchr(l, '.')) == NULL || e < l + 10 ||
		    strcmp(e, ".path") != 0 || strcmp(val, path) != 0)
			continue;
		name = xstrndup(l + 10, (size_t)(e - (l + 10)));
		break;
	}
	free(out);
	if (name != NULL) {
		const char *gu[] = { "config", ga[1], src, NULL, NULL };

		xasprintf(&t, "submodule.%s.url", name);
		gu[3] = t;
		if ((url = cm_git(j->common, NULL, NULL, gu, NULL, 0,
		    NULL)) != NULL)
			url[strcspn(url, "\n")] = '\0';
		free(t);
	}
	/* A name with a ".." part git refuses (check_submodule_name):
	 * no directory of the sandbox's choosing is read for it. */
	if (name != NULL && nd < 3 && strcmp(name, "..") != 0 &&
	    strncmp(name, "../", 3) != 0 && strstr(name, "/../") == NULL &&
	    (strlen(name) < 3 || strcmp(name + strlen(name) - 3, "/..") !=
	    0)) {
		snprintf(dirs[nd], sizeof(dirs[0]), "%s/modules/%s",
		    j->common, name);
		nd++;
	}
	/* A URL that is a path (./x, ../x, /x, file://): the host
	 * fetches from there. */
	if (url != NULL && nd < 3 && (url[0] == '/' || url[0] == '.' ||
	    strncmp(url, "file://", 7) == 0)) {
		t = url + (strncmp(url, "file://", 7) == 0 ? 7 : 0);
		if (namerule_lexical(t[0] == '/' ? "/" : j->top, t, dirs[nd],
		    sizeof(dirs[0])) == 0) {
			snprintf(g, sizeof(g), "%s/.git", dirs[nd]);
			if (stat(g, &st) == 0 && S_ISDIR(st.st_mode))
				snprintf(dirs[nd], sizeof(dirs[0]), "%s", g);
			nd++;
		}
	}
	free(name);
	free(url);
	ex[2] = sha;
	for (i = 0; i < nd; i++) {
		if (stat(dirs[i], &st) == -1 || !S_ISDIR(st.st_mode) ||
		    (out = cm_git(dirs[i], NULL, NULL, ex, NULL, 0, NULL)) ==
		    NULL)
			continue;
		free(out);
		memset(&sj, 0, sizeof(sj));
		sj.rules = j->rules;
		sj.common = dirs[i];
		snprintf(p, sizeof(p), "%s/%s", j->top, path);
		sj.top = p;
		sj.depth = j->depth + 1;
		memset(&pv, 0, sizeof(pv));
		pv.base = osha;
		pv.tip = sha;
		cm_pairs(&sj, &pv, 1);
		for (k = 0; pv.bad != NULL && pv.bad[k] != NULL; k++) {
			snprintf(g, sizeof(g), "%s/%s", path, pv.bad[k]);
			cm_bad(j, g, pv.why[k][0] != '\0' ? pv.why[k] :
			    "in a submodule's commit that git submodule "
			    "update checks out");
		}
		strv_free(pv.bad);
		strv_free(pv.why);
		return;
	}
}

/*
 * Judge one entry of a tree as the sandbox's filename rules would judge
 * writing it: path (relative to the work tree), its mode and blob.
 * untrusted: from the sandbox (the tree and the blobs it names).
 */
static void
cm_entry(struct cm_judge *j, const char *path, const char *mode,
    const char *sha, const char *omode, const char *osha)
{
	char	 abs[PATH_MAX], tgt[PATH_MAX], dir[PATH_MAX], why[256];
	char	*b, *slash;
	const char *rule = "";
	size_t	 len;
	enum namerule_verdict v;

	if (strv_len(j->bad) >= CM_PATHS || strv_in(j->bad, path))
		return;
	if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", j->top, path) >=
	    sizeof(abs)) {
		cm_bad(j, path, "a path too long to judge");
		return;
	}
	/* An entry named like git's own directory (a gitlink at .Git,
	 * sub/.git): no checkout of it is the user's work tree. */
	if (cm_gitdir_name(path)) {
		cm_bad(j, path, "git state: a tree entry named .git");
		return;
	}
	v = namerule_check(j->rules, abs, 0);
	if (v == NR_CHECK_CONFIG && (slash = strrchr(abs, '/')) != NULL &&
	    namerule_gitmodules_name(slash + 1) &&
	    strcmp(mode, "100644") == 0) {
		/* .gitmodules: by its content, as the sandbox judges it. */
		b = cm_blob(j->common, sha, &len);
		why[0] = '\0';
		if (b != NULL && namerule_gitmodules_check(b, len, why,
		    sizeof(why)) == 0)
			v = NR_ALLOW;
		free(b);
		if (v != NR_ALLOW) {
			char	r[300];

			snprintf(r, sizeof(r), ".gitmodules content: %s",
			    why[0] != '\0' ? why : "not readable");
			cm_bad(j, path, r);
			return;
		}
	}
	if (v == NR_ALLOW && strcmp(mode, "120000") == 0) {
		/* A link: where it leads, as the sandbox judges one made
		 * there (its target protected like the name). */
		snprintf(dir, sizeof(dir), "%s", abs);
		*strrchr(dir, '/') = '\0';
		b = cm_blob(j->common, sha, &len);
		if (b == NULL || memchr(b, '\0', len) != NULL ||
		    namerule_lexical(dir, b, tgt, sizeof(tgt)) != 0 ||
		    namerule_check(j->rules, tgt, NR_F_ANYWHERE) != NR_ALLOW) {
			v = NR_DENY;
			rule = "a symbolic link to a protected path";
		}
		free(b);
	}
	if (v != NR_ALLOW)
		cm_bad(j, path, rule);
	else if (strcmp(mode, "160000") == 0)
		cm_gitlink(j, path, sha, strcmp(omode, "160000") == 0 ?
		    osha : NULL);
}

/*
 * One comparison: what a host checkout of tip writes over base (the
 * tree the host had at launch).  base NULL: no tree to compare with,
 * every entry of tip is judged.
 */

/* The empty tree in the object format of sha (by its length). */
static const char *
cm_empty(const char *sha)
{
	return strlen(sha) == 64 ?
	    "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321" :
	    CM_EMPTY_TREE;
}

/*
 * The trees of the pairs' bases and tips, one cat-file for all.  A tip
 * whose peeled value is a blob has none (no checkout writes it); one
 * that cannot be read is a protected path "(...)": judged unsafe.
 */
static void
cm_pair_trees(const char *common, struct cm_pair *v, size_t n)
{
	static const char *const bc[] = { "cat-file",
	    "--batch-check=%(objecttype) %(objectname)", NULL };
	char	*in = NULL, *out, *line, *next, *q, ty[16], sha[72];
	size_t	 ilen = 0, icap = 0, i, k, want;
	char	 one[200];

	for (i = 0; i < n; i++) {
		snprintf(one, sizeof(one), "%s^{}\n%s^{tree}\n%s^{tree}\n",
		    v[i].tip, v[i].tip, v[i].base != NULL ? v[i].base :
		    v[i].tip);
		cm_cat(&in, &ilen, &icap, one);
	}
	if (in == NULL)
		return;
	out = cm_git(common, NULL, NULL, bc, in, ilen, NULL);
	free(in);
	want = n * 3;
	for (k = 0, line = out; out != NULL && k < want && line != NULL &&
	    *line != '\0'; k++, line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		i = k / 3;
		q = NULL;
		if (sscanf(line, "%15s %71s", ty, sha) == 2 &&
		    strcmp(sha, "missing") != 0 &&
		    strcmp(sha, "ambiguous") != 0)
			q = sha;
		switch (k % 3) {
		case 0:		/* the peeled type of tip */
			if (q != NULL && strcmp(ty, "blob") == 0)
				snprintf(v[i].ttree, sizeof(v[i].ttree),
				    "-");
			break;
		case 1:		/* tip's tree */
			if (q != NULL && strcmp(ty, "tree") == 0 &&
			    strcmp(v[i].ttree, "-") != 0)
				snprintf(v[i].ttree, sizeof(v[i].ttree), "%s",
				    q);
			break;
		case 2:		/* base's tree */
			if (q != NULL && strcmp(ty, "tree") == 0 &&
			    v[i].base != NULL)
				snprintf(v[i].btree, sizeof(v[i].btree), "%s",
				    q);
			break;
		}
	}
	free(out);
	for (i = 0; i < n; i++) {
		if (strcmp(v[i].ttree, "-") == 0)
			v[i].ttree[0] = '\0';
		else if (v[i].ttree[0] == '\0') {
			v[i].bad = strv_add(v[i].bad, "(the commit could not "
			    "be read)");
			v[i].why = strv_add(v[i].why, "");
		}
	}
}

static int
cm_pair_cmp(const void *a, const void *b)
{
	const struct cm_pair *x = *(struct cm_pair *const *)a;
	const struct cm_pair *y = *(struct cm_pair *const *)b;
	int	r = strcmp(x->btree, y->btree);

	return r != 0 ? r : strcmp(x->ttree, y->ttree);
}

/*
 * One `git diff-tree --stdin` for the pairs still to judge (round: the
 * pairs whose viahub is, or all if -1), each distinct pair of trees
 * once.  Added or changed entries are judged; a deletion writes
 * nothing.  A pair git printed nothing for could not be judged.
 */
static void
cm_diff(struct cm_judge *j, struct cm_pair *v, size_t n, int round)
{
	static const char *const dt[] = { "diff-tree", "--stdin", "-r",
	    "-z", "--raw", "--no-renames", "--no-abbrev", "--no-ext-diff",
	    "--no-textconv", "--no-color", NULL };
	struct cm_pair	**o;
	char		*in = NULL, *out, line[200], mode[8], sha[72], st;
	char		 b[72], t[72], omode[8], osha[72];
	const char	*p, *end, *path, *nl;
	size_t		 ilen = 0, icap = 0, no = 0, i, k, len, g;
	int		*seen, failed = 0;

	o = xcalloc(n + 1, sizeof(*o));
	for (i = 0; i < n; i++) {
		if (v[i].ttree[0] == '\0' || v[i].bad != NULL ||
		    (round != -1 && v[i].viahub != round))
			continue;
		if (v[i].btree[0] == '\0')
			snprintf(v[i].btree, sizeof(v[i].btree), "%s",
			    cm_empty(v[i].ttree));
		if (strcmp(v[i].btree, v[i].ttree) == 0)
			continue;	/* the same tree: nothing written */
		o[no++] = &v[i];
	}
	if (no == 0) {
		free(o);
		return;
	}
	qsort(o, no, sizeof(*o), cm_pair_cmp);
	seen = xcalloc(no, sizeof(*seen));
	for (i = 0; i < no; i++)
		if (i == 0 || cm_pair_cmp(&o[i - 1], &o[i]) != 0) {
			snprintf(line, sizeof(line), "%s %s\n", o[i]->btree,
			    o[i]->ttree);
			cm_cat(&in, &ilen, &icap, line);
		}
	out = cm_git(j->common, NULL, NULL, dt, in, ilen, &len);
	free(in);
	/* "btree ttree\n" for each pair, then its entries,
	 * ":oldmode newmode oldsha newsha S\0path\0" each. */
	g = 0;
	k = no;			/* the group being filled, none yet */
	for (p = out, end = out != NULL ? out + len : NULL; out != NULL &&
	    p < end; ) {
		if (*p != ':') {
			if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL ||
			    sscanf(p, "%71s %71s", b, t) != 2) {
				failed = 1;
				break;
			}
			p = nl + 1;
			/* Output keeps the input's order. */
			while (g < no && !(strcmp(o[g]->btree, b) == 0 &&
			    strcmp(o[g]->ttree, t) == 0))
				g++;
			if (g == no) {
				failed = 1;
				break;
			}
			k = g;
			seen[k] = 1;
			continue;
		}
		if (sscanf(p, ":%7s %7s %71s %71s %c", omode, mode, osha,
		    sha, &st) != 5 || (path = p + strlen(p) + 1) >= end ||
		    k == no) {
			failed = 1;
			break;
		}
		if (st != 'D') {
			j->bad = o[k]->bad;
			j->why = o[k]->why;
			j->ttree = o[k]->ttree;
			cm_entry(j, path, mode, sha, omode, osha);
			j->ttree = NULL;
			o[k]->bad = j->bad;
			o[k]->why = j->why;
			j->bad = j->why = NULL;
		}
		p = path + strlen(path) + 1;
	}
	/* The pairs of one group share its verdict. */
	for (i = 0; i < no; i++) {
		if (i > 0 && cm_pair_cmp(&o[i - 1], &o[i]) == 0) {
			seen[i] = seen[i - 1];
			for (k = 0; o[i - 1]->bad != NULL &&
			    o[i - 1]->bad[k] != NULL; k++) {
				o[i]->bad = strv_add(o[i]->bad,
				    o[i - 1]->bad[k]);
				o[i]->why = strv_add(o[i]->why,
				    o[i - 1]->why[k]);
			}
		}
		if ((!seen[i] || failed) && o[i]->bad == NULL) {
			o[i]->bad = strv_add(o[i]->bad, "(git could not "
			    "compare the trees)");
			o[i]->why = strv_add(o[i]->why, "");
		}
	}
	free(seen);
	free(out);
	free(o);
}

/*
 * Judge n pairs with a fixed number of gits, whatever n is.  The pairs
 * with no base (the refs of a repository made during the run) are
 * compared with one of them, the hub, rather than each with nothing: a
 * tree with no protected entry that another tree adds or changes nothing
 * protected over has none either.  If the hub has one, they are judged
 * again on their own.  On return each pair's bad (and why) names what
 * a checkout of its tip would write of protected paths.
 */
static void
cm_pairs(struct cm_judge *j, struct cm_pair *v, size_t n)
{
	size_t	i, hub = n;

	if (n == 0)
		return;
	cm_pair_trees(j->common, v, n);
	for (i = 0; i < n; i++) {
		if (v[i].btree[0] != '\0' || v[i].ttree[0] == '\0' ||
		    v[i].bad != NULL)
			continue;
		if (hub == n)
			hub = i;
		else if (strcmp(v[i].ttree, v[hub].ttree) != 0) {
			snprintf(v[i].btree, sizeof(v[i].btree), "%s",
			    v[hub].ttree);
			v[i].viahub = 1;
		}
	}
	cm_diff(j, v, n, 0);
	if (hub < n && v[hub].bad == NULL) {
		cm_diff(j, v, n, 1);
		return;
	}
	for (i = 0; i < n; i++)
		if (v[i].viahub) {
			v[i].btree[0] = '\0';
			v[i].viahub = 2;
		}
	cm_diff(j, v, n, 2);
}

static void
cm_pairs_free(struct cm_pair *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		strv_free(v[i].bad);
		strv_free(v[i].why);
	}
	free(v);
}

/* One ref of a for-each-ref text: "sha name". */
struct cm_lref {
	const char	*name;
	char		 sha[72];
};

static int
cm_lref_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cm_lref *)a)->name,
	    ((const struct cm_lref *)b)->name);
}

/*
 * The refs of a for-each-ref text (format "%(objectname) %(refname)"),
 * sorted by name; text is cut into its lines (names point into it).
 */
static struct cm_lref *
cm_lrefs(char *text, size_t *np)
{
	struct cm_lref	*v = NULL;
	size_t		 n = 0, cap = 0, k;
	char		*line, *next, *sp;

	for (line = text; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((sp = strchr(line, ' ')) == NULL ||
		    (k = (size_t)(sp - line)) >= sizeof(v->sha))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		memcpy(v[n].sha, line, k);
		v[n].sha[k] = '\0';
		v[n++].name = sp + 1;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cm_lref_cmp);
	*np = n;
	return v;
}

/* The launch value of ref, or NULL. */
static const char *
cm_old(const struct cm_lref *v, size_t n, const char *name)
{
	struct cm_lref	 key, *f;

	key.name = name;
	f = n ? bsearch(&key, v, n, sizeof(*v), cm_lref_cmp) : NULL;
	return f != NULL ? f->sha : NULL;
}

static int
cm_run(const char *gitdir, const char *top, const char *a0, const char *a1,
    const char *a2, const char *a3, const char *a4)
{
	const char *const args[] = { a0, a1, a2, a3, a4, NULL };
	char	*o = cm_git(gitdir, top, NULL, args, NULL, 0, NULL);

	free(o);
	return o == NULL ? -1 : 0;
}


/* s and its NUL at the end of buf (*len bytes). */
static char *
cm_append(char *buf, size_t *len, const char *s)
{
	size_t	n = strlen(s) + 1;

	buf = xreallocarray(buf, 1, *len + n);
	memcpy(buf + *len, s, n);
	*len += n;
	return buf;
}

/* The launch index's entries, "mode sha stage\tpath\0" each, or NULL. */
static char *
cm_launch_entries(const struct cm_wt *lw, size_t *len)
{
	static const char *const ls[] = { "ls-files", "-s", "-z", NULL };
	char	 tmp[] = "/tmp/airlock-index.XXXXXX", *out;
	size_t	 off = 0;
	ssize_t	 n;
	int	 fd;

	if (lw->index == NULL || (fd = mkostemp(tmp, O_CLOEXEC)) == -1)
		return NULL;
	while (off < lw->indexlen && (n = write(fd, lw->index + off,
	    lw->indexlen - off)) > 0)
		off += (size_t)n;
	close(fd);
	out = off == lw->indexlen ? cm_git(lw->gitdir, lw->top, tmp, ls,
	    NULL, 0, len) : NULL;
	unlink(tmp);
	return out;
}

/*
 * A work tree's index: each entry for a protected path that differs
 * from HEAD and from the launch index is put back to HEAD's (removed if
 * HEAD has none): the host's `git checkout -- .`, `git restore` or
 * `git stash` would write it.
 */
static int
cm_index(struct cm_judge *j, const struct cm_wt *lw, const char *top,
    commits_report *report, void *arg)
{
	const char	*di[] = { "diff-index", "--cached", "-z", "--raw",
	    "--full-index", "--no-renames", "HEAD", NULL };
	static const char *const ui[] = { "update-index", "-z",
	    "--index-info", NULL };
	char		*out, *launch = NULL, *fix = NULL, *t, omode[8],
			 nmode[8], osha[72], nsha[72], st, key[PATH_MAX + 100];
	const char	*p, *end, *path;
	size_t		 len, llen = 0, flen = 0;
	int		 n = 0, ln, tried = 0;

	if ((out = cm_git(lw->gitdir, top, NULL, di, NULL, 0, &len)) ==
	    NULL) {
		di[6] = CM_EMPTY_TREE;		/* an unborn HEAD */
		if ((out = cm_git(lw->gitdir, top, NULL, di, NULL, 0,
		    &len)) == NULL)
			return 0;
	}
	for (p = out, end = out + len; p < end; p = path + strlen(path) + 1) {
		if (sscanf(p, ":%7s %7s %71s %71s %c", omode, nmode, osha,
		    nsha, &st) != 5 || (path = p + strlen(p) + 1) >= end)
			break;
		if (st == 'D')
			continue;
		cm_clear(j);
		cm_entry(j, path, st == 'U' ? "100644" : nmode, nsha, omode,
		    osha);
		if (j->bad == NULL)
			continue;
		/* The same entry at launch: the user staged it. */
		if (launch == NULL && !tried) {
			launch = cm_launch_entries(lw, &llen);
			tried = 1;
		}
		ln = snprintf(key, sizeof(key), "%s %s 0\t%s", nmode, nsha,
		    path);
		if (launch != NULL && st != 'U')
			for (t = launch; t < launch + llen;
			    t += strlen(t) + 1)
				if ((int)strlen(t) == ln && strcmp(t, key) == 0)
					break;
		if (launch != NULL && st != 'U' && t < launch + llen)
			continue;
		/* Remove every stage, then HEAD's entry if it has one. */
		xasprintf(&t, "0 %s\t%s", CM_NULL_SHA, path);
		fix = cm_append(fix, &flen, t);
		free(t);
		if (strcmp(omode, "000000") != 0) {
			xasprintf(&t, "%s %s\t%s", omode, osha, path);
			fix = cm_append(fix, &flen, t);
			free(t);
		}
		report(arg, "index", lw->top, NULL, path, j->why[0], NULL,
		    NULL);
		n++;
	}
	if (fix != NULL) {
		char *o = cm_git(lw->gitdir, top, NULL, ui, fix, flen, NULL);

		free(o);
	}
	cm_clear(j);
	free(fix);
	free(launch);
	free(out);
	return n;
}

/* What one repository's judge works with. */
struct cm_ctx {
	struct cm_repo	*r;
	struct cm_judge	 j;
	const char	*sid;
	commits_report	*report;
	void		*arg;
	char		**air;		/* "sha name" of refs/airlock/ */
	struct cm_lref	*lrefs;		/* the launch refs, by name */
	size_t		 nl;
	const char	*lhead;		/* the main work tree's commit at
					   launch, as a base (cm_base) */
	char		 lheadbuf[72];
	int		 any;		/* something held */
	const struct timespec *t0;	/* the launch */
};

/*
 * The tree a value the host had at launch stands for, as a base to
 * compare with and the value a held ref goes back to: v itself, unless
 * another session has since held that very value (this one's launch
 * came after that commit, refs/airlock/held/<session>/<ref>); then what
 * that session put the ref back to (refs/airlock/was/<session>/<ref>),
 * if it adds or changes no protected path over v, since the sandbox
 * may write refs/airlock/ as well; else none (NULL: every entry of the
 * tip is judged, and a held ref is deleted, its commit kept).  name:
 * the ref, or NULL for any.
 */
static const char *
cm_base(struct cm_ctx *c, const char *v, const char *name, char *buf,
    size_t len)
{
	struct cm_pair	*pv;
	const char	*sp, *rest, *sl;
	char		*want;
	size_t		 i, k, n, sn;
	int		 bad;

	if (v == NULL)
		return NULL;
	n = strlen(v);
	for (i = 0; c->air != NULL && c->air[i] != NULL; i++) {
		sp = strchr(c->air[i], ' ');
		if (sp == NULL || (size_t)(sp - c->air[i]) != n ||
		    strncmp(c->air[i], v, n) != 0 ||
		    strncmp(sp + 1, "refs/airlock/held/", 18) != 0)
			continue;
		rest = sp + 1 + 18;
		if ((sl = strchr(rest, '/')) == NULL ||
		    (name != NULL && strcmp(sl + 1, name) != 0))
			continue;
		sn = (size_t)(sl - rest);
		xasprintf(&want, "refs/airlock/was/%.*s/%s", (int)sn, rest,
		    sl + 1);
		for (k = 0; c->air[k] != NULL; k++)
			if ((sp = strchr(c->air[k], ' ')) != NULL &&
			    strcmp(sp + 1, want) == 0)
				break;
		free(want);
		if (c->air[k] == NULL || (size_t)(sp - c->air[k]) >= len)
			return NULL;
		snprintf(buf, len, "%.*s", (int)(sp - c->air[k]), c->air[k]);
		pv = xcalloc(1, sizeof(*pv));
		pv->base = v;
		pv->tip = buf;
		cm_pairs(&c->j, pv, 1);
		bad = pv->bad != NULL;
		cm_pairs_free(pv, 1);
		return bad ? NULL : buf;
	}
	return v;
}

/* A ref that moved during the run. */
struct cm_moved {
	const char	*name;
	const char	*old;		/* its launch value, NULL if new */
	const char	*base;		/* cm_base of old */
	char		 basebuf[72];
	char		 sha[72];
};

/* What the host had at launch: the launch refs, and those under
 * refs/airlock/ now (now: for-each-ref's text). */
static void
cm_known(struct cm_ctx *c, const char *now)
{
	const char	*line, *next;
	char		 name[256], sha[72], *k;

	c->lrefs = cm_lrefs(c->r->refs, &c->nl);
	for (line = now; line != NULL && *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			next++;
		if (sscanf(line, "%71s %255s", sha, name) == 2 &&
		    strncmp(name, "refs/airlock/", 13) == 0) {
			xasprintf(&k, "%s %s", sha, name);
			c->air = strv_add(c->air, k);
			free(k);
		}
	}
}

/* The commit a work tree's HEAD named at launch (text: HEAD's). */
static const char *
cm_head_commit(struct cm_ctx *c, const char *text)
{
	if (text == NULL)
		return NULL;
	if (strncmp(text, "ref: ", 5) == 0)
		return cm_old(c->lrefs, c->nl, text + 5);
	return text;
}

#define CM_PUT_TRIES	3	/* re-judged at most so often when the
				   host moved a held ref meanwhile */

/*
 * One held ref put back, in one transaction of its own: its commit sha
 * kept at held, the ref back to o (NULL: deleted) only if it still has
 * sha, and what it went back to at refs/airlock/was/ (cm_base).  0 if
 * git took it.
 */
static int
cm_put_back(struct cm_ctx *c, const char *name, const char *o,
    const char *sha, const char *held)
{
	static const char *const ur[] = { "update-ref", "--stdin", NULL };
	char	*t, *w = NULL, *out;

	if (o != NULL)
		xasprintf(&w, "update refs/airlock/was/%s/%s %s\n", c->sid,
		    name, o);
	xasprintf(&t, "update %s %s\n%s %s %s%s%s\n%s", held, sha,
	    o != NULL ? "update" : "delete", name, o != NULL ? o : sha,
	    o != NULL ? " " : "", o != NULL ? sha : "", w != NULL ? w : "");
	out = cm_git(c->r->common, NULL, NULL, ur, t, strlen(t), NULL);
	free(t);
	free(w);
	free(out);
	return out == NULL ? -1 : 0;
}

/* What ref name has now, in buf; NULL if it is gone (or unreadable). */
static const char *
cm_ref_now(struct cm_ctx *c, const char *name, char *buf, size_t len)
{
	const char *const rp[] = { "rev-parse", "-q", "--verify", name, NULL };
	char	*o;

	if ((o = cm_git(c->r->common, NULL, NULL, rp, NULL, 0, NULL)) ==
	    NULL || sscanf(o, "%71s", buf) != 1 || len < 72) {
		free(o);
		return NULL;
	}
	free(o);
	return buf;
}

/*
 * Puts a held ref back (cm_put_back).  A transaction git refused is a
 * ref the host (another session, the user) moved after it was judged:
 * its new value is judged again over the same base and, if it still
 * brings a protected path, put back in turn, at most CM_PUT_TRIES
 * times.  1 if the ref is back (its tip in sha, held), 0 if the new
 * value was judged clean (the ref left as it is, what was judged
 * still held), -1 if it could not be put back.
 */
static int
cm_restore(struct cm_ctx *c, const struct cm_moved *m, const char *held,
    char *sha, size_t shalen)
{
	struct cm_pair	*pv;
	const char	*o = m->old != NULL ? m->base : NULL;
	char		 now[72];
	int		 t, bad;

	for (t = 0; t < CM_PUT_TRIES; t++) {
		if (cm_put_back(c, m->name, o, sha, held) == 0)
			return 1;
		if (cm_ref_now(c, m->name, now, sizeof(now)) == NULL ||
		    strcmp(now, sha) == 0)
			break;
		pv = xcalloc(1, sizeof(*pv));
		pv->base = m->old != NULL ? m->base : c->lhead;
		pv->tip = now;
		cm_pairs(&c->j, pv, 1);
		bad = pv->bad != NULL;
		cm_pairs_free(pv, 1);
		if (!bad) {
			/* Not reachable from the ref any more: the
			 * commit judged is still kept. */
			return cm_run(c->r->common, NULL, "update-ref",
			    held, m->sha, NULL, NULL) == 0 ? 0 : -1;
		}
		snprintf(sha, shalen, "%s", now);
	}
	return -1;
}

/*
 * The refs that moved or are new: what a host checkout of each new tip
 * writes over its launch tip's tree (a new ref: over the launch HEAD's
 * tree), all judged by cm_pairs; those that would write a protected
 * path are held.  now: for-each-ref's text, cut into lines here.
 */
static void
cm_hold_refs(struct cm_ctx *c, char *now)
{
	struct cm_moved	*mv = NULL;
	struct cm_pair	*pv;
	char		*line, *next, *held, *take, *t, sha[72];
	size_t		 nmv = 0, i, w;
	const char	*name, *o;
	int		 r;

	for (line = now; *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) == NULL)
			next = line + strlen(line);
		else
			*next++ = '\0';
		if (sscanf(line, "%71s", sha) != 1 ||
		    (name = strchr(line, ' ')) == NULL)
			continue;
		name++;
		o = cm_old(c->lrefs, c->nl, name);
		if (o != NULL && strcmp(o, sha) == 0)
			continue;
		/* What a session held (or the sandbox named so) is no
		 * ref the host's git checks out unasked: the user takes it
		 * by the name the summary gives. */
		if (strncmp(name, "refs/airlock/", 13) == 0)
			continue;
		mv = xreallocarray(mv, nmv + 1, sizeof(*mv));
		memset(&mv[nmv], 0, sizeof(*mv));
		mv[nmv].name = name;
		mv[nmv].old = o;
		snprintf(mv[nmv].sha, sizeof(mv[nmv].sha), "%s", sha);
		nmv++;
	}
	if (nmv == 0)
		return;
	pv = xcalloc(nmv, sizeof(*pv));
	for (i = 0; i < nmv; i++) {
		mv[i].base = mv[i].old != NULL ? cm_base(c, mv[i].old,
		    mv[i].name, mv[i].basebuf, sizeof(mv[i].basebuf)) :
		    c->lhead;
		pv[i].base = mv[i].base;
		pv[i].tip = mv[i].sha;
	}
	cm_pairs(&c->j, pv, nmv);
	/* A replace ref changes what git shows for an object everywhere,
	 * a blob of a protected path the user committed included: no
	 * tree of a tip says what it does, so one made or moved inside
	 * is held whatever it names. */
	for (i = 0; i < nmv; i++)
		if (strncmp(mv[i].name, "refs/replace/", 13) == 0 &&
		    pv[i].bad == NULL) {
			pv[i].bad = strv_add(NULL, mv[i].name + 13);
			pv[i].why = strv_add(NULL, "a replace ref: it changes "
			    "what git shows for an object");
		}
	for (i = 0; i < nmv; i++) {
		if (pv[i].bad == NULL)
			continue;
		name = mv[i].name;
		/* Back to the launch value (or its base), a new ref
		 * deleted; the commit kept.  One transaction a ref: one
		 * the host moved meanwhile fails alone.  Told only once
		 * git took it. */
		xasprintf(&held, "refs/airlock/held/%s/%s", c->sid, name);
		snprintf(sha, sizeof(sha), "%s", mv[i].sha);
		r = cm_restore(c, &mv[i], held, sha, sizeof(sha));
		xasprintf(&take, "git -C %s update-ref %s %s", c->r->top, name,
		    held);
		for (w = 0; pv[i].bad[w] != NULL; w++) {
			if (r == -1) {
				xasprintf(&t, "%s; the ref was NOT put back "
				    "(moved again and again while judged): "
				    "check it before any checkout",
				    pv[i].why[w]);
				c->report(c->arg, "ref-not-restored",
				    c->r->top, name, pv[i].bad[w], t, NULL,
				    NULL);
				free(t);
			} else
				c->report(c->arg, "ref", c->r->top, name,
				    pv[i].bad[w], pv[i].why[w], held, take);
		}
		c->any = 1;
		free(held);
		free(take);
	}
	cm_pairs_free(pv, nmv);
	free(mv);
}

/*
 * The values of a work tree to judge: HEAD's if it moved off a branch
 * (which 8), each changed pseudo ref's every line (ORIG_HEAD and the
 * like name commits the host's `git reset --hard ORIG_HEAD` checks out;
 * FETCH_HEAD one a line, what `git merge FETCH_HEAD` takes).
 */
static size_t
cm_wt_values(const struct cm_wt *lw, const struct cm_wt *cur,
    char (**shasp)[72], size_t **whichp)
{
	char		(*shas)[72] = NULL, *q;
	size_t		*which = NULL, np = 0, i, hx;

	if (cur->head != NULL && strncmp(cur->head, "ref: ", 5) != 0 &&
	    (lw->head == NULL || strcmp(cur->head, lw->head) != 0)) {
		shas = xreallocarray(shas, np + 1, sizeof(*shas));
		which = xreallocarray(which, np + 1, sizeof(*which));
		snprintf(shas[np], sizeof(shas[np]), "%.64s", cur->head);
		shas[np][strspn(shas[np], "0123456789abcdef")] = '\0';
		which[np++] = 8;
	}
	for (i = 0; cm_pseudo[i] != NULL; i++) {
		if (cur->pseudo[i] == NULL || (lw->pseudo[i] != NULL &&
		    strcmp(cur->pseudo[i], lw->pseudo[i]) == 0))
			continue;
		for (q = cur->pseudo[i]; q != NULL && *q != '\0'; ) {
			if ((hx = strspn(q, "0123456789abcdef")) >= 40) {
				shas = xreallocarray(shas, np + 1,
				    sizeof(*shas));
				which = xreallocarray(which, np + 1,
				    sizeof(*which));
				snprintf(shas[np], sizeof(shas[np]), "%.*s",
				    (int)(hx < 64 ? hx : 64), q);
				which[np++] = i;
			}
			q = strchr(q, '\n');
			q = q != NULL ? q + 1 : NULL;
		}
	}
	*shasp = shas;
	*whichp = which;
	return np;
}

/* A detached HEAD held: back where it was at launch (a work tree added
 * during the run: at the main one's launch commit, or none at all). */
static void
cm_head_put_back(struct cm_ctx *c, const struct cm_wt *lw)
{
	char	p[PATH_MAX + 32];

	if (lw->head != NULL && strncmp(lw->head, "ref: ", 5) == 0)
		cm_run(lw->gitdir, NULL, "symbolic-ref", "HEAD", lw->head + 5,
		    NULL, NULL);
	else if (lw->head != NULL)
		cm_run(lw->gitdir, NULL, "update-ref", "--no-deref", "HEAD",
		    lw->head, NULL);
	else if (c->lhead == NULL || cm_run(lw->gitdir, NULL, "update-ref",
	    "--no-deref", "HEAD", c->lhead, NULL) == -1) {
		snprintf(p, sizeof(p), "%s/HEAD", lw->gitdir);
		unlink(p);
	}
}

/* Each pseudo ref with a held line: its launch content, or gone. */
static void
cm_pseudo_put_back(struct cm_ctx *c, const struct cm_wt *lw,
    const struct cm_pair *pv, const size_t *which, size_t np)
{
	char	p[PATH_MAX + 32];
	size_t	i, k;
	int	fd;

	for (i = 0; cm_pseudo[i] != NULL; i++) {
		for (k = 0; k < np; k++)
			if (which[k] == i && pv[k].bad != NULL)
				break;
		if (k == np)
			continue;
		snprintf(p, sizeof(p), "%s/%s", lw->gitdir, cm_pseudo[i]);
		if (lw->pseudo[i] != NULL) {
			fd = open(p, O_WRONLY | O_TRUNC | O_NOFOLLOW |
			    O_CLOEXEC);
			if (fd != -1) {
				(void)!write(fd, lw->pseudo[i],
				    strlen(lw->pseudo[i]));
				close(fd);
			}
		} else
			unlink(p);
		c->report(c->arg, "pseudo", lw->top, cm_pseudo[i],
		    pv[k].bad[0], pv[k].why[0], NULL, NULL);
		c->any = 1;
	}
}

/* A HEAD on a branch a hold deleted: back to launch, and the branch it
 * was on, renamed or deleted, back at its launch value (only if it is
 * still absent). */
static void
cm_head_branch_back(struct cm_ctx *c, const struct cm_wt *lw,
    const char *head)
{
	char		 p[PATH_MAX + 32], tgt[72];
	const char	*o;

	if (head == NULL || lw->head == NULL || strcmp(head, lw->head) == 0 ||
	    strncmp(head, "ref: ", 5) != 0)
		return;
	snprintf(p, sizeof(p), "%s", head + 5);
	if (cm_run(lw->gitdir, NULL, "rev-parse", "-q", "--verify", p,
	    NULL) != -1)
		return;
	if (strncmp(lw->head, "ref: ", 5) != 0) {
		cm_run(lw->gitdir, NULL, "update-ref", "--no-deref", "HEAD",
		    lw->head, NULL);
		return;
	}
	cm_run(lw->gitdir, NULL, "symbolic-ref", "HEAD", lw->head + 5, NULL,
	    NULL);
	if ((o = cm_base(c, cm_old(c->lrefs, c->nl, lw->head + 5),
	    lw->head + 5, tgt, sizeof(tgt))) != NULL)
		cm_run(c->r->common, NULL, "update-ref", lw->head + 5, o,
		    CM_NULL_SHA, NULL);
}

/*
 * One work tree: a HEAD detached at a new commit and the pseudo refs,
 * against the tree its HEAD had at launch; a HEAD left on a branch a
 * hold removed; then the index.  lw: its state at launch (all NULL for
 * a work tree added during the run).
 */
static void
cm_wt_judge(struct cm_ctx *c, const struct cm_wt *lw)
{
	struct cm_wt	 cur;
	struct cm_pair	*pv = NULL;
	char		 bbuf[72], (*shas)[72];
	const char	*base;
	size_t		 i, np, k, *which;

	memset(&cur, 0, sizeof(cur));
	cur.gitdir = lw->gitdir;
	cur.top = lw->top;
	cm_wt_take(&cur);
	c->j.top = lw->top;
	/* Its launch commit, as a base: a work tree added during the
	 * run has the main one's. */
	base = lw->head != NULL ? cm_base(c, cm_head_commit(c, lw->head),
	    NULL, bbuf, sizeof(bbuf)) : c->lhead;
	if ((np = cm_wt_values(lw, &cur, &shas, &which)) > 0) {
		pv = xcalloc(np, sizeof(*pv));
		for (k = 0; k < np; k++) {
			pv[k].base = base;
			pv[k].tip = shas[k];
		}
		cm_pairs(&c->j, pv, np);
	}
	/* HEAD's value comes first when it moved. */
	if (np > 0 && which[0] == 8 && pv[0].bad != NULL) {
		for (i = 0; pv[0].bad[i] != NULL; i++)
			c->report(c->arg, "ref", lw->top, "HEAD", pv[0].bad[i],
			    pv[0].why[i], NULL, NULL);
		c->any = 1;
		cm_head_put_back(c, lw);
	}
	cm_pseudo_put_back(c, lw, pv, which, np);
	cm_pairs_free(pv, np);
	free(shas);
	free(which);
	if (c->any)
		cm_head_branch_back(c, lw, cur.head);
	free(cur.head);
	for (i = 0; i < 8; i++)
		free(cur.pseudo[i]);
	if (cur.index != NULL && !(lw->index != NULL &&
	    lw->indexlen == cur.indexlen &&
	    memcmp(lw->index, cur.index, cur.indexlen) == 0))
		c->any |= cm_index(&c->j, lw, lw->top, c->report, c->arg) > 0;
	free(cur.index);
}

/*
 * The object store, before any ref is judged.  The judge reads commits
 * and trees by name and takes the bytes git finds for a name to be the
 * object the name says; so does the host's checkout.  A sandbox writes
 * the object store (git state allows it whole), so it could give a name
 * other bytes: a loose object rewritten in place (its mode is the
 * owner's to change), one deleted and written again, a pack or its
 * index, a multi-pack index or a commit graph that points a name at
 * another object, an alternates file that adds a store.  No ref moves,
 * and the host's `git reset --hard` would write what those bytes hold.
 *
 * So every object file of the repository's stores (objects/ and its
 * alternates, five deep as git reads them) whose status change time is
 * after the launch is verified by git itself before the refs are: loose
 * objects linked into a store of the judge's own (in airlock-held/),
 * packed there and the pack verified (`git index-pack --verify` hashes
 * every object it holds and compares the names with the index); a new
 * or changed pack and index by `git index-pack --verify`; a multi-pack
 * index and a commit graph by their own `verify`.  A file that fails, or cannot be verified in its time,
 * is held: moved out of the store to the repository's
 * airlock-held/SESSION/ (removed if it cannot be moved there), and
 * named.  Git then finds no such object (or reads the packs without the
 * index), so no checkout writes what it held.  The status change time
 * is set by the kernel alone (cm_after); a renamed or linked file gets
 * a new one, and a directory moved in keeps each file's name below its
 * two-digit directory, which no pre-launch file can turn into another
 * object's name.
 */
#define CM_VERIFY_MS	60000	/* one verifying git, plus 1 s a 4 MiB */
#define CM_VERIFY_MAX_MS 1800000	/* ... 30 min more at most */
#define CM_VERIFY_RUNS	256	/* loose sets verified, a repository */
#define CM_VERIFY_ALL_MS (15 * 60 * 1000)	/* all of a repository's */
#define CM_ALT_DEPTH	5	/* alternates of alternates, as git */

struct cm_objs {
	const char	*common;	/* the repository judged */
	const char	*top;		/* ... its work tree, as named */
	const char	*sid;
	const struct timespec *t0;
	commits_report	*report;
	void		*arg;
	size_t		 hexlen;	/* 40, or 64 (sha256) */
	char		**stores;	/* each store seen, resolved */
	char		**loose;	/* changed loose objects: paths */
	char		**packs;	/* changed packs: their .idx */
	char		**midx;		/* stores whose multi-pack index
					   changed */
	char		**graph;	/* ... whose commit graph changed */
	char		 *tmp;		/* the judge's own store */
	size_t		  nheld;
	int		  runs;		/* cm_loose_ok's, so far */
	struct timespec	  end;		/* CLOCK_MONOTONIC: past it, what is
					   left is held unverified */
};

/* Whether the repository's time for verifying (CM_VERIFY_ALL_MS) is
 * spent. */
static int
cm_objs_late(const struct cm_objs *o)
{
	struct timespec	now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > o->end.tv_sec || (now.tv_sec == o->end.tv_sec &&
	    now.tv_nsec >= o->end.tv_nsec);
}


/* Whether name is n lower-case hex digits, as git names objects. */
static int
cm_hexname(const char *name, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (!((name[i] >= '0' && name[i] <= '9') ||
		    (name[i] >= 'a' && name[i] <= 'f')))
			return 0;
	return name[n] == '\0';
}

/* Whether the file at path (its link, or what it leads to) changed. */
static int
cm_file_after(const char *path, const struct timespec *t0)
{
	struct stat	st;

	if (lstat(path, &st) == 0 && cm_after(&st, t0))
		return 1;
	return stat(path, &st) == 0 && cm_after(&st, t0);
}

/*
 * The repository's airlock-held/ (beside its objects/, so that a file
 * moves there without a copy; git reads nothing in it, and no sandbox
 * may write it: git state lists no such name), made if need be.  NULL
 * if it is not a directory of ours.
 */
static char *
cm_held_dir(const char *common)
{
	struct stat	 st;
	char		*dir;

	xasprintf(&dir, "%s/airlock-held", common);
	(void)mkdir(dir, 0700);
	if (lstat(dir, &st) == -1 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid()) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* This session's directory in airlock-held/, made; "/nonexistent/SID"
 * (where nothing can be moved or written) if there is none of ours. */
static char *
cm_held_sess(const char *common, const char *sid)
{
	char	*held = cm_held_dir(common), *dir;

	xasprintf(&dir, "%s/%s", held != NULL ? held : "/nonexistent", sid);
	free(held);
	(void)mkdir(dir, 0700);
	return dir;
}

/*
 * A held object file: moved to the repository's airlock-held/SID/ as
 * N-NAME (its directory and name: the object's), named.  Never
 * removed: a file that cannot be moved (another file system, a store
 * of another repository, which is the user's to look at) is named as
 * not held.  why: in the user's words.
 */
static void
cm_obj_hold(struct cm_objs *o, const char *path, const char *why)
{
	char		*dir, *to, *p;
	const char	*base;
	size_t		 n = strlen(o->common);

	if (strncmp(path, o->common, n) != 0 || path[n] != '/') {
		o->report(o->arg, "object-not-removed", o->top, NULL, path,
		    why, NULL, NULL);
		return;
	}
	dir = cm_held_sess(o->common, o->sid);
	/* The last two components: "xx/rest", "pack/pack-X.idx". */
	for (base = path + strlen(path); base > path && base[-1] != '/';
	    base--)
		;
	if (base > path + 1)
		for (base--; base > path && base[-1] != '/'; base--)
			;
	xasprintf(&to, "%s/%zu-%s", dir, o->nheld++, base);
	for (p = to + strlen(dir) + 1; *p != '\0'; p++)
		if (*p == '/')
			*p = '-';
	free(dir);
	/* Named one by one up to CM_PATHS; the rest counted at the end
	 * (cm_objects), so that a million files make no million lines. */
	if (rename(path, to) == 0) {
		if (o->nheld <= CM_PATHS)
			o->report(o->arg, "object", o->top, NULL, path, why,
			    to, NULL);
	} else
		o->report(o->arg, "object-not-removed", o->top, NULL, path,
		    why, NULL, NULL);
	free(to);
}

/* Whether the store at path is a repository's: objects/ beside refs/
 * (a common directory or a bare repository), git state. */
static int
cm_repo_store(const char *path)
{
	struct stat	st;
	char		real[PATH_MAX], p[PATH_MAX + 8], *s;

	if (realpath(path, real) == NULL || (s = strrchr(real, '/')) == NULL ||
	    strcmp(s + 1, "objects") != 0)
		return 0;
	snprintf(p, sizeof(p), "%.*s/refs", (int)(s - real), real);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * One store (and its alternates): what changed in it since the launch.
 * dir: as git names it (resolved here); depth: alternates followed.
 */
static void
cm_objs_scan(struct cm_objs *o, const char *dir, int depth)
{
	struct dirent	*e, *f;
	DIR		*d, *sub;
	char		 real[PATH_MAX], p[PATH_MAX + 300], q[PATH_MAX + 600];
	char		*alt, *line, *next;
	size_t		 n;
	int		 fresh;

	if (realpath(dir, real) == NULL || strv_in(o->stores, real) ||
	    (d = opendir(real)) == NULL)
		return;
	o->stores = strv_add(o->stores, real);
	while ((e = readdir(d)) != NULL) {
		if (!cm_hexname(e->d_name, 2))
			continue;
		snprintf(p, sizeof(p), "%s/%s", real, e->d_name);
		if ((sub = opendir(p)) == NULL)
			continue;
		while ((f = readdir(sub)) != NULL) {
			/* Either hash's length: which one the repository
			 * uses is asked only if something changed. */
			if (!cm_hexname(f->d_name, 38) &&
			    !cm_hexname(f->d_name, 62))
				continue;
			snprintf(q, sizeof(q), "%s/%s", p, f->d_name);
			if (cm_file_after(q, o->t0))
				o->loose = strv_add(o->loose, q);
		}
		closedir(sub);
	}
	closedir(d);
	snprintf(p, sizeof(p), "%s/pack", real);
	if ((d = opendir(p)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			n = strlen(e->d_name);
			snprintf(q, sizeof(q), "%s/%s", p, e->d_name);
			if (strncmp(e->d_name, "multi-pack-index", 16) == 0) {
				if (cm_file_after(q, o->t0) &&
				    !strv_in(o->midx, real))
					o->midx = strv_add(o->midx, real);
				continue;
			}
			/* Any NAME.idx with its NAME.pack: git takes every
			 * one, whatever NAME is. */
			if (n < 5 || (strcmp(e->d_name + n - 5, ".pack") != 0 &&
			    strcmp(e->d_name + n - 4, ".idx") != 0) ||
			    !cm_file_after(q, o->t0))
				continue;
			/* Each pack by its index, which git reads it by. */
			snprintf(q, sizeof(q), "%s/%.*s.idx", p,
			    (int)(n - (e->d_name[n - 1] == 'k' ? 5 : 4)),
			    e->d_name);
			if (access(q, F_OK) == 0 && !strv_in(o->packs, q))
				o->packs = strv_add(o->packs, q);
		}
		closedir(d);
	}
	snprintf(p, sizeof(p), "%s/info/commit-graph", real);
	snprintf(q, sizeof(q), "%s/info/commit-graphs", real);
	if (cm_file_after(p, o->t0) || cm_changed_tree(q, o->t0, 1,
	    &(size_t){ 10000 }))
		o->graph = strv_add(o->graph, real);
	/* Its alternates, relative to it, as git's alt_odb_usable reads
	 * them; a quoted line is git's C quoting, which is not read here:
	 * the store it names is held as a whole (the alternates file). */
	snprintf(p, sizeof(p), "%s/info/alternates", real);
	if (depth >= CM_ALT_DEPTH || (alt = cm_read(p, 1 << 20, NULL)) ==
	    NULL)
		return;
	fresh = cm_file_after(p, o->t0);
	for (line = alt; *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (line[0] == '"' && fresh) {
			cm_obj_hold(o, p, "an alternates file with a quoted "
			    "path, which airlock does not read: the objects "
			    "it adds are not verified");
			break;
		}
		if (line[0] == '/')
			snprintf(q, sizeof(q), "%s", line);
		else
			snprintf(q, sizeof(q), "%s/%s", real, line);
		/* Written during the run, it may add only a repository's
		 * store (git clone --reference, --shared): one that is
		 * git state wherever a later run can write it, so that
		 * run's end verifies it.  A plain directory could be
		 * written by a run whose workspace holds it but not this
		 * repository, and no judge would look. */
		if (fresh && !cm_repo_store(q)) {
			cm_obj_hold(o, p, "an alternates file written during "
			    "the run that adds a store outside any "
			    "repository");
			break;
		}
		cm_objs_scan(o, q, depth + 1);
	}
	free(alt);
}

/* nftw's: the judge's own store, removed. */
static int
cm_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	(void)(flag == FTW_DP ? rmdir(path) : unlink(path));
	return 0;
}

/* A file's bytes copied to a new file at to; 0, or -1. */
static int
cm_copy(const char *from, const char *to)
{
	char	buf[65536];
	ssize_t	n, w, off;
	int	in, out, rc = -1;

	if ((in = open(from, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return -1;
	if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0400)) == -1) {
		close(in);
		return -1;
	}
	for (;;) {
		if ((n = read(in, buf, sizeof(buf))) == 0) {
			rc = 0;
			break;
		}
		if (n == -1)
			break;
		for (off = 0; off < n; off += w)
			if ((w = write(out, buf + off, (size_t)(n - off))) <=
			    0)
				goto done;
	}
done:
	close(in);
	if (close(out) == -1)
		rc = -1;
	return rc;
}

/*
 * Whether the loose objects names[0..n) (their copies in the store g) are
 * what their names say: packed, then the pack verified, which hashes
 * each object's bytes and compares the name the pack's index gives.
 * 1 yes, 0 no, -1 git could not tell (killed, or too slow).
 */
static int
cm_loose_ok(const char *g, char *const *names, size_t n)
{
	const char	*pk[] = { "pack-objects", "--window=0", "--depth=0",
	    NULL, NULL };
	const char	*vp[] = { "index-pack", "--verify", NULL, NULL };
	char		*in = NULL, *out, base[PATH_MAX], idx[PATH_MAX + 64],
			 pack[PATH_MAX + 64];
	size_t		 len = 0, cap = 0, i;
	int		 late, ok;

	for (i = 0; i < n; i++) {
		cm_cat(&in, &len, &cap, names[i]);
		cm_cat(&in, &len, &cap, "\n");
	}
	snprintf(base, sizeof(base), "%s/p", g);
	pk[3] = base;
	out = cm_git_ms(g, NULL, NULL, pk, in, len, NULL, CM_VERIFY_MS,
	    &late);
	free(in);
	if (out == NULL)
		return late ? -1 : 0;
	out[strcspn(out, "\n")] = '\0';
	snprintf(idx, sizeof(idx), "%s-%s.idx", base, out);
	snprintf(pack, sizeof(pack), "%s-%s.pack", base, out);
	free(out);
	vp[2] = pack;
	out = cm_git_ms(g, NULL, NULL, vp, NULL, 0, NULL, CM_VERIFY_MS,
	    &late);
	ok = out != NULL ? 1 : late ? -1 : 0;
	free(out);
	unlink(idx);
	unlink(pack);
	return ok;
}

/* The loose objects names[0..n) (paths[] are where they are): those
 * that fail held, halving the set until each one that fails is
 * alone. */
static void
cm_loose_judge(struct cm_objs *o, const char *g, char **names,
    char **paths, size_t n)
{
	int	ok;

	if (n == 0)
		return;
	/* Past CM_VERIFY_RUNS git runs (files that fail by thousands) or
	 * the repository's time, what is left is held unverified; a set
	 * git could not verify in its time is halved as one that fails. */
	ok = o->runs++ < CM_VERIFY_RUNS && !cm_objs_late(o) ?
	    cm_loose_ok(g, names, n) : -2;
	if (ok == 1)
		return;
	if (n == 1 || ok == -2) {
		while (n-- > 0)
			cm_obj_hold(o, paths[n], ok == -1 ?
			    "a loose object written during the run that git "
			    "could not verify in time" : ok == -2 ?
			    "one of too many loose objects written during the "
			    "run that fail to verify, or past the time airlock "
			    "gives a repository's objects: not verified" :
			    "a loose object written during the run whose "
			    "bytes are not the object its name says");
		return;
	}
	cm_loose_judge(o, g, names, paths, n / 2);
	cm_loose_judge(o, g, names + n / 2, paths + n / 2, n - n / 2);
}

/* Whether the file at path starts as a zlib stream does (RFC 1950: a
 * deflate method, a window of at most 32 KiB, a header check that is a
 * multiple of 31), as every loose object git writes. */
static int
cm_zlib_head(const char *path)
{
	unsigned char	h[2];
	int		fd, ok;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return 1;	/* unreadable: git's to say */
	ok = read(fd, h, 2) == 2 && (h[0] & 0x0f) == 8 && (h[0] >> 4) <= 7 &&
	    ((unsigned)h[0] * 256 + h[1]) % 31 == 0;
	close(fd);
	return ok;
}

/*
 * The changed loose objects files[] (NULL-terminated): linked (or,
 * across file systems, copied) into a store of the judge's own, round's
 * (o->tmp/gROUND), which holds nothing else.  A name already in it (the
 * same object in two stores: a local clone links the objects it takes)
 * is the same file, or goes to the next round: each file is verified
 * by its own bytes.
 */
static void
cm_loose(struct cm_objs *o, char **files, int round)
{
	struct stat	 a, b;
	char		**names = NULL, **paths = NULL, **later = NULL,
			  g[PATH_MAX + 64], to[PATH_MAX + 200], *nm;
	const char	 *base;
	size_t		  i, n = 0;
	int		  fd;

	snprintf(g, sizeof(g), "%s/g%d", o->tmp, round);
	if (mkdir(g, 0700) == -1)
		return;
	snprintf(to, sizeof(to), "%s/objects", g);
	(void)mkdir(to, 0700);
	snprintf(to, sizeof(to), "%s/refs", g);
	(void)mkdir(to, 0700);
	snprintf(to, sizeof(to), "%s/HEAD", g);
	if ((fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600))
	    != -1) {
		(void)!write(fd, "ref: refs/heads/x\n", 18);
		close(fd);
	}
	snprintf(to, sizeof(to), "%s/config", g);
	if ((fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600))
	    != -1) {
		if (o->hexlen == 64)
			dprintf(fd, "[core]\n\trepositoryformatversion = 1\n"
			    "[extensions]\n\tobjectformat = sha256\n");
		else
			dprintf(fd, "[core]\n\trepositoryformatversion = 0\n");
		close(fd);
	}
	for (i = 0; files[i] != NULL; i++) {
		/* .../xx/rest: the name is xx followed by rest. */
		base = strrchr(files[i], '/');
		xasprintf(&nm, "%.2s%s", base - 2, base + 1);
		snprintf(to, sizeof(to), "%s/objects/%.2s", g, nm);
		(void)mkdir(to, 0700);
		snprintf(to, sizeof(to), "%s/objects/%.2s/%s", g, nm, nm + 2);
		if (lstat(to, &a) == 0) {
			if (stat(files[i], &b) == -1 || a.st_dev != b.st_dev ||
			    a.st_ino != b.st_ino)
				later = strv_add(later, files[i]);
			free(nm);
			continue;
		}
		/* Not even a zlib stream (junk by the thousand): held
		 * without git. */
		if (!cm_zlib_head(files[i])) {
			cm_obj_hold(o, files[i], "a file written during the "
			    "run, named like a loose object, that is none "
			    "(no zlib stream)");
			free(nm);
			continue;
		}
		if (link(files[i], to) == -1 && cm_copy(files[i], to) == -1) {
			cm_obj_hold(o, files[i], "a loose object written "
			    "during the run that airlock could not read");
			free(nm);
			continue;
		}
		names = xreallocarray(names, n + 1, sizeof(*names));
		paths = xreallocarray(paths, n + 1, sizeof(*paths));
		names[n] = nm;
		paths[n++] = files[i];
	}
	cm_loose_judge(o, g, names, paths, n);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(paths);
	if (later != NULL)
		cm_loose(o, later, round + 1);
	strv_free(later);
}

/* A changed pack, by its index: verified; held whole if it fails. */
static void
cm_pack(struct cm_objs *o, const char *idx)
{
	static const char *const side[] = { ".pack", ".idx", ".rev",
	    ".bitmap", ".keep", ".promisor", ".mtimes", NULL };
	const char	*vp[] = { "index-pack", "--verify", NULL, NULL };
	struct stat	 st;
	char		*out, base[PATH_MAX], p[PATH_MAX + 16];
	uintmax_t	 more = 0;
	size_t		 i;
	int		 late;

	snprintf(base, sizeof(base), "%.*s", (int)(strlen(idx) - 4), idx);
	snprintf(p, sizeof(p), "%s.pack", base);
	if (stat(p, &st) == 0)
		more = (uintmax_t)st.st_size / (4U << 20) * 1000;
	if (more > CM_VERIFY_MAX_MS)
		more = CM_VERIFY_MAX_MS;
	vp[2] = p;
	/* Past the repository's time: held unverified, as late. */
	late = 1;
	if (!cm_objs_late(o) && (out = cm_git_ms(o->common, NULL, NULL, vp,
	    NULL, 0, NULL, CM_VERIFY_MS + (int)more, &late)) != NULL) {
		free(out);
		return;
	}
	for (i = 0; side[i] != NULL; i++) {
		snprintf(p, sizeof(p), "%s%s", base, side[i]);
		if (access(p, F_OK) == 0)
			cm_obj_hold(o, p, late ? "a pack written during the "
			    "run that git could not verify in time" :
			    "a pack written during the run whose objects "
			    "are not what its index names");
	}
}

/* A store's changed multi-pack index or commit graph: verified by git;
 * held if it fails (git reads the packs and commits without them). */
static void
cm_cache(struct cm_objs *o, const char *store, int graph)
{
	const char	*mv[] = { "multi-pack-index", NULL, "verify", NULL };
	const char	*cv[] = { "commit-graph", "verify", NULL, NULL };
	struct dirent	*e;
	DIR		*d;
	char		*out, od[PATH_MAX + 16], p[PATH_MAX + 300];
	int		 late;

	snprintf(od, sizeof(od), "--object-dir=%s", store);
	mv[1] = od;
	cv[2] = od;
	if (!cm_objs_late(o) && (out = cm_git_ms(o->common, NULL, NULL,
	    graph ? cv : mv, NULL, 0, NULL, CM_VERIFY_MS, &late)) != NULL) {
		free(out);
		return;
	}
	if (graph) {
		snprintf(p, sizeof(p), "%s/info/commit-graph", store);
		if (access(p, F_OK) == 0)
			cm_obj_hold(o, p, "a commit graph that does not match "
			    "the commits it names");
		snprintf(p, sizeof(p), "%s/info/commit-graphs", store);
		if (access(p, F_OK) == 0)
			cm_obj_hold(o, p, "a commit graph that does not match "
			    "the commits it names");
		return;
	}
	snprintf(p, sizeof(p), "%s/pack", store);
	if ((d = opendir(p)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "multi-pack-index", 16) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/pack/%s", store, e->d_name);
		cm_obj_hold(o, p, "a multi-pack index that does not match "
		    "its packs");
	}
	closedir(d);
}

/* The object stores of the repository at common (top: its work tree),
 * before its refs are judged. */
static void
cm_objects(const char *common, const char *top, const char *sid,
    const struct timespec *t0, commits_report *report, void *arg)
{
	struct cm_objs	 o;
	char		*held, *f, **one, p[PATH_MAX + 16];
	size_t		 i;
	int		 h;

	memset(&o, 0, sizeof(o));
	o.common = common;
	o.top = top;
	o.sid = sid;
	o.t0 = t0;
	o.report = report;
	o.arg = arg;
	clock_gettime(CLOCK_MONOTONIC, &o.end);
	o.end.tv_sec += CM_VERIFY_ALL_MS / 1000;
	snprintf(p, sizeof(p), "%s/objects", common);
	cm_objs_scan(&o, p, 0);
	/* Each file by its name's hash, sha1 then sha256, in a store of
	 * that format: git reads only the repository's own (a file of the
	 * other length is nothing to it, and verified or held alike). */
	for (h = 0; h < 2 && o.loose != NULL; h++) {
		o.hexlen = h == 0 ? 40 : 64;
		for (i = 0, one = NULL; o.loose[i] != NULL; i++)
			if (strlen(strrchr(o.loose[i], '/') + 1) ==
			    o.hexlen - 2)
				one = strv_add(one, o.loose[i]);
		if (one == NULL)
			continue;
		/* The judge's own store, in airlock-held/. */
		if ((held = cm_held_dir(o.common)) != NULL)
			xasprintf(&o.tmp, "%s/verify-XXXXXX", held);
		free(held);
		if (o.tmp != NULL && mkdtemp(o.tmp) != NULL) {
			cm_loose(&o, one, 0);
			(void)nftw(o.tmp, cm_rm_one, 16, FTW_DEPTH | FTW_PHYS);
		} else
			for (i = 0; one[i] != NULL; i++)
				cm_obj_hold(&o, one[i], "a loose object "
				    "written during the run that airlock "
				    "could not verify (no place to copy it)");
		free(o.tmp);
		o.tmp = NULL;
		strv_free(one);
	}
	/* Nothing held: no airlock-held/ left in the user's .git (a copy
	 * of it would be no git state). */
	xasprintf(&held, "%s/airlock-held", o.common);
	(void)rmdir(held);
	free(held);
	for (i = 0; o.packs != NULL && o.packs[i] != NULL; i++)
		cm_pack(&o, o.packs[i]);
	for (i = 0; o.midx != NULL && o.midx[i] != NULL; i++)
		cm_cache(&o, o.midx[i], 0);
	for (i = 0; o.graph != NULL && o.graph[i] != NULL; i++)
		cm_cache(&o, o.graph[i], 1);
	if (o.nheld > CM_PATHS) {
		snprintf(p, sizeof(p), "%zu more object files",
		    o.nheld - CM_PATHS);
		f = cm_held_sess(common, sid);
		report(arg, "object", top, NULL, p, "written during the run, "
		    "held as the ones named above", f, NULL);
		free(f);
	}
	strv_free(o.stores);
	strv_free(o.loose);
	strv_free(o.packs);
	strv_free(o.midx);
	strv_free(o.graph);
}

/*
 * Reflogs.  Git reads a reflog as refs: `git stash pop` takes the next
 * entry of logs/refs/stash as the new stash@{0}, `git reset --hard
 * HEAD@{1}` the entry's value, `git checkout -` the text after
 * "checkout: moving from " in HEAD's reflog (any revision: a branch, an
 * id, refs/airlock/held/...).  A sandbox writes logs/ (git state), so
 * an entry slipped below the top of the stash's reflog made the host's
 * second `git stash pop` write .claude/settings.json while no ref
 * moved.  So the reflogs are kept at launch (CM_RL_MAX bytes a
 * repository), and at the end each line a reflog did not hold then is
 * judged: its old and new values that no ref reaches as a new ref's tip
 * (against the launch HEAD; one a ref reaches is history, kept as any
 * older commit is), and the "moving from" text of a checkout, which
 * must be a full object id (judged so) or the short name of a branch
 * that git resolves to that branch.  A line that fails is taken out of
 * the reflog, kept in airlock-held/SESSION/, and named.
 */
static int
cm_line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether a reflog line's "moving from" text (x) is safe for `git
 * checkout -`: a full object id, judged as a tip (*id set), or a
 * branch's short name that git resolves to that very branch. */
static int
cm_rl_from(struct cm_ctx *c, const char *x, int *id)
{
	const char	*rp[] = { "rev-parse", "-q", "--verify",
	    "--symbolic-full-name", NULL, NULL };
	char		*o, want[PATH_MAX];
	size_t		 n = strlen(x), i;
	int		 ok;

	*id = 0;
	if ((n == 40 || n == 64) && cm_hexname(x, n)) {
		*id = 1;
		return 1;
	}
	if (n == 0 || x[0] == '-' || strncmp(x, "refs/", 5) == 0 ||
	    strstr(x, "..") != NULL || strstr(x, "@{") != NULL ||
	    n + 12 >= sizeof(want))
		return 0;
	for (i = 0; i < n; i++)
		if (!((x[i] >= 'a' && x[i] <= 'z') || (x[i] >= 'A' &&
		    x[i] <= 'Z') || (x[i] >= '0' && x[i] <= '9') ||
		    strchr("._/-", x[i]) != NULL))
			return 0;
	/* A branch deleted since resolves to nothing: checkout fails. */
	snprintf(want, sizeof(want), "refs/heads/%s", x);
	rp[4] = x;
	if ((o = cm_git(c->r->common, NULL, NULL, rp, NULL, 0, NULL)) == NULL)
		return cm_ref_now(c, want, (char[72]){ 0 }, 72) == NULL;
	o[strcspn(o, "\n")] = '\0';
	ok = strcmp(o, want) == 0;
	free(o);
	return ok;
}

/*
 * A reflog with lines taken out: out (what stays) replaces it, keep
 * (what was taken) goes to airlock-held/SID/.  The held file's path, or
 * NULL (the reflog is still rewritten).
 */
static char *
cm_rl_write(struct cm_ctx *c, const char *path, const char *rel,
    const char *out, const char *keep)
{
	struct stat	 st;
	char		*dir, *tmp, *flat, *p, *kept = NULL;
	int		 fd;

	dir = cm_held_sess(c->r->common, c->sid);
	flat = xstrdup(rel);
	for (p = flat; *p != '\0'; p++)
		if (*p == '/')
			*p = '-';
	xasprintf(&kept, "%s/reflog-%s", dir, flat);
	free(flat);
	free(dir);
	/* keep NULL: the whole file goes. */
	if (keep == NULL && rename(path, kept) == 0)
		return kept;
	fd = keep == NULL ? -1 : open(kept, O_WRONLY | O_CREAT |
	    O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1 || cm_job_write(fd, keep, strlen(keep)) == -1) {
		free(kept);
		kept = NULL;
	}
	if (fd != -1)
		close(fd);
	xasprintf(&tmp, "%s.airlock-new", path);
	if (lstat(path, &st) == -1)
		st.st_mode = 0644;
	(void)unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    st.st_mode & 0666)) == -1 || cm_job_write(fd, out,
	    strlen(out)) == -1 || close(fd) == -1 || rename(tmp, path) == -1) {
		(void)unlink(tmp);
		/* Not rewritten: emptied, so no entry of it is read. */
		if ((fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC |
		    O_NOFOLLOW)) != -1)
			close(fd);
	}
	free(tmp);
	return kept;
}

/*
 * A reflog line as git's show_one_reflog_ent() reads it: the old and
 * new ids (40 or 64 hex digits, either case; into ids, lower-cased),
 * the identity up to the first '>', " TIMESTAMP +ZZZZ", then a tab if
 * there is one, then the message (*msg).  0, or -1 for a line git
 * skips (which no line git writes is).
 */
static int
cm_rl_parse(const char *line, char ids[2][72], const char **msg)
{
	const char	*e;
	char		*t;
	size_t		 h, k, i;

	h = strlen(line) > 40 && line[40] == ' ' ? 40 : 64;
	if (strlen(line) < 2 * h + 2 || line[h] != ' ' || line[2 * h + 1] !=
	    ' ')
		return -1;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < h; i++)
			ids[k][i] = (char)tolower((unsigned char)
			    line[k * (h + 1) + i]);
		ids[k][h] = '\0';
		if (!cm_hexname(ids[k], h))
			return -1;
	}
	if ((e = strchr(line + 2 * h + 2, '>')) == NULL || e[1] != ' ' ||
	    !isdigit((unsigned char)e[2]) || strtoull(e + 2, &t, 10) == 0 ||
	    t[0] != ' ' || (t[1] != '+' && t[1] != '-') ||
	    !isdigit((unsigned char)t[2]) || !isdigit((unsigned char)t[3]) ||
	    !isdigit((unsigned char)t[4]) || !isdigit((unsigned char)t[5]))
		return -1;
	*msg = t[6] == '\t' ? t + 7 : t + 6;
	return 0;
}

/* The values of the new lines (those not in old[0..nold)), a line
 * each, appended to *in. */
static void
cm_rl_ids(char *const *lines, size_t nl, char *const *old, size_t nold,
    char **in, size_t *len, size_t *cap)
{
	char		 ids[2][72];
	const char	*msg, *end;
	size_t		 i, k, n;

	for (i = 0; i < nl; i++) {
		if ((nold > 0 && bsearch(&lines[i], old, nold, sizeof(*old),
		    cm_line_cmp) != NULL) || cm_rl_parse(lines[i], ids,
		    &msg) == -1)
			continue;
		for (k = 0; k < 2; k++)
			if (strspn(ids[k], "0") != strlen(ids[k])) {
				cm_cat(in, len, cap, ids[k]);
				cm_cat(in, len, cap, "\n");
			}
		/* A checkout's "moving from", if an id. */
		if (strncmp(msg, "checkout: moving from ", 22) == 0) {
			msg += 22;
			n = (end = strstr(msg, " to ")) != NULL ?
			    (size_t)(end - msg) : strlen(msg);
			if ((n == 40 || n == 64) && n < sizeof(ids[0])) {
				memcpy(ids[0], msg, n);
				ids[0][n] = '\0';
				if (cm_hexname(ids[0], n)) {
					cm_cat(in, len, cap, ids[0]);
					cm_cat(in, len, cap, "\n");
				}
			}
		}
	}
}

/*
 * Of the values in (cm_rl_ids'), those no ref reaches (refs/airlock/
 * aside: what a session held is no ref the host checks out): git
 * rev-list --objects, commits and trees alike, one for every reflog of
 * the repository.  NULL if git could not tell (every value is judged
 * then).
 */
static char **
cm_rl_unreachable(struct cm_ctx *c, const char *in, size_t len)
{
	static const char *const rl[] = { "rev-list", "--objects",
	    "--exclude=refs/airlock/*", "--not", "--all", "--not", "--stdin",
	    NULL };
	char	*out, *l, *next, **v;

	if (in == NULL)
		return strv_add(NULL, "");
	if ((out = cm_git(c->r->common, NULL, NULL, rl, in, len, NULL)) ==
	    NULL)
		return NULL;
	v = strv_add(NULL, "");
	for (l = out; *l != '\0'; l = next) {
		if ((next = strchr(l, '\n')) != NULL)
			*next++ = '\0';
		else
			next = l + strlen(l);
		l[strcspn(l, " ")] = '\0';
		v = strv_add(v, l);
	}
	free(out);
	return v;
}

/* A reflog being judged: its lines now (cut in place), the launch's
 * (sorted), what each new line is judged by, and what is taken out. */
struct cm_rlf {
	char		**lines, **old;
	size_t		  nl, nold;
	struct cm_pair	 *pv;		/* the values judged as tips */
	size_t		 *line;		/* ... and the line of each */
	size_t		  np;
	int		 *drop;		/* lines taken out */
	char		**what;		/* why, for those not by pv */
};

/* text cut into its lines (in place), appended to *v (*n of them). */
static void
cm_rl_split(char *text, char ***v, size_t *n)
{
	char	*l, *next;

	for (l = text; l != NULL && *l != '\0'; l = next) {
		if ((next = strchr(l, '\n')) != NULL)
			*next++ = '\0';
		else
			next = l + strlen(l);
		*v = xreallocarray(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = l;
	}
}

/* Line i's value v, judged as a tip against the launch HEAD. */
static void
cm_rl_tip(struct cm_ctx *c, struct cm_rlf *f, size_t i, const char *v)
{
	f->pv = xreallocarray(f->pv, f->np + 1, sizeof(*f->pv));
	memset(&f->pv[f->np], 0, sizeof(*f->pv));
	f->pv[f->np].base = c->lhead;
	f->pv[f->np].tip = xstrdup(v);
	f->line = xreallocarray(f->line, f->np + 1, sizeof(*f->line));
	f->line[f->np++] = i;
}

/* Line i taken out, for why. */
static void
cm_rl_out(struct cm_rlf *f, size_t i, const char *why)
{
	f->drop[i] = 1;
	f->what = strv_add(f->what, why);
}

/*
 * Each new line: its values that no ref reaches (unreach, and a
 * checkout's "from", if an id) as tips, judged together; a "from" name
 * resolved here.  What fails is marked in f->drop.
 */
static void
cm_rl_judge(struct cm_ctx *c, struct cm_rlf *f, char **unreach)
{
	char		 ids[2][72], from[PATH_MAX];
	const char	*msg, *x, *end;
	size_t		 i, k;
	int		 isid;

	for (i = 0; i < f->nl; i++) {
		if (f->nold > 0 && bsearch(&f->lines[i], f->old, f->nold,
		    sizeof(*f->old), cm_line_cmp) != NULL)
			continue;
		if (cm_rl_parse(f->lines[i], ids, &msg) == -1) {
			cm_rl_out(f, i, "a reflog line git would not write");
			continue;
		}
		if (strncmp(msg, "checkout: moving from ", 22) == 0) {
			x = msg + 22;
			end = strstr(x, " to ");
			snprintf(from, sizeof(from), "%.*s", (int)(end != NULL ?
			    (size_t)(end - x) : strlen(x)), x);
			if (!cm_rl_from(c, from, &isid)) {
				cm_rl_out(f, i, "a checkout entry whose \"moving "
				    "from\" names no branch or commit by itself "
				    "(git checkout - would take it)");
				continue;
			}
			/* An id a ref reaches is history, as below. */
			if (isid && (unreach == NULL ||
			    strv_in(unreach, from)))
				cm_rl_tip(c, f, i, from);
		}
		/* A value a ref reaches is history, as any older commit
		 * (kept: docs/SECURITY.md). */
		for (k = 0; k < 2; k++)
			if (strspn(ids[k], "0") != strlen(ids[k]) &&
			    (unreach == NULL || strv_in(unreach, ids[k])))
				cm_rl_tip(c, f, i, ids[k]);
	}
	cm_pairs(&c->j, f->pv, f->np);
	for (i = 0; i < f->np; i++)
		if (f->pv[i].bad != NULL)
			f->drop[f->line[i]] = 1;
}

/* The lines marked taken out: the reflog rewritten without them, they
 * kept (cm_rl_write), each named up to CM_PATHS and the rest counted. */
static void
cm_rl_apply(struct cm_ctx *c, struct cm_rlf *f, const char *path,
    const char *rel)
{
	char	*keep = NULL, *out = NULL, *held, more[64];
	size_t	 i, k, n, klen = 0, kcap = 0, olen = 0, ocap = 0;

	for (i = 0; i < f->nl; i++) {
		if (f->drop[i]) {
			cm_cat(&keep, &klen, &kcap, f->lines[i]);
			cm_cat(&keep, &klen, &kcap, "\n");
		} else {
			cm_cat(&out, &olen, &ocap, f->lines[i]);
			cm_cat(&out, &olen, &ocap, "\n");
		}
	}
	if (keep == NULL) {
		free(out);
		return;
	}
	held = cm_rl_write(c, path, rel, out != NULL ? out : "", keep);
	for (i = 0, n = 0; i < f->np; i++)
		for (k = 0; f->pv[i].bad != NULL && f->pv[i].bad[k] != NULL;
		    k++)
			if (n++ < CM_PATHS)
				c->report(c->arg, "reflog", c->r->top, rel,
				    f->pv[i].bad[k], f->pv[i].why[k], held,
				    NULL);
	for (i = 0; f->what != NULL && f->what[i] != NULL; i++)
		if (n++ < CM_PATHS)
			c->report(c->arg, "reflog", c->r->top, rel, rel,
			    f->what[i], held, NULL);
	if (n > CM_PATHS) {
		snprintf(more, sizeof(more), "and %zu more entries taken out",
		    n - CM_PATHS);
		c->report(c->arg, "reflog", c->r->top, rel, rel, more, held,
		    NULL);
	}
	free(held);
	c->any = 1;
	free(out);
	free(keep);
}

/* One reflog file (rel: its name under logs/, for the report): the
 * lines it did not hold at launch (was: its bytes then, or NULL),
 * judged, those that fail taken out; unreach: cm_rl_unreachable's.  If
 * in is not NULL, only their values appended there (cm_rl_ids). */
static void
cm_rl_file(struct cm_ctx *c, const char *path, const char *rel,
    const char *was, char **unreach, char **in, size_t *ilen, size_t *icap)
{
	struct cm_rlf	 f;
	char		*now, *cp, *held;
	size_t		 nlen, i;

	if ((now = cm_read(path, CM_RL_MAX, &nlen)) == NULL)
		return;
	/* A NUL byte: no line git writes has one, and what follows it is
	 * no C string to judge; the whole reflog goes (the judge reads
	 * it as cm_rl_walk keeps it: a NUL made \001). */
	if (memchr(now, '\0', nlen) != NULL) {
		if (in == NULL) {
			held = cm_rl_write(c, path, rel, "", NULL);
			c->report(c->arg, "reflog", c->r->top, rel, rel,
			    "a reflog with a NUL byte written during the run: "
			    "its entries cannot be judged, so it was emptied "
			    "(its bytes kept as they were)", held, NULL);
			free(held);
			c->any = 1;
		}
		free(now);
		return;
	}
	if (was != NULL && strcmp(now, was) == 0) {
		free(now);
		return;
	}
	memset(&f, 0, sizeof(f));
	/* The launch's lines, sorted, to look each line up in. */
	cp = was != NULL ? xstrdup(was) : NULL;
	cm_rl_split(cp, &f.old, &f.nold);
	if (f.nold > 0)
		qsort(f.old, f.nold, sizeof(*f.old), cm_line_cmp);
	cm_rl_split(now, &f.lines, &f.nl);
	if (in != NULL)
		cm_rl_ids(f.lines, f.nl, f.old, f.nold, in, ilen, icap);
	else {
		f.drop = xcalloc(f.nl + 1, sizeof(*f.drop));
		cm_rl_judge(c, &f, unreach);
		cm_rl_apply(c, &f, path, rel);
	}
	for (i = 0; i < f.np; i++)
		free((char *)f.pv[i].tip);
	cm_pairs_free(f.pv, f.np);
	strv_free(f.what);
	free(f.drop);
	free(f.line);
	free(f.lines);
	free(f.old);
	free(cp);
	free(now);
}

/* Every reflog of the repository now (its work trees: wts), each judged
 * against its launch bytes (c->r->rl). */
static void
cm_reflogs(struct cm_ctx *c, const struct cm_wt *wts, size_t nwts)
{
	char		**now, *rel, *in = NULL, **unreach = NULL;
	const char	 *was, *s;
	size_t		  i, k, len = 0, cap = 0;
	int		  full, pass;

	if (c->r->rlfull) {
		c->report(c->arg, "unjudged", c->r->top, NULL, c->r->top,
		    "its reflogs were too many or too large to keep at launch: "
		    "entries added during the run are not judged (git stash "
		    "pop, git checkout - and @{N} read them)", NULL, NULL);
		return;
	}
	now = cm_rl_take(c->r->common, wts, nwts, &full);
	if (full)
		c->report(c->arg, "unjudged", c->r->top, NULL, c->r->top,
		    "its reflogs grew past what airlock reads (10,000 files, "
		    "32 MiB) during the run: those past it are not judged "
		    "(git stash pop, git checkout - and @{N} read them)", NULL,
		    NULL);
	/* Twice: the new lines' values of every reflog to one rev-list,
	 * then each reflog judged. */
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			unreach = cm_rl_unreachable(c, in, len);
			free(in);
		}
		for (i = 0; now != NULL && now[i] != NULL &&
		    now[i + 1] != NULL; i += 2) {
			was = NULL;
			for (k = 0; c->r->rl != NULL && c->r->rl[k] != NULL &&
			    c->r->rl[k + 1] != NULL; k += 2)
				if (strcmp(c->r->rl[k], now[i]) == 0) {
					was = c->r->rl[k + 1];
					break;
				}
			if (was != NULL && strcmp(was, now[i + 1]) == 0)
				continue;
			/* Its name as git's: after ".../logs/". */
			s = strstr(now[i], "/logs/");
			rel = xstrdup(s != NULL ? s + 6 : now[i]);
			cm_rl_file(c, now[i], rel, was, unreach,
			    pass == 0 ? &in : NULL, &len, &cap);
			free(rel);
		}
	}
	strv_free(unreach);
	strv_free(now);
}

/*
 * An operation in progress, as a work tree's git directory (gitdir)
 * holds it: a rebase (rebase-merge/, rebase-apply/), a cherry-pick or
 * revert sequence (sequencer/), a merge's autostash (MERGE_AUTOSTASH),
 * a bisection (BISECT_*).  Git acts on them when the user goes on:
 * `git rebase --continue` runs a todo's `exec` lines and picks its
 * commits, `--abort` resets to orig-head and applies the autostash,
 * `git merge --abort` applies MERGE_AUTOSTASH, `git bisect reset`
 * checks out what BISECT_START names.  A sandbox writes them (git state
 * is what git writes), so one written or changed during the run is
 * taken away whole: moved to airlock-held/SESSION/, named.  HEAD and
 * the refs are judged as they are; the user's branch is where the
 * operation left it.  One the run did not touch stays.
 */
static void
cm_opstate(struct cm_ctx *c, const char *gitdir)
{
	static const struct {
		const char	*name;
		const char	*what;
	} op[] = {
		{ "rebase-merge", "a rebase in progress (git rebase --continue "
		    "runs its exec lines and picks its commits, --abort checks "
		    "out its orig-head)" },
		{ "rebase-apply", "a rebase or am in progress (--continue "
		    "applies its patches)" },
		{ "sequencer", "a cherry-pick or revert in progress "
		    "(--continue picks its commits, --abort checks out its "
		    "head)" },
		{ "MERGE_AUTOSTASH", "a merge's autostash (git merge --abort "
		    "or a commit applies it)" },
		{ "BISECT_*", "a bisection (git bisect reset checks out what "
		    "BISECT_START names)" },
	};
	struct dirent	*e;
	DIR		*d;
	char		 p[PATH_MAX + 300], *dir, *to, *q;
	const char	*rel;
	size_t		 i, budget;
	int		 hit;

	rel = strcmp(gitdir, c->r->common) == 0 ? "" :
	    gitdir + strlen(c->r->common) + 1;
	for (i = 0; i < sizeof(op) / sizeof(op[0]); i++) {
		/* The bisection: its files together, if any changed. */
		hit = 0;
		if (op[i].name[strlen(op[i].name) - 1] == '*') {
			if ((d = opendir(gitdir)) == NULL)
				continue;
			while (!hit && (e = readdir(d)) != NULL) {
				budget = 16;
				snprintf(p, sizeof(p), "%s/%s", gitdir,
				    e->d_name);
				hit = strncmp(e->d_name, "BISECT_", 7) == 0 &&
				    strcmp(e->d_name, "BISECT_HEAD") != 0 &&
				    cm_changed_tree(p, c->t0, 0, &budget);
			}
			closedir(d);
		} else {
			budget = 100000;
			snprintf(p, sizeof(p), "%s/%s", gitdir, op[i].name);
			hit = access(p, F_OK) == 0 &&
			    cm_changed_tree(p, c->t0, 8, &budget);
		}
		if (!hit)
			continue;
		dir = cm_held_sess(c->r->common, c->sid);
		if ((d = opendir(gitdir)) == NULL) {
			free(dir);
			continue;
		}
		while ((e = readdir(d)) != NULL) {
			if (fnmatch(op[i].name, e->d_name, 0) != 0 ||
			    strcmp(e->d_name, "BISECT_HEAD") == 0)
				continue;
			snprintf(p, sizeof(p), "%s/%s", gitdir, e->d_name);
			xasprintf(&to, "%s/state-%s%s%s", dir, rel,
			    rel[0] != '\0' ? "-" : "", e->d_name);
			for (q = to + strlen(dir) + 1; *q != '\0'; q++)
				if (*q == '/')
					*q = '-';
			if (rename(p, to) == 0)
				c->report(c->arg, "state", c->r->top, NULL, p,
				    op[i].what, to, NULL);
			else
				c->report(c->arg, "state-not-removed",
				    c->r->top, NULL, p, op[i].what, NULL, NULL);
			c->any = 1;
			free(to);
		}
		closedir(d);
		free(dir);
	}
}

/* One repository: its object stores, its refs, then each work tree's
 * HEAD, index and operation in progress, then its reflogs. */
static void
cm_repo_judge(struct cm_repo *r, const struct namerule_set *rules,
    const char *sid, const struct timespec *t0, commits_report *report,
    void *arg)
{
	static const char *const fer[] = { "for-each-ref",
	    "--format=%(objectname) %(refname)", NULL };
	struct cm_ctx	 c;
	struct cm_repo	 tmp;
	struct cm_wt	 none;
	const struct cm_wt *lw;
	char		*now;
	size_t		 i, w;

	memset(&c, 0, sizeof(c));
	c.r = r;
	c.j.rules = rules;
	c.j.common = r->common;
	c.j.top = r->top;
	c.sid = sid;
	c.report = report;
	c.arg = arg;
	c.t0 = t0;
	cm_objects(r->common, r->top, sid, t0, report, arg);
	if ((now = cm_git(r->common, NULL, NULL, fer, NULL, 0, NULL)) == NULL)
		return;
	cm_known(&c, now);
	if (r->nwts > 0)
		c.lhead = cm_base(&c, cm_head_commit(&c, r->wts[0].head),
		    NULL, c.lheadbuf, sizeof(c.lheadbuf));
	cm_hold_refs(&c, now);
	memset(&tmp, 0, sizeof(tmp));
	tmp.common = r->common;
	tmp.top = r->top;
	cm_wts(&tmp, 0);
	for (w = 0; w < tmp.nwts; w++) {
		memset(&none, 0, sizeof(none));
		none.gitdir = tmp.wts[w].gitdir;
		none.top = tmp.wts[w].top;
		lw = &none;
		for (i = 0; i < r->nwts; i++)
			if (strcmp(r->wts[i].gitdir, none.gitdir) == 0)
				lw = &r->wts[i];
		cm_wt_judge(&c, lw);
		cm_opstate(&c, none.gitdir);
	}
	cm_reflogs(&c, tmp.wts, tmp.nwts);
	for (w = 0; w < tmp.nwts; w++) {
		free(tmp.wts[w].gitdir);
		free(tmp.wts[w].top);
	}
	free(tmp.wts);
	cm_clear(&c.j);
	strv_free(c.air);
	free(c.lrefs);
	free(now);
}

/* Whether the repository at top (rtop: where it led at launch) is gone
 * from there: no .git, or top now leads elsewhere (a symlink left in its
 * place, which the next launch's walks do not follow). */
static int
cm_gone(const char *top, const char *rtop)
{
	struct stat	st;
	char		p[PATH_MAX + 16], real[PATH_MAX];

	snprintf(p, sizeof(p), "%s/.git", top);
	if (lstat(p, &st) == -1 && !hookspath_is_gitdir(top))
		return 1;
	return rtop != NULL && rtop[0] != '\0' &&
	    (realpath(top, real) == NULL || strcmp(real, rtop) != 0);
}

/*
 * A repository of the user's moved during the run escapes the launch's
 * walks where it lands: one moved deeper than they look by one run and
 * back by the next had its hooks directory unprotected in between.
 * Both ends are named: a launch repository no longer at its place
 * (whether its refs were kept or it was past the bound; a symlink left
 * there, which the walks do not follow, is no repository), and one
 * found now whose own config sets core.hooksPath (which no sandbox
 * can set: the config allowlist refuses it), so the user's, moved in.
 */
static void
cm_moved(struct commits_snap *s)
{
	static const char why[] = "a repository moved or removed during the "
	    "run: its hooks and commits are not checked where it went";
	size_t	i;

	for (i = 0; i < s->nrepos; i++) {
		if (i < s->nlaunch &&
		    cm_gone(s->repos[i].top, s->repos[i].rtop))
			cm_unjudged(s, s->repos[i].top, why);
		else if (i >= s->nlaunch &&
		    hookspath_mentioned(s->repos[i].common))
			cm_unjudged(s, s->repos[i].top, "a repository that "
			    "was not here at launch and sets core.hooksPath: "
			    "its hooks directory was not protected during "
			    "the run");
	}
	/* Past the bound at launch: the same, though its refs were not
	 * kept. */
	for (i = 0; s->unsnapped != NULL && s->unsnapped[i] != NULL; i++)
		if (cm_gone(s->unsnapped[i], s->runsnapped[i]))
			cm_unjudged(s, s->unsnapped[i], why);
	/* Past where the launch's walk stopped nothing was listed, so
	 * nothing moved away from there can be told: said, always. */
	if (s->full != NULL) {
		char	*w;

		xasprintf(&w, "the walk when the run started was not whole "
		    "(%s): a repository moved or removed past that point is "
		    "not seen", s->full);
		cm_unjudged(s, s->fulltop != NULL ? s->fulltop : "", w);
		free(w);
	}
}

int
commits_pending(struct commits_snap *s)
{
	/* Repositories made during the run: all they hold is new.  A
	 * walk of the tops, no git: cheap enough for the event loop. */
	if (!s->found) {
		s->nlaunch = s->nrepos;
		cm_find(s, s->tops, 0);
		s->found = 1;
		cm_moved(s);
	}
	return s->nrepos > 0 || s->unjudged != NULL || s->verify != NULL;
}

void
commits_judge(struct commits_snap *s, const struct namerule_set *rules,
    const char *sid, commits_report *report, void *arg)
{
	size_t	i;
	int	fd, t;

	if (s == NULL)
		return;
	(void)commits_pending(s);
	for (i = 0; i < s->nrepos; i++) {
		if (i >= s->nlaunch && s->repos[i].refs == NULL)
			s->repos[i].refs = xstrdup("");
		/* Another judge on it: waited for, a while (the sandbox
		 * of a session still running may hold the file too). */
		fd = -1;
		for (t = 0; s->child && !s->repos[i].locked &&
		    t < CM_LOCK_WAIT * 10 && (fd = cm_lock(s->repos[i].common,
		    LOCK_EX | LOCK_NB)) == -1 && errno == EWOULDBLOCK; t++)
			usleep(100000);
		cm_repo_judge(&s->repos[i], rules, sid, &s->t0, report, arg);
		if (fd != -1)
			close(fd);
	}
	for (i = 0; s->verify != NULL && s->verify[i] != NULL &&
	    s->verify[i + 1] != NULL; i += 2)
		cm_objects(s->verify[i], s->verify[i + 1], sid, &s->t0, report,
		    arg);
	for (i = 0; s->unjudged != NULL && s->unjudged[i] != NULL &&
	    s->unjudged[i + 1] != NULL; i += 2)
		report(arg, "unjudged", s->unjudged[i], NULL, s->unjudged[i],
		    s->unjudged[i + 1], NULL, NULL);
	if (s->nunjudged > CM_PATHS) {
		char	n[64];

		snprintf(n, sizeof(n), "and %zu more not named",
		    s->nunjudged - CM_PATHS);
		report(arg, "unjudged", s->tops != NULL ? s->tops[0] : "",
		    NULL, s->tops != NULL ? s->tops[0] : "", n, NULL, NULL);
	}
	commits_free(s);
}

/*
 * The judge in a child process.  It runs git one process after
 * another, each allowed CM_WAIT_MS, and airlockd's event loop must not
 * wait for that: the other sessions' output, their exits and every
 * client's requests would stall behind it.  airlockd forks a copy of
 * itself that judges and writes each report on a pipe the loop reads.
 * Not fork+exec as sv_spawn's children: the copy is airlockd itself,
 * unconfined as airlockd is, running the git airlockd ran before; it
 * crosses no privilege boundary, so no secret of airlockd's reaches
 * anything it could not already reach.  It keeps no descriptor of
 * airlockd's but the pipe and stderr (the log), so that no client,
 * launcher or daemon connection stays open in it.  It has no
 * PDEATHSIG and ignores SIGPIPE: if airlockd dies meanwhile the judge
 * still puts back what it holds (fail closed), and ends by itself.
 *
 * A report on the pipe: 'R', then seven strings (commits_report's),
 * each a 4-byte length (native order, ~0 for NULL) and its bytes; the
 * judge's end: 'E'.  A pipe that ends without 'E' is a judge that
 * died on the way, which the reader says.
 */
#define CM_JOB_FIELDS	7
#define CM_JOB_MAX	(1U << 20)	/* one report, at most */

struct commits_job {
	struct commits_snap *snap;	/* kept for a judge that dies */
	int	*locks;		/* cm_lock's, held while it runs */
	size_t	 nlocks;
	pid_t	 pid;
	int	 fd;
	int	 done;		/* 'E' seen */
	char	*buf;
	size_t	 len, cap;
};

static void
cm_job_put(char **buf, size_t *len, size_t *cap, const void *p, size_t n)
{
	if (*cap - *len < n) {
		while (*cap - *len < n)
			*cap = *cap ? *cap * 2 : 4096;
		*buf = xreallocarray(*buf, 1, *cap);
	}
	memcpy(*buf + *len, p, n);
	*len += n;
}

static int
cm_job_write(int fd, const char *p, size_t n)
{
	ssize_t	r;

	while (n > 0) {
		if ((r = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* The child's commits_report: one record on the pipe. */
static void
cm_job_report(void *arg, const char *kind, const char *repo,
    const char *ref, const char *path, const char *rule, const char *held,
    const char *take)
{
	const char	*f[CM_JOB_FIELDS] = { kind, repo, ref, path, rule,
			    held, take };
	char		*buf = NULL;
	size_t		 len = 0, cap = 0, i, n;
	uint32_t	 l;

	cm_job_put(&buf, &len, &cap, "R", 1);
	for (i = 0; i < CM_JOB_FIELDS; i++) {
		n = f[i] != NULL ? strlen(f[i]) : 0;
		if (n > CM_JOB_MAX / 8)
			n = CM_JOB_MAX / 8;
		l = f[i] != NULL ? (uint32_t)n : UINT32_MAX;
		cm_job_put(&buf, &len, &cap, &l, sizeof(l));
		if (n > 0)
			cm_job_put(&buf, &len, &cap, f[i], n);
	}
	(void)cm_job_write(*(int *)arg, buf, len);
	free(buf);
}

struct commits_job *
commits_judge_start(struct commits_snap *s, const struct namerule_set *rules,
    const char *sid)
{
	struct commits_job *j;
	sigset_t	all, old;
	int		p[2], lfd, *locks;
	pid_t		pid;
	size_t		i, nlocks = 0;

	if (pipe2(p, O_CLOEXEC) == -1)
		return NULL;
	/* The repositories locked before the fork: no launch comes in
	 * between (the child waits for those another judge holds). */
	(void)commits_pending(s);
	locks = xcalloc(s->nrepos + 1, sizeof(*locks));
	for (i = 0; i < s->nrepos; i++)
		if ((lfd = cm_lock(s->repos[i].common, LOCK_EX | LOCK_NB)) !=
		    -1) {
			locks[nlocks++] = lfd;
			s->repos[i].locked = 1;
		}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if ((pid = fork()) == -1) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(p[0]);
		close(p[1]);
		for (i = 0; i < nlocks; i++)
			close(locks[i]);
		free(locks);
		for (i = 0; i < s->nrepos; i++)
			s->repos[i].locked = 0;
		return NULL;
	}
	if (pid == 0) {
		/* airlockd's handlers (libevent's) would write to its
		 * loop's descriptors: the defaults here, before any
		 * signal is let in. */
		sig_default_caught();
		(void)signal(SIGPIPE, SIG_IGN);
		(void)signal(SIGCHLD, SIG_DFL);
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		if ((p[1] > 3 && syscall(SYS_close_range, 3U,
		    (unsigned)p[1] - 1, 0U) == -1) ||
		    syscall(SYS_close_range, (unsigned)p[1] + 1, ~0U,
		    0U) == -1)
			for (int fd = 3; fd < 1024; fd++)
				if (fd != p[1])
					close(fd);
		s->child = 1;
		commits_judge(s, rules, sid, cm_job_report, &p[1]);
		(void)cm_job_write(p[1], "E", 1);
		_exit(0);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	(void)fcntl(p[0], F_SETFL, O_NONBLOCK);
	j = xcalloc(1, sizeof(*j));
	j->snap = s;
	j->locks = locks;
	j->nlocks = nlocks;
	j->pid = pid;
	j->fd = p[0];
	return j;
}

int
commits_job_fd(const struct commits_job *j)
{
	return j->fd;
}

pid_t
commits_job_pid(const struct commits_job *j)
{
	return j->pid;
}

/* The complete records in j->buf, each told; what is left stays. */
static int
cm_job_parse(struct commits_job *j, commits_report *report, void *arg)
{
	char		*f[CM_JOB_FIELDS];
	size_t		 off = 0, p, i;
	uint32_t	 l;
	int		 bad = 0;

	while (off < j->len && !j->done && !bad) {
		if (j->buf[off] == 'E') {
			j->done = 1;
			off++;
			break;
		}
		if (j->buf[off] != 'R') {
			bad = 1;
			break;
		}
		p = off + 1;
		for (i = 0; i < CM_JOB_FIELDS; i++) {
			if (j->len - p < sizeof(l))
				break;
			memcpy(&l, j->buf + p, sizeof(l));
			p += sizeof(l);
			if (l == UINT32_MAX)
				continue;
			if (l > CM_JOB_MAX) {
				bad = 1;
				break;
			}
			if (j->len - p < l)
				break;
			p += l;
		}
		if (bad || i < CM_JOB_FIELDS)
			break;
		/* Complete: the strings, NUL-terminated in a copy. */
		p = off + 1;
		for (i = 0; i < CM_JOB_FIELDS; i++) {
			memcpy(&l, j->buf + p, sizeof(l));
			p += sizeof(l);
			if (l == UINT32_MAX) {
				f[i] = NULL;
				continue;
			}
			f[i] = xmalloc((size_t)l + 1);
			memcpy(f[i], j->buf + p, l);
			f[i][l] = '\0';
			p += l;
		}
		report(arg, f[0] != NULL ? f[0] : "", f[1] != NULL ? f[1] :
		    "", f[2], f[3] != NULL ? f[3] : "", f[4], f[5], f[6]);
		for (i = 0; i < CM_JOB_FIELDS; i++)
			free(f[i]);
		off = p;
	}
	memmove(j->buf, j->buf + off, j->len - off);
	j->len -= off;
	return bad ? -1 : 0;
}

int
commits_job_read(struct commits_job *j, commits_report *report, void *arg)
{
	ssize_t	r;

	for (;;) {
		if (j->cap - j->len < 65536) {
			if (j->cap > 4 * CM_JOB_MAX)
				return -1;
			j->cap = j->cap ? j->cap * 2 : 65536 * 2;
			j->buf = xreallocarray(j->buf, 1, j->cap);
		}
		r = read(j->fd, j->buf + j->len, j->cap - j->len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && errno == EAGAIN)
			return 0;
		if (r <= 0)
			break;
		j->len += (size_t)r;
		if (cm_job_parse(j, report, arg) == -1)
			return -1;
	}
	if (cm_job_parse(j, report, arg) == -1 || !j->done)
		return -1;
	return 1;
}

int
commits_job_wait(struct commits_job *j, commits_report *report, void *arg)
{
	struct pollfd	pfd;
	int		r;

	while ((r = commits_job_read(j, report, arg)) == 0) {
		pfd.fd = j->fd;
		pfd.events = POLLIN;
		(void)poll(&pfd, 1, -1);
	}
	return r;
}

struct commits_snap *
commits_job_snap(struct commits_job *j)
{
	struct commits_snap *s = j->snap;

	j->snap = NULL;
	return s;
}

void
commits_job_free(struct commits_job *j)
{
	if (j == NULL)
		return;
	commits_free(j->snap);
	close(j->fd);
	for (size_t i = 0; i < j->nlocks; i++)
		close(j->locks[i]);
	free(j->locks);
	free(j->buf);
	free(j);
}
