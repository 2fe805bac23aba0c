// SPDX-License-Identifier: ISC
/*
 * The request stream toward a masked host (maskstream.h).  A head is
 * judged as a whole before a byte of it is forwarded; a body is passed
 * on only as far as its head framed it, so the next head is found where
 * the server will find it too, and a malformed chunked body ends the
 * connection before it could hide a head from this judgement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/maskstream.h"

enum {
	MS_HEAD = 0,
	MS_LENGTH,
	MS_CHUNKED,
	MS_RAW,		/* after an Upgrade: the same host's bytes */
};

void
mstream_init(struct mstream *ms, const char *host, uint16_t port,
    const struct mask_ent *ents, size_t nent)
{
	memset(ms, 0, sizeof(*ms));
	ms->host = host;
	ms->port = port;
	ms->ents = ents;
	ms->nent = nent;
	ms->state = MS_HEAD;
}

void
mstream_inspect(struct mstream *ms, const struct inspect_rule *r, size_t n)
{
	ms->rules = r;
	ms->nrules = n;
	ms->inspect = 1;
}

void
mstream_no_upgrade(struct mstream *ms)
{
	ms->no_upgrade = 1;
}

void
mstream_out_free(struct mstream_out *o)
{
	if (o->owned != NULL)
		mask_head_free(o->owned, o->outlen);
	o->owned = NULL;
}

static enum mstream_res
refuse(struct mstream_out *o, int status, const char *why)
{
	o->status = status;
	snprintf(o->why, sizeof(o->why), "%s", why);
	return MSTREAM_REFUSE;
}

/*
 * The Host header names the connection's own host (and port, if it says
 * one): a server behind a shared front end routes by it, and the value
 * must not reach another of its hosts.
 */
static int
host_matches(const struct mstream *ms, const struct http_request *r)
{
	const char	*h;
	char		 host[HTTP_HOST_MAX];
	uint16_t	 port;
	int		 v6;
	const char	*why;
	size_t		 n;

	/* Without Host (HTTP/1.0) a shared front end routes to its default
	 * host, which may be another: the header is required here. */
	if ((h = http_header_get(r->hdrs, r->nhdrs, "host")) == NULL)
		return 0;
	if (http_authority_parse(h, strlen(h), ms->port, host, &port, &v6,
	    &why) == -1)
		return 0;
	n = strlen(host);
	if (n > 0 && host[n - 1] == '.')
		host[n - 1] = '\0';
	return strcasecmp(host, ms->host) == 0 && port == ms->port;
}

static enum mstream_res
step_head(struct mstream *ms, const char *in, size_t len,
    struct mstream_out *o)
{
	struct http_request req;
	enum mask_verdict v;
	const char	*why;
	char		*rw;
	size_t		 hl, rwlen;

	if (len > HTTP_HEAD_MAX)
		len = HTTP_HEAD_MAX;
	switch (http_head_scan(in, len, &hl)) {
	case HTTP_SCAN_MORE:
		return MSTREAM_MORE;
	case HTTP_SCAN_ERROR:
		return refuse(o, 400, "malformed request head");
	default:
		break;
	}
	memset(&req, 0, sizeof(req));
	if (http_request_parse(in, hl, &req, &why) == -1)
		return refuse(o, 400, why);
	if (req.form != HTTP_FORM_ORIGIN && req.form != HTTP_FORM_ASTERISK) {
		http_request_free(&req);
		return refuse(o, 400, "origin-form requests only inside TLS");
	}
	if (!host_matches(ms, &req)) {
		http_request_free(&req);
		return refuse(o, 403, "the Host header names another host "
		    "than the connection's");
	}
	/*
	 * An Upgrade would leave every later byte of the connection
	 * unjudged, whether or not the server switches (most ignore one
	 * they do not speak and go on with HTTP/1.1): refused where
	 * requests are judged.
	 */
	if (ms->no_upgrade && http_header_get(req.hdrs, req.nhdrs,
	    "upgrade") != NULL) {
		http_request_free(&req);
		return refuse(o, 403, MSTREAM_NO_UPGRADE);
	}
	if (ms->inspect && http_header_get(req.hdrs, req.nhdrs, "upgrade") !=
	    NULL) {
		http_request_free(&req);
		snprintf(o->why, sizeof(o->why), "an Upgrade is not allowed "
		    "on an inspected host: what follows would pass unjudged");
		o->rule = 1;
		o->status = 403;
		return MSTREAM_REFUSE;
	}
	/* Judged before any rewrite: a refused request never leaves. */
	if (ms->inspect && (req.form != HTTP_FORM_ORIGIN ||
	    inspect_judge(ms->rules, ms->nrules, req.method, req.target,
	    o->why, sizeof(o->why)) == -1)) {
		if (req.form != HTTP_FORM_ORIGIN)
			snprintf(o->why, sizeof(o->why), "OPTIONS * is not "
			    "judged on an inspected host");
		http_request_free(&req);
		o->rule = 1;
		o->status = 403;
		return MSTREAM_REFUSE;
	}
	v = mask_head(in, hl, ms->host, ms->ents, ms->nent, &rw, &rwlen,
	    &o->which, o->why, sizeof(o->why));
	switch (v) {
	case MASK_EXFIL:
		http_request_free(&req);
		o->exfil = 1;
		return refuse(o, 403, "credential-exfiltration");
	case MASK_BAD:
		http_request_free(&req);
		o->status = 400;
		return MSTREAM_REFUSE;
	case MASK_REWRITTEN:
		/* TRACE and TRACK answer with the request as the server got
		 * it, the real value in it: never sent with one. */
		if (strcasecmp(req.method, "TRACE") == 0 ||
		    strcasecmp(req.method, "TRACK") == 0) {
			mask_head_free(rw, rwlen);
			http_request_free(&req);
			o->rule = 1;
			return refuse(o, 405, MSTREAM_NO_TRACE);
		}
		o->owned = rw;
		o->out = rw;
		o->outlen = rwlen;
		break;
	default:
		o->out = in;
		o->outlen = hl;
		break;
	}
	o->used = hl;
	if (http_header_get(req.hdrs, req.nhdrs, "upgrade") != NULL)
		ms->state = MS_RAW;
	else if (req.body == HTTP_BODY_LENGTH && req.content_length > 0) {
		ms->state = MS_LENGTH;
		ms->left = req.content_length;
	} else if (req.body == HTTP_BODY_CHUNKED) {
		ms->state = MS_CHUNKED;
		http_chunked_init(&ms->chunk);
	}
	http_request_free(&req);
	return MSTREAM_HEAD;
}

enum mstream_res
mstream_step(struct mstream *ms, const char *in, size_t len,
    struct mstream_out *o)
{
	enum http_chunk_result res;
	size_t		 dlen;

	memset(o, 0, sizeof(*o));
	if (len == 0)
		return MSTREAM_MORE;
	switch (ms->state) {
	case MS_HEAD:
		return step_head(ms, in, len, o);
	case MS_LENGTH:
		o->used = len > ms->left ? (size_t)ms->left : len;
		if ((ms->left -= o->used) == 0)
			ms->state = MS_HEAD;
		return MSTREAM_PASS;
	case MS_CHUNKED:
		res = http_chunked_feed(&ms->chunk, in, len, &o->used, &dlen);
		if (res == HTTP_CHUNK_ERROR)
			return refuse(o, 400, "malformed chunked body");
		if (res == HTTP_CHUNK_DONE)
			ms->state = MS_HEAD;
		return o->used > 0 ? MSTREAM_PASS : MSTREAM_MORE;
	default:
		o->used = len;
		return MSTREAM_PASS;
	}
}
