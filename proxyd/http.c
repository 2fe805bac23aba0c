// SPDX-License-Identifier: ISC
/*
 * The HTTP proxy of a session (R-E1, R-E2): CONNECT tunnels and
 * absolute-form requests.  Every request on a kept-alive connection is
 * parsed by the one strict parser (common/http.c) and decided on its own,
 * on its request target, never on a Host header; the Host header sent
 * upstream is rewritten to the target that was decided, so a request cannot
 * be routed by a virtual host other than the one allowed.  Origin-form
 * requests are not proxy requests: 400 -- except on the host-header
 * endpoint (hostep_request()), which takes only those and routes them
 * by their Host to a TLS connection (tls.c).  A refusal is a 403 with an
 * X-Airlock-Refused header naming the rule, and a violation.
 *
 * Forwarding streams: request bodies (Content-Length or chunked, passed
 * through unchanged) and responses (length, chunked, or until close) flow
 * through bounded buffers with back-pressure; one upstream connection per
 * client connection is kept alive while the target stays the same.
 */
#include <sys/socket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "common/http.h"
#include "common/log.h"
#include "common/maskstream.h"
#include "common/xmalloc.h"
#include "policy/egress.h"
#include "proxyd/proxyd.h"

#define PX_HIGH_WATER	(256 * 1024)	/* pause the producer */

enum {
	HS_HEAD = 0,	/* reading a request head */
	HS_DIAL,	/* resolving and connecting */
	HS_FORWARD,	/* request and response in flight */
	HS_CLOSING,	/* flushing a last answer, then close */
};

enum {
	RS_HEAD = 0,
	RS_BODY,
	RS_DONE,
};

struct px_http {
	struct http_request	 req;
	int			 have_req;
	struct bufferevent	*ubev;		/* upstream */
	struct px_reader	 urd;		/* ubev's reading */
	char			 uhost[256];	/* ubev's target */
	uint16_t		 uport;
	int			 ukeep;		/* ubev reusable */
	/* request body */
	int			 req_done;
	uint64_t		 req_left;
	struct http_chunked	 req_chunk;
	int			 client_paused;	/* back-pressure */
	/* response */
	int			 resp_state;
	int			 resp_sent;	/* a head went out */
	enum http_body		 resp_body;
	uint64_t		 resp_left;
	struct http_chunked	 resp_chunk;
	int			 keep;		/* client kept alive */
	int			 in_read;	/* in client_read() */
	int			 hostep;	/* the host-header endpoint */
};

static void http_client_read(struct bufferevent *, void *);
static void http_upstream_read(struct bufferevent *, void *);

static void
http_drop_upstream(struct px_http *h)
{
	int	 fd;

	if (h->ubev == NULL)
		return;
	fd = bufferevent_getfd(h->ubev);
	px_reader_free(&h->urd);
	bufferevent_free(h->ubev);
	if (fd != -1)
		close(fd);
	h->ubev = NULL;
	h->uhost[0] = '\0';
	h->uport = 0;
}

void
px_http_free(struct px_http *h)
{
	if (h == NULL)
		return;
	http_drop_upstream(h);
	http_request_free(&h->req);
	free(h);
}

static void
http_close_after_write(struct px_conn *c)
{
	c->state = HS_CLOSING;
	px_reader_off(&c->rd);
	if (c->http != NULL && c->http->ubev != NULL)
		px_reader_off(&c->http->urd);
	if (evbuffer_get_length(bufferevent_get_output(c->cbev)) == 0)
		px_conn_free(c);
	else
		/* the write callback frees c once the answer is out */
		bufferevent_enable(c->cbev, EV_WRITE);
}

/* An answer of our own (4xx/5xx), then close. */
static void
http_answer(struct px_conn *c, int status, const char *hdr,
    const char *reason, const char *body)
{
	char	 b[768];
	int	 n;

	n = snprintf(b, sizeof(b), "airlock: %s\n", body);
	if (n < 0 || (size_t)n >= sizeof(b))
		n = (int)strlen(strcpy(b, "airlock\n"));
	evbuffer_add_printf(bufferevent_get_output(c->cbev),
	    "HTTP/1.1 %d %s\r\n%s%s%s%sContent-Type: text/plain\r\n"
	    "Content-Length: %d\r\nConnection: close\r\n\r\n%s", status,
	    http_status_text(status), hdr != NULL ? hdr : "",
	    hdr != NULL ? ": " : "", hdr != NULL ? reason : "",
	    hdr != NULL ? "\r\n" : "", n, b);
	http_close_after_write(c);
}

/*
 * A refused CONNECT to port 22 is most likely ssh (or git over ssh) with
 * a ProxyCommand that hands it whatever the proxy answers.  After the
 * 403's head, its body is what an ssh server would send to refuse: an
 * identification line and an SSH_MSG_DISCONNECT (RFC 4253 11.1, sent in
 * clear before any key exchange), so ssh prints "Received disconnect
 * from ...: <why>" instead of a bare "Connection closed".  An HTTP
 * client sees a 403 with a binary body.
 */
static void
http_refuse_ssh(struct px_conn *c, const char *reason)
{
	struct evbuffer *out = bufferevent_get_output(c->cbev);
	static const char id[] = "SSH-2.0-airlock\r\n";
	unsigned char pkt[640];
	char	 text[512];
	size_t	 tl, pl, pad, n = 0;

	snprintf(text, sizeof(text), "airlock: connection to %s:22 refused: "
	    "%s. ssh goes through the sandbox's SOCKS proxy (ALL_PROXY; "
	    "GIT_SSH_COMMAND uses it), to hosts the allowlist names",
	    c->host, reason);
	tl = strlen(text);
	/* byte 1, uint32 reason 1 (host not allowed), string, string "" */
	pl = 1 + 4 + 4 + tl + 4;
	pad = 8 - (4 + 1 + pl) % 8;
	if (pad < 4)
		pad += 8;
	pkt[n++] = (unsigned char)((1 + pl + pad) >> 24);
	pkt[n++] = (unsigned char)((1 + pl + pad) >> 16);
	pkt[n++] = (unsigned char)((1 + pl + pad) >> 8);
	pkt[n++] = (unsigned char)(1 + pl + pad);
	pkt[n++] = (unsigned char)pad;
	pkt[n++] = 1;			/* SSH_MSG_DISCONNECT */
	memcpy(pkt + n, "\0\0\0\1", 4);	/* HOST_NOT_ALLOWED_TO_CONNECT */
	n += 4;
	pkt[n++] = (unsigned char)(tl >> 24);
	pkt[n++] = (unsigned char)(tl >> 16);
	pkt[n++] = (unsigned char)(tl >> 8);
	pkt[n++] = (unsigned char)tl;
	memcpy(pkt + n, text, tl);
	n += tl;
	memset(pkt + n, 0, 4 + pad);	/* empty language tag, padding */
	n += 4 + pad;
	evbuffer_add_printf(out, "HTTP/1.1 403 Forbidden\r\n"
	    "X-Airlock-Refused: %s\r\nContent-Type: application/octet-stream"
	    "\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
	    reason, sizeof(id) - 1 + n, id);
	evbuffer_add(out, pkt, n);
	http_close_after_write(c);
}

static void
http_refuse(struct px_conn *c, const char *reason)
{
	char	 body[640];

	if (c->port == 22 && c->http != NULL &&
	    c->http->req.form == HTTP_FORM_AUTHORITY) {
		http_refuse_ssh(c, reason);
		return;
	}
	snprintf(body, sizeof(body), "connection to %s:%u refused: %s",
	    c->host, c->port, reason);
	http_answer(c, 403, "X-Airlock-Refused", reason, body);
}

/* Hop-by-hop fields (RFC 9110 7.6.1) and proxy fields: not forwarded. */
static int
hop_by_hop(const char *name, const char *connection)
{
	static const char *const hop[] = {
		"Connection", "Keep-Alive", "Proxy-Connection",
		"Proxy-Authorization", "Proxy-Authenticate", "TE", "Upgrade",
		"Host", NULL
	};
	size_t	 i;

	for (i = 0; hop[i] != NULL; i++)
		if (strcasecmp(name, hop[i]) == 0)
			return 1;
	return connection != NULL && http_list_has(connection, name);
}

static void
http_forward_head(struct px_conn *c)
{
	struct px_http *h = c->http;
	struct http_request *r = &h->req;
	struct evbuffer *out = bufferevent_get_output(h->ubev);
	const char *conn = http_header_get(r->hdrs, r->nhdrs, "Connection");
	size_t	 i;

	evbuffer_add_printf(out, "%s %s HTTP/1.1\r\n", r->method, r->path);
	/* the decided target, not whatever Host the client sent */
	if (r->host_is_v6)
		evbuffer_add_printf(out, "Host: [%s]", r->host);
	else
		evbuffer_add_printf(out, "Host: %s", r->host);
	if (r->port != 80)
		evbuffer_add_printf(out, ":%u", r->port);
	evbuffer_add(out, "\r\n", 2);
	for (i = 0; i < r->nhdrs; i++) {
		if (hop_by_hop(r->hdrs[i].name, conn))
			continue;
		evbuffer_add_printf(out, "%s: %s\r\n", r->hdrs[i].name,
		    r->hdrs[i].value);
	}
	if (!r->keep_alive)
		evbuffer_add(out, "Connection: close\r\n", 19);
	evbuffer_add(out, "\r\n", 2);
}

static void
http_exchange_done(struct px_conn *c)
{
	struct px_http *h = c->http;

	if (!h->req_done || h->resp_state != RS_DONE)
		return;
	http_request_free(&h->req);
	h->have_req = 0;
	if (!h->ukeep)
		http_drop_upstream(h);
	if (!h->keep) {
		http_close_after_write(c);
		return;
	}
	c->state = HS_HEAD;
	px_reader_on(&c->rd);
	if (!h->in_read &&
	    evbuffer_get_length(bufferevent_get_input(c->cbev)) > 0)
		http_client_read(c->cbev, c);
}

/*
 * Move request body bytes from the client to the upstream, up to the end
 * of this request's body.  Returns -1 on a malformed chunked body.
 */
static int
http_pump_request(struct px_conn *c)
{
	struct px_http *h = c->http;
	struct evbuffer *in = bufferevent_get_input(c->cbev);
	struct evbuffer *out = bufferevent_get_output(h->ubev);
	struct evbuffer_iovec v;
	size_t	 n, used, dl;
	enum http_chunk_result res;

	/* untrusted: a request body from the sandbox */
	while (!h->req_done && evbuffer_get_length(in) > 0) {
		if (h->req.body == HTTP_BODY_LENGTH) {
			n = evbuffer_get_length(in);
			if (n > h->req_left)
				n = (size_t)h->req_left;
			evbuffer_remove_buffer(in, out, n);
			h->req_left -= n;
			if (h->req_left == 0)
				h->req_done = 1;
			continue;
		}
		if (evbuffer_peek(in, -1, NULL, &v, 1) < 1)
			break;
		res = http_chunked_feed(&h->req_chunk, v.iov_base, v.iov_len,
		    &used, &dl);
		if (res == HTTP_CHUNK_ERROR)
			return -1;
		evbuffer_remove_buffer(in, out, used);
		if (res == HTTP_CHUNK_DONE)
			h->req_done = 1;
	}
	if (h->req_done)
		/*
		 * Reading goes on (a pipelined next head waits in the input,
		 * bounded by its watermark): no epoll_ctl(2) per request.
		 */
		h->client_paused = 0;
	else if (evbuffer_get_length(out) > PX_HIGH_WATER) {
		px_reader_off(&c->rd);
		h->client_paused = 1;
	}
	return 0;
}

static void
http_forward_start(struct px_conn *c)
{
	struct px_http *h = c->http;

	c->state = HS_FORWARD;
	h->req_done = h->req.body == HTTP_BODY_NONE;
	h->req_left = h->req.content_length;
	http_chunked_init(&h->req_chunk);
	h->resp_state = RS_HEAD;
	h->resp_sent = 0;
	h->keep = h->req.keep_alive;
	http_forward_head(c);
	px_reader_on(&h->urd);
	if (!h->req_done) {
		px_reader_on(&c->rd);
		if (http_pump_request(c) == -1) {
			http_answer(c, 400, NULL, NULL, "malformed chunked "
			    "request body");
			return;
		}
	}
	px_bev_flush(h->ubev);
}

/* Response head fields to the client; hop-by-hop ones dropped. */
static void
http_forward_response_head(struct px_conn *c, struct http_response *r)
{
	struct evbuffer *out = bufferevent_get_output(c->cbev);
	const char *conn = http_header_get(r->hdrs, r->nhdrs, "Connection");
	size_t	 i;

	evbuffer_add_printf(out, "HTTP/1.1 %d %s\r\n", r->status, r->reason);
	for (i = 0; i < r->nhdrs; i++) {
		if (hop_by_hop(r->hdrs[i].name, conn) &&
		    strcasecmp(r->hdrs[i].name, "Host") != 0)
			continue;
		evbuffer_add_printf(out, "%s: %s\r\n", r->hdrs[i].name,
		    r->hdrs[i].value);
	}
	if (r->status >= 200 && !c->http->keep)
		evbuffer_add(out, "Connection: close\r\n", 19);
	evbuffer_add(out, "\r\n", 2);
}

static void
http_upstream_fail(struct px_conn *c, const char *why)
{
	log_info("session %s: upstream %s:%u: %s", c->s->id, c->http->uhost,
	    c->http->uport, why);
	if (!c->http->resp_sent)
		http_answer(c, 502, "X-Airlock-Error", why, why);
	else
		px_conn_free(c);
}

/* Parse response heads; returns 0 when the body state is set up. */
static int
http_response_head(struct px_conn *c)
{
	struct px_http *h = c->http;
	struct evbuffer *in = bufferevent_get_input(h->ubev);
	struct http_response r;
	const char *why;
	size_t	 len, hl;
	unsigned char *p;

	for (;;) {
		/* untrusted: a response head from the remote server */
		len = evbuffer_get_length(in);
		if (len == 0)
			return 1;
		if (len > HTTP_HEAD_MAX)
			len = HTTP_HEAD_MAX;
		p = evbuffer_pullup(in, (ssize_t)len);
		switch (http_head_scan(p, len, &hl)) {
		case HTTP_SCAN_MORE:
			return 1;
		case HTTP_SCAN_ERROR:
			http_upstream_fail(c, "malformed response head");
			return -1;
		default:
			break;
		}
		if (http_response_parse(p, hl,
		    strcmp(h->req.method, "HEAD") == 0, 0, &r, &why) == -1) {
			http_upstream_fail(c, why);
			return -1;
		}
		evbuffer_drain(in, hl);
		if (r.status == 101) {
			/* we never forward Upgrade: a 101 is a broken peer */
			http_response_free(&r);
			http_upstream_fail(c, "unexpected 101");
			return -1;
		}
		if (r.status >= 200) {
			h->ukeep = r.keep_alive && r.body != HTTP_BODY_CLOSE;
			if (r.body == HTTP_BODY_CLOSE)
				h->keep = 0;
		}
		http_forward_response_head(c, &r);
		h->resp_sent = 1;
		if (r.status < 200) {
			http_response_free(&r);
			continue;	/* interim: the real one follows */
		}
		h->resp_body = r.body;
		h->resp_left = r.content_length;
		http_chunked_init(&h->resp_chunk);
		h->resp_state = r.body == HTTP_BODY_NONE ? RS_DONE : RS_BODY;
		http_response_free(&r);
		return 0;
	}
}

/* Move response body bytes; -1 on a malformed chunked body. */
static int
http_pump_response(struct px_conn *c)
{
	struct px_http *h = c->http;
	struct evbuffer *in = bufferevent_get_input(h->ubev);
	struct evbuffer *out = bufferevent_get_output(c->cbev);
	struct evbuffer_iovec v;
	size_t	 n, used, dl;
	enum http_chunk_result res;

	while (h->resp_state == RS_BODY && evbuffer_get_length(in) > 0) {
		switch (h->resp_body) {
		case HTTP_BODY_CLOSE:
			evbuffer_add_buffer(out, in);
			break;
		case HTTP_BODY_LENGTH:
			n = evbuffer_get_length(in);
			if (n > h->resp_left)
				n = (size_t)h->resp_left;
			evbuffer_remove_buffer(in, out, n);
			h->resp_left -= n;
			if (h->resp_left == 0)
				h->resp_state = RS_DONE;
			break;
		default:
			if (evbuffer_peek(in, -1, NULL, &v, 1) < 1)
				return 0;
			/* untrusted: a chunked body from the server */
			res = http_chunked_feed(&h->resp_chunk, v.iov_base,
			    v.iov_len, &used, &dl);
			if (res == HTTP_CHUNK_ERROR)
				return -1;
			evbuffer_remove_buffer(in, out, used);
			if (res == HTTP_CHUNK_DONE)
				h->resp_state = RS_DONE;
			break;
		}
	}
	if (h->resp_state == RS_BODY &&
	    evbuffer_get_length(out) > PX_HIGH_WATER)
		px_reader_off(&h->urd);
	return 0;
}

static void
http_upstream_read(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;
	struct px_http *h = c->http;
	int	 r;

	(void)bev;
	if (c->state != HS_FORWARD) {
		/* bytes from an idle upstream: it cannot be reused */
		if (c->state == HS_HEAD)
			http_drop_upstream(h);
		return;
	}
	if (h->resp_state == RS_HEAD && (r = http_response_head(c)) != 0) {
		if (r == 1)	/* interim heads may have been forwarded */
			px_bev_flush(c->cbev);
		return;
	}
	if (h->resp_state == RS_BODY && http_pump_response(c) == -1) {
		px_conn_free(c);
		return;
	}
	px_bev_flush(c->cbev);
	if (h->resp_state == RS_DONE) {
		/* anything after the response: upstream is not reusable */
		if (evbuffer_get_length(bufferevent_get_input(h->ubev)) > 0)
			h->ukeep = 0;
		http_exchange_done(c);
	}
}

static void
http_upstream_write(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;
	struct px_http *h = c->http;

	/* drained: later output is written by px_bev_flush() again */
	bufferevent_disable(bev, EV_WRITE);
	if (c->state == HS_FORWARD && h->client_paused &&
	    evbuffer_get_length(bufferevent_get_output(h->ubev)) <
	    PX_HIGH_WATER / 2) {
		h->client_paused = 0;
		px_reader_on(&c->rd);
		http_client_read(c->cbev, c);
	}
}

static void
http_upstream_event(struct bufferevent *bev, short what, void *arg)
{
	struct px_conn *c = arg;
	struct px_http *h = c->http;

	(void)bev;
	if (c->state != HS_FORWARD) {
		/* an idle kept-alive upstream went away */
		http_drop_upstream(h);
		return;
	}
	if ((what & BEV_EVENT_EOF) && h->resp_state == RS_BODY &&
	    h->resp_body == HTTP_BODY_CLOSE) {
		/* the end of a read-until-close body */
		(void)http_pump_response(c);
		px_bev_flush(c->cbev);
		h->resp_state = RS_DONE;
		h->ukeep = 0;
		h->keep = 0;
		h->req_done = 1;
		http_exchange_done(c);
		return;
	}
	http_upstream_fail(c, (what & BEV_EVENT_EOF) ?
	    "upstream closed early" : "upstream error");
}

static void
http_dialed(int fd, enum px_dial_status st, short seen, const char *reason,
    void *arg)
{
	struct px_conn *c = arg;
	struct px_http *h = c->http;
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

	c->dial = NULL;
	if (st != PX_DIAL_OK) {
		log_info("session %s: %s:%u: %s", c->s->id, c->host, c->port,
		    reason);
		if (st == PX_DIAL_REFUSED)
			http_refuse(c, reason);
		else
			http_answer(c, st == PX_DIAL_TIMEOUT ? 504 : 502,
			    "X-Airlock-Error", reason, reason);
		return;
	}
	if (h->hostep) {
		/* the head is still in the input: judged there again */
		px_hostep_start(c, fd);
		return;
	}
	if (h->req.form == HTTP_FORM_AUTHORITY) {
		/* the output buffer is empty: the answer goes out now */
		if (send(bufferevent_getfd(c->cbev), ok, sizeof(ok) - 1,
		    MSG_NOSIGNAL) != (ssize_t)sizeof(ok) - 1) {
			close(fd);
			px_conn_free(c);
			return;
		}
		if (px_mask_host(c->s, c->host))
			px_mitm_start(c, fd);
		else
			px_conn_to_tunnel(c, fd, seen);
		return;
	}
	h->ubev = bufferevent_socket_new(px_base, fd, 0);
	if (h->ubev == NULL)
		fatalx("bufferevent_socket_new");
	bufferevent_disable(h->ubev, EV_WRITE);	/* px_bev_flush() */
	bufferevent_setcb(h->ubev, NULL, http_upstream_write,
	    http_upstream_event, c);
	px_reader_init(&h->urd, h->ubev, http_upstream_read,
	    http_upstream_event, c, 0, 0);
	snprintf(h->uhost, sizeof(h->uhost), "%s", c->host);
	h->uport = c->port;
	h->ukeep = 1;
	http_forward_start(c);
}

/* One parsed request head: decide, then dial or reuse. */
static void
http_request(struct px_conn *c)
{
	struct px_http *h = c->http;
	struct http_request *r = &h->req;
	char	 reason[EGRESS_REASON_MAX];

	if (r->form == HTTP_FORM_ORIGIN || r->form == HTTP_FORM_ASTERISK) {
		http_answer(c, 400, "X-Airlock-Refused", "not a proxy request",
		    "origin-form request: this is a proxy");
		return;
	}
	if (r->form == HTTP_FORM_ABSOLUTE && strcmp(r->scheme, "http") != 0) {
		http_answer(c, 400, "X-Airlock-Refused",
		    "absolute-form only for http: use CONNECT",
		    "https:// requests must use CONNECT");
		return;
	}
	snprintf(c->host, sizeof(c->host), "%s", r->host);
	c->port = r->port;
	if (!px_session_allows(c->s, c->host, c->port, reason,
	    sizeof(reason))) {
		http_refuse(c, reason);
		return;
	}
	if (r->form == HTTP_FORM_ABSOLUTE && h->ubev != NULL &&
	    strcmp(h->uhost, c->host) == 0 && h->uport == c->port) {
		http_forward_start(c);
		return;
	}
	http_drop_upstream(h);
	c->state = HS_DIAL;
	px_reader_off(&c->rd);
	/* A masked host's socket goes to TLS termination, not the relay. */
	c->dial = px_dial(c->s, c->host, c->port,
	    r->form == HTTP_FORM_AUTHORITY && !px_mask_host(c->s, c->host) ?
	    PX_DIAL_TUNNEL : 0, http_dialed, c);
}

/*
 * The host-header endpoint's request: routed by its Host header, which
 * is judged exactly as a CONNECT to that host (port 443 unless it names
 * one) would be: a malformed one is a 400 before any rule, a refused
 * one a 403 with the rule's words, and neither is dialed.  The head
 * stays in the input: the connection that takes over after the dial
 * (tls.c) judges it, and every later one, as a terminated connection's.
 */
static void
hostep_request(struct px_conn *c)
{
	struct http_request *r = &c->http->req;
	const char *v, *why;
	char	 host[HTTP_HOST_MAX], reason[EGRESS_REASON_MAX], msg[400];
	uint16_t port;
	size_t	 n;
	int	 v6;

	if (r->form != HTTP_FORM_ORIGIN) {
		http_answer(c, 400, "X-Airlock-Refused", "origin-form "
		    "requests only", "this endpoint takes origin-form "
		    "requests (GET /path) routed by their Host header; "
		    "proxy requests go to the HTTP proxy");
		return;
	}
	/* untrusted: the Host header from the sandbox (one at most: the
	 * parser refused a duplicate) */
	v = http_header_get(r->hdrs, r->nhdrs, "Host");
	if (v == NULL || *v == '\0') {
		http_answer(c, 400, "X-Airlock-Refused", "missing Host header",
		    "missing Host header: it names the https server");
		return;
	}
	if (http_authority_parse(v, strlen(v), 443, host, &port, &v6,
	    &why) == -1) {
		snprintf(msg, sizeof(msg), "malformed Host header: %s", why);
		http_answer(c, 400, "X-Airlock-Refused", msg, msg);
		return;
	}
	/*
	 * An Upgrade would leave the rest of the connection unjudged, a
	 * later head with another Host included, whether or not the
	 * server switches: refused before anything is dialed (the
	 * connection's later heads are refused it in maskstream.c).
	 */
	if (http_header_get(r->hdrs, r->nhdrs, "Upgrade") != NULL) {
		http_answer(c, 403, "X-Airlock-Refused", MSTREAM_NO_UPGRADE,
		    MSTREAM_NO_UPGRADE);
		return;
	}
	/*
	 * One final dot is the same name to the rules (policy/domain.c);
	 * without it the Host of every head on the connection is judged
	 * against the connection's host (tls.c) as spelled there.
	 */
	if ((n = strlen(host)) > 1 && host[n - 1] == '.')
		host[n - 1] = '\0';
	snprintf(c->host, sizeof(c->host), "%s", host);
	c->port = port;
	if (!px_session_allows(c->s, c->host, c->port, reason,
	    sizeof(reason))) {
		http_refuse(c, reason);
		return;
	}
	if (px_hostep_trust(c->s, msg, sizeof(msg)) == -1) {
		http_answer(c, 502, "X-Airlock-Error", msg, msg);
		return;
	}
	c->state = HS_DIAL;
	px_reader_off(&c->rd);
	c->dial = px_dial(c->s, c->host, c->port, 0, http_dialed, c);
}

/* 0: no Host header, or one that is a well-formed authority. */
static int
http_request_bad_host(const struct http_request *r, char *reason,
    size_t reasonlen)
{
	const char *v = http_header_get(r->hdrs, r->nhdrs, "Host"), *why;
	char	 host[HTTP_HOST_MAX];
	uint16_t port;
	int	 v6;

	/* untrusted: the Host header from the sandbox */
	if (v == NULL || http_authority_parse(v, strlen(v), 1, host, &port,
	    &v6, &why) == 0)
		return 0;
	snprintf(reason, reasonlen, "malformed Host header: %s", why);
	return -1;
}

static void
http_client_read(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;
	struct px_http *h = c->http;
	struct evbuffer *in = bufferevent_get_input(bev);
	const char *why;
	unsigned char *p;
	size_t	 len, hl;
	char	 mreason[300];

	h->in_read = 1;
	while (c->state == HS_HEAD) {
		/* untrusted: a request head from the sandbox */
		len = evbuffer_get_length(in);
		if (len == 0) {
			px_reader_on(&c->rd);
			break;
		}
		if (len > HTTP_HEAD_MAX)
			len = HTTP_HEAD_MAX;
		p = evbuffer_pullup(in, (ssize_t)len);
		switch (http_head_scan(p, len, &hl)) {
		case HTTP_SCAN_MORE:
			px_reader_on(&c->rd);
			h->in_read = 0;
			return;
		case HTTP_SCAN_ERROR:
			h->in_read = 0;
			http_answer(c, 400, "X-Airlock-Refused",
			    "malformed request head", "malformed request head");
			return;
		default:
			break;
		}
		if (http_request_parse(p, hl, &h->req, &why) == -1) {
			h->in_read = 0;
			http_answer(c, 400, "X-Airlock-Refused", why, why);
			return;
		}
		if (h->hostep) {
			h->in_read = 0;
			hostep_request(c);
			return;
		}
		/*
		 * A Host header is rewritten, never followed (see the top),
		 * but one that is not a host at all (a NUL, a zone id, a
		 * space, 256 bytes) is a malformed request: refused before
		 * any rule, like a malformed target.
		 */
		if (http_request_bad_host(&h->req, mreason,
		    sizeof(mreason)) == -1) {
			h->in_read = 0;
			http_answer(c, 400, "X-Airlock-Refused", mreason,
			    mreason);
			return;
		}
		/* A placeholder toward another host, or in clear. */
		if ((h->req.form == HTTP_FORM_ABSOLUTE ||
		    h->req.form == HTTP_FORM_AUTHORITY) &&
		    px_mask_judge_plain(c->s, p, hl, h->req.host, h->req.port,
		    h->req.form == HTTP_FORM_AUTHORITY, mreason,
		    sizeof(mreason)) == -1) {
			h->in_read = 0;
			http_answer(c, 403, "X-Airlock-Refused", mreason,
			    mreason);
			return;
		}
		/* A plain request toward an inspected host: its rules. */
		if (px_inspect_judge_plain(c->s, &h->req, mreason,
		    sizeof(mreason)) == -1) {
			h->in_read = 0;
			http_answer(c, 403, "X-Airlock-Refused", mreason,
			    mreason);
			return;
		}
		evbuffer_drain(in, hl);
		h->have_req = 1;
		http_request(c);
		/* c may be closing (freed only from a write callback) */
		if (c->state == HS_CLOSING) {
			h->in_read = 0;
			return;
		}
	}
	if (c->state == HS_FORWARD && !h->req_done &&
	    http_pump_request(c) == -1) {
		h->in_read = 0;
		px_conn_free(c);
		return;
	}
	h->in_read = 0;
	if (c->state == HS_FORWARD) {
		px_bev_flush(h->ubev);
		http_exchange_done(c);
	}
}

static void
http_client_write(struct bufferevent *bev, void *arg)
{
	struct px_conn *c = arg;
	struct px_http *h = c->http;

	/* drained: later output is written by px_bev_flush() again */
	bufferevent_disable(bev, EV_WRITE);
	if (c->state == HS_CLOSING) {
		if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
			px_conn_free(c);
		return;
	}
	/* back-pressure: the client drained, resume the upstream */
	if (c->state == HS_FORWARD && h->ubev != NULL &&
	    h->resp_state == RS_BODY &&
	    evbuffer_get_length(bufferevent_get_output(bev)) <
	    PX_HIGH_WATER / 2) {
		px_reader_on(&h->urd);
		http_upstream_read(h->ubev, c);
	}
}

static void
http_client_event(struct bufferevent *bev, short what, void *arg)
{
	struct px_conn *c = arg;
	struct px_http *h = c->http;

	(void)bev;
	if ((what & BEV_EVENT_EOF) && c->state == HS_FORWARD && h->req_done) {
		/* the client half-closed after its request: finish it */
		h->keep = 0;
		return;
	}
	if ((what & BEV_EVENT_TIMEOUT) && c->state == HS_FORWARD &&
	    h->req_done)
		/*
		 * Reading stays on while the upstream answers, so its
		 * handshake timeout can fire during a slow response: not
		 * the client's fault.  libevent stopped reading; the end
		 * of the exchange starts it again.
		 */
		return;
	px_conn_free(c);
}

static void
http_accept(struct px_session *s, int fd, int hostep)
{
	struct px_conn *c = px_conn_new(s, PX_CONN_HTTP, fd);

	c->http = xcalloc(1, sizeof(*c->http));
	c->http->hostep = hostep;
	c->state = HS_HEAD;
	bufferevent_setcb(c->cbev, NULL, http_client_write, http_client_event,
	    c);
	/* the high water bounds what a pipelining client makes us buffer */
	px_reader_init(&c->rd, c->cbev, http_client_read, http_client_event, c,
	    PX_HANDSHAKE_TIMEOUT, PX_HIGH_WATER);
	switch (px_conn_read_now(c)) {
	case -1:
		px_conn_free(c);
		break;
	case 0:
		px_reader_on(&c->rd);
		break;
	default:
		/* it enables reading itself while the head is incomplete */
		http_client_read(c->cbev, c);
		break;
	}
}

void
px_http_accept(struct px_session *s, int fd)
{
	http_accept(s, fd, 0);
}

void
px_hostep_accept(struct px_session *s, int fd)
{
	http_accept(s, fd, 1);
}
