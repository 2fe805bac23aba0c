// SPDX-License-Identifier: ISC
/*
 * The sandbox's seccomp filter (SPEC R-L6), compiled here with libseccomp
 * and passed down to the launcher as BPF bytes: the launcher loads, never
 * compiles (STYLE.md).  Default allow, with a deny list: the syscalls that
 * reach kernel attack surface an agent has no use for, or that would undo
 * the other layers (mount, namespaces, keyrings, bpf, io_uring, ...).
 * Denied calls fail with EPERM so tools report a clear error instead of
 * dying; the foreign-architecture entry points (32-bit int 0x80, x32) are
 * not in the filter's architecture list and so kill the process:
 * libseccomp's bad-arch action.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"

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

static const uint64_t bad_persona[] = {
	ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, MMAP_PAGE_ZERO,
	ADDR_COMPAT_LAYOUT, ADDR_LIMIT_3GB, ADDR_LIMIT_32BIT,
};

int
sv_seccomp_compile(void **bufp, size_t *lenp)
{
	scmp_filter_ctx	ctx;
	size_t		i, len = 0;
	int		nr, rc = -1, mfd = -1;
	off_t		off;
	void		*buf = NULL;
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

	/* Export through a memfd: libseccomp 2.5 writes BPF to an fd. */
	if ((mfd = memfd_create("airlock-seccomp", MFD_CLOEXEC)) == -1)
		goto out;
	if (seccomp_export_bpf(ctx, mfd) != 0)
		goto out;
	if ((off = lseek(mfd, 0, SEEK_END)) <= 0 || off > (1 << 20))
		goto out;
	len = (size_t)off;
	buf = xmalloc(len);
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
