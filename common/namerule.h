/* SPDX-License-Identifier: ISC */
/*
 * Filename rules at creation time (SPEC R-L3, R-L4): the pure part.  The
 * launcher's seccomp-notify handler (launcher/notify.c) asks, for every
 * write-intent path, whether the rules airlockd sent in the plan forbid
 * it; this module answers from strings alone (no I/O), so unit tests and
 * the fuzzer exercise exactly what the sandbox runs.  libc only: it is
 * linked into airlock-launcher.
 *
 * Names are compared after folding (namerule_fold): case, Unicode
 * compatibility forms (fullwidth, mathematical and circled letters,
 * ligatures, look-alike dots and spaces) and invisible characters
 * (zero-width, bidi controls, soft hyphen, variation selectors, combining
 * marks) are folded away, and trailing dots and spaces are ignored, so a
 * look-alike of ".env" is refused like ".env" itself.
 *
 * It also holds the .git/config content check: git replaces the file by
 * renaming config.lock, and that rename is refused when the new contents
 * set a key that is not on the allowlist of what git's porcelain writes.
 */
#ifndef AIRLOCK_NAMERULE_H
#define AIRLOCK_NAMERULE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Rule kinds (MSG_PLAN_WRITE_RULE).  Patterns are fnmatch() globs per
 * path component; "**" in a path pattern stands for any number of
 * components.  "except" is a glob on the final component that exempts a
 * name from that one rule (the hooks rule exempts "*.sample").
 */
enum namerule_kind {
	NR_NAME = 1,	/* the final component, in any directory */
	NR_PATH,	/* the trailing components, at any depth */
	NR_TREE,	/* the node and everything beneath it, at any depth */
	NR_ABS,		/* an absolute glob: the node and everything beneath */
	NR_GITCONFIG,	/* like NR_PATH, but a rename onto it is checked */
	NR_SCOPE,	/* an absolute directory the rules apply beneath */
	NR_HOME,	/* like NR_ABS, but yields to NR_CARVE (the home's
			   allowlist: what the host runs or trusts there) */
	NR_CARVE,	/* an absolute directory exempt from NR_HOME; its
			   ancestors may be made as directories (not by a
			   rename, link or symlink: NR_F_PREFIX) */
	NR_GITSTATE,	/* git state by allowlist (pattern ".git"): below */
	NR_GITSCOPE,	/* an absolute directory where only the git-state
			   rules apply (a runner's state: no NR_SCOPE) */
	/* Not rules of the set (namerule_add refuses them): airlock-guard
	 * takes them (guard/notify.c). */
	NR_UNIXSOCK,	/* an allowed host unix socket, bound at that
			   absolute path: a connect to it passes */
	NR_NOUNIXBIND,	/* pattern "/": bind(2) of a unix socket refused */
	NR_KIND_MAX
};

enum namerule_verdict {
	NR_ALLOW = 0,
	NR_DENY,
	NR_CHECK_CONFIG,	/* only a content-checked replace is allowed */
	NR_ALLOW_TREE,		/* namerule_gitstate_rel: anything beneath */
};

/* namerule_check() flags */
#define NR_F_PREFIX	(1U << 0)	/* also deny an ancestor of a rule:
					   the op may bring a whole tree */
#define NR_F_ANYWHERE	(1U << 1)	/* ignore the scopes: a symlink's
					   target, which the host may write */

struct namerule_set;

struct namerule_set *namerule_new(void);
void	namerule_free(struct namerule_set *);
/* -1 (EINVAL) for an unknown kind or an empty or malformed pattern. */
int	namerule_add(struct namerule_set *, uint32_t kind,
	    const char *pattern, const char *except);
size_t	namerule_count(const struct namerule_set *);

/*
 * path: absolute, the canonical parent directory joined with the final
 * component as given (no "." or ".." inside).  A final "." or ".." is
 * always allowed: it names an existing directory, never a new name.
 */
enum namerule_verdict namerule_check(const struct namerule_set *,
	    const char *path, unsigned int flags);

/*
 * Fold one path component into out (NUL-terminated; the result is never
 * longer than the input).  Returns the folded length.
 */
size_t	namerule_fold(const char *in, size_t len, char *out);

/*
 * untrusted: path, a path argument of a sandboxed call, for init's R-L4
 * handler.  The caller's own links (/proc/self, /proc/thread-self,
 * /dev/fd, /dev/std*) become /proc/<pid>/..., since init resolving them
 * would reach its own; then dir gets the directory to open (a relative
 * path goes beneath base, e.g. "/proc/<pid>/cwd") and name the final
 * component ("." for "/"; one trailing '/' kept: the kernel's "must be a
 * directory").  0, or -ENOENT for "", -ENAMETOOLONG.
 */
int	namerule_split(int pid, const char *base, const char *path,
	    char *dir, size_t dirlen, char *name, size_t namelen);

/*
 * After init opened that directory: abs holds its canonical path (plen
 * bytes, from readlink); append the final component (without its
 * trailing '/') and say whether the parent is in /proc (*proc: magic
 * links there).  -EACCES for init's own /proc/1, which holds the
 * channel and the listeners; -ENAMETOOLONG if it does not fit.
 */
int	namerule_join(char *abs, size_t size, size_t plen, const char *name,
	    int *proc);

/*
 * Git state (R-L3).  A directory is git state when git would take it
 * for a repository: its name folds to ".git", or it holds a commondir
 * (a worktree's git directory), or objects and refs (a common or bare
 * one); common/gitstate.c looks.  Inside it, only the names git's
 * porcelain writes may be made.
 *
 * namerule_gitstate_on: whether the set has the NR_GITSTATE rule.
 * namerule_scope: the length of the scope (NR_SCOPE or NR_GITSCOPE)
 * path lies beneath (0 for no scope rule: everywhere), -1 outside every
 * scope.
 * namerule_gitstate_name: 1 if a name folds to ".git".
 * namerule_gitstate_mark: 1 for the names that make their directory
 * git state (objects, refs, commondir; any case).
 * namerule_gitstate_rel: rel, a path beneath a git directory ("hooks/x",
 * no leading '/'): NR_ALLOW if porcelain writes it, NR_ALLOW_TREE if it
 * is or lies in a tree porcelain fills freely (objects, refs, logs, ...),
 * NR_CHECK_CONFIG for config and config.worktree, else NR_DENY.  Exact
 * bytes: a look-alike is simply not on the list.
 * namerule_lexical: dir (absolute) joined with path, "." and ".."
 * removed as strings (a symlink's target as its text says); 0, or
 * -ENAMETOOLONG if it does not fit.
 */
int	namerule_gitstate_on(const struct namerule_set *);
int	namerule_scope(const struct namerule_set *, const char *path);
int	namerule_gitstate_name(const char *name);
int	namerule_gitstate_mark(const char *name);
enum namerule_verdict namerule_gitstate_rel(const char *rel);
int	namerule_lexical(const char *dir, const char *path, char *out,
	    size_t len);

/*
 * untrusted: both buffers.  Git config by allowlist: 0 if every entry
 * of the new git config text is one git's porcelain writes, in the shape
 * it writes it (namerule.c, gc_allow[]), or one the current file (old,
 * NULL if none) already sets to the same value; -1 if not, or if the
 * text does not parse (git would refuse it too), with the key
 * ("section.<sub>.key", the subsection not shown) and the reason in why.
 * A path-valued key (core.worktree, submodule.<name>.gitdir) is allowed
 * only when inside(value, wtree, arg) says it lies in what the sandbox
 * may write; wtree is 1 for a work tree (core.worktree), which must
 * also lie outside git state; namerule_gitconfig_check() has no inside:
 * no new path at all.
 */
int	namerule_gitconfig_check(const char *buf, size_t len,
	    const char *old, size_t oldlen, char *why, size_t whylen);
int	namerule_gitconfig_check_at(const char *buf, size_t len,
	    const char *old, size_t oldlen,
	    int (*inside)(const char *, int, void *), void *arg, char *why,
	    size_t whylen);

/*
 * untrusted: both buffers.  1 if the new config text sets a
 * remote.<name>.url or .pushurl that the current one (old, NULL if none)
 * does not set to the same value, with the key in why; else 0.  Not a
 * refusal: where pushes go is fixed outside the sandbox, and
 * the change is reported.
 */
int	namerule_gitconfig_remote_changed(const char *buf, size_t len,
	    const char *old, size_t oldlen, char *why, size_t whylen);

/*
 * untrusted: buf, a repository's config file.  The last value of
 * sec.sub.key (sec and key lower-case; sub as written, NULL for none),
 * as `git config --get` prints it: 1 and *val (free()), 0 if it is not
 * set (or set without "="), -1 if the text does not parse or includes
 * other files, whose entries this does not read: ask git instead.
 */
int	namerule_gitconfig_get(const char *buf, size_t len, const char *sec,
	    const char *sub, const char *key, char **val);

/*
 * .gitmodules: namerule_gitmodules_name says whether a name
 * folds to ".gitmodules"; namerule_gitmodules_check (untrusted: buf, the
 * new text) 0 if it holds only submodule sections with path, url of a
 * scheme that runs no program, branch, shallow, ignore,
 * fetchRecurseSubmodules and update of checkout, rebase, merge or none;
 * -1 with the first other entry (or the parse error) in why.
 */
int	namerule_gitmodules_name(const char *name);
int	namerule_gitmodules_check(const char *buf, size_t len, char *why,
	    size_t whylen);

#endif
