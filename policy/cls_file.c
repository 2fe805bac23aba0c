// SPDX-License-Identifier: ISC
/*
 * The file, text and network family of the command classifier (cls.h):
 * commands known to be read-only (unless an option of theirs writes a
 * file), commands that change files or processes, removal and mode
 * changes that can destroy a system or home directory, writes to block
 * devices, find with -exec/-delete, and network tools (the effect class
 * network-access).  Unknown commands are judged here too.
 */
#include <string.h>

#include "policy/classify.h"
#include "policy/cls.h"
#include "policy/shell.h"

/*
 * Unknown programs run in chat; read-only modes refuse them.  The table
 * cannot list every program that runs its arguments as a command (a
 * wrapper it does not know, a project's own script), so an unknown
 * command whose words, from some word that names a command the table
 * knows, would be asked or refused on their own ("mywrap git push",
 * "./run sudo id") is opaque: what it runs cannot be seen here.  The
 * probe does not nest (an unknown command met while probing is not
 * probed again), which keeps the work linear in the words.
 */
int
cls_unknown(struct cls_call *c)
{
	const unsigned	 worse = POL_F_HARD | POL_F_PUSH | POL_F_REMOTE |
	    POL_F_OPAQUE;
	const struct cls_tool *t;
	struct an	 probe;
	const char	*v;
	size_t		 i;

	if (version_only(c->w, c->n)) {
		set_ro(c->a, "%s %s", c->name, c->w[1].text);
		return CLS_DONE;
	}
	if (c->cx->probing)
		return CLS_DONE;
	for (i = 1; i < c->n; i++) {
		if (!lit(&c->w[i]))
			continue;
		/*
		 * A word with blanks or operators may be a command line the
		 * program hands to a shell (nodemon --exec, su -c), also as
		 * an option's value (--exec='...'): judged as one, a word
		 * that does not parse as one counting for nothing (it is
		 * likely a message).
		 */
		v = c->w[i].text;
		if (v[0] == '-')
			v = strchr(v, '=') != NULL ? strchr(v, '=') + 1 : "";
		if (strpbrk(v, " \t\n;&|") != NULL) {
			c->cx->probing = 1;
			c->cx->probe_flags = c->cx->probe_classes = 0;
			cls_check_text(c->cx, v, strlen(v), c->nest + 1);
			c->cx->probing = 0;
			if ((c->cx->probe_flags & ~POL_F_PARSE_ERROR &
			    worse) || (c->cx->probe_classes &
			    ~POL_CLASS_BIT(POL_CLASS_NETWORK_ACCESS))) {
				set_opaque(c->a, "%.40s is not a known program "
				    "and its word \"%.60s\" would not be "
				    "allowed as a command line", c->name,
				    c->w[i].text);
				return CLS_DONE;
			}
			continue;
		}
		if (c->w[i].text[0] == '-')
			continue;
		t = cls_lookup(base(c->w[i].text));
		if (t->fn == cls_unknown || t->fn == cls_alias ||
		    t->fn == cls_ro)
			continue;
		memset(&probe, 0, sizeof(probe));
		c->cx->probing = 1;
		c->cx->probe_flags = c->cx->probe_classes = 0;
		cls_analyze(c->cx, &probe, c->w + i, c->n - i, c->io,
		    c->nest);
		c->cx->probing = 0;
		probe.flags |= c->cx->probe_flags;
		probe.classes |= c->cx->probe_classes;
		if ((probe.flags & worse) || (probe.classes &
		    ~POL_CLASS_BIT(POL_CLASS_NETWORK_ACCESS))) {
			set_opaque(c->a, "%.40s is not a known program and "
			    "its words from %.40s would not be allowed on "
			    "their own (%.80s)", c->name, c->w[i].text,
			    probe.hard[0] ? probe.hard : probe.ask[0] ?
			    probe.ask : probe.opaque[0] ? probe.opaque :
			    probe.cls[0] ? probe.cls : "a command line in "
			    "them");
			return CLS_DONE;
		}
	}
	return CLS_DONE;
}

/*
 * A read-only tool, unless an option of its table entry writes a file
 * (in the read-only modes those are writes): short option
 * letters (each takes the file as its argument) and long option names.
 */
int
cls_ro(struct cls_call *c)
{
	const struct cls_tool	*t = c->t;
	const char		*l;
	size_t			 j;

	for (l = t->letters; l != NULL && *l != '\0'; l++)
		if (has_opt(c->w, c->n, *l, NULL)) {
			set_mut(c->a, "%s -%c writes a file", c->name, *l);
			return CLS_DONE;
		}
	for (j = 0; t->longs != NULL && t->longs[j] != NULL; j++)
		if (has_opt(c->w, c->n, 0, t->longs[j])) {
			set_mut(c->a, "%s --%s writes a file", c->name,
			    t->longs[j]);
			return CLS_DONE;
		}
	set_ro(c->a, "%s", c->name);
	return CLS_DONE;
}

int
cls_mut(struct cls_call *c)
{
	set_mut(c->a, "%s modifies files or processes", c->name);
	return CLS_DONE;
}

/* xxd IN OUT writes OUT. */
int
cls_xxd(struct cls_call *c)
{
	const struct sh_word	*ops[3];

	if (operands(c->w, c->n, ops, 3) >= 2) {
		set_mut(c->a, "xxd writes its output file");
		return CLS_DONE;
	}
	return cls_ro(c);
}

/* man -P and -H run a pager or a browser of the command line's choice. */
int
cls_man(struct cls_call *c)
{
	if (has_opt(c->w, c->n, 'P', "pager") ||
	    has_opt(c->w, c->n, 'H', "html")) {
		set_opaque(c->a, "%s runs a command (pager, browser or !)",
		    c->name);
		return CLS_DONE;
	}
	return cls_ro(c);
}

/* dc and bc run a shell command with "!". */
int
cls_calc(struct cls_call *c)
{
	if (has_bang(c->w, c->n)) {
		set_opaque(c->a, "%s runs a command (pager, browser or !)",
		    c->name);
		return CLS_DONE;
	}
	return cls_ro(c);
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

/* rm, mv, rmdir, srm. */
int
cls_rm(struct cls_call *c)
{
	an_rm_like(c->a, c->w, c->n, c->name);
	return CLS_DONE;
}

/* chmod, chown, chgrp. */
int
cls_chmod(struct cls_call *c)
{
	an_chmod(c->a, c->w, c->n, c->name);
	return CLS_DONE;
}

int
cls_dd(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	size_t			 i;

	for (i = 1; i < c->n; i++)
		if (lit(&w[i]) && starts(w[i].text, "of=")) {
			if (block_device(w[i].text + 3)) {
				DESTROY(c->a, "dd writes to device %.40s",
				    w[i].text + 3);
				return CLS_DONE;
			}
			if (!harmless_sink(w[i].text + 3))
				set_mut(c->a, "dd writes %.60s",
				    w[i].text + 3);
		}
	if (!(c->a->flags & POL_F_MUTATING))
		set_ro(c->a, "dd to stdout");
	return CLS_DONE;
}

/* shred, wipe. */
int
cls_shred(struct cls_call *c)
{
	check_device_args(c->a, c->w, c->n, c->name);
	set_mut(c->a, "%s destroys file contents", c->name);
	return CLS_DONE;
}

/* cp, install, ln, truncate. */
int
cls_cp(struct cls_call *c)
{
	check_device_args(c->a, c->w, c->n, c->name);
	set_mut(c->a, "%s writes files", c->name);
	return CLS_DONE;
}

/* tee to /dev/null or stdout only is read-only. */
int
cls_tee(struct cls_call *c)
{
	const struct sh_word	*ops[8];
	size_t			 no, j;

	check_device_args(c->a, c->w, c->n, c->name);
	no = operands(c->w, c->n, ops, 8);
	for (j = 0; j < no; j++)
		if (!lit(ops[j]) || !harmless_sink(ops[j]->text))
			break;
	if (j == no) {
		set_ro(c->a, "tee to stdout");
		return CLS_DONE;
	}
	set_mut(c->a, "%s writes files", c->name);
	return CLS_DONE;
}

int
cls_cat(struct cls_call *c)
{
	set_ro(c->a, "cat");
	return CLS_DONE;
}

/* kill -1 (after the signal) signals every process. */
int
cls_kill(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	const char		*t;
	size_t			 i;
	int			 sig_seen = 0, dd = 0;

	for (i = 1; i < c->n; i++) {
		t = w[i].text;
		if (!dd && strcmp(t, "--") == 0) {
			dd = 1;
			continue;
		}
		if (!dd && (strcmp(t, "-s") == 0 || strcmp(t, "-n") == 0)) {
			i++;
			sig_seen = 1;
			continue;
		}
		if (!dd && t[0] == '-' && !sig_seen) {
			sig_seen = 1;
			continue;
		}
		if (strcmp(t, "-1") == 0) {
			DESTROY(c->a, "kill -1 signals every process");
			return CLS_DONE;
		}
	}
	set_mut(c->a, "kill signals processes");
	return CLS_DONE;
}

int
cls_sort(struct cls_call *c)
{
	if (has_opt(c->w, c->n, 'o', "output"))
		set_mut(c->a, "sort -o writes a file");
	else
		set_ro(c->a, "sort");
	return CLS_DONE;
}

/* uniq IN OUT writes OUT. */
int
cls_uniq(struct cls_call *c)
{
	const struct sh_word	*ops[3];

	if (operands(c->w, c->n, ops, 3) >= 2)
		set_mut(c->a, "uniq writes its output file");
	else
		set_ro(c->a, "uniq");
	return CLS_DONE;
}

/* tar, bsdtar: t (list) reads; anything else writes. */
int
cls_tar(struct cls_call *c)
{
	const struct sh_word	*w = c->w;

	if (c->n >= 2 && lit(&w[1]) && ((w[1].text[0] != '-' &&
	    strchr(w[1].text, 't') != NULL) || (w[1].text[0] == '-' &&
	    w[1].text[1] != '-' && strchr(w[1].text, 't') != NULL) ||
	    has_opt(w, c->n, 0, "list")))
		set_ro(c->a, "tar lists an archive");
	else
		set_mut(c->a, "tar writes files");
	return CLS_DONE;
}

int
cls_unzip(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	size_t			 n = c->n;

	if (has_opt(w, n, 'l', NULL) || has_opt(w, n, 't', NULL) ||
	    has_opt(w, n, 'Z', NULL) || has_opt(w, n, 'p', NULL))
		set_ro(c->a, "unzip lists an archive");
	else
		set_mut(c->a, "unzip writes files");
	return CLS_DONE;
}

/* curl to stdout reads; -o, -d, -T, -X POST, ... write or send. */
int
cls_curl(struct cls_call *c)
{
	static const char *const wr[] = { "--output", "--remote-name",
	    "--remote-name-all", "--upload-file", "--form", "--cookie-jar",
	    "--dump-header", "--json", "--output-dir", NULL };
	const struct sh_word	*w = c->w;
	struct an		*a = c->a;
	const char		*t;
	size_t			 i, n = c->n;

	set_class(a, POL_CLASS_NETWORK_ACCESS, "curl makes network "
	    "requests");
	for (i = 1; i < n; i++) {
		t = w[i].text;
		if (!lit(&w[i]) || t[0] != '-')
			continue;
		if (strcmp(t, "-X") == 0 || strcmp(t, "--request") == 0) {
			if (i + 1 < n && !weq(&w[i + 1], "GET") &&
			    !weq(&w[i + 1], "HEAD"))
				set_mut(a, "curl %s changes remote state", t);
			i++;
			continue;
		}
		if (t[1] == '-') {
			if (in_list(t, wr) || starts(t, "--data"))
				set_mut(a, "curl %s writes a file or sends "
				    "data", t);
			continue;
		}
		if (strpbrk(t + 1, "oOTdFcDJ") != NULL)
			set_mut(a, "curl %s writes a file or sends data", t);
	}
	if (!(a->flags & POL_F_MUTATING))
		set_ro(a, "curl to stdout");
	return CLS_DONE;
}

/* wget -O- and --spider print; otherwise it writes files. */
int
cls_wget(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	size_t			 i, n = c->n;

	set_class(c->a, POL_CLASS_NETWORK_ACCESS, "wget makes network "
	    "requests");
	if (has_opt(w, n, 0, "output-file") ||
	    has_opt(w, n, 0, "append-output") ||
	    has_opt(w, n, 'o', NULL) || has_opt(w, n, 'a', NULL)) {
		set_mut(c->a, "wget -o writes a log file");
		return CLS_DONE;
	}
	for (i = 1; i < n; i++)
		if (weq(&w[i], "-O-") || weq(&w[i], "-qO-") ||
		    (weq(&w[i], "-O") && i + 1 < n && weq(&w[i + 1], "-")) ||
		    (weq(&w[i], "-qO") && i + 1 < n &&
		    weq(&w[i + 1], "-")) ||
		    weq(&w[i], "--output-document=-") ||
		    weq(&w[i], "--spider")) {
			set_ro(c->a, "wget to stdout");
			return CLS_DONE;
		}
	set_mut(c->a, "wget writes files");
	return CLS_DONE;
}

/* ssh, scp, rsync, nc, ...: can send data or change remote state. */
int
cls_net(struct cls_call *c)
{
	set_class(c->a, POL_CLASS_NETWORK_ACCESS, "%s uses the network",
	    c->name);
	set_mut(c->a, "%s can send data or change remote state", c->name);
	return CLS_DONE;
}

/* dig, host, ping, traceroute, whois, ...: only look. */
int
cls_net_ro(struct cls_call *c)
{
	set_class(c->a, POL_CLASS_NETWORK_ACCESS, "%s uses the network",
	    c->name);
	set_ro(c->a, "%s", c->name);
	return CLS_DONE;
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
			cls_analyze(cx, &sub, w + i + 1, j - i - 1, io, nest);
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


int
cls_find(struct cls_call *c)
{
	an_find(c->cx, c->a, c->w, c->n, c->io, c->nest);
	return CLS_DONE;
}

/* export, declare, typeset, local, readonly: assignments are checked. */
int
cls_export(struct cls_call *c)
{
	size_t	i;

	for (i = 1; i < c->n; i++)
		if (strchr(c->w[i].text, '=') != NULL)
			check_assign(c->a, &c->w[i]);
	set_ro(c->a, "%s sets shell variables", c->name);
	return CLS_DONE;
}
