// SPDX-License-Identifier: ISC
/*
 * Unit tests for the exec child's report to init: a listener fd, then a
 * failure record or EOF (common/fdpass.c).
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <check.h>
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

int
main(void)
{
	Suite	*s = suite_create("fdpass");
	TCase	*tc = tcase_create("report");

	tcase_add_test(tc, fd_then_record_then_eof);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
