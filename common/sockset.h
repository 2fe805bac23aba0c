/* SPDX-License-Identifier: ISC */
/*
 * The unix sockets a sandbox bound (the sandbox's init makes every bind,
 * launcher/notify.c), the only ones its commands may connect to by path:
 * a host socket that a bind shows is not one of them.  A socket is known
 * by device, inode and birth time, so that an inode number a host socket
 * reuses later does not pass; where the filesystem keeps no birth time,
 * the change time stands in (a socket renamed or chmod'ed since its bind
 * is then refused too).  At
 * most SOCKSET_MAX are remembered; past that the oldest is forgotten
 * (a connect to it is then refused, never wrongly allowed).
 */
#ifndef AIRLOCK_SOCKSET_H
#define AIRLOCK_SOCKSET_H

#define SOCKSET_MAX	4096

/*
 * The socket at (dfd, name), statx flags as given (AT_EMPTY_PATH for the
 * fd itself): add != 0 remembers it.  Returns -1 when it is not a
 * socket (or is gone), 1 when it is one the set holds (or was just
 * added), 0 otherwise.
 */
int	sockset_check(int dfd, const char *name, int flags, int add);

/*
 * connect(2) of the socket fd to (dfd, name), if that is a socket the
 * set holds: the name is opened (O_PATH, a final symlink followed) and
 * checked, and that very inode connected to through /proc/self/fd, so
 * a rename or a link meanwhile changes nothing.  0 or -errno as connect
 * says (-ECONNREFUSED: not a socket, as the kernel); 1: refused, a
 * socket the sandbox did not bind.
 */
int	sockset_connect(int fd, int dfd, const char *name);

#endif
