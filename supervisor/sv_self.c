// SPDX-License-Identifier: ISC
/*
 * airlockd's own restriction (R-P2) and the reports of every daemon's,
 * as `airlock status` shows them.  Why airlockd's restriction is what it
 * is, and no more, is said at the top of its main (airlockd.c).
 *
 * What is applied, after start-up and before the first client's request:
 * no capabilities, no_new_privs, and a seccomp filter that refuses (with
 * EPERM, so a program that probes for a feature carries on) the calls in
 * sv_self_deny[] and every call of another architecture's table.  The
 * filter is a short denylist in raw BPF, not an allowlist: airlockd is
 * the parent of everything airlock starts, and all of it inherits the
 * filter, including the launchers (which mount and unshare) and, with the
 * none backend, the user's own host commands.
 *
 * The reports: airlockd's is the line built here; proxyd's and gatewayd's
 * come in their MSG_HELLO (sv_daemon.c).  host.status waits for a daemon
 * that runs but has not said its hello yet, up to SV_SELF_WAIT_SEC, and
 * then says "not reported" with the reason instead of nothing.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/json.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"

#if defined(__x86_64__)
#define SV_SELF_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SV_SELF_ARCH	AUDIT_ARCH_AARCH64
#else
#error "sv_self.c: the seccomp filter needs this architecture's AUDIT_ARCH"
#endif

/*
 * Refused to airlockd and all it starts.  Each is a call that no airlock
 * process makes, and that is either a privileged operation a compromised
 * process would only try (modules, kexec, reboot, swap, accounting, port
 * I/O, setting the clock, handles that bypass path checks) or a large
 * kernel attack surface with no use here (perf events, bpf, userfaultfd,
 * io_uring).  Not ptrace: the sandboxes' commands may debug their own
 * processes (gdb, strace), and they inherit this filter.
 */
static const int sv_self_deny[] = {
	SYS_init_module, SYS_finit_module, SYS_delete_module,
	SYS_kexec_load,
#ifdef SYS_kexec_file_load
	SYS_kexec_file_load,
#endif
	SYS_reboot, SYS_swapon, SYS_swapoff, SYS_acct,
#ifdef SYS_iopl
	SYS_iopl, SYS_ioperm,
#endif
	SYS_settimeofday, SYS_clock_settime,
	SYS_open_by_handle_at, SYS_quotactl,
#ifdef SYS_quotactl_fd
	SYS_quotactl_fd,
#endif
#ifdef SYS_uselib
	SYS_uselib,
#endif
#ifdef SYS__sysctl
	SYS__sysctl,
#endif
	SYS_vhangup,
	SYS_perf_event_open, SYS_bpf, SYS_userfaultfd,
#ifdef SYS_io_uring_setup
	SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
#endif
};
#define SV_SELF_NDENY	(sizeof(sv_self_deny) / sizeof(sv_self_deny[0]))

/* How long host.status waits for a running daemon's report. */
#define SV_SELF_WAIT_SEC	5

static char	sv_self_line[512] = "not reported: airlockd has not "
		    "restricted itself yet (it does so before it serves a "
		    "request)";
static unsigned	sv_self_len;		/* BPF instructions */

#ifdef AIRLOCK_TEST_BUILD
static struct event	*sv_self_probe_ev;
#endif

/*
 * All capabilities, of every set: airlockd needs none.  Run as root, it
 * keeps one in its permitted and bounding sets: the launcher it starts
 * (uid 0, which execve gives back the bounding set, capped by
 * no_new_privs at what airlockd still permits) maps uid 0 into the
 * sandbox's user namespace, and the kernel asks CAP_SETFCAP of whoever
 * maps a parent namespace's root.  Returns what was kept, for the report.
 */
static const char *
self_caps(void)
{
	struct __user_cap_header_struct	hdr = {
	    _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	data[2];
	int				cap, keep = -1;

	if (geteuid() == 0)
		keep = CAP_SETFCAP;
	for (cap = 0; cap <= 63; cap++)
		if (cap != keep &&
		    prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1 &&
		    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1 &&
		    errno != EPERM)
			fatal("PR_CAPBSET_DROP %d", cap);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1 &&
	    errno != EINVAL)
		fatal("PR_CAP_AMBIENT_CLEAR_ALL");
	memset(data, 0, sizeof(data));
	if (keep != -1)
		data[keep / 32].permitted = 1u << (keep % 32);
	if (syscall(SYS_capset, &hdr, data) == -1)
		fatal("capset");
	memset(data, 0xff, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) == -1 || data[0].effective ||
	    data[1].effective || data[0].permitted != (keep == -1 ? 0u :
	    keep < 32 ? 1u << keep : 0u) || data[1].permitted != (keep < 32 ?
	    0u : 1u << (keep % 32)))
		fatalx("capabilities remain after capset");
	return keep == -1 ? "none" : "none effective, cap_setfcap permitted "
	    "(root: the launcher maps uid 0)";
}

static void
self_seccomp(void)
{
	struct sock_filter	 f[8 + SV_SELF_NDENY];
	struct sock_fprog	 prog;
	unsigned		 n = 0;
	size_t			 i;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    SV_SELF_ARCH, 1, 0);
	/* Another table (i386's int 0x80) would bypass the numbers. */
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ERRNO | EPERM);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	/* x32's calls share the arch and carry bit 30: none of ours. */
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
	    0x40000000U, (uint8_t)(SV_SELF_NDENY + 1), 0);
#endif
	for (i = 0; i < SV_SELF_NDENY; i++)
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
		    BPF_K, (uint32_t)sv_self_deny[i],
		    (uint8_t)(SV_SELF_NDENY - i), 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ERRNO | EPERM);
	prog.len = (unsigned short)n;
	prog.filter = f;
	/* TSYNC: any thread there may be gets the filter and no_new_privs
	 * too (airlockd has none of its own at this point). */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0)
		fatal("seccomp filter");
	sv_self_len = n;
}

/*
 * Restrict airlockd.  Every step is required: a kernel that refuses one
 * ends airlockd here (a sandbox supervisor does not run less restricted
 * than it says), and every kernel that can run a sandbox has them all.
 */
void
sv_self_restrict(void)
{
	const char	*caps;

#ifdef AIRLOCK_TEST_BUILD
	/* The test build's control (selfrestrict.sh): the same airlockd,
	 * unrestricted, must let the probe's calls through. */
	if (getenv("AIRLOCK_TEST_SELF_OFF") != NULL) {
		snprintf(sv_self_line, sizeof(sv_self_line), "NOT "
		    "restricted: AIRLOCK_TEST_SELF_OFF (test build)");
		return;
	}
#endif
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		fatal("PR_SET_DUMPABLE");
	caps = self_caps();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("PR_SET_NO_NEW_PRIVS");
	self_seccomp();
	snprintf(sv_self_line, sizeof(sv_self_line), "landlock: not applied "
	    "(everything airlockd starts would inherit it: the sandboxes "
	    "need the user's files, proxyd and gatewayd TCP); seccomp: "
	    "denylist %zu syscalls and other architectures, EPERM, filter "
	    "%u instructions; caps: %s; no_new_privs", SV_SELF_NDENY,
	    sv_self_len, caps);
	log_debug("restricted: %s", sv_self_line);
}

const char *
sv_self_summary(void)
{
	return sv_self_line;
}

/* ---- host.status waits for the daemons' reports ---- */

struct sv_self_wait {
	struct sv_client	*c;
	struct json		*id;
	void			(*answer)(struct sv_client *,
				    const struct json *);
	struct event		*timer;
	struct sv_self_wait	*next;
};
static struct sv_self_wait	*sv_self_waits;

static void
self_answer(struct sv_self_wait *w)
{
	struct sv_self_wait **pp;

	for (pp = &sv_self_waits; *pp != NULL; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	event_free(w->timer);
	if (sv_client_alive(w->c))
		w->answer(w->c, w->id);
	sv_client_unref(w->c);
	json_free(w->id);
	free(w);
}

static void
self_wait_cb(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	/* The one that has not reported is shown as such, with why
	 * (sv_daemon.c). */
	self_answer(arg);
}

/*
 * host.status: answer now, or, while a daemon runs without having said
 * what it applied, once it has (sv_self_reported) or SV_SELF_WAIT_SEC
 * have passed.
 */
void
sv_self_status(struct sv_client *c, const struct json *id,
    void (*answer)(struct sv_client *, const struct json *))
{
	struct sv_self_wait	*w;
	struct timeval		 tv = { SV_SELF_WAIT_SEC, 0 };
	struct jgen		*j;
	const char		*buf;
	char			 err[64];
	size_t			 len;

	if (!sv_daemons_unreported() || sv_base == NULL) {
		answer(c, id);
		return;
	}
	w = xcalloc(1, sizeof(*w));
	j = jgen_new();
	jgen_value(j, id);
	buf = jgen_buf(j, &len);
	w->id = json_parse(buf, len, err, sizeof(err));
	jgen_free(j);
	if (w->id == NULL)
		fatalx("host.status: its own id: %s", err);
	w->c = c;
	sv_client_ref(c);
	w->answer = answer;
	w->timer = evtimer_new(sv_base, self_wait_cb, w);
	evtimer_add(w->timer, &tv);
	w->next = sv_self_waits;
	sv_self_waits = w;
}

/* A daemon said its hello or went down: answer whoever waited. */
void
sv_self_reported(void)
{
	if (sv_daemons_unreported())
		return;
	while (sv_self_waits != NULL)
		self_answer(sv_self_waits);
}

void
sv_self_stop(void)
{
	while (sv_self_waits != NULL)
		self_answer(sv_self_waits);
#ifdef AIRLOCK_TEST_BUILD
	if (sv_self_probe_ev != NULL)
		event_free(sv_self_probe_ev);
	sv_self_probe_ev = NULL;
#endif
}

/* One field of /proc/PID/status, or "?" when it cannot be read. */
static void
self_proc_field(pid_t pid, const char *field, char *out, size_t len)
{
	char	 path[64], line[256];
	size_t	 n = strlen(field);
	FILE	*f;

	snprintf(out, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, field, n) == 0 && line[n] == ':') {
			snprintf(out, len, "%s", line + n + 1 +
			    strspn(line + n + 1, " \t"));
			out[strcspn(out, "\n")] = '\0';
			break;
		}
	fclose(f);
}

/* A process's start time (clock ticks since boot), 0 if unknown. */
static unsigned long long
self_starttime(long pid)
{
	char			 path[64], buf[1024], *p;
	unsigned long long	 t = 0;
	FILE			*f;
	int			 i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	/* After the command name, which may hold anything: field 22. */
	if (fgets(buf, sizeof(buf), f) != NULL &&
	    (p = strrchr(buf, ')')) != NULL) {
		for (i = 2; i < 22 && p != NULL; i++)
			p = strchr(p + 1, ' ');
		if (p != NULL)
			t = strtoull(p + 1, NULL, 10);
	}
	fclose(f);
	return t;
}

/*
 * A session's airlock-guard: its report stays with the sandbox's init
 * (launcher/init.c), so what it runs under is read where the kernel
 * shows it, /proc/PID/status (init_pid is the host's view).  Landlock
 * layers are not shown there; the guard keeps the sandbox's own domain
 * and adds none (guard/main.c).  The guard is init's first child, made
 * before any command: its oldest living one.  A command of the sandbox
 * can take the name "airlock-guard" but not an earlier start, so the
 * name alone decides nothing (untrusted: names of the sandbox's).
 */
void
sv_self_guard_json(struct jgen *j, pid_t init_pid)
{
	char	 path[96], comm[32], kids[512], nnp[16], sc[16], nf[16];
	char	 cap[32], buf[300], *p, *end;
	pid_t	 pid = -1;
	FILE	*f;
	long	 v, first = -1;
	unsigned long long t, tfirst = 0;

	snprintf(buf, sizeof(buf), "not found: init (pid %d) has no "
	    "airlock-guard child", (int)init_pid);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children",
	    (int)init_pid, (int)init_pid);
	kids[0] = '\0';
	if ((f = fopen(path, "re")) != NULL) {
		if (fgets(kids, sizeof(kids), f) == NULL)
			kids[0] = '\0';
		fclose(f);
	}
	for (p = kids; *p != '\0'; p = end) {
		v = strtol(p, &end, 10);
		if (end == p)
			break;
		t = self_starttime(v);
		if (t != 0 && (first == -1 || t < tfirst)) {
			first = v;
			tfirst = t;
		}
	}
	snprintf(path, sizeof(path), "/proc/%ld/comm", first);
	if (first != -1 && (f = fopen(path, "re")) != NULL) {
		if (fgets(comm, sizeof(comm), f) != NULL &&
		    strcmp(comm, "airlock-guard\n") == 0)
			pid = (pid_t)first;
		fclose(f);
	}
	if (pid != -1) {
		self_proc_field(pid, "NoNewPrivs", nnp, sizeof(nnp));
		self_proc_field(pid, "Seccomp", sc, sizeof(sc));
		self_proc_field(pid, "Seccomp_filters", nf, sizeof(nf));
		self_proc_field(pid, "CapEff", cap, sizeof(cap));
		snprintf(buf, sizeof(buf), "pid %d, as /proc shows it: "
		    "landlock: the sandbox's own domain; seccomp: mode %s, "
		    "%s filter(s); caps: %s; "
		    "no_new_privs: %s", (int)pid, sc, nf,
		    strcmp(cap, "0000000000000000") == 0 ? "none" : cap,
		    strcmp(nnp, "1") == 0 ? "yes" : nnp);
	}
	jgen_kstr(j, "guardRestriction", buf);
}

#ifdef AIRLOCK_TEST_BUILD
/*
 * Test build only (tests/integration/selfrestrict.sh; hardening checks
 * that no shipped binary has it): SIGUSR1 makes a child of airlockd try
 * what the filter refuses, and write how each try ended to the file
 * named by AIRLOCK_TEST_SELF_PROBE.  A child, because a try that
 * succeeded (the control) must change nothing of airlockd's.
 */
static void
self_probe_cb(evutil_socket_t sig, short ev, void *arg)
{
	const char	*path = getenv("AIRLOCK_TEST_SELF_PROBE");
	pid_t		 pid;
	long		 r;
	int		 fd, st;

	(void)sig;
	(void)ev;
	(void)arg;
	if (path == NULL)
		return;
	if ((pid = fork()) == -1)
		return;
	if (pid == 0) {
		if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC, 0644)) == -1)
			_exit(1);
		{
			char	p[120];	/* struct io_uring_params */

			memset(p, 0, sizeof(p));
			r = syscall(SYS_io_uring_setup, 1, p);
			dprintf(fd, "io_uring_setup: %s\n", r >= 0 ?
			    "allowed" : strerror(errno));
		}
		r = syscall(SYS_userfaultfd, 1 /* UFFD_USER_MODE_ONLY */);
		dprintf(fd, "userfaultfd: %s\n", r >= 0 ? "allowed" :
		    strerror(errno));
		/* a user-space counter of our own: paranoia 2 allows it */
		{
			struct { uint32_t type, size; uint64_t config;
			    uint64_t pad[14]; } a;

			memset(&a, 0, sizeof(a));
			a.type = 1;	/* PERF_TYPE_SOFTWARE */
			a.size = 64;	/* PERF_ATTR_SIZE_VER0 */
			a.pad[3] = 3 << 5;	/* exclude_kernel, _hv */
			r = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
			dprintf(fd, "perf_event_open: %s\n", r >= 0 ?
			    "allowed" : strerror(errno));
		}
#ifdef __x86_64__
		/* i386's getpid (20) through int 0x80, in a child of its own:
		 * a kernel without ia32 emulation answers with SIGSEGV. */
		if ((pid = fork()) == 0) {
			__asm__ volatile ("int $0x80" : "=a"(r) : "a"(20L) :
			    "r8", "r9", "r10", "r11", "memory");
			dprintf(fd, "int80-getpid: %s\n", (int)r > 0 ?
			    "allowed" : strerror(-(int)r));
			_exit(0);
		}
		if (pid > 0 && waitpid(pid, &st, 0) == pid &&
		    WIFSIGNALED(st))
			dprintf(fd, "int80-getpid: no ia32 (signal %d)\n",
			    WTERMSIG(st));
		/* x32's getpid: ENOSYS on a kernel without x32 */
		r = syscall(SYS_getpid | 0x40000000);
		dprintf(fd, "x32-getpid: %s\n", r > 0 ? "allowed" :
		    strerror(errno));
#endif
		dprintf(fd, "done\n");
		_exit(0);
	}
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
}
#endif

void
sv_self_init(struct event_base *base)
{
#ifdef AIRLOCK_TEST_BUILD
	sv_self_probe_ev = evsignal_new(base, SIGUSR1, self_probe_cb, NULL);
	evsignal_add(sv_self_probe_ev, NULL);
#else
	(void)base;
#endif
}
