// SPDX-License-Identifier: ISC
/*
 * Unit tests for the exec child's report to init: a listener fd, then a
 * failure record or EOF (common/fdpass.c); anything more is an error.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/fdpass.h"
#include "tests/unit/unit.h"

START_TEST(fd_then_record_then_eof)
{
	struct stat	 a, b;
	char		 buf[32];
	int		 sp[2], fd, got;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp), 0);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fdpass_send(sp[0], fd), 0);
	ck_assert_int_eq(write(sp[0], "failed: x", 9), 9);
	ck_assert_int_eq(fdpass_report(sp[1], buf, sizeof(buf), &got), 9);
	ck_assert_int_ge(got, 0);
	ck_assert_int_eq(fstat(fd, &a), 0);
	ck_assert_int_eq(fstat(got, &b), 0);
	ck_assert(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	ck_assert_int_eq(fcntl(got, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(memcmp(buf, "failed: x", 9), 0);
	close(got);

	/* no fd, and the writer closed at its execve: EOF */
	close(sp[0]);
	ck_assert_int_eq(fdpass_report(sp[1], buf, sizeof(buf), &got), 0);
	ck_assert_int_eq(got, -1);
	close(sp[1]);
	close(fd);
}
END_TEST

/* Count the fds open in this process. */
static int
nfds(void)
{
	int	fd, n = 0;

	for (fd = 0; fd < 256; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			n++;
	return n;
}

static void
send_fds(int sock, const int *fds, int nfd)
{
	union {
		char		buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr	align;
	} u;
	struct msghdr	 mh;
	struct iovec	 iov;
	struct cmsghdr	*cm;
	char		 tag = 'L';

	memset(&mh, 0, sizeof(mh));
	iov.iov_base = &tag;
	iov.iov_len = 1;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = CMSG_SPACE(nfd * sizeof(int));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(nfd * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, nfd * sizeof(int));
	ck_assert_int_eq(sendmsg(sock, &mh, 0), 1);
}

/* Two fds in one message, four (truncated), or a second fd message:
 * an error, and none of the fds stays open here. */
START_TEST(extra_fds_are_errors)
{
	char	 buf[32];
	int	 sp[2], fds[4], got, i, before;

	for (i = 0; i < 4; i++)
		fds[i] = open("/dev/null", O_RDONLY);
	before = nfds();
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp), 0);
		if (i == 0)
			send_fds(sp[0], fds, 2);
		else if (i == 1)
			send_fds(sp[0], fds, 4);
		else {
			ck_assert_int_eq(fdpass_send(sp[0], fds[0]), 0);
			ck_assert_int_eq(fdpass_send(sp[0], fds[1]), 0);
		}
		close(sp[0]);
		errno = 0;
		ck_assert_int_eq(fdpass_report(sp[1], buf, sizeof(buf), &got),
		    -1);
		ck_assert_int_eq(errno, EPROTO);
		ck_assert_int_eq(got, -1);
		close(sp[1]);
		ck_assert_int_eq(nfds(), before);
	}
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("fdpass");
	TCase	*tc = tcase_create("report");

	tcase_add_test(tc, fd_then_record_then_eof);
	tcase_add_test(tc, extra_fds_are_errors);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
