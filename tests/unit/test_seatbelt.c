// SPDX-License-Identifier: ISC
/*
 * The Seatbelt profile generator (common/seatbelt.c, SPEC R-M1, R-M2):
 * golden profiles for a set of plans, checked in under tests/golden/, and
 * the invariant reader (common/sbpl_check.c) over each of them and over
 * profiles broken on purpose.  AIRLOCK_GOLDEN_UPDATE=1 (make golden)
 * rewrites the golden files instead of comparing, for a deliberate change.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <check.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/host/settings.h"
#include "common/msg.h"
#include "common/namerule.h"
#include "common/xmalloc.h"
#include "common/seatbelt.h"
#include "supervisor/sv.h"
#include "supervisor/sv_sbpl.h"
#include "tests/unit/unit.h"

#define GOLDEN_DIR	"tests/golden"

static char *const secrets[] = { "/home/u/.ssh", "/home/u/.aws",
	"/home/u/.config/gh", "/etc/shadow", NULL };
static char *const roots[] = { "/home/u/src/app", "/tmp", NULL };
static char *const homes[] = { "/home/u", NULL };
static char *const home_binds[] = { "/home/u/src/app", NULL };
static char *const rc_files[] = { "/home/u/.bashrc", "/home/u/.zshrc",
	"/home/u/.profile", NULL };
static char *const names[] = { ".env", ".env.*", ".envrc", "*.key",
	"*.pem", NULL };
static char *const paths[] = { ".git/config", NULL };
static char *const trees[] = { ".git/hooks", NULL };
static const unsigned ports[] = { 3128, 1080, 9418 };

static char *
slurp(const char *path)
{
	FILE	*f = fopen(path, "re");
	char	*buf;
	long	 n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* The generated profile passes the reader and equals its golden file. */
static void
golden(const char *name, const struct sbpl_plan *pl)
{
	char	 path[256], err[512], *got = sbpl_generate(pl), *want;
	FILE	*f;

	if (sbpl_check(got, strlen(got), err, sizeof(err)) == -1)
		ck_abort_msg("%s: the reader refuses the profile: %s\n%s",
		    name, err, got);
	snprintf(path, sizeof(path), "%s/seatbelt_%s.sb", GOLDEN_DIR, name);
	if (getenv("AIRLOCK_GOLDEN_UPDATE") != NULL) {
		ck_assert_ptr_nonnull(f = fopen(path, "we"));
		fputs(got, f);
		ck_assert_int_eq(fclose(f), 0);
	}
	want = slurp(path);
	ck_assert_msg(want != NULL, "%s missing (make golden writes it)",
	    path);
	ck_assert_msg(strcmp(got, want) == 0, "%s differs from the golden "
	    "file %s:\n%s", name, path, got);
	free(want);
	free(got);
}

static void
base_plan(struct sbpl_plan *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->read_private = homes;
	pl->read_allow = home_binds;
	pl->read_deny = secrets;
	pl->write_allow = roots;
	pl->write_deny = rc_files;
	pl->name_rules = names;
	pl->path_rules = paths;
	pl->tree_rules = trees;
	pl->ports = ports;
	pl->nports = 3;
}

START_TEST(plain_workspace)
{
	struct sbpl_plan pl;

	base_plan(&pl);
	golden("plain", &pl);
}
END_TEST

START_TEST(review_mode)
{
	/* Review: nothing writable but the run's own temporary space. */
	static char *const tmp[] = { "/tmp", "/var/folders/xy/T", NULL };
	struct sbpl_plan pl;

	base_plan(&pl);
	pl.write_allow = tmp;
	golden("review", &pl);
}
END_TEST

START_TEST(protected_checkout)
{
	static char *const hard[] = { "/home/u/.bashrc",
		"/home/u/src/app/vendor/lib", "/home/u/src/app/.airlock",
		NULL };
	static char *const home[] = { "/home/u/.config", "/home/u/.local/bin",
		NULL };
	static char *const carve[] = { "/home/u/.config/claude", NULL };
	static char *const home_glob[] = { "/home/u/.*", NULL };
	struct sbpl_plan pl;

	base_plan(&pl);
	pl.write_deny = hard;
	pl.home_deny = home;
	pl.home_rules = home_glob;
	pl.carve = carve;
	golden("protected", &pl);
}
END_TEST

START_TEST(deny_globs)
{
	static char *const glob[] = { "/home/u/src/app/**/*.sqlite",
		"secrets/*", "id_*", NULL };
	struct sbpl_plan pl;

	base_plan(&pl);
	pl.path_rules = glob;
	golden("globs", &pl);
}
END_TEST

START_TEST(exec_grants)
{
	static char *const grants[] = { "/home/u/src/app/node_modules/.bin",
		"/tmp/tools", NULL };
	static char *const socks[] = { "/tmp/airlock-1000/ssh.sock", NULL };
	struct sbpl_plan pl;

	base_plan(&pl);
	pl.exec_grants = grants;
	pl.unix_sockets = socks;
	golden("grants", &pl);
}
END_TEST

START_TEST(awkward_paths)
{
	/* A quote, a backslash, a newline, a space, a parenthesis, UTF-8:
	 * none may end its string or its form. */
	static char *const hard[] = {
		"/home/u/src/a\") (allow file-write* (subpath \"/",
		"/home/u/src/back\\slash\\", "/home/u/src/new\nline",
		"/home/u/My Projects/caf\xc3\xa9 \xe2\x9c\x93",
		"/tmp/\x01\x1f\x7f", "relative/is/skipped", NULL };
	static char *const w[] = { "/home/u/My Projects/caf\xc3\xa9 "
		"\xe2\x9c\x93", "/private/var/folders/q\"q", NULL };
	static char *const n[] = { "we\"ird\\.key", "\xc3\xa9t\xc3\xa9.pem",
		NULL };
	struct sbpl_plan pl;
	char	*out;

	base_plan(&pl);
	pl.write_deny = hard;
	pl.write_allow = w;
	pl.name_rules = n;
	golden("awkward", &pl);
	out = sbpl_generate(&pl);
	ck_assert_ptr_null(strstr(out, "relative/is/skipped"));
	ck_assert_ptr_nonnull(strstr(out, "(subpath \"/home/u/src/a\\\") "
	    "(allow file-write* (subpath \\\"/\")"));
	ck_assert_ptr_nonnull(strstr(out, "\"/tmp/\\x01\\x1f\\x7f\""));
	/* Read back through the escapes, each is the same string in its
	 * own rule, and nothing was added to the writable roots. */
	for (size_t i = 0; i < 5; i++)
		ck_assert_msg(sbpl_has_rule(out, strlen(out), "deny",
		    "file-write*", "subpath", hard[i]), "%s", hard[i]);
	ck_assert(!sbpl_has_rule(out, strlen(out), "allow", "file-write*",
	    "subpath", "/"));
	free(out);
}
END_TEST

/* An absolute glob: both spellings, and its literal directories may
 * not be renamed away from under it. */
START_TEST(glob_spellings)
{
	struct sbpl_plan pl;
	char	*tree[] = { "/tmp/cfg/*.yml", NULL }, err[256], *out;
	size_t	 n;

	memset(&pl, 0, sizeof(pl));
	pl.tree_rules = tree;
	out = sbpl_generate(&pl);
	n = strlen(out);
	ck_assert_int_eq(sbpl_check(out, n, err, sizeof(err)), 0);
	ck_assert(strstr(out, "(regex \"^/[tT][mM][pP]/[cC][fF][gG]/") !=
	    NULL);
	ck_assert(strstr(out, "(regex \"^/[pP][rR][iI][vV][aA][tT][eE]/"
	    "[tT][mM][pP]/[cC][fF][gG]/") != NULL);
	ck_assert(sbpl_has_rule(out, n, "deny", "file-write-unlink",
	    "literal", "/tmp/cfg"));
	ck_assert(sbpl_has_rule(out, n, "deny", "file-write-unlink",
	    "literal", "/private/tmp/cfg"));
	ck_assert(sbpl_has_rule(out, n, "deny", "file-write-unlink",
	    "literal", "/tmp"));
	free(out);
}
END_TEST

START_TEST(empty_plan)
{
	struct sbpl_plan pl;
	char	err[256], *out;

	memset(&pl, 0, sizeof(pl));
	out = sbpl_generate(&pl);
	ck_assert_int_eq(sbpl_check(out, strlen(out), err, sizeof(err)), 0);
	/* Nothing writable but the shell's devices, no network but the
	 * resolver. */
	ck_assert_ptr_null(strstr(out, "(subpath"));
	ck_assert(!sbpl_has_rule(out, strlen(out), "allow", "file-write*",
	    "literal", "/tmp"));
	ck_assert_ptr_null(strstr(out, "remote tcp"));
	free(out);
}
END_TEST

/* Does the whole of s match the (SBPL, POSIX extended) regex r? */
static int
matches(const char *r, const char *s)
{
	regex_t	 re;
	char	*full;
	int	 m;

	ck_assert_int_ne(asprintf(&full, "^%s$", r), -1);
	ck_assert_int_eq(regcomp(&re, full, REG_EXTENDED | REG_NOSUB), 0);
	m = regexec(&re, s, 0, NULL, 0) == 0;
	regfree(&re);
	free(full);
	return m;
}

START_TEST(regex_of_globs)
{
	char	*r;

	r = sbpl_glob_regex(".env.*");
	ck_assert_str_eq(r, "\\.[eE][nN][vV]\\.[^/]*");
	free(r);
	r = sbpl_glob_regex("*.pem");
	ck_assert_str_eq(r, "[^/]*\\.[pP][eE][mM]");
	free(r);
	r = sbpl_glob_regex("a/**/b?(c)");
	ck_assert_str_eq(r, "[aA]/(.*/)?[bB][^/]\\([cC]\\)");
	free(r);
	/* "**" is zero or more directories, as namerule.c has it on
	 * Linux: app/x.sqlite is beneath app/ ** / *.sqlite. */
	r = sbpl_glob_regex("app/**/*.sqlite");
	ck_assert(matches(r, "app/x.sqlite"));
	ck_assert(matches(r, "app/d/e/x.sqlite"));
	ck_assert(!matches(r, "apps/x.sqlite"));
	ck_assert(!matches(r, "app/x.sqlitex"));
	free(r);
}
END_TEST

/*
 * Bracket expressions, as fnmatch() reads them in namerule.c on Linux:
 * a set of letters in either case, a negated set that never spans a
 * "/", a set it cannot render (a class name) widened to any one byte,
 * which only widens a deny; a backslash makes the next byte literal.
 */
START_TEST(glob_classes)
{
	char	*r;

	r = sbpl_glob_regex("*.[kp]e[y]");
	ck_assert(matches(r, "a.key"));
	ck_assert(matches(r, "A.PEY"));
	ck_assert(!matches(r, "a.[kp]e[y]"));
	ck_assert(!matches(r, "a.xey"));
	free(r);
	r = sbpl_glob_regex("id_[!a-c]");
	ck_assert(matches(r, "id_d"));
	ck_assert(!matches(r, "id_b"));
	ck_assert(!matches(r, "id_B"));
	ck_assert(!matches(r, "id_/"));
	free(r);
	r = sbpl_glob_regex("[[:alpha:]]x");
	ck_assert(matches(r, "bx"));
	free(r);
	r = sbpl_glob_regex("a\\*b[");
	ck_assert(matches(r, "A*B["));
	ck_assert(!matches(r, "axb["));
	free(r);
}
END_TEST

/* A deny regex whose first component is a pattern may name /tmp, which
 * the kernel sees as /private/tmp: the /private form is there too. */
START_TEST(glob_first_component)
{
	struct sbpl_plan pl;
	char	*tree[] = { "/*/secret", NULL }, err[256], *out;

	memset(&pl, 0, sizeof(pl));
	pl.tree_rules = tree;
	out = sbpl_generate(&pl);
	ck_assert_msg(sbpl_check(out, strlen(out), err, sizeof(err)) == 0,
	    "%s", err);
	ck_assert_msg(strstr(out, "(regex \"^/[pP][rR][iI][vV][aA][tT][eE]/"
	    "[^/]*/[sS]") != NULL, "%s", out);
	free(out);
}
END_TEST

/*
 * The user's temporary directory (TMPDIR, /var/folders/../T) is writable
 * as /tmp is, and nothing in it may be run; its cache sibling (C), which
 * the host's tools load from, is not writable.
 */
START_TEST(darwin_temp)
{
	struct sbpl_plan pl;
	static const char *t =
	    "^/(private/)?var/folders/[^/]+/[^/]+/T/";
	char	*out;
	size_t	 n;

	memset(&pl, 0, sizeof(pl));
	out = sbpl_generate(&pl);
	n = strlen(out);
	ck_assert_msg(sbpl_has_rule(out, n, "allow", "file-write*", "regex",
	    t), "%s", out);
	ck_assert(sbpl_has_rule(out, n, "deny", "process-exec", "regex", t));
	ck_assert(matches(t + 1, "/var/folders/zz/abc_123/T/"));
	ck_assert(matches(t + 1, "/private/var/folders/zz/abc_123/T/"));
	ck_assert_ptr_null(strstr(out, "/C/"));
	free(out);
}
END_TEST

/*
 * A hard link to a protected file is another name to write it by: no
 * file-link of a hard-denied path.  And on a case-insensitive volume a
 * protected path that does not exist yet may be created as .BASHRC:
 * each hard deny is also a regex in either case.
 */
/* A path under /private in other letters still gets its twin, in any list:
 * the reader reads /pRivate/etc/x as /private/etc/x, and /etc/x's twin
 * /private/etc/x is there in other letters (found by seatbelt_fuzzer). */
START_TEST(private_in_any_case)
{
	struct sbpl_plan pl;
	char	*out, err[256];
	char	*rules[] = { "/pRivate/etc/priva.", "/TMP/x", NULL };
	char *const **lists[] = { &pl.read_deny, &pl.write_allow, &pl.write_deny,
	    &pl.carve, &pl.home_deny, &pl.path_rules, &pl.tree_rules,
	    &pl.exec_grants, &pl.unix_sockets, NULL };
	const char *lone = "(version 1)\n(allow default)\n"
	    "(allow network-outbound (remote unix-socket (path-literal "
	    "\"/pRivate/etc/x\")))\n";
	size_t	 i;

	/* In every list that names paths, the reader accepts what is made. */
	for (i = 0; lists[i] != NULL; i++) {
		memset(&pl, 0, sizeof(pl));
		*lists[i] = rules;
		out = sbpl_generate(&pl);
		ck_assert_msg(sbpl_check(out, strlen(out), err,
		    sizeof(err)) == 0, "list %zu: %s\n%s", i, err, out);
		free(out);
	}
	/* And a path in other letters with no twin at all is refused. */
	ck_assert_int_eq(sbpl_check(lone, strlen(lone), err, sizeof(err)),
	    -1);
	ck_assert_msg(strstr(err, "twin") != NULL, "%s", err);
}
END_TEST

START_TEST(links_and_case)
{
	struct sbpl_plan pl;
	char	*out, **v = NULL;
	size_t	 n, i;
	int	 hit = 0;

	base_plan(&pl);
	out = sbpl_generate(&pl);
	n = strlen(out);
	ck_assert_msg(sbpl_has_rule(out, n, "deny", "file-link", "subpath",
	    "/home/u/.bashrc"), "%s", out);
	ck_assert(sbpl_has_rule(out, n, "deny", "file-link", "subpath",
	    "/home/u/.ssh"));
	ck_assert(sbpl_has_rule(out, n, "deny", "file-write*", "regex",
	    "^/[hH][oO][mM][eE]/[uU]/\\.[bB][aA][sS][hH][rR][cC](/|$)"));
	v = sbpl_rule_strings(out, n, "deny", "file-write*", "regex");
	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (v[i][0] == '^' && matches(v[i] + 1, "/HOME/u/.BashRC"))
			hit = 1;
	ck_assert(hit);
	strv_free(v);
	free(out);
}
END_TEST

/* The reader refuses what R-M1 forbids. */
START_TEST(reader_refuses)
{
	static const struct {
		const char *profile, *why;
	} bad[] = {
		{ "(version 1)\n(allow default)\n(deny file-read*",
		    "unbalanced" },
		{ "(version 1)\n(allow default))", "unbalanced" },
		{ "(version 1)\n(allow default)\n(deny file-read* (subpath "
		    "\"/a))", "not closed" },
		{ "(version 1)\n(allow default)\n(deny file-read* (subpath "
		    "\"/a\\q\"))", "unknown escape" },
		{ "(version 1)\n(allow default)\n(deny file-read* (subpath "
		    "\"/a\nb\"))", "control byte" },
		{ "(version 1)\n(deny default)", "(allow default)" },
		{ "(allow default)", "(version 1)" },
		{ "(version 1)\n(allow default)\n(deny file-read*)",
		    "no filter" },
		{ "(version 1)\n(allow default)\n(deny file-write* (subpath "
		    "\"/h/.ssh\"))\n(deny file-write-unlink (literal "
		    "\"/h/.ssh\"))", "ancestor /h may" },
		{ "(version 1)\n(allow default)\n(deny file-read* (subpath "
		    "\"/tmp/s\"))\n(deny file-write-unlink (literal \"/tmp\") "
		    "(literal \"/tmp/s\"))", "twin /private/tmp/s" },
		/* A regex's literal directories are pinned as a literal's. */
		{ "(version 1)\n(allow default)\n(deny file-write* (regex "
		    "\"^/[aA]/[bB]/[^/]*\\\\.[kK]$\"))\n"
		    "(deny file-write-unlink (literal \"/a\"))",
		    "ancestor /a/b may" },
		{ "(version 1)\n(allow default)\n(deny file-write* (regex "
		    "\"^/[tT][mM][pP]/[xX](/|$)\"))\n(deny file-write-unlink "
		    "(literal \"/tmp\") (literal \"/tmp/x\"))", "twin" },
	};
	char	err[256];
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(sbpl_check(bad[i].profile,
		    strlen(bad[i].profile), err, sizeof(err)) == -1,
		    "accepted: %s", bad[i].profile);
		ck_assert_msg(strstr(err, bad[i].why) != NULL,
		    "%s: said \"%s\", not \"%s\"", bad[i].profile, err,
		    bad[i].why);
	}
}
END_TEST

/*
 * Real plans, built by sv_plan_build() as a launch builds them, turned
 * into profiles by sv_plan_sbpl(): each passes the reader, and what the
 * mode and the spec asked for is in the rule that carries it.
 */
static const char *real_home = "/home/someone";
static const char *real_sock;	/* an allowUnixSockets entry */

static char *
real_profile(enum pol_mode mode, const char *ws, char **prot,
    char **deny_read, char **grants)
{
	struct sv_spec	 spec;
	struct sv_plan_ctx ctx;
	struct sv_plan	 p;
	struct sv_bind	 b = { (char *)ws, (char *)ws, 0 };
	static struct settings st;
	char		 err[512], *out;

	memset(&spec, 0, sizeof(spec));
	spec.session_id = "s1";
	spec.binds = &b;
	spec.nbinds = 1;
	spec.mode = mode;
	spec.protected_paths = prot;
	spec.deny_read = deny_read;
	spec.exec_grant_roots = grants;
	settings_defaults(&st);
	if (real_sock != NULL)
		st.allow_unix_sockets = strv_add(st.allow_unix_sockets,
		    real_sock);
	memset(&ctx, 0, sizeof(ctx));
	ctx.settings = &st;
	ctx.home = real_home;
	ctx.uid = getuid();
	ctx.gid = getgid();
	ck_assert_int_eq(sv_plan_build(&spec, &ctx, &p, err, sizeof(err)), 0);
	out = sv_plan_sbpl(&p, grants, err, sizeof(err));
	ck_assert_msg(out != NULL, "the reader refuses a real plan: %s", err);
	sv_plan_free(&p);
	settings_free(&st);
	return out;
}

START_TEST(real_plans)
{
	char	 tmp[] = "/tmp/test_seatbelt.XXXXXX", ws[PATH_MAX];
	char	 vendor[PATH_MAX + 16], secret[PATH_MAX + 16];
	char	 grant[PATH_MAX + 32], cmd[2 * PATH_MAX + 64], *out;
	char	 home[PATH_MAX], cache[PATH_MAX + 16], reg[PATH_MAX + 32];
	char	 hws[PATH_MAX + 16];
	struct sockaddr_un sun;
	int	 fd;
	char	*prot[] = { vendor, NULL }, *deny[] = { secret, NULL };
	char	*grants[] = { grant, NULL };
	size_t	 n;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	/* A quote, a backslash, a space and UTF-8 in the workspace. */
	snprintf(ws, sizeof(ws), "%s/my \"w\\s\" caf\xc3\xa9", tmp);
	ck_assert_int_eq(mkdir(ws, 0700), 0);
	snprintf(vendor, sizeof(vendor), "%s/vendor", ws);
	snprintf(secret, sizeof(secret), "%s/secret.txt", ws);
	snprintf(grant, sizeof(grant), "%s/node_modules/.bin", ws);
	ck_assert_int_eq(mkdir(vendor, 0700), 0);
	fclose(fopen(secret, "w"));

	/* Chat: the workspace writable, exec beneath it refused. */
	out = real_profile(POL_MODE_CHAT, ws, NULL, NULL, NULL);
	n = strlen(out);
	ck_assert(sbpl_has_rule(out, n, "allow", "file-write*", "subpath",
	    ws));
	ck_assert(sbpl_has_rule(out, n, "deny", "process-exec", "subpath",
	    ws));
	ck_assert(sbpl_has_rule(out, n, "deny", "file-read*", "subpath",
	    "/home/someone/.ssh"));
	ck_assert(sbpl_has_rule(out, n, "deny", "file-write-unlink",
	    "literal", "/home/someone"));
	/* The home's contents, which Linux shows as an empty tmpfs, are
	 * not readable: the real home on macOS. */
	ck_assert(sbpl_has_rule(out, n, "deny", "file-read-data", "subpath",
	    "/home/someone"));
	/* No .git made, renamed into place or removed: a prepared
	 * directory renamed to sub/.git would carry a hook past the name
	 * rules. */
	ck_assert(sbpl_has_rule(out, n, "deny", "file-write-create", "regex",
	    "/\\.[gG][iI][tT]$"));
	ck_assert(sbpl_has_rule(out, n, "deny", "file-write-unlink", "regex",
	    "/\\.[gG][iI][tT]$"));
	/* Signals to the sandbox's own processes only, as its pid
	 * namespace on Linux. */
	ck_assert(strstr(out, "\n(deny signal)\n(allow signal (target "
	    "same-sandbox))\n") != NULL);
	/* 2>/dev/null and a terminal work, as Linux's own /dev lets them. */
	ck_assert(sbpl_has_rule(out, n, "allow", "file-write*", "literal",
	    "/dev/null"));
	ck_assert(sbpl_has_rule(out, n, "allow", "file-write*", "literal",
	    "/dev/tty"));
	free(out);

	/* The caches Linux keeps in the home's private tmpfs would be the
	 * user's real directories here: never writable, never run from. */
	/* Outside /tmp, which is a writable tmpfs of every plan. */
	snprintf(home, sizeof(home), "/var/tmp/test_seatbelt.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(home));
	snprintf(cache, sizeof(cache), "%s/.cache", home);
	snprintf(reg, sizeof(reg), "%s/.cargo/registry", home);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' '%s'", cache, reg);
	ck_assert_int_eq(system(cmd), 0);
	real_home = home;
	ck_assert_int_eq(setenv("HOME", home, 1), 0);
	out = real_profile(POL_MODE_CHAT, ws, NULL, NULL, NULL);
	real_home = "/home/someone";
	n = strlen(out);
	ck_assert_msg(!sbpl_has_rule(out, n, "allow", "file-write*",
	    "subpath", cache), "%s is writable", cache);
	ck_assert(!sbpl_has_rule(out, n, "allow", "file-write*", "subpath",
	    reg));
	ck_assert(sbpl_has_rule(out, n, "allow", "file-write*", "subpath",
	    ws));
	ck_assert(sbpl_has_rule(out, n, "deny", "file-read-data", "subpath",
	    home));
	free(out);

	/* A workspace in the home: its contents readable again, the rest
	 * of the home not, the secret set beneath it still denied. */
	snprintf(hws, sizeof(hws), "%s/src/proj", home);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.ssh' '%s'", home, hws);
	ck_assert_int_eq(system(cmd), 0);
	real_home = home;
	out = real_profile(POL_MODE_CHAT, hws, NULL, NULL, NULL);
	real_home = "/home/someone";
	n = strlen(out);
	ck_assert(sbpl_has_rule(out, n, "deny", "file-read-data", "subpath",
	    home));
	ck_assert_msg(sbpl_has_rule(out, n, "allow", "file-read-data",
	    "subpath", hws), "%s", out);
	snprintf(cmd, sizeof(cmd), "%s/.ssh", home);
	ck_assert(sbpl_has_rule(out, n, "deny", "file-read*", "subpath",
	    cmd));
	ck_assert(strstr(out, "(deny file-read-data") <
	    strstr(out, "(allow file-read-data") &&
	    strstr(out, "(allow file-read-data") <
	    strstr(out, "(deny file-read*"));
	free(out);

	/* Review: the workspace is not a writable root. */
	out = real_profile(POL_MODE_REVIEW, ws, NULL, NULL, NULL);
	ck_assert(!sbpl_has_rule(out, strlen(out), "allow", "file-write*",
	    "subpath", ws));
	free(out);

	/* A protected checkout inside the workspace, a denied file, an
	 * exec grant. */
	out = real_profile(POL_MODE_CHAT, ws, prot, deny, grants);
	n = strlen(out);
	ck_assert_msg(sbpl_has_rule(out, n, "deny", "file-write*", "subpath",
	    vendor), "%s", out);
	ck_assert(sbpl_has_rule(out, n, "deny", "file-read*", "subpath",
	    secret));
	ck_assert(sbpl_has_rule(out, n, "deny", "file-write-unlink",
	    "literal", ws));
	ck_assert(sbpl_has_rule(out, n, "allow", "process-exec", "subpath",
	    grant));
	ck_assert(sbpl_has_rule(out, n, "deny", "process-exec", "literal",
	    "/usr/bin/security"));
	free(out);

	/* An allowed host socket is a network rule of the profile. */
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/agent.sock", tmp);
	ck_assert_int_ne(fd = socket(AF_UNIX, SOCK_STREAM, 0), -1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	real_sock = sun.sun_path;
	out = real_profile(POL_MODE_CHAT, ws, NULL, NULL, NULL);
	real_sock = NULL;
	close(fd);
	ck_assert_msg(strstr(out, "(remote unix-socket (path-literal") !=
	    NULL && strstr(out, "agent.sock") != NULL,
	    "the allowed socket has no network rule");
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", tmp, home);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/*
 * A socket bound into the sandbox at another path than its own, as the
 * host-header endpoint binds its socket at /run/airlock/http.sock: macOS
 * has no such bind (nor /run), so the network rule names the host socket
 * the bind's source is, never the sandbox's name for it.
 */
START_TEST(bound_socket)
{
	char	 tmp[] = "/tmp/test_seatbelt.XXXXXX", ws[PATH_MAX];
	char	 hs[PATH_MAX + 16], err[512], *out, cmd[PATH_MAX + 16];
	struct sv_spec	 spec;
	struct sv_plan_ctx ctx;
	struct sv_plan	 p;
	struct sv_bind	 b;
	static struct settings st;
	struct msgbuf	 mb;
	size_t		 n;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(ws, sizeof(ws), "%s/ws", tmp);
	ck_assert_int_eq(mkdir(ws, 0700), 0);
	snprintf(hs, sizeof(hs), "%s/http.sock", tmp);
	memset(&spec, 0, sizeof(spec));
	b.host_path = ws;
	b.guest_path = ws;
	b.read_only = 0;
	spec.session_id = "s1";
	spec.binds = &b;
	spec.nbinds = 1;
	spec.mode = POL_MODE_CHAT;
	settings_defaults(&st);
	memset(&ctx, 0, sizeof(ctx));
	ctx.settings = &st;
	ctx.home = "/home/someone";
	ctx.uid = getuid();
	ctx.gid = getgid();
	ck_assert_msg(sv_plan_build(&spec, &ctx, &p, err, sizeof(err)) == 0,
	    "%s", err);
	/* The endpoint's frames, as its bind and its guard rule are. */
	msgbuf_init(&mb, MSG_PLAN_OP);
	msg_put_u32(&mb, PLAN_OP_BIND);
	msg_put_u32(&mb, PLAN_OPF_RO);
	msg_put_str(&mb, hs);
	msg_put_str(&mb, "/run/airlock/http.sock");
	p.frames = xreallocarray(p.frames, p.nframes + 1, sizeof(*p.frames));
	p.frames[p.nframes++] = mb;
	msgbuf_init(&mb, MSG_PLAN_WRITE_RULE);
	msg_put_u32(&mb, NR_UNIXSOCK);
	msg_put_str(&mb, "/run/airlock/http.sock");
	msg_put_str(&mb, "");
	p.frames = xreallocarray(p.frames, p.nframes + 1, sizeof(*p.frames));
	p.frames[p.nframes++] = mb;
	out = sv_plan_sbpl(&p, NULL, err, sizeof(err));
	ck_assert_msg(out != NULL, "%s", err);
	n = strlen(out);
	ck_assert_msg(sbpl_has_rule(out, n, "allow", "network-outbound",
	    "path-literal", hs), "no rule for the host socket %s", hs);
	ck_assert(!sbpl_has_rule(out, n, "allow", "network-outbound",
	    "path-literal", "/run/airlock/http.sock"));
	free(out);
	sv_plan_free(&p);
	settings_free(&st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("seatbelt");
	TCase	*tc = tcase_create("seatbelt");

	tcase_add_test(tc, plain_workspace);
	tcase_add_test(tc, review_mode);
	tcase_add_test(tc, protected_checkout);
	tcase_add_test(tc, deny_globs);
	tcase_add_test(tc, exec_grants);
	tcase_add_test(tc, awkward_paths);
	tcase_add_test(tc, empty_plan);
	tcase_add_test(tc, glob_spellings);
	tcase_add_test(tc, regex_of_globs);
	tcase_add_test(tc, glob_classes);
	tcase_add_test(tc, glob_first_component);
	tcase_add_test(tc, darwin_temp);
	tcase_add_test(tc, links_and_case);
	tcase_add_test(tc, private_in_any_case);
	tcase_add_test(tc, reader_refuses);
	tcase_add_test(tc, real_plans);
	tcase_add_test(tc, bound_socket);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
