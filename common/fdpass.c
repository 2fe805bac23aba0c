// SPDX-License-Identifier: ISC
/*
 * The launcher's report sockets (see fdpass.h): one fd, then a record.
 */
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/fdpass.h"

/* A one-fd message on the report socket: len bytes at buf. */
struct fdpass_msg {
	struct msghdr	 mh;
	struct iovec	 iov;
	union {
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	align;
	} u;
};

static struct cmsghdr *
fdpass_init(struct fdpass_msg *m, void *buf, size_t len)
{
	memset(m, 0, sizeof(*m));
	m->iov.iov_base = buf;
	m->iov.iov_len = len;
	m->mh.msg_iov = &m->iov;
	m->mh.msg_iovlen = 1;
	m->mh.msg_control = m->u.buf;
	m->mh.msg_controllen = sizeof(m->u.buf);
	return CMSG_FIRSTHDR(&m->mh);
}

int
fdpass_send(int sock, int fd)
{
	struct fdpass_msg	 m;
	struct cmsghdr	*cm;
	char		 tag = 'L';

	cm = fdpass_init(&m, &tag, 1);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m.mh, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* Close every fd a control message brought (SCM_RIGHTS). */
static void
fdpass_drop(struct msghdr *mh)
{
	struct cmsghdr	*cm;
	size_t		 i, n;
	int		 fd;

	for (cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(fd),
			    sizeof(fd));
			close(fd);
		}
	}
}

ssize_t
fdpass_report(int sock, void *fail, size_t len, int *lfd)
{
	struct fdpass_msg	 m;
	struct cmsghdr	*cm;
	ssize_t		 n;

	*lfd = -1;
	for (;;) {
		fdpass_init(&m, fail, len);
		if ((n = recvmsg(sock, &m.mh, MSG_CMSG_CLOEXEC)) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		cm = CMSG_FIRSTHDR(&m.mh);
		if (cm == NULL && !(m.mh.msg_flags & MSG_CTRUNC))
			return n;
		/* One fd, once, in a one-byte message: anything else (a
		 * truncated control part, a second fd) is an error. */
		if ((m.mh.msg_flags & MSG_CTRUNC) || n != 1 || *lfd != -1 ||
		    cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS ||
		    cm->cmsg_len != CMSG_LEN(sizeof(int))) {
			fdpass_drop(&m.mh);
			errno = EPROTO;
			break;
		}
		memcpy(lfd, CMSG_DATA(cm), sizeof(int));
	}
	if (*lfd != -1)
		close(*lfd);
	*lfd = -1;
	return -1;
}
