// SPDX-License-Identifier: ISC
/*
 * The memory watchdog (R-S4): every SV_WATCHDOG_MS the resident memory
 * of the session's pid namespace plus what its own tmpfs mounts hold;
 * past the limit the session is killed.  cgroup v2 is not used: on hosts
 * where it is not delegated airlockd must not touch cgroups.
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <linux/magic.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/host/paths.h"
#include "common/host/wsorigin.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"
#include "supervisor/gwrepo.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"
#include "supervisor/sv_sess.h"

/*
 * What the session's own tmpfs mounts hold: RAM that no process's RSS
 * shows (a file written to /tmp stays after its writer exits).  Seen
 * through /proc/<pid>/task/<tid>/root of a command inside, which
 * resolves in the sandbox's mount tree; init is not dumpable, the
 * commands are.  Only a tmpfs is counted, whatever a path turns out to
 * be.
 */
static uint64_t
session_tmpfs(struct sv_session *s, const char *task)
{
	struct statfs	sf;
	char		path[PATH_MAX];
	uint64_t	total = 0;
	size_t		i;

	for (i = 0; s->plan.tmpfs != NULL && s->plan.tmpfs[i] != NULL; i++) {
		snprintf(path, sizeof(path), "%s/root%s", task,
		    s->plan.tmpfs[i]);
		if (statfs(path, &sf) == -1)
			return UINT64_MAX;	/* try another pid */
		if (sf.f_type == TMPFS_MAGIC && sf.f_blocks >= sf.f_bfree)
			total += (uint64_t)(sf.f_blocks - sf.f_bfree) *
			    (uint64_t)sf.f_bsize;
	}
	return total;
}

/*
 * One thread group's resident memory, if it is in the session's pid
 * namespace; 0 otherwise.  The leader's /proc/<pid> entries describe the
 * leader's task: once it has exited (pthread_exit in main) they read as
 * empty while its other threads still hold the group's memory, so a
 * group whose leader does not answer is read through its live tasks.
 * *tmpfs gets the session's tmpfs usage, seen from the first task that
 * can show it.
 */
static uint64_t
group_rss(struct sv_session *s, const char *pid, uint64_t *tmpfs)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[384], buf[128], task[300];
	struct stat	 st;
	unsigned long	 pages = 0;
	long		 pagesize = sysconf(_SC_PAGESIZE);
	int		 fd;
	ssize_t		 n;

	/* Most of /proc is other processes: one stat decides. */
	snprintf(path, sizeof(path), "/proc/%s/ns/pid", pid);
	if (stat(path, &st) == 0 && st.st_ino != s->pidns)
		return 0;
	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(task, sizeof(task), "/proc/%s/task/%s", pid,
		    de->d_name);
		snprintf(path, sizeof(path), "%s/ns/pid", task);
		if (stat(path, &st) == -1 || st.st_ino != s->pidns)
			continue;
		if (*tmpfs == UINT64_MAX)
			*tmpfs = session_tmpfs(s, task);
		snprintf(path, sizeof(path), "%s/statm", task);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* Every task of the group shares one mm: count it once. */
		if (sscanf(buf, "%*u %lu", &pages) == 1 && pages > 0)
			break;
	}
	closedir(d);
	return (uint64_t)pages * (uint64_t)pagesize;
}

static uint64_t
session_rss(struct sv_session *s)
{
	DIR		*d;
	struct dirent	*de;
	uint64_t	 total = 0, fs = UINT64_MAX;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		total += group_rss(s, de->d_name, &fs);
	}
	closedir(d);
	if (fs != UINT64_MAX)
		total += fs;
	return total;
}

void
watchdog_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct sv_session *s = arg;
	uint64_t	 rss;
	struct sv_exec	*x;

	(void)fd;
	(void)ev;
	if (s->pidns == 0 || s->state == ST_DESTROYED ||
	    s->state == ST_ERROR)
		return;
	rss = session_rss(s);
	if (rss > s->peak_rss)
		s->peak_rss = rss;
	if (rss > s->spec.limits.memory_bytes) {
		for (x = s->execs; x != NULL && x->done; x = x->next)
			;
		event_killed(s, x, "oom");
		session_kill(s, "memory limit");
	}
}
