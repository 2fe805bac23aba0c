// SPDX-License-Identifier: ISC
/*
 * Worktrees per conversation (SPEC §5, R-W1..R-W5).  airlockd
 * decides; airlock-clone copies.  Layout under the data dir
 * (worktrees.dataDir, else $XDG_DATA_HOME/airlock/conversations):
 *
 *   ID/conversation.json   what was copied from where (never mounted)
 *   ID/repos/NAME/         a whole copy of a checkout, .git included: an
 *                          independent repository, origin as the original's
 *   ID/agents/AGENT/       each agent's private directory
 *
 * worktree.provision runs one airlock-clone per missing repository, one
 * after the other, relaying its progress as worktree.progress
 * notifications (R-W5).  A failure removes everything this provisioning
 * made (the helper empties its own copy; the copies made before it are
 * emptied by another helper; the directories are removed here), so a
 * failed provisioning leaves the data dir as it found it.  worktree.remove
 * empties a conversation with the helper too: a 50,000-file tree is not
 * removed in airlockd's event loop.
 *
 * A launch with conversationId gets at most four mounts (R-W4): the
 * agent's private directory (rw, the working directory), the agent's
 * config dir (ro, when named), the conversation's repos/ (rw) and the
 * space's attachments (ro, when named).  Every launch gets the registered
 * checkouts (the sources recorded in every conversation.json) as
 * protectedPaths, and each conversation.json too: the original is never
 * written from a run, and no run can unregister it.
 *
 * Untrusted: params from the client; conversation.json is airlockd's own
 * file in a directory no run mounts, but it is still parsed with the
 * JSON module's caps and checked field by field.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "supervisor/sv_clone.h"
#include "supervisor/sv_worktree.h"
#include "supervisor/sv_wtspare.h"

#define WT_META		"conversation.json"
#define WT_META_MAX	(1U << 20)
#define WT_MAX_ID	128

enum wt_phase {
	WT_COPY = 0,	/* copying repos[cur] */
	WT_CLEANUP,	/* a copy failed: undoing this provisioning */
	WT_REMOVE,	/* worktree.remove */
};

struct wt_job {
	struct wt_job	*next;
	struct sv_client *c;
	struct json	*id;
	enum wt_phase	 phase;
	char		*conv;
	char		*root;
	char		**names;	/* repositories to copy now */
	char		**srcs;
	char		**agents;	/* all agents asked for */
	char		**fromspare;	/* names brought up to date from a
					   spare (sv_wtspare.c) */
	int		 cur_spare;	/* repos[cur] is a taken spare */
	int		 no_spare;	/* its update failed: copy it */
	size_t		 ncopy, cur;
	char		**made;		/* made by this job, removed on
					   failure */
	char		**rm;		/* trees left for the helper to empty */
	char		*rm_cur;
	struct sv_clone	 cl;		/* the airlock-clone running */
	uint64_t	 files, bytes, skipped, vanished;
	uint64_t	 cur_files, cur_bytes;
	char		*error;
	int		 lock;		/* WT_REMOVE: the exclusive flock */
};

static struct wt_job *jobs;

/*
 * A conversation in use: a shared flock on its directory, held from the
 * launch of a session in it until the session is gone, so that
 * worktree.remove in any airlockd (a private one of `airlock worktree
 * rm`, another's of `airlock run --conversation`) sees it; a removal
 * holds the exclusive lock while it runs, so no launch mounts the
 * half-removed trees.
 */
struct wt_use {
	struct wt_use	*next;
	char		*sid;
	int		 fd;
};

static struct wt_use *uses;

/* Let go of the locks of sessions that are gone or never started. */
static void
uses_sweep(void)
{
	struct wt_use	**pp, *u;

	for (pp = &uses; (u = *pp) != NULL;) {
		if (sv_session_find(u->sid) != NULL) {
			pp = &u->next;
			continue;
		}
		*pp = u->next;
		close(u->fd);
		free(u->sid);
		free(u);
	}
}

/* The conversation directory's flock, LOCK_SH or LOCK_EX, not waited
 * for: its fd, or -1 with errno (EWOULDBLOCK: the other kind is held). */
static int
conv_lock(const char *root, int how)
{
	int	fd, e;

	if ((fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	if (flock(fd, how | LOCK_NB) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static void	job_next(struct wt_job *);

static int
valid_id(const char *s)
{
	size_t	n = strlen(s);

	return n > 0 && n <= WT_MAX_ID && strcmp(s, ".") != 0 &&
	    strcmp(s, "..") != 0 && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == n;
}

/* worktrees.dataDir, else $XDG_DATA_HOME/airlock/conversations. */
static char *
data_dir(const struct settings *set, const char *home)
{
	const char	*x = getenv("XDG_DATA_HOME");
	char		*p;

	if (set != NULL && set->worktrees_dir != NULL &&
	    set->worktrees_dir[0] == '/')
		return xstrdup(set->worktrees_dir);
	if (x != NULL && x[0] == '/')
		xasprintf(&p, "%s/airlock/conversations", x);
	else {
		if (home == NULL || home[0] != '/')
			home = getenv("HOME");
		if (home == NULL || home[0] != '/')
			return NULL;
		xasprintf(&p, "%s/.local/share/airlock/conversations", home);
	}
	return p;
}

/* mkdir -p; the directories made are private to the user. */
static int
mkdirs(const char *path)
{
	char	buf[PATH_MAX], *s;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (s = buf + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0700) == -1 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(buf, 0700) == -1 && errno != EEXIST)
		return -1;
	return 0;
}

static int
is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int
path_under(const char *p, const char *dir)
{
	size_t	n = strlen(dir);

	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/' ||
	    (n == 1 && dir[0] == '/'));
}

static struct json *
meta_read(const char *root)
{
	char	path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", root, WT_META) >=
	    (int)sizeof(path))
		return NULL;
	return json_read_object(path, WT_META_MAX);
}

/* The recorded source of repos/NAME, or NULL. */
static const char *
meta_source(const struct json *m, const char *name)
{
	const struct json *r = m != NULL ? json_get(m, "sources") : NULL;

	return r != NULL && r->type == JSON_OBJECT ? json_get_str(r, name) :
	    NULL;
}

/* Record the sources of this provisioning beside the ones before. */
static int
meta_write(const char *root, const char *conv, char **names, char **srcs)
{
	struct json	*old = meta_read(root);
	const struct json *r;
	struct jgen	*j = jgen_new();
	const char	*buf;
	char		 path[PATH_MAX], tmp[PATH_MAX];
	size_t		 len, i;
	int		 rc;

	jgen_obj_open(j);
	jgen_kstr(j, "conversationId", conv);
	jgen_key(j, "sources");
	jgen_obj_open(j);
	r = old != NULL ? json_get(old, "sources") : NULL;
	for (i = 0; r != NULL && r->type == JSON_OBJECT && i < r->n; i++)
		if (r->items[i]->type == JSON_STRING)
			jgen_kstr(j, r->keys[i], r->items[i]->str);
	for (i = 0; names != NULL && names[i] != NULL; i++)
		if (meta_source(old, names[i]) == NULL)
			jgen_kstr(j, names[i], srcs[i]);
	jgen_obj_close(j);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	snprintf(path, sizeof(path), "%s/%s", root, WT_META);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", root, WT_META);
	rc = json_write_file(path, tmp, buf, len);
	jgen_free(j);
	json_free(old);
	return rc;
}

static void
job_free(struct wt_job *j)
{
	struct wt_job **pp;

	for (pp = &jobs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	sv_clone_close(&j->cl);
	if (j->lock != -1)
		close(j->lock);
	json_free(j->id);
	sv_client_unref(j->c);
	free(j->conv);
	free(j->root);
	strv_free(j->names);
	strv_free(j->srcs);
	strv_free(j->agents);
	strv_free(j->fromspare);
	strv_free(j->made);
	strv_free(j->rm);
	free(j->rm_cur);
	free(j->error);
	free(j);
}

static struct wt_job *
job_find(const char *conv)
{
	struct wt_job *j;

	for (j = jobs; j != NULL; j = j->next)
		if (strcmp(j->conv, conv) == 0)
			return j;
	return NULL;
}

/* {NAME: PATH} of the directories in root/sub. */
static void
gen_dirs(struct jgen *g, const char *root, const char *sub)
{
	struct dirent	*de;
	DIR		*dp;
	char		 path[PATH_MAX];

	jgen_obj_open(g);
	snprintf(path, sizeof(path), "%s/%s", root, sub);
	if ((dp = opendir(path)) != NULL) {
		while ((de = readdir(dp)) != NULL) {
			char full[PATH_MAX];

			if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
			    strcmp(de->d_name, "..") == 0))
				continue;
			if (snprintf(full, sizeof(full), "%s/%s", path,
			    de->d_name) < (int)sizeof(full) && is_dir(full))
				jgen_kstr(g, de->d_name, full);
		}
		closedir(dp);
	}
	jgen_obj_close(g);
}

static void
gen_conversation(struct jgen *g, const char *conv, const char *root)
{
	struct json	*m = meta_read(root);
	const struct json *r;
	size_t		 i;

	jgen_obj_open(g);
	jgen_kstr(g, "conversationId", conv);
	jgen_kstr(g, "root", root);
	jgen_key(g, "repos");
	gen_dirs(g, root, "repos");
	jgen_key(g, "agents");
	gen_dirs(g, root, "agents");
	jgen_key(g, "sources");
	jgen_obj_open(g);
	r = m != NULL ? json_get(m, "sources") : NULL;
	for (i = 0; r != NULL && r->type == JSON_OBJECT && i < r->n; i++)
		if (r->items[i]->type == JSON_STRING)
			jgen_kstr(g, r->keys[i], r->items[i]->str);
	jgen_obj_close(g);
	json_free(m);
}

static void
job_reply_ok(struct wt_job *j)
{
	struct jgen	*g = jgen_new();
	const char	*buf;
	size_t		 len;

	if (j->phase == WT_REMOVE) {
		jgen_obj_open(g);
		jgen_kstr(g, "conversationId", j->conv);
		jgen_kbool(g, "removed", 1);
		jgen_kint(g, "entries", (long long)j->files);
		jgen_obj_close(g);
	} else {
		gen_conversation(g, j->conv, j->root);
		jgen_kint(g, "files", (long long)j->files);
		jgen_kint(g, "bytes", (long long)j->bytes);
		jgen_kint(g, "skipped", (long long)j->skipped);
		jgen_kint(g, "vanished", (long long)j->vanished);
		jgen_key(g, "fromSpare");
		jgen_arr_open(g);
		for (size_t i = 0; j->fromspare != NULL &&
		    j->fromspare[i] != NULL; i++)
			jgen_str(g, j->fromspare[i]);
		jgen_arr_close(g);
		jgen_obj_close(g);
	}
	buf = jgen_buf(g, &len);
	sv_client_result(j->c, j->id, buf, len);
	jgen_free(g);
}

static void
job_fail(struct wt_job *j, const char *msg)
{
	if (j->error == NULL)
		j->error = xstrdup(msg);
	if (j->phase == WT_COPY) {
		j->phase = WT_CLEANUP;
		/* Every copy this provisioning made, emptied by a helper;
		 * the directories themselves are in j->made. */
		for (size_t i = 0; j->made != NULL && j->made[i] != NULL;
		    i++) {
			const char *m = j->made[i];
			size_t	    n = strlen(j->root);

			if (strncmp(m, j->root, n) == 0 &&
			    strncmp(m + n, "/repos/", 7) == 0 &&
			    strchr(m + n + 7, '/') == NULL)
				j->rm = strv_add(j->rm, m);
		}
	}
}

static void
progress_notify(struct wt_job *j, int final)
{
	struct jgen	*g = jgen_new();
	const char	*buf;
	size_t		 len;

	jgen_obj_open(g);
	jgen_kstr(g, "conversationId", j->conv);
	if (j->cur < j->ncopy && !final)
		jgen_kstr(g, "repo", j->names[j->cur]);
	jgen_kint(g, "files", (long long)(j->files + j->cur_files));
	jgen_kint(g, "bytes", (long long)(j->bytes + j->cur_bytes));
	jgen_obj_close(g);
	buf = jgen_buf(g, &len);
	sv_client_notify(j->c, "worktree.progress", buf, len);
	jgen_free(g);
}

static void
helper_progress(void *arg, uint64_t files, uint64_t bytes)
{
	struct wt_job	*j = arg;

	j->cur_files = files;
	j->cur_bytes = bytes;
	if (j->phase == WT_COPY)
		progress_notify(j, 0);
}

/* A copy's DONE: count it, or fail the job, or fall back to a copy. */
static void
copy_done(struct wt_job *j, const struct sv_clone_done *d)
{
	const char	*why = d->why[0] != '\0' ? d->why : strerror(d->err);
	char		 dst[PATH_MAX];
	size_t		 n;

	snprintf(dst, sizeof(dst), "%s/repos/%s", j->root, j->names[j->cur]);
	if (d->err != 0 && j->cur_spare && rmdir(dst) == -1) {
		/* Ours since the rename: the clean-up empties what the
		 * helper could not. */
		j->made = strv_add(j->made, dst);
		job_fail(j, why);
		return;
	}
	if (d->err != 0 && j->cur_spare) {
		/* A spare is only a shortcut: the helper emptied it, a
		 * whole copy goes next. */
		log_warnx("worktree %s: the spare of %s was not brought up "
		    "to date (%s): copying it", j->conv, j->srcs[j->cur], why);
		if ((n = strv_len(j->fromspare)) > 0) {
			free(j->fromspare[n - 1]);
			j->fromspare[n - 1] = NULL;
		}
		j->no_spare = 1;
		return;
	}
	if (d->err != 0) {
		/* The helper emptied it; or it never made it (EEXIST is
		 * not ours to remove). */
		if (d->err != EEXIST)
			(void)rmdir(dst);
		job_fail(j, why);
		return;
	}
	j->made = strv_add(j->made, dst);
	j->files += d->files;
	j->bytes += d->bytes;
	j->skipped += d->skipped;
	j->vanished += d->vanished;
	j->cur++;
}

static void
helper_done(void *arg, const struct sv_clone_done *d)
{
	struct wt_job	*j = arg;

	j->cur_files = j->cur_bytes = 0;
	if (j->phase == WT_COPY) {
		copy_done(j, d);
		return;
	}
	if (d->err != 0 && j->error == NULL)
		j->error = xstrdup(d->why[0] != '\0' ? d->why :
		    strerror(d->err));
	j->files += d->files;
}

static void
helper_ended(void *arg, int got_done)
{
	struct wt_job	*j = arg;
	char		 dst[PATH_MAX];

	if (!got_done) {
		/* It died mid-copy: what it made is left for a helper. */
		if (j->phase == WT_COPY) {
			snprintf(dst, sizeof(dst), "%s/repos/%s", j->root,
			    j->names[j->cur]);
			j->made = strv_add(j->made, dst);
			job_fail(j, "airlock-clone stopped before it finished "
			    "(see airlockd's log)");
		} else if (j->error == NULL)
			j->error = xstrdup("airlock-clone stopped before it "
			    "finished removing (see airlockd's log)");
	}
	job_next(j);
}

static int
helper_spawn(struct wt_job *j, char **argv)
{
	char	err[PATH_MAX + 64], msg[PATH_MAX + 128];

	if (sv_clone_spawn(&j->cl, argv, err, sizeof(err)) == 0)
		return 0;
	if (j->error == NULL) {
		snprintf(msg, sizeof(msg), "%s: worktrees cannot be made",
		    err);
		j->error = xstrdup(msg);
	}
	return -1;
}

/* Remove j->made, newest first: directories the helpers emptied. */
static void
unmake(struct wt_job *j)
{
	size_t	n = 0;

	while (j->made != NULL && j->made[n] != NULL)
		n++;
	while (n-- > 0)
		if (rmdir(j->made[n]) == -1 && errno != ENOENT)
			log_warn("worktree %s: remove %s", j->conv,
			    j->made[n]);
}

/* The data dir: the conversation's root less its id. */
static char *
job_datadir(const struct wt_job *j)
{
	const char	*s = strrchr(j->root, '/');

	return s != NULL && s != j->root ? xstrndup(j->root,
	    (size_t)(s - j->root)) : NULL;
}

/*
 * repos[cur]: a spare of it brought up to date (`update`, SINCE its
 * copy's start), else a whole copy.
 */
static int
copy_next(struct wt_job *j)
{
	char		*argv[6], dst[PATH_MAX], since[32], *dir;
	long long	 ns;

	snprintf(dst, sizeof(dst), "%s/repos/%s", j->root, j->names[j->cur]);
	dir = job_datadir(j);
	j->cur_spare = dir != NULL && !j->no_spare &&
	    sv_wtspare_take(dir, j->srcs[j->cur], dst, &ns);
	j->no_spare = 0;
	free(dir);
	argv[0] = "airlock-clone";
	if (j->cur_spare) {
		snprintf(since, sizeof(since), "%lld", ns);
		j->fromspare = strv_add(j->fromspare, j->names[j->cur]);
		argv[1] = "update";
		argv[2] = j->srcs[j->cur];
		argv[3] = dst;
		argv[4] = since;
		argv[5] = NULL;
	} else {
		argv[1] = "copy";
		argv[2] = j->srcs[j->cur];
		argv[3] = dst;
		argv[4] = NULL;
	}
	if (helper_spawn(j, argv) == 0)
		return 0;
	if (j->cur_spare) {
		/* Ours since the rename: emptied with the rest. */
		j->made = strv_add(j->made, dst);
	}
	return -1;
}

static void
job_next(struct wt_job *j)
{
	char	*argv[5], *dir;
	size_t	 n;

	if (j->phase == WT_COPY && j->cur < j->ncopy) {
		if (copy_next(j) == 0)
			return;
		job_fail(j, j->error);
	}
	if (j->phase == WT_COPY) {
		if (meta_write(j->root, j->conv, j->names, j->srcs) == -1) {
			log_warn("worktree %s: write %s", j->conv, WT_META);
			job_fail(j, "cannot record the conversation's "
			    "sources");
		} else {
			progress_notify(j, 1);
			job_reply_ok(j);
			log_info("worktree %s: %llu files, %llu bytes cloned",
			    j->conv, (unsigned long long)j->files,
			    (unsigned long long)j->bytes);
			/* The next provisioning of each takes a spare. */
			dir = job_datadir(j);
			for (n = 0; n < j->ncopy; n++)
				sv_wtspare_queue(dir, j->srcs[n]);
			free(dir);
			job_free(j);
			return;
		}
	}
	/* Cleanup or removal: the next tree for a helper to empty. */
	for (n = 0; j->rm != NULL && j->rm[n] != NULL; n++)
		;
	if (n > 0) {
		free(j->rm_cur);
		j->rm_cur = j->rm[n - 1];
		j->rm[n - 1] = NULL;
		argv[0] = "airlock-clone";
		argv[1] = "remove";
		argv[2] = j->rm_cur;
		argv[3] = NULL;
		if (helper_spawn(j, argv) == 0)
			return;
		/* no helper: nothing more can be emptied */
		strv_free(j->rm);
		j->rm = NULL;
	}
	unmake(j);
	if (j->phase == WT_CLEANUP) {
		sv_client_error(j->c, j->id, RPC_SANDBOX_ERROR, j->error);
		log_warnx("worktree %s: provisioning failed, nothing kept: %s",
		    j->conv, j->error);
	} else if (j->error != NULL)
		sv_client_error(j->c, j->id, RPC_SANDBOX_ERROR, j->error);
	else
		job_reply_ok(j);
	job_free(j);
}

static struct json *
dup_json(const struct json *v)
{
	struct jgen	*g = jgen_new();
	struct json	*copy;
	const char	*buf;
	size_t		 len;
	char		 err[64];

	jgen_value(g, v);
	buf = jgen_buf(g, &len);
	copy = json_parse(buf, len, err, sizeof(err));
	jgen_free(g);
	return copy;
}

static struct wt_job *
job_new(struct sv_client *c, const struct json *id, const char *conv,
    const char *root, enum wt_phase phase)
{
	struct wt_job *j = xcalloc(1, sizeof(*j));

	j->c = c;
	sv_client_ref(c);
	j->id = dup_json(id);
	j->conv = xstrdup(conv);
	j->root = xstrdup(root);
	j->phase = phase;
	sv_clone_init(&j->cl, j);
	j->cl.progress = helper_progress;
	j->cl.done = helper_done;
	j->cl.ended = helper_ended;
	j->lock = -1;
	j->next = jobs;
	jobs = j;
	return j;
}

/* The conversation's directory for a valid id; errors go to the client. */
static char *
conv_root(struct sv_client *c, const struct json *id,
    const struct json *params, const char **convp, int create)
{
	const char	*conv = json_get_str(params, "conversationId");
	char		*dir, *root, msg[PATH_MAX + 128];

	if (conv == NULL || !valid_id(conv)) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "conversationId: "
		    "required, 1-128 of [A-Za-z0-9._-]");
		return NULL;
	}
	if ((dir = data_dir(&sv_settings, NULL)) == NULL) {
		sv_client_error(c, id, RPC_INTERNAL_ERROR, "no data dir: set "
		    "worktrees.dataDir, XDG_DATA_HOME or HOME");
		return NULL;
	}
	if (create && mkdirs(dir) == -1) {
		snprintf(msg, sizeof(msg), "worktrees data dir %s: %s", dir,
		    strerror(errno));
		sv_client_error(c, id, RPC_SANDBOX_ERROR, msg);
		free(dir);
		return NULL;
	}
	xasprintf(&root, "%s/%s", dir, conv);
	free(dir);
	*convp = conv;
	return root;
}

static int
get_list(struct sv_client *c, const struct json *id,
    const struct json *params, const char *key, char ***out)
{
	const struct json *v = json_get(params, key);
	char	 msg[128];
	size_t	 i;

	if (v == NULL)
		return 0;
	if (v->type != JSON_ARRAY) {
		snprintf(msg, sizeof(msg), "%s: expected an array of strings",
		    key);
		sv_client_error(c, id, RPC_INVALID_PARAMS, msg);
		return -1;
	}
	for (i = 0; i < v->n; i++) {
		if (v->items[i]->type != JSON_STRING ||
		    strlen(v->items[i]->str) != v->items[i]->len ||
		    v->items[i]->len == 0 || v->items[i]->len >= PATH_MAX) {
			snprintf(msg, sizeof(msg), "%s[%zu]: expected a "
			    "string", key, i);
			sv_client_error(c, id, RPC_INVALID_PARAMS, msg);
			return -1;
		}
		*out = strv_add(*out, v->items[i]->str);
	}
	return 0;
}

/*
 * Add repos[I] (REPO, untrusted: from the client) to J's copies unless
 * the conversation has it already; -1 with a sentence in MSG when it
 * cannot be a conversation's copy.
 */
static int
provision_repo(struct wt_job *j, const struct json *meta, size_t i,
    const char *repo, char *msg, size_t len)
{
	const char	*name, *had;
	char		 real[PATH_MAX], p[PATH_MAX], gitp[PATH_MAX];
	size_t		 k;

	if (repo[0] != '/' || realpath(repo, real) == NULL ||
	    !is_dir(real) || strcmp(real, "/") == 0) {
		snprintf(msg, len, "repos[%zu]: %s: not an existing "
		    "directory given by its absolute path", i, repo);
		return -1;
	}
	/* A checkout whose .git is a file (git worktree add, a
	 * submodule) points outside itself: its copy would share the
	 * original's repository. */
	if (snprintf(gitp, sizeof(gitp), "%s/.git", real) >=
	    (int)sizeof(gitp) || (!is_dir(gitp) && access(gitp, F_OK) == 0)) {
		snprintf(msg, len, "repos[%zu]: %s: its .git is a file (a "
		    "linked worktree or submodule); register the main "
		    "checkout", i, real);
		return -1;
	}
	if (path_under(j->root, real)) {
		snprintf(msg, len, "repos[%zu]: %s contains the worktrees "
		    "data dir: the copy would copy itself; set "
		    "worktrees.dataDir elsewhere", i, real);
		return -1;
	}
	name = strrchr(real, '/') + 1;
	snprintf(p, sizeof(p), "%s/repos/%s", j->root, name);
	if ((had = meta_source(meta, name)) != NULL || is_dir(p)) {
		if (had != NULL && strcmp(had, real) == 0)
			return 0;	/* there: nothing changes */
		snprintf(msg, len, "repos[%zu]: repos/%s of conversation %s "
		    "is a copy of %s already", i, name, j->conv,
		    had != NULL ? had : "another tree");
		return -1;
	}
	for (k = 0; k < j->ncopy; k++) {
		if (strcmp(j->names[k], name) != 0)
			continue;
		if (strcmp(j->srcs[k], real) == 0)
			return 0;
		snprintf(msg, len, "repos[%zu]: two repositories named %s "
		    "(%s and %s)", i, name, j->srcs[k], real);
		return -1;
	}
	j->names = strv_add(j->names, name);
	j->srcs = strv_add(j->srcs, real);
	j->ncopy++;
	return 0;
}

/* A directory of the skeleton: made now (and unmade on failure). */
static int
skeleton_dir(struct wt_job *j, const char *p, char *msg, size_t len)
{
	if (mkdir(p, 0700) == 0) {
		j->made = strv_add(j->made, p);
		return 0;
	}
	if (errno == EEXIST && is_dir(p))
		return 0;
	snprintf(msg, len, "create %s: %s", p,
	    strerror(errno == EEXIST ? ENOTDIR : errno));
	return -1;
}

/* The conversation's root, repos/, agents/ and agents/NAME. */
static int
provision_skeleton(struct wt_job *j, char *msg, size_t len)
{
	char	p[PATH_MAX];
	size_t	i;

	if (skeleton_dir(j, j->root, msg, len) == -1)
		return -1;
	for (i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s", j->root, i == 0 ? "repos" :
		    "agents");
		if (skeleton_dir(j, p, msg, len) == -1)
			goto fail;
	}
	for (i = 0; j->agents != NULL && j->agents[i] != NULL; i++) {
		snprintf(p, sizeof(p), "%s/agents/%s", j->root, j->agents[i]);
		if (skeleton_dir(j, p, msg, len) == -1)
			goto fail;
	}
	return 0;
fail:
	unmake(j);
	return -1;
}

void
sv_worktree_provision(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct wt_job	*j = NULL;
	struct json	*meta = NULL;
	const char	*conv;
	char		*root, **repos = NULL, **agents = NULL;
	char		 msg[PATH_MAX * 2 + 256];
	size_t		 i;

	if ((root = conv_root(c, id, params, &conv, 1)) == NULL)
		return;
	if (get_list(c, id, params, "repos", &repos) == -1 ||
	    get_list(c, id, params, "agents", &agents) == -1)
		goto out;
	for (i = 0; agents != NULL && agents[i] != NULL; i++)
		if (!valid_id(agents[i])) {
			snprintf(msg, sizeof(msg), "agents[%zu]: 1-128 of "
			    "[A-Za-z0-9._-]", i);
			sv_client_error(c, id, RPC_INVALID_PARAMS, msg);
			goto out;
		}
	if (job_find(conv) != NULL) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "conversationId: "
		    "this conversation is being provisioned or removed now");
		goto out;
	}
	j = job_new(c, id, conv, root, WT_COPY);
	j->agents = agents;
	agents = NULL;
	meta = meta_read(root);
	for (i = 0; repos != NULL && repos[i] != NULL; i++)
		if (provision_repo(j, meta, i, repos[i], msg,
		    sizeof(msg)) == -1)
			goto bad;
	if (provision_skeleton(j, msg, sizeof(msg)) == -1)
		goto bad;
	json_free(meta);
	strv_free(repos);
	free(root);
	job_next(j);
	return;
bad:
	sv_client_error(c, id, RPC_INVALID_PARAMS, msg);
	job_free(j);
out:
	json_free(meta);
	strv_free(repos);
	strv_free(agents);
	free(root);
}

void
sv_worktree_remove(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct wt_job	*j;
	struct jgen	*g;
	struct json	*data;
	const char	*conv, *gbuf, *sep;
	char		*root, msg[PATH_MAX + 64], **using;
	size_t		 k, glen;
	int		 n, fd;

	if ((root = conv_root(c, id, params, &conv, 0)) == NULL)
		return;
	if (job_find(conv) != NULL) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "conversationId: "
		    "this conversation is being provisioned or removed now");
		free(root);
		return;
	}
	if (!is_dir(root)) {
		snprintf(msg, sizeof(msg), "no conversation %s", conv);
		sv_client_error(c, id, RPC_INVALID_PARAMS, msg);
		free(root);
		return;
	}
	/* Not from under a live sandbox: its agent would go on in
	 * directories that are gone, or half gone. */
	if ((using = sv_sessions_using(conv, root)) != NULL) {
		g = jgen_new();
		jgen_obj_open(g);
		jgen_key(g, "sessions");
		jgen_arr_open(g);
		n = snprintf(msg, sizeof(msg), "conversation %s is mounted by "
		    "the running session", conv);
		for (k = 0; using[k] != NULL; k++) {
			jgen_str(g, using[k]);
			sep = k > 0 ? ", " : using[1] != NULL ? "s " : " ";
			if (n >= 0 && (size_t)n < sizeof(msg))
				n += snprintf(msg + n, sizeof(msg) - n, "%s%s",
				    sep, using[k]);
		}
		if (n >= 0 && (size_t)n < sizeof(msg))
			snprintf(msg + n, sizeof(msg) - n, ": destroy %s "
			    "first (sandbox.destroy)", k > 1 ? "them" : "it");
		jgen_arr_close(g);
		jgen_obj_close(g);
		gbuf = jgen_buf(g, &glen);
		data = json_parse(gbuf, glen, NULL, 0);
		sv_client_error_data(c, id, RPC_INVALID_PARAMS, msg, data);
		json_free(data);
		jgen_free(g);
		strv_free(using);
		free(root);
		return;
	}
	uses_sweep();
	if ((fd = conv_lock(root, LOCK_EX)) == -1) {
		snprintf(msg, sizeof(msg), errno == EWOULDBLOCK ?
		    "conversation %s is in use by a session of another "
		    "airlockd (airlock run --conversation, say): end it "
		    "first" : "conversation %s: cannot lock it", conv);
		sv_client_error(c, id, RPC_INVALID_PARAMS, msg);
		free(root);
		return;
	}
	j = job_new(c, id, conv, root, WT_REMOVE);
	j->lock = fd;
	j->rm = strv_add(j->rm, root);
	j->made = strv_add(j->made, root);
	free(root);
	job_next(j);
}

void
sv_worktree_list(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct jgen	*g = jgen_new();
	struct dirent	*de;
	DIR		*dp;
	const char	*buf;
	char		*dir, root[PATH_MAX];
	size_t		 len;

	(void)params;
	dir = data_dir(&sv_settings, NULL);
	jgen_obj_open(g);
	jgen_kstr(g, "dataDir", dir);
	jgen_key(g, "conversations");
	jgen_arr_open(g);
	if (dir != NULL && (dp = opendir(dir)) != NULL) {
		while ((de = readdir(dp)) != NULL) {
			if (!valid_id(de->d_name))
				continue;
			snprintf(root, sizeof(root), "%s/%s", dir, de->d_name);
			if (!is_dir(root))
				continue;
			gen_conversation(g, de->d_name, root);
			jgen_kbool(g, "busy", job_find(de->d_name) != NULL);
			jgen_obj_close(g);
		}
		closedir(dp);
	}
	jgen_arr_close(g);
	sv_wtspare_gen(g, dir);
	jgen_obj_close(g);
	buf = jgen_buf(g, &len);
	sv_client_result(c, id, buf, len);
	jgen_free(g);
	free(dir);
}

static void
add_bind(struct sv_spec *s, const char *path, int ro)
{
	struct sv_bind *b;

	s->binds = xreallocarray(s->binds, s->nbinds + 1, sizeof(*s->binds));
	b = &s->binds[s->nbinds++];
	b->host_path = xstrdup(path);
	b->guest_path = xstrdup(path);
	b->read_only = ro;
}

/* Every conversation's recorded sources: the registered checkouts. */
static void
add_registered(struct sv_spec *s, const char *dir)
{
	struct dirent	*de;
	struct json	*m;
	const struct json *r;
	DIR		*dp;
	char		 root[PATH_MAX];
	size_t		 i, k;

	if ((dp = opendir(dir)) == NULL)
		return;
	/* The spares: a run binding the data dir must not plant in one
	 * what a later conversation would take as the original. */
	if (snprintf(root, sizeof(root), "%s/%s", dir, WT_SPARES_DIR) <
	    (int)sizeof(root) && is_dir(root))
		s->protected_paths = strv_add(s->protected_paths, root);
	while ((de = readdir(dp)) != NULL) {
		if (!valid_id(de->d_name))
			continue;
		snprintf(root, sizeof(root), "%s/%s", dir, de->d_name);
		if ((m = meta_read(root)) == NULL)
			continue;
		/* The record itself: a run that binds the data dir (a whole
		 * home, say) must not unregister a checkout by editing it. */
		if (strlen(root) + sizeof(WT_META) + 1 < sizeof(root)) {
			strcat(root, "/");
			strcat(root, WT_META);
			s->protected_paths = strv_add(s->protected_paths, root);
		}
		r = json_get(m, "sources");
		for (i = 0; r != NULL && r->type == JSON_OBJECT && i < r->n;
		    i++) {
			const char *src = r->items[i]->str;

			if (r->items[i]->type != JSON_STRING || src[0] != '/')
				continue;
			for (k = 0; s->protected_paths != NULL &&
			    s->protected_paths[k] != NULL; k++)
				if (strcmp(s->protected_paths[k], src) == 0)
					break;
			if (s->protected_paths == NULL ||
			    s->protected_paths[k] == NULL)
				s->protected_paths = strv_add(
				    s->protected_paths, src);
		}
		json_free(m);
	}
	closedir(dp);
}

/* A path in the spares' directory (or a symlink to one): never mounted. */
static int
in_spares(const char *path, const char *spares)
{
	char	a[PATH_MAX], b[PATH_MAX];

	if (path == NULL)
		return 0;
	if (realpath(spares, b) == NULL)
		snprintf(b, sizeof(b), "%s", spares);
	return path_under(path, spares) || path_under(path, b) ||
	    (realpath(path, a) != NULL && path_under(a, b));
}

int
sv_worktree_spec(struct sv_spec *s, const struct settings *set,
    const char *home, char *err, size_t errlen)
{
	struct wt_use	*u;
	char		*dir, *spares, root[PATH_MAX], p[PATH_MAX];
	int		 fd;

	if ((dir = data_dir(set, home)) != NULL)
		add_registered(s, dir);
	if (s->conversation_id == NULL) {
		if (s->agent_config_dir != NULL ||
		    s->attachments_dir != NULL) {
			snprintf(err, errlen, "agentConfigDir, attachmentsDir: "
			    "only with conversationId");
			free(dir);
			return -1;
		}
		free(dir);
		return 0;
	}
	if (!valid_id(s->conversation_id) || s->agent_id == NULL ||
	    !valid_id(s->agent_id)) {
		snprintf(err, errlen, "conversationId and agentId: both "
		    "required for a run in a conversation, 1-128 of "
		    "[A-Za-z0-9._-]");
		free(dir);
		return -1;
	}
	/* R-W4: the conversation decides what is mounted, nothing else. */
	if (s->nbinds > 0) {
		snprintf(err, errlen, "bindMounts: a run in a conversation "
		    "mounts only its conversation's paths");
		free(dir);
		return -1;
	}
	if (dir == NULL) {
		snprintf(err, errlen, "no worktrees data dir: set "
		    "worktrees.dataDir, XDG_DATA_HOME or HOME");
		return -1;
	}
	snprintf(root, sizeof(root), "%s/%s", dir, s->conversation_id);
	spares = sv_wtspare_dir(dir);
	free(dir);
	if (in_spares(s->agent_config_dir, spares) ||
	    in_spares(s->attachments_dir, spares)) {
		snprintf(err, errlen, "agentConfigDir, attachmentsDir: not "
		    "in %s (spare copies of repositories)", spares);
		free(spares);
		return -1;
	}
	free(spares);
	if (snprintf(p, sizeof(p), "%s/agents/%s", root, s->agent_id) >=
	    (int)sizeof(p) || !is_dir(p)) {
		snprintf(err, errlen, "agent %s has no directory in "
		    "conversation %s: provision it first (airlock worktree "
		    "provision --conversation %s --agent %s)", s->agent_id,
		    s->conversation_id, s->conversation_id, s->agent_id);
		return -1;
	}
	add_bind(s, p, 0);
	if (s->guest_workdir == NULL)
		s->guest_workdir = xstrdup(p);
	if (s->agent_config_dir != NULL) {
		if (s->agent_config_dir[0] != '/' ||
		    !is_dir(s->agent_config_dir)) {
			snprintf(err, errlen, "agentConfigDir: %s: not a "
			    "directory", s->agent_config_dir);
			return -1;
		}
		add_bind(s, s->agent_config_dir, 1);
	}
	if (snprintf(p, sizeof(p), "%s/repos", root) < (int)sizeof(p) &&
	    is_dir(p))
		add_bind(s, p, 0);
	if (s->attachments_dir != NULL) {
		if (s->attachments_dir[0] != '/' ||
		    !is_dir(s->attachments_dir)) {
			snprintf(err, errlen, "attachmentsDir: %s: not a "
			    "directory", s->attachments_dir);
			return -1;
		}
		add_bind(s, s->attachments_dir, 1);
	}
	uses_sweep();
	if ((fd = conv_lock(root, LOCK_SH)) == -1) {
		snprintf(err, errlen, "conversation %s: %s",
		    s->conversation_id, errno == EWOULDBLOCK ?
		    "it is being removed" : strerror(errno));
		return -1;
	}
	u = xcalloc(1, sizeof(*u));
	u->sid = xstrdup(s->session_id);
	u->fd = fd;
	u->next = uses;
	uses = u;
	return 0;
}
