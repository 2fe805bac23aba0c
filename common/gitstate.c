// SPDX-License-Identifier: ISC
/*
 * Git state on disk (R-L3): see gitstate.h.  Every path here comes from
 * init's handler, after it resolved the caller's argument to a canonical
 * directory; init runs confined exactly as the caller, so a look here
 * sees what the caller could.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <unistd.h>

#include "common/gitstate.h"
#include "common/namerule.h"
#include "common/xmalloc.h"

#define GS_CONFIG_MAX	(1 << 20)
#define GS_ENTRIES_MAX	100000	/* a directory's entries, checked */

static int
gs_has(int atfd, const char *path, const char *name)
{
	struct stat	st;
	char		p[PATH_MAX + 16];

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", path, name) >= sizeof(p))
		return 1;	/* fail closed */
	return fstatat(atfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int
gitstate_is(int atfd, const char *path)
{
	return gs_has(atfd, path, "commondir") ||
	    (gs_has(atfd, path, "objects") && gs_has(atfd, path, "refs"));
}

int
gitstate_becomes(const char *dir, const char *name)
{
	if (!namerule_gitstate_mark(name) || gitstate_is(AT_FDCWD, dir))
		return 0;
	if (strcasecmp(name, "commondir") == 0)
		return 1;
	return gs_has(AT_FDCWD, dir, strcasecmp(name, "refs") == 0 ?
	    "objects" : "refs");
}

size_t
gitstate_root(const char *dir, size_t toplen)
{
	char	 p[PATH_MAX];
	char	*slash;
	size_t	 len = strlen(dir);

	if (len >= sizeof(p))
		return len;	/* fail closed: the whole path is the root */
	memcpy(p, dir, len + 1);
	while (len > 1) {
		slash = strrchr(p, '/');
		if (namerule_gitstate_name(slash + 1) ||
		    gitstate_is(AT_FDCWD, p))
			return len;
		if (len <= toplen)
			break;
		len = slash == p ? 1 : (size_t)(slash - p);
		p[len] = '\0';
	}
	return 0;
}

char *
gitstate_slurp(int dfd, const char *name, struct stat *st, size_t *len)
{
	char	*buf;
	ssize_t	 k;
	int	 fd;

	*len = 0;
	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return NULL;
	buf = NULL;
	if (fstat(fd, st) == 0 && S_ISREG(st->st_mode) &&
	    st->st_size <= GS_CONFIG_MAX) {
		buf = xmalloc((size_t)st->st_size + 1);
		while (*len <= (size_t)st->st_size && (k = read(fd, buf + *len,
		    (size_t)st->st_size + 1 - *len)) > 0)
			*len += (size_t)k;
		buf[*len < (size_t)st->st_size ? *len : (size_t)st->st_size] =
		    '\0';
	}
	close(fd);
	return buf;
}

int
gitstate_install(int dfd, const char *name, const char *buf, size_t len,
    mode_t mode, const char *tmp, unsigned int flags)
{
	int	fd, r;

	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1)
		return -errno;
	r = write(fd, buf, len) == (ssize_t)len &&
	    fchmod(fd, mode & 07777) == 0 ? 0 : -EIO;
	close(fd);
	if (r == 0 && renameat2(dfd, tmp, dfd, name, flags) == -1)
		r = -errno;
	if (r != 0)
		(void)unlinkat(dfd, tmp, 0);
	return r;
}

/*
 * Where a path-valued config key may point (core.worktree,
 * submodule.<name>.gitdir): inside the writable tree the config lies
 * in, as its text says and as the file system resolves it, so that the
 * host's `git reset --hard` cannot check files out over ~/.bashrc.
 */
struct gs_where {
	char	dir[PATH_MAX];		/* the config's directory */
	char	scope[PATH_MAX];	/* the writable tree; "" unknown */
};

/* The scope of the call gitstate_check() is deciding (for gs_config). */
static char	gs_scope[PATH_MAX];

static int
gs_under(const char *path, const char *dir)
{
	size_t	n = strlen(dir);

	return n > 1 && strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

/* untrusted: val, from a config the sandbox wrote. */
static int
gs_inside(const char *val, int wtree, void *arg)
{
	const struct gs_where *w = arg;
	struct stat	 st;
	char		 p[PATH_MAX], real[PATH_MAX], *slash;
	size_t		 top = strlen(w->scope);

	if (w->scope[0] == '\0' || w->dir[0] != '/' ||
	    namerule_lexical(w->dir, val, p, sizeof(p)) != 0 ||
	    !gs_under(p, w->scope))
		return 0;
	/* A work tree inside git state (the git directory itself, its
	 * hooks/): the host's `git reset --hard` would check the index out
	 * there, a hook or a config among it. */
	if (wtree && gitstate_root(p, top) != 0)
		return 0;
	/* The nearest existing ancestor, resolved: no symlink out.  One
	 * that exists but does not resolve (a link to what the host has
	 * and the sandbox does not see) is refused. */
	while (lstat(p, &st) == -1) {
		if (errno != ENOENT || (slash = strrchr(p, '/')) == NULL ||
		    slash == p)
			return 0;
		*slash = '\0';
	}
	if (realpath(p, real) == NULL || !gs_under(real, w->scope) ||
	    (wtree && gitstate_root(real, top) != 0))
		return 0;
	/* Not above the repository: a worktree that is a proper ancestor
	 * of the git directory's parent would make the host's checkout
	 * write the agent's files into a tree that holds other things
	 * (a home bound whole: its .bashrc). */
	snprintf(p, sizeof(p), "%s", w->dir);
	if ((slash = strrchr(p, '/')) != NULL && slash != p)
		*slash = '\0';
	return !(gs_under(p, real) && strcmp(p, real) != 0);
}

/* The path of a directory fd, into w->dir. */
static void
gs_fddir(int dfd, struct gs_where *w)
{
	char	self[64];
	ssize_t	n;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", dfd);
	if ((n = readlink(self, w->dir, sizeof(w->dir) - 1)) <= 0)
		n = 0;
	w->dir[n] = '\0';
}

/* A config in a directory becoming git state: check, then reinstall. */
static int
gs_config(int dfd, const char *name, const char *rel, char *why,
    size_t whylen)
{
	struct gs_where		 where;
	static unsigned int	 n;
	struct stat		 st;
	char			*buf, tmp[64], w[96] = "not a small file";
	size_t			 len;
	int			 r = -1;

	gs_fddir(dfd, &where);
	snprintf(where.scope, sizeof(where.scope), "%s", gs_scope);
	if ((buf = gitstate_slurp(dfd, name, &st, &len)) != NULL &&
	    len == (size_t)st.st_size && namerule_gitconfig_check_at(buf, len,
	    NULL, 0, gs_inside, &where, w, sizeof(w)) == 0) {
		snprintf(tmp, sizeof(tmp), ".airlock-config.%ld.%u",
		    (long)getpid(), n++);
		r = gitstate_install(dfd, name, buf, len, st.st_mode, tmp, 0);
		if (r != 0)
			snprintf(w, sizeof(w), "cannot install: %s",
			    strerror(-r));
	}
	free(buf);
	if (r != 0)
		snprintf(why, whylen, "%s: %s", rel, w);
	return r != 0 ? -1 : 0;
}

int
gitstate_verify(int atfd, const char *path, const char *prefix, char *why,
    size_t whylen)
{
	struct dirent	*e;
	struct stat	 st;
	DIR		*d;
	char		 rel[PATH_MAX];
	size_t		 n = 0;
	int		 fd, r = 0;
	enum namerule_verdict v;

	if ((fd = openat(atfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 ||
	    (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		snprintf(why, whylen, "%s: cannot read", prefix);
		return -1;
	}
	while (r == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(rel, sizeof(rel), "%s%s", prefix, e->d_name);
		r = -1;
		if (++n > GS_ENTRIES_MAX || fstatat(fd, e->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1) {
			snprintf(why, whylen, "%s: too many or unreadable",
			    rel);
			break;
		}
		/* Git state of its own: checked when it became so. */
		if (S_ISDIR(st.st_mode) && (namerule_gitstate_name(e->d_name) ||
		    gitstate_is(fd, e->d_name))) {
			r = 0;
			continue;
		}
		v = namerule_gitstate_rel(rel);
		if (v == NR_DENY || (!S_ISDIR(st.st_mode) &&
		    !S_ISREG(st.st_mode)))
			snprintf(why, whylen, "%s: not what git writes", rel);
		else if (v == NR_CHECK_CONFIG)
			r = S_ISREG(st.st_mode) ? gs_config(fd, e->d_name, rel,
			    why, whylen) : -1;
		else if (v == NR_ALLOW && S_ISDIR(st.st_mode)) {
			/* info/, hooks/: their entries are listed too. */
			snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel),
			    "/");
			r = gitstate_verify(fd, e->d_name, rel, why, whylen);
		} else
			r = 0;
	}
	closedir(d);
	return r;
}

int
gitstate_check(const char *abs, size_t top, int op, int fd, const char *fn,
    char *why, size_t whylen)
{
	enum namerule_verdict v = NR_ALLOW;
	struct stat	 st;
	char		 dir[PATH_MAX], pre[PATH_MAX];
	const char	*name = strrchr(abs, '/') + 1, *rel;
	size_t		 rl, pl = (size_t)(name - abs - 1);
	int		 isdir, r = 0;

	if (pl >= sizeof(dir))
		return 0;
	snprintf(gs_scope, sizeof(gs_scope), "%.*s", (int)top, abs);
	snprintf(dir, sizeof(dir), "%.*s", (int)(pl ? pl : 1), abs);
	rl = gitstate_root(dir, top);
	rel = rl > 0 ? abs + rl + 1 : NULL;
	isdir = fd != -1 && fstatat(fd, fn, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
	if (rel != NULL)
		v = namerule_gitstate_rel(rel);
	/* A commondir is a linked worktree's (worktrees/<name>/, no
	 * objects of its own), written once by git worktree add; in a
	 * repository's own git directory, or rewritten, it would send
	 * the host's git to another repository's config. */
	if (rel != NULL && v != NR_DENY && op != GS_SRC_LINK &&
	    op != GS_SRC_RENAME && (strcmp(rel, "commondir") == 0 ||
	    strcmp(rel, "commondir.lock") == 0)) {
		snprintf(pre, sizeof(pre), "%.*s", (int)rl, abs);
		if (namerule_gitstate_name(strrchr(pre, '/') + 1) ||
		    gs_has(AT_FDCWD, pre, "objects") ||
		    lstat(abs, &st) == 0)
			v = NR_DENY;
	}
	snprintf(why, whylen, "%s: not what git writes", rel ? rel : abs);
	if (op == GS_SRC_LINK || op == GS_SRC_RENAME) {
		/* Git state does not move; only objects are linked out. */
		if ((isdir && (namerule_gitstate_name(name) ||
		    gitstate_is(fd, fn))) || (rel != NULL && (v == NR_DENY ||
		    (op == GS_SRC_LINK && strncmp(rel, "objects/", 8) != 0))))
			return -1;
		return 0;
	}
	if (rel != NULL && (v == NR_DENY || (op == GS_SYMLINK &&
	    fnmatch("t??????", rel, 0) != 0) ||
	    (v == NR_CHECK_CONFIG && op != GS_RENAME)))
		return -1;
	if (rel != NULL && op == GS_RENAME && isdir && v == NR_ALLOW) {
		snprintf(pre, sizeof(pre), "%s/", rel);
		r = gitstate_verify(fd, fn, pre, why, whylen);
	} else if (rel != NULL && op == GS_RENAME && isdir &&
	    (strncmp(rel, "modules/", 8) == 0 ||
	    strncmp(rel, "worktrees/", 10) == 0)) {
		/* A module's or worktree's git directory, or a directory on
		 * the way to one, prepared elsewhere: what it holds is
		 * checked as a git directory's (hooks, config). */
		r = gitstate_verify(fd, fn, "", why, whylen);
	}
	/* Becoming git state: a marker name, or a directory named .git. */
	if (r == 0 && rl != pl && gitstate_becomes(dir, name))
		r = gitstate_verify(AT_FDCWD, dir, "", why, whylen);
	if (r == 0 && op == GS_RENAME && isdir && namerule_gitstate_name(name))
		r = gitstate_verify(fd, fn, "", why, whylen);
	if (r != 0)
		return -1;
	return rel != NULL && v == NR_CHECK_CONFIG ? 1 : 0;
}

int
gitstate_config_rename(int odfd, const char *oname, int ndfd,
    const char *nname, unsigned int flags, const char *tmp, const char *abs,
    int top, char *why, size_t whylen)
{
	struct gs_where	 where;
	struct stat	 st, os;
	char		*buf, *old, w[160];
	size_t		 len, olen;
	int		 r, same, gm;

	snprintf(why, whylen, "%s: not a small regular file", abs);
	if ((buf = gitstate_slurp(odfd, oname, &st, &len)) == NULL &&
	    errno == ENOENT)
		return -ENOENT;
	if (buf == NULL || len > (size_t)st.st_size ||
	    (flags & RENAME_EXCHANGE)) {
		free(buf);
		return 1;
	}
	old = gitstate_slurp(ndfd, nname, &os, &olen);
	/* Renaming a file onto itself (or a hard link of it) does nothing. */
	same = old != NULL && os.st_ino == st.st_ino && os.st_dev == st.st_dev;
	snprintf(where.dir, sizeof(where.dir), "%.*s",
	    (int)(strrchr(abs, '/') - abs), abs);
	snprintf(where.scope, sizeof(where.scope), "%.*s",
	    top > 0 ? top : 0, abs);
	/* .gitmodules has its own allowlist; nothing there is reported. */
	gm = namerule_gitmodules_name(nname);
	r = same ? 0 : gm ? namerule_gitmodules_check(buf, len, w, sizeof(w)) :
	    namerule_gitconfig_check_at(buf, len, old, olen, gs_inside, &where,
	    w, sizeof(w));
	if (r == -1) {
		snprintf(why, whylen, "%s: %s", abs, w);
		r = 1;
	} else if (!same && (r = gitstate_install(ndfd, nname, buf, len,
	    st.st_mode, tmp, flags)) == 0) {
		(void)unlinkat(odfd, oname, 0);
		/* Reported, not refused: pushes go where airlockd
		 * recorded. */
		if (!gm && namerule_gitconfig_remote_changed(buf, len, old,
		    olen, why, whylen) == 1)
			r = 2;
	}
	free(old);
	free(buf);
	return r;
}
