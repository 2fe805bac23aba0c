// SPDX-License-Identifier: ISC
/*
 * What the sandbox protects, as tables: the system directories shown
 * read-only, the secret set, the names protected where they already
 * exist, and the filename rules checked at creation time.  airlockd's
 * plan (supervisor/sv_plan.c) turns them into mounts and rules; the
 * client's Claude Code hook (common/host/hook.c) and the confined file
 * tools judge paths with the same entries, so neither drifts from what
 * the sandbox enforces.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/host/protect.h"
#include "common/namerule.h"

/* System directories visible read-only (R-L1). */
const char *const protect_sys_dirs[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/opt", "/etc",
};
const size_t n_protect_sys_dirs =
    sizeof(protect_sys_dirs) / sizeof(protect_sys_dirs[0]);

/* /etc entries masked even though /etc is visible (R-L1). */
const char *const protect_etc_secrets[] = {
	"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
	"/etc/ssl/private", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key",
	"/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_dsa_key",
	"/etc/airlock", "/etc/NetworkManager/system-connections",
	"/etc/wpa_supplicant",
};
const size_t n_protect_etc_secrets =
    sizeof(protect_etc_secrets) / sizeof(protect_etc_secrets[0]);

/* The secret set relative to $HOME (R-L2). */
const char *const protect_home_secrets[] = {
	".ssh", ".aws", ".gnupg", ".config/gh", ".netrc",
	".docker/config.json", ".kube", ".git-credentials",
	".local/share/keyrings", ".password-store", ".config/airlock",
	".azure", ".config/gcloud", ".npmrc", ".pypirc",
	".cargo/credentials", ".cargo/credentials.toml",
	".config/hub", ".terraform.d/credentials.tfrc.json",
	/* Agents' logins (`airlock claude` shows a copy of Claude Code's
	 * holding placeholders). */
	".claude/.credentials.json", ".codex/auth.json",
	".gemini/oauth_creds.json", ".config/github-copilot",
	".local/share/opencode/auth.json",
	/* Browser profiles (cookies, saved logins) and macOS's keychains. */
	".mozilla", ".config/google-chrome", ".config/chromium",
	".config/BraveSoftware", "Library/Keychains", "Library/Cookies",
	"Library/Safari", "Library/Application Support/Google/Chrome",
	"Library/Application Support/Firefox",
};
const size_t n_protect_home_secrets =
    sizeof(protect_home_secrets) / sizeof(protect_home_secrets[0]);

/*
 * Write-protected names that may exist in a writable bind at launch
 * (R-L3).  Creation of new ones, at any depth, is the seccomp-notify
 * filter's job; these are the ones already there.
 */
const char *const protect_existing[] = {
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".zshrc",
	".zprofile", ".zshenv", ".zlogin", ".profile", ".gitconfig",
	".git/hooks", ".vscode", ".idea", ".zed", ".codex", ".gemini",
	".cursor", ".devcontainer", ".husky", ".claude", ".mcp.json",
	".pre-commit-config.yaml", ".ripgreprc", ".nvim.lua", ".exrc",
	".nvimrc", ".vimrc", "_vimrc", "_exrc", ".gvimrc", "_gvimrc",
	".airlock", ".envrc", ".opencode", ".continue", ".windsurf", ".kiro",
	".roo", ".amazonq", ".mise", "opencode.json", "opencode.jsonc",
	".aider.conf.yml", ".dir-locals.el", ".dir-locals-2.el", "mise.toml",
	".mise.toml", "mise.local.toml", ".mise.local.toml", ".helix",
	".fleet", ".theia", ".nova", ".crush", ".qwen", ".kilocode",
	".clinerules", ".factory", ".junie", ".augment", ".trae",
	"crush.json", ".crush.json", "mise/config.toml", ".config/mise.toml",
	".config/mise", ".hg/hgrc", ".hg/hgrc-not-shared",
	".jj/repo/config.toml",
};
const size_t n_protect_existing =
    sizeof(protect_existing) / sizeof(protect_existing[0]);

/*
 * The built-in write-deny set, checked by init's seccomp-notify handler
 * on every write-intent path beneath a writable bind, at any depth.
 */
const struct protect_rule protect_write_rules[] = {
	/* R-L4: secrets and direnv's file. */
	{ NR_NAME, ".env", NULL }, { NR_NAME, ".env.*", NULL },
	{ NR_NAME, ".envrc", NULL }, { NR_NAME, "*.key", NULL },
	{ NR_NAME, "*.pem", NULL },
	/* R-L3: what a shell or git on the host runs. */
	{ NR_NAME, ".bashrc", NULL }, { NR_NAME, ".bash_profile", NULL },
	{ NR_NAME, ".bash_login", NULL }, { NR_NAME, ".bash_logout", NULL },
	{ NR_NAME, ".zshrc", NULL }, { NR_NAME, ".zprofile", NULL },
	{ NR_NAME, ".zshenv", NULL }, { NR_NAME, ".zlogin", NULL },
	{ NR_NAME, ".profile", NULL }, { NR_NAME, ".gitconfig", NULL },
	{ NR_PATH, ".git/hooks/*", "*.sample" },
	{ NR_PATH, ".git/modules/**/hooks/*", "*.sample" },
	{ NR_GITCONFIG, ".git/config", NULL },
	{ NR_GITCONFIG, ".git/config.worktree", NULL },
	{ NR_GITCONFIG, ".git/modules/**/config", NULL },
	/* R-L3: any directory git takes for a repository, whatever its
	 * name, holds only what porcelain writes (common/gitstate.c). */
	{ NR_GITSTATE, ".git", NULL },
	/* R-L3: the project files of agents and editors, by directory:
	 * whatever is or will be in them (tasks, MCP servers, language
	 * servers, extensions, hooks, skills) the host's tool runs or
	 * trusts when it next opens the project (docs/SECURITY.md). */
	{ NR_TREE, ".vscode", NULL }, { NR_TREE, ".idea", NULL },
	{ NR_TREE, ".zed", NULL }, { NR_TREE, ".codex", NULL },
	{ NR_TREE, ".gemini", NULL }, { NR_TREE, ".cursor", NULL },
	{ NR_TREE, ".devcontainer", NULL }, { NR_TREE, ".husky", NULL },
	{ NR_TREE, ".claude", NULL }, { NR_TREE, ".airlock", NULL },
	{ NR_NAME, ".mcp.json", NULL },
	{ NR_NAME, ".pre-commit-config.yaml", NULL },
	{ NR_NAME, ".ripgreprc", NULL }, { NR_NAME, "*.code-workspace", NULL },
	{ NR_NAME, ".nvim.lua", NULL }, { NR_NAME, ".exrc", NULL },
	/* The other names vim's and neovim's 'exrc' read in the
	 * directory the editor starts in (vim: .vimrc, _vimrc, .exrc,
	 * _exrc, and for the GUI .gvimrc, _gvimrc; neovim: .nvim.lua,
	 * .nvimrc, .exrc). */
	{ NR_NAME, ".nvimrc", NULL }, { NR_NAME, ".vimrc", NULL },
	{ NR_NAME, "_vimrc", NULL }, { NR_NAME, "_exrc", NULL },
	{ NR_NAME, ".gvimrc", NULL }, { NR_NAME, "_gvimrc", NULL },
	/* More agents' project directories and files (MCP servers,
	 * commands, rules, lint commands run after each edit), Emacs's
	 * directory variables (eval: forms) and mise's configuration
	 * (its [hooks] and tasks; mise trusts a file by its path, so a
	 * trusted file rewritten inside would run on the host's next cd). */
	{ NR_TREE, ".opencode", NULL }, { NR_TREE, ".continue", NULL },
	{ NR_TREE, ".windsurf", NULL }, { NR_TREE, ".kiro", NULL },
	{ NR_TREE, ".roo", NULL }, { NR_TREE, ".amazonq", NULL },
	{ NR_TREE, ".mise", NULL },
	{ NR_NAME, "opencode.json", NULL }, { NR_NAME, "opencode.jsonc", NULL },
	{ NR_NAME, ".aider.conf.yml", NULL },
	{ NR_NAME, ".dir-locals.el", NULL }, { NR_NAME, ".dir-locals-2.el", NULL },
	{ NR_NAME, "mise.toml", NULL }, { NR_NAME, ".mise.toml", NULL },
	{ NR_NAME, "mise.local.toml", NULL },
	{ NR_NAME, ".mise.local.toml", NULL },
	/* mise's other places (mise.ENV.toml for each MISE_ENV, the
	 * .config/mise directory and mise/config.toml). */
	{ NR_NAME, "mise.*.toml", NULL }, { NR_NAME, ".mise.*.toml", NULL },
	{ NR_PATH, "mise/config.toml", NULL },
	{ NR_PATH, ".config/mise.toml", NULL },
	{ NR_PATH, ".config/mise/**", NULL },
	/* More editors' and agents' project directories: helix's
	 * languages.toml (language-server commands), Fleet's, Theia's and
	 * Nova's run configurations and tasks, the MCP servers, hooks and
	 * commands of Crush, Qwen Code, Kilo Code, Cline, Factory,
	 * Junie, Augment and Trae. */
	{ NR_TREE, ".helix", NULL }, { NR_TREE, ".fleet", NULL },
	{ NR_TREE, ".theia", NULL }, { NR_TREE, ".nova", NULL },
	{ NR_TREE, ".crush", NULL }, { NR_TREE, ".qwen", NULL },
	{ NR_TREE, ".kilocode", NULL }, { NR_TREE, ".clinerules", NULL },
	{ NR_TREE, ".factory", NULL }, { NR_TREE, ".junie", NULL },
	{ NR_TREE, ".augment", NULL }, { NR_TREE, ".trae", NULL },
	{ NR_NAME, "crush.json", NULL }, { NR_NAME, ".crush.json", NULL },
	/* Other version control systems' repository config, which runs
	 * commands as git's does: Mercurial's [hooks], Jujutsu's
	 * ui.pager, ui.editor and merge tools. */
	{ NR_PATH, ".hg/hgrc", NULL }, { NR_PATH, ".hg/hgrc-not-shared", NULL },
	{ NR_PATH, ".jj/repo/config.toml", NULL },
	/* Submodules: replaced only through the content check (a rename
	 * of git's .gitmodules.lock), by namerule_gitmodules_check. */
	{ NR_GITCONFIG, ".gitmodules", NULL },
};
const size_t n_protect_write_rules =
    sizeof(protect_write_rules) / sizeof(protect_write_rules[0]);

int
protect_rule_at(size_t i, uint32_t *kind, const char **pattern,
    const char **except)
{
	if (i >= n_protect_write_rules)
		return 0;
	*kind = protect_write_rules[i].kind;
	*pattern = protect_write_rules[i].pattern;
	*except = protect_write_rules[i].except;
	return 1;
}

const char *
protect_secret_at(size_t i, int *in_home)
{
	*in_home = i < n_protect_home_secrets;
	if (i < n_protect_home_secrets)
		return protect_home_secrets[i];
	i -= n_protect_home_secrets;
	return i < n_protect_etc_secrets ? protect_etc_secrets[i] : NULL;
}

/* path's part at or beneath dir ("" for dir itself), or NULL. */
static const char *
pr_rel(const char *path, const char *dir)
{
	size_t	n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/' ? path + 1 : NULL;
	if (strncmp(path, dir, n) != 0 || (path[n] != '\0' && path[n] != '/'))
		return NULL;
	return path[n] == '/' ? path + n + 1 : path + n;
}

int
protect_resolves_into(const char *given, const char *real,
    const char *secret, int *inside)
{
	char		 sc[PATH_MAX];
	const char	*rg, *rc;

	if (realpath(secret, sc) == NULL)
		snprintf(sc, sizeof(sc), "%s", secret);
	/* The secret itself opens nothing, whatever names it. */
	if (((rc = pr_rel(real, sc)) == NULL && (rc = pr_rel(real, secret)) ==
	    NULL) || rc[0] == '\0')
		return 0;
	if ((rg = pr_rel(given, secret)) == NULL)
		rg = pr_rel(given, sc);
	*inside = rg == NULL;
	return rg == NULL || strcmp(rg, rc) != 0;
}

/*
 * A destination is a path the launcher creates in the sandbox's own
 * root where it is missing, so it must say exactly where: absolute, in
 * normal form (no "." or "..", which the launcher would resolve in
 * another tree than the user read them in).  It may not take the place
 * of what the sandbox builds for itself (/proc, /sys, /dev, airlock's
 * /run/airlock) nor hide a system directory.  Inside one, which the
 * sandbox shows read-only from this machine, nothing can be created: it
 * must exist, under its own canonical name (a symbolic link there, like
 * /bin on a merged /usr, would put the mount elsewhere than named).
 */
const char *
protect_bind_dst(const char *dst, char *why, size_t len)
{
	static const char *const fresh[] = { "/proc", "/sys", "/dev" };
	char		 real[PATH_MAX];
	const char	*s;
	size_t		 i, n;

	if (dst[0] != '/') {
		snprintf(why, len, "not an absolute path");
		return why;
	}
	if (strcmp(dst, "/") == 0) {
		snprintf(why, len, "the sandbox's root itself");
		return why;
	}
	for (s = dst; *s == '/'; s += n) {
		s++;
		n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.')) {
			snprintf(why, len, "not in normal form (it has \".\" "
			    "or \"..\" or a doubled or trailing slash)");
			return why;
		}
	}
	for (i = 0; i < sizeof(fresh) / sizeof(fresh[0]); i++)
		if (pr_rel(dst, fresh[i]) != NULL) {
			snprintf(why, len, "inside %s, which the sandbox "
			    "mounts afresh for itself", fresh[i]);
			return why;
		}
	if (strcmp(dst, "/run") == 0 || pr_rel(dst, "/run/airlock") != NULL) {
		snprintf(why, len, "airlock's own /run/airlock%s",
		    strcmp(dst, "/run") == 0 ? " lies there" : "");
		return why;
	}
	for (i = 0; i < n_protect_sys_dirs; i++) {
		if (pr_rel(protect_sys_dirs[i], dst) != NULL) {
			snprintf(why, len, "it would hide the system "
			    "directory %s", protect_sys_dirs[i]);
			return why;
		}
		if (pr_rel(dst, protect_sys_dirs[i]) == NULL)
			continue;
		if (realpath(dst, real) == NULL) {
			snprintf(why, len, "it does not exist in %s, which "
			    "the sandbox shows read-only from this machine, "
			    "so no mount point can be made there",
			    protect_sys_dirs[i]);
			return why;
		}
		if (strcmp(real, dst) != 0) {
			snprintf(why, len, "it goes through a symbolic link "
			    "(it is %s on this machine): name that path",
			    real);
			return why;
		}
	}
	return NULL;
}
