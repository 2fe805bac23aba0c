// SPDX-License-Identifier: ISC
/*
 * R-L4 benchmark helper: the kernel's floor for seccomp user notification
 * on this machine.  A child sends every openat to a listener its parent
 * holds; the parent answers each with the least possible work (open
 * /dev/null, inject it with ADDFD).  Prints the mean microseconds per
 * notified openat, and per plain openat for comparison.  airlock's
 * handler does the same round trip plus the path checks.
 *
 * usage: notify_floor [N]
 */
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double
opens(long n)
{
	double	t0 = now_us();
	long	i;

	for (i = 0; i < n; i++)
		close(openat(AT_FDCWD, "/dev/null", O_WRONLY | O_CLOEXEC));
	return (now_us() - t0) / n;
}

int
main(int argc, char *argv[])
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog	 prog = { 4, f };
	struct seccomp_notif	 req;
	struct seccomp_notif_addfd add;
	long			 n = argc > 1 ? atol(argv[1]) : 20000;
	int			 p[2], q[2], lfd, fd;
	double			 plain;
	pid_t			 pid;

	plain = opens(n);
	/* The listener crosses as a number: the parent takes it with
	 * pidfd_getfd while the child waits on the second pipe. */
	if (pipe(p) == -1 || pipe(q) == -1 || (pid = fork()) == -1)
		return 1;
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
		    (lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) == -1)
			_exit(1);
		if (write(p[1], &lfd, sizeof(lfd)) != sizeof(lfd) ||
		    read(q[0], &fd, 1) != 1)
			_exit(1);
		close(lfd);
		printf("plain openat %.1f us, notified openat %.1f us\n",
		    plain, opens(n));
		fflush(stdout);
		_exit(0);
	}
	if (read(p[0], &lfd, sizeof(lfd)) != sizeof(lfd) ||
	    (fd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1 ||
	    (lfd = (int)syscall(SYS_pidfd_getfd, fd, lfd, 0)) == -1 ||
	    write(q[1], "g", 1) != 1)
		return 1;
	for (;;) {
		memset(&req, 0, sizeof(req));
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) == -1)
			break;
		memset(&add, 0, sizeof(add));
		add.id = req.id;
		add.flags = SECCOMP_ADDFD_FLAG_SEND;
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		add.srcfd = (unsigned int)fd;
		(void)ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
		close(fd);
	}
	waitpid(pid, NULL, 0);
	return 0;
}
