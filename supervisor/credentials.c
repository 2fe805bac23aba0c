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

struct cred_store *
cred_load(const char *path, char *err, size_t errlen)
{
	struct cred_store *cs;
	struct json	*doc;
	struct stat	 st;
	char		*buf, jerr[256];
	ssize_t		 n;
	size_t		 len = 0, k;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return NULL;
	}
	if ((st.st_mode & 077) != 0 || st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: must be owned by you with mode 0600 "
		    "(is %04o): refused", path, (unsigned)(st.st_mode & 07777));
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
		json_free(doc);
		return NULL;
	}
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
	/* The DOM held the tokens too: zero its strings before freeing. */
	for (k = 0; k < doc->n; k++) {
		struct json *o = doc->items[k];
		size_t j;

		for (j = 0; o->type == JSON_OBJECT && j < o->n; j++)
			if (o->items[j]->type == JSON_STRING)
				explicit_bzero(o->items[j]->str,
				    o->items[j]->len);
	}
	json_free(doc);
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
