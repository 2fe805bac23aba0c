// SPDX-License-Identifier: ISC
/*
 * Credential masking in proxyd (R-K1): a session's masked credentials,
 * its CA, and TLS termination toward the masked hosts.
 *
 * airlockd sends each masked credential (MSG_PX_MASK) and then the
 * certificates that verify upstream servers (MSG_PX_MASK_END), before
 * the sandbox is built; proxyd makes the session's CA (tlsca.c) and
 * answers with its certificate alone.  The CA key and the real values
 * live in this process's memory until the session is removed.
 *
 * A CONNECT to a masked host is answered by proxyd itself: TLS with a
 * leaf for that host signed by the session CA toward the sandbox, TLS
 * toward the real server verified against the upstream certificates
 * (never a downgrade: a server that does not verify gets no request).
 * In between, every request head is parsed by the strict parser
 * (common/http.c) and judged by common/mask.c: the placeholder becomes
 * the real value toward its own host, a placeholder of another host's
 * credential is refused as credential-exfiltration.  Bodies are framed
 * by the head (Content-Length or chunked) and passed on unchanged;
 * responses are passed on unchanged.  Every other CONNECT stays an
 * opaque tunnel; plain HTTP heads are judged as well (http.c).
 */
#include <sys/queue.h>
#include <sys/socket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "common/http.h"
#include "common/inspect.h"
#include "common/log.h"
#include "common/mask.h"
#include "common/maskstream.h"
#include "common/msg.h"
#include "common/pxmask.h"
#include "common/xmalloc.h"
#include "proxyd/proxyd.h"
#include "proxyd/tlsca.h"

#define MITM_HIGH	(256 * 1024)	/* pause the producer */
#define MITM_CA_DAYS	30

struct px_maskset {
	TAILQ_ENTRY(px_maskset)	 entry;
	char			*sid;
	struct mask_ent		 ents[PXMASK_MAX];
	char			*names[PXMASK_MAX];
	X509			*leaf[PXMASK_MAX]; /* per entry's host */
	EVP_PKEY		*leaf_key;	/* every leaf's */
	size_t			 nent;
	/* the inspected hosts (sandbox.network.tls.inspect) */
	char			*ihost[INSPECT_HOSTS_MAX];
	struct inspect_rule	*irules[INSPECT_HOSTS_MAX];
	size_t			 nirules[INSPECT_HOSTS_MAX];
	X509			*ileaf[INSPECT_HOSTS_MAX];
	size_t			 ninsp;
	struct px_ca		*ca;
	SSL_CTX			*up;		/* toward servers */
	SSL_CTX			*down;		/* toward the sandbox */
};

struct px_mitm {
	TAILQ_ENTRY(px_mitm)	 entry;
	struct px_session	*s;
	struct px_maskset	*ms;
	char			 host[256];
	uint16_t		 port;
	struct bufferevent	*cb;		/* the sandbox */
	struct bufferevent	*ub;		/* the server */
	struct mstream		 rq;		/* the requests */
	int			 closing;
	int			 cb_dead;	/* the sandbox ended */
	int			 verified;	/* its handshake finished */
};

static TAILQ_HEAD(, px_maskset) masksets = TAILQ_HEAD_INITIALIZER(masksets);
static TAILQ_HEAD(, px_mitm) mitms = TAILQ_HEAD_INITIALIZER(mitms);

static void	mitm_free(struct px_mitm *);

static char *
secret_dup(const char *s)
{
	return xstrdup(s);
}

static void
secret_free(char *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

static struct px_maskset *
maskset_find(const char *sid)
{
	struct px_maskset *ms;

	TAILQ_FOREACH(ms, &masksets, entry)
		if (strcmp(ms->sid, sid) == 0)
			return ms;
	return NULL;
}

static void
maskset_free(struct px_maskset *ms)
{
	size_t	i;

	for (i = 0; i < ms->nent; i++) {
		free((char *)ms->ents[i].host);
		free((char *)ms->ents[i].field);
		free((char *)ms->ents[i].placeholder);
		secret_free((char *)ms->ents[i].real);
		free(ms->names[i]);
		if (ms->leaf[i] != NULL)
			X509_free(ms->leaf[i]);
	}
	for (i = 0; i < ms->ninsp; i++) {
		free(ms->ihost[i]);
		free(ms->irules[i]);
		if (ms->ileaf[i] != NULL)
			X509_free(ms->ileaf[i]);
	}
	px_ca_free(ms->ca);
	if (ms->up != NULL)
		SSL_CTX_free(ms->up);
	if (ms->down != NULL)
		SSL_CTX_free(ms->down);
	free(ms->sid);
	explicit_bzero(ms, sizeof(*ms));
	free(ms);
}

/* The session's set, made when its first frame arrives. */
static struct px_maskset *
maskset_get(const char *sid)
{
	struct px_maskset *ms;

	/* A session built again (a lazy one whose build failed) starts
	 * over: the old set, its CA and connections go. */
	if ((ms = maskset_find(sid)) != NULL && ms->ca != NULL) {
		log_info("session %s: its TLS settings sent again", sid);
		px_mask_del(sid);
	}
	if ((ms = maskset_find(sid)) == NULL) {
		ms = xcalloc(1, sizeof(*ms));
		ms->sid = xstrdup(sid);
		TAILQ_INSERT_TAIL(&masksets, ms, entry);
	}
	return ms;
}

/* MSG_PX_INSPECT: an inspected host of a session not yet complete. */
void
px_inspect_add(struct msg *m)
{
	struct px_maskset *ms;
	struct inspect_rule r[INSPECT_RULES_MAX];
	const char	*sid, *host, *rules, *why = NULL;
	size_t		 i;
	int		 n;

	/* untrusted-ish: airlockd's frame, checked again */
	sid = msg_get_str(m);
	host = msg_get_str(m);
	rules = msg_get_str(m);
	if (*sid == '\0' || strlen(sid) >= 128)
		why = "bad session id";
	else if (*host == '\0' || strlen(host) > 253 ||
	    strspn(host, "abcdefghijklmnopqrstuvwxyz0123456789-.") !=
	    strlen(host))
		why = "bad host";
	else if ((n = inspect_rules_parse(rules, r, INSPECT_RULES_MAX,
	    &why)) <= 0 && why == NULL)
		why = "no rules";
	if (why != NULL)
		fatalx("MSG_PX_INSPECT from airlockd: %s", why);
	ms = maskset_get(sid);
	for (i = 0; i < ms->ninsp; i++)
		if (strcmp(ms->ihost[i], host) == 0)
			fatalx("MSG_PX_INSPECT: %s twice", host);
	if (ms->ninsp == INSPECT_HOSTS_MAX)
		fatalx("session %s: more than %d inspected hosts", sid,
		    INSPECT_HOSTS_MAX);
	i = ms->ninsp++;
	ms->ihost[i] = xstrdup(host);
	ms->irules[i] = xcalloc((size_t)n, sizeof(r[0]));
	memcpy(ms->irules[i], r, (size_t)n * sizeof(r[0]));
	ms->nirules[i] = (size_t)n;
}

/* MSG_PX_MASK: one masked credential of a session not yet complete. */
void
px_mask_add(struct msg *m)
{
	struct pxmask_wire w;
	struct px_maskset *ms;
	const char	*why;
	size_t		 i;

	if (pxmask_decode(m, &w, &why) == -1)
		fatalx("MSG_PX_MASK from airlockd: %s", why);
	ms = maskset_get(w.sid);
	if (ms->nent == PXMASK_MAX)
		fatalx("session %s: more than %d masked credentials", w.sid,
		    PXMASK_MAX);
	i = ms->nent++;
	ms->names[i] = xstrdup(w.name);
	ms->ents[i].host = xstrdup(w.host);
	ms->ents[i].where = (enum mask_where)w.where;
	ms->ents[i].field = xstrdup(w.where == MASK_BASIC ? "" : w.field);
	ms->ents[i].placeholder = xstrdup(w.placeholder);
	ms->ents[i].real = secret_dup(w.real);
}

static void
ca_answer(const char *sid, int ok, const char *text)
{
	struct msgbuf b;

	msgbuf_init(&b, MSG_PX_CA);
	msg_put_str(&b, sid);
	msg_put_u32(&b, ok);
	msg_put_str(&b, text);
	px_send(&b);
	msgbuf_free(&b);
}

/* The upstream certificates: a store of every certificate in pem. */
static SSL_CTX *
up_ctx_new(const void *pem, size_t len, char *err, size_t errlen)
{
	SSL_CTX		*ctx;
	X509_STORE	*st;
	BIO		*bio;
	X509		*x;
	int		 n = 0;

	if ((ctx = SSL_CTX_new(TLS_client_method())) == NULL) {
		snprintf(err, errlen, "SSL_CTX_new failed");
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	/* HTTP/1.1 only: the heads are what is judged. */
	SSL_CTX_set_alpn_protos(ctx, (const unsigned char *)"\x08http/1.1",
	    9);
	st = SSL_CTX_get_cert_store(ctx);
	if ((bio = BIO_new_mem_buf(pem, (int)len)) == NULL)
		fatalx("BIO_new_mem_buf");
	while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
		if (X509_STORE_add_cert(st, x) == 1)
			n++;
		X509_free(x);
	}
	BIO_free(bio);
	ERR_clear_error();
	if (n == 0) {
		snprintf(err, errlen, "the upstream trust store holds no "
		    "certificate");
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

/* MSG_PX_MASK_END: the session's CA, its contexts, the answer. */
void
px_mask_end(struct msg *m)
{
	struct px_maskset *ms;
	const char	*sid, *why;
	const void	*pem;
	size_t		 len;
	char		 err[256], *cert;

	if (pxmask_end_decode(m, &sid, &pem, &len, &why) == -1)
		fatalx("MSG_PX_MASK_END from airlockd: %s", why);
	if ((ms = maskset_find(sid)) == NULL || ms->ca != NULL)
		fatalx("MSG_PX_MASK_END for session %s: no credentials sent",
		    sid);
	if ((ms->ca = px_ca_new(MITM_CA_DAYS, err, sizeof(err))) == NULL ||
	    (ms->up = up_ctx_new(pem, len, err, sizeof(err))) == NULL) {
		log_warnx("session %s: %s", sid, err);
		ca_answer(sid, 0, err);
		/* Nothing of it is kept: a build again sends it all. */
		px_mask_del(sid);
		return;
	}
	if ((ms->down = SSL_CTX_new(TLS_server_method())) == NULL)
		fatalx("SSL_CTX_new");
	SSL_CTX_set_min_proto_version(ms->down, TLS1_2_VERSION);
	if ((cert = px_ca_cert_pem(ms->ca)) == NULL)
		fatalx("the session CA's certificate");
	log_info("session %s: %zu masked credential%s, %zu inspected "
	    "host%s, its CA made", sid, ms->nent, ms->nent == 1 ? "" : "s",
	    ms->ninsp, ms->ninsp == 1 ? "" : "s");
	ca_answer(sid, 1, cert);
	free(cert);
}

/* The session is gone: its TLS connections, CA and values with it. */
void
px_mask_del(const char *sid)
{
	struct px_maskset *ms;
	struct px_mitm	*t, *tn;

	if ((ms = maskset_find(sid)) == NULL)
		return;
	for (t = TAILQ_FIRST(&mitms); t != NULL; t = tn) {
		tn = TAILQ_NEXT(t, entry);
		if (t->ms == ms)
			mitm_free(t);
	}
	TAILQ_REMOVE(&masksets, ms, entry);
	maskset_free(ms);
}

void
px_mitm_close_all(struct px_session *s)
{
	struct px_mitm	*t, *tn;

	for (t = TAILQ_FIRST(&mitms); t != NULL; t = tn) {
		tn = TAILQ_NEXT(t, entry);
		if (t->s == s)
			mitm_free(t);
	}
}

static struct px_maskset *
session_masks(const struct px_session *s)
{
	struct px_maskset *ms = maskset_find(s->id);

	return ms != NULL && ms->ca != NULL ? ms : NULL;
}

/* Is host one of s's masked hosts (its CONNECTs are terminated)? */
int
px_mask_host(const struct px_session *s, const char *host)
{
	struct px_maskset *ms = session_masks(s);
	size_t	i;

	for (i = 0; ms != NULL && i < ms->nent; i++)
		if (strcmp(ms->ents[i].host, host) == 0)
			return 1;
	return px_inspect_host(s, host);
}

/*
 * The inspected host's index: host (untrusted: the sandbox spelled it)
 * with or without one final dot, so "registry." is judged as
 * "registry" (its Host header then differs from the connection's
 * spelling and is refused: closed, never an unjudged tunnel).
 */
static int
inspect_index(const struct px_maskset *ms, const char *host)
{
	size_t	i, n = strlen(host);

	if (n > 0 && host[n - 1] == '.')
		n--;
	for (i = 0; i < ms->ninsp; i++)
		if (strncmp(ms->ihost[i], host, n) == 0 &&
		    ms->ihost[i][n] == '\0')
			return (int)i;
	return -1;
}

/* Is host one of s's inspected hosts? */
int
px_inspect_host(const struct px_session *s, const char *host)
{
	struct px_maskset *ms = session_masks(s);

	return ms != NULL && inspect_index(ms, host) != -1;
}

/* A refusal by a method and path rule: logged and reported. */
static void
rule_report(struct px_session *s, const char *host, uint16_t port,
    const char *why, char *reason, size_t reasonlen)
{
	char	target[600];

	snprintf(target, sizeof(target), "%s:%u: %s", host, port, why);
	log_warnx("session %s: refused %s", s->id, target);
	px_violation_as(s->id, "network-request", target);
	snprintf(reason, reasonlen, "network-request: %s "
	    "(sandbox.network.tls.inspect of %s)", why, host);
}

/*
 * A plain (http://) request toward an inspected host, judged as one
 * inside TLS would be: 0 to go on, -1 refused with reason (reported).
 */
int
px_inspect_judge_plain(struct px_session *s, const struct http_request *r,
    char *reason, size_t reasonlen)
{
	struct px_maskset *ms = session_masks(s);
	char	 why[400];
	int	 k;

	if (ms == NULL || r->form != HTTP_FORM_ABSOLUTE ||
	    (k = inspect_index(ms, r->host)) == -1)
		return 0;
	/* untrusted: the request is from the sandbox */
	if (inspect_judge(ms->irules[k], ms->nirules[k], r->method, r->path,
	    why, sizeof(why)) == 0)
		return 0;
	rule_report(s, r->host, r->port, why, reason, reasonlen);
	return -1;
}

static void
exfil_report(struct px_session *s, const char *name, const char *host,
    uint16_t port, char *reason, size_t reasonlen)
{
	char	target[400];

	snprintf(target, sizeof(target), "%s:%u (the placeholder of %s)",
	    host, port, name);
	log_warnx("session %s: refused %s: credential-exfiltration", s->id,
	    target);
	px_violation_as(s->id, "credential-exfiltration", target);
	snprintf(reason, reasonlen, "credential-exfiltration: the "
	    "placeholder of %s goes only to its own host", name);
}

/*
 * A head the HTTP proxy itself reads (a CONNECT, or a plain HTTP request
 * toward host): 0 to go on, -1 refused with reason (and reported).  A
 * plain request toward the credential's own host never gets the real
 * value: it would cross the network in clear.
 */
int
px_mask_judge_plain(struct px_session *s, const void *head, size_t len,
    const char *host, uint16_t port, int connect, char *reason,
    size_t reasonlen)
{
	struct px_maskset *ms = session_masks(s);
	enum mask_verdict v;
	char	*out, why[128];
	size_t	 outlen, which = 0;

	if (ms == NULL)
		return 0;
	/* untrusted: the head is from the sandbox */
	v = mask_head(head, len, host, ms->ents, ms->nent, &out, &outlen,
	    &which, why, sizeof(why));
	if (out != NULL)
		mask_head_free(out, outlen);
	switch (v) {
	case MASK_EXFIL:
		exfil_report(s, ms->names[which], host, port, reason,
		    reasonlen);
		return -1;
	case MASK_REWRITTEN:
		if (connect)
			return 0;	/* never forwarded */
		snprintf(reason, reasonlen, "a masked credential goes to "
		    "%s over TLS only (https://)", host);
		log_info("session %s: refused %s:%u: %s", s->id, host, port,
		    reason);
		return -1;
	default:
		return 0;
	}
}

/* ---- the terminated connections ---- */

static void
mitm_free(struct px_mitm *t)
{
	TAILQ_REMOVE(&mitms, t, entry);
	t->s->nopen--;
	px_nopen_all--;
	/* BEV_OPT_CLOSE_ON_FREE: the sockets and SSL objects go too. */
	if (t->cb != NULL)
		bufferevent_free(t->cb);
	if (t->ub != NULL)
		bufferevent_free(t->ub);
	free(t);
}

/*
 * Take no more requests; close once what is queued for both sides is
 * out.  The sandbox's side keeps reading (and dropping what it reads):
 * its TLS handshake may still need to finish for an answer to reach it.
 */
static void
mitm_close(struct px_mitm *t)
{
	t->closing = 1;
	if (!t->cb_dead)
		bufferevent_enable(t->cb, EV_READ);
	bufferevent_disable(t->ub, EV_READ);
	if ((t->cb_dead ||
	    evbuffer_get_length(bufferevent_get_output(t->cb)) == 0) &&
	    evbuffer_get_length(bufferevent_get_output(t->ub)) == 0)
		mitm_free(t);
}

/* An answer of proxyd's own inside the terminated connection. */
static void
mitm_answer(struct px_mitm *t, int status, const char *reason)
{
	struct evbuffer *o = bufferevent_get_output(t->cb);

	evbuffer_add_printf(o, "HTTP/1.1 %d %s\r\nX-Airlock-Refused: %s\r\n"
	    "Content-Type: text/plain\r\nContent-Length: %zu\r\n"
	    "Connection: close\r\n\r\n%s\n", status, http_status_text(status),
	    reason, strlen(reason) + 1, reason);
	/* Nothing more goes upstream. */
	evbuffer_drain(bufferevent_get_output(t->ub),
	    evbuffer_get_length(bufferevent_get_output(t->ub)));
	mitm_close(t);
}

/*
 * The sandbox's bytes: each head judged and rewritten as a whole (by
 * common/maskstream.c), bodies passed on as their head framed them.
 */
static void
mitm_client_read(struct bufferevent *bev, void *arg)
{
	struct px_mitm	*t = arg;
	struct evbuffer	*in = bufferevent_get_input(bev);
	struct evbuffer	*out = bufferevent_get_output(t->ub);
	struct evbuffer_iovec v;
	struct mstream_out o;
	enum mstream_res res;
	char		 reason[300];
	size_t		 len;

	if (t->closing) {
		evbuffer_drain(in, evbuffer_get_length(in));
		return;
	}
	while ((len = evbuffer_get_length(in)) > 0) {
		/* A head is judged from contiguous bytes; a body as it is. */
		if (len > HTTP_HEAD_MAX)
			len = HTTP_HEAD_MAX;
		if (evbuffer_peek(in, -1, NULL, &v, 1) < 1)
			break;
		if (v.iov_len < len)
			v.iov_base = evbuffer_pullup(in, (ssize_t)len);
		else
			len = v.iov_len;
		/* untrusted: the bytes are from the sandbox */
		res = mstream_step(&t->rq, v.iov_base, len, &o);
		if (res == MSTREAM_MORE)
			break;
		if (res == MSTREAM_REFUSE) {
			if (o.exfil)
				exfil_report(t->s, t->ms->names[o.which],
				    t->host, t->port, reason, sizeof(reason));
			else if (o.rule)
				rule_report(t->s, t->host, t->port, o.why,
				    reason, sizeof(reason));
			else {
				snprintf(reason, sizeof(reason), "%s", o.why);
				log_info("session %s: %s:%u: refused: %s",
				    t->s->id, t->host, t->port, reason);
			}
			mitm_answer(t, o.status, reason);
			return;
		}
		if (res == MSTREAM_HEAD) {
			evbuffer_add(out, o.out, o.outlen);
			mstream_out_free(&o);
			evbuffer_drain(in, o.used);
		} else
			evbuffer_remove_buffer(in, out, o.used);
	}
	/* back-pressure: the server's side writes, then reading resumes */
	if (evbuffer_get_length(out) > MITM_HIGH)
		bufferevent_disable(t->cb, EV_READ);
}

static void
mitm_upstream_read(struct bufferevent *bev, void *arg)
{
	struct px_mitm	*t = arg;
	struct evbuffer	*out = bufferevent_get_output(t->cb);

	if (t->closing)
		return;
	evbuffer_add_buffer(out, bufferevent_get_input(bev));
	if (evbuffer_get_length(out) > MITM_HIGH)
		bufferevent_disable(t->ub, EV_READ);
}

/* One side's output drained: close, or let the other side read again. */
static void
mitm_write(struct bufferevent *bev, void *arg)
{
	struct px_mitm	*t = arg;

	if (t->closing) {
		if ((t->cb_dead ||
		    evbuffer_get_length(bufferevent_get_output(t->cb)) == 0) &&
		    evbuffer_get_length(bufferevent_get_output(t->ub)) == 0)
			mitm_free(t);
		return;
	}
	if (bev == t->ub && !(bufferevent_get_enabled(t->cb) & EV_READ)) {
		bufferevent_enable(t->cb, EV_READ);
		mitm_client_read(t->cb, t);
	} else if (bev == t->cb &&
	    !(bufferevent_get_enabled(t->ub) & EV_READ)) {
		bufferevent_enable(t->ub, EV_READ);
		mitm_upstream_read(t->ub, t);
	}
}

/* Why a TLS side failed, for the log: OpenSSL's words, never data. */
static void
ssl_why(struct bufferevent *bev, char *buf, size_t len)
{
	SSL		*ssl = bufferevent_openssl_get_ssl(bev);
	unsigned long	 e = bufferevent_get_openssl_error(bev);
	long		 vr = ssl != NULL ? SSL_get_verify_result(ssl) :
			    X509_V_OK;

	if (vr != X509_V_OK)
		snprintf(buf, len, "certificate not verified: %s",
		    X509_verify_cert_error_string(vr));
	else if (e != 0)
		ERR_error_string_n(e, buf, len);
	else
		snprintf(buf, len, "connection closed");
	while (bufferevent_get_openssl_error(bev) != 0)
		;
	ERR_clear_error();
}

static void
mitm_upstream_event(struct bufferevent *bev, short what, void *arg)
{
	struct px_mitm	*t = arg;
	char		 why[300], reason[700];

	if (what & BEV_EVENT_CONNECTED) {
		log_debug("session %s: %s:%u: upstream TLS verified",
		    t->s->id, t->host, t->port);
		t->verified = 1;
		/*
		 * The host-header endpoint reads its sandbox only now:
		 * libevent does not schedule a write of what was queued
		 * on a TLS bufferevent still in its handshake.
		 */
		if (!t->closing && !t->cb_dead &&
		    !(bufferevent_get_enabled(t->cb) & EV_READ)) {
			bufferevent_enable(t->cb, EV_READ);
			mitm_client_read(t->cb, t);
		}
		return;
	}
	if (t->closing) {
		mitm_free(t);
		return;
	}
	/*
	 * Only a handshake that never finished is a server not verified:
	 * once it has, an error is the server's end (OpenSSL 3 reports a
	 * close without close_notify as one, and the SSL's state no longer
	 * says the handshake was done), never a refusal to report.
	 */
	if ((what & BEV_EVENT_ERROR) && !t->verified) {
		/* Never a downgrade: no request reaches this server. */
		ssl_why(bev, why, sizeof(why));
		log_warnx("session %s: %s:%u: upstream TLS refused: %s",
		    t->s->id, t->host, t->port, why);
		snprintf(reason, sizeof(reason), "upstream TLS to %s refused: "
		    "%s", t->host, why);
		snprintf(why, sizeof(why), "%s:%u", t->host, t->port);
		px_violation_as(t->s->id, "tls-upstream-unverified", why);
		evbuffer_drain(bufferevent_get_input(t->cb),
		    evbuffer_get_length(bufferevent_get_input(t->cb)));
		mitm_answer(t, 502, reason);
		return;
	}
	/* The server closed: what it sent goes to the sandbox first. */
	mitm_upstream_read(bev, t);
	mitm_close(t);
}

static void
mitm_client_event(struct bufferevent *bev, short what, void *arg)
{
	struct px_mitm	*t = arg;
	char		 why[256];

	if (what & BEV_EVENT_CONNECTED)
		return;
	if (what & BEV_EVENT_ERROR) {
		ssl_why(bev, why, sizeof(why));
		log_info("session %s: %s:%u: the sandbox's TLS ended: %s",
		    t->s->id, t->host, t->port, why);
	}
	/* What the sandbox sent before its end still goes on. */
	if (!t->closing)
		mitm_client_read(bev, t);
	t->cb_dead = 1;
	bufferevent_disable(bev, EV_READ | EV_WRITE);
	if (!t->closing) {
		mitm_close(t);
		return;
	}
	if (evbuffer_get_length(bufferevent_get_output(t->ub)) == 0)
		mitm_free(t);
}

static int
leaf_for(struct px_maskset *ms, const char *host, X509 **x, EVP_PKEY **key)
{
	size_t	i;
	int	k;

	if ((k = inspect_index(ms, host)) != -1) {
		if (ms->ileaf[k] == NULL && (ms->ileaf[k] = px_ca_leaf(ms->ca,
		    host, &ms->leaf_key)) == NULL)
			return -1;
		*x = ms->ileaf[k];
		*key = ms->leaf_key;
		return 0;
	}
	for (i = 0; i < ms->nent; i++) {
		if (strcmp(ms->ents[i].host, host) != 0)
			continue;
		if (ms->leaf[i] == NULL && (ms->leaf[i] = px_ca_leaf(ms->ca,
		    host, &ms->leaf_key)) == NULL)
			return -1;
		*x = ms->leaf[i];
		*key = ms->leaf_key;
		return 0;
	}
	return -1;
}

/* The name the upstream's certificate must carry: an address as an
 * address, a host name as a name, which SNI also sends. */
static void
upstream_names(SSL *us, const char *host)
{
	X509_VERIFY_PARAM *vp = SSL_get0_param(us);

	if (X509_VERIFY_PARAM_set1_ip_asc(vp, host) != 1) {
		ERR_clear_error();
		if (SSL_set1_host(us, host) != 1 ||
		    SSL_set_tlsext_host_name(us, host) != 1)
			fatalx("SSL_set1_host");
	}
}

/*
 * The dial to a masked host succeeded and the sandbox has its 200: TLS
 * on both sides from here.  Takes c (freed) and upfd.
 */
void
px_mitm_start(struct px_conn *c, int upfd)
{
	struct px_session *s = c->s;
	struct px_maskset *ms = session_masks(s);
	struct px_mitm	*t;
	SSL		*cs = NULL, *us = NULL;
	X509		*leaf;
	EVP_PKEY	*key = NULL;
	int		 k, fd = bufferevent_getfd(c->cbev);
	size_t		 early = evbuffer_get_length(
			    bufferevent_get_input(c->cbev));

	if (ms == NULL || early > 0 || leaf_for(ms, c->host, &leaf,
	    &key) == -1 || key == NULL) {
		/* A client that sent before its 200 cannot be terminated. */
		log_warnx("session %s: %s:%u: cannot terminate TLS%s", s->id,
		    c->host, c->port, early > 0 ? ": bytes before the 200" :
		    "");
		close(upfd);
		px_conn_free(c);
		return;
	}
	t = xcalloc(1, sizeof(*t));
	t->s = s;
	t->ms = ms;
	snprintf(t->host, sizeof(t->host), "%s", c->host);
	t->port = c->port;
	mstream_init(&t->rq, t->host, t->port, ms->ents, ms->nent);
	if ((k = inspect_index(ms, t->host)) != -1)
		mstream_inspect(&t->rq, ms->irules[k], ms->nirules[k]);
	px_conn_release(c);	/* the client's fd moves here */
	TAILQ_INSERT_TAIL(&mitms, t, entry);

	if ((cs = SSL_new(ms->down)) == NULL ||
	    SSL_use_certificate(cs, leaf) != 1 ||
	    SSL_use_PrivateKey(cs, key) != 1 ||
	    (us = SSL_new(ms->up)) == NULL)
		fatalx("SSL_new");
	upstream_names(us, t->host);
	t->cb = bufferevent_openssl_socket_new(px_base, fd, cs,
	    BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
	t->ub = bufferevent_openssl_socket_new(px_base, upfd, us,
	    BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
	if (t->cb == NULL || t->ub == NULL)
		fatalx("bufferevent_openssl_socket_new");
	bufferevent_openssl_set_allow_dirty_shutdown(t->cb, 1);
	bufferevent_openssl_set_allow_dirty_shutdown(t->ub, 1);
	bufferevent_setcb(t->cb, mitm_client_read, mitm_write,
	    mitm_client_event, t);
	bufferevent_setcb(t->ub, mitm_upstream_read, mitm_write,
	    mitm_upstream_event, t);
	bufferevent_enable(t->cb, EV_READ | EV_WRITE);
	bufferevent_enable(t->ub, EV_READ | EV_WRITE);
	log_info("session %s: %s:%u: TLS terminated (%s)", s->id, t->host,
	    t->port, k != -1 ? "inspected" : "masked credentials");
}

/* ---- the host-header endpoint ---- */

int
px_hostep_trust(struct px_session *s, char *err, size_t errlen)
{
	char	 why[256];

	if (s->hostep_ctx != NULL)
		return 0;
	if (s->hostep_pem == NULL) {
		snprintf(err, errlen, "no certificates to verify upstream "
		    "servers with: set sandbox.network.tls.upstreamCA");
		return -1;
	}
	if ((s->hostep_ctx = up_ctx_new(s->hostep_pem, s->hostep_pemlen,
	    why, sizeof(why))) == NULL) {
		snprintf(err, errlen, "cannot verify upstream servers: %s",
		    why);
		return -1;
	}
	/* Loaded: the PEM is not needed again. */
	free(s->hostep_pem);
	s->hostep_pem = NULL;
	return 0;
}

void
px_hostep_ctx_free(struct px_session *s)
{
	if (s->hostep_ctx != NULL)
		SSL_CTX_free(s->hostep_ctx);
	s->hostep_ctx = NULL;
}

/*
 * The dial toward the Host of an endpoint request succeeded: from here
 * the connection is a terminated one whose sandbox side is in clear
 * (it never left the sandbox's own unix socket).  The same request
 * stream (common/maskstream.c) judges every head: the Host of each
 * must name the connection's host, masked credentials are put in
 * toward their own host and refused toward any other, an inspected
 * host's rules apply.  Keep-alive holds while the Host stays the same.
 */
void
px_hostep_start(struct px_conn *c, int upfd)
{
	struct px_session *s = c->s;
	struct px_maskset *ms = session_masks(s);
	struct px_mitm	*t;
	SSL		*us;
	int		 k = -1, fd = bufferevent_getfd(c->cbev);

	t = xcalloc(1, sizeof(*t));
	t->s = s;
	t->ms = ms;
	snprintf(t->host, sizeof(t->host), "%s", c->host);
	t->port = c->port;
	mstream_init(&t->rq, t->host, t->port, ms != NULL ? ms->ents : NULL,
	    ms != NULL ? ms->nent : 0);
	if (ms != NULL && (k = inspect_index(ms, t->host)) != -1)
		mstream_inspect(&t->rq, ms->irules[k], ms->nirules[k]);
	mstream_no_upgrade(&t->rq);
	t->cb = bufferevent_socket_new(px_base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (t->cb == NULL)
		fatalx("bufferevent_socket_new");
	/*
	 * What the sandbox sent so far, its first head included.  A
	 * bufferevent's input is frozen at its end but while it reads.
	 */
	evbuffer_unfreeze(bufferevent_get_input(t->cb), 0);
	if (evbuffer_add_buffer(bufferevent_get_input(t->cb),
	    bufferevent_get_input(c->cbev)) == -1)
		fatalx("host-header endpoint: evbuffer_add_buffer");
	evbuffer_freeze(bufferevent_get_input(t->cb), 0);
	px_conn_release(c);	/* the client's fd moves here */
	TAILQ_INSERT_TAIL(&mitms, t, entry);

	if ((us = SSL_new(s->hostep_ctx)) == NULL)
		fatalx("SSL_new");
	upstream_names(us, t->host);
	t->ub = bufferevent_openssl_socket_new(px_base, upfd, us,
	    BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
	if (t->ub == NULL)
		fatalx("bufferevent_openssl_socket_new");
	bufferevent_openssl_set_allow_dirty_shutdown(t->ub, 1);
	bufferevent_setcb(t->cb, mitm_client_read, mitm_write,
	    mitm_client_event, t);
	bufferevent_setcb(t->ub, mitm_upstream_read, mitm_write,
	    mitm_upstream_event, t);
	/* the sandbox's side is read once the server is verified */
	bufferevent_disable(t->cb, EV_READ);
	bufferevent_enable(t->cb, EV_WRITE);
	bufferevent_enable(t->ub, EV_READ | EV_WRITE);
	log_info("session %s: %s:%u: host-header endpoint, TLS upstream%s",
	    s->id, t->host, t->port, k != -1 ? " (inspected)" :
	    ms != NULL ? " (masked credentials apply)" : "");
}
