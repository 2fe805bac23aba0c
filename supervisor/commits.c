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
#include <sys/stat.h>
#include <sys/wait.h>

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

#include "common/namerule.h"
#include "common/xmalloc.h"
#include "supervisor/commits.h"

#define CM_DEPTH	3		/* directory levels below a bind */
#define CM_DIRS		2000		/* directories looked at, per bind */
#define CM_REPOS	16		/* repositories, per bind */
#define CM_WAIT_MS	5000		/* one git process, at most */
#define CM_OUT_MAX	(64U << 20)	/* what one git prints */
#define CM_INDEX_MAX	(64U << 20)	/* an index kept at launch */
#define CM_PATHS	16		/* paths named per held ref */
#define CM_PERREF	32		/* refs judged one by one */
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
	char	*refs;		/* for-each-ref at launch: "sha name\n" */
	struct cm_wt *wts;
	size_t	 nwts;
};

struct commits_snap {
	struct cm_repo	*repos;
	size_t		 nrepos;
	char		**tops;
};

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

/* A small file's text, its trailing newline taken off. */
static char *
cm_text(const char *path)
{
	char	*s = cm_read(path, 1 << 16, NULL);

	if (s != NULL)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

/*
 * Run git with args (NULL-terminated) on gitdir (and top as its work
 * tree, if not NULL), in, if not NULL, on its stdin; index: another
 * index file.  Its output (*len), or NULL if it failed or took too long.
 */
static char *
cm_git(const char *gitdir, const char *top, const char *index,
    const char *const *args, const char *in, size_t inlen, size_t *lenp)
{
	const char	*argv[32];
	char		 gd[PATH_MAX + 16], wt[PATH_MAX + 16];
	struct pollfd	 pfd[2];
	struct timespec	 t0, t;
	char		*buf = NULL;
	size_t		 len = 0, cap = 0, off = 0, i, n = 0;
	ssize_t		 r;
	pid_t		 pid;
	int		 po[2], pi[2], st, ms, nfd;

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
	if (pid == 0) {
		extern char **environ;
		char	**e;
		int	  nul = open("/dev/null", O_RDWR);

		/* Nothing of airlockd's environment names git's. */
		for (e = environ; *e != NULL; )
			if (strncmp(*e, "GIT_", 4) == 0) {
				char	nm[128];

				snprintf(nm, sizeof(nm), "%.*s",
				    (int)strcspn(*e, "="), *e);
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
		dup2(pi[0], 0);
		dup2(po[1], 1);
		if (nul != -1)
			dup2(nul, 2);
		execvp("git", (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	close(pi[0]);
	if (in == NULL) {
		close(pi[1]);
		pi[1] = -1;
	} else
		(void)fcntl(pi[1], F_SETFL, O_NONBLOCK);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = CM_WAIT_MS - (int)((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000);
		pfd[0].fd = po[0];
		pfd[0].events = POLLIN;
		pfd[1].fd = pi[1];
		pfd[1].events = POLLOUT;
		nfd = pi[1] != -1 ? 2 : 1;
		if (ms <= 0 || poll(pfd, nfd, ms) == 0) {
			kill(pid, SIGKILL);
			free(buf);
			buf = NULL;
			len = 0;
			break;
		}
		if (nfd == 2 && pfd[1].revents != 0) {
			r = write(pi[1], in + off, inlen - off);
			if (r > 0)
				off += (size_t)r;
			if ((r == -1 && errno != EAGAIN && errno != EINTR) ||
			    off == inlen) {
				close(pi[1]);
				pi[1] = -1;
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
		r = read(po[0], buf + len, cap - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
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
static void
cm_repo_add(struct commits_snap *s, const char *top, int launch)
{
	static const char *const fer[] = { "for-each-ref",
	    "--format=%(objectname) %(refname)", NULL };
	struct stat	 st;
	char		 g[PATH_MAX + 32], *t, *cd, real[PATH_MAX + 16];
	struct cm_repo	*r;
	size_t		 i;

	snprintf(g, sizeof(g), "%s/.git", top);
	if (lstat(g, &st) == -1)
		return;
	if (S_ISREG(st.st_mode) && launch) {
		if ((t = cm_text(g)) == NULL || strncmp(t, "gitdir: ", 8) ||
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
	    sizeof(g) && (cd = cm_text(g)) != NULL) {
		if (!launch || namerule_lexical(real, cd, g, sizeof(g)) != 0 ||
		    realpath(g, real) == NULL) {
			free(cd);
			return;
		}
		free(cd);
	}
	for (i = 0; i < s->nrepos; i++)
		if (strcmp(s->repos[i].common, real) == 0)
			return;
	s->repos = xreallocarray(s->repos, s->nrepos + 1, sizeof(*s->repos));
	r = &s->repos[s->nrepos++];
	memset(r, 0, sizeof(*r));
	r->common = xstrdup(real);
	r->top = xstrdup(top);
	if (launch) {
		r->refs = cm_git(r->common, NULL, NULL, fer, NULL, 0, NULL);
		if (r->refs == NULL)
			r->refs = xstrdup("");
		cm_wts(r, 1);
	}
}

static void
cm_walk(struct commits_snap *s, const char *dir, int depth, size_t *ndirs,
    size_t *nrepos, int launch)
{
	struct dirent	*e;
	struct stat	 st;
	DIR		*d;
	char		 p[PATH_MAX];

	if (depth == 0 || (d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL && *ndirs < CM_DIRS &&
	    *nrepos < CM_REPOS) {
		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    e->d_name[0] == '.' ||
		    strcmp(e->d_name, "node_modules") == 0 ||
		    (size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >=
		    sizeof(p) || lstat(p, &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		(*ndirs)++;
		snprintf(p + strlen(p), sizeof(p) - strlen(p), "/.git");
		if (lstat(p, &st) == 0) {
			(*nrepos)++;
			p[strlen(p) - 5] = '\0';
			cm_repo_add(s, p, launch);
		} else
			p[strlen(p) - 5] = '\0';
		cm_walk(s, p, depth - 1, ndirs, nrepos, launch);
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
		cm_walk(s, tops[i], CM_DEPTH, &ndirs, &nrepos, launch);
	}
}

struct commits_snap *
commits_snapshot(char *const *tops)
{
	struct commits_snap *s = xcalloc(1, sizeof(*s));

	cm_find(s, tops, 1);
	for (size_t i = 0; tops != NULL && tops[i] != NULL; i++)
		s->tops = strv_add(s->tops, tops[i]);
	return s;
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
		free(r->refs);
	}
	free(s->repos);
	strv_free(s->tops);
	free(s);
}

/* ---- the judge ---- */

struct cm_judge {
	const struct namerule_set *rules;
	const char	*common;
	const char	*top;
	char		**bad;		/* protected paths found */
};

/* A blob's bytes (a .gitmodules, a link's target), or NULL. */
static char *
cm_blob(const char *common, const char *sha, size_t *len)
{
	const char *const args[] = { "cat-file", "blob", sha, NULL };

	return cm_git(common, NULL, NULL, args, NULL, 0, len);
}

/*
 * Judge one entry of a tree as the sandbox's filename rules would judge
 * writing it: path (relative to the work tree), its mode and blob.
 */
static void
cm_entry(struct cm_judge *j, const char *path, const char *mode,
    const char *sha)
{
	char	 abs[PATH_MAX], tgt[PATH_MAX], dir[PATH_MAX], why[256];
	char	*b, *slash;
	size_t	 len;
	enum namerule_verdict v;

	if (strv_len(j->bad) >= CM_PATHS || strv_in(j->bad, path))
		return;
	if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", j->top, path) >=
	    sizeof(abs)) {
		j->bad = strv_add(j->bad, path);
		return;
	}
	v = namerule_check(j->rules, abs, 0);
	if (v == NR_CHECK_CONFIG && (slash = strrchr(abs, '/')) != NULL &&
	    namerule_gitmodules_name(slash + 1) &&
	    strcmp(mode, "100644") == 0) {
		/* .gitmodules: by its content, as the sandbox judges it. */
		b = cm_blob(j->common, sha, &len);
		if (b != NULL && namerule_gitmodules_check(b, len, why,
		    sizeof(why)) == 0)
			v = NR_ALLOW;
		free(b);
	}
	if (v == NR_ALLOW && strcmp(mode, "120000") == 0) {
		/* A link: where it leads, as the sandbox judges one made
		 * there (its target protected like the name). */
		snprintf(dir, sizeof(dir), "%s", abs);
		*strrchr(dir, '/') = '\0';
		b = cm_blob(j->common, sha, &len);
		if (b == NULL || memchr(b, '\0', len) != NULL ||
		    namerule_lexical(dir, b, tgt, sizeof(tgt)) != 0 ||
		    namerule_check(j->rules, tgt, NR_F_ANYWHERE) != NR_ALLOW)
			v = NR_DENY;
		free(b);
	}
	if (v != NR_ALLOW)
		j->bad = strv_add(j->bad, path);
}

/*
 * Raw diff output (-z): ":oldmode newmode oldsha newsha S\0path\0", or
 * with --stdin and no commit id lines.  Added or changed entries are
 * judged; a deletion writes nothing.
 */
static void
cm_raw(struct cm_judge *j, const char *out, size_t len)
{
	char		 mode[8], sha[72], st;
	const char	*p = out, *end = out + len, *path;

	while (p < end) {
		if (*p != ':') {
			p += strlen(p) + 1;	/* a commit id line */
			continue;
		}
		/* ":100644 100644 <sha> <sha> M" */
		/* git's own text: anything else is not judged, so held */
		if (sscanf(p, ":%*7s %7s %*71s %71s %c", mode, sha, &st) !=
		    3 || (path = p + strlen(p) + 1) >= end) {
			j->bad = strv_add(j->bad, "(git's output did not "
			    "parse)");
			break;
		}
		if (st != 'D')
			cm_entry(j, path, mode, sha);
		p = path + strlen(path) + 1;
	}
}

/*
 * Judge a new tip: every commit it reaches that known does not (each
 * against each parent, a root against nothing), or a tree's every entry.
 * 0 if nothing protected, 1 (paths in j->bad) if something is or if it
 * could not be judged.
 */
static int
cm_tip(struct cm_judge *j, const char *tip, const char *type,
    const char *known)
{
	/* One process: the commits (rev-list's walk) and their raw
	 * diffs (diff-tree's), nothing a config could turn into a
	 * program (no signatures, external diffs, text conversions). */
	static const char *const lg[] = { "-c", "log.showSignature=false",
	    "log", "--stdin", "--format=format:", "-z", "-m", "-r",
	    "--root", "--raw", "--no-renames", "--no-abbrev",
	    "--no-ext-diff", "--no-textconv", "--no-color", NULL };
	const char	*lst[] = { "ls-tree", "-r", "-z", "--full-tree",
	    NULL, NULL };
	char		*in, *out, tr[80];
	size_t		 len;
	int		 ok;

	if (strcmp(type, "blob") == 0)
		return 0;
	if (strcmp(type, "commit") != 0) {
		snprintf(tr, sizeof(tr), "%s^{tree}", tip);
		lst[4] = tr;
		if ((out = cm_git(j->common, NULL, NULL, lst, NULL, 0,
		    &len)) == NULL) {
			j->bad = strv_add(j->bad, "(the tree could not be "
			    "read)");
			return 1;
		}
		/* "mode type sha\tpath\0" */
		for (char *p = out; p < out + len; p += strlen(p) + 1) {
			char	mode[8], sha[72], *t = strchr(p, '\t');

			if (t != NULL && sscanf(p, "%7s %*s %71s", mode,
			    sha) == 2)
				cm_entry(j, t + 1, mode, sha);
		}
		free(out);
		return j->bad != NULL;
	}
	xasprintf(&in, "%s\n%s", tip, known);
	out = cm_git(j->common, NULL, NULL, lg, in, strlen(in), &len);
	free(in);
	if (out == NULL) {
		j->bad = strv_add(j->bad, "(the commits could not be read)");
		return 1;
	}
	cm_raw(j, out, len);
	free(out);
	ok = j->bad == NULL;
	return !ok;
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

static int
cm_sha_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
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
		strv_free(j->bad);
		j->bad = NULL;
		cm_entry(j, path, st == 'U' ? "100644" : nmode, nsha);
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
		report(arg, "index", lw->top, NULL, path, NULL, NULL);
		n++;
	}
	if (fix != NULL) {
		char *o = cm_git(lw->gitdir, top, NULL, ui, fix, flen, NULL);

		free(o);
	}
	strv_free(j->bad);
	j->bad = NULL;
	free(fix);
	free(launch);
	free(out);
	return n;
}

/*
 * update-ref --stdin of cmds, all or nothing; if that fails (the host
 * moved one of the refs meanwhile), each held ref and its restore on
 * their own, two lines at a time.
 */
static void
cm_update(const char *common, const char *cmds)
{
	static const char *const ur[] = { "update-ref", "--stdin", NULL };
	const char	*p, *e;
	char		*o;
	int		 nl;

	if ((o = cm_git(common, NULL, NULL, ur, cmds, strlen(cmds),
	    NULL)) != NULL) {
		free(o);
		return;
	}
	for (p = cmds; *p != '\0'; p = e) {
		for (e = p, nl = 0; *e != '\0' && nl < 2; e++)
			if (*e == '\n')
				nl++;
		o = cm_git(common, NULL, NULL, ur, p, (size_t)(e - p), NULL);
		free(o);
	}
}

/* A ref that moved during the run. */
struct cm_moved {
	const char	*name;
	const char	*old;		/* its launch value, NULL if new */
	char		 sha[72];
	char		 type[16];	/* peeled: commit, tree, blob */
};

/* The peeled types of the moved refs' values, by one cat-file. */
static void
cm_types(const char *common, struct cm_moved *mv, size_t n)
{
	static const char *const bc[] = { "cat-file",
	    "--batch-check=%(objecttype)", NULL };
	char	*in = xcalloc(n, 80), *q = in, *out, *line, *next;
	size_t	 i;

	for (i = 0; i < n; i++)
		q += sprintf(q, "%s^{}\n", mv[i].sha);
	out = cm_git(common, NULL, NULL, bc, in, (size_t)(q - in), NULL);
	free(in);
	/* One line per object, in order ("X missing" if none). */
	for (i = 0, line = out; out != NULL && i < n && line != NULL &&
	    *line != '\0'; i++, line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strchr(line, ' ') == NULL)
			snprintf(mv[i].type, sizeof(mv[i].type), "%s", line);
	}
	free(out);
	/* Not known: judged as a commit (rev-list fails: held). */
	for (i = 0; i < n; i++)
		if (mv[i].type[0] == '\0')
			snprintf(mv[i].type, sizeof(mv[i].type), "commit");
}

/* A value of unknown type (a HEAD or pseudo ref's text). */
static int
cm_tip_any(struct cm_judge *j, const char *sha, const char *known)
{
	struct cm_moved	m;

	memset(&m, 0, sizeof(m));
	snprintf(m.sha, sizeof(m.sha), "%s", sha);
	cm_types(j->common, &m, 1);
	return cm_tip(j, m.sha, m.type, known);
}

/*
 * Where a held ref goes back to: its launch value, unless another
 * session has since held that very value (this one's launch came after
 * that commit): then what that session put the ref back to
 * (refs/airlock/was/<session>/<ref>), if that is judged clean too, since
 * the sandbox may write refs/airlock/ as well; else nowhere (NULL: the
 * ref is deleted, its commit kept).  air: "sha name" of refs/airlock/.
 */
static const char *
cm_target(struct cm_judge *j, char *const *air, const char *name,
    const char *old, const char *known, char *buf, size_t len)
{
	struct cm_judge	 k = *j;
	const char	*sp, *rest, *sl;
	char		*want;
	size_t		 i, n, sn;
	int		 held = 0;

	if (old == NULL)
		return NULL;
	n = strlen(old);
	for (i = 0; air != NULL && air[i] != NULL; i++) {
		sp = strchr(air[i], ' ');
		if (sp == NULL || (size_t)(sp - air[i]) != n ||
		    strncmp(air[i], old, n) != 0 ||
		    strncmp(sp + 1, "refs/airlock/held/", 18) != 0)
			continue;
		rest = sp + 1 + 18;
		if ((sl = strchr(rest, '/')) == NULL ||
		    strcmp(sl + 1, name) != 0)
			continue;
		held = 1;
		sn = (size_t)(sl - rest);
		xasprintf(&want, "refs/airlock/was/%.*s/%s", (int)sn, rest,
		    name);
		for (i = 0; air[i] != NULL; i++)
			if ((sp = strchr(air[i], ' ')) != NULL &&
			    strcmp(sp + 1, want) == 0)
				break;
		free(want);
		if (air[i] == NULL || (size_t)(sp - air[i]) >= len)
			return NULL;
		snprintf(buf, len, "%.*s", (int)(sp - air[i]), air[i]);
		k.bad = NULL;
		if (cm_tip_any(&k, buf, known)) {
			strv_free(k.bad);
			return NULL;
		}
		return buf;
	}
	return held ? NULL : old;
}

/* What one repository's judge works with. */
struct cm_ctx {
	struct cm_repo	*r;
	struct cm_judge	 j;
	const char	*sid;
	commits_report	*report;
	void		*arg;
	char		*known;		/* "^sha\n" of the launch values */
	char		**air;		/* "sha name" of refs/airlock/ */
	struct cm_lref	*lrefs;		/* the launch refs, by name */
	size_t		 nl;
	int		 any;		/* something held */
};

/*
 * What the host already had: the launch values, less those another
 * session has since held (its launch came after such a commit); and
 * the refs under refs/airlock/ now.  now: for-each-ref's text.
 */
static void
cm_known(struct cm_ctx *c, const char *now)
{
	const char	*line, *next;
	char		 old[256], sha[72], **heldv = NULL, *k;
	size_t		 i, nh;

	c->lrefs = cm_lrefs(c->r->refs, &c->nl);
	for (line = now; line != NULL && *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			next++;
		if (sscanf(line, "%71s %255s", sha, old) == 2 &&
		    strncmp(old, "refs/airlock/held/", 18) == 0)
			heldv = strv_add(heldv, sha);
		if (sscanf(line, "%71s %255s", sha, old) == 2 &&
		    strncmp(old, "refs/airlock/", 13) == 0) {
			xasprintf(&k, "%s %s", sha, old);
			c->air = strv_add(c->air, k);
			free(k);
		}
	}
	nh = strv_len(heldv);
	if (nh > 1)
		qsort(heldv, nh, sizeof(*heldv), cm_sha_cmp);
	c->known = xcalloc(c->nl + 1, sizeof(c->lrefs[0].sha) + 2);
	for (i = 0, k = c->known; i < c->nl; i++) {
		const char *key = c->lrefs[i].sha;

		if (nh > 0 && bsearch(&key, heldv, nh, sizeof(*heldv),
		    cm_sha_cmp) != NULL)
			continue;
		k += sprintf(k, "^%s\n", c->lrefs[i].sha);
	}
	strv_free(heldv);
}

/*
 * The refs that moved or are new: judged, and held if they reach a
 * protected path.  now: for-each-ref's text, cut into lines here.
 */
static void
cm_hold_refs(struct cm_ctx *c, char *now)
{
	struct cm_moved	*mv = NULL;
	char		*upd = NULL, tgt[72], **batch, *line, *next, *k;
	char		*held, *take, sha[72];
	size_t		 nmv = 0, ulen = 0, ucap = 0, tl, tc, i, w;
	const char	*name, *o;

	/* The refs that moved or are new, and what their values are
	 * (peeled: a tag of a tree is a tree): one git each, for c->any
	 * number of refs. */
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
		mv[nmv].name = name;
		mv[nmv].old = o;
		snprintf(mv[nmv].sha, sizeof(mv[nmv].sha), "%s", sha);
		mv[nmv].type[0] = '\0';
		nmv++;
	}
	/* The types first: `git log` passes over a tree or a blob it is
	 * given without a word. */
	if (nmv > 0)
		cm_types(c->r->common, mv, nmv);
	/* All the new commits at once: in the usual run nothing is
	 * protected and this is all.  Else each ref on its own, or past
	 * CM_PERREF refs, every moved ref with what the batch found. */
	batch = NULL;
	for (i = 0, k = NULL, tl = tc = 0; i < nmv; i++)
		if (strcmp(mv[i].type, "commit") == 0) {
			cm_cat(&k, &tl, &tc, mv[i].sha);
			cm_cat(&k, &tl, &tc, "\n");
		}
	if (k != NULL) {
		cm_cat(&k, &tl, &tc, c->known);
		held = k;
		strv_free(c->j.bad);
		c->j.bad = NULL;
		if (cm_tip(&c->j, held, "commit", "") != 0)
			batch = c->j.bad;
		c->j.bad = NULL;
		free(held);
	}
	for (i = 0; i < nmv; i++) {
		strv_free(c->j.bad);
		c->j.bad = NULL;
		if (strcmp(mv[i].type, "commit") == 0) {
			if (batch == NULL)
				continue;
			if (nmv > CM_PERREF) {
				for (w = 0; batch[w] != NULL; w++)
					c->j.bad = strv_add(c->j.bad, batch[w]);
			} else if (!cm_tip(&c->j, mv[i].sha, "commit", c->known))
				continue;
		} else if (i >= CM_PERREF)
			c->j.bad = strv_add(c->j.bad, "(too many refs to judge)");
		else if (!cm_tip(&c->j, mv[i].sha, mv[i].type, c->known))
			continue;
		name = mv[i].name;
		o = cm_target(&c->j, c->air, name, mv[i].old, c->known, tgt,
		    sizeof(tgt));
		xasprintf(&held, "refs/airlock/held/%s/%s", c->sid, name);
		/* One transaction for all: the commit kept, the ref back
		 * (only if it still has the value judged). */
		xasprintf(&take, "update %s %s\n%s %s %s%s%s\n", held,
		    mv[i].sha, o != NULL ? "update" : "delete", name,
		    o != NULL ? o : mv[i].sha, o != NULL ? " " : "",
		    o != NULL ? mv[i].sha : "");
		cm_cat(&upd, &ulen, &ucap, take);
		free(take);
		/* What it went back to, for a later session whose launch
		 * saw the held commit (cm_target). */
		if (o != NULL) {
			xasprintf(&take, "update refs/airlock/was/%s/%s %s\n",
			    c->sid, name, o);
			cm_cat(&upd, &ulen, &ucap, take);
			free(take);
		}
		xasprintf(&take, "git -C %s update-ref %s %s", c->r->top, name,
		    held);
		for (w = 0; c->j.bad[w] != NULL; w++)
			c->report(c->arg, "ref", c->r->top, name, c->j.bad[w], held, take);
		c->any = 1;
		free(held);
		free(take);
	}
	strv_free(batch);
	if (upd != NULL)
		cm_update(c->r->common, upd);
	free(upd);
	free(mv);
	strv_free(c->j.bad);
	c->j.bad = NULL;

}

/* The commit the main work tree's HEAD named at launch, or NULL. */
static const char *
cm_main_head(struct cm_ctx *c)
{
	const char	*h;

	if (c->r->nwts == 0 || (h = c->r->wts[0].head) == NULL)
		return NULL;
	if (strncmp(h, "ref: ", 5) == 0)
		return cm_old(c->lrefs, c->nl, h + 5);
	return h;
}

/*
 * One work tree: a HEAD detached at a new commit, pseudo refs, a HEAD
 * left on a branch a hold removed, then the index.  lw: its state at
 * launch (all NULL for a work tree added during the run).
 */
static void
cm_wt_judge(struct cm_ctx *c, const struct cm_wt *lw)
{
	struct cm_wt	 cur;
	char		 p[PATH_MAX + 32], sha[72], tgt[72];
	const char	*o;
	size_t		 i;

	memset(&cur, 0, sizeof(cur));
	cur.gitdir = lw->gitdir;
	cur.top = lw->top;
	cm_wt_take(&cur);
	c->j.top = lw->top;
	if (cur.head != NULL && strncmp(cur.head, "ref: ", 5) != 0 &&
	    (lw->head == NULL || strcmp(cur.head, lw->head) != 0) &&
	    cm_tip_any(&c->j, cur.head, c->known)) {
		for (i = 0; c->j.bad[i] != NULL; i++)
			c->report(c->arg, "ref", lw->top, "HEAD", c->j.bad[i],
			    NULL, NULL);
		strv_free(c->j.bad);
		c->j.bad = NULL;
		c->any = 1;
		if (lw->head != NULL && strncmp(lw->head, "ref: ", 5)
		    == 0)
			cm_run(lw->gitdir, NULL, "symbolic-ref", "HEAD",
			    lw->head + 5, NULL, NULL);
		else if (lw->head != NULL)
			cm_run(lw->gitdir, NULL, "update-ref",
			    "--no-deref", "HEAD", lw->head, NULL);
		else if ((o = cm_main_head(c)) == NULL ||
		    cm_run(lw->gitdir, NULL, "update-ref", "--no-deref",
		    "HEAD", o, NULL) == -1) {
			/* A work tree added during the run: at the main
			 * one's launch commit, or no work tree at all. */
			snprintf(p, sizeof(p), "%s/HEAD", lw->gitdir);
			unlink(p);
		}
	}
	/* ORIG_HEAD and the like name commits the host's
	 * `git reset --hard ORIG_HEAD` checks out. */
	for (i = 0; cm_pseudo[i] != NULL; i++) {
		char	*t, *q;

		if (cur.pseudo[i] == NULL || (lw->pseudo[i] != NULL &&
		    strcmp(cur.pseudo[i], lw->pseudo[i]) == 0))
			continue;
		for (q = cur.pseudo[i]; q != NULL && *q != '\0'; ) {
			size_t	hx = strspn(q, "0123456789abcdef");

			snprintf(sha, sizeof(sha), "%.*s",
			    (int)(hx < 64 ? hx : 64), q);
			if (hx >= 40 && cm_tip_any(&c->j, sha, c->known))
				break;
			q = strchr(q, '\n');
			q = q != NULL ? q + 1 : NULL;
		}
		if (c->j.bad == NULL)
			continue;
		snprintf(p, sizeof(p), "%s/%s", lw->gitdir,
		    cm_pseudo[i]);
		if (lw->pseudo[i] != NULL) {
			int fd = open(p, O_WRONLY | O_TRUNC |
			    O_NOFOLLOW | O_CLOEXEC);

			if (fd != -1) {
				t = lw->pseudo[i];
				(void)!write(fd, t, strlen(t));
				close(fd);
			}
		} else
			unlink(p);
		c->report(c->arg, "pseudo", lw->top, cm_pseudo[i],
		    c->j.bad[0], NULL, NULL);
		strv_free(c->j.bad);
		c->j.bad = NULL;
		c->any = 1;
	}
	/* A HEAD on a branch a hold deleted: back to launch. */
	if (c->any && cur.head != NULL && lw->head != NULL &&
	    strcmp(cur.head, lw->head) != 0 &&
	    strncmp(cur.head, "ref: ", 5) == 0) {
		snprintf(p, sizeof(p), "%s", cur.head + 5);
		if (cm_run(lw->gitdir, NULL, "rev-parse", "-q",
		    "--verify", p, NULL) == -1) {
			if (strncmp(lw->head, "ref: ", 5) == 0) {
				cm_run(lw->gitdir, NULL,
				    "symbolic-ref", "HEAD",
				    lw->head + 5, NULL, NULL);
				/* The branch it was on, renamed or
				 * deleted: back at its launch value
				 * (only if it is still absent). */
				if ((o = cm_target(&c->j, c->air,
				    lw->head + 5, cm_old(c->lrefs, c->nl,
				    lw->head + 5), c->known, tgt,
				    sizeof(tgt))) != NULL)
					cm_run(c->r->common, NULL,
					    "update-ref", lw->head + 5,
					    o, CM_NULL_SHA, NULL);
			} else
				cm_run(lw->gitdir, NULL, "update-ref",
				    "--no-deref", "HEAD", lw->head,
				    NULL);
		}
	}
	free(cur.head);
	for (i = 0; i < 8; i++)
		free(cur.pseudo[i]);
	if (cur.index != NULL && !(lw->index != NULL &&
	    lw->indexlen == cur.indexlen &&
	    memcmp(lw->index, cur.index, cur.indexlen) == 0))
		c->any |= cm_index(&c->j, lw, lw->top, c->report, c->arg) > 0;
	free(cur.index);
}

/* One repository: its refs, then each work tree's HEAD and index. */
static void
cm_repo_judge(struct cm_repo *r, const struct namerule_set *rules,
    const char *sid, commits_report *report, void *arg)
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
	if ((now = cm_git(r->common, NULL, NULL, fer, NULL, 0, NULL)) == NULL)
		return;
	cm_known(&c, now);
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
	}
	for (w = 0; w < tmp.nwts; w++) {
		free(tmp.wts[w].gitdir);
		free(tmp.wts[w].top);
	}
	free(tmp.wts);
	strv_free(c.j.bad);
	strv_free(c.air);
	free(c.lrefs);
	free(c.known);
	free(now);
}

void
commits_judge(struct commits_snap *s, const struct namerule_set *rules,
    const char *sid, commits_report *report, void *arg)
{
	size_t	i, n;

	if (s == NULL)
		return;
	/* Repositories made during the run: all they hold is new. */
	n = s->nrepos;
	cm_find(s, s->tops, 0);
	for (i = 0; i < s->nrepos; i++) {
		if (i >= n)
			s->repos[i].refs = xstrdup("");
		cm_repo_judge(&s->repos[i], rules, sid, report, arg);
	}
	commits_free(s);
}
