/* SPDX-License-Identifier: ISC */
/*
 * An exec child's report to the launcher's init, over a socketpair: first,
 * perhaps, one fd (its seccomp listener, R-L4) as a one-byte message,
 * then a failure record, or EOF when the socket closed at a successful
 * execve.  libc only: the launcher links this file.
 */
#ifndef AIRLOCK_FDPASS_H
#define AIRLOCK_FDPASS_H

#include <sys/types.h>

/* Send fd as a one-byte message.  0 or -1 (errno). */
int	fdpass_send(int sock, int fd);

/*
 * Read the report: *fdp gets the fd passed first (-1 if none, O_CLOEXEC),
 * then up to len bytes of the record land in buf.  The record's length,
 * 0 at EOF, -1 on error (EPROTO: a truncated control part, a second fd
 * or a malformed one; every fd received is closed, *fdp is -1).
 */
ssize_t	fdpass_report(int sock, void *buf, size_t len, int *fdp);

#endif
