// SPDX-License-Identifier: ISC
/*
 * fs.search and fs.find: a walk of the tree beneath a resolved
 * directory, every step relative to a directory we hold (openat with
 * O_NOFOLLOW), never following a symlink, so the walk cannot leave the
 * workspace whatever is swapped meanwhile.  .git/ is skipped, and so is
 * what .gitignore files (at and above the start, within the root)
 * ignore, with git's precedence: the last matching line of the deepest
 * file wins.  Patterns are PCRE2 (JIT when the sandbox allows it),
 * matched over a whole file at once, not line by line.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/json.h"
#include "common/xmalloc.h"
#include "fs/fs.h"
#include "fs/fs_int.h"

#define WALK_FILE_MAX	(64U << 20)	/* searched bytes of one file */
#define WALK_LINE_MAX	500		/* bytes of a result's line */
#define WALK_DEFAULT	1000		/* maxResults */
#define WALK_MAX_DEPTH	256
#define WALK_THREADS	2		/* searchers beside the walker */
#define WALK_QUEUE	256		/* files waiting (each holds its
					   directory open) */
#define WALK_MISS_MAX	100		/* unsearched files listed by name */

/* A directory the walker left while files of it wait in the queue. */
struct dref {
	int		 fd;
	int		 refs;		/* under the queue's lock */
};

struct job {
	struct dref	*d;
	char		*name;
	char		*from;		/* its path from the start */
};

struct hit {
	char		*path;
	long long	 line;
	char		*text;
	size_t		 tlen;
};

/* A file fs.search could not search, or not all of. */
struct miss {
	char		*path;
	char		*why;
};

/* One searcher's own buffers and results. */
struct sstate {
	char		*buf;
	size_t		 cap;
	pcre2_match_data *md;
	struct hit	*hits;
	size_t		 nhits;
	long long	 files;
	struct miss	*miss;		/* the first WALK_MISS_MAX */
	size_t		 nmiss;
	long long	 misses;	/* all of them */
};

struct ign_pat {
	char	*pat;
	int	 neg;
	int	 dironly;
	int	 anchored;
};

struct ign_level {
	char		*prefix;	/* its directory, from the root */
	size_t		 plen;
	struct ign_pat	*v;
	size_t		 n;
};

struct walker {
	struct fs_ctx	*c;
	struct jgen	*j;
	struct ign_level lv[WALK_MAX_DEPTH + 64];
	size_t		 nlv;
	const char	*glob;		/* a filter on the path from start */
	int		 glob_base;	/* no '/': the name alone */
	long long	 max;
	long long	 count;
	size_t		 bytes;		/* of the answer so far */
	int		 truncated;
	char		 shown[PATH_MAX];	/* the start, as answered */
	/* search: the walker queues files, the searchers take them */
	pcre2_code	*re;
	int		 jit;
	long long	 files;
	struct sstate	 ss[WALK_THREADS];
	pthread_t	 th[WALK_THREADS];
	int		 nth;
	pthread_mutex_t	 mu;
	pthread_cond_t	 nonempty, nonfull;
	struct job	 q[WALK_QUEUE];
	size_t		 qh, qn;
	int		 qdone;
	struct dref	*cur;		/* the directory being walked */
	/* find */
	char		**found;
	size_t		 nfound;
};

/* ---- .gitignore ---- */

static void
ign_load(struct walker *w, int dfd, const char *prefix)
{
	struct ign_level *l;
	char		 buf[65536], *line, *save, *p;
	ssize_t		 n;
	int		 fd;

	if (w->nlv == sizeof(w->lv) / sizeof(w->lv[0]))
		return;
	l = &w->lv[w->nlv++];
	memset(l, 0, sizeof(*l));
	l->prefix = xstrdup(prefix);
	l->plen = strlen(prefix);
	if ((fd = openat(dfd, ".gitignore", O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC)) == -1)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		struct ign_pat	ip = { 0 };
		size_t		k = strlen(line);

		if (k > 0 && line[k - 1] == '\r')
			line[--k] = '\0';
		/* Trailing spaces go unless escaped. */
		while (k > 0 && line[k - 1] == ' ' &&
		    (k < 2 || line[k - 2] != '\\'))
			line[--k] = '\0';
		if (k == 0 || line[0] == '#')
			continue;
		p = line;
		if (*p == '!') {
			ip.neg = 1;
			p++;
		} else if (*p == '\\' && (p[1] == '#' || p[1] == '!'))
			p++;
		k = strlen(p);
		if (k > 0 && p[k - 1] == '/') {
			ip.dironly = 1;
			p[--k] = '\0';
		}
		if (k == 0)
			continue;
		ip.anchored = strchr(p, '/') != NULL;
		if (*p == '/')
			p++;
		if (*p == '\0')
			continue;
		ip.pat = xstrdup(p);
		l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
		l->v[l->n++] = ip;
	}
}

static void
ign_pop(struct walker *w)
{
	struct ign_level *l = &w->lv[--w->nlv];
	size_t	i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].pat);
	free(l->v);
	free(l->prefix);
}

/* rel: relative to the root; name: its last component. */
static int
ignored(const struct walker *w, const char *rel, const char *name, int dir)
{
	size_t	i, k;
	int	r = 0;

	for (i = 0; i < w->nlv; i++) {
		const struct ign_level *l = &w->lv[i];
		const char *sub;

		if (l->n == 0)
			continue;
		if (l->plen == 0)
			sub = rel;
		else if (strncmp(rel, l->prefix, l->plen) == 0 &&
		    rel[l->plen] == '/')
			sub = rel + l->plen + 1;
		else
			continue;
		for (k = 0; k < l->n; k++) {
			const struct ign_pat *p = &l->v[k];

			if ((p->dironly && !dir) || p->neg == !r)
				continue;
			if (fs_glob_match(p->pat, p->anchored ? sub : name))
				r = !p->neg;
		}
	}
	return r;
}

/* ---- the walk ---- */

static void	file_found(struct walker *, int dfd, const char *name,
		    const char *from_start);
static void	dref_put(struct walker *, struct dref *);

static int
glob_ok(const struct walker *w, const char *from_start, const char *name)
{
	if (w->glob == NULL)
		return 1;
	return fs_glob_match(w->glob, w->glob_base ? name : from_start);
}

static void
walk(struct walker *w, int dfd, char *rel, size_t rlen, char *disp,
    size_t dlen, int depth)
{
	struct dirent	*de;
	DIR		*d;
	int		 fd, isdir;
	size_t		 nl;
	struct stat	 st;

	struct dref	*prev = w->cur;

	if (depth >= WALK_MAX_DEPTH)
		return;
	ign_load(w, dfd, rel);
	w->cur = NULL;
	if (w->nth > 0) {
		w->cur = xcalloc(1, sizeof(*w->cur));
		w->cur->refs = 1;
		if ((w->cur->fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1) {
			free(w->cur);
			w->cur = NULL;
		}
	}
	if ((fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1 ||
	    (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		ign_pop(w);
		if (w->cur != NULL)
			dref_put(w, w->cur);
		w->cur = prev;
		return;
	}
	while (!w->truncated && (de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		unsigned char type = de->d_type;

		if (name[0] == '.' && (name[1] == '\0' ||
		    (name[1] == '.' && name[2] == '\0')))
			continue;
		if (type == DT_UNKNOWN) {
			if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR :
			    S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		}
		if (type != DT_DIR && type != DT_REG)
			continue;	/* symlinks are never followed */
		isdir = type == DT_DIR;
		if (isdir && strcmp(name, ".git") == 0)
			continue;
		nl = strlen(name);
		if (rlen + nl + 2 >= PATH_MAX || dlen + nl + 2 >= PATH_MAX)
			continue;
		if (rlen > 0)
			rel[rlen] = '/';
		memcpy(rel + rlen + (rlen > 0), name, nl + 1);
		if (dlen > 0)
			disp[dlen] = '/';
		memcpy(disp + dlen + (dlen > 0), name, nl + 1);
		if (!ignored(w, rel, name, isdir)) {
			if (isdir) {
				fd = openat(dfd, name, O_RDONLY | O_DIRECTORY |
				    O_NOFOLLOW | O_CLOEXEC);
				if (fd != -1) {
					walk(w, fd, rel, rlen + (rlen > 0) +
					    nl, disp, dlen + (dlen > 0) + nl,
					    depth + 1);
					close(fd);
				}
			} else if (glob_ok(w, disp, name))
				file_found(w, dfd, name, disp);
		}
		rel[rlen] = '\0';
		disp[dlen] = '\0';
	}
	closedir(d);
	ign_pop(w);
	if (w->cur != NULL)
		dref_put(w, w->cur);
	w->cur = prev;
}

static void
shown_join(const struct walker *w, const char *from_start, char *out,
    size_t len)
{
	if (strcmp(w->shown, ".") == 0)
		snprintf(out, len, "%s", from_start);
	else if (from_start[0] == '\0')
		snprintf(out, len, "%s", w->shown);
	else if ((size_t)snprintf(out, len, "%s/%s", w->shown, from_start) >=
	    len)
		out[len - 1] = '\0';
}

/*
 * Say that a file was not searched, or not all of it, so that the answer
 * never passes a miss off as "no match" (the result is then partial).
 */
static void
search_miss(struct walker *w, struct sstate *ss, const char *from_start,
    const char *fmt, ...)
{
	char	shown[PATH_MAX], why[300];
	va_list	ap;

	ss->misses++;
	if (ss->nmiss >= WALK_MISS_MAX)
		return;
	shown_join(w, from_start, shown, sizeof(shown));
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	ss->miss = xreallocarray(ss->miss, ss->nmiss + 1, sizeof(*ss->miss));
	ss->miss[ss->nmiss].path = xstrdup(shown);
	ss->miss[ss->nmiss].why = xstrdup(why);
	ss->nmiss++;
}

static void
search_file(struct walker *w, struct sstate *ss, int fd,
    const char *from_start)
{
	size_t		 len = 0, start, ls, le, counted = 0, lineno = 1, k;
	ssize_t		 n;
	PCRE2_SIZE	*ov;
	int		 rc;
	char		 shown[PATH_MAX];
	const char	*nlp;
	struct hit	*h;
	PCRE2_UCHAR	 msg[200];
	char		 one;

	for (;;) {
		if (len == ss->cap) {
			if (ss->cap >= WALK_FILE_MAX) {
				if (read(fd, &one, 1) == 1)
					search_miss(w, ss, from_start,
					    "only its first %u MiB were "
					    "searched", WALK_FILE_MAX >> 20);
				break;
			}
			ss->cap = ss->cap ? ss->cap * 2 : 1 << 20;
			ss->buf = xreallocarray(ss->buf, 1, ss->cap);
		}
		n = read(fd, ss->buf + len, ss->cap - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			search_miss(w, ss, from_start, "read: %s",
			    strerror(errno));
		if (n <= 0)
			break;
		len += (size_t)n;
		/* A short read of a regular file is its end. */
		if (len < ss->cap)
			break;
	}
	ss->files++;
	/* Binary files are skipped, as grep -I and rg do. */
	if (memchr(ss->buf, '\0', len < 8192 ? len : 8192) != NULL)
		return;
	for (start = 0; start <= len;) {
		rc = w->jit ? pcre2_jit_match(w->re, (PCRE2_SPTR)ss->buf, len,
		    start, 0, ss->md, NULL) : pcre2_match(w->re,
		    (PCRE2_SPTR)ss->buf, len, start, 0, ss->md, NULL);
		if (rc < 0) {
			/* Not "no match": PCRE2 gave up (match or depth
			 * limit, JIT stack, ...), so say so. */
			if (rc != PCRE2_ERROR_NOMATCH) {
				pcre2_get_error_message(rc, msg, sizeof(msg));
				search_miss(w, ss, from_start, "the pattern "
				    "could not be matched past line %zu: %s",
				    lineno, (char *)msg);
			}
			break;
		}
		ov = pcre2_get_ovector_pointer(ss->md);
		k = ov[0];
		nlp = k > 0 ? memrchr(ss->buf, '\n', k) : NULL;
		ls = nlp != NULL ? (size_t)(nlp - ss->buf) + 1 : 0;
		nlp = memchr(ss->buf + k, '\n', len - k);
		le = nlp != NULL ? (size_t)(nlp - ss->buf) : len;
		if (ls == len)
			break;		/* an empty match after the last line */
		while (counted < ls && (nlp = memchr(ss->buf + counted, '\n',
		    ls - counted)) != NULL) {
			lineno++;
			counted = (size_t)(nlp - ss->buf) + 1;
		}
		counted = ls;
		shown_join(w, from_start, shown, sizeof(shown));
		if (__atomic_fetch_add(&w->count, 1, __ATOMIC_RELAXED) >=
		    w->max || __atomic_add_fetch(&w->bytes, strlen(shown) +
		    (le - ls > WALK_LINE_MAX ? WALK_LINE_MAX : le - ls) + 32,
		    __ATOMIC_RELAXED) > FS_TEXT_MAX) {
			__atomic_store_n(&w->truncated, 1, __ATOMIC_RELAXED);
			return;
		}
		ss->hits = xreallocarray(ss->hits, ss->nhits + 1,
		    sizeof(*ss->hits));
		h = &ss->hits[ss->nhits++];
		h->path = xstrdup(shown);
		h->line = (long long)lineno;
		h->tlen = le - ls > WALK_LINE_MAX ? WALK_LINE_MAX : le - ls;
		h->text = xmalloc(h->tlen + 1);
		memcpy(h->text, ss->buf + ls, h->tlen);
		h->text[h->tlen] = '\0';
		start = le + 1;
	}
}

static void
file_found(struct walker *w, int dfd, const char *name, const char *from_start)
{
	char	shown[PATH_MAX];
	int	fd;

	if (w->re == NULL) {
		shown_join(w, from_start, shown, sizeof(shown));
		if (w->count >= w->max || (w->bytes += strlen(shown) + 8) >
		    FS_TEXT_MAX) {
			w->truncated = 1;
			return;
		}
		w->count++;
		w->found = xreallocarray(w->found, w->nfound + 1,
		    sizeof(*w->found));
		w->found[w->nfound++] = xstrdup(shown);
		return;
	}
	if (w->nth > 0 && w->cur != NULL) {
		pthread_mutex_lock(&w->mu);
		while (w->qn == WALK_QUEUE)
			pthread_cond_wait(&w->nonfull, &w->mu);
		w->cur->refs++;
		w->q[(w->qh + w->qn) % WALK_QUEUE].d = w->cur;
		w->q[(w->qh + w->qn) % WALK_QUEUE].name = xstrdup(name);
		w->q[(w->qh + w->qn) % WALK_QUEUE].from = xstrdup(from_start);
		w->qn++;
		pthread_cond_signal(&w->nonempty);
		pthread_mutex_unlock(&w->mu);
		return;
	}
	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		search_miss(w, &w->ss[0], from_start, "open: %s",
		    strerror(errno));
		return;
	}
	search_file(w, &w->ss[0], fd, from_start);
	close(fd);
}

static void
dref_put(struct walker *w, struct dref *d)
{
	int	last;

	pthread_mutex_lock(&w->mu);
	last = --d->refs == 0;
	pthread_mutex_unlock(&w->mu);
	if (last) {
		close(d->fd);
		free(d);
	}
}

struct searcher {
	struct walker	*w;
	struct sstate	*ss;
};

static void *
searcher(void *arg)
{
	struct walker	*w = ((struct searcher *)arg)->w;
	struct sstate	*ss = ((struct searcher *)arg)->ss;
	struct job	 jb;
	int		 fd;

	free(arg);
	for (;;) {
		pthread_mutex_lock(&w->mu);
		while (w->qn == 0 && !w->qdone)
			pthread_cond_wait(&w->nonempty, &w->mu);
		if (w->qn == 0) {
			pthread_mutex_unlock(&w->mu);
			return NULL;
		}
		jb = w->q[w->qh];
		w->qh = (w->qh + 1) % WALK_QUEUE;
		w->qn--;
		pthread_cond_signal(&w->nonfull);
		pthread_mutex_unlock(&w->mu);
		if (__atomic_load_n(&w->truncated, __ATOMIC_RELAXED))
			;
		else if ((fd = openat(jb.d->fd, jb.name, O_RDONLY |
		    O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) != -1) {
			search_file(w, ss, fd, jb.from);
			close(fd);
		} else
			search_miss(w, ss, jb.from, "open: %s",
			    strerror(errno));
		dref_put(w, jb.d);
		free(jb.name);
		free(jb.from);
	}
}

static int
cmp_miss(const void *a, const void *b)
{
	return strcmp(((const struct miss *)a)->path,
	    ((const struct miss *)b)->path);
}

static int
cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	int		  c = strcmp(x->path, y->path);

	return c != 0 ? c : (x->line > y->line) - (x->line < y->line);
}

/*
 * The start: a directory (walked) or a file (itself), with the
 * .gitignore files of the directories from the root down to it.
 */
static int
walk_start(struct walker *w, const struct json *p)
{
	struct fs_ctx	*c = w->c;
	const char	*path = fs_str(p, "path");
	struct fs_res	 r;
	char		 canon[PATH_MAX], rel[PATH_MAX], disp[PATH_MAX];
	char		 pre[PATH_MAX], *q, *e;
	const char	*root;
	int		 fd, pfd, nfd;
	size_t		 n, levels;
	struct stat	 st;

	if (json_get(p, "path") != NULL && path == NULL)
		return fs_refuse(c, "invalid-request", "", "path: a string");
	if (fs_resolve(c, path != NULL ? path : ".", 0, &r) == -1)
		return -1;
	if (fs_res_path(&r, canon, sizeof(canon)) == -1) {
		fs_res_close(&r);
		return fs_refuse(c, "io-error", path, "cannot name it");
	}
	if (!r.exists && strcmp(r.name, ".") != 0) {
		fs_res_close(&r);
		return fs_refuse(c, "not-found", path, "%s: no such file or "
		    "directory", path);
	}
	fd = openat(r.dfd, r.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	fs_res_close(&r);
	if (fd == -1 || fstat(fd, &st) == -1) {
		if (fd != -1)
			close(fd);
		return fs_errno_refuse(c, errno, path ? path : ".");
	}
	fs_shown(c, canon, w->shown, sizeof(w->shown));
	root = c->canon[r.root];
	n = strlen(root);
	rel[0] = '\0';
	if (strncmp(canon, root, n) == 0 && canon[n] == '/')
		snprintf(rel, sizeof(rel), "%s", canon + n + 1);
	if (S_ISREG(st.st_mode)) {
		const char *base = strrchr(canon, '/') + 1;

		/* A file named on purpose is searched, ignored or not. */
		snprintf(w->shown, sizeof(w->shown), "%s", ".");
		fs_shown(c, canon, disp, sizeof(disp));
		if (w->glob == NULL || glob_ok(w, base, base)) {
			if (w->re != NULL)
				search_file(w, &w->ss[0], fd, disp);
			else {
				w->found = xreallocarray(NULL, 1,
				    sizeof(*w->found));
				w->found[w->nfound++] = xstrdup(disp);
				w->count++;
			}
		}
		close(fd);
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(fd);
		return fs_refuse(c, "not-a-file", path, "%s is neither a file "
		    "nor a directory", path);
	}
	/* .gitignore files above the start, within the root. */
	levels = 0;
	pfd = fcntl(c->rootfd[r.root], F_DUPFD_CLOEXEC, 0);
	pre[0] = '\0';
	for (q = rel; pfd != -1 && *q != '\0'; q = *e ? e + 1 : e) {
		ign_load(w, pfd, pre);
		levels++;
		e = q + strcspn(q, "/");
		snprintf(pre, sizeof(pre), "%.*s", (int)(e - rel), rel);
		nfd = openat(pfd, pre + (q - rel), O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		close(pfd);
		pfd = nfd;
	}
	if (pfd != -1)
		close(pfd);
	disp[0] = '\0';
	walk(w, fd, rel, strlen(rel), disp, 0, 0);
	close(fd);
	while (levels-- > 0)
		ign_pop(w);
	return 0;
}

static void
walker_init(struct walker *w, struct fs_ctx *c, struct jgen *j,
    const struct json *p)
{
	memset(w, 0, sizeof(*w));
	w->c = c;
	w->j = j;
	w->max = WALK_DEFAULT;
	if (json_get(p, "maxResults") != NULL &&
	    json_get(p, "maxResults")->is_int &&
	    json_get(p, "maxResults")->integer > 0)
		w->max = json_get(p, "maxResults")->integer;
	w->glob = fs_str(p, "glob");
	w->glob_base = w->glob != NULL && strchr(w->glob, '/') == NULL;
}

int
fs_op_search(struct fs_ctx *c, const struct json *p, struct jgen *j)
{
	struct walker	 w;
	const struct json *pat = json_get(p, "pattern");
	PCRE2_UCHAR	 msg[256];
	PCRE2_SIZE	 eoff;
	int		 ecode, rc;
	size_t		 i, k, n;
	struct hit	*all = NULL;
	struct miss	*miss = NULL;
	size_t		 nmiss = 0;
	long long	 misses = 0;
	uint32_t	 opt = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF |
	    PCRE2_MULTILINE;

	if (pat == NULL || pat->type != JSON_STRING)
		return fs_refuse(c, "invalid-request", "", "pattern: a "
		    "string");
	walker_init(&w, c, j, p);
	if (json_get_bool(p, "ignoreCase", 0))
		opt |= PCRE2_CASELESS;
	if ((w.re = pcre2_compile((PCRE2_SPTR)pat->str, pat->len, opt,
	    &ecode, &eoff, NULL)) == NULL) {
		pcre2_get_error_message(ecode, msg, sizeof(msg));
		return fs_refuse(c, "invalid-pattern", "", "pattern at %zu: "
		    "%s", (size_t)eoff, (char *)msg);
	}
	/* JIT needs executable memory; without it, the interpreter. */
	w.jit = pcre2_jit_compile(w.re, PCRE2_JIT_COMPLETE) == 0;
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.nonempty, NULL);
	pthread_cond_init(&w.nonfull, NULL);
	for (i = 0; i < WALK_THREADS; i++)
		w.ss[i].md = pcre2_match_data_create_from_pattern(w.re, NULL);
	/* Searchers beside the walker (opening and reading files is most
	 * of the time); all inline if no thread starts. */
	for (i = 0; i < WALK_THREADS; i++) {
		struct searcher *a = xmalloc(sizeof(*a));

		a->w = &w;
		a->ss = &w.ss[i];
		if (pthread_create(&w.th[i], NULL, searcher, a) != 0) {
			free(a);
			break;
		}
		w.nth++;
	}
	rc = walk_start(&w, p);
	pthread_mutex_lock(&w.mu);
	w.qdone = 1;
	pthread_cond_broadcast(&w.nonempty);
	pthread_mutex_unlock(&w.mu);
	for (i = 0; i < (size_t)w.nth; i++)
		pthread_join(w.th[i], NULL);
	/* Every match, in path and line order. */
	for (i = 0, n = 0; i < WALK_THREADS; i++) {
		all = xreallocarray(all, n + w.ss[i].nhits + 1, sizeof(*all));
		if (w.ss[i].nhits > 0)	/* hits is NULL for none */
			memcpy(all + n, w.ss[i].hits,
			    w.ss[i].nhits * sizeof(*all));
		n += w.ss[i].nhits;
		w.files += w.ss[i].files;
		miss = xreallocarray(miss, nmiss + w.ss[i].nmiss + 1,
		    sizeof(*miss));
		if (w.ss[i].nmiss > 0)
			memcpy(miss + nmiss, w.ss[i].miss, w.ss[i].nmiss *
			    sizeof(*miss));
		nmiss += w.ss[i].nmiss;
		misses += w.ss[i].misses;
		free(w.ss[i].miss);
		free(w.ss[i].hits);
		free(w.ss[i].buf);
		pcre2_match_data_free(w.ss[i].md);
	}
	qsort(all, n, sizeof(*all), cmp_hit);
	jgen_key(j, "matches");
	jgen_arr_open(j);
	for (k = 0; k < n; k++) {
		jgen_obj_open(j);
		jgen_key(j, "path");
		fs_jstr_lossy(j, all[k].path, strlen(all[k].path));
		jgen_kint(j, "line", all[k].line);
		jgen_key(j, "text");
		fs_jstr_lossy(j, all[k].text, all[k].tlen);
		jgen_obj_close(j);
		free(all[k].path);
		free(all[k].text);
	}
	jgen_arr_close(j);
	free(all);
	qsort(miss, nmiss, sizeof(*miss), cmp_miss);
	if (rc == 0) {
		jgen_kbool(j, "truncated", w.truncated);
		jgen_kint(j, "filesSearched", w.files);
		/* partial: some file was not searched, or not all of it. */
		jgen_kbool(j, "partial", misses > 0);
		jgen_key(j, "unsearched");
		jgen_arr_open(j);
		for (k = 0; k < nmiss && k < WALK_MISS_MAX; k++) {
			jgen_obj_open(j);
			jgen_key(j, "path");
			fs_jstr_lossy(j, miss[k].path, strlen(miss[k].path));
			jgen_kstr(j, "reason", miss[k].why);
			jgen_obj_close(j);
		}
		jgen_arr_close(j);
		jgen_kint(j, "unsearchedCount", misses);
	}
	for (k = 0; k < nmiss; k++) {
		free(miss[k].path);
		free(miss[k].why);
	}
	free(miss);
	pthread_mutex_destroy(&w.mu);
	pthread_cond_destroy(&w.nonempty);
	pthread_cond_destroy(&w.nonfull);
	pcre2_code_free(w.re);
	return rc;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
fs_op_find(struct fs_ctx *c, const struct json *p, struct jgen *j)
{
	struct walker	 w;
	size_t		 i;
	int		 rc;

	walker_init(&w, c, j, p);
	if (w.glob == NULL)
		return fs_refuse(c, "invalid-request", "", "glob: a string");
	rc = walk_start(&w, p);
	if (rc == 0) {
		qsort(w.found, w.nfound, sizeof(*w.found), cmp_str);
		jgen_key(j, "files");
		jgen_arr_open(j);
		for (i = 0; i < w.nfound; i++)
			fs_jstr_lossy(j, w.found[i], strlen(w.found[i]));
		jgen_arr_close(j);
		jgen_kbool(j, "truncated", w.truncated);
	}
	for (i = 0; i < w.nfound; i++)
		free(w.found[i]);
	free(w.found);
	return rc;
}
