/* SPDX-License-Identifier: ISC */
/*
 * The workspace's remote.origin.url, read by `airlock run` on the host
 * before anything runs in the workspace (R-G4), without a git process
 * where the repository's layout allows.
 */
#ifndef AIRLOCK_GITORIGIN_H
#define AIRLOCK_GITORIGIN_H

/*
 * The nearest .git at or above ws on the same file system (a directory,
 * or a worktree's "gitdir:" file whose commondir holds the config), its
 * config parsed here: 0 with *url (free(); NULL: none, or no
 * repository), or -1 where `git config --get remote.origin.url` must
 * answer instead: GIT_* variables that move the repository or add
 * config, an include, a config the user does not own, a per-worktree
 * config, anything unusual.  Only the repository's own config is read:
 * an origin in the user's global config is no workspace's origin.
 */
int	gitorigin_local(const char *ws, char **url);

#endif
