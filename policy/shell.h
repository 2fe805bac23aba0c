/* SPDX-License-Identifier: ISC */
/*
 * A lexer and parser for POSIX sh (plus the bash forms agents write) whose
 * only job is to find every simple command a command line would run, so
 * that classify.c can judge each one (SPEC R-C1).  It does not execute or
 * expand anything: an expansion is kept in its source spelling and the
 * word is flagged as not literal.  Commands inside $(...), backticks,
 * <(...), >(...), compound commands and function bodies are all listed.
 *
 * Untrusted: the input is whatever an agent typed.  The parser is pure
 * (no I/O), caps the input size, the nesting depth and the number of
 * commands and words, and reports anything it cannot parse as an error;
 * callers deny on error.
 */
#ifndef AIRLOCK_SHELL_H
#define AIRLOCK_SHELL_H

#include <stddef.h>

#define SH_MAX_INPUT	(256U * 1024)
#define SH_MAX_NEST	48	/* nested compounds and substitutions */
#define SH_MAX_CMDS	4096	/* simple commands in one parse */
#define SH_MAX_WORDS	4096	/* words, redirections per command */
#define SH_MAX_PENDING	32	/* here-docs pending on one line */

/* Word flags. */
#define SH_W_QUOTED	0x01	/* some part was quoted or escaped */
#define SH_W_EXPAND	0x02	/* has $x ${x} $(...) `...` $((...)) */
#define SH_W_UNQ_EXPAND	0x04	/* ... outside "" (split) */
#define SH_W_GLOB	0x08	/* unquoted * ? [...] */
#define SH_W_TILDE	0x10	/* unquoted leading ~ */
#define SH_W_BRACE	0x20	/* unquoted {a,b} or {a..b} */
#define SH_W_PROCSUB	0x40	/* <(...) or >(...) */
/* The word's text is not what the program will receive. */
#define SH_W_NONLITERAL	(SH_W_EXPAND | SH_W_GLOB | SH_W_TILDE | \
	SH_W_BRACE | SH_W_PROCSUB)

struct sh_word {
	char		*text;	/* unquoted; expansions as written */
	size_t		 len;
	unsigned	 flags;
};

enum sh_redir_op {
	SH_R_IN = 0,	/* <  */
	SH_R_OUT,	/* >  */
	SH_R_APPEND,	/* >> */
	SH_R_CLOBBER,	/* >| */
	SH_R_RDWR,	/* <> */
	SH_R_DUPIN,	/* <& */
	SH_R_DUPOUT,	/* >& */
	SH_R_OUTERR,	/* &> */
	SH_R_APPENDERR,	/* &>> */
	SH_R_HEREDOC,	/* << and <<- : target is the body */
	SH_R_HERESTR,	/* <<< */
};

struct sh_redir {
	int		 fd;	/* explicit fd number, or -1 */
	enum sh_redir_op op;
	struct sh_word	 target;
	int		 writes;	/* opens its target for writing */
	int		 hd_id;		/* internal */
};

/* Command flags. */
#define SH_C_PIPE_IN	0x01	/* stdin is a pipe or a file */
#define SH_C_PIPELINE	0x02	/* in a pipeline of two or more */
#define SH_C_BACKGROUND	0x04	/* in a list ended by & */
#define SH_C_SUBST	0x08	/* in $(...) `...` <(...) >(...) */
#define SH_C_FUNCBODY	0x10	/* inside a function definition */
#define SH_C_COMPOUND	0x20	/* redirections of a compound */

struct sh_cmd {
	struct sh_word	*assigns;	/* NAME=value prefixes */
	size_t		 nassigns;
	struct sh_word	*argv;
	size_t		 argc;
	struct sh_redir	*redirs;
	size_t		 nredirs;
	unsigned	 flags;
	char		*func;	/* innermost function being defined */
};

struct sh_list {
	struct sh_cmd	*cmds;
	size_t		 ncmds;
};

/*
 * Parse len bytes of src.  Returns 0 and fills out, or -1 with a message
 * in err (out is then empty).  Every command is listed, including those
 * nested in substitutions; order is the order in which parsing finished
 * them, so a substitution precedes the command that uses it.
 */
int	sh_parse(const char *src, size_t len, struct sh_list *out, char *err,
	    size_t errlen);
void	sh_list_free(struct sh_list *);
/* A word is a valid shell NAME (for assignments). */
int	sh_is_name(const char *, size_t);

#endif
