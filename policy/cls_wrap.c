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

	/*
	 * Only the wrapper's own options count: a "-p" among the wrapped
	 * command's words ("sh -c 'git push' -p") is not taskset -p.
	 */
	i = skip_opts(c->w, c->n, 1, t->letters, t->longs, t->npos);
	if ((t->flags & CT_OUTPUT) && has_opt(c->w, i, 'o', "output"))
		set_mut(c->a, "%s -o writes a file", c->name);
	if ((t->flags & CT_PID) && has_opt(c->w, i, 'p', "pid")) {
		set_mut(c->a, "%s on a running process", c->name);
		return CLS_DONE;
	}
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

/*
 * The words from i on as a shell line: wrappers that hand their operands
 * to a shell (tmux, watchexec, yarn exec, entr -s).  A single word is the
 * line itself; several are joined with spaces, which also covers the
 * wrappers that exec them as a vector (the joined line parses to at least
 * the same command).  An expansion makes the line unknown.
 */
static int
run_line(struct cls_call *c, size_t i, const char *what)
{
	char	*s;
	size_t	 j, len;

	for (j = i; j < c->n; j++)
		if (!lit(&c->w[j])) {
			set_opaque(c->a, "%s runs a command line with an "
			    "expansion", what);
			return CLS_DONE;
		}
	set_ro(c->a, "%s runs the command line given to it", what);
	if (i >= c->n)
		return CLS_DONE;
	s = join_words(c->w + i, c->n - i, &len);
	cls_check_text(c->cx, s, len, c->nest + 1);
	free(s);
	return CLS_DONE;
}

/* Index of the first "--" from i on, or n. */
static size_t
dashdash(const struct sh_word *w, size_t n, size_t i)
{
	for (; i < n; i++)
		if (weq(&w[i], "--"))
			return i;
	return n;
}

/* Is word t option o, alone or as --o=value / -oVALUE? */
static int
optis(const struct sh_word *w, const char *o)
{
	size_t	l = strlen(o);

	return lit(w) && strncmp(w->text, o, l) == 0 &&
	    (w->text[l] == '\0' || w->text[l] == '=' ||
	    (o[1] != '-' && l == 2));
}

/*
 * A wrapper the table models by its options (cls_wrap) that, without a
 * command, starts or acts on something (ssh-agent, cpulimit -e): a
 * change, not a read.
 */
int
cls_wrap_daemon(struct cls_call *c)
{
	size_t	i;

	i = skip_opts(c->w, c->n, 1, c->t->letters, c->t->longs,
	    c->t->npos);
	if ((c->t->flags & CT_PID) && has_opt(c->w, i, 'p', "pid")) {
		set_mut(c->a, "%s on a running process", c->name);
		return CLS_DONE;
	}
	if (i >= c->n) {
		set_mut(c->a, "%s starts or acts on a process", c->name);
		return CLS_DONE;
	}
	return unwrap(c, i);
}

/*
 * gdb --args PROG ARGS runs PROG; -ex, -x and the init-command options
 * give gdb commands, and "shell" is one of them.
 */
int
cls_gdb(struct cls_call *c)
{
	static const char *const cmdopt[] = { "-ex", "-x", "-iex", "-ix",
	    "--ex", "--x", "--iex", "--ix", "-eval-command",
	    "--eval-command", "-command", "--command", "-init-command",
	    "--init-command", "-init-eval-command", "--init-eval-command",
	    NULL };
	size_t	i;

	for (i = 1; i < c->n; i++) {
		if (!lit(&c->w[i]) || in_list(c->w[i].text, cmdopt) ||
		    strchr(c->w[i].text, '=') != NULL) {
			set_opaque(c->a, "%s runs debugger commands",
			    c->name);
			return CLS_DONE;
		}
		if (weq(&c->w[i], "--args") || weq(&c->w[i], "-args")) {
			if (i + 1 >= c->n)
				break;
			return unwrap(c, i + 1);
		}
		if (c->w[i].text[0] != '-')
			break;
	}
	set_mut(c->a, "%s debugs a program", c->name);
	return CLS_DONE;
}

/*
 * tmux: new-session, new-window, split-window, respawn-* and run-shell
 * run a shell command given in their operands; -c runs one too.  Every
 * other tmux command that takes a command (send-keys types into a shell,
 * if-shell, bind-key, set-hook, source-file, a configuration file, a
 * default-command option) is opaque, and so is a line of tmux commands
 * chained with ";".  A short list of commands that only list, attach or
 * end sessions is let through.
 */
int
cls_tmux(struct cls_call *c)
{
	static const struct {
		const char	*sub;
		const char	*args;	/* its options that take a value */
	} runs[] = {
		{ "new-session", "cefFnstxy" }, { "new", "cefFnstxy" },
		{ "new-window", "ceFnt" }, { "neww", "ceFnt" },
		{ "split-window", "celtF" }, { "splitw", "celtF" },
		{ "respawn-pane", "cet" }, { "respawnp", "cet" },
		{ "respawn-window", "cet" }, { "respawnw", "cet" },
		{ "run-shell", "cdt" }, { "run", "cdt" },
	};
	static const char *const plain[] = { "ls", "list-sessions",
	    "list-windows", "lsw", "list-panes", "lsp", "list-clients",
	    "lsc", "has-session", "has", "attach-session", "attach", "a",
	    "detach-client", "detach", "kill-session", "kill-server",
	    "kill-window", "killw", "kill-pane", "killp", "capture-pane",
	    "capturep", "select-window", "selectw", "select-pane",
	    "selectp", "rename-session", "rename", "rename-window",
	    "renamew", "start-server", "start", "list-buffers", "lsb",
	    "show-buffer", "showb", "resize-pane", "resizep",
	    "switch-client", "switchc", NULL };
	const struct sh_word	*w = c->w;
	size_t			 i, j, k, n = c->n;
	const char		*t;

	for (i = 1; i < n; i++)
		if (!lit(&w[i]) || strchr(w[i].text, ';') != NULL) {
			set_opaque(c->a, "tmux with chained commands or an "
			    "expansion");
			return CLS_DONE;
		}
	i = skip_opts(w, n, 1, "cfLST", NULL, 0);
	for (j = 1; j < i; j++) {
		t = w[j].text;
		if (!is_opt(&w[j]) || (j > 1 && strcmp(w[j - 1].text,
		    "-c") == 0))
			continue;
		if (strcmp(t, "-c") == 0 && j + 1 < n) {
			set_mut(c->a, "tmux -c runs a shell command");
			cls_check_text(c->cx, w[j + 1].text, w[j + 1].len,
			    c->nest + 1);
			return CLS_DONE;
		}
		if (strchr(t, 'f') != NULL || strchr(t, 'c') != NULL) {
			set_opaque(c->a, "tmux %.20s: a configuration file or "
			    "a command not parsed here", t);
			return CLS_DONE;
		}
	}
	if (i >= n) {
		set_mut(c->a, "tmux starts a session");
		return CLS_DONE;
	}
	t = w[i].text;
	if (in_list(t, plain)) {
		set_mut(c->a, "tmux %s", t);
		return CLS_DONE;
	}
	for (k = 0; k < sizeof(runs) / sizeof(runs[0]); k++)
		if (strcmp(t, runs[k].sub) == 0)
			break;
	if (k == sizeof(runs) / sizeof(runs[0])) {
		set_opaque(c->a, "tmux %.40s runs tmux commands that are not "
		    "parsed here", t);
		return CLS_DONE;
	}
	j = skip_opts(w, n, i + 1, runs[k].args, NULL, 0);
	for (i++; i < j; i++)
		if (is_opt(&w[i]) && (strchr(w[i].text, 'e') != NULL ||
		    strchr(w[i].text, 'C') != NULL)) {
			set_opaque(c->a, "tmux -e or -C: an environment or "
			    "tmux commands");
			return CLS_DONE;
		}
	set_mut(c->a, "tmux starts a shell command");
	return run_line(c, j, "tmux");
}

/*
 * screen [options] command args: runs the command (a vector).  -X sends
 * screen commands (stuff types into a shell), -c reads a configuration
 * file of commands and -s names the shell to start: opaque.
 */
int
cls_screen(struct cls_call *c)
{
	size_t	i;

	i = skip_opts(c->w, c->n, 1, c->t->letters, c->t->longs, 0);
	if (has_opt(c->w, i, 'X', NULL) || has_opt(c->w, i, 'c', NULL) ||
	    has_opt(c->w, i, 's', NULL)) {
		set_opaque(c->a, "screen -X, -c or -s: commands not parsed "
		    "here");
		return CLS_DONE;
	}
	if (i >= c->n) {
		set_mut(c->a, "screen starts or attaches a session");
		return CLS_DONE;
	}
	return unwrap(c, i);
}

/*
 * bwrap: every option up to the command, each with its number of
 * arguments.  An option not in the list is opaque (the command cannot be
 * found reliably), and so is --args, which reads more options from a file
 * descriptor.  --setenv is judged as an assignment.
 */
int
cls_bwrap(struct cls_call *c)
{
	static const struct {
		const char	*o;
		int		 n;
	} opts[] = {
		{ "--add-seccomp-fd", 1 }, { "--argv0", 1 },
		{ "--as-pid-1", 0 }, { "--bind", 2 }, { "--bind-data", 2 },
		{ "--bind-fd", 2 }, { "--bind-try", 2 }, { "--block-fd", 1 },
		{ "--cap-add", 1 }, { "--cap-drop", 1 }, { "--chdir", 1 },
		{ "--chmod", 2 }, { "--clearenv", 0 }, { "--dev", 1 },
		{ "--dev-bind", 2 }, { "--dev-bind-try", 2 },
		{ "--die-with-parent", 0 }, { "--dir", 1 },
		{ "--disable-userns", 0 }, { "--exec-label", 1 },
		{ "--file", 2 }, { "--file-label", 1 }, { "--gid", 1 },
		{ "--hostname", 1 }, { "--info-fd", 1 },
		{ "--json-status-fd", 1 }, { "--level-prefix", 0 },
		{ "--lock-file", 1 }, { "--mqueue", 1 },
		{ "--new-session", 0 }, { "--overlay", 3 },
		{ "--overlay-src", 1 }, { "--perms", 1 }, { "--pidns", 1 },
		{ "--proc", 1 }, { "--remount-ro", 1 },
		{ "--ro-bind", 2 }, { "--ro-bind-data", 2 },
		{ "--ro-bind-fd", 2 }, { "--ro-bind-try", 2 },
		{ "--ro-overlay", 1 }, { "--seccomp", 1 }, { "--setenv", 2 },
		{ "--share-net", 0 }, { "--size", 1 }, { "--symlink", 2 },
		{ "--sync-fd", 1 }, { "--tmp-overlay", 1 }, { "--tmpfs", 1 },
		{ "--uid", 1 }, { "--unsetenv", 1 }, { "--unshare-all", 0 },
		{ "--unshare-cgroup", 0 }, { "--unshare-cgroup-try", 0 },
		{ "--unshare-ipc", 0 }, { "--unshare-net", 0 },
		{ "--unshare-pid", 0 }, { "--unshare-user", 0 },
		{ "--unshare-user-try", 0 }, { "--unshare-uts", 0 },
		{ "--userns", 1 }, { "--userns-block-fd", 1 },
		{ "--userns2", 1 },
	};
	const struct sh_word	*w = c->w;
	struct sh_word		 as;
	size_t			 i, k, n = c->n;
	char			*s;

	for (i = 1; i < n && is_opt(&w[i]);) {
		if (weq(&w[i], "--")) {
			i++;
			break;
		}
		for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
			if (strcmp(w[i].text, opts[k].o) == 0)
				break;
		if (k == sizeof(opts) / sizeof(opts[0])) {
			set_opaque(c->a, "bwrap option %.40s is not modelled "
			    "here", w[i].text);
			return CLS_DONE;
		}
		if (strcmp(opts[k].o, "--setenv") == 0 && i + 2 < n) {
			xasprintf(&s, "%s=%s", w[i + 1].text, w[i + 2].text);
			as.text = s;
			as.len = strlen(s);
			as.flags = w[i + 1].flags | w[i + 2].flags;
			if (sh_is_name(w[i + 1].text, w[i + 1].len))
				check_assign(c->a, &as);
			free(s);
		}
		i += 1 + (size_t)opts[k].n;
	}
	for (k = 1; k < i && k < n; k++)
		if (weq(&w[k], "--args")) {
			set_opaque(c->a, "bwrap --args reads its options from "
			    "a file descriptor");
			return CLS_DONE;
		}
	if (i >= n) {
		set_mut(c->a, "bwrap without a command");
		return CLS_DONE;
	}
	return unwrap(c, i);
}

/* entr [-acdnprsz] utility args; with -s the utility is a shell line. */
int
cls_entr(struct cls_call *c)
{
	size_t	i;

	i = skip_opts(c->w, c->n, 1, NULL, NULL, 0);
	if (i >= c->n) {
		set_ro(c->a, "entr without a command");
		return CLS_DONE;
	}
	if (has_opt(c->w, i, 's', NULL))
		return run_line(c, i, "entr -s");
	return unwrap(c, i);
}

/*
 * watchexec [options] -- command: the words after "--" are run by a
 * shell.  Without "--" the options cannot be told from the command, and
 * -E/--env sets an environment: both opaque.
 */
int
cls_watchexec(struct cls_call *c)
{
	size_t	i, j;

	i = dashdash(c->w, c->n, 1);
	for (j = 1; j < i; j++)
		if (!lit(&c->w[j]) || optis(&c->w[j], "-E") ||
		    optis(&c->w[j], "--env")) {
			set_opaque(c->a, "watchexec sets an environment");
			return CLS_DONE;
		}
	if (i >= c->n) {
		set_opaque(c->a, "watchexec without \"--\" before its "
		    "command");
		return CLS_DONE;
	}
	return run_line(c, i + 1, "watchexec");
}

/*
 * mise exec|x [TOOL@VERSION...] [-c 'line'] [-- command]: the line, or
 * the command after "--".  Other subcommands are judged as an unknown
 * tool (mise run runs project tasks, as make runs recipes).
 */
int
cls_mise(struct cls_call *c)
{
	size_t	i;

	if (c->n < 2 || (!weq(&c->w[1], "exec") && !weq(&c->w[1], "x")))
		return cls_unknown(c);
	for (i = 2; i < c->n && !weq(&c->w[i], "--"); i++)
		if (weq(&c->w[i], "-c") || weq(&c->w[i], "--command")) {
			if (i + 1 >= c->n || !lit(&c->w[i + 1])) {
				set_opaque(c->a, "mise exec -c with an "
				    "expansion");
				return CLS_DONE;
			}
			cls_check_text(c->cx, c->w[i + 1].text,
			    c->w[i + 1].len, c->nest + 1);
			set_ro(c->a, "mise exec runs the line given to it");
			return CLS_DONE;
		} else if (starts(c->w[i].text, "--command=") ||
		    starts(c->w[i].text, "-c")) {
			set_opaque(c->a, "mise exec with a glued command");
			return CLS_DONE;
		}
	if (i + 1 >= c->n) {
		set_mut(c->a, "mise exec starts a shell");
		return CLS_DONE;
	}
	return unwrap(c, i + 1);
}

/* direnv exec DIR command: the command, in DIR's environment. */
int
cls_direnv(struct cls_call *c)
{
	if (c->n < 2 || !weq(&c->w[1], "exec"))
		return cls_unknown(c);
	if (c->n < 4) {
		set_mut(c->a, "direnv exec without a command");
		return CLS_DONE;
	}
	return unwrap(c, 3);
}

/*
 * nix develop|shell ... -c|--command CMD: the command.  nix run runs a
 * package's program, which the line does not name: opaque.
 */
int
cls_nix(struct cls_call *c)
{
	const char	*sub = first_operand(c->w, c->n, NULL);
	size_t		 i;

	if (sub == NULL)
		return cls_unknown(c);
	if (strcmp(sub, "run") == 0 || strcmp(sub, "bundle") == 0) {
		set_opaque(c->a, "nix %s runs a package's program", sub);
		return CLS_DONE;
	}
	if (strcmp(sub, "develop") != 0 && strcmp(sub, "shell") != 0 &&
	    strcmp(sub, "print-dev-env") != 0)
		return cls_unknown(c);
	for (i = 1; i < c->n; i++) {
		if (weq(&c->w[i], "-c") || weq(&c->w[i], "--command")) {
			if (i + 1 >= c->n)
				break;
			return unwrap(c, i + 1);
		}
		if (optis(&c->w[i], "--command") ||
		    weq(&c->w[i], "--run") || optis(&c->w[i], "--run")) {
			set_opaque(c->a, "nix %s with a command form not "
			    "parsed here", sub);
			return CLS_DONE;
		}
	}
	set_mut(c->a, "nix %s starts a shell", sub);
	return CLS_DONE;
}

/* nix-shell --run|--command 'line': the line. */
int
cls_nix_shell(struct cls_call *c)
{
	size_t	i;

	for (i = 1; i < c->n; i++) {
		if (weq(&c->w[i], "--run") || weq(&c->w[i], "--command")) {
			if (i + 1 >= c->n || !lit(&c->w[i + 1])) {
				set_opaque(c->a, "nix-shell %s with an "
				    "expansion", c->w[i].text);
				return CLS_DONE;
			}
			set_mut(c->a, "nix-shell runs the line given to it");
			cls_check_text(c->cx, c->w[i + 1].text,
			    c->w[i + 1].len, c->nest + 1);
			return CLS_DONE;
		}
		if (optis(&c->w[i], "--run") ||
		    optis(&c->w[i], "--command") ||
		    weq(&c->w[i], "-i") || weq(&c->w[i], "--expr") ||
		    weq(&c->w[i], "-E")) {
			set_opaque(c->a, "nix-shell %.20s runs code not "
			    "parsed here", c->w[i].text);
			return CLS_DONE;
		}
	}
	set_mut(c->a, "nix-shell starts a shell");
	return CLS_DONE;
}

/*
 * kubectl exec|debug|run ... -- command: the command (it runs in a pod,
 * and is judged as if it ran here).  Without "--" the command cannot be
 * found: opaque.  Other subcommands are judged as an unknown tool.
 */
int
cls_kubectl(struct cls_call *c)
{
	const char	*sub = first_operand(c->w, c->n, NULL);
	size_t		 i;

	if (sub == NULL || (strcmp(sub, "exec") != 0 &&
	    strcmp(sub, "debug") != 0 && strcmp(sub, "run") != 0))
		return cls_unknown(c);
	i = dashdash(c->w, c->n, 1);
	if (i + 1 >= c->n) {
		set_opaque(c->a, "kubectl %s without \"--\" before its "
		    "command", sub);
		return CLS_DONE;
	}
	return unwrap(c, i + 1);
}

/* perf: the commands that only read a recording; the rest run one. */
int
cls_perf(struct cls_call *c)
{
	static const char *const ro[] = { "annotate", "buildid-list",
	    "diff", "evlist", "help", "list", "report", "version", NULL };
	const char	*sub = first_operand(c->w, c->n, NULL);

	if (sub == NULL || in_list(sub, ro)) {
		set_ro(c->a, "perf %s", sub != NULL ? sub : "");
		return CLS_DONE;
	}
	set_opaque(c->a, "perf %.40s runs a command or script not parsed "
	    "here", sub);
	return CLS_DONE;
}

/*
 * arch: alone it prints the machine; on macOS "arch -x86_64 cmd" and
 * "arch -arch NAME cmd" run cmd (-d NAME and -e NAME=VALUE set the
 * environment, an -e judged as an assignment).
 */
int
cls_arch(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	size_t			 i;

	for (i = 1; i < c->n && is_opt(&w[i]); i++) {
		if (weq(&w[i], "--")) {
			i++;
			break;
		}
		if (weq(&w[i], "-arch") || weq(&w[i], "-d") ||
		    weq(&w[i], "-e")) {
			if (weq(&w[i], "-e") && i + 1 < c->n)
				check_assign(c->a, &w[i + 1]);
			i++;
		}
	}
	if (i >= c->n) {
		set_ro(c->a, "arch prints the machine");
		return CLS_DONE;
	}
	return unwrap(c, i);
}

/* yarn exec: a command (yarn 1) or a shell line (yarn 2 and later). */
int
cls_yarn_exec(struct cls_call *c)
{
	size_t	i = weq(&c->w[2], "--") ? 3 : 2;

	if (c->n == i + 1)
		return run_line(c, i, "yarn exec");
	if (i >= c->n) {
		set_ro(c->a, "yarn exec without a command");
		return CLS_DONE;
	}
	return unwrap(c, i);
}

/*
 * firejail [--option[=value]]... command: its options are single words
 * (values after "="); -c runs the rest as a shell line.
 */
int
cls_firejail(struct cls_call *c)
{
	size_t	i;

	i = skip_opts(c->w, c->n, 1, NULL, NULL, 0);
	if (has_opt(c->w, i, 'c', NULL))
		return run_line(c, i, "firejail -c");
	if (i >= c->n) {
		set_mut(c->a, "firejail starts a shell");
		return CLS_DONE;
	}
	return unwrap(c, i);
}

/*
 * cmake: -E env and -E time run a command (judged), -P runs a cmake
 * script and -E with any other tool is a file operation.
 */
int
cls_cmake(struct cls_call *c)
{
	size_t	i;

	for (i = 1; i < c->n; i++) {
		if (weq(&c->w[i], "-P") || !lit(&c->w[i])) {
			set_opaque(c->a, "cmake runs a script not parsed "
			    "here");
			return CLS_DONE;
		}
		if (weq(&c->w[i], "-E") && i + 1 < c->n &&
		    (weq(&c->w[i + 1], "env") || weq(&c->w[i + 1], "time"))) {
			/* Options, "--" and NAME=VALUE come first. */
			for (i += 2; i < c->n; i++) {
				if (strchr(c->w[i].text, '=') != NULL)
					check_assign(c->a, &c->w[i]);
				else if (!is_opt(&c->w[i]))
					break;
			}
			if (i >= c->n) {
				set_ro(c->a, "cmake -E env prints nothing");
				return CLS_DONE;
			}
			return unwrap(c, i);
		}
	}
	set_mut(c->a, "cmake builds");
	return CLS_DONE;
}

/* watchman: a trigger runs a command later, on every change. */
int
cls_watchman(struct cls_call *c)
{
	size_t	i;

	for (i = 1; i < c->n; i++)
		if (weq(&c->w[i], "trigger") || weq(&c->w[i], "-j") ||
		    weq(&c->w[i], "--json-command") || !lit(&c->w[i])) {
			set_opaque(c->a, "watchman trigger runs a command "
			    "not parsed here");
			return CLS_DONE;
		}
	set_ro(c->a, "watchman");
	return CLS_DONE;
}
