// SPDX-License-Identifier: ISC
/*
 * The copy-on-write tree copier (see copier.h).
 *
 * Parallel walk: a stack of directories waits for nthreads workers.  A
 * worker opens a directory relative to its parent's fds, creates its
 * copy, lists it, clones each regular file on the spot and pushes each
 * subdirectory.  A directory's mode and times are set when its whole
 * subtree is done (creating entries in it would change its mtime again),
 * so each directory counts its unfinished children; the last one to
 * finish completes its parent.  A directory holds its two fds from the
 * moment a worker starts it until its subtree is done; queued ones hold
 * none, so the fds in use grow with depth times workers, not with the
 * tree's width.  The stack (last in, first out) keeps it that way.
 *
 * Untrusted: the tree itself (the agent of an earlier conversation may
 * have written anything in a checkout): names are used only relative to
 * their directory fd, nothing is followed (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW),
 * and a file is opened with O_NONBLOCK and checked with fstat, so a fifo
 * swapped in for a file cannot block a worker.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>

#include <linux/fs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clone/copier.h"

#ifndef FICLONE
#define FICLONE		_IOW(0x94, 9, int)
#endif

/* Each worker lists with getdents64 into its own buffer: no DIR, no
 * malloc and no second open of the directory per listing. */
#define CP_LISTBUF	32768

struct cp_dir {
	struct cp_dir	*parent;
	struct cp_dir	*next;		/* on the stack */
	struct cp_dir	*lprev, *lnext;	/* in the list of live dirs */
	char		*name;		/* in the parent; NULL for the root */
	int		 srcfd, dstfd;	/* -1 until a worker starts it */
	int		 chmod;		/* created with another mode */
	int		 update;	/* cp_update: the copy has it already */
	int		 apply;		/* update: its mode and times to set */
	int		 moved;		/* update: the copy's is of another
					   source directory */
	unsigned	 pending;	/* own listing + unfinished children */
	struct stat	 st;		/* of the source, applied at the end */
};

struct cp_job {
	pthread_mutex_t	 mu;
	pthread_cond_t	 work;		/* the stack grew, or the end */
	pthread_cond_t	 idle;		/* a worker exited */
	pthread_t	*threads;
	int		 nthreads;
	int		 nalive;
	struct cp_dir	*stack;
	struct cp_dir	*live;
	int		 done;		/* the root is complete */
	int		 failed;	/* errno of the first failure */
	char		 msg[1024];
	struct cp_stats	 st;		/* atomics */
	mode_t		 umask;		/* the process's, read at the start */
	struct timespec	 since;		/* cp_update: the copy's start */
	int		 mark;		/* cp_spare */
};

/*
 * cp_spare marks each directory of its copy with the source directory's
 * device and inode; cp_update reads and removes the mark.  A directory
 * moved in from elsewhere (or the tree replaced by another) has files
 * whose ctimes predate the copy, and whose size, mtime and mode may all
 * agree with what the copy has under that name (two unpacked releases
 * of one package): only the directory's identity tells them apart.
 */
#define CP_MARK		"user.airlock.src"

struct cp_mark {
	uint64_t	dev, ino;
};

static int
mark_set(int fd, const struct stat *st)
{
	struct cp_mark	m = { (uint64_t)st->st_dev, (uint64_t)st->st_ino };

	return fsetxattr(fd, CP_MARK, &m, sizeof(m), 0);
}

/* The copy's directory fd is still of the source directory st (its mark
 * says so); the mark is removed either way: no copy keeps it. */
static int
mark_same(int fd, const struct stat *st)
{
	struct cp_mark	m;
	ssize_t		n = fgetxattr(fd, CP_MARK, &m, sizeof(m));

	if (n >= 0)
		(void)fremovexattr(fd, CP_MARK);
	return n == (ssize_t)sizeof(m) && m.dev == (uint64_t)st->st_dev &&
	    m.ino == (uint64_t)st->st_ino;
}

const char *
cp_fs_name(long t)
{
	switch ((unsigned long)t & 0xffffffffUL) {
	case 0x58465342UL:	return "xfs";
	case 0x9123683eUL:	return "btrfs";
	case 0xef53UL:		return "ext4";
	case 0x01021994UL:	return "tmpfs";
	case 0x794c7630UL:	return "overlayfs";
	case 0xca451a4eUL:	return "bcachefs";
	case 0xf2f52010UL:	return "f2fs";
	case 0x2fc12fc1UL:	return "zfs";
	case 0x6969UL:		return "nfs";
	case 0xff534d42UL:	return "cifs";
	case 0x7461636fUL:	return "ocfs2";
	case 0x65735546UL:	return "fuse";
	case 0x4d44UL:		return "vfat";
	case 0x5346544eUL:	return "ntfs";
	case 0x858458f6UL:	return "ramfs";
	default:		return "an unknown filesystem";
	}
}

static void
stat_add(uint64_t *p, uint64_t n)
{
	__atomic_add_fetch(p, n, __ATOMIC_RELAXED);
}

/* "a/b/c" of a directory, for messages. */
static void
dir_path(const struct cp_dir *d, const char *leaf, char *buf, size_t len)
{
	const char *parts[256];
	size_t	 n = 0, off = 0;
	int	 k;

	if (leaf != NULL)
		parts[n++] = leaf;
	for (; d != NULL && d->name != NULL && n < 256; d = d->parent)
		parts[n++] = d->name;
	buf[0] = '\0';
	if (n == 0) {
		snprintf(buf, len, ".");
		return;
	}
	for (k = (int)n - 1; k >= 0 && off < len; k--) {
		int w = snprintf(buf + off, len - off, "%s%s", parts[k],
		    k > 0 ? "/" : "");

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

static void __attribute__((format(printf, 3, 4)))
fail(struct cp_job *j, int err, const char *fmt, ...)
{
	va_list	ap;

	pthread_mutex_lock(&j->mu);
	if (j->failed == 0) {
		j->failed = err != 0 ? err : EIO;
		va_start(ap, fmt);
		vsnprintf(j->msg, sizeof(j->msg), fmt, ap);
		va_end(ap);
		pthread_cond_broadcast(&j->work);
	}
	pthread_mutex_unlock(&j->mu);
}

static int
failed(struct cp_job *j)
{
	return __atomic_load_n(&j->failed, __ATOMIC_RELAXED) != 0;
}

/* The one refusal users meet: say which filesystem, and what to do. */
static void
fail_clone(struct cp_job *j, struct cp_dir *d, const char *name, int err,
    int sfd, int dfd)
{
	struct statfs	sfs, dfs;
	const char	*sn = "?", *dn = "?";
	char		 path[PATH_MAX];

	if (fstatfs(sfd, &sfs) == 0)
		sn = cp_fs_name(sfs.f_type);
	if (fstatfs(dfd, &dfs) == 0)
		dn = cp_fs_name(dfs.f_type);
	dir_path(d, name, path, sizeof(path));
	if (err == EXDEV)
		fail(j, err, "the repository (on %s) and the worktree data dir "
		    "(on %s) are different filesystems, and a copy-on-write "
		    "clone (reflink) cannot cross them (FICLONE of %s: %s); "
		    "set worktrees.dataDir to a directory on the repository's "
		    "filesystem", sn, dn, path, strerror(err));
	else if (err == EOPNOTSUPP || err == EINVAL || err == ENOTTY ||
	    err == ENOSYS)
		fail(j, EOPNOTSUPP, "%s cannot clone files copy-on-write "
		    "(FICLONE of %s: %s); airlock never falls back to a byte "
		    "copy: keep the repository and worktrees.dataDir on one "
		    "filesystem with reflinks (XFS made with mkfs.xfs -m "
		    "reflink=1, btrfs or bcachefs)%s", dn, path,
		    strerror(err), strcmp(dn, "xfs") == 0 ? "; this XFS was "
		    "made without reflink=1" : "");
	else
		fail(j, err, "clone %s: %s", path, strerror(err));
}

static void
copy_times(const struct stat *st, struct timespec ts[2])
{
	ts[0] = st->st_atim;
	ts[1] = st->st_mtim;
}

/* setuid and setgid are not carried into a copy the agent works in. */
static mode_t
copy_mode(const struct stat *st)
{
	return st->st_mode & (0777 | S_ISVTX);
}

/*
 * A new open file description of the directory fd, for a listing of its
 * own: a dup() would share the offset, and a second listing of the same
 * description (ours or the caller's) would start at its end.
 */
static int
reopen_dir(int fd)
{
	return openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void	copy_entry(struct cp_job *, struct cp_dir *, const char *,
		    unsigned char);

static void
clone_file(struct cp_job *j, struct cp_dir *d, const char *name, int sfd,
    const struct stat *st)
{
	struct timespec ts[2];
	char	 path[PATH_MAX];
	int	 dfd;

	/* Created with its final mode (the fd that O_CREAT returns writes
	 * even a 0444 file): no fchmod, unless the umask masks bits. */
	dfd = openat(d->dstfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    copy_mode(st));
	if (dfd == -1) {
		dir_path(d, name, path, sizeof(path));
		fail(j, errno, "create %s in the copy: %s", path,
		    strerror(errno));
		return;
	}
	/* An empty file has no extents to share: created is cloned. */
	if (st->st_size != 0 && ioctl(dfd, FICLONE, sfd) == -1) {
		fail_clone(j, d, name, errno, sfd, dfd);
		close(dfd);
		return;
	}
	copy_times(st, ts);
	if (((copy_mode(st) & j->umask) != 0 &&
	    fchmod(dfd, copy_mode(st)) == -1) || futimens(dfd, ts) == -1) {
		dir_path(d, name, path, sizeof(path));
		fail(j, errno, "set the mode and times of %s: %s", path,
		    strerror(errno));
	}
	close(dfd);
	stat_add(&j->st.files, 1);
	stat_add(&j->st.bytes, (uint64_t)st->st_size);
}

static void
copy_symlink(struct cp_job *j, struct cp_dir *d, const char *name,
    const struct stat *st)
{
	struct timespec ts[2];
	char	 target[PATH_MAX + 1], path[PATH_MAX];
	ssize_t	 n;

	n = readlinkat(d->srcfd, name, target, sizeof(target));
	if (n == -1 && (errno == ENOENT || errno == EINVAL)) {
		stat_add(&j->st.vanished, 1);	/* gone, or no longer a link */
		return;
	}
	dir_path(d, name, path, sizeof(path));
	if (n == -1 || (size_t)n >= sizeof(target)) {
		fail(j, n == -1 ? errno : ENAMETOOLONG, "read the symlink %s: "
		    "%s", path, strerror(n == -1 ? errno : ENAMETOOLONG));
		return;
	}
	target[n] = '\0';
	copy_times(st, ts);
	if (symlinkat(target, d->dstfd, name) == -1) {
		fail(j, errno, "create the symlink %s: %s", path,
		    strerror(errno));
		return;
	}
	/* A symlink's own times; its mode means nothing on Linux. */
	if (utimensat(d->dstfd, name, ts, AT_SYMLINK_NOFOLLOW) == -1) {
		fail(j, errno, "set the times of %s: %s", path,
		    strerror(errno));
		return;
	}
	stat_add(&j->st.symlinks, 1);
}

static void
push_dir(struct cp_job *j, struct cp_dir *parent, const char *name,
    int update)
{
	struct cp_dir *c = calloc(1, sizeof(*c));

	if (c == NULL || (c->name = strdup(name)) == NULL) {
		free(c);
		fail(j, ENOMEM, "out of memory");
		return;
	}
	c->parent = parent;
	c->srcfd = c->dstfd = -1;
	c->update = update;
	c->pending = 1;
	__atomic_add_fetch(&parent->pending, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_lock(&j->mu);
	c->lnext = j->live;
	if (j->live != NULL)
		j->live->lprev = c;
	j->live = c;
	c->next = j->stack;
	j->stack = c;
	pthread_cond_signal(&j->work);
	pthread_mutex_unlock(&j->mu);
}

static void
dir_unlink_live(struct cp_job *j, struct cp_dir *d)
{
	if (d->lprev != NULL)
		d->lprev->lnext = d->lnext;
	else
		j->live = d->lnext;
	if (d->lnext != NULL)
		d->lnext->lprev = d->lprev;
}

static void
dir_free(struct cp_dir *d)
{
	if (d->srcfd != -1)
		close(d->srcfd);
	if (d->dstfd != -1)
		close(d->dstfd);
	free(d->name);
	free(d);
}

/*
 * One reference of d is gone (its listing, or a child's subtree).  The
 * last one applies d's mode and times and passes the news to its parent.
 */
static void
dir_release(struct cp_job *j, struct cp_dir *d)
{
	struct cp_dir	*p;
	struct timespec	 ts[2];
	char		 path[PATH_MAX];

	while (d != NULL &&
	    __atomic_sub_fetch(&d->pending, 1, __ATOMIC_ACQ_REL) == 0) {
		p = d->parent;
		if (!failed(j) && d->dstfd != -1 && (!d->update ||
		    d->apply)) {
			copy_times(&d->st, ts);
			if ((d->chmod && fchmod(d->dstfd,
			    copy_mode(&d->st)) == -1) ||
			    futimens(d->dstfd, ts) == -1) {
				dir_path(d, NULL, path, sizeof(path));
				fail(j, errno, "set the mode and times of %s: "
				    "%s", path, strerror(errno));
			}
		}
		pthread_mutex_lock(&j->mu);
		dir_unlink_live(j, d);
		if (p == NULL) {
			j->done = 1;
			pthread_cond_broadcast(&j->work);
		}
		pthread_mutex_unlock(&j->mu);
		dir_free(d);
		d = p;
	}
}

/* cp_update: changed since the copy began (ctime: only the kernel sets
 * it, on every change of content, mode, times, links or name). */
static int
newer(const struct cp_job *j, const struct stat *st)
{
	return st->st_ctim.tv_sec > j->since.tv_sec ||
	    (st->st_ctim.tv_sec == j->since.tv_sec &&
	    st->st_ctim.tv_nsec >= j->since.tv_nsec);
}

/* cp_update: d's copy changed, so its mode and times are set again. */
static void
mark_apply(struct cp_dir *d)
{
	__atomic_store_n(&d->apply, 1, __ATOMIC_RELAXED);
}

/*
 * cp_update: an entry of d's earlier copy that the source no longer has
 * (or has as something else) is removed, a directory with all beneath.
 */
static int
dst_remove(struct cp_job *j, struct cp_dir *d, const char *name)
{
	char		 path[PATH_MAX], msg[256];
	uint64_t	 n = 0;
	int		 fd, e;

	mark_apply(d);
	if (unlinkat(d->dstfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	e = errno;
	snprintf(msg, sizeof(msg), "%s", strerror(e));
	if (e == EISDIR && (fd = openat(d->dstfd, name, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) != -1) {
		e = cp_empty_dir(fd, &n, msg, sizeof(msg)) == 0 ? 0 : errno;
		close(fd);
		if (e == 0 && unlinkat(d->dstfd, name, AT_REMOVEDIR) == 0)
			return 0;
		if (e == 0) {
			e = errno;
			snprintf(msg, sizeof(msg), "%s", strerror(e));
		}
	}
	dir_path(d, name, path, sizeof(path));
	fail(j, e, "remove %s from the earlier copy: %s", path, msg);
	return -1;
}

/*
 * cp_update: open d's earlier copy.  1 when it is there, 0 when it is
 * not (or is not a directory, now removed): d is then copied anew; -1
 * on failure.  A directory that changed, or whose mode would keep us
 * out, is made ours (0700) until its subtree is done.
 */
static int
dir_keep(struct cp_job *j, struct cp_dir *d, const char *path)
{
	d->dstfd = openat(d->parent->dstfd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->dstfd == -1) {
		if (errno != ENOENT && ((errno != ENOTDIR && errno != ELOOP) ||
		    dst_remove(j, d->parent, d->name) == -1)) {
			if (!failed(j))
				fail(j, errno, "open the directory %s in the "
				    "earlier copy: %s", path, strerror(errno));
			return -1;
		}
		mark_apply(d->parent);
		stat_add(&j->st.changed, 1);
		d->update = 0;
		return 0;
	}
	if (newer(j, &d->st) || (copy_mode(&d->st) & 0700) != 0700) {
		d->apply = d->chmod = 1;
		if (fchmod(d->dstfd, 0700) == -1) {
			fail(j, errno, "make %s in the earlier copy writable: "
			    "%s", path, strerror(errno));
			return -1;
		}
	}
	/* Another directory's copy: its entries are all made again, its
	 * mode and times set. */
	if ((d->moved = !mark_same(d->dstfd, &d->st)))
		d->apply = d->chmod = 1;
	stat_add(&j->st.dirs, 1);
	return 1;
}

/* Open d's source and create its copy (the root's are given). */
static int
dir_open(struct cp_job *j, struct cp_dir *d)
{
	char	 path[PATH_MAX];
	mode_t	 mode;
	int	 fd, k;

	if (d->parent == NULL)
		return 0;
	fd = openat(d->parent->srcfd, d->name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1 && (errno == ENOENT || errno == ENOTDIR ||
	    errno == ELOOP)) {
		/* Gone, or replaced by something else since the listing;
		 * an update drops its earlier copy too. */
		stat_add(&j->st.vanished, 1);
		if (d->update)
			(void)dst_remove(j, d->parent, d->name);
		return -1;
	}
	dir_path(d, NULL, path, sizeof(path));
	if (fd == -1 || fstat(fd, &d->st) == -1) {
		fail(j, errno, "open the directory %s: %s", path,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	d->srcfd = fd;
	if (d->update && (k = dir_keep(j, d, path)) != 0)
		return k == 1 ? 0 : -1;
	/* With its final mode when that lets us fill it (and nothing
	 * masks it): no fchmod at the end.  A directory we could not
	 * write (0555) is made 0700 and gets its mode when complete. */
	mode = copy_mode(&d->st);
	d->chmod = (mode & 0700) != 0700 || (mode & j->umask) != 0;
	if (mkdirat(d->parent->dstfd, d->name, d->chmod ? 0700 : mode) ==
	    -1 ||
	    (d->dstfd = openat(d->parent->dstfd, d->name, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		fail(j, errno, "create the directory %s in the copy: %s",
		    path, strerror(errno));
		return -1;
	}
	if (j->mark && mark_set(d->dstfd, &d->st) == -1) {
		fail(j, errno, "mark the directory %s in the copy: %s",
		    path, strerror(errno));
		return -1;
	}
	stat_add(&j->st.dirs, 1);
	return 0;
}

static void
copy_by_stat(struct cp_job *j, struct cp_dir *d, const char *name,
    const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		push_dir(j, d, name, 0);
	else if (S_ISLNK(st->st_mode))
		copy_symlink(j, d, name, st);
	else if (S_ISREG(st->st_mode))
		copy_entry(j, d, name, DT_REG);
	else
		stat_add(&j->st.skipped, 1);
}

/*
 * One entry of d.  dtype from readdir saves a stat for most entries;
 * what the open finds wins over it (the tree may change meanwhile).
 */
static void
copy_entry(struct cp_job *j, struct cp_dir *d, const char *name,
    unsigned char dtype)
{
	struct stat	 st;
	char		 path[PATH_MAX];
	int		 sfd;

	switch (dtype) {
	case DT_DIR:
		push_dir(j, d, name, 0);
		return;
	case DT_REG:
		sfd = openat(d->srcfd, name, O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (sfd == -1 && errno == ENOENT) {
			stat_add(&j->st.vanished, 1);
			return;
		}
		if (sfd == -1 && errno != ELOOP && errno != ENXIO) {
			dir_path(d, name, path, sizeof(path));
			fail(j, errno, "open %s: %s", path, strerror(errno));
			return;
		}
		if (sfd != -1 && fstat(sfd, &st) == 0 && S_ISREG(st.st_mode)) {
			clone_file(j, d, name, sfd, &st);
			close(sfd);
			return;
		}
		if (sfd != -1)
			close(sfd);
		break;		/* not a file any more: look again */
	case DT_LNK:
	case DT_UNKNOWN:
		break;
	default:
		stat_add(&j->st.skipped, 1);	/* fifo, socket, device */
		return;
	}
	if (fstatat(d->srcfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno == ENOENT) {
			stat_add(&j->st.vanished, 1);
			return;
		}
		dir_path(d, name, path, sizeof(path));
		fail(j, errno, "stat %s: %s", path, strerror(errno));
		return;
	}
	if (dtype == DT_REG && S_ISREG(st.st_mode)) {
		stat_add(&j->st.vanished, 1);	/* replaced, twice: give up */
		return;
	}
	copy_by_stat(j, d, name, &st);
}

/* The entries of d's earlier copy (cp_update), sorted by name. */
struct dst_name {
	const char	*name;
	size_t		 off;		/* in the arena, while it grows */
	unsigned char	 type;
	unsigned char	 seen;		/* the source has it too */
};

struct dst_names {
	char		*arena;
	size_t		 alen, acap;
	struct dst_name	*v;
	size_t		 n, cap;
};

typedef void	(*entry_fn)(struct cp_job *, struct cp_dir *, const char *,
		    unsigned char, void *);

/*
 * Call fn for each entry of the directory fd (d's source or copy, a
 * description nobody else lists: opened by dir_open, or for the root by
 * cp_start) as getdents64 puts them into the worker's buffer.  -1 when
 * the listing failed.
 */
static int
each_entry(struct cp_job *j, struct cp_dir *d, int fd, char *buf,
    entry_fn fn, void *arg)
{
	struct dirent64	*de;
	char		 path[PATH_MAX];
	ssize_t		 n, off;

	while (!failed(j)) {
		if ((n = getdents64(fd, buf, CP_LISTBUF)) <= 0) {
			/* ENOENT: the directory was removed meanwhile */
			if (n == -1 && errno != ENOENT) {
				dir_path(d, NULL, path, sizeof(path));
				fail(j, errno, "list %s%s: %s", path,
				    fd == d->dstfd ? " in the earlier copy" :
				    "", strerror(errno));
				return -1;
			}
			return 0;
		}
		for (off = 0; off < n && !failed(j); off += de->d_reclen) {
			de = (struct dirent64 *)(void *)(buf + off);
			if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
			    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
				continue;
			fn(j, d, de->d_name, de->d_type, arg);
		}
	}
	return -1;
}

static void
copy_cb(struct cp_job *j, struct cp_dir *d, const char *name,
    unsigned char dtype, void *arg)
{
	(void)arg;
	copy_entry(j, d, name, dtype);
}

static void
dst_add(struct cp_job *j, struct cp_dir *d, const char *name,
    unsigned char dtype, void *arg)
{
	struct dst_names *dn = arg;
	size_t		  len = strlen(name) + 1;
	void		 *p;

	(void)d;
	if (dn->alen + len > dn->acap) {
		dn->acap = (dn->acap + len) * 2;
		if ((p = realloc(dn->arena, dn->acap)) == NULL)
			goto nomem;
		dn->arena = p;
	}
	if (dn->n == dn->cap) {
		dn->cap = dn->cap * 2 + 64;
		if ((p = reallocarray(dn->v, dn->cap, sizeof(*dn->v))) == NULL)
			goto nomem;
		dn->v = p;
	}
	memcpy(dn->arena + dn->alen, name, len);
	dn->v[dn->n].off = dn->alen;
	dn->v[dn->n].type = dtype;
	dn->v[dn->n].seen = 0;
	dn->n++;
	dn->alen += len;
	return;
nomem:
	fail(j, ENOMEM, "out of memory");
}

static int
dst_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dst_name *)a)->name,
	    ((const struct dst_name *)b)->name);
}

static struct dst_name *
dst_find(struct dst_names *dn, const char *name)
{
	struct dst_name key = { .name = name };

	return dn->n == 0 ? NULL : bsearch(&key, dn->v, dn->n,
	    sizeof(*dn->v), dst_cmp);
}

static unsigned char
dtype_of(mode_t m)
{
	return S_ISREG(m) ? DT_REG : S_ISDIR(m) ? DT_DIR : S_ISLNK(m) ?
	    DT_LNK : S_ISFIFO(m) ? DT_FIFO : S_ISSOCK(m) ? DT_SOCK :
	    S_ISCHR(m) ? DT_CHR : S_ISBLK(m) ? DT_BLK : DT_UNKNOWN;
}

/*
 * cp_update: is the copy's entry still what a copy of st would be?  The
 * source's ctime says it did not change since the copy began; the
 * copy's own size, mtime and mode must agree with it too, which a tree
 * moved in from elsewhere (its files keep their older ctimes) or a
 * stepped clock would hardly both get past.
 */
static int
still_same(struct cp_dir *d, const char *name, const struct stat *st)
{
	struct stat	ds;

	return fstatat(d->dstfd, name, &ds, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (ds.st_mode & S_IFMT) == (st->st_mode & S_IFMT) &&
	    ds.st_size == st->st_size &&
	    ds.st_mtim.tv_sec == st->st_mtim.tv_sec &&
	    ds.st_mtim.tv_nsec == st->st_mtim.tv_nsec &&
	    (S_ISLNK(st->st_mode) ||
	    (ds.st_mode & 07777) == copy_mode(st));
}

/*
 * cp_update: one source entry of d against the copy's entry of that
 * name, if any.  A file or symlink whose ctime is older than the copy,
 * whose copy is of the same type, size, mtime and mode, is kept (two
 * fstatat); a directory the copy has is updated in turn; anything else
 * is made again.
 */
static void
update_cb(struct cp_job *j, struct cp_dir *d, const char *name,
    unsigned char dtype, void *arg)
{
	struct dst_name	*o = dst_find(arg, name);
	struct stat	 st;
	char		 path[PATH_MAX];

	if (o != NULL)
		o->seen = 1;
	if (dtype != DT_DIR) {
		if (fstatat(d->srcfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
			if (errno != ENOENT) {
				dir_path(d, name, path, sizeof(path));
				fail(j, errno, "stat %s: %s", path,
				    strerror(errno));
				return;
			}
			stat_add(&j->st.vanished, 1);
			if (o != NULL && dst_remove(j, d, name) == 0)
				stat_add(&j->st.changed, 1);
			return;
		}
		dtype = dtype_of(st.st_mode);
	}
	if (dtype == DT_DIR) {
		if (o != NULL && o->type == DT_DIR) {
			push_dir(j, d, name, 1);
			return;
		}
	} else if (dtype != DT_REG && dtype != DT_LNK) {
		/* fifos and the like: never in a copy */
		if (o != NULL && dst_remove(j, d, name) == 0)
			stat_add(&j->st.changed, 1);
		stat_add(&j->st.skipped, 1);
		return;
	} else if (o != NULL && o->type == dtype && !d->moved &&
	    !newer(j, &st) && still_same(d, name, &st)) {
		if (dtype == DT_REG) {
			stat_add(&j->st.files, 1);
			stat_add(&j->st.bytes, (uint64_t)st.st_size);
		} else
			stat_add(&j->st.symlinks, 1);
		return;
	}
	if (o != NULL && dst_remove(j, d, name) == -1)
		return;
	mark_apply(d);
	stat_add(&j->st.changed, 1);
	if (dtype == DT_DIR)
		push_dir(j, d, name, 0);
	else
		copy_by_stat(j, d, name, &st);
}

/*
 * cp_update of d: list its copy, then walk its source against it; what
 * the copy has and the source no longer has is removed.
 */
static void
update_dir(struct cp_job *j, struct cp_dir *d, char *buf)
{
	struct dst_names dn;
	size_t		 i;

	memset(&dn, 0, sizeof(dn));
	if (each_entry(j, d, d->dstfd, buf, dst_add, &dn) == 0) {
		for (i = 0; i < dn.n; i++)
			dn.v[i].name = dn.arena + dn.v[i].off;
		if (dn.n > 0)
			qsort(dn.v, dn.n, sizeof(*dn.v), dst_cmp);
		if (each_entry(j, d, d->srcfd, buf, update_cb, &dn) == 0)
			for (i = 0; i < dn.n && !failed(j); i++)
				if (!dn.v[i].seen &&
				    dst_remove(j, d, dn.v[i].name) == 0)
					stat_add(&j->st.changed, 1);
	}
	free(dn.v);
	free(dn.arena);
}

/* One directory: opened (and made), then listed and copied or updated. */
static void
copy_dir(struct cp_job *j, struct cp_dir *d, char *buf)
{
	if (dir_open(j, d) == -1)
		return;
	if (d->update)
		update_dir(j, d, buf);
	else
		(void)each_entry(j, d, d->srcfd, buf, copy_cb, NULL);
}

static void *
worker(void *arg)
{
	struct cp_job	*j = arg;
	struct cp_dir	*d;
	char		*buf;

	if ((buf = malloc(CP_LISTBUF)) == NULL)
		fail(j, ENOMEM, "out of memory");
	for (;;) {
		pthread_mutex_lock(&j->mu);
		while (j->stack == NULL && !j->done && j->failed == 0)
			pthread_cond_wait(&j->work, &j->mu);
		if (j->done || j->failed != 0) {
			pthread_mutex_unlock(&j->mu);
			break;
		}
		d = j->stack;
		j->stack = d->next;
		pthread_mutex_unlock(&j->mu);
		copy_dir(j, d, buf);
		dir_release(j, d);
	}
	free(buf);
	pthread_mutex_lock(&j->mu);
	j->nalive--;
	pthread_cond_broadcast(&j->idle);
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

static struct cp_job *
job_start(int srcfd, int dstfd, const struct timespec *since, int mark,
    int nthreads)
{
	struct cp_job	*j;
	struct cp_dir	*root;
	int		 i, e;

	if (nthreads < 1)
		nthreads = 1;
	if ((j = calloc(1, sizeof(*j))) == NULL ||
	    (root = calloc(1, sizeof(*root))) == NULL ||
	    (j->threads = calloc((size_t)nthreads, sizeof(pthread_t))) ==
	    NULL) {
		if (j != NULL)
			free(j->threads);
		free(j);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->work, NULL);
	pthread_cond_init(&j->idle, NULL);
	root->pending = 1;
	root->chmod = 1;	/* made by the caller */
	j->umask = umask(0);
	umask(j->umask);
	/* Descriptions of our own: we list them. */
	root->srcfd = reopen_dir(srcfd);
	root->dstfd = since != NULL ? reopen_dir(dstfd) :
	    fcntl(dstfd, F_DUPFD_CLOEXEC, 0);
	if (root->srcfd == -1 || root->dstfd == -1 ||
	    fstat(root->srcfd, &root->st) == -1 ||
	    (since != NULL && fchmod(root->dstfd, 0700) == -1) ||
	    (mark && mark_set(root->dstfd, &root->st) == -1)) {
		e = errno;
		dir_free(root);
		free(j->threads);
		free(j);
		errno = e;
		return NULL;
	}
	if (since != NULL) {
		/* The root's mode and times are set again at the end, as a
		 * copy's are: it is ours (0700) until then. */
		j->since = *since;
		root->update = root->apply = 1;
		root->moved = !mark_same(root->dstfd, &root->st);
	}
	j->mark = mark;
	j->live = root;
	j->stack = root;
	for (i = 0; i < nthreads; i++) {
		if ((e = pthread_create(&j->threads[i], NULL, worker, j)) !=
		    0) {
			fail(j, e, "start a worker thread: %s", strerror(e));
			break;
		}
		j->nthreads++;
		pthread_mutex_lock(&j->mu);
		j->nalive++;
		pthread_mutex_unlock(&j->mu);
	}
	return j;
}

struct cp_job *
cp_start(int srcfd, int dstfd, int nthreads)
{
	return job_start(srcfd, dstfd, NULL, 0, nthreads);
}

struct cp_job *
cp_spare(int srcfd, int dstfd, int nthreads)
{
	return job_start(srcfd, dstfd, NULL, 1, nthreads);
}

struct cp_job *
cp_update(int srcfd, int dstfd, const struct timespec *since, int nthreads)
{
	return job_start(srcfd, dstfd, since, 0, nthreads);
}

int
cp_wait(struct cp_job *j, unsigned ms, struct cp_stats *st)
{
	struct timespec	 until;
	int		 over;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&j->mu);
	while (j->nalive > 0)
		if (pthread_cond_timedwait(&j->idle, &j->mu, &until) ==
		    ETIMEDOUT)
			break;
	over = j->nalive == 0;
	pthread_mutex_unlock(&j->mu);
	if (st != NULL) {
		st->files = __atomic_load_n(&j->st.files, __ATOMIC_RELAXED);
		st->bytes = __atomic_load_n(&j->st.bytes, __ATOMIC_RELAXED);
		st->dirs = __atomic_load_n(&j->st.dirs, __ATOMIC_RELAXED);
		st->symlinks = __atomic_load_n(&j->st.symlinks,
		    __ATOMIC_RELAXED);
		st->skipped = __atomic_load_n(&j->st.skipped,
		    __ATOMIC_RELAXED);
		st->vanished = __atomic_load_n(&j->st.vanished,
		    __ATOMIC_RELAXED);
		st->changed = __atomic_load_n(&j->st.changed,
		    __ATOMIC_RELAXED);
	}
	return over;
}

int
cp_result(struct cp_job *j, char *msg, size_t msglen)
{
	if (msglen > 0)
		snprintf(msg, msglen, "%s", j->failed ? j->msg : "");
	if (j->failed == 0 && !j->done) {
		snprintf(msg, msglen, "the copy stopped before its end");
		return EIO;
	}
	return j->failed;
}

void
cp_free(struct cp_job *j)
{
	struct cp_dir	*d;
	int		 i;

	if (j == NULL)
		return;
	for (i = 0; i < j->nthreads; i++)
		pthread_join(j->threads[i], NULL);
	while ((d = j->live) != NULL) {
		j->live = d->lnext;
		dir_free(d);
	}
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->work);
	pthread_cond_destroy(&j->idle);
	free(j->threads);
	free(j);
}

/*
 * A directory of ours we may not open (an agent's `chmod 000` in its
 * copy) made 0700 so that it can be emptied.  By an O_PATH descriptor
 * of it, opened without following a symlink, and its /proc name: the
 * mode changes on that directory and nothing a swapped-in link points
 * at (Landlock has no say over chmod).
 */
static int
own_dir(int fd, const char *name)
{
	char	p[64];
	int	pfd, rc;

	if ((pfd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", pfd);
	rc = fchmodat(AT_FDCWD, p, 0700, 0);
	close(pfd);
	if (rc == -1)
		errno = EACCES;
	return rc;
}

static int
empty_pass(int fd, uint64_t *count, int *found, char *msg, size_t msglen)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*dp;
	int		 dfd, sub, isdir, rc = 0;

	/* Ours, but perhaps copied read-only (a 0555 directory). */
	(void)fchmod(fd, 0700);
	if ((dfd = reopen_dir(fd)) == -1 || (dp = fdopendir(dfd)) == NULL) {
		if (dfd != -1)
			close(dfd);
		snprintf(msg, msglen, "list a directory: %s", strerror(errno));
		return -1;
	}
	while (rc == 0 && (de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		*found = 1;
		isdir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			if (fstatat(fd, de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) == -1) {
				if (errno == ENOENT)
					continue;
				snprintf(msg, msglen, "stat %s: %s",
				    de->d_name, strerror(errno));
				rc = -1;
				break;
			}
			isdir = S_ISDIR(st.st_mode);
		}
		if (isdir) {
			sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (sub == -1 && errno == EACCES &&
			    own_dir(fd, de->d_name) == 0)
				sub = openat(fd, de->d_name, O_RDONLY |
				    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub == -1 && errno == ENOENT)
				continue;
			if (sub == -1) {
				snprintf(msg, msglen, "open %s: %s",
				    de->d_name, strerror(errno));
				rc = -1;
				break;
			}
			rc = cp_empty_dir(sub, count, msg, msglen);
			close(sub);
			if (rc == 0 && unlinkat(fd, de->d_name,
			    AT_REMOVEDIR) == -1 && errno != ENOENT) {
				snprintf(msg, msglen, "remove %s: %s",
				    de->d_name, strerror(errno));
				rc = -1;
			}
		} else if (unlinkat(fd, de->d_name, 0) == -1 &&
		    errno != ENOENT) {
			snprintf(msg, msglen, "remove %s: %s", de->d_name,
			    strerror(errno));
			rc = -1;
		}
		if (rc == 0)
			(*count)++;
	}
	closedir(dp);
	return rc;
}

int
cp_empty_dir(int fd, uint64_t *count, char *msg, size_t msglen)
{
	int	found, pass;

	/* Removing while listing may hide entries from the listing: list
	 * again until a pass finds nothing. */
	for (pass = 0; pass < 8; pass++) {
		found = 0;
		if (empty_pass(fd, count, &found, msg, msglen) == -1)
			return -1;
		if (!found)
			return 0;
	}
	snprintf(msg, msglen, "a directory keeps filling while it is "
	    "removed");
	errno = EBUSY;
	return -1;
}
