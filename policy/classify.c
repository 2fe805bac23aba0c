// SPDX-License-Identifier: ISC
/*
 * The command classifier's walker (see classify.h, and cls.h for the
 * layout).  shell.c lists the simple commands; this file normalises each
 * one (basename of the command after quote removal), looks its name up in
 * the one table (cls_table.c), lets the handler unwrap wrappers or record
 * what the command does, and turns that into a verdict for the mode.  It
 * also holds the word helpers every family shares.
 *
 * Untrusted: every word comes from agent input.  Reasons quote at most a
 * bounded prefix of a word; recursion (sh -c, eval, env -S, here-documents
 * fed to a shell) is bounded by POL_MAX_NEST.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "policy/classify.h"
#include "policy/cls.h"
#include "policy/guard.h"
#include "policy/shell.h"

static void
vset(char *dst, const char *fmt, va_list ap)
{
	if (dst[0] == '\0')
		vsnprintf(dst, REASON_MAX, fmt, ap);
}

void
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


/* Set a flag and, the first time, the reason that goes with it. */
void
set_flag(struct an *a, unsigned flag, char *why, const char *fmt, ...)
{
	va_list	ap;

	a->flags |= flag;
	va_start(ap, fmt);
	vset(why, fmt, ap);
	va_end(ap);
}


void
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

void
set_class(struct an *a, enum pol_class c, const char *fmt, ...)
{
	va_list	ap;

	a->classes |= POL_CLASS_BIT(c);
	va_start(ap, fmt);
	vset(a->cls, fmt, ap);
	va_end(ap);
}

int
in_list(const char *s, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

/*
 * Does argv (from index 1) have short option c (in any cluster such as
 * -rf) or long option lng?  Stops at "--".
 */
int
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
int
has_bang(const struct sh_word *w, size_t n)
{
	size_t	i;

	for (i = 1; i < n; i++)
		if (!lit(&w[i]) || strchr(w[i].text, '!') != NULL)
			return 1;
	return 0;
}

/* Any word that the shell will split into unknown fields? */
int
has_unq_expand(const struct sh_word *w, size_t n)
{
	size_t	i;

	for (i = 1; i < n; i++)
		if (w[i].flags & (SH_W_UNQ_EXPAND | SH_W_GLOB | SH_W_BRACE))
			return 1;
	return 0;
}

/* Operands: words after the options (all words after "--"). */
size_t
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
int
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

int
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

int
harmless_sink(const char *t)
{
	return strcmp(t, "/dev/null") == 0 || strcmp(t, "/dev/stdout") == 0 ||
	    strcmp(t, "/dev/stderr") == 0 || strcmp(t, "/dev/tty") == 0 ||
	    starts(t, "/dev/fd/") || strcmp(t, "-") == 0;
}

/*
 * The words joined, each followed by a space (eval, watch): what the
 * shell would run.  *lenp is the length without the final NUL.
 */
char *
join_words(const struct sh_word *w, size_t n, size_t *lenp)
{
	size_t	 i, tot = 1, off = 0;
	char	*js;

	for (i = 0; i < n; i++)
		tot += w[i].len + 1;
	js = xmalloc(tot);
	for (i = 0; i < n; i++) {
		memcpy(js + off, w[i].text, w[i].len);
		off += w[i].len;
		js[off++] = ' ';
	}
	js[off] = '\0';
	*lenp = off;
	return js;
}

/* Write "a b c" of words (literal, bounded) into buf, shell-quoted. */
char *
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

int
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
	/* less +CMD and more +CMD run CMD ("+!sh", "+|sh"). */
	if (strstr(v, " +") != NULL || strchr(v, '!') != NULL)
		return 0;
	n = strcspn(v, " \t");
	if (n >= sizeof(first))
		return 0;
	memcpy(first, v, n);
	first[n] = '\0';
	return in_list(first, ok);
}

void
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
	    "PYTHONSTARTUP", "PYTHONINSPECT", "VIMINIT", "EXINIT",
	    "GVIMINIT", "LESSOPEN", "LESSCLOSE", NULL };
	static const char *const makeflags[] = { "MAKEFLAGS", "MFLAGS",
	    "GNUMAKEFLAGS", NULL };
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
	else if (strcmp(name, "LESS") == 0 && (!lit(w) ||
	    strchr(eq + 1, '+') != NULL))
		set_opaque(a, "LESS=%.40s gives less a command to run", eq + 1);
	else if (in_list(name, makeflags) && (!lit(w) ||
	    strpbrk(eq + 1, "Ef") != NULL || strstr(eq + 1, "eval") != NULL))
		set_opaque(a, "%s=%.40s gives make a makefile or makefile "
		    "text", name, eq + 1);
	else if (starts(name, "BASH_ALIASES") || starts(name, "BASH_CMDS"))
		set_opaque(a, "%.20s changes what a command name runs (bash "
		    "aliases or its table of commands)", name);
}

/* ---- options and operands ---- */

/*
 * Skip a wrapper's options and npos positional words.  sarg: short options
 * that take an argument; larg: long options that take one (space form).
 * Returns the index of the wrapped command (== n when there is none).
 */
size_t
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

/* The first operand (index in *idx), NULL if none or an expansion. */
const char *
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

/* The words an unknown program would need to print its version or help. */
int
version_only(const struct sh_word *w, size_t n)
{
	static const char *const v[] = { "--version", "-V", "-v", "version",
	    "--help", "-h", "-version", "help", NULL };

	return n == 2 && lit(&w[1]) && in_list(w[1].text, v);
}

/* Any argument naming a block device: a write there destroys a disk. */
void
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

/* A command name outside ASCII may be a look-alike ("ѕudo"). */
static int
non_ascii(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s >= 0x80)
			return 1;
	return 0;
}

/* ---- aliases ---- */

int
cls_alias_define(struct ctx *cx, const char *name, size_t nlen,
    const char *value, int opaque)
{
	struct cls_alias	*al;
	size_t			 i;

	for (i = 0; i < cx->naliases; i++) {
		al = &cx->aliases[i];
		if (strlen(al->name) == nlen &&
		    memcmp(al->name, name, nlen) == 0 &&
		    strcmp(al->value, value) == 0 && al->opaque == opaque)
			return 0;
	}
	if (cx->naliases >= CLS_MAX_ALIASES)
		return -1;
	cx->aliases = xreallocarray(cx->aliases, cx->naliases + 1,
	    sizeof(*cx->aliases));
	al = &cx->aliases[cx->naliases++];
	al->name = xstrndup(name, nlen);
	al->value = xstrdup(value);
	al->opaque = opaque;
	al->active = 0;
	cx->alias_new = 1;
	return 0;
}

/*
 * If w[0] names an alias the command line defines, judge "VALUE args"
 * instead, once per value the name was given (which one is in force when
 * the command runs depends on the order things run in, a loop for one).
 * A name is expanded wherever it is a command, also after a wrapper: a
 * wrapper that is a shell keyword (time, !) does see aliases, and judging
 * the expansion where the shell would not only adds to what is judged.
 * Argument words that are expansions are passed on in their source
 * spelling, so they stay expansions.  Returns 1 if w[0] is an alias.
 */
static int
alias_expand(struct ctx *cx, struct an *a, const struct sh_word *w,
    size_t n, int nest)
{
	size_t	 i, j, k, need;
	char	*s, *p;
	int	 hit = 0;

	for (i = 0; i < cx->naliases; i++) {
		if (cx->aliases[i].active ||
		    strcmp(cx->aliases[i].name, w[0].text) != 0)
			continue;
		hit = 1;
		if (cx->aliases[i].opaque) {
			set_opaque(a, "%.40s is an alias defined from an "
			    "expansion", w[0].text);
			continue;
		}
		need = strlen(cx->aliases[i].value) + 1;
		for (j = 1; j < n; j++)
			need += 3 + w[j].len * 4;
		s = p = xmalloc(need);
		memcpy(p, cx->aliases[i].value, strlen(cx->aliases[i].value));
		p += strlen(cx->aliases[i].value);
		for (j = 1; j < n; j++) {
			*p++ = ' ';
			if (!lit(&w[j])) {
				memcpy(p, w[j].text, w[j].len);
				p += w[j].len;
				continue;
			}
			*p++ = '\'';
			for (k = 0; k < w[j].len; k++) {
				if (w[j].text[k] == '\'') {
					memcpy(p, "'\\''", 4);
					p += 4;
				} else
					*p++ = w[j].text[k];
			}
			*p++ = '\'';
		}
		*p = '\0';
		set_ro(a, "alias %.40s: judged as what it expands to",
		    w[0].text);
		/* Index, not pointer: the expansion may define more. */
		cx->aliases[i].active = 1;
		cls_check_text(cx, s, (size_t)(p - s), nest + 1);
		cx->aliases[i].active = 0;
		free(s);
	}
	return hit;
}

/*
 * A command given as a path is judged by its last component only when
 * the path may be an installed tool: a directory on the way is one where
 * programs live (bin, sbin, libexec, lib, git-core, alternatives,
 * node_modules/.bin) or the path is under /usr, /opt, /nix, /snap or
 * /gnu.  Any such component anywhere counts, ".." included, so
 * /usr/bin/sudo, /bin/../usr/bin/sudo and ../../usr/bin/sudo are all
 * sudo.  Any other path (/etc/passwd, ./build/passwd, ~/proj/tools/x)
 * is a program of its own, judged as a command the table does not know:
 * its name tells nothing about what it does, as a link named x to sudo
 * already shows.
 */
static int
program_path(const char *w)
{
	static const char *const dirs[] = { "bin", "sbin", "libexec", "lib",
	    "lib32", "lib64", "libx32", "git-core", "alternatives", ".bin",
	    NULL };
	static const char *const tops[] = { "usr", "opt", "nix", "snap",
	    "gnu", NULL };
	const char	*p, *e, *last = strrchr(w, '/');
	size_t		 n, k;

	if (last == NULL)
		return 0;
	for (p = w; p < last; p = e + 1) {
		e = strchr(p, '/');
		n = (size_t)(e - p);
		for (k = 0; dirs[k] != NULL; k++)
			if (strlen(dirs[k]) == n && strncmp(p, dirs[k], n) == 0)
				return 0;
		for (k = 0; p == w + 1 && tops[k] != NULL; k++)
			if (strlen(tops[k]) == n && strncmp(p, tops[k], n) == 0)
				return 0;
	}
	return 1;
}

/*
 * Classify one command's words: look the name up in the table and let its
 * handler record what the command does or move to the command it wraps.
 * Wrappers loop (MAX_UNWRAP) rather than recurse; find -exec recurses once
 * per -exec with the same nest.
 */
void
cls_analyze(struct ctx *cx, struct an *a, const struct sh_word *w, size_t n,
    const struct io *io, int nest)
{
	struct cls_call	 c;
	size_t		 rounds;

	c.cx = cx;
	c.a = a;
	c.w = w;
	c.n = n;
	c.io = io;
	c.nest = nest;
	for (rounds = 0; rounds < MAX_UNWRAP; rounds++) {
		if (c.n == 0) {
			set_ro(a, "no command");
			return;
		}
		if (!lit(&c.w[0])) {
			set_opaque(a, "the command name is an expansion "
			    "(%.60s)", c.w[0].text);
			return;
		}
		c.name = base(c.w[0].text);
		if (c.name[0] == '\0') {
			set_mut(a, "%.60s", c.w[0].text);
			return;
		}
		if (non_ascii(c.name)) {
			set_opaque(a, "the command name %.60s has characters "
			    "outside ASCII", c.name);
			return;
		}
		if (alias_expand(cx, a, c.w, c.n, c.nest))
			return;
		c.t = cls_lookup(program_path(c.w[0].text) ? "" : c.name);
		if (c.t->fn(&c) == CLS_DONE)
			return;
	}
	set_opaque(a, "too many nested wrappers");
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
	cls_analyze(cx, a, c->argv, c->argc, &io, nest);
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

	/*
	 * A line met while probing an unknown command's words (cls_unknown)
	 * is not a command of the result: what it does counts for the probe.
	 */
	if (cx->probing) {
		cx->probe_flags |= a != NULL ? a->flags : POL_F_PARSE_ERROR;
		cx->probe_classes |= a != NULL ? a->classes : 0;
		return;
	}
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

void
cls_check_text(struct ctx *cx, const char *s, size_t len, int nest)
{
	struct sh_list	 l;
	struct an	 a;
	char		 err[160];
	size_t		 i;

	if (nest > POL_MAX_NEST) {
		/* A probe (cls_unknown) that cannot see the end is opaque. */
		if (cx->probing)
			cx->probe_flags |= POL_F_OPAQUE;
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
}

struct pol_result *
pol_check(const char *cmdline, size_t len, enum pol_mode mode,
    const enum pol_verdict *rules)
{
	struct pol_result	*res;
	struct ctx		 cx;
	size_t			 i;
	int			 pass;

	memset(&cx, 0, sizeof(cx));
	cx.mode = mode;
	cx.rules = rules;
	/*
	 * An alias may be used before the line that defines it runs (in a
	 * loop, or defined by an alias or an eval later on): judge the line
	 * again with every alias found so far until no new one turns up.
	 */
	for (pass = 0;; pass++) {
		res = xcalloc(1, sizeof(*res));
		cx.res = res;
		cx.alias_new = 0;
		cls_check_text(&cx, cmdline != NULL ? cmdline : "",
		    cmdline != NULL ? len : 0, 0);
		if (!cx.alias_new)
			break;
		if (pass == POL_MAX_NEST) {
			add_result(&cx, NULL, NULL, "aliases that define "
			    "aliases nested too deeply");
			break;
		}
		pol_result_free(res);
	}
	for (i = 0; i < cx.naliases; i++) {
		free(cx.aliases[i].name);
		free(cx.aliases[i].value);
	}
	free(cx.aliases);
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
