// SPDX-License-Identifier: ISC
/*
 * The interpreter family of the command classifier (cls.h): shells, eval,
 * trap and source, whose text is a command line classified in turn
 * (bounded by POL_MAX_NEST); interpreters whose inline programs (-c, -e)
 * are read-only one-liners or opaque (policy/inline.c decides); and the
 * inline programs of sed and awk.
 */
#include <stdlib.h>
#include <string.h>

#include "policy/classify.h"
#include "policy/cls.h"
#include "policy/inline.h"
#include "policy/shell.h"

/*
 * A script named by a path that is really a file descriptor: what it
 * reads is the caller's input or a pipe, not a file of the workspace.
 * Returns 2 for the standard input (a here-document there can be
 * judged), 1 for another descriptor or /proc path, 0 for a file.
 */
int
cls_fd_path(const char *t)
{
	if (strcmp(t, "/dev/stdin") == 0 || strcmp(t, "/dev/fd/0") == 0 ||
	    strcmp(t, "/proc/self/fd/0") == 0)
		return 2;
	return strncmp(t, "/dev/fd/", 8) == 0 || strncmp(t, "/proc/", 6) ==
	    0 || strcmp(t, "/dev/tty") == 0 || strcmp(t, "-") == 0;
}

/*
 * A script read from a descriptor: judged as the here-document on the
 * standard input if that is where it comes from, else opaque.
 */
static void
fd_script_judge(struct ctx *cx, struct an *a, const struct io *io,
    int nest, const char *name, const char *t)
{
	if (cls_fd_path(t) == 2 && io->script != NULL && !io->other &&
	    lit(io->script)) {
		set_ro(a, "%s reads the commands listed with it", name);
		cls_check_text(cx, io->script->text, io->script->len,
		    nest + 1);
	} else
		set_opaque(a, "%s runs commands read from %.60s", name, t);
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
		cls_check_text(cx, w[i].text, w[i].len, nest + 1);
		return;
	}
	if (i < n && !sflag) {
		if (!lit(&w[i]))
			set_opaque(a, "%s runs a script named by an expansion",
			    name);
		else if (cls_fd_path(w[i].text))
			fd_script_judge(cx, a, io, nest, name, w[i].text);
		else
			set_mut(a, "%s runs script %.60s", name, w[i].text);
		return;
	}
	if (io->script != NULL && !io->other && lit(io->script)) {
		set_ro(a, "%s reads the commands listed with it", name);
		cls_check_text(cx, io->script->text, io->script->len,
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

int
cls_shell(struct cls_call *c)
{
	an_shell(c->cx, c->a, c->w, c->n, c->io, c->nest, c->name);
	return CLS_DONE;
}

/* eval runs its words as a command line. */
int
cls_eval(struct cls_call *c)
{
	size_t	 i, len;
	char	*js;

	for (i = 1; i < c->n; i++)
		if (!lit(&c->w[i])) {
			set_opaque(c->a, "eval of an expansion");
			return CLS_DONE;
		}
	js = join_words(c->w + 1, c->n - 1, &len);
	set_ro(c->a, "eval runs the commands listed with it");
	cls_check_text(c->cx, js, len, c->nest + 1);
	free(js);
	return CLS_DONE;
}

/* trap 'handler' SIGNAL...: the handler is a command line. */
int
cls_trap(struct cls_call *c)
{
	const struct sh_word *w = c->w;

	if (c->n >= 3 && lit(&w[1]) && !is_opt(&w[1])) {
		set_ro(c->a, "trap sets a handler");
		cls_check_text(c->cx, w[1].text, w[1].len, c->nest + 1);
	} else if (c->n >= 3 && !lit(&w[1]))
		set_opaque(c->a, "trap with a handler from an expansion");
	else
		set_ro(c->a, "trap");
	return CLS_DONE;
}

/*
 * alias NAME=VALUE ...: a shell replaces NAME in the command position by
 * VALUE before it runs anything, so the definitions are recorded in the
 * context and a later NAME is judged as what it expands to (classify.c).
 * A definition whose name may come from an expansion cannot be followed:
 * the alias command itself is then opaque.
 */
int
cls_alias(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	const char		*eq;
	size_t			 i, nlen;

	set_ro(c->a, "alias");
	for (i = 1; i < c->n; i++) {
		if (weq(&w[i], "--") || weq(&w[i], "-p"))
			continue;
		eq = strchr(w[i].text, '=');
		if (eq == NULL) {
			if (!lit(&w[i]))
				set_opaque(c->a, "alias from an expansion "
				    "(%.60s)", w[i].text);
			continue;
		}
		nlen = (size_t)(eq - w[i].text);
		if (nlen == 0 || (!lit(&w[i]) &&
		    strcspn(w[i].text, "$`*?[{~") < nlen)) {
			set_opaque(c->a, "alias whose name is an expansion "
			    "(%.60s)", w[i].text);
			continue;
		}
		if (cls_alias_define(c->cx, w[i].text, nlen, eq + 1,
		    !lit(&w[i])) == -1)
			set_opaque(c->a, "too many aliases to follow");
	}
	return CLS_DONE;
}

int
cls_source(struct cls_call *c)
{
	/*
	 * source <(...), source /dev/stdin: commands from a pipe; a name
	 * made by a command substitution may be one.  A variable or a
	 * tilde names a file as a literal does.
	 */
	if (c->n >= 2 && ((c->w[1].flags & SH_W_PROCSUB) ||
	    ((c->w[1].flags & SH_W_EXPAND) && (strstr(c->w[1].text, "$(") !=
	    NULL || strchr(c->w[1].text, '`') != NULL))))
		set_opaque(c->a, "%s runs commands from a command's output",
		    c->name);
	else if (c->n >= 2 && cls_fd_path(c->w[1].text))
		fd_script_judge(c->cx, c->a, c->io, c->nest, c->name,
		    c->w[1].text);
	else
		set_mut(c->a, "%s runs the commands of a file", c->name);
	return CLS_DONE;
}

/* python: -c one-liners, -m pip (a package manager), -m json.tool, ... */
int
cls_python(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	struct an		*a = c->a;
	size_t			 i, n = c->n;

	if (an_interp(a, w, n, c->io, c->name, "c", NULL, "python"))
		return CLS_DONE;
	for (i = 1; i < n; i++) {
		if (weq(&w[i], "-m") && i + 1 < n) {
			if (weq(&w[i + 1], "pip")) {
				cls_pip_sub(a, w + i + 1, n - i - 1, "pip");
				return CLS_DONE;
			}
			if (weq(&w[i + 1], "json.tool")) {
				set_ro(a, "python -m json.tool");
				return CLS_DONE;
			}
			if (weq(&w[i + 1], "http.server"))
				set_class(a, POL_CLASS_NETWORK_ACCESS,
				    "python -m http.server serves files");
			if (weq(&w[i + 1], "twine")) {
				set_ask(a, POL_F_REMOTE, "ask:publish",
				    "twine publishes a package");
				return CLS_DONE;
			}
			break;
		}
		if (!is_opt(&w[i]))
			break;
	}
	set_mut(a, "%s runs a program", c->name);
	return CLS_DONE;
}

int
cls_node(struct cls_call *c)
{
	static const char *const longcode[] = { "eval", "print", NULL };

	if (!an_interp(c->a, c->w, c->n, c->io, c->name, "ep", longcode,
	    "node"))
		set_mut(c->a, "%s runs a program", c->name);
	return CLS_DONE;
}

int
cls_deno(struct cls_call *c)
{
	const struct sh_word *w = c->w;

	if (c->n >= 2 && weq(&w[1], "eval"))
		set_opaque(c->a, "deno eval runs inline code");
	else if (c->n >= 2 && (weq(&w[1], "install") || weq(&w[1], "add"))) {
		set_class(c->a, POL_CLASS_INSTALL_PACKAGE, "deno %s installs "
		    "packages", w[1].text);
		set_mut(c->a, "deno installs packages");
	} else
		set_mut(c->a, "deno runs a program");
	return CLS_DONE;
}

int
cls_perl(struct cls_call *c)
{
	if (has_opt(c->w, c->n, 'i', NULL))
		set_mut(c->a, "perl -i edits files in place");
	if (!an_interp(c->a, c->w, c->n, c->io, c->name, "eE", NULL, "perl"))
		set_mut(c->a, "perl runs a program");
	return CLS_DONE;
}

/* ruby, lua, julia, Rscript, tclsh, ...: -e code. */
int
cls_rubylike(struct cls_call *c)
{
	static const char *const longcode[] = { "eval", "expr", NULL };

	if (!an_interp(c->a, c->w, c->n, c->io, c->name, "e", longcode,
	    strcmp(c->name, "ruby") == 0 ? "ruby" : NULL))
		set_mut(c->a, "%s runs a program", c->name);
	return CLS_DONE;
}

int
cls_php(struct cls_call *c)
{
	if (!an_interp(c->a, c->w, c->n, c->io, c->name, "rRBE", NULL, NULL))
		set_mut(c->a, "php runs a program");
	return CLS_DONE;
}

/* at, batch, expect, parallel, script, fc: commands not parsed here. */
int
cls_opaque(struct cls_call *c)
{
	set_opaque(c->a, "%s runs commands that are not parsed here", c->name);
	return CLS_DONE;
}

int
cls_sed(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	const char		*t;
	size_t			 i, n = c->n;

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
		if (starts(t, "--in-place") || (t[0] == '-' && t[1] != '-' &&
		    strchr(t, 'i') != NULL &&
		    strcspn(t, "ef") > (size_t)(strchr(t, 'i') - t))) {
			set_mut(c->a, "sed -i edits files in place");
			return CLS_DONE;
		}
	}
	switch (sed_effect(w, n)) {
	case INLINE_RO:
		set_ro(c->a, "sed");
		break;
	case INLINE_WRITES:
		set_mut(c->a, "sed script writes a file (w)");
		break;
	default:
		set_opaque(c->a, "sed script runs commands (e) or is not "
		    "understood");
		break;
	}
	return CLS_DONE;
}

int
cls_awk(struct cls_call *c)
{
	switch (awk_effect(c->w, c->n)) {
	case INLINE_RO:
		set_ro(c->a, "%s", c->name);
		break;
	case INLINE_WRITES:
		set_mut(c->a, "%s program writes files", c->name);
		break;
	default:
		set_opaque(c->a, "%s program can run commands (system, a "
		    "pipe, or a program file)", c->name);
		break;
	}
	return CLS_DONE;
}
