/* SPDX-License-Identifier: ISC */
/*
 * Inside the command classifier (classify.h is the outside).  One table,
 * cls_tools[] in cls_table.c, maps a command name to its handler and the
 * options the handler needs, as OpenSSH's monitor maps a request to
 * {type, flags, handler}.  The handlers live one file per family:
 *
 *   classify.c    the walker: lists the commands, looks each name up,
 *                 unwraps, decides the verdict for the mode
 *   cls_wrap.c    wrappers that run their arguments (env, nice, timeout,
 *                 xargs, flock, watch, busybox, ...)
 *   cls_interp.c  shells, eval, trap, interpreters, inline programs
 *                 (sh -c, python -c, sed and awk scripts)
 *   cls_edit.c    make, editors and pagers that run commands of their
 *                 own language (make -f -, vim -c '!...', less +!)
 *   cls_git.c     git (a table of subcommands) and gh
 *   cls_pkg.c     package managers (a table of managers)
 *   cls_file.c    file, text and network tools; read-only and mutating
 *                 commands
 *   cls_sys.c     privilege, destruction, namespaces, services,
 *                 containers
 *
 * A handler reads the command in struct cls_call and either records what
 * the command does in c->a (CLS_DONE) or moves c->w and c->n to the
 * command it runs (CLS_UNWRAP); classify.c then looks that one up, at most
 * MAX_UNWRAP times.  Untrusted: every word comes from agent input.
 */
#ifndef AIRLOCK_CLS_H
#define AIRLOCK_CLS_H

#include <stddef.h>
#include <string.h>

#include "policy/classify.h"
#include "policy/shell.h"

#define REASON_MAX	200
#define MAX_UNWRAP	16

/*
 * An alias the command line defines (alias NAME=VALUE).  Shells expand it
 * in the command position before running anything, so a later "NAME args"
 * is judged as "VALUE args".  opaque: the value is an expansion.  active:
 * being expanded now (a shell does not expand an alias inside itself).
 */
struct cls_alias {
	char		*name;
	char		*value;
	int		 opaque;
	int		 active;
};

#define CLS_MAX_ALIASES	64

struct ctx {
	struct pol_result	*res;
	enum pol_mode		 mode;
	const enum pol_verdict	*rules;
	struct cls_alias	*aliases;
	size_t			 naliases;
	int			 alias_new;	/* defined one this pass */
	int			 probing;	/* judging an unknown's words */
	unsigned		 probe_flags;	/* of lines met probing */
	unsigned		 probe_classes;
};

/* What one command does. */
struct an {
	unsigned	 flags;
	unsigned	 classes;
	const char	*hard_rule;
	char		 hard[REASON_MAX];
	char		 opaque[REASON_MAX];
	const char	*ask_rule;
	char		 ask[REASON_MAX];
	char		 mut[REASON_MAX];
	char		 ro[REASON_MAX];
	char		 cls[REASON_MAX];
};

/* Where a command's stdin comes from. */
struct io {
	const struct sh_word	*script;	/* here-doc/string */
	int			 other;		/* pipe or file */
};

struct cls_tool;

/* One command being classified: what a handler is given. */
struct cls_call {
	struct ctx		*cx;
	struct an		*a;
	const struct sh_word	*w;	/* w[0] is the command name */
	size_t			 n;
	const struct io		*io;
	int			 nest;
	const char		*name;	/* basename of w[0] */
	const struct cls_tool	*t;	/* its table entry */
};

#define CLS_DONE	0
#define CLS_UNWRAP	1	/* c->w, c->n moved to the wrapped command */

typedef int	(*cls_fn)(struct cls_call *);

/* Table entry flags. */
#define CT_OUTPUT	0x01	/* wrapper: -o/--output writes a file */
#define CT_PID		0x02	/* wrapper: -p/--pid acts on a process */
#define CT_RUNS		0x04	/* manager: "exec|run CMD" runs CMD */

/*
 * A command name, its handler and the options the handler needs: for a
 * wrapper the short options (letters) and long options that take an
 * argument and the operands before the command (npos); for a read-only
 * tool the options that make it write a file.
 */
struct cls_tool {
	const char		*name;
	cls_fn			 fn;
	const char		*letters;
	const char *const	*longs;
	int			 npos;
	unsigned		 flags;
};

const struct cls_tool	*cls_lookup(const char *);
/* For pol_kind_table_ok(): are the families' own tables sorted? */
int	cls_git_table_ok(void);
int	cls_pkg_table_ok(void);

/* ---- recording what a command does (classify.c) ---- */

void	set_hard(struct an *, unsigned, const char *, const char *, ...)
	    __attribute__((format(printf, 4, 5)));
void	set_flag(struct an *, unsigned, char *, const char *, ...)
	    __attribute__((format(printf, 4, 5)));
void	set_ask(struct an *, unsigned, const char *, const char *, ...)
	    __attribute__((format(printf, 4, 5)));
void	set_class(struct an *, enum pol_class, const char *, ...)
	    __attribute__((format(printf, 3, 4)));

#define PRIV(a, ...) set_hard(a, POL_F_PRIVILEGE, \
	"hard-deny:privilege-escalation", __VA_ARGS__)
#define DESTROY(a, ...) set_hard(a, POL_F_DESTRUCTION, \
	"hard-deny:system-destruction", __VA_ARGS__)
#define ESCAPE(a, ...) set_hard(a, POL_F_ESCAPE, \
	"hard-deny:namespace-escape", __VA_ARGS__)
#define CODEEXEC(a, ...) set_hard(a, POL_F_CODE_EXEC, \
	"hard-deny:code-execution", __VA_ARGS__)
#define set_opaque(a, ...) set_flag(a, POL_F_OPAQUE, (a)->opaque, __VA_ARGS__)
#define set_mut(a, ...) set_flag(a, POL_F_MUTATING, (a)->mut, __VA_ARGS__)
#define set_ro(a, ...) set_flag(a, POL_F_READONLY, (a)->ro, __VA_ARGS__)

/* ---- words (classify.c) ---- */

static inline int
lit(const struct sh_word *w)
{
	return (w->flags & SH_W_NONLITERAL) == 0;
}

static inline int
weq(const struct sh_word *w, const char *s)
{
	return lit(w) && strcmp(w->text, s) == 0;
}

static inline int
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline const char *
base(const char *s)
{
	const char *p = strrchr(s, '/');

	return p != NULL ? p + 1 : s;
}

/* Is this an option word (-x, --xx) rather than an operand? */
static inline int
is_opt(const struct sh_word *w)
{
	return lit(w) && w->text[0] == '-' && w->text[1] != '\0';
}

int	in_list(const char *, const char *const *);
int	has_opt(const struct sh_word *, size_t, int, const char *);
int	has_bang(const struct sh_word *, size_t);
int	has_unq_expand(const struct sh_word *, size_t);
size_t	operands(const struct sh_word *, size_t, const struct sh_word **,
	    size_t);
const char *first_operand(const struct sh_word *, size_t, size_t *);
size_t	skip_opts(const struct sh_word *, size_t, size_t, const char *,
	    const char *const *, int);
char	*join_words(const struct sh_word *, size_t, size_t *);
char	*join_quoted(const char *, const struct sh_word *, size_t);
int	version_only(const struct sh_word *, size_t);
int	critical_path(const struct sh_word *);
int	block_device(const char *);
int	harmless_sink(const char *);
void	check_device_args(struct an *, const struct sh_word *, size_t,
	    const char *);
void	check_assign(struct an *, const struct sh_word *);
int	safe_pager(const char *);

/* ---- recursion (classify.c) ---- */

void	cls_check_text(struct ctx *, const char *, size_t, int);
int	cls_fd_path(const char *);
void	cls_analyze(struct ctx *, struct an *, const struct sh_word *,
	    size_t, const struct io *, int);
/* Record alias NAME=VALUE (name is nlen bytes); 0 or -1 if too many. */
int	cls_alias_define(struct ctx *, const char *, size_t, const char *,
	    int);

/* ---- handlers, by family ---- */

/* cls_wrap.c */
int	cls_env(struct cls_call *);
int	cls_command(struct cls_call *);
int	cls_exec(struct cls_call *);
int	cls_wrap(struct cls_call *);
int	cls_xargs(struct cls_call *);
int	cls_flock(struct cls_call *);
int	cls_watch(struct cls_call *);
int	cls_busybox(struct cls_call *);
int	cls_wrap_daemon(struct cls_call *);
int	cls_gdb(struct cls_call *);
int	cls_tmux(struct cls_call *);
int	cls_screen(struct cls_call *);
int	cls_bwrap(struct cls_call *);
int	cls_entr(struct cls_call *);
int	cls_watchexec(struct cls_call *);
int	cls_mise(struct cls_call *);
int	cls_direnv(struct cls_call *);
int	cls_nix(struct cls_call *);
int	cls_nix_shell(struct cls_call *);
int	cls_kubectl(struct cls_call *);
int	cls_perf(struct cls_call *);
int	cls_arch(struct cls_call *);
int	cls_yarn_exec(struct cls_call *);
int	cls_firejail(struct cls_call *);
int	cls_cmake(struct cls_call *);
int	cls_watchman(struct cls_call *);

/* cls_interp.c */
int	cls_shell(struct cls_call *);
int	cls_eval(struct cls_call *);
int	cls_trap(struct cls_call *);
int	cls_source(struct cls_call *);
int	cls_alias(struct cls_call *);
int	cls_python(struct cls_call *);
int	cls_node(struct cls_call *);
int	cls_deno(struct cls_call *);
int	cls_perl(struct cls_call *);
int	cls_rubylike(struct cls_call *);
int	cls_php(struct cls_call *);
int	cls_opaque(struct cls_call *);
int	cls_sed(struct cls_call *);
int	cls_awk(struct cls_call *);

/* cls_edit.c */
int	cls_make(struct cls_call *);
int	cls_vi(struct cls_call *);
int	cls_emacs(struct cls_call *);
int	cls_less(struct cls_call *);

/* cls_git.c */
int	cls_git(struct cls_call *);
int	cls_gh(struct cls_call *);

/* cls_pkg.c */
int	cls_pkg(struct cls_call *);
int	cls_npm(struct cls_call *);
int	cls_npx(struct cls_call *);
int	cls_yarn(struct cls_call *);
int	cls_bun(struct cls_call *);
int	cls_pip(struct cls_call *);
int	cls_uv(struct cls_call *);
int	cls_pacman(struct cls_call *);
int	cls_nix_env(struct cls_call *);
int	cls_dotnet(struct cls_call *);
int	cls_mvn(struct cls_call *);
/* pip's subcommands, for python -m pip. */
void	cls_pip_sub(struct an *, const struct sh_word *, size_t,
	    const char *);

/* cls_file.c */
int	cls_unknown(struct cls_call *);
int	cls_ro(struct cls_call *);
int	cls_mut(struct cls_call *);
int	cls_xxd(struct cls_call *);
int	cls_man(struct cls_call *);
int	cls_calc(struct cls_call *);
int	cls_rm(struct cls_call *);
int	cls_chmod(struct cls_call *);
int	cls_dd(struct cls_call *);
int	cls_shred(struct cls_call *);
int	cls_cp(struct cls_call *);
int	cls_tee(struct cls_call *);
int	cls_cat(struct cls_call *);
int	cls_kill(struct cls_call *);
int	cls_sort(struct cls_call *);
int	cls_uniq(struct cls_call *);
int	cls_tar(struct cls_call *);
int	cls_unzip(struct cls_call *);
int	cls_curl(struct cls_call *);
int	cls_wget(struct cls_call *);
int	cls_net(struct cls_call *);
int	cls_net_ro(struct cls_call *);
int	cls_find(struct cls_call *);
int	cls_export(struct cls_call *);

/* cls_sys.c */
int	cls_priv(struct cls_call *);
int	cls_destroy(struct cls_call *);
int	cls_escape(struct cls_call *);
int	cls_sysctl(struct cls_call *);
int	cls_mount(struct cls_call *);
int	cls_init(struct cls_call *);
int	cls_systemctl(struct cls_call *);
int	cls_ip(struct cls_call *);
int	cls_container(struct cls_call *);

#endif
