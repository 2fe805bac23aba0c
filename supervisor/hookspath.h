/* SPDX-License-Identifier: ISC */
/*
 * The effective hooks directory (SPEC R-L3): what core.hooksPath names
 * for the repositories of a writable bind, so that the plan protects it
 * like .git/hooks (supervisor/sv_plan.c).
 */
#ifndef AIRLOCK_HOOKSPATH_H
#define AIRLOCK_HOOKSPATH_H

#include <stddef.h>

/*
 * The bounds of the walks of a writable bind (this one and the commit
 * judge's, supervisor/commits.c): directories looked at; repositories
 * git is asked about (past them, their config files are read without
 * git) or whose refs are kept at launch (past them, the end of the run
 * names those that changed as not judged).  A walk past the directory
 * bound refuses the launch.  A large real tree stays well within them
 * (docs/DECISIONS.md, "The repository walks past their bounds").
 */
#define HOOKSPATH_DIRS	100000
#define HOOKSPATH_REPOS	256

/*
 * For the repositories at and below top (a writable bind; a few
 * levels), core.hooksPath as git, run as the user with home as $HOME,
 * reads it in every scope: absolute paths (as written and resolved)
 * and, for a relative value, that value too (a name at any depth:
 * another repository of the tree with the same layout), each escaped as
 * a namerule glob, into *out (NULL if none; freed by the caller either
 * way).  Past the repositories git is asked about, each one's config
 * files and their includes are read without git, taking every value
 * any of them sets.  -1 and why in err (naming top) if the walk reached
 * the directory bound: repositories past it would not be looked at.
 */
int	hookspath_find(const char *top, const char *home, char ***out,
	    char *err, size_t errlen);

/*
 * Without git, for the repository at dir: every value core.hooksPath
 * has in the config files git would read for it (its git directory's
 * config and config.worktree, through a gitfile and a commondir; the
 * user's global and the system's) and in every file they include,
 * whatever an includeIf's condition, added to v as hookspath_find()
 * adds them, with the included files themselves.
 */
char	**hookspath_static(char **v, const char *dir, const char *home);
/* A gitfile's or commondir's text as git reads it, less its trailing
 * CRs and LFs only, into buf (len bytes); its length, or -1. */
int	hookspath_dirfile(const char *path, char *buf, size_t len);

/*
 * Whether dir holds a repository as git takes one: dir/.git a git
 * directory (HEAD, objects/ and refs/ or a commondir), or a file
 * "gitdir: PATH" naming one.  Anything else named .git (untrusted:
 * the sandbox makes them) is none.
 */
int	hookspath_is_repo(const char *dir);
/* Whether dir is itself a git directory (a bare repository, a .git bound
 * alone), as git's is_git_directory() takes it. */
int	hookspath_is_gitdir(const char *dir);

/* Whether a git directory's own config may set core.hooksPath (names
 * the key or includes a file). */
int	hookspath_mentioned(const char *gitdir);

/* A literal path as a namerule glob: its metacharacters escaped (a new
 * string). */
char	*hookspath_escape(const char *);

#endif
