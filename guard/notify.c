// SPDX-License-Identifier: ISC
/*
 * Filename rules at creation time (SPEC R-L4), in airlock-guard.  Each
 * exec's seccomp listener comes here from the exec itself
 * (launcher/exec.c, main.c); airlockd's filter
 * sends it the write-intent syscalls (sv_seccomp.c).  For each call we
 * copy the path argument(s) ONCE, open the parent directory as the
 * caller sees it (/proc/<pid>/cwd, /proc/<pid>/fd/N), check the parent's
 * canonical path joined with the final component against the plan's
 * rules (common/namerule.c), then perform the call ourselves on that fd
 * and that copied name, and inject the fd (SECCOMP_IOCTL_NOTIF_ADDFD) or
 * return the result.  Never "continue": the kernel would re-read memory
 * the caller can change after our check.  A final symlink is followed
 * here (O_NOFOLLOW, readlinkat), so its target is checked too.  The guard
 * is confined as the caller (Landlock, mounts, root, uid, no caps: init's
 * own, inherited) and more (main.c): emulation grants nothing; the
 * caller's umask, flags, modes and O_CLOEXEC are kept.  A bind is done on
 * our copy of the caller's socket (pidfd_getfd).  Refusals are EACCES
 * and a MSG_VIOLATION.
 */
#include <sys/ioctl.h>
#include <sys/param.h>
#ifdef AIRLOCK_TEST_BUILD
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <signal.h>
#endif
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <linux/audit.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/gitstate.h"
#include "common/log.h"
#include "common/msg_launch.h"
#include "common/namerule.h"
#include "common/procpeek.h"
#include "common/sockset.h"
#include "common/xmalloc.h"
#include "guard/guard.h"

#define NT_DEFERRED	SOCKSET_DEFERRED /* answered later: FIFO, connect */
#define NT_MAX_HOPS	40	/* symlinks followed, as the kernel's limit */
#define NT_PEND_MAX	64	/* FIFO opens waiting for a reader */
#if defined(__x86_64__)
#define NT_ARCH		AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NT_ARCH		AUDIT_ARCH_AARCH64
#else
#error "the native audit architecture of this target is unknown"
#endif
#define NT_RETRY_MS	20	/* how often they are tried again */

struct nt_listener {
	int		 fd;
	uint32_t	 exec;
};

/* One call being handled. */
struct nt_call {
	int		 lfd;
	uint64_t	 id;
	pid_t		 pid;
	uint32_t	 exec;
};

/* A path resolved to its parent directory and final component. */
struct nt_path {
	int		 dfd;		/* the parent, O_PATH; -1 if none */
	int		 proc;		/* parent in /proc: magic links */
	char		 name[NAME_MAX + 2];
	char		 abs[PATH_MAX + NAME_MAX + 2];
};

/* A writer's open of a FIFO without a reader, retried from the loop. */
struct nt_pend {
	struct nt_call	 c;
	int		 dfd;
	int		 of;		/* O_CLOEXEC: the caller's */
	char		 name[NAME_MAX + 2];
};

static struct nt_pend		 nt_pend[NT_PEND_MAX];
static size_t			 nt_npend;
static struct nt_listener	*nt_ls;
static size_t			 nt_nls;
static struct namerule_set	*nt_rules;
static struct seccomp_notif	*nt_req;
static struct seccomp_notif_resp *nt_resp;
static struct seccomp_notif_sizes nt_sizes;
static mode_t			 nt_umask0;	/* the guard's own */
static int			 nt_nobind;	/* unix bind(2) refused */
static char			 nt_self[32];	/* "/proc/<our pid>" */

/* untrusted: only in that airlockd built it; a bad rule is fatal. */
void
notify_rule(uint32_t kind, const char *pattern, const char *except)
{
	if (nt_rules == NULL && (nt_rules = namerule_new()) == NULL)
		fatal("namerule_new");
	/* An allowed host socket, bound at its path before we started:
	 * known by its inode from now on, whatever names it later. */
	if (kind == NR_UNIXSOCK) {
		if (sockset_check(AT_FDCWD, pattern, AT_SYMLINK_NOFOLLOW,
		    SOCKSET_PIN) != 1)
			fatalx("plan: allowed unix socket %s is not one in "
			    "the sandbox", pattern);
		return;
	}
	if (kind == NR_NOUNIXBIND) {
		nt_nobind = 1;
		return;
	}
	if (namerule_add(nt_rules, kind, pattern, except) == -1)
		fatalx("plan: write rule %u \"%s\" is invalid", kind, pattern);
}

void
notify_setup(void)
{
	if (nt_rules == NULL && (nt_rules = namerule_new()) == NULL)
		fatal("namerule_new");
	snprintf(nt_self, sizeof(nt_self), "/proc/%d", (int)getpid());
	(void)umask(nt_umask0 = umask(022));
	(void)syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &nt_sizes);
	nt_req = xcalloc(1, MAX(sizeof(*nt_req), nt_sizes.seccomp_notif));
	nt_resp = xcalloc(1, MAX(sizeof(*nt_resp),
	    nt_sizes.seccomp_notif_resp));
}

void
notify_add(int fd, uint32_t exec)
{
	nt_ls = xreallocarray(nt_ls, nt_nls + 1, sizeof(*nt_ls));
	nt_ls[nt_nls++] = (struct nt_listener){ fd, exec };
}

/* pfd NULL: only how many there are. */
size_t
notify_pollfds(struct pollfd *pfd)
{
	size_t	i;

	for (i = 0; pfd != NULL && i < nt_nls; i++)
		pfd[i] = (struct pollfd){ .fd = nt_ls[i].fd, .events = POLLIN };
	return nt_nls;
}

static void
nt_violation(const struct nt_call *c, const char *action, const char *path)
{
	struct msgbuf	b;

	log_debug("exec %u: %s %s refused", c->exec, action, path);
	msgbuf_init(&b, MSG_VIOLATION);
	msg_put_u32(&b, c->exec);
	msg_put_str(&b, action);
	msg_put_str(&b, path);
	(void)msg_send(&guard_link, &b, NULL, 0);
	msgbuf_free(&b);
}

/* Still pending?  Then pid was the caller's all along.  0 or -ENOENT. */
static int
nt_valid(const struct nt_call *c)
{
	uint64_t id = c->id;

	return ioctl(c->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0 ? 0 :
	    -ENOENT;
}

/*
 * Set our umask: the caller's around a create, our own after.  Usually
 * they are equal: no syscall.
 */
static void
nt_umask_set(mode_t um)
{
	static mode_t	cur = (mode_t)-1;

	if (cur == (mode_t)-1)
		cur = nt_umask0;
	if (um != cur)
		(void)umask(cur = um);
}

static void
nt_path_close(struct nt_path *t)
{
	if (t->dfd != -1)
		close(t->dfd);
	t->dfd = -1;
}

/*
 * Open the parent of path relative to base ("/proc/<pid>/cwd", the
 * caller's dirfd "/proc/<pid>/fd/N", or one of ours), or to the root for
 * an absolute path (the caller's root is ours: chroot is denied).
 */
static int
nt_resolve(pid_t pid, const char *base, const char *path, struct nt_path *t)
{
	char		 full[PATH_MAX + 64], self[64];
	ssize_t		 r;
	int		 e;

	t->dfd = -1;
	if ((e = namerule_split(pid, base, path, full, sizeof(full), t->name,
	    sizeof(t->name))) < 0)
		return e;
	if ((t->dfd = open(full, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		/* A dirfd that is not open: what the kernel says. */
		if (errno == ENOENT && path[0] != '/' &&
		    access(base, F_OK) == -1 && errno == ENOENT)
			return -EBADF;
		return -errno;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", t->dfd);
	r = readlink(self, t->abs, PATH_MAX);
	if ((e = r <= 0 ? -EACCES : namerule_join(t->abs, sizeof(t->abs),
	    (size_t)r, t->name, &t->proc)) == 0 &&
	    strncmp(t->abs, nt_self, strlen(nt_self)) == 0 &&
	    strchr("/", t->abs[strlen(nt_self)]) != NULL)
		e = -EACCES;	/* nothing of ours: listeners, link */
	if (e < 0)
		nt_path_close(t);
	return e;
}

/* Resolve a path argument of the caller: dirfd, then the string. */
static int
nt_arg(const struct nt_call *c, int dirfd, uint64_t addr, int empty_ok,
    struct nt_path *t, char *buf, size_t len)
{
	char	base[64], lex[PATH_MAX];
	ssize_t	n;
	int	r;

	t->dfd = -1;
	if ((r = procpeek_str(c->pid, addr, buf, len)) < 0)
		return r;
	if (dirfd == AT_FDCWD)
		snprintf(base, sizeof(base), "/proc/%d/cwd", (int)c->pid);
	else if (dirfd >= 0)
		snprintf(base, sizeof(base), "/proc/%d/fd/%d", (int)c->pid,
		    dirfd);
	else if (buf[0] != '/')
		return -EBADF;
	/* linkat(fd, "", ..., AT_EMPTY_PATH): the file the fd refers to. */
	if (empty_ok && buf[0] == '\0')
		snprintf(buf, len, "%s", base);
	if ((r = nt_resolve(c->pid, base, buf, t)) < 0 || t->proc ||
	    strchr(buf, '/') == NULL)
		return r;
	/* A named parent may be a symlink the host made (.claude -> x):
	 * the path as written is checked too, the resolved one after. */
	if (buf[0] == '/')
		lex[0] = '\0';
	else if ((n = readlink(base, lex, sizeof(lex) - 1)) > 0)
		lex[n] = '\0';
	else
		return r;
	if (namerule_lexical(lex[0] ? lex : "/", buf, lex, sizeof(lex)) == 0 &&
	    strcmp(lex, t->abs) != 0 && namerule_check(nt_rules, lex, 0) ==
	    NR_DENY) {
		nt_violation(c, "file-write", lex);
		nt_path_close(t);
		return -EACCES;
	}
	return r;
}

/* Apply the rules; on a refusal report it and say EACCES. */
static int
nt_check(const struct nt_call *c, const char *path, unsigned int flags,
    const char *action, enum namerule_verdict *vp)
{
	enum namerule_verdict v;

	if ((v = namerule_check(nt_rules, path, flags)) == NR_ALLOW)
		return 0;
	if (vp != NULL && v == NR_CHECK_CONFIG) {
		*vp = v;
		return 0;
	}
	nt_violation(c, action, path);
	return -EACCES;
}

/*
 * Git state (R-L3, common/gitstate.c): abs is the name an op makes,
 * writes or (GS_SRC_*) takes away; (fd, fn) a rename's or link's source.
 */
static int
nt_git(const struct nt_call *c, const char *abs, int op, int fd,
    const char *fn, const char *act, enum namerule_verdict *vp)
{
	char	why[PATH_MAX + 64] = "";
	int	top, r;

	if (!namerule_gitstate_on(nt_rules) ||
	    (top = namerule_scope(nt_rules, abs)) < 0 ||
	    (r = gitstate_check(abs, (size_t)top, op, fd, fn, why,
	    sizeof(why))) == 0)
		return 0;
	if (r == 1 && vp != NULL) {
		*vp = NR_CHECK_CONFIG;
		return 0;
	}
	log_debug("exec %u: %s: %s", c->exec, abs, why);
	nt_violation(c, act, abs);
	return -EACCES;
}

/* A name an op makes or writes: the rules, then git state. */
static int
nt_write(const struct nt_call *c, const char *abs, unsigned int flags,
    int op, const char *act)
{
	int	r;

	if ((r = nt_check(c, abs, flags, act, NULL)) == 0)
		r = nt_git(c, abs, op, -1, NULL, act, NULL);
	return r;
}

static void
nt_reply(int lfd, uint64_t id, int err, int fd, int cloexec)
{
	struct seccomp_notif_addfd a;

	if (fd >= 0) {
		memset(&a, 0, sizeof(a));
		a.id = id;
		a.flags = SECCOMP_ADDFD_FLAG_SEND;
		a.srcfd = (uint32_t)fd;
		a.newfd_flags = cloexec ? O_CLOEXEC : 0;
		err = ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &a) >= 0 ||
		    errno == ENOENT ? 1 : -errno;
		close(fd);
		if (err == 1)
			return;
	}
	memset(nt_resp, 0, MAX(sizeof(*nt_resp), nt_sizes.seccomp_notif_resp));
	nt_resp->id = id;
	nt_resp->error = err;
	/* ENOENT: the caller was killed meanwhile; nothing to answer. */
	(void)ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, nt_resp);
}

#ifdef AIRLOCK_TEST_BUILD
/*
 * The test build's probe of our own restriction (tests/integration/
 * guard.sh): a command's open of ".airlock-guard-probe" makes us try,
 * each in a child of ours (a refusal kills it, not us), what the guard
 * must not do, and write how each child ended into that file.  The
 * control child does nothing refused: it must exit 0.
 */
static void
nt_probe(int fd)
{
	static const char *const what[] = { "control", "execve", "socket",
	    "ptrace", "dumpable" };
	char	*argv[] = { "true", NULL };
	size_t	 i;
	pid_t	 pid;
	int	 st;

	signal(SIGCHLD, SIG_DFL);
	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		if ((pid = fork()) == 0) {
			if (i == 1)
				(void)execve("/bin/true", argv, argv + 1);
			else if (i == 2)
				(void)socket(AF_INET, SOCK_STREAM, 0);
			else if (i == 3)
				(void)ptrace(PTRACE_TRACEME, 0, NULL, NULL);
			else if (i == 4)
				(void)prctl(PR_SET_DUMPABLE, 1);
			_exit(i == 0 ? 0 : 100);
		}
		if (pid == -1 || waitpid(pid, &st, 0) == -1)
			st = 0xff00;
		dprintf(fd, "%s: %s %d\n", what[i], WIFSIGNALED(st) ?
		    "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) :
		    WEXITSTATUS(st));
	}
	signal(SIGCHLD, SIG_IGN);
}
#endif

/* open, openat, creat. */
static int
nt_open(const struct nt_call *c, int dirfd, uint64_t addr, int flags,
    mode_t mode, int *fdp)
{
	struct nt_path	 t;
	struct nt_pend	*p;
	struct stat	 st;
	char		 path[PATH_MAX], base[64], got[PATH_MAX];
	int		 hops, r, fd, of, nb;
	const char	*act = (flags & O_CREAT) ? "file-write-create" :
	    "file-write";
	ssize_t		 n;

	if ((r = nt_arg(c, dirfd, addr, 0, &t, path, sizeof(path))) < 0)
		return r;
	if (flags & (O_CREAT | O_TMPFILE))
		nt_umask_set(procpeek_umask(c->pid));
	for (hops = 0;; hops++) {
		/* O_PATH writes nothing; O_TMPFILE names nothing (linkat
		 * will, and is checked). */
		if ((flags & (O_PATH | (O_TMPFILE & ~O_DIRECTORY))) == 0 &&
		    (r = nt_write(c, t.abs, 0, GS_WRITE, act)) < 0)
			break;
		of = flags | O_CLOEXEC;
		/* We follow a final symlink ourselves, to check its target;
		 * in /proc the kernel does (magic links), checked after. */
		if (!t.proc && !(flags & O_PATH))
			of |= O_NOFOLLOW;
		if (t.proc)
			of &= ~O_TRUNC;
		/* A FIFO without a reader must not block the guard. */
		nb = !(flags & (O_NONBLOCK | O_PATH | O_EXCL));
		if (nb)
			of |= O_NONBLOCK;
		if ((r = nt_valid(c)) < 0)
			break;
		/* /dev/tty: the caller's terminal (our devpts), not ours. */
		if (strcmp(t.abs, "/dev/tty") == 0)
			fd = (r = procpeek_ctty(c->pid, got, sizeof(got))) < 0 ?
			    (errno = -r, -1) : open(got, (of & ~(O_CREAT |
			    O_EXCL | O_TMPFILE)) | O_NOCTTY);
		else
			fd = openat(t.dfd, t.name, of, mode);
		r = fd == -1 ? -errno : 0;
		if (r == -ELOOP && (of & O_NOFOLLOW) && !(flags & O_NOFOLLOW) &&
		    hops < NT_MAX_HOPS &&
		    (n = readlinkat(t.dfd, t.name, path, PATH_MAX - 1)) > 0) {
			path[n] = '\0';
			snprintf(base, sizeof(base), "/proc/self/fd/%d", t.dfd);
			fd = t.dfd;
			r = nt_resolve(c->pid, base, path, &t);
			close(fd);
			if (r < 0)
				break;
			continue;
		}
		/* A FIFO without a reader (a device's ENXIO is the answer):
		 * our loop tries again (nt_retry), never blocking, never
		 * forking; a bounded number at a time. */
		if (r == -ENXIO && nb && fstatat(t.dfd, t.name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISFIFO(st.st_mode))
			r = nt_npend < NT_PEND_MAX ? NT_DEFERRED : -EAGAIN;
		if (r == NT_DEFERRED) {
			p = &nt_pend[nt_npend++];
			*p = (struct nt_pend){ *c, t.dfd, (of & ~(O_CREAT |
			    O_EXCL | O_CLOEXEC)) | (flags & O_CLOEXEC), "" };
			memcpy(p->name, t.name, sizeof(t.name));
			t.dfd = -1;
		}
		if (r != 0)
			break;
		/* F_SETFL sets only the status flags, all of them from of. */
		if (nb)
			(void)fcntl(fd, F_SETFL, of & ~O_NONBLOCK);
		if (t.proc) {
			/* Where the magic link led: check, then truncate. */
			snprintf(base, sizeof(base), "/proc/self/fd/%d", fd);
			if ((n = readlink(base, got, sizeof(got) - 1)) > 0)
				got[n] = '\0';
			if (n > 0 && got[0] == '/')
				r = nt_write(c, got, 0, GS_WRITE, act);
			if (r == 0 && (flags & O_TRUNC) &&
			    fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
			    (flags & O_ACCMODE) != O_RDONLY &&
			    ftruncate(fd, 0) == -1)
				r = -errno;
			if (r < 0) {
				close(fd);
				break;
			}
		}
		*fdp = fd;
#ifdef AIRLOCK_TEST_BUILD
		if (strcmp(t.name, ".airlock-guard-probe") == 0)
			nt_probe(fd);
#endif
		break;
	}
	nt_umask_set(nt_umask0);
	nt_path_close(&t);
	return r;
}

/* mkdir, mkdirat, mknod, mknodat, symlink, symlinkat. */
static int
nt_make(const struct nt_call *c, long nr, int dirfd, uint64_t addr,
    mode_t mode, dev_t dev, uint64_t target)
{
	struct nt_path	 t;
	char		 path[PATH_MAX], tgt[PATH_MAX];
	int		 r, sym = nr == SYS_symlink || nr == SYS_symlinkat;
	const char	*act = "file-write-create";

	if (sym && (r = procpeek_str(c->pid, target, tgt,
	    sizeof(tgt))) < 0)
		return r;
	if ((r = nt_arg(c, dirfd, addr, 0, &t, path, sizeof(path))) < 0)
		return r;
	/* A symlink may name a directory: refuse an ancestor of a rule;
	 * and what it points at, as its text says (the host may write
	 * through it later), may not be protected either, wherever. */
	if ((r = nt_write(c, t.abs, sym ? NR_F_PREFIX : 0, sym ? GS_SYMLINK :
	    nr == SYS_mkdir || nr == SYS_mkdirat ? GS_MKDIR : GS_WRITE,
	    act)) < 0)
		goto out;
	*strrchr(t.abs, '/') = '\0';
	if (sym && ((r = namerule_lexical(t.abs[0] ? t.abs : "/", tgt, path,
	    sizeof(path))) < 0 || (r = nt_write(c, path, NR_F_PREFIX |
	    NR_F_ANYWHERE, GS_WRITE, act)) < 0))
		goto out;
	if (!sym)
		nt_umask_set(procpeek_umask(c->pid));
	if ((r = nt_valid(c)) < 0)
		goto out;
	if (sym)
		r = symlinkat(tgt, t.dfd, t.name);
	else if (nr == SYS_mkdir || nr == SYS_mkdirat)
		r = mkdirat(t.dfd, t.name, mode);
	else
		r = mknodat(t.dfd, t.name, mode, dev);
	r = r == -1 ? -errno : 0;
out:
	nt_umask_set(nt_umask0);
	nt_path_close(&t);
	return r;
}

/* A rename onto a git config: common/gitstate.c checks and installs. */
static int
nt_config(const struct nt_call *c, struct nt_path *o, struct nt_path *n,
    unsigned int flags)
{
	char	why[sizeof(n->abs) + 160], tmp[64];
	int	r;

	snprintf(tmp, sizeof(tmp), ".airlock-config.%lu", (unsigned long)c->id);
	if ((r = nt_valid(c)) < 0 || (r = gitstate_config_rename(o->dfd,
	    o->name, n->dfd, n->name, flags, tmp, n->abs, namerule_scope(
	    nt_rules, n->abs), why, sizeof(why))) == 2) {
		/* Installed; a remote's URL changed: reported. */
		return nt_violation(c, "git-remote-changed", n->abs), 0;
	}
	if (r != 1)
		return r;
	nt_violation(c, "file-rename", n->abs);
	nt_violation(c, "git-config-key", why);	/* "path: key: reason" */
	return -EACCES;
}

/* link, linkat, rename, renameat, renameat2. */
static int
nt_two(const struct nt_call *c, long nr, int odir, uint64_t oaddr,
    int ndir, uint64_t naddr, unsigned int flags)
{
	struct nt_path	 o, n;
	char		 op[PATH_MAX + NAME_MAX + 2], np[PATH_MAX], *sp;
	enum namerule_verdict v = NR_ALLOW;
	int		 r, link = nr == SYS_link || nr == SYS_linkat;
	const char	*act = link ? "file-write-create" : "file-rename";

	o.dfd = -1;
	if (link && (flags & ~(unsigned int)(AT_SYMLINK_FOLLOW |
	    AT_EMPTY_PATH)) != 0)
		return -EINVAL;
	if ((r = nt_arg(c, ndir, naddr, 0, &n, np, sizeof(np))) < 0)
		return r;
	if ((r = nt_arg(c, odir, oaddr, link && (flags & AT_EMPTY_PATH), &o,
	    op, sizeof(op))) < 0)
		goto out;
	/* A rename or link can bring a whole tree: no ancestor of a rule.
	 * Its source is checked like its target: a link must not give a
	 * protected file a second name (whatever fd or /proc link names
	 * it), a rename must not take a protected name away. */
	if (o.proc && (r = (int)readlink(o.abs, op, sizeof(op) - 1)) > 0) {
		op[r] = '\0';
		if ((sp = strstr(op, " (deleted)")) != NULL && sp[10] == '\0')
			*sp = '\0';
	} else
		snprintf(op, sizeof(op), "%s", o.abs);
	if ((r = nt_check(c, n.abs, NR_F_PREFIX, act, link ? NULL : &v)) < 0 ||
	    (r = nt_check(c, op, link ? 0 : NR_F_PREFIX, act, NULL)) < 0 ||
	    (r = nt_git(c, n.abs, link ? GS_LINK : GS_RENAME, o.dfd, o.name,
	    act, link ? NULL : &v)) < 0 ||
	    (op[0] == '/' && (r = nt_git(c, op, link ? GS_SRC_LINK :
	    GS_SRC_RENAME, o.proc ? AT_FDCWD : o.dfd, o.proc ? op : o.name,
	    act, NULL)) < 0))
		goto out;
	/* An exchange: each side is also the other's source and target. */
	if ((flags & RENAME_EXCHANGE) && !link &&
	    ((r = nt_git(c, o.abs, GS_RENAME, n.dfd, n.name, act, NULL)) < 0 ||
	    (r = nt_git(c, n.abs, GS_SRC_RENAME, n.dfd, n.name, act,
	    NULL)) < 0))
		goto out;
	if (v == NR_CHECK_CONFIG)
		r = nt_config(c, &o, &n, flags);
	else if ((r = nt_valid(c)) < 0)
		;
	else if (link)
		r = linkat(o.dfd, o.name, n.dfd, n.name,
		    (flags & AT_EMPTY_PATH) ? AT_SYMLINK_FOLLOW :
		    (int)(flags & AT_SYMLINK_FOLLOW)) == -1 ? -errno : 0;
	else
		r = renameat2(o.dfd, o.name, n.dfd, n.name, flags) == -1 ?
		    -errno : 0;
out:
	nt_path_close(&o);
	nt_path_close(&n);
	return r;
}

/* unlink, unlinkat: a protected name's symlink is not taken away. */
static int
nt_unlink(const struct nt_call *c, int dirfd, uint64_t addr, int flags)
{
	struct nt_path	t;
	struct stat	st;
	char		path[PATH_MAX];
	int		r;

	if ((r = nt_arg(c, dirfd, addr, 0, &t, path, sizeof(path))) == 0 &&
	    fstatat(t.dfd, t.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		r = nt_check(c, t.abs, 0, "file-unlink", NULL);
	if (r == 0 && (r = nt_valid(c)) == 0)
		r = unlinkat(t.dfd, t.name, flags) == -1 ? -errno : 0;
	nt_path_close(&t);
	return r;
}

/*
 * bind and connect: the address is in memory, out of the filter's sight,
 * so every call comes here, and we make it on our own copy of the
 * caller's socket with the address it copied once.  A bind to a path
 * after the rules, from the parent directory (bind takes no dirfd:
 * fchdir) with the caller's umask; a connect to a path only to a socket
 * this sandbox bound (common/sockset.h); any other address as it is.
 * A connect never waits here, in the loop every notified call of the
 * sandbox goes through: where it would (a full backlog, a TCP
 * handshake), a child of ours waits and answers (sockset_connect_addr).
 */
static int
nt_sock(const struct nt_call *c, int conn, int sock, uint64_t addr,
    uint64_t alen)
{
	struct sockaddr_storage	 sa;
	struct sockaddr_un	*un = (struct sockaddr_un *)&sa;
	struct nt_path		 t;
	char			 path[sizeof(un->sun_path) + 1], base[64];
	size_t			 off = offsetof(struct sockaddr_un, sun_path);
	int			 fd, r;

	t.dfd = -1;
	if ((r = procpeek_sockarg(c->pid, sock, addr, alen, &sa, &fd)) < 0)
		return r;
	/* sandbox.network.allowUnixBind false: no unix socket of its own,
	 * abstract and unnamed ones too ("@name"); a path by its name. */
	if (!conn && nt_nobind && sa.ss_family == AF_UNIX &&
	    (alen <= off || alen > sizeof(*un) || un->sun_path[0] == '\0')) {
		memset(path, 0, sizeof(path));
		if (alen > off + 1 && alen <= sizeof(*un))
			memcpy(path + 1, un->sun_path + 1,
			    (size_t)alen - off - 1);
		path[0] = '@';
		nt_violation(c, "unix-bind", path);
		close(fd);
		return -EACCES;
	}
	/* A longer AF_UNIX address: the kernel's EINVAL, below. */
	if (alen > off && alen <= sizeof(*un) && sa.ss_family == AF_UNIX &&
	    un->sun_path[0] != '\0') {
		memcpy(path, un->sun_path, (size_t)alen - off);
		path[alen - off] = '\0';
		snprintf(base, sizeof(base), "/proc/%d/cwd", (int)c->pid);
		if ((r = nt_resolve(c->pid, base, path, &t)) < 0 || (!conn &&
		    nt_nobind && (nt_violation(c, "unix-bind", t.abs),
		    r = -EACCES) < 0) || (!conn &&
		    (r = nt_write(c, t.abs, 0, GS_WRITE,
		    "file-write-create")) < 0) || (r = nt_valid(c)) < 0)
			goto out;
		if (conn && (r = sockset_connect(fd, t.dfd, t.name, c->lfd,
		    c->id)) == SOCKSET_REFUSED)
			nt_violation(c, "unix-connect", t.abs);
		if (conn)
			goto out;
		memset(un->sun_path, 0, sizeof(un->sun_path));
		memcpy(un->sun_path, t.name, strlen(t.name));
		nt_umask_set(procpeek_umask(c->pid));
		r = fchdir(t.dfd) == -1 || bind(fd, (struct sockaddr *)un,
		    (socklen_t)(off + strlen(t.name) + 1)) == -1 ? -errno : 0;
		nt_umask_set(nt_umask0);
		if (chdir("/") == -1)
			fatal("chdir /");
		if (r == 0)
			sockset_add(t.dfd, t.name);
	} else if ((r = nt_valid(c)) == 0 && conn)
		r = sockset_connect_addr(fd, (struct sockaddr *)&sa,
		    (socklen_t)alen, c->lfd, c->id);
	else if (r == 0)
		r = bind(fd, (struct sockaddr *)&sa, (socklen_t)alen) == -1 ?
		    -errno : 0;
out:
	close(fd);
	nt_path_close(&t);
	return r == SOCKSET_REFUSED ? -EACCES : r;
}

static void
nt_handle(const struct nt_listener *l)
{
	struct nt_call	 c;
	const __u64	*a;
	long		 nr;
	int		 r, fd = -1, flags = 0, k, dfd;

	memset(nt_req, 0, MAX(sizeof(*nt_req), nt_sizes.seccomp_notif));
	if (ioctl(l->fd, SECCOMP_IOCTL_NOTIF_RECV, nt_req) == -1)
		return;		/* ENOENT: the caller is gone */
	c = (struct nt_call){ l->fd, nt_req->id, (pid_t)nt_req->pid, l->exec };
	a = nt_req->data.args;
	/* The *at forms take a dirfd first: k is where the rest starts.
	 * Another architecture's numbers name other calls: ENOSYS. */
	nr = nt_req->data.arch == NT_ARCH ? nt_req->data.nr : -1;
	k = nr == SYS_openat || nr == SYS_mkdirat || nr == SYS_mknodat ||
	    nr == SYS_linkat || nr == SYS_renameat || nr == SYS_renameat2;
	dfd = k ? (int)a[0] : AT_FDCWD;
	switch (nr) {
	case SYS_open:
	case SYS_openat:
	case SYS_creat:
		flags = nr == SYS_creat ? O_CREAT | O_WRONLY | O_TRUNC :
		    (int)a[k + 1];
		r = nt_open(&c, dfd, a[k], flags, (mode_t)a[nr == SYS_creat ?
		    1 : k + 2], &fd);
		break;
	case SYS_truncate:
		/* A write by name: open for write (checked), then truncate. */
		if ((r = nt_open(&c, AT_FDCWD, a[0], O_WRONLY | O_NONBLOCK, 0,
		    &fd)) == 0) {
			r = ftruncate(fd, (off_t)a[1]) == -1 ? -errno : 0;
			close(fd);
			fd = -1;
		}
		break;
	case SYS_mkdir:
	case SYS_mkdirat:
	case SYS_mknod:
	case SYS_mknodat:
		r = nt_make(&c, nr, dfd, a[k], (mode_t)a[k + 1],
		    (dev_t)(unsigned int)a[k + 2], 0);
		break;
	case SYS_symlink:
	case SYS_symlinkat:
		r = nt_make(&c, nr, nr == SYS_symlink ? AT_FDCWD : (int)a[1],
		    a[nr == SYS_symlink ? 1 : 2], 0, 0, a[0]);
		break;
	case SYS_link:
	case SYS_rename:
	case SYS_linkat:
	case SYS_renameat:
	case SYS_renameat2:
		r = nt_two(&c, nr, dfd, a[k], k ? (int)a[2] : AT_FDCWD,
		    a[k ? 3 : 1], nr == SYS_linkat || nr == SYS_renameat2 ?
		    (unsigned int)a[4] : 0);
		break;
	case SYS_bind:
	case SYS_connect:
		r = nt_sock(&c, nr == SYS_connect, (int)a[0], a[1], a[2]);
		break;
	case SYS_unlink:
	case SYS_unlinkat:
		r = nt_unlink(&c, nr == SYS_unlink ? AT_FDCWD : (int)a[0],
		    a[nr == SYS_unlink ? 0 : 1], nr == SYS_unlink ? 0 :
		    (int)a[2]);
		break;
	default:
		r = -ENOSYS;
		break;
	}
	if (r == NT_DEFERRED)
		return;
	nt_reply(c.lfd, c.id, fd >= 0 ? 0 : r, fd, flags & O_CLOEXEC);
}

/*
 * The FIFO opens waiting for a reader: answer those that found one (or
 * another error), drop those whose caller is gone or whose listener
 * closed (lfd -1 then).
 */
static void
nt_retry(int closed)
{
	struct nt_pend	*p;
	struct stat	 st;
	size_t		 i, j;
	int		 fd, r;

	for (i = j = 0; i < nt_npend; i++) {
		p = &nt_pend[i];
		if (p->c.lfd != closed && nt_valid(&p->c) == 0) {
			fd = openat(p->dfd, p->name, p->of | O_CLOEXEC);
			if (fd == -1 && errno == ENXIO) {
				nt_pend[j++] = *p;
				continue;
			}
			r = fd == -1 ? -errno : 0;
			/* The name now holds another file: a FIFO only. */
			if (fd != -1 && (fstat(fd, &st) == -1 ||
			    !S_ISFIFO(st.st_mode)) && close(fd) == 0)
				fd = -1, r = -EAGAIN;
			if (fd != -1)
				(void)fcntl(fd, F_SETFL, p->of & ~O_NONBLOCK);
			nt_reply(p->c.lfd, p->c.id, r, fd, p->of & O_CLOEXEC);
		}
		close(p->dfd);
	}
	nt_npend = j;
}

/* How long our poll may sleep: for ever, unless a FIFO open waits. */
int
notify_timeout(void)
{
	return nt_npend > 0 ? NT_RETRY_MS : -1;
}

/* After poll: serve each ready listener, drop the ones nobody uses. */
void
notify_service(const struct pollfd *pfd, size_t n)
{
	size_t	i, j;

	nt_retry(-1);

	for (i = 0; i < n && i < nt_nls; i++)
		if (pfd[i].revents & POLLIN)
			nt_handle(&nt_ls[i]);
	for (i = j = 0; i < nt_nls; i++) {
		/* Only HUP, ERR or NVAL: no process uses the filter. */
		if (i < n && pfd[i].revents != 0 &&
		    !(pfd[i].revents & POLLIN)) {
			nt_retry(nt_ls[i].fd);
			close(nt_ls[i].fd);
			continue;
		}
		nt_ls[j++] = nt_ls[i];
	}
	nt_nls = j;
}
