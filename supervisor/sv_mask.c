// SPDX-License-Identifier: ISC
/*
 * Credential masking at a launch (R-K1): before the sandbox is built,
 * airlockd reads each credentials.mask value (credentials file or
 * command), makes its placeholder, and sends both to proxyd with the
 * certificates that verify upstream servers; proxyd makes the session's
 * CA and answers with its certificate.  Only then is the plan built:
 * the variable holds the placeholder, and a CA bundle (the system's
 * certificates, the upstream ones, the session CA) is written into the
 * sandbox's /run/airlock with the variables tools read it from.  The
 * real values are held here only while they are sent, in secret buffers.
 * proxyd's death ends a masked session: its CA and values went with it.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/host/settings.h"
#include "common/inspect.h"
#include "common/log.h"
#include "common/mask.h"
#include "common/msg.h"
#include "common/pxmask.h"
#include "common/xmalloc.h"
#include "supervisor/credentials.h"
#include "supervisor/sv.h"
#include "supervisor/sv_sess.h"

/* The system's bundle where distributions put it, first found. */
static const char *const system_bundles[] = {
	"/etc/ssl/certs/ca-certificates.crt",	/* Debian, Ubuntu, Arch */
	"/etc/pki/tls/certs/ca-bundle.crt",	/* Fedora, RHEL */
	"/etc/ssl/ca-bundle.pem",		/* openSUSE */
	"/etc/ssl/cert.pem",			/* Alpine */
};

#define BUNDLE_MAX	(MSG_MAX_PAYLOAD - 4096)

/* The Claude login's name in proxyd's reports (credential-exfiltration). */
#define MASK_LOGIN_NAME	"CLAUDE_LOGIN"

/* A whole PEM file, NUL-terminated; NULL with err. */
static char *
pem_read(const char *path, char *err, size_t errlen)
{
	struct stat	 st;
	char		*buf;
	ssize_t		 r;
	size_t		 off = 0;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1 ||
	    fstat(fd, &st) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    st.st_size > BUNDLE_MAX) {
		snprintf(err, errlen, "%s: not a certificate file of at most "
		    "%d bytes", path, BUNDLE_MAX);
		close(fd);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (off < (size_t)st.st_size &&
	    (r = read(fd, buf + off, (size_t)st.st_size - off)) != 0) {
		if (r == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		off += (size_t)r;
	}
	close(fd);
	buf[off] = '\0';
	if (strlen(buf) != off ||
	    strstr(buf, "-----BEGIN CERTIFICATE-----") == NULL) {
		snprintf(err, errlen, "%s: no PEM certificate in it", path);
		free(buf);
		return NULL;
	}
	return buf;
}

static char *
system_bundle(void)
{
	char	err[256], *b;
	size_t	i;

	for (i = 0; i < sizeof(system_bundles) / sizeof(system_bundles[0]);
	    i++)
		if ((b = pem_read(system_bundles[i], err, sizeof(err))) != NULL)
			return b;
	return NULL;
}

/* The certificates proxyd verifies upstream servers with. */
static char *
upstream_bundle(const struct settings *set, char *err, size_t errlen)
{
	char	*b;

	if (set->tls_upstream_ca != NULL) {
		if ((b = pem_read(set->tls_upstream_ca, err, errlen)) == NULL) {
			char tmp[512];

			snprintf(tmp, sizeof(tmp), "sandbox.network.tls."
			    "upstreamCA: %s", err);
			snprintf(err, errlen, "%s", tmp);
		}
		return b;
	}
	if ((b = system_bundle()) == NULL)
		snprintf(err, errlen, "no system certificate bundle found "
		    "(%s, ...) to verify masked hosts with: set "
		    "sandbox.network.tls.upstreamCA", system_bundles[0]);
	return b;
}

static int
send_mask(struct msg_link *l, const char *sid, const struct mask_setting *m,
    const char *placeholder, const char *real)
{
	struct msgbuf	b;
	int		rc;

	msgbuf_init(&b, MSG_PX_MASK);
	msg_put_str(&b, sid);
	msg_put_str(&b, m->name);
	msg_put_str(&b, m->host);
	msg_put_u32(&b, (uint32_t)m->where);
	msg_put_str(&b, m->field != NULL ? m->field : "");
	msg_put_str(&b, placeholder);
	msg_put_str(&b, real);
	rc = msg_send(l, &b, NULL, 0);
	/* The frame held the value: zeroed before it is freed. */
	explicit_bzero(b.data, b.len);
	msgbuf_free(&b);
	return rc;
}

/* An --env of a masked name would hand the agent the value. */
static int
mask_env_clash(const struct sv_session *s, const struct settings *set,
    char *err, size_t errlen)
{
	size_t	i, j, n;

	for (i = 0; i < set->nmasks; i++)
		for (j = 0; s->pass_env != NULL && s->pass_env[j] != NULL;
		    j++) {
			n = strlen(set->masks[i].name);
			if (strncmp(s->pass_env[j], set->masks[i].name, n) ==
			    0 && s->pass_env[j][n] == '=') {
				snprintf(err, errlen, "%s is masked "
				    "(credentials.mask): it cannot also be "
				    "passed in with --env",
				    set->masks[i].name);
				return -1;
			}
		}
	return 0;
}

/* The credentials file, if an entry takes its value from there: *csp
 * (NULL when none does); -1 with err. */
static int
mask_store(const struct settings *set, struct cred_store **csp, char *err,
    size_t errlen)
{
	char	e1[400];
	size_t	i;

	*csp = NULL;
	for (i = 0; i < set->nmasks; i++)
		if (set->masks[i].command == NULL && *csp == NULL &&
		    (set->credentials_file == NULL || (*csp = cred_load(
		    set->credentials_file, e1, sizeof(e1))) == NULL)) {
			if (set->credentials_file == NULL)
				snprintf(e1, sizeof(e1), "no credentials file "
				    "is configured");
			snprintf(err, errlen, "credentials.mask %s: %s",
			    set->masks[i].name, e1);
			return -1;
		}
	return 0;
}

/* Each masked entry to proxyd (the real value never kept here), its
 * placeholder into s->mask_env; -1 with err. */
static int
mask_send_all(struct sv_session *s, const struct settings *set,
    struct msg_link *l, struct cred_store *cs, char *err, size_t errlen)
{
	const struct mask_setting *m;
	char	*real, *ph, e2[256];
	size_t	 i;
	int	 rc;

	strv_free(s->mask_env);
	s->mask_env = xcalloc(1, sizeof(char *));
	for (i = 0; i < set->nmasks; i++) {
		m = &set->masks[i];
		if ((real = cred_mask_value(cs, m, e2, sizeof(e2))) == NULL) {
			snprintf(err, errlen, "credentials.mask %s: %s",
			    m->name, e2);
			return -1;
		}
		if ((ph = cred_mask_placeholder(real, e2, sizeof(e2))) ==
		    NULL) {
			cred_secret_free(real);
			snprintf(err, errlen, "credentials.mask %s: %s",
			    m->name, e2);
			return -1;
		}
		/* proxyd holds the pair from here; failing after this
		 * point, the session's removal tells it to forget. */
		s->mask_sent = 1;
		rc = send_mask(l, s->id, m, ph, real);
		cred_secret_free(real);
		s->mask_env = strv_add(s->mask_env, m->name);
		s->mask_env = strv_add(s->mask_env, ph);
		free(ph);
		if (rc == -1) {
			snprintf(err, errlen, "credentials.mask: cannot send "
			    "to airlock-proxyd");
			sv_daemon_failed(SV_DAEMON_PROXYD, "send failed");
			return -1;
		}
	}
	return 0;
}

/*
 * The Claude login's token (or an OAuth token passed in the CLI's
 * variables) opens more than the model on its host: with it, the CLI's
 * own endpoint makes a new API key, which a response body would hand to
 * the agent.  That endpoint is refused on the host the spec's entries
 * (claudeLogin, maskPassed) are masked toward; the settings' rules for
 * that host, if any, still apply.
 */
#define LOGIN_DENY	"deny * /api/oauth/claude_cli/create_api_key\n"

static int
send_inspect(struct sv_session *s, struct msg_link *l, const char *host,
    const char *rules, const char *extra, char *err, size_t errlen)
{
	struct msgbuf	b;
	const char	*p;
	char		*r;
	size_t		 n = 0;
	int		rc;

	for (p = rules; *p != '\0'; p++)
		n += *p == '\n' || p[1] == '\0';
	if (extra[0] != '\0' && n >= INSPECT_RULES_MAX) {
		snprintf(err, errlen, "sandbox.network.tls.inspect %s: %zu "
		    "rules, and the Claude login adds one: more than %d",
		    host, n, INSPECT_RULES_MAX);
		return -1;
	}
	xasprintf(&r, "%s%s%s", extra, rules, rules[0] != '\0' &&
	    rules[strlen(rules) - 1] != '\n' ? "\n" : "");
	s->mask_sent = 1;
	msgbuf_init(&b, MSG_PX_INSPECT);
	msg_put_str(&b, s->id);
	msg_put_str(&b, host);
	msg_put_str(&b, r);
	rc = msg_send(l, &b, NULL, 0);
	msgbuf_free(&b);
	free(r);
	if (rc == -1) {
		snprintf(err, errlen, "sandbox.network.tls.inspect: cannot "
		    "send to airlock-proxyd");
		sv_daemon_failed(SV_DAEMON_PROXYD, "send failed");
	}
	return rc;
}

/* The inspected hosts to proxyd: terminated too, each request judged;
 * then the end of the session's entries with the upstream trust (up).
 * login: the host the Claude login is masked toward, or NULL. */
static int
mask_send_rest(struct sv_session *s, const struct settings *set,
    struct msg_link *l, const char *login, const char *up, char *err,
    size_t errlen)
{
	struct msgbuf	b;
	size_t		i;
	int		rc, done = login == NULL;

	for (i = 0; i < set->ninspect; i++) {
		if (login != NULL && strcmp(set->inspect[i].host, login) == 0)
			done = 1;
		if (send_inspect(s, l, set->inspect[i].host,
		    set->inspect[i].rules, login != NULL &&
		    strcmp(set->inspect[i].host, login) == 0 ? LOGIN_DENY : "",
		    err, errlen) == -1)
			return -1;
	}
	if (!done && set->ninspect >= INSPECT_HOSTS_MAX) {
		snprintf(err, errlen, "sandbox.network.tls.inspect names %d "
		    "hosts: the Claude login's host (%s) would be one more "
		    "than proxyd holds", INSPECT_HOSTS_MAX, login);
		return -1;
	}
	if (!done && send_inspect(s, l, login, "", LOGIN_DENY, err,
	    errlen) == -1)
		return -1;
	msgbuf_init(&b, MSG_PX_MASK_END);
	msg_put_str(&b, s->id);
	msg_put_blob(&b, up, strlen(up));
	rc = msg_send(l, &b, NULL, 0);
	msgbuf_free(&b);
	if (rc == -1) {
		snprintf(err, errlen, "credentials.mask: cannot send to "
		    "airlock-proxyd");
		sv_daemon_failed(SV_DAEMON_PROXYD, "send failed");
	}
	return rc;
}

/*
 * sandbox.network.upstream.credential must be readable before a launch:
 * proxyd gets it when the session registers, too late to fail the
 * launch with a message naming the key.
 */
static int
upstream_cred_check(const struct settings *set, char *err, size_t errlen)
{
	struct cred_store *cs;
	struct mask_setting m;
	char		*v = NULL, e2[256];

	if (set->upstream_credential == NULL)
		return 0;
	memset(&m, 0, sizeof(m));
	m.name = set->upstream_credential;
	snprintf(e2, sizeof(e2), "no credentials file");
	if (set->credentials_file != NULL &&
	    (cs = cred_load(set->credentials_file, e2, sizeof(e2))) != NULL) {
		v = cred_mask_value(cs, &m, e2, sizeof(e2));
		cred_free(cs);
	}
	if (v == NULL) {
		snprintf(err, errlen, "sandbox.network.upstream.credential "
		    "%s: %s", set->upstream_credential, e2);
		return -1;
	}
	cred_secret_free(v);
	return 0;
}

/*
 * What the spec masks beside the settings' entries: the Claude login's
 * token (claudeLogin) and the variables passed with passEnv
 * (maskPassed), each read once, when the session is first planned.
 */
struct mask_extra {
	struct mask_setting	 m;
	char			*real;	/* secret buffer */
	char			*ph;
	size_t			 env;	/* maskPassed: its passEnv index + 1 */
};

#define MASK_EXTRA_MAX	8

static void
mask_extra_free(struct mask_extra *x, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		cred_secret_free(x[i].real);
		free(x[i].ph);
	}
}

/* The extra entries to proxyd, after the settings' own. */
static int
mask_extra_send(struct sv_session *s, struct msg_link *l,
    const struct mask_extra *x, size_t n, char *err, size_t errlen)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		s->mask_sent = 1;
		if (send_mask(l, s->id, &x[i].m, x[i].ph, x[i].real) == -1) {
			snprintf(err, errlen, "%s: cannot send to "
			    "airlock-proxyd", x[i].m.name);
			sv_daemon_failed(SV_DAEMON_PROXYD, "send failed");
			return -1;
		}
	}
	return 0;
}

/*
 * maskPassed: each named variable of passEnv becomes its placeholder in
 * the session's own list (what every exec gets); its value goes to
 * proxyd.  A name not passed is nothing to mask.  All or nothing: a
 * value that cannot be masked leaves every value where it was, and the
 * launch fails naming it.
 */
static int
mask_passed(struct sv_session *s, struct mask_extra *x, size_t *n,
    char *err, size_t errlen)
{
	char *const	*mp = s->spec.mask_passed;
	char		 e2[256], *v;
	size_t		 i, j, k, n0 = *n;

	for (i = 0; mp != NULL && mp[i] != NULL && mp[i + 1] != NULL &&
	    mp[i + 2] != NULL; i += 3) {
		k = strlen(mp[i]);
		for (j = 0; s->pass_env != NULL && s->pass_env[j] != NULL; j++)
			if (strncmp(s->pass_env[j], mp[i], k) == 0 &&
			    s->pass_env[j][k] == '=')
				break;
		if (s->pass_env == NULL || s->pass_env[j] == NULL)
			continue;
		if (*n == MASK_EXTRA_MAX) {
			snprintf(err, errlen, "maskPassed: more than %d "
			    "entries", MASK_EXTRA_MAX - 1);
			goto fail;
		}
		v = s->pass_env[j] + k + 1;
		memset(&x[*n], 0, sizeof(x[*n]));
		if ((x[*n].ph = cred_mask_placeholder(v, e2, sizeof(e2))) ==
		    NULL) {
			snprintf(err, errlen, "%s: %s (its value would reach "
			    "the agent as it is)", mp[i], e2);
			goto fail;
		}
		x[*n].real = cred_secret_dup(v, strlen(v));
		x[*n].m.name = mp[i];
		x[*n].m.host = mp[i + 1];
		x[*n].m.where = MASK_HEADER;
		x[*n].m.field = mp[i + 2];
		x[*n].env = j + 1;
		(*n)++;
	}
	return 0;
fail:
	mask_extra_free(x + n0, *n - n0);
	*n = n0;
	return -1;
}

/* sv_mask_begin() with something to send to proxyd. */
static int
mask_begin(struct sv_session *s, const struct settings *set,
    const struct mask_extra *x, size_t nx, char *err, size_t errlen)
{
	struct cred_store *cs = NULL;
	struct msg_link	*l;
	char		*up;
	const char	*what = set->nmasks > 0 || set->ninspect > 0 ?
			    "credentials.mask or tls.inspect" : x[0].m.name;
	int		 rc = -1;

	if (set->nmasks + nx > PXMASK_MAX) {
		snprintf(err, errlen, "credentials.mask: more than %d entries",
		    PXMASK_MAX);
		return -1;
	}
	if (mask_env_clash(s, set, err, errlen) == -1)
		return -1;
	if (!sv_daemon_present(SV_DAEMON_PROXYD)) {
		snprintf(err, errlen, "%s needs airlock-proxyd to mask it, "
		    "which is not installed", what);
		return -1;
	}
	if ((up = upstream_bundle(set, err, errlen)) == NULL)
		return -1;
	sv_daemon_want(SV_DAEMON_PROXYD);
	if ((l = sv_daemon_link(SV_DAEMON_PROXYD)) == NULL) {
		snprintf(err, errlen, "%s: airlock-proxyd is not running "
		    "(restarting after a failure?): try again", what);
		free(up);
		return -1;
	}
	if (mask_store(set, &cs, err, errlen) == 0 &&
	    mask_send_all(s, set, l, cs, err, errlen) == 0 &&
	    mask_extra_send(s, l, x, nx, err, errlen) == 0 &&
	    mask_send_rest(s, set, l, nx > 0 ? x[0].m.host : NULL, up, err,
	    errlen) == 0) {
		s->mask_upstream = up;
		up = NULL;
		s->mask_wait = 1;
		s->building = 1;
		rc = 1;
	}
	free(up);
	cred_free(cs);
	return rc;
}

/*
 * Start the masking of s's credentials: 1 when proxyd is asked and the
 * build waits for its MSG_PX_CA, 0 when there is nothing to wait for,
 * -1 with err.
 */
int
sv_mask_begin(struct sv_session *s, const struct settings *set, char *err,
    size_t errlen)
{
	struct mask_extra x[MASK_EXTRA_MAX];
	char		 e2[400], *tok = NULL, *ph = NULL, **e;
	size_t		 nx = 0, i;
	int		 rc = -1;

	if (upstream_cred_check(set, err, errlen) == -1)
		return -1;
	if (s->mask_ca != NULL || s->mask_read)
		return 0;
	/* The spec's own entries are read once they are masked: the
	 * login's copy and the placeholders in passEnv stay with the
	 * session; after a failure nothing was changed. */
	free(s->login_copy);
	s->login_copy = NULL;
	if (s->spec.login_file != NULL) {
		if (cred_claude_login(s->spec.login_file, &tok, &ph,
		    &s->login_copy, e2, sizeof(e2)) == -1) {
			snprintf(err, errlen, "%s", e2);
			return -1;
		}
		if (tok != NULL) {
			memset(&x[0], 0, sizeof(x[0]));
			x[0].m.name = MASK_LOGIN_NAME;
			x[0].m.host = s->spec.login_host;
			x[0].m.where = MASK_HEADER;
			x[0].m.field = "authorization";
			x[0].real = tok;
			x[0].ph = ph;
			x[0].env = 0;
			nx = 1;
		}
	}
	if (mask_passed(s, x, &nx, err, errlen) == 0)
		rc = set->nmasks == 0 && set->ninspect == 0 && nx == 0 ? 0 :
		    mask_begin(s, set, x, nx, err, errlen);
	if (rc != -1) {
		/* Masked: the placeholders take the values' places. */
		s->mask_read = 1;
		for (i = 0; i < nx; i++) {
			if (x[i].env == 0)
				continue;
			e = &s->pass_env[x[i].env - 1];
			explicit_bzero(*e, strlen(*e));
			free(*e);
			xasprintf(e, "%s=%s", x[i].m.name, x[i].ph);
		}
	}
	mask_extra_free(x, nx);
	return rc;
}

/* MSG_PX_CA: the session's CA arrived; its build goes on. */
void
sv_mask_ca(struct msg *m)
{
	struct sv_session *s;
	const char	*sid = msg_get_str(m), *text;
	uint32_t	 ok = msg_get_u32(m);
	char		 err[512];

	text = msg_get_str(m);
	if ((s = sv_session_find(sid)) == NULL || !s->mask_wait) {
		log_warnx("proxyd sent a CA for session %s, which waits for "
		    "none", sid);
		return;
	}
	s->mask_wait = 0;
	s->building = 0;
	if (!ok) {
		snprintf(err, sizeof(err), "credentials.mask: proxyd could "
		    "not make the session's CA: %s", text);
		launch_failed(s, err);
		return;
	}
	/* untrusted-ish: from proxyd; what goes into the sandbox's bundle
	 * must be one certificate and nothing else. */
	if (strncmp(text, "-----BEGIN CERTIFICATE-----\n", 28) != 0 ||
	    strstr(text + 28, "-----BEGIN") != NULL ||
	    strlen(text) > 16384) {
		launch_failed(s, "credentials.mask: proxyd's CA certificate "
		    "is not one PEM certificate");
		return;
	}
	s->mask_ca = xstrdup(text);
	if (session_build(s, err, sizeof(err)) == -1)
		launch_failed(s, err);
}

/*
 * The sandbox's CA bundle: the system's certificates, the upstream ones
 * when a setting names them, the session CA.  NULL when s masks nothing.
 */
char *
sv_mask_bundle(const struct sv_session *s, const struct settings *set)
{
	char	*sys, *out;

	if (s->mask_ca == NULL)
		return NULL;
	sys = system_bundle();
	xasprintf(&out, "%s\n%s\n# airlock: this session's CA (credential "
	    "masking)\n%s", sys != NULL ? sys : "",
	    set->tls_upstream_ca != NULL && s->mask_upstream != NULL ?
	    s->mask_upstream : "", s->mask_ca);
	free(sys);
	return out;
}

void
sv_mask_free(struct sv_session *s)
{
	free(s->mask_ca);
	free(s->mask_upstream);
	free(s->login_copy);
	strv_free(s->mask_env);
	s->mask_ca = s->mask_upstream = s->login_copy = NULL;
	s->mask_env = NULL;
}

char *
sv_mask_upstream_bundle(const struct settings *set, char *err, size_t errlen)
{
	return upstream_bundle(set, err, errlen);
}

/*
 * The host-header endpoint: a unix socket for tools that cannot speak
 * CONNECT, bound into the sandbox at /run/airlock/http.sock and served
 * by proxyd (its listener is handed over with the session's others).
 * The file lives in a directory of its own made by mkdtemp(3): mode
 * 0700, airlockd's user alone, so no other user of the host reaches it.
 */
#define HOSTEP_NAME	"http.sock"
#define HOSTEP_PREFIX	"airlock-http."
#define HOSTEP_YOUNG	10	/* seconds: a directory being made */

char *
sv_hostep_path(const struct sv_session *s)
{
	char	*p;

	if (s->hostep_dir == NULL)
		return NULL;
	xasprintf(&p, "%s/" HOSTEP_NAME, s->hostep_dir);
	return p;
}

int
sv_hostep_make(struct sv_session *s, char *err, size_t errlen)
{
	struct sockaddr_un sun;
	char	 dir[] = "/tmp/" HOSTEP_PREFIX "XXXXXX", *path;
	int	 fd;

	if (s->hostep_dir != NULL)
		return 0;
	if (mkdtemp(dir) == NULL) {
		snprintf(err, errlen, "the host-header endpoint's directory "
		    "%s: %s", dir, strerror(errno));
		return -1;
	}
	s->hostep_dir = xstrdup(dir);
	path = sv_hostep_path(s);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    chmod(path, 0600) == -1 || listen(fd, 128) == -1) {
		snprintf(err, errlen, "the host-header endpoint %s: %s", path,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		free(path);
		sv_hostep_free(s);
		return -1;
	}
	free(path);
	s->hostep_fd = fd;
	return 0;
}

void
sv_hostep_free(struct sv_session *s)
{
	char	*path;

	if (s->ev_hostep != NULL)
		event_free(s->ev_hostep);
	s->ev_hostep = NULL;
	if (s->hostep_fd != -1)
		close(s->hostep_fd);
	s->hostep_fd = -1;
	if (s->hostep_dir == NULL)
		return;
	path = sv_hostep_path(s);
	(void)unlink(path);
	(void)rmdir(s->hostep_dir);
	free(path);
	free(s->hostep_dir);
	s->hostep_dir = NULL;
}

/*
 * Whether the endpoint in directory fd dfd (NAME under /tmp) is left over:
 * its socket refuses a connection (no process listens on it), or it has
 * none.  A directory changed within HOSTEP_YOUNG seconds is being made
 * (mkdtemp, then bind, then listen) and is never left over.
 */
static int
hostep_stale(int dfd, const char *name)
{
	struct sockaddr_un sun;
	struct stat	 st;
	int		 fd, r;

	if (strlen(name) > sizeof(sun.sun_path) - 20 ||
	    fstat(dfd, &st) == -1 || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0700 ||
	    st.st_mtime > time(NULL) - HOSTEP_YOUNG)
		return 0;
	if (fstatat(dfd, HOSTEP_NAME, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT;
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
		return 0;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "/tmp/%s/" HOSTEP_NAME,
	    name);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1)
		return 0;
	r = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	r = r == -1 && errno == ECONNREFUSED;
	close(fd);
	return r;
}

/*
 * Remove the endpoints a killed airlockd of this user left in /tmp (a
 * directory and its socket each): one nobody listens on any more.  Run
 * once at start; a live airlockd's endpoint answers and is kept.
 */
void
sv_hostep_sweep(void)
{
	struct dirent	*e;
	DIR		*d;
	int		 dfd;

	if ((d = opendir("/tmp")) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, HOSTEP_PREFIX,
		    strlen(HOSTEP_PREFIX)) != 0)
			continue;
		if ((dfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) == -1)
			continue;
		if (hostep_stale(dfd, e->d_name)) {
			(void)unlinkat(dfd, HOSTEP_NAME, 0);
			if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) == 0)
				log_debug("removed a dead airlockd's /tmp/%s",
				    e->d_name);
		}
		close(dfd);
	}
	closedir(d);
}
