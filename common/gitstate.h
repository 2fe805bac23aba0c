/* SPDX-License-Identifier: ISC */
/*
 * Git state on disk (SPEC R-L3), for init's filename-rule handler
 * (launcher/notify.c): which directory a path lies in that git would
 * take for a repository, and the check of a directory that is about to
 * become one.  The names allowed inside are common/namerule.c's
 * (namerule_gitstate_rel); this file only looks at the file system.
 * libc only: it is linked into airlock-launcher.
 */
#ifndef AIRLOCK_GITSTATE_H
#define AIRLOCK_GITSTATE_H

#include <sys/types.h>
#include <sys/stat.h>

#include <stddef.h>

/*
 * 1 if path (relative to atfd, or absolute) is a directory git takes
 * for a repository by its contents: it holds a commondir, or both
 * objects and refs (of any type: git only asks access(X_OK)).
 */
int	gitstate_is(int atfd, const char *path);

/*
 * dir: a canonical absolute directory.  The length of its nearest
 * ancestor-or-self that is git state (by name or contents), looking no
 * higher than its first toplen bytes (0: up to "/"); 0 if none.
 */
size_t	gitstate_root(const char *dir, size_t toplen);

/* What an op does to the name gitstate_check() is asked about. */
enum gitstate_op {
	GS_WRITE,	/* create or open for write: a file, node, socket */
	GS_MKDIR,
	GS_SYMLINK,
	GS_LINK,	/* the new name of a hard link */
	GS_RENAME,	/* the new name of a rename */
	GS_SRC_LINK,	/* what a hard link links */
	GS_SRC_RENAME,	/* what a rename takes away */
};

/*
 * The whole decision for one name.  abs: canonical, the parent resolved
 * (no symlink in it), within the scope whose length is top (0: "/");
 * (fd, fn): the source of a link or rename, -1 if none.  Inside git
 * state only what porcelain writes; no symlink (but git init's probe);
 * git state itself does not move and only objects are linked out; a
 * directory moving in has its entries checked (one moving into modules/
 * or worktrees/ as a git directory's, with its hooks and config), one
 * renamed to .git or a name that makes its directory git state has the
 * whole directory checked (gitstate_verify).  0: allowed; 1: a config
 * replaced by rename, allowed only through the content check; -1:
 * refused (why).
 */
int	gitstate_check(const char *abs, size_t top, int op, int fd,
	    const char *fn, char *why, size_t whylen);

/* 1 if dir is not git state but becomes so once name exists in it. */
int	gitstate_becomes(const char *dir, const char *name);

/*
 * A directory (path, relative to atfd; not followed) is becoming git
 * state, or moving into it at prefix ("hooks/"; "" for the git
 * directory itself): every entry must be a
 * name porcelain writes, no symlink or device among them; git state
 * nested in it is already checked.  Each config and config.worktree
 * must pass the allowlist (namerule_gitconfig_check_at; a path in it
 * only inside the scope of the gitstate_check() call that led here) and
 * is installed again as a fresh
 * inode holding exactly the bytes checked, so that an fd still open on
 * the old one writes nothing git reads.  0, or -1 with the reason.
 */
int	gitstate_verify(int atfd, const char *path, const char *prefix,
	    char *why, size_t whylen);

/* A small regular file (name in dfd, not followed), whole and
 * NUL-terminated (*len bytes, *st its stat); NULL if not one. */
char	*gitstate_slurp(int dfd, const char *name, struct stat *st,
	    size_t *len);

/*
 * Replace name in dfd by a fresh file holding buf (mode) through the
 * temporary name tmp and renameat2(flags).  0 or -errno.
 */
int	gitstate_install(int dfd, const char *name, const char *buf,
	    size_t len, mode_t mode, const char *tmp, unsigned int flags);

/*
 * A rename of (odfd, oname) onto a config (ndfd, nname; abs its
 * canonical path, top the length of the writable tree it lies in, as
 * namerule_scope() says): read the new file once, refuse it if it sets
 * a key off the allowlist (namerule_gitconfig_check_at) which the
 * current file does not, and install exactly the bytes checked (a copy
 * through tmp, renamed into place with flags), so that a write through
 * an fd still open on the source cannot follow; then remove the source.
 * 0, -errno, 1: refused (why: "abs: key: reason"), or 2: installed,
 * and a remote's url or pushurl changed (why names it: a report, not a
 * refusal).
 */
int	gitstate_config_rename(int odfd, const char *oname, int ndfd,
	    const char *nname, unsigned int flags, const char *tmp,
	    const char *abs, int top, char *why, size_t whylen);

#endif
