// SPDX-License-Identifier: ISC
/*
 * The package-manager family of the command classifier (cls.h).  Most
 * managers say what they do with their first operand: a table of them,
 * each with the subcommands that install packages, publish them, or only
 * read.  The others (npm, yarn, uv, pacman, dotnet, ...) have a handler
 * each.  Installing is the effect class install-package; publishing asks.
 * "bundle exec CMD", "npm exec CMD", "uv run CMD" run CMD: it is looked
 * up in turn.
 */
#include <stdlib.h>
#include <string.h>

#include "policy/classify.h"
#include "policy/cls.h"
#include "policy/shell.h"

static const char *const npm_i[] = { "install", "i", "in", "ins", "inst",
    "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add", "ci",
    "clean-install", "install-clean", "ic", "install-test", "it",
    "install-ci-test", "cit", "update", "up", "upgrade", "udpate", "exec",
    "x", "link", "ln", NULL };
static const char *const npm_p[] = { "publish", "unpublish", "deprecate",
    "dist-tag", "dist-tags", "owner", "access", "team", "org", "star",
    "unstar", "token", "adduser", "login", NULL };
static const char *const npm_ro[] = { "ls", "list", "ll", "la", "view", "v",
    "info", "show", "outdated", "search", "s", "se", "find", "help",
    "explain", "why", "root", "prefix", "bin", "whoami", "ping", "doctor",
    "fund", "query", "-v", "--version", "help-search", NULL };
static const char *const yarn_i[] = { "add", "install", "up", "upgrade",
    "dlx", "global", "upgrade-interactive", NULL };
static const char *const yarn_p[] = { "publish", "npm", "login", "owner",
    "tag", NULL };
static const char *const yarn_ro[] = { "info", "list", "why", "--version",
    "-v", "outdated", "help", "licenses", NULL };
static const char *const pnpm_i[] = { "add", "i", "install", "up", "update",
    "upgrade", "dlx", "import", "install-test", "it", "link", "ln", NULL };
static const char *const pnpm_ro[] = { "ls", "list", "ll", "la", "outdated",
    "why", "view", "info", "--version", "-v", "root", "bin", "help", NULL };
/* pnpm's own commands (and their aliases), as `pnpm help -a` lists them. */
static const char *const pnpm_cmds[] = { "add", "approve-builds", "audit",
    "bin", "c", "cache", "cat-file", "cat-index", "catalog", "ci",
    "clean", "completion", "config", "create", "dedupe", "deploy",
    "dlx", "doctor", "env", "exec", "fetch", "find-hash", "get", "help",
    "i", "ignored-builds", "import", "info", "init", "install",
    "install-test", "it", "la", "licenses", "link", "list", "ll", "ln",
    "login", "logout", "ls", "outdated", "pack", "patch",
    "patch-commit", "patch-remove", "prune", "publish", "rb", "rebuild",
    "recursive", "remove", "rm", "root", "run", "run-script", "self-update",
    "server", "set", "setup", "start", "store", "t", "test", "un",
    "uninstall", "unlink", "up", "update", "upgrade", "view", "why",
    NULL };
static const char *const bun_i[] = { "add", "a", "i", "install", "update",
    "x", "create", "c", "link", NULL };
static const char *const pip_i[] = { "install", "download", "wheel", NULL };
static const char *const pip_ro[] = { "list", "show", "freeze", "check",
    "search", "index", "inspect", "--version", "-V", "help", "debug",
    "hash", NULL };
static const char *const uv_i[] = { "add", "sync", "tool", "pip", "lock",
    "python", NULL };
static const char *const pipx_i[] = { "install", "inject", "run",
    "upgrade", "upgrade-all", "reinstall", "reinstall-all", NULL };
static const char *const poetry_i[] = { "add", "install", "update", "lock",
    "sync", NULL };
static const char *const conda_i[] = { "install", "create", "update",
    "upgrade", NULL };
static const char *const conda_ro[] = { "list", "info", "search",
    "--version", NULL };
static const char *const cargo_i[] = { "install", "add", "binstall", NULL };
static const char *const cargo_p[] = { "publish", "yank", "owner", "login",
    NULL };
static const char *const cargo_ro[] = { "tree", "metadata", "--version",
    "-V", "version", "search", "help", "locate-project", "pkgid",
    "verify-project", "read-manifest", "--list", NULL };
static const char *const gem_i[] = { "install", "update", "i", NULL };
static const char *const gem_p[] = { "push", "yank", "owner", "signin",
    NULL };
static const char *const gem_ro[] = { "list", "search", "info", "query",
    "specification", "contents", "environment", "which", "-v",
    "--version", "help", NULL };
static const char *const go_i[] = { "install", "get", NULL };
static const char *const go_ro[] = { "version", "env", "list", "doc",
    "help", NULL };
static const char *const bundle_i[] = { "install", "add", "update", NULL };
static const char *const composer_i[] = { "require", "install", "update",
    "global", "create-project", NULL };
static const char *const apt_i[] = { "install", "reinstall", "build-dep",
    "upgrade", "full-upgrade", "dist-upgrade", "source", NULL };
static const char *const apt_ro[] = { "search", "show", "list", "policy",
    "depends", "rdepends", "changelog", "showpkg", "madison", "-v",
    "--version", NULL };
static const char *const dnf_i[] = { "install", "reinstall", "upgrade",
    "update", "groupinstall", "localinstall", "in", "up", NULL };
static const char *const dnf_ro[] = { "list", "info", "search", "provides",
    "repolist", "--version", NULL };
static const char *const apk_i[] = { "add", "upgrade", NULL };
static const char *const apk_ro[] = { "info", "search", "list", "--version",
    NULL };
static const char *const zypper_i[] = { "in", "install", "up", "update",
    "dup", "dist-upgrade", NULL };
static const char *const brew_i[] = { "install", "reinstall", "upgrade",
    "tap", NULL };
static const char *const brew_ro[] = { "list", "ls", "info", "search",
    "--version", "deps", "uses", "outdated", "config", NULL };
static const char *const snap_i[] = { "install", "refresh", NULL };
static const char *const twine_p[] = { "upload", "register", NULL };
static const char *const pub_p[] = { "publish", NULL };
static const char *const rustup_i[] = { "toolchain", "component", "target",
    "install", "update", NULL };
static const char *const rustup_ro[] = { "show", "--version", "which",
    NULL };
static const char *const pipx_ro[] = { "list", "--version", NULL };
static const char *const poetry_ro[] = { "show", "check", "--version", "env",
    NULL };
static const char *const bundle_ro[] = { "list", "show", "--version", NULL };
static const char *const composer_ro[] = { "show", "--version", NULL };

/*
 * The managers whose first operand alone tells what they do: subcommands
 * that install, publish, or only read.  Sorted by strcmp() for bsearch();
 * tests/unit/test_classify.c checks the order.
 */
static const struct mgr {
	const char		*name;
	const char *const	*install, *const *publish, *const *ro;
} mgrs[] = {
	{ "apk", apk_i, NULL, apk_ro },
	{ "apt", apt_i, NULL, apt_ro },
	{ "apt-cache", apt_i, NULL, apt_ro },
	{ "apt-get", apt_i, NULL, apt_ro },
	{ "aptitude", apt_i, NULL, apt_ro },
	{ "brew", brew_i, NULL, brew_ro },
	{ "bundle", bundle_i, NULL, bundle_ro },
	{ "bundler", bundle_i, NULL, bundle_ro },
	{ "cargo", cargo_i, cargo_p, cargo_ro },
	{ "composer", composer_i, NULL, composer_ro },
	{ "conda", conda_i, NULL, conda_ro },
	{ "dnf", dnf_i, NULL, dnf_ro },
	{ "flatpak", snap_i, NULL, NULL },
	{ "flit", NULL, pub_p, NULL },
	{ "gem", gem_i, gem_p, gem_ro },
	{ "go", go_i, NULL, go_ro },
	{ "hatch", NULL, pub_p, NULL },
	{ "mamba", conda_i, NULL, conda_ro },
	{ "microdnf", dnf_i, NULL, dnf_ro },
	{ "micromamba", conda_i, NULL, conda_ro },
	{ "ovsx", NULL, pub_p, NULL },
	{ "pipx", pipx_i, NULL, pipx_ro },
	{ "pnpm", pnpm_i, pub_p, pnpm_ro },
	{ "poetry", poetry_i, pub_p, poetry_ro },
	{ "port", brew_i, NULL, brew_ro },
	{ "rustup", rustup_i, NULL, rustup_ro },
	{ "snap", snap_i, NULL, NULL },
	{ "twine", NULL, twine_p, NULL },
	{ "vsce", NULL, pub_p, NULL },
	{ "yum", dnf_i, NULL, dnf_ro },
	{ "zypper", zypper_i, NULL, NULL },
};

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
mgr_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct mgr *)elem)->name);
}

/* For the unit test (via pol_kind_table_ok): is mgrs[] sorted? */
int
cls_pkg_table_ok(void)
{
	size_t	i;

	for (i = 1; i < sizeof(mgrs) / sizeof(mgrs[0]); i++)
		if (strcmp(mgrs[i - 1].name, mgrs[i].name) >= 0)
			return 0;
	return 1;
}

/* Move the call to the command at index i. */
static int
unwrap(struct cls_call *c, size_t i)
{
	c->w += i;
	c->n -= i;
	return CLS_UNWRAP;
}

/* bundle exec CMD, poetry run CMD, uv run CMD, ...: CMD is what runs. */
static int
runs(struct cls_call *c)
{
	if (!(c->t->flags & CT_RUNS) || c->n < 3 ||
	    (!weq(&c->w[1], "exec") && !weq(&c->w[1], "run")))
		return 0;
	if (strcmp(c->name, "uv") == 0 || weq(&c->w[1], "run"))
		set_mut(c->a, "%s run may install dependencies", c->name);
	return 1;
}

/* A manager of the table, or one the table does not know (pipenv, pdm). */
int
cls_pkg(struct cls_call *c)
{
	const struct mgr	*m;

	/* flatpak run APP runs the app's own command, which the line need
	 * not name (--command= picks another): opaque. */
	if (strcmp(c->name, "flatpak") == 0 && c->n > 2 &&
	    weq(&c->w[1], "run")) {
		set_opaque(c->a, "flatpak run runs an application's command");
		return CLS_DONE;
	}
	/*
	 * pnpm runs a word that is not one of its commands as a script or,
	 * failing that, as "pnpm exec": judged as that command.
	 */
	if (strcmp(c->name, "pnpm") == 0 && c->n > 1 && lit(&c->w[1]) &&
	    c->w[1].text[0] != '-' && !in_list(c->w[1].text, pnpm_cmds))
		return unwrap(c, 1);
	if (runs(c))
		return unwrap(c, skip_opts(c->w, c->n, 2, c->t->letters,
		    c->t->longs, 0));
	m = bsearch(c->name, mgrs, sizeof(mgrs) / sizeof(mgrs[0]),
	    sizeof(mgrs[0]), mgr_cmp);
	if (m != NULL)
		pkg(c->a, c->name, first_operand(c->w, c->n, NULL),
		    m->install, m->publish, m->ro);
	else
		set_mut(c->a, "%s", c->name);
	return CLS_DONE;
}

int
cls_npm(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	struct an		*a = c->a;
	const char		*sub, *s2;
	size_t			 idx = 0, n = c->n;

	if (n >= 2 && (weq(&w[1], "exec") || weq(&w[1], "x"))) {
		set_class(a, POL_CLASS_INSTALL_PACKAGE, "npm exec may fetch a "
		    "package");
		set_mut(a, "npm exec");
		return unwrap(c, skip_opts(w, n, 2, NULL, NULL, 0));
	}
	sub = first_operand(w, n, &idx);
	if (sub == NULL && (has_opt(w, n, 'v', "version") || n == 1)) {
		set_ro(a, "npm --version");
		return CLS_DONE;
	}
	if (sub != NULL && (strcmp(sub, "run") == 0 ||
	    strcmp(sub, "run-script") == 0 || strcmp(sub, "test") == 0 ||
	    strcmp(sub, "t") == 0 || strcmp(sub, "start") == 0)) {
		set_mut(a, "npm %s runs a package script", sub);
		return CLS_DONE;
	}
	if (sub != NULL && strcmp(sub, "audit") == 0 &&
	    first_operand(w + idx, n - idx, NULL) == NULL) {
		set_ro(a, "npm audit");
		return CLS_DONE;
	}
	if (sub != NULL && strcmp(sub, "config") == 0) {
		s2 = first_operand(w + idx, n - idx, NULL);
		if (s2 != NULL && (strcmp(s2, "get") == 0 ||
		    strcmp(s2, "list") == 0 || strcmp(s2, "ls") == 0)) {
			set_ro(a, "npm config %s", s2);
			return CLS_DONE;
		}
	}
	pkg(a, "npm", sub, npm_i, npm_p, npm_ro);
	return CLS_DONE;
}

/* npx, pnpx, bunx, uvx. */
int
cls_npx(struct cls_call *c)
{
	set_class(c->a, POL_CLASS_INSTALL_PACKAGE, "%s fetches and runs a "
	    "package", c->name);
	set_mut(c->a, "%s fetches and runs a package", c->name);
	return CLS_DONE;
}

int
cls_yarn(struct cls_call *c)
{
	const char	*sub = first_operand(c->w, c->n, NULL);

	if (c->n > 2 && weq(&c->w[1], "exec"))
		return cls_yarn_exec(c);
	if (sub == NULL && c->n == 1) {
		set_class(c->a, POL_CLASS_INSTALL_PACKAGE, "yarn installs "
		    "packages");
		set_mut(c->a, "yarn installs packages");
	} else
		pkg(c->a, "yarn", sub, yarn_i, yarn_p, yarn_ro);
	return CLS_DONE;
}

int
cls_bun(struct cls_call *c)
{
	const char	*sub = first_operand(c->w, c->n, NULL);

	if (sub != NULL && (strcmp(sub, "-e") == 0 ||
	    strcmp(sub, "--eval") == 0)) {
		set_opaque(c->a, "bun %s runs inline code", sub);
		return CLS_DONE;
	}
	pkg(c->a, "bun", sub, bun_i, pub_p, NULL);
	return CLS_DONE;
}

void
cls_pip_sub(struct an *a, const struct sh_word *w, size_t n,
    const char *name)
{
	pkg(a, name, first_operand(w, n, NULL), pip_i, NULL, pip_ro);
}

/* pip, pip3, pip3.12. */
int
cls_pip(struct cls_call *c)
{
	cls_pip_sub(c->a, c->w, c->n, c->name);
	return CLS_DONE;
}

int
cls_uv(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	const char		*sub, *s2;
	size_t			 idx = 0, n = c->n;

	if (runs(c))
		return unwrap(c, skip_opts(w, n, 2, NULL, NULL, 0));
	sub = first_operand(w, n, &idx);
	if (sub != NULL && strcmp(sub, "pip") == 0) {
		s2 = first_operand(w + idx, n - idx, NULL);
		pkg(c->a, "uv pip", s2, pip_i, NULL, pip_ro);
	} else if (sub != NULL && strcmp(sub, "run") == 0)
		set_mut(c->a, "uv run installs dependencies and runs a "
		    "command");
	else if (sub != NULL && strcmp(sub, "tool") == 0) {
		s2 = first_operand(w + idx, n - idx, NULL);
		if (s2 != NULL && (strcmp(s2, "list") == 0 ||
		    strcmp(s2, "dir") == 0))
			set_ro(c->a, "uv tool %s", s2);
		else
			pkg(c->a, "uv", sub, uv_i, NULL, NULL);
	} else
		pkg(c->a, "uv", sub, uv_i, pub_p, NULL);
	return CLS_DONE;
}

/* pacman, yay, paru: -Q and -Ss/-Si query, -S and -U install. */
int
cls_pacman(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	size_t			 n = c->n;

	if (has_opt(w, n, 'Q', NULL) || ((has_opt(w, n, 's', NULL) ||
	    has_opt(w, n, 'i', NULL)) && has_opt(w, n, 'S', NULL)))
		set_ro(c->a, "%s query", c->name);
	else if (has_opt(w, n, 'S', "sync") || has_opt(w, n, 'U', "upgrade")) {
		set_class(c->a, POL_CLASS_INSTALL_PACKAGE, "%s installs "
		    "packages", c->name);
		set_mut(c->a, "%s installs packages", c->name);
	} else
		set_mut(c->a, "%s", c->name);
	return CLS_DONE;
}

int
cls_nix_env(struct cls_call *c)
{
	if (has_opt(c->w, c->n, 'i', "install")) {
		set_class(c->a, POL_CLASS_INSTALL_PACKAGE, "nix-env -i "
		    "installs packages");
		set_mut(c->a, "nix-env installs packages");
	} else
		set_mut(c->a, "nix-env");
	return CLS_DONE;
}

int
cls_dotnet(struct cls_call *c)
{
	const struct sh_word	*w = c->w;
	const char		*sub, *s2;
	size_t			 idx = 0, n = c->n;

	sub = first_operand(w, n, &idx);
	s2 = sub != NULL ? first_operand(w + idx, n - idx, NULL) : NULL;
	if (sub != NULL && s2 != NULL && ((strcmp(sub, "add") == 0 &&
	    n > idx + 2 && weq(&w[idx + 2], "package")) ||
	    (strcmp(sub, "tool") == 0 && strcmp(s2, "install") == 0))) {
		set_class(c->a, POL_CLASS_INSTALL_PACKAGE,
		    "dotnet installs packages");
		set_mut(c->a, "dotnet installs packages");
	} else if (sub != NULL && strcmp(sub, "nuget") == 0 && s2 != NULL &&
	    strcmp(s2, "push") == 0)
		set_ask(c->a, POL_F_REMOTE, "ask:publish", "dotnet nuget push "
		    "publishes a package");
	else
		set_mut(c->a, "dotnet %s", sub ? sub : "");
	return CLS_DONE;
}

/* mvn, gradle, gradlew: deploy and publish* publish artifacts. */
int
cls_mvn(struct cls_call *c)
{
	const char	*sub = first_operand(c->w, c->n, NULL);

	if (sub != NULL && (strcmp(sub, "deploy") == 0 ||
	    starts(sub, "publish")))
		set_ask(c->a, POL_F_REMOTE, "ask:publish", "%s %s publishes "
		    "artifacts", c->name, sub);
	else
		set_mut(c->a, "%s %s", c->name, sub ? sub : "");
	return CLS_DONE;
}
