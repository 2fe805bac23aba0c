// SPDX-License-Identifier: ISC
/*
 * launch_drive: plays airlockd's part towards airlock-launcher, so the
 * launcher can be tested alone.  It fork+execs the launcher with a
 * socketpair on fd 3, sends a plan built from its command line (standard
 * system binds first, then the options in order), runs the command with
 * MSG_EXEC (--repeat N times, in the same sandbox), copies its stdout and
 * stderr through, sends MSG_SHUTDOWN and exits with the command's status
 * (128+signal when killed; 125 when the launch failed, 127 when the exec
 * failed).
 *
 * usage: launch_drive [-L launcher] [-v] [option ...] -- CMD [ARG ...]
 *   --ro-bind SRC DST | --bind SRC DST | --bind-no-landlock SRC DST
 *   --dev-bind SRC DST | --tmpfs DST | --dir DST | --symlink TARGET DST
 *   --proc DST | --dev DST | --mask PATH | --ro PATH | --file DST CONTENT
 *   --landlock-rw PATH | --landlock-ro PATH | --listen KIND[:PORT]
 *     (KIND http, socks or git; PORT defaults to LISTEN_PORT_*, 0: any)
 *   --rlimit nproc|nofile|as|fsize|cpu|core N | --seccomp-eperm NAME|NR
 *   --seccomp-invalid (a program the kernel refuses)
 *   --no-net-ns | --no-landlock-net | --no-scope | --no-defaults
 *   --seccomp-known (PLAN_F_SECCOMP_KNOWN: no check child)
 *   --plan-uid N (the plan's uid and gid, not ours: must be refused)
 *   --cwd DIR | --env K=V | --repeat N | --pidfile FILE
 *   --term-after MS (then MSG_EXEC_SIGNAL SIGTERM to the first exec)
 * By default: /usr, /etc, /opt read-only, /bin /sbin /lib* as on the host
 * (symlink or read-only bind), /proc, /dev, a tmpfs /tmp; Landlock grants
 * read+execute on / and full access on /tmp, /dev and every --bind,
 * --dev-bind and --tmpfs destination.  Listener ports are passed to the
 * command as AIRLOCK_PORT_HTTP, AIRLOCK_PORT_SOCKS, AIRLOCK_PORT_GIT.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/xmalloc.h"

#if defined(__x86_64__)
#define DRIVE_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define DRIVE_ARCH	AUDIT_ARCH_AARCH64
#else
#error "add this architecture's AUDIT_ARCH"
#endif

#define LL_RO	0x0dULL		/* EXECUTE | READ_FILE | READ_DIR */
#define LL_RW	0xffffULL	/* every filesystem right up to IOCTL_DEV */

static struct msg_link	link_l;
static int		verbose;
static int		listeners[8];	/* kept open and served, as proxyd */
static int		nlisteners;
static int		signal_after = -1;	/* ms, then SIGTERM the exec */

static void
send_op(uint32_t op, uint32_t flags, const char *src, const char *dst)
{
	struct msgbuf	b;

	msgbuf_init(&b, MSG_PLAN_OP);
	msg_put_u32(&b, op);
	msg_put_u32(&b, flags);
	msg_put_str(&b, src);
	msg_put_str(&b, dst);
	if (msg_send(&link_l, &b, NULL, 0) == -1)
		fatal("send op");
	msgbuf_free(&b);
}

static void
send_ll(uint64_t access, const char *path)
{
	struct msgbuf	b;

	msgbuf_init(&b, MSG_PLAN_LANDLOCK);
	msg_put_u64(&b, access);
	msg_put_str(&b, path);
	if (msg_send(&link_l, &b, NULL, 0) == -1)
		fatal("send landlock");
	msgbuf_free(&b);
}

static void
send_system_binds(void)
{
	static const char *const dirs[] = {
		"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc",
		"/opt",
	};
	struct stat	st;
	char		target[PATH_MAX];
	ssize_t		n;
	size_t		i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (lstat(dirs[i], &st) == -1)
			continue;
		if (S_ISLNK(st.st_mode)) {
			if ((n = readlink(dirs[i], target, sizeof(target) - 1))
			    == -1)
				fatal("readlink %s", dirs[i]);
			target[n] = '\0';
			send_op(PLAN_OP_SYMLINK, 0, target, dirs[i]);
		} else
			send_op(PLAN_OP_BIND, PLAN_OPF_RO | PLAN_OPF_OPTIONAL,
			    dirs[i], dirs[i]);
	}
	send_op(PLAN_OP_PROC, 0, "", "/proc");
	send_op(PLAN_OP_DEV, 0, "", "/dev");
	send_op(PLAN_OP_TMPFS, 0, "", "/tmp");
	send_ll(LL_RO, "/");
	send_ll(LL_RW, "/tmp");
	send_ll(LL_RW, "/dev");
}

static int
rlimit_res(const char *name)
{
	if (strcmp(name, "nproc") == 0)
		return RLIMIT_NPROC;
	if (strcmp(name, "nofile") == 0)
		return RLIMIT_NOFILE;
	if (strcmp(name, "as") == 0)
		return RLIMIT_AS;
	if (strcmp(name, "fsize") == 0)
		return RLIMIT_FSIZE;
	if (strcmp(name, "cpu") == 0)
		return RLIMIT_CPU;
	if (strcmp(name, "core") == 0)
		return RLIMIT_CORE;
	fatalx("unknown rlimit %s", name);
}

static long
syscall_nr(const char *name)
{
	if (strcmp(name, "mkdir") == 0)
		return SYS_mkdir;
	if (strcmp(name, "mkdirat") == 0)
		return SYS_mkdirat;
	if (strcmp(name, "uname") == 0)
		return SYS_uname;
	return strtol(name, NULL, 10);
}

static void
send_seccomp(long *nrs, int n)
{
	struct sock_filter	f[64];
	struct msgbuf		b;
	int			i, k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    DRIVE_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_KILL_PROCESS);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
	for (i = 0; i < n; i++) {
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
		    BPF_K, (uint32_t)nrs[i], 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		    SECCOMP_RET_ERRNO | EPERM);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	msgbuf_init(&b, MSG_PLAN_SECCOMP);
	msg_put_u32(&b, 0);
	msg_put_blob(&b, f, sizeof(f[0]) * k);
	if (msg_send(&link_l, &b, NULL, 0) == -1)
		fatal("send seccomp");
	msgbuf_free(&b);
}

static void
recv_or_die(struct msg *m)
{
	enum msg_result r = msg_recv(&link_l, m);

	if (r == MSG_EOF)
		fatalx("launcher closed the channel");
	if (r != MSG_OK)
		fatalx("invalid frame from the launcher");
}

static int
copy_fd(int from, int to)
{
	char	buf[8192];
	ssize_t	n;

	n = read(from, buf, sizeof(buf));
	if (n <= 0)
		return -1;
	if (write(to, buf, (size_t)n) != n)
		return -1;
	return 0;
}

/* Run one exec; returns its raw wait status, or -1 if it did not start. */
static int
run_exec(uint32_t id, const char *cwd, char **argv, char **envp)
{
	struct pollfd	pfd[3 + 8];
	struct msgbuf	b;
	struct msg	m;
	int		status = -1, exited = 0, i, c, open_fds = 2;

	msgbuf_init(&b, MSG_EXEC);
	msg_put_u32(&b, id);
	msg_put_str(&b, cwd);
	msg_put_strv(&b, argv);
	msg_put_strv(&b, envp);
	if (msg_send(&link_l, &b, NULL, 0) == -1)
		fatal("send exec");
	msgbuf_free(&b);

	recv_or_die(&m);
	if (m.info->type == MSG_EXEC_FAILED) {
		(void)msg_get_u32(&m);
		i = (int)msg_get_u32(&m);
		fprintf(stderr, "launch_drive: exec failed: %s: %s\n",
		    msg_get_str(&m), strerror(i));
		msg_free(&m);
		return -1;
	}
	if (m.info->type != MSG_EXEC_STARTED)
		fatalx("expected MSG_EXEC_STARTED, got %s", m.info->name);
	(void)msg_get_u32(&m);
	if (verbose)
		fprintf(stderr, "launch_drive: exec %u is pid %u\n", id,
		    msg_get_u32(&m));
	pfd[0].fd = msg_take_fd(&m, 0);
	pfd[1].fd = msg_take_fd(&m, 1);
	msg_free(&m);
	pfd[2].fd = link_l.fd;
	for (i = 0; i < nlisteners; i++)
		pfd[3 + i].fd = listeners[i];
	for (i = 0; i < 3 + nlisteners; i++)
		pfd[i].events = POLLIN;

	while (open_fds > 0 || !exited) {
		if ((c = poll(pfd, 3 + nlisteners, signal_after)) == -1)
			fatal("poll");
		if (c == 0) {
			/* As airlockd on a timeout: TERM the exec's group. */
			msgbuf_init(&b, MSG_EXEC_SIGNAL);
			msg_put_u32(&b, id);
			msg_put_u32(&b, SIGTERM);
			if (msg_send(&link_l, &b, NULL, 0) == -1)
				fatal("send signal");
			msgbuf_free(&b);
			signal_after = -1;
			continue;
		}
		/* Answer a connection made from inside, on the host side. */
		for (i = 3; i < 3 + nlisteners; i++) {
			if (pfd[i].revents == 0)
				continue;
			if ((c = accept4(pfd[i].fd, NULL, NULL,
			    SOCK_CLOEXEC)) == -1)
				continue;
			if (write(c, "hello-from-host\n", 16) != 16)
				log_warn("listener write");
			close(c);
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			if (copy_fd(pfd[i].fd, i + 1) == -1) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
			}
		}
		if (pfd[2].revents == 0)
			continue;
		recv_or_die(&m);
		if (m.info->type != MSG_EXEC_EXIT)
			fatalx("unexpected %s", m.info->name);
		if (msg_get_u32(&m) != id)
			fatalx("exit of another exec");
		status = (int)msg_get_u32(&m);
		exited = 1;
		pfd[2].fd = -1;
		msg_free(&m);
	}
	return status;
}

int
main(int argc, char *argv[])
{
	const char	*launcher = NULL, *cwd = "/", *pidfile = NULL;
	char		 self[PATH_MAX], **envp = NULL, env[64], *dir;
	long		 nrs[16];
	int		 sv[2], i, nnr = 0, repeat = 1, status = 0;
	uint32_t	 plan_uid = UINT32_MAX;
	int		 defaults = 1;
	uint32_t	 flags = PLAN_F_NET_NS | PLAN_F_LANDLOCK_NET |
			     PLAN_F_LANDLOCK_SCOPE;
	struct msgbuf	 b;
	struct msg	 m;
	pid_t		 pid;
	FILE		*f;

	log_init("launch_drive", 0);
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "-L") == 0 && i + 1 < argc)
			launcher = argv[++i];
		else if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
		else if (strcmp(argv[i], "--no-defaults") == 0)
			defaults = 0;
	}
	if (launcher == NULL) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 40);

		if (n == -1)
			fatal("readlink /proc/self/exe");
		self[n] = '\0';
		if ((dir = strrchr(self, '/')) != NULL)
			*dir = '\0';
		strcat(self, "/../../airlock-launcher");
		launcher = self;
	}

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		fatal("socketpair");
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null == -1 || dup2(null, 0) == -1 ||
		    dup2(sv[1], MSG_CHILD_FD) == -1)
			fatal("launcher fds");
		execl(launcher, "airlock-launcher", (char *)NULL);
		fatal("exec %s", launcher);
	}
	close(sv[1]);
	msg_link_init(&link_l, sv[0], MSG_CH_LAUNCHER, MSG_UP, "launcher");

	/* First pass over the flags for PLAN_BEGIN. */
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--no-net-ns") == 0)
			flags &= ~PLAN_F_NET_NS;
		else if (strcmp(argv[i], "--no-landlock-net") == 0)
			flags &= ~PLAN_F_LANDLOCK_NET;
		else if (strcmp(argv[i], "--no-scope") == 0)
			flags &= ~PLAN_F_LANDLOCK_SCOPE;
		else if (strcmp(argv[i], "--seccomp-known") == 0)
			flags |= PLAN_F_SECCOMP_KNOWN;
		else if (strcmp(argv[i], "--plan-uid") == 0 && i + 1 < argc)
			plan_uid = (uint32_t)atoi(argv[i + 1]);
	}
	msgbuf_init(&b, MSG_PLAN_BEGIN);
	msg_put_str(&b, "drive");
	msg_put_u32(&b, flags);
	msg_put_u32(&b, plan_uid != UINT32_MAX ? plan_uid : getuid());
	msg_put_u32(&b, plan_uid != UINT32_MAX ? plan_uid : getgid());
	if (msg_send(&link_l, &b, NULL, 0) == -1)
		fatal("send begin");
	msgbuf_free(&b);
	if (defaults)
		send_system_binds();

	envp = strv_add(envp, "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:"
	    "/sbin");
	envp = strv_add(envp, "HOME=/tmp");
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *o = argv[i], *a1 = i + 1 < argc ? argv[i + 1] : "",
		    *a2 = i + 2 < argc ? argv[i + 2] : "";

#define TWO(name) (strcmp(o, name) == 0 && i + 2 < argc && (i += 2))
#define ONE(name) (strcmp(o, name) == 0 && i + 1 < argc && (i += 1))
		if (TWO("--ro-bind"))
			send_op(PLAN_OP_BIND, PLAN_OPF_RO, a1, a2);
		else if (TWO("--bind")) {
			send_op(PLAN_OP_BIND, 0, a1, a2);
			send_ll(LL_RW, a2);
		} else if (TWO("--dev-bind")) {
			send_op(PLAN_OP_BIND, PLAN_OPF_DEV, a1, a2);
			send_ll(LL_RW, a2);
		} else if (TWO("--bind-no-landlock"))
			send_op(PLAN_OP_BIND, 0, a1, a2);
		else if (ONE("--tmpfs")) {
			send_op(PLAN_OP_TMPFS, 0, "", a1);
			send_ll(LL_RW, a1);
		} else if (ONE("--dir"))
			send_op(PLAN_OP_DIR, 0, "", a1);
		else if (TWO("--symlink"))
			send_op(PLAN_OP_SYMLINK, 0, a1, a2);
		else if (ONE("--proc"))
			send_op(PLAN_OP_PROC, 0, "", a1);
		else if (ONE("--dev"))
			send_op(PLAN_OP_DEV, 0, "", a1);
		else if (ONE("--mask"))
			send_op(PLAN_OP_MASK, 0, "", a1);
		else if (ONE("--ro"))
			send_op(PLAN_OP_REMOUNT_RO, 0, "", a1);
		else if (TWO("--file")) {
			msgbuf_init(&b, MSG_PLAN_FILE);
			msg_put_str(&b, a1);
			msg_put_u32(&b, 0644);
			msg_put_blob(&b, a2, strlen(a2));
			if (msg_send(&link_l, &b, NULL, 0) == -1)
				fatal("send file");
			msgbuf_free(&b);
		} else if (ONE("--landlock-rw"))
			send_ll(LL_RW, a1);
		else if (ONE("--landlock-ro"))
			send_ll(LL_RO, a1);
		else if (ONE("--listen")) {
			/* KIND or KIND:PORT (default: the fixed port). */
			const char *colon = strchr(a1, ':');
			uint32_t kind = strncmp(a1, "http", 4) == 0 ?
			    LISTEN_HTTP : strncmp(a1, "socks", 5) == 0 ?
			    LISTEN_SOCKS : LISTEN_GIT;

			msgbuf_init(&b, MSG_PLAN_LISTEN);
			msg_put_u32(&b, kind);
			msg_put_u32(&b, colon != NULL ? (uint32_t)atoi(colon +
			    1) : kind == LISTEN_HTTP ? LISTEN_PORT_HTTP :
			    kind == LISTEN_SOCKS ? LISTEN_PORT_SOCKS :
			    LISTEN_PORT_GIT);
			if (msg_send(&link_l, &b, NULL, 0) == -1)
				fatal("send listen");
			msgbuf_free(&b);
		} else if (TWO("--rlimit")) {
			msgbuf_init(&b, MSG_PLAN_RLIMIT);
			msg_put_u32(&b, (uint32_t)rlimit_res(a1));
			msg_put_u64(&b, strtoull(a2, NULL, 10));
			msg_put_u64(&b, strtoull(a2, NULL, 10));
			if (msg_send(&link_l, &b, NULL, 0) == -1)
				fatal("send rlimit");
			msgbuf_free(&b);
		} else if (strcmp(o, "--seccomp-invalid") == 0) {
			/* No final RET: the kernel's checker refuses it. */
			struct sock_filter bad = BPF_STMT(BPF_LD | BPF_W |
			    BPF_ABS, 0);

			msgbuf_init(&b, MSG_PLAN_SECCOMP);
			msg_put_u32(&b, 0);
			msg_put_blob(&b, &bad, sizeof(bad));
			if (msg_send(&link_l, &b, NULL, 0) == -1)
				fatal("send seccomp");
			msgbuf_free(&b);
		} else if (ONE("--seccomp-eperm") && nnr < 16)
			nrs[nnr++] = syscall_nr(a1);
		else if (ONE("--cwd"))
			cwd = a1;
		else if (ONE("--env"))
			envp = strv_add(envp, a1);
		else if (ONE("--repeat"))
			repeat = atoi(a1);
		else if (ONE("--term-after"))
			signal_after = atoi(a1);
		else if (ONE("--pidfile"))
			pidfile = a1;
		else if (ONE("--plan-uid"))
			;
		else if (ONE("-L"))
			;
		else if (strcmp(o, "-v") != 0 && strcmp(o, "--no-defaults")
		    != 0 && strcmp(o, "--no-net-ns") != 0 &&
		    strcmp(o, "--no-landlock-net") != 0 &&
		    strcmp(o, "--no-scope") != 0 &&
		    strcmp(o, "--seccomp-known") != 0)
			fatalx("unknown or incomplete option %s", o);
#undef ONE
#undef TWO
	}
	if (i >= argc - 1)
		fatalx("usage: launch_drive [options] -- CMD [ARG ...]");
	if (nnr > 0)
		send_seccomp(nrs, nnr);
	if (msg_send_empty(&link_l, MSG_PLAN_END) == -1)
		fatal("send end");

	for (;;) {
		recv_or_die(&m);
		if (m.info->type == MSG_LAUNCH_FAILED) {
			fprintf(stderr, "launch_drive: launch failed: %s\n",
			    msg_get_str(&m));
			exit(125);
		}
		if (m.info->type == MSG_LAUNCH_SOCKET) {
			uint32_t kind = msg_get_u32(&m), port = msg_get_u32(&m);

			/* We keep the listener open, as proxyd would. */
			if (nlisteners < 8)
				listeners[nlisteners++] = msg_take_fd(&m, 0);
			snprintf(env, sizeof(env), "AIRLOCK_PORT_%s=%u",
			    kind == LISTEN_HTTP ? "HTTP" : kind ==
			    LISTEN_SOCKS ? "SOCKS" : "GIT", port);
			envp = strv_add(envp, env);
			msg_free(&m);
			continue;
		}
		if (m.info->type != MSG_LAUNCH_READY)
			fatalx("unexpected %s", m.info->name);
		break;
	}
	{
		uint32_t ipid = msg_get_u32(&m), abi = msg_get_u32(&m),
		    gaps = msg_get_u32(&m);

		if (verbose)
			fprintf(stderr, "launch_drive: ready: init %u, "
			    "landlock ABI %u, gaps 0x%x\n", ipid, abi, gaps);
		if (pidfile != NULL) {
			if ((f = fopen(pidfile, "w")) == NULL)
				fatal("%s", pidfile);
			fprintf(f, "%d %u\n", (int)pid, ipid);
			fclose(f);
		}
	}
	msg_free(&m);

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		;
	i++;
	while (repeat-- > 0) {
		status = run_exec((uint32_t)repeat + 1, cwd, argv + i, envp);
		if (status == -1) {
			status = 127 << 8;
			break;
		}
	}
	(void)msg_send_empty(&link_l, MSG_SHUTDOWN);
	(void)waitpid(pid, NULL, 0);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
