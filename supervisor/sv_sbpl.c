// SPDX-License-Identifier: ISC
/*
 * A resolved plan as the macOS backend's Seatbelt profile (SPEC R-M1):
 * the plan's frames, read back, become common/seatbelt.c's input.  Kept
 * apart from sandbox.profile's handler (sv_profile.c) so that the unit
 * tests can turn real plans, built by sv_plan_build(), into profiles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/namerule.h"
#include "common/seatbelt.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "supervisor/sv_sbpl.h"

/* Decode frame i of the plan (built by us, so it is valid). */
int
sv_plan_msg(const struct sv_plan *p, size_t i, struct msg *m)
{
	static uint8_t	 buf[MSG_MAX_PAYLOAD + sizeof(struct msg_hdr)];
	struct msg_hdr	 h = { p->frames[i].type, MSG_VERSION, 0,
	    (uint32_t)p->frames[i].len };
	const char	*why;

	if (p->frames[i].len > MSG_MAX_PAYLOAD)
		return -1;
	memcpy(buf, &h, sizeof(h));
	if (p->frames[i].len > 0)	/* data is NULL for an empty frame */
		memcpy(buf + sizeof(h), p->frames[i].data, p->frames[i].len);
	return msg_decode_mem(buf, sizeof(h) + h.len, MSG_CH_LAUNCHER,
	    MSG_DOWN, m, &why);
}

static int
has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* ---- Seatbelt ---- */

static int
under_any(char *const *v, const char *p)
{
	size_t	i, n;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		n = strlen(v[i]);
		if (strncmp(p, v[i], n) == 0 && (p[n] == '/' || p[n] == '\0' ||
		    (n == 1 && v[i][0] == '/')))
			return 1;
	}
	return 0;
}

/* keep_under: the entries of v beneath one of roots; frees the rest. */
static char **
keep_under(char **v, char *const *roots)
{
	size_t	i, n = 0;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		if (under_any(roots, v[i]))
			v[n++] = v[i];
		else
			free(v[i]);
	}
	if (v != NULL)
		v[n] = NULL;
	return v;
}

/*
 * The host's name for a path a bind shows at another name in the sandbox
 * (the host-header endpoint's socket at /run/airlock/http.sock): macOS
 * makes no binds, so a rule must name what the host has.  bs/bd hold the
 * binds' sources and destinations, in the plan's order; a later bind
 * over the same place wins, as its mount would.
 */
static char *
host_name(char *const *bs, char *const *bd, const char *p)
{
	char	*o;
	size_t	 i, n, best = 0, bi = 0;

	for (i = 0; bd != NULL && bd[i] != NULL; i++) {
		n = strlen(bd[i]);
		if (n >= best && strncmp(p, bd[i], n) == 0 &&
		    (p[n] == '/' || p[n] == '\0')) {
			best = n;
			bi = i + 1;
		}
	}
	if (bi == 0)
		return xstrdup(p);
	xasprintf(&o, "%s%s", bs[bi - 1], p + best);
	return o;
}

/* The plan's frames, sorted into the lists of a Seatbelt profile. */
struct sbpl_lists {
	char		**rd, **wa, **wd, **hd;	/* read, write allow/deny, home */
	char		**cv, **nm, **pa, **tr;	/* carve, name/path/tree rules */
	char		**hr, **us, **bs, **bd;	/* home rules, sockets, binds */
	char		**rp, **ra;		/* the home, what is bound in it */
	unsigned	  ports[LISTEN_MAX];
	size_t		  np;
};

/* One MSG_PLAN_OP: a bind, tmpfs, mask or remount of the plan. */
static void
sbpl_op(struct sbpl_lists *l, const struct sv_plan *plan, struct msg *m)
{
	uint32_t	 a = msg_get_u32(m), b = msg_get_u32(m);
	const char	*src = msg_get_str(m), *dst = msg_get_str(m);
	char		*h;

	if (a == PLAN_OP_BIND && src[0] == '/' && !(b & PLAN_OPF_INSIDE) &&
	    strcmp(src, dst) != 0) {
		l->bs = strv_add(l->bs, src);
		l->bd = strv_add(l->bd, dst);
	}
	/* The home's tmpfs: the real home on macOS, so its contents are
	 * denied but what is bound there (and the tmpfs mounts in it,
	 * writable roots there). */
	if (a == PLAN_OP_TMPFS && plan->home != NULL &&
	    strcmp(dst, plan->home) == 0)
		l->rp = strv_add(l->rp, dst);
	else if ((a == PLAN_OP_BIND || a == PLAN_OP_TMPFS) &&
	    under_any(l->rp, dst)) {
		h = host_name(l->bs, l->bd, dst);
		l->ra = strv_add(l->ra, h);
		free(h);
	}
	if (a == PLAN_OP_MASK)
		l->rd = strv_add(l->rd, dst);
	else if (a == PLAN_OP_REMOUNT_RO)
		l->wd = strv_add(l->wd, dst);
	else if (a == PLAN_OP_BIND && (b & PLAN_OPF_RO) &&
	    under_any(l->wa, dst))
		l->wd = strv_add(l->wd, dst);
	else if ((a == PLAN_OP_BIND && !(b & PLAN_OPF_RO)) ||
	    (a == PLAN_OP_TMPFS && strcmp(dst, "/") != 0 &&
	    (plan->home == NULL || strcmp(dst, plan->home) != 0)))
		l->wa = strv_add(l->wa, dst);
}

/* One MSG_PLAN_WRITE_RULE: a filename rule, a home's, a socket's. */
static void
sbpl_rule(struct sbpl_lists *l, struct msg *m)
{
	uint32_t	 a = msg_get_u32(m);
	const char	*dst = msg_get_str(m);

	if (a == NR_NAME)
		l->nm = strv_add(l->nm, dst);
	else if (a == NR_PATH || a == NR_GITCONFIG)
		l->pa = strv_add(l->pa, dst);
	else if (a == NR_TREE)
		l->tr = strv_add(l->tr, dst);
	else if ((a == NR_ABS || a == NR_HOME) && !has_glob(dst))
		*(a == NR_ABS ? &l->wd : &l->hd) = strv_add(
		    a == NR_ABS ? l->wd : l->hd, dst);
	else if (a == NR_ABS)
		l->tr = strv_add(l->tr, dst);
	else if (a == NR_HOME)
		l->hr = strv_add(l->hr, dst);
	else if (a == NR_CARVE)
		l->cv = strv_add(l->cv, dst);
	else if (a == NR_UNIXSOCK)
		l->us = strv_add(l->us, dst);
}

static void
sbpl_lists_free(struct sbpl_lists *l)
{
	char	**const v[] = { l->rd, l->wa, l->wd, l->hd, l->cv, l->nm,
		    l->pa, l->tr, l->hr, l->us, l->bs, l->bd, l->rp, l->ra };
	size_t	  i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		strv_free(v[i]);
}

/*
 * The plan as Seatbelt sees it.  A sandbox shows host paths at their own
 * names, so destinations are host paths: a writable bind or tmpfs is a
 * writable root (but the tmpfs over the home: on Linux it is a new empty
 * home, on macOS it would be the user's real one, so its contents are
 * denied there but what the plan binds in it), a mask a secret, a
 * read-only remount (or a read-only bind inside a writable one) a hard
 * deny; filename rules become regexes; an allowed unix socket a
 * network rule of its own, by its host name; scope and git-state rules, which
 * need the seccomp-notify handler's checks of content, have no Seatbelt
 * form.
 */
char *
sv_plan_sbpl(const struct sv_plan *plan, char *const *exec_grants,
    char *err, size_t errlen)
{
	struct sbpl_lists l;
	struct sbpl_plan  pl;
	struct msg	  m;
	char		**hs = NULL, *out, *h;
	size_t		  i;

	memset(&l, 0, sizeof(l));
	for (i = 0; i < plan->nframes; i++) {
		if (sv_plan_msg(plan, i, &m) == -1)
			continue;
		if (m.info->type == MSG_PLAN_OP)
			sbpl_op(&l, plan, &m);
		else if (m.info->type == MSG_PLAN_WRITE_RULE)
			sbpl_rule(&l, &m);
		else if (m.info->type == MSG_PLAN_LISTEN) {
			(void)msg_get_u32(&m);
			if (l.np < LISTEN_MAX)
				l.ports[l.np++] = msg_get_u32(&m);
		}
		msg_free(&m);
	}
	/*
	 * A carve-out in a home that Linux gives a private tmpfs (the
	 * caches: ~/.cache, ~/.cargo/registry...) is scratch there; macOS
	 * has no tmpfs, so granting it would be a write to the user's real
	 * directory, which the host later builds and runs from.  Only a
	 * carve-out beneath a writable bind (a real directory on Linux too,
	 * such as a runner's state) stays writable.
	 */
	l.cv = keep_under(l.cv, l.wa);
	for (i = 0; l.us != NULL && l.us[i] != NULL; i++) {
		h = host_name(l.bs, l.bd, l.us[i]);
		hs = strv_add(hs, h);
		free(h);
	}
	memset(&pl, 0, sizeof(pl));
	pl.read_private = l.rp;
	pl.read_allow = l.ra;
	pl.read_deny = l.rd;
	pl.write_allow = l.wa;
	pl.write_deny = l.wd;
	pl.home_deny = l.hd;
	pl.home_rules = l.hr;
	pl.carve = l.cv;
	pl.unix_sockets = hs;
	pl.name_rules = l.nm;
	pl.path_rules = l.pa;
	pl.tree_rules = l.tr;
	pl.exec_grants = exec_grants;
	pl.ports = l.ports;
	pl.nports = l.np;
	out = sbpl_generate(&pl);
	/* Never hand out a profile the reader refuses. */
	if (sbpl_check(out, strlen(out), err, errlen) == -1) {
		free(out);
		out = NULL;
	}
	sbpl_lists_free(&l);
	strv_free(hs);
	return out;
}
