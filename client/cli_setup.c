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
#define SU_PROFILE	"/etc/apparmor.d/airlock-launcher"
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
 * Writes TEXT to PATH through a temporary file in the same directory and
 * a rename, so a reader (apparmor_parser at boot) never sees half of it.
 */
static int
su_write(const char *path, const char *text)
{
	char	tmp[PATH_MAX];
	size_t	len = strlen(text), off = 0;
	ssize_t	n;
	int	fd, saved;

	if (snprintf(tmp, sizeof(tmp), "%s.setup-XXXXXX", path) >=
	    (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkstemp(tmp)) == -1)
		return -1;
	while (off < len && (n = write(fd, text + off, len - off)) > 0)
		off += (size_t)n;
	if (off < len || fchmod(fd, 0644) == -1 || fsync(fd) == -1 ||
	    close(fd) == -1 || rename(tmp, path) == -1) {
		saved = errno != 0 ? errno : EIO;
		unlink(tmp);
		errno = saved;
		return -1;
	}
	return 0;
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

int
cli_setup_main(int argc, char **argv)
{
	struct sigaction sa;
	const char	*root = NULL, *launcher = NULL;
	char		 sysctl[PATH_MAX], profile[PATH_MAX], real[PATH_MAX];
	char		*have, *want, *found;
	size_t		 len;
	int		 dry = 0, i, wrote = 0, in_place;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--dry-run") == 0)
			dry = 1;
		else if ((strcmp(argv[i], "--root") == 0 ||
		    strcmp(argv[i], "--launcher") == 0) && i + 1 < argc) {
			if (argv[i][2] == 'r')
				root = argv[++i];
			else
				launcher = argv[++i];
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
	if (root != NULL && root[0] != '/') {
		fprintf(stderr, "airlock setup: --root %s: not an absolute "
		    "path\n", root);
		return 2;
	}
	if (root != NULL && strcmp(root, "/") == 0)
		root = NULL;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = su_onsig;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	snprintf(sysctl, sizeof(sysctl), "%s%s", root ? root : "", SU_SYSCTL);
	snprintf(profile, sizeof(profile), "%s%s", root ? root : "",
	    SU_PROFILE);

	/* Step 1: is a profile needed at all? */
	if ((have = su_slurp(sysctl, &len, 0)) == NULL && errno != ENOENT) {
		if (errno == EINTR && su_stop)
			return su_result("cancelled");
		printf("error: %s: %s\n", sysctl, strerror(errno));
		return su_result("error");
	}
	if (have != NULL)
		have[strcspn(have, "\n")] = '\0';
	if (have == NULL || strcmp(have, "1") != 0) {
		printf("nothing to do: %s is %s: AppArmor does not restrict "
		    "unprivileged user namespaces here, the launcher needs no "
		    "profile\n", sysctl, have == NULL ? "absent" : have);
		free(have);
		return su_result("ok");
	}
	free(have);
	printf("%s is 1: the launcher needs an AppArmor profile granting "
	    "userns\n", sysctl);

	/*
	 * Step 2: the profile for the installed launcher, by its real path
	 * (AppArmor attaches a profile to the path that is executed, links
	 * resolved).  A path AppArmor cannot quote is refused, not mangled.
	 */
	if (launcher == NULL) {
		found = airlock_sibling("airlock-launcher", AIRLOCK_LIBEXECDIR);
		if (realpath(found, real) == NULL) {
			printf("error: airlock-launcher %s: %s\n", found,
			    strerror(errno));
			free(found);
			return su_result("error");
		}
		free(found);
		launcher = real;
	}
	if (launcher[0] != '/' || strpbrk(launcher, "\"\n\\") != NULL) {
		printf("error: launcher path %s: not absolute, or holds a "
		    "quote, backslash or newline an AppArmor profile cannot "
		    "name\n", launcher);
		return su_result("error");
	}
	if ((want = su_profile(launcher)) == NULL) {
		printf("error: cannot make the profile: %s\n", strerror(errno));
		return su_result("error");
	}
	have = su_slurp(profile, &len, 1);
	if (have == NULL && errno != ENOENT) {
		printf("error: %s: %s\n", profile, strerror(errno));
		free(want);
		return su_result("error");
	}
	in_place = have != NULL && strcmp(have, want) == 0;
	if (in_place)
		printf("profile %s: up to date for %s\n", profile, launcher);
	else if (dry)
		printf("would write %s (%s) granting userns to %s\n", profile,
		    have == NULL ? "new" : "replacing a different one",
		    launcher);
	else if (su_stop) {
		free(have);
		free(want);
		return su_result("cancelled");
	} else if (su_write(profile, want) == -1) {
		printf("error: cannot write %s: %s\n", profile,
		    strerror(errno));
		free(have);
		free(want);
		return su_result("error");
	} else {
		printf("wrote %s (%s) granting userns to %s\n", profile,
		    have == NULL ? "new" : "replaced a different one",
		    launcher);
		wrote = 1;
	}
	free(have);
	free(want);

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
