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
	char		**rd = NULL, **wa = NULL, **wd = NULL, **hd = NULL;
	char		**cv = NULL, **nm = NULL, **pa = NULL, **tr = NULL;
	char		**hr = NULL, **us = NULL, **bs = NULL, **bd = NULL;
	char		**hs = NULL, **rp = NULL, **ra = NULL, *out, *h;
	unsigned	  ports[LISTEN_MAX];
	struct sbpl_plan  pl;
	struct msg	  m;
	size_t		  i, np = 0;
	uint32_t	  a, b;
	const char	 *src, *dst;

	for (i = 0; i < plan->nframes; i++) {
		if (sv_plan_msg(plan, i, &m) == -1)
			continue;
		switch (m.info->type) {
		case MSG_PLAN_OP:
			a = msg_get_u32(&m);
			b = msg_get_u32(&m);
			src = msg_get_str(&m);
			dst = msg_get_str(&m);
			if (a == PLAN_OP_BIND && src[0] == '/' &&
			    !(b & PLAN_OPF_INSIDE) && strcmp(src, dst) != 0) {
				bs = strv_add(bs, src);
				bd = strv_add(bd, dst);
			}
			/* The home's tmpfs: the real home on macOS, so its
			 * contents are denied but what is bound there (and
			 * the tmpfs mounts in it, writable roots there). */
			if (a == PLAN_OP_TMPFS && plan->home != NULL &&
			    strcmp(dst, plan->home) == 0)
				rp = strv_add(rp, dst);
			else if ((a == PLAN_OP_BIND || a == PLAN_OP_TMPFS) &&
			    under_any(rp, dst)) {
				h = host_name(bs, bd, dst);
				ra = strv_add(ra, h);
				free(h);
			}
			if (a == PLAN_OP_MASK)
				rd = strv_add(rd, dst);
			else if (a == PLAN_OP_REMOUNT_RO)
				wd = strv_add(wd, dst);
			else if (a == PLAN_OP_BIND && (b & PLAN_OPF_RO) &&
			    under_any(wa, dst))
				wd = strv_add(wd, dst);
			else if ((a == PLAN_OP_BIND && !(b & PLAN_OPF_RO)) ||
			    (a == PLAN_OP_TMPFS && strcmp(dst, "/") != 0 &&
			    (plan->home == NULL ||
			    strcmp(dst, plan->home) != 0)))
				wa = strv_add(wa, dst);
			break;
		case MSG_PLAN_WRITE_RULE:
			a = msg_get_u32(&m);
			dst = msg_get_str(&m);
			if (a == NR_NAME)
				nm = strv_add(nm, dst);
			else if (a == NR_PATH || a == NR_GITCONFIG)
				pa = strv_add(pa, dst);
			else if (a == NR_TREE)
				tr = strv_add(tr, dst);
			else if ((a == NR_ABS || a == NR_HOME) &&
			    !has_glob(dst))
				*(a == NR_ABS ? &wd : &hd) = strv_add(
				    a == NR_ABS ? wd : hd, dst);
			else if (a == NR_ABS)
				tr = strv_add(tr, dst);
			else if (a == NR_HOME)
				hr = strv_add(hr, dst);
			else if (a == NR_CARVE)
				cv = strv_add(cv, dst);
			else if (a == NR_UNIXSOCK)
				us = strv_add(us, dst);
			break;
		case MSG_PLAN_LISTEN:
			(void)msg_get_u32(&m);
			if (np < LISTEN_MAX)
				ports[np++] = msg_get_u32(&m);
			break;
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
	cv = keep_under(cv, wa);
	for (i = 0; us != NULL && us[i] != NULL; i++) {
		h = host_name(bs, bd, us[i]);
		hs = strv_add(hs, h);
		free(h);
	}
	memset(&pl, 0, sizeof(pl));
	pl.read_private = rp;
	pl.read_allow = ra;
	pl.read_deny = rd;
	pl.write_allow = wa;
	pl.write_deny = wd;
	pl.home_deny = hd;
	pl.home_rules = hr;
	pl.carve = cv;
	pl.unix_sockets = hs;
	pl.name_rules = nm;
	pl.path_rules = pa;
	pl.tree_rules = tr;
	pl.exec_grants = exec_grants;
	pl.ports = ports;
	pl.nports = np;
	out = sbpl_generate(&pl);
	/* Never hand out a profile the reader refuses. */
	if (sbpl_check(out, strlen(out), err, errlen) == -1) {
		free(out);
		out = NULL;
	}
	strv_free(rp);
	strv_free(ra);
	strv_free(rd);
	strv_free(wa);
	strv_free(wd);
	strv_free(hd);
	strv_free(hr);
	strv_free(cv);
	strv_free(us);
	strv_free(hs);
	strv_free(bs);
	strv_free(bd);
	strv_free(nm);
	strv_free(pa);
	strv_free(tr);
	return out;
}
