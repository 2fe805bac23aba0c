// SPDX-License-Identifier: ISC
/*
 * Build the sandbox's root (SPEC R-L1..R-L3): a fresh tmpfs holding only
 * what the plan lists, applied in order, then pivot_root into it.
 *
 * Like bubblewrap, we first mount a staging tmpfs on /tmp of our private
 * mount namespace and pivot into it, so that the host's tree is at
 * /oldroot and the new root is being built at /newroot.  Every path is
 * then resolved with openat2(RESOLVE_IN_ROOT) against one of the two:
 * host paths (bind sources: canonical, no symlink followed) as the host
 * sees them, sandbox paths (destinations) as the sandbox will see them:
 * both may lie in writable binds a previous run controlled, and a planted
 * symlink never redirects a bind, and resolves in the sandbox's view in a
 * destination.  Mounts target the resolved file through /proc/self/fd/N,
 * so what was resolved is what gets mounted on.
 *
 * The root itself is remounted read-only at the end: writes only go to
 * the tmpfs and bind mounts the plan made writable.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <linux/mount.h>
#include <linux/openat2.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "launcher/launcher.h"

#define MOUNT_STAGE	"/tmp"		/* staging tmpfs, private to us */
#define MOUNT_PROCFD	"/oldroot/proc/self/fd/%d"

static int oldroot_fd = -1;	/* the host's tree */
static int newroot_fd = -1;	/* the sandbox's tree being built */

/* "/proc/self/fd/N": a path to exactly the file fd refers to; valid
 * until the next call. */
static const char *
fdp(int fd)
{
	static char	p[64];

	snprintf(p, sizeof(p), MOUNT_PROCFD, fd);
	return p;
}

/* Open path as if root were "/": symlinks and ".." cannot leave it. */
static int
root_open(int root, const char *path, int flags)
{
	struct open_how	how;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)((flags & ~O_NOFOLLOW) | O_CLOEXEC);
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS |
	    (flags & O_NOFOLLOW ? RESOLVE_NO_SYMLINKS : 0);
	return (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
}

static int mount_point(const char *, int);

/* Split "/a/b/c" into an O_PATH fd of "/a/b" (created) and "c". */
static int
mount_parent(const char *dst, char **namep)
{
	char	*dir = xstrdup(dst), *slash;
	int	 pfd;

	slash = strrchr(dir, '/');
	*namep = xstrdup(slash + 1);
	if (**namep == '\0')
		diex("path \"%s\" has no last name", dst);
	*slash = '\0';
	pfd = mount_point(dir[0] != '\0' ? dir : "/", 1);
	free(dir);
	return pfd;
}

/*
 * An O_PATH fd of dst in the new root, created if missing as a directory
 * or an empty file, its missing parents as directories (mkdir -p): each
 * one under a parent already resolved in the sandbox's view.
 */
static int
mount_point(const char *dst, int isdir)
{
	char	*name;
	int	 fd, pfd, flags = O_PATH | (isdir ? O_DIRECTORY : 0);

	if ((fd = root_open(newroot_fd, dst, flags)) != -1)
		return fd;
	if (errno != ENOENT)
		die("mount point %s", dst);
	pfd = mount_parent(dst, &name);
	if (isdir) {
		if (mkdirat(pfd, name, 0755) == -1)
			die("mkdir %s", dst);
	} else {
		fd = openat(pfd, name, O_CREAT | O_EXCL | O_WRONLY |
		    O_NOFOLLOW | O_CLOEXEC, 0444);
		if (fd == -1)
			die("create %s", dst);
		close(fd);
	}
	close(pfd);
	free(name);
	if ((fd = root_open(newroot_fd, dst, flags)) == -1)
		die("mount point %s", dst);
	return fd;
}

/*
 * Bind a clone of the mount tree at path (relative to sfd; "" for sfd
 * itself) onto dfd, with attr set on every mount in it: a recursive
 * bind brings the source's submounts along, and a read-only bind of
 * /usr must leave none of them writable.  The attributes are set on
 * the detached clone through its fd before it is attached: no path
 * string from mountinfo, no window, and each mount keeps the flags the
 * host locked on it (a remount would have to repeat them exactly).
 * what and dst name the mount in the reason of a failure.
 */
static void
mount_clone(int sfd, const char *path, int dfd, uint64_t attr,
    const char *what, const char *dst)
{
	struct mount_attr	a = { .attr_set = attr };
	int			t;

	if ((t = (int)syscall(SYS_open_tree, sfd, path, OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH)) == -1 ||
	    syscall(SYS_mount_setattr, t, "", AT_EMPTY_PATH | AT_RECURSIVE,
	    &a, sizeof(a)) == -1 || syscall(SYS_move_mount, t, "", dfd, "",
	    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) == -1)
		die("%s %s", what, dst);
	close(t);
}

/* A host path (or, PLAN_OPF_INSIDE, a file the plan made) at dst. */
static void
mount_bind(const struct launch_item *it)
{
	struct stat		 st;
	uint64_t		 attr;
	int			 src, dst;

	if ((src = root_open(it->flags & PLAN_OPF_INSIDE ? newroot_fd :
	    oldroot_fd, it->src, O_PATH | O_NOFOLLOW)) == -1) {
		if ((errno == ENOENT || errno == ELOOP) &&
		    (it->flags & PLAN_OPF_OPTIONAL)) {
			log_debug("bind %s: %s, skipped", it->src,
			    strerror(errno));
			return;
		}
		die("bind source %s (never through a symlink)", it->src);
	}
	if (fstat(src, &st) == -1)
		die("stat %s", it->src);
	dst = mount_point(it->dst, S_ISDIR(st.st_mode));
	attr = MOUNT_ATTR_NOSUID | (it->flags & PLAN_OPF_RO ?
	    MOUNT_ATTR_RDONLY : 0) | (it->flags & PLAN_OPF_DEV ? 0 :
	    MOUNT_ATTR_NODEV);
	mount_clone(src, "", dst, attr, "bind on", it->dst);
	close(dst);
	close(src);
	/* A bind on / (allowRead "/") covers newroot_fd's mount: every
	 * later item, masks included, goes on top of it, not beneath. */
	if (strcmp(it->dst, "/") == 0 && (close(newroot_fd), newroot_fd =
	    open("/newroot", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		die("open the new root again");
}

static void
mount_fs(const char *dst, const char *type, unsigned long flags,
    const char *data)
{
	int			fd;

	fd = mount_point(dst, 1);
	if (mount(type, fdp(fd), type, flags, data) == -1)
		die("mount %s on %s", type, dst);
	close(fd);
}

/*
 * tmpfs options: a sandbox's tmpfs is memory the watchdog's RSS sum
 * does not see, so the plan caps each one (R-S4); empty: the kernel's
 * default of half the RAM.
 */
static const char *
tmpfs_opts(char *buf, size_t len, const char *mode, const char *size)
{
	snprintf(buf, len, "mode=%s%s%s", mode, size[0] != '\0' ?
	    ",size=" : "", size);
	return buf;
}

static void
mount_symlink(const char *target, const char *dst)
{
	char	*name;
	int	 pfd;

	pfd = mount_parent(dst, &name);
	if (symlinkat(target, pfd, name) == -1)
		die("symlink %s", dst);
	close(pfd);
	free(name);
}

/*
 * A minimal /dev: a tmpfs with the host's harmless character devices
 * bound in (mknod is not allowed in a user namespace), a private devpts
 * instance, a /dev/shm and the usual symlinks.
 */
static void
mount_dev(const char *dst, const char *shm_size)
{
	static const char *const nodes[] = {
		"null", "zero", "full", "random", "urandom", "tty",
	};
	static const char *const links[][2] = {
		{ "pts/ptmx", "ptmx" }, { "/proc/self/fd", "fd" },
		{ "/proc/self/fd/0", "stdin" }, { "/proc/self/fd/1", "stdout" },
		{ "/proc/self/fd/2", "stderr" },
	};
	char	path[PATH_MAX], opts[64];
	size_t	i;
	int	fd;

	mount_fs(dst, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755");
	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dst, nodes[i]);
		fd = mount_point(path, 0);
		snprintf(path, sizeof(path), "dev/%s", nodes[i]);
		mount_clone(oldroot_fd, path, fd, MOUNT_ATTR_NOSUID,
		    "bind the host's", path);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/pts", dst);
	mount_fs(path, "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=620");
	snprintf(path, sizeof(path), "%s/shm", dst);
	mount_fs(path, "tmpfs", MS_NOSUID | MS_NODEV,
	    tmpfs_opts(opts, sizeof(opts), "1777", shm_size));
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dst, links[i][1]);
		mount_symlink(links[i][0], path);
	}
}

/*
 * An O_PATH fd of a path to mask or write-protect, or -1: one the sandbox
 * cannot reach needs nothing (missing, or beneath a directory the user
 * may not search: we have no capability over files the user does not
 * own, nor will any process inside).
 */
static int
mount_existing(const char *dst, const char *what)
{
	int	fd;

	if ((fd = root_open(newroot_fd, dst, O_PATH)) == -1 &&
	    errno != ENOENT && errno != ENOTDIR && errno != EACCES)
		die("%s %s", what, dst);
	if (fd == -1)
		log_debug("%s: %s, skipped", dst, strerror(errno));
	return fd;
}

/*
 * Deny-read (R-L2): a directory gets an empty read-only tmpfs of mode
 * 000, anything else an empty mode-000 file bound read-only over it.
 * Read-only, so that the owner cannot chmod its way back in.  A missing
 * path is skipped: the plan lists every spelling of every secret.
 */
static void
mount_mask(const char *dst)
{
	struct stat		 st;
	int			 fd;

	if ((fd = mount_existing(dst, "mask")) == -1)
		return;
	if (fstat(fd, &st) == -1)
		die("stat %s", dst);
	if (S_ISDIR(st.st_mode)) {
		if (mount("tmpfs", fdp(fd), "tmpfs", MS_RDONLY |
		    MS_NOSUID | MS_NODEV | MS_NOEXEC,
		    "mode=000,size=4k,nr_inodes=1") == -1)
			die("mask %s", dst);
	} else
		mount_clone(AT_FDCWD, "/mask-empty", fd, MOUNT_ATTR_RDONLY |
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
		    "mask", dst);
	close(fd);
}

/* Write-protect an existing path inside a writable bind (R-L3). */
static void
mount_remount_ro(const char *dst)
{
	int	fd;

	if ((fd = mount_existing(dst, "read-only")) == -1)
		return;
	mount_clone(fd, "", fd, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID,
	    "read-only", dst);
	close(fd);
}

/* A regular file created in the new root, e.g. a private .gitconfig. */
static void
mount_file(const struct launch_item *it)
{
	char		*name;
	int		 pfd, fd;

	pfd = mount_parent(it->dst, &name);
	fd = openat(pfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW |
	    O_CLOEXEC, it->mode);
	if (fd == -1)
		die("create %s", it->dst);
	/* A regular file takes the whole write (signals are blocked here)
	 * unless its filesystem is full: a short write is a failure. */
	errno = ENOSPC;
	if (write(fd, it->data, it->len) != (ssize_t)it->len)
		die("write %s", it->dst);
	if (fchmod(fd, it->mode) == -1)
		die("chmod %s", it->dst);
	close(fd);
	close(pfd);
	free(name);
}

static void
mount_op(const struct launch_item *it)
{
	char	opts[64];

	switch (it->op) {
	case PLAN_OP_BIND:
		mount_bind(it);
		break;
	case PLAN_OP_TMPFS:
		mount_fs(it->dst, "tmpfs", MS_NOSUID | MS_NODEV,
		    tmpfs_opts(opts, sizeof(opts), "0755", it->src));
		break;
	case PLAN_OP_DIR:
		close(mount_point(it->dst, 1));
		break;
	case PLAN_OP_PROC:
		mount_fs(it->dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		    NULL);
		break;
	case PLAN_OP_DEV:
		mount_dev(it->dst, it->src);
		break;
	case PLAN_OP_MASK:
		mount_mask(it->dst);
		break;
	case PLAN_OP_REMOUNT_RO:
		mount_remount_ro(it->dst);
		break;
	case PLAN_OP_SYMLINK:
		mount_symlink(it->src, it->dst);
		break;
	default:
		diex("op %u not applicable", it->op);
	}
}

void
mount_build(const struct launch_plan *plan)
{
	const struct launch_item	*it;
	int				 fd;

	/* The host's mounts as they are now, not when a spare started (ns.c);
	 * nothing we mount may propagate back to the host. */
	if (unshare(CLONE_NEWNS) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		die("a private mount namespace");
	if (mount("tmpfs", MOUNT_STAGE, "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=0700") == -1)
		die("staging tmpfs on %s", MOUNT_STAGE);
	if (chdir(MOUNT_STAGE) == -1 || mkdir("newroot", 0755) == -1 ||
	    mkdir("oldroot", 0755) == -1)
		die("staging dirs");
	if (mount("tmpfs", "newroot", "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=0755") == -1)
		die("root tmpfs");
	if ((fd = open("mask-empty", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
	    0)) == -1)
		die("mask file");
	close(fd);
	if (syscall(SYS_pivot_root, ".", "oldroot") == -1)
		die("pivot_root to staging");
	if (chdir("/") == -1)
		die("chdir /");
	if ((oldroot_fd = open("/oldroot", O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (newroot_fd = open("/newroot", O_PATH |
	    O_DIRECTORY | O_CLOEXEC)) == -1)
		die("open roots");

	for (it = plan->items; it != NULL; it = it->next) {
		if (it->type == MSG_PLAN_OP)
			mount_op(it);
		else if (it->type == MSG_PLAN_FILE)
			mount_file(it);
	}
	close(oldroot_fd);
	close(newroot_fd);

	/* Leave the host's tree behind for good. */
	if (umount2("/oldroot", MNT_DETACH) == -1)
		die("detach old root");
	if (chdir("/newroot") == -1)
		die("chdir new root");
	if (syscall(SYS_pivot_root, ".", ".") == -1)
		die("pivot_root to new root");
	if (umount2(".", MNT_DETACH) == -1)
		die("detach staging");
	if (chdir("/") == -1)
		die("chdir /");
	if (mount(NULL, "/", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY |
	    MS_NOSUID | MS_NODEV, NULL) == -1)
		die("remount / read-only");
}
