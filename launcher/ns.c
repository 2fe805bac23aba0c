// SPDX-License-Identifier: ISC
/*
 * Enter the sandbox's namespaces (SPEC R-L1): user, mount, pid, ipc, uts,
 * cgroup, and net when the plan asks for it.  The user namespace maps
 * only the caller's own uid and gid onto themselves, so inside the
 * sandbox a process is exactly the desktop user, with no other id to
 * become; "deny" in setgroups keeps it from dropping supplementary
 * groups to get around a group-based deny on the host.  The pid
 * namespace applies to our children: the next fork is its pid 1.
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
ns_enter(const struct launch_plan *plan)
{
	char	map[64];
	int	flags;

	/* Only the caller's own ids: we never map anyone else (R-L1). */
	if (plan->uid != geteuid() || plan->gid != getegid())
		diex("plan uid/gid %u/%u are not the caller's %u/%u",
		    plan->uid, plan->gid, geteuid(), getegid());

	flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS |
	    CLONE_NEWCGROUP | CLONE_NEWPID;
	if (plan->flags & PLAN_F_NET_NS)
		flags |= CLONE_NEWNET;
	if (unshare(flags) == -1)
		die("unshare");

	ns_write("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "%u %u 1\n", plan->uid, plan->uid);
	ns_write("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "%u %u 1\n", plan->gid, plan->gid);
	ns_write("/proc/self/gid_map", map);

	if (sethostname("airlock", strlen("airlock")) == -1)
		die("sethostname");
}
