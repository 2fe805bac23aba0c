/* SPDX-License-Identifier: ISC */
/*
 * Reading a process of the sandbox from outside it, for init's R-L4
 * handler (launcher/notify.c): a string argument of a call it stopped
 * in, its umask and its controlling terminal.  libc only: the launcher links this file.  Both
 * take a pid the caller has checked is still the one it means
 * (SECCOMP_IOCTL_NOTIF_ID_VALID after the read).
 */
#ifndef AIRLOCK_PROCPEEK_H
#define AIRLOCK_PROCPEEK_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

/*
 * untrusted: the process's memory.  Copy the NUL-terminated string at
 * addr into buf (len bytes at most, with the NUL): 0, -EFAULT (NULL,
 * unmapped), -ENAMETOOLONG (no NUL in len bytes), or -errno (ESRCH:
 * gone; EPERM: it made itself undumpable).
 */
int	procpeek_str(pid_t pid, uint64_t addr, char *buf, size_t len);

/* untrusted: len bytes at addr of pid into buf.  0, -EFAULT or -errno. */
int	procpeek_mem(pid_t pid, uint64_t addr, void *buf, size_t len);

/*
 * untrusted: a socket call's arguments.  The address at addr (alen
 * bytes, at most sizeof(*sa), copied once, the rest zero) and a copy of
 * the descriptor sock of thread pid (any thread, not only a leader;
 * pidfd_getfd: the same open socket) in *fdp,
 * which the caller closes.  0, -EINVAL (too long) or -errno.
 */
struct sockaddr_storage;
int	procpeek_sockarg(pid_t pid, int sock, uint64_t addr, uint64_t alen,
	    struct sockaddr_storage *sa, int *fdp);

/*
 * The umask of pid, from /proc/<pid>/status; 022 if it cannot be read.
 * The last pid's file stays open: generating it is the costly part.
 */
mode_t	procpeek_umask(pid_t pid);

/* The "Umask:" field of a status text; 022 if there is none. */
mode_t	procpeek_umask_parse(const char *status);

/*
 * Where /dev/tty leads for pid: its controlling terminal, a pty of the
 * sandbox's own devpts ("/dev/pts/N" into buf).  0, or -ENXIO for none
 * (or one that is not a pty), as the kernel's /dev/tty answers.
 */
int	procpeek_ctty(pid_t pid, char *buf, size_t len);
/* The same from a /proc/<pid>/stat text. */
int	procpeek_ctty_parse(const char *stat, char *buf, size_t len);

#endif
