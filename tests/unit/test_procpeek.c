// SPDX-License-Identifier: ISC
/*
 * Unit tests for procpeek: the string and umask reads init's R-L4
 * handler makes of a stopped caller, here made of a child process (and
 * of ourselves), the edge cases being where a path argument may sit.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common/procpeek.h"
#include "tests/unit/unit.h"

START_TEST(strings)
{
	size_t	 pg = (size_t)sysconf(_SC_PAGESIZE);
	char	 buf[64], *m, big[8192];
	char	 s[] = "a/b/.env";

	ck_assert_int_eq(procpeek_str(getpid(), (uintptr_t)s, buf,
	    sizeof(buf)), 0);
	ck_assert_str_eq(buf, "a/b/.env");
	ck_assert_int_eq(procpeek_str(getpid(), 0, buf, sizeof(buf)),
	    -EFAULT);
	/* exactly len - 1 bytes and its NUL fit; one more does not */
	ck_assert_int_eq(procpeek_str(getpid(), (uintptr_t)s, buf, 9), 0);
	ck_assert_int_eq(procpeek_str(getpid(), (uintptr_t)s, buf, 8),
	    -ENAMETOOLONG);

	/* a string that crosses into the next page is read on ... */
	m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	memcpy(m + pg - 3, "abcdef", 7);
	ck_assert_int_eq(procpeek_str(getpid(), (uintptr_t)(m + pg - 3),
	    buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "abcdef");
	/* ... and one that runs into an unmapped page is a fault */
	ck_assert_int_eq(munmap(m + pg, pg), 0);
	memset(m + pg - 3, 'x', 3);
	ck_assert_int_eq(procpeek_str(getpid(), (uintptr_t)(m + pg - 3),
	    buf, sizeof(buf)), -EFAULT);
	munmap(m, pg);

	/* longer than a page, from the middle of one */
	memset(big, 'p', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	{
		char	out[8192];

		ck_assert_int_eq(procpeek_str(getpid(), (uintptr_t)big, out,
		    sizeof(out)), 0);
		ck_assert_uint_eq(strlen(out), sizeof(big) - 1);
	}
}
END_TEST

/* Where /dev/tty leads: the parse, then a real process on a real pty. */
START_TEST(ctty)
{
	char	 buf[64], want[64];
	int	 m, sl, p[2];
	pid_t	 pid;

	/* pts 3 is major 136 minor 3; pts 300 is major 137 minor 44;
	 * a name with ") " in it does not shift the fields. */
	ck_assert_int_eq(procpeek_ctty_parse("12 (a) b) S 1 12 12 34819 -1",
	    buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/dev/pts/3");
	ck_assert_int_eq(procpeek_ctty_parse("12 (sh) S 1 12 12 35116 -1",
	    buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/dev/pts/300");
	ck_assert_int_eq(procpeek_ctty_parse("12 (sh) S 1 12 12 0 -1", buf,
	    sizeof(buf)), -ENXIO);
	ck_assert_int_eq(procpeek_ctty_parse("12 (sh) S 1 12 12 1025 -1",
	    buf, sizeof(buf)), -ENXIO);	/* tty1: not a pty */
	ck_assert_int_eq(procpeek_ctty_parse("garbage", buf, sizeof(buf)),
	    -ENXIO);

	ck_assert_int_ne(m = posix_openpt(O_RDWR | O_NOCTTY), -1);
	ck_assert_int_eq(grantpt(m), 0);
	ck_assert_int_eq(unlockpt(m), 0);
	snprintf(want, sizeof(want), "%s", ptsname(m));
	ck_assert_int_eq(pipe(p), 0);
	if ((pid = fork()) == 0) {
		if (setsid() == -1 || (sl = open(want, O_RDWR)) == -1 ||
		    ioctl(sl, TIOCSCTTY, 0) == -1)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(p[0], buf, 1), 1);
	ck_assert_int_eq(procpeek_ctty(pid, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, want);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* This test's own process may or may not have a terminal; a
	 * process that is gone has none. */
	ck_assert_int_eq(procpeek_ctty(pid, buf, sizeof(buf)), -ENXIO);
	close(m);
}
END_TEST

START_TEST(umask_of_others)
{
	int	 p[2];
	pid_t	 pid;
	char	 c;

	ck_assert_int_eq(procpeek_umask_parse("Name:\tx\nUmask:\t0027\n"),
	    027);
	ck_assert_int_eq(procpeek_umask_parse("Name:\tx\n"), 022);

	/* a child with its own umask, then a pid that has gone */
	ck_assert_int_eq(pipe(p), 0);
	if ((pid = fork()) == 0) {
		umask(077);
		close(p[0]);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	ck_assert_int_eq(procpeek_umask(pid), 077);
	/* the cached file is read again: a change is seen */
	umask(002);
	ck_assert_int_eq(procpeek_umask(getpid()), 002);
	ck_assert_int_eq(procpeek_umask(pid), 077);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ck_assert_int_eq(procpeek_umask(pid), 022);
	{
		char	out[2];

		ck_assert_int_eq(procpeek_str(pid, (uintptr_t)out, out,
		    sizeof(out)), -ESRCH);
	}
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("procpeek");
	TCase	*tc = tcase_create("peek");

	tcase_add_test(tc, strings);
	tcase_add_test(tc, umask_of_others);
	tcase_add_test(tc, ctty);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
