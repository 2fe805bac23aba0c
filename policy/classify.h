/* SPDX-License-Identifier: ISC */
/*
 * The command policy (SPEC R-C1..R-C3): parse a shell command line, see
 * through wrappers (env, xargs, sh -c '...', find -exec, git -C, ...),
 * classify every simple command and give the line one verdict: the
 * strictest of its commands'.  Pure: no I/O, no global state.
 *
 * Order of precedence for one command:
 *   1. hard deny (every mode): privilege escalation, system or disk
 *      destruction, container or namespace escape, configuration that
 *      makes a harmless-looking command run code (git -c core.sshCommand);
 *      input that does not parse.
 *   2. read-only modes (plan, review, orchestrate): anything opaque,
 *      mutating, or not known to be read-only is denied outright.
 *   3. chat: opaque -> ask; git push and publishing -> ask; each effect
 *      class -> the settings rule for it; anything else runs.
 */
#ifndef AIRLOCK_CLASSIFY_H
#define AIRLOCK_CLASSIFY_H

#include <stddef.h>

#include "policy/policy.h"

/* sh -c, eval, env -S, watch, trap ... nested inside each other. */
#define POL_MAX_NEST	4

/* What was found (struct pol_cmd.flags, OR-ed into pol_result.flags). */
#define POL_F_PARSE_ERROR	0x0001
#define POL_F_OPAQUE		0x0002
#define POL_F_PRIVILEGE		0x0004	/* sudo, su, setuid bits */
#define POL_F_DESTRUCTION	0x0008	/* rm -rf /, mkfs, dd of=/dev */
#define POL_F_ESCAPE		0x0010	/* nsenter, unshare, mount */
#define POL_F_CODE_EXEC		0x0020	/* git -c core.pager=... */
#define POL_F_PUSH		0x0040	/* git push */
#define POL_F_REMOTE		0x0080	/* publish, remote changes */
#define POL_F_MUTATING		0x0100	/* changes local state */
#define POL_F_READONLY		0x0200	/* known to be read-only */
#define POL_F_HARD	(POL_F_PARSE_ERROR | POL_F_PRIVILEGE | \
	POL_F_DESTRUCTION | POL_F_ESCAPE | POL_F_CODE_EXEC)

/* Bit of an effect class in a classes mask. */
#define POL_CLASS_BIT(c)	(1U << (c))

struct pol_cmd {
	char		**argv;		/* as parsed, NULL-ended */
	enum pol_verdict verdict;
	unsigned	 classes;
	unsigned	 flags;
	char		*reason;	/* for people: why this verdict */
	char		*rule;		/* for the audit log */
};

struct pol_result {
	enum pol_verdict verdict;	/* strictest of cmds[] */
	unsigned	 classes;	/* union of cmds[].classes */
	unsigned	 flags;		/* union of cmds[].flags */
	struct pol_cmd	*cmds;
	size_t		 ncmds;
	const char	*rule;		/* of the deciding command */
	const char	*reason;	/* of the deciding command */
};

/*
 * Classify cmdline (len bytes, untrusted) in mode.  rules gives the
 * verdict for each effect class (NULL: the built-in defaults of SPEC
 * §12).  Never NULL; free with pol_result_free().  "ask" is returned as
 * is: the caller resolves it (no approver -> deny, see guard.h).
 */
struct pol_result *pol_check(const char *cmdline, size_t len,
	    enum pol_mode mode, const enum pol_verdict *rules);
void	pol_result_free(struct pol_result *);
/* For the unit test: is the command-name table sorted, without duplicates? */
int	pol_kind_table_ok(void);

#endif
