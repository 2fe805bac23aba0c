/* SPDX-License-Identifier: ISC */
/*
 * pkt-line reader and writer, the receive-pack command-list parser and the
 * report-status writer gatewayd answers a refused push with.  See
 * pktline.h for the format.  Every byte parsed here comes from the sandbox
 * (the agent's git, or anything the agent sends instead of git).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pktline.h"
#include "common/xmalloc.h"

/* ---- reading ---- */

void
pkt_reader_init(struct pkt_reader *r)
{
	r->nhdr = 0;
	r->need = 0;
	r->have = 0;
}

static int
hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

enum pkt_result
pkt_reader_feed(struct pkt_reader *r, const uint8_t *p, size_t len,
    size_t *used, struct pkt *out, const char **why)
{
	size_t	off = 0, n, total;
	int	i, v;

	*used = 0;
	while (r->nhdr < 4) {
		if (off == len) {
			*used = off;
			return PKT_MORE;
		}
		r->hdr[r->nhdr++] = p[off++];
		if (r->nhdr < 4)
			continue;
		total = 0;
		for (i = 0; i < 4; i++) {
			if ((v = hexval(r->hdr[i])) == -1) {
				*used = off;
				*why = "pkt-line length is not hex";
				return PKT_ERROR;
			}
			total = total * 16 + (size_t)v;
		}
		if (total <= 2) {
			r->nhdr = 0;
			*used = off;
			out->kind = total == 0 ? PKT_FLUSH : total == 1 ?
			    PKT_DELIM : PKT_RESPONSE_END;
			out->data = NULL;
			out->len = 0;
			return PKT_PACKET;
		}
		if (total < 4 || total > PKT_MAX) {
			*used = off;
			*why = "pkt-line length out of range";
			return PKT_ERROR;
		}
		r->need = total - 4;
		r->have = 0;
	}
	n = len - off;
	if (n > r->need - r->have)
		n = r->need - r->have;
	memcpy(r->buf + r->have, p + off, n);
	r->have += n;
	off += n;
	*used = off;
	if (r->have < r->need)
		return PKT_MORE;
	r->nhdr = 0;
	out->kind = PKT_DATA;
	out->data = r->buf;
	out->len = r->need;
	return PKT_PACKET;
}

/* ---- the receive-pack request ---- */

static const struct {
	const char	*name;
	uint32_t	 flag;
} rp_caps[] = {
	{ "report-status",	RP_CAP_REPORT_STATUS },
	{ "report-status-v2",	RP_CAP_REPORT_STATUS_V2 },
	{ "side-band-64k",	RP_CAP_SIDE_BAND_64K },
	{ "side-band",		RP_CAP_SIDE_BAND },
	{ "atomic",		RP_CAP_ATOMIC },
	{ "push-options",	RP_CAP_PUSH_OPTIONS },
	{ "quiet",		RP_CAP_QUIET },
	{ "ofs-delta",		RP_CAP_OFS_DELTA },
};

struct rp_request *
rp_request_new(void)
{
	struct rp_request *rq;

	rq = xcalloc(1, sizeof(*rq));
	pkt_reader_init(&rq->rd);
	rq->shallow = xcalloc(1, sizeof(char *));
	rq->options = xcalloc(1, sizeof(char *));
	return rq;
}

void
rp_request_free(struct rp_request *rq)
{
	size_t	i;

	if (rq == NULL)
		return;
	for (i = 0; i < rq->ncmds; i++)
		free(rq->cmds[i].ref);
	free(rq->cmds);
	strv_free(rq->shallow);
	strv_free(rq->options);
	free(rq->caps);
	free(rq);
}

const char *
rp_kind_name(enum rp_kind k)
{
	switch (k) {
	case RP_CREATE:
		return "create";
	case RP_UPDATE:
		return "update";
	case RP_DELETE:
		return "delete";
	}
	return "?";
}

static int
rp_fail(struct rp_request *rq, const char *why)
{
	rq->state = RP_FAILED;
	rq->err = why;
	return -1;
}

/* Lower-case hex object id of exactly hexlen digits. */
static int
is_oid(const uint8_t *p, size_t len, size_t hexlen)
{
	size_t	i;

	if (len != hexlen)
		return 0;
	for (i = 0; i < len; i++)
		if (!((p[i] >= '0' && p[i] <= '9') ||
		    (p[i] >= 'a' && p[i] <= 'f')))
			return 0;
	return 1;
}

static int
is_zero_oid(const char *s)
{
	return s[strspn(s, "0")] == '\0';
}

static int
rp_parse_caps(struct rp_request *rq, const uint8_t *p, size_t len)
{
	const uint8_t	*tok, *end = p + len, *sp;
	size_t		 i, tlen;

	for (i = 0; i < len; i++)
		if (p[i] < 0x20 || p[i] >= 0x7f)
			return rp_fail(rq, "control byte in capabilities");
	rq->caps = xstrndup((const char *)p, len);
	for (tok = p; tok < end; tok = sp + 1) {
		sp = memchr(tok, ' ', (size_t)(end - tok));
		if (sp == NULL)
			sp = end;
		tlen = (size_t)(sp - tok);
		for (i = 0; i < sizeof(rp_caps) / sizeof(rp_caps[0]); i++)
			if (strlen(rp_caps[i].name) == tlen &&
			    memcmp(rp_caps[i].name, tok, tlen) == 0)
				rq->capflags |= rp_caps[i].flag;
		if (tlen > 14 && memcmp(tok, "object-format=", 14) == 0) {
			if (tlen == 18 && memcmp(tok + 14, "sha1", 4) == 0)
				rq->hexlen = 40;
			else if (tlen == 20 &&
			    memcmp(tok + 14, "sha256", 6) == 0)
				rq->hexlen = 64;
			else
				return rp_fail(rq, "unknown object-format");
		}
		if (tlen == 9 && memcmp(tok, "push-cert", 9) == 0)
			return rp_fail(rq, "signed pushes are not supported");
	}
	return 0;
}

/* "<old> <new> <ref>[\0caps]" with the trailing LF already removed. */
static int
rp_parse_command(struct rp_request *rq, const uint8_t *p, size_t len)
{
	struct rp_cmd	*c;
	const uint8_t	*sp1, *sp2, *nul;
	size_t		 reflen, hexlen;
	size_t		 i;

	if (rq->ncmds >= RP_MAX_COMMANDS)
		return rp_fail(rq, "too many commands");
	if ((sp1 = memchr(p, ' ', len)) == NULL)
		return rp_fail(rq, "malformed command");
	hexlen = (size_t)(sp1 - p);
	if (hexlen != 40 && hexlen != 64)
		return rp_fail(rq, "malformed object id");
	if (len < 2 * hexlen + 3)
		return rp_fail(rq, "malformed command");
	sp2 = p + 2 * hexlen + 1;
	if (*sp2 != ' ')
		return rp_fail(rq, "malformed command");
	nul = memchr(sp2 + 1, '\0', (size_t)(p + len - (sp2 + 1)));
	reflen = (size_t)((nul != NULL ? nul : p + len) - (sp2 + 1));
	if (nul != NULL) {
		if (rq->ncmds != 0)
			return rp_fail(rq, "capabilities after the first "
			    "command");
		if (rp_parse_caps(rq, nul + 1, (size_t)(p + len - nul - 1))
		    == -1)
			return -1;
	}
	if (rq->hexlen == 0)
		rq->hexlen = hexlen;
	if (!is_oid(p, hexlen, rq->hexlen) ||
	    !is_oid(p + hexlen + 1, hexlen, rq->hexlen))
		return rp_fail(rq, "malformed object id");
	if (reflen == 0)
		return rp_fail(rq, "empty ref name");
	for (i = 0; i < reflen; i++)
		if (sp2[1 + i] < 0x20 || sp2[1 + i] == 0x7f)
			return rp_fail(rq, "control byte in ref name");

	rq->cmds = xreallocarray(rq->cmds, rq->ncmds + 1, sizeof(*rq->cmds));
	c = &rq->cmds[rq->ncmds];
	memset(c, 0, sizeof(*c));
	memcpy(c->old_id, p, hexlen);
	memcpy(c->new_id, p + hexlen + 1, hexlen);
	c->ref = xstrndup((const char *)sp2 + 1, reflen);
	if (is_zero_oid(c->old_id) && is_zero_oid(c->new_id)) {
		free(c->ref);
		return rp_fail(rq, "command with two zero ids");
	}
	c->kind = is_zero_oid(c->old_id) ? RP_CREATE :
	    is_zero_oid(c->new_id) ? RP_DELETE : RP_UPDATE;
	rq->ncmds++;
	return 0;
}

static int
rp_packet(struct rp_request *rq, const struct pkt *pk)
{
	const uint8_t	*d = pk->data;
	size_t		 len = pk->len;

	if (pk->kind == PKT_FLUSH) {
		if (rq->state == RP_COMMANDS && rq->ncmds > 0 &&
		    (rq->capflags & RP_CAP_PUSH_OPTIONS))
			rq->state = RP_OPTIONS;
		else
			rq->state = RP_DONE;
		return 0;
	}
	if (pk->kind != PKT_DATA)
		return rp_fail(rq, "unexpected delimiter packet");
	if (len > 0 && d[len - 1] == '\n')
		len--;
	if (rq->state == RP_OPTIONS) {
		size_t	i;

		if (rq->noptions >= RP_MAX_OPTIONS)
			return rp_fail(rq, "too many push options");
		for (i = 0; i < len; i++)
			if (d[i] < 0x20 || d[i] == 0x7f)
				return rp_fail(rq, "control byte in a push "
				    "option");
		rq->options = xreallocarray(rq->options, rq->noptions + 2,
		    sizeof(char *));
		rq->options[rq->noptions++] = xstrndup((const char *)d, len);
		rq->options[rq->noptions] = NULL;
		return 0;
	}
	if (len >= 8 && memcmp(d, "shallow ", 8) == 0 && rq->ncmds == 0) {
		if (!is_oid(d + 8, len - 8, len - 8) ||
		    (len - 8 != 40 && len - 8 != 64))
			return rp_fail(rq, "malformed shallow line");
		if (rq->nshallow >= RP_MAX_COMMANDS)
			return rp_fail(rq, "too many shallow lines");
		rq->shallow = xreallocarray(rq->shallow, rq->nshallow + 2,
		    sizeof(char *));
		rq->shallow[rq->nshallow++] = xstrndup((const char *)d + 8,
		    len - 8);
		rq->shallow[rq->nshallow] = NULL;
		return 0;
	}
	if (len >= 9 && memcmp(d, "push-cert", 9) == 0)
		return rp_fail(rq, "signed pushes are not supported");
	return rp_parse_command(rq, d, len);
}

size_t
rp_request_feed(struct rp_request *rq, const uint8_t *p, size_t len)
{
	struct pkt	 pk;
	const char	*why;
	size_t		 off = 0, used;

	while (off < len &&
	    (rq->state == RP_COMMANDS || rq->state == RP_OPTIONS)) {
		switch (pkt_reader_feed(&rq->rd, p + off, len - off, &used,
		    &pk, &why)) {
		case PKT_ERROR:
			rp_fail(rq, why);
			return off + used;
		case PKT_MORE:
			off += used;
			break;
		case PKT_PACKET:
			off += used;
			if (rp_packet(rq, &pk) == -1)
				return off;
			break;
		}
		rq->bytes += used;
		if (rq->bytes > RP_MAX_BYTES) {
			rp_fail(rq, "command list too long");
			return off;
		}
	}
	return off;
}

/* ---- writing ---- */

static void
pkt_buf_reserve(struct pkt_buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	while (b->cap < b->len + n)
		b->cap = b->cap ? b->cap * 2 : 256;
	b->data = xreallocarray(b->data, 1, b->cap);
}

static void
pkt_buf_add(struct pkt_buf *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	pkt_buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void
pkt_buf_free(struct pkt_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static void
pkt_hdr(struct pkt_buf *b, size_t datalen)
{
	char	h[5];

	snprintf(h, sizeof(h), "%04zx", datalen + 4);
	pkt_buf_add(b, h, 4);
}

int
pkt_put(struct pkt_buf *b, const void *p, size_t len)
{
	if (len > PKT_DATA_MAX)
		return -1;
	pkt_hdr(b, len);
	pkt_buf_add(b, p, len);
	return 0;
}

int
pkt_putf(struct pkt_buf *b, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;
	int	 n, rv;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	rv = pkt_put(b, s, (size_t)n);
	free(s);
	return rv;
}

void
pkt_put_flush(struct pkt_buf *b)
{
	pkt_buf_add(b, "0000", 4);
}

void
pkt_put_sideband(struct pkt_buf *b, int band, const void *p, size_t len)
{
	const uint8_t	*s = p;
	uint8_t		 c = (uint8_t)band;
	size_t		 n;

	do {
		n = len > PKT_SIDEBAND_MAX ? PKT_SIDEBAND_MAX : len;
		pkt_hdr(b, n + 1);
		pkt_buf_add(b, &c, 1);
		pkt_buf_add(b, s, n);
		s += n;
		len -= n;
	} while (len > 0);
}

/* One line of printable ASCII: a reason must not forge protocol lines. */
static void
put_sanitised(struct pkt_buf *b, const char *s, size_t max)
{
	size_t	i;
	char	c;

	for (i = 0; s[i] != '\0' && i < max; i++) {
		c = s[i];
		if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
			c = '?';
		pkt_buf_add(b, &c, 1);
	}
}

void
rp_report_refusal(struct pkt_buf *out, const struct rp_request *rq,
    const char *const *reasons)
{
	struct pkt_buf	 rep = { 0 }, line = { 0 };
	size_t		 i;

	pkt_putf(&rep, "unpack ok\n");
	for (i = 0; i < rq->ncmds; i++) {
		line.len = 0;
		pkt_buf_add(&line, "ng ", 3);
		/* A ref name is at most PKT_DATA_MAX - 2 * 65 bytes. */
		put_sanitised(&line, rq->cmds[i].ref, PKT_DATA_MAX / 2);
		pkt_buf_add(&line, " ", 1);
		put_sanitised(&line, reasons[i] != NULL && reasons[i][0] ?
		    reasons[i] : "refused", 1024);
		pkt_buf_add(&line, "\n", 1);
		pkt_put(&rep, line.data, line.len);
	}
	pkt_put_flush(&rep);
	if (rq->capflags & (RP_CAP_SIDE_BAND_64K | RP_CAP_SIDE_BAND)) {
		/* side-band (not 64k) allows 1000-byte packets only. */
		size_t	max = (rq->capflags & RP_CAP_SIDE_BAND_64K) ?
		    PKT_SIDEBAND_MAX : 995;
		size_t	off, n;

		for (off = 0; off < rep.len; off += n) {
			n = rep.len - off > max ? max : rep.len - off;
			pkt_put_sideband(out, 1, rep.data + off, n);
		}
		pkt_put_flush(out);
	} else
		pkt_buf_add(out, rep.data, rep.len);
	pkt_buf_free(&rep);
	pkt_buf_free(&line);
}

void
rp_request_rewrite(struct pkt_buf *out, const struct rp_request *rq,
    uint32_t drop)
{
	struct pkt_buf	 caps = { 0 }, line = { 0 };
	const char	*tok, *sp;
	size_t		 i, j, tlen;
	int		 keep;

	for (i = 0; i < rq->nshallow; i++)
		pkt_putf(out, "shallow %s", rq->shallow[i]);
	if (rq->caps != NULL) {
		for (tok = rq->caps; *tok != '\0'; tok = *sp ? sp + 1 : sp) {
			sp = strchr(tok, ' ');
			if (sp == NULL)
				sp = tok + strlen(tok);
			tlen = (size_t)(sp - tok);
			keep = tlen > 0;
			for (j = 0; j < sizeof(rp_caps) / sizeof(rp_caps[0]);
			    j++)
				if ((drop & rp_caps[j].flag) &&
				    strlen(rp_caps[j].name) == tlen &&
				    memcmp(rp_caps[j].name, tok, tlen) == 0)
					keep = 0;
			if (!keep)
				continue;
			if (caps.len > 0)
				pkt_buf_add(&caps, " ", 1);
			pkt_buf_add(&caps, tok, tlen);
		}
	}
	for (i = 0; i < rq->ncmds; i++) {
		line.len = 0;
		pkt_buf_add(&line, rq->cmds[i].old_id,
		    strlen(rq->cmds[i].old_id));
		pkt_buf_add(&line, " ", 1);
		pkt_buf_add(&line, rq->cmds[i].new_id,
		    strlen(rq->cmds[i].new_id));
		pkt_buf_add(&line, " ", 1);
		pkt_buf_add(&line, rq->cmds[i].ref, strlen(rq->cmds[i].ref));
		if (i == 0 && rq->caps != NULL) {
			pkt_buf_add(&line, "", 1);
			pkt_buf_add(&line, caps.data, caps.len);
		}
		/* It was read from one packet and only shrank, but its LF
		 * may have been missing: then send it without. */
		if (line.len < PKT_DATA_MAX)
			pkt_buf_add(&line, "\n", 1);
		pkt_put(out, line.data, line.len);
	}
	pkt_put_flush(out);
	if ((rq->capflags & RP_CAP_PUSH_OPTIONS) &&
	    !(drop & RP_CAP_PUSH_OPTIONS) && rq->ncmds > 0) {
		for (i = 0; i < rq->noptions; i++)
			pkt_put(out, rq->options[i],
			    strlen(rq->options[i]));
		pkt_put_flush(out);
	}
	pkt_buf_free(&caps);
	pkt_buf_free(&line);
}
