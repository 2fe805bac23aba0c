// SPDX-License-Identifier: ISC
/*
 * The host probe (SPEC R-H1, R-H2): run once at start.  The native Linux
 * backend is available when an unprivileged user + mount + pid + net
 * namespace can be created, Landlock is present (its ABI is recorded) and
 * a seccomp filter loads.  Each missing piece is named with how to fix
 * it.  The probe tries the real thing in a short-lived child rather than
 * reading sysctls alone: sysctls explain a failure, they do not predict
 * success (AppArmor, container runtimes and seccomp policies of the
 * parent can all refuse what the sysctls allow).
 */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"

static int
read_int_file(const char *path, int *v)
{
	char	buf[32];
	int	fd;
	ssize_t	n;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	*v = atoi(buf);
	return 0;
}

/*
 * In one child: can we make the namespaces the launcher makes, and then
 * load a seccomp filter?  The child reports two errnos; 0 means that
 * part works.  vfork: the child makes five system calls on
 * state of its own (its namespaces, its no_new_privs and filter) and
 * exits, where a fork copied airlockd's page tables and made it fault
 * on every page it wrote afterwards, on the critical path of a cold
 * `airlock run`.
 */
static void
probe_child(int *userns_err, int *seccomp_err)
{
	pid_t		pid;
	int		status, pfd[2], res[2] = { EIO, EIO };
	sigset_t	all, old;

	if (pipe2(pfd, O_CLOEXEC) == -1)
		return;
	/* No handler of ours (libevent's) may run in the child on our
	 * memory: signals wait until it has exited. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if ((pid = vfork()) == -1) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(pfd[0]);
		close(pfd[1]);
		return;
	}
	if (pid == 0) {
		struct sock_filter insn[] = {
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { 1, insn };
		int r[2] = { 0, 0 };

		if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID |
		    CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS) == -1)
			r[0] = errno;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
		    &prog) == -1)
			r[1] = errno;
		(void)!write(pfd[1], r, sizeof(r));
		_exit(0);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pfd[1]);
	if (read(pfd[0], res, sizeof(res)) != sizeof(res))
		res[0] = res[1] = EIO;
	close(pfd[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	*userns_err = res[0];
	*seccomp_err = res[1];
}

static void
add_reason(struct sv_probe *p, const char *reason)
{
	p->reasons = strv_add(p->reasons, reason);
}

int
sv_probe_parse_ptrace_scope(const char *text)
{
	char	*end;
	long	 v;

	if (text == NULL || text[0] < '0' || text[0] > '9')
		return -1;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || v > 1000 || (*end != '\0' && *end != '\n'))
		return -1;
	return (int)v;
}

/*
 * Yama: the filename-rule handler in the sandbox's init reads each
 * caller's path arguments from /proc/<pid>/mem, a ptrace-mode access.
 * Scope 1 allows it (init is the callers' ancestor); scope 2 wants
 * CAP_SYS_PTRACE, which init does not keep, and scope 3 refuses all:
 * every write-intent call would fail, so the backend is not usable and
 * airlockd refuses sandboxes rather than run them unsandboxed.
 */
void
sv_probe_ptrace(struct sv_probe *p, int scope)
{
	char	*r;
	size_t	 n;

	p->ptrace_scope = scope;
	if (scope < 2)
		return;
	p->ptrace_blocked = 1;
	p->available = 0;
	xasprintf(&r, "kernel.yama.ptrace_scope=%d keeps the sandbox's init "
	    "from reading its commands' system-call arguments, so every "
	    "write would fail; fix: sysctl -w kernel.yama.ptrace_scope=1",
	    scope);
	/* First: it is the reason status and the refusal give. */
	p->reasons = strv_add(p->reasons, r);
	free(r);
	n = strv_len(p->reasons);
	r = p->reasons[n - 1];
	memmove(p->reasons + 1, p->reasons, (n - 1) * sizeof(*p->reasons));
	p->reasons[0] = r;
}

void
sv_probe_run(struct sv_probe *p)
{
	int	err = EIO, serr = EIO, v, abi, fd;
	char	buf[32], *yama;
	ssize_t	n;

	memset(p, 0, sizeof(*p));
	p->reasons = xcalloc(1, sizeof(char *));

	probe_child(&err, &serr);
	if (err == 0)
		p->userns = 1;
	else {
		if (read_int_file("/proc/sys/kernel/unprivileged_userns_clone",
		    &v) == 0 && v == 0)
			add_reason(p, "unprivileged user namespaces are "
			    "disabled (kernel.unprivileged_userns_clone=0); fix:"
			    " sysctl -w kernel.unprivileged_userns_clone=1");
		else if (read_int_file(
		    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
		    &v) == 0 && v == 1) {
			add_reason(p, "AppArmor restricts unprivileged user "
			    "namespaces (kernel.apparmor_restrict_unprivileged_"
			    "userns=1); fix: `airlock setup` installs the "
			    "profile in contrib/apparmor/airlock");
			p->requires_install = 1;
		} else if (read_int_file("/proc/sys/user/max_user_namespaces",
		    &v) == 0 && v == 0)
			add_reason(p, "user namespaces are disabled "
			    "(user.max_user_namespaces=0)");
		else
		{
			char *r;

			xasprintf(&r, "cannot create user/mount/pid/net "
			    "namespaces: %s", strerror(err));
			add_reason(p, r);
			free(r);
		}
	}

	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi > 0)
		p->landlock_abi = abi;
	else if (errno == EOPNOTSUPP)
		add_reason(p, "Landlock is built in but not enabled: add "
		    "\"landlock\" to the lsm= kernel parameter");
	else
		add_reason(p, "Landlock is not available in this kernel "
		    "(needs 5.13+ with CONFIG_SECURITY_LANDLOCK)");

	if (serr == 0)
		p->seccomp = 1;
	else
		add_reason(p, "seccomp filters cannot be loaded");

	p->available = p->userns && p->landlock_abi > 0 && p->seccomp;
	yama = NULL;
	if ((fd = open("/proc/sys/kernel/yama/ptrace_scope",
	    O_RDONLY | O_CLOEXEC)) != -1) {
		if ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
			buf[n] = '\0';
			yama = buf;
		}
		close(fd);
	}
	sv_probe_ptrace(p, sv_probe_parse_ptrace_scope(yama));
	xasprintf(&p->notes, "native: user+mount+pid+net namespaces %s, "
	    "landlock abi %d, seccomp %s, ptrace scope %s",
	    p->userns ? "ok" : "missing", p->landlock_abi,
	    p->seccomp ? "ok" : "missing", p->ptrace_blocked ? "blocks" :
	    "ok");
	if (!p->available)
		xasprintf(&p->install_hint, "%s", p->reasons[0] != NULL ?
		    p->reasons[0] : "unknown");
}

void
sv_probe_free(struct sv_probe *p)
{
	free(p->notes);
	free(p->install_hint);
	strv_free(p->reasons);
	memset(p, 0, sizeof(*p));
}

const char *
sv_backend_name(enum sv_backend b)
{
	switch (b) {
	case SV_BACKEND_NATIVE:
		return "native";
	case SV_BACKEND_MICROVM:
		return "microvm";
	default:
		return "none";
	}
}

enum sv_backend
sv_backend_parse(const char *s)
{
	if (s == NULL)
		return SV_BACKEND_NONE;
	if (strcmp(s, "native") == 0 || strcmp(s, "docker") == 0)
		return SV_BACKEND_NATIVE;
	if (strcmp(s, "microvm") == 0)
		return SV_BACKEND_MICROVM;
	return SV_BACKEND_NONE;
}
