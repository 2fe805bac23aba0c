// SPDX-License-Identifier: ISC
/*
 * LaunchPlan resolution (ARCHITECTURE "A launch, step by step", step 1).
 * A SandboxSpec from the client plus settings, mode and the network rule
 * become the exact list of frames the launcher applies: every mount with
 * its rw/ro bit (R-S5), both spellings of every deny path (R-S6), the
 * secret masks (R-L2), the write-protected paths that exist at launch
 * (R-L3), the Landlock rules (R-L5), the rlimits (R-S4), the seccomp
 * program (R-L6) and the environment (R-L9).  The launcher decides
 * nothing; everything it will do is decided here.
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <linux/landlock.h>

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/host/hook.h"
#include "common/host/paths.h"
#include "common/host/protect.h"
#include "common/host/wsorigin.h"
#include "common/log.h"
#include "common/namerule.h"
#include "common/sockset.h"
#include "common/xmalloc.h"
#include "supervisor/credentials.h"
#include "supervisor/gitcfg.h"
#include "supervisor/hookspath.h"
#include "supervisor/sv_nodeproxy.h"
#include "supervisor/sv.h"

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE	(1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV	(1ULL << 15)
#endif

#define LL_READ	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
	LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_WRITE (LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
	LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | \
	LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
	LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | \
	LANDLOCK_ACCESS_FS_TRUNCATE)
#define LL_DEVWRITE (LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

static void
plan_frame(struct sv_plan *p, struct msgbuf *b)
{
	p->frames = xreallocarray(p->frames, p->nframes + 1,
	    sizeof(*p->frames));
	p->frames[p->nframes++] = *b;
}

static void
plan_op(struct sv_plan *p, uint32_t op, uint32_t flags, const char *src,
    const char *dst)
{
	struct msgbuf b;

	msgbuf_init(&b, MSG_PLAN_OP);
	msg_put_u32(&b, op);
	msg_put_u32(&b, flags);
	msg_put_str(&b, src != NULL ? src : "");
	msg_put_str(&b, dst);
	plan_frame(p, &b);
}

static void
plan_landlock(struct sv_plan *p, uint64_t access, const char *path)
{
	struct msgbuf b;

	msgbuf_init(&b, MSG_PLAN_LANDLOCK);
	msg_put_u64(&b, access);
	msg_put_str(&b, path);
	plan_frame(p, &b);
}

static void
plan_rlimit(struct sv_plan *p, uint32_t res, uint64_t soft, uint64_t hard)
{
	struct msgbuf b;

	msgbuf_init(&b, MSG_PLAN_RLIMIT);
	msg_put_u32(&b, res);
	msg_put_u64(&b, soft);
	msg_put_u64(&b, hard);
	plan_frame(p, &b);
}

static void
plan_listen(struct sv_plan *p, uint32_t kind, uint32_t port)
{
	struct msgbuf b;

	msgbuf_init(&b, MSG_PLAN_LISTEN);
	msg_put_u32(&b, kind);
	msg_put_u32(&b, port);
	plan_frame(p, &b);
}

static void	env_set(char ***, const char *, const char *);

#define SV_RUN_GITCONFIG_DIR	"/run/airlock"
#define SV_RUN_GITCONFIG	"/run/airlock/gitconfig"
#define SV_RUN_CRED_HELPER	"/run/airlock/git-credential"
#define SV_RUN_CA_BUNDLE	"/run/airlock/ca-bundle.pem"
/* claudeLogin: the login file's copy, bound where the CLI reads it. */
#define SV_RUN_LOGIN		"/run/airlock/claude-login.json"
#define SV_RUN_HOSTEP		"/run/airlock/http.sock"

static int
has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

char **
sv_path_spellings(char **v, const char *path)
{
	char	resolved[PATH_MAX];

	v = strv_add(v, path);
	if (!has_glob(path) && realpath(path, resolved) != NULL &&
	    strcmp(resolved, path) != 0)
		v = strv_add(v, resolved);
	return v;
}

/* The canonical spelling of an existing absolute path, else a copy. */
static char *
canon(const char *path)
{
	char	real[PATH_MAX];

	if (path[0] != '/' || realpath(path, real) == NULL)
		return xstrdup(path);
	return xstrdup(real);
}

static void
canon_in_place(char **path)
{
	char	*c = canon(*path);

	free(*path);
	*path = c;
}

/* Is path equal to or beneath dir? */
static int
path_under(const char *path, const char *dir)
{
	size_t	n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return 1;
	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

static int
in_list(char *const *v, const char *path)
{
	size_t	i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (path_under(path, v[i]))
			return 1;
	return 0;
}

static int
exact_in_list(char *const *v, const char *path)
{
	size_t	i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (strcmp(path, v[i]) == 0)
			return 1;
	return 0;
}

/*
 * Add deny paths (both spellings, R-S6) as ops; globs are expanded over
 * what exists now (Linux masks with mounts, which need real paths; the
 * creation of a matching name later is the notify filter's business).
 */
static char	*plan_abs(const char *, const char *, const char *);
static char	**deny_targets(const char *);
static const char *plan_base(const struct sv_spec *, const char *);
static void	plan_ro(struct sv_plan *, const char *);

static void
plan_deny_paths(struct sv_plan *p, uint32_t op, char *const *paths,
    const char *home, const char *base)
{
	char	**sp = NULL, **t, *a;
	size_t	i, j;

	for (i = 0; paths != NULL && paths[i] != NULL; i++) {
		if ((a = plan_abs(paths[i], home, base)) == NULL)
			continue;
		/* Globs ("**" recursive) over what exists now. */
		t = deny_targets(a);
		for (j = 0; t != NULL && t[j] != NULL; j++)
			sp = sv_path_spellings(sp, t[j]);
		strv_free(t);
		free(a);
	}
	for (i = 0; sp != NULL && sp[i] != NULL; i++)
		if (op == PLAN_OP_REMOUNT_RO)
			plan_ro(p, sp[i]);
		else
			plan_op(p, op, PLAN_OPF_OPTIONAL, NULL, sp[i]);
	strv_free(sp);
}

/* ---- srt's filesystem keys: allowWrite, allowRead, denyRead ---- */

#define DENY_MASKS_MAX	4096	/* masks one denyRead entry may need */
#define DENY_WALK_MAX	100000	/* entries a "**" pattern may visit */
#define DENY_DEPTH_MAX	32

/*
 * A settings path made absolute as srt means it: "~" against home, a
 * relative path (globs included) beneath base, the workspace.
 */
static char *
plan_abs(const char *p, const char *home, const char *base)
{
	char	*s;

	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0'))
		xasprintf(&s, "%s/%s", home, p + 1);
	else if (p[0] == '/')
		s = xstrdup(p);
	else if (base != NULL && base[0] == '/')
		xasprintf(&s, "%s/%s", base, p);
	else
		return NULL;
	airlock_path_clean(s);
	return s;
}

/*
 * pat and path, component by component; "**" is any number of them,
 * but a final "**" at least one unless the path is a directory (dir):
 * a pattern ending in "X" then "**" names what lies inside a directory
 * named X, never a file named X.
 */
static int
glob_match(const char *pat, const char *path, int dir)
{
	const char	*ps, *qs;
	char		 seg[NAME_MAX + 1], comp[NAME_MAX + 1];
	size_t		 n, m;

	while (*pat == '/')
		pat++;
	while (*path == '/')
		path++;
	if (*pat == '\0')
		return *path == '\0';
	ps = pat + strcspn(pat, "/");
	n = (size_t)(ps - pat);
	if (n == 2 && pat[0] == '*' && pat[1] == '*') {
		/* Zero components, or one more and try again. */
		if ((*ps != '\0' || dir) && glob_match(ps, path, dir))
			return 1;
		if (*path == '\0')
			return 0;
		if (*ps == '\0')
			return 1;
		return glob_match(pat, path + strcspn(path, "/"), dir);
	}
	if (*path == '\0' || n > NAME_MAX)
		return 0;
	qs = path + strcspn(path, "/");
	m = (size_t)(qs - path);
	if (m > NAME_MAX)
		return 0;
	memcpy(seg, pat, n);
	seg[n] = '\0';
	memcpy(comp, path, m);
	comp[m] = '\0';
	if (fnmatch(seg, comp, 0) != 0)
		return 0;
	return glob_match(ps, qs, dir);
}

/* Every existing path beneath root matching pat (which has "**"). */
static char **
walk_match(char **out, const char *root, const char *pat, int depth,
    size_t *visited)
{
	DIR		*d;
	struct dirent	*e;
	struct stat	 st;
	char		*c;

	if (depth > DENY_DEPTH_MAX || (d = opendir(root)) == NULL)
		return out;
	while ((e = readdir(d)) != NULL && ++*visited < DENY_WALK_MAX) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		xasprintf(&c, "%s/%s", strcmp(root, "/") == 0 ? "" : root,
		    e->d_name);
		if (glob_match(pat, c, lstat(c, &st) == 0 &&
		    S_ISDIR(st.st_mode)))
			out = strv_add(out, c);
		else if (lstat(c, &st) == 0 && S_ISDIR(st.st_mode))
			out = walk_match(out, c, pat, depth + 1, visited);
		free(c);
	}
	closedir(d);
	return out;
}

/* What a denyRead pattern names now, on the host. */
static char **
deny_targets(const char *a)
{
	char	**out = NULL, *root, *slash;
	glob_t	  g;
	size_t	  j, visited = 0;

	if (!has_glob(a))
		return strv_add(NULL, a);
	if (strstr(a, "**") == NULL) {
		if (glob(a, GLOB_NOSORT, NULL, &g) == 0) {
			for (j = 0; j < g.gl_pathc; j++)
				out = strv_add(out, g.gl_pathv[j]);
			globfree(&g);
		}
		return out;
	}
	/* The walk starts at the last directory before the first glob. */
	root = xstrndup(a, strcspn(a, "*?["));
	if ((slash = strrchr(root, '/')) != NULL)
		slash[slash == root ? 1 : 0] = '\0';
	out = walk_match(out, root[0] == '\0' ? "/" : root, a, 0, &visited);
	if (visited >= DENY_WALK_MAX)
		log_warnx("denyRead %s: stopped after %d entries", a,
		    DENY_WALK_MAX);
	free(root);
	return out;
}

/* Is some entry of v strictly beneath d (or equal, when eq)? */
static int
beneath_any(char *const *v, const char *d, int eq)
{
	size_t	i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (path_under(v[i], d) && (eq || strcmp(v[i], d) != 0))
			return 1;
	return 0;
}

/*
 * A mask at path, and again wherever a bind shown elsewhere shows it
 * (moved: host path, then guest path, of each; moved_check): the
 * launcher masks the sandbox's paths, and a secret beneath SRC is at
 * DST there too.
 */
static void
plan_mask(struct sv_plan *p, const char *path, char *const *moved)
{
	const char	*rest;
	char		*t;
	size_t		 i;

	plan_op(p, PLAN_OP_MASK, PLAN_OPF_OPTIONAL, NULL, path);
	for (i = 0; moved != NULL && moved[i] != NULL &&
	    moved[i + 1] != NULL; i += 2) {
		if (!path_under(path, moved[i]))
			continue;
		rest = path + (strcmp(moved[i], "/") == 0 ? 0 :
		    strlen(moved[i]));
		xasprintf(&t, "%s%s", moved[i + 1], rest[0] == '/' &&
		    rest[1] == '\0' ? "" : rest);
		plan_op(p, PLAN_OP_MASK, PLAN_OPF_OPTIONAL, NULL, t);
		free(t);
	}
}

/*
 * Where the sandbox shows the host path path beneath a writable bind
 * shown elsewhere (moved: host path, then guest path, of each): the
 * guest path, malloc'd, or NULL when no such bind holds it.  k: the
 * pair to start from.
 */
static char *
moved_guest(char *const *moved, const char *path, size_t *k)
{
	const char	*rest;
	char		*t;

	for (; moved != NULL && moved[*k] != NULL && moved[*k + 1] != NULL;
	    *k += 2) {
		if (!path_under(path, moved[*k]))
			continue;
		rest = path + strlen(moved[*k]);
		xasprintf(&t, "%s%s", moved[*k + 1], rest);
		*k += 2;
		return t;
	}
	return NULL;
}

/* The host path a guest path beneath a moved bind shows, else a copy. */
static char *
moved_host(char *const *moved, const char *path)
{
	size_t	i;

	for (i = 0; moved != NULL && moved[i] != NULL &&
	    moved[i + 1] != NULL; i += 2)
		if (path_under(path, moved[i + 1])) {
			char *t;

			xasprintf(&t, "%s%s", moved[i], path +
			    strlen(moved[i + 1]));
			return t;
		}
	return xstrdup(path);
}

/*
 * A host path made read-only in the sandbox: at its own path, and
 * wherever a writable bind shown elsewhere shows it (p->moved).
 */
static void
plan_ro(struct sv_plan *p, const char *path)
{
	char	*t;
	size_t	 k = 0;

	plan_op(p, PLAN_OP_REMOUNT_RO, PLAN_OPF_OPTIONAL, NULL, path);
	while ((t = moved_guest(p->moved, path, &k)) != NULL) {
		plan_op(p, PLAN_OP_REMOUNT_RO, PLAN_OPF_OPTIONAL, NULL, t);
		free(t);
	}
}

#define MOVED_COMPS	512	/* pattern components followed */

/*
 * An absolute rule pattern (NR_ABS, NR_HOME: a glob per component, "**"
 * any number of them, the node and everything beneath) against the host
 * path src of a bind the sandbox sees at dst: the patterns that match
 * beneath dst what the rule matches beneath src, into out.  The
 * pattern's leading components are matched against src's (folded, as
 * the guard folds); each way they can end inside src leaves the rest
 * of the pattern to follow dst; a pattern that ends at or above src
 * covers dst whole, and so does one too long to follow.
 */
static void
moved_pattern(char ***out, const char *pattern, const char *src,
    const char *dst)
{
	char		*comp[MOVED_COMPS], *pd, *sd, *c, *e, *ed, *t;
	char		 fp[PATH_MAX], fs[PATH_MAX];
	unsigned char	 cur[MOVED_COMPS + 1], nxt[MOVED_COMPS + 1];
	size_t		 m = 0, i, n;
	int		 whole = 0;

	pd = xstrdup(pattern);
	for (c = pd; *c != '\0'; c = e) {
		while (*c == '/')
			c++;
		if (*c == '\0')
			break;
		if ((e = strchr(c, '/')) != NULL)
			*e++ = '\0';
		else
			e = c + strlen(c);
		if (m == MOVED_COMPS || strlen(c) >= sizeof(fp))
			whole = 1;
		else
			comp[m++] = c;
	}
	memset(cur, 0, sizeof(cur));
	cur[0] = 1;
	sd = xstrdup(src);
	for (c = sd; !whole; c = e) {
		/* "**" may stand for no component. */
		for (i = 0; i < m; i++)
			if (cur[i] && strcmp(comp[i], "**") == 0)
				cur[i + 1] = 1;
		if (cur[m])
			whole = 1;
		while (*c == '/')
			c++;
		if (*c == '\0' || whole || strlen(c) >= sizeof(fs))
			break;
		if ((e = strchr(c, '/')) != NULL)
			*e++ = '\0';
		else
			e = c + strlen(c);
		fs[namerule_fold(c, strlen(c), fs)] = '\0';
		memset(nxt, 0, sizeof(nxt));
		for (i = 0; i < m; i++) {
			if (!cur[i])
				continue;
			if (strcmp(comp[i], "**") == 0) {
				nxt[i] = 1;
				continue;
			}
			fp[namerule_fold(comp[i], strlen(comp[i]), fp)] = '\0';
			if (fnmatch(fp, fs, 0) == 0)
				nxt[i + 1] = 1;
		}
		memcpy(cur, nxt, sizeof(cur));
	}
	ed = hookspath_escape(dst);
	for (i = 0; i < m && !whole; i++) {
		if (!cur[i])
			continue;
		t = xstrdup(strcmp(ed, "/") == 0 ? "" : ed);
		for (n = i; n < m; n++) {
			c = t;
			xasprintf(&t, "%s/%s", c, comp[n]);
			free(c);
		}
		*out = strv_add(*out, t);
		free(t);
	}
	if (whole)
		*out = strv_add(*out, ed);
	free(ed);
	free(sd);
	free(pd);
}

/*
 * Mask d (R-L2), but never hide what must stay: a carve-out (keep:
 * allowRead, allowWrite, the binds) at or beneath d, a system directory
 * or the sandbox's own /proc, /dev, /tmp, /run strictly beneath d.  Then
 * d's other entries are masked one by one, and d itself stays.  A
 * built-in secret is hidden even when a carve-out names it exactly; an
 * entry beneath it that a carve-out names exactly stays.
 */
static int
deny_one(struct sv_plan *p, const char *d, char *const *keep,
    char *const *need, char *const *moved, int builtin, int top,
    size_t *masks)
{
	DIR		*dir;
	struct dirent	*e;
	struct stat	 st;
	char		**sp, *c;
	size_t		 i;
	int		 rv = 0;

	/* What the user names is hidden even if it is a system directory;
	 * one reached from an ancestor stays (the sandbox needs it).  A
	 * carve-out naming a built-in secret itself opens nothing; one
	 * beneath it (~/.ssh/known_hosts) opens that path alone. */
	if (((!builtin || !top) && exact_in_list(keep, d)) ||
	    (!top && exact_in_list(need, d)))
		return 0;
	if (!beneath_any(keep, d, 0) && !beneath_any(need, d, 0)) {
		if (++*masks > DENY_MASKS_MAX)
			return -1;
		sp = sv_path_spellings(NULL, d);
		for (i = 0; sp[i] != NULL; i++)
			plan_mask(p, sp[i], moved);
		strv_free(sp);
		return 0;
	}
	if ((dir = opendir(d)) == NULL)
		return 0;
	while (rv == 0 && (e = readdir(dir)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		xasprintf(&c, "%s/%s", strcmp(d, "/") == 0 ? "" : d,
		    e->d_name);
		/* A link is masked where it points, by its own entry. */
		if (lstat(c, &st) == 0 && !S_ISLNK(st.st_mode))
			rv = deny_one(p, c, keep, need, moved, builtin, 0,
			    masks);
		free(c);
	}
	closedir(dir);
	return rv;
}

/*
 * denyRead: each entry made absolute (relative ones beneath the
 * workspace, "**" recursive), then masked around the carve-outs.
 */
static int
plan_deny_read(struct sv_plan *p, char *const *paths, int builtin,
    char *const *keep, char *const *need, char *const *moved,
    const char *home, const char *base, char *err, size_t errlen)
{
	char	**t, *a;
	size_t	  i, j, masks;

	for (i = 0; paths != NULL && paths[i] != NULL; i++) {
		if ((a = plan_abs(paths[i], home, base)) == NULL)
			continue;
		t = deny_targets(a);
		for (j = 0; t != NULL && t[j] != NULL; j++) {
			masks = 0;
			if (!builtin && beneath_any(need, t[j], 0))
				log_warnx("denyRead %s: approximated: the "
				    "system directories, the sandbox's own "
				    "/proc, /dev, /tmp, /run and the workspace "
				    "beneath it stay readable", paths[i]);
			if (deny_one(p, t[j], keep, need, moved, builtin, 1,
			    &masks) == -1) {
				snprintf(err, errlen, "denyRead %s: more than "
				    "%d entries to hide around what must stay "
				    "readable", paths[i], DENY_MASKS_MAX);
				strv_free(t);
				free(a);
				return -1;
			}
		}
		strv_free(t);
		free(a);
	}
	return 0;
}

/* Relative settings paths are taken beneath the workspace, as srt does
 * beneath the directory it runs in. */
static const char *
plan_base(const struct sv_spec *spec, const char *home)
{
	if (spec->guest_workdir != NULL && spec->guest_workdir[0] == '/')
		return spec->guest_workdir;
	if (spec->nbinds > 0)
		return spec->binds[0].guest_path;
	return home;
}

/* Is path (canonical) inside one of the split directories? */
static int
split_under(char *const *splits, const char *path)
{
	char	*c = canon(path);
	int	 r = in_list(splits, c);

	free(c);
	return r;
}

/*
 * A path named beneath a bind of the spec through a symbolic link (one an
 * agent may have planted there) that leads outside every such bind: a
 * writable bind of it would open what the link points at.
 */
static int
allow_link_outside(const struct sv_spec *spec, const char *a)
{
	char	*c = canon(a);
	size_t	 k;
	int	 inside = 0, named = 0;

	for (k = 0; k < spec->nbinds; k++) {
		if (path_under(a, spec->binds[k].guest_path))
			named = 1;
		if (path_under(c, spec->binds[k].guest_path))
			inside = 1;
	}
	free(c);
	return named && !inside;
}

/*
 * A read-only carve-out bound over a writable bind beneath it (a --bind
 * or a runner's state inside an allowRead): that bind again, writable,
 * on top, as docs/SETTINGS.md promises.  Returns the new count.
 */
struct allow_bind {
	char	*path;
	int	 rw;
};

static size_t
allow_rebind(const char *ro, char *const *writable, struct allow_bind *bd,
    size_t nbd, size_t max)
{
	size_t	i, k;

	for (i = 0; writable != NULL && writable[i] != NULL; i++) {
		if (!path_under(writable[i], ro) ||
		    strcmp(writable[i], ro) == 0)
			continue;
		for (k = 0; k < nbd; k++)
			if (bd[k].path != NULL &&
			    strcmp(bd[k].path, writable[i]) == 0)
				break;
		if (k == nbd && nbd < max) {
			bd[nbd].path = xstrdup(writable[i]);
			bd[nbd++].rw = 1;
		}
	}
	return nbd;
}

/*
 * allowWrite: each existing path bound writable (the read-only modes
 * win; nothing is created); allowRead: bound read-only where no bind
 * shows it.  Both are carve-outs (keep) that denyRead does not hide.
 */
static void
plan_allow_paths(struct sv_plan *p, const struct settings *st,
    const struct sv_spec *spec, const char *home, const char *base,
    char *const *splits, char ***writable, char ***keep, char ***bound,
    void (*over_root)(void *), void *arg)
{
	struct stat	 sb;
	char		**t, *a;
	size_t		 i, j, k;
	int		 shown;

	struct allow_bind bd[64];
	size_t		 nbd = 0;

	for (i = 0; st->allow_write && st->allow_write[i]; i++) {
		if ((a = plan_abs(st->allow_write[i], home, base)) == NULL)
			continue;
		*keep = strv_add(*keep, a);
		if (has_glob(a))
			log_warnx("allowWrite %s: a pattern, not bound (only "
			    "relaxes the filename rule it names)",
			    st->allow_write[i]);
		else if (pol_mode_readonly(spec->mode) ||
		    (in_list(*writable, a) && !split_under(splits, a)))
			;	/* read-only mode, or writable already */
		else if (strcmp(a, "/tmp") == 0 || path_under(a, "/proc") ||
		    path_under(a, "/dev") || path_under(a, "/run"))
			log_warnx("allowWrite %s: the sandbox's own %s is used",
			    st->allow_write[i], a);
		else if (stat(a, &sb) == -1)
			log_warnx("allowWrite %s: %s: %s; not created",
			    st->allow_write[i], a, strerror(errno));
		else if (allow_link_outside(spec, a))
			log_warnx("allowWrite %s: a symbolic link in the "
			    "workspace to a path outside it; not bound (name "
			    "the target itself to make it writable)",
			    st->allow_write[i]);
		else if (nbd == sizeof(bd) / sizeof(bd[0]))
			log_warnx("allowWrite %s: more than %zu paths; not "
			    "bound", st->allow_write[i], nbd);
		else {
			/* Canonical: a symlink is bound as what it is. */
			bd[nbd].path = canon(a);
			*writable = strv_add(*writable, bd[nbd].path);
			bd[nbd++].rw = 1;
		}
		free(a);
	}
	for (i = 0; st->allow_read && st->allow_read[i]; i++) {
		if ((a = plan_abs(st->allow_read[i], home, base)) == NULL)
			continue;
		t = deny_targets(a);
		for (j = 0; t != NULL && t[j] != NULL; j++) {
			*keep = strv_add(*keep, t[j]);
			shown = in_list(*writable, t[j]);
			for (k = 0; k < spec->nbinds; k++)
				if (path_under(t[j], spec->binds[k].guest_path))
					shown = 1;
			for (k = 0; k < n_protect_sys_dirs;
			    k++)
				if (path_under(t[j], protect_sys_dirs[k]))
					shown = 1;
			/* Inside a split directory only a bind shows it. */
			if (split_under(splits, t[j]))
				shown = 0;
			if (!shown && stat(t[j], &sb) == 0 &&
			    nbd < sizeof(bd) / sizeof(bd[0])) {
				bd[nbd].path = canon(t[j]);
				bd[nbd++].rw = 0;
				nbd = allow_rebind(bd[nbd - 1].path, *writable,
				    bd, nbd, sizeof(bd) / sizeof(bd[0]));
			}
		}
		strv_free(t);
		free(a);
	}
	/* Outer before inner: a writable directory nested in a read-only
	 * carve-out is bound after it, on top. */
	for (k = 0; k < nbd; k++) {
		for (i = 0, j = k; i < nbd; i++)
			if (bd[i].path != NULL && (bd[j].path == NULL ||
			    strlen(bd[i].path) < strlen(bd[j].path)))
				j = i;
		plan_op(p, PLAN_OP_BIND, bd[j].rw ? 0 : PLAN_OPF_RO,
		    bd[j].path, bd[j].path);
		*bound = strv_add(*bound, bd[j].path);
		/* The host's root covers the sandbox's own /proc, /dev,
		 * /tmp and /run: they are mounted again on top of it. */
		if (strcmp(bd[j].path, "/") == 0 && over_root != NULL)
			over_root(arg);
		free(bd[j].path);
		bd[j].path = NULL;
	}
}

/* ---- the spec's binds: by depth, with denyRead's split policy ---- */

static size_t
path_depth(const char *s)
{
	size_t	n = 0;

	for (; *s != '\0'; s++)
		if (*s == '/' && s[1] != '\0')
			n++;
	return n;
}

/*
 * What stays visible inside a denied directory: the binds, the runner's
 * state directories and the settings' allowRead and allowWrite, absolute.
 */
static char **
carve_outs(const struct sv_spec *spec, const struct settings *st,
    const char *home, const char *base)
{
	char	**v = NULL, **t, *a;
	size_t	  i, j;

	for (i = 0; i < spec->nbinds; i++)
		v = strv_add(v, spec->binds[i].guest_path);
	for (i = 0; spec->runner_state_dirs && spec->runner_state_dirs[i];
	    i++)
		v = strv_add(v, spec->runner_state_dirs[i]);
	for (i = 0; st != NULL && st->allow_write && st->allow_write[i];
	    i++)
		if ((a = plan_abs(st->allow_write[i], home, base)) != NULL) {
			if (!has_glob(a))
				v = strv_add(v, a);
			free(a);
		}
	/* Canonical, as the binds are: a symlinked parent is resolved. */
	for (i = 0; st != NULL && st->allow_read && st->allow_read[i]; i++) {
		if ((a = plan_abs(st->allow_read[i], home, base)) == NULL)
			continue;
		t = deny_targets(a);
		for (j = 0; t != NULL && t[j] != NULL; j++)
			v = strv_add(v, t[j]);
		strv_free(t);
		free(a);
	}
	for (i = 0; v != NULL && v[i] != NULL; i++)
		canon_in_place(&v[i]);
	return v;
}

/*
 * The denied directories to split (Codex's split policy): a denyRead
 * directory inside a bind with a carve-out strictly beneath it.  Masking
 * its other entries one by one left its names listable and let new
 * files be created in it; instead it becomes an empty read-only
 * directory that holds only the way down to its carve-outs.
 */
static char **
split_list(const struct sv_spec *spec, const struct settings *st,
    char *const *carves, const char *home, const char *base)
{
	char	**out = NULL, **t, *a;
	char *const *lists[2];
	size_t	  i, j, k, l;
	struct stat sb;
	int	  inside;

	lists[0] = spec->deny_read;
	lists[1] = st != NULL ? st->deny_read : NULL;
	for (l = 0; l < 2; l++)
		for (i = 0; lists[l] != NULL && lists[l][i] != NULL; i++) {
			if ((a = plan_abs(lists[l][i], home, base)) == NULL)
				continue;
			t = deny_targets(a);
			for (j = 0; t != NULL && t[j] != NULL; j++) {
				/* A directory, named through symlinked
				 * parents perhaps: its canonical path. */
				if (lstat(t[j], &sb) == -1 ||
				    !S_ISDIR(sb.st_mode))
					continue;
				canon_in_place(&t[j]);
				for (k = 0, inside = 0; k < spec->nbinds; k++)
					if (path_under(t[j],
					    spec->binds[k].guest_path) &&
					    strcmp(t[j],
					    spec->binds[k].guest_path) != 0)
						inside = 1;
				if (inside && !exact_in_list(carves, t[j]) &&
				    beneath_any(carves, t[j], 0) &&
				    !exact_in_list(out, t[j]))
					out = strv_add(out, t[j]);
			}
			strv_free(t);
			free(a);
		}
	/* Shallower first, as the binds are. */
	for (i = 1; out != NULL && out[i] != NULL; i++)
		for (j = i; j > 0 && path_depth(out[j - 1]) >
		    path_depth(out[j]); j--) {
			a = out[j];
			out[j] = out[j - 1];
			out[j - 1] = a;
		}
	return out;
}

/*
 * Split d: an empty tmpfs over it, the mount points of the carve-outs
 * beneath it made in that tmpfs, then the tmpfs made read-only (before
 * anything is mounted on those points, so that only it is).  The binds
 * that follow (deeper) land on the points.
 */
static void
plan_split(struct sv_plan *p, const char *d, char *const *carves)
{
	struct msgbuf	 b;
	struct stat	 sb;
	size_t		 i;

	plan_op(p, PLAN_OP_TMPFS, 0, "65536", d);
	for (i = 0; carves != NULL && carves[i] != NULL; i++) {
		if (!path_under(carves[i], d) || strcmp(carves[i], d) == 0 ||
		    stat(carves[i], &sb) == -1)
			continue;
		if (S_ISDIR(sb.st_mode))
			plan_op(p, PLAN_OP_DIR, 0, NULL, carves[i]);
		else {
			msgbuf_init(&b, MSG_PLAN_FILE);
			msg_put_str(&b, carves[i]);
			msg_put_u32(&b, 0444);
			msg_put_blob(&b, "", 0);
			plan_frame(p, &b);
		}
	}
	plan_op(p, PLAN_OP_REMOUNT_RO, 0, NULL, d);
}

/*
 * The order the spec's binds are mounted in: shallower first, so that an
 * enclosing --ro-bind never covers a deeper (workspace) bind, and the
 * order given among binds of one depth.  The splits of denied
 * directories go between, after the bind that holds them.
 */
static size_t *
bind_order(const struct sv_spec *spec)
{
	size_t	*o = xcalloc(spec->nbinds + 1, sizeof(*o));
	size_t	 i, j, t;

	for (i = 0; i < spec->nbinds; i++)
		o[i] = i;
	for (i = 1; i < spec->nbinds; i++)
		for (j = i; j > 0 && path_depth(spec->binds[o[j - 1]].
		    guest_path) > path_depth(spec->binds[o[j]].guest_path);
		    j--) {
			t = o[j];
			o[j] = o[j - 1];
			o[j - 1] = t;
		}
	return o;
}

static void	plan_home_pin(struct sv_plan *, char *const *, const char *,
		    char ***);

/* Is path strictly beneath one of v? */
static int
under_any(char *const *v, const char *path)
{
	size_t	i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (path_under(path, v[i]) && strcmp(path, v[i]) != 0)
			return 1;
	return 0;
}

/*
 * Mount the spec's binds in order (bind_order), the splits between
 * them, then the runner's state directories.  With under set, only
 * those strictly beneath one of its paths, mounted again on top of a
 * directory that was bound over them later (an allowRead of the
 * workspace's parent); the lists were filled the first time.
 */
static void
plan_binds(struct sv_plan *p, const struct sv_spec *spec,
    const size_t *order, char *const *splits, char *const *carves,
    char *const *prot, char *const *homes, char *const *under,
    char ***writable, char ***binds_dst)
{
	const struct sv_bind	*bd;
	const char		*d;
	char			**pinned = NULL;
	struct stat		 st;
	size_t			 i, j, k;
	int			 ro;

	for (k = 0, j = 0; k <= spec->nbinds; k++) {
		/* The splits shallower than this bind, deeper than the
		 * ones before it (so after the bind that holds them). */
		for (; splits != NULL && splits[j] != NULL &&
		    (k == spec->nbinds || path_depth(splits[j]) <
		    path_depth(spec->binds[order[k]].guest_path)); j++)
			if (under == NULL || under_any(under, splits[j]))
				plan_split(p, splits[j], carves);
		if (k == spec->nbinds)
			break;
		bd = &spec->binds[order[k]];
		if (under != NULL && !under_any(under, bd->guest_path))
			continue;
		ro = bd->read_only || pol_mode_readonly(spec->mode) ||
		    in_list(prot, bd->guest_path) ||
		    in_list(prot, bd->host_path);
		plan_op(p, PLAN_OP_BIND, ro ? PLAN_OPF_RO : 0, bd->host_path,
		    bd->guest_path);
		if (!ro && strcmp(bd->host_path, bd->guest_path) == 0)
			plan_home_pin(p, homes, bd->guest_path, &pinned);
		if (under != NULL)
			continue;
		*binds_dst = strv_add(*binds_dst, bd->guest_path);
		if (!ro)
			*writable = strv_add(*writable, bd->guest_path);
	}
	strv_free(pinned);
	/* runnerStateDirs: writable in every mode. */
	for (i = 0; spec->runner_state_dirs && spec->runner_state_dirs[i];
	    i++) {
		d = spec->runner_state_dirs[i];
		if (d[0] != '/' || stat(d, &st) == -1 ||
		    (under != NULL && !under_any(under, d)))
			continue;
		plan_op(p, PLAN_OP_BIND, 0, d, d);
		if (under == NULL)
			*writable = strv_add(*writable, d);
	}
}

static int
is_symlink(const char *path, char *target, size_t len)
{
	struct stat st;
	ssize_t	n;

	if (lstat(path, &st) == -1 || !S_ISLNK(st.st_mode))
		return 0;
	if ((n = readlink(path, target, len - 1)) <= 0)
		return 0;
	target[n] = '\0';
	return 1;
}

/* ---- the home by allowlist (R-L3) ---- */

/*
 * When a writable bind holds a home (or lies inside one), the host's
 * startup state there is read-only and cannot be created: every name
 * beginning with "." at the top of the home (shell startup files and
 * what they source, ~/.config, ~/.local, ~/.ssh, ~/.aws, ~/.gnupg,
 * ~/.netrc, ~/.docker, ~/.kube, systemd user units, XDG autostart,
 * airlock's own settings ...), ~/bin, which Debian's .profile puts on
 * PATH, and ~/Library, macOS's (LaunchAgents, Preferences, editors'
 * Application Support) -- an allowlist, since the host reads more dot
 * names than any list.  What stays writable there is the carve-outs: settings'
 * sandbox.filesystem.homeWritable (caches), allowWrite entries and
 * runnerStateDirs.  airlock's own files and the secret set stay
 * protected even inside a carve-out (NR_ABS rules, which carve-outs do
 * not relax).
 */
#define SV_HOME_MAX_RO	2048	/* read-only mounts for existing entries */

struct home_ctx {
	struct sv_plan	 *p;
	char		**homes;	/* every spelling of every home */
	char		**carves;	/* every spelling of every carve-out */
	char		**pathdirs;	/* the caller's PATH entries in a
					   home */
	char *const	 *writable;
	size_t		  nro;
};

static int
home_name_protected(const char *name)
{
	return (name[0] == '.' && strcmp(name, ".") != 0 &&
	    strcmp(name, "..") != 0) || strcmp(name, "bin") == 0 ||
	    strcmp(name, "Library") == 0;
}

/* Is path at or beneath a protected name of one of the homes? */
static int
home_protected(char *const *homes, const char *path)
{
	size_t	i, n;
	char	first[NAME_MAX + 1];
	const char *r, *e;

	for (i = 0; homes != NULL && homes[i] != NULL; i++) {
		if (!path_under(path, homes[i]) ||
		    strcmp(path, homes[i]) == 0)
			continue;
		n = strlen(homes[i]);
		r = path + (n == 1 ? 1 : n + 1);
		e = strchr(r, '/');
		n = e != NULL ? (size_t)(e - r) : strlen(r);
		if (n == 0 || n > NAME_MAX)
			continue;
		memcpy(first, r, n);
		first[n] = '\0';
		if (home_name_protected(first))
			return 1;
	}
	return 0;
}

static void
home_ro(struct home_ctx *h, const char *path)
{
	char	real[PATH_MAX];

	h->nro++;
	plan_ro(h->p, path);
	/* A symlinked dotfile: its target, if a bind makes it writable. */
	if (realpath(path, real) != NULL && strcmp(real, path) != 0 &&
	    in_list(h->writable, real)) {
		h->nro++;
		plan_ro(h->p, real);
	}
}

/*
 * path is protected and exists (or not: then nothing to mount; the
 * filename rules refuse its creation).  Read-only unless a carve-out is
 * at or beneath it; around a carve-out, each entry on its own.
 */
static void
home_protect(struct home_ctx *h, const char *path, int depth)
{
	struct stat	 st;
	struct dirent	*de;
	DIR		*d;
	char		*sub;
	size_t		 i;
	int		 above = 0;

	if (in_list(h->carves, path) || lstat(path, &st) == -1)
		return;
	for (i = 0; h->carves != NULL && h->carves[i] != NULL; i++)
		if (path_under(h->carves[i], path))
			above = 1;
	if (!above || !S_ISDIR(st.st_mode) || depth > 16 ||
	    (d = opendir(path)) == NULL) {
		home_ro(h, path);
		return;
	}
	while ((de = readdir(d)) != NULL && h->nro <= SV_HOME_MAX_RO) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		xasprintf(&sub, "%s/%s", path, de->d_name);
		home_protect(h, sub, depth + 1);
		free(sub);
	}
	closedir(d);
}

/* The homes whose startup state the host runs: $HOME and the passwd one. */
static char **
home_list(const struct sv_plan_ctx *ctx)
{
	struct passwd	*pw;
	char		**v = NULL;

	if (ctx->home != NULL && ctx->home[0] == '/' &&
	    strcmp(ctx->home, "/") != 0)
		v = sv_path_spellings(v, ctx->home);
	if ((pw = getpwuid(ctx->uid)) != NULL && pw->pw_dir[0] == '/' &&
	    strcmp(pw->pw_dir, "/") != 0 && !exact_in_list(v, pw->pw_dir))
		v = sv_path_spellings(v, pw->pw_dir);
	return v;
}

/* airlock's own configuration, credentials and state. */
static char **
own_list(const struct sv_plan_ctx *ctx, char *const *homes)
{
	char	**v = NULL, *s;
	size_t	  i;

	for (i = 0; homes != NULL && homes[i] != NULL; i++) {
		xasprintf(&s, "%s/.config/airlock", homes[i]);
		v = sv_path_spellings(v, s);
		free(s);
	}
	v = sv_path_spellings(v, "/etc/airlock");
	if (ctx->settings != NULL && ctx->settings->credentials_file != NULL &&
	    ctx->settings->credentials_file[0] == '/')
		v = sv_path_spellings(v, ctx->settings->credentials_file);
	for (i = 0; ctx->own_paths != NULL && ctx->own_paths[i] != NULL; i++)
		if (ctx->own_paths[i][0] == '/')
			v = sv_path_spellings(v, ctx->own_paths[i]);
	return v;
}

/*
 * The control plane out of reach: airlockd's socket and the directories
 * that hold the user's other sockets (the session bus, editors' IPC,
 * agents), masked in every plan whatever a bind shows -- connect(2)
 * needs no write access, so a read-only bind would still reach them.
 * The socket airlockd listens on (the file: --socket may put it in a
 * directory a run binds), the default socket's directory ($XDG_RUNTIME_DIR
 * /airlock, else /tmp/airlock-UID: airlockd's own), and the runtime
 * directory itself, airlockd's, the caller's and the conventional
 * /run/user/UID.  Never /, /tmp or a system directory: such a runtime
 * directory is ignored (the check of every connect in the sandbox's
 * init still holds there).
 */
static char **
control_plane_add(char **v, const char *path, int dir_of)
{
	char	*s, *slash;
	size_t	 i;

	if (path == NULL || path[0] != '/')
		return v;
	s = xstrdup(path);
	airlock_path_clean(s);
	if (dir_of && (slash = strrchr(s, '/')) != NULL)
		slash[slash == s ? 1 : 0] = '\0';
	for (i = 0; i < n_protect_sys_dirs; i++)
		if (path_under(s, protect_sys_dirs[i]) || path_under(protect_sys_dirs[i], s))
			break;
	if (i == n_protect_sys_dirs &&
	    strcmp(s, "/") != 0 && strcmp(s, "/tmp") != 0 &&
	    strcmp(s, "/run") != 0 && strcmp(s, "/run/user") != 0 &&
	    !path_under(s, "/proc") && !path_under(s, "/dev") &&
	    !exact_in_list(v, s))
		v = strv_add(v, s);
	free(s);
	return v;
}

static char **
control_plane_list(char **v, const struct sv_plan_ctx *ctx)
{
	char	*s;

	v = control_plane_add(v, ctx->control_socket, 0);
	s = airlock_default_socket();
	v = control_plane_add(v, s, 1);
	free(s);
	xasprintf(&s, "/tmp/airlock-%u", (unsigned)ctx->uid);
	v = control_plane_add(v, s, 0);
	free(s);
	v = control_plane_add(v, getenv("XDG_RUNTIME_DIR"), 0);
	v = control_plane_add(v, ctx->caller_runtime, 0);
	xasprintf(&s, "/run/user/%u", (unsigned)ctx->uid);
	v = control_plane_add(v, s, 0);
	free(s);
	return v;
}

/*
 * The caller's PATH entries inside a home (~/go/bin, ~/.local/bin, a
 * project's bin/): the host runs what is there by name.  Not the home
 * itself, which PATH does not make executable beyond its own entries.
 */
static char **
path_list(const struct sv_plan_ctx *ctx, char *const *homes)
{
	char	**v = NULL, *dup, *e, *save = NULL, real[PATH_MAX];
	size_t	  i, n;

	if (ctx->caller_path == NULL)
		return NULL;
	dup = xstrdup(ctx->caller_path);
	for (e = strtok_r(dup, ":", &save); e != NULL;
	    e = strtok_r(NULL, ":", &save)) {
		if (e[0] != '/')
			continue;
		/* Trailing slashes name the same directory. */
		n = strlen(e);
		while (n > 1 && e[n - 1] == '/')
			e[--n] = '\0';
		for (i = 0; homes != NULL && homes[i] != NULL; i++)
			if (path_under(e, homes[i]) &&
			    strcmp(e, homes[i]) != 0)
				break;
		if (homes == NULL || homes[i] == NULL)
			continue;
		v = sv_path_spellings(v, e);
		/* A symlinked PATH entry: where it leads, too. */
		if (realpath(e, real) != NULL && !exact_in_list(v, real))
			v = strv_add(v, real);
	}
	free(dup);
	return v;
}

/*
 * The carve-outs: strictly inside a home's protected names (anything
 * else needs none), never at or above airlock's own files.
 */
static char **
carve_list(const struct sv_spec *spec, const struct sv_plan_ctx *ctx,
    char *const *homes, char *const *own)
{
	char *const	*lists[4];
	char		**v = NULL, *a;
	size_t		  i, j, k;

	lists[0] = ctx->settings != NULL ? ctx->settings->home_writable : NULL;
	lists[1] = ctx->settings != NULL ? ctx->settings->allow_write : NULL;
	lists[2] = spec->runner_state_dirs;
	lists[3] = spec->runner_private_dirs;	/* a tmpfs: nothing kept */
	for (j = 0; j < 4; j++)
		for (i = 0; lists[j] != NULL && lists[j][i] != NULL; i++) {
			if ((a = plan_abs(lists[j][i], ctx->home,
			    plan_base(spec, ctx->home))) == NULL)
				continue;
			if (!has_glob(a) && home_protected(homes, a)) {
				for (k = 0; own != NULL && own[k] != NULL; k++)
					if (path_under(own[k], a))
						break;
				if (own == NULL || own[k] == NULL)
					v = sv_path_spellings(v, a);
				else
					log_info("carve-out %s holds airlock's "
					    "own %s: not writable", a, own[k]);
			}
			free(a);
		}
	return v;
}

/*
 * A home beneath a writable bind becomes a mount point of its own
 * (as writable as the bind), so that it cannot be renamed away and replaced
 * by a tree prepared elsewhere.  Right after that bind: a later bind
 * beneath the home stays on top.
 */
static void
plan_home_pin(struct sv_plan *p, char *const *homes, const char *w,
    char ***pinned)
{
	char	real[PATH_MAX];
	size_t	j;

	for (j = 0; homes != NULL && homes[j] != NULL; j++) {
		if (!path_under(homes[j], w) || strcmp(homes[j], w) == 0 ||
		    realpath(homes[j], real) == NULL ||
		    exact_in_list(*pinned, real))
			continue;
		*pinned = strv_add(*pinned, real);
		plan_op(p, PLAN_OP_BIND, PLAN_OPF_OPTIONAL, real, real);
	}
}

/*
 * Existing protected entries beneath each writable bind become
 * read-only mounts; the rest is the filename rules' (plan_write_rules).
 */
static int
plan_home(struct sv_plan *p, const struct sv_spec *spec,
    struct home_ctx *h, char *const *own, char *err, size_t errlen)
{
	struct dirent	*de;
	DIR		*d;
	char		*s;
	size_t		 i, j;

	for (i = 0; h->writable != NULL && h->writable[i] != NULL; i++) {
		const char *w = h->writable[i];

		if (exact_in_list(spec->runner_state_dirs, w))
			continue;
		for (j = 0; h->homes != NULL && h->homes[j] != NULL; j++) {
			if (!path_under(h->homes[j], w) ||
			    (d = opendir(h->homes[j])) == NULL)
				continue;

			while ((de = readdir(d)) != NULL) {
				if (!home_name_protected(de->d_name))
					continue;
				xasprintf(&s, "%s/%s", h->homes[j],
				    de->d_name);
				home_protect(h, s, 0);
				free(s);
			}
			closedir(d);
		}
		if (home_protected(h->homes, w))
			home_protect(h, w, 0);
		for (j = 0; own != NULL && own[j] != NULL; j++)
			if (path_under(own[j], w)) {
				h->nro++;
				plan_ro(p, own[j]);
			}
		for (j = 0; h->pathdirs != NULL && h->pathdirs[j] != NULL;
		    j++)
			if (path_under(h->pathdirs[j], w)) {
				h->nro++;
				plan_ro(p, h->pathdirs[j]);
			}
	}
	if (h->nro > SV_HOME_MAX_RO) {
		snprintf(err, errlen, "the bound home has more than %d "
		    "entries to write-protect", SV_HOME_MAX_RO);
		return -1;
	}
	return 0;
}

/* ---- filename rules at creation time (R-L3, R-L4) ---- */

static void
plan_rule_one(struct sv_plan *p, uint32_t kind, const char *pattern,
    const char *except)
{
	struct msgbuf b;

	if (p->rules == NULL)
		p->rules = namerule_new();
	(void)namerule_add(p->rules, kind, pattern, except);
	msgbuf_init(&b, MSG_PLAN_WRITE_RULE);
	msg_put_u32(&b, kind);
	msg_put_str(&b, pattern);
	msg_put_str(&b, except != NULL ? except : "");
	plan_frame(p, &b);
}

/*
 * A rule, and again wherever a writable bind shown elsewhere (--bind
 * SRC:DST) shows what it names: the guard judges the sandbox's paths,
 * so a host path beneath SRC is protected at DST too (an absolute glob
 * by moved_pattern, a carve-out, which is literal, by its path).  A
 * relative rule (NR_PATH, NR_TREE, NR_GITCONFIG: trailing components
 * at any depth; a config file's content check has no absolute form, so
 * beneath DST it is refused whole)
 * whose leading components SRC's last ones match, as .git/hooks matches
 * SRC repo/.git/hooks or .github/workflows/x SRC repo/.github, would
 * name nothing at DST, where the names above SRC are gone: it is
 * followed as "/" "**" "/PATTERN" and what it names beneath DST becomes
 * an absolute rule (the node and everything beneath: a path rule's node
 * has nothing beneath it that its own path would allow).  The host path
 * stays too: the commit judge reads the host.
 */
static void
plan_write_rule(struct sv_plan *p, uint32_t kind, const char *pattern,
    const char *except)
{
	char	**t = NULL, *g, *rel = NULL;
	size_t	  i, k = 0, n;
	uint32_t  tkind = kind;

	plan_rule_one(p, kind, pattern, except);
	if (kind == NR_PATH || kind == NR_TREE || kind == NR_GITCONFIG) {
		xasprintf(&rel, "/**/%s", pattern);
		tkind = NR_ABS;
	}
	if (kind == NR_ABS || kind == NR_HOME || rel != NULL)
		for (i = 0; p->moved != NULL && p->moved[i] != NULL &&
		    p->moved[i + 1] != NULL; i += 2)
			moved_pattern(&t, rel != NULL ? rel : pattern,
			    p->moved[i], p->moved[i + 1]);
	else if (kind == NR_CARVE)
		while ((g = moved_guest(p->moved, pattern, &k)) != NULL) {
			t = strv_add(t, g);
			free(g);
		}
	/* DST/"**"/PATTERN is what the relative rule names there already. */
	for (i = 0; t != NULL && t[i] != NULL; i++) {
		n = strlen(t[i]);
		if (strcmp(t[i], pattern) == 0 || (rel != NULL &&
		    n >= strlen(rel) &&
		    strcmp(t[i] + n - strlen(rel), rel) == 0))
			continue;
		plan_rule_one(p, tkind, t[i], except);
	}
	strv_free(t);
	free(rel);
}

/*
 * A protected directory at a bind's top that is a symlink (the host made
 * it: the handler refuses one made inside) leads elsewhere, and a call
 * relative to a cwd or dirfd opened through it names only the target
 * (`cd .claude && echo > settings.json`).  So the target's names are
 * protected too, as absolute rules.  The bind's top only:
 * rules are checked as names are made, never by a scan of the tree.
 */
static void
plan_symlinked_rule(struct sv_plan *p, const char *top,
    const struct protect_rule *r)
{
	char		 link[PATH_MAX], real[PATH_MAX], *a;
	size_t		 n = strcspn(r->pattern, "/");
	struct stat	 st;

	if ((r->kind != NR_PATH && r->kind != NR_TREE) ||
	    strcspn(r->pattern, "*?[") < n ||
	    (size_t)snprintf(link, sizeof(link), "%s/%.*s", top, (int)n,
	    r->pattern) >= sizeof(link) || lstat(link, &st) == -1 ||
	    !S_ISLNK(st.st_mode) || realpath(link, real) == NULL)
		return;
	xasprintf(&a, "%s%s", real, r->pattern + n);
	plan_write_rule(p, NR_ABS, a, r->except);
	free(a);
}

/*
 * A protected name at a bind's top that is a symlink the host made,
 * dangling or not: where it leads is protected like the name (an
 * absolute rule), or creating the target would give the name planted
 * contents (.mcp.json -> mcp.json, then mcp.json written).  The target
 * as the kernel would resolve it: each hop's text against its directory,
 * the existing part made canonical, since the handler checks canonical
 * parents.  Up to 8 hops.
 */
static void
plan_link_target(struct sv_plan *p, const char *link)
{
	char		 cur[PATH_MAX], txt[PATH_MAX], dir[PATH_MAX];
	char		 real[PATH_MAX], *slash, *rest;
	struct stat	 st;
	ssize_t		 n;
	int		 hop;

	snprintf(cur, sizeof(cur), "%s", link);
	for (hop = 0; hop < 8; hop++) {
		if (lstat(cur, &st) == -1 || !S_ISLNK(st.st_mode) ||
		    (n = readlink(cur, txt, sizeof(txt) - 1)) <= 0)
			return;
		txt[n] = '\0';
		snprintf(dir, sizeof(dir), "%s", cur);
		*strrchr(dir, '/') = '\0';
		if (namerule_lexical(dir[0] != '\0' ? dir : "/", txt, cur,
		    sizeof(cur)) < 0)
			return;
		/* The longest existing ancestor, canonical; the rest as is. */
		snprintf(dir, sizeof(dir), "%s", cur);
		rest = NULL;
		while (realpath(dir, real) == NULL &&
		    (slash = strrchr(dir, '/')) != NULL && slash != dir) {
			*slash = '\0';
			rest = cur + (slash - dir);
		}
		if (realpath(dir, real) != NULL && rest != NULL) {
			if ((size_t)snprintf(txt, sizeof(txt), "%s%s",
			    strcmp(real, "/") == 0 ? "" : real, rest) >=
			    sizeof(txt))
				return;
			memcpy(cur, txt, sizeof(cur));
		} else if (rest == NULL && realpath(dir, real) != NULL &&
		    lstat(cur, &st) == 0 && !S_ISLNK(st.st_mode))
			snprintf(cur, sizeof(cur), "%s", real);
		plan_write_rule(p, NR_ABS, cur, NULL);
	}
}

/*
 * Send the rules: the built-in set (minus what settings' allowWrite
 * names exactly, which is logged: relaxed, never silently), the spec's
 * and settings' denyWrite and the protected paths as absolute globs, and
 * the writable binds as the scopes they apply in.  No writable bind: no
 * rule (the handler then only emulates).
 */
static int
plan_write_rules(struct sv_plan *p, const struct sv_spec *spec,
    const struct sv_plan_ctx *ctx, char *const *writable,
    char *const *hwritable, const struct home_ctx *h, char *const *own,
    char *err, size_t errlen)
{
	char *const	*lists[3];
	char		**sp = NULL, **hp = NULL, **rs = NULL, *a;
	size_t		 i, j;

	for (i = 0; writable != NULL && writable[i] != NULL; i++)
		if (!exact_in_list(spec->runner_state_dirs, writable[i])) {
			sp = sv_path_spellings(sp, writable[i]);
			hp = sv_path_spellings(hp, hwritable[i]);
			p->tops = strv_add(p->tops, hwritable[i]);
		}
		else
			rs = sv_path_spellings(rs, writable[i]);
	/* A runner's state holds no git state but what porcelain writes
	 * either: a repository built there is one the host's git may be
	 * led to (a commondir, a gitdir: file). */
	for (i = 0; rs != NULL && rs[i] != NULL; i++)
		plan_write_rule(p, NR_GITSCOPE, rs[i], NULL);
	if (sp == NULL && rs != NULL)
		plan_write_rule(p, NR_GITSTATE, ".git", NULL);
	strv_free(rs);
	if (sp == NULL)
		return 0;
	for (i = 0; sp[i] != NULL; i++)
		plan_write_rule(p, NR_SCOPE, sp[i], NULL);
	/*
	 * What is found at launch is found on the host: a bind shown
	 * elsewhere at its host path, the rules repeated at DST by
	 * plan_write_rule.  The commit judge, which reads the host, has
	 * that path as a scope of its own.
	 */
	for (i = 0; hp[i] != NULL; i++) {
		if (!exact_in_list(sp, hp[i]) && p->rules != NULL)
			(void)namerule_add(p->rules, NR_SCOPE, hp[i], NULL);
		for (j = 0; j < n_protect_existing; j++) {
			xasprintf(&a, "%s/%s", hp[i], protect_existing[j]);
			plan_link_target(p, a);
			free(a);
		}
	}

	for (i = 0; i < n_protect_write_rules; i++) {
		const struct protect_rule *r = &protect_write_rules[i];

		if (ctx->settings != NULL &&
		    exact_in_list(ctx->settings->allow_write, r->pattern)) {
			log_info("session %s: write rule \"%s\" relaxed by "
			    "settings", spec->session_id, r->pattern);
			p->opened = strv_add(p->opened, r->pattern);
			continue;
		}
		plan_write_rule(p, r->kind, r->pattern, r->except);
		for (j = 0; hp[j] != NULL; j++)
			plan_symlinked_rule(p, hp[j], r);
	}
	strv_free(sp);
	strv_free(hp);
	/* The effective hooks directories (core.hooksPath), like hooks/. */
	for (i = 0; writable != NULL && writable[i] != NULL; i++) {
		if (exact_in_list(spec->runner_state_dirs, writable[i]))
			continue;
		/* A walk past its directory bound: refused, never a
		 * repository skipped in silence (the sandbox fills the
		 * tree).  At the host path: a bind shown elsewhere too. */
		if (hookspath_find(hwritable[i], ctx->home, &sp, err,
		    errlen) == -1) {
			strv_free(sp);
			return -1;
		}
		for (j = 0; sp != NULL && sp[j] != NULL; j++)
			plan_write_rule(p, sp[j][0] == '/' ? NR_ABS : NR_TREE,
			    sp[j], NULL);
		strv_free(sp);
	}
	/* The home's allowlist and what no carve-out opens. */
	for (i = 0; h->homes != NULL && h->homes[i] != NULL; i++) {
		xasprintf(&a, "%s/.*", h->homes[i]);
		plan_write_rule(p, NR_HOME, a, NULL);
		free(a);
		xasprintf(&a, "%s/bin", h->homes[i]);
		plan_write_rule(p, NR_HOME, a, NULL);
		free(a);
		xasprintf(&a, "%s/Library", h->homes[i]);
		plan_write_rule(p, NR_HOME, a, NULL);
		free(a);
		for (j = 0; j < n_protect_home_secrets;
		    j++) {
			xasprintf(&a, "%s/%s", h->homes[i], protect_home_secrets[j]);
			plan_write_rule(p, NR_ABS, a, NULL);
			free(a);
		}
	}
	for (i = 0; h->carves != NULL && h->carves[i] != NULL; i++)
		plan_write_rule(p, NR_CARVE, h->carves[i], NULL);
	for (i = 0; own != NULL && own[i] != NULL; i++)
		if (!has_glob(own[i]))
			plan_write_rule(p, NR_ABS, own[i], NULL);
	for (i = 0; h->pathdirs != NULL && h->pathdirs[i] != NULL; i++)
		if (!has_glob(h->pathdirs[i]))
			plan_write_rule(p, NR_ABS, h->pathdirs[i], NULL);

	lists[0] = spec->deny_write;
	lists[1] = ctx->settings != NULL ? ctx->settings->deny_write : NULL;
	lists[2] = spec->protected_paths;
	for (j = 0; j < 3; j++)
		for (i = 0; lists[j] != NULL && lists[j][i] != NULL; i++) {
			if ((a = plan_abs(lists[j][i], ctx->home,
			    plan_base(spec, ctx->home))) == NULL)
				continue;
			plan_write_rule(p, NR_ABS, a, NULL);
			free(a);
		}
	return 0;
}

/*
 * R-K1: the run's read-only code-host tokens, for fetch, through a
 * credential helper in its git config.  The write token never enters the
 * sandbox; the read tokens live in the sandbox's private root and vanish
 * with it.  Files are named by the URL host that git asks about.
 */
static const char cred_helper[] =
    "# git credential helper of this airlock run: read-only tokens (R-K1)\n"
    "[ \"$1\" = get ] || exit 0\n"
    "h=\n"
    "while IFS='=' read -r k v; do\n"
    "\t[ -z \"$k\" ] && break\n"
    "\t[ \"$k\" = host ] && h=$v\n"
    "done\n"
    "case $h in ''|.*|*/*) exit 0 ;; esac\n"
    "f=" SV_RUN_GITCONFIG_DIR "/read-tokens/$h\n"
    "[ -r \"$f\" ] || exit 0\n"
    "printf 'username=x-access-token\\npassword=%s\\n' \"$(cat \"$f\")\"\n";

static int
plan_read_tokens(struct sv_plan *p, const struct settings *st)
{
	struct msgbuf	 b;
	char		 err[256], *tok, *path, host[256];
	const char	*u, *end;
	size_t		 i, j, n;
	int		 ntok = 0;

	for (i = 0; i < st->nhosts; i++) {
		const struct code_host *h = &st->hosts[i];

		if (st->credentials_file == NULL ||
		    (tok = cred_token(st, h->name, 0, err, sizeof(err))) == NULL)
			continue;
		for (j = 0; h->push_prefixes && h->push_prefixes[j]; j++) {
			u = h->push_prefixes[j];
			if (strncmp(u, "https://", 8) != 0)
				continue;
			u += 8;
			end = u + strcspn(u, "/");
			n = (size_t)(end - u);
			if (n == 0 || n >= sizeof(host) ||
			    memchr(u, '.', 1) != NULL)
				continue;
			memcpy(host, u, n);
			host[n] = '\0';
			if (strspn(host, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:") != n)
				continue;
			if (ntok++ == 0)
				plan_op(p, PLAN_OP_DIR, 0, NULL,
				    SV_RUN_GITCONFIG_DIR "/read-tokens");
			xasprintf(&path, "%s/read-tokens/%s",
			    SV_RUN_GITCONFIG_DIR, host);
			msgbuf_init(&b, MSG_PLAN_FILE);
			msg_put_str(&b, path);
			msg_put_u32(&b, 0400);
			msg_put_blob(&b, tok, strlen(tok));
			plan_frame(p, &b);
			free(path);
		}
		cred_secret_free(tok);
	}
	if (ntok > 0) {
		msgbuf_init(&b, MSG_PLAN_FILE);
		msg_put_str(&b, SV_RUN_CRED_HELPER);
		msg_put_u32(&b, 0444);
		msg_put_blob(&b, cred_helper, strlen(cred_helper));
		plan_frame(p, &b);
	}
	return ntok;
}

/*
 * R-G1, R-L8: the run's own global git config, in the sandbox's private
 * (read-only) root rather than in $HOME, which may be a host bind.  Every
 * push URL form of every code host is rewritten to this run's gateway;
 * the gateway is exempt from the HTTP proxy.
 */
static int
plan_gitconfig(struct sv_plan *p, const struct sv_plan_ctx *ctx, char *err,
    size_t errlen)
{
	struct msgbuf	 b;
	char		*text, *base;
	int		 ntok;

	if (ctx->settings == NULL)
		return 0;
	plan_op(p, PLAN_OP_DIR, 0, NULL, SV_RUN_GITCONFIG_DIR);
	ntok = plan_read_tokens(p, ctx->settings);
	xasprintf(&base, "http://127.0.0.1:%d", LISTEN_PORT_GIT);
	text = gitcfg_render(ctx->settings, base, ntok > 0 ?
	    "!sh " SV_RUN_CRED_HELPER : NULL);
	free(base);
	if (text == NULL) {
		snprintf(err, errlen, "git.codeHosts: a value cannot be "
		    "written to the run's git config safely");
		return -1;
	}
	msgbuf_init(&b, MSG_PLAN_FILE);
	msg_put_str(&b, SV_RUN_GITCONFIG);
	msg_put_u32(&b, 0444);
	msg_put_blob(&b, text, strlen(text));
	plan_frame(p, &b);
	free(text);
	env_set(&p->env_base, "GIT_CONFIG_GLOBAL", SV_RUN_GITCONFIG);
	return 0;
}

/* Node's fetch() through the proxy (sv_nodeproxy.c); proxy_env names it. */
static void
plan_node_proxy(struct sv_plan *p)
{
	struct msgbuf	 b;

	plan_op(p, PLAN_OP_DIR, 0, NULL, SV_RUN_GITCONFIG_DIR);
	msgbuf_init(&b, MSG_PLAN_FILE);
	msg_put_str(&b, SV_RUN_NODE_PROXY);
	msg_put_u32(&b, 0444);
	msg_put_blob(&b, sv_node_proxy_js, strlen(sv_node_proxy_js));
	plan_frame(p, &b);
}

void
sv_plan_free(struct sv_plan *p)
{
	size_t	i;

	for (i = 0; i < p->nframes; i++)
		msgbuf_free(&p->frames[i]);
	free(p->frames);
	free(p->home);
	free(p->workdir);
	strv_free(p->env_base);
	strv_free(p->tmpfs);
	strv_free(p->opened);
	strv_free(p->tops);
	strv_free(p->moved);
	if (p->rules != NULL)
		namerule_free(p->rules);
	memset(p, 0, sizeof(*p));
}

static void
env_set(char ***v, const char *name, const char *val)
{
	char	*s;

	xasprintf(&s, "%s=%s", name, val);
	*v = strv_add(*v, s);
	free(s);
}

/*
 * Bind sources, runnerStateDirs and the working directory are
 * made canonical before anything is checked or planned, so a symlink
 * (one planted by a previous run's agent in a writable workspace, say)
 * is judged under the name of what it points at: the protected sets,
 * the deny-read masks and airlock's own files see the real file, and the
 * launcher opens each source with no symlink followed, so a component
 * swapped for a symlink after this check fails the launch.  Natively
 * guestPath = hostPath, so the guest path follows its host path.
 */
void
sv_spec_canonical(struct sv_spec *s)
{
	size_t	i;

	for (i = 0; i < s->nbinds; i++) {
		struct sv_bind *bd = &s->binds[i];
		char	*c = canon(bd->host_path);

		/* Kept to judge a carve-out that resolves elsewhere in a
		 * secret (carve_resolved). */
		if (strcmp(c, bd->host_path) != 0) {
			s->bind_links = strv_add(s->bind_links, bd->host_path);
			s->bind_links = strv_add(s->bind_links, c);
		}
		free(c);
		if (strcmp(bd->guest_path, bd->host_path) == 0) {
			canon_in_place(&bd->host_path);
			free(bd->guest_path);
			bd->guest_path = xstrdup(bd->host_path);
		} else
			canon_in_place(&bd->host_path);
	}
	for (i = 0; s->runner_state_dirs && s->runner_state_dirs[i]; i++)
		canon_in_place(&s->runner_state_dirs[i]);
	if (s->guest_workdir != NULL)
		canon_in_place(&s->guest_workdir);
}

/* ---- the plan, stage by stage ---- */

/* What the stages share while one plan is built. */
struct plan_build {
	const struct sv_spec	 *spec;
	const struct sv_plan_ctx *ctx;
	struct sv_plan		 *p;
	struct home_ctx		  hc;
	const char		 *home;		/* the sandbox's $HOME */
	const char		 *base;		/* relative paths' base */
	int			  home_bound;	/* a bind covers it */
	char			  tmpsz[32];	/* each tmpfs's size, or "" */
	char			**own;		/* airlock's own files */
	char			**pathdirs;	/* PATH entries in a home */
	char			**prot;		/* protectedPaths, spelt both
						   ways */
	char			**carves, **splits, **allowed;
	size_t			 *order;	/* the binds by depth */
	char			**writable, **binds_dst;
	char			**hwritable;	/* each of writable as a
						   host path */
	char			**keep, **need;	/* what denyRead must not
						   hide */
	char			**deny_read;
	char			**moved;	/* host path, then guest path,
						   of each bind shown
						   elsewhere (moved_check) */
};

/*
 * Is a path of v at, beneath or above path?  Returns it, or NULL.
 */
static const char *
overlap_any(char *const *v, const char *path)
{
	size_t	i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (path_under(path, v[i]) || path_under(v[i], path))
			return v[i];
	return NULL;
}

/*
 * A bind shown at another path than its own (guestPath != hostPath,
 * --bind or --ro-bind SRC:DST).  What judges a writable one's writes
 * finds its files on the host at SRC (the protected names and hooks
 * directories found at launch, the commit judge, which reads the host);
 * the read-only mounts and the guard's rules that name a host path
 * beneath SRC are repeated at DST (plan_ro, plan_write_rule), as the
 * masks are (plan_mask).  Refused: a writable SRC at or above a home,
 * whose startup state is pinned and protected at the home's own path
 * (plan_home_pin, plan_home); SRC /, /proc, /dev or inside them (the
 * host's processes and devices).  DST follows protect_bind_dst, and
 * shares no path with another bind (a mount point made inside one
 * would be made on the host, and one bound over it would hide it or be
 * hidden).
 */
static int
moved_check(struct plan_build *pb, const struct sv_bind *bd, char *err,
    size_t errlen)
{
	const struct sv_spec	*spec = pb->spec;
	const char		*o, *h = bd->host_path, *g = bd->guest_path;
	char			 why[PATH_MAX + 128];
	size_t			 k;

	if (strcmp(h, "/") == 0 || path_under(h, "/proc") ||
	    path_under(h, "/dev")) {
		snprintf(err, errlen, "%s shown at %s: refused: %s the host's "
		    "%s, which the sandbox never shows", h, g,
		    strcmp(h, "/") == 0 ? "/ holds" : "it is inside",
		    strcmp(h, "/") == 0 ? "/proc and /dev" :
		    path_under(h, "/proc") ? "/proc" : "/dev");
		return -1;
	}
	for (k = 0; !bd->read_only && pb->hc.homes != NULL &&
	    pb->hc.homes[k] != NULL; k++)
		if (path_under(pb->hc.homes[k], h)) {
			snprintf(err, errlen, "%s shown writable at %s: "
			    "refused: it holds the home %s, whose startup "
			    "files are protected at the home's own path; bind "
			    "it at %s, or read-only at %s, or a directory "
			    "inside the home at %s", h, g, pb->hc.homes[k], h,
			    g, g);
			return -1;
		}
	if (protect_bind_dst(g, why, sizeof(why)) != NULL) {
		snprintf(err, errlen, "%s shown at %s: refused: %s", h, g, why);
		return -1;
	}
	for (k = 0; k < spec->nbinds; k++)
		if (&spec->binds[k] != bd && (path_under(g,
		    spec->binds[k].guest_path) ||
		    path_under(spec->binds[k].guest_path, g)))
			break;
	o = k < spec->nbinds ? spec->binds[k].guest_path :
	    overlap_any(spec->runner_state_dirs, g) != NULL ?
	    overlap_any(spec->runner_state_dirs, g) :
	    overlap_any(spec->runner_private_dirs, g);
	if (o != NULL) {
		snprintf(err, errlen, "%s shown at %s: refused: %s is bound "
		    "too; a destination shares no path with another bind",
		    h, g, o);
		return -1;
	}
	pb->moved = strv_add(pb->moved, h);
	pb->moved = strv_add(pb->moved, g);
	if (!bd->read_only) {
		pb->p->moved = strv_add(pb->p->moved, h);
		pb->p->moved = strv_add(pb->p->moved, g);
	}
	return 0;
}

/*
 * The checks before anything is planned: runnerStateDirs hold none of
 * airlock's own files, the sandbox's $HOME, and each bind's paths
 * (absolute, existing, not over /proc or /dev, at the host path).
 */
static int
stage_check(struct plan_build *pb, char *err, size_t errlen)
{
	const struct sv_spec	*spec = pb->spec;
	const char		*home;
	struct stat		 st;
	size_t			 i, j;

	for (i = 0; spec->runner_state_dirs && spec->runner_state_dirs[i];
	    i++)
		for (j = 0; pb->own != NULL && pb->own[j] != NULL; j++)
			if (path_under(pb->own[j],
			    spec->runner_state_dirs[i]) ||
			    path_under(spec->runner_state_dirs[i],
			    pb->own[j])) {
				snprintf(err, errlen, "runnerStateDirs: %s "
				    "holds airlock's own %s",
				    spec->runner_state_dirs[i], pb->own[j]);
				return -1;
			}
	/* A $HOME that is / or a system directory cannot become an empty
	 * tmpfs without hiding the system: use the private /tmp instead. */
	home = pb->ctx->home;
	if (home == NULL || home[0] != '/' || strcmp(home, "/") == 0 ||
	    path_under(home, "/proc") || path_under(home, "/dev"))
		home = "/tmp";
	for (i = 0; i < n_protect_sys_dirs; i++)
		if (path_under(home, protect_sys_dirs[i]))
			home = "/tmp";
	pb->p->home = xstrdup(home);
	pb->home = pb->p->home;

	for (i = 0; i < spec->nbinds; i++) {
		const struct sv_bind *bd = &spec->binds[i];

		if (bd->host_path[0] != '/' || bd->guest_path[0] != '/') {
			snprintf(err, errlen, "bindMounts[%zu]: paths must "
			    "be absolute", i);
			return -1;
		}
		if (stat(bd->host_path, &st) == -1) {
			snprintf(err, errlen, "bindMounts[%zu]: %s: %s", i,
			    bd->host_path, strerror(errno));
			return -1;
		}
		/* A bind of / (or of /proc, /dev) would hide the sandbox's
		 * own /proc and /dev. */
		if (path_under("/proc", bd->guest_path) ||
		    path_under("/dev", bd->guest_path)) {
			snprintf(err, errlen, "bindMounts[%zu]: %s would hide "
			    "the sandbox's own /proc and /dev; bind a "
			    "directory beneath it", i, bd->guest_path);
			return -1;
		}
		/* The sandbox's /proc is its own: a host entry there
		 * (/proc/PID) is nowhere to bind onto. */
		if (path_under(bd->guest_path, "/proc")) {
			snprintf(err, errlen, "bindMounts[%zu]: %s is inside "
			    "/proc, which the sandbox mounts afresh for its own "
			    "processes; bind a path outside /proc", i,
			    bd->guest_path);
			return -1;
		}
		if (strcmp(bd->host_path, bd->guest_path) != 0 &&
		    moved_check(pb, bd, err, errlen) == -1)
			return -1;
	}
	return 0;
}

/* The plan's first frame: the session, the layers and the ids. */
static int
stage_begin(struct plan_build *pb, char *err, size_t errlen)
{
	struct msgbuf	b;
	uint32_t	flags;

	(void)err;
	(void)errlen;
	flags = PLAN_F_NET_NS | PLAN_F_LANDLOCK_NET | PLAN_F_LANDLOCK_SCOPE;
	if (pb->ctx->bpf_known)
		flags |= PLAN_F_SECCOMP_KNOWN;
	msgbuf_init(&b, MSG_PLAN_BEGIN);
	msg_put_str(&b, pb->spec->session_id);
	msg_put_u32(&b, flags);
	msg_put_u32(&b, pb->ctx->uid);
	msg_put_u32(&b, pb->ctx->gid);
	plan_frame(pb->p, &b);
	return 0;
}

/*
 * R-L1: the system directories read-only, then /proc, /dev, /tmp, /run
 * and airlock's own helpers read-only at fixed paths.
 */
static void	plan_own_mounts(struct plan_build *, int);

static int
stage_system(struct plan_build *pb, char *err, size_t errlen)
{
	struct sv_plan	*p = pb->p;
	char		 target[PATH_MAX];
	size_t		 i;

	(void)err;
	(void)errlen;
	for (i = 0; i < n_protect_sys_dirs; i++) {
		const char *d = protect_sys_dirs[i];

		if (is_symlink(d, target, sizeof(target)))
			plan_op(p, PLAN_OP_SYMLINK, 0, target, d);
		else
			plan_op(p, PLAN_OP_BIND, PLAN_OPF_RO |
			    PLAN_OPF_OPTIONAL, d, d);
		pb->need = strv_add(pb->need, d);
	}
	/*
	 * R-S4: a tmpfs is RAM the watchdog's RSS sum does not count, so
	 * each writable one (/tmp, /dev/shm, an unbound $HOME) is capped at
	 * the memory limit.
	 */
	if (pb->spec->limits.memory_bytes > 0)
		snprintf(pb->tmpsz, sizeof(pb->tmpsz), "%llu",
		    (unsigned long long)pb->spec->limits.memory_bytes);
	plan_own_mounts(pb, 0);
	pb->need = strv_add(pb->need, "/proc");
	pb->need = strv_add(pb->need, "/dev");
	pb->need = strv_add(pb->need, "/tmp");
	pb->need = strv_add(pb->need, "/run");
	return 0;
}

/*
 * The sandbox's own /proc, /dev, /tmp, /run and airlock's helpers in
 * /run/airlock/bin.  over_root: again, on top of the host's root bound
 * read-only (allowRead "/"), which brings the host's own /proc (every
 * process of the machine), /dev, /tmp and /run (the user's runtime
 * directory, airlockd's socket) and would leave /run/airlock uncreatable:
 * /run is then a tmpfs of the sandbox's, like /tmp.
 */
static void
plan_own_mounts(struct plan_build *pb, int over_root)
{
	struct sv_plan	*p = pb->p;
	char		*self;

	plan_op(p, PLAN_OP_PROC, 0, NULL, "/proc");
	plan_op(p, PLAN_OP_DEV, 0, pb->tmpsz, "/dev");
	plan_op(p, PLAN_OP_TMPFS, 0, pb->tmpsz, "/tmp");
	if (over_root)
		plan_op(p, PLAN_OP_TMPFS, 0, pb->tmpsz, "/run");
	else
		plan_op(p, PLAN_OP_DIR, 0, NULL, "/run");
	/* ssh's ProxyCommand is airlock's own proxy-connect: the client
	 * binary next to airlockd, read-only, at a fixed path. */
	if (pb->ctx->with_proxy &&
	    (self = airlock_sibling("airlock", NULL)) != NULL) {
		if (self[0] == '/') {
			plan_op(p, PLAN_OP_DIR, 0, NULL, "/run/airlock/bin");
			plan_op(p, PLAN_OP_BIND, PLAN_OPF_RO |
			    PLAN_OPF_OPTIONAL, self, AIRLOCK_SANDBOX_SELF);
		}
		free(self);
	}
	/* The file tools' helper (sv_fs.c), read-only at a fixed path. */
	if (pb->ctx->fs_helper != NULL && pb->ctx->fs_helper[0] == '/') {
		plan_op(p, PLAN_OP_DIR, 0, NULL, "/run/airlock/bin");
		plan_op(p, PLAN_OP_BIND, PLAN_OPF_RO | PLAN_OPF_OPTIONAL,
		    pb->ctx->fs_helper, AIRLOCK_SANDBOX_FS);
	}
}

static void
plan_own_again(void *arg)
{
	plan_own_mounts(arg, 1);
}

/*
 * An empty $HOME unless a bind covers it (a tmpfs beneath the bind
 * would be a submount of it, for no purpose), and the tmpfs mounts the
 * watchdog counts (R-S4): those no bind hides.
 */
static int
stage_home(struct plan_build *pb, char *err, size_t errlen)
{
	const struct sv_spec	*spec = pb->spec;
	struct sv_plan		*p = pb->p;
	size_t			 i;

	(void)err;
	(void)errlen;
	for (i = 0; i < spec->nbinds; i++)
		if (path_under(pb->home, spec->binds[i].guest_path))
			pb->home_bound = 1;
	if (!pb->home_bound)
		plan_op(p, PLAN_OP_TMPFS, 0, pb->tmpsz, pb->home);
	p->tmpfs = strv_add(NULL, "/dev/shm");
	for (i = 0; i < spec->nbinds; i++)
		if (path_under("/tmp", spec->binds[i].guest_path))
			break;
	if (i == spec->nbinds)
		p->tmpfs = strv_add(p->tmpfs, "/tmp");
	if (!pb->home_bound)
		p->tmpfs = strv_add(p->tmpfs, pb->home);
	return 0;
}

/*
 * A carve-out is opened by its canonical path: one beneath a secret
 * (~/.ssh/known_hosts) that resolves to another entry of a secret (the
 * user's own link known_hosts -> id_rsa), or one outside every secret
 * that resolves into one, would open what the user never named.  Such
 * a carve-out is refused, naming both paths.  what: the setting or
 * flag, given: the path as given (absolute), secrets: absolute.
 */
static int
carve_resolved(const char *what, const char *given, char *const *secrets,
    char *err, size_t errlen)
{
	char		 real[PATH_MAX];
	size_t		 i;
	int		 bad = 0, inside;

	if (given[0] != '/' || realpath(given, real) == NULL ||
	    strcmp(real, given) == 0)
		return 0;
	for (i = 0; secrets != NULL && secrets[i] != NULL && !bad; i++) {
		if (has_glob(secrets[i]) ||
		    !protect_resolves_into(given, real, secrets[i], &inside))
			continue;
		snprintf(err, errlen, "%s %s resolves to %s, %s the secret "
		    "%s: a carve-out opens only what it names (name %s itself "
		    "if that is meant)", what, given, real, inside ?
		    "inside" : "another entry of", secrets[i], real);
		bad = 1;
	}
	return bad ? -1 : 0;
}

/*
 * Every carve-out the user gave (--bind, allowRead, allowWrite) against
 * the secret set and denyRead: none resolves elsewhere in a secret.
 */
static int
carve_check(struct plan_build *pb, char *err, size_t errlen)
{
	const struct settings	*st = pb->ctx->settings;
	const struct sv_spec	*spec = pb->spec;
	char			**sec = NULL, *a;
	size_t			  i;
	int			  rv = 0;

	for (i = 0; i < n_protect_home_secrets; i++) {
		xasprintf(&a, "%s/%s", pb->home, protect_home_secrets[i]);
		sec = strv_add(sec, a);
		free(a);
	}
	for (i = 0; i < n_protect_etc_secrets; i++)
		sec = strv_add(sec, protect_etc_secrets[i]);
	for (i = 0; spec->deny_read != NULL && spec->deny_read[i] != NULL;
	    i++)
		if ((a = plan_abs(spec->deny_read[i], pb->home,
		    pb->base)) != NULL) {
			sec = strv_add(sec, a);
			free(a);
		}
	for (i = 0; st != NULL && st->deny_read && st->deny_read[i]; i++)
		if ((a = plan_abs(st->deny_read[i], pb->home,
		    pb->base)) != NULL) {
			sec = strv_add(sec, a);
			free(a);
		}
	for (i = 0; rv == 0 && spec->bind_links != NULL &&
	    spec->bind_links[i] != NULL && spec->bind_links[i + 1] != NULL;
	    i += 2)
		rv = carve_resolved("the bind", spec->bind_links[i], sec, err,
		    errlen);
	for (i = 0; rv == 0 && st != NULL && st->allow_read &&
	    st->allow_read[i]; i++)
		if ((a = plan_abs(st->allow_read[i], pb->home,
		    pb->base)) != NULL) {
			rv = carve_resolved("allowRead", a, sec, err, errlen);
			free(a);
		}
	for (i = 0; rv == 0 && st != NULL && st->allow_write &&
	    st->allow_write[i]; i++)
		if ((a = plan_abs(st->allow_write[i], pb->home,
		    pb->base)) != NULL) {
			rv = carve_resolved("allowWrite", a, sec, err, errlen);
			free(a);
		}
	strv_free(sec);
	return rv;
}

/*
 * R-S5: the spec's binds, rw by mode, by depth, the denied directories
 * with a carve-out split after the bind holding them; the runner's
 * private directories; srt's allowWrite and allowRead keys.
 */
static int
stage_binds(struct plan_build *pb, char *err, size_t errlen)
{
	const struct sv_spec	*spec = pb->spec;
	struct sv_plan		*p = pb->p;
	struct stat		 st;
	const char		*o;
	size_t			 i;

	/* Protected paths: both spellings; never writable. */
	for (i = 0; spec->protected_paths && spec->protected_paths[i]; i++)
		pb->prot = sv_path_spellings(pb->prot,
		    spec->protected_paths[i]);
	pb->base = plan_base(spec, pb->home);
	if (carve_check(pb, err, errlen) == -1)
		return -1;
	pb->carves = carve_outs(spec, pb->ctx->settings, pb->home, pb->base);
	pb->splits = split_list(spec, pb->ctx->settings, pb->carves,
	    pb->home, pb->base);
	pb->order = bind_order(spec);
	plan_binds(p, spec, pb->order, pb->splits, pb->carves, pb->prot,
	    pb->hc.homes, NULL, &pb->writable, &pb->binds_dst);
	/* runnerPrivateDirs: the runner's own scratch (what it sources
	 * into its shell, say), a tmpfs each, never written back: beneath
	 * the home only, and existing (the runner made them). */
	for (i = 0; spec->runner_private_dirs &&
	    spec->runner_private_dirs[i]; i++) {
		const char *d = spec->runner_private_dirs[i];

		if (d[0] != '/' || strcmp(d, pb->home) == 0 ||
		    !path_under(d, pb->home) || lstat(d, &st) == -1 ||
		    !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "runnerPrivateDirs: %s is not a "
			    "directory beneath the home", d);
			return -1;
		}
		plan_op(p, PLAN_OP_TMPFS, 0, pb->tmpsz, d);
		p->tmpfs = strv_add(p->tmpfs, d);
	}
	if (spec->test_unlisted_bind != NULL)
		plan_op(p, PLAN_OP_BIND, 0, spec->test_unlisted_bind,
		    spec->test_unlisted_bind);

	/*
	 * srt's filesystem keys, relative paths beneath the workspace:
	 * allowWrite binds writable (not in the read-only modes), allowRead
	 * binds read-only what no bind shows; both stay readable inside a
	 * denied tree (the carve-outs).
	 */
	for (i = 0; i < spec->nbinds; i++)
		pb->keep = strv_add(pb->keep, spec->binds[i].guest_path);
	for (i = 0; spec->runner_state_dirs && spec->runner_state_dirs[i];
	    i++)
		pb->keep = strv_add(pb->keep, spec->runner_state_dirs[i]);
	if (!pb->home_bound)
		pb->keep = strv_add(pb->keep, pb->home);
	if (pb->ctx->settings != NULL)
		plan_allow_paths(p, pb->ctx->settings, spec, pb->home,
		    pb->base, pb->splits, &pb->writable, &pb->keep,
		    &pb->allowed, plan_own_again, pb);
	/* A bind shown elsewhere shares no path with these either, nor
	 * with the host sockets bound later (stage_network). */
	for (i = 0; pb->moved != NULL && pb->moved[i] != NULL; i += 2)
		if ((o = overlap_any(pb->allowed, pb->moved[i + 1])) != NULL ||
		    (pb->ctx->settings != NULL && (o = overlap_any(
		    pb->ctx->settings->allow_unix_sockets,
		    pb->moved[i + 1])) != NULL)) {
			snprintf(err, errlen, "%s shown at %s: refused: the "
			    "settings bind %s too (allowRead, allowWrite or "
			    "allowUnixSockets); a destination shares no path "
			    "with another bind", pb->moved[i],
			    pb->moved[i + 1], o);
			return -1;
		}
	/* A bind, split or state directory an allowRead or allowWrite
	 * directory covered is mounted again on top of it. */
	if (pb->allowed != NULL)
		plan_binds(p, spec, pb->order, pb->splits, pb->carves,
		    pb->prot, pb->hc.homes, pb->allowed, &pb->writable,
		    &pb->binds_dst);
	for (i = 0; pb->writable != NULL && pb->writable[i] != NULL; i++) {
		char *h = moved_host(p->moved, pb->writable[i]);

		pb->hwritable = strv_add(pb->hwritable, h);
		free(h);
	}
	return 0;
}

/*
 * R-S5, R-L3: what stays read-only inside the writable binds: the
 * protected paths, the protected names already present (at the top of
 * each bind and in the user's home), denyWrite.
 */
static int
stage_protected(struct plan_build *pb, char *err, size_t errlen)
{
	const struct sv_spec	*spec = pb->spec;
	struct sv_plan		*p = pb->p;
	struct stat		 st;
	char			*s, **one;
	size_t			 i, j;

	for (i = 0; pb->prot != NULL && pb->prot[i] != NULL; i++)
		if (in_list(pb->writable, pb->prot[i]) ||
		    in_list(pb->hwritable, pb->prot[i]))
			plan_ro(p, pb->prot[i]);
	/* Found on the host (a bind shown elsewhere: at SRC), read-only
	 * in the sandbox's terms. */
	for (i = 0; pb->writable != NULL && pb->writable[i] != NULL; i++) {
		if (exact_in_list(spec->runner_state_dirs, pb->writable[i]))
			continue;
		for (j = 0; j < n_protect_existing; j++) {
			xasprintf(&s, "%s/%s", pb->hwritable[i],
			    protect_existing[j]);
			/* A runner's session directories beneath (a home
			 * bound whole): plan_home protects around them. */
			if (lstat(s, &st) == 0 &&
			    !beneath_any(spec->runner_state_dirs, s, 0))
				plan_ro(p, s);
			free(s);
		}
	}
	pb->hc.writable = pb->hwritable;
	pb->hc.pathdirs = pb->pathdirs;
	if (plan_home(p, spec, &pb->hc, pb->own, err, errlen) == -1)
		return -1;
	for (i = 0; spec->deny_write && spec->deny_write[i]; i++) {
		one = strv_add(NULL, spec->deny_write[i]);
		plan_deny_paths(p, PLAN_OP_REMOUNT_RO, one, pb->home,
		    pb->base);
		strv_free(one);
	}
	if (pb->ctx->settings != NULL)
		plan_deny_paths(p, PLAN_OP_REMOUNT_RO,
		    pb->ctx->settings->deny_write, pb->home, pb->base);
	return 0;
}

/*
 * R-L2: the secret set, airlockd's own state and the control plane's
 * sockets (carve-outs only beneath a secret), then the spec's and the
 * settings' denyRead (a carve-out may name one).
 */
static int
stage_secrets(struct plan_build *pb, char *err, size_t errlen)
{
	struct sv_plan	*p = pb->p;
	const char	*home = pb->home, *base = pb->base;
	char		*s;
	size_t		 i;

	for (i = 0; i < n_protect_home_secrets; i++) {
		xasprintf(&s, "%s/%s", home, protect_home_secrets[i]);
		pb->deny_read = strv_add(pb->deny_read, s);
		free(s);
	}
	/* airlockd's own state: the recorded origins. */
	if ((s = airlock_state_dir()) != NULL) {
		pb->deny_read = strv_add(pb->deny_read, s);
		free(s);
	}
	for (i = 0; i < n_protect_etc_secrets; i++)
		pb->deny_read = strv_add(pb->deny_read,
		    protect_etc_secrets[i]);
	pb->deny_read = control_plane_list(pb->deny_read, pb->ctx);
	/* The credentials file holds every secret, masked ones and the
	 * upstream proxy's login: hidden wherever it lies, even in the
	 * workspace or beneath a bind (read-only would still show it). */
	if (pb->ctx->settings != NULL &&
	    pb->ctx->settings->credentials_file != NULL &&
	    pb->ctx->settings->credentials_file[0] == '/')
		pb->deny_read = strv_add(pb->deny_read,
		    pb->ctx->settings->credentials_file);
	if (plan_deny_read(p, pb->deny_read, 1, pb->keep, pb->need,
	    pb->moved, home, base, err, errlen) == -1 ||
	    plan_deny_read(p, pb->spec->deny_read, 0, pb->keep, pb->need,
	    pb->moved, home, base, err, errlen) == -1)
		return -1;
	if (pb->ctx->settings != NULL &&
	    plan_deny_read(p, pb->ctx->settings->deny_read, 0, pb->keep,
	    pb->need, pb->moved, home, base, err, errlen) == -1)
		return -1;
	return 0;
}

/* R-L5: Landlock: read everywhere, write only where listed. */
static int
stage_landlock(struct plan_build *pb, char *err, size_t errlen)
{
	const struct sv_spec	*spec = pb->spec;
	struct sv_plan		*p = pb->p;
	size_t			 i;

	(void)err;
	(void)errlen;
	plan_landlock(p, LL_READ, "/");
	plan_landlock(p, LL_WRITE, "/tmp");
	plan_landlock(p, LL_DEVWRITE, "/dev");
	plan_landlock(p, LL_WRITE, "/dev/shm");
	if (!pb->home_bound)
		plan_landlock(p, LL_WRITE, pb->home);
	for (i = 0; pb->writable != NULL && pb->writable[i] != NULL; i++)
		plan_landlock(p, LL_WRITE, pb->writable[i]);
	for (i = 0; spec->runner_private_dirs &&
	    spec->runner_private_dirs[i]; i++)
		plan_landlock(p, LL_WRITE, spec->runner_private_dirs[i]);
	return 0;
}

/* R-S4: the pid limit as RLIMIT_NPROC (per user namespace), no cores. */
static int
stage_limits(struct plan_build *pb, char *err, size_t errlen)
{
	uint64_t	pids = pb->spec->limits.pids;

	(void)err;
	(void)errlen;
	if (pids > 0)
		plan_rlimit(pb->p, RLIMIT_NPROC, pids, pids);
	plan_rlimit(pb->p, RLIMIT_CORE, 0, 0);
	return 0;
}

/* A frame for airlock-guard alone (NR_UNIXSOCK, NR_NOUNIXBIND). */
static void
plan_guard_frame(struct sv_plan *p, uint32_t kind, const char *arg)
{
	struct msgbuf	b;

	msgbuf_init(&b, MSG_PLAN_WRITE_RULE);
	msg_put_u32(&b, kind);
	msg_put_str(&b, arg);
	msg_put_str(&b, "");
	plan_frame(p, &b);
}

/*
 * sandbox.network.allowUnixSockets: each host socket, canonical, bound
 * read-only (a connect needs no write to the filesystem) at its own
 * path, and pinned by the guard, which admits a connect by path to that
 * inode alone; every other host socket stays refused.  A path that is
 * no socket now is an error, not a sandbox without it; so is one of
 * airlock's own (the directories of airlockd's socket and of the
 * default one hold its daemons'): the control plane is never reachable.
 */
static int
plan_unix_sockets(struct sv_plan *p, const struct sv_plan_ctx *ctx,
    const struct settings *st, char *err, size_t errlen)
{
	struct stat	 sb;
	char		*c, *own[2], *sl;
	const char	*s;
	size_t		 i, j;

	own[0] = ctx->control_socket != NULL ?
	    realpath(ctx->control_socket, NULL) : NULL;
	own[1] = airlock_default_socket();
	for (j = 0; j < 2; j++)
		if (own[j] != NULL && (sl = strrchr(own[j], '/')) != NULL) {
			*sl = '\0';
			if ((c = realpath(own[j], NULL)) != NULL) {
				free(own[j]);
				own[j] = c;
			}
		}

	/* proxyd's host-header endpoint is pinned for the guard too. */
	if (ctx->hostep_path != NULL &&
	    strv_len(st->allow_unix_sockets) >= SOCKSET_PINNED) {
		snprintf(err, errlen, "sandbox.network.allowUnixSockets: "
		    "more than %d sockets: the host-header endpoint "
		    "/run/airlock/http.sock takes one of the "
		    SOCKSET_PINNED_S, SOCKSET_PINNED - 1);
		free(own[0]);
		free(own[1]);
		return -1;
	}
	for (i = 0; st->allow_unix_sockets && (s = st->allow_unix_sockets[i]);
	    i++) {
		c = s[0] == '/' ? realpath(s, NULL) : NULL;
		memset(&sb, 0, sizeof(sb));
		if (c == NULL || stat(c, &sb) == -1 || !S_ISSOCK(sb.st_mode) ||
		    i == SOCKSET_PINNED || (own[0] != NULL &&
		    own[0][0] != '\0' && path_under(c, own[0])) ||
		    (own[1] != NULL && own[1][0] != '\0' &&
		    path_under(c, own[1]))) {
			snprintf(err, errlen,
			    "sandbox.network.allowUnixSockets: %s: %s", s,
			    s[0] != '/' ? "not an absolute path" :
			    c == NULL ? strerror(errno) : i == SOCKSET_PINNED ?
			    "more than " SOCKSET_PINNED_S " sockets" :
			    !S_ISSOCK(sb.st_mode) ? "not a socket" :
			    "airlock's own socket, never allowed");
			free(c);
			free(own[0]);
			free(own[1]);
			return -1;
		}
		/*
		 * The path as written, never a link's target: a symlink
		 * (in any component) the sandbox made in one run would
		 * choose the socket bound in the next.  The user lists
		 * the target itself.
		 */
		if (strcmp(c, s) != 0) {
			snprintf(err, errlen,
			    "sandbox.network.allowUnixSockets: %s: goes "
			    "through a symlink to %s; list that path instead",
			    s, c);
			free(c);
			free(own[0]);
			free(own[1]);
			return -1;
		}
		plan_op(p, PLAN_OP_BIND, PLAN_OPF_RO, c, c);
		plan_guard_frame(p, NR_UNIXSOCK, c);
		free(c);
	}
	free(own[0]);
	free(own[1]);
	if (!st->allow_unix_bind)
		plan_guard_frame(p, NR_NOUNIXBIND, "/");
	return 0;
}

/* R-L8: the session's listeners, made inside its netns; git's config
 * for the push gateway; the host unix sockets allowed. */
static int
stage_network(struct plan_build *pb, char *err, size_t errlen)
{
	struct sv_plan	*p = pb->p;

	if (pb->ctx->settings != NULL &&
	    plan_unix_sockets(p, pb->ctx, pb->ctx->settings, err, errlen) == -1)
		return -1;

	if (pb->ctx->with_proxy) {
		plan_listen(p, LISTEN_HTTP, LISTEN_PORT_HTTP);
		plan_listen(p, LISTEN_SOCKS, LISTEN_PORT_SOCKS);
		p->listen_http = 1;
		plan_node_proxy(p);
	}
	/* proxyd's host-header endpoint: one socket, reachable by the
	 * guard's rule like an allowed host socket (docs/DECISIONS.md). */
	if (pb->ctx->with_proxy && pb->ctx->hostep_path != NULL) {
		plan_op(p, PLAN_OP_DIR, 0, NULL, SV_RUN_GITCONFIG_DIR);
		plan_op(p, PLAN_OP_BIND, PLAN_OPF_RO, pb->ctx->hostep_path,
		    SV_RUN_HOSTEP);
		plan_guard_frame(p, NR_UNIXSOCK, SV_RUN_HOSTEP);
	}
	if (pb->ctx->with_gateway && !pb->spec->no_push_gateway) {
		plan_listen(p, LISTEN_GIT, LISTEN_PORT_GIT);
		p->listen_git = 1;
		if (plan_gitconfig(p, pb->ctx, err, errlen) == -1)
			return -1;
	}
	return 0;
}

/*
 * R-L3, R-L4, R-L6: the filename rules and the git-state allowlist the
 * seccomp-notify handler applies, and the seccomp program.
 */
static int
stage_rules(struct plan_build *pb, char *err, size_t errlen)
{
	struct msgbuf	b;

	if (plan_write_rules(pb->p, pb->spec, pb->ctx, pb->writable,
	    pb->hwritable, &pb->hc, pb->own, err, errlen) == -1)
		return -1;
	if (pb->ctx->bpf != NULL) {
		msgbuf_init(&b, MSG_PLAN_SECCOMP);
		msg_put_u32(&b, sv_seccomp_notify() ? PLAN_SECF_NOTIFY : 0);
		msg_put_blob(&b, pb->ctx->bpf, pb->ctx->bpf_len);
		plan_frame(pb->p, &b);
	}
	return 0;
}

/*
 * credentials.mask: the sandbox trusts the session CA (with the system's
 * certificates) through the file and the variables common tools read,
 * each masked variable holds its placeholder, and a masked login file
 * is its copy.
 */
static void
plan_ca_bundle(struct sv_plan *p, const struct sv_plan_ctx *ctx)
{
	static const char *const vars[] = { "SSL_CERT_FILE",
	    "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO",
	    "CURL_CA_BUNDLE" };
	struct msgbuf	b;
	size_t		i;

	if (ctx->ca_bundle != NULL) {
		plan_op(p, PLAN_OP_DIR, 0, NULL, SV_RUN_GITCONFIG_DIR);
		msgbuf_init(&b, MSG_PLAN_FILE);
		msg_put_str(&b, SV_RUN_CA_BUNDLE);
		msg_put_u32(&b, 0444);
		msg_put_blob(&b, ctx->ca_bundle, strlen(ctx->ca_bundle));
		plan_frame(p, &b);
		for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
			env_set(&p->env_base, vars[i], SV_RUN_CA_BUNDLE);
	}
	for (i = 0; ctx->mask_env != NULL && ctx->mask_env[i] != NULL &&
	    ctx->mask_env[i + 1] != NULL; i += 2)
		env_set(&p->env_base, ctx->mask_env[i], ctx->mask_env[i + 1]);
	/* claudeLogin: over the real file (hidden as a secret), a copy
	 * holding placeholders, read-only. */
	if (ctx->login_copy != NULL && ctx->login_file != NULL) {
		plan_op(p, PLAN_OP_DIR, 0, NULL, SV_RUN_GITCONFIG_DIR);
		msgbuf_init(&b, MSG_PLAN_FILE);
		msg_put_str(&b, SV_RUN_LOGIN);
		msg_put_u32(&b, 0444);
		msg_put_blob(&b, ctx->login_copy, strlen(ctx->login_copy));
		plan_frame(p, &b);
		plan_op(p, PLAN_OP_BIND, PLAN_OPF_RO | PLAN_OPF_INSIDE,
		    SV_RUN_LOGIN, ctx->login_file);
	}
}

/* The last frame, the working directory and the base environment. */
static int
stage_end(struct plan_build *pb, char *err, size_t errlen)
{
	const struct sv_spec	*spec = pb->spec;
	struct sv_plan		*p = pb->p;
	struct msgbuf		 b;

	(void)err;
	(void)errlen;
	plan_ca_bundle(p, pb->ctx);
	msgbuf_init(&b, MSG_PLAN_END);
	plan_frame(p, &b);
	p->workdir = xstrdup(spec->guest_workdir != NULL ?
	    spec->guest_workdir : spec->nbinds > 0 ?
	    spec->binds[0].guest_path : pb->home);
	env_set(&p->env_base, "HOME", pb->home);
	env_set(&p->env_base, "TMPDIR", "/tmp");
	env_set(&p->env_base, "AIRLOCK_SANDBOX", "native");
	env_set(&p->env_base, "AIRLOCK_SESSION", spec->session_id);
	return 0;
}

/*
 * The stages in the order the launcher applies their frames: mounts
 * from the system outwards (each later one on top of the earlier),
 * then what hides or pins inside them, then the kernel's layers.
 */
static const struct plan_stage {
	const char	*name;
	int		(*build)(struct plan_build *, char *, size_t);
} plan_stages[] = {
	{ "checks", stage_check },
	{ "begin", stage_begin },
	{ "system", stage_system },		/* R-L1 */
	{ "home", stage_home },			/* R-S4 */
	{ "binds", stage_binds },		/* R-S5 */
	{ "protected", stage_protected },	/* R-S5, R-L3 */
	{ "secrets", stage_secrets },		/* R-L2 */
	{ "landlock", stage_landlock },		/* R-L5 */
	{ "limits", stage_limits },		/* R-S4 */
	{ "network", stage_network },		/* R-L8 */
	{ "rules", stage_rules },		/* R-L3, R-L4, R-L6 */
	{ "end", stage_end },
};

static void
plan_build_free(struct plan_build *pb)
{
	strv_free(pb->writable);
	strv_free(pb->hwritable);
	strv_free(pb->binds_dst);
	strv_free(pb->prot);
	strv_free(pb->deny_read);
	strv_free(pb->own);
	strv_free(pb->pathdirs);
	strv_free(pb->hc.homes);
	strv_free(pb->hc.carves);
	strv_free(pb->keep);
	strv_free(pb->need);
	strv_free(pb->carves);
	strv_free(pb->splits);
	strv_free(pb->allowed);
	strv_free(pb->moved);
	free(pb->order);
}

int
sv_plan_build(const struct sv_spec *spec, const struct sv_plan_ctx *ctx,
    struct sv_plan *p, char *err, size_t errlen)
{
	struct plan_build	pb;
	size_t			i;

	memset(p, 0, sizeof(*p));
	memset(&pb, 0, sizeof(pb));
	pb.spec = spec;
	pb.ctx = ctx;
	pb.p = p;
	pb.hc.p = p;
	pb.hc.homes = home_list(ctx);
	pb.own = own_list(ctx, pb.hc.homes);
	pb.pathdirs = path_list(ctx, pb.hc.homes);
	pb.hc.carves = carve_list(spec, ctx, pb.hc.homes, pb.own);
	for (i = 0; i < sizeof(plan_stages) / sizeof(plan_stages[0]); i++)
		if (plan_stages[i].build(&pb, err, errlen) == -1) {
			log_debug("session %s: plan stage %s: %s",
			    spec->session_id, plan_stages[i].name, err);
			plan_build_free(&pb);
			sv_plan_free(p);
			return -1;
		}
	plan_build_free(&pb);
	return 0;
}

/* ---- environment (R-L9) ---- */

static const char *const env_allow[] = {
	"PATH", "LANG", "LANGUAGE", "TERM", "COLORTERM", "TZ", "USER",
	"LOGNAME", "SHELL", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES",
	"EDITOR", "VISUAL", "PAGER",
};

/*
 * Never passed, whatever the caller or the exec asks: loader, language
 * runtime and shell injection points, and git's configuration overrides.
 */
static const char *const env_deny_prefix[] = {
	"LD_", "DYLD_", "GIT_CONFIG", "GCONV_", "MALLOC_",
};
static const char *const env_deny[] = {
	"NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME",
	"PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "BASH_ENV",
	"ENV", "PROMPT_COMMAND", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
	"JDK_JAVA_OPTIONS", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXEC_PATH",
	"GIT_ASKPASS", "SSH_ASKPASS", "GIT_TEMPLATE_DIR", "GIT_PROXY_COMMAND",
	"GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "SHELLOPTS",
	"BASHOPTS", "IFS", "CDPATH", "SSH_AUTH_SOCK", "HOSTALIASES",
	"LOCALDOMAIN", "RES_OPTIONS", "NLSPATH", "TMPDIR", "HOME",
};

/* An injection variable of R-L9: refused even when passed on purpose. */
int
sv_env_injection(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof(env_deny_prefix) / sizeof(env_deny_prefix[0]);
	    i++)
		if (strncmp(name, env_deny_prefix[i],
		    strlen(env_deny_prefix[i])) == 0)
			return 1;
	for (i = 0; i < sizeof(env_deny) / sizeof(env_deny[0]); i++)
		if (strcmp(name, env_deny[i]) == 0)
			return 1;
	return 0;
}

int
sv_env_allowed(const char *name)
{
	size_t	i, n;

	if (sv_env_injection(name))
		return 0;
	/* Credentials by convention never cross (R-K2). */
	n = strlen(name);
	if ((n > 6 && strcmp(name + n - 6, "_TOKEN") == 0) ||
	    (n > 4 && strcmp(name + n - 4, "_KEY") == 0) ||
	    strstr(name, "SECRET") != NULL || strstr(name, "PASSWORD") != NULL)
		return 0;
	if (strncmp(name, "LC_", 3) == 0)
		return 1;
	for (i = 0; i < sizeof(env_allow) / sizeof(env_allow[0]); i++)
		if (strcmp(name, env_allow[i]) == 0)
			return 1;
	return 0;
}

static void
env_put(char ***v, const char *kv)
{
	size_t	i, nl;
	const char *eq = strchr(kv, '=');

	if (eq == NULL || eq == kv)
		return;
	nl = (size_t)(eq - kv) + 1;
	for (i = 0; *v != NULL && (*v)[i] != NULL; i++) {
		if (strncmp((*v)[i], kv, nl) == 0) {
			free((*v)[i]);
			(*v)[i] = xstrdup(kv);
			return;
		}
	}
	*v = strv_add(*v, kv);
}

static int
env_name_allowed(const char *kv)
{
	char	name[256];
	const char *eq = strchr(kv, '=');
	size_t	n;

	if (eq == NULL || (n = (size_t)(eq - kv)) == 0 || n >= sizeof(name))
		return 0;
	memcpy(name, kv, n);
	name[n] = '\0';
	return sv_env_allowed(name);
}

char **
sv_env_build(char *const *caller, char *const *plan_env,
    char *const *exec_env)
{
	char	**v = xcalloc(1, sizeof(*v));
	size_t	i;

	for (i = 0; caller != NULL && caller[i] != NULL; i++)
		if (env_name_allowed(caller[i]))
			env_put(&v, caller[i]);
	for (i = 0; exec_env != NULL && exec_env[i] != NULL; i++)
		if (env_name_allowed(exec_env[i]))
			env_put(&v, exec_env[i]);
	for (i = 0; plan_env != NULL && plan_env[i] != NULL; i++)
		env_put(&v, plan_env[i]);
	for (i = 0; v[i] != NULL; i++)
		if (strncmp(v[i], "PATH=", 5) == 0)
			break;
	if (v[i] == NULL)
		env_put(&v, "PATH=/usr/local/bin:/usr/bin:/bin");
	return v;
}
