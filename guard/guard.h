/* SPDX-License-Identifier: ISC */
/*
 * airlock-guard: the rule engine of one sandbox, in a process of its
 * own.  The sandbox's init forks it before the first command and execs
 * it from a descriptor it opened before the mounts (the binary need not
 * be in the sandbox's view); it is then in the sandbox's namespaces, its
 * root, its Landlock domain and its uid by construction, without a
 * capability.  It answers the seccomp notifications of every command
 * (notify.c: SPEC R-L3, R-L4) with the filename rules, the git-state
 * allowlist and the git config allowlist, performing each allowed call
 * itself.  Two files: main.c (the link to init, self-restriction, the
 * loop), notify.c (the handler).
 */
#ifndef AIRLOCK_GUARD_H
#define AIRLOCK_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "common/msg_launch.h"

/* main.c: the link to init (fd 3). */
extern struct msg_link guard_link;

/*
 * notify.c: notify_rule adds one filename rule (MSG_PLAN_WRITE_RULE),
 * notify_setup finishes the set; notify_add takes a listener (consumes
 * fd); notify_pollfds fills one pollfd per listener, or counts them given
 * NULL; notify_service handles what poll found and retries the FIFO
 * opens still waiting, for which notify_timeout bounds the sleep.
 */
struct pollfd;
void	notify_rule(uint32_t kind, const char *pattern, const char *except);
void	notify_setup(void);
void	notify_add(int fd, uint32_t exec);
size_t	notify_pollfds(struct pollfd *);
void	notify_service(const struct pollfd *, size_t);
int	notify_timeout(void);	/* poll's, in ms */

#endif
