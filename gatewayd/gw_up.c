/* SPDX-License-Identifier: ISC */
/*
 * The code-host side of the gateway: TLS (OpenSSL, the certificate checked
 * against the system store or a configured CA bundle, both loaded at
 * start-up because the process can open no file afterwards), HTTP/1.1 (a
 * 200 MB push over h2 broke in testing), the write token in a Basic
 * Authorization header as GitHub expects, the request body streamed with
 * chunked coding and the response streamed back with back-pressure both
 * ways, so memory stays flat whatever the push size (R-G5).
 *
 * untrusted: the response comes from the network; its head is parsed
 * strictly and rewritten, its body is relayed to git unchanged.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "gatewayd/gw.h"

/* One verification context per CA source; index 0 is the system store. */
struct gw_tls_ctx {
	char		*pem;		/* read at start, parsed at first use */
	size_t		 pemlen;
	char	*path;		/* "" for the system store */
	SSL_CTX	*ctx;
};

static struct gw_tls_ctx *tls_ctxs;
static size_t		  ntls_ctxs;

static void	up_read(struct bufferevent *, void *);
static void	up_write(struct bufferevent *, void *);
static void	up_event(struct bufferevent *, short, void *);

/* ---- URLs and TLS set-up ---- */

int
gw_url_parse(const char *url, struct gw_url *u, const char **why)
{
	const char	*p, *slash;
	size_t		 plen;

	memset(u, 0, sizeof(*u));
	if (strncmp(url, "https://", 8) == 0) {
		u->tls = 1;
		p = url + 8;
	} else if (strncmp(url, "http://", 7) == 0)
		p = url + 7;
	else {
		*why = "upstream URL is neither https:// nor http://";
		return -1;
	}
	slash = strchr(p, '/');
	if (slash == NULL)
		slash = p + strlen(p);
	if (http_authority_parse(p, (size_t)(slash - p), u->tls ? 443 : 80,
	    u->host, &u->port, &u->is_v6, why) == -1)
		return -1;
	plen = strlen(slash);
	while (plen > 0 && slash[plen - 1] == '/')
		plen--;
	if (memchr(slash, '?', plen) != NULL ||
	    memchr(slash, '#', plen) != NULL) {
		*why = "upstream URL has a query or fragment";
		return -1;
	}
	u->path = xstrndup(slash, plen);
	return 0;
}

void
gw_url_free(struct gw_url *u)
{
	free(u->path);
	u->path = NULL;
}

/*
 * CA bundles are read at start-up (the sandbox forbids opening files
 * later) but parsed at the first push that needs them: parsing the
 * system store is most of gatewayd's start-up CPU, and most runs never
 * push.
 */
static char *
slurp(const char *file, size_t *lenp)
{
	FILE	*f;
	char	*buf = NULL;
	size_t	 cap = 0, n;

	*lenp = 0;
	if ((f = fopen(file, "re")) == NULL)
		return NULL;
	for (;;) {
		if (cap - *lenp < 65536) {
			cap = cap ? cap * 2 : 262144;
			buf = xreallocarray(buf, 1, cap);
		}
		if ((n = fread(buf + *lenp, 1, cap - *lenp, f)) == 0)
			break;
		*lenp += n;
	}
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static SSL_CTX *
tls_ctx_new(const char *pem, size_t len)
{
	SSL_CTX	*ctx;
	BIO	*bio;
	STACK_OF(X509_INFO) *certs;
	X509_STORE *store;
	int	 i, n = 0;

	if ((ctx = SSL_CTX_new(TLS_client_method())) == NULL)
		return NULL;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	/* HTTP/1.1 only, whatever the server prefers. */
	SSL_CTX_set_alpn_protos(ctx, (const unsigned char *)"\x08http/1.1",
	    9);
	store = SSL_CTX_get_cert_store(ctx);
	if ((bio = BIO_new_mem_buf(pem, (int)len)) == NULL ||
	    (certs = PEM_X509_INFO_read_bio(bio, NULL, NULL, NULL)) == NULL) {
		BIO_free(bio);
		SSL_CTX_free(ctx);
		return NULL;
	}
	for (i = 0; i < sk_X509_INFO_num(certs); i++) {
		X509_INFO *xi = sk_X509_INFO_value(certs, i);

		if (xi->x509 != NULL && X509_STORE_add_cert(store, xi->x509))
			n++;
	}
	sk_X509_INFO_pop_free(certs, X509_INFO_free);
	BIO_free(bio);
	if (n == 0) {
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

static int
tls_add(const char *path, const char *file)
{
	struct gw_tls_ctx *t = &tls_ctxs[ntls_ctxs];

	t->path = xstrdup(path);
	if ((t->pem = slurp(file, &t->pemlen)) == NULL)
		return -1;
	ntls_ctxs++;
	return 0;
}

int
gw_tls_init(char *const *ca_files)
{
	const char	*sys;
	size_t		 i, n = strv_len(ca_files);

	if (OPENSSL_init_ssl(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1)
		return -1;
	tls_ctxs = xcalloc(n + 1, sizeof(*tls_ctxs));
	sys = getenv(X509_get_default_cert_file_env());
	if (sys == NULL || *sys == '\0')
		sys = X509_get_default_cert_file();
	if (tls_add("", sys) == -1)
		log_warnx("system CA store %s not loaded: only configured "
		    "CA bundles can be verified", sys);
	for (i = 0; i < n; i++) {
		if (tls_add(ca_files[i], ca_files[i]) == -1) {
			log_warnx("CA bundle %s: cannot load", ca_files[i]);
			return -1;
		}
	}
	return 0;
}

static SSL_CTX *
tls_ctx_find(const char *path)
{
	struct gw_tls_ctx *t;
	size_t	i;

	for (i = 0; i < ntls_ctxs; i++) {
		t = &tls_ctxs[i];
		if (strcmp(t->path, path ? path : "") != 0)
			continue;
		if (t->ctx == NULL && t->pem != NULL) {
			if ((t->ctx = tls_ctx_new(t->pem, t->pemlen)) == NULL)
				log_warnx("CA bundle %s: no certificate "
				    "could be parsed", *t->path ? t->path :
				    "(system)");
			free(t->pem);
			t->pem = NULL;
		}
		return t->ctx;
	}
	return NULL;
}

/* ---- the request ---- */

static void
host_header(const struct gw_url *u, char *buf, size_t len)
{
	const char	*l = u->is_v6 ? "[" : "", *r = u->is_v6 ? "]" : "";

	if (u->port == (u->tls ? 443 : 80))
		snprintf(buf, len, "%s%s%s", l, u->host, r);
	else
		snprintf(buf, len, "%s%s%s:%u", l, u->host, r, u->port);
}

/*
 * Connect upstream (TLS per the host's CA) and write a request head:
 * "method <path>suffix", Host, User-Agent, the token's Authorization,
 * then extra (fields ending in CRLF) and Connection: close.
 */
static int
up_connect(struct gw_conn *c, const char *token, const char *method,
    const char *suffix, const char *extra, const char **why)
{
	struct evbuffer	*out;
	SSL_CTX		*ctx = NULL;
	SSL		*ssl = NULL;
	struct timeval	 tv = { GW_IO_TIMEOUT, 0 };
	char		 host[HTTP_HOST_MAX + 16];
	char		 cred[1024], b64[1400];
	size_t		 n;
	int		 len;

	if (c->up.tls) {
		if ((ctx = tls_ctx_find(c->ca_path)) == NULL) {
			*why = c->ca_path && *c->ca_path ? "the code host's "
			    "CA bundle was not loaded when gatewayd started" :
			    "no system CA store";
			return -1;
		}
		if ((ssl = SSL_new(ctx)) == NULL) {
			*why = "TLS set-up failed";
			return -1;
		}
		if (inet_pton(AF_INET, c->up.host, cred) == 1 ||
		    inet_pton(AF_INET6, c->up.host, cred) == 1) {
			X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl),
			    c->up.host);
		} else {
			SSL_set_tlsext_host_name(ssl, c->up.host);
			SSL_set1_host(ssl, c->up.host);
		}
		c->ubev = bufferevent_openssl_socket_new(gw_base, -1, ssl,
		    BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
		if (c->ubev != NULL)
			bufferevent_openssl_set_allow_dirty_shutdown(c->ubev,
			    1);
		else
			SSL_free(ssl);
	} else
		c->ubev = bufferevent_socket_new(gw_base, -1,
		    BEV_OPT_CLOSE_ON_FREE);
	if (c->ubev == NULL) {
		*why = "cannot create the upstream connection";
		return -1;
	}
	bufferevent_setcb(c->ubev, up_read, up_write, up_event, c);
	bufferevent_set_max_single_read(c->ubev, GW_IO_CHUNK);
	bufferevent_set_max_single_write(c->ubev, GW_IO_CHUNK);
	bufferevent_setwatermark(c->ubev, EV_WRITE, GW_BUF_LOW, 0);
	bufferevent_set_timeouts(c->ubev, &tv, &tv);
	bufferevent_enable(c->ubev, EV_READ | EV_WRITE);

	/* The token goes into one header; the local copies are zeroed. */
	len = snprintf(cred, sizeof(cred), "x-access-token:%s", token);
	if (len < 0 || (size_t)len >= sizeof(cred) ||
	    (size_t)len * 4 / 3 + 4 >= sizeof(b64)) {
		explicit_bzero(cred, sizeof(cred));
		*why = "write token too long";
		return -1;
	}
	n = (size_t)EVP_EncodeBlock((unsigned char *)b64,
	    (unsigned char *)cred, len);
	explicit_bzero(cred, sizeof(cred));
	host_header(&c->up, host, sizeof(host));
	out = bufferevent_get_output(c->ubev);
	evbuffer_add_printf(out, "%s %s%s HTTP/1.1\r\n", method, c->up.path,
	    suffix);
	evbuffer_add_printf(out, "Host: %s\r\nUser-Agent: %s\r\n"
	    "Authorization: Basic ", host,
	    c->user_agent ? c->user_agent : "git/airlock-gatewayd");
	evbuffer_add(out, b64, n);
	explicit_bzero(b64, sizeof(b64));
	evbuffer_add_printf(out, "\r\n%sConnection: close\r\n\r\n", extra);

	if (bufferevent_socket_connect_hostname(c->ubev, gw_dns, AF_UNSPEC,
	    c->up.host, c->up.port) == -1) {
		*why = "cannot connect to the code host";
		return -1;
	}
	log_debug("session %s: %s -> %s:%u%s", c->sess->id, c->repo,
	    c->up.host, c->up.port, c->up.path);
	return 0;
}

int
gw_up_start(struct gw_conn *c, const char *token, const char **why)
{
	if (c->kind == GW_K_ADVERTISE)
		return up_connect(c, token, "GET", "/info/refs?service="
		    "git-receive-pack", "Accept: */*\r\n"
		    "Cache-Control: no-cache\r\n", why);
	return up_connect(c, token, "POST", "/git-receive-pack",
	    "Content-Type: "
	    "application/x-git-receive-pack-request\r\n"
	    "Accept: application/x-git-receive-pack-result\r\n"
	    "Transfer-Encoding: chunked\r\n", why);
}

/*
 * Upstream's symbolic refs: protocol v2 ls-refs with
 * "symrefs" over upload-pack, with the write token.  The answer is read
 * whole (at most GW_LSREFS_MAX bytes) into c->lsrefs; gw_conn_symrefs()
 * gets it at the end.
 */
int
gw_up_lsrefs(struct gw_conn *c, const char *token, const char **why)
{
	struct pkt_buf	 pb = { 0 };
	char		*extra;
	int		 rv;

	pkt_putf(&pb, "command=ls-refs\n");
	pkt_put_delim(&pb);
	pkt_putf(&pb, "symrefs\n");
	pkt_putf(&pb, "ref-prefix refs/\n");
	pkt_put_flush(&pb);
	xasprintf(&extra, "Content-Type: application/x-git-upload-pack-"
	    "request\r\nAccept: application/x-git-upload-pack-result\r\n"
	    "Git-Protocol: version=2\r\nContent-Length: %zu\r\n", pb.len);
	rv = up_connect(c, token, "POST", "/git-upload-pack", extra, why);
	free(extra);
	if (rv == 0)
		evbuffer_add(bufferevent_get_output(c->ubev), pb.data,
		    pb.len);
	pkt_buf_free(&pb);
	return rv;
}

void
gw_up_send_body(struct gw_conn *c, const void *p, size_t n)
{
	struct evbuffer	*out;

	if (n == 0 || c->ubev == NULL)
		return;
	out = bufferevent_get_output(c->ubev);
	evbuffer_add_printf(out, "%zx\r\n", n);
	evbuffer_add(out, p, n);
	evbuffer_add(out, "\r\n", 2);
	c->sent_bytes += n;
}

void
gw_up_move_body(struct gw_conn *c, struct evbuffer *from, size_t n)
{
	struct evbuffer	*out;

	if (n == 0 || c->ubev == NULL) {
		evbuffer_drain(from, n);
		return;
	}
	out = bufferevent_get_output(c->ubev);
	evbuffer_add_printf(out, "%zx\r\n", n);
	evbuffer_remove_buffer(from, out, n);
	evbuffer_add(out, "\r\n", 2);
	c->sent_bytes += n;
}

void
gw_up_end_body(struct gw_conn *c)
{
	if (c->ubev != NULL)
		evbuffer_add(bufferevent_get_output(c->ubev), "0\r\n\r\n", 5);
}

void
gw_up_resume(struct gw_conn *c)
{
	if (c->ubev != NULL && evbuffer_get_length(
	    bufferevent_get_output(c->cbev)) <= GW_BUF_LOW)
		bufferevent_enable(c->ubev, EV_READ);
}

/* ---- the response ---- */

/* Header fields git may need; everything else (cookies, auth) stays. */
static const char *relay_fields[] = {
	"Content-Type", "Content-Length", "Transfer-Encoding",
	"Content-Encoding", "Cache-Control", "Expires", "Pragma", NULL,
};

static int
relay_head(struct gw_conn *c)
{
	struct evbuffer		*in = bufferevent_get_input(c->ubev);
	struct evbuffer		*out = bufferevent_get_output(c->cbev);
	struct http_response	 r;
	const char		*why, *v;
	uint8_t			*p;
	size_t			 len, hl, i;
	char			 msg[160];

	for (;;) {
		len = evbuffer_get_length(in);
		if (len > HTTP_HEAD_MAX)
			len = HTTP_HEAD_MAX;
		p = evbuffer_pullup(in, (ssize_t)len);
		switch (http_head_scan(p, len, &hl)) {
		case HTTP_SCAN_MORE:
			if (len >= HTTP_HEAD_MAX)
				goto bad;
			return 0;
		case HTTP_SCAN_ERROR:
			goto bad;
		case HTTP_SCAN_DONE:
			break;
		}
		if (http_response_parse(p, hl, 0, 0, &r, &why) == -1)
			goto bad;
		evbuffer_drain(in, hl);
		if (r.status >= 200)
			break;
		/* 1xx: interim; the real answer follows. */
		http_response_free(&r);
	}
	c->resp_status = r.status;
	if (r.status == 401 || r.status == 403 || r.status == 407) {
		/*
		 * Never relay an authentication challenge: git would ask
		 * the sandbox's credential helper and send us its token.
		 */
		http_response_free(&r);
		snprintf(msg, sizeof(msg), "the code host refused the "
		    "gateway's credentials (HTTP %d)", c->resp_status);
		gw_conn_http_error(c, 502, msg);
		return -1;
	}
	evbuffer_add_printf(out, "HTTP/1.1 %d %s\r\n", r.status,
	    http_status_text(r.status));
	for (i = 0; relay_fields[i] != NULL; i++) {
		v = http_header_get(r.hdrs, r.nhdrs, relay_fields[i]);
		if (v != NULL)
			evbuffer_add_printf(out, "%s: %s\r\n",
			    relay_fields[i], v);
	}
	evbuffer_add_printf(out, "Connection: close\r\n\r\n");
	http_response_free(&r);
	c->resp_started = 1;
	log_debug("session %s: %s: upstream answered %d", c->sess->id,
	    c->repo, c->resp_status);
	return 0;
bad:
	gw_conn_http_error(c, 502, "malformed answer from the code host");
	return -1;
}

/*
 * untrusted: the ls-refs answer, read whole.  Its body, decoded from
 * its framing, into body; -1 with *why.
 */
static int
lsrefs_body(struct evbuffer *in, struct evbuffer *body, const char **why)
{
	struct http_response	 r;
	struct http_chunked	 ch;
	enum http_chunk_result	 cr;
	size_t			 len = evbuffer_get_length(in), hl, used, dl;
	uint8_t			*p = evbuffer_pullup(in, -1);

	if (http_head_scan(p, len > HTTP_HEAD_MAX ? HTTP_HEAD_MAX : len,
	    &hl) != HTTP_SCAN_DONE ||
	    http_response_parse(p, hl, 0, 0, &r, why) == -1) {
		*why = "malformed answer from the code host";
		return -1;
	}
	if (r.status != 200) {
		http_response_free(&r);
		*why = "the code host did not list its refs";
		return -1;
	}
	p += hl;
	len -= hl;
	switch (r.body) {
	case HTTP_BODY_LENGTH:
		if (r.content_length > len)
			goto short_body;
		evbuffer_add(body, p, (size_t)r.content_length);
		break;
	case HTTP_BODY_CLOSE:
		evbuffer_add(body, p, len);
		break;
	case HTTP_BODY_CHUNKED:
		http_chunked_init(&ch);
		for (;;) {
			cr = http_chunked_feed(&ch, p, len, &used, &dl);
			if (cr == HTTP_CHUNK_ERROR || (cr == HTTP_CHUNK_MORE &&
			    used == len))
				goto short_body;
			if (cr == HTTP_CHUNK_DATA)
				evbuffer_add(body, p + used - dl, dl);
			p += used;
			len -= used;
			if (cr == HTTP_CHUNK_DONE)
				break;
		}
		break;
	default:
		break;
	}
	http_response_free(&r);
	return 0;
short_body:
	http_response_free(&r);
	*why = "the code host's ref list was cut short";
	return -1;
}

/* The ls-refs exchange ended (EOF): hand its outcome to the push. */
static void
lsrefs_done(struct gw_conn *c, const char *failed)
{
	struct evbuffer	*in, *body;
	const char	*why = failed;
	int		 rv = -1;

	in = bufferevent_get_input(c->ubev);
	body = evbuffer_new();
	if (why == NULL)
		rv = lsrefs_body(in, body, &why);
	bufferevent_free(c->ubev);
	c->ubev = NULL;
	if (rv == 0)
		gw_conn_symrefs(c, evbuffer_pullup(body, -1),
		    evbuffer_get_length(body), NULL);
	else
		gw_conn_symrefs(c, NULL, 0, why);
	evbuffer_free(body);
}

static void
up_read(struct bufferevent *bev, void *arg)
{
	struct gw_conn	*c = arg;
	struct evbuffer	*out;

	if (c->state == GW_ST_SYMREFS) {
		/* Read whole, bounded: 100,000 refs fit easily. */
		if (evbuffer_get_length(bufferevent_get_input(bev)) >
		    GW_LSREFS_MAX)
			lsrefs_done(c, "the code host's ref list is too long");
		return;
	}

	if (!c->resp_started) {
		if (relay_head(c) == -1 || !c->resp_started)
			return;
	}
	out = bufferevent_get_output(c->cbev);
	evbuffer_add_buffer(out, bufferevent_get_input(bev));
	if (evbuffer_get_length(out) > GW_BUF_HIGH)
		bufferevent_disable(bev, EV_READ);
}

static void
up_write(struct bufferevent *bev, void *arg)
{
	struct gw_conn	*c = arg;

	(void)bev;
	gw_conn_resume_body(c);
}

static void
up_event(struct bufferevent *bev, short what, void *arg)
{
	struct gw_conn	*c = arg;
	unsigned long	 e;
	int		 dnserr;
	char		 msg[300];

	if (what & BEV_EVENT_CONNECTED) {
		/* The request's last chunk is small: do not let Nagle hold
		 * it for a delayed ACK. */
		int one = 1;

		(void)setsockopt(bufferevent_getfd(bev), IPPROTO_TCP,
		    TCP_NODELAY, &one, sizeof(one));
		log_debug("session %s: connected upstream", c->sess->id);
		return;
	}
	if (c->state == GW_ST_SYMREFS) {
		if (what & BEV_EVENT_EOF)
			lsrefs_done(c, NULL);
		else if (what & (BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
			lsrefs_done(c, "cannot list the code host's refs");
		return;
	}
	if (what & BEV_EVENT_EOF) {
		/* Whatever the response still holds goes to the client. */
		if (!c->resp_started && evbuffer_get_length(
		    bufferevent_get_input(bev)) > 0)
			up_read(bev, c);
		if (c->state != GW_ST_UPSTREAM)
			return;
		if (c->resp_started) {
			evbuffer_add_buffer(bufferevent_get_output(c->cbev),
			    bufferevent_get_input(bev));
			gw_conn_upstream_done(c);
		} else
			gw_conn_http_error(c, 502, "the code host closed "
			    "the connection without answering");
		return;
	}
	if (c->resp_started) {
		log_info("session %s: %s: upstream connection lost "
		    "mid-answer", c->sess->id, c->repo);
		gw_conn_upstream_done(c);
		return;
	}
	if (what & BEV_EVENT_TIMEOUT)
		snprintf(msg, sizeof(msg), "the code host did not answer");
	else if ((dnserr = bufferevent_socket_get_dns_error(bev)) != 0)
		snprintf(msg, sizeof(msg), "cannot resolve %s: %s",
		    c->up.host, evutil_gai_strerror(dnserr));
	else if (c->up.tls && (e = bufferevent_get_openssl_error(bev)) != 0)
		snprintf(msg, sizeof(msg), "TLS to %s failed: %s",
		    c->up.host, ERR_reason_error_string(e));
	else
		snprintf(msg, sizeof(msg), "cannot connect to %s:%u",
		    c->up.host, c->up.port);
	log_warnx("session %s: %s", c->sess->id, msg);
	gw_conn_http_error(c, 502, msg);
}
