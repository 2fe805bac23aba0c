// SPDX-License-Identifier: ISC
/*
 * The wrapper family of the command classifier (cls.h): commands that run
 * the command in their arguments (env, command, exec, nice, nohup,
 * timeout, stdbuf, time, strace, xargs, flock, watch, busybox, ...).  A
 * handler skips the wrapper's options, the ones that take an argument
 * given by its table entry, and moves to the wrapped command, which
 * classify.c then looks up again.  env -S, flock -c and watch run a
 * command line: that text is classified as a nested line.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "policy/classify.h"
#include "policy/cls.h"
#include "policy/shell.h"

/* Move the call to the command at index i. */
static int
unwrap(struct cls_call *c, size_t i)
{
	c->w += i;
	c->n -= i;
	return CLS_UNWRAP;
}

/* env [-i] [-u NAME] [-C DIR] [NAME=value]... [-S 'line'] [command] */
int
cls_env(struct cls_call *c)
{
	static const char *const larg[] = { "unset", "chdir",
	    "split-string", "block-signal", "default-signal",
	    "ignore-signal", NULL };
	const struct sh_word	*w = c->w;
	struct an		*a = c->a;
	const char		*t, *ss;
	char			*s;
	size_t			 i, n = c->n;

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
			if (starts(t, "--split-string="))
				ss = t + 15;
			else if (t[1] == 'S' && t[2] != '\0')
				ss = t + 2;
			else if (i + 1 < n && lit(&w[i + 1]))
				ss = w[++i].text;
			else {
				set_opaque(a, "env -S with an expansion");
				return CLS_DONE;
			}
			set_ro(a, "env -S runs the command listed with it");
			s = join_quoted(ss, w + i + 1, n - i - 1);
			cls_check_text(c->cx, s, strlen(s), c->nest + 1);
			free(s);
			return CLS_DONE;
		}
		if (strcmp(t, "--") == 0) {
			i++;
			break;
		}
		if (t[0] == '-' && t[1] != '\0') {
			if (t[1] == '-') {
				if (strchr(t, '=') == NULL &&
				    in_list(t + 2, larg))
					i++;
			} else if ((t[1] == 'u' || t[1] == 'C' ||
			    t[1] == 'P') && t[2] == '\0')
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
		return CLS_DONE;
	}
	return unwrap(c, i);
}

/* command [-pvV] and builtin: -v and -V only look a name up. */
int
cls_command(struct cls_call *c)
{
	size_t	i;

	for (i = 1; i < c->n && is_opt(&c->w[i]); i++)
		if (strchr(c->w[i].text, 'v') != NULL ||
		    strchr(c->w[i].text, 'V') != NULL) {
			set_ro(c->a, "command -v looks a name up");
			return CLS_DONE;
		}
	return unwrap(c, i);
}

/* exec [-cl] [-a NAME] command: without a command it changes nothing. */
int
cls_exec(struct cls_call *c)
{
	return unwrap(c, skip_opts(c->w, c->n, 1, c->t->letters,
	    c->t->longs, c->t->npos));
}

/*
 * nice, nohup, setsid, timeout, stdbuf, time, strace, taskset, ...: skip
 * the options (and the operands before the command, timeout's duration),
 * run what follows.  A trace or timing written to a file (-o) is a write;
 * taskset -p and the like act on a running process, not a command.
 */
int
cls_wrap(struct cls_call *c)
{
	const struct cls_tool	*t = c->t;
	size_t			 i;

	if ((t->flags & CT_OUTPUT) && has_opt(c->w, c->n, 'o', "output"))
		set_mut(c->a, "%s -o writes a file", c->name);
	if ((t->flags & CT_PID) && has_opt(c->w, c->n, 'p', "pid")) {
		set_mut(c->a, "%s on a running process", c->name);
		return CLS_DONE;
	}
	i = skip_opts(c->w, c->n, 1, t->letters, t->longs, t->npos);
	if (i >= c->n) {
		set_ro(c->a, "%s without a command", c->name);
		return CLS_DONE;
	}
	return unwrap(c, i);
}

int
cls_xargs(struct cls_call *c)
{
	size_t	i;

	i = skip_opts(c->w, c->n, 1, c->t->letters, c->t->longs, 0);
	if (i >= c->n) {
		set_ro(c->a, "xargs runs echo");
		return CLS_DONE;
	}
	return unwrap(c, i);
}

/* flock [-wEc ARG] FILE command, or flock FILE -c 'line'. */
int
cls_flock(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	size_t			 i, j, n = c->n;

	i = skip_opts(w, n, 1, c->t->letters, NULL, 0);
	for (j = 1; j < n; j++)
		if ((weq(&w[j], "-c") || weq(&w[j], "--command")) &&
		    j + 1 < n) {
			if (!lit(&w[j + 1])) {
				set_opaque(c->a, "flock -c with an "
				    "expansion");
				return CLS_DONE;
			}
			cls_check_text(c->cx, w[j + 1].text, w[j + 1].len,
			    c->nest + 1);
			set_mut(c->a, "flock takes a lock file");
			return CLS_DONE;
		}
	i++;	/* the lock file */
	if (i >= n) {
		set_mut(c->a, "flock");
		return CLS_DONE;
	}
	return unwrap(c, i);
}

/* watch runs its words as a shell line, or as a command with -x. */
int
cls_watch(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	size_t			 i, j, n = c->n, len;
	int			 x = has_opt(w, n, 'x', "exec");
	char			*js;

	i = skip_opts(w, n, 1, c->t->letters, c->t->longs, 0);
	if (i >= n) {
		set_ro(c->a, "watch without a command");
		return CLS_DONE;
	}
	if (x)
		return unwrap(c, i);
	for (j = i; j < n; j++)
		if (!lit(&w[j])) {
			set_opaque(c->a, "watch with an expansion");
			return CLS_DONE;
		}
	js = join_words(w + i, n - i, &len);
	set_ro(c->a, "watch runs the command listed with it");
	cls_check_text(c->cx, js, len, c->nest + 1);
	free(js);
	return CLS_DONE;
}

/* busybox APPLET ...: the applet is the command. */
int
cls_busybox(struct cls_call *c)
{
	if (c->n == 1 || is_opt(&c->w[1])) {
		set_ro(c->a, "%s lists applets", c->name);
		return CLS_DONE;
	}
	return unwrap(c, 1);
}
