// SPDX-License-Identifier: ISC
/*
 * Unit tests for common/namerule.c (R-L3, R-L4): folding of look-alike
 * names, each rule kind, scopes, the ancestor check of renames, the rule
 * set airlockd really sends (built through sv_plan_build()), the
 * .git/config content check, and git state: the allowlist and
 * common/gitstate.c on a real directory.
 */
#include <sys/stat.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/gitstate.h"
#include "common/msg.h"
#include "common/namerule.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "tests/unit/unit.h"

static char	 ws[] = "/tmp/namerule-test.XXXXXX";

/* The rule set of a real plan for a spec with one writable bind, ws. */
static struct namerule_set *
plan_rules(void)
{
	struct namerule_set	*set;
	struct sv_spec		 spec;
	struct sv_plan_ctx	 ctx;
	struct sv_plan		 p;
	struct sv_bind		 bind;
	char			 err[256];
	const uint8_t		*d;
	uint32_t		 kind, l1, l2;
	size_t			 i;

	memset(&spec, 0, sizeof(spec));
	memset(&ctx, 0, sizeof(ctx));
	bind.host_path = bind.guest_path = ws;
	bind.read_only = 0;
	spec.session_id = (char *)"t";
	spec.binds = &bind;
	spec.nbinds = 1;
	spec.mode = POL_MODE_CHAT;
	spec.deny_write = strv_add(NULL, "~/secret/*.txt");
	ctx.home = "/home/u";
	ck_assert_int_eq(sv_plan_build(&spec, &ctx, &p, err, sizeof(err)), 0);
	set = namerule_new();
	for (i = 0; i < p.nframes; i++) {
		if (p.frames[i].type != MSG_PLAN_WRITE_RULE)
			continue;
		d = p.frames[i].data;
		memcpy(&kind, d, 4);
		memcpy(&l1, d + 4, 4);
		memcpy(&l2, d + 8 + l1, 4);
		ck_assert_int_eq(namerule_add(set, kind, (const char *)d + 8,
		    (const char *)d + 12 + l1), 0);
	}
	sv_plan_free(&p);
	strv_free(spec.deny_write);
	ck_assert_uint_gt(namerule_count(set), 20);
	return set;
}

static int
denied(const struct namerule_set *set, const char *rel, unsigned int flags)
{
	char	path[512];

	snprintf(path, sizeof(path), "%s/%s", ws, rel);
	return namerule_check(set, path, flags);
}

static const char *
fold(const char *s)
{
	static char	out[256];

	namerule_fold(s, strlen(s), out);
	return out;
}

START_TEST(t_fold)
{
	ck_assert_str_eq(fold(".ENV"), ".env");
	ck_assert_str_eq(fold(".env."), ".env");
	ck_assert_str_eq(fold(".env . ."), ".env");
	/* fullwidth ．ｅｎｖ */
	ck_assert_str_eq(fold("\xef\xbc\x8e\xef\xbd\x85\xef\xbd\x8e"
	    "\xef\xbd\x96"), ".env");
	ck_assert_str_eq(fold(".e\xe2\x80\x8bnv"), ".env");	/* ZWSP */
	/* ZWJ, soft hyphen */
	ck_assert_str_eq(fold(".e\xe2\x80\x8dn\xc2\xadv"), ".env");
	ck_assert_str_eq(fold(".e\xcc\x81nv"), ".env");	/* combining */
	ck_assert_str_eq(fold(".env\xef\xb8\x8f"), ".env");	/* VS16 */
	ck_assert_str_eq(fold("\xe2\x80\xa4" "env"), ".env");	/* one dot */
	/* mathematical bold e */
	ck_assert_str_eq(fold(".\xf0\x9d\x90\x9e" "nv"), ".env");
	ck_assert_str_eq(fold("a.\xe2\x84\xaa" "ey"), "a.key");	/* Kelvin */
	ck_assert_str_eq(fold("x.pe\xe2\x80\x8f" "m\xe3\x80\x80"), "x.pem");
	ck_assert_str_eq(fold("\xef\xac\x81le"), "file");	/* ligature */
	ck_assert_str_eq(fold("\xc3\x89T\xc3\xa9"), "\xc3\xa9t\xc3\xa9");
	/* Not UTF-8: bytes as they are, ASCII still folded. */
	ck_assert_str_eq(fold("A\xff\xc0\xae"), "a\xff\xc0\xae");
	ck_assert_str_eq(fold("..."), "");
	ck_assert_str_eq(fold("env.txt"), "env.txt");
}
END_TEST

START_TEST(t_builtin)
{
	struct namerule_set *set = plan_rules();

	/* R-L4 names, at any depth, and their look-alikes. */
	ck_assert_int_eq(denied(set, ".env", 0), NR_DENY);
	ck_assert_int_eq(denied(set, "a/b/c/.env", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".env.local", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".envrc", 0), NR_DENY);
	ck_assert_int_eq(denied(set, "a.key", 0), NR_DENY);
	ck_assert_int_eq(denied(set, "b.pem", 0), NR_DENY);
	ck_assert_int_eq(denied(set, "B.PEM", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".ENV", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".env.", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".env ", 0), NR_DENY);
	ck_assert_int_eq(denied(set, "\xef\xbc\x8e" "env", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".en\xe2\x80\x8bv", 0), NR_DENY);
	/* Controls. */
	ck_assert_int_eq(denied(set, "env.txt", 0), NR_ALLOW);
	ck_assert_int_eq(denied(set, "x.keys", 0), NR_ALLOW);
	ck_assert_int_eq(denied(set, "pem.md", 0), NR_ALLOW);
	ck_assert_int_eq(denied(set, "src/main.c", 0), NR_ALLOW);
	ck_assert_int_eq(denied(set, ".", 0), NR_ALLOW);
	ck_assert_int_eq(denied(set, "a/..", 0), NR_ALLOW);
	/* R-L3: hooks only as samples, at any depth. */
	ck_assert_int_eq(denied(set, ".git/hooks/pre-commit", 0), NR_DENY);
	ck_assert_int_eq(denied(set, "a/b/c/d/e/.git/hooks/pre-commit", 0),
	    NR_DENY);
	ck_assert_int_eq(denied(set, ".git/hooks/pre-commit.sample", 0),
	    NR_ALLOW);
	ck_assert_int_eq(denied(set, ".GIT/Hooks/post-merge", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".git/modules/a/b/hooks/x", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".git/hooks", 0), NR_ALLOW);
	ck_assert_int_eq(denied(set, ".git/objects/ab/cdef", 0), NR_ALLOW);
	ck_assert_int_eq(denied(set, ".bashrc", 0), NR_DENY);
	ck_assert_int_eq(denied(set, "sub/.gitconfig", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".vscode/tasks.json", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".vscode/extensions.json", 0), NR_DENY);
	ck_assert_int_eq(denied(set, "a/b/.codex/config.toml", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".gemini", 0), NR_DENY);
	ck_assert_int_eq(denied(set, "x.code-workspace", 0), NR_DENY);
	ck_assert_int_eq(denied(set, "d/.ripgreprc", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".gitmodules", 0), NR_CHECK_CONFIG);
	ck_assert_int_eq(denied(set, "codex/config.toml", 0), NR_ALLOW);
	ck_assert_int_eq(denied(set, ".idea", 0), NR_DENY);
	ck_assert_int_eq(denied(set, "p/.idea/workspace.xml", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".claude", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".claude/commands/x.md", 0), NR_DENY);
	ck_assert_int_eq(denied(set, ".claude/settings.local.json", 0),
	    NR_DENY);
	ck_assert_int_eq(denied(set, ".mcp.json", 0), NR_DENY);
	/* .git/config: a content-checked replace only. */
	ck_assert_int_eq(denied(set, ".git/config", 0), NR_CHECK_CONFIG);
	ck_assert_int_eq(denied(set, "x/.git/config", 0), NR_CHECK_CONFIG);
	ck_assert_int_eq(denied(set, ".git/config.lock", 0), NR_ALLOW);
	/* A rename can bring a tree: no ancestor of a rule. */
	ck_assert_int_eq(denied(set, "x/.git", NR_F_PREFIX), NR_DENY);
	ck_assert_int_eq(denied(set, "x/.git/hooks", NR_F_PREFIX), NR_DENY);
	ck_assert_int_eq(denied(set, ".claude", NR_F_PREFIX), NR_DENY);
	ck_assert_int_eq(denied(set, ".git/index", NR_F_PREFIX), NR_ALLOW);
	ck_assert_int_eq(denied(set, ".git/modules/s/index", NR_F_PREFIX),
	    NR_ALLOW);
	ck_assert_int_eq(denied(set, "x/git", NR_F_PREFIX), NR_ALLOW);
	/* Outside the writable binds: no rule applies. */
	ck_assert_int_eq(namerule_check(set, "/tmp/.env", 0), NR_ALLOW);
	ck_assert_int_eq(namerule_check(set, "/var/x.pem", 0), NR_ALLOW);
	namerule_free(set);
}
END_TEST

START_TEST(t_kinds)
{
	struct namerule_set *set = namerule_new();

	ck_assert_int_eq(namerule_add(set, NR_ABS, "/w/secret/*.txt", NULL),
	    0);
	ck_assert_int_eq(namerule_add(set, NR_PATH, "build/**/out.bin", NULL),
	    0);
	ck_assert_int_eq(namerule_check(set, "/w/secret/a.txt", 0), NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/w/secret/A.TXT/x", 0), NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/w/secret/a.md", 0), NR_ALLOW);
	ck_assert_int_eq(namerule_check(set, "/w/secret", NR_F_PREFIX),
	    NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/w/secret", 0), NR_ALLOW);
	ck_assert_int_eq(namerule_check(set, "/x/build/out.bin", 0), NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/x/build/a/b/out.bin", 0),
	    NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/x/build/a/b/out.bin2", 0),
	    NR_ALLOW);
	/* No scope: everywhere. */
	ck_assert_int_eq(namerule_add(set, NR_NAME, "*.key", NULL), 0);
	ck_assert_int_eq(namerule_check(set, "/tmp/k.key", 0), NR_DENY);
	ck_assert_int_eq(namerule_add(set, NR_SCOPE, "/w/", NULL), 0);
	ck_assert_int_eq(namerule_check(set, "/tmp/k.key", 0), NR_ALLOW);
	ck_assert_int_eq(namerule_check(set, "/w/k.key", 0), NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/wx/k.key", 0), NR_ALLOW);
	/* Malformed rules. */
	ck_assert_int_eq(namerule_add(set, NR_NAME, "a/b", NULL), -1);
	ck_assert_int_eq(namerule_add(set, NR_ABS, "rel", NULL), -1);
	ck_assert_int_eq(namerule_add(set, NR_PATH, "/", NULL), -1);
	ck_assert_int_eq(namerule_add(set, NR_SCOPE, "rel", NULL), -1);
	ck_assert_int_eq(namerule_add(set, 0, "x", NULL), -1);
	ck_assert_int_eq(namerule_add(set, NR_KIND_MAX, "x", NULL), -1);
	ck_assert_int_eq(namerule_add(set, NR_PATH, "**/**/**/**/**", NULL),
	    -1);
	namerule_free(set);
	namerule_free(NULL);
}
END_TEST

/* The home's allowlist: NR_HOME yields to NR_CARVE, NR_ABS does not. */
START_TEST(t_home)
{
	struct namerule_set *set = namerule_new();

	ck_assert_int_eq(namerule_add(set, NR_SCOPE, "/h", NULL), 0);
	ck_assert_int_eq(namerule_add(set, NR_HOME, "/h/u/.*", NULL), 0);
	ck_assert_int_eq(namerule_add(set, NR_HOME, "/h/u/bin", NULL), 0);
	ck_assert_int_eq(namerule_add(set, NR_CARVE, "/h/u/.cache", NULL), 0);
	ck_assert_int_eq(namerule_add(set, NR_CARVE, "/h/u/.cargo/registry/",
	    NULL), 0);
	ck_assert_int_eq(namerule_add(set, NR_ABS, "/h/u/.cache/airlock",
	    NULL), 0);
	/* Every dot name and what is beneath it, existing or not. */
	ck_assert_int_eq(namerule_check(set, "/h/u/.bashrc", 0), NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/h/u/.config", 0), NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/h/u/.config/git/config", 0),
	    NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/h/u/bin/x", 0), NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/h/u/src/.bashrc", 0),
	    NR_ALLOW);
	ck_assert_int_eq(namerule_check(set, "/h/u/notes.txt", 0), NR_ALLOW);
	/* A tree renamed onto the home itself brings dot names. */
	ck_assert_int_eq(namerule_check(set, "/h/u", NR_F_PREFIX), NR_DENY);
	/* Carve-outs, exactly as spelled, and beneath. */
	ck_assert_int_eq(namerule_check(set, "/h/u/.cache", 0), NR_ALLOW);
	ck_assert_int_eq(namerule_check(set, "/h/u/.cache/pip/x", 0),
	    NR_ALLOW);
	ck_assert_int_eq(namerule_check(set, "/h/u/.cache/x", NR_F_PREFIX),
	    NR_ALLOW);
	ck_assert_int_eq(namerule_check(set, "/h/u/.cachex", 0), NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/h/u/.cargo/registry/a", 0),
	    NR_ALLOW);
	/* An NR_ABS rule inside a carve-out still holds. */
	ck_assert_int_eq(namerule_check(set, "/h/u/.cache/airlock/s", 0),
	    NR_DENY);
	/* The way to a carve-out: a directory, not a tree or a symlink. */
	ck_assert_int_eq(namerule_check(set, "/h/u/.cargo", 0), NR_ALLOW);
	ck_assert_int_eq(namerule_check(set, "/h/u/.cargo", NR_F_PREFIX),
	    NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/h/u/.cargo/bin", 0), NR_DENY);
	ck_assert_int_eq(namerule_check(set, "/h/u/.cargo/config.toml", 0),
	    NR_DENY);
	/* Outside the scope, nothing applies. */
	ck_assert_int_eq(namerule_add(set, NR_HOME, "/x/.*", NULL), 0);
	ck_assert_int_eq(namerule_check(set, "/x/.bashrc", 0), NR_ALLOW);
	ck_assert_int_eq(namerule_add(set, NR_HOME, "rel/.*", NULL), -1);
	ck_assert_int_eq(namerule_add(set, NR_CARVE, "rel", NULL), -1);
	namerule_free(set);
}
END_TEST

static const char *
split(const char *path)
{
	static char	out[PATH_MAX + NAME_MAX + 128];
	char		dir[PATH_MAX + 64], name[NAME_MAX + 2];
	int		r;

	r = namerule_split(42, "/proc/42/cwd", path, dir, sizeof(dir), name,
	    sizeof(name));
	if (r < 0)
		snprintf(out, sizeof(out), "%d", r);
	else
		snprintf(out, sizeof(out), "%s|%s", dir, name);
	return out;
}

START_TEST(t_split)
{
	char	long_name[NAME_MAX + 8];

	ck_assert_str_eq(split(".env"), "/proc/42/cwd|.env");
	ck_assert_str_eq(split("a/b/c"), "/proc/42/cwd/a/b/|c");
	ck_assert_str_eq(split("a/b//"), "/proc/42/cwd/a/|b/");
	ck_assert_str_eq(split("/w/x"), "/w/|x");
	ck_assert_str_eq(split("/x"), "/|x");
	ck_assert_str_eq(split("/"), "/|.");
	ck_assert_str_eq(split("//"), "/|./");
	ck_assert_str_eq(split("a/.."), "/proc/42/cwd/a/|..");
	ck_assert_str_eq(split(""), "-2");		/* ENOENT */
	/* The caller's own links are its /proc/<pid>, not init's. */
	ck_assert_str_eq(split("/dev/stdout"), "/proc/42/fd/|1");
	ck_assert_str_eq(split("/dev/stderr"), "/proc/42/fd/|2");
	ck_assert_str_eq(split("/dev/fd/63"), "/proc/42/fd/|63");
	ck_assert_str_eq(split("/proc/self/fd/3"), "/proc/42/fd/|3");
	ck_assert_str_eq(split("/proc/thread-self/cwd/.env"),
	    "/proc/42/cwd/|.env");
	ck_assert_str_eq(split("/proc/self"), "/proc/|42");
	ck_assert_str_eq(split("/proc/selfish"), "/proc/|selfish");
	ck_assert_str_eq(split("/dev/stdout2"), "/dev/|stdout2");
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	ck_assert_str_eq(split(long_name), "-36");	/* ENAMETOOLONG */
}
END_TEST

START_TEST(t_join)
{
	char	abs[64];
	int	proc = -1;

	strcpy(abs, "/w/sub");
	ck_assert_int_eq(namerule_join(abs, sizeof(abs), 6, "x/", &proc), 0);
	ck_assert_str_eq(abs, "/w/sub/x");
	ck_assert_int_eq(proc, 0);
	strcpy(abs, "/");
	ck_assert_int_eq(namerule_join(abs, sizeof(abs), 1, ".env", &proc), 0);
	ck_assert_str_eq(abs, "/.env");
	strcpy(abs, "/proc/42/fdXXX");
	ck_assert_int_eq(namerule_join(abs, sizeof(abs), 11, "1", &proc), 0);
	ck_assert_str_eq(abs, "/proc/42/fd/1");
	ck_assert_int_eq(proc, 1);
	/* init's own /proc entries are never reached. */
	strcpy(abs, "/proc/1/fd");
	ck_assert_int_eq(namerule_join(abs, sizeof(abs), 10, "3", &proc),
	    -EACCES);
	strcpy(abs, "/proc/1");
	ck_assert_int_eq(namerule_join(abs, sizeof(abs), 7, "mem", &proc),
	    -EACCES);
	strcpy(abs, "/proc/12");
	ck_assert_int_eq(namerule_join(abs, sizeof(abs), 8, "mem", &proc), 0);
	strcpy(abs, "/w");
	ck_assert_int_eq(namerule_join(abs, 8, 2, "toolongname", &proc),
	    -ENAMETOOLONG);
}
END_TEST

static int
cfg(const char *text)
{
	char	why[128];

	return namerule_gitconfig_check(text, strlen(text), NULL, 0, why,
	    sizeof(why));
}

START_TEST(t_gitconfig_get)
{
	struct {
		const char	*text, *want;	/* want NULL: rc */
		int		 rc;
	} c[] = {
		{ "[remote \"origin\"]\n\turl = https://h/a.git\n",
		    "https://h/a.git", 1 },
		{ "[core]\n\tbare = false\n[remote \"origin\"]\n"
		    "\turl = first\n\tfetch = +refs/*\n\turl = last ; note\n",
		    "last", 1 },
		{ "[Remote \"origin\"]\r\n\tURL = \"a b\\\"c\"\r\n",
		    "a b\"c", 1 },
		{ "[remote.origin]\nurl = old-form\n", "old-form", 1 },
		{ "[remote \"Origin\"]\nurl = other\n", NULL, 0 },
		{ "[remote \"upstream\"]\nurl = u\n", NULL, 0 },
		{ "[remote \"origin\"]\nurl\n", NULL, 0 },
		{ "", NULL, 0 },
		{ "[include]\npath = more\n[remote \"origin\"]\nurl = x\n",
		    NULL, -1 },
		{ "[includeIf \"gitdir:/x/\"]\npath = more\n", NULL, -1 },
		{ "[remote \"origin\"\nurl = x\n", NULL, -1 },
		{ "url = x\n", NULL, -1 },
	};
	size_t	 i;
	char	*v;
	int	 r;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		r = namerule_gitconfig_get(c[i].text, strlen(c[i].text),
		    "remote", "origin", "url", &v);
		ck_assert_msg(r == c[i].rc, "case %zu: %d", i, r);
		if (c[i].want != NULL)
			ck_assert_str_eq(v, c[i].want);
		else
			ck_assert_ptr_null(v);
		free(v);
	}
}
END_TEST

START_TEST(t_gitconfig)
{
	/* What git init, git config user.* and branch tracking write. */
	ck_assert_int_eq(cfg("[core]\n\trepositoryformatversion = 0\n"
	    "\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"
	    "[user]\n\temail = a@b.c\n\tname = \"A B\"\n"
	    "[remote \"origin\"]\n\turl = /srv/repo.git\n"
	    "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	    "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"
	    "[core]\n\tfsmonitor = false\n"), 0);
	ck_assert_int_eq(cfg(""), 0);
	ck_assert_int_eq(cfg("# only a comment\n; another\n"), 0);
	ck_assert_int_eq(cfg("\xef\xbb\xbf[core]\r\n\tbare = false\r\n"), 0);
	/* Keys that run code, in every spelling git accepts. */
	ck_assert_int_eq(cfg("[core]\n\tfsmonitor = sh -c id\n"), -1);
	ck_assert_int_eq(cfg("[CORE]\n\tFsMonitor = \"sh -c id\"\n"), -1);
	ck_assert_int_eq(cfg("[core] fsmonitor = x"), -1);
	ck_assert_int_eq(cfg("[core]\nfsmonitor=x\\\ny\n"), -1);
	ck_assert_int_eq(cfg("[core]\n\thooksPath = /tmp/h\n"), -1);
	ck_assert_int_eq(cfg("[core]\n\tsshCommand = ssh -o x\n"), -1);
	ck_assert_int_eq(cfg("[core]\n\tpager = less\n"), -1);
	ck_assert_int_eq(cfg("[core]\n\teditor = vi\n"), -1);
	ck_assert_int_eq(cfg("[core]\n\taskPass = x\n"), -1);
	ck_assert_int_eq(cfg("[sequence]\n\teditor = x\n"), -1);
	ck_assert_int_eq(cfg("[diff]\n\texternal = x\n"), -1);
	ck_assert_int_eq(cfg("[diff \"bin\"]\n\ttextconv = x\n"), -1);
	ck_assert_int_eq(cfg("[filter \"lfs\"]\n\tsmudge = x\n"), -1);
	ck_assert_int_eq(cfg("[filter \"lfs\"]\n\tprocess = x\n"), -1);
	ck_assert_int_eq(cfg("[credential]\n\thelper = store\n"), -1);
	ck_assert_int_eq(cfg("[credential \"https://x\"]\n\thelper = x\n"),
	    -1);
	ck_assert_int_eq(cfg("[alias]\n\tx = !sh -c id\n"), -1);
	ck_assert_int_eq(cfg("[alias]\n\tx = \"  !id\"\n"), -1);
	ck_assert_int_eq(cfg("[alias]\n\tx = -c core.pager=id log\n"), -1);
	ck_assert_int_eq(cfg("[include]\n\tpath = ../x\n"), -1);
	ck_assert_int_eq(cfg("[includeIf \"gitdir:/\"]\n\tpath = x\n"), -1);
	ck_assert_int_eq(cfg("[protocol \"ext\"]\n\tallow = always\n"), -1);
	ck_assert_int_eq(cfg("[protocol]\n\tallow = ALWAYS\n"), -1);
	ck_assert_int_eq(cfg("[gpg]\n\tprogram = x\n"), -1);
	ck_assert_int_eq(cfg("[gpg \"ssh\"]\n\tprogram = x\n"), -1);
	ck_assert_int_eq(cfg("[uploadpack]\n\tpackObjectsHook = x\n"), -1);
	ck_assert_int_eq(cfg("[pager]\n\tlog = less -S\n"), -1);
	ck_assert_int_eq(cfg("[core.x]\n\ttextconv = y\n"), -1);
	ck_assert_int_eq(cfg("[remote \"o\"]\n\tuploadpack = x\n"), -1);
	ck_assert_int_eq(cfg("[submodule \"s\"]\n\tupdate = !x\n"), -1);
	ck_assert_int_eq(cfg("[hook \"h\"]\n\tcommand = x\n"), -1);
	ck_assert_int_eq(cfg("[core]\n\thookspath\n"), -1);
	/* By allowlist: anything else, harmless-looking or not. */
	ck_assert_int_eq(cfg("[alias]\n\tco = checkout\n"), -1);
	ck_assert_int_eq(cfg("[alias]\n\tf = fetch --upload-pack=id\n"), -1);
	ck_assert_int_eq(cfg("[pager]\n\tlog = false\n"), -1);
	ck_assert_int_eq(cfg("[protocol \"ext\"]\n\tallow = user\n"), -1);
	ck_assert_int_eq(cfg("[url \"ext::sh -c touch% /tmp/m% #\"]\n"
	    "\tinsteadOf = https://github.com/\n"), -1);
	ck_assert_int_eq(cfg("[remote \"o\"]\n\tvcs = x\n"), -1);
	ck_assert_int_eq(cfg("[lfs \"customtransfer.x\"]\n\tpath = x\n"), -1);
	ck_assert_int_eq(cfg("[lfs \"extension.x\"]\n\tclean = x\n"), -1);
	ck_assert_int_eq(cfg("[core]\n\tworktree = /home/u\n"), -1);
	ck_assert_int_eq(cfg("[core \"x\"]\n\tbare = true\n"), -1);
	ck_assert_int_eq(cfg("[remote]\n\turl = x\n"), -1);
	ck_assert_int_eq(cfg("[gc]\n\tauto = 0\n"), -1);
	ck_assert_int_eq(cfg("[http]\n\tproxy = http://x\n"), -1);
	ck_assert_int_eq(cfg("[core]\n\tbare = maybe\n"), -1);
	ck_assert_int_eq(cfg("[core]\n\trepositoryformatversion = 1x\n"), -1);
	ck_assert_int_eq(cfg("[user]\n\tname = a\\tb\\n\n"), -1);
	ck_assert_int_eq(cfg("[submodule \"s\"]\n\tupdate = !x\n"), -1);
	ck_assert_int_eq(cfg("[submodule \"s\"]\n\tupdate = rebase\n"), 0);
	ck_assert_int_eq(cfg("[advice]\n\tdetachedHead = false\n"), 0);
	ck_assert_int_eq(cfg("[advice]\n\tdetachedHead = x\n"), -1);
	ck_assert_int_eq(cfg("[pull]\n\trebase = merges\n"), 0);
	ck_assert_int_eq(cfg("[extensions]\n\tworktreeConfig = true\n"), 0);
	ck_assert_int_eq(cfg("[remote \"o\"]\n\ttagOpt = --no-tags\n"), 0);
	ck_assert_int_eq(cfg("[remote \"o\"]\n\ttagOpt = --upload-pack=x\n"),
	    -1);
	ck_assert_int_eq(cfg("[submodule]\n\tactive = .\n"), 0);
	/* Unparsable: git would refuse it too, and so do we. */
	ck_assert_int_eq(cfg("[core\n"), -1);
	ck_assert_int_eq(cfg("fsmonitor = x\n"), -1);
	ck_assert_int_eq(cfg("[core]\n\tx = \"unterminated\n"), -1);
	ck_assert_int_eq(cfg("[core]\n\tx = a\\qb\n"), -1);
	ck_assert_int_eq(cfg("[core]\n\t= x\n"), -1);
	ck_assert_int_eq(cfg("[core \"x]\n"), -1);
}
END_TEST

/* A runner's state: only the git-state rules apply there. */
START_TEST(t_gitscope)
{
	struct namerule_set *set = namerule_new();

	ck_assert_int_eq(namerule_add(set, NR_SCOPE, "/w", NULL), 0);
	ck_assert_int_eq(namerule_add(set, NR_GITSCOPE, "/h/.claude/", NULL),
	    0);
	ck_assert_int_eq(namerule_add(set, NR_NAME, ".env", NULL), 0);
	ck_assert_int_eq(namerule_add(set, NR_GITSTATE, ".git", NULL), 0);
	ck_assert_int_eq(namerule_add(set, NR_GITSCOPE, "rel", NULL), -1);
	ck_assert_int_eq(namerule_scope(set, "/h/.claude/r/config"), 10);
	ck_assert_int_eq(namerule_scope(set, "/w/a"), 2);
	ck_assert_int_eq(namerule_scope(set, "/h/x"), -1);
	/* The other rules stay out of it. */
	ck_assert_int_eq(namerule_check(set, "/h/.claude/.env", 0), NR_ALLOW);
	ck_assert_int_eq(namerule_check(set, "/w/.env", 0), NR_DENY);
	namerule_free(set);
}
END_TEST

/* Remote URLs: the transports git reaches without a helper program. */
START_TEST(t_gitconfig_url)
{
	static const char *const good[] = {
		"https://github.com/a/b.git", "http://127.0.0.1:8080/r",
		"ssh://git@host/x", "git://host/x", "file:///srv/r.git",
		"git+ssh://h/x", "git@github.com:a/b.git", "host:path/x",
		"/srv/repo.git", "../sibling", "./sub", "origin", ".",
	};
	static const char *const bad[] = {
		"ext::sh -c touch% /tmp/m", "fd::17", "testgit::/x",
		"persistent-https://h/x", "HTTPS://h/x", "-uid",
		"ssh://-oProxyCommand=x/y", "ssh://u@-oProxyCommand=x/y",
		"u@-oProxyCommand=x:y", "a::b", "", "x\001y",
		"ssh://[-oProxyCommand=x]/y", "[-oProxyCommand=x]:y",
	};
	const char *const keys[] = {
		"[remote \"o\"]\n\turl", "[remote \"o\"]\n\tpushurl",
		"[branch \"m\"]\n\tremote", "[branch \"m\"]\n\tpushRemote",
		"[remote]\n\tpushDefault", "[submodule \"s\"]\n\turl",
		"[extensions]\n\tpartialClone",
	};
	char	 text[256], why[128];
	size_t	 i, k;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
			snprintf(text, sizeof(text), "%s = \"%s\"\n", keys[k],
			    good[i]);
			ck_assert_msg(cfg(text) == 0, "refused: %s", text);
		}
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			snprintf(text, sizeof(text), "%s = \"%s\"\n", keys[k],
			    bad[i]);
			ck_assert_msg(cfg(text) == -1, "allowed: %s", text);
		}
	}
	/* The refusal names the key, not the subsection. */
	ck_assert_int_eq(namerule_gitconfig_check("[url \"ext::x\"]\n"
	    "insteadOf = y\n", 29, NULL, 0, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "url.<sub>.insteadof: not on the allowlist");
}
END_TEST

/* A path value: inside what the caller says is writable. */
static int
inside_w(const char *val, int wtree, void *arg)
{
	char	p[256];

	(void)wtree;
	(void)arg;
	return namerule_lexical("/w/.git/modules/sm", val, p, sizeof(p)) == 0 &&
	    strncmp(p, "/w/", 3) == 0;
}

START_TEST(t_gitconfig_path)
{
	const char *in = "[core]\n\tworktree = ../../../sm\n";
	const char *out = "[core]\n\tworktree = ../../../../home/u\n";
	char	why[128];

	ck_assert_int_eq(namerule_gitconfig_check_at(in, strlen(in), NULL, 0,
	    inside_w, NULL, why, sizeof(why)), 0);
	ck_assert_int_eq(namerule_gitconfig_check_at(out, strlen(out), NULL,
	    0, inside_w, NULL, why, sizeof(why)), -1);
	ck_assert_str_eq(why,
	    "core.worktree: a path outside the writable tree");
	/* Without a judge of paths: none. */
	ck_assert_int_eq(cfg(in), -1);
	/* The user's own stays. */
	ck_assert_int_eq(namerule_gitconfig_check(out, strlen(out), out,
	    strlen(out), why, sizeof(why)), 0);
}
END_TEST

static int
cfg2(const char *text, const char *old)
{
	char	why[128];

	return namerule_gitconfig_check(text, strlen(text), old, strlen(old),
	    why, sizeof(why));
}

START_TEST(t_gitconfig_old)
{
	const char *old = "[core]\n\teditor = vim\n[credential]\n"
	    "\thelper = store\n[filter \"lfs\"]\n\tclean = git-lfs clean\n";

	/* What the user's file already had stays: git config user.* works. */
	ck_assert_int_eq(cfg2("[core]\n\teditor = vim\n[credential]\n"
	    "\thelper = store\n[filter \"lfs\"]\n\tclean = git-lfs clean\n"
	    "[user]\n\temail = a@b\n", old), 0);
	ck_assert_int_eq(cfg2("[Core]\neditor=\"vim\"\n", old), 0);
	/* A changed value, a new key, another subsection: the agent's. */
	ck_assert_int_eq(cfg2("[core]\n\teditor = sh -c id\n", old), -1);
	ck_assert_int_eq(cfg2("[core]\n\teditor = vim\n\tpager = x\n", old),
	    -1);
	ck_assert_int_eq(cfg2("[filter \"x\"]\n\tclean = git-lfs clean\n",
	    old), -1);
	/* An unparsable old file vouches for nothing. */
	ck_assert_int_eq(cfg2("[core]\n\teditor = vim\n", "[core"), -1);
}
END_TEST


START_TEST(t_gitstate_rel)
{
	struct namerule_set *set = plan_rules();
	char	 out[64];

	ck_assert_int_eq(namerule_gitstate_on(set), 1);
	ck_assert_int_eq(namerule_scope(set, ws), (int)strlen(ws));
	ck_assert_int_eq(namerule_scope(set, "/etc/x"), -1);
	namerule_free(set);
	/* What porcelain writes. */
	ck_assert_int_eq(namerule_gitstate_rel(""), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("objects/ab/cd"),
	    NR_ALLOW_TREE);
	ck_assert_int_eq(namerule_gitstate_rel("refs"), NR_ALLOW_TREE);
	ck_assert_int_eq(namerule_gitstate_rel("modules/a/b/hooks/x"),
	    NR_ALLOW_TREE);
	ck_assert_int_eq(namerule_gitstate_rel("HEAD"), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("ORIG_HEAD"), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("AUTO_MERGE"), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("index.lock"), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("HEAD.lock"), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("config.lock"), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("index.stash.123"), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("hooks"), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("hooks/"), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("hooks/pre-commit.sample"),
	    NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("info/exclude"), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("tAb3xYz"), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("config"), NR_CHECK_CONFIG);
	ck_assert_int_eq(namerule_gitstate_rel("config.worktree"),
	    NR_CHECK_CONFIG);
	/* Everything else. */
	ck_assert_int_eq(namerule_gitstate_rel("hooks/pre-commit"), NR_DENY);
	ck_assert_int_eq(namerule_gitstate_rel("hooks/pre-commit.lock"),
	    NR_DENY);
	ck_assert_int_eq(namerule_gitstate_rel("info/attributes"), NR_DENY);
	ck_assert_int_eq(namerule_gitstate_rel("Config"), NR_DENY);
	ck_assert_int_eq(namerule_gitstate_rel("CONFIG.lock"), NR_DENY);
	ck_assert_int_eq(namerule_gitstate_rel("remotes/origin"), NR_DENY);
	/* git init's empty branches/, but no remote's URL in it. */
	ck_assert_int_eq(namerule_gitstate_rel("branches"), NR_ALLOW);
	ck_assert_int_eq(namerule_gitstate_rel("branches/origin"), NR_DENY);
	ck_assert_int_eq(namerule_gitstate_rel("hooks/x/y.sample"), NR_DENY);
	ck_assert_int_eq(namerule_gitstate_rel("info/../hooks/x"), NR_DENY);
	ck_assert_int_eq(namerule_gitstate_rel("../x"), NR_DENY);
	ck_assert_int_eq(namerule_gitstate_rel("HEAD/x"), NR_DENY);
	/* Names and markers. */
	ck_assert_int_eq(namerule_gitstate_name(".git"), 1);
	ck_assert_int_eq(namerule_gitstate_name(".GIT."), 1);
	ck_assert_int_eq(namerule_gitstate_name(".gitx"), 0);
	ck_assert_int_eq(namerule_gitstate_mark("Refs"), 1);
	ck_assert_int_eq(namerule_gitstate_mark("commondir"), 1);
	ck_assert_int_eq(namerule_gitstate_mark("HEAD"), 0);
	/* A symlink's target as its text says. */
	ck_assert_int_eq(namerule_lexical("/w/a", "../.git/./hooks/x", out,
	    sizeof(out)), 0);
	ck_assert_str_eq(out, "/w/.git/hooks/x");
	ck_assert_int_eq(namerule_lexical("/w", "/etc//../x/", out,
	    sizeof(out)), 0);
	ck_assert_str_eq(out, "/x");
	ck_assert_int_eq(namerule_lexical("/w", "../../..", out,
	    sizeof(out)), 0);
	ck_assert_str_eq(out, "/");
	ck_assert_int_eq(namerule_lexical("/w", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", out, sizeof(out)),
	    -ENAMETOOLONG);
}
END_TEST

static void
put(const char *dir, const char *name, const char *text)
{
	char	p[PATH_MAX];
	FILE	*f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	ck_assert_ptr_nonnull(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
}

START_TEST(t_gitstate_fs)
{
	struct stat	 st;
	char		 d[256], p[PATH_MAX], why[256];
	int		 fd;
	ino_t		 ino;

	snprintf(d, sizeof(d), "%s/repo", ws);
	ck_assert_int_eq(mkdir(d, 0755), 0);
	ck_assert_int_eq(gitstate_is(AT_FDCWD, d), 0);
	snprintf(p, sizeof(p), "%s/objects", d);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	/* objects alone: not yet; refs makes it so, commondir too. */
	ck_assert_int_eq(gitstate_becomes(d, "refs"), 1);
	ck_assert_int_eq(gitstate_becomes(d, "commondir"), 1);
	ck_assert_int_eq(gitstate_becomes(d, "objects"), 0);
	ck_assert_int_eq(gitstate_becomes(d, "HEAD"), 0);
	ck_assert_uint_eq(gitstate_root(d, strlen(ws)), 0);
	/* A config that is fine: checked and installed afresh. */
	put(d, "config", "[core]\n\tbare = false\n");
	put(d, "HEAD", "ref: refs/heads/main\n");
	snprintf(p, sizeof(p), "%s/config", d);
	ck_assert_int_eq(stat(p, &st), 0);
	ino = st.st_ino;
	ck_assert_ptr_nonnull(fopen(p, "r"));	/* keeps the inode alive */
	ck_assert_int_eq(gitstate_verify(AT_FDCWD, d, "", why, sizeof(why)),
	    0);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_ne(st.st_ino, ino);
	/* A hook, or a config that runs code: refused, named. */
	snprintf(p, sizeof(p), "%s/hooks", d);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	put(p, "pre-commit.sample", "x");
	ck_assert_int_eq(gitstate_verify(AT_FDCWD, d, "", why, sizeof(why)),
	    0);
	put(p, "pre-commit", "x");
	ck_assert_int_eq(gitstate_verify(AT_FDCWD, d, "", why, sizeof(why)),
	    -1);
	ck_assert_str_eq(why, "hooks/pre-commit: not what git writes");
	snprintf(p, sizeof(p), "%s/hooks/pre-commit", d);
	unlink(p);
	put(d, "config", "[core]\n\tfsmonitor = x\n");
	ck_assert_int_eq(gitstate_verify(AT_FDCWD, d, "", why, sizeof(why)),
	    -1);
	ck_assert_ptr_nonnull(strstr(why, "core.fsmonitor"));
	put(d, "config", "");
	/* A symlink is refused; a nested git directory is its own. */
	snprintf(p, sizeof(p), "%s/description", d);
	ck_assert_int_eq(symlink("/etc/passwd", p), 0);
	ck_assert_int_eq(gitstate_verify(AT_FDCWD, d, "", why, sizeof(why)),
	    -1);
	unlink(p);
	snprintf(p, sizeof(p), "%s/.git", d);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/.git/hooks", d);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(gitstate_verify(AT_FDCWD, d, "", why, sizeof(why)),
	    0);
	/* Now it is git state: its root is found from below. */
	snprintf(p, sizeof(p), "%s/refs", d);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(gitstate_is(AT_FDCWD, d), 1);
	snprintf(p, sizeof(p), "%s/refs/heads", d);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_uint_eq(gitstate_root(p, strlen(ws)), strlen(d));
	snprintf(p, sizeof(p), "%s/.git/hooks", d);
	ck_assert_uint_eq(gitstate_root(p, strlen(ws)), strlen(d) + 5);
	ck_assert_int_eq(gitstate_becomes(d, "commondir"), 0);
	fd = open(d, O_PATH);
	ck_assert_int_eq(gitstate_is(fd, "."), 1);
	close(fd);
	snprintf(p, sizeof(p), "rm -rf %s", d);
	ck_assert_int_eq(system(p), 0);
}
END_TEST

/* issue 14: remote URL changes are reported (not refused). */
START_TEST(t_gitconfig_remote)
{
	static const char old[] = "[remote \"origin\"]\n"
	    "\turl = https://github.com/acme/app.git\n";
	static const char same[] = "[core]\nbare = false\n"
	    "[remote \"origin\"]\n\turl = https://github.com/acme/app.git\n";
	static const char moved[] = "[remote \"origin\"]\n"
	    "\turl = https://github.com/other/repo.git\n";
	static const char push[] = "[remote \"origin\"]\n"
	    "\turl = https://github.com/acme/app.git\n"
	    "\tpushurl = https://github.com/other/repo.git\n";
	char	why[128];

	ck_assert_int_eq(namerule_gitconfig_remote_changed(same, strlen(same),
	    old, strlen(old), why, sizeof(why)), 0);
	ck_assert_int_eq(namerule_gitconfig_remote_changed(moved,
	    strlen(moved), old, strlen(old), why, sizeof(why)), 1);
	ck_assert_str_eq(why, "remote.origin.url");
	ck_assert_int_eq(namerule_gitconfig_remote_changed(push, strlen(push),
	    old, strlen(old), why, sizeof(why)), 1);
	ck_assert_str_eq(why, "remote.origin.pushurl");
	ck_assert_int_eq(namerule_gitconfig_remote_changed(old, strlen(old),
	    NULL, 0, why, sizeof(why)), 1);
	/* And the content check still lets git write it. */
	ck_assert_int_eq(namerule_gitconfig_check(moved, strlen(moved), old,
	    strlen(old), why, sizeof(why)), 0);
}
END_TEST

/* .gitmodules by allowlist (issue 25). */
START_TEST(t_gitmodules)
{
	static const char *const ok[] = {
		"[submodule \"a\"]\n\tpath = lib/a\n\turl = https://h/a.git\n",
		"[submodule \"a\"]\n\turl = ../a.git\n\tbranch = main\n"
		    "\tshallow = true\n\tignore = dirty\n\tupdate = rebase\n"
		    "\tfetchRecurseSubmodules = on-demand\n",
		"[submodule \"b\"]\n\turl = git@github.com:o/b.git\n",
		"[submodule \"c\"]\n\turl = ssh://h/c\n\tpath = c\n",
		"[submodule \"d\"]\n\turl = file:///srv/d.git\n",
		"",
	};
	static const char *const bad[] = {
		"[submodule \"a\"]\n\turl = ext::sh -c touch% /tmp/x\n",
		"[submodule \"a\"]\n\turl = fd::17\n",
		"[submodule \"a\"]\n\turl = -uhttps://x\n",
		"[submodule \"a\"]\n\turl = foo://h/a\n",
		"[submodule \"a\"]\n\tupdate = !touch /tmp/x\n",
		"[submodule \"a\"]\n\tpath = ../../x\n",
		"[submodule \"a\"]\n\tpath = x/.git/hooks\n",
		"[submodule \"a\"]\n\tpath = /etc\n",
		"[submodule \"a\"]\n\tfoo = bar\n",
		"[submodule]\n\turl = https://h/a\n",
		"[core]\n\tfsmonitor = touch /tmp/x\n",
		"[include]\n\tpath = x\n",
		"[submodule \"a\"]\n\turl\n",
		"[submodule \"a\"]\n\tbranch = \"a\\nb\"\n",
		"[submodule \"a\"\n",
	};
	char	why[128];
	size_t	i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		ck_assert_msg(namerule_gitmodules_check(ok[i], strlen(ok[i]),
		    why, sizeof(why)) == 0, "ok[%zu]: %s", i, why);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		ck_assert_msg(namerule_gitmodules_check(bad[i], strlen(bad[i]),
		    why, sizeof(why)) == -1, "bad[%zu] taken", i);
		ck_assert(why[0] != '\0');
	}
	ck_assert_int_eq(namerule_gitmodules_name(".gitmodules"), 1);
	ck_assert_int_eq(namerule_gitmodules_name(".GITMODULES."), 1);
	ck_assert_int_eq(namerule_gitmodules_name("gitmodules"), 0);
}
END_TEST

static Suite *
namerule_suite(void)
{
	Suite	*s = suite_create("namerule");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, t_fold);
	tcase_add_test(tc, t_builtin);
	tcase_add_test(tc, t_kinds);
	tcase_add_test(tc, t_home);
	tcase_add_test(tc, t_split);
	tcase_add_test(tc, t_join);
	tcase_add_test(tc, t_gitconfig_get);
	tcase_add_test(tc, t_gitconfig);
	tcase_add_test(tc, t_gitconfig_old);
	tcase_add_test(tc, t_gitconfig_url);
	tcase_add_test(tc, t_gitscope);
	tcase_add_test(tc, t_gitconfig_path);
	tcase_add_test(tc, t_gitstate_rel);
	tcase_add_test(tc, t_gitstate_fs);
	tcase_add_test(tc, t_gitconfig_remote);
	tcase_add_test(tc, t_gitmodules);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	int	 nf;

	if (mkdtemp(ws) == NULL)
		return EXIT_FAILURE;
	nf = unit_run(namerule_suite());
	rmdir(ws);
	return nf;
}
