// SPDX-License-Identifier: ISC
/*
 * Property test of the copy-on-write tree copier (clone/copier.c, issue
 * 16), run by tests/integration/worktree.sh on the filesystems it makes:
 *
 *   clone_prop DIR SEED ROUNDS [NOREFLINK_DIR]
 *
 * Each round generates a random tree under DIR (deep nesting past
 * PATH_MAX, names up to NAME_MAX bytes with any byte but '/', empty and
 * larger files, read-only files and directories, odd modes and times,
 * hard links, symlink loops and dangling or absolute symlinks, fifos),
 * copies it with a random number of workers while another thread removes
 * files and whole subtrees, and then checks the property: every entry
 * still in the source is in the copy with the same type, content, mode
 * and times (a symlink: the same target), fifos are not copied and are
 * counted, and the copy holds nothing the source never had.  Directory
 * times are compared only where nothing was removed beneath.
 *
 * Then the update (cp_update, a spare copy brought up to date): the
 * source is changed at random - files rewritten (some of the same size
 * with their mtime put back), appended to, chmod'ed, removed, renamed,
 * turned into symlinks or directories; directories renamed, removed,
 * made read-only or writable again, given new entries; symlinks
 * retargeted - and the copy updated since the moment the copy began,
 * while another thread removes more.  The same property must hold, and
 * the update must have kept most of the tree (it is no copy in
 * disguise).
 *
 * With NOREFLINK_DIR (a directory on a filesystem without reflinks) it
 * also checks that a copy there fails, names the filesystem, and that
 * cp_empty_dir() then leaves the destination empty.
 *
 * Prints TAP-free diagnostics; exits 0 when every round holds.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clone/copier.h"

#define MAX_VICTIMS	256

static unsigned		 seed;
static char		*victims[MAX_VICTIMS];
static int		 nvictims;
static int		 nfifos;
static int		 failures;
static int		 deep_levels;
static int		 fifos_left;	/* fifos still in the source */
static int		 nmut;		/* changes mutate() made */
static const char	*phase = "copy";	/* for messages */

static unsigned
rnd(unsigned n)
{
	seed = seed * 1103515245U + 12345U;
	return n == 0 ? 0 : (seed >> 8) % n;
}

static void
die(const char *what)
{
	fprintf(stderr, "clone_prop: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void
bad(const char *rel, const char *what)
{
	if (failures++ < 20)
		fprintf(stderr, "clone_prop: MISMATCH after the %s: %s: %s\n",
		    phase, rel, what);
}

/* A name: short, long (up to NAME_MAX), or with odd bytes. */
static void
gen_name(char *buf, size_t len, int i)
{
	size_t	 n, k;

	switch (rnd(6)) {
	case 0:
		n = 200 + rnd(56);		/* up to 255 */
		if (n >= len)
			n = len - 1;
		for (k = 0; k < n; k++)
			buf[k] = (char)('a' + rnd(26));
		buf[n] = '\0';
		{
			char pre[16];	/* a unique prefix */

			snprintf(pre, sizeof(pre), "L%04dx", i % 10000);
			memcpy(buf, pre, strlen(pre));
		}
		return;
	case 1:
		snprintf(buf, len, "sp ace\tnl\nq\"%d\xc3\xa9\xff", i);
		return;
	case 2:
		snprintf(buf, len, ".hidden%d", i);
		return;
	default:
		snprintf(buf, len, "n%d", i);
	}
}

static void
set_times(int dirfd, const char *name, int flags)
{
	struct timespec ts[2];

	ts[0].tv_sec = 1000000000 + (time_t)rnd(500000000);
	ts[0].tv_nsec = (long)rnd(1000000000);
	ts[1].tv_sec = 1000000000 + (time_t)rnd(500000000);
	ts[1].tv_nsec = (long)rnd(1000000000);
	(void)utimensat(dirfd, name, ts, flags);
}

static void
add_victim(const char *rel)
{
	if (nvictims < MAX_VICTIMS)
		victims[nvictims++] = strdup(rel);
}

static void
gen_tree(int dirfd, const char *rel, int depth, char **ro_dirs, int *nro)
{
	char	 name[300], sub[8192];
	char	 buf[65536];
	int	 n, i, fd, sfd, k;

	n = depth > 5 ? 2 : 3 + (int)rnd(12);
	for (i = 0; i < n; i++) {
		gen_name(name, sizeof(name), i);
		snprintf(sub, sizeof(sub), "%s/%s", rel, name);
		switch (rnd(10)) {
		case 0:
		case 1:
			if (depth >= 7)
				goto file;
			if (mkdirat(dirfd, name, 0755) == -1)
				die("mkdirat");
			if ((sfd = openat(dirfd, name, O_RDONLY |
			    O_DIRECTORY)) == -1)
				die("openat dir");
			gen_tree(sfd, sub, depth + 1, ro_dirs, nro);
			close(sfd);
			if (ro_dirs != NULL && rnd(8) == 0 && *nro < 64)
				ro_dirs[(*nro)++] = strdup(sub);
			else if (rnd(10) == 0)
				add_victim(sub);	/* a whole subtree */
			set_times(dirfd, name, 0);
			break;
		case 2:
			switch (rnd(5)) {
			case 0:
				(void)symlinkat(name, dirfd, name); /* loop */
				break;
			case 1:
				(void)symlinkat("../nowhere/at/all", dirfd,
				    name);
				break;
			case 2:
				(void)symlinkat("/etc/passwd", dirfd, name);
				break;
			case 3:
				(void)symlinkat("..", dirfd, name);
				break;
			default:
				snprintf(buf, sizeof(buf), "%s.b", name);
				(void)symlinkat(buf, dirfd, name);
				(void)symlinkat(name, dirfd, buf);
			}
			set_times(dirfd, name, AT_SYMLINK_NOFOLLOW);
			break;
		case 3:
			if (mkfifoat(dirfd, name, 0644) == 0)
				nfifos++;
			break;
		default:
		file:
			fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL,
			    0644);
			if (fd == -1)
				die("create file");
			k = rnd(4) == 0 ? 0 : (int)rnd(3) == 0 ?
			    (int)sizeof(buf) : (int)rnd(4096);
			for (int b = 0; b < k; b++)
				buf[b] = (char)rnd(256);
			if (k > 0 && write(fd, buf, (size_t)k) != k)
				die("write");
			if (rnd(3) == 0 && k > 0 &&
			    write(fd, buf, (size_t)k) != k)	/* 2 blocks */
				die("write");
			(void)fchmod(fd, (mode_t)(0400 | rnd(0400) |
			    (rnd(4) == 0 ? S_ISVTX : 0)));
			close(fd);
			set_times(dirfd, name, 0);
			if (rnd(6) == 0) {
				snprintf(buf, sizeof(buf), "%s.hl", name);
				(void)linkat(dirfd, name, dirfd, buf, 0);
			}
			if (rnd(5) == 0)
				add_victim(sub);
		}
	}
}

/* A chain of directories deeper than PATH_MAX. */
static void
gen_deep(int dirfd, int levels)
{
	int	 fd = dup(dirfd), nfd, i;
	char	 name[32];

	for (i = 0; i < levels; i++) {
		snprintf(name, sizeof(name), "deep-level-%04d", i);
		if (mkdirat(fd, name, 0755) == -1 ||
		    (nfd = openat(fd, name, O_RDONLY | O_DIRECTORY)) == -1)
			die("deep");
		close(fd);
		fd = nfd;
	}
	if ((nfd = openat(fd, "bottom", O_WRONLY | O_CREAT, 0600)) == -1)
		die("deep bottom");
	if (write(nfd, "bottom\n", 7) != 7)
		die("write bottom");
	close(nfd);
	close(fd);
}

static int
under_victim(const char *rel)
{
	int	 i;

	for (i = 0; i < nvictims; i++) {
		size_t n = strlen(victims[i]);

		if (strncmp(rel, victims[i], n) == 0 &&
		    (rel[n] == '\0' || rel[n] == '/'))
			return 1;
	}
	return 0;
}

static int
same_content(int a, int b)
{
	char	 x[65536], y[65536];
	ssize_t	 n, m;

	for (;;) {
		n = read(a, x, sizeof(x));
		m = read(b, y, sizeof(y));
		if (n != m || n < 0)
			return 0;
		if (n == 0)
			return 1;
		if (memcmp(x, y, (size_t)n) != 0)
			return 0;
	}
}

static int
victim_parent(const char *rel)
{
	int	 i;

	for (i = 0; i < nvictims; i++) {
		const char *slash = strrchr(victims[i], '/');
		size_t	    n = slash != NULL ? (size_t)(slash - victims[i]) :
		    0;

		if (strncmp(victims[i], rel, strlen(rel)) == 0 &&
		    strlen(rel) <= n)
			return 1;
	}
	return 0;
}

/* Every source entry is in the copy, alike. */
static void
compare(int sfd, int dfd, const char *rel, uint64_t *files)
{
	struct dirent	*de;
	struct stat	 ss, ds;
	DIR		*dp;
	/* compare() recurses once per level (past PATH_MAX): small frames */
	static char	 t1[PATH_MAX], t2[PATH_MAX];
	char		*sub = malloc(8192);
	int		 a, b;
	ssize_t		 n1, n2;

	if ((dp = fdopendir(openat(sfd, ".", O_RDONLY | O_DIRECTORY))) == NULL)
		die("fdopendir");
	while ((de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(sub, 8192, "%s/%s", rel, de->d_name);
		if (fstatat(sfd, de->d_name, &ss, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (S_ISFIFO(ss.st_mode)) {
			fifos_left++;
			if (fstatat(dfd, de->d_name, &ds,
			    AT_SYMLINK_NOFOLLOW) == 0)
				bad(sub, "a fifo was copied");
			continue;
		}
		if (fstatat(dfd, de->d_name, &ds, AT_SYMLINK_NOFOLLOW) == -1) {
			bad(sub, "missing in the copy");
			continue;
		}
		if ((ss.st_mode & S_IFMT) != (ds.st_mode & S_IFMT)) {
			bad(sub, "another type");
			continue;
		}
		if (S_ISLNK(ss.st_mode)) {
			n1 = readlinkat(sfd, de->d_name, t1, sizeof(t1));
			n2 = readlinkat(dfd, de->d_name, t2, sizeof(t2));
			if (n1 != n2 || n1 < 0 || memcmp(t1, t2, (size_t)n1))
				bad(sub, "another symlink target");
			if (ss.st_mtim.tv_sec != ds.st_mtim.tv_sec ||
			    ss.st_mtim.tv_nsec != ds.st_mtim.tv_nsec)
				bad(sub, "symlink mtime differs");
			continue;
		}
		if ((ss.st_mode & (0777 | S_ISVTX)) != (ds.st_mode & 07777))
			bad(sub, "mode differs");
		if (S_ISREG(ss.st_mode)) {
			(*files)++;
			if (ss.st_size != ds.st_size)
				bad(sub, "size differs");
			if (ss.st_mtim.tv_sec != ds.st_mtim.tv_sec ||
			    ss.st_mtim.tv_nsec != ds.st_mtim.tv_nsec)
				bad(sub, "mtime differs");
			if (ss.st_ino == ds.st_ino)
				bad(sub, "the same inode");
			a = openat(sfd, de->d_name, O_RDONLY);
			b = openat(dfd, de->d_name, O_RDONLY);
			if (a == -1 || b == -1 || !same_content(a, b))
				bad(sub, "content differs");
			if (a != -1)
				close(a);
			if (b != -1)
				close(b);
		} else if (S_ISDIR(ss.st_mode)) {
			if (!victim_parent(sub) && !under_victim(sub) &&
			    (ss.st_mtim.tv_sec != ds.st_mtim.tv_sec ||
			    ss.st_mtim.tv_nsec != ds.st_mtim.tv_nsec))
				bad(sub, "directory mtime differs");
			a = openat(sfd, de->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW);
			b = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW);
			if (a == -1 || b == -1)
				bad(sub, "cannot open the directories");
			else
				compare(a, b, sub, files);
			if (a != -1)
				close(a);
			if (b != -1)
				close(b);
		}
	}
	closedir(dp);
	free(sub);
}

/* Nothing in the copy that the source never had. */
static void
no_extras(int sfd, int dfd, const char *rel)
{
	struct dirent	*de;
	struct stat	 ss, ds;
	DIR		*dp;
	char		*sub = malloc(8192);
	int		 a, b;

	/* The spare's marks (cp_spare) are gone once it is updated. */
	if (strcmp(phase, "update") == 0 &&
	    fgetxattr(dfd, "user.airlock.src", sub, 8192) != -1)
		bad(rel[0] != '\0' ? rel : "/", "the spare's mark is left");
	if ((dp = fdopendir(openat(dfd, ".", O_RDONLY | O_DIRECTORY))) == NULL)
		die("fdopendir");
	while ((de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(sub, 8192, "%s/%s", rel, de->d_name);
		if (fstatat(sfd, de->d_name, &ss, AT_SYMLINK_NOFOLLOW) ==
		    -1) {
			if (!under_victim(sub))
				bad(sub, "in the copy, never in the source");
			continue;
		}
		if (fstatat(dfd, de->d_name, &ds, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(ds.st_mode) && S_ISDIR(ss.st_mode)) {
			a = openat(sfd, de->d_name, O_RDONLY | O_DIRECTORY);
			b = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY);
			if (a != -1 && b != -1)
				no_extras(a, b, sub);
			if (a != -1)
				close(a);
			if (b != -1)
				close(b);
		}
	}
	closedir(dp);
	free(sub);
}

/* rm -r without cp_empty_dir's chmod: the source's modes stay as they
 * were (a victim under a read-only directory stays, emptied). */
static void
rm_tree(int dirfd, const char *name)
{
	struct dirent	*de;
	DIR		*dp;
	int		 fd;

	if (unlinkat(dirfd, name, 0) == 0 || errno != EISDIR)
		return;
	if ((fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW)) == -1)
		return;
	if ((dp = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(dp)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			rm_tree(fd, de->d_name);
	closedir(dp);
	(void)unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* A new directory of generated entries in dirfd (names of its own). */
static void
new_subtree(int dirfd, const char *rel)
{
	char	 name[32], sub[8192];
	int	 fd;

	snprintf(name, sizeof(name), "fresh%u", rnd(1000000));
	if (snprintf(sub, sizeof(sub), "%s/%s", rel, name) >=
	    (int)sizeof(sub) || mkdirat(dirfd, name, 0755) == -1 ||
	    (fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY)) == -1)
		return;
	gen_tree(fd, sub, 6, NULL, NULL);
	close(fd);
}

/*
 * Change the tree under dirfd at random (see the top).  Entries made
 * here are new, so nothing is kept of them.  rel: for victims.
 */
static void
mutate(int dirfd, const char *rel, int depth)
{
	struct dirent	*de;
	struct stat	 st;
	struct timespec	 ts[2];
	DIR		*dp;
	char		**names = NULL, sub[8192], to[300];
	size_t		 n = 0, i;
	int		 fd, k;

	if ((fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY)) == -1 ||
	    (dp = fdopendir(fd)) == NULL)
		return;
	while ((de = readdir(dp)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    strncmp(de->d_name, "deep-level-", 11) != 0 &&
		    (names = reallocarray(names, n + 1, sizeof(*names))) !=
		    NULL)
			names[n++] = strdup(de->d_name);
	closedir(dp);
	for (i = 0; i < n; i++) {
		const char *nm = names[i];

		snprintf(sub, sizeof(sub), "%s/%s", rel, nm);
		if (fstatat(dirfd, nm, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		k = (int)rnd(48);	/* most of the tree stays */
		if (S_ISDIR(st.st_mode)) {
			if (k == 0) {
				snprintf(to, sizeof(to), "mv%d", (int)i);
				(void)renameat(dirfd, nm, dirfd, to);
				nmut += 2;
			} else if (k == 1) {
				rm_tree(dirfd, nm);
				nmut++;
			} else if (k == 2) {
				(void)fchmodat(dirfd, nm, (st.st_mode & 0200) ?
				    0555 : 0755, AT_SYMLINK_NOFOLLOW);
				nmut++;
			} else if ((fd = openat(dirfd, nm, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW)) != -1) {
				if (k == 3) {
					new_subtree(fd, sub);
					nmut++;
				}
				else if (depth < 12)
					mutate(fd, sub, depth + 1);
				close(fd);
			}
			continue;
		}
		if (k <= 8)
			nmut += k == 5 ? 2 : 1;
		switch (k) {
		case 0:		/* the same size, the mtime put back */
		case 1:
			if (!S_ISREG(st.st_mode) || st.st_size == 0 ||
			    (fd = openat(dirfd, nm, O_WRONLY | O_NOFOLLOW)) ==
			    -1)
				break;
			if (pwrite(fd, "#", 1, (off_t)rnd((unsigned)
			    st.st_size)) != 1)
				die("pwrite");
			close(fd);
			ts[0] = st.st_atim;
			ts[1] = st.st_mtim;
			(void)utimensat(dirfd, nm, ts, AT_SYMLINK_NOFOLLOW);
			break;
		case 2:		/* appended to */
			if (!S_ISREG(st.st_mode) || (fd = openat(dirfd, nm,
			    O_WRONLY | O_APPEND | O_NOFOLLOW)) == -1)
				break;
			if (write(fd, "appended\n", 9) != 9)
				die("append");
			close(fd);
			break;
		case 3:		/* (a symlink's target is not ours to change) */
			if (S_ISREG(st.st_mode))
				(void)fchmodat(dirfd, nm, 0640, 0);
			break;
		case 4:
			(void)unlinkat(dirfd, nm, 0);
			break;
		case 5:
			snprintf(to, sizeof(to), "renamed%d", (int)i);
			(void)renameat(dirfd, nm, dirfd, to);
			break;
		case 6:		/* a symlink now */
			if (unlinkat(dirfd, nm, 0) == 0)
				(void)symlinkat("elsewhere", dirfd, nm);
			break;
		case 7:		/* a directory now */
			if (unlinkat(dirfd, nm, 0) == 0 &&
			    mkdirat(dirfd, nm, 0755) == 0 &&
			    (fd = openat(dirfd, nm, O_RDONLY |
			    O_DIRECTORY)) != -1) {
				gen_tree(fd, sub, 6, NULL, NULL);
				close(fd);
			}
			break;
		case 8:		/* only its times */
			set_times(dirfd, nm, AT_SYMLINK_NOFOLLOW);
			break;
		default:
			if (k == 9 && rnd(4) == 0)
				add_victim(sub);	/* during the update */
		}
	}
	if (rnd(6) == 0) {
		nmut++;
		snprintf(to, sizeof(to), "added%u", rnd(1000));
		if ((fd = openat(dirfd, to, O_WRONLY | O_CREAT | O_EXCL,
		    0644)) != -1) {
			if (write(fd, "new\n", 4) != 4)
				die("write new");
			close(fd);
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

struct vanish_arg {
	int	 rootfd;
};

static void *
vanisher(void *arg)
{
	struct vanish_arg *v = arg;
	int	 i;

	for (i = 0; i < nvictims; i++) {
		const char *rel = victims[i] + 1;	/* drop the "/" */
		struct stat st;

		usleep(rnd(300));
		if (fstatat(v->rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		rm_tree(v->rootfd, rel);
	}
	return NULL;
}

/*
 * A twin of the first subdirectory of the source, made before the copy
 * begins (so its ctimes are older than the copy): the same names, other
 * contents - of the same size with another mtime, of another size with
 * the same mtime, or of the same size, mtime and mode (as two unpacked
 * releases of one package would be).  update_run swaps it in by
 * rename, as a user would move another checkout into place.  Returns
 * the subdirectory's name, or NULL.
 */
static char *
make_twin(int sfd, const char *dir, int r)
{
	struct dirent	*de;
	struct stat	 st;
	struct timespec	 ts[2];
	DIR		*dp;
	char		 twin[PATH_MAX], *name = NULL, buf[8192];
	int		 fd, sub, tfd, i = 0, ofd;

	if ((fd = openat(sfd, ".", O_RDONLY | O_DIRECTORY)) == -1 ||
	    (dp = fdopendir(fd)) == NULL)
		return NULL;
	while ((de = readdir(dp)) != NULL)
		if (de->d_type == DT_DIR && de->d_name[0] != '.' &&
		    strncmp(de->d_name, "deep-", 5) != 0) {
			name = strdup(de->d_name);
			break;
		}
	closedir(dp);
	if (name == NULL)
		return NULL;	/* no subdirectory this round */
	snprintf(twin, sizeof(twin), "%s/twin%d", dir, r);
	if ((sub = openat(sfd, name, O_RDONLY |
	    O_DIRECTORY)) == -1 || mkdir(twin, 0755) == -1 ||
	    (tfd = open(twin, O_RDONLY | O_DIRECTORY)) == -1)
		die("twin");
	if ((dp = fdopendir(sub)) == NULL)
		die("fdopendir twin");
	while ((de = readdir(dp)) != NULL) {
		if (fstatat(dirfd(dp), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(st.st_mode) ||
		    st.st_size > (off_t)sizeof(buf) - 1)
			continue;
		memset(buf, 'T', sizeof(buf));
		if ((ofd = openat(tfd, de->d_name, O_WRONLY | O_CREAT |
		    O_EXCL, st.st_mode & 0777)) == -1)
			die("twin file");
		if (write(ofd, buf, (size_t)st.st_size + (i % 3 == 0)) !=
		    st.st_size + (i % 3 == 0))
			die("write twin");
		(void)fchmod(ofd, st.st_mode & 07777);
		close(ofd);
		if (i++ % 3 != 1) {
			ts[0] = st.st_atim;
			ts[1] = st.st_mtim;
			(void)utimensat(tfd, de->d_name, ts, 0);
		}
	}
	closedir(dp);
	close(tfd);
	return name;
}

/* The source changed since the copy began: update, and compare again. */
static void
update_run(int sfd, int dfd, int r, const struct timespec *since,
    int copy_victims, const char *dir, char *twin)
{
	char		 tw[PATH_MAX];

	struct vanish_arg va;
	struct cp_stats	 st;
	struct cp_job	*job;
	pthread_t	 vt;
	char		 msg[1024];
	uint64_t	 files = 0;
	int		 i, err, threads = 1 + (int)rnd(4);

	usleep(50000);
	phase = "update";
	nmut = 0;
	if (twin != NULL) {
		/* (before mutate(): it might rename or remove it) */
		snprintf(tw, sizeof(tw), "%s/twin%d", dir, r);
		/* (the copy's vanisher may have removed the original) */
		if ((renameat(sfd, twin, sfd, "swapped-out") == -1 &&
		    errno != ENOENT) || renameat(AT_FDCWD, tw, sfd, twin) ==
		    -1)
			die("swap the twin in");
		nmut += 3;
	}
	mutate(sfd, "", 0);
	fifos_left = 0;
	va.rootfd = sfd;
	if ((job = cp_update(sfd, dfd, since, threads)) == NULL)
		die("cp_update");
	if (pthread_create(&vt, NULL, vanisher, &va) != 0)
		die("pthread_create");
	while (!cp_wait(job, 100, &st))
		;
	err = cp_result(job, msg, sizeof(msg));
	cp_free(job);
	pthread_join(vt, NULL);
	if (err != 0) {
		fprintf(stderr, "clone_prop: round %d: update failed: %s\n", r,
		    msg);
		failures++;
	} else {
		compare(sfd, dfd, "", &files);
		no_extras(sfd, dfd, "");
		if (st.files < files)
			bad("/", "update: fewer files counted than there are");
		/* What did not change is kept: no more is made again than
		 * what mutate() and the removals touched (a removal under a
		 * read-only directory may leave several entries behind:
		 * twice, and some slack). */
		if (st.changed > 2 * (uint64_t)(nmut + copy_victims +
		    nvictims) + 10)
			bad("/", "update: made more again than changed");
	}
	printf("round %d update: %d workers, %llu files, %llu dirs, "
	    "%llu changed for %d changes, %llu vanished, %d victims\n", r,
	    threads, (unsigned long long)st.files,
	    (unsigned long long)st.dirs, (unsigned long long)st.changed,
	    nmut, (unsigned long long)st.vanished, nvictims);
	for (i = 0; i < nvictims; i++)
		free(victims[i]);
	nvictims = 0;
}

static int
round_run(const char *dir, int r)
{
	struct vanish_arg va;
	struct cp_stats	 st;
	struct cp_job	*job;
	pthread_t	 vt;
	char		 src[PATH_MAX], dst[PATH_MAX], msg[1024];
	char		*ro[64], *twin;
	struct timespec	 since;
	int		 nro = 0, sfd, dfd, i, err, threads;
	uint64_t	 files = 0;

	nvictims = 0;
	phase = "copy";
	nfifos = 0;
	fifos_left = 0;
	snprintf(src, sizeof(src), "%s/src%d", dir, r);
	snprintf(dst, sizeof(dst), "%s/dst%d", dir, r);
	if (mkdir(src, 0755) == -1 || mkdir(dst, 0700) == -1)
		die("mkdir round");
	if ((sfd = open(src, O_RDONLY | O_DIRECTORY)) == -1 ||
	    (dfd = open(dst, O_RDONLY | O_DIRECTORY)) == -1)
		die("open round");
	gen_tree(sfd, "", 0, ro, &nro);
	if (r % 3 == 0)
		gen_deep(sfd, deep_levels);
	twin = make_twin(sfd, dir, r);
	/* Read-only directories last: the generator is done writing. */
	for (i = nro - 1; i >= 0; i--) {
		(void)fchmodat(sfd, ro[i] + 1, 0555, 0);
		free(ro[i]);
	}
	threads = 1 + (int)rnd(4);
	/*
	 * The update's "since": ctimes come from a clock that lags
	 * CLOCK_REALTIME by up to a tick, so a change made just after the
	 * copy began may carry a ctime just before it.  airlockd takes a
	 * second off; 20 ms covers a tick here, and the tree, 30 ms old by
	 * then, is still older than the copy (so most of it is kept).
	 */
	usleep(30000);
	clock_gettime(CLOCK_REALTIME, &since);
	since.tv_nsec -= 20000000L;
	if (since.tv_nsec < 0) {
		since.tv_nsec += 1000000000L;
		since.tv_sec--;
	}
	va.rootfd = sfd;
	if (pthread_create(&vt, NULL, vanisher, &va) != 0)
		die("pthread_create");
	/* a spare, which the update brings up to date */
	if ((job = cp_spare(sfd, dfd, threads)) == NULL)
		die("cp_spare");
	while (!cp_wait(job, 100, &st))
		;
	err = cp_result(job, msg, sizeof(msg));
	cp_free(job);
	pthread_join(vt, NULL);
	if (err != 0) {
		fprintf(stderr, "clone_prop: round %d: copy failed: %s\n", r,
		    msg);
		failures++;
	} else {
		compare(sfd, dfd, "", &files);
		no_extras(sfd, dfd, "");
		/* fifos in removed subtrees may or may not be met */
		if (st.skipped < (uint64_t)fifos_left ||
		    st.skipped > (uint64_t)nfifos)
			bad("/", "skipped count is not the number of fifos");
		if (st.files < files)
			bad("/", "fewer files counted than copied");
	}
	printf("round %d: %d workers, %llu files, %llu dirs, %llu symlinks, "
	    "%llu skipped, %llu vanished, %d victims%s\n", r, threads,
	    (unsigned long long)st.files, (unsigned long long)st.dirs,
	    (unsigned long long)st.symlinks, (unsigned long long)st.skipped,
	    (unsigned long long)st.vanished, nvictims,
	    r % 3 == 0 ? ", a chain past PATH_MAX" : "");
	for (i = 0; i < nvictims; i++)
		free(victims[i]);
	i = nvictims;
	nvictims = 0;
	if (err == 0)
		update_run(sfd, dfd, r, &since, i, dir, twin);
	free(twin);
	close(sfd);
	close(dfd);
	return 0;
}

/* On a filesystem without reflinks: a clear failure, nothing left. */
static void
noreflink(const char *srcdir, const char *dir)
{
	struct cp_stats	 st;
	struct cp_job	*job;
	struct dirent	*de;
	DIR		*dp;
	char		 dst[PATH_MAX], msg[1024], rm[256];
	uint64_t	 n = 0;
	int		 sfd, dfd, err, left = 0;

	snprintf(dst, sizeof(dst), "%s/noreflink", dir);
	if (mkdir(dst, 0700) == -1 ||
	    (sfd = open(srcdir, O_RDONLY | O_DIRECTORY)) == -1 ||
	    (dfd = open(dst, O_RDONLY | O_DIRECTORY)) == -1)
		die("noreflink setup");
	if ((job = cp_start(sfd, dfd, 2)) == NULL)
		die("cp_start");
	while (!cp_wait(job, 100, &st))
		;
	err = cp_result(job, msg, sizeof(msg));
	cp_free(job);
	printf("no reflink: %s\n", msg);
	if (err == 0)
		bad(dst, "a copy without reflinks succeeded");
	else if (strstr(msg, "FICLONE") == NULL ||
	    strstr(msg, "reflink") == NULL)
		bad(dst, "the error does not name the cause and the fix");
	if (cp_empty_dir(dfd, &n, rm, sizeof(rm)) == -1)
		bad(dst, rm);
	if ((dp = fdopendir(openat(dfd, ".", O_RDONLY | O_DIRECTORY))) == NULL)
		die("fdopendir");
	while ((de = readdir(dp)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			left++;
	closedir(dp);
	if (left != 0)
		bad(dst, "entries left after cp_empty_dir");
	close(sfd);
	close(dfd);
	rmdir(dst);
}

int
main(int argc, char **argv)
{
	struct rlimit	 rl;
	char		 first[PATH_MAX];
	int		 rounds, r;

	if (argc < 4) {
		fprintf(stderr, "usage: clone_prop DIR SEED ROUNDS "
		    "[NOREFLINK_DIR]\n");
		return 2;
	}
	seed = (unsigned)strtoul(argv[2], NULL, 10);
	rounds = atoi(argv[3]);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* 16-byte names: 300 levels is 4,800 bytes, past PATH_MAX. */
	deep_levels = 300;
	for (r = 0; r < rounds; r++)
		round_run(argv[1], r);
	if (argc > 4) {
		snprintf(first, sizeof(first), "%s/src0", argv[1]);
		noreflink(first, argv[4]);
	}
	printf("%d rounds, %d mismatches\n", rounds, failures);
	return failures == 0 ? 0 : 1;
}
