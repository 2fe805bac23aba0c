// SPDX-License-Identifier: ISC
/*
 * Linux implementation of sandbox_self() (see common/sandbox_self.h):
 * capabilities dropped, no_new_privs, Landlock (ABI negotiated as
 * MIN(kernel, SBX_LL_WANT), every filesystem right of that ABI handled,
 * only the profile's paths allowed), then a seccomp allowlist compiled
 * with libseccomp (which also checks the architecture first).
 *
 * The Landlock constants are defined here rather than taken from
 * <linux/landlock.h>, because the build host's headers may predate the
 * running kernel; the kernel tells us its ABI and we only use what it has.
 */
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <sched.h>

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/sandbox_self.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset	444
#define SYS_landlock_add_rule		445
#define SYS_landlock_restrict_self	446
#endif

#define SBX_LL_WANT			7
#define SBX_LL_VERSION			(1U << 0)
#define SBX_LL_RULE_PATH_BENEATH	1
#define SBX_LL_FS_REFER			(1ULL << 13)	/* ABI 2 */
#define SBX_LL_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#define SBX_LL_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */
#define SBX_LL_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define SBX_LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)	/* ABI 6 */
#define SBX_LL_SCOPE_SIGNAL		(1ULL << 1)	/* ABI 6 */
/* Rights that apply to a file (as opposed to a directory). */
#define SBX_LL_FS_FILE	(SBX_FS_EXECUTE | SBX_FS_WRITE_FILE | \
	SBX_FS_READ_FILE | SBX_LL_FS_TRUNCATE | SBX_LL_FS_IOCTL_DEV)

struct sbx_ll_ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;
	uint64_t	scoped;
};

struct sbx_ll_path_beneath {
	uint64_t	allowed_access;
	int32_t		parent_fd;
} __attribute__((packed));

static char sbx_summary[512] = "not restricted";

const char *
sandbox_self_summary(void)
{
	return sbx_summary;
}

/* Every filesystem right the kernel's ABI knows: all are denied unless a
 * rule allows them. */
static uint64_t
ll_fs_rights(int abi)
{
	uint64_t r = (1ULL << 13) - 1;		/* ABI 1: bits 0..12 */

	if (abi >= 2)
		r |= SBX_LL_FS_REFER;
	if (abi >= 3)
		r |= SBX_LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= SBX_LL_FS_IOCTL_DEV;
	return r;
}

/* Returns the ABI used, 0 when the kernel has no Landlock. */
static int
sbx_landlock(const struct sbx_profile *p, char *desc, size_t desclen)
{
	struct sbx_ll_ruleset_attr attr;
	struct sbx_ll_path_beneath pb;
	struct stat st;
	size_t	 attrsz, i;
	int	 abi, rfd, fd;

	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    SBX_LL_VERSION);
	if (abi < 1) {
		log_warn("%s: LANDLOCK UNAVAILABLE: filesystem access is NOT"
		    " restricted", p->name);
		snprintf(desc, desclen, "landlock: UNAVAILABLE (%s)",
		    strerror(errno));
		return 0;
	}
	if (abi > SBX_LL_WANT)
		abi = SBX_LL_WANT;

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = ll_fs_rights(abi);
	attrsz = sizeof(attr.handled_access_fs);
	if (abi >= 4) {
		/* Daemons dial out but never listen: no TCP bind. */
		attr.handled_access_net = SBX_LL_NET_BIND_TCP;
		attrsz += sizeof(attr.handled_access_net);
	}
	if (abi >= 6) {
		/* No signals to, no abstract sockets of, other domains. */
		attr.scoped = SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL;
		attrsz += sizeof(attr.scoped);
	}
	rfd = (int)syscall(SYS_landlock_create_ruleset, &attr, attrsz, 0);
	if (rfd == -1)
		fatal("%s: landlock_create_ruleset", p->name);
	for (i = 0; i < p->npaths; i++) {
		fd = open(p->paths[i].path, O_PATH | O_CLOEXEC);
		if (fd == -1)
			fatal("%s: landlock path %s", p->name,
			    p->paths[i].path);
		if (fstat(fd, &st) == -1)
			fatal("%s: fstat %s", p->name, p->paths[i].path);
		pb.allowed_access = p->paths[i].access & attr.handled_access_fs;
		if (!S_ISDIR(st.st_mode))
			pb.allowed_access &= SBX_LL_FS_FILE;
		pb.parent_fd = fd;
		if (syscall(SYS_landlock_add_rule, rfd,
		    SBX_LL_RULE_PATH_BENEATH, &pb, 0) == -1)
			fatal("%s: landlock_add_rule %s", p->name,
			    p->paths[i].path);
		close(fd);
	}
	if (syscall(SYS_landlock_restrict_self, rfd, 0) == -1)
		fatal("%s: landlock_restrict_self", p->name);
	close(rfd);
	if (p->npaths == 0)
		snprintf(desc, desclen, "landlock abi %d: no fs access%s%s",
		    abi, abi >= 4 ? ", no tcp bind" : "",
		    abi >= 6 ? ", scoped" : "");
	else
		snprintf(desc, desclen, "landlock abi %d: fs limited to %zu "
		    "path(s) (%s%s)%s%s", abi, p->npaths, p->paths[0].path,
		    p->npaths > 1 ? ", ..." : "",
		    abi >= 4 ? ", no tcp bind" : "",
		    abi >= 6 ? ", scoped" : "");
	return abi;
}

static void
sbx_caps(const char *name)
{
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[2];
	int	 cap;

	/* The bounding set needs CAP_SETPCAP: only a privileged start has
	 * anything to drop, and then it can. */
	for (cap = 0; cap <= 63; cap++) {
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != 1)
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1 &&
		    errno != EPERM)
			fatal("%s: PR_CAPBSET_DROP %d", name, cap);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1 &&
	    errno != EINVAL)
		fatal("%s: PR_CAP_AMBIENT_CLEAR_ALL", name);
	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	hdr.pid = 0;
	if (syscall(SYS_capset, &hdr, data) == -1)
		fatal("%s: capset", name);
}

/* Syscalls by group.  Names unknown on this architecture are skipped. */
static const char *const sys_stdio[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64", "close",
	"exit", "exit_group", "brk", "mmap", "munmap", "mremap", "mprotect",
	"madvise", "futex", "rt_sigreturn", "rt_sigaction", "rt_sigprocmask",
	"sigaltstack", "clock_gettime", "clock_getres", "clock_nanosleep",
	"nanosleep", "gettimeofday", "time", "getpid", "gettid", "getppid",
	"getuid", "geteuid", "getgid", "getegid", "getrandom",
	"restart_syscall", "fstat", "lseek", "dup", "dup3", "sched_yield",
	"sched_getaffinity", "prlimit64", "getrlimit", "uname", "rseq",
	"getrusage", "sysinfo", NULL
};
static const char *const sys_event[] = {
	"epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
	"epoll_pwait2", "poll", "ppoll", "select", "pselect6", "eventfd2",
	"pipe2", "fcntl", "timerfd_create", "timerfd_settime",
	"timerfd_gettime", NULL
};
static const char *const sys_inet[] = {
	"connect", "accept", "accept4", "getsockopt", "setsockopt",
	"getsockname", "getpeername", "sendto", "recvfrom", "sendmsg",
	"recvmsg", "sendmmsg", "recvmmsg", "shutdown", NULL
};
static const char *const sys_splice[] = {
	"splice", "pipe2", "fcntl", NULL
};
static const char *const sys_rpath[] = {
	"open", "openat", "newfstatat", "statx", "getdents64", "readlink",
	"readlinkat", "access", "faccessat", "faccessat2", NULL
};
static const char *const sys_unix[] = {
	"sendmsg", "recvmsg", NULL
};
static const char *const sys_wpath[] = {
	"mkdirat", "symlinkat", "unlinkat", "fchmod", "fchmodat",
	"utimensat", "fstatfs", "statfs", "fcntl", "close_range", "umask",
	/* airlock-clone's spare marks (clone/copier.c), by fd only */
	"fsetxattr", "fgetxattr", "fremovexattr",
	NULL
};
static const char *const sys_thread[] = {
	"set_robust_list", "get_robust_list", "sched_getaffinity", NULL
};
static const char *const sys_emulate[] = {
	"pidfd_open", "pidfd_getfd", "process_vm_readv", "mknodat",
	"linkat", "renameat", "renameat2", "ftruncate", "fchdir", "chdir",
	"bind", "connect", "wait4", "set_robust_list", "getsockopt", NULL
};
/* Path lookups without rpath: fail softly so libc can carry on. */
static const char *const sys_eacces[] = {
	"open", "openat", "openat2", "creat", "statx", "readlink",
	"readlinkat", "access", "faccessat", "faccessat2", NULL
};

static const unsigned long sbx_notif_ioctl[] = {
	SECCOMP_IOCTL_NOTIF_RECV, SECCOMP_IOCTL_NOTIF_SEND,
	SECCOMP_IOCTL_NOTIF_ID_VALID, SECCOMP_IOCTL_NOTIF_ADDFD,
};

static int
sbx_add(scmp_filter_ctx ctx, uint32_t action, const char *name,
    unsigned *n)
{
	int	 nr = seccomp_syscall_resolve_name(name);
	int	 rc;

	if (nr == __NR_SCMP_ERROR)
		return 0;
	rc = seccomp_rule_add(ctx, action, nr, 0);
	if (rc == -EEXIST)
		return 0;
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	(*n)++;
	return 0;
}

static int
sbx_add_list(scmp_filter_ctx ctx, const char *const *v, unsigned *n)
{
	for (; *v != NULL; v++)
		if (sbx_add(ctx, SCMP_ACT_ALLOW, *v, n) == -1)
			return -1;
	return 0;
}

static void
sbx_sigsys(int sig, siginfo_t *si, void *uc)
{
	char	 buf[64];
	int	 n;

	(void)sig;
	(void)uc;
	n = snprintf(buf, sizeof(buf), "seccomp: syscall %d refused\n",
	    si->si_syscall);
	if (n > 0 && write(STDERR_FILENO, buf, (size_t)n) == -1)
		_exit(99);
	_exit(98);
}

static void
sbx_seccomp(const struct sbx_profile *p, char *desc, size_t desclen)
{
	scmp_filter_ctx ctx;
	uint32_t def = SCMP_ACT_KILL_PROCESS;
	unsigned n = 0;
	int	 rc = 0, i;
	struct sigaction sa;

	/*
	 * AIRLOCK_SECCOMP_TRAP names a refused syscall on stderr instead of
	 * killing silently: the same refusal, easier to debug.
	 */
	if (getenv("AIRLOCK_SECCOMP_TRAP") != NULL) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = sbx_sigsys;
		sa.sa_flags = SA_SIGINFO;
		if (sigaction(SIGSYS, &sa, NULL) == -1)
			fatal("sigaction SIGSYS");
		def = SCMP_ACT_TRAP;
	}
	if ((ctx = seccomp_init(def)) == NULL)
		fatalx("%s: seccomp_init failed", p->name);
	if (sbx_add_list(ctx, sys_stdio, &n) == -1)
		goto fail;
	/* raise()/abort(): signals to ourselves only */
	rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
	    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
	if (rc < 0)
		goto fail;
	n++;
	if (!(p->groups & SBX_SYS_RPATH)) {
		/* fstat() is newfstatat(fd, "", AT_EMPTY_PATH) in glibc */
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
		    SCMP_SYS(newfstatat), 1, SCMP_A3(SCMP_CMP_MASKED_EQ,
		    AT_EMPTY_PATH, AT_EMPTY_PATH));
		if (rc < 0)
			goto fail;
		n++;
		for (i = 0; sys_eacces[i] != NULL; i++)
			if (sbx_add(ctx, SCMP_ACT_ERRNO(EACCES), sys_eacces[i],
			    &n) == -1)
				goto fail;
	} else if (sbx_add_list(ctx, sys_rpath, &n) == -1)
		goto fail;
	if (p->groups & SBX_SYS_EVENT) {
		if (sbx_add_list(ctx, sys_event, &n) == -1)
			goto fail;
		/* libevent asks FIONREAD; nothing else of ioctl */
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl),
		    1, SCMP_A1(SCMP_CMP_EQ, FIONREAD))) < 0 ||
		    (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
		    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, FIONBIO))) < 0)
			goto fail;
		n++;
	}
	if (p->groups & SBX_SYS_INET) {
		if (sbx_add_list(ctx, sys_inet, &n) == -1)
			goto fail;
		/* sockets of the internet families only */
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
		    SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_INET))) < 0 ||
		    (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
		    SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_INET6))) < 0)
			goto fail;
		n++;
	}
	if (p->groups & SBX_SYS_SPLICE)
		if (sbx_add_list(ctx, sys_splice, &n) == -1)
			goto fail;
	if (p->groups & SBX_SYS_UNIX)
		if (sbx_add_list(ctx, sys_unix, &n) == -1)
			goto fail;
	if (p->groups & SBX_SYS_WPATH) {
		if (sbx_add_list(ctx, sys_wpath, &n) == -1)
			goto fail;
		/* of ioctl, only the copy-on-write clone of a file */
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl),
		    1, SCMP_A1(SCMP_CMP_EQ, FICLONE))) < 0)
			goto fail;
		n++;
	}
	if (p->groups & SBX_SYS_THREAD) {
		if (sbx_add_list(ctx, sys_thread, &n) == -1)
			goto fail;
		/* threads of this process, never a new process */
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone),
		    1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD,
		    CLONE_THREAD))) < 0)
			goto fail;
		n++;
	}
	if (p->groups & SBX_SYS_EMULATE) {
		if (sbx_add_list(ctx, sys_emulate, &n) == -1)
			goto fail;
		/* of ioctl, only the seccomp notification's four; a connect
		 * that would block is made in a child (common/sockset.c) */
		for (i = 0; i < 4; i++)
			if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
			    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ,
			    sbx_notif_ioctl[i]))) < 0)
				goto fail;
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
		    SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ,
		    CLONE_THREAD, 0))) < 0)
			goto fail;
		n += 2;
	}
	/* no processes: clone3 says ENOSYS (glibc then tries clone, which
	 * only SBX_SYS_THREAD allows, and only for a thread) */
	if (sbx_add(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", &n) == -1)
		goto fail;
	n--;
	if ((rc = seccomp_load(ctx)) < 0)
		goto fail;
	seccomp_release(ctx);
	snprintf(desc, desclen, "seccomp: allowlist %u syscalls, default %s",
	    n, def == SCMP_ACT_TRAP ? "trap" : "kill");
	return;
fail:
	if (rc < 0)
		errno = -rc;
	fatal("%s: seccomp filter", p->name);
}

int
sandbox_self(const struct sbx_profile *p)
{
	char	 ll[200], sc[120];
	int	 abi;

	/* Nothing in a daemon's memory is for other processes to read. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		fatal("%s: PR_SET_DUMPABLE", p->name);
	sbx_caps(p->name);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("%s: PR_SET_NO_NEW_PRIVS", p->name);
	/*
	 * A process that acts for those of its own Landlock domain keeps
	 * that domain as it is: a layer of its own would put it outside
	 * theirs, and Landlock lets no process read the memory of (or take
	 * a descriptor from) one of a domain that is not its own or beneath
	 * it: process_vm_readv and pidfd_getfd say EPERM.
	 */
	if (p->in_domain) {
		abi = -1;
		snprintf(ll, sizeof(ll), "landlock: the sandbox's own domain");
	} else
		abi = sbx_landlock(p, ll, sizeof(ll));
	sbx_seccomp(p, sc, sizeof(sc));
	snprintf(sbx_summary, sizeof(sbx_summary),
	    "%s; %s; caps: none; no_new_privs", ll, sc);
	if (abi == 0)
		log_warnx("%s: running WITHOUT Landlock: %s", p->name,
		    sbx_summary);
	else
		log_info("%s: %s", p->name, sbx_summary);
	return 0;
}
