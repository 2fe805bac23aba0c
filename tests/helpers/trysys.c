// SPDX-License-Identifier: ISC
/*
 * trysys: attempt one named system call or ioctl and print what the
 * kernel said, so the hardening tests ask the kernel directly instead of
 * trusting a tool's error message.  Prints "OK" when the call succeeded,
 * else the errno's name ("EPERM"), on stdout, one line; exits 0 on
 * success, 1 on failure, 2 on a usage error.  A call that kills the
 * process (seccomp's KILL action) prints nothing: the caller sees the
 * signal in the exit status (SIGSYS: 128 + 31).
 *
 * usage: trysys NAME [ARG]
 *   keyctl add_key request_key bpf perf_event_open userfaultfd
 *   io_uring_setup mount umount pivot_root chroot setns unshare-user
 *   clone-user (raw clone with CLONE_NEWUSER) clone3
 *   ptrace-pid PID (PTRACE_ATTACH)
 *   tiocsti [FD] | tiocsti-junk [FD] (junk in the upper 32 bits of the
 *     request) | tioclinux [FD] | tiocsti-own (a pty of its own made the
 *     controlling terminal: the one case the kernel itself would allow;
 *     prints the result, then "injected" or "clean")
 *   open-tty (open /dev/tty) | sid (the session id, from getsid)
 *   personality ADDR_NO_RANDOMIZE|READ_IMPLIES_EXEC|query
 *   int80 (getpid through the 32-bit int 0x80 entry)
 *   x32 (getpid through the x32 syscall numbering)
 *   read PATH (open read-only and read a byte) | write PATH (open for
 *     append, creating it, and write a byte) | mkdir PATH | landlock-abi
 *     (prints the kernel's Landlock ABI version instead of OK)
 *   landlock-ruleset (landlock_create_ruleset for a real ruleset)
 *   socket FAMILY | socketpair FAMILY: unix inet inet6 netlink (route)
 *     netlink-uevent vsock alg packet tipc rds can bluetooth (a socket of
 *     each family's usual type) | socket-junk FAMILY (junk in the upper
 *     32 bits of the family argument, which the kernel ignores)
 */
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>

#include <sys/socket.h>
#include <sys/stat.h>

#include <linux/landlock.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY	1
#endif
#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT	0x40000000
#endif

static int
report(long r)
{
	if (r == -1) {
		const char *n = strerrorname_np(errno);

		printf("%s\n", n != NULL ? n : "E?");
		return 1;
	}
	printf("OK\n");
	return 0;
}

static int
fd_arg(const char *s)
{
	return s != NULL ? atoi(s) : 0;
}

static long
try_bpf(void)
{
	union bpf_attr	a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 1;
	return syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
}

static long
try_perf(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static long
try_io_uring(void)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	return syscall(SYS_io_uring_setup, 4, &p);
}

/* clone(CLONE_NEWUSER) by the raw syscall: libc's wrappers may use clone3. */
static long
try_clone_user(void)
{
	long	pid;
	int	status;

	pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		(void)waitpid((pid_t)pid, &status, 0);
	return pid > 0 ? 0 : -1;
}

static long
try_setns(void)
{
	int	fd;

	if ((fd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	return setns(fd, CLONE_NEWUTS);
}

static long
try_ptrace(const char *arg)
{
	long	r;
	pid_t	pid;

	if (arg == NULL)
		return errno = EINVAL, -1;
	pid = (pid_t)atoi(arg);
	r = ptrace(PTRACE_ATTACH, pid, NULL, NULL);
	if (r == 0)
		(void)ptrace(PTRACE_DETACH, pid, NULL, NULL);
	return r;
}

/*
 * The request as the kernel reads it is 32 bits; a filter comparing all
 * 64 would miss this spelling of the same request.
 */
static long
try_tiocsti(int fd, int junk)
{
	unsigned long	req = TIOCSTI;
	char		c = '#';

	if (junk)
		req |= 0xdeadbeef00000000UL;
	return syscall(SYS_ioctl, fd, req, &c);
}

static long
try_tioclinux(int fd)
{
	char	sub = 6;	/* TIOCL_GETSHIFTSTATE: harmless */

	return syscall(SYS_ioctl, fd, (unsigned long)TIOCLINUX, &sub);
}

/*
 * The only TIOCSTI the kernel allows without CAP_SYS_ADMIN is into one's
 * own controlling terminal.  Make a pty of our own the controlling tty
 * of a new session, try to push a command into it, and look whether
 * anything arrived in its input queue.
 */
static int
try_tiocsti_own(void)
{
	struct termios	t;
	struct pollfd	pfd;
	const char	*cmd = "id\n";
	int		m, s, r = 0, e = 0;
	char		*name;

	(void)setsid();		/* fails only when already a leader */
	if ((m = posix_openpt(O_RDWR | O_NOCTTY)) == -1 || grantpt(m) == -1 ||
	    unlockpt(m) == -1 || (name = ptsname(m)) == NULL ||
	    (s = open(name, O_RDWR | O_NOCTTY)) == -1) {
		printf("setup-failed %s\n", strerrorname_np(errno));
		return 2;
	}
	if (ioctl(s, TIOCSCTTY, 0) == -1) {
		printf("setup-failed TIOCSCTTY %s\n", strerrorname_np(errno));
		return 2;
	}
	if (tcgetattr(s, &t) == 0) {
		cfmakeraw(&t);
		(void)tcsetattr(s, TCSANOW, &t);
	}
	for (; *cmd != '\0'; cmd++)
		if ((r = (int)syscall(SYS_ioctl, s, (unsigned long)TIOCSTI,
		    cmd)) == -1) {
			e = errno;
			break;
		}
	errno = e;
	(void)report(r);
	pfd.fd = s;
	pfd.events = POLLIN;
	printf("%s\n", poll(&pfd, 1, 200) > 0 ? "injected" : "clean");
	return r == -1 ? 1 : 0;
}

static long
try_personality(const char *arg)
{
	unsigned long	p;
	int		r;

	if (arg == NULL || strcmp(arg, "query") == 0)
		p = 0xffffffffUL;
	else if (strcmp(arg, "ADDR_NO_RANDOMIZE") == 0)
		p = PER_LINUX | ADDR_NO_RANDOMIZE;
	else if (strcmp(arg, "READ_IMPLIES_EXEC") == 0)
		p = PER_LINUX | READ_IMPLIES_EXEC;
	else
		return errno = EINVAL, -1;
	/* personality() returns the old value; -1 with errno on failure. */
	errno = 0;
	r = (int)syscall(SYS_personality, p);
	if (r == -1 && errno != 0)
		return -1;
	if (p != 0xffffffffUL &&
	    ((unsigned)syscall(SYS_personality, 0xffffffffUL) & p) != p)
		return errno = ENOTRECOVERABLE, -1;	/* silently ignored */
	return 0;
}

static long
try_read(const char *path)
{
	char	c;
	int	fd;

	if (path == NULL)
		return errno = EINVAL, -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if (read(fd, &c, 1) == -1)
		return -1;
	return close(fd);
}

static long
try_write(const char *path)
{
	int	fd;

	if (path == NULL)
		return errno = EINVAL, -1;
	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0644)) == -1)
		return -1;
	if (write(fd, "x", 1) != 1)
		return -1;
	return close(fd);
}

static const struct {
	const char	*name;
	int		 family, type, proto;
} families[] = {
	{ "unix", AF_UNIX, SOCK_STREAM, 0 },
	{ "inet", AF_INET, SOCK_STREAM, 0 },
	{ "inet6", AF_INET6, SOCK_STREAM, 0 },
	{ "netlink", AF_NETLINK, SOCK_RAW, 0 },		/* NETLINK_ROUTE */
	{ "netlink-uevent", AF_NETLINK, SOCK_DGRAM, 15 },
	{ "vsock", AF_VSOCK, SOCK_STREAM, 0 },
	{ "alg", AF_ALG, SOCK_SEQPACKET, 0 },
	{ "packet", AF_PACKET, SOCK_DGRAM, 0 },
	{ "tipc", AF_TIPC, SOCK_RDM, 0 },
	{ "rds", AF_RDS, SOCK_SEQPACKET, 0 },
	{ "can", AF_CAN, SOCK_RAW, 1 },
	{ "bluetooth", AF_BLUETOOTH, SOCK_RAW, 0 },
};

/* pair: 1 socketpair, 2 socket with junk in the family's upper half. */
static long
try_socket(const char *name, int pair)
{
	size_t	i;
	int	sv[2], fd;

	for (i = 0; name != NULL && i < sizeof(families) / sizeof(families[0]);
	    i++) {
		if (strcmp(name, families[i].name) != 0)
			continue;
		if (pair == 2) {
			if ((fd = (int)syscall(SYS_socket,
			    (long)families[i].family | (1L << 32),
			    families[i].type | SOCK_CLOEXEC,
			    families[i].proto)) == -1)
				return -1;
			return close(fd);
		}
		if (pair) {
			if (socketpair(families[i].family, families[i].type |
			    SOCK_CLOEXEC, families[i].proto, sv) == -1)
				return -1;
			close(sv[1]);
			return close(sv[0]);
		}
		if ((fd = socket(families[i].family, families[i].type |
		    SOCK_CLOEXEC, families[i].proto)) == -1)
			return -1;
		return close(fd);
	}
	return errno = EINVAL, -1;
}

static long
try_landlock_ruleset(void)
{
	struct landlock_ruleset_attr a;
	long	fd;

	memset(&a, 0, sizeof(a));
	a.handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE;
	if ((fd = syscall(SYS_landlock_create_ruleset, &a, sizeof(a), 0)) == -1)
		return -1;
	return close((int)fd);
}

#if defined(__x86_64__)
static long
try_int80(void)
{
	long	r, nr = 20;	/* getpid on i386 */

	__asm__ volatile ("int $0x80" : "=a"(r) : "0"(nr) : "memory");
	if (r < 0)
		return errno = (int)-r, -1;
	return 0;
}

static long
try_x32(void)
{
	return syscall(__X32_SYSCALL_BIT | 39);	/* x32 getpid */
}
#else
static long
try_int80(void)
{
	return errno = ENOSYS, -1;
}

static long
try_x32(void)
{
	return errno = ENOSYS, -1;
}
#endif

int
main(int argc, char **argv)
{
	const char	*n, *a;

	if (argc < 2) {
		fprintf(stderr, "usage: trysys NAME [ARG]\n");
		return 2;
	}
	n = argv[1];
	a = argc > 2 ? argv[2] : NULL;
	setvbuf(stdout, NULL, _IONBF, 0);

	if (strcmp(n, "keyctl") == 0)
		return report(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
		    KEY_SPEC_SESSION_KEYRING, 0));
	if (strcmp(n, "add_key") == 0)
		return report(syscall(SYS_add_key, "user", "airlock-probe",
		    "x", 1, KEY_SPEC_PROCESS_KEYRING));
	if (strcmp(n, "request_key") == 0)
		return report(syscall(SYS_request_key, "user",
		    "airlock-probe", NULL, 0));
	if (strcmp(n, "bpf") == 0)
		return report(try_bpf());
	if (strcmp(n, "perf_event_open") == 0)
		return report(try_perf());
	if (strcmp(n, "userfaultfd") == 0)
		return report(syscall(SYS_userfaultfd, O_CLOEXEC |
		    UFFD_USER_MODE_ONLY));
	if (strcmp(n, "io_uring_setup") == 0)
		return report(try_io_uring());
	if (strcmp(n, "mount") == 0)
		return report(mount("none", "/tmp", "tmpfs", 0, NULL));
	if (strcmp(n, "umount") == 0)
		return report(umount2("/tmp", MNT_DETACH));
	if (strcmp(n, "pivot_root") == 0)
		return report(syscall(SYS_pivot_root, ".", "."));
	if (strcmp(n, "chroot") == 0)
		return report(chroot("/"));
	if (strcmp(n, "setns") == 0)
		return report(try_setns());
	if (strcmp(n, "unshare-user") == 0)
		return report(unshare(CLONE_NEWUSER));
	if (strcmp(n, "clone-user") == 0)
		return report(try_clone_user());
	if (strcmp(n, "clone3") == 0)
		return report(syscall(SYS_clone3, NULL, 0));
	if (strcmp(n, "ptrace-pid") == 0)
		return report(try_ptrace(a));
	if (strcmp(n, "tiocsti") == 0)
		return report(try_tiocsti(fd_arg(a), 0));
	if (strcmp(n, "tiocsti-junk") == 0)
		return report(try_tiocsti(fd_arg(a), 1));
	if (strcmp(n, "tioclinux") == 0)
		return report(try_tioclinux(fd_arg(a)));
	if (strcmp(n, "tiocsti-own") == 0)
		return try_tiocsti_own();
	if (strcmp(n, "open-tty") == 0)
		return report(open("/dev/tty", O_RDWR | O_NOCTTY));
	if (strcmp(n, "sid") == 0) {
		printf("%d %d\n", (int)getsid(0), (int)getpid());
		return 0;
	}
	if (strcmp(n, "personality") == 0)
		return report(try_personality(a));
	if (strcmp(n, "int80") == 0)
		return report(try_int80());
	if (strcmp(n, "x32") == 0)
		return report(try_x32());
	if (strcmp(n, "read") == 0)
		return report(try_read(a));
	if (strcmp(n, "write") == 0)
		return report(try_write(a));
	if (strcmp(n, "mkdir") == 0)
		return report(a == NULL ? (errno = EINVAL, -1) :
		    mkdir(a, 0755));
	if (strcmp(n, "socket") == 0)
		return report(try_socket(a, 0));
	if (strcmp(n, "socketpair") == 0)
		return report(try_socket(a, 1));
	if (strcmp(n, "socket-junk") == 0)
		return report(try_socket(a, 2));
	if (strcmp(n, "landlock-ruleset") == 0)
		return report(try_landlock_ruleset());
	if (strcmp(n, "landlock-abi") == 0) {
		long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
		    1U << 0);	/* LANDLOCK_CREATE_RULESET_VERSION */

		if (v == -1)
			return report(v);
		printf("%ld\n", v);
		return 0;
	}
	fprintf(stderr, "trysys: unknown call %s\n", n);
	return 2;
}
