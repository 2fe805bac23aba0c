// SPDX-License-Identifier: ISC
/*
 * The git family of the command classifier (cls.h): git, whose global
 * options are skipped and whose subcommand is looked up in a table of its
 * own, and gh.  Configuration given on the command line (git -c, git
 * config, git --config-env) that makes git run a program or connect
 * elsewhere is a hard deny in every mode.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"
#include "policy/classify.h"
#include "policy/cls.h"
#include "policy/shell.h"

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

/* A git subcommand being classified: w[0] is the subcommand. */
struct gcall {
	struct an		*a;
	const struct sh_word	*w;
	size_t			 n;
	const char		*sub;
	const char		*s2;	/* first operand, if literal */
	size_t			 nops;
};

static void
git_push(struct gcall *g)
{
	set_ask(g->a, POL_F_PUSH, "ask:git-push", "git %s changes a remote "
	    "repository", g->sub);
}

static void
git_mail(struct gcall *g)
{
	set_ask(g->a, POL_F_REMOTE, "ask:remote-change", "git %s sends mail",
	    g->sub);
}

static void
git_commit(struct gcall *g)
{
	set_class(g->a, POL_CLASS_CREATE_COMMIT, "git %s creates commits",
	    g->sub);
	set_mut(g->a, "git %s creates commits", g->sub);
	if (strcmp(g->sub, "pull") == 0)
		set_class(g->a, POL_CLASS_NETWORK_ACCESS, "git pull fetches "
		    "from a remote");
}

/*
 * git rebase --exec CMD (-x, or --exec abbreviated as git's option parser
 * allows: --ex, --exe) runs CMD with the shell after each commit: a
 * command line the policy does not see, so the call is opaque.
 */
static void
git_rebase(struct gcall *g)
{
	size_t	i;
	char	*e;

	git_commit(g);
	if (has_opt(g->w, g->n, 'x', "exec")) {
		set_opaque(g->a, "git rebase --exec runs commands");
		return;
	}
	for (i = 1; i < g->n; i++) {
		if (!lit(&g->w[i]))
			continue;
		if (strcmp(g->w[i].text, "--") == 0)
			break;
		e = strchr(g->w[i].text, '=');
		if (strncmp(g->w[i].text, "--ex", 4) == 0 && strncmp("--exec",
		    g->w[i].text, e != NULL ? (size_t)(e - g->w[i].text) :
		    strlen(g->w[i].text)) == 0) {
			set_opaque(g->a, "git rebase --exec runs commands");
			return;
		}
	}
}

static void
git_ls_remote(struct gcall *g)
{
	set_class(g->a, POL_CLASS_NETWORK_ACCESS, "git ls-remote contacts a "
	    "remote");
	set_ro(g->a, "git ls-remote");
}

static void
git_archive(struct gcall *g)
{
	if (has_opt(g->w, g->n, 'o', "output"))
		set_mut(g->a, "git archive --output writes a file");
	else
		set_ro(g->a, "git archive to stdout");
	if (has_opt(g->w, g->n, 0, "remote"))
		set_class(g->a, POL_CLASS_NETWORK_ACCESS, "git archive "
		    "--remote contacts a remote");
}

/* Read-only subcommands, unless --output names a file. */
static int
git_output(struct gcall *g)
{
	if (!has_opt(g->w, g->n, 0, "output"))
		return 0;
	set_mut(g->a, "git %s --output writes a file", g->sub);
	return 1;
}

static void
git_ro(struct gcall *g)
{
	if (!git_output(g))
		set_ro(g->a, "git %s", g->sub);
}

static void
git_grep(struct gcall *g)
{
	if (git_output(g))
		return;
	if (has_opt(g->w, g->n, 'O', "open-files-in-pager") ||
	    has_opt(g->w, g->n, 0, "open-files-in-pager"))
		set_opaque(g->a, "git grep -O runs a pager command");
	else
		set_ro(g->a, "git %s", g->sub);
}

static void
git_hash_object(struct gcall *g)
{
	if (git_output(g))
		return;
	if (has_opt(g->w, g->n, 'w', NULL))
		set_mut(g->a, "git hash-object -w writes objects");
	else
		set_ro(g->a, "git %s", g->sub);
}

static void
git_fsck(struct gcall *g)
{
	if (git_output(g))
		return;
	if (has_opt(g->w, g->n, 0, "lost-found"))
		set_mut(g->a, "git fsck --lost-found writes files");
	else
		set_ro(g->a, "git %s", g->sub);
}

static void
git_help(struct gcall *g)
{
	if (git_output(g))
		return;
	if (has_opt(g->w, g->n, 'w', "web") || has_opt(g->w, g->n, 0,
	    "browser"))
		set_opaque(g->a, "git help --web runs a browser");
	else
		set_ro(g->a, "git %s", g->sub);
}

static void
git_fetch(struct gcall *g)
{
	set_class(g->a, POL_CLASS_NETWORK_ACCESS, "git %s contacts a remote",
	    g->sub);
	set_mut(g->a, "git %s writes the repository", g->sub);
}

/* git config: reads, or writes a key whose value is checked. */
static void
git_config(struct gcall *g)
{
	static const char *const rd[] = { "--get", "--get-all",
	    "--get-regexp", "--list", "-l", "--get-urlmatch", "--get-color",
	    "--get-colorbool", NULL };
	static const char *const arg[] = { "--file", "-f", "--blob",
	    "--type", "--default", "--comment", "--value", NULL };
	static const char *const same[] = { "--global", "--system",
	    "--local", "--worktree", "--includes", "--no-includes",
	    "--show-origin", "--show-scope", "--name-only", "-z", "--null",
	    "--bool", "--int", "--path", "--bool-or-int", "--expiry-date",
	    NULL };
	const struct sh_word	*w = g->w, *pos[3];
	struct an		*a = g->a;
	const char		*t;
	char			*kv;
	size_t			 k, n = g->n, np = 0;
	int			 write = 0, read = 0;

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
		if (in_list(t, rd))
			read = 1;
		else if (in_list(t, arg))
			k++;
		else if (!in_list(t, same) && !starts(t, "--type=") &&
		    !starts(t, "--file=") && !starts(t, "--default="))
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
			xasprintf(&kv, "%s=%s", pos[1]->text, pos[2]->text);
			check_git_kv(a, kv, NULL, "git config set");
			free(kv);
		} else if (np == 2)
			check_git_kv(a, pos[1]->text, NULL, "git config set");
		set_mut(a, "git config set writes configuration");
		return;
	}
	if (np >= 2 && !read) {
		/* key value: check with the value. */
		xasprintf(&kv, "%s=%s", pos[0]->text, pos[1]->text);
		check_git_kv(a, kv, NULL, "git config");
		free(kv);
		set_mut(a, "git config writes configuration");
		return;
	}
	if (write) {
		if (np >= 1)
			check_git_kv(a, pos[0]->text, NULL, "git config");
		set_mut(a, "git config writes configuration");
		return;
	}
	set_ro(a, "git config reads configuration");
}

static void
git_branch(struct gcall *g)
{
	const struct sh_word	*w = g->w;
	size_t			 n = g->n;

	if (has_opt(w, n, 'l', "list") || (g->nops == 0 &&
	    !has_opt(w, n, 'd', "delete") && !has_opt(w, n, 'D', NULL) &&
	    !has_opt(w, n, 'm', "move") && !has_opt(w, n, 'M', NULL) &&
	    !has_opt(w, n, 'c', "copy") && !has_opt(w, n, 'C', NULL) &&
	    !has_opt(w, n, 'u', "set-upstream-to") &&
	    !has_opt(w, n, 0, "unset-upstream") &&
	    !has_opt(w, n, 0, "edit-description") &&
	    !has_opt(w, n, 'f', "force")))
		set_ro(g->a, "git branch lists branches");
	else
		set_mut(g->a, "git branch changes branches");
}

static void
git_tag(struct gcall *g)
{
	if (has_opt(g->w, g->n, 'l', "list") || has_opt(g->w, g->n, 'v',
	    "verify") || (g->nops == 0 && !has_opt(g->w, g->n, 'd',
	    "delete")))
		set_ro(g->a, "git tag lists tags");
	else
		set_mut(g->a, "git tag changes tags");
}

static void
git_remote(struct gcall *g)
{
	const char	*s2 = g->s2;

	if (s2 == NULL || strcmp(s2, "show") == 0 ||
	    strcmp(s2, "get-url") == 0)
		set_ro(g->a, "git remote %s", s2 ? s2 : "");
	else if (strcmp(s2, "update") == 0) {
		set_class(g->a, POL_CLASS_NETWORK_ACCESS, "git remote update "
		    "fetches");
		set_mut(g->a, "git remote update");
	} else
		set_mut(g->a, "git remote %s changes remotes", s2);
}

/* stash, worktree, notes, reflog, sparse-checkout: list/show read. */
static void
git_lists(struct gcall *g)
{
	const char	*sub = g->sub, *s2 = g->s2;

	if ((s2 != NULL && (strcmp(s2, "list") == 0 ||
	    strcmp(s2, "show") == 0 || strcmp(s2, "exists") == 0)) ||
	    (s2 == NULL && strcmp(sub, "reflog") == 0) ||
	    (s2 == NULL && strcmp(sub, "notes") == 0) ||
	    (s2 == NULL && strcmp(sub, "worktree") == 0 && g->n == 1))
		set_ro(g->a, "git %s %s", sub, s2 ? s2 : "");
	else
		set_mut(g->a, "git %s %s", sub, s2 ? s2 : "");
}

static void
git_submodule(struct gcall *g)
{
	const char	*s2 = g->s2;

	if (s2 == NULL || strcmp(s2, "status") == 0 ||
	    strcmp(s2, "summary") == 0)
		set_ro(g->a, "git submodule status");
	else if (strcmp(s2, "foreach") == 0)
		set_opaque(g->a, "git submodule foreach runs a script");
	else {
		set_class(g->a, POL_CLASS_NETWORK_ACCESS, "git submodule %s "
		    "may fetch", s2);
		set_mut(g->a, "git submodule %s", s2);
	}
}

static void
git_bisect(struct gcall *g)
{
	const char	*s2 = g->s2;

	if (s2 != NULL && (strcmp(s2, "log") == 0 ||
	    strcmp(s2, "visualize") == 0 || strcmp(s2, "view") == 0))
		set_ro(g->a, "git bisect %s", s2);
	else if (s2 != NULL && strcmp(s2, "run") == 0)
		set_opaque(g->a, "git bisect run runs a command");
	else
		set_mut(g->a, "git bisect");
}

static void
git_symbolic_ref(struct gcall *g)
{
	if (g->nops <= 1 && !has_opt(g->w, g->n, 'd', "delete"))
		set_ro(g->a, "git symbolic-ref");
	else
		set_mut(g->a, "git symbolic-ref");
}

/*
 * Commands git runs from its exec path that send commits elsewhere:
 * git subtree push (a push of a split history), git svn dcommit, git p4
 * submit, git lfs push.  Judged as a push; git subtree pull and add
 * fetch and commit.
 */
static void
git_contrib(struct gcall *g)
{
	static const char *const pushes[] = { "push", "dcommit", "submit",
	    "set-tree", NULL };
	static const char *const fetches[] = { "pull", "add", "fetch",
	    "rebase", "clone", "sync", NULL };
	const char	*s2 = g->s2;
	size_t		 i;

	/*
	 * The words are searched rather than the first operand: an option
	 * that takes a value (git subtree --prefix x push) would otherwise
	 * hide the subcommand.
	 */
	for (i = 1; i < g->n; i++) {
		if (!lit(&g->w[i])) {
			set_opaque(g->a, "git %s with a word from an "
			    "expansion", g->sub);
			return;
		}
		if (in_list(g->w[i].text, pushes)) {
			set_ask(g->a, POL_F_PUSH, "ask:git-push", "git %s %s "
			    "changes a remote repository", g->sub,
			    g->w[i].text);
			return;
		}
	}
	if (s2 != NULL && in_list(s2, fetches)) {
		git_commit(g);
		set_class(g->a, POL_CLASS_NETWORK_ACCESS, "git %s %s fetches",
		    g->sub, s2);
	} else
		set_mut(g->a, "git %s %s", g->sub, s2 != NULL ? s2 : "");
}

static void
git_runs(struct gcall *g)
{
	set_opaque(g->a, "git %s runs commands", g->sub);
}

/*
 * The transport's own programs named on the command line: the program
 * git runs (with the shell, for a local or ssh remote) as the other end
 * of a fetch or a push.  --upload-pack, --receive-pack and --exec, also
 * abbreviated as git's option parser allows, clone's -u, and an ext::
 * URL (a command line).  Returns 1 when the call was judged.
 */
static int
git_transport_prog(struct gcall *g)
{
	static const char *const subs[] = { "fetch", "pull", "clone",
	    "ls-remote", "archive", "push", "send-pack", "fetch-pack",
	    NULL };
	static const char *const progs[] = { "--upload-pack",
	    "--receive-pack", "--exec", NULL };
	const char	*t, *e;
	size_t		 i, k, len;

	if (!in_list(g->sub, subs))
		return 0;
	for (i = 1; i < g->n; i++) {
		t = g->w[i].text;
		if (strcmp(t, "--") == 0)
			break;
		if (strcmp(g->sub, "clone") == 0 && t[0] == '-' &&
		    t[1] == 'u') {
			CODEEXEC(g->a, "git clone -u names the program git "
			    "runs for the remote");
			return 1;
		}
		/* ext:: runs its command wherever the user's own
		 * configuration allows the protocol. */
		if (strncmp(t, "ext::", 5) == 0) {
			CODEEXEC(g->a, "git %s of an ext:: URL runs a "
			    "command", g->sub);
			return 1;
		}
		if (t[0] != '-' || t[1] != '-')
			continue;
		e = strchr(t, '=');
		len = e != NULL ? (size_t)(e - t) : strlen(t);
		for (k = 0; len >= 4 && progs[k] != NULL; k++)
			if (strncmp(progs[k], t, len) == 0 &&
			    len <= strlen(progs[k])) {
				CODEEXEC(g->a, "git %s %s names the program "
				    "git runs for the remote", g->sub,
				    progs[k]);
				return 1;
			}
	}
	return 0;
}

/*
 * git's subcommands, sorted by strcmp() for bsearch(); the unit test
 * checks the order.  One not listed changes the repository.
 */
static const struct gsub {
	const char	*sub;
	void		(*fn)(struct gcall *);
} gsubs[] = {
	{ "am", git_commit },
	{ "annotate", git_ro },
	{ "archive", git_archive },
	{ "bisect", git_bisect },
	{ "blame", git_ro },
	{ "branch", git_branch },
	{ "cat-file", git_ro },
	{ "check-attr", git_ro },
	{ "check-ignore", git_ro },
	{ "check-mailmap", git_ro },
	{ "check-ref-format", git_ro },
	{ "cherry", git_ro },
	{ "cherry-pick", git_commit },
	{ "clone", git_fetch },
	{ "column", git_ro },
	{ "commit", git_commit },
	{ "config", git_config },
	{ "count-objects", git_ro },
	{ "describe", git_ro },
	{ "diff", git_ro },
	{ "diff-files", git_ro },
	{ "diff-index", git_ro },
	{ "diff-tree", git_ro },
	{ "difftool", git_runs },
	{ "fetch", git_fetch },
	{ "filter-branch", git_runs },
	{ "for-each-ref", git_ro },
	{ "fsck", git_fsck },
	{ "get-tar-commit-id", git_ro },
	{ "grep", git_grep },
	{ "hash-object", git_hash_object },
	{ "help", git_help },
	{ "http-push", git_push },
	{ "imap-send", git_mail },
	{ "lfs", git_contrib },
	{ "log", git_ro },
	{ "ls-files", git_ro },
	{ "ls-remote", git_ls_remote },
	{ "ls-tree", git_ro },
	{ "merge", git_commit },
	{ "merge-base", git_ro },
	{ "merge-tree", git_ro },
	{ "mergetool", git_runs },
	{ "name-rev", git_ro },
	{ "notes", git_lists },
	{ "p4", git_contrib },
	{ "patch-id", git_ro },
	{ "pull", git_commit },
	{ "push", git_push },
	{ "range-diff", git_ro },
	{ "rebase", git_rebase },
	{ "reflog", git_lists },
	{ "remote", git_remote },
	{ "request-pull", git_ro },
	{ "rev-list", git_ro },
	{ "rev-parse", git_ro },
	{ "revert", git_commit },
	{ "send-email", git_mail },
	{ "send-pack", git_push },
	{ "shortlog", git_ro },
	{ "show", git_ro },
	{ "show-branch", git_ro },
	{ "show-index", git_ro },
	{ "show-ref", git_ro },
	{ "sparse-checkout", git_lists },
	{ "stash", git_lists },
	{ "status", git_ro },
	{ "submodule", git_submodule },
	{ "subtree", git_contrib },
	{ "svn", git_contrib },
	{ "symbolic-ref", git_symbolic_ref },
	{ "tag", git_tag },
	{ "var", git_ro },
	{ "verify-commit", git_ro },
	{ "verify-pack", git_ro },
	{ "verify-tag", git_ro },
	{ "version", git_ro },
	{ "whatchanged", git_ro },
	{ "worktree", git_lists },
};

static int
gsub_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct gsub *)elem)->sub);
}

/* For the unit test (via pol_kind_table_ok): is gsubs[] sorted? */
int
cls_git_table_ok(void)
{
	size_t	i;

	for (i = 1; i < sizeof(gsubs) / sizeof(gsubs[0]); i++)
		if (strcmp(gsubs[i - 1].sub, gsubs[i].sub) >= 0)
			return 0;
	return 1;
}

/* git [global options] subcommand ... */
int
cls_git(struct cls_call *c)
{
	static const char *const gopt_arg[] = { "-C", "-c", "--git-dir",
	    "--work-tree", "--namespace", "--super-prefix", "--config-env",
	    "--list-cmds", NULL };
	static const char *const info[] = { "--version", "-v", "--help", "-h",
	    "--exec-path", "--html-path", "--man-path", "--info-path", NULL };
	const struct sh_word	*w = c->w, *ops[4];
	struct an		*a = c->a;
	const struct gsub	*s;
	struct gcall		 g;
	const char		*t, *kv;
	size_t			 i = 1, n = c->n;

	while (i < n) {
		t = w[i].text;
		if (!lit(&w[i])) {
			set_opaque(a, "git option from an expansion");
			return CLS_DONE;
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
			kv = t[12] == '=' ? t + 13 : (i + 1 < n ?
			    w[i + 1].text : "");
			check_git_kv(a, kv, NULL, "git --config-env");
			i += t[12] == '=' ? 1 : 2;
			continue;
		}
		if (starts(t, "--exec-path=")) {
			CODEEXEC(a, "git --exec-path= runs git programs from "
			    "another directory");
			return CLS_DONE;
		}
		if (in_list(t, gopt_arg)) {
			i += 2;
			continue;
		}
		if (in_list(t, info)) {
			set_ro(a, "git %s", t);
			return CLS_DONE;
		}
		i++;	/* --no-pager, -P, --bare, --git-dir=..., ... */
	}
	if (i >= n) {
		set_ro(a, "git without a subcommand prints help");
		return CLS_DONE;
	}
	if (!lit(&w[i])) {
		set_opaque(a, "git subcommand is an expansion (%.40s)",
		    w[i].text);
		return CLS_DONE;
	}
	g.a = a;
	g.sub = w[i].text;
	g.w = w + i;
	g.n = n - i;
	g.nops = operands(g.w, g.n, ops, 4);
	g.s2 = g.nops > 0 && lit(ops[0]) ? ops[0]->text : NULL;
	if (git_transport_prog(&g))
		return CLS_DONE;
	s = bsearch(g.sub, gsubs, sizeof(gsubs) / sizeof(gsubs[0]),
	    sizeof(gsubs[0]), gsub_cmp);
	if (s != NULL)
		s->fn(&g);
	else
		set_mut(a, "git %s", g.sub);
	return CLS_DONE;
}

/* gh: pull requests, issues, releases and the API. */
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

int
cls_gh(struct cls_call *c)
{
	an_gh(c->a, c->w, c->n);
	return CLS_DONE;
}
