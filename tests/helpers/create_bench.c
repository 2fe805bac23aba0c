// SPDX-License-Identifier: ISC
/*
 * R-L4 benchmark helper: the latency a write-intent open pays.  Creates
 * N files (open O_CREAT|O_EXCL, close) in DIR, then opens each for
 * writing again, and prints the mean microseconds per create and per
 * open.  Files are removed afterwards (not timed).
 *
 * usage: create_bench DIR N
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double
now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int
main(int argc, char *argv[])
{
	char	path[4096];
	double	t0, t1, t2;
	long	i, n;
	int	fd;

	if (argc != 3 || (n = atol(argv[2])) <= 0)
		return 2;
	t0 = now_us();
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0644)) == -1)
			return 1;
		close(fd);
	}
	t1 = now_us();
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
			return 1;
		close(fd);
	}
	t2 = now_us();
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		unlink(path);
	}
	printf("create %.1f us, open-for-write %.1f us\n", (t1 - t0) / n,
	    (t2 - t1) / n);
	return 0;
}
