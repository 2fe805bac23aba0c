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
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/sockset.h"

static struct {
	dev_t			dev;
	ino_t			ino;
	struct statx_timestamp	bt;
}		sockset[SOCKSET_MAX];
static size_t	nsockset;

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
	if (add) {
		i = nsockset++ % SOCKSET_MAX;	/* the oldest goes */
		sockset[i].dev = dev;
		sockset[i].ino = st.stx_ino;
		sockset[i].bt = st.stx_btime;
		return 1;
	}
	n = nsockset < SOCKSET_MAX ? nsockset : SOCKSET_MAX;
	for (i = 0; i < n; i++)
		if (sockset[i].dev == dev && sockset[i].ino == st.stx_ino &&
		    sockset[i].bt.tv_sec == st.stx_btime.tv_sec &&
		    sockset[i].bt.tv_nsec == st.stx_btime.tv_nsec)
			return 1;
	return 0;
}

void
sockset_add(int dfd, const char *name)
{
	(void)sockset_check(dfd, name, AT_SYMLINK_NOFOLLOW, 1);
}

int
sockset_connect(int fd, int dfd, const char *name, int lfd, uint64_t id)
{
	struct seccomp_notif_resp resp;
	struct sockaddr_un	un;
	int			sfd, r, fl;
	pid_t			pid;

	if ((sfd = openat(dfd, name, O_PATH | O_CLOEXEC)) == -1)
		return -errno;
	if ((r = sockset_check(sfd, "", AT_EMPTY_PATH, 0)) != 1) {
		close(sfd);
		return r == -1 ? -ECONNREFUSED : SOCKSET_REFUSED;
	}
	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	snprintf(un.sun_path, sizeof(un.sun_path), "/proc/self/fd/%d", sfd);
	/* First without waiting (the description is the caller's: its
	 * flags are put back at once); only a full backlog needs a child,
	 * since a fork costs milliseconds where this costs microseconds. */
	if ((fl = fcntl(fd, F_GETFL)) == -1) {
		close(sfd);
		return -errno;
	}
	if (!(fl & O_NONBLOCK))
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	r = connect(fd, (struct sockaddr *)&un, sizeof(un)) == -1 ? -errno : 0;
	if (!(fl & O_NONBLOCK))
		(void)fcntl(fd, F_SETFL, fl);
	if (r == -EAGAIN && !(fl & O_NONBLOCK)) {
		if ((pid = fork()) == 0) {
			memset(&resp, 0, sizeof(resp));
			resp.id = id;
			resp.error = connect(fd, (struct sockaddr *)&un,
			    sizeof(un)) == -1 ? -errno : 0;
			(void)ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
			_exit(0);
		}
		r = pid == -1 ? -EAGAIN : SOCKSET_DEFERRED;
	}
	close(sfd);
	return r;
}
