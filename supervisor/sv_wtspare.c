// SPDX-License-Identifier: ISC
/*
 * Spare copies of registered repositories.  A copy of
 * a large checkout costs about a second however it is made; what is
 * left to save is making it while nobody waits.  After a provisioning,
 * airlockd queues a spare job per repository it copied; the next
 * provisioning of that repository takes the spare with one rename and
 * has `airlock-clone update` re-clone only what changed in the original
 * since the spare's copy started.  Layout, in DATADIR/@spares (0700):
 *
 *   KEY/            a complete copy of the source S (KEY: 16 hex digits,
 *                   FNV-1a of S)
 *   KEY.json        its record, written once KEY/ is in place: source,
 *                   since (the copy's start less 1 s: coarse ctimes),
 *                   boot id, CLOCK_REALTIME and CLOCK_BOOTTIME read
 *                   together at the start, files, bytes, inode of KEY/
 *   KEY.lock        flock'd (LOCK_EX) by the airlockd working on KEY,
 *                   for the whole job; removed (under the lock) by a
 *                   job that ends with no KEY/, so that no lock is left
 *                   of each path a repository was ever spared from
 *   KEY.tmp.*       a spare being made (KEY.tmp.PID), or a tree being
 *                   removed; when nobody holds KEY.lock, a leftover of
 *                   an airlockd that is gone
 *
 * A taker takes no lock, so a provisioning never waits for spare work:
 * it reads KEY.json, checks it, and renames KEY/ away; the rename is
 * the claim (a second taker gets ENOENT and copies in full).  Trees
 * are only ever emptied under a KEY.tmp.* name, which no taker touches.
 * One spare job runs at a time, its helper at idle priority (-i).
 *
 * A wall clock set while spares exist (sv_clock.c) makes every spare
 * made before it untrustworthy, even when the clock comes back to agree
 * with CLOCK_BOOTTIME: airlockd notes CLOCK_BOOTTIME at the step, takes
 * no spare whose copy began before it (wherever it was kept meanwhile),
 * and removes those in the data dirs it has seen.
 *
 * Untrusted (a little): KEY.json is airlockd's own file in a directory
 * no run mounts or writes (it is a protectedPath), read with the JSON
 * module's caps and checked field by field; a record that does not fit
 * is no spare.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/fstype.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "supervisor/sv_clone.h"
#include "supervisor/sv_wtspare.h"

#define SP_REC_MAX	(1U << 20)
#define SP_KEYLEN	16
#define NS		1000000000LL

int	sv_wtspare_off;

struct sp_job {
	struct sp_job	*next;
	char		*dir;		/* DATADIR/@spares */
	char		*src;		/* NULL: spares are off, remove all */
	char		 key[SP_KEYLEN + 1];
	int		 started;
	int		 make;		/* a copy is still to be made */
	int		*locks;		/* KEY.lock and the evicted keys' */
	char		**lkeys;	/* their keys */
	size_t		 nlocks;
	char		**rm;		/* trees to empty, then rmdir */
	char		*rm_cur;
	char		*tmp;		/* the copy being made */
	long long	 since, rt, bt;
	struct sv_clone	 cl;		/* the airlock-clone running */
	int		 got_done, err;
	uint64_t	 files, bytes;
};

static struct sp_job	*queue, *cur;
static struct event	*kick;
static long long	 step_bt;	/* CLOCK_BOOTTIME of the last step */
static char		**datadirs;	/* the data dirs seen */

static void	job_step(struct sp_job *);
static void	helper_done(void *, const struct sv_clone_done *);
static void	helper_ended(void *, int);

static void
key_of(const char *src, char key[SP_KEYLEN + 1])
{
	uint64_t	 h = 0xcbf29ce484222325ULL;
	const unsigned char *p;

	for (p = (const unsigned char *)src; *p != '\0'; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	snprintf(key, SP_KEYLEN + 1, "%016llx", (unsigned long long)h);
}

static const char *
boot_id(void)
{
	static char	 id[64];
	ssize_t		 n;
	int		 fd;

	if (id[0] != '\0')
		return id;
	if ((fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY |
	    O_CLOEXEC)) == -1)
		return NULL;
	n = read(fd, id, sizeof(id) - 1);
	close(fd);
	if (n <= 0) {
		id[0] = '\0';
		return NULL;
	}
	id[n] = '\0';
	id[strcspn(id, "\n")] = '\0';
	return id[0] != '\0' ? id : NULL;
}

/* CLOCK_REALTIME and CLOCK_BOOTTIME, read together. */
static void
clocks(long long *rt, long long *bt)
{
	struct timespec	a, b;

	clock_gettime(CLOCK_REALTIME, &a);
	clock_gettime(CLOCK_BOOTTIME, &b);
	*rt = (long long)a.tv_sec * NS + a.tv_nsec;
	*bt = (long long)b.tv_sec * NS + b.tv_nsec;
}

/*
 * Spares only where `airlock-clone update` trusts the ctimes: the local
 * filesystems that clone, whose times this kernel sets (clone/main.c).
 */
static int
ctime_local(const char *path)
{
	struct statfs	sfs;

	return statfs(path, &sfs) == 0 && fstype_ctime_trusted(sfs.f_type);
}

char *
sv_wtspare_dir(const char *datadir)
{
	char	*p;

	xasprintf(&p, "%s/%s", datadir, WT_SPARES_DIR);
	return p;
}

static int
rec_int(const struct json *m, const char *k, long long *v)
{
	const struct json *x = json_get(m, k);

	if (x == NULL || x->type != JSON_NUMBER || !x->is_int ||
	    x->integer < 0)
		return -1;
	*v = x->integer;
	return 0;
}

/*
 * untrusted (a little): a record that names src, this boot, and clocks
 * that still agree: the ctimes of the original since the spare's start
 * can be trusted to show every change.  A wall clock stepped since
 * (back, or forward more than CLOCK_BOOTTIME advanced) cannot.
 */
static int
rec_valid(const struct json *m, const char *src, long long *since,
    long long *ino)
{
	const char	*s, *b, *me = boot_id();
	long long	 rt, bt, rt0, bt0, d;

	if (m == NULL || (s = json_get_str(m, "source")) == NULL ||
	    strcmp(s, src) != 0 || (b = json_get_str(m, "boot")) == NULL ||
	    me == NULL || strcmp(b, me) != 0 ||
	    rec_int(m, "since", since) == -1 ||
	    rec_int(m, "realtime", &rt0) == -1 ||
	    rec_int(m, "boottime", &bt0) == -1 ||
	    rec_int(m, "ino", ino) == -1)
		return 0;
	if (bt0 < step_bt)
		return 0;		/* made before a step */
	clocks(&rt, &bt);
	d = (rt - rt0) - (bt - bt0);
	return rt >= rt0 && d > -NS && d < NS && *since <= rt0;
}

/* The data dirs whose spares a clock step removes. */
static void
datadir_seen(const char *datadir)
{
	size_t	i;

	for (i = 0; datadirs != NULL && datadirs[i] != NULL; i++)
		if (strcmp(datadirs[i], datadir) == 0)
			return;
	datadirs = strv_add(datadirs, datadir);
}

int
sv_wtspare_take(const char *datadir, const char *src, const char *dst,
    long long *since)
{
	struct json	*m;
	struct stat	 st;
	char		 key[SP_KEYLEN + 1], rec[PATH_MAX], tree[PATH_MAX];
	long long	 ino;
	int		 ok;

	if (sv_settings.worktrees_spares == 0 || !ctime_local(src))
		return 0;
	datadir_seen(datadir);
	key_of(src, key);
	if (snprintf(rec, sizeof(rec), "%s/%s/%s.json", datadir,
	    WT_SPARES_DIR, key) >= (int)sizeof(rec))
		return 0;
	snprintf(tree, sizeof(tree), "%s/%s/%s", datadir, WT_SPARES_DIR,
	    key);
	m = json_read_object(rec, SP_REC_MAX);
	ok = rec_valid(m, src, since, &ino);
	json_free(m);
	if (!ok || rename(tree, dst) == -1)
		return 0;
	/* Ours now: the record is of no use to anyone else. */
	(void)unlink(rec);
	/*
	 * A tree put in place after the record was read (a spare job of
	 * the same key between a taker's rename and its unlink) is not
	 * the one it describes: bring it up to date from the beginning.
	 */
	if (lstat(dst, &st) == -1 || (long long)st.st_ino != ino) {
		log_info("spare of %s: not the recorded tree, updated in "
		    "full", src);
		*since = 0;
	}
	return 1;
}

static int
valid_spare(const char *dir, const char *key, const char *src)
{
	struct json	*m;
	struct stat	 st;
	char		 p[PATH_MAX];
	long long	 since, ino;
	int		 ok;

	snprintf(p, sizeof(p), "%s/%s.json", dir, key);
	m = json_read_object(p, SP_REC_MAX);
	ok = rec_valid(m, src, &since, &ino);
	json_free(m);
	snprintf(p, sizeof(p), "%s/%s", dir, key);
	return ok && lstat(p, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (long long)st.st_ino == ino;
}

static int
is_key(const char *s, size_t n)
{
	return n == SP_KEYLEN && strspn(s, "0123456789abcdef") >= n;
}

/* KEY.lock, LOCK_EX, not waited for: its fd, or -1. */
static int
lock_key(const char *dir, const char *key)
{
	struct stat	a, b;
	char		p[PATH_MAX];
	int		fd;

	snprintf(p, sizeof(p), "%s/%s.lock", dir, key);
	if ((fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600)) == -1)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		close(fd);
		return -1;
	}
	/* A lock file its holder removed meanwhile (job_done) locks
	 * nothing: the one at that name now is another's. */
	if (fstat(fd, &a) == -1 || lstat(p, &b) == -1 ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
hold(struct sp_job *sj, int fd, const char *key)
{
	sj->locks = xreallocarray(sj->locks, sj->nlocks + 1,
	    sizeof(*sj->locks));
	sj->locks[sj->nlocks++] = fd;
	sj->lkeys = strv_add(sj->lkeys, key);
}

/*
 * Under key's lock: its leftovers, and its tree and record when drop,
 * are queued for removal.  The tree is renamed to a KEY.tmp.* name
 * first, so that no taker takes what is being emptied.
 */
static void
clear_key(struct sp_job *sj, const char *key, int drop)
{
	struct dirent	*de;
	DIR		*dp;
	char		 p[PATH_MAX], q[PATH_MAX], pre[SP_KEYLEN + 8];
	static unsigned	 seq;

	snprintf(pre, sizeof(pre), "%s.tmp.", key);
	if ((dp = opendir(sj->dir)) != NULL) {
		while ((de = readdir(dp)) != NULL)
			if (strncmp(de->d_name, pre, strlen(pre)) == 0) {
				snprintf(p, sizeof(p), "%s/%s", sj->dir,
				    de->d_name);
				sj->rm = strv_add(sj->rm, p);
			}
		closedir(dp);
	}
	/* A record half written when its airlockd died (only the lock's
	 * holder writes one). */
	snprintf(p, sizeof(p), "%s/%s.json.tmp", sj->dir, key);
	(void)unlink(p);
	if (!drop)
		return;
	snprintf(p, sizeof(p), "%s/%s.json", sj->dir, key);
	(void)unlink(p);
	snprintf(p, sizeof(p), "%s/%s", sj->dir, key);
	snprintf(q, sizeof(q), "%s/%s.tmp.%ld.old%u", sj->dir, key,
	    (long)getpid(), seq++);
	if (rename(p, q) == 0)
		sj->rm = strv_add(sj->rm, q);
}

/* The keys of the spares there (a record or a tree; with_tmp: or a
 * KEY.tmp.* or KEY.lock only), but skip. */
static char **
list_keys(const char *dir, const char *skip, int with_tmp)
{
	struct dirent	*de;
	DIR		*dp;
	char		**keys = NULL, k[SP_KEYLEN + 1];
	size_t		 n, i;

	if ((dp = opendir(dir)) == NULL)
		return NULL;
	while ((de = readdir(dp)) != NULL) {
		n = strlen(de->d_name);
		if (n < SP_KEYLEN || !is_key(de->d_name, SP_KEYLEN) ||
		    !(n == SP_KEYLEN || strcmp(de->d_name + SP_KEYLEN,
		    ".json") == 0 || (with_tmp && (strncmp(de->d_name +
		    SP_KEYLEN, ".tmp.", 5) == 0 || strcmp(de->d_name +
		    SP_KEYLEN, ".lock") == 0))))
			continue;
		memcpy(k, de->d_name, SP_KEYLEN);
		k[SP_KEYLEN] = '\0';
		if (skip != NULL && strcmp(k, skip) == 0)
			continue;
		for (i = 0; keys != NULL && keys[i] != NULL; i++)
			if (strcmp(keys[i], k) == 0)
				break;
		if (keys == NULL || keys[i] == NULL)
			keys = strv_add(keys, k);
	}
	closedir(dp);
	return keys;
}

static time_t
rec_mtime(const char *dir, const char *key)
{
	struct stat	st;
	char		p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s.json", dir, key);
	return stat(p, &st) == 0 ? st.st_mtime : 0;
}

/*
 * Make room for one more under worktrees.spares (all of them go when it
 * is 0): the least recently made first; a key another airlockd is
 * working on is left alone.
 */
static void
evict(struct sp_job *sj, int keep)
{
	char	**keys = list_keys(sj->dir, sj->src != NULL ? sj->key : NULL,
	    keep == 0);
	size_t	 n = 0, i, best;
	int	 fd;

	while (keys != NULL && keys[n] != NULL)
		n++;
	while (n > 0 && n >= (size_t)keep) {
		best = 0;
		for (i = 1; i < n; i++)
			if (rec_mtime(sj->dir, keys[i]) <
			    rec_mtime(sj->dir, keys[best]))
				best = i;
		if ((fd = lock_key(sj->dir, keys[best])) != -1) {
			hold(sj, fd, keys[best]);
			clear_key(sj, keys[best], 1);
			log_info("spare %s removed (worktrees.spares %d)",
			    keys[best], sv_settings.worktrees_spares);
		}
		free(keys[best]);
		keys[best] = keys[--n];
		keys[n] = NULL;
	}
	strv_free(keys);
}

static void
job_free(struct sp_job *sj)
{
	size_t	i;

	sv_clone_close(&sj->cl);
	for (i = 0; i < sj->nlocks; i++)
		close(sj->locks[i]);
	free(sj->locks);
	strv_free(sj->lkeys);
	free(sj->dir);
	free(sj->src);
	strv_free(sj->rm);
	free(sj->rm_cur);
	free(sj->tmp);
	free(sj);
}

static void
run_next(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	(void)arg;
	if (cur != NULL || queue == NULL)
		return;
	cur = queue;
	queue = cur->next;
	cur->next = NULL;
	job_step(cur);
}

/* Later, from the event loop: the client's answer goes out first. */
static void
schedule(void)
{
	struct timeval	tv = { 0, 0 };

	if (kick == NULL && (kick = evtimer_new(sv_base, run_next,
	    NULL)) == NULL)
		fatalx("evtimer_new");
	evtimer_add(kick, &tv);
}

static void
job_done(struct sp_job *sj)
{
	struct stat	st;
	char		p[PATH_MAX];
	size_t		i;

	/* A key left with no spare keeps no lock file (we hold it). */
	for (i = 0; i < sj->nlocks; i++) {
		snprintf(p, sizeof(p), "%s/%s", sj->dir, sj->lkeys[i]);
		if (lstat(p, &st) == -1 && errno == ENOENT) {
			snprintf(p, sizeof(p), "%s/%s.lock", sj->dir,
			    sj->lkeys[i]);
			(void)unlink(p);
		}
	}
	if (cur == sj)
		cur = NULL;
	job_free(sj);
	if (queue != NULL)
		schedule();
}

void
sv_wtspare_queue(const char *datadir, const char *src)
{
	struct sp_job	*sj, **pp;
	int		 off = sv_settings.worktrees_spares == 0;

	if (sv_wtspare_off || datadir == NULL || (!off && !ctime_local(src)))
		return;
	datadir_seen(datadir);
	for (pp = &queue; *pp != NULL; pp = &(*pp)->next)
		if (off ? (*pp)->src == NULL : ((*pp)->src != NULL &&
		    strcmp((*pp)->src, src) == 0))
			return;		/* queued already */
	sj = xcalloc(1, sizeof(*sj));
	sj->dir = sv_wtspare_dir(datadir);
	sj->src = off ? NULL : xstrdup(src);
	if (!off)
		key_of(src, sj->key);
	sv_clone_init(&sj->cl, sj);
	sj->cl.done = helper_done;
	sj->cl.ended = helper_ended;
	*pp = sj;
	schedule();
}

static void
helper_done(void *arg, const struct sv_clone_done *d)
{
	struct sp_job	*sj = arg;

	sj->err = d->err;
	sj->files = d->files;
	sj->bytes = d->bytes;
	if (sj->err != 0)
		log_warnx("spare of %s: %s", sj->src != NULL ? sj->src :
		    sj->rm_cur, d->why[0] != '\0' ? d->why :
		    strerror(sj->err));
}

static void
helper_ended(void *arg, int got_done)
{
	struct sp_job	*sj = arg;

	sj->got_done = got_done;
	job_step(sj);
}

static int
helper_spawn(struct sp_job *sj, char **argv)
{
	char	err[PATH_MAX + 64];

	sj->got_done = 0;
	sj->err = 0;
	if (sv_clone_spawn(&sj->cl, argv, err, sizeof(err)) == -1) {
		log_warnx("spare copies: %s", err);
		return -1;
	}
	return 0;
}

static int
rec_write(struct sp_job *sj)
{
	struct jgen	*g = jgen_new();
	struct stat	 st;
	const char	*buf;
	char		 path[PATH_MAX], tmp[PATH_MAX];
	size_t		 len;
	int		 rc;

	snprintf(path, sizeof(path), "%s/%s", sj->dir, sj->key);
	if (lstat(path, &st) == -1) {
		jgen_free(g);
		return -1;
	}
	jgen_obj_open(g);
	jgen_kstr(g, "source", sj->src);
	jgen_kint(g, "since", sj->since);
	jgen_kstr(g, "boot", boot_id());
	jgen_kint(g, "realtime", sj->rt);
	jgen_kint(g, "boottime", sj->bt);
	jgen_kint(g, "files", (long long)sj->files);
	jgen_kint(g, "bytes", (long long)sj->bytes);
	jgen_kint(g, "ino", (long long)st.st_ino);
	jgen_obj_close(g);
	buf = jgen_buf(g, &len);
	snprintf(path, sizeof(path), "%s/%s.json", sj->dir, sj->key);
	snprintf(tmp, sizeof(tmp), "%s/%s.json.tmp", sj->dir, sj->key);
	rc = json_write_file(path, tmp, buf, len);
	jgen_free(g);
	return rc;
}

/* The copy's helper has ended: put the tree in place, or clean up. */
static void
copy_ended(struct sp_job *sj)
{
	char	p[PATH_MAX];

	if (!sj->got_done) {
		log_warnx("spare of %s: airlock-clone stopped before it "
		    "finished", sj->src);
		sj->rm = strv_add(sj->rm, sj->tmp);
	} else if (sj->err != 0)
		(void)rmdir(sj->tmp);	/* the helper emptied it */
	else if (sj->bt < step_bt) {
		log_info("spare of %s: begun before the clock was set, "
		    "dropped", sj->src);
		sj->rm = strv_add(sj->rm, sj->tmp);
	} else {
		snprintf(p, sizeof(p), "%s/%s.json", sj->dir, sj->key);
		(void)unlink(p);	/* a stale one: no taker may pair it
					   with this tree */
		snprintf(p, sizeof(p), "%s/%s", sj->dir, sj->key);
		if (rename(sj->tmp, p) == -1)
			sj->rm = strv_add(sj->rm, sj->tmp);
		else if (rec_write(sj) == -1)
			log_warn("spare of %s: write its record", sj->src);
		else
			log_info("spare of %s ready: %llu files", sj->src,
			    (unsigned long long)sj->files);
	}
	free(sj->tmp);
	sj->tmp = NULL;
}

static void
start(struct sp_job *sj)
{
	int	fd;

	sj->started = 1;
	if (mkdir(sj->dir, 0700) == -1 && errno != EEXIST) {
		log_warn("spare copies: create %s", sj->dir);
		return;
	}
	if (sj->src == NULL) {
		evict(sj, 0);
		return;
	}
	if ((fd = lock_key(sj->dir, sj->key)) == -1)
		return;		/* another airlockd is at it */
	hold(sj, fd, sj->key);
	if (valid_spare(sj->dir, sj->key, sj->src)) {
		clear_key(sj, sj->key, 0);
		return;
	}
	clear_key(sj, sj->key, 1);
	evict(sj, sv_settings.worktrees_spares);
	sj->make = 1;
}

/* One step: setup, then each removal, then the copy. */
static void
job_step(struct sp_job *sj)
{
	char	*argv[7], p[PATH_MAX];
	size_t	 n;

	if (!sj->started)
		start(sj);
	if (sj->rm_cur != NULL) {
		if (rmdir(sj->rm_cur) == -1 && errno != ENOENT)
			log_warn("spare copies: remove %s", sj->rm_cur);
		free(sj->rm_cur);
		sj->rm_cur = NULL;
	}
	if (sj->tmp != NULL)
		copy_ended(sj);
	for (n = 0; sj->rm != NULL && sj->rm[n] != NULL; n++)
		;
	if (n > 0) {
		sj->rm_cur = sj->rm[n - 1];
		sj->rm[n - 1] = NULL;
		argv[0] = "airlock-clone";
		argv[1] = "remove";
		argv[2] = sj->rm_cur;
		argv[3] = NULL;
		if (helper_spawn(sj, argv) == 0)
			return;
		job_done(sj);
		return;
	}
	if (sj->make) {
		sj->make = 0;
		clocks(&sj->rt, &sj->bt);
		sj->since = sj->rt - NS;
		snprintf(p, sizeof(p), "%s/%s.tmp.%ld", sj->dir, sj->key,
		    (long)getpid());
		sj->tmp = xstrdup(p);
		argv[0] = "airlock-clone";
		argv[1] = "-i";
		argv[2] = "-s";
		argv[3] = "copy";
		argv[4] = sj->src;
		argv[5] = sj->tmp;
		argv[6] = NULL;
		if (helper_spawn(sj, argv) == 0)
			return;
		free(sj->tmp);
		sj->tmp = NULL;
	}
	job_done(sj);
}

static void
iso(char *buf, size_t len, long long ns)
{
	time_t		t = (time_t)(ns / NS);
	struct tm	tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "?");
}

static void
gen_one(struct jgen *g, const char *src, int ready, long long since)
{
	char	t[64];

	iso(t, sizeof(t), since);
	jgen_obj_open(g);
	jgen_kstr(g, "source", src);
	jgen_kbool(g, "ready", ready);
	jgen_kstr(g, "since", t);
	jgen_obj_close(g);
}

void
sv_wtspare_gen(struct jgen *g, const char *datadir)
{
	struct json	*m;
	char		*dir, **keys, p[PATH_MAX];
	const char	*src;
	long long	 since, ino;
	size_t		 i;

	jgen_key(g, "spares");
	jgen_arr_open(g);
	if (datadir != NULL) {
		dir = sv_wtspare_dir(datadir);
		keys = list_keys(dir, NULL, 0);
		for (i = 0; keys != NULL && keys[i] != NULL; i++) {
			snprintf(p, sizeof(p), "%s/%s.json", dir, keys[i]);
			if ((m = json_read_object(p, SP_REC_MAX)) == NULL)
				continue;
			if ((src = json_get_str(m, "source")) != NULL &&
			    valid_spare(dir, keys[i], src) &&
			    rec_valid(m, src, &since, &ino))
				gen_one(g, src, 1, since);
			json_free(m);
		}
		strv_free(keys);
		if (cur != NULL && cur->tmp != NULL &&
		    strcmp(cur->dir, dir) == 0)
			gen_one(g, cur->src, 0, cur->since);
		free(dir);
	}
	jgen_arr_close(g);
}

void
sv_wtspare_clock_stepped(void)
{
	struct sp_job	*sj, **pp;
	long long	 rt;
	size_t		 i;
	char		*dir;

	clocks(&rt, &step_bt);
	for (i = 0; datadirs != NULL && datadirs[i] != NULL; i++) {
		dir = sv_wtspare_dir(datadirs[i]);
		for (pp = &queue; *pp != NULL; pp = &(*pp)->next)
			if ((*pp)->src == NULL && strcmp((*pp)->dir, dir) == 0)
				break;
		if (*pp != NULL) {	/* a removal of all is queued */
			free(dir);
			continue;
		}
		sj = xcalloc(1, sizeof(*sj));
		sj->dir = dir;
		sv_clone_init(&sj->cl, sj);
		sj->cl.done = helper_done;
		sj->cl.ended = helper_ended;
		*pp = sj;
	}
	if (queue != NULL)
		schedule();
}

void
sv_wtspare_stop(void)
{
	struct sp_job	*sj;

	while ((sj = queue) != NULL) {
		queue = sj->next;
		job_free(sj);
	}
	if (cur != NULL) {
		/* What it made is a leftover the next spare job removes. */
		if (cur->cl.pid != -1)
			(void)kill(cur->cl.pid, SIGKILL);
		job_free(cur);
		cur = NULL;
	}
	if (kick != NULL) {
		event_free(kick);
		kick = NULL;
	}
	strv_free(datadirs);
	datadirs = NULL;
}
