// SPDX-License-Identifier: ISC
/*
 * airlock doctor: each thing a sandbox needs from this host and this
 * install, checked for real where it can be (a user namespace is made, a
 * sandbox is run), with ok, warn or fail, and the command a person can
 * run to see the same by hand.  Exit 0 unless a check failed.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <linux/landlock.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_explain.h"
#include "common/host/paths.h"
#include "common/host/settings.h"
#include "common/vis.h"
#include "common/xmalloc.h"

#ifndef AIRLOCK_LIBEXECDIR
#define AIRLOCK_LIBEXECDIR "/usr/local/libexec/airlock"
#endif

extern char **environ;

enum dr_level { DR_OK, DR_WARN, DR_FAIL };

static int	dr_fails, dr_warns;

/* One check's line, and the command that shows the same by hand. */
static void
dr_say(enum dr_level l, const char *what, const char *verify,
    const char *fmt, ...)
{
	static const char *const word[] = { "ok", "warn", "fail" };
	char	msg[1024];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (l == DR_FAIL)
		dr_fails++;
	else if (l == DR_WARN)
		dr_warns++;
	printf("%-5s %-18s %s\n", word[l], what, msg);
	printf("      by hand: %s\n", verify);
}

/*
 * Writes PREFIX and then ARG quoted for a POSIX shell into BUF: the "by
 * hand" commands are meant to be pasted, and a path may hold a space, a
 * quote or a `$`.  A word of plain characters is left as it is so the
 * common command reads as a person would type it; anything else goes
 * inside single quotes, each quote in it written as '\''.  BUF holds
 * PREFIX plus four times PATH_MAX, what the worst case needs.
 */
static void
dr_cmd(char *buf, size_t n, const char *prefix, const char *arg)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_/.,:+=@%-";
	size_t	 o;
	int	 quote;

	o = strlen(prefix);
	if (o >= n)
		o = n - 1;
	memcpy(buf, prefix, o);
	quote = arg[0] == '\0' || arg[strspn(arg, plain)] != '\0';
#define DR_PUT(c) do { if (o + 1 < n) buf[o++] = (c); } while (0)
	if (quote)
		DR_PUT('\'');
	for (; *arg != '\0'; arg++) {
		if (*arg == '\'' && quote) {
			DR_PUT('\'');
			DR_PUT('\\');
			DR_PUT('\'');
		}
		DR_PUT(*arg);
	}
	if (quote)
		DR_PUT('\'');
#undef DR_PUT
	buf[o] = '\0';
}

static int
read_int(const char *path, long *v)
{
	char	buf[32];
	FILE	*f;
	int	 ok;

	if ((f = fopen(path, "re")) == NULL)
		return -1;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	*v = strtol(buf, NULL, 10);
	return 0;
}

/* A user namespace made for real, in a child (this process stays). */
static void
check_userns(void)
{
	pid_t	pid;
	int	st;
	long	v;

	if ((pid = fork()) == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : errno);
	if (pid == -1 || waitpid(pid, &st, 0) == -1 || !WIFEXITED(st)) {
		dr_say(DR_FAIL, "user namespaces", "unshare --user true",
		    "cannot test: fork");
		return;
	}
	if (WEXITSTATUS(st) == 0) {
		if (read_int("/proc/sys/kernel/"
		    "apparmor_restrict_unprivileged_userns", &v) == 0 && v)
			dr_say(DR_WARN, "user namespaces",
			    "sysctl kernel.apparmor_restrict_"
			    "unprivileged_userns",
			    "made, but AppArmor restricts what they may do "
			    "(the airlock AppArmor profile allows it)");
		else
			dr_say(DR_OK, "user namespaces", "unshare --user true",
			    "an unprivileged one was made");
		return;
	}
	dr_say(DR_FAIL, "user namespaces", "sysctl user.max_user_namespaces "
	    "kernel.unprivileged_userns_clone",
	    "cannot make one (%s): set kernel.unprivileged_userns_clone=1 "
	    "and a non-zero user.max_user_namespaces",
	    strerror(WEXITSTATUS(st)));
}

static void
check_landlock(void)
{
	int	abi;

	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi >= 1)
		dr_say(abi >= 3 ? DR_OK : DR_WARN, "Landlock",
		    "airlock status | grep 'Landlock ABI'",
		    "ABI %d%s", abi, abi >= 3 ? "" : " (before 3: a file's "
		    "size can be changed where only reading is allowed)");
	else
		dr_say(DR_FAIL, "Landlock",
		    "grep -w landlock /sys/kernel/security/lsm",
		    "not available (%s): Linux 5.13+ with \"landlock\" in "
		    "the lsm= kernel parameter", strerror(errno));
}

static void
check_seccomp(void)
{
	unsigned	act = SECCOMP_RET_USER_NOTIF;

	if (prctl(PR_GET_SECCOMP) == -1 && errno == EINVAL) {
		dr_say(DR_FAIL, "seccomp", "grep Seccomp /proc/self/status",
		    "not in this kernel (CONFIG_SECCOMP_FILTER)");
		return;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) == -1)
		dr_say(DR_WARN, "seccomp", "grep Seccomp /proc/self/status",
		    "filters work, user notification does not (%s)",
		    strerror(errno));
	else
		dr_say(DR_OK, "seccomp", "grep Seccomp /proc/self/status",
		    "filters and user notification");
}

/*
 * A binary airlock runs: present, executable, no set-id bit, and
 * writable by nobody but its owner, root or this user (anyone else
 * could replace what runs outside every sandbox).
 */
static void
check_binary(const char *name, const char *path)
{
	struct stat	st;
	char		verify[4 * PATH_MAX + 16];

	dr_cmd(verify, sizeof(verify), "ls -l ", path);
	if (stat(path, &st) == -1) {
		dr_say(DR_FAIL, name, verify, "%s: %s", path,
		    strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode) || access(path, X_OK) == -1)
		dr_say(DR_FAIL, name, verify, "%s: not an executable file",
		    path);
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		dr_say(DR_FAIL, name, verify, "%s: mode %04o, writable by "
		    "others: chmod go-w", path, st.st_mode & 07777);
	else if (st.st_uid != 0 && st.st_uid != getuid())
		dr_say(DR_FAIL, name, verify, "%s: owned by uid %u, neither "
		    "root nor you", path, (unsigned)st.st_uid);
	else if (st.st_mode & (S_ISUID | S_ISGID))
		dr_say(DR_WARN, name, verify, "%s: mode %04o: airlock needs "
		    "no set-id bit", path, st.st_mode & 07777);
	else
		dr_say(DR_OK, name, verify, "%s (%04o)", path,
		    st.st_mode & 07777);
}

static void
check_binaries(void)
{
	static const char *const helpers[] = {
		"airlock-launcher", "airlock-proxyd", "airlock-gatewayd",
		"airlock-clone", "airlock-fs", NULL,
	};
	char	*p;
	size_t	 i;

	/* airlockd as the client starts it, the helpers as airlockd,
	 * beside it, finds them. */
	p = airlock_sibling("airlockd", AIRLOCK_LIBEXECDIR);
	check_binary("airlockd", p);
	free(p);
	for (i = 0; helpers[i] != NULL; i++) {
		p = airlock_sibling(helpers[i], AIRLOCK_LIBEXECDIR);
		check_binary(helpers[i], p);
		free(p);
	}
}

static void
check_socket(const char *sock)
{
	struct sockaddr_un sun;
	struct stat	   st;
	char		  *def = NULL, *dir, *slash, verify[4 * PATH_MAX + 64];
	const char	  *path = sock;
	int		   fd;

	if (path == NULL && (path = getenv("AIRLOCK_SOCKET")) == NULL)
		path = def = airlock_default_socket();
	dr_cmd(verify, sizeof(verify), "airlock status --socket ", path);
	if (lstat(path, &st) == -1) {
		dr_cmd(verify, sizeof(verify), "test ! -e ", path);
		dr_say(DR_OK, "socket", verify, "no shared airlockd at %s: "
		    "each command starts a private one", path);
		goto out;
	}
	if (!S_ISSOCK(st.st_mode) || st.st_uid != getuid()) {
		dr_say(DR_FAIL, "socket", verify, "%s is not a socket of "
		    "yours", path);
		goto out;
	}
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir)
		*slash = '\0';
	if (sock == NULL && getenv("AIRLOCK_SOCKET") == NULL &&
	    stat(dir, &st) == 0 && (st.st_uid != getuid() ||
	    (st.st_mode & 077) != 0)) {
		dr_say(DR_FAIL, "socket", verify, "its directory %s is "
		    "mode %04o, uid %u: it must be yours and 0700", dir,
		    st.st_mode & 07777, (unsigned)st.st_uid);
		free(dir);
		goto out;
	}
	free(dir);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path) ||
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		dr_say(DR_FAIL, "socket", verify, "%s: cannot connect",
		    path);
		goto out;
	}
	memcpy(sun.sun_path, path, strlen(path));
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		dr_say(DR_OK, "socket", verify, "airlockd listens on %s",
		    path);
	else
		dr_say(DR_WARN, "socket", verify, "%s: %s (a stale socket: "
		    "the next airlockd replaces it)", path, strerror(errno));
	close(fd);
out:
	free(def);
}

static void
check_settings(const char *cli_file, struct settings *s, int *loaded)
{
	char	err[1024];

	settings_defaults(s);
	if (settings_load(s, NULL, cli_file, NULL, err, sizeof(err)) == -1) {
		dr_say(DR_FAIL, "settings", "airlock settings --explain",
		    "%s", err);
		settings_free(s);
		settings_defaults(s);
		*loaded = 0;
		return;
	}
	*loaded = 1;
	dr_say(DR_OK, "settings", "airlock settings --explain",
	    "they load%s%s", s->managed_file != NULL ? "; managed: " : "",
	    s->managed_file != NULL ? s->managed_file : "");
}

/* The credentials file: looked at, never read (as matrix does). */
static void
check_credentials(const struct settings *s)
{
	struct stat	st;
	char		verify[4 * PATH_MAX + 32];
	const char	*p = s->credentials_file;

	if (p == NULL) {
		dr_say(DR_OK, "credentials file", "airlock settings --explain",
		    "none configured");
		return;
	}
	dr_cmd(verify, sizeof(verify), "stat -c '%a %U' ", p);
	if (lstat(p, &st) == -1) {
		dr_cmd(verify, sizeof(verify), "test ! -e ", p);
		dr_say(DR_OK, "credentials file", verify, "%s: none (no "
		    "secret is kept)", p);
	}
	else if (!S_ISREG(st.st_mode))
		dr_say(DR_FAIL, "credentials file", verify, "%s: not a "
		    "regular file", p);
	else if (st.st_uid != getuid())
		dr_say(DR_FAIL, "credentials file", verify, "%s: owned by "
		    "uid %u, not you", p, (unsigned)st.st_uid);
	else if (st.st_mode & 077)
		dr_say(DR_FAIL, "credentials file", verify, "%s: mode %04o, "
		    "readable by others: chmod 600", p, st.st_mode & 07777);
	else
		dr_say(DR_OK, "credentials file", verify, "%s (%04o)", p,
		    st.st_mode & 07777);
}

/*
 * R-P2: what each daemon applied to itself, as airlockd's host.status
 * shows it (the shared airlockd, else a private one).  A daemon that is
 * not running has nothing to show; one that runs must have reported,
 * and airlockd must hold its filter and no_new_privs.
 */
static void
check_selfrestrict(const char *sock)
{
	struct rpc	 rpc;
	struct json	*res;
	const struct json *d, *v;
	const char	*r, *bad = NULL, *why = NULL;
	char		 err[512], verify[PATH_MAX + 64], *extra[] = {
	    "--quiet", NULL };
	size_t		 i;
	int		 code, warn = 0;

	snprintf(verify, sizeof(verify), "airlock status%s%s",
	    sock != NULL ? " --socket " : "", sock != NULL ? sock : "");
	if (rpc_open(&rpc, sock, 1, extra, err, sizeof(err)) == -1 ||
	    (res = rpc_call(&rpc, "host.status", NULL, NULL, NULL, &code,
	    err, sizeof(err))) == NULL) {
		dr_say(DR_FAIL, "self-restriction", verify, "cannot ask "
		    "airlockd: %s", err);
		if (rpc.fd != -1)
			rpc_close(&rpc);
		return;
	}
	d = json_get(res, "daemons");
	if (d == NULL || d->type != JSON_OBJECT ||
	    json_get(d, "airlockd") == NULL) {
		bad = "airlockd";
		why = "does not report its own restriction (an older one?)";
	}
	for (i = 0; bad == NULL && i < d->n; i++) {
		v = json_get(d->items[i], "running");
		r = json_get_str(d->items[i], "selfRestriction");
		if (v == NULL || v->type != JSON_BOOL || !v->boolean)
			continue;
		if (r == NULL) {
			bad = d->keys[i];
			why = "shows no restriction";
		} else if (strncmp(r, "not reported", 12) == 0) {
			bad = d->keys[i];
			why = r;
			warn = 1;
		} else if (strcmp(d->keys[i], "airlockd") == 0 &&
		    (strncmp(r, "NOT ", 4) == 0 ||
		    strstr(r, "seccomp:") == NULL ||
		    strstr(r, "no_new_privs") == NULL)) {
			bad = d->keys[i];
			why = r;
		}
	}
	if (bad != NULL)
		dr_say(warn ? DR_WARN : DR_FAIL, "self-restriction", verify,
		    "%s: %s", vis(bad), vis(why));
	else
		dr_say(DR_OK, "self-restriction", verify, "every running "
		    "daemon reported what it applied (airlockd: seccomp, "
		    "no_new_privs, no capabilities)");
	json_free(res);
	rpc_close(&rpc);
}

/* A real sandbox: `airlock run -- true` in an empty workspace. */
static void
check_probe(const char *settings)
{
	posix_spawn_file_actions_t fa;
	char		 tmpl[] = "/tmp/airlock-doctor.XXXXXX";
	char		 self[PATH_MAX];
	char		 out[512], *argv[10];
	int		 p[2], st, n = 0, i = 0;
	ssize_t		 r;
	pid_t		 pid;

	if ((r = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0 ||
	    mkdtemp(tmpl) == NULL || pipe2(p, O_CLOEXEC) == -1) {
		dr_say(DR_FAIL, "probe run", "airlock run -- true",
		    "cannot start it: %s", strerror(errno));
		return;
	}
	self[r] = '\0';
	argv[i++] = "airlock";
	argv[i++] = "run";
	argv[i++] = "--workspace";
	argv[i++] = tmpl;
	if (settings != NULL) {
		argv[i++] = "--settings";
		argv[i++] = (char *)settings;
	}
	argv[i++] = "--";
	argv[i++] = "true";
	argv[i] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	if (posix_spawn(&pid, self, &fa, NULL, argv, environ) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	while (pid != -1 && (r = read(p[0], out + n, sizeof(out) - 1 -
	    n)) > 0)
		n += (int)r;
	out[n] = '\0';
	close(p[0]);
	(void)rmdir(tmpl);
	out[strcspn(out, "\n")] = '\0';
	if (pid == -1 || waitpid(pid, &st, 0) == -1)
		dr_say(DR_FAIL, "probe run", "airlock run -- true",
		    "cannot start it");
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		dr_say(DR_OK, "probe run", "airlock run -- true",
		    "a sandbox was built and ran true");
	else
		dr_say(DR_FAIL, "probe run", "airlock run -- true",
		    "exit %d: %s", WIFEXITED(st) ? WEXITSTATUS(st) : -1,
		    n > 0 ? vis(out) : "(no message)");
}

int
cli_doctor_main(int argc, char **argv)
{
	struct settings	 s;
	const char	*sock = NULL, *settings = NULL;
	int		 i, loaded;

	for (i = 1; i < argc; i++) {
		if ((strcmp(argv[i], "--socket") == 0 ||
		    strcmp(argv[i], "--settings") == 0) && i + 1 < argc) {
			if (strcmp(argv[i], "--socket") == 0)
				sock = argv[++i];
			else
				settings = argv[++i];
		} else if (strcmp(argv[i], "--socket") == 0 ||
		    strcmp(argv[i], "--settings") == 0) {
			fprintf(stderr, "airlock doctor: %s needs a value\n",
			    argv[i]);
			return 2;
		} else {
			fprintf(stderr, "airlock doctor: unknown option %s\n"
			    "(airlock doctor --help for the options)\n",
			    vis(argv[i]));
			return 2;
		}
	}
	check_userns();
	check_landlock();
	check_seccomp();
	check_binaries();
	check_socket(sock);
	check_selfrestrict(sock);
	check_settings(settings, &s, &loaded);
	check_credentials(&s);
	settings_free(&s);
	if (loaded)
		check_probe(settings);
	else
		dr_say(DR_FAIL, "probe run", "airlock run -- true",
		    "not tried: the settings do not load");
	printf("%d failed, %d warnings\n", dr_fails, dr_warns);
	return dr_fails > 0 ? 1 : 0;
}
