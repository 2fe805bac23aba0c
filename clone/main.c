// SPDX-License-Identifier: ISC
/*
 * airlock-clone: one copy-on-write copy of one repository into a
 * conversation (SPEC §5, R-W1/R-W3/R-W5), or the removal of one copy.
 * airlockd decides what is copied where and starts one per job with the
 * channel on fd 3 and the job on its command line:
 *
 *   airlock-clone [-j N] [-i] [-s] copy SRC DST
 *	DST is created and must not exist
 *   airlock-clone [-j N] [-i] update SRC DST SINCE
 *	DST, a complete copy of SRC that a copy began at or after SINCE
 *	(nanoseconds since the epoch), is brought up to date with SRC:
 *	a spare copy taken for a new conversation (sv_worktree.c)
 *   airlock-clone remove DIR
 *	DIR is emptied (airlockd rmdirs it)
 *
 * -i: at idle priority (CPU and I/O), for a spare made in the background.
 * -s: a spare, which update will bring up to date: each directory of the
 *     copy carries its source's identity (an extended attribute that
 *     update checks and removes; clone/copier.c).
 *
 * clone_main() reads: initialise (create DST) → restrict self (Landlock:
 * SRC read-only, DST the only writable tree; seccomp: file creation, the
 * FICLONE ioctl and threads, nothing of the network) → HELLO → copy with
 * MSG_CL_PROGRESS every 150 ms → MSG_CL_DONE.  A copy or update that
 * fails is emptied here before DONE is sent: a half-made copy never
 * outlives us.
 * airlockd removes the then-empty DST and the rest of the conversation it
 * made for this provisioning.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clone/copier.h"
#include "common/fstype.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sandbox_self.h"

#define CL_PROGRESS_MS	150	/* R-W5 asks for at most 250 ms: the
					   rest is slack for a loaded host */
#define CL_MAX_THREADS	4

static struct msg_link	cl_link;

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: airlock-clone [-j N] [-i] [-s] copy SRC DST\n"
	    "       airlock-clone [-j N] [-i] update SRC DST SINCE\n"
	    "       airlock-clone remove DIR\n"
	    "(started by airlockd with its channel on fd 3)\n");
	exit(2);
}

static void
send_done(int err, const struct cp_stats *st, const char *msg)
{
	struct msgbuf	b;

	msgbuf_init(&b, MSG_CL_DONE);
	msg_put_u32(&b, (uint32_t)err);
	msg_put_u64(&b, st->files);
	msg_put_u64(&b, st->bytes);
	msg_put_u64(&b, st->skipped);
	msg_put_u64(&b, st->vanished);
	msg_put_str(&b, msg);
	if (msg_send(&cl_link, &b, NULL, 0) == -1)
		fatal("send DONE");
	msgbuf_free(&b);
}

static void
send_hello(void)
{
	struct msgbuf	b;

	msgbuf_init(&b, MSG_HELLO);
	msg_put_u32(&b, (uint32_t)getpid());
	msg_put_str(&b, sandbox_self_summary());
	if (msg_send(&cl_link, &b, NULL, 0) == -1)
		fatal("send HELLO");
	msgbuf_free(&b);
}

/*
 * A deep tree keeps one pair of directory fds open per level per
 * worker: take every fd the hard limit allows.
 */
static void
raise_nofile(void)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * -i: a spare copy is made while the user works: it takes only the CPU
 * and disk time nothing else wants.  Lowering oneself needs no
 * privilege; failures leave the default priority (said in the log).
 */
static void
idle_priority(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (setpriority(PRIO_PROCESS, 0, 19) == -1 ||
	    sched_setscheduler(0, SCHED_IDLE, &sp) == -1 ||
	    syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0,
	    3 << 13 /* IOPRIO_CLASS_IDLE */) == -1)
		log_warn("idle priority");
}

/* SINCE of update: decimal nanoseconds since the epoch. */
static int
parse_since(const char *s, struct timespec *ts)
{
	unsigned long long v = 0;

	if (*s == '\0' || strlen(s) > 19)
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned)(*s - '0');
	}
	ts->tv_sec = (time_t)(v / 1000000000ULL);
	ts->tv_nsec = (long)(v % 1000000000ULL);
	return 0;
}

/*
 * update trusts the source's ctimes: only where this kernel sets them
 * (fstype.h).  airlockd makes no spare elsewhere; this is the helper's
 * own check.
 */
static int
ctime_local(int fd)
{
	struct statfs	sfs;

	return fstatfs(fd, &sfs) == 0 && fstype_ctime_trusted(sfs.f_type);
}

/* copy (since NULL: DST is made) or update (DST is an earlier copy). */
static int
do_copy(const char *src, const char *dst, int nthreads,
    const struct timespec *since, int spare)
{
	/*
	 * SRC: read its files and list its directories, nothing more.
	 * DST: make directories, files and symlinks, write (the clone),
	 * and remove, for the clean-up after a failure.  Landlock knows
	 * nothing of FICLONE: it is a write to a file beneath DST.
	 */
	struct sbx_path	 paths[] = {
		{ src, SBX_FS_READ_FILE | SBX_FS_READ_DIR },
		{ dst, SBX_FS_READ_FILE | SBX_FS_READ_DIR | SBX_FS_WRITE_FILE |
		    SBX_FS_MAKE_DIR | SBX_FS_MAKE_REG | SBX_FS_MAKE_SYM |
		    SBX_FS_REMOVE_DIR | SBX_FS_REMOVE_FILE },
	};
	struct sbx_profile prof = {
		.name = "clone",
		.paths = paths,
		.npaths = 2,
		.groups = SBX_SYS_STDIO | SBX_SYS_RPATH | SBX_SYS_WPATH |
		    SBX_SYS_THREAD | SBX_SYS_UNIX,
	};
	struct cp_stats	 st;
	struct cp_job	*job;
	char		 msg[1200], rmmsg[256];
	uint64_t	 removed = 0;
	int		 sfd, dfd, err;

	memset(&st, 0, sizeof(st));
	if (since == NULL && mkdir(dst, 0700) == -1) {
		err = errno;
		snprintf(msg, sizeof(msg), "create %s: %s", dst,
		    strerror(err));
		prof.npaths = 0;	/* nothing was made: just say so */
		sandbox_self(&prof);
		send_hello();
		send_done(err, &st, msg);
		return 0;
	}
	sandbox_self(&prof);
	send_hello();
	if ((sfd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		err = errno;
		snprintf(msg, sizeof(msg), "open the repository %s: %s", src,
		    strerror(err));
		send_done(err, &st, msg);
		return 0;
	}
	if ((dfd = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		err = errno;
		snprintf(msg, sizeof(msg), "open the copy %s: %s", dst,
		    strerror(err));
		send_done(err, &st, msg);
		return 0;
	}
	if (since != NULL && !ctime_local(sfd)) {
		struct statfs sfs;

		snprintf(msg, sizeof(msg), "update %s: the repository is on "
		    "%s; an earlier copy is brought up to date only on XFS, "
		    "btrfs or bcachefs (local filesystems that clone, whose "
		    "times this kernel sets)", dst, fstatfs(sfd, &sfs) == 0 ?
		    cp_fs_name(sfs.f_type) : "an unknown filesystem");
		err = EOPNOTSUPP;
		goto out;
	}
	if ((job = since != NULL ? cp_update(sfd, dfd, since, nthreads) :
	    spare ? cp_spare(sfd, dfd, nthreads) :
	    cp_start(sfd, dfd, nthreads)) == NULL)
		fatal("start the copy");
	while (!cp_wait(job, CL_PROGRESS_MS, &st)) {
		struct msgbuf b;

		msgbuf_init(&b, MSG_CL_PROGRESS);
		msg_put_u64(&b, st.files);
		msg_put_u64(&b, st.bytes);
		msg_put_u64(&b, st.skipped);
		if (msg_send(&cl_link, &b, NULL, 0) == -1)
			fatal("send PROGRESS");
		msgbuf_free(&b);
	}
	err = cp_result(job, msg, sizeof(msg));
	cp_free(job);
	if (since != NULL && err == 0)
		log_info("update of %s: %llu entries made again or removed",
		    dst, (unsigned long long)st.changed);
out:
	if (err != 0 && cp_empty_dir(dfd, &removed, rmmsg,
	    sizeof(rmmsg)) == -1) {
		size_t n = strlen(msg);

		snprintf(msg + n, sizeof(msg) - n, " (and the partial copy "
		    "could not be removed: %s)", rmmsg);
	}
	close(dfd);
	close(sfd);
	send_done(err, &st, msg);
	return 0;
}

static int
do_remove(const char *dir)
{
	struct sbx_path	 paths[] = {
		{ dir, SBX_FS_READ_DIR | SBX_FS_REMOVE_DIR |
		    SBX_FS_REMOVE_FILE },
	};
	struct sbx_profile prof = {
		.name = "clone",
		.paths = paths,
		.npaths = 1,
		.groups = SBX_SYS_STDIO | SBX_SYS_RPATH | SBX_SYS_WPATH |
		    SBX_SYS_UNIX,
	};
	struct cp_stats	 st;
	char		 msg[300];
	int		 fd, err = 0;

	memset(&st, 0, sizeof(st));
	msg[0] = '\0';
	sandbox_self(&prof);
	send_hello();
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		err = errno;
		snprintf(msg, sizeof(msg), "open %s: %s", dir, strerror(err));
	} else {
		if (cp_empty_dir(fd, &st.files, msg, sizeof(msg)) == -1)
			err = errno != 0 ? errno : EIO;
		close(fd);
	}
	send_done(err, &st, msg);
	return 0;
}

static int
clone_main(int argc, char **argv)
{
	struct timespec	 since;
	long		 ncpu;
	int		 ch, nthreads = 0, idle = 0, spare = 0;

	while ((ch = getopt(argc, argv, "ij:s")) != -1) {
		switch (ch) {
		case 'i':
			idle = 1;
			break;
		case 's':
			spare = 1;
			break;
		case 'j':
			nthreads = atoi(optarg);
			if (nthreads < 1 || nthreads > 64)
				usage();
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	log_init("clone", 0);
	if (fcntl(MSG_CHILD_FD, F_GETFD) == -1)
		fatalx("no channel on fd %d: started by airlockd only",
		    MSG_CHILD_FD);
	msg_link_init(&cl_link, MSG_CHILD_FD, MSG_CH_CLONE, MSG_DOWN,
	    "airlockd");
	signal(SIGPIPE, SIG_IGN);
	raise_nofile();
	/* Modes are copied, not filtered (the copier creates each file
	 * with its mode when nothing masks it). */
	umask(0);
	if (nthreads == 0) {
		/* Measured (docs/PERFORMANCE.md): a second worker pays on
		 * two cores; more than four buy nothing. */
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		nthreads = ncpu < 1 ? 1 : ncpu > CL_MAX_THREADS ?
		    CL_MAX_THREADS : (int)ncpu;
	}
	if (idle)
		idle_priority();
	if (argc == 3 && strcmp(argv[0], "copy") == 0 &&
	    argv[1][0] == '/' && argv[2][0] == '/')
		return do_copy(argv[1], argv[2], nthreads, NULL, spare);
	if (argc == 4 && strcmp(argv[0], "update") == 0 &&
	    argv[1][0] == '/' && argv[2][0] == '/' &&
	    parse_since(argv[3], &since) == 0)
		return do_copy(argv[1], argv[2], nthreads, &since, 0);
	if (argc == 2 && strcmp(argv[0], "remove") == 0 && argv[1][0] == '/')
		return do_remove(argv[1]);
	usage();
}


int
main(int argc, char **argv)
{
	return clone_main(argc, argv);
}
