// SPDX-License-Identifier: ISC
/*
 * Enter the sandbox's namespaces (SPEC R-L1) before the plan comes, so
 * that airlockd can start a launcher ahead of need: user, pid, ipc, uts,
 * cgroup, net (the mount namespace comes with the plan, mount.c).  The
 * user namespace maps only our own uid and gid (plan_recv() refuses a plan
 * for anyone else): inside, a process is exactly the desktop user; "deny"
 * in setgroups keeps it from dropping supplementary groups to get around
 * a group-based deny on the host.  The next fork is the pid namespace's 1.
 */
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "launcher/launcher.h"

static void
ns_write(const char *path, const char *text)
{
	size_t	len = strlen(text);
	int	fd;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		die("open %s", path);
	if (write(fd, text, len) != (ssize_t)len)
		die("write %s", path);
	close(fd);
}

void
ns_enter(void)
{
	char	map[64];
	uid_t	uid = geteuid();	/* 65534 once unshared, until mapped */
	gid_t	gid = getegid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWIPC | CLONE_NEWUTS |
	    CLONE_NEWCGROUP | CLONE_NEWPID | CLONE_NEWNET) == -1)
		die("unshare");

	ns_write("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	ns_write("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	ns_write("/proc/self/gid_map", map);

	if (sethostname("airlock", strlen("airlock")) == -1)
		die("sethostname");
}
