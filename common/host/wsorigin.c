// SPDX-License-Identifier: ISC
/*
 * The repository a workspace may push to (R-G4) is the user's
 * choice, never the agent's.  The workspace's .git/config is writable
 * from inside the sandbox, so its remote.origin.url is read only once:
 * the first time the user runs airlock in that workspace, airlockd
 * records it in its own state directory (outside every sandbox), and
 * every later run uses the record, whatever the config says by then.  An
 * explicit choice (`airlock run --origin`, the app's originRepo) replaces
 * the record.  A later run whose config names another origin is reported
 * (a violation event, which `airlock run` prints, and a log line); pushes
 * still go only to the recorded repository or to linkedRepos.
 *
 * A record is keyed by the workspace's canonical path and the device and
 * inode of that directory: a new clone at the same path (another inode)
 * is a new workspace.  One file per workspace under
 * $XDG_STATE_HOME/airlock/origins (default ~/.local/state/airlock),
 * written whole with rename(2), mode 0600.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/host/wsorigin.h"
#include "common/log.h"
#include "common/xmalloc.h"

char *
airlock_state_dir(void)
{
	const char	*x = getenv("XDG_STATE_HOME"), *h = getenv("HOME");
	char		*d;

	if (x != NULL && x[0] == '/')
		xasprintf(&d, "%s/airlock", x);
	else if (h != NULL && h[0] == '/')
		xasprintf(&d, "%s/.local/state/airlock", h);
	else
		return NULL;
	return d;
}

/* mkdir -p, 0700 for the directories made here. */
static int
mkdirs(const char *path)
{
	char	buf[PATH_MAX], *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -1;
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) == -1 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0700) == -1 && errno != EEXIST ? -1 : 0;
}

/* FNV-1a, 64 bits: a file name for a path (the path is in the file). */
static uint64_t
fnv64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * The record's file: "airlock-origin 1\n<path>\n<dev> <ino>\n<origin or
 * empty>\n".  1 and *origin (NULL: recorded as none) if it is there for
 * this path, device and inode; 0 if not.
 */
static int
record_read(const char *file, const char *path, const struct stat *st,
    char **origin)
{
	char	 buf[PATH_MAX + 512], *l[4], *p;
	ssize_t	 n;
	int	 fd, i;
	unsigned long long dev, ino;

	*origin = NULL;
	if ((fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (i = 0, p = buf; i < 4; i++) {
		l[i] = p;
		if ((p = strchr(p, '\n')) == NULL)
			return 0;
		*p++ = '\0';
	}
	if (strcmp(l[0], "airlock-origin 1") != 0 || strcmp(l[1], path) != 0 ||
	    sscanf(l[2], "%llu %llu", &dev, &ino) != 2 ||
	    dev != (unsigned long long)st->st_dev ||
	    ino != (unsigned long long)st->st_ino)
		return 0;
	*origin = l[3][0] != '\0' ? xstrdup(l[3]) : NULL;
	return 1;
}

static int
record_write(const char *dir, const char *file, const char *path,
    const struct stat *st, const char *origin)
{
	char	*tmp, *txt;
	int	 fd, rc = -1;

	if (mkdirs(dir) == -1)
		return -1;
	xasprintf(&tmp, "%s.tmp.%d", file, (int)getpid());
	xasprintf(&txt, "airlock-origin 1\n%s\n%llu %llu\n%s\n", path,
	    (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
	    origin != NULL ? origin : "");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd != -1) {
		if (write(fd, txt, strlen(txt)) == (ssize_t)strlen(txt) &&
		    fsync(fd) == 0)
			rc = 0;
		close(fd);
		if (rc == 0 && rename(tmp, file) == -1)
			rc = -1;
		if (rc == -1)
			(void)unlink(tmp);
	}
	free(tmp);
	free(txt);
	return rc;
}

static int
same_repo(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	/* Code hosts compare owner and name without case (gwrepo.c). */
	return strcasecmp(a, b) == 0;
}

int
wsorigin_fix(const char *workspace, const char *chosen, const char *seen,
    char **origin, char **changed, char *err, size_t errlen)
{
	char		 path[PATH_MAX];
	char		*dir = NULL, *odir = NULL, *file = NULL, *rec = NULL;
	char		*state;
	struct stat	 st;
	int		 rc = -1;

	*origin = NULL;
	*changed = NULL;
	if (workspace == NULL || realpath(workspace, path) == NULL ||
	    stat(path, &st) == -1 || !S_ISDIR(st.st_mode)) {
		/* Nothing to key a record on: only a choice counts. */
		if (chosen != NULL) {
			*origin = xstrdup(chosen);
			return 0;
		}
		snprintf(err, errlen, "the workspace has no directory to "
		    "record its origin for");
		return -1;
	}
	if ((state = airlock_state_dir()) == NULL) {
		snprintf(err, errlen, "no state directory (HOME unset)");
		return -1;
	}
	dir = state;
	xasprintf(&odir, "%s/origins", dir);
	xasprintf(&file, "%s/%016llx", odir, (unsigned long long)fnv64(path));
	if (chosen != NULL) {
		/* The user's explicit choice: it becomes the record. */
		if (record_write(odir, file, path, &st, chosen) == -1)
			log_warn("workspace %s: cannot record origin %s in %s",
			    path, chosen, odir);
		*origin = xstrdup(chosen);
		rc = 0;
		goto out;
	}
	if (record_read(file, path, &st, &rec)) {
		*origin = rec;
		if (!same_repo(rec, seen))
			*changed = xstrdup(seen != NULL ? seen : "(none)");
		rc = 0;
		goto out;
	}
	/* The first run here: what the workspace says now is the user's. */
	if (record_write(odir, file, path, &st, seen) == -1) {
		snprintf(err, errlen, "%s: %s", odir, strerror(errno));
		goto out;
	}
	log_info("workspace %s: origin %s recorded", path,
	    seen != NULL ? seen : "(none)");
	*origin = seen != NULL ? xstrdup(seen) : NULL;
	rc = 0;
out:
	free(dir);
	free(odir);
	free(file);
	return rc;
}

/*
 * Where the workspace's origin is recorded, and what the record says
 * (NULL: none), for a message to the user; NULL when nothing can be
 * recorded for it.  free() both.
 */
char *
wsorigin_record(const char *workspace, char **recorded)
{
	char		 path[PATH_MAX], *state, *file;
	struct stat	 st;

	*recorded = NULL;
	if (workspace == NULL || realpath(workspace, path) == NULL ||
	    stat(path, &st) == -1 || (state = airlock_state_dir()) == NULL)
		return NULL;
	xasprintf(&file, "%s/origins/%016llx", state,
	    (unsigned long long)fnv64(path));
	free(state);
	(void)record_read(file, path, &st, recorded);
	return file;
}
