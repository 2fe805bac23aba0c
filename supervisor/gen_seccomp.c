// SPDX-License-Identifier: ISC
/*
 * The sandbox's seccomp filter (SPEC R-L6), compiled here with libseccomp
 * at build time: this program prints the BPF bytes as a C header
 * ($(BUILD)/gen/seccomp_bpf.h) that airlockd embeds (sv_seccomp.c) and
 * passes down to the launcher; the launcher loads, never compiles
 * (STYLE.md).  Compiled at each airlockd's first launch, it would cost
 * ~2.5 ms of a cold `airlock run` (libseccomp's pages faulted in, then
 * the compile) and make airlockd and the client link libseccomp; the
 * program depends on nothing of the host but its architecture, which is
 * the build's.  Default allow, with a deny list: the syscalls that
 * reach kernel attack surface an agent has no use for, or that would undo
 * the other layers (mount, namespaces, keyrings, bpf, io_uring, ...).
 * Denied calls fail with EPERM so tools report a clear error instead of
 * dying (sockets of other families with EAFNOSUPPORT, and Landlock with
 * ENOSYS: the kernel's own words for "not here"); the foreign-architecture
 * entry points (32-bit int 0x80, x32) are not in the filter's
 * architecture list and so kill the process: libseccomp's bad-arch
 * action.
 *
 * The same program sends the write-intent syscalls to the sandbox's init
 * (SCMP_ACT_NOTIFY, R-L4), which checks the path against the filename
 * rules and performs the call itself (launcher/notify.c).  Only calls
 * that can create, replace or write a name go there: opens whose flags
 * carry a write bit (compared in the register, so read-only opens never
 * leave the kernel), and every rename, link, symlink, mknod, mkdir and
 * truncate (a write by name), every bind (a unix socket's path makes
 * an inode, and the family is in memory, out of the filter's sight) and
 * every connect (a unix socket's path may name a host socket a bind
 * shows: only the sandbox's own are reachable).
 * openat2 keeps its flags in memory, where a check would race with the
 * caller; it fails with ENOSYS, which libc and runtimes treat as an old
 * kernel and fall back to openat.  Every unlink is sent as well: a
 * symlink planted on a protected name must not be taken away
 * (docs/SECURITY.md).  rmdir is not: it creates nothing, and the
 * protected names that exist at launch are read-only mounts
 * (sv_plan.c), which removal cannot pass.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <linux/netlink.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdio.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

static const char *const deny_eperm[] = {
	/* keyrings: shared with the host user */
	"keyctl", "add_key", "request_key",
	/* kernel attack surface */
	"perf_event_open", "bpf", "userfaultfd", "io_uring_setup",
	"io_uring_enter", "io_uring_register", "kexec_load",
	"kexec_file_load", "init_module", "finit_module", "delete_module",
	"lookup_dcookie", "vm86", "vm86old", "uselib", "nfsservctl",
	/* the mount namespace and root are set up: keep them */
	"mount", "umount", "umount2", "pivot_root", "chroot", "setns",
	"unshare", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount",
	"open_tree", "mount_setattr",
	/* host-wide state */
	"acct", "swapon", "swapoff", "reboot", "settimeofday",
	"clock_settime", "clock_adjtime", "adjtimex", "stime", "syslog",
	"quotactl", "quotactl_fd", "name_to_handle_at", "open_by_handle_at",
	"vhangup", "iopl", "ioperm",
};

/* Always sent to init: each creates, replaces or writes a name. */
static const char *const notify_always[] = {
	"creat", "mkdir", "mkdirat", "mknod", "mknodat", "symlink",
	"symlinkat", "link", "linkat", "rename", "renameat", "renameat2",
	"truncate", "bind", "connect", "unlink", "unlinkat",
};

/* Open flags that make an open write-intent (O_TMPFILE without the
 * O_DIRECTORY it includes, which read-only opens use). */
static const uint64_t open_write_bits[] = {
	O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_TMPFILE & ~O_DIRECTORY,
};

static int
add_notify_rules(scmp_filter_ctx ctx)
{
	size_t	i;
	int	nr;

	for (i = 0; i < sizeof(notify_always) / sizeof(notify_always[0]);
	    i++) {
		nr = seccomp_syscall_resolve_name(notify_always[i]);
		if (nr == __NR_SCMP_ERROR || nr < 0)
			continue;
		if (seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0) != 0)
			return -1;
	}
	/* One rule per bit: libseccomp ORs the rules of a syscall.  The
	 * kernel reads flags as an int; the masks are all in the low half. */
	for (i = 0; i < sizeof(open_write_bits) / sizeof(open_write_bits[0]);
	    i++) {
		nr = seccomp_syscall_resolve_name("open");
		if (nr >= 0 && seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
		    SCMP_A1(SCMP_CMP_MASKED_EQ, open_write_bits[i],
		    open_write_bits[i])) != 0)
			return -1;
		if (seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1,
		    SCMP_A2(SCMP_CMP_MASKED_EQ, open_write_bits[i],
		    open_write_bits[i])) != 0)
			return -1;
	}
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2),
	    0) != 0 ? -1 : 0;
}

/*
 * Socket families: a sandbox needs unix sockets, TCP/UDP to its proxy
 * and the route netlink (getaddrinfo's AI_ADDRCONFIG, `ip addr`).
 * AF_VSOCK reaches the hypervisor's host, which no namespace separates;
 * the other families are attack surface (packet, alg, tipc, rds, can,
 * bluetooth, ...).  The kernel reads the family as an int: compared on
 * the low 32 bits, so junk above cannot slip past; families at or above
 * AF_MAX the kernel refuses itself.  Every other netlink protocol
 * (uevents from the host, audit, generic netlink) fails like one the
 * kernel lacks.
 */
#ifndef AF_MAX
#define AF_MAX	46
#endif

static int
add_socket_rules(scmp_filter_ctx ctx)
{
	static const char *const calls[] = { "socket", "socketpair" };
	size_t	i;
	int	fam, nr, type;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if ((nr = seccomp_syscall_resolve_name(calls[i])) < 0)
			continue;
		for (fam = 0; fam < AF_MAX && fam < 64; fam++) {
			if (fam == AF_UNIX || fam == AF_INET ||
			    fam == AF_INET6 || fam == AF_NETLINK)
				continue;
			if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT),
			    nr, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffULL,
			    (uint64_t)fam)) != 0)
				return -1;
		}
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT), nr,
		    2, SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffULL, AF_NETLINK),
		    SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE)) != 0)
			return -1;
		/*
		 * A unix datagram socket names its peer in each sendto and
		 * sendmsg (a connected one too), in memory the filter cannot
		 * read: any host socket a bind shows would be reachable, past
		 * init's connect check.  Streams and seqpackets connect first
		 * (notify.c) and ignore a name; every other type is refused,
		 * SOCK_RAW included, which the kernel makes a datagram socket
		 * for AF_UNIX.  The low four bits are the type; the flags
		 * (SOCK_CLOEXEC, SOCK_NONBLOCK) sit above them.
		 */
		for (type = 0; type <= 0xf; type++) {
			if (type == SOCK_STREAM || type == SOCK_SEQPACKET)
				continue;
			if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), nr,
			    2, SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffULL,
			    AF_UNIX), SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf,
			    (uint64_t)type)) != 0)
				return -1;
		}
	}
	return 0;
}

/*
 * Landlock inside: init performs the write-intent calls of every
 * command (notify.c) under airlock's own domain, so a tool that
 * confined itself further would believe itself confined where it is
 * not.  The kernel's answer for "no Landlock" is ENOSYS, which tools
 * treat as "cannot sandbox here" and say so.
 */
static const char *const deny_enosys[] = {
	"landlock_create_ruleset", "landlock_add_rule",
	"landlock_restrict_self",
};

static const uint64_t bad_persona[] = {
	ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, MMAP_PAGE_ZERO,
	ADDR_COMPAT_LAYOUT, ADDR_LIMIT_3GB, ADDR_LIMIT_32BIT,
};

/*
 * What a command may do to another process of its uid: airlock-guard
 * shares it, and must not be starved or slowed from inside.
 */
static int
add_other_process_rules(scmp_filter_ctx ctx)
{
	/*
	 * prlimit64 on another process: the commands share airlock-guard's
	 * uid, and a RLIMIT_NOFILE of 3 set on it from outside would starve
	 * it.  glibc's setrlimit and getrlimit pass pid 0 (the caller), so
	 * any other pid, the caller's own included, is refused.  All 64 bits
	 * are compared: junk above a pid of 0 is refused too, the safe way.
	 */
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prlimit64),
	    1, SCMP_A0(SCMP_CMP_NE, 0)) != 0)
		return -1;

	/*
	 * setpriority and ioprio_set for a whole process group or uid:
	 * the guard shares the commands' uid (and may share their group),
	 * so `renice -u`, `ionice -u` and the group forms would slow it
	 * with them.  A single process (nice, renice -p, a thread's own
	 * tid) stays allowed, so one pid aimed at the guard still is (the
	 * filter cannot tell its pid); docs/SECURITY.md says so.  Only the
	 * low 32 bits are the kernel's int; ioprio_set's 2 and 3 are
	 * IOPRIO_WHO_PGRP and IOPRIO_WHO_USER.
	 */
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setpriority),
	    1, SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffULL, PRIO_PGRP)) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setpriority),
	    1, SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffULL, PRIO_USER)) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioprio_set),
	    1, SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffULL, 2)) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioprio_set),
	    1, SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffULL, 3)) != 0)
		return -1;
	return 0;
}

/* The program, with the notify rules or without (the test build's
 * AIRLOCK_TEST_NO_NOTIFY): malloc'd bytes in *bufp. */
static int
compile(int notify, unsigned char **bufp, size_t *lenp)
{
	scmp_filter_ctx	ctx;
	size_t		i, len = 0;
	int		nr, rc = -1, mfd = -1;
	off_t		off;
	unsigned char	*buf = NULL;
	const uint64_t	nsflags = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID |
	    CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP |
	    CLONE_NEWTIME;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		return -1;
	/* Only the native architecture: everything else is killed. */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS))
		goto out;

	for (i = 0; i < sizeof(deny_eperm) / sizeof(deny_eperm[0]); i++) {
		nr = seccomp_syscall_resolve_name(deny_eperm[i]);
		if (nr == __NR_SCMP_ERROR || nr < 0)
			continue;	/* not on this architecture */
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) != 0)
			goto out;
	}

	for (i = 0; i < sizeof(deny_enosys) / sizeof(deny_enosys[0]); i++) {
		nr = seccomp_syscall_resolve_name(deny_enosys[i]);
		if (nr == __NR_SCMP_ERROR || nr < 0)
			continue;
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0) != 0)
			goto out;
	}
	if (add_socket_rules(ctx) == -1)
		goto out;

	/* No new namespaces, by clone flags; clone3 hides its flags in
	 * memory, so it fails with ENOSYS and libc falls back to clone. */
	for (i = 0; i < 64; i++) {
		uint64_t bit = 1ULL << i;

		if ((nsflags & bit) == 0)
			continue;
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, bit,
		    bit)) != 0)
			goto out;
	}
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3),
	    0) != 0)
		goto out;

	/*
	 * TIOCSTI pushes input into a terminal; TIOCLINUX can too.  The
	 * kernel reads the request as 32 bits, so compare only those: a
	 * request with junk in the upper half is the same request.
	 */
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffULL, TIOCSTI)) != 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffULL, TIOCLINUX)) != 0)
		goto out;

	/*
	 * personality: no flag that weakens the address space (ASLR off,
	 * READ_IMPLIES_EXEC, page zero).  libseccomp cannot compare one
	 * argument twice in a rule, so the query value 0xffffffff is kept
	 * apart by the top bit, which no real personality sets.
	 */
	for (i = 0; i < sizeof(bad_persona) / sizeof(bad_persona[0]); i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(personality), 1, SCMP_A0(SCMP_CMP_MASKED_EQ,
		    bad_persona[i] | 0x80000000ULL, bad_persona[i])) != 0)
			goto out;

	if (add_other_process_rules(ctx) == -1)
		goto out;

	if (notify && add_notify_rules(ctx) == -1)
		goto out;

	/* Export through a memfd: libseccomp 2.5 writes BPF to an fd. */
	if ((mfd = memfd_create("airlock-seccomp", MFD_CLOEXEC)) == -1)
		goto out;
	if (seccomp_export_bpf(ctx, mfd) != 0)
		goto out;
	if ((off = lseek(mfd, 0, SEEK_END)) <= 0 || off > (1 << 20))
		goto out;
	len = (size_t)off;
	if ((buf = malloc(len)) == NULL)
		goto out;
	if (pread(mfd, buf, len, 0) != (ssize_t)len) {
		free(buf);
		goto out;
	}
	*bufp = buf;
	*lenp = len;
	rc = 0;
out:
	if (mfd != -1)
		close(mfd);
	seccomp_release(ctx);
	return rc;
}

static int
print_array(const char *name, int notify)
{
	unsigned char	*buf;
	size_t		 len, i;

	if (compile(notify, &buf, &len) == -1)
		return -1;
	printf("static const unsigned char %s[%zu] = {", name, len);
	for (i = 0; i < len; i++)
		printf("%s0x%02x,", i % 12 ? " " : "\n\t", buf[i]);
	printf("\n};\n");
	free(buf);
	return 0;
}

int
main(void)
{
	printf("/* Generated by gen_seccomp (supervisor/gen_seccomp.c), "
	    "libseccomp %u.%u.%u. */\n", seccomp_version()->major,
	    seccomp_version()->minor, seccomp_version()->micro);
	if (print_array("seccomp_bpf_notify", 1) == -1 ||
	    print_array("seccomp_bpf_plain", 0) == -1 || fflush(stdout) != 0) {
		fprintf(stderr, "gen_seccomp: cannot compile the filter\n");
		return 1;
	}
	return 0;
}
