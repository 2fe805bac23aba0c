/* SPDX-License-Identifier: ISC */
/*
 * The options of the commands that build a sandbox (run, claude, acp,
 * shell) as one table: the parser, `--help`, the adapters' pass-through
 * and the tests that compare the man page and the completions all read
 * it, so an option added here is known to each of them.
 */
#ifndef AIRLOCK_CLI_OPT_H
#define AIRLOCK_CLI_OPT_H

#include <stdint.h>
#include <stdio.h>

/* Which commands take an option (a mask in struct cli_opt). */
#define CLI_RUN		0x01
#define CLI_CLAUDE	0x02
#define CLI_ACP		0x04
#define CLI_SHELL	0x08
#define CLI_ADAPTERS	(CLI_RUN | CLI_CLAUDE | CLI_ACP)

/* What `airlock run` was asked for, filled by the table's setters. */
struct run_opts {
	const char	*workspace, *mode, *events, *sandbox, *settings;
	const char	*sock, *origin, *conv, *agent, *chdir;
	const char	*unlisted;	/* the test build's bind only */
	char		**binds, **robinds, **trybinds, **tryrobinds;
	char		**bind_dsts, **trybind_dsts;
	char		**robind_dsts, **tryrobind_dsts; /* each one's DST,
					   "" for SRC's own path */
	char		**envs, **allow, **deny_read, **deny_write;
	unsigned long	 timeout, pids, kill_after;
	uint64_t	 memory, output;
	int		 network, tty, no_policy_check, quiet;
};

struct cli_opt {
	const char	*name;		/* "--bind", or "-t" alone */
	const char	*alias;		/* "-e", or NULL */
	const char	*metavar;	/* the value's name; NULL: a flag */
	unsigned	 cmds;		/* CLI_RUN | ... */
	const char	*help;		/* one line for --help */
	/* Check and store the value (NULL for a flag); NULL when the
	 * command's own code reads it (claude's --claude, acp's
	 * --pass-through).  Exits 2 with a message on a bad value. */
	void		(*set)(struct run_opts *, const char *);
};

extern const struct cli_opt cli_opts[];

void	 run_opts_init(struct run_opts *);
void	 run_opts_free(struct run_opts *);
/* The option name[0..len) (or its alias) of cmd, or NULL. */
const struct cli_opt *cli_opt_find(unsigned cmd, const char *name,
	    size_t len);
/*
 * Parse cmd's options from argv[1]; returns the index of the command's
 * first word (after "--" when given).  Exits 0 on -h/--help (head, then
 * the options, on stdout), 2 with a
 * message naming the option on a bad one.
 */
int	 cli_opt_parse(unsigned cmd, const char *prog, const char *head,
	    int argc, char **argv, struct run_opts *);
/*
 * The adapters' walk (claude, acp) over cmd's options from argv[1], up
 * to the command's first word, whose index it returns.  Each option goes
 * to fn(arg, option, word as typed, value or NULL), which returns 1 when
 * it took it; else the option (by its long name) and its value are added
 * to *pass, the run's arguments, unless the table leaves it to the
 * command (set NULL).  A word the table does not know goes to fn with a
 * NULL option: 0 makes it an unknown option (exit 2).  Bad values exit 2
 * as cli_opt_parse's do.
 */
int	 cli_opt_walk(unsigned cmd, const char *prog, int argc, char **argv,
	    int (*fn)(void *, const struct cli_opt *, const char *,
	    const char *), void *arg, char ***pass);
/* ~ and ~/x against $HOME, a relative path against the cwd (malloc'd). */
char	*cli_expand_path(const char *);
/* The option list of cmd's --help. */
void	 cli_opt_help(FILE *, unsigned cmd);
void	 cli_opt_usage_error(const char *prog, const char *fmt, ...)
	    __attribute__((noreturn, format(printf, 2, 3)));
/*
 * A word a command with hand-parsed options does not take, said as
 * cli_opt_usage_error does (exit 2): known (an option whose value is
 * missing) says it needs one; else an unknown option or an unexpected
 * argument, each named as typed, with accepted: what the command takes.
 */
void	 cli_opt_reject(const char *prog, const char *word, int known,
	    const char *accepted) __attribute__((noreturn));
/*
 * NULL when v is a valid --allow-domain pattern; else a message in buf
 * naming v (and flag) and what is accepted.
 */
const char *egress_pattern_error(const char *flag, const char *v, char *buf,
	    size_t len);

#endif
