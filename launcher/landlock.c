// SPDX-License-Identifier: ISC
/*
 * Landlock beneath the mount namespace (SPEC R-L5): the second layer,
 * which holds even where a mount would allow more.  Applied in init after
 * pivot_root, so init, airlock-guard and every command run in the same
 * filesystem domain and the rule paths are the sandbox's own; the
 * commands (and init) then sit in a nested domain the guard is not in.
 *
 * The ABI is negotiated as MIN(kernel, what we know), minijail style;
 * every filesystem right of that ABI is handled, so anything the plan
 * does not grant is denied.  What the ABI cannot enforce is reported as
 * LL_GAP_* bits; whether that is acceptable is airlockd's decision, made
 * from its own probe of the host.  The constants past ABI 2 are spelled
 * out here because Debian 12's <linux/landlock.h> predates them.
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/landlock.h>
#include <linux/openat2.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "launcher/launcher.h"

#define LL_ABI_WANTED		7

#define LL_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#define LL_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */
#define LL_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define LL_NET_CONNECT_TCP	(1ULL << 1)	/* ABI 4 */
#define LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)	/* ABI 6 */
#define LL_SCOPE_SIGNAL		(1ULL << 1)	/* ABI 6 */
#define LL_RULE_NET_PORT	2

/* Rights that apply to a file (not a directory) beneath a rule. */
#define LL_FS_FILE	(LANDLOCK_ACCESS_FS_EXECUTE |			\
	LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |	\
	LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

/* The kernel's struct landlock_ruleset_attr as of ABI 6. */
struct ll_ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;
	uint64_t	scoped;
};

struct ll_net_port_attr {
	uint64_t	allowed_access;
	uint64_t	port;
};

static void
ll_add_path(int ruleset, uint64_t fs_all, const struct launch_item *it)
{
	struct landlock_path_beneath_attr	pb;
	struct stat				st;
	struct open_how				how = { .flags = O_PATH |
	    O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS };
	int					fd;

	/* airlockd planned the canonical path: a symlink on the way now
	 * was put there since, so it earns no grant (fail closed). */
	if ((fd = (int)syscall(SYS_openat2, AT_FDCWD, it->dst, &how,
	    sizeof(how))) == -1) {
		(errno == ELOOP ? log_warnx : log_debug)("landlock: %s: %s, "
		    "no rule", it->dst, strerror(errno));
		return;
	}
	if (fstat(fd, &st) == -1)
		die("landlock: stat %s", it->dst);
	pb = (struct landlock_path_beneath_attr){ .parent_fd = fd,
	    .allowed_access = it->access & fs_all };
	if (!S_ISDIR(st.st_mode))
		pb.allowed_access &= LL_FS_FILE;
	if (pb.allowed_access != 0 && syscall(SYS_landlock_add_rule, ruleset,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == -1)
		die("landlock: rule for %s", it->dst);
	close(fd);
}

uint32_t
landlock_apply(const struct launch_plan *plan, uint32_t *gaps)
{
	const struct launch_item	*it;
	struct ll_ruleset_attr		 attr;
	struct ll_net_port_attr		 np;
	struct landlock_path_beneath_attr pb;
	size_t				 asize;
	int				 abi, ruleset;

	*gaps = 0;
	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi == -1) {
		if (errno != ENOSYS && errno != EOPNOTSUPP)
			die("landlock: ABI version");
		log_debug("landlock: not available on this kernel");
		*gaps = LL_GAP_NONE;
		return 0;
	}
	if (abi > LL_ABI_WANTED)
		abi = LL_ABI_WANTED;

	memset(&attr, 0, sizeof(attr));
	asize = sizeof(attr.handled_access_fs);
	/* ABI 1: EXECUTE (bit 0) through MAKE_SYM (bit 12). */
	attr.handled_access_fs = (1ULL << 13) - 1;
	if (abi >= 2)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	else
		*gaps |= LL_GAP_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LL_FS_TRUNCATE;
	else
		*gaps |= LL_GAP_TRUNCATE;
	if (abi >= 5)
		attr.handled_access_fs |= LL_FS_IOCTL_DEV;
	else
		*gaps |= LL_GAP_IOCTL_DEV;
	if (plan->flags & PLAN_F_LANDLOCK_NET) {
		if (abi >= 4) {
			attr.handled_access_net = LL_NET_BIND_TCP |
			    LL_NET_CONNECT_TCP;
			asize = offsetof(struct ll_ruleset_attr, scoped);
		} else
			*gaps |= LL_GAP_NET;
	}
	if (plan->flags & PLAN_F_LANDLOCK_SCOPE) {
		if (abi >= 6) {
			attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
			asize = sizeof(attr);
		} else
			*gaps |= LL_GAP_SCOPE;
	}

	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, asize, 0);
	if (ruleset == -1)
		die("landlock: create ruleset (ABI %d)", abi);
	PLAN_FOREACH(it, plan, MSG_PLAN_LANDLOCK)
		ll_add_path(ruleset, attr.handled_access_fs, it);
	/* The guard's binary, which init execs from its fd: only that file,
	 * outside the sandbox's view (a rule holds the inode, not a name). */
	pb.allowed_access = LANDLOCK_ACCESS_FS_EXECUTE |
	    LANDLOCK_ACCESS_FS_READ_FILE;
	pb.parent_fd = launch_guard_exe;
	if (syscall(SYS_landlock_add_rule, ruleset,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == -1)
		die("landlock: rule for airlock-guard");
	/* TCP connect only to the session's own listeners; never bind. */
	if (attr.handled_access_net != 0) {
		PLAN_FOREACH(it, plan, MSG_PLAN_LISTEN) {
			np = (struct ll_net_port_attr){ .port = it->port,
			    .allowed_access = LL_NET_CONNECT_TCP };
			if (syscall(SYS_landlock_add_rule, ruleset,
			    LL_RULE_NET_PORT, &np, 0) == -1)
				die("landlock: port %u", it->port);
		}
	}
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) == -1)
		die("landlock: restrict self");
	close(ruleset);
	log_debug("landlock: ABI %d enforced, gaps 0x%x", abi, *gaps);
	return (uint32_t)abi;
}

/*
 * The commands' domain, nested in the one airlock-guard stays in.  With
 * LANDLOCK_SCOPE_SIGNAL a process signals only its own domain and those
 * nested in it, so a command (same uid as the guard) cannot stop or kill
 * the guard, while the guard still reads the commands' memory and fds
 * (a domain reaches its nested ones).  Init enters it once, after
 * forking the guard, so that the commands of every exec share one
 * domain and may still signal each other.
 */
void
landlock_nest(const struct launch_plan *plan, uint32_t abi)
{
	struct ll_ruleset_attr	attr = { .scoped = LL_SCOPE_SIGNAL };
	int			ruleset;

	if (abi < 6 || !(plan->flags & PLAN_F_LANDLOCK_SCOPE))
		return;	/* reported as LL_GAP_SCOPE, or not asked */
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr,
	    sizeof(attr), 0);
	if (ruleset == -1 || syscall(SYS_landlock_restrict_self, ruleset,
	    0) == -1)
		die("landlock: the commands' nested domain");
	close(ruleset);
}
