/* SPDX-License-Identifier: ISC */
/*
 * The unix sockets a sandbox bound (airlock-guard makes every bind,
 * guard/notify.c), the only ones its commands may connect to by path:
 * a host socket that a bind shows is not one of them.  A socket is known
 * by device, inode and birth time, so that an inode number a host socket
 * reuses later does not pass; where the filesystem keeps no birth time,
 * the change time stands in (a socket renamed or chmod'ed since its bind
 * is then refused too).  At
 * most SOCKSET_MAX are remembered; past that the oldest is forgotten
 * (a connect to it is then refused, never wrongly allowed).  The host
 * sockets the settings allow (sandbox.network.allowUnixSockets, each
 * bound into the sandbox at its path) are pinned: known the same way,
 * never forgotten.
 */
#ifndef AIRLOCK_SOCKSET_H
#define AIRLOCK_SOCKSET_H

#include <sys/socket.h>

#include <stdint.h>

#define SOCKSET_MAX	4096
#define SOCKSET_PINNED	64	/* sandbox.network.allowUnixSockets */
#define SOCKSET_PINNED_S "64"
#define SOCKSET_PIN	2	/* sockset_check's add: never forgotten */

/*
 * The socket at (dfd, name), statx flags as given (AT_EMPTY_PATH for the
 * fd itself): add != 0 remembers it (SOCKSET_PIN: for good; 0 once
 * SOCKSET_PINNED are).  Returns -1 when it is not a
 * socket (or is gone), 1 when it is one the set holds (or was just
 * added), 0 otherwise.
 */
int	sockset_check(int dfd, const char *name, int flags, int add);

/*
 * connect(2) of the socket fd to (dfd, name), if that is a socket the
 * set holds: the name is opened (O_PATH, a final symlink followed) and
 * checked, and that very inode connected to through /proc/self/fd, so
 * a rename or a link meanwhile changes nothing.  Where a blocking
 * socket would wait (a listener whose backlog is full) it is connected
 * in a child process, which answers the seccomp notification (listener
 * lfd, id) itself: the listener's process may be waiting on the very
 * handler that would wait here.  Returns 0 or -errno as connect says
 * (-ECONNREFUSED: not a socket, as the kernel), SOCKSET_REFUSED (a
 * socket the sandbox did not bind) or SOCKSET_DEFERRED (a child
 * answers).
 */
#define SOCKSET_DEFERRED	1
#define SOCKSET_REFUSED		2
int	sockset_connect(int fd, int dfd, const char *name, int lfd,
	    uint64_t id);
/*
 * connect(2) of fd to any address without ever waiting in the caller of
 * this (the guard's one loop): tried without waiting, and where a
 * blocking socket would wait (a full backlog, a TCP handshake) made or
 * awaited in a child that answers the notification (lfd, id) itself.
 * Returns 0, -errno or SOCKSET_DEFERRED.
 */
int	sockset_connect_addr(int fd, const struct sockaddr *sa,
	    socklen_t len, int lfd, uint64_t id);
/* sockset_check(dfd, name, AT_SYMLINK_NOFOLLOW, 1): a socket just bound. */
void	sockset_add(int dfd, const char *name);

#endif
