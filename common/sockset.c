// SPDX-License-Identifier: ISC
/*
 * The sandbox's own unix sockets (sockset.h).  untrusted: the names,
 * which a sandboxed process chose; what is compared is what statx says
 * of the inode.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <linux/seccomp.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/sockset.h"

#define SOCKSET_GRACE_MS	2	/* the longest the loop waits */

/* The ring of the sandbox's own binds, then the pinned host sockets. */
static struct {
	dev_t			dev;
	ino_t			ino;
	struct statx_timestamp	bt;
}		sockset[SOCKSET_MAX + SOCKSET_PINNED];
static size_t	nsockset, npinned;

int
sockset_check(int dfd, const char *name, int flags, int add)
{
	struct statx	st;
	size_t		i, n;
	dev_t		dev;

	if (statx(dfd, name, flags, STATX_INO | STATX_TYPE | STATX_BTIME |
	    STATX_CTIME, &st) == -1 || !S_ISSOCK(st.stx_mode))
		return -1;
	/* No birth time: the change time, which a rename or chmod moves
	 * too (the socket is then refused, never a reused number passed). */
	if (!(st.stx_mask & STATX_BTIME) || (st.stx_btime.tv_sec == 0 &&
	    st.stx_btime.tv_nsec == 0))
		st.stx_btime = st.stx_ctime;
	dev = makedev(st.stx_dev_major, st.stx_dev_minor);
	if (add == SOCKSET_PIN && npinned == SOCKSET_PINNED)
		return 0;
	if (add) {
		/* A bind's: the oldest goes.  A pinned one stays. */
		i = add == SOCKSET_PIN ? SOCKSET_MAX + npinned++ :
		    nsockset++ % SOCKSET_MAX;
		sockset[i].dev = dev;
		sockset[i].ino = st.stx_ino;
		sockset[i].bt = st.stx_btime;
		return 1;
	}
	n = nsockset < SOCKSET_MAX ? nsockset : SOCKSET_MAX;
	for (i = 0; i < SOCKSET_MAX + npinned; i++) {
		if (i == n)
			i = SOCKSET_MAX;
		if (i < SOCKSET_MAX + npinned && sockset[i].dev == dev &&
		    sockset[i].ino == st.stx_ino &&
		    sockset[i].bt.tv_sec == st.stx_btime.tv_sec &&
		    sockset[i].bt.tv_nsec == st.stx_btime.tv_nsec)
			return 1;
	}
	return 0;
}

void
sockset_add(int dfd, const char *name)
{
	(void)sockset_check(dfd, name, AT_SYMLINK_NOFOLLOW, 1);
}

int
sockset_connect_addr(int fd, const struct sockaddr *sa, socklen_t len,
    int lfd, uint64_t id)
{
	struct seccomp_notif_resp resp;
	struct pollfd		pfd = { .fd = fd, .events = POLLOUT };
	socklen_t		elen = sizeof(int);
	uint64_t		vid = id;
	int			r, fl, e;
	pid_t			pid;

	/* First without waiting (the description is the caller's: its
	 * flags are put back at once); only a connect that must wait
	 * needs a child, since a fork costs milliseconds where this costs
	 * microseconds.  A non-blocking caller gets what the kernel says,
	 * EINPROGRESS or EAGAIN, as it would without us. */
	if ((fl = fcntl(fd, F_GETFL)) == -1)
		return -errno;
	if (!(fl & O_NONBLOCK))
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	r = connect(fd, sa, len) == -1 ? -errno : 0;
	if (fl & O_NONBLOCK)
		return r;
	(void)fcntl(fd, F_SETFL, fl);
	/* A loopback handshake (the proxy's listeners) ends within
	 * microseconds: a short grace spares the fork. */
	if (r == -EINPROGRESS && poll(&pfd, 1, SOCKSET_GRACE_MS) == 1)
		return getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) == -1 ?
		    -errno : -e;
	if (r != -EAGAIN && r != -EINPROGRESS)
		return r;
	if ((pid = fork()) == 0) {
		/* A unix listener's full backlog: nothing is under way, so
		 * connect again, waiting.  TCP: the handshake is under way;
		 * wait for its end while the caller still waits for us. */
		if (r == -EAGAIN)
			r = connect(fd, sa, len) == -1 ? -errno : 0;
		else {
			while ((e = poll(&pfd, 1, 1000)) == 0 ||
			    (e == -1 && errno == EINTR))
				if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_ID_VALID,
				    &vid) == -1)
					_exit(0);
			r = getsockopt(fd, SOL_SOCKET, SO_ERROR, &e,
			    &elen) == -1 ? -errno : -e;
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = id;
		resp.error = r;
		(void)ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		_exit(0);
	}
	return pid == -1 ? -EAGAIN : SOCKSET_DEFERRED;
}

int
sockset_connect(int fd, int dfd, const char *name, int lfd, uint64_t id)
{
	struct sockaddr_un	un;
	int			sfd, r;

	if ((sfd = openat(dfd, name, O_PATH | O_CLOEXEC)) == -1)
		return -errno;
	if ((r = sockset_check(sfd, "", AT_EMPTY_PATH, 0)) != 1) {
		close(sfd);
		return r == -1 ? -ECONNREFUSED : SOCKSET_REFUSED;
	}
	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	snprintf(un.sun_path, sizeof(un.sun_path), "/proc/self/fd/%d", sfd);
	r = sockset_connect_addr(fd, (struct sockaddr *)&un, sizeof(un), lfd,
	    id);
	close(sfd);
	return r;
}
