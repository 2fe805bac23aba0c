// SPDX-License-Identifier: ISC
/*
 * airlock setup: the host provisioning that needs root, re-runnable from
 * any state a previous run left.  Today that is one thing: where AppArmor
 * restricts unprivileged user namespaces
 * (kernel.apparmor_restrict_unprivileged_userns = 1), the launcher needs
 * a profile granting `userns`, written to /etc/apparmor.d and loaded.
 * Each step first looks at what is there and does nothing when it is
 * already right, so a second run is a no-op.  The last line is
 * "setup: ok|cancelled|partial|error"; the exit status is 0 only for ok.
 *
 * --root DIR reads the sysctl and writes the profile under DIR (an image
 * being built, a packager's staging tree); the running kernel is then
 * left alone, as the profile is the image's, loaded when it boots.
 */
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli.h"
#include "common/host/paths.h"

#ifndef AIRLOCK_LIBEXECDIR
#define AIRLOCK_LIBEXECDIR "/usr/local/libexec/airlock"
#endif

#define SU_SYSCTL \
	"/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
#define SU_PROFILE_DIR	"/etc/apparmor.d"
#define SU_PROFILE_NAME	"airlock-launcher"
#define SU_PROFILE	SU_PROFILE_DIR "/" SU_PROFILE_NAME
#define SU_MAXFILE	65536

extern char **environ;

/* contrib/apparmor/airlock-launcher.in, with @LAUNCHER@ to fill in. */
static const char su_template[] =
#include "apparmor_profile.h"
    ;

static volatile sig_atomic_t su_stop;

static void
su_onsig(int sig)
{
	(void)sig;
	su_stop = 1;
}

static int
su_result(const char *word)
{
	printf("setup: %s\n", word);
	return strcmp(word, "ok") == 0 ? 0 : 1;
}

/*
 * The file's contents, NUL-terminated, or NULL with errno set (ENOENT
 * when there is none).  *len gets its length.  With REG, anything but a
 * regular file (a FIFO someone left there, a device) reads as empty,
 * never blocks, and so differs from what is wanted and is replaced.
 */
static char *
su_slurp(const char *path, size_t *len, int reg)
{
	struct stat st;
	char	*buf;
	ssize_t	 n;
	size_t	 off = 0;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC |
	    (reg ? O_NONBLOCK : 0))) == -1)
		return NULL;
	if (reg && (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))) {
		close(fd);
		*len = 0;
		return calloc(1, 1);
	}
	if ((buf = malloc(SU_MAXFILE + 1)) == NULL) {
		close(fd);
		return NULL;
	}
	while (off < SU_MAXFILE &&
	    (n = read(fd, buf + off, SU_MAXFILE - off)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			n = errno;
			close(fd);
			free(buf);
			errno = (int)n;
			return NULL;
		}
		off += (size_t)n;
	}
	close(fd);
	buf[off] = '\0';
	*len = off;
	return buf;
}

/* The profile for LAUNCHER: the template with its path filled in. */
static char *
su_profile(const char *launcher)
{
	const char	*at;
	char		*out;
	size_t		 n;

	at = strstr(su_template, "@LAUNCHER@");
	n = sizeof(su_template) + strlen(launcher);
	if (at == NULL || (out = malloc(n)) == NULL)
		return NULL;
	snprintf(out, n, "%.*s%s%s", (int)(at - su_template), su_template,
	    launcher, at + strlen("@LAUNCHER@"));
	return out;
}

/*
 * Opens DIR (absolute) beneath ROOT (NULL: /) one component at a time,
 * never following a symbolic link: a link planted in the target's path
 * (an image's etc/apparmor.d pointing elsewhere) must not redirect where
 * root writes.  ROOT itself is the user's word and is followed.
 */
static int
su_opendir(const char *root, const char *dir)
{
	char	 buf[PATH_MAX], *c, *next;
	int	 fd, nfd;

	if ((fd = open(root != NULL ? root : "/", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		return -1;
	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf)) {
		close(fd);
		errno = ENAMETOOLONG;
		return -1;
	}
	for (c = buf; c != NULL; c = next) {
		while (*c == '/')
			c++;
		if ((next = strchr(c, '/')) != NULL)
			*next++ = '\0';
		if (*c == '\0')
			continue;
		nfd = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		close(fd);
		if (nfd == -1)
			return -1;
		fd = nfd;
	}
	return fd;
}

/*
 * Writes TEXT to NAME in the directory DFD through a temporary file there
 * and a rename, so a reader (apparmor_parser at boot) never sees half of
 * it.
 */
static int
su_write(int dfd, const char *name, const char *text)
{
	char	tmp[NAME_MAX + 1];
	size_t	len = strlen(text), off = 0;
	ssize_t	n;
	unsigned int rnd;
	int	fd, saved, tries;

	for (tries = 0; ; tries++) {
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd) ||
		    snprintf(tmp, sizeof(tmp), ".%s.setup-%08x", name,
		    rnd) >= (int)sizeof(tmp)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600)) != -1)
			break;
		if (errno != EEXIST || tries >= 100)
			return -1;
	}
	while (off < len && (n = write(fd, text + off, len - off)) > 0)
		off += (size_t)n;
	if (off < len || fchmod(fd, 0644) == -1 || fsync(fd) == -1 ||
	    close(fd) == -1 || renameat(dfd, tmp, dfd, name) == -1) {
		saved = errno != 0 ? errno : EIO;
		unlinkat(dfd, tmp, 0);
		errno = saved;
		return -1;
	}
	return 0;
}

/*
 * The launcher a profile grants userns to must be root's alone: the file
 * and every directory above it (beneath ROOT when given, the image's own
 * tree) owned by root and writable by no group or other -- else whoever
 * can replace it gets unconfined user namespaces.  A root-owned sticky
 * directory (/tmp) is allowed: others cannot rename root's entries in
 * it.  No component may be a symbolic link (AppArmor matches the
 * resolved path).  0, or -1 with the failing path said.
 */
static int
su_check_launcher(const char *root, const char *launcher)
{
	struct stat	 st;
	char		 buf[PATH_MAX], shown[PATH_MAX], *c, *next;
	int		 fd, nfd;

	snprintf(shown, sizeof(shown), "%s", root != NULL ? root : "/");
	if (snprintf(buf, sizeof(buf), "%s", launcher) >=
	    (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		goto err;
	}
	if ((fd = open(shown, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		goto err;
	for (c = buf; ; ) {
		if (fstat(fd, &st) == -1) {
			close(fd);
			goto err;
		}
		if (S_ISLNK(st.st_mode)) {
			printf("error: launcher %s: %s is a symbolic link: "
			    "name the launcher by its real path\n", launcher,
			    shown);
			close(fd);
			return -1;
		}
		if (st.st_uid != 0 || ((st.st_mode & 022) != 0 &&
		    !(S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX)))) {
			printf("error: launcher %s: %s is not root's alone "
			    "(owner uid %u, mode %03o): whoever can change it "
			    "could replace the launcher\n", launcher, shown,
			    (unsigned)st.st_uid,
			    (unsigned)(st.st_mode & 07777));
			close(fd);
			return -1;
		}
		while (*c == '/')
			c++;
		if (*c == '\0')
			break;
		if ((next = strchr(c, '/')) != NULL)
			*next++ = '\0';
		snprintf(shown, sizeof(shown), "%s%.*s",
		    root != NULL ? root : "", (int)(c - buf + strlen(c)),
		    launcher);
		nfd = openat(fd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (nfd == -1)
			goto err;
		fd = nfd;
		c = next != NULL ? next : c + strlen(c);
	}
	close(fd);
	if (!S_ISREG(st.st_mode)) {
		printf("error: launcher %s: not a regular file\n", launcher);
		return -1;
	}
	return 0;
err:
	printf("error: launcher %s: %s: %s\n", launcher, shown,
	    strerror(errno));
	return -1;
}

/* apparmor_parser -r PATH: 0 when it loaded, -1 otherwise (said). */
static int
su_load(const char *path)
{
	static const char *const where[] = {
		"/usr/sbin/apparmor_parser", "/sbin/apparmor_parser"
	};
	char	*argv[4];
	pid_t	 pid;
	size_t	 i;
	int	 st;

	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (access(where[i], X_OK) == 0)
			break;
	if (i == sizeof(where) / sizeof(where[0])) {
		printf("error: apparmor_parser not found in /usr/sbin or "
		    "/sbin: install apparmor, then run airlock setup again\n");
		return -1;
	}
	argv[0] = (char *)where[i];
	argv[1] = (char *)"-r";
	argv[2] = (char *)path;
	argv[3] = NULL;
	if ((errno = posix_spawn(&pid, where[i], NULL, NULL, argv,
	    environ)) != 0) {
		printf("error: %s: %s\n", where[i], strerror(errno));
		return -1;
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("error: %s -r %s failed (status %d)\n", where[i], path,
		    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		return -1;
	}
	return 0;
}

/* The options; 0, or 2 (a usage error, said). */
static int
su_args(int argc, char **argv, const char **root, const char **launcher,
    int *dry)
{
	int	i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--dry-run") == 0)
			*dry = 1;
		else if ((strcmp(argv[i], "--root") == 0 ||
		    strcmp(argv[i], "--launcher") == 0) && i + 1 < argc) {
			if (argv[i][2] == 'r')
				*root = argv[++i];
			else
				*launcher = argv[++i];
		} else if (strcmp(argv[i], "--root") == 0 ||
		    strcmp(argv[i], "--launcher") == 0) {
			fprintf(stderr, "airlock setup: %s needs a value\n",
			    argv[i]);
			return 2;
		} else {
			fprintf(stderr, "airlock setup: unknown option %s\n"
			    "usage: airlock setup [--dry-run] [--root DIR] "
			    "[--launcher PATH]\n", argv[i]);
			return 2;
		}
	}
	if (*root != NULL && (*root)[0] != '/') {
		fprintf(stderr, "airlock setup: --root %s: not an absolute "
		    "path\n", *root);
		return 2;
	}
	if (*root != NULL && strcmp(*root, "/") == 0)
		*root = NULL;
	return 0;
}

/* Step 1: is a profile needed at all?  NULL when it is, else the result
 * to end with. */
static const char *
su_needed(const char *sysctl)
{
	char	*have;
	size_t	 len;

	if ((have = su_slurp(sysctl, &len, 0)) == NULL && errno != ENOENT) {
		if (errno == EINTR && su_stop)
			return "cancelled";
		printf("error: %s: %s\n", sysctl, strerror(errno));
		return "error";
	}
	if (have != NULL)
		have[strcspn(have, "\n")] = '\0';
	if (have == NULL || strcmp(have, "1") != 0) {
		printf("nothing to do: %s is %s: AppArmor does not restrict "
		    "unprivileged user namespaces here, the launcher needs no "
		    "profile\n", sysctl, have == NULL ? "absent" : have);
		free(have);
		return "ok";
	}
	free(have);
	printf("%s is 1: the launcher needs an AppArmor profile granting "
	    "userns\n", sysctl);
	return NULL;
}

/*
 * Step 2a: the installed launcher, by its real path (AppArmor attaches a
 * profile to the path that is executed, links resolved).  A path
 * AppArmor cannot quote is refused, not mangled.  0, or -1 (said).
 */
static int
su_pick_launcher(const char *root, const char **launcher, char *real)
{
	char	*found, *pat;

	if (*launcher == NULL) {
		found = airlock_sibling("airlock-launcher", AIRLOCK_LIBEXECDIR);
		if (realpath(found, real) == NULL) {
			printf("error: airlock-launcher %s: %s\n", found,
			    strerror(errno));
			free(found);
			return -1;
		}
		free(found);
		*launcher = real;
	}
	if ((*launcher)[0] != '/' || strpbrk(*launcher, "\"\n\\") != NULL) {
		printf("error: launcher path %s: not absolute, or holds a "
		    "quote, backslash or newline an AppArmor profile cannot "
		    "name\n", *launcher);
		return -1;
	}
	/* AppArmor reads these as a pattern: "/home/x/" and a star would grant
	 * userns to every binary beside the launcher. */
	if ((pat = strpbrk(*launcher, "*?[]{}^@")) != NULL) {
		printf("error: launcher path %s: holds '%c', an AppArmor "
		    "pattern character: the profile would grant userns to "
		    "more than the launcher\n", *launcher, *pat);
		return -1;
	}
	return su_check_launcher(root, *launcher);
}

/* Step 2b: the profile in place (or what would be written).  NULL, or
 * the result to end with; *wrote and *in_place say what happened. */
static const char *
su_place(const char *root, const char *profile, const char *launcher,
    int dry, int *wrote, int *in_place)
{
	const char	*res = NULL;
	char		*have, *want;
	size_t		 len;
	int		 dfd;

	if ((dfd = su_opendir(root, SU_PROFILE_DIR)) == -1) {
		printf("error: %s%s: %s%s\n", root != NULL ? root : "",
		    SU_PROFILE_DIR, strerror(errno), errno == ELOOP ||
		    errno == ENOTDIR ? " (a symbolic link in the path is "
		    "never followed)" : "");
		return "error";
	}
	if ((want = su_profile(launcher)) == NULL) {
		printf("error: cannot make the profile: %s\n", strerror(errno));
		close(dfd);
		return "error";
	}
	have = su_slurp(profile, &len, 1);
	if (have == NULL && errno != ENOENT) {
		printf("error: %s: %s\n", profile, strerror(errno));
		res = "error";
	} else if ((*in_place = have != NULL && strcmp(have, want) == 0))
		printf("profile %s: up to date for %s\n", profile, launcher);
	else if (dry)
		printf("would write %s (%s) granting userns to %s\n", profile,
		    have == NULL ? "new" : "replacing a different one",
		    launcher);
	else if (su_stop)
		res = "cancelled";
	else if (su_write(dfd, SU_PROFILE_NAME, want) == -1) {
		printf("error: cannot write %s: %s\n", profile,
		    strerror(errno));
		res = "error";
	} else {
		printf("wrote %s (%s) granting userns to %s\n", profile,
		    have == NULL ? "new" : "replaced a different one",
		    launcher);
		*wrote = 1;
	}
	free(have);
	free(want);
	close(dfd);
	return res;
}

int
cli_setup_main(int argc, char **argv)
{
	struct sigaction sa;
	const char	*root = NULL, *launcher = NULL, *res;
	char		 sysctl[PATH_MAX], profile[PATH_MAX], real[PATH_MAX];
	int		 dry = 0, wrote = 0, in_place = 0, rc;

	if ((rc = su_args(argc, argv, &root, &launcher, &dry)) != 0)
		return rc;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = su_onsig;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	snprintf(sysctl, sizeof(sysctl), "%s%s", root ? root : "", SU_SYSCTL);
	snprintf(profile, sizeof(profile), "%s%s", root ? root : "",
	    SU_PROFILE);

	if ((res = su_needed(sysctl)) != NULL)
		return su_result(res);
	if (su_pick_launcher(root, &launcher, real) == -1)
		return su_result("error");
	if ((res = su_place(root, profile, launcher, dry, &wrote,
	    &in_place)) != NULL)
		return su_result(res);

	/*
	 * Step 3: load it.  Reloading an unchanged profile is harmless, and
	 * is what repairs a run that wrote the file but was stopped before
	 * the load.
	 */
	if (root != NULL) {
		printf("not loaded: --root %s is not the running system (the "
		    "profile loads when that system boots)\n", root);
	} else if (dry) {
		printf("would run apparmor_parser -r %s\n", profile);
	} else if (su_stop) {
		return su_result(wrote ? "partial" : "cancelled");
	} else if (su_load(profile) == -1) {
		return su_result(wrote || in_place ? "partial" : "error");
	} else
		printf("loaded %s\n", profile);
	if (dry)
		printf("dry run: nothing was changed\n");
	return su_result("ok");
}
