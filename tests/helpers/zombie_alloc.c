// SPDX-License-Identifier: ISC
/*
 * zombie_alloc: the main thread exits with pthread_exit() -- its task
 * stays a zombie thread-group leader, whose /proc/<pid>/statm reads as
 * empty -- while a second thread allocates and touches MIB mebibytes,
 * 8 MiB a step, then sleeps.  The memory watchdog must still count it
 * (hardening.sh, issue 11).
 *
 * usage: zombie_alloc MIB
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STEP	(8UL << 20)

static unsigned long	total;

static void *
alloc_loop(void *arg)
{
	unsigned long	done = 0;
	char		*p;

	(void)arg;
	while (done < total) {
		if ((p = malloc(STEP)) == NULL)
			break;
		memset(p, 0xa5, STEP);
		done += STEP;
		usleep(20000);
	}
	sleep(60);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t	t;

	if (argc != 2 || (total = strtoul(argv[1], NULL, 10) << 20) == 0) {
		fprintf(stderr, "usage: zombie_alloc MIB\n");
		return 2;
	}
	if (pthread_create(&t, NULL, alloc_loop, NULL) != 0)
		return 1;
	pthread_exit(NULL);
}
