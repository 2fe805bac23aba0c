// SPDX-License-Identifier: ISC
/*
 * R-L4 race test helper: one thread creates files with openat(O_CREAT)
 * and moves a file with rename(), both named by a shared buffer that
 * reads "xenv"; another thread keeps flipping the buffer's first byte to
 * '.', so that it reads ".env", as fast as it can.  A handler that checks
 * the path and then lets the kernel read it again ("continue") would
 * sooner or later create .env.  Prints how many calls succeeded and how
 * many were refused with EACCES; exits 1 if .env ever exists.
 *
 * usage: path_race ITERATIONS   (in the directory to test)
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile char	name[8] = "xenv";
static volatile int	stop;

static void *
flipper(void *arg)
{
	(void)arg;
	while (!stop) {
		name[0] = '.';
		name[0] = 'x';
	}
	return NULL;
}

int
main(int argc, char *argv[])
{
	pthread_t	t;
	long		i, n, made = 0, refused = 0, other = 0;
	int		fd;

	n = argc > 1 ? atol(argv[1]) : 10000;
	if (pthread_create(&t, NULL, flipper, NULL) != 0)
		return 2;
	for (i = 0; i < n; i++) {
		if (i % 2 == 0) {
			fd = openat(AT_FDCWD, (const char *)name,
			    O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
			if (fd != -1)
				close(fd);
		} else {
			if ((fd = open("src", O_WRONLY | O_CREAT, 0600)) != -1)
				close(fd);
			fd = rename("src", (const char *)name) == 0 ? 0 : -1;
		}
		if (fd != -1)
			made++;
		else if (errno == EACCES)
			refused++;
		else
			other++;
		(void)unlink("xenv");
		if (access(".env", F_OK) == 0)
			break;
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("made=%ld refused=%ld other=%ld env=%s\n", made, refused,
	    other, access(".env", F_OK) == 0 ? "yes" : "no");
	return access(".env", F_OK) == 0 ? 1 : 0;
}
