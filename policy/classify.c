// SPDX-License-Identifier: ISC
/*
 * The command classifier (see classify.h).  shell.c lists the simple
 * commands; this file normalises each one (basename of the command after
 * quote removal, wrappers unwrapped, git's global options skipped), finds
 * what it does, and turns that into a verdict for the mode.
 *
 * Untrusted: every word comes from agent input.  Reasons quote at most a
 * bounded prefix of a word; recursion (sh -c, eval, env -S, here-documents
 * fed to a shell) is bounded by POL_MAX_NEST.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"
#include "policy/classify.h"
#include "policy/guard.h"
#include "policy/inline.h"
#include "policy/shell.h"

#define REASON_MAX	200
#define MAX_UNWRAP	16

struct ctx {
	struct pol_result	*res;
	enum pol_mode		 mode;
	const enum pol_verdict	*rules;
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

static void	check_text(struct ctx *, struct an *, const char *, size_t,
		    int);
static void	analyze(struct ctx *, struct an *, const struct sh_word *,
		    size_t, const struct io *, int);

static void
vset(char *dst, const char *fmt, va_list ap)
{
	if (dst[0] == '\0')
		vsnprintf(dst, REASON_MAX, fmt, ap);
}

static void
set_hard(struct an *a, unsigned flag, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void
set_hard(struct an *a, unsigned flag, const char *rule, const char *fmt, ...)
{
	va_list	ap;

	a->flags |= flag;
	if (a->hard[0] == '\0')
		a->hard_rule = rule;
	va_start(ap, fmt);
	vset(a->hard, fmt, ap);
	va_end(ap);
}

#define PRIV(a, ...) set_hard(a, POL_F_PRIVILEGE, \
	"hard-deny:privilege-escalation", __VA_ARGS__)
#define DESTROY(a, ...) set_hard(a, POL_F_DESTRUCTION, \
	"hard-deny:system-destruction", __VA_ARGS__)
#define ESCAPE(a, ...) set_hard(a, POL_F_ESCAPE, \
	"hard-deny:namespace-escape", __VA_ARGS__)
#define CODEEXEC(a, ...) set_hard(a, POL_F_CODE_EXEC, \
	"hard-deny:code-execution", __VA_ARGS__)

/* Set a flag and, the first time, the reason that goes with it. */
static void
set_flag(struct an *a, unsigned flag, char *why, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void
set_flag(struct an *a, unsigned flag, char *why, const char *fmt, ...)
{
	va_list	ap;

	a->flags |= flag;
	va_start(ap, fmt);
	vset(why, fmt, ap);
	va_end(ap);
}

#define set_opaque(a, ...) set_flag(a, POL_F_OPAQUE, (a)->opaque, __VA_ARGS__)
#define set_mut(a, ...) set_flag(a, POL_F_MUTATING, (a)->mut, __VA_ARGS__)
#define set_ro(a, ...) set_flag(a, POL_F_READONLY, (a)->ro, __VA_ARGS__)

static void
set_ask(struct an *a, unsigned flag, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void
set_ask(struct an *a, unsigned flag, const char *rule, const char *fmt, ...)
{
	va_list	ap;

	a->flags |= flag | POL_F_MUTATING;
	if (a->ask[0] == '\0')
		a->ask_rule = rule;
	va_start(ap, fmt);
	vset(a->ask, fmt, ap);
	va_end(ap);
}

static void
set_class(struct an *a, enum pol_class c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void
set_class(struct an *a, enum pol_class c, const char *fmt, ...)
{
	va_list	ap;

	a->classes |= POL_CLASS_BIT(c);
	va_start(ap, fmt);
	vset(a->cls, fmt, ap);
	va_end(ap);
}

/* ---- word helpers ---- */

static int
lit(const struct sh_word *w)
{
	return (w->flags & SH_W_NONLITERAL) == 0;
}

static int
weq(const struct sh_word *w, const char *s)
{
	return lit(w) && strcmp(w->text, s) == 0;
}

static int
in_list(const char *s, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

static int
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *
base(const char *s)
{
	const char *p = strrchr(s, '/');

	return p != NULL ? p + 1 : s;
}

/* Is this an option word (-x, --xx) rather than an operand? */
static int
is_opt(const struct sh_word *w)
{
	return lit(w) && w->text[0] == '-' && w->text[1] != '\0';
}

/*
 * Does argv (from index 1) have short option c (in any cluster such as
 * -rf) or long option lng?  Stops at "--".
 */
static int
has_opt(const struct sh_word *w, size_t n, int c, const char *lng)
{
	size_t	i;

	for (i = 1; i < n; i++) {
		if (!lit(&w[i]))
			continue;
		if (strcmp(w[i].text, "--") == 0)
			break;
		if (lng != NULL && w[i].text[0] == '-' &&
		    w[i].text[1] == '-' && (strcmp(w[i].text + 2, lng) == 0 ||
		    (starts(w[i].text + 2, lng) &&
		    w[i].text[2 + strlen(lng)] == '=')))
			return 1;
		if (c != 0 && w[i].text[0] == '-' && w[i].text[1] != '-' &&
		    strchr(w[i].text + 1, c) != NULL)
			return 1;
	}
	return 0;
}

/* A literal argument with "!" (dc and bc run a shell command with it). */
static int
has_bang(const struct sh_word *w, size_t n)
{
	size_t	i;

	for (i = 1; i < n; i++)
		if (!lit(&w[i]) || strchr(w[i].text, '!') != NULL)
			return 1;
	return 0;
}

/* Any word that the shell will split into unknown fields? */
static int
has_unq_expand(const struct sh_word *w, size_t n)
{
	size_t	i;

	for (i = 1; i < n; i++)
		if (w[i].flags & (SH_W_UNQ_EXPAND | SH_W_GLOB | SH_W_BRACE))
			return 1;
	return 0;
}

/* Operands: words after the options (all words after "--"). */
static size_t
operands(const struct sh_word *w, size_t n, const struct sh_word **out,
    size_t max)
{
	size_t	i, k = 0;
	int	dd = 0;

	for (i = 1; i < n && k < max; i++) {
		if (!dd && weq(&w[i], "--")) {
			dd = 1;
			continue;
		}
		if (!dd && is_opt(&w[i]))
			continue;
		out[k++] = &w[i];
	}
	return k;
}

/*
 * Paths whose recursive removal (or chmod -R, mv) destroys the system or
 * a home directory: /, a top-level directory, /home/<user>, ~, $HOME,
 * and "$VAR/" or "$VAR/" followed by a star (/ when VAR is empty).
 */
static int
critical_path(const struct sh_word *w)
{
	const char	*t = w->text, *p, *rest;
	size_t		 n = 0, comps = 0;
	const char	*c[8];
	size_t		 cl[8];

	if (w->flags & SH_W_TILDE) {
		rest = strchr(t, '/');
		if (rest == NULL)
			return 1;	/* ~ or ~user */
		return strcmp(rest, "/") == 0 || strcmp(rest, "/*") == 0 ||
		    strcmp(rest, "/.") == 0 || strcmp(rest, "/.*") == 0;
	}
	if (w->flags & SH_W_EXPAND) {
		if (starts(t, "$HOME") || starts(t, "${HOME}")) {
			rest = t + (t[1] == '{' ? 7 : 5);
			return *rest == '\0' || strcmp(rest, "/") == 0 ||
			    strcmp(rest, "/*") == 0 || strcmp(rest, "/.") == 0;
		}
		if (t[0] == '$') {
			/* "$VAR/" and "$VAR/<star>": / when VAR is unset. */
			p = t + 1;
			if (*p == '{') {
				p = strchr(p, '}');
				if (p == NULL)
					return 0;
				p++;
			} else
				while ((*p >= 'A' && *p <= 'Z') ||
				    (*p >= 'a' && *p <= 'z') ||
				    (*p >= '0' && *p <= '9') || *p == '_')
					p++;
			return strcmp(p, "/") == 0 || strcmp(p, "/*") == 0;
		}
		return 0;
	}
	if (t[0] != '/')
		return 0;
	/* Normalise: drop "." and empty components, apply "..". */
	p = t;
	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		rest = strchr(p, '/');
		n = rest ? (size_t)(rest - p) : strlen(p);
		if (n == 1 && p[0] == '.')
			;
		else if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (comps > 0)
				comps--;
		} else {
			if (comps >= 8)
				return 0;	/* deep: specific */
			c[comps] = p;
			cl[comps++] = n;
		}
		p += n;
	}
	/* A trailing "*" means everything in its parent. */
	if (comps > 0 && cl[comps - 1] == 1 && c[comps - 1][0] == '*' &&
	    (w->flags & SH_W_GLOB))
		comps--;
	if (comps <= 1)
		return 1;
	/* /home/<user> and /Users/<user>. */
	if (comps == 2 && ((cl[0] == 4 && memcmp(c[0], "home", 4) == 0) ||
	    (cl[0] == 5 && memcmp(c[0], "Users", 5) == 0)))
		return 1;
	return 0;
}

static int
block_device(const char *t)
{
	static const char *const devs[] = { "/dev/sd", "/dev/hd", "/dev/vd",
	    "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/dm-", "/dev/md",
	    "/dev/loop", "/dev/mapper/", "/dev/disk/", "/dev/sr", "/dev/nbd",
	    "/dev/zram", "/dev/sg", "/dev/mem", "/dev/kmem", "/dev/port",
	    "/dev/root", "/dev/ubi", "/dev/mtd", "/dev/rbd", NULL };
	size_t	i;

	while (t[0] == '/' && t[1] == '/')
		t++;
	for (i = 0; devs[i] != NULL; i++)
		if (starts(t, devs[i]))
			return 1;
	return 0;
}

static int
harmless_sink(const char *t)
{
	return strcmp(t, "/dev/null") == 0 || strcmp(t, "/dev/stdout") == 0 ||
	    strcmp(t, "/dev/stderr") == 0 || strcmp(t, "/dev/tty") == 0 ||
	    starts(t, "/dev/fd/") || strcmp(t, "-") == 0;
}

/* Write "a b c" of words (literal, bounded) into buf, shell-quoted. */
static char *
join_quoted(const char *first, const struct sh_word *w, size_t n)
{
	size_t	 i, need = strlen(first) + 1;
	char	*s, *p;
	const char *q;

	for (i = 0; i < n; i++)
		need += 3 + w[i].len * 4;
	s = p = xmalloc(need);
	memcpy(p, first, strlen(first));
	p += strlen(first);
	for (i = 0; i < n; i++) {
		*p++ = ' ';
		*p++ = '\'';
		for (q = w[i].text; *q != '\0'; q++) {
			if (*q == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else
				*p++ = *q;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return s;
}

/* ---- environment and git configuration that runs code ---- */

static int
safe_pager(const char *v)
{
	static const char *const ok[] = { "cat", "less", "more", "true",
	    "false", ":", "head", "tail", NULL };
	char	first[16];
	size_t	n;

	if (v[0] == '\0')
		return 1;
	if (strpbrk(v, ";|&$`()<>\\'\"\n") != NULL)
		return 0;
	n = strcspn(v, " \t");
	if (n >= sizeof(first))
		return 0;
	memcpy(first, v, n);
	first[n] = '\0';
	return in_list(first, ok);
}

static void
check_assign(struct an *a, const struct sh_word *w)
{
	static const char *const deny[] = { "GIT_SSH_COMMAND", "GIT_SSH",
	    "GIT_EXTERNAL_DIFF", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	    "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	    "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_ASKPASS",
	    "SSH_ASKPASS", "GIT_PROXY_COMMAND", NULL };
	static const char *const pagers[] = { "GIT_PAGER", "PAGER",
	    "GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR",
	    "MANPAGER", "SYSTEMD_PAGER", NULL };
	static const char *const loaders[] = { "LD_PRELOAD", "LD_AUDIT",
	    "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS4", "NODE_OPTIONS",
	    "PERL5OPT", "RUBYOPT", "SHELLOPTS", "BASHOPTS",
	    "PYTHONSTARTUP", "PYTHONINSPECT", NULL };
	char		 name[64];
	const char	*eq = strchr(w->text, '=');
	size_t		 n;

	if (eq == NULL)
		return;
	n = (size_t)(eq - w->text);
	if (n > 0 && w->text[n - 1] == '+')
		n--;
	if (n >= sizeof(name))
		return;
	memcpy(name, w->text, n);
	name[n] = '\0';
	if (in_list(name, deny) || starts(name, "GIT_CONFIG_KEY_") ||
	    starts(name, "GIT_CONFIG_VALUE_"))
		CODEEXEC(a, "%s in the environment makes git run other "
		    "programs or read other configuration", name);
	else if (in_list(name, pagers) &&
	    (!lit(w) || !safe_pager(eq + 1)))
		CODEEXEC(a, "%s=%.40s runs a program chosen by the command "
		    "line", name, eq + 1);
	else if (in_list(name, loaders))
		set_opaque(a, "%s in the environment runs code that cannot "
		    "be seen here", name);
}

/*
 * Git configuration keys that make git run a program, load more
 * configuration or send pushes elsewhere.  key is lower-cased.
 */
static int
git_key_dangerous(const char *key, const char *val)
{
	static const char *const exact[] = { "core.sshcommand", "core.pager",
	    "core.fsmonitor", "core.hookspath", "core.editor", "core.askpass",
	    "core.gitproxy", "core.alternaterefscommand", "sequence.editor",
	    "credential.helper", "diff.external", "gpg.program",
	    "uploadpack.packobjectshook", "include.path",
	    "sendemail.smtpserver", "sendemail.tocmd", "sendemail.cccmd",
	    "sendemail.aliasesfile", "core.attributesfile", NULL };
	const char	*dot2 = strrchr(key, '.');
	char		 sect[32];
	size_t		 n;

	if (in_list(key, exact))
		return 1;
	n = strcspn(key, ".");
	if (n >= sizeof(sect) || dot2 == NULL)
		return 0;
	memcpy(sect, key, n);
	sect[n] = '\0';
	dot2++;
	if (strcmp(sect, "alias") == 0)
		return val != NULL && val[0] == '!';
	if (strcmp(sect, "pager") == 0)
		return val == NULL || !safe_pager(val);
	if (strcmp(sect, "protocol") == 0 && strcmp(dot2, "allow") == 0)
		return val == NULL || strcmp(val, "never") != 0;
	if (strcmp(sect, "credential") == 0 && strcmp(dot2, "helper") == 0)
		return 1;
	if (strcmp(sect, "diff") == 0 && (strcmp(dot2, "command") == 0 ||
	    strcmp(dot2, "textconv") == 0))
		return 1;
	if ((strcmp(sect, "difftool") == 0 || strcmp(sect, "mergetool") == 0)
	    && strcmp(dot2, "cmd") == 0)
		return 1;
	if (strcmp(sect, "merge") == 0 && strcmp(dot2, "driver") == 0)
		return 1;
	if (strcmp(sect, "filter") == 0 && (strcmp(dot2, "clean") == 0 ||
	    strcmp(dot2, "smudge") == 0 || strcmp(dot2, "process") == 0))
		return 1;
	if (strcmp(sect, "gpg") == 0 && strcmp(dot2, "program") == 0)
		return 1;
	if (strcmp(sect, "includeif") == 0 && strcmp(dot2, "path") == 0)
		return 1;
	if (strcmp(sect, "remote") == 0 && (strcmp(dot2, "uploadpack") == 0 ||
	    strcmp(dot2, "receivepack") == 0 || strcmp(dot2, "vcs") == 0))
		return 1;
	if (strcmp(sect, "url") == 0 && (strcmp(dot2, "insteadof") == 0 ||
	    strcmp(dot2, "pushinsteadof") == 0))
		return 1;
	if (strcmp(sect, "submodule") == 0 && strcmp(dot2, "update") == 0)
		return val != NULL && val[0] == '!';
	return 0;
}

/* Check one "key=value" (or "key") given to git -c or git config. */
static void
check_git_kv(struct an *a, const char *kv, const char *val_sep,
    const char *what)
{
	char		 key[128];
	const char	*eq = val_sep != NULL ? val_sep : strchr(kv, '=');
	size_t		 i, n = eq != NULL ? (size_t)(eq - kv) :
			    strlen(kv);
	const char	*val = eq != NULL ? eq + 1 : NULL;

	if (n >= sizeof(key)) {
		CODEEXEC(a, "%s: configuration key too long", what);
		return;
	}
	for (i = 0; i < n; i++)
		key[i] = (kv[i] >= 'A' && kv[i] <= 'Z') ? kv[i] + 32 : kv[i];
	key[n] = '\0';
	if (git_key_dangerous(key, val))
		CODEEXEC(a, "%s %.60s makes git run a program or change where "
		    "it connects", what, key);
	else if (starts(key, "alias."))
		set_opaque(a, "%s defines git alias %.40s on the command line",
		    what, key + 6);
}

/* ---- wrappers ---- */

/*
 * Skip a wrapper's options and npos positional words.  sarg: short options
 * that take an argument; larg: long options that take one (space form).
 * Returns the index of the wrapped command (== n when there is none).
 */
static size_t
skip_opts(const struct sh_word *w, size_t n, size_t i, const char *sarg,
    const char *const *larg, int npos)
{
	const char	*t;
	size_t		 k;

	while (i < n) {
		t = w[i].text;
		if (!lit(&w[i]) || t[0] != '-' || t[1] == '\0')
			break;
		if (strcmp(t, "--") == 0) {
			i++;
			break;
		}
		if (t[1] == '-') {
			i++;
			if (strchr(t, '=') == NULL && larg != NULL &&
			    in_list(t + 2, larg))
				i++;
			continue;
		}
		i++;
		for (k = 1; t[k] != '\0'; k++)
			if (sarg != NULL && strchr(sarg, t[k]) != NULL) {
				if (t[k + 1] == '\0')
					i++;
				break;
			}
	}
	while (npos-- > 0 && i < n)
		i++;
	return i < n ? i : n;
}

/* sh, bash, ...: -c 'script', a script file, or commands on stdin. */
static void
an_shell(struct ctx *cx, struct an *a, const struct sh_word *w, size_t n,
    const struct io *io, int nest, const char *name)
{
	static const char *const larg[] = { "rcfile", "init-file", NULL };
	size_t	i = 1, k;
	int	cflag = 0, sflag = 0;
	const char *t;

	while (i < n) {
		t = w[i].text;
		if (!lit(&w[i])) {
			set_opaque(a, "%s with options from an expansion",
			    name);
			return;
		}
		if ((t[0] != '-' && t[0] != '+') || t[1] == '\0') {
			if (strcmp(t, "-") == 0)
				i++;
			break;
		}
		i++;
		if (strcmp(t, "--") == 0)
			break;
		if (t[1] == '-') {
			if (in_list(t + 2, larg))
				i++;
			continue;
		}
		for (k = 1; t[k] != '\0'; k++) {
			if (t[k] == 'c' && t[0] == '-')
				cflag = 1;
			else if (t[k] == 's' && t[0] == '-')
				sflag = 1;
			else if (t[k] == 'o' || t[k] == 'O')
				i++;
		}
	}
	if (strcmp(name, "fish") == 0 || strcmp(name, "nu") == 0 ||
	    strcmp(name, "pwsh") == 0 || strcmp(name, "xonsh") == 0 ||
	    strcmp(name, "elvish") == 0) {
		if (cflag || i >= n)
			set_opaque(a, "%s code is not parsed here", name);
		else
			set_mut(a, "%s runs script %.60s", name, w[i].text);
		return;
	}
	if (cflag) {
		if (i >= n) {
			set_opaque(a, "%s -c without a script", name);
			return;
		}
		if (!lit(&w[i])) {
			set_opaque(a, "%s -c runs a script that is an "
			    "expansion", name);
			return;
		}
		set_ro(a, "%s -c runs the commands listed with it", name);
		check_text(cx, a, w[i].text, w[i].len, nest + 1);
		return;
	}
	if (i < n && !sflag) {
		if (!lit(&w[i]))
			set_opaque(a, "%s runs a script named by an expansion",
			    name);
		else
			set_mut(a, "%s runs script %.60s", name, w[i].text);
		return;
	}
	if (io->script != NULL && !io->other && lit(io->script)) {
		set_ro(a, "%s reads the commands listed with it", name);
		check_text(cx, a, io->script->text, io->script->len,
		    nest + 1);
		return;
	}
	set_opaque(a, "%s reads commands from its input", name);
}

/* Interpreters whose inline code (-c, -e, ...) cannot be seen through. */
/*
 * Options that load code before a one-liner runs (perl -MMod, node
 * --require, ruby -rlib): the one-liner is then not all there is.
 */
static int
loads_code(const char *lang, const char *t)
{
	if (strcmp(lang, "perl") == 0)
		return t[1] == 'M' || t[1] == 'm' || t[1] == 'd' ||
		    t[1] == 'x';
	if (strcmp(lang, "node") == 0)
		return strcmp(t, "-r") == 0 || starts(t, "--require") ||
		    starts(t, "--import") || starts(t, "--loader") ||
		    starts(t, "--experimental-loader");
	if (strcmp(lang, "ruby") == 0)
		return t[1] == 'r' || t[1] == 'I';
	return 0;
}

/*
 * The inline code at w[i] (option t, whose code letter is at pos, or a
 * long option): a read-only one-liner of lang, or opaque.
 */
static int
interp_code(struct an *a, const struct sh_word *w, size_t n, size_t i,
    const char *pos, const char *name, const char *lang, int loaded)
{
	const char	*t = w[i].text, *code = NULL;

	if (pos != NULL && pos[1] != '\0')
		code = pos + 1;			/* -cCODE */
	else if (pos == NULL && strchr(t, '=') != NULL)
		code = strchr(t, '=') + 1;	/* --eval=CODE */
	else if (i + 1 < n && lit(&w[i + 1]))
		code = w[i + 1].text;
	if (lang != NULL && code != NULL && !loaded &&
	    pol_inline_code(lang, code) == INLINE_RO) {
		set_ro(a, "%s %s: a read-only one-liner", name, t);
		return 1;
	}
	set_opaque(a, "%s %s runs inline code", name, t);
	return 1;
}

static int
an_interp(struct an *a, const struct sh_word *w, size_t n,
    const struct io *io, const char *name, const char *codeopts,
    const char *const *longcode, const char *lang)
{
	size_t	i;
	const char *t;
	int	loaded = 0;

	for (i = 1; i < n; i++) {
		t = w[i].text;
		if (!lit(&w[i]) || t[0] != '-' || t[1] == '\0')
			break;
		if (strcmp(t, "--") == 0) {
			i++;
			break;
		}
		if (lang != NULL && loads_code(lang, t))
			loaded = 1;
		if (t[1] == '-') {
			if (longcode != NULL && (in_list(t + 2, longcode) ||
			    (strchr(t, '=') != NULL && t[2] == 'e' &&
			    t[3] == 'v' && t[4] == 'a' && t[5] == 'l')))
				return interp_code(a, w, n, i, NULL, name,
				    lang, loaded);
			if (strcmp(t, "--version") == 0 ||
			    strcmp(t, "--help") == 0) {
				if (n == 2) {
					set_ro(a, "%s %s", name, t);
					return 1;
				}
			}
			continue;
		}
		if (strpbrk(t + 1, codeopts) != NULL)
			return interp_code(a, w, n, i, strpbrk(t + 1,
			    codeopts), name, lang, loaded);
		if (n == 2 && (strcmp(t, "-V") == 0 || strcmp(t, "-v") == 0 ||
		    strcmp(t, "-h") == 0)) {
			set_ro(a, "%s %s", name, t);
			return 1;
		}
	}
	if (i >= n || weq(&w[i], "-")) {
		set_opaque(a, "%s reads a program from its input", name);
		(void)io;
		return 1;
	}
	return 0;
}

/* ---- package managers ---- */

static const char *
first_operand(const struct sh_word *w, size_t n, size_t *idx)
{
	size_t	i;

	for (i = 1; i < n; i++) {
		if (!lit(&w[i]))
			return NULL;
		if (w[i].text[0] != '-') {
			if (idx != NULL)
				*idx = i;
			return w[i].text;
		}
	}
	return NULL;
}

static void
pkg(struct an *a, const char *name, const char *sub,
    const char *const *install, const char *const *publish,
    const char *const *ro)
{
	if (sub == NULL) {
		set_mut(a, "%s", name);
		return;
	}
	if (install != NULL && in_list(sub, install)) {
		set_class(a, POL_CLASS_INSTALL_PACKAGE, "%s %s installs "
		    "packages", name, sub);
		set_mut(a, "%s %s installs packages", name, sub);
	} else if (publish != NULL && in_list(sub, publish))
		set_ask(a, POL_F_REMOTE, "ask:publish", "%s %s publishes a "
		    "package", name, sub);
	else if (ro != NULL && in_list(sub, ro))
		set_ro(a, "%s %s", name, sub);
	else
		set_mut(a, "%s %s", name, sub);
}

static int
an_pkg(struct an *a, const struct sh_word *w, size_t n, const char *name)
{
	static const char *const npm_i[] = { "install", "i", "in", "ins",
	    "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall",
	    "add", "ci", "clean-install", "install-clean", "ic",
	    "install-test", "it", "install-ci-test", "cit", "update", "up",
	    "upgrade", "udpate", "exec", "x", "link", "ln", NULL };
	static const char *const npm_p[] = { "publish", "unpublish",
	    "deprecate", "dist-tag", "dist-tags", "owner", "access", "team",
	    "org", "star", "unstar", "token", "adduser", "login", NULL };
	static const char *const npm_ro[] = { "ls", "list", "ll", "la",
	    "view", "v", "info", "show", "outdated", "search", "s", "se",
	    "find", "help", "explain", "why", "root", "prefix", "bin",
	    "whoami", "ping", "doctor", "fund", "query", "-v", "--version",
	    "help-search", NULL };
	static const char *const yarn_i[] = { "add", "install", "up",
	    "upgrade", "dlx", "global", "upgrade-interactive", NULL };
	static const char *const yarn_p[] = { "publish", "npm", "login",
	    "owner", "tag", NULL };
	static const char *const yarn_ro[] = { "info", "list", "why",
	    "--version", "-v", "outdated", "help", "licenses", NULL };
	static const char *const pnpm_i[] = { "add", "i", "install", "up",
	    "update", "upgrade", "dlx", "import", "install-test", "it",
	    "link", "ln", NULL };
	static const char *const pnpm_ro[] = { "ls", "list", "ll", "la",
	    "outdated", "why", "view", "info", "--version", "-v", "root",
	    "bin", "help", NULL };
	static const char *const bun_i[] = { "add", "a", "i", "install",
	    "update", "x", "create", "c", "link", NULL };
	static const char *const pip_i[] = { "install", "download", "wheel",
	    NULL };
	static const char *const pip_ro[] = { "list", "show", "freeze",
	    "check", "search", "index", "inspect", "--version", "-V", "help",
	    "debug", "hash", NULL };
	static const char *const uv_i[] = { "add", "sync", "tool", "pip",
	    "lock", "python", NULL };
	static const char *const pipx_i[] = { "install", "inject", "run",
	    "upgrade", "upgrade-all", "reinstall", "reinstall-all", NULL };
	static const char *const poetry_i[] = { "add", "install", "update",
	    "lock", "sync", NULL };
	static const char *const conda_i[] = { "install", "create", "update",
	    "upgrade", NULL };
	static const char *const conda_ro[] = { "list", "info", "search",
	    "--version", NULL };
	static const char *const cargo_i[] = { "install", "add", "binstall",
	    NULL };
	static const char *const cargo_p[] = { "publish", "yank", "owner",
	    "login", NULL };
	static const char *const cargo_ro[] = { "tree", "metadata",
	    "--version", "-V", "version", "search", "help", "locate-project",
	    "pkgid", "verify-project", "read-manifest", "--list", NULL };
	static const char *const gem_i[] = { "install", "update", "i",
	    NULL };
	static const char *const gem_p[] = { "push", "yank", "owner",
	    "signin", NULL };
	static const char *const gem_ro[] = { "list", "search", "info",
	    "query", "specification", "contents", "environment", "which",
	    "-v", "--version", "help", NULL };
	static const char *const go_i[] = { "install", "get", NULL };
	static const char *const go_ro[] = { "version", "env", "list", "doc",
	    "help", NULL };
	static const char *const bundle_i[] = { "install", "add", "update",
	    NULL };
	static const char *const composer_i[] = { "require", "install",
	    "update", "global", "create-project", NULL };
	static const char *const apt_i[] = { "install", "reinstall",
	    "build-dep", "upgrade", "full-upgrade", "dist-upgrade", "source",
	    NULL };
	static const char *const apt_ro[] = { "search", "show", "list",
	    "policy", "depends", "rdepends", "changelog", "showpkg",
	    "madison", "-v", "--version", NULL };
	static const char *const dnf_i[] = { "install", "reinstall",
	    "upgrade", "update", "groupinstall", "localinstall", "in",
	    "up", NULL };
	static const char *const dnf_ro[] = { "list", "info", "search",
	    "provides", "repolist", "--version", NULL };
	static const char *const apk_i[] = { "add", "upgrade", NULL };
	static const char *const apk_ro[] = { "info", "search", "list",
	    "--version", NULL };
	static const char *const zypper_i[] = { "in", "install", "up",
	    "update", "dup", "dist-upgrade", NULL };
	static const char *const brew_i[] = { "install", "reinstall",
	    "upgrade", "tap", NULL };
	static const char *const brew_ro[] = { "list", "ls", "info", "search",
	    "--version", "deps", "uses", "outdated", "config", NULL };
	static const char *const snap_i[] = { "install", "refresh", NULL };
	static const char *const twine_p[] = { "upload", "register", NULL };
	static const char *const pub_p[] = { "publish", NULL };
	static const char *const rustup_i[] = { "toolchain", "component",
	    "target", "install", "update", NULL };
	static const char *const rustup_ro[] = { "show", "--version",
	    "which", NULL };
	static const char *const pipx_ro[] = { "list", "--version", NULL };
	static const char *const poetry_ro[] = { "show", "check",
	    "--version", "env", NULL };
	static const char *const bundle_ro[] = { "list", "show", "--version",
	    NULL };
	static const char *const composer_ro[] = { "show", "--version",
	    NULL };
	/* The managers whose first operand alone tells what they do. */
	static const struct {
		const char		*names[5];
		const char *const	*install, *const *publish, *const *ro;
	} by_sub[] = {
		{ { "pnpm" }, pnpm_i, pub_p, pnpm_ro },
		{ { "pipx" }, pipx_i, NULL, pipx_ro },
		{ { "poetry" }, poetry_i, pub_p, poetry_ro },
		{ { "conda", "mamba", "micromamba" }, conda_i, NULL, conda_ro },
		{ { "cargo" }, cargo_i, cargo_p, cargo_ro },
		{ { "gem" }, gem_i, gem_p, gem_ro },
		{ { "go" }, go_i, NULL, go_ro },
		{ { "bundle", "bundler" }, bundle_i, NULL, bundle_ro },
		{ { "composer" }, composer_i, NULL, composer_ro },
		{ { "apt", "apt-get", "aptitude", "apt-cache" }, apt_i, NULL,
		    apt_ro },
		{ { "dnf", "yum", "microdnf" }, dnf_i, NULL, dnf_ro },
		{ { "apk" }, apk_i, NULL, apk_ro },
		{ { "zypper" }, zypper_i, NULL, NULL },
		{ { "brew", "port" }, brew_i, NULL, brew_ro },
		{ { "snap", "flatpak" }, snap_i, NULL, NULL },
		{ { "twine" }, NULL, twine_p, NULL },
		{ { "flit", "hatch", "vsce", "ovsx" }, NULL, pub_p, NULL },
		{ { "rustup" }, rustup_i, NULL, rustup_ro },
	};
	const char	*sub;
	size_t		 idx = 0, i, j;

	sub = first_operand(w, n, &idx);
	for (i = 0; i < sizeof(by_sub) / sizeof(by_sub[0]); i++)
		for (j = 0; by_sub[i].names[j] != NULL; j++)
			if (strcmp(name, by_sub[i].names[j]) == 0) {
				pkg(a, name, sub, by_sub[i].install,
				    by_sub[i].publish, by_sub[i].ro);
				return 1;
			}
	if (strcmp(name, "npm") == 0) {
		if (sub == NULL && (has_opt(w, n, 'v', "version") ||
		    n == 1)) {
			set_ro(a, "npm --version");
			return 1;
		}
		if (sub != NULL && (strcmp(sub, "run") == 0 ||
		    strcmp(sub, "run-script") == 0 || strcmp(sub, "test") == 0
		    || strcmp(sub, "t") == 0 || strcmp(sub, "start") == 0)) {
			set_mut(a, "npm %s runs a package script", sub);
			return 1;
		}
		if (sub != NULL && strcmp(sub, "audit") == 0 &&
		    first_operand(w + idx, n - idx, NULL) == NULL) {
			set_ro(a, "npm audit");
			return 1;
		}
		if (sub != NULL && strcmp(sub, "config") == 0) {
			const char *s2 = first_operand(w + idx, n - idx, NULL);
			if (s2 != NULL && (strcmp(s2, "get") == 0 ||
			    strcmp(s2, "list") == 0 || strcmp(s2, "ls") == 0)) {
				set_ro(a, "npm config %s", s2);
				return 1;
			}
		}
		pkg(a, "npm", sub, npm_i, npm_p, npm_ro);
	} else if (strcmp(name, "npx") == 0 || strcmp(name, "pnpx") == 0 ||
	    strcmp(name, "bunx") == 0 || strcmp(name, "uvx") == 0) {
		set_class(a, POL_CLASS_INSTALL_PACKAGE, "%s fetches and runs "
		    "a package", name);
		set_mut(a, "%s fetches and runs a package", name);
	} else if (strcmp(name, "yarn") == 0) {
		if (sub == NULL && n == 1) {
			set_class(a, POL_CLASS_INSTALL_PACKAGE, "yarn installs "
			    "packages");
			set_mut(a, "yarn installs packages");
		} else
			pkg(a, "yarn", sub, yarn_i, yarn_p, yarn_ro);
	} else if (strcmp(name, "bun") == 0) {
		if (sub != NULL && (strcmp(sub, "-e") == 0 ||
		    strcmp(sub, "--eval") == 0)) {
			set_opaque(a, "bun %s runs inline code", sub);
			return 1;
		}
		pkg(a, "bun", sub, bun_i, pub_p, NULL);
	} else if (starts(name, "pip") && (name[3] == '\0' ||
	    (name[3] >= '0' && name[3] <= '9')))
		pkg(a, name, sub, pip_i, NULL, pip_ro);
	else if (strcmp(name, "uv") == 0) {
		if (sub != NULL && strcmp(sub, "pip") == 0) {
			const char *s2 = first_operand(w + idx, n - idx, NULL);
			pkg(a, "uv pip", s2, pip_i, NULL, pip_ro);
		} else if (sub != NULL && strcmp(sub, "run") == 0)
			set_mut(a, "uv run installs dependencies and runs a "
			    "command");
		else if (sub != NULL && strcmp(sub, "tool") == 0) {
			const char *s2 = first_operand(w + idx, n - idx, NULL);
			if (s2 != NULL && (strcmp(s2, "list") == 0 ||
			    strcmp(s2, "dir") == 0))
				set_ro(a, "uv tool %s", s2);
			else
				pkg(a, "uv", sub, uv_i, NULL, NULL);
		} else
			pkg(a, "uv", sub, uv_i, pub_p, NULL);
	} else if (strcmp(name, "pacman") == 0 || strcmp(name, "yay") == 0 ||
	    strcmp(name, "paru") == 0) {
		if (has_opt(w, n, 'Q', NULL) || ((has_opt(w, n, 's', NULL) ||
		    has_opt(w, n, 'i', NULL)) && has_opt(w, n, 'S', NULL)))
			set_ro(a, "%s query", name);
		else if (has_opt(w, n, 'S', "sync") ||
		    has_opt(w, n, 'U', "upgrade")) {
			set_class(a, POL_CLASS_INSTALL_PACKAGE, "%s installs "
			    "packages", name);
			set_mut(a, "%s installs packages", name);
		} else
			set_mut(a, "%s", name);
	} else if (strcmp(name, "nix-env") == 0) {
		if (has_opt(w, n, 'i', "install")) {
			set_class(a, POL_CLASS_INSTALL_PACKAGE, "nix-env -i "
			    "installs packages");
			set_mut(a, "nix-env installs packages");
		} else
			set_mut(a, "nix-env");
	} else if (strcmp(name, "dotnet") == 0) {
		const char *s2 = sub != NULL ? first_operand(w + idx, n - idx,
		    NULL) : NULL;
		if (sub != NULL && s2 != NULL && ((strcmp(sub, "add") == 0 &&
		    n > idx + 2 && weq(&w[idx + 2], "package")) ||
		    (strcmp(sub, "tool") == 0 && strcmp(s2, "install") == 0))) {
			set_class(a, POL_CLASS_INSTALL_PACKAGE,
			    "dotnet installs packages");
			set_mut(a, "dotnet installs packages");
		} else if (sub != NULL && strcmp(sub, "nuget") == 0 &&
		    s2 != NULL && strcmp(s2, "push") == 0)
			set_ask(a, POL_F_REMOTE, "ask:publish", "dotnet nuget "
			    "push publishes a package");
		else
			set_mut(a, "dotnet %s", sub ? sub : "");
	} else if (strcmp(name, "mvn") == 0 || strcmp(name, "gradle") == 0 ||
	    strcmp(name, "gradlew") == 0) {
		if (sub != NULL && (strcmp(sub, "deploy") == 0 ||
		    starts(sub, "publish")))
			set_ask(a, POL_F_REMOTE, "ask:publish", "%s %s "
			    "publishes artifacts", name, sub);
		else
			set_mut(a, "%s %s", name, sub ? sub : "");
	} else
		return 0;
	return 1;
}

/* ---- git ---- */

static void
an_git(struct ctx *cx, struct an *a, const struct sh_word *w, size_t n)
{
	static const char *const gopt_arg[] = { "-C", "-c", "--git-dir",
	    "--work-tree", "--namespace", "--super-prefix", "--config-env",
	    "--list-cmds", NULL };
	static const char *const ro[] = { "status", "log", "diff", "show",
	    "blame", "annotate", "shortlog", "describe", "rev-parse",
	    "rev-list", "ls-files", "ls-tree", "cat-file", "grep",
	    "show-ref", "show-branch", "for-each-ref", "name-rev",
	    "merge-base", "count-objects", "fsck", "verify-commit",
	    "verify-tag", "verify-pack", "cherry", "range-diff",
	    "whatchanged", "diff-tree", "diff-files", "diff-index",
	    "check-ignore", "check-attr", "check-ref-format",
	    "check-mailmap", "var", "help", "version", "request-pull",
	    "get-tar-commit-id", "show-index", "merge-tree", "ls-remote",
	    "column", "patch-id", "hash-object", NULL };
	static const char *const commit[] = { "commit", "merge", "rebase",
	    "cherry-pick", "revert", "am", "pull", NULL };
	const struct sh_word *ops[4];
	const char	*t, *sub, *s2;
	size_t		 i = 1, k, nops;

	(void)cx;
	while (i < n) {
		t = w[i].text;
		if (!lit(&w[i])) {
			set_opaque(a, "git option from an expansion");
			return;
		}
		if (t[0] != '-')
			break;
		if (strcmp(t, "-c") == 0) {
			if (i + 1 < n) {
				if (!lit(&w[i + 1]))
					set_opaque(a, "git -c with an "
					    "expansion");
				else
					check_git_kv(a, w[i + 1].text, NULL,
					    "git -c");
			}
			i += 2;
			continue;
		}
		if (strcmp(t, "--config-env") == 0 ||
		    starts(t, "--config-env=")) {
			const char *kv = t[12] == '=' ? t + 13 :
			    (i + 1 < n ? w[i + 1].text : "");
			check_git_kv(a, kv, NULL, "git --config-env");
			i += t[12] == '=' ? 1 : 2;
			continue;
		}
		if (starts(t, "--exec-path=")) {
			CODEEXEC(a, "git --exec-path= runs git programs from "
			    "another directory");
			return;
		}
		if (in_list(t, gopt_arg)) {
			i += 2;
			continue;
		}
		if (strcmp(t, "--version") == 0 || strcmp(t, "-v") == 0 ||
		    strcmp(t, "--help") == 0 || strcmp(t, "-h") == 0 ||
		    strcmp(t, "--exec-path") == 0 ||
		    strcmp(t, "--html-path") == 0 ||
		    strcmp(t, "--man-path") == 0 ||
		    strcmp(t, "--info-path") == 0) {
			set_ro(a, "git %s", t);
			return;
		}
		i++;	/* --no-pager, -P, --bare, --git-dir=..., ... */
	}
	if (i >= n) {
		set_ro(a, "git without a subcommand prints help");
		return;
	}
	if (!lit(&w[i])) {
		set_opaque(a, "git subcommand is an expansion (%.40s)",
		    w[i].text);
		return;
	}
	sub = w[i].text;
	w += i;
	n -= i;
	nops = operands(w, n, ops, 4);
	s2 = nops > 0 && lit(ops[0]) ? ops[0]->text : NULL;
	if (strcmp(sub, "push") == 0 || strcmp(sub, "send-pack") == 0) {
		set_ask(a, POL_F_PUSH, "ask:git-push", "git %s changes a "
		    "remote repository", sub);
		return;
	}
	if (strcmp(sub, "send-email") == 0 || strcmp(sub, "imap-send") == 0) {
		set_ask(a, POL_F_REMOTE, "ask:remote-change", "git %s sends "
		    "mail", sub);
		return;
	}
	if (in_list(sub, commit)) {
		set_class(a, POL_CLASS_CREATE_COMMIT, "git %s creates "
		    "commits", sub);
		set_mut(a, "git %s creates commits", sub);
		if (strcmp(sub, "pull") == 0)
			set_class(a, POL_CLASS_NETWORK_ACCESS, "git pull "
			    "fetches from a remote");
		return;
	}
	if (strcmp(sub, "ls-remote") == 0) {
		set_class(a, POL_CLASS_NETWORK_ACCESS, "git ls-remote contacts "
		    "a remote");
		set_ro(a, "git ls-remote");
		return;
	}
	if (strcmp(sub, "archive") == 0) {
		if (has_opt(w, n, 'o', "output"))
			set_mut(a, "git archive --output writes a file");
		else
			set_ro(a, "git archive to stdout");
		if (has_opt(w, n, 0, "remote"))
			set_class(a, POL_CLASS_NETWORK_ACCESS, "git archive "
			    "--remote contacts a remote");
		return;
	}
	if (in_list(sub, ro)) {
		if (has_opt(w, n, 0, "output"))
			set_mut(a, "git %s --output writes a file", sub);
		else if (strcmp(sub, "grep") == 0 && (has_opt(w, n, 'O',
		    "open-files-in-pager") || has_opt(w, n, 0,
		    "open-files-in-pager")))
			set_opaque(a, "git grep -O runs a pager command");
		else if (strcmp(sub, "hash-object") == 0 &&
		    has_opt(w, n, 'w', NULL))
			set_mut(a, "git hash-object -w writes objects");
		else if (strcmp(sub, "fsck") == 0 &&
		    has_opt(w, n, 0, "lost-found"))
			set_mut(a, "git fsck --lost-found writes files");
		else if (strcmp(sub, "help") == 0 && (has_opt(w, n, 'w',
		    "web") || has_opt(w, n, 0, "browser")))
			set_opaque(a, "git help --web runs a browser");
		else
			set_ro(a, "git %s", sub);
		return;
	}
	if (strcmp(sub, "fetch") == 0 || strcmp(sub, "clone") == 0) {
		set_class(a, POL_CLASS_NETWORK_ACCESS, "git %s contacts a "
		    "remote", sub);
		set_mut(a, "git %s writes the repository", sub);
		return;
	}
	if (strcmp(sub, "config") == 0) {
		int	write = 0, read = 0;
		const struct sh_word *pos[3];
		size_t	np = 0;

		for (k = 1; k < n; k++) {
			t = w[k].text;
			if (!lit(&w[k])) {
				set_opaque(a, "git config with an expansion");
				return;
			}
			if (t[0] != '-') {
				if (np < 3)
					pos[np] = &w[k];
				np++;
				continue;
			}
			if (strcmp(t, "--get") == 0 ||
			    strcmp(t, "--get-all") == 0 ||
			    strcmp(t, "--get-regexp") == 0 ||
			    strcmp(t, "--list") == 0 || strcmp(t, "-l") == 0 ||
			    strcmp(t, "--get-urlmatch") == 0 ||
			    strcmp(t, "--get-color") == 0 ||
			    strcmp(t, "--get-colorbool") == 0)
				read = 1;
			else if (strcmp(t, "--file") == 0 ||
			    strcmp(t, "-f") == 0 || strcmp(t, "--blob") == 0 ||
			    strcmp(t, "--type") == 0 ||
			    strcmp(t, "--default") == 0 ||
			    strcmp(t, "--comment") == 0 ||
			    strcmp(t, "--value") == 0)
				k++;
			else if (strcmp(t, "--global") != 0 &&
			    strcmp(t, "--system") != 0 &&
			    strcmp(t, "--local") != 0 &&
			    strcmp(t, "--worktree") != 0 &&
			    strcmp(t, "--includes") != 0 &&
			    strcmp(t, "--no-includes") != 0 &&
			    strcmp(t, "--show-origin") != 0 &&
			    strcmp(t, "--show-scope") != 0 &&
			    strcmp(t, "--name-only") != 0 &&
			    strcmp(t, "-z") != 0 && strcmp(t, "--null") != 0 &&
			    strcmp(t, "--bool") != 0 &&
			    strcmp(t, "--int") != 0 &&
			    strcmp(t, "--path") != 0 &&
			    strcmp(t, "--bool-or-int") != 0 &&
			    strcmp(t, "--expiry-date") != 0 &&
			    !starts(t, "--type=") && !starts(t, "--file=") &&
			    !starts(t, "--default="))
				write = 1;	/* --add, --unset, -e, ... */
		}
		if (np > 0 && (strcmp(pos[0]->text, "get") == 0 ||
		    strcmp(pos[0]->text, "list") == 0) && !write) {
			set_ro(a, "git config %s", pos[0]->text);
			return;
		}
		if (np > 0 && (strcmp(pos[0]->text, "set") == 0)) {
			if (np >= 3) {
				/* set KEY VALUE: check with the value. */
				char *kv;
				xasprintf(&kv, "%s=%s", pos[1]->text,
				    pos[2]->text);
				check_git_kv(a, kv, NULL, "git config set");
				free(kv);
			} else if (np == 2)
				check_git_kv(a, pos[1]->text, NULL,
				    "git config set");
			set_mut(a, "git config set writes configuration");
			return;
		}
		if (np >= 2 && !read) {
			/* key value: check with the value. */
			char *kv;
			xasprintf(&kv, "%s=%s", pos[0]->text, np >= 2 ?
			    pos[1]->text : "");
			check_git_kv(a, kv, NULL, "git config");
			free(kv);
			set_mut(a, "git config writes configuration");
			return;
		}
		if (write) {
			if (np >= 1)
				check_git_kv(a, pos[0]->text, NULL,
				    "git config");
			set_mut(a, "git config writes configuration");
			return;
		}
		set_ro(a, "git config reads configuration");
		return;
	}
	if (strcmp(sub, "branch") == 0) {
		if (has_opt(w, n, 'l', "list") || (nops == 0 &&
		    !has_opt(w, n, 'd', "delete") && !has_opt(w, n, 'D', NULL)
		    && !has_opt(w, n, 'm', "move") && !has_opt(w, n, 'M', NULL)
		    && !has_opt(w, n, 'c', "copy") && !has_opt(w, n, 'C', NULL)
		    && !has_opt(w, n, 'u', "set-upstream-to") &&
		    !has_opt(w, n, 0, "unset-upstream") &&
		    !has_opt(w, n, 0, "edit-description") &&
		    !has_opt(w, n, 'f', "force")))
			set_ro(a, "git branch lists branches");
		else
			set_mut(a, "git branch changes branches");
		return;
	}
	if (strcmp(sub, "tag") == 0) {
		if (has_opt(w, n, 'l', "list") || has_opt(w, n, 'v', "verify")
		    || (nops == 0 && !has_opt(w, n, 'd', "delete")))
			set_ro(a, "git tag lists tags");
		else
			set_mut(a, "git tag changes tags");
		return;
	}
	if (strcmp(sub, "remote") == 0) {
		if (s2 == NULL || strcmp(s2, "show") == 0 ||
		    strcmp(s2, "get-url") == 0)
			set_ro(a, "git remote %s", s2 ? s2 : "");
		else if (strcmp(s2, "update") == 0) {
			set_class(a, POL_CLASS_NETWORK_ACCESS, "git remote "
			    "update fetches");
			set_mut(a, "git remote update");
		} else
			set_mut(a, "git remote %s changes remotes", s2);
		return;
	}
	if (strcmp(sub, "stash") == 0 || strcmp(sub, "worktree") == 0 ||
	    strcmp(sub, "notes") == 0 || strcmp(sub, "reflog") == 0 ||
	    strcmp(sub, "sparse-checkout") == 0) {
		if ((s2 != NULL && (strcmp(s2, "list") == 0 ||
		    strcmp(s2, "show") == 0 || strcmp(s2, "exists") == 0)) ||
		    (s2 == NULL && strcmp(sub, "reflog") == 0) ||
		    (s2 == NULL && strcmp(sub, "notes") == 0) ||
		    (s2 == NULL && strcmp(sub, "worktree") == 0 && n == 1))
			set_ro(a, "git %s %s", sub, s2 ? s2 : "");
		else
			set_mut(a, "git %s %s", sub, s2 ? s2 : "");
		return;
	}
	if (strcmp(sub, "submodule") == 0) {
		if (s2 == NULL || strcmp(s2, "status") == 0 ||
		    strcmp(s2, "summary") == 0)
			set_ro(a, "git submodule status");
		else if (strcmp(s2, "foreach") == 0)
			set_opaque(a, "git submodule foreach runs a script");
		else {
			set_class(a, POL_CLASS_NETWORK_ACCESS, "git submodule "
			    "%s may fetch", s2);
			set_mut(a, "git submodule %s", s2);
		}
		return;
	}
	if (strcmp(sub, "bisect") == 0) {
		if (s2 != NULL && (strcmp(s2, "log") == 0 ||
		    strcmp(s2, "visualize") == 0 || strcmp(s2, "view") == 0))
			set_ro(a, "git bisect %s", s2);
		else if (s2 != NULL && strcmp(s2, "run") == 0)
			set_opaque(a, "git bisect run runs a command");
		else
			set_mut(a, "git bisect");
		return;
	}
	if (strcmp(sub, "symbolic-ref") == 0) {
		if (nops <= 1 && !has_opt(w, n, 'd', "delete"))
			set_ro(a, "git symbolic-ref");
		else
			set_mut(a, "git symbolic-ref");
		return;
	}
	if (strcmp(sub, "filter-branch") == 0 ||
	    strcmp(sub, "difftool") == 0 || strcmp(sub, "mergetool") == 0) {
		set_opaque(a, "git %s runs commands", sub);
		return;
	}
	set_mut(a, "git %s", sub);
}

/* ---- gh ---- */

static void
an_gh(struct an *a, const struct sh_word *w, size_t n)
{
	static const char *const pr_merge[] = { "merge", "review", "comment",
	    "close", "reopen", "edit", "ready", "lock", "unlock", NULL };
	static const char *const issue_w[] = { "create", "edit", "comment",
	    "close", "reopen", "delete", "transfer", "lock", "unlock", "pin",
	    "unpin", "develop", NULL };
	static const char *const ro2[] = { "view", "list", "diff", "checks",
	    "status", "ls", "download", "watch", NULL };
	static const char *const remote_top[] = { "release", "repo",
	    "workflow", "run", "secret", "variable", "label", "gist",
	    "cache", "project", "ruleset", "org", "codespace", NULL };
	const char	*sub = NULL, *s2 = NULL, *t, *method = NULL;
	size_t		 i;
	int		 fields = 0;

	for (i = 1; i < n; i++) {
		t = w[i].text;
		if (!lit(&w[i])) {
			if (sub == NULL || s2 == NULL) {
				set_opaque(a, "gh subcommand is an expansion");
				return;
			}
			continue;
		}
		if (strcmp(t, "-R") == 0 || strcmp(t, "--repo") == 0 ||
		    strcmp(t, "--hostname") == 0) {
			i++;
			continue;
		}
		if (strcmp(t, "-X") == 0 || strcmp(t, "--method") == 0) {
			if (i + 1 < n)
				method = w[i + 1].text;
			i++;
			continue;
		}
		if (starts(t, "--method=")) {
			method = t + 9;
			continue;
		}
		if (starts(t, "-X") && t[2] != '\0') {
			method = t + 2;
			continue;
		}
		if (strcmp(t, "-f") == 0 || strcmp(t, "-F") == 0 ||
		    strcmp(t, "--field") == 0 ||
		    strcmp(t, "--raw-field") == 0 ||
		    strcmp(t, "--input") == 0) {
			fields = 1;
			i++;
			continue;
		}
		if (t[0] == '-')
			continue;
		if (sub == NULL)
			sub = t;
		else if (s2 == NULL)
			s2 = t;
	}
	if (sub == NULL || strcmp(sub, "version") == 0 ||
	    strcmp(sub, "help") == 0 || strcmp(sub, "status") == 0 ||
	    strcmp(sub, "search") == 0 || strcmp(sub, "browse") == 0 ||
	    strcmp(sub, "completion") == 0) {
		set_ro(a, "gh %s", sub ? sub : "");
		return;
	}
	if (strcmp(sub, "pr") == 0 && s2 != NULL) {
		if (strcmp(s2, "create") == 0 || strcmp(s2, "new") == 0)
			set_class(a, POL_CLASS_OPEN_PULL_REQUEST, "gh pr %s "
			    "opens a pull request", s2);
		else if (in_list(s2, pr_merge))
			set_class(a, POL_CLASS_PUBLISH_REVIEW_OR_MERGE, "gh pr "
			    "%s publishes a review or merges", s2);
		else if (in_list(s2, ro2)) {
			set_ro(a, "gh pr %s", s2);
			return;
		} else {
			set_mut(a, "gh pr %s", s2);
			return;
		}
		a->flags |= POL_F_MUTATING;
		return;
	}
	if (strcmp(sub, "issue") == 0 && s2 != NULL) {
		if (in_list(s2, issue_w)) {
			set_class(a, POL_CLASS_WRITE_EXTERNAL_TRACKER,
			    "gh issue %s writes to the issue tracker", s2);
			a->flags |= POL_F_MUTATING;
		} else
			set_ro(a, "gh issue %s", s2);
		return;
	}
	if (strcmp(sub, "api") == 0) {
		if (method == NULL)
			method = fields ? "POST" : "GET";
		if (strcasecmp(method, "GET") == 0 ||
		    strcasecmp(method, "HEAD") == 0) {
			set_ro(a, "gh api %s", method);
			return;
		}
		set_class(a, POL_CLASS_PUBLISH_REVIEW_OR_MERGE, "gh api %s "
		    "changes remote state", method);
		set_class(a, POL_CLASS_WRITE_EXTERNAL_TRACKER, "gh api %s "
		    "changes remote state", method);
		set_ask(a, POL_F_REMOTE, "ask:remote-change", "gh api %.10s "
		    "changes remote state", method);
		return;
	}
	if (strcmp(sub, "extension") == 0 || strcmp(sub, "ext") == 0) {
		if (s2 != NULL && (strcmp(s2, "install") == 0 ||
		    strcmp(s2, "upgrade") == 0)) {
			set_class(a, POL_CLASS_INSTALL_PACKAGE, "gh extension "
			    "%s installs code", s2);
			set_mut(a, "gh extension %s", s2);
		} else if (s2 != NULL && strcmp(s2, "list") == 0)
			set_ro(a, "gh extension list");
		else
			set_mut(a, "gh extension");
		return;
	}
	if (strcmp(sub, "repo") == 0 && s2 != NULL &&
	    strcmp(s2, "clone") == 0) {
		set_class(a, POL_CLASS_NETWORK_ACCESS, "gh repo clone");
		set_mut(a, "gh repo clone writes files");
		return;
	}
	if (in_list(sub, remote_top)) {
		if (s2 == NULL || in_list(s2, ro2)) {
			if (s2 != NULL && strcmp(s2, "download") == 0)
				set_mut(a, "gh %s download writes files", sub);
			else
				set_ro(a, "gh %s %s", sub, s2 ? s2 : "");
			return;
		}
		if (strcmp(sub, "release") == 0)
			set_ask(a, POL_F_REMOTE, "ask:publish", "gh release %s "
			    "publishes a release", s2);
		else
			set_ask(a, POL_F_REMOTE, "ask:remote-change", "gh %s "
			    "%s changes remote state", sub, s2);
		return;
	}
	if (strcmp(sub, "auth") == 0 && s2 != NULL &&
	    strcmp(s2, "status") == 0) {
		set_ro(a, "gh auth status");
		return;
	}
	set_mut(a, "gh %s %s", sub, s2 ? s2 : "");
}

/* ---- containers ---- */

static void
an_container(struct an *a, const struct sh_word *w, size_t n,
    const char *name)
{
	static const char *const hostns[] = { "--pid=host", "--net=host",
	    "--network=host", "--ipc=host", "--uts=host", "--userns=host",
	    "--cgroupns=host", NULL };
	const char	*sub = first_operand(w, n, NULL), *t, *v;
	size_t		 i;

	if (sub == NULL) {
		set_mut(a, "%s", name);
		return;
	}
	if (strcmp(sub, "push") == 0) {
		set_ask(a, POL_F_REMOTE, "ask:publish", "%s push publishes an "
		    "image", name);
		return;
	}
	if (strcmp(sub, "ps") == 0 || strcmp(sub, "images") == 0 ||
	    strcmp(sub, "inspect") == 0 || strcmp(sub, "logs") == 0 ||
	    strcmp(sub, "version") == 0 || strcmp(sub, "info") == 0) {
		set_ro(a, "%s %s", name, sub);
		return;
	}
	for (i = 1; i < n; i++) {
		if (!lit(&w[i]))
			continue;
		t = w[i].text;
		v = i + 1 < n ? w[i + 1].text : "";
		if (strcmp(t, "--privileged") == 0 || in_list(t, hostns) ||
		    ((strcmp(t, "--pid") == 0 || strcmp(t, "--net") == 0 ||
		    strcmp(t, "--network") == 0 || strcmp(t, "--ipc") == 0 ||
		    strcmp(t, "--userns") == 0) && strcmp(v, "host") == 0) ||
		    starts(t, "--cap-add") || starts(t, "--device") ||
		    (starts(t, "--security-opt") && (strstr(t, "unconfined") ||
		    strstr(v, "unconfined")))) {
			ESCAPE(a, "%s %s %.40s shares the host", name, sub, t);
			return;
		}
		if (strcmp(t, "-v") == 0 || strcmp(t, "--volume") == 0 ||
		    strcmp(t, "--mount") == 0)
			t = v;
		else if (starts(t, "--volume=") || starts(t, "--mount="))
			t = strchr(t, '=') + 1;
		else
			continue;
		if (starts(t, "/:") || strcmp(t, "/") == 0 ||
		    strstr(t, "docker.sock") != NULL ||
		    strstr(t, "source=/,") != NULL ||
		    strstr(t, "src=/,") != NULL ||
		    (strstr(t, "source=/") != NULL &&
		    strchr(strstr(t, "source=/") + 8, ',') == NULL &&
		    strstr(t, "source=/")[8] == '\0')) {
			ESCAPE(a, "%s mounts the host root or its socket",
			    name);
			return;
		}
	}
	set_mut(a, "%s %s", name, sub);
}

/* ---- the dispatcher ---- */

/*
 * What a command name is, found by binary search in one sorted table:
 * the order of the checks in analyze() used to be a long chain of
 * strcmp(), which dominated the cost of a check.  A name is listed once,
 * under the first of these kinds that handles it.
 */
enum kind {
	K_UNKNOWN = 0,
	K_PRIV,		/* privilege escalation: hard deny */
	K_DESTROY,	/* file systems, power: hard deny */
	K_ESCAPE,	/* namespaces, mounts, kernel: hard deny */
	K_INIT,
	K_SYSTEMCTL,
	K_IP,
	K_WRAP,		/* runs the command in its arguments */
	K_SHELL,
	K_EVAL,
	K_TRAP,
	K_SOURCE,
	K_PY,
	K_NODE,
	K_DENO,
	K_PERL,
	K_RUBYLIKE,	/* interpreters with -e code */
	K_PHP,
	K_OPAQUE,	/* run commands we do not parse */
	K_GIT,
	K_GH,
	K_CONTAINER,
	K_PKG,		/* package managers */
	K_FILE,		/* file tools with argument checks */
	K_NET,
	K_FIND,
	K_EXPORT,
	K_RO,		/* read-only */
	K_MUT,		/* changes files or processes */
};

struct kname {
	const char	*name;
	enum kind	 kind;
};

/* Sorted by strcmp(); tests/unit/test_classify.c checks the order. */
static const struct kname knames[] = {
	{ ".", K_SOURCE },
	{ "7z", K_MUT },
	{ ":", K_RO },
	{ "Rscript", K_RUBYLIKE },
	{ "[", K_RO },
	{ "[[", K_RO },
	{ "]]", K_RO },
	{ "ack", K_RO },
	{ "ag", K_RO },
	{ "alias", K_RO },
	{ "apk", K_PKG },
	{ "apropos", K_RO },
	{ "apt", K_PKG },
	{ "apt-cache", K_PKG },
	{ "apt-get", K_PKG },
	{ "aptitude", K_PKG },
	{ "arch", K_RO },
	{ "aria2c", K_NET },
	{ "ash", K_SHELL },
	{ "at", K_OPAQUE },
	{ "awk", K_FILE },
	{ "axel", K_NET },
	{ "b2sum", K_RO },
	{ "badblocks", K_DESTROY },
	{ "base32", K_RO },
	{ "base64", K_RO },
	{ "basename", K_RO },
	{ "bash", K_SHELL },
	{ "batch", K_OPAQUE },
	{ "bc", K_RO },
	{ "blkdiscard", K_DESTROY },
	{ "break", K_RO },
	{ "brew", K_PKG },
	{ "bsdtar", K_FILE },
	{ "builtin", K_WRAP },
	{ "bun", K_PKG },
	{ "bundle", K_PKG },
	{ "bundler", K_PKG },
	{ "bunx", K_PKG },
	{ "bunzip2", K_MUT },
	{ "busybox", K_WRAP },
	{ "busybox-chroot", K_ESCAPE },
	{ "bzcat", K_RO },
	{ "bzip2", K_MUT },
	{ "caffeinate", K_WRAP },
	{ "cal", K_RO },
	{ "calife", K_PRIV },
	{ "capsh", K_ESCAPE },
	{ "cargo", K_PKG },
	{ "cat", K_FILE },
	{ "cd", K_RO },
	{ "cfdisk", K_DESTROY },
	{ "chattr", K_MUT },
	{ "chgrp", K_FILE },
	{ "chmod", K_FILE },
	{ "chown", K_FILE },
	{ "chpasswd", K_PRIV },
	{ "chronic", K_WRAP },
	{ "chroot", K_ESCAPE },
	{ "chrt", K_WRAP },
	{ "cksum", K_RO },
	{ "clear", K_RO },
	{ "cmake", K_MUT },
	{ "cmp", K_RO },
	{ "column", K_RO },
	{ "comm", K_RO },
	{ "command", K_WRAP },
	{ "compgen", K_RO },
	{ "complete", K_RO },
	{ "composer", K_PKG },
	{ "conda", K_PKG },
	{ "continue", K_RO },
	{ "cp", K_FILE },
	{ "crontab", K_MUT },
	{ "crun", K_ESCAPE },
	{ "cryptsetup", K_DESTROY },
	{ "csplit", K_MUT },
	{ "ctr", K_ESCAPE },
	{ "curl", K_FILE },
	{ "cut", K_RO },
	{ "dash", K_SHELL },
	{ "date", K_RO },
	{ "dbus-run-session", K_WRAP },
	{ "dc", K_RO },
	{ "dd", K_FILE },
	{ "debugfs", K_DESTROY },
	{ "declare", K_EXPORT },
	{ "deno", K_DENO },
	{ "df", K_RO },
	{ "diff", K_RO },
	{ "diff3", K_RO },
	{ "dig", K_NET },
	{ "dir", K_RO },
	{ "dirname", K_RO },
	{ "dirs", K_RO },
	{ "dnf", K_PKG },
	{ "doas", K_PRIV },
	{ "docker", K_CONTAINER },
	{ "dos2unix", K_MUT },
	{ "dos2unix-check", K_RO },
	{ "dotnet", K_PKG },
	{ "du", K_RO },
	{ "e2fsck", K_DESTROY },
	{ "echo", K_RO },
	{ "egrep", K_RO },
	{ "elixir", K_RUBYLIKE },
	{ "elvish", K_SHELL },
	{ "env", K_WRAP },
	{ "eval", K_EVAL },
	{ "exec", K_WRAP },
	{ "exit", K_RO },
	{ "expand", K_RO },
	{ "expect", K_OPAQUE },
	{ "export", K_EXPORT },
	{ "expr", K_RO },
	{ "factor", K_RO },
	{ "fallocate", K_MUT },
	{ "false", K_RO },
	{ "fc", K_OPAQUE },
	{ "fdisk", K_DESTROY },
	{ "fgrep", K_RO },
	{ "file", K_RO },
	{ "find", K_FIND },
	{ "fish", K_SHELL },
	{ "flatpak", K_PKG },
	{ "flit", K_PKG },
	{ "flock", K_WRAP },
	{ "fmt", K_RO },
	{ "fold", K_RO },
	{ "free", K_RO },
	{ "fsck", K_DESTROY },
	{ "ftp", K_NET },
	{ "gawk", K_FILE },
	{ "gdisk", K_DESTROY },
	{ "gem", K_PKG },
	{ "getconf", K_RO },
	{ "getopts", K_RO },
	{ "gh", K_GH },
	{ "git", K_GIT },
	{ "git-lfs", K_RO },
	{ "go", K_PKG },
	{ "gradle", K_PKG },
	{ "gradlew", K_PKG },
	{ "grep", K_RO },
	{ "groovy", K_RUBYLIKE },
	{ "groups", K_RO },
	{ "grpcurl", K_NET },
	{ "gsed", K_FILE },
	{ "gtimeout", K_WRAP },
	{ "gunzip", K_MUT },
	{ "gzip", K_MUT },
	{ "halt", K_DESTROY },
	{ "hash", K_RO },
	{ "hatch", K_PKG },
	{ "hdparm", K_DESTROY },
	{ "head", K_RO },
	{ "help", K_RO },
	{ "hexdump", K_RO },
	{ "history", K_RO },
	{ "host", K_NET },
	{ "hostname", K_RO },
	{ "http", K_NET },
	{ "https", K_NET },
	{ "iconv", K_RO },
	{ "id", K_RO },
	{ "info", K_RO },
	{ "init", K_INIT },
	{ "insmod", K_ESCAPE },
	{ "install", K_FILE },
	{ "ionice", K_WRAP },
	{ "ip", K_IP },
	{ "jobs", K_RO },
	{ "join", K_RO },
	{ "jq", K_RO },
	{ "julia", K_RUBYLIKE },
	{ "kexec", K_ESCAPE },
	{ "kill", K_FILE },
	{ "killall", K_MUT },
	{ "killall5", K_DESTROY },
	{ "ksh", K_SHELL },
	{ "ksu", K_PRIV },
	{ "kubectl-exec", K_ESCAPE },
	{ "last", K_RO },
	{ "ldd", K_RO },
	{ "less", K_RO },
	{ "let", K_RO },
	{ "lftp", K_NET },
	{ "link", K_MUT },
	{ "lksh", K_SHELL },
	{ "ll", K_RO },
	{ "ln", K_FILE },
	{ "local", K_EXPORT },
	{ "locale", K_RO },
	{ "logname", K_RO },
	{ "look", K_RO },
	{ "losetup", K_ESCAPE },
	{ "ls", K_RO },
	{ "lsblk", K_RO },
	{ "lscpu", K_RO },
	{ "lsof", K_RO },
	{ "ltrace", K_WRAP },
	{ "lua", K_RUBYLIKE },
	{ "luajit", K_RUBYLIKE },
	{ "lvremove", K_DESTROY },
	{ "lxc-attach", K_ESCAPE },
	{ "lxc-execute", K_ESCAPE },
	{ "machinectl", K_ESCAPE },
	{ "make", K_MUT },
	{ "mamba", K_PKG },
	{ "man", K_RO },
	{ "mawk", K_FILE },
	{ "md5", K_RO },
	{ "md5sum", K_RO },
	{ "mdadm", K_DESTROY },
	{ "microdnf", K_PKG },
	{ "micromamba", K_PKG },
	{ "mkdir", K_MUT },
	{ "mke2fs", K_DESTROY },
	{ "mkfifo", K_MUT },
	{ "mkfs", K_DESTROY },
	{ "mknod", K_ESCAPE },
	{ "mksh", K_SHELL },
	{ "mkswap", K_DESTROY },
	{ "mktemp", K_MUT },
	{ "modprobe", K_ESCAPE },
	{ "more", K_RO },
	{ "most", K_RO },
	{ "mount", K_ESCAPE },
	{ "mtr", K_NET },
	{ "mv", K_FILE },
	{ "mvn", K_PKG },
	{ "nawk", K_FILE },
	{ "nc", K_NET },
	{ "ncat", K_NET },
	{ "nerdctl", K_CONTAINER },
	{ "netcat", K_NET },
	{ "newgidmap", K_ESCAPE },
	{ "newgrp", K_PRIV },
	{ "newuidmap", K_ESCAPE },
	{ "nice", K_WRAP },
	{ "ninja", K_MUT },
	{ "nix-env", K_PKG },
	{ "nl", K_RO },
	{ "nm", K_RO },
	{ "nmap", K_NET },
	{ "node", K_NODE },
	{ "nodejs", K_NODE },
	{ "nohup", K_WRAP },
	{ "npm", K_PKG },
	{ "nproc", K_RO },
	{ "npx", K_PKG },
	{ "nsenter", K_ESCAPE },
	{ "nslookup", K_NET },
	{ "nu", K_SHELL },
	{ "numactl", K_WRAP },
	{ "numfmt", K_RO },
	{ "objdump", K_RO },
	{ "od", K_RO },
	{ "openssl", K_NET },
	{ "osascript", K_RUBYLIKE },
	{ "ovsx", K_PKG },
	{ "pacman", K_PKG },
	{ "parallel", K_OPAQUE },
	{ "parted", K_DESTROY },
	{ "paru", K_PKG },
	{ "passwd", K_PRIV },
	{ "paste", K_RO },
	{ "patch", K_MUT },
	{ "pdksh", K_SHELL },
	{ "pdm", K_PKG },
	{ "perl", K_PERL },
	{ "pgrep", K_RO },
	{ "php", K_PHP },
	{ "ping", K_NET },
	{ "ping6", K_NET },
	{ "pinky", K_RO },
	{ "pip", K_PKG },
	{ "pip3", K_PKG },
	{ "pipenv", K_PKG },
	{ "pipx", K_PKG },
	{ "pivot_root", K_ESCAPE },
	{ "pkexec", K_PRIV },
	{ "pkill", K_MUT },
	{ "pnpm", K_PKG },
	{ "pnpx", K_PKG },
	{ "podman", K_CONTAINER },
	{ "poetry", K_PKG },
	{ "popd", K_RO },
	{ "port", K_PKG },
	{ "posh", K_SHELL },
	{ "poweroff", K_DESTROY },
	{ "printenv", K_RO },
	{ "printf", K_RO },
	{ "proxychains", K_WRAP },
	{ "proxychains4", K_WRAP },
	{ "ps", K_RO },
	{ "pushd", K_RO },
	{ "pvremove", K_DESTROY },
	{ "pwd", K_RO },
	{ "pwsh", K_SHELL },
	{ "rbash", K_SHELL },
	{ "read", K_RO },
	{ "readelf", K_RO },
	{ "readlink", K_RO },
	{ "readonly", K_EXPORT },
	{ "realpath", K_RO },
	{ "reboot", K_DESTROY },
	{ "resize2fs", K_DESTROY },
	{ "return", K_RO },
	{ "rev", K_RO },
	{ "rg", K_RO },
	{ "rm", K_FILE },
	{ "rmdir", K_FILE },
	{ "rmmod", K_ESCAPE },
	{ "rsync", K_NET },
	{ "ruby", K_RUBYLIKE },
	{ "run0", K_PRIV },
	{ "runc", K_ESCAPE },
	{ "rustup", K_PKG },
	{ "scp", K_NET },
	{ "script", K_OPAQUE },
	{ "sdiff", K_RO },
	{ "sed", K_FILE },
	{ "seq", K_RO },
	{ "service", K_MUT },
	{ "set", K_RO },
	{ "setarch", K_WRAP },
	{ "setcap", K_PRIV },
	{ "setfacl", K_MUT },
	{ "setns", K_ESCAPE },
	{ "setpriv", K_PRIV },
	{ "setsid", K_WRAP },
	{ "sfdisk", K_DESTROY },
	{ "sftp", K_NET },
	{ "sg", K_PRIV },
	{ "sgdisk", K_DESTROY },
	{ "sh", K_SHELL },
	{ "sha1", K_RO },
	{ "sha1sum", K_RO },
	{ "sha224sum", K_RO },
	{ "sha256sum", K_RO },
	{ "sha384sum", K_RO },
	{ "sha512sum", K_RO },
	{ "shasum", K_RO },
	{ "shift", K_RO },
	{ "shopt", K_RO },
	{ "shred", K_FILE },
	{ "shuf", K_RO },
	{ "shutdown", K_DESTROY },
	{ "size", K_RO },
	{ "sleep", K_RO },
	{ "snap", K_PKG },
	{ "socat", K_NET },
	{ "sort", K_FILE },
	{ "source", K_SOURCE },
	{ "split", K_MUT },
	{ "srm", K_FILE },
	{ "ssh", K_NET },
	{ "ssh-keygen", K_MUT },
	{ "ssh-keyscan", K_NET },
	{ "stat", K_RO },
	{ "stdbuf", K_WRAP },
	{ "strace", K_WRAP },
	{ "strings", K_RO },
	{ "su", K_PRIV },
	{ "sudo", K_PRIV },
	{ "sudoedit", K_PRIV },
	{ "sum", K_RO },
	{ "switch_root", K_ESCAPE },
	{ "sysctl", K_ESCAPE },
	{ "systemctl", K_SYSTEMCTL },
	{ "systemd-nspawn", K_ESCAPE },
	{ "systemd-run", K_ESCAPE },
	{ "tac", K_RO },
	{ "tail", K_RO },
	{ "tar", K_FILE },
	{ "taskset", K_WRAP },
	{ "tclsh", K_RUBYLIKE },
	{ "tee", K_FILE },
	{ "telinit", K_DESTROY },
	{ "telnet", K_NET },
	{ "test", K_RO },
	{ "time", K_WRAP },
	{ "timeout", K_WRAP },
	{ "times", K_RO },
	{ "torsocks", K_WRAP },
	{ "touch", K_MUT },
	{ "toybox", K_WRAP },
	{ "tput", K_RO },
	{ "tr", K_RO },
	{ "tracepath", K_NET },
	{ "traceroute", K_NET },
	{ "trap", K_TRAP },
	{ "tree", K_RO },
	{ "true", K_RO },
	{ "truncate", K_FILE },
	{ "tsort", K_RO },
	{ "tty", K_RO },
	{ "tune2fs", K_DESTROY },
	{ "twine", K_PKG },
	{ "type", K_RO },
	{ "typeset", K_EXPORT },
	{ "umask", K_RO },
	{ "umount", K_ESCAPE },
	{ "unalias", K_RO },
	{ "uname", K_RO },
	{ "unbuffer", K_WRAP },
	{ "unexpand", K_RO },
	{ "uniq", K_FILE },
	{ "unix2dos", K_MUT },
	{ "unlink", K_MUT },
	{ "unset", K_RO },
	{ "unshare", K_ESCAPE },
	{ "unxz", K_MUT },
	{ "unzip", K_FILE },
	{ "uptime", K_RO },
	{ "useradd", K_PRIV },
	{ "usermod", K_PRIV },
	{ "users", K_RO },
	{ "uv", K_PKG },
	{ "uvx", K_PKG },
	{ "valgrind", K_WRAP },
	{ "vdir", K_RO },
	{ "vgremove", K_DESTROY },
	{ "visudo", K_PRIV },
	{ "vsce", K_PKG },
	{ "w", K_RO },
	{ "wait", K_RO },
	{ "watch", K_WRAP },
	{ "watchman", K_RO },
	{ "wc", K_RO },
	{ "websocat", K_NET },
	{ "wget", K_FILE },
	{ "whatis", K_RO },
	{ "whereis", K_RO },
	{ "which", K_RO },
	{ "who", K_RO },
	{ "whoami", K_RO },
	{ "whois", K_NET },
	{ "wipe", K_FILE },
	{ "wipefs", K_DESTROY },
	{ "wscat", K_NET },
	{ "xargs", K_WRAP },
	{ "xh", K_NET },
	{ "xonsh", K_SHELL },
	{ "xvfb-run", K_WRAP },
	{ "xxd", K_RO },
	{ "xz", K_MUT },
	{ "xzcat", K_RO },
	{ "yarn", K_PKG },
	{ "yash", K_SHELL },
	{ "yay", K_PKG },
	{ "yes", K_RO },
	{ "yq", K_RO },
	{ "yum", K_PKG },
	{ "zcat", K_RO },
	{ "zgrep", K_RO },
	{ "zip", K_MUT },
	{ "zipinfo", K_RO },
	{ "zless", K_RO },
	{ "zpool", K_DESTROY },
	{ "zsh", K_SHELL },
	{ "zstd", K_MUT },
	{ "zstdcat", K_RO },
	{ "zypper", K_PKG },
};

static int
kname_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct kname *)elem)->name);
}

static enum kind
kind_of(const char *name)
{
	const struct kname *k;

	k = bsearch(name, knames, sizeof(knames) / sizeof(knames[0]),
	    sizeof(knames[0]), kname_cmp);
	if (k != NULL)
		return k->kind;
	if (starts(name, "python") || starts(name, "pypy"))
		return K_PY;
	if (starts(name, "perl5"))
		return K_PERL;
	if (starts(name, "lua5"))
		return K_RUBYLIKE;
	if (starts(name, "pip") && name[3] >= '0' && name[3] <= '9')
		return K_PKG;
	if (starts(name, "mkfs") || starts(name, "fsck."))
		return K_DESTROY;
	return K_UNKNOWN;
}

int
pol_kind_table_ok(void)
{
	size_t	i;

	for (i = 1; i < sizeof(knames) / sizeof(knames[0]); i++)
		if (strcmp(knames[i - 1].name, knames[i].name) >= 0)
			return 0;
	return 1;
}

/* The words an unknown program would need to print its version or help. */
static int
version_only(const struct sh_word *w, size_t n)
{
	static const char *const v[] = { "--version", "-V", "-v", "version",
	    "--help", "-h", "-version", "help", NULL };

	return n == 2 && lit(&w[1]) && in_list(w[1].text, v);
}

static void
an_rm_like(struct an *a, const struct sh_word *w, size_t n, const char *name)
{
	const struct sh_word *ops[64];
	size_t	nops, i;
	int	rec;

	rec = has_opt(w, n, 'r', "recursive") || has_opt(w, n, 'R', NULL) ||
	    has_unq_expand(w, n);
	if (has_opt(w, n, 0, "no-preserve-root")) {
		DESTROY(a, "%s --no-preserve-root", name);
		return;
	}
	nops = operands(w, n, ops, 64);
	for (i = 0; i < nops; i++)
		if ((rec || strcmp(name, "mv") == 0 ||
		    (ops[i]->flags & SH_W_GLOB)) && critical_path(ops[i])) {
			DESTROY(a, "%s %s%.60s removes a system or home "
			    "directory", name, rec ? "-r " : "", ops[i]->text);
			return;
		}
	set_mut(a, "%s modifies files", name);
}

static void
an_chmod(struct an *a, const struct sh_word *w, size_t n, const char *name)
{
	const struct sh_word *ops[64];
	size_t	nops, i;
	int	rec;
	const char *m;

	rec = has_opt(w, n, 'R', "recursive");
	nops = operands(w, n, ops, 64);
	for (i = 0; i < nops; i++) {
		if (i == 0 && !(strcmp(name, "chmod") == 0 && nops == 1))
			continue;	/* the mode or owner */
		if (critical_path(ops[i]) && (rec ||
		    strcmp(ops[i]->text, "/") == 0)) {
			DESTROY(a, "%s %s%.60s changes a system or home "
			    "directory", name, rec ? "-R " : "", ops[i]->text);
			return;
		}
	}
	if (strcmp(name, "chmod") == 0 && nops > 0 && lit(ops[0])) {
		m = ops[0]->text;
		if ((strchr(m, 's') != NULL && strpbrk(m, "+=") != NULL) ||
		    (strspn(m, "01234567") == strlen(m) && strlen(m) == 4 &&
		    (m[0] == '2' || m[0] == '4' || m[0] == '6' ||
		    m[0] == '3' || m[0] == '5' || m[0] == '7')))
			PRIV(a, "chmod %.20s sets a setuid or setgid bit", m);
	}
	set_mut(a, "%s changes file modes or owners", name);
}

static void
check_device_args(struct an *a, const struct sh_word *w, size_t n,
    const char *name)
{
	size_t	i;

	for (i = 1; i < n; i++)
		if (lit(&w[i]) && block_device(w[i].text)) {
			DESTROY(a, "%s writes to device %.40s", name,
			    w[i].text);
			return;
		}
}

static void
an_find(struct ctx *cx, struct an *a, const struct sh_word *w, size_t n,
    const struct io *io, int nest)
{
	struct an	 sub;
	size_t		 i, j;
	int		 start_critical = 0, started = 0;
	const char	*t;

	set_ro(a, "find");
	for (i = 1; i < n; i++) {
		t = w[i].text;
		if (!started && lit(&w[i]) && (t[0] == '-' || t[0] == '(' ||
		    t[0] == '!')) {
			if (strcmp(t, "-H") != 0 && strcmp(t, "-L") != 0 &&
			    strcmp(t, "-P") != 0 && !starts(t, "-O") &&
			    strcmp(t, "-D") != 0)
				started = 1;
			else {
				if (strcmp(t, "-D") == 0)
					i++;
				continue;
			}
		}
		if (!started) {
			if (critical_path(&w[i]))
				start_critical = 1;
			continue;
		}
		if (!lit(&w[i]))
			continue;
		if (strcmp(t, "-delete") == 0) {
			if (start_critical)
				DESTROY(a, "find -delete on a system or home "
				    "directory");
			else
				set_mut(a, "find -delete removes files");
		} else if (starts(t, "-fprint") || strcmp(t, "-fls") == 0) {
			set_mut(a, "find %s writes a file", t);
		} else if (strcmp(t, "-exec") == 0 ||
		    strcmp(t, "-execdir") == 0 || strcmp(t, "-ok") == 0 ||
		    strcmp(t, "-okdir") == 0) {
			for (j = i + 1; j < n; j++)
				if (weq(&w[j], ";") || weq(&w[j], "+"))
					break;
			memset(&sub, 0, sizeof(sub));
			analyze(cx, &sub, w + i + 1, j - i - 1, io, nest);
			if (start_critical && (sub.flags & POL_F_MUTATING) &&
			    j > i + 1 && lit(&w[i + 1]) &&
			    strcmp(base(w[i + 1].text), "rm") == 0)
				DESTROY(a, "find -exec rm on a system or home "
				    "directory");
			/* Merge: the command runs what it executes. */
			a->flags |= sub.flags & ~POL_F_READONLY;
			if (!(sub.flags & POL_F_READONLY) &&
			    !(sub.flags & POL_F_MUTATING))
				set_mut(a, "find %s runs %.40s", t,
				    j > i + 1 ? w[i + 1].text : "nothing");
			a->classes |= sub.classes;
			if (sub.hard[0] && !a->hard[0]) {
				memcpy(a->hard, sub.hard, REASON_MAX);
				a->hard_rule = sub.hard_rule;
			}
			if (sub.opaque[0] && !a->opaque[0])
				memcpy(a->opaque, sub.opaque, REASON_MAX);
			if (sub.ask[0] && !a->ask[0]) {
				memcpy(a->ask, sub.ask, REASON_MAX);
				a->ask_rule = sub.ask_rule;
			}
			if (sub.mut[0] && !a->mut[0])
				memcpy(a->mut, sub.mut, REASON_MAX);
			if (sub.cls[0] && !a->cls[0])
				memcpy(a->cls, sub.cls, REASON_MAX);
			i = j;
		}
	}
}

/* The worse of two effects. */
static enum inline_effect
worse(enum inline_effect a, enum inline_effect b)
{
	return a > b ? a : b;
}

/*
 * A sed command's scripts (-e's, or the first operand): what they do
 * (policy/inline.c).  A script file (-f) cannot be seen: it runs.  GNU
 * sed's --sandbox refuses e, w and r itself.
 */
static enum inline_effect
sed_effect(const struct sh_word *w, size_t n)
{
	enum inline_effect	 e = INLINE_RO;
	size_t			 i, k;
	const char		*t, *sc;
	int			 scripts = 0;

	for (i = 1; i < n; i++)
		if (weq(&w[i], "--sandbox"))
			return INLINE_RO;
	for (i = 1; i < n; i++) {
		t = w[i].text;
		if (!lit(&w[i])) {
			if (scripts == 0)
				return INLINE_RUNS;
			continue;		/* a file operand */
		}
		if (strcmp(t, "--") == 0)
			break;
		if (strcmp(t, "--file") == 0 || starts(t, "--file="))
			return INLINE_RUNS;
		if (strcmp(t, "--expression") == 0 ||
		    starts(t, "--expression=")) {
			sc = strchr(t, '=') != NULL ? strchr(t, '=') + 1 :
			    ++i < n && lit(&w[i]) ? w[i].text : NULL;
			if (sc == NULL)
				return INLINE_RUNS;
			e = worse(e, pol_inline_sed(sc));
			scripts++;
			continue;
		}
		if (t[0] == '-' && t[1] == '-')
			continue;
		if (t[0] == '-' && t[1] != '\0') {
			for (k = 1; t[k] != '\0'; k++) {
				if (t[k] == 'f')
					return INLINE_RUNS;
				if (t[k] == 'e') {
					sc = t[k + 1] != '\0' ? t + k + 1 :
					    ++i < n && lit(&w[i]) ? w[i].text :
					    NULL;
					if (sc == NULL)
						return INLINE_RUNS;
					e = worse(e, pol_inline_sed(sc));
					scripts++;
					break;
				}
				if (t[k] == 'l' || t[k] == 'i')
					break;	/* -l N, -i[SUFFIX] */
			}
			continue;
		}
		if (scripts == 0) {
			e = worse(e, pol_inline_sed(t));
			scripts++;
		}
	}
	return scripts == 0 ? INLINE_RO : e;
}

/*
 * An awk command's program (the first operand, or gawk's -e/--source):
 * what it does, from its text (policy/inline.c).  A program read from a
 * file (-f, -E, gawk's -i/-l) cannot be seen: it runs.
 */
static enum inline_effect
awk_effect(const struct sh_word *w, size_t n)
{
	enum inline_effect	 e = INLINE_RO, e2;
	size_t			 i;
	const char		*t;
	int			 prog = 0;

	for (i = 1; i < n; i++) {
		t = w[i].text;
		if (!lit(&w[i]))
			return prog ? e : INLINE_RUNS;
		if (!prog && (strcmp(t, "-f") == 0 || starts(t, "--file") ||
		    strcmp(t, "-E") == 0 || starts(t, "--exec") ||
		    starts(t, "-i") || starts(t, "--include") ||
		    starts(t, "-l") || starts(t, "--load")))
			return INLINE_RUNS;
		if (!prog && (strcmp(t, "-e") == 0 ||
		    strcmp(t, "--source") == 0)) {
			if (++i >= n || !lit(&w[i]))
				return INLINE_RUNS;
			if ((e2 = pol_inline_awk(w[i].text)) > e)
				e = e2;
			continue;
		}
		if (!prog && (strcmp(t, "-F") == 0 || strcmp(t, "-v") == 0)) {
			i++;
			continue;
		}
		if (!prog && t[0] == '-' && t[1] != '\0')
			continue;
		if (!prog && e == INLINE_RO) {
			prog = 1;
			e = pol_inline_awk(t);
		}
		/* Operands after the program are files (or var=value). */
	}
	return e;
}

/*
 * Read-only tools with an option that writes a file (issue 13): in the
 * read-only modes these are writes.  Short option letters (each takes
 * the file as its argument) and long option names.
 */
static const struct {
	const char	*name;
	const char	*letters;
	const char	*longs[3];
} ro_writers[] = {
	{ "base32", "o", { "output", NULL } },
	{ "base64", "o", { "output", NULL } },
	{ "date", "s", { "set", NULL } },
	{ "history", "wa", { NULL } },
	{ "iconv", "o", { "output", NULL } },
	{ "info", "o", { "output", NULL } },
	{ "less", "oO", { "log-file", "LOG-FILE", NULL } },
	{ "sdiff", "o", { "output", NULL } },
	{ "shuf", "o", { "output", NULL } },
	{ "tree", "o", { NULL } },
	{ "yq", "i", { "inplace", NULL } },
	{ "zless", "oO", { "log-file", "LOG-FILE", NULL } },
};

/* Does a read-only tool write a file with these options? */
static int
ro_writes(struct an *a, const struct sh_word *w, size_t n, const char *name)
{
	const struct sh_word	*ops[3];
	size_t			 i, j;
	const char		*c;

	if (strcmp(name, "xxd") == 0 && operands(w, n, ops, 3) >= 2) {
		set_mut(a, "xxd writes its output file");
		return 1;
	}
	if ((strcmp(name, "man") == 0 && (has_opt(w, n, 'P', "pager") ||
	    has_opt(w, n, 'H', "html"))) || ((strcmp(name, "dc") == 0 ||
	    strcmp(name, "bc") == 0) && has_bang(w, n))) {
		set_opaque(a, "%s runs a command (pager, browser or !)", name);
		return 1;
	}
	for (i = 0; i < sizeof(ro_writers) / sizeof(ro_writers[0]); i++) {
		if (strcmp(name, ro_writers[i].name) != 0)
			continue;
		for (c = ro_writers[i].letters; *c != '\0'; c++)
			if (has_opt(w, n, *c, NULL)) {
				set_mut(a, "%s -%c writes a file", name, *c);
				return 1;
			}
		for (j = 0; ro_writers[i].longs[j] != NULL; j++)
			if (has_opt(w, n, 0, ro_writers[i].longs[j])) {
				set_mut(a, "%s --%s writes a file", name,
				    ro_writers[i].longs[j]);
				return 1;
			}
	}
	return 0;
}

/* A command name outside ASCII may be a look-alike ("ѕudo"). */
static int
non_ascii(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s >= 0x80)
			return 1;
	return 0;
}

/*
 * Classify one command's words.  Wrappers loop (MAX_UNWRAP) rather than
 * recurse; find -exec recurses once per -exec with the same nest.
 */
static void
analyze(struct ctx *cx, struct an *a, const struct sh_word *w, size_t n,
    const struct io *io, int nest)
{
	static const char *const env_larg[] = { "unset", "chdir",
	    "split-string", "block-signal", "default-signal",
	    "ignore-signal", NULL };
	static const char *const timeout_larg[] = { "signal", "kill-after",
	    NULL };
	static const char *const stdbuf_larg[] = { "input", "output", "error",
	    NULL };
	static const char *const xargs_larg[] = { "arg-file", "delimiter",
	    "max-lines", "max-args", "max-procs", "max-chars",
	    "process-slot-var", "eof", "replace", NULL };
	static const char *const time_larg[] = { "format", "output", NULL };
	static const char *const strace_larg[] = { "output", NULL };
	const char	*name, *t;
	char		*s;
	size_t		 i, j, rounds;
	enum kind	 k = K_UNKNOWN;

	for (rounds = 0; rounds < MAX_UNWRAP; rounds++) {
		if (n == 0) {
			set_ro(a, "no command");
			return;
		}
		if (!lit(&w[0])) {
			set_opaque(a, "the command name is an expansion "
			    "(%.60s)", w[0].text);
			return;
		}
		name = base(w[0].text);
		if (name[0] == '\0') {
			set_mut(a, "%.60s", w[0].text);
			return;
		}
		if (non_ascii(name)) {
			set_opaque(a, "the command name %.60s has characters "
			    "outside ASCII", name);
			return;
		}

		k = kind_of(name);
		/* Privilege, destruction, escape: no unwrapping needed. */
		if (k == K_PRIV) {
			PRIV(a, "%s changes privileges", name);
			return;
		}
		if (k == K_DESTROY) {
			if (version_only(w, n)) {
				set_ro(a, "%s %s", name, w[1].text);
				return;
			}
			DESTROY(a, "%s can destroy a file system or stop the "
			    "system", name);
			return;
		}
		if (k == K_ESCAPE) {
			if (strcmp(name, "sysctl") == 0 && !has_opt(w, n, 'w',
			    "write") && !has_opt(w, n, 'p', "load")) {
				for (i = 1; i < n; i++)
					if (strchr(w[i].text, '=') != NULL)
						break;
				if (i == n) {
					set_ro(a, "sysctl reads");
					return;
				}
			}
			if (strcmp(name, "mount") == 0 && n == 1) {
				set_ro(a, "mount lists mounts");
				return;
			}
			ESCAPE(a, "%s can leave the sandbox's namespaces or "
			    "change the kernel", name);
			return;
		}
		if (k == K_INIT && n == 2 &&
		    (weq(&w[1], "0") || weq(&w[1], "6"))) {
			DESTROY(a, "init %s stops the system", w[1].text);
			return;
		}
		if (k == K_SYSTEMCTL) {
			static const char *const pw[] = { "poweroff", "reboot",
			    "halt", "kexec", "suspend", "hibernate",
			    "isolate", "emergency", "rescue", NULL };
			for (i = 1; i < n; i++)
				if (lit(&w[i]) && in_list(w[i].text, pw)) {
					DESTROY(a, "systemctl %s stops the "
					    "system", w[i].text);
					return;
				}
		}
		if (k == K_IP) {
			for (i = 1; i < n; i++)
				if (weq(&w[i], "netns")) {
					ESCAPE(a, "ip netns enters another "
					    "network namespace");
					return;
				}
			set_mut(a, "ip");
			return;
		}

		/* Wrappers: find the command they run. */
		if (k != K_WRAP && k != K_PKG)
			break;
		if (strcmp(name, "env") == 0) {
			for (i = 1; i < n; i++) {
				t = w[i].text;
				if (strchr(t, '=') != NULL && t[0] != '-' &&
				    sh_is_name(t, strcspn(t, "="))) {
					check_assign(a, &w[i]);
					continue;
				}
				if (!lit(&w[i]))
					break;
				if (strcmp(t, "-S") == 0 ||
				    strcmp(t, "--split-string") == 0 ||
				    starts(t, "--split-string=") ||
				    (starts(t, "-S") && t[2] != '\0')) {
					const char *ss;
					if (starts(t, "--split-string="))
						ss = t + 15;
					else if (t[1] == 'S' && t[2] != '\0')
						ss = t + 2;
					else if (i + 1 < n && lit(&w[i + 1]))
						ss = w[++i].text;
					else {
						set_opaque(a, "env -S with an "
						    "expansion");
						return;
					}
					set_ro(a, "env -S runs the command "
					    "listed with it");
					s = join_quoted(ss, w + i + 1,
					    n - i - 1);
					check_text(cx, a, s, strlen(s),
					    nest + 1);
					free(s);
					return;
				}
				if (strcmp(t, "--") == 0) {
					i++;
					break;
				}
				if (t[0] == '-' && t[1] != '\0') {
					if (t[1] == '-') {
						if (strchr(t, '=') == NULL &&
						    in_list(t + 2, env_larg))
							i++;
					} else if ((t[1] == 'u' ||
					    t[1] == 'C' || t[1] == 'P') &&
					    t[2] == '\0')
						i++;
					continue;
				}
				if (strcmp(t, "-") == 0)
					continue;
				if (strchr(t, '=') != NULL &&
				    sh_is_name(t, strcspn(t, "="))) {
					check_assign(a, &w[i]);
					continue;
				}
				break;
			}
			if (i >= n) {
				set_ro(a, "env prints the environment");
				return;
			}
			w += i;
			n -= i;
			continue;
		}
		if (strcmp(name, "command") == 0 ||
		    strcmp(name, "builtin") == 0) {
			for (i = 1; i < n && is_opt(&w[i]); i++)
				if (strchr(w[i].text, 'v') != NULL ||
				    strchr(w[i].text, 'V') != NULL) {
					set_ro(a, "command -v looks a name up");
					return;
				}
			w += i;
			n -= i;
			continue;
		}
		if (strcmp(name, "exec") == 0) {
			i = skip_opts(w, n, 1, "a", NULL, 0);
			w += i;
			n -= i;
			continue;
		}
		if (strcmp(name, "nice") == 0 || strcmp(name, "nohup") == 0 ||
		    strcmp(name, "setsid") == 0 ||
		    strcmp(name, "unbuffer") == 0 ||
		    strcmp(name, "chronic") == 0 ||
		    strcmp(name, "caffeinate") == 0 ||
		    strcmp(name, "ionice") == 0 ||
		    strcmp(name, "numactl") == 0 ||
		    strcmp(name, "proxychains") == 0 ||
		    strcmp(name, "proxychains4") == 0 ||
		    strcmp(name, "torsocks") == 0 ||
		    strcmp(name, "dbus-run-session") == 0 ||
		    strcmp(name, "xvfb-run") == 0 ||
		    strcmp(name, "valgrind") == 0 ||
		    strcmp(name, "stdbuf") == 0 ||
		    strcmp(name, "time") == 0 ||
		    strcmp(name, "strace") == 0 ||
		    strcmp(name, "ltrace") == 0 ||
		    strcmp(name, "timeout") == 0 ||
		    strcmp(name, "gtimeout") == 0 ||
		    strcmp(name, "taskset") == 0 ||
		    strcmp(name, "setarch") == 0 ||
		    strcmp(name, "chrt") == 0) {
			const char *sarg = "";
			const char *const *larg = NULL;
			int npos = 0;

			if (strcmp(name, "nice") == 0)
				sarg = "n";
			else if (strcmp(name, "ionice") == 0)
				sarg = "cnP";
			else if (strcmp(name, "stdbuf") == 0) {
				sarg = "ioe";
				larg = stdbuf_larg;
			} else if (strcmp(name, "time") == 0) {
				sarg = "fo";
				larg = time_larg;
				if (has_opt(w, n, 'o', "output"))
					set_mut(a, "time -o writes a file");
			} else if (strcmp(name, "strace") == 0 ||
			    strcmp(name, "ltrace") == 0) {
				sarg = "eopsuabEIOPSX";
				larg = strace_larg;
				if (has_opt(w, n, 'o', "output"))
					set_mut(a, "%s -o writes a file",
					    name);
			} else if (strcmp(name, "timeout") == 0 ||
			    strcmp(name, "gtimeout") == 0) {
				sarg = "sk";
				larg = timeout_larg;
				npos = 1;
			} else if (strcmp(name, "caffeinate") == 0)
				sarg = "tw";
			else if (strcmp(name, "taskset") == 0 ||
			    strcmp(name, "setarch") == 0 ||
			    strcmp(name, "chrt") == 0)
				npos = 1;
			else if (strcmp(name, "proxychains") == 0 ||
			    strcmp(name, "proxychains4") == 0)
				sarg = "f";
			else if (strcmp(name, "numactl") == 0)
				sarg = "CNmpi";
			else if (strcmp(name, "xvfb-run") == 0)
				sarg = "nsefp";
			if ((strcmp(name, "ionice") == 0 ||
			    strcmp(name, "taskset") == 0 ||
			    strcmp(name, "strace") == 0 ||
			    strcmp(name, "ltrace") == 0 ||
			    strcmp(name, "chrt") == 0) &&
			    has_opt(w, n, 'p', "pid")) {
				set_mut(a, "%s on a running process", name);
				return;
			}
			i = skip_opts(w, n, 1, sarg, larg, npos);
			if (i >= n) {
				set_ro(a, "%s without a command", name);
				return;
			}
			w += i;
			n -= i;
			continue;
		}
		if (strcmp(name, "xargs") == 0) {
			i = skip_opts(w, n, 1, "adEILnPs", xargs_larg, 0);
			if (i >= n) {
				set_ro(a, "xargs runs echo");
				return;
			}
			w += i;
			n -= i;
			continue;
		}
		if (strcmp(name, "flock") == 0) {
			i = skip_opts(w, n, 1, "wEc", NULL, 0);
			for (j = 1; j < n; j++)
				if ((weq(&w[j], "-c") ||
				    weq(&w[j], "--command")) && j + 1 < n) {
					if (!lit(&w[j + 1])) {
						set_opaque(a, "flock -c with "
						    "an expansion");
						return;
					}
					check_text(cx, a, w[j + 1].text,
					    w[j + 1].len, nest + 1);
					set_mut(a, "flock takes a lock file");
					return;
				}
			i++;	/* the lock file */
			if (i >= n) {
				set_mut(a, "flock");
				return;
			}
			w += i;
			n -= i;
			continue;
		}
		if (strcmp(name, "watch") == 0) {
			int	x = has_opt(w, n, 'x', "exec");

			i = skip_opts(w, n, 1, "nq", (const char *const[]){
			    "interval", NULL }, 0);
			if (i >= n) {
				set_ro(a, "watch without a command");
				return;
			}
			if (x) {
				w += i;
				n -= i;
				continue;
			}
			for (j = i; j < n; j++)
				if (!lit(&w[j])) {
					set_opaque(a, "watch with an "
					    "expansion");
					return;
				}
			{
				size_t	 tot = 1, off = 0;
				char	*js;

				for (j = i; j < n; j++)
					tot += w[j].len + 1;
				js = xmalloc(tot);
				for (j = i; j < n; j++) {
					memcpy(js + off, w[j].text, w[j].len);
					off += w[j].len;
					js[off++] = ' ';
				}
				js[off] = '\0';
				set_ro(a, "watch runs the command listed "
				    "with it");
				check_text(cx, a, js, off, nest + 1);
				free(js);
			}
			return;
		}
		if (strcmp(name, "busybox") == 0 ||
		    strcmp(name, "toybox") == 0) {
			if (n == 1 || is_opt(&w[1])) {
				set_ro(a, "%s lists applets", name);
				return;
			}
			w++;
			n--;
			continue;
		}
		if ((strcmp(name, "bundle") == 0 ||
		    strcmp(name, "bundler") == 0 || strcmp(name, "pipenv") == 0
		    || strcmp(name, "poetry") == 0 || strcmp(name, "uv") == 0 ||
		    strcmp(name, "pdm") == 0) && n >= 3 &&
		    (weq(&w[1], "exec") || weq(&w[1], "run"))) {
			if (strcmp(name, "uv") == 0 || weq(&w[1], "run"))
				set_mut(a, "%s run may install dependencies",
				    name);
			i = skip_opts(w, n, 2, NULL, NULL, 0);
			w += i;
			n -= i;
			continue;
		}
		if (strcmp(name, "npm") == 0 && n >= 2 && (weq(&w[1], "exec") ||
		    weq(&w[1], "x"))) {
			set_class(a, POL_CLASS_INSTALL_PACKAGE, "npm exec may "
			    "fetch a package");
			set_mut(a, "npm exec");
			i = skip_opts(w, n, 2, NULL, NULL, 0);
			w += i;
			n -= i;
			continue;
		}
		break;
	}
	if (rounds == MAX_UNWRAP) {
		set_opaque(a, "too many nested wrappers");
		return;
	}

	switch (k) {
	case K_RO:
		if (!ro_writes(a, w, n, name))
			set_ro(a, "%s", name);
		return;
	case K_MUT:
		set_mut(a, "%s modifies files or processes", name);
		return;
	case K_UNKNOWN:
	case K_INIT:
		/* Unknown programs run in chat; read-only modes refuse them. */
		if (version_only(w, n))
			set_ro(a, "%s %s", name, w[1].text);
		return;
	case K_SYSTEMCTL:
		set_mut(a, "systemctl changes services");
		return;
	default:
		break;
	}

	/* Shells, eval and other inline code. */
	if (k == K_SHELL) {
		an_shell(cx, a, w, n, io, nest, name);
		return;
	}
	if (k == K_EVAL) {
		size_t	 tot = 1, off = 0;
		char	*js;

		for (i = 1; i < n; i++) {
			if (!lit(&w[i])) {
				set_opaque(a, "eval of an expansion");
				return;
			}
			tot += w[i].len + 1;
		}
		js = xmalloc(tot);
		for (i = 1; i < n; i++) {
			memcpy(js + off, w[i].text, w[i].len);
			off += w[i].len;
			js[off++] = ' ';
		}
		js[off] = '\0';
		set_ro(a, "eval runs the commands listed with it");
		check_text(cx, a, js, off, nest + 1);
		free(js);
		return;
	}
	if (k == K_TRAP) {
		if (n >= 3 && lit(&w[1]) && !is_opt(&w[1])) {
			set_ro(a, "trap sets a handler");
			check_text(cx, a, w[1].text, w[1].len, nest + 1);
		} else if (n >= 3 && !lit(&w[1]))
			set_opaque(a, "trap with a handler from an expansion");
		else
			set_ro(a, "trap");
		return;
	}
	if (k == K_SOURCE) {
		set_mut(a, "%s runs the commands of a file", name);
		return;
	}
	if (k == K_PY) {
		if (an_interp(a, w, n, io, name, "c", NULL, "python"))
			return;
		for (i = 1; i < n; i++) {
			if (weq(&w[i], "-m") && i + 1 < n) {
				if (weq(&w[i + 1], "pip")) {
					w += i + 1;
					n -= i + 1;
					an_pkg(a, w, n, "pip");
					return;
				}
				if (weq(&w[i + 1], "json.tool")) {
					set_ro(a, "python -m json.tool");
					return;
				}
				if (weq(&w[i + 1], "http.server"))
					set_class(a, POL_CLASS_NETWORK_ACCESS,
					    "python -m http.server serves "
					    "files");
				if (weq(&w[i + 1], "twine")) {
					set_ask(a, POL_F_REMOTE, "ask:publish",
					    "twine publishes a package");
					return;
				}
				break;
			}
			if (!is_opt(&w[i]))
				break;
		}
		set_mut(a, "%s runs a program", name);
		return;
	}
	if (k == K_NODE) {
		if (!an_interp(a, w, n, io, name, "ep", (const char *const[]){
		    "eval", "print", NULL }, "node"))
			set_mut(a, "%s runs a program", name);
		return;
	}
	if (k == K_DENO) {
		if (n >= 2 && weq(&w[1], "eval"))
			set_opaque(a, "deno eval runs inline code");
		else if (n >= 2 && (weq(&w[1], "install") ||
		    weq(&w[1], "add"))) {
			set_class(a, POL_CLASS_INSTALL_PACKAGE, "deno %s "
			    "installs packages", w[1].text);
			set_mut(a, "deno installs packages");
		} else
			set_mut(a, "deno runs a program");
		return;
	}
	if (k == K_PERL) {
		if (has_opt(w, n, 'i', NULL))
			set_mut(a, "perl -i edits files in place");
		if (!an_interp(a, w, n, io, name, "eE", NULL, "perl"))
			set_mut(a, "perl runs a program");
		return;
	}
	if (k == K_RUBYLIKE) {
		if (!an_interp(a, w, n, io, name, "e", (const char *const[]){
		    "eval", "expr", NULL }, strcmp(name, "ruby") == 0 ?
		    "ruby" : NULL))
			set_mut(a, "%s runs a program", name);
		return;
	}
	if (k == K_PHP) {
		if (!an_interp(a, w, n, io, name, "rRBE", NULL, NULL))
			set_mut(a, "php runs a program");
		return;
	}
	if (k == K_OPAQUE) {
		set_opaque(a, "%s runs commands that are not parsed here",
		    name);
		return;
	}

	/* Tools with subcommands. */
	if (k == K_GIT) {
		an_git(cx, a, w, n);
		return;
	}
	if (k == K_GH) {
		an_gh(a, w, n);
		return;
	}
	if (k == K_CONTAINER) {
		an_container(a, w, n, name);
		return;
	}
	if (k == K_PKG) {
		if (!an_pkg(a, w, n, name))
			set_mut(a, "%s", name);
		return;
	}
	if (k == K_NET)
		goto net;

	/* Files and the system. */
	if (strcmp(name, "rm") == 0 || strcmp(name, "mv") == 0 ||
	    strcmp(name, "rmdir") == 0 || strcmp(name, "srm") == 0) {
		an_rm_like(a, w, n, name);
		return;
	}
	if (strcmp(name, "chmod") == 0 || strcmp(name, "chown") == 0 ||
	    strcmp(name, "chgrp") == 0) {
		an_chmod(a, w, n, name);
		return;
	}
	if (strcmp(name, "dd") == 0) {
		for (i = 1; i < n; i++)
			if (lit(&w[i]) && starts(w[i].text, "of=")) {
				if (block_device(w[i].text + 3)) {
					DESTROY(a, "dd writes to device %.40s",
					    w[i].text + 3);
					return;
				}
				if (!harmless_sink(w[i].text + 3))
					set_mut(a, "dd writes %.60s",
					    w[i].text + 3);
			}
		if (!(a->flags & POL_F_MUTATING))
			set_ro(a, "dd to stdout");
		return;
	}
	if (strcmp(name, "shred") == 0 || strcmp(name, "wipe") == 0) {
		check_device_args(a, w, n, name);
		set_mut(a, "%s destroys file contents", name);
		return;
	}
	if (strcmp(name, "cp") == 0 || strcmp(name, "tee") == 0 ||
	    strcmp(name, "install") == 0 || strcmp(name, "ln") == 0 ||
	    strcmp(name, "truncate") == 0 || strcmp(name, "cat") == 0) {
		if (strcmp(name, "cat") != 0)
			check_device_args(a, w, n, name);
		if (strcmp(name, "tee") == 0) {
			const struct sh_word *ops[8];
			size_t no = operands(w, n, ops, 8), jj;
			for (jj = 0; jj < no; jj++)
				if (!lit(ops[jj]) ||
				    !harmless_sink(ops[jj]->text))
					break;
			if (jj == no) {
				set_ro(a, "tee to stdout");
				return;
			}
		}
		if (strcmp(name, "cat") == 0) {
			set_ro(a, "cat");
			return;
		}
		set_mut(a, "%s writes files", name);
		return;
	}
	if (strcmp(name, "kill") == 0) {
		int	sig_seen = 0, dd = 0;

		for (i = 1; i < n; i++) {
			t = w[i].text;
			if (!dd && strcmp(t, "--") == 0) {
				dd = 1;
				continue;
			}
			if (!dd && (strcmp(t, "-s") == 0 ||
			    strcmp(t, "-n") == 0)) {
				i++;
				sig_seen = 1;
				continue;
			}
			if (!dd && t[0] == '-' && !sig_seen) {
				sig_seen = 1;
				continue;
			}
			if (strcmp(t, "-1") == 0) {
				DESTROY(a, "kill -1 signals every process");
				return;
			}
		}
		set_mut(a, "kill signals processes");
		return;
	}
	if (strcmp(name, "sed") == 0 || strcmp(name, "gsed") == 0) {
		for (i = 1; i < n; i++) {
			t = w[i].text;
			if (!lit(&w[i]))
				continue;
			if (strcmp(t, "-e") == 0 || strcmp(t, "-f") == 0 ||
			    strcmp(t, "--expression") == 0 ||
			    strcmp(t, "--file") == 0) {
				i++;
				continue;
			}
			if (starts(t, "--in-place") || (t[0] == '-' &&
			    t[1] != '-' && strchr(t, 'i') != NULL &&
			    strcspn(t, "ef") > (size_t)(strchr(t, 'i') - t))) {
				set_mut(a, "sed -i edits files in place");
				return;
			}
		}
		switch (sed_effect(w, n)) {
		case INLINE_RO:
			set_ro(a, "sed");
			break;
		case INLINE_WRITES:
			set_mut(a, "sed script writes a file (w)");
			break;
		default:
			set_opaque(a, "sed script runs commands (e) or is not "
			    "understood");
			break;
		}
		return;
	}
	if (strcmp(name, "awk") == 0 || strcmp(name, "gawk") == 0 ||
	    strcmp(name, "mawk") == 0 || strcmp(name, "nawk") == 0) {
		switch (awk_effect(w, n)) {
		case INLINE_RO:
			set_ro(a, "%s", name);
			break;
		case INLINE_WRITES:
			set_mut(a, "%s program writes files", name);
			break;
		default:
			set_opaque(a, "%s program can run commands (system, "
			    "a pipe, or a program file)", name);
			break;
		}
		return;
	}
	if (strcmp(name, "sort") == 0) {
		if (has_opt(w, n, 'o', "output"))
			set_mut(a, "sort -o writes a file");
		else
			set_ro(a, "sort");
		return;
	}
	if (strcmp(name, "uniq") == 0) {
		const struct sh_word *ops[3];
		if (operands(w, n, ops, 3) >= 2)
			set_mut(a, "uniq writes its output file");
		else
			set_ro(a, "uniq");
		return;
	}
	if (strcmp(name, "tar") == 0 || strcmp(name, "bsdtar") == 0) {
		if (n >= 2 && lit(&w[1]) && ((w[1].text[0] != '-' &&
		    strchr(w[1].text, 't') != NULL) ||
		    (w[1].text[0] == '-' && w[1].text[1] != '-' &&
		    strchr(w[1].text, 't') != NULL) ||
		    has_opt(w, n, 0, "list")))
			set_ro(a, "tar lists an archive");
		else
			set_mut(a, "tar writes files");
		return;
	}
	if (strcmp(name, "unzip") == 0) {
		if (has_opt(w, n, 'l', NULL) || has_opt(w, n, 't', NULL) ||
		    has_opt(w, n, 'Z', NULL) || has_opt(w, n, 'p', NULL))
			set_ro(a, "unzip lists an archive");
		else
			set_mut(a, "unzip writes files");
		return;
	}
	if (strcmp(name, "curl") == 0) {
		set_class(a, POL_CLASS_NETWORK_ACCESS, "curl makes network "
		    "requests");
		for (i = 1; i < n; i++) {
			t = w[i].text;
			if (!lit(&w[i]) || t[0] != '-')
				continue;
			if (strcmp(t, "-X") == 0 ||
			    strcmp(t, "--request") == 0) {
				if (i + 1 < n && !weq(&w[i + 1], "GET") &&
				    !weq(&w[i + 1], "HEAD"))
					set_mut(a, "curl %s changes remote "
					    "state", t);
				i++;
				continue;
			}
			if (t[1] == '-') {
				if (strcmp(t, "--output") == 0 ||
				    strcmp(t, "--remote-name") == 0 ||
				    strcmp(t, "--remote-name-all") == 0 ||
				    strcmp(t, "--upload-file") == 0 ||
				    starts(t, "--data") ||
				    strcmp(t, "--form") == 0 ||
				    strcmp(t, "--cookie-jar") == 0 ||
				    strcmp(t, "--dump-header") == 0 ||
				    strcmp(t, "--json") == 0 ||
				    strcmp(t, "--output-dir") == 0)
					set_mut(a, "curl %s writes a file or "
					    "sends data", t);
				continue;
			}
			if (strpbrk(t + 1, "oOTdFcDJ") != NULL)
				set_mut(a, "curl %s writes a file or sends "
				    "data", t);
		}
		if (!(a->flags & POL_F_MUTATING))
			set_ro(a, "curl to stdout");
		return;
	}
	if (strcmp(name, "wget") == 0) {
		set_class(a, POL_CLASS_NETWORK_ACCESS, "wget makes network "
		    "requests");
		if (has_opt(w, n, 0, "output-file") ||
		    has_opt(w, n, 0, "append-output") ||
		    has_opt(w, n, 'o', NULL) || has_opt(w, n, 'a', NULL)) {
			set_mut(a, "wget -o writes a log file");
			return;
		}
		for (i = 1; i < n; i++)
			if (weq(&w[i], "-O-") || weq(&w[i], "-qO-") ||
			    (weq(&w[i], "-O") && i + 1 < n &&
			    weq(&w[i + 1], "-")) ||
			    (weq(&w[i], "-qO") && i + 1 < n &&
			    weq(&w[i + 1], "-")) ||
			    weq(&w[i], "--output-document=-") ||
			    weq(&w[i], "--spider")) {
				set_ro(a, "wget to stdout");
				return;
			}
		set_mut(a, "wget writes files");
		return;
	}
	if (k == K_NET) {
net:
		set_class(a, POL_CLASS_NETWORK_ACCESS, "%s uses the network",
		    name);
		if (strcmp(name, "dig") == 0 || strcmp(name, "nslookup") == 0 ||
		    strcmp(name, "host") == 0 || strcmp(name, "ping") == 0 ||
		    strcmp(name, "ping6") == 0 ||
		    strcmp(name, "traceroute") == 0 ||
		    strcmp(name, "tracepath") == 0 ||
		    strcmp(name, "whois") == 0 || strcmp(name, "mtr") == 0)
			set_ro(a, "%s", name);
		else
			set_mut(a, "%s can send data or change remote state",
			    name);
		return;
	}
	if (strcmp(name, "find") == 0) {
		an_find(cx, a, w, n, io, nest);
		return;
	}
	if (strcmp(name, "export") == 0 || strcmp(name, "declare") == 0 ||
	    strcmp(name, "typeset") == 0 || strcmp(name, "local") == 0 ||
	    strcmp(name, "readonly") == 0) {
		for (i = 1; i < n; i++)
			if (strchr(w[i].text, '=') != NULL)
				check_assign(a, &w[i]);
		set_ro(a, "%s sets shell variables", name);
		return;
	}
	set_mut(a, "%s", name);
}

/* Redirections, assignments and the fork bomb, then the words. */
static void
analyze_cmd(struct ctx *cx, struct an *a, const struct sh_cmd *c, int nest)
{
	struct io	 io;
	size_t		 i;
	const struct sh_redir *r;

	memset(&io, 0, sizeof(io));
	if (c->flags & SH_C_PIPE_IN)
		io.other = 1;
	for (i = 0; i < c->nredirs; i++) {
		r = &c->redirs[i];
		if ((r->op == SH_R_HEREDOC || r->op == SH_R_HERESTR) &&
		    (r->fd == -1 || r->fd == 0)) {
			io.script = &r->target;
			io.other = (c->flags & SH_C_PIPE_IN) != 0;
		} else if ((r->op == SH_R_IN || r->op == SH_R_RDWR ||
		    r->op == SH_R_DUPIN) && (r->fd == -1 || r->fd == 0)) {
			io.script = NULL;
			io.other = 1;
		}
		if (!r->writes)
			continue;
		if (!lit(&r->target)) {
			set_mut(a, "redirection to %.60s (an expansion)",
			    r->target.text);
			continue;
		}
		if (block_device(r->target.text)) {
			DESTROY(a, "redirection writes to device %.40s",
			    r->target.text);
			continue;
		}
		if (harmless_sink(r->target.text))
			continue;
		set_mut(a, "redirection writes %.60s", r->target.text);
	}
	for (i = 0; i < c->nassigns; i++)
		check_assign(a, &c->assigns[i]);
	if (c->func != NULL && c->argc > 0 && lit(&c->argv[0]) &&
	    strcmp(c->argv[0].text, c->func) == 0 &&
	    (c->flags & (SH_C_PIPELINE | SH_C_BACKGROUND))) {
		DESTROY(a, "function %.20s calls itself in a pipeline or in "
		    "the background (fork bomb)", c->func);
		return;
	}
	if (c->argc == 0) {
		if (c->nredirs > 0 || c->nassigns > 0)
			set_ro(a, "assignment or redirection only");
		return;
	}
	analyze(cx, a, c->argv, c->argc, &io, nest);
}

/* Turn an analysis into a verdict for the mode. */
static enum pol_verdict
decide(struct ctx *cx, const struct an *a, char **rule, char **reason)
{
	char		 r[160];
	enum pol_verdict v, cv;
	const char	*mode = pol_mode_name(cx->mode);

	if (a->flags & POL_F_HARD) {
		*rule = xstrdup(a->hard_rule ? a->hard_rule : "hard-deny");
		*reason = xstrdup(a->hard);
		return POL_DENY;
	}
	if (pol_mode_readonly(cx->mode)) {
		if (a->flags & POL_F_OPAQUE) {
			xasprintf(rule, "opaque:%s", mode);
			*reason = xstrdup(a->opaque);
			return POL_DENY;
		}
		if ((a->flags & (POL_F_MUTATING | POL_F_PUSH | POL_F_REMOTE)) ||
		    (a->classes & ~POL_CLASS_BIT(POL_CLASS_NETWORK_ACCESS))) {
			xasprintf(rule, "mode:%s", mode);
			xasprintf(reason, "%s mode is read-only: %s", mode,
			    a->ask[0] ? a->ask : a->mut[0] ? a->mut :
			    a->cls[0] ? a->cls : "the command changes state");
			return POL_DENY;
		}
		if (!(a->flags & POL_F_READONLY)) {
			xasprintf(rule, "mode:%s", mode);
			xasprintf(reason, "%s mode is read-only: the command "
			    "is not known to be read-only", mode);
			return POL_DENY;
		}
		v = pol_guard_classes(cx->rules, a->classes, r, sizeof(r));
		if (a->classes != 0) {
			*rule = xstrdup(r);
			*reason = xstrdup(a->cls);
			return v;
		}
		xasprintf(rule, "mode:%s:read-only", mode);
		*reason = xstrdup(a->ro[0] ? a->ro : "read-only");
		return POL_ALLOW;
	}
	v = POL_ALLOW;
	*rule = NULL;
	*reason = NULL;
	if (a->flags & POL_F_OPAQUE) {
		v = POL_ASK;
		*rule = xstrdup("opaque:chat");
		*reason = xstrdup(a->opaque);
	}
	if (a->flags & (POL_F_PUSH | POL_F_REMOTE) && v < POL_ASK) {
		v = POL_ASK;
		*rule = xstrdup(a->ask_rule ? a->ask_rule : "ask");
		*reason = xstrdup(a->ask);
	}
	if (a->classes != 0) {
		cv = pol_guard_classes(cx->rules, a->classes, r, sizeof(r));
		if (cv > v || *rule == NULL) {
			free(*rule);
			free(*reason);
			v = cv > v ? cv : v;
			*rule = xstrdup(r);
			*reason = xstrdup(a->cls);
		}
	}
	if (*rule == NULL) {
		*rule = xstrdup("default:allow");
		*reason = xstrdup(a->mut[0] ? a->mut : a->ro[0] ? a->ro :
		    "no rule applies");
	}
	return v;
}

static void
add_result(struct ctx *cx, const struct sh_cmd *c, const struct an *a,
    const char *errmsg)
{
	struct pol_result	*res = cx->res;
	struct pol_cmd		*pc;
	size_t			 i;

	res->cmds = xreallocarray(res->cmds, res->ncmds + 1,
	    sizeof(*res->cmds));
	pc = &res->cmds[res->ncmds++];
	memset(pc, 0, sizeof(*pc));
	pc->argv = xcalloc((c ? c->argc : 0) + 1, sizeof(char *));
	for (i = 0; c != NULL && i < c->argc; i++)
		pc->argv[i] = xstrdup(c->argv[i].text);
	if (errmsg != NULL) {
		pc->verdict = POL_DENY;
		pc->flags = POL_F_PARSE_ERROR;
		pc->rule = xstrdup("parse-error");
		xasprintf(&pc->reason, "cannot parse the command line: %s",
		    errmsg);
	} else {
		pc->verdict = decide(cx, a, &pc->rule, &pc->reason);
		pc->flags = a->flags;
		pc->classes = a->classes;
	}
	res->classes |= pc->classes;
	res->flags |= pc->flags;
}

static void
check_text(struct ctx *cx, struct an *outer, const char *s, size_t len,
    int nest)
{
	struct sh_list	 l;
	struct an	 a;
	char		 err[160];
	size_t		 i;

	if (nest > POL_MAX_NEST) {
		add_result(cx, NULL, NULL, "shell scripts nested too deeply");
		return;
	}
	if (sh_parse(s, len, &l, err, sizeof(err)) == -1) {
		add_result(cx, NULL, NULL, err);
		return;
	}
	for (i = 0; i < l.ncmds; i++) {
		memset(&a, 0, sizeof(a));
		analyze_cmd(cx, &a, &l.cmds[i], nest);
		add_result(cx, &l.cmds[i], &a, NULL);
	}
	sh_list_free(&l);
	(void)outer;
}

struct pol_result *
pol_check(const char *cmdline, size_t len, enum pol_mode mode,
    const enum pol_verdict *rules)
{
	struct pol_result	*res = xcalloc(1, sizeof(*res));
	struct ctx		 cx;
	size_t			 i;

	cx.res = res;
	cx.mode = mode;
	cx.rules = rules;
	check_text(&cx, NULL, cmdline != NULL ? cmdline : "",
	    cmdline != NULL ? len : 0, 0);
	res->verdict = POL_ALLOW;
	res->rule = "empty";
	res->reason = "nothing to run";
	for (i = 0; i < res->ncmds; i++) {
		if (i == 0 || res->cmds[i].verdict > res->verdict) {
			res->verdict = res->cmds[i].verdict;
			res->rule = res->cmds[i].rule;
			res->reason = res->cmds[i].reason;
		}
	}
	return res;
}

void
pol_result_free(struct pol_result *res)
{
	size_t	i;

	if (res == NULL)
		return;
	for (i = 0; i < res->ncmds; i++) {
		strv_free(res->cmds[i].argv);
		free(res->cmds[i].reason);
		free(res->cmds[i].rule);
	}
	free(res->cmds);
	free(res);
}
