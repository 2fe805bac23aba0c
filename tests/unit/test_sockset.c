// SPDX-License-Identifier: ISC
/*
 * The sandbox's own unix sockets (common/sockset.c) and a socket call's
 * arguments read from a process (procpeek_sockarg): a socket bound and
 * added is reachable, through a rename too; another socket, one made
 * again at the same name, a file that is not a socket are not.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <check.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/procpeek.h"
#include "common/sockset.h"
#include "tests/unit/unit.h"

static char	dir[64];

static int
listener(const char *name)
{
	struct sockaddr_un	un;
	int			fd;

	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	snprintf(un.sun_path, sizeof(un.sun_path), "%s/%s", dir, name);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&un, sizeof(un)), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	return fd;
}

static int
has_btime(int dfd)
{
	struct statx	st;

	return statx(dfd, "", AT_EMPTY_PATH, STATX_BTIME, &st) == 0 &&
	    (st.stx_mask & STATX_BTIME) && (st.stx_btime.tv_sec != 0 ||
	    st.stx_btime.tv_nsec != 0);
}

static int
try(int dfd, const char *name)
{
	int	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0), r;

	/* Non-blocking: connected here, not in a child. */
	r = sockset_connect(fd, dfd, name, -1, 0);
	close(fd);
	return r;
}

START_TEST(own_only)
{
	int	dfd, a, b, f;

	snprintf(dir, sizeof(dir), "/tmp/test_sockset.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	dfd = open(dir, O_PATH | O_DIRECTORY);
	a = listener("own");
	b = listener("host");
	ck_assert_int_eq(sockset_check(dfd, "own", AT_SYMLINK_NOFOLLOW, 1),
	    1);
	ck_assert_int_eq(sockset_check(dfd, "own", 0, 0), 1);
	ck_assert_int_eq(sockset_check(dfd, "host", 0, 0), 0);
	ck_assert_int_eq(try(dfd, "own"), 0);
	/* Blocking, with room in the backlog: connected here too. */
	f = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_eq(sockset_connect(f, dfd, "own", -1, 0), 0);
	ck_assert_int_eq(fcntl(f, F_GETFL) & O_NONBLOCK, 0);
	close(f);
	ck_assert_int_eq(try(dfd, "host"), SOCKSET_REFUSED);
	/* Renamed: the same inode, still ours where the filesystem keeps
	 * a birth time; refused (the change time moved) where not. */
	ck_assert_int_eq(renameat(dfd, "own", dfd, "moved"), 0);
	ck_assert_int_eq(try(dfd, "moved"), has_btime(dfd) ? 0 :
	    SOCKSET_REFUSED);
	/* A link to another's socket: still not ours. */
	ck_assert_int_eq(linkat(dfd, "host", dfd, "hl", 0), 0);
	ck_assert_int_eq(try(dfd, "hl"), SOCKSET_REFUSED);
	ck_assert_int_eq(symlinkat("host", dfd, "sl"), 0);
	ck_assert_int_eq(try(dfd, "sl"), SOCKSET_REFUSED);
	/* Not a socket; gone. */
	f = openat(dfd, "file", O_CREAT | O_WRONLY, 0600);
	ck_assert_int_eq(try(dfd, "file"), -ECONNREFUSED);
	ck_assert_int_eq(try(dfd, "none"), -ENOENT);
	/* Made again at the old name by someone else: not ours. */
	close(a);
	unlinkat(dfd, "moved", 0);
	a = listener("moved");
	ck_assert_int_eq(try(dfd, "moved"), SOCKSET_REFUSED);
	close(a);
	close(b);
	close(f);
	unlinkat(dfd, "moved", 0);
	unlinkat(dfd, "host", 0);
	unlinkat(dfd, "hl", 0);
	unlinkat(dfd, "sl", 0);
	unlinkat(dfd, "file", 0);
	close(dfd);
	rmdir(dir);
}
END_TEST

START_TEST(sockarg)
{
	struct sockaddr_storage	 sa;
	struct sockaddr_un	 un;
	struct stat		 s1, s2;
	int			 s, fd;

	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	strcpy(un.sun_path, "/x");
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_eq(procpeek_sockarg(getpid(), s, (uintptr_t)&un,
	    sizeof(un), &sa, &fd), 0);
	ck_assert_int_eq(memcmp(&sa, &un, sizeof(un)), 0);
	/* The same open socket. */
	fstat(s, &s1);
	fstat(fd, &s2);
	ck_assert(s1.st_ino == s2.st_ino);
	close(fd);
	ck_assert_int_eq(procpeek_sockarg(getpid(), s, (uintptr_t)&un,
	    sizeof(sa) + 1, &sa, &fd), -EINVAL);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(procpeek_sockarg(getpid(), 999, (uintptr_t)&un,
	    sizeof(un), &sa, &fd), -EBADF);
	close(s);
}
END_TEST

static pid_t		tid;
static pthread_mutex_t	mu = PTHREAD_MUTEX_INITIALIZER;

static void *
sleeper(void *arg)
{
	(void)arg;
	tid = gettid();
	pthread_mutex_lock(&mu);	/* until the test is done */
	pthread_mutex_unlock(&mu);
	return NULL;
}

/* The calling thread need not lead its process (Bun's connects). */
START_TEST(sockarg_thread)
{
	struct sockaddr_storage	 sa;
	struct sockaddr_un	 un;
	pthread_t		 t;
	int			 s, fd;

	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	pthread_mutex_lock(&mu);
	tid = 0;
	pthread_create(&t, NULL, sleeper, NULL);
	while (__atomic_load_n(&tid, __ATOMIC_SEQ_CST) == 0)
		usleep(1000);
	ck_assert_int_ne(tid, getpid());
	ck_assert_int_eq(procpeek_sockarg(tid, s, (uintptr_t)&un,
	    sizeof(un), &sa, &fd), 0);
	ck_assert_int_ne(fd, -1);
	close(fd);
	pthread_mutex_unlock(&mu);
	pthread_join(t, NULL);
	close(s);
}
END_TEST

int
main(void)
{
	Suite	*su = suite_create("sockset");
	TCase	*tc = tcase_create("sockset");

	tcase_add_test(tc, own_only);
	tcase_add_test(tc, sockarg);
	tcase_add_test(tc, sockarg_thread);
	suite_add_tcase(su, tc);
	return unit_run(su);
}
