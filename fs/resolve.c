// SPDX-License-Identifier: ISC
/*
 * Path confinement for the file tools (SPEC R-C6): every path resolves
 * beneath one of the session's roots (its workdir first, then its shared
 * roots), with no ".." above a root, no absolute symlink and no magic
 * link, race-free: each step is relative to a directory we hold open.
 *
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) does it in one call
 * where it is allowed.  Inside a sandbox it is not: airlock's own seccomp
 * filter fails openat2 with ENOSYS, because its flags live in memory
 * where the filter cannot check them for write intent (sv_seccomp.c).
 * There the same walk is done one component at a time: openat(O_PATH |
 * O_NOFOLLOW) on the directory we hold, a symlink's text read with
 * readlinkat() and walked in turn, ".." taken from our own stack of
 * directories (never the kernel's "..", which a rename could move), so
 * nothing a racing process swaps in is ever followed by the kernel.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/openat2.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "fs/fs_int.h"

#define WALK_MAX_DEPTH	512
#define WALK_MAX_LINKS	40

static int	have_openat2 = 1;

void
fs_resolve_no_openat2(void)
{
	have_openat2 = 0;
}

/* untrusted: rel.  The directory rel names beneath root, following its
 * symlinks beneath root; missing directories are made with mkdirs.  An
 * O_PATH fd, or -errno (-EXDEV: it leaves the root). */
static int
walk_dir(int root, const char *rel, int mkdirs)
{
	int	 stack[WALK_MAX_DEPTH], fd, r = 0, links = 0;
	size_t	 depth = 0, n;
	char	*todo, *p, *e, comp[NAME_MAX + 1], *nt;
	char	 target[PATH_MAX];
	struct stat st;
	ssize_t	 tn;

	if ((stack[depth++] = fcntl(root, F_DUPFD_CLOEXEC, 0)) == -1)
		return -errno;
	p = todo = xstrdup(rel);
	for (;;) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = strchr(p, '/');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		if (n > NAME_MAX) {
			r = -ENAMETOOLONG;
			goto out;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			if (depth == 1) {
				r = -EXDEV;
				goto out;
			}
			close(stack[--depth]);
			continue;
		}
		fd = openat(stack[depth - 1], comp, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd == -1 && errno == ENOENT && mkdirs &&
		    (mkdirat(stack[depth - 1], comp, 0777) == 0 ||
		    errno == EEXIST))
			fd = openat(stack[depth - 1], comp, O_PATH |
			    O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 || fstat(fd, &st) == -1) {
			r = -errno;
			if (fd != -1)
				close(fd);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			tn = readlinkat(fd, "", target, sizeof(target) - 1);
			close(fd);
			if (tn <= 0 || ++links > WALK_MAX_LINKS) {
				r = tn <= 0 ? -EIO : -ELOOP;
				goto out;
			}
			target[tn] = '\0';
			if (target[0] == '/') {
				r = -EXDEV;
				goto out;
			}
			xasprintf(&nt, "%s/%s", target, p);
			free(todo);
			p = todo = nt;
			continue;
		}
		if (!S_ISDIR(st.st_mode) || depth == WALK_MAX_DEPTH) {
			close(fd);
			r = S_ISDIR(st.st_mode) ? -ENAMETOOLONG : -ENOTDIR;
			goto out;
		}
		stack[depth++] = fd;
	}
	r = stack[--depth];
out:
	while (depth > 0)
		close(stack[--depth]);
	free(todo);
	return r;
}

static int
open_dir(int root, const char *rel, int mkdirs)
{
	struct open_how	how;
	int		fd;

	if (have_openat2) {
		memset(&how, 0, sizeof(how));
		how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
		fd = (int)syscall(SYS_openat2, root, rel[0] ? rel : ".", &how,
		    sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno == ENOSYS)
			have_openat2 = 0;
		else if (!(errno == ENOENT && mkdirs))
			return errno == ELOOP ? -EXDEV : -errno;
	}
	return walk_dir(root, rel, mkdirs);
}

/* The root a path lies in and the rest of it, relative to that root. */
static int
root_of(struct fs_ctx *c, const char *path, const char **rest)
{
	size_t	i, n, best = 0;
	int	ri = -1;

	if (path[0] != '/') {
		*rest = path;
		return 0;
	}
	for (i = 0; i < c->nroots; i++) {
		const char *spell[2] = { c->roots[i], c->canon[i] };

		for (int k = 0; k < 2; k++) {
			n = strlen(spell[k]);
			while (n > 1 && spell[k][n - 1] == '/')
				n--;
			if (strncmp(path, spell[k], n) == 0 &&
			    (path[n] == '/' || path[n] == '\0') && n > best) {
				best = n;
				ri = (int)i;
			}
		}
	}
	if (ri >= 0)
		for (*rest = path + best; **rest == '/'; (*rest)++)
			;
	return ri;
}

int
fs_errno_refuse(struct fs_ctx *c, int e, const char *path)
{
	switch (e) {
	case EXDEV:
		return fs_refuse(c, "outside-workspace", path, "%s leads "
		    "outside the workspace (\"..\" above it, an absolute "
		    "symlink or a magic link)", path);
	case ENOENT:
	case ENOTDIR:
		return fs_refuse(c, "not-found", path, "%s: no such file or "
		    "directory", path);
	case ELOOP:
		return fs_refuse(c, "outside-workspace", path, "%s: too many "
		    "symlinks", path);
	case EACCES:
	case EPERM:
		return fs_refuse(c, "protected-name", path, "%s: refused by "
		    "the sandbox (%s)", path, strerror(e));
	case EROFS:
		return fs_refuse(c, "read-only-path", path, "%s is on a "
		    "read-only mount", path);
	default:
		return fs_refuse(c, "io-error", path, "%s: %s", path,
		    strerror(e));
	}
}

int
fs_resolve(struct fs_ctx *c, const char *path, int mkdirs, struct fs_res *r)
{
	const char	*rest;
	char		*cur, *slash, *dir, *base, target[PATH_MAX], *nt;
	int		 ri, links = 0, dfd;
	struct stat	 st;
	ssize_t		 tn;

	memset(r, 0, sizeof(*r));
	r->dfd = -1;
	if (path == NULL || path[0] == '\0')
		return fs_refuse(c, "invalid-request", "", "path: required");
	if (strlen(path) >= PATH_MAX)
		return fs_refuse(c, "invalid-request", path, "path too long");
	if ((ri = root_of(c, path, &rest)) < 0)
		return fs_refuse(c, "outside-workspace", path, "%s is outside "
		    "the workspace and its shared roots", path);
	r->root = ri;
	cur = xstrdup(rest);
	for (;;) {
		size_t n = strlen(cur);

		while (n > 1 && cur[n - 1] == '/')
			cur[--n] = '\0';
		slash = strrchr(cur, '/');
		dir = slash != NULL ? cur : (char *)"";
		base = slash != NULL ? slash + 1 : cur;
		if (slash != NULL)
			*slash = '\0';
		if (*base == '\0' || strcmp(base, ".") == 0 ||
		    strcmp(base, "..") == 0) {
			/* The path names a directory itself. */
			if (slash != NULL)
				*slash = '/';
			dfd = open_dir(c->rootfd[ri], slash == NULL &&
			    *base == '\0' ? "" : cur, 0);
			free(cur);
			if (dfd < 0)
				return fs_errno_refuse(c, -dfd, path);
			r->dfd = dfd;
			snprintf(r->name, sizeof(r->name), ".");
			return 0;
		}
		if (strlen(base) > NAME_MAX) {
			free(cur);
			return fs_errno_refuse(c, ENAMETOOLONG, path);
		}
		if ((dfd = open_dir(c->rootfd[ri], dir, mkdirs)) < 0) {
			free(cur);
			return fs_errno_refuse(c, -dfd, path);
		}
		if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode)) {
			tn = readlinkat(dfd, base, target, sizeof(target) - 1);
			close(dfd);
			if (tn <= 0 || ++links > WALK_MAX_LINKS) {
				free(cur);
				return fs_errno_refuse(c, tn <= 0 ? EIO :
				    ELOOP, path);
			}
			target[tn] = '\0';
			if (target[0] == '/') {
				free(cur);
				return fs_refuse(c, "outside-workspace", path,
				    "%s is a symlink to %s, outside the "
				    "workspace", path, target);
			}
			xasprintf(&nt, "%s%s%s", dir, *dir ? "/" : "", target);
			free(cur);
			cur = nt;
			continue;
		}
		r->exists = fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
		if (r->exists)
			r->st = st;
		r->dfd = dfd;
		snprintf(r->name, sizeof(r->name), "%s", base);
		free(cur);
		return 0;
	}
}

/* The canonical path of what r names, for the rules and the answer. */
int
fs_res_path(const struct fs_res *r, char *buf, size_t len)
{
	char	link[64];
	ssize_t	n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", r->dfd);
	if ((n = readlink(link, buf, len - 1)) <= 0 || buf[0] != '/')
		return -1;
	buf[n] = '\0';
	if (strcmp(r->name, ".") == 0)
		return 0;
	if ((size_t)n + 1 + strlen(r->name) + 1 > len)
		return -1;
	if (n > 1)
		buf[n++] = '/';
	strcpy(buf + n, r->name);
	return 0;
}

void
fs_res_close(struct fs_res *r)
{
	if (r->dfd != -1)
		close(r->dfd);
	r->dfd = -1;
}

/* For the unit test: the walk on its own (no openat2). */
int
fs_walk_dir(int root, const char *rel, int mkdirs)
{
	return walk_dir(root, rel, mkdirs);
}
