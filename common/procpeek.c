// SPDX-License-Identifier: ISC
/*
 * Reading a sandboxed process from outside it (see procpeek.h): what
 * init needs to emulate a write-intent call that process made.
 */
#include <sys/param.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/procpeek.h"

/*
 * Copied once.  The first read stops at the page's end (one page to
 * pin, the usual case); a longer string is read on from there.
 */
int
procpeek_str(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	struct iovec	 l, r;
	size_t		 got = 0, pg = (size_t)sysconf(_SC_PAGESIZE);
	ssize_t		 n;

	if (addr == 0 || len == 0)
		return -EFAULT;
	while (got < len) {
		l.iov_base = buf + got;
		l.iov_len = MIN(pg - (addr + got) % pg, len - got);
		r.iov_base = (void *)(uintptr_t)(addr + got);
		r.iov_len = l.iov_len;
		if ((n = process_vm_readv(pid, &l, 1, &r, 1, 0)) <= 0)
			return n == 0 || errno == EFAULT ? -EFAULT : -errno;
		if (memchr(buf + got, '\0', (size_t)n) != NULL)
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

int
procpeek_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec	 l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t		 n;

	if (len == 0)
		return 0;
	if ((n = process_vm_readv(pid, &l, 1, &r, 1, 0)) == (ssize_t)len)
		return 0;
	return n >= 0 || errno == EFAULT ? -EFAULT : -errno;
}

/* PIDFD_THREAD (Linux 6.9): a pidfd of a thread that leads nothing. */
#define PP_PIDFD_THREAD	O_EXCL

/* The process (thread group) of thread tid, for kernels before it. */
static pid_t
procpeek_tgid(pid_t tid)
{
	char	 path[64], buf[512], *p;
	ssize_t	 n;
	int	 fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nTgid:")) == NULL)
		return -1;
	return (pid_t)strtol(p + 6, NULL, 10);
}

int
procpeek_sockarg(pid_t pid, int sock, uint64_t addr, uint64_t alen,
    struct sockaddr_storage *sa, int *fdp)
{
	int	pfd, r;

	*fdp = -1;
	memset(sa, 0, sizeof(*sa));
	if (alen > sizeof(*sa))
		return -EINVAL;
	if ((r = procpeek_mem(pid, addr, sa, (size_t)alen)) < 0)
		return r;
	/* pid is the calling thread, not always its process's leader. */
	if ((pfd = (int)syscall(SYS_pidfd_open, pid, PP_PIDFD_THREAD)) == -1 &&
	    errno == EINVAL)
		pfd = (int)syscall(SYS_pidfd_open, procpeek_tgid(pid), 0);
	if (pfd == -1)
		return -ESRCH;
	*fdp = (int)syscall(SYS_pidfd_getfd, pfd, sock, 0);
	r = *fdp == -1 ? -errno : 0;
	close(pfd);
	return r;
}

mode_t
procpeek_umask_parse(const char *status)
{
	const char	*p;

	if ((p = strstr(status, "\nUmask:")) == NULL)
		return 022;
	return (mode_t)strtoul(p + 7, NULL, 8) & 0777;
}

/*
 * A pread regenerates the open file; one of a task that has gone fails
 * instead of reading a new task that has its pid.
 */
mode_t
procpeek_umask(pid_t pid)
{
	static pid_t	 cpid;
	static int	 cfd = -1;
	char		 path[64], buf[256];
	ssize_t		 n = -1;

	if (pid != cpid || (n = pread(cfd, buf, sizeof(buf) - 1, 0)) <= 0) {
		if (cfd != -1)
			close(cfd);
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		cpid = (cfd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ? 0 : pid;
		if (cfd == -1 || (n = pread(cfd, buf, sizeof(buf) - 1, 0)) <= 0)
			return 022;
	}
	buf[n] = '\0';
	return procpeek_umask_parse(buf);
}

/*
 * tty_nr is the 7th field, after the command name in parentheses (which
 * may itself hold ") "): read on from the last ')'.  Unix98 ptys are
 * majors 136 to 143, 256 minors each.
 */
int
procpeek_ctty_parse(const char *stat, char *buf, size_t len)
{
	const char	*p;
	unsigned long	 tty;
	unsigned int	 maj;

	if ((p = strrchr(stat, ')')) == NULL ||
	    sscanf(p + 1, " %*c %*d %*d %*d %lu", &tty) != 1)
		return -ENXIO;
	maj = major((dev_t)tty);
	if (maj < 136 || maj > 143)
		return -ENXIO;
	snprintf(buf, len, "/dev/pts/%u", (maj - 136) * 256 +
	    minor((dev_t)tty));
	return 0;
}

int
procpeek_ctty(pid_t pid, char *buf, size_t len)
{
	char	path[64], st[1024];
	ssize_t	n;
	int	fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -ENXIO;
	n = read(fd, st, sizeof(st) - 1);
	close(fd);
	if (n <= 0)
		return -ENXIO;
	st[n] = '\0';
	return procpeek_ctty_parse(st, buf, len);
}
