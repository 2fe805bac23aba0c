// SPDX-License-Identifier: ISC
/*
 * R-L4 test helper: make an unnamed file with O_TMPFILE in DIR and try to
 * give it the name TARGET both ways a program can: linkat(fd, "",
 * AT_EMPTY_PATH) and linkat("/proc/self/fd/N", AT_SYMLINK_FOLLOW).
 * Prints "tmpfile=E emptypath=E procfd=E", each 0 or an errno name.
 *
 * usage: tmpfile_link DIR TARGET
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *
ename(int e)
{
	return e == 0 ? "0" : strerrorname_np(e);
}

int
main(int argc, char *argv[])
{
	char	proc[64];
	int	fd, e1, e2;

	if (argc != 3)
		return 2;
	if ((fd = open(argv[1], O_TMPFILE | O_WRONLY, 0600)) == -1) {
		printf("tmpfile=%s\n", ename(errno));
		return 1;
	}
	if (write(fd, "secret\n", 7) != 7)
		return 1;
	e1 = linkat(fd, "", AT_FDCWD, argv[2], AT_EMPTY_PATH) == -1 ?
	    errno : 0;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	e2 = linkat(AT_FDCWD, proc, AT_FDCWD, argv[2], AT_SYMLINK_FOLLOW) ==
	    -1 ? errno : 0;
	printf("tmpfile=0 emptypath=%s procfd=%s\n", ename(e1), ename(e2));
	return 0;
}
