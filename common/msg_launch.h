/* SPDX-License-Identifier: ISC */
/*
 * The launcher's part of the message catalogue (common/msg.h holds the
 * rest): every message between airlockd and airlock-launcher, and
 * between the sandbox's init and airlock-guard, with its channel,
 * direction, payload schema (common/msgframe.h) and fd count, and the
 * values their fields take.  The launcher and the guard know these and
 * no others (msg_launch.c is their table).
 * Type ranges: 0x00xx any channel, 0x01xx launcher.  Init and the guard
 * speak on MSG_CH_GUARD: the rules down, HELLO and VIOLATION up.  Beside
 * that link, each exec sends the guard its seccomp listener before its
 * execve, on a seqpacket socket of their own (launcher/exec.c): one
 * packet of 4 bytes, the exec id, with the fd; nothing else.
 */
#ifndef AIRLOCK_MSG_LAUNCH_H
#define AIRLOCK_MSG_LAUNCH_H

#include "common/msgframe.h"

#define MSG_CATALOGUE_LAUNCH(X)						\
	/* ---- any channel ---- */					\
	X(MSG_HELLO, 0x0001, MSG_CH_ANY, MSG_UP, "us", 0,		\
	    "pid, self-restriction summary (R-P2; shown by `status`)")	\
	X(MSG_SHUTDOWN, 0x0002, MSG_CH_ANY, MSG_DOWN, "", 0,		\
	    "(none): finish and exit")					\
									\
	/* ---- launcher: the launch plan, sent once, in order ---- */	\
	X(MSG_PLAN_BEGIN, 0x0101, MSG_CH_LAUNCHER, MSG_DOWN, "suuu", 0,\
	    "session id, flags (PLAN_F_*), uid, gid")			\
	X(MSG_PLAN_OP, 0x0102, MSG_CH_LAUNCHER, MSG_DOWN, "uuss", 0,	\
	    "op (PLAN_OP_*), flags (PLAN_OPF_*), source, destination")	\
	X(MSG_PLAN_FILE, 0x0103, MSG_CH_LAUNCHER, MSG_DOWN, "sub", 0,	\
	    "destination, mode, contents (a file created in the root)")\
	X(MSG_PLAN_LANDLOCK, 0x0104, MSG_CH_LAUNCHER, MSG_DOWN, "qs", 0,\
	    "LANDLOCK_ACCESS_FS_* bits allowed beneath path, path")	\
	X(MSG_PLAN_RLIMIT, 0x0105, MSG_CH_LAUNCHER, MSG_DOWN, "uqq", 0,\
	    "resource (RLIMIT_*), soft, hard; applied to every exec")	\
	X(MSG_PLAN_SECCOMP, 0x0106, MSG_CH_LAUNCHER, MSG_DOWN, "ub", 0,\
	    "flags (PLAN_SECF_*), struct sock_filter[] built by gen_seccomp")\
	X(MSG_PLAN_LISTEN, 0x0107, MSG_CH_LAUNCHER, MSG_DOWN, "uu", 0,	\
	    "kind (LISTEN_*), port: a TCP listener on 127.0.0.1:port"	\
	    " inside the netns (the netns is new: any port is free)")	\
	X(MSG_PLAN_END, 0x0108, MSG_CH_LAUNCHER | MSG_CH_GUARD, MSG_DOWN,\
	    "", 0, "(none): build the sandbox now; to the guard: the"	\
	    " rules are complete")					\
	X(MSG_PLAN_WRITE_RULE, 0x0109, MSG_CH_LAUNCHER | MSG_CH_GUARD,	\
	    MSG_DOWN, "uss", 0,						\
	    "kind (NR_*, common/namerule.h), pattern, exception glob on"\
	    " the final component or \"\": a filename rule airlock-guard"\
	    " applies to write-intent syscalls (init passes them on)")	\
	/* ---- launcher: progress and results ---- */			\
	X(MSG_LAUNCH_SOCKET, 0x0110, MSG_CH_LAUNCHER, MSG_UP, "uu", 1,	\
	    "kind (LISTEN_*), port; fd: the listening socket")		\
	X(MSG_LAUNCH_READY, 0x0111, MSG_CH_LAUNCHER, MSG_UP, "uuu", 0,	\
	    "init pid (host view), landlock ABI used, LL_GAP_* not enforced")\
	X(MSG_LAUNCH_FAILED, 0x0112, MSG_CH_LAUNCHER, MSG_UP, "s", 0,	\
	    "reason: what could not be built")				\
	/* ---- launcher: exec server ---- */				\
	X(MSG_EXEC, 0x0120, MSG_CH_LAUNCHER, MSG_DOWN, "usvv", 0,	\
	    "exec id, cwd, argv, envp (complete, built by airlockd)")	\
	X(MSG_EXEC_STARTED, 0x0121, MSG_CH_LAUNCHER, MSG_UP, "uu", 2,	\
	    "exec id, pid (sandbox view); fds: stdout, stderr read ends")\
	X(MSG_EXEC_FAILED, 0x0122, MSG_CH_LAUNCHER, MSG_UP, "uus", 0,	\
	    "exec id, errno, what failed")				\
	X(MSG_EXEC_EXIT, 0x0123, MSG_CH_LAUNCHER, MSG_UP, "uu", 0,	\
	    "exec id, wait status")					\
	X(MSG_EXEC_SIGNAL, 0x0124, MSG_CH_LAUNCHER, MSG_DOWN, "uu", 0,	\
	    "exec id, signal: sent to the exec's process group")	\
	X(MSG_EXEC_IO, 0x0125, MSG_CH_LAUNCHER, MSG_DOWN, "uusvvuu", 1,\
	    "exec id, flags (EXEC_F_*), cwd, argv, envp, rows, columns;"\
	    " fd: the command's stdin (a pipe; closed with EXEC_F_PTY,"\
	    " where a terminal of the sandbox's devpts is its stdio and"\
	    " MSG_EXEC_STARTED carries the master twice)")		\
	X(MSG_VIOLATION, 0x0130, MSG_CH_LAUNCHER | MSG_CH_GUARD, MSG_UP,\
	    "uss", 0, "exec id, action (file-write-create, ...), target"\
	    " path; the guard's go to init, which passes them on")

enum msg_launch_type {
	MSG_CATALOGUE_LAUNCH(MSG_ENUM)
};

/* MSG_PLAN_BEGIN flags */
#define PLAN_F_NET_NS		(1U << 0)	/* new netns with only lo */
#define PLAN_F_LANDLOCK_NET	(1U << 1)	/* TCP connect: own listeners */
#define PLAN_F_LANDLOCK_SCOPE	(1U << 2)	/* scope abstract unix, signals */
#define PLAN_F_SECCOMP_KNOWN	(1U << 3)	/* this kernel loaded the
						   programs for an earlier
						   launch: no check child */

/* MSG_PLAN_OP ops: applied in order, bubblewrap style. */
enum plan_op {
	PLAN_OP_BIND = 1,	/* bind source at destination */
	PLAN_OP_TMPFS,		/* tmpfs at destination; a source, when
				 * not empty, is its size in bytes */
	PLAN_OP_DIR,		/* mkdir -p destination */
	PLAN_OP_PROC,		/* new proc at destination */
	PLAN_OP_DEV,		/* minimal /dev at destination; a source
				 * sizes its /dev/shm, as for TMPFS */
	PLAN_OP_MASK,		/* make destination unreadable (deny-read) */
	PLAN_OP_REMOUNT_RO,	/* destination read-only (write-protect) */
	PLAN_OP_SYMLINK,	/* symlink source at destination */
	PLAN_OP_CHDIR_HOME,	/* reserved */
	PLAN_OP_MAX
};

/* MSG_PLAN_OP flags */
#define PLAN_OPF_RO		(1U << 0)	/* BIND: read-only */
#define PLAN_OPF_OPTIONAL	(1U << 1)	/* missing source: skip */
#define PLAN_OPF_DEV		(1U << 2)	/* BIND: allow device nodes */
#define PLAN_OPF_INSIDE		(1U << 3)	/* BIND: source in the new root */

/* MSG_EXEC_IO flags */
#define EXEC_F_PTY		(1U << 0)	/* a new pty as the ctty */

/* MSG_PLAN_SECCOMP flags */
#define PLAN_SECF_NOTIFY	(1U << 0)	/* filter has USER_NOTIF rules */

/* MSG_PLAN_LISTEN / MSG_LAUNCH_SOCKET kinds */
enum listen_kind {
	LISTEN_HTTP = 1,
	LISTEN_SOCKS,
	LISTEN_GIT,
	LISTEN_MAX
};

/*
 * The ports inside every sandbox's own network namespace.  Fixed, so the
 * plan (environment, git config) can name them before the launcher has
 * made the sockets; nothing else can bind there (Landlock denies TCP bind).
 */
#define LISTEN_PORT_HTTP	3128
#define LISTEN_PORT_SOCKS	1080
#define LISTEN_PORT_GIT		9418

/* MSG_LAUNCH_READY: what the kernel's Landlock ABI could not enforce. */
#define LL_GAP_NONE		(1U << 0)	/* no Landlock at all */
#define LL_GAP_REFER		(1U << 1)	/* ABI < 2 */
#define LL_GAP_TRUNCATE		(1U << 2)	/* ABI < 3 */
#define LL_GAP_NET		(1U << 3)	/* ABI < 4 */
#define LL_GAP_IOCTL_DEV	(1U << 4)	/* ABI < 5 */
#define LL_GAP_SCOPE		(1U << 5)	/* ABI < 6 */

#endif
