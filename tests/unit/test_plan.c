// SPDX-License-Identifier: ISC
/*
 * Unit tests for launch-plan resolution (supervisor/sv_plan.c): the rw/ro
 * bit of each bind by mode (R-S5), protected paths never writable,
 * runnerStateDirs always writable, both spellings of deny paths (R-S6),
 * the secret set (R-L2), Landlock write rules (R-L5), and the
 * environment allowlist (R-L9).  The plan is decoded frame by frame with
 * the same validator the launcher uses.
 */
#include <sys/stat.h>

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/host/settings.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/namerule.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "supervisor/sv_sbpl.h"
#include "tests/unit/unit.h"

static char	tmp[256];
static char	ws[PATH_MAX], link_[PATH_MAX], secret[PATH_MAX];

static void
setup(void)
{
	char	cmd[PATH_MAX * 2];

	snprintf(tmp, sizeof(tmp), "/tmp/test_plan.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(ws, sizeof(ws), "%s/ws", tmp);
	snprintf(secret, sizeof(secret), "%s/real-secret", tmp);
	snprintf(link_, sizeof(link_), "%s/ws/secret-link", tmp);
	ck_assert_int_eq(mkdir(ws, 0700), 0);
	ck_assert_int_eq(mkdir(secret, 0700), 0);
	ck_assert_int_eq(symlink(secret, link_), 0);
	snprintf(cmd, sizeof(cmd), "%s/ws/.bashrc", tmp);
	fclose(fopen(cmd, "w"));
}

static void
teardown(void)
{
	char	cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

struct seen {
	int	bind_rw, bind_ro, mask_literal, mask_resolved, remount_bashrc;
	int	ll_write_ws, ll_write_tmp, mask_ssh, file_gitconfig;
};

static void
scan(struct sv_plan *p, struct seen *s, const char *home)
{
	size_t	 i;
	struct msg m;
	char	 bashrc[PATH_MAX + 16], ssh[PATH_MAX];

	snprintf(bashrc, sizeof(bashrc), "%s/.bashrc", ws);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", home);
	memset(s, 0, sizeof(*s));
	for (i = 0; i < p->nframes; i++) {
		ck_assert_int_eq(sv_plan_msg(p, i, &m), 0);
		if (m.info->type == MSG_PLAN_OP) {
			uint32_t op = msg_get_u32(&m), fl = msg_get_u32(&m);
			const char *src = msg_get_str(&m), *dst = msg_get_str(&m);

			(void)src;
			if (op == PLAN_OP_BIND && strcmp(dst, ws) == 0) {
				if (fl & PLAN_OPF_RO)
					s->bind_ro++;
				else
					s->bind_rw++;
			}
			if (op == PLAN_OP_MASK && strcmp(dst, link_) == 0)
				s->mask_literal++;
			if (op == PLAN_OP_MASK && strcmp(dst, secret) == 0)
				s->mask_resolved++;
			if (op == PLAN_OP_MASK && strcmp(dst, ssh) == 0)
				s->mask_ssh++;
			if (op == PLAN_OP_REMOUNT_RO && strcmp(dst, bashrc) == 0)
				s->remount_bashrc++;
		} else if (m.info->type == MSG_PLAN_LANDLOCK) {
			uint64_t acc = msg_get_u64(&m);
			const char *path = msg_get_str(&m);

			if ((acc & 2) && strcmp(path, ws) == 0)
				s->ll_write_ws++;
			if ((acc & 2) && strcmp(path, "/tmp") == 0)
				s->ll_write_tmp++;
		} else if (m.info->type == MSG_PLAN_FILE) {
			if (strcmp(msg_get_str(&m), "/run/airlock/gitconfig")
			    == 0)
				s->file_gitconfig++;
		}
		msg_free(&m);
	}
}

static void
build(enum pol_mode mode, char **protected_paths, struct sv_plan *p,
    int gateway)
{
	struct sv_spec	 spec;
	struct sv_plan_ctx ctx;
	struct sv_bind	 b = { ws, ws, 0 };
	static struct settings st;
	char		 err[256], *deny[] = { link_, NULL };

	memset(&spec, 0, sizeof(spec));
	spec.session_id = "s1";
	spec.binds = &b;
	spec.nbinds = 1;
	spec.mode = mode;
	spec.protected_paths = protected_paths;
	spec.deny_read = deny;
	settings_defaults(&st);
	memset(&ctx, 0, sizeof(ctx));
	ctx.settings = &st;
	ctx.home = "/home/someone";
	ctx.uid = getuid();
	ctx.gid = getgid();
	ctx.with_gateway = gateway;
	ck_assert_int_eq(sv_plan_build(&spec, &ctx, p, err, sizeof(err)), 0);
}

/* The index of the first op/dst in the plan from index from, or -1. */
static int
op_at(struct sv_plan *p, uint32_t want, const char *dst, int from)
{
	struct msg	 m;
	size_t		 i;
	int		 found = -1;

	for (i = from; i < p->nframes && found == -1; i++) {
		ck_assert_int_eq(sv_plan_msg(p, i, &m), 0);
		if (m.info->type == MSG_PLAN_OP) {
			uint32_t op = msg_get_u32(&m);

			(void)msg_get_u32(&m);
			(void)msg_get_str(&m);
			if (op == want && strcmp(msg_get_str(&m), dst) == 0)
				found = (int)i;
		}
		msg_free(&m);
	}
	return found;
}

static void
build_binds(struct sv_bind *b, size_t n, char **deny, struct sv_plan *p)
{
	struct sv_spec	 spec;
	struct sv_plan_ctx ctx;
	static struct settings st;
	char		 err[256];

	memset(&spec, 0, sizeof(spec));
	spec.session_id = "s1";
	spec.binds = b;
	spec.nbinds = n;
	spec.mode = POL_MODE_CHAT;
	spec.deny_read = deny;
	spec.guest_workdir = b[0].guest_path;
	settings_defaults(&st);
	memset(&ctx, 0, sizeof(ctx));
	ctx.settings = &st;
	ctx.home = "/home/someone";
	ctx.uid = getuid();
	ctx.gid = getgid();
	ck_assert_int_eq(sv_plan_build(&spec, &ctx, p, err, sizeof(err)), 0);
}

/* issue 25: --workspace R/sub --ro-bind R: R first, the workspace on top. */
START_TEST(binds_by_depth)
{
	struct sv_plan	p;
	char		sub[PATH_MAX + 8];
	struct sv_bind	b[2];
	int		outer, inner;

	snprintf(sub, sizeof(sub), "%s/sub", ws);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	b[0] = (struct sv_bind){ sub, sub, 0 };
	b[1] = (struct sv_bind){ ws, ws, 1 };
	build_binds(b, 2, NULL, &p);
	outer = op_at(&p, PLAN_OP_BIND, ws, 0);
	inner = op_at(&p, PLAN_OP_BIND, sub, 0);
	ck_assert_int_ge(outer, 0);
	ck_assert_int_gt(inner, outer);
	sv_plan_free(&p);
}
END_TEST

/* issue 25: a denied directory with a bind beneath it is split. */
START_TEST(deny_read_split)
{
	struct sv_plan	p;
	char		blocked[PATH_MAX + 16], allowed[PATH_MAX + 32];
	char		*deny[] = { blocked, NULL };
	struct sv_bind	b[2];
	int		ws_i, tmpfs, dir, ro, carve;

	snprintf(blocked, sizeof(blocked), "%s/blocked", ws);
	snprintf(allowed, sizeof(allowed), "%s/allowed", blocked);
	ck_assert_int_eq(mkdir(blocked, 0700), 0);
	ck_assert_int_eq(mkdir(allowed, 0700), 0);
	b[0] = (struct sv_bind){ ws, ws, 0 };
	b[1] = (struct sv_bind){ allowed, allowed, 0 };
	build_binds(b, 2, deny, &p);
	ws_i = op_at(&p, PLAN_OP_BIND, ws, 0);
	tmpfs = op_at(&p, PLAN_OP_TMPFS, blocked, 0);
	dir = op_at(&p, PLAN_OP_DIR, allowed, 0);
	ro = op_at(&p, PLAN_OP_REMOUNT_RO, blocked, 0);
	carve = op_at(&p, PLAN_OP_BIND, allowed, 0);
	ck_assert_int_ge(ws_i, 0);
	ck_assert_int_gt(tmpfs, ws_i);
	ck_assert_int_gt(dir, tmpfs);
	ck_assert_int_gt(ro, dir);
	ck_assert_int_gt(carve, ro);
	sv_plan_free(&p);
}
END_TEST

START_TEST(chat_is_writable)
{
	struct sv_plan	p;
	struct seen	s;

	build(POL_MODE_CHAT, NULL, &p, 0);
	scan(&p, &s, "/home/someone");
	ck_assert_int_eq(s.bind_rw, 1);
	ck_assert_int_eq(s.bind_ro, 0);
	ck_assert_int_eq(s.ll_write_ws, 1);
	ck_assert_int_eq(s.ll_write_tmp, 1);
	ck_assert_int_eq(s.remount_bashrc, 1);
	ck_assert_int_eq(s.mask_ssh, 1);
	sv_plan_free(&p);
}
END_TEST

START_TEST(review_is_readonly)
{
	struct sv_plan	p;
	struct seen	s;

	build(POL_MODE_REVIEW, NULL, &p, 0);
	scan(&p, &s, "/home/someone");
	ck_assert_int_eq(s.bind_rw, 0);
	ck_assert_int_eq(s.bind_ro, 1);
	ck_assert_int_eq(s.ll_write_ws, 0);
	sv_plan_free(&p);
}
END_TEST

START_TEST(protected_is_never_writable)
{
	struct sv_plan	p;
	struct seen	s;
	char		*prot[] = { ws, NULL };

	build(POL_MODE_CHAT, prot, &p, 0);
	scan(&p, &s, "/home/someone");
	ck_assert_int_eq(s.bind_ro, 1);
	ck_assert_int_eq(s.bind_rw, 0);
	ck_assert_int_eq(s.ll_write_ws, 0);
	sv_plan_free(&p);
}
END_TEST

START_TEST(deny_both_spellings)
{
	struct sv_plan	p;
	struct seen	s;

	build(POL_MODE_CHAT, NULL, &p, 0);
	scan(&p, &s, "/home/someone");
	ck_assert_int_eq(s.mask_literal, 1);
	ck_assert_int_eq(s.mask_resolved, 1);
	sv_plan_free(&p);
}
END_TEST

START_TEST(gitconfig_with_gateway)
{
	struct sv_plan	p;
	struct seen	s;
	size_t		i;
	int		found = 0;

	build(POL_MODE_CHAT, NULL, &p, 1);
	scan(&p, &s, "/home/someone");
	ck_assert_int_eq(s.file_gitconfig, 1);
	for (i = 0; p.env_base[i] != NULL; i++)
		if (strcmp(p.env_base[i],
		    "GIT_CONFIG_GLOBAL=/run/airlock/gitconfig") == 0)
			found = 1;
	ck_assert_int_eq(found, 1);
	sv_plan_free(&p);
}
END_TEST

START_TEST(env_allowlist)
{
	char	*caller[] = { "PATH=/usr/bin", "LD_PRELOAD=/x.so",
	    "NODE_OPTIONS=--require x", "BASH_ENV=/x", "GIT_SSH_COMMAND=x",
	    "PYTHONPATH=/x", "GITHUB_TOKEN=s3cret", "AWS_SECRET_ACCESS_KEY=k",
	    "LANG=C.UTF-8", "GIT_CONFIG_GLOBAL=/evil", "HOME=/root",
	    "LC_ALL=C", NULL };
	char	*plan[] = { "HOME=/home/u", NULL };
	char	*exec[] = { "LD_AUDIT=/x", "TERM=xterm", NULL };
	char	**v = sv_env_build(caller, plan, exec), *joined;
	size_t	 i, n = 0;

	for (i = 0; v[i] != NULL; i++)
		n += strlen(v[i]) + 1;
	joined = xcalloc(1, n + 1);
	for (i = 0; v[i] != NULL; i++) {
		strcat(joined, v[i]);
		strcat(joined, "\n");
	}
	ck_assert_ptr_nonnull(strstr(joined, "PATH=/usr/bin\n"));
	ck_assert_ptr_nonnull(strstr(joined, "LANG=C.UTF-8\n"));
	ck_assert_ptr_nonnull(strstr(joined, "LC_ALL=C\n"));
	ck_assert_ptr_nonnull(strstr(joined, "TERM=xterm\n"));
	ck_assert_ptr_nonnull(strstr(joined, "HOME=/home/u\n"));
	ck_assert_ptr_null(strstr(joined, "LD_"));
	ck_assert_ptr_null(strstr(joined, "NODE_OPTIONS"));
	ck_assert_ptr_null(strstr(joined, "BASH_ENV"));
	ck_assert_ptr_null(strstr(joined, "GIT_SSH_COMMAND"));
	ck_assert_ptr_null(strstr(joined, "PYTHONPATH"));
	ck_assert_ptr_null(strstr(joined, "s3cret"));
	ck_assert_ptr_null(strstr(joined, "AWS_SECRET"));
	ck_assert_ptr_null(strstr(joined, "/evil"));
	ck_assert_ptr_null(strstr(joined, "HOME=/root"));
	free(joined);
	strv_free(v);
}
END_TEST

/* Count the write rules of kind k whose pattern is pat. */
static int
count_rule(struct sv_plan *p, uint32_t k, const char *pat)
{
	struct msg	 m;
	size_t		 i;
	int		 n = 0;

	for (i = 0; i < p->nframes; i++) {
		ck_assert_int_eq(sv_plan_msg(p, i, &m), 0);
		if (m.info->type == MSG_PLAN_WRITE_RULE &&
		    msg_get_u32(&m) == k && strcmp(msg_get_str(&m), pat) == 0)
			n++;
		msg_free(&m);
	}
	return n;
}

/* A workspace that is the home: its dot names by allowlist (issue 11). */
START_TEST(home_allowlist)
{
	struct sv_spec	 spec;
	struct sv_plan_ctx ctx;
	struct sv_plan	 p;
	struct sv_bind	 b = { ws, ws, 0 };
	struct settings	 st;
	char		 err[256], pat[PATH_MAX + 32], claude[PATH_MAX + 16];
	char		 cfg[PATH_MAX + 16], *rsd[] = { claude, NULL };
	char		*own[] = { "/opt/airlock/bin/airlockd", NULL };

	snprintf(claude, sizeof(claude), "%s/.claude", ws);
	memset(&spec, 0, sizeof(spec));
	spec.session_id = "s1";
	spec.binds = &b;
	spec.nbinds = 1;
	spec.mode = POL_MODE_CHAT;
	spec.runner_state_dirs = rsd;
	settings_defaults(&st);
	memset(&ctx, 0, sizeof(ctx));
	ctx.settings = &st;
	ctx.home = ws;
	ctx.uid = getuid();
	ctx.gid = getgid();
	ctx.own_paths = own;
	ctx.caller_path = "/usr/bin:relative/bin:/bin";
	ck_assert_int_eq(sv_plan_build(&spec, &ctx, &p, err, sizeof(err)), 0);
	snprintf(pat, sizeof(pat), "%s/.*", ws);
	ck_assert_int_eq(count_rule(&p, NR_HOME, pat), 1);
	snprintf(pat, sizeof(pat), "%s/bin", ws);
	ck_assert_int_eq(count_rule(&p, NR_HOME, pat), 1);
	/* runnerStateDirs are carve-outs; the secret set and airlock's
	 * own files are rules no carve-out relaxes. */
	ck_assert_int_eq(count_rule(&p, NR_CARVE, claude), 1);
	snprintf(pat, sizeof(pat), "%s/.ssh", ws);
	ck_assert_int_eq(count_rule(&p, NR_ABS, pat), 1);
	snprintf(pat, sizeof(pat), "%s/.config/airlock", ws);
	ck_assert_int_ge(count_rule(&p, NR_ABS, pat), 1);
	ck_assert_int_eq(count_rule(&p, NR_ABS, "/etc/airlock"), 1);
	ck_assert_int_eq(count_rule(&p, NR_ABS, own[0]), 1);
	/* System PATH entries are not the home's business. */
	ck_assert_int_eq(count_rule(&p, NR_ABS, "/usr/bin"), 0);
	sv_plan_free(&p);

	/* A runnerStateDir holding airlock's own settings is refused. */
	snprintf(cfg, sizeof(cfg), "%s/.config", ws);
	rsd[0] = cfg;
	ck_assert_int_eq(sv_plan_build(&spec, &ctx, &p, err, sizeof(err)),
	    -1);
	ck_assert_ptr_nonnull(strstr(err, "airlock's own"));
	settings_free(&st);
}
END_TEST

/*
 * Issue 25: a host-made .mcp.json link at the workspace's top, dangling,
 * protects its target; a runner's private tmpfs lies beneath the home.
 */
START_TEST(link_targets_and_private_dirs)
{
	struct sv_spec	 spec;
	struct sv_plan_ctx ctx;
	struct sv_plan	 p;
	struct sv_bind	 b = { ws, ws, 0 };
	struct settings	 st;
	char		 err[256], lnk[PATH_MAX + 16], tgt[PATH_MAX + 16];
	char		 priv[PATH_MAX + 16], *pd[] = { priv, NULL };

	snprintf(lnk, sizeof(lnk), "%s/.mcp.json", ws);
	snprintf(tgt, sizeof(tgt), "%s/sub/mcp.json", ws);
	ck_assert_int_eq(symlink("sub/../sub/mcp.json", lnk), 0);
	snprintf(priv, sizeof(priv), "%s/.cache-priv", ws);
	ck_assert_int_eq(mkdir(priv, 0700), 0);
	memset(&spec, 0, sizeof(spec));
	spec.session_id = "s1";
	spec.binds = &b;
	spec.nbinds = 1;
	spec.mode = POL_MODE_CHAT;
	spec.runner_private_dirs = pd;
	settings_defaults(&st);
	memset(&ctx, 0, sizeof(ctx));
	ctx.settings = &st;
	ctx.home = ws;
	ctx.uid = getuid();
	ctx.gid = getgid();
	ck_assert_int_eq(sv_plan_build(&spec, &ctx, &p, err, sizeof(err)), 0);
	/* sub/ does not exist: the target as the kernel would reach it. */
	ck_assert_int_eq(count_rule(&p, NR_ABS, tgt), 1);
	sv_plan_free(&p);
	/* Outside the home: refused, naming it. */
	snprintf(priv, sizeof(priv), "%s", tmp);
	ck_assert_int_eq(sv_plan_build(&spec, &ctx, &p, err, sizeof(err)),
	    -1);
	ck_assert_ptr_nonnull(strstr(err, "runnerPrivateDirs"));
	settings_free(&st);
}
END_TEST

/* A plan of binds b with ctx.home home: sv_plan_build's result. */
static int
build_moved(struct sv_bind *b, size_t n, const char *home,
    struct sv_plan *p, char *err, size_t errlen)
{
	struct sv_spec	 spec;
	struct sv_plan_ctx ctx;
	static struct settings st;
	int		 rv;

	memset(&spec, 0, sizeof(spec));
	spec.session_id = "s1";
	spec.binds = b;
	spec.nbinds = n;
	spec.mode = POL_MODE_CHAT;
	spec.guest_workdir = b[0].guest_path;
	settings_defaults(&st);
	memset(&ctx, 0, sizeof(ctx));
	ctx.settings = &st;
	ctx.home = home;
	ctx.uid = getuid();
	ctx.gid = getgid();
	rv = sv_plan_build(&spec, &ctx, p, err, errlen);
	settings_free(&st);
	return rv;
}

/* issue 26: --ro-bind SRC:DST: read-only at DST, SRC's secrets masked
 * at DST as well as at their own paths. */
START_TEST(moved_bind_masks_at_dst)
{
	struct sv_plan	p;
	struct sv_bind	b[2];
	char		home[PATH_MAX], ssh[PATH_MAX + 8], err[512];
	struct msg	m;
	size_t		i;
	int		ro = -1;

	snprintf(home, sizeof(home), "%s/home", tmp);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", home);
	ck_assert_int_eq(mkdir(home, 0700), 0);
	ck_assert_int_eq(mkdir(ssh, 0700), 0);
	b[0] = (struct sv_bind){ ws, ws, 0 };
	b[1] = (struct sv_bind){ home, "/srv/h", 1 };
	ck_assert_int_eq(build_moved(b, 2, home, &p, err, sizeof(err)), 0);
	ck_assert_int_ge(op_at(&p, PLAN_OP_MASK, ssh, 0), 0);
	ck_assert_int_ge(op_at(&p, PLAN_OP_MASK, "/srv/h/.ssh", 0), 0);
	for (i = 0; i < p.nframes; i++) {
		ck_assert_int_eq(sv_plan_msg(&p, i, &m), 0);
		if (m.info->type == MSG_PLAN_OP) {
			uint32_t op = msg_get_u32(&m), fl = msg_get_u32(&m);
			const char *src = msg_get_str(&m);

			if (op == PLAN_OP_BIND && strcmp(msg_get_str(&m),
			    "/srv/h") == 0 && strcmp(src, home) == 0)
				ro = (fl & PLAN_OPF_RO) != 0;
		} else if (m.info->type == MSG_PLAN_LANDLOCK) {
			uint64_t acc = msg_get_u64(&m);

			ck_assert(!((acc & 2) && strncmp(msg_get_str(&m),
			    "/srv/h", 6) == 0));
		}
		msg_free(&m);
	}
	ck_assert_int_eq(ro, 1);
	sv_plan_free(&p);
}
END_TEST

/* issue 26: what airlockd refuses whatever client sent the spec. */
START_TEST(moved_bind_refusals)
{
	static const struct {
		const char	*src, *dst, *want;
		int		 ro;
	} t[] = {
		{ "HOME", "/srv/h", "holds the home", 0 },
		{ "/", "/srv/root", "/ holds the host's /proc", 1 },
		{ "/dev", "/srv/dev", "inside the host's /dev", 1 },
		{ NULL, "/proc/x", "inside /proc", 1 },
		{ NULL, "/srv/../x", "not in normal form", 1 },
		{ NULL, "/usr", "hide the system directory /usr", 1 },
		{ NULL, "/run/airlock/x", "airlock's own", 1 },
		{ NULL, "WS/sub", "is bound too", 1 },
		{ NULL, "PARENT", "is bound too", 1 },
	};
	struct sv_plan	p;
	struct sv_bind	b[2];
	char		err[512], dst[PATH_MAX + 8];
	size_t		i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (strcmp(t[i].dst, "WS/sub") == 0)
			snprintf(dst, sizeof(dst), "%s/sub", ws);
		else if (strcmp(t[i].dst, "PARENT") == 0)
			snprintf(dst, sizeof(dst), "%s", tmp);
		else
			snprintf(dst, sizeof(dst), "%s", t[i].dst);
		b[0] = (struct sv_bind){ ws, ws, 0 };
		b[1] = (struct sv_bind){ t[i].src == NULL ? secret :
		    strcmp(t[i].src, "HOME") == 0 ? tmp : (char *)t[i].src,
		    dst, t[i].ro };
		err[0] = '\0';
		ck_assert_int_eq(build_moved(b, 2, t[i].src != NULL &&
		    strcmp(t[i].src, "HOME") == 0 ? secret : "/home/someone",
		    &p, err, sizeof(err)), -1);
		if (strstr(err, t[i].want) == NULL)
			ck_abort_msg("%s: \"%s\", not \"%s\"", dst, err,
			    t[i].want);
	}
}
END_TEST

/* Is there a Landlock rule with write access at path? */
static int
landlock_write_at(struct sv_plan *p, const char *path)
{
	struct msg	m;
	size_t		i;
	int		found = 0;

	for (i = 0; i < p->nframes; i++) {
		ck_assert_int_eq(sv_plan_msg(p, i, &m), 0);
		if (m.info->type == MSG_PLAN_LANDLOCK) {
			uint64_t acc = msg_get_u64(&m);

			if ((acc & 2) && strcmp(msg_get_str(&m), path) == 0)
				found = 1;
		}
		msg_free(&m);
	}
	return found;
}

/*
 * issue 26: --bind SRC:DST.  What is found on the host at SRC (an
 * existing .git/hooks, a denyWrite path) is protected at DST, the
 * guard's absolute rules beneath SRC are repeated beneath DST (a glob
 * by its components), the commit judge's tops are SRC, and Landlock
 * grants DST, not SRC.
 */
START_TEST(moved_bind_writable)
{
	struct sv_spec	 spec;
	struct sv_plan_ctx ctx;
	struct sv_plan	 p;
	struct sv_bind	 b[2];
	struct settings	 st;
	char		 src[PATH_MAX], hooks[PATH_MAX + 16], err[512];
	char		 d0[PATH_MAX + 16], d1[PATH_MAX + 16];
	char		 d2[PATH_MAX + 16], d3[64];
	char		*dw[5] = { d0, d1, d2, d3, NULL };

	snprintf(src, sizeof(src), "%s/src", tmp);
	snprintf(hooks, sizeof(hooks), "%s/.git", src);
	ck_assert_int_eq(mkdir(src, 0700), 0);
	ck_assert_int_eq(mkdir(hooks, 0700), 0);
	snprintf(hooks, sizeof(hooks), "%s/.git/hooks", src);
	ck_assert_int_eq(mkdir(hooks, 0700), 0);
	snprintf(d0, sizeof(d0), "%s/locked", src);
	snprintf(d1, sizeof(d1), "%s/s*c/**/cred", tmp);
	snprintf(d2, sizeof(d2), "%s/s?c", tmp);
	snprintf(d3, sizeof(d3), "/elsewhere/x");
	b[0] = (struct sv_bind){ ws, ws, 0 };
	b[1] = (struct sv_bind){ src, "/srv/x", 0 };
	memset(&spec, 0, sizeof(spec));
	spec.session_id = "s1";
	spec.binds = b;
	spec.nbinds = 2;
	spec.mode = POL_MODE_CHAT;
	spec.guest_workdir = ws;
	spec.deny_write = dw;
	settings_defaults(&st);
	memset(&ctx, 0, sizeof(ctx));
	ctx.settings = &st;
	ctx.home = "/home/someone";
	ctx.uid = getuid();
	ctx.gid = getgid();
	ck_assert_int_eq(sv_plan_build(&spec, &ctx, &p, err, sizeof(err)), 0);
	ck_assert_int_eq(count_rule(&p, NR_SCOPE, "/srv/x"), 1);
	ck_assert_int_eq(count_rule(&p, NR_SCOPE, src), 0);
	ck_assert_int_ge(op_at(&p, PLAN_OP_REMOUNT_RO, "/srv/x/.git/hooks", 0),
	    0);
	ck_assert_int_eq(count_rule(&p, NR_ABS, d0), 1);
	ck_assert_int_eq(count_rule(&p, NR_ABS, "/srv/x/locked"), 1);
	/* s*c matches src: the rest follows DST, "**" also as nothing. */
	ck_assert_int_eq(count_rule(&p, NR_ABS, "/srv/x/**/cred"), 1);
	/* s?c ends at SRC: DST whole. */
	ck_assert_int_eq(count_rule(&p, NR_ABS, "/srv/x"), 1);
	ck_assert_int_eq(count_rule(&p, NR_ABS, "/elsewhere/x"), 1);
	ck_assert_int_eq(count_rule(&p, NR_ABS, "/srv/x/elsewhere/x"), 0);
	ck_assert(landlock_write_at(&p, "/srv/x"));
	ck_assert(!landlock_write_at(&p, src));
	ck_assert_ptr_nonnull(p.tops);
	ck_assert(strv_in(p.tops, src));
	ck_assert(!strv_in(p.tops, "/srv/x"));
	sv_plan_free(&p);
	settings_free(&st);
}
END_TEST

/* issue 26: a DST inside what the settings' allowRead binds: refused
 * (its mount point would be made in that host directory). */
START_TEST(moved_bind_under_allow_read)
{
	struct sv_spec	 spec;
	struct sv_plan_ctx ctx;
	struct sv_plan	 p;
	struct sv_bind	 b[2];
	struct settings	 st;
	char		 err[512], other[PATH_MAX], dst[PATH_MAX + 8];
	char		*ar[2] = { other, NULL };

	snprintf(other, sizeof(other), "%s/other", tmp);
	snprintf(dst, sizeof(dst), "%s/x", other);
	ck_assert_int_eq(mkdir(other, 0700), 0);
	b[0] = (struct sv_bind){ ws, ws, 0 };
	b[1] = (struct sv_bind){ secret, dst, 1 };
	memset(&spec, 0, sizeof(spec));
	spec.session_id = "s1";
	spec.binds = b;
	spec.nbinds = 2;
	spec.mode = POL_MODE_CHAT;
	spec.guest_workdir = ws;
	settings_defaults(&st);
	memset(&ctx, 0, sizeof(ctx));
	ctx.settings = &st;
	ctx.home = "/home/someone";
	ctx.uid = getuid();
	ctx.gid = getgid();
	strv_free(st.allow_read);
	st.allow_read = ar;
	ck_assert_int_eq(sv_plan_build(&spec, &ctx, &p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "the settings bind"));
	st.allow_read = NULL;
	settings_free(&st);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("plan");
	TCase	*tc = tcase_create("plan");

	log_init("test_plan", 0);
	log_setverbose(-1);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, chat_is_writable);
	tcase_add_test(tc, review_is_readonly);
	tcase_add_test(tc, protected_is_never_writable);
	tcase_add_test(tc, deny_both_spellings);
	tcase_add_test(tc, gitconfig_with_gateway);
	tcase_add_test(tc, env_allowlist);
	tcase_add_test(tc, home_allowlist);
	tcase_add_test(tc, binds_by_depth);
	tcase_add_test(tc, deny_read_split);
	tcase_add_test(tc, link_targets_and_private_dirs);
	tcase_add_test(tc, moved_bind_masks_at_dst);
	tcase_add_test(tc, moved_bind_refusals);
	tcase_add_test(tc, moved_bind_writable);
	tcase_add_test(tc, moved_bind_under_allow_read);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
