// SPDX-License-Identifier: ISC
/*
 * The workspace's origin (R-G4) as `airlock run` finds it before a run,
 * read from the repository's config without starting git: git's own
 * start-up was a quarter of a cold run's time on a small machine.  Where
 * the layout is not the plain one, the caller asks git (see gitorigin.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/gitorigin.h"
#include "common/namerule.h"
#include "common/xmalloc.h"

/* A small file whole, NUL-terminated (free()); NULL if not ours or not
 * a regular file of at most max bytes. */
static char *
slurp_own(const char *path, size_t max, size_t *lenp)
{
	struct stat	 st;
	char		*buf = NULL;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == getuid() && (size_t)st.st_size <= max) {
		buf = xmalloc((size_t)st.st_size + 1);
		if ((n = read(fd, buf, (size_t)st.st_size)) < 0)
			n = 0;
		buf[n] = '\0';
		*lenp = (size_t)n;
	}
	close(fd);
	return buf;
}

/*
 * Without a git process, where the layout is the plain one:
 * the nearest .git at or above ws on the same file system (a directory,
 * or a worktree's "gitdir:" file whose commondir holds the config),
 * that config parsed here.  0 with *url (NULL: none), or -1 where git
 * must answer itself: GIT_* variables that move the repository or add
 * config, an include, a config not ours, a per-worktree config, any
 * other surprise.  Only the repository's own config is read: an origin
 * in the user's global config is no workspace's origin.
 */
int
gitorigin_local(const char *ws, char **url)
{
	static const char *const env[] = { "GIT_DIR", "GIT_WORK_TREE",
	    "GIT_COMMON_DIR", "GIT_CONFIG", "GIT_CONFIG_COUNT",
	    "GIT_CONFIG_PARAMETERS", "GIT_CEILING_DIRECTORIES",
	    "GIT_DISCOVERY_ACROSS_FILESYSTEM", NULL };
	char		 dir[PATH_MAX], gd[PATH_MAX * 2], p[PATH_MAX * 3];
	char		*txt, *nl, *e;
	struct stat	 st, top;
	size_t		 i, len;
	int		 r;

	*url = NULL;
	for (i = 0; env[i] != NULL; i++)
		if (getenv(env[i]) != NULL)
			return -1;
	if (snprintf(dir, sizeof(dir), "%s", ws) >= (int)sizeof(dir) ||
	    stat(dir, &top) == -1)
		return -1;
	for (;;) {
		snprintf(gd, sizeof(gd), "%s/.git", strcmp(dir, "/") ? dir : "");
		if (lstat(gd, &st) == 0)
			break;
		if (errno != ENOENT || strcmp(dir, "/") == 0)
			return errno == ENOENT ? 0 : -1;
		*strrchr(dir, '/') = '\0';
		if (dir[0] == '\0') {
			dir[0] = '/';
			dir[1] = '\0';
		}
		/* git stops at a file system boundary too */
		if (stat(dir, &st) == -1 || st.st_dev != top.st_dev)
			return 0;
	}
	if (S_ISREG(st.st_mode)) {
		/* A linked worktree or a submodule: "gitdir: <dir>". */
		if ((txt = slurp_own(gd, 4096, &len)) == NULL ||
		    strncmp(txt, "gitdir: ", 8) != 0) {
			free(txt);
			return -1;
		}
		if ((nl = strchr(txt, '\n')) != NULL)
			*nl = '\0';
		snprintf(gd, sizeof(gd), "%s%s%s", txt[8] == '/' ? "" : dir,
		    txt[8] == '/' ? "" : "/", txt + 8);
		free(txt);
	} else if (!S_ISDIR(st.st_mode))
		return -1;
	/* A per-worktree config (extensions.worktreeConfig): ask git. */
	snprintf(p, sizeof(p), "%s/config.worktree", gd);
	if (access(p, F_OK) == 0)
		return -1;
	/* The config is shared with the main worktree's (commondir). */
	snprintf(p, sizeof(p), "%s/commondir", gd);
	if ((txt = slurp_own(p, 4096, &len)) != NULL) {
		if ((nl = strchr(txt, '\n')) != NULL)
			*nl = '\0';
		snprintf(p, sizeof(p), "%s%s%s/config", txt[0] == '/' ? "" : gd,
		    txt[0] == '/' ? "" : "/", txt);
		free(txt);
	} else
		snprintf(p, sizeof(p), "%s/config", gd);
	if ((txt = slurp_own(p, 1 << 20, &len)) == NULL)
		return -1;
	r = namerule_gitconfig_get(txt, len, "remote", "origin", "url", &e);
	free(txt);
	if (r == -1)
		return -1;
	*url = r == 1 && e[0] != '\0' ? e : NULL;
	if (*url == NULL)
		free(e);
	return 0;
}
