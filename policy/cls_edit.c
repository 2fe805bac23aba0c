// SPDX-License-Identifier: ISC
/*
 * Programs that run commands given to them as text of their own language
 * (cls.h): make with a makefile from stdin or --eval, whose recipes are
 * shell command lines; vi and its family with -c, --cmd and +, whose ex
 * commands run a shell with !; emacs with --eval; less with +.  What they
 * run is judged like any command line; what cannot be followed is opaque.
 * A makefile or an editor script named by path is a file of the
 * workspace and is judged like running a script: it changes files.
 *
 * Untrusted: every word and here-document comes from agent input.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "policy/classify.h"
#include "policy/cls.h"
#include "policy/shell.h"

/* ---- make ---- */

/* Makefile text that makes make run something a recipe does not show. */
static const char *
mk_hidden(const char *line, size_t len)
{
	static const char *const bad[] = { "shell", "!=", ".RECIPEPREFIX",
	    "SHELL", "eval", "guile", "load", NULL };
	size_t	i, k;

	for (i = 0; bad[i] != NULL; i++) {
		k = strlen(bad[i]);
		if (len >= k && memmem(line, len, bad[i], k) != NULL)
			return bad[i];
	}
	return NULL;
}

/*
 * Judge makefile text: every recipe line (after a tab, or after ";" on a
 * rule line) is a shell command line; make's own prefixes @, - and + are
 * dropped.  A line that names $(shell), !=, SHELL, .RECIPEPREFIX, $(eval)
 * or load runs commands the recipes do not show: opaque.
 */
static void
mk_judge(struct cls_call *c, const char *text, size_t len)
{
	const char	*p = text, *end = text + len, *nl, *why, *semi;
	char		*sh = xmalloc(len + 2), *q = sh;
	size_t		 ll;
	int		 cont = 0;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		ll = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		if (p[0] == '\t' || cont) {
			if (p[0] == '\t') {
				p++;
				ll--;
			}
			while (!cont && ll > 0 && (*p == '@' || *p == '-' ||
			    *p == '+' || *p == ' ' || *p == '\t')) {
				p++;
				ll--;
			}
			memcpy(q, p, ll);
			q += ll;
			*q++ = '\n';
			cont = ll > 0 && p[ll - 1] == '\\';
		} else if ((why = mk_hidden(p, ll)) != NULL) {
			set_opaque(c->a, "make reads a makefile that uses %s, "
			    "which runs commands its recipes do not show", why);
		} else if (memchr(p, ':', ll) != NULL &&
		    (semi = memchr(p, ';', ll)) != NULL) {
			ll -= (size_t)(semi + 1 - p);
			for (semi++; ll > 0 && strchr("@-+ \t", *semi) != NULL;
			    semi++)
				ll--;
			memcpy(q, semi, ll);
			q += ll;
			*q++ = '\n';
		}
		p = nl != NULL ? nl + 1 : end;
	}
	if (q > sh)
		cls_check_text(c->cx, sh, (size_t)(q - sh), c->nest + 1);
	free(sh);
}

static int
mk_stdin(const char *f)
{
	return strcmp(f, "-") == 0 || strcmp(f, "/dev/stdin") == 0 ||
	    strcmp(f, "/dev/fd/0") == 0 || strcmp(f, "/proc/self/fd/0") == 0;
}

/*
 * make [-f FILE] [--eval TEXT] ...: a makefile from stdin (-f -) is
 * judged when it is a here-document or here-string and opaque when it
 * comes from a pipe or a file; --eval text is judged as makefile text.
 */
int
cls_make(struct cls_call *c)
{
	static const char *const vars[] = { "SHELL", ".SHELLFLAGS",
	    "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "MAKEFILES",
	    ".RECIPEPREFIX", NULL };
	const struct sh_word	*w = c->w;
	const char		*t, *f, *ev, *l, *arg;
	char			 name[32];
	size_t			 i, k;
	int			 from_stdin = 0;

	set_mut(c->a, "%s runs the recipes of a makefile", c->name);
	for (i = 1; i < c->n; i++) {
		t = w[i].text;
		f = ev = NULL;
		if (strcmp(t, "--") == 0)
			break;
		if (w[i].flags & SH_W_PROCSUB) {
			set_opaque(c->a, "%s reads a process substitution",
			    c->name);
			return CLS_DONE;
		}
		if (t[0] != '-' && (k = strcspn(t, "=")) < sizeof(name) &&
		    t[k] == '=') {
			/* untrusted: a variable given on the command line
			 * overrides the makefile's (SHELL runs recipes). */
			memcpy(name, t, k);
			name[k] = '\0';
			if (in_list(name, vars)) {
				set_opaque(c->a, "%s %s= changes how recipes "
				    "run", c->name, name);
				return CLS_DONE;
			}
			continue;
		}
		if (t[0] != '-')
			continue;
		if (!lit(&w[i])) {
			set_opaque(c->a, "%s option from an expansion",
			    c->name);
			return CLS_DONE;
		}
		if (t[1] == '-') {
			if (strcmp(t, "--file") == 0 ||
			    strcmp(t, "--makefile") == 0 ||
			    strcmp(t, "--eval") == 0) {
				if (i + 1 >= c->n)
					break;
				if (!lit(&w[i + 1])) {
					set_opaque(c->a, "%s %s from an "
					    "expansion", c->name, t);
					return CLS_DONE;
				}
				if (t[2] == 'e')
					ev = w[++i].text;
				else
					f = w[++i].text;
			} else if (starts(t, "--file=") ||
			    starts(t, "--makefile="))
				f = strchr(t, '=') + 1;
			else if (starts(t, "--eval="))
				ev = t + 7;
		} else {
			/*
			 * A cluster of short options (-sf -, -kf-): the
			 * first that takes a value ends it, with the rest
			 * of the word or the next word as the value.
			 */
			for (l = t + 1; *l != '\0'; l++)
				if (strchr("CEIWfo", *l) != NULL)
					break;
			if (*l == '\0')
				continue;
			if (l[1] != '\0')
				arg = l + 1;
			else if (i + 1 < c->n) {
				if (!lit(&w[i + 1])) {
					set_opaque(c->a, "%s -%c from an "
					    "expansion", c->name, *l);
					return CLS_DONE;
				}
				arg = w[++i].text;
			} else
				break;
			if (*l == 'f')
				f = arg;
			else if (*l == 'E')
				ev = arg;
		}
		if (f != NULL && mk_stdin(f))
			from_stdin = 1;
		if (ev != NULL)
			mk_judge(c, ev, strlen(ev));
	}
	if (!from_stdin)
		return CLS_DONE;
	if (c->io->script != NULL && !c->io->other) {
		if (!lit(c->io->script))
			set_opaque(c->a, "%s reads a makefile with expansions "
			    "from stdin", c->name);
		else
			mk_judge(c, c->io->script->text, c->io->script->len);
	} else
		set_opaque(c->a, "%s reads a makefile from stdin that is not "
		    "on the command line", c->name);
	return CLS_DONE;
}

/* ---- vi, vim, nvim, ex ---- */

/*
 * Judge one ex command: ! runs the rest in a shell; a line number, a
 * search and a few commands that only write, quit or set options are
 * harmless; anything else (call system(), terminal, lua, normal, a
 * chain with |) may run a program and is opaque.
 */
static void
ex_judge(struct cls_call *c, const char *t)
{
	static const char *const safe[] = { "w", "wq", "x", "q", "qa",
	    "qall", "wa", "wqa", "wqall", "xa", "xall", "set", "se",
	    "setlocal", "noh", "nohlsearch", "syntax", "filetype", NULL };
	static const char *const bang[] = { "q!", "qa!", "qall!", "wq!",
	    "wqa!", "x!", "xa!", NULL };
	char	 word[16];
	size_t	 n;

	while (*t == ' ' || *t == '\t' || *t == ':')
		t++;
	if (*t == '!') {
		cls_check_text(c->cx, t + 1, strlen(t + 1), c->nest + 1);
		return;
	}
	if (t[strspn(t, "0123456789$ ")] == '\0' || in_list(t, bang))
		return;
	if (strpbrk(t, "|!\n\r") == NULL) {
		if (*t == '/' || *t == '?')
			return;
		n = strspn(t, "abcdefghijklmnopqrstuvwxyz");
		if (n < sizeof(word) && (t[n] == '\0' || t[n] == ' ')) {
			memcpy(word, t, n);
			word[n] = '\0';
			if (in_list(word, safe))
				return;
		}
	}
	set_opaque(c->a, "%s runs the editor command %.60s, which can run "
	    "programs", c->name, t);
}

/* Ex commands, one a line (stdin of ex, vim -e). */
static void
ex_lines(struct cls_call *c, const char *text, size_t len)
{
	char	*s = xstrndup(text, len), *line, *p = s;

	while ((line = strsep(&p, "\n")) != NULL)
		ex_judge(c, line);
	free(s);
}

/*
 * vi and its family: -c CMD, --cmd CMD and +CMD run ex commands; as ex
 * (or with -e, -E, -es) stdin is ex commands; --remote-send and
 * --remote-expr drive another editor.
 */
int
cls_vi(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	const char		*t;
	size_t			 i;
	int			 ex = strcmp(c->name, "ex") == 0;

	set_mut(c->a, "%s edits files", c->name);
	for (i = 1; i < c->n; i++) {
		t = w[i].text;
		if (strcmp(t, "--") == 0)
			break;
		if (c->w[i].flags & SH_W_PROCSUB) {
			set_opaque(c->a, "%s reads a process substitution",
			    c->name);
			continue;
		}
		if (starts(t, "-c") && t[2] != '\0' && lit(&w[i])) {
			ex_judge(c, t + 2);
			continue;
		}
		if ((strcmp(t, "-S") == 0 || strcmp(t, "-u") == 0 ||
		    strcmp(t, "-s") == 0 || strcmp(t, "-U") == 0) &&
		    i + 1 < c->n && !lit(&w[i + 1])) {
			set_opaque(c->a, "%s %s of an expansion runs editor "
			    "commands", c->name, t);
			i++;
			continue;
		}
		/* -S /dev/stdin and the like: commands from a pipe. */
		if ((strcmp(t, "-S") == 0 || strcmp(t, "-u") == 0 ||
		    strcmp(t, "-s") == 0 || strcmp(t, "-U") == 0) &&
		    i + 1 < c->n && cls_fd_path(w[i + 1].text)) {
			set_opaque(c->a, "%s %s %.60s reads editor commands "
			    "from a descriptor", c->name, t, w[i + 1].text);
			i++;
			continue;
		}
		if (strcmp(t, "-c") == 0 || strcmp(t, "--cmd") == 0) {
			if (i + 1 >= c->n)
				break;
			i++;
			if (!lit(&w[i]))
				set_opaque(c->a, "%s %s from an expansion",
				    c->name, t);
			else
				ex_judge(c, w[i].text);
		} else if (t[0] == '+') {
			if (!lit(&w[i]))
				set_opaque(c->a, "%s + from an expansion",
				    c->name);
			else
				ex_judge(c, t + 1);
		} else if (starts(t, "--remote-send") ||
		    starts(t, "--remote-expr") || starts(t, "--server")) {
			set_opaque(c->a, "%s %s drives another editor",
			    c->name, t);
		} else if (!lit(&w[i]) && t[0] == '-')
			set_opaque(c->a, "%s option from an expansion",
			    c->name);
		else if (strcmp(t, "-e") == 0 || strcmp(t, "-E") == 0 ||
		    strcmp(t, "-es") == 0 || strcmp(t, "-Es") == 0)
			ex = 1;
	}
	if (!ex || (c->io->script == NULL && !c->io->other))
		return CLS_DONE;
	if (c->io->script != NULL && !c->io->other && lit(c->io->script))
		ex_lines(c, c->io->script->text, c->io->script->len);
	else
		set_opaque(c->a, "%s reads editor commands from stdin",
		    c->name);
	return CLS_DONE;
}

/* emacs, emacsclient: --eval, --funcall, --execute run Lisp. */
int
cls_emacs(struct cls_call *c)
{
	static const char *const run[] = { "-eval", "--eval", "-e",
	    "-execute", "--execute", "-f", "-funcall", "--funcall",
	    "--script", "-script", NULL };
	const char	*t;
	size_t		 i, k;
	char		 opt[16];

	set_mut(c->a, "%s edits files", c->name);
	for (i = 1; i < c->n; i++) {
		t = c->w[i].text;
		k = strcspn(t, "=");
		if (t[0] != '-' || k >= sizeof(opt))
			continue;
		memcpy(opt, t, k);
		opt[k] = '\0';
		/* emacs -e is not --eval, but emacsclient -e is. */
		if (in_list(opt, run) && (strcmp(opt, "-e") != 0 ||
		    strcmp(c->name, "emacsclient") == 0)) {
			set_opaque(c->a, "%s %s runs Lisp, which can run "
			    "programs", c->name, opt);
			return CLS_DONE;
		}
	}
	return CLS_DONE;
}

/*
 * less +CMD runs CMD as if typed: ! runs a shell, | pipes to one, v
 * starts an editor, s saves.  A line number, G, g, F or a search is
 * harmless; anything else is opaque.  Otherwise less reads.
 */
int
cls_less(struct cls_call *c)
{
	const char	*t;
	size_t		 i;

	for (i = 1; i < c->n; i++) {
		t = c->w[i].text;
		if (strcmp(t, "--") == 0)
			break;
		if (t[0] != '+')
			continue;
		t++;
		if (t[0] == '+')
			t++;
		if (lit(&c->w[i]) && (t[strspn(t, "0123456789")] == '\0' ||
		    strcmp(t, "G") == 0 || strcmp(t, "g") == 0 ||
		    strcmp(t, "F") == 0 || ((t[0] == '/' || t[0] == '?') &&
		    strpbrk(t, "!|\n") == NULL)))
			continue;
		set_opaque(c->a, "%s +%.40s runs a command of %s, which can "
		    "run programs", c->name, t, c->name);
		return CLS_DONE;
	}
	return cls_ro(c);
}
