// SPDX-License-Identifier: ISC
/*
 * The credentials file and credential commands (see credentials.h).  The
 * file is opened without following a symlink and must be a regular file
 * owned by us with no group or other permission bits; its text is zeroed
 * once parsed.  A credential command is run directly (no shell) with a
 * timeout; its output is read into a secret buffer.
 */
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/host/settings.h"
#include "common/json.h"
#include "common/mask.h"
#include "common/xmalloc.h"
#include "supervisor/credentials.h"

#define CRED_MAX_FILE		(256U << 10)
#define CRED_MAX_TOKEN		4096
#define CRED_CMD_TIMEOUT_MS	10000

struct cred_host {
	char	 *name;
	char	 *write_token;		/* secret */
	char	 *read_token;		/* secret */
	char	 *value;		/* secret: a masked credential */
	char	**command;
};

struct cred_store {
	struct cred_host *hosts;
	size_t		  nhosts;
};

/* ---- secret buffers ---- */

/*
 * A zeroed secret buffer of len + 1 bytes, with a length header before it
 * so free knows what to unmap.
 */
static char *
secret_alloc(size_t len)
{
	size_t	 total = sizeof(size_t) + len + 1;
	void	*p;

	p = mmap(NULL, total, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	/* Keep tokens out of core dumps; lock them out of swap if allowed. */
	(void)madvise(p, total, MADV_DONTDUMP);
	(void)mlock(p, total);
	memcpy(p, &total, sizeof(total));
	return (char *)p + sizeof(size_t);
}

char *
cred_secret_dup(const char *s, size_t len)
{
	char	*p = secret_alloc(len);

	memcpy(p, s, len);
	return p;
}

void
cred_secret_free(char *s)
{
	size_t	 total;
	char	*p;

	if (s == NULL)
		return;
	p = s - sizeof(size_t);
	memcpy(&total, p, sizeof(total));
	explicit_bzero(p, total);
	munlock(p, total);
	munmap(p, total);
}

/* ---- the file ---- */

void
cred_free(struct cred_store *cs)
{
	size_t	i;

	if (cs == NULL)
		return;
	for (i = 0; i < cs->nhosts; i++) {
		free(cs->hosts[i].name);
		cred_secret_free(cs->hosts[i].write_token);
		cred_secret_free(cs->hosts[i].read_token);
		cred_secret_free(cs->hosts[i].value);
		strv_free(cs->hosts[i].command);
	}
	free(cs->hosts);
	free(cs);
}

static int
token_ok(const struct json *v)
{
	size_t	i;

	if (v->type != JSON_STRING || v->len == 0 ||
	    v->len > CRED_MAX_TOKEN || strlen(v->str) != v->len)
		return 0;
	for (i = 0; i < v->len; i++)
		if ((unsigned char)v->str[i] <= 0x20 ||
		    (unsigned char)v->str[i] == 0x7f)
			return 0;
	return 1;
}

static int
parse_host(struct cred_host *h, const char *name, const struct json *o,
    const char *path, char *err, size_t errlen)
{
	const struct json *v;
	size_t		 i, k;

	h->name = xstrdup(name);
	if (o->type != JSON_OBJECT) {
		snprintf(err, errlen, "%s: %s: not an object", path, name);
		return -1;
	}
	for (k = 0; k < o->n; k++) {
		v = o->items[k];
		if (strcmp(o->keys[k], "value") == 0) {
			/* credentials.mask's entry: never quoted either. */
			if (!token_ok(v)) {
				snprintf(err, errlen, "%s: %s.value: not a "
				    "token string", path, name);
				return -1;
			}
			h->value = cred_secret_dup(v->str, v->len);
		} else if (strcmp(o->keys[k], "writeToken") == 0 ||
		    strcmp(o->keys[k], "readToken") == 0) {
			/* Never quote the value: it is a secret. */
			if (!token_ok(v)) {
				snprintf(err, errlen, "%s: %s.%s: not a "
				    "token string", path, name, o->keys[k]);
				return -1;
			}
			if (o->keys[k][0] == 'w')
				h->write_token = cred_secret_dup(v->str,
				    v->len);
			else
				h->read_token = cred_secret_dup(v->str,
				    v->len);
		} else if (strcmp(o->keys[k], "command") == 0) {
			if (v->type != JSON_ARRAY || v->n == 0) {
				snprintf(err, errlen, "%s: %s.command: not a "
				    "non-empty array", path, name);
				return -1;
			}
			for (i = 0; i < v->n; i++) {
				if (v->items[i]->type != JSON_STRING ||
				    strlen(v->items[i]->str) !=
				    v->items[i]->len) {
					snprintf(err, errlen, "%s: %s.command:"
					    " not an array of strings", path,
					    name);
					return -1;
				}
				h->command = strv_add(h->command,
				    v->items[i]->str);
			}
			if (h->command[0][0] != '/') {
				snprintf(err, errlen, "%s: %s.command: the "
				    "program must be an absolute path", path,
				    name);
				return -1;
			}
		} else {
			snprintf(err, errlen, "%s: %s: unknown key \"%s\"",
			    path, name, o->keys[k]);
			return -1;
		}
	}
	if (h->command != NULL && (h->write_token || h->read_token ||
	    h->value)) {
		snprintf(err, errlen, "%s: %s: both tokens and a command",
		    path, name);
		return -1;
	}
	return 0;
}

static void	secret_json_free(struct json *);

/*
 * A secret JSON file read into a secret buffer, parsed, the text zeroed:
 * opened without following a symlink, a regular file owned by us, and
 * with private != 0 no group or other permission bits.  NULL with err.
 */
static struct json *
secret_json(const char *path, int private, char *err, size_t errlen)
{
	struct json	*doc;
	struct stat	 st;
	char		*buf, jerr[256];
	ssize_t		 n;
	size_t		 len = 0;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, errno == ELOOP ?
		    "a symbolic link, not read" : strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return NULL;
	}
	if ((private && (st.st_mode & 077) != 0) || st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: must be owned by you%s (is %04o): "
		    "refused", path, private ? " with mode 0600" : "",
		    (unsigned)(st.st_mode & 07777));
		close(fd);
		return NULL;
	}
	if (st.st_size > (off_t)CRED_MAX_FILE) {
		snprintf(err, errlen, "%s: too large", path);
		close(fd);
		return NULL;
	}
	buf = secret_alloc(CRED_MAX_FILE);
	while (len < CRED_MAX_FILE &&
	    (n = read(fd, buf + len, CRED_MAX_FILE - len)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			close(fd);
			cred_secret_free(buf);
			return NULL;
		}
		len += (size_t)n;
	}
	close(fd);
	doc = json_parse(buf, len, jerr, sizeof(jerr));
	cred_secret_free(buf);
	if (doc == NULL) {
		snprintf(err, errlen, "%s: %s", path, jerr);
		return NULL;
	}
	if (doc->type != JSON_OBJECT) {
		snprintf(err, errlen, "%s: not a JSON object", path);
		secret_json_free(doc);
		return NULL;
	}
	return doc;
}

/* The DOM of a secret file: its strings zeroed before it is freed. */
static void
secret_json_zero(struct json *j, int depth)
{
	size_t	i;

	if (j->type == JSON_STRING && j->str != NULL)
		explicit_bzero(j->str, j->len);
	for (i = 0; depth < JSON_MAX_DEPTH && (j->type == JSON_OBJECT ||
	    j->type == JSON_ARRAY) && i < j->n; i++)
		secret_json_zero(j->items[i], depth + 1);
}

static void
secret_json_free(struct json *j)
{
	if (j == NULL)
		return;
	secret_json_zero(j, 0);
	json_free(j);
}

struct cred_store *
cred_load(const char *path, char *err, size_t errlen)
{
	struct cred_store *cs;
	struct json	*doc;
	size_t		 k;

	if ((doc = secret_json(path, 1, err, errlen)) == NULL)
		return NULL;
	cs = xcalloc(1, sizeof(*cs));
	cs->hosts = xcalloc(doc->n + 1, sizeof(*cs->hosts));
	for (k = 0; k < doc->n; k++) {
		cs->nhosts++;
		if (parse_host(&cs->hosts[k], doc->keys[k], doc->items[k],
		    path, err, errlen) == -1) {
			cred_free(cs);
			cs = NULL;
			break;
		}
	}
	secret_json_free(doc);
	return cs;
}

/* ---- credential commands ---- */

static char *
run_command(char *const *argv, int write, char *err, size_t errlen)
{
	char		 buf[CRED_MAX_TOKEN + 2], *tok;
	struct pollfd	 pfd;
	struct timespec	 t0, t1;
	size_t		 len = 0, nl;
	ssize_t		 n;
	pid_t		 pid;
	int		 p[2], status, ms, devnull;

	if (pipe2(p, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "credential command: pipe: %s",
		    strerror(errno));
		return NULL;
	}
	if ((pid = fork()) == -1) {
		snprintf(err, errlen, "credential command: fork: %s",
		    strerror(errno));
		close(p[0]);
		close(p[1]);
		return NULL;
	}
	if (pid == 0) {
		devnull = open("/dev/null", O_RDONLY);
		if (devnull != -1)
			dup2(devnull, 0);
		dup2(p[1], 1);
		setenv("AIRLOCK_TOKEN_KIND", write ? "write" : "read", 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = CRED_CMD_TIMEOUT_MS - (int)((t1.tv_sec - t0.tv_sec) *
		    1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
		if (ms <= 0)
			break;
		pfd.fd = p[0];
		pfd.events = POLLIN;
		if (poll(&pfd, 1, ms) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (len >= sizeof(buf) - 1)
			break;
		n = read(p[0], buf + len, sizeof(buf) - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(p[0]);
	if (ms <= 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	buf[len] = '\0';
	nl = strcspn(buf, "\r\n");
	if (ms <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    nl == 0 || nl > CRED_MAX_TOKEN) {
		explicit_bzero(buf, sizeof(buf));
		snprintf(err, errlen, "credential command %s %s", argv[0],
		    ms <= 0 ? "timed out" : "failed or printed no token");
		return NULL;
	}
	tok = cred_secret_dup(buf, nl);
	explicit_bzero(buf, sizeof(buf));
	return tok;
}

char *
cred_get(struct cred_store *cs, const char *host, int write, char *err,
    size_t errlen)
{
	const struct cred_host *h = NULL;
	const char	*t;
	size_t		 i;

	for (i = 0; i < cs->nhosts; i++)
		if (strcmp(cs->hosts[i].name, host) == 0)
			h = &cs->hosts[i];
	if (h == NULL) {
		snprintf(err, errlen, "no credentials for code host %s", host);
		return NULL;
	}
	if (h->command != NULL)
		return run_command(h->command, write, err, errlen);
	t = write ? h->write_token : h->read_token;
	if (t == NULL) {
		snprintf(err, errlen, "no %s token for code host %s",
		    write ? "write" : "read", host);
		return NULL;
	}
	return cred_secret_dup(t, strlen(t));
}

char *
cred_token(const struct settings *s, const char *host, int write, char *err,
    size_t errlen)
{
	struct cred_store *cs;
	char		*t;

	if (s->credentials_file == NULL) {
		snprintf(err, errlen, "no credentials file is configured");
		return NULL;
	}
	if ((cs = cred_load(s->credentials_file, err, errlen)) == NULL)
		return NULL;
	t = cred_get(cs, host, write, err, errlen);
	cred_free(cs);
	return t;
}

char *
cred_mask_value(struct cred_store *cs, const struct mask_setting *m,
    char *err, size_t errlen)
{
	const struct cred_host *h = NULL;
	size_t		 i;

	if (m->command != NULL)
		return run_command(m->command, 0, err, errlen);
	for (i = 0; cs != NULL && i < cs->nhosts; i++)
		if (strcmp(cs->hosts[i].name, m->name) == 0)
			h = &cs->hosts[i];
	if (h == NULL) {
		snprintf(err, errlen, "no credentials entry %s for "
		    "credentials.mask", m->name);
		return NULL;
	}
	if (h->command != NULL)
		return run_command(h->command, 0, err, errlen);
	if (h->value == NULL) {
		snprintf(err, errlen, "credentials entry %s has no \"value\" "
		    "(credentials.mask)", m->name);
		return NULL;
	}
	return cred_secret_dup(h->value, strlen(h->value));
}

char *
cred_mask_placeholder(const char *real, char *err, size_t errlen)
{
	unsigned char	 rnd[MASK_VALUE_MAX];
	size_t		 n = strlen(real), got = 0;
	ssize_t		 r;
	char		*out;

	if (n == 0 || n > MASK_VALUE_MAX) {
		snprintf(err, errlen, "credential of %zu bytes cannot be "
		    "masked", n);
		return NULL;
	}
	while (got < n) {
		if ((r = getrandom(rnd + got, n - got, 0)) == -1) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "getrandom: %s",
			    strerror(errno));
			return NULL;
		}
		got += (size_t)r;
	}
	out = xmalloc(n + 1);
	if (mask_placeholder(real, rnd, n, out, n + 1) == -1) {
		free(out);
		snprintf(err, errlen, "credential too short to mask (fewer "
		    "than 16 letters or digits after its prefix)");
		out = NULL;
	}
	explicit_bzero(rnd, sizeof(rnd));
	return out;
}

/* ---- the user's Claude Code login ---- */

/*
 * The keys of claudeAiOauth the copy inside keeps as they are; the two
 * tokens become placeholders, anything else is left out.
 */
static const char *const login_keep[] = {
	"expiresAt", "scopes", "subscriptionType", "rateLimitTier", NULL,
};

/* A token as a value of common/mask.h can take: 1..MASK_VALUE_MAX
 * bytes of visible ASCII. */
static int
login_token_ok(const struct json *t)
{
	size_t	i;

	if (t == NULL || t->type != JSON_STRING || t->len == 0 ||
	    t->len > MASK_VALUE_MAX || strlen(t->str) != t->len)
		return 0;
	for (i = 0; i < t->len; i++)
		if ((unsigned char)t->str[i] <= ' ' ||
		    (unsigned char)t->str[i] >= 0x7f)
			return 0;
	return 1;
}

/* The copy's claudeAiOauth: the kept keys, the tokens' placeholders. */
static int
login_copy(struct jgen *j, const struct json *o, const char *ph,
    char *err, size_t errlen)
{
	const struct json *rt = json_get(o, "refreshToken");
	char		*rph;
	size_t		 i, k;

	jgen_key(j, "claudeAiOauth");
	jgen_obj_open(j);
	jgen_kstr(j, "accessToken", ph);
	if (login_token_ok(rt)) {
		/* Masked nowhere: the sandbox cannot renew the login. */
		if ((rph = cred_mask_placeholder(rt->str, err, errlen)) ==
		    NULL)
			return -1;
		jgen_kstr(j, "refreshToken", rph);
		free(rph);
	}
	for (i = 0; i < o->n; i++)
		for (k = 0; login_keep[k] != NULL; k++)
			if (strcmp(o->keys[i], login_keep[k]) == 0) {
				jgen_key(j, o->keys[i]);
				jgen_value(j, o->items[i]);
			}
	jgen_obj_close(j);
	return 0;
}

int
cred_claude_login(const char *path, char **token, char **ph, char **copy,
    char *err, size_t errlen)
{
	const struct json *o, *t, *exp;
	struct json	*doc;
	struct jgen	*j;
	char		 e2[256], when[64];
	struct tm	 tm;
	time_t		 at;
	int		 rc = -1;

	*token = *ph = *copy = NULL;
	if ((doc = secret_json(path, 0, err, errlen)) == NULL)
		return -1;
	j = jgen_new();
	jgen_obj_open(j);
	o = json_get(doc, "claudeAiOauth");
	t = o != NULL && o->type == JSON_OBJECT ?
	    json_get(o, "accessToken") : NULL;
	exp = t != NULL ? json_get(o, "expiresAt") : NULL;
	if (o == NULL)
		rc = 0;			/* no login: an empty copy */
	else if (!login_token_ok(t))
		snprintf(err, errlen, "%s: claudeAiOauth.accessToken is not "
		    "a token airlock can mask", path);
	else if (exp != NULL && exp->type == JSON_NUMBER &&
	    exp->number / 1000 < (double)time(NULL)) {
		at = (time_t)(exp->number / 1000);
		if (gmtime_r(&at, &tm) == NULL ||
		    strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC",
		    &tm) == 0)
			snprintf(when, sizeof(when), "an earlier time");
		snprintf(err, errlen, "%s: the Claude login expired at %s, "
		    "and the sandbox cannot renew it: run `claude` outside "
		    "a sandbox once, then try again", path, when);
	} else if ((*ph = cred_mask_placeholder(t->str, e2,
	    sizeof(e2))) == NULL)
		snprintf(err, errlen, "%s: claudeAiOauth.accessToken: %s",
		    path, e2);
	else if (login_copy(j, o, *ph, e2, sizeof(e2)) == -1)
		snprintf(err, errlen, "%s: claudeAiOauth.refreshToken: %s",
		    path, e2);
	else {
		*token = cred_secret_dup(t->str, t->len);
		rc = 0;
	}
	jgen_obj_close(j);
	if (rc == 0)
		xasprintf(copy, "%s\n", jgen_buf(j, NULL));
	else {
		free(*ph);
		*ph = NULL;
	}
	jgen_free(j);
	secret_json_free(doc);
	return rc;
}
