// SPDX-License-Identifier: ISC
/*
 * R-L4 benchmark helper: the least a correct seccomp-notify handler can
 * do, as a test floor for the untar benchmark (not a product: no rules,
 * no sandbox).  Runs a command whose write-intent openat(2) calls (the
 * same flag bits airlock sends) and mkdirat(2) calls go to a listener
 * this process holds; each is performed here, relative to the caller's
 * directory fd (pidfd_getfd) or its cwd, and the fd is injected with
 * SECCOMP_IOCTL_NOTIF_ADDFD.  What airlock's handler adds on top of this
 * is the path check and its faithfulness (umask, FIFOs, symlinks, /proc).
 *
 * usage: notify_wrap CMD [ARG...]
 */
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ARG(n)	(offsetof(struct seccomp_data, args) + 8 * (n))

/* The caller's directory for a relative path: its dirfd, or its cwd. */
static int
caller_dir(pid_t pid, int dirfd)
{
	char	p[64];
	int	pfd, fd;

	if (dirfd == AT_FDCWD) {
		snprintf(p, sizeof(p), "/proc/%d/cwd", (int)pid);
		return open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if ((pfd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1)
		return -1;
	fd = (int)syscall(SYS_pidfd_getfd, pfd, dirfd, 0);
	close(pfd);
	return fd;
}

static void
serve(int lfd)
{
	struct seccomp_notif		 req;
	struct seccomp_notif_resp	 resp;
	struct seccomp_notif_addfd	 add;
	struct iovec			 l, r;
	char				 path[PATH_MAX];
	int				 dfd, fd, err;

	struct pollfd			 pfd = { lfd, POLLIN, 0 };

	for (;;) {
		/* HUP alone: no task uses the filter any more. */
		if (poll(&pfd, 1, -1) == -1 || !(pfd.revents & POLLIN))
			return;
		memset(&req, 0, sizeof(req));
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) == -1)
			continue;	/* ENOENT: the caller is gone */
		/* untrusted: the caller's path, copied once */
		l.iov_base = path;
		l.iov_len = sizeof(path) - 1;
		r.iov_base = (void *)(uintptr_t)req.data.args[1];
		r.iov_len = sizeof(path) - 1;
		path[sizeof(path) - 1] = '\0';
		fd = -1;
		err = 0;
		if (process_vm_readv(req.pid, &l, 1, &r, 1, 0) <= 0 ||
		    memchr(path, '\0', sizeof(path)) == NULL)
			err = -EFAULT;
		else if ((dfd = path[0] == '/' ? AT_FDCWD :
		    caller_dir(req.pid, (int)req.data.args[0])) == -1)
			err = -EBADF;
		else {
			if (req.data.nr == SYS_openat)
				fd = openat(dfd, path, (int)req.data.args[2] |
				    O_CLOEXEC, (mode_t)req.data.args[3]);
			else
				fd = mkdirat(dfd, path,
				    (mode_t)req.data.args[2]) == 0 ? -2 : -1;
			err = fd == -1 ? -errno : 0;
			if (dfd != AT_FDCWD)
				close(dfd);
		}
		if (fd >= 0) {
			memset(&add, 0, sizeof(add));
			add.id = req.id;
			add.flags = SECCOMP_ADDFD_FLAG_SEND;
			add.srcfd = (unsigned int)fd;
			add.newfd_flags = (int)req.data.args[2] & O_CLOEXEC;
			(void)ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
			close(fd);
			continue;
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.error = err;
		(void)ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

int
main(int argc, char *argv[])
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdirat, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(2)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
		    O_WRONLY | O_RDWR | O_CREAT | O_TRUNC, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog	 prog = { sizeof(f) / sizeof(f[0]), f };
	int			 p[2], q[2], lfd, pfd, status;
	char			 c;
	pid_t			 pid;

	if (argc < 2) {
		fprintf(stderr, "usage: notify_wrap cmd [arg ...]\n");
		return 2;
	}
	/* The listener crosses as a number: taken with pidfd_getfd while
	 * the child waits on the second pipe. */
	if (pipe(p) == -1 || pipe(q) == -1 || (pid = fork()) == -1)
		return 1;
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
		    (lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) == -1 ||
		    write(p[1], &lfd, sizeof(lfd)) != sizeof(lfd) ||
		    read(q[0], &c, 1) != 1)
			_exit(126);
		close(lfd);
		close(p[1]);
		close(q[0]);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (read(p[0], &lfd, sizeof(lfd)) != sizeof(lfd) ||
	    (pfd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1 ||
	    (lfd = (int)syscall(SYS_pidfd_getfd, pfd, lfd, 0)) == -1 ||
	    write(q[1], "g", 1) != 1)
		return 1;
	close(p[0]);
	close(q[1]);
	serve(lfd);
	if (waitpid(pid, &status, 0) == -1)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
