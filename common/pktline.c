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

static void	pkt_buf_add(struct pkt_buf *, const void *, size_t);

/* Append a copy of n bytes as a string to a NULL-terminated vector. */
static char **
strv_add_n(char **v, const char *s, size_t n)
{
	char	*t = xstrndup(s, n);

	v = strv_add(v, t);
	free(t);
	return v;
}

/* ---- reading ---- */

void
pkt_reader_init(struct pkt_reader *r)
{
	r->nhdr = 0;
	r->need = 0;
	r->have = 0;
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
			if ((v = hex_digit(r->hdr[i])) == -1) {
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

/*
 * The capabilities git's send-pack may ask receive-pack for, matched by
 * name as git's parse_feature_request() does ("name" or "name=value").
 * Only these are forwarded, in this spelling (see rp_caps_write()).
 */
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
	free(rq->agent);
	free(rq->session_id);
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

/* A capability's value: printable, no space (git's agent= is the same). */
static char *
cap_value(struct rp_request *rq, const uint8_t *v, size_t len,
    const char *old)
{
	if (len == 0 || len > RP_CAP_VALUE_MAX) {
		rp_fail(rq, "capability value empty or too long");
		return NULL;
	}
	/* Two different values: git reads the first, a code host may read
	 * the last; what we check must be what upstream acts on. */
	if (old != NULL && (strlen(old) != len || memcmp(old, v, len) != 0)) {
		rp_fail(rq, "a capability given twice with different values");
		return NULL;
	}
	return xstrndup((const char *)v, len);
}

int
rp_caps_parse(struct rp_request *rq, const uint8_t *p, size_t len)
{
	const uint8_t	*tok, *end = p + len, *sp, *eq, *val;
	size_t		 i, nlen, vlen, hexlen;
	char		*v;

	for (i = 0; i < len; i++)
		if (p[i] < 0x20 || p[i] >= 0x7f)
			return rp_fail(rq, "control byte in capabilities");
	free(rq->caps);
	rq->caps = xstrndup((const char *)p, len);
	/*
	 * Space-separated tokens, each "name" or "name=value", as git's
	 * parse_feature_request() reads them: "push-options=1" asks for
	 * push options exactly as "push-options" does.  Empty tokens
	 * (doubled spaces) are nothing.
	 */
	for (tok = p; tok < end; tok = sp + 1) {
		if ((sp = memchr(tok, ' ', (size_t)(end - tok))) == NULL)
			sp = end;
		if (sp == tok)
			continue;
		eq = memchr(tok, '=', (size_t)(sp - tok));
		nlen = (size_t)((eq != NULL ? eq : sp) - tok);
		val = eq != NULL ? eq + 1 : sp;
		vlen = (size_t)(sp - val);
		for (i = 0; i < sizeof(rp_caps) / sizeof(rp_caps[0]); i++)
			if (strlen(rp_caps[i].name) == nlen &&
			    memcmp(rp_caps[i].name, tok, nlen) == 0)
				rq->capflags |= rp_caps[i].flag;
#define CAP_IS(n)	(nlen == sizeof(n) - 1 && memcmp(tok, n, nlen) == 0)
		if (CAP_IS("push-cert"))
			return rp_fail(rq, "signed pushes are not supported");
		if (CAP_IS("object-format")) {
			if (vlen == 4 && memcmp(val, "sha1", 4) == 0)
				hexlen = 40;
			else if (vlen == 6 && memcmp(val, "sha256", 6) == 0)
				hexlen = 64;
			else
				return rp_fail(rq, "unknown object-format");
			if (rq->hexlen != 0 && rq->hexlen != hexlen)
				return rp_fail(rq, "two object formats");
			rq->hexlen = hexlen;
			rq->objfmt_given = 1;
		} else if (CAP_IS("agent")) {
			if ((v = cap_value(rq, val, vlen, rq->agent)) == NULL)
				return -1;
			free(rq->agent);
			rq->agent = v;
		} else if (CAP_IS("session-id")) {
			if ((v = cap_value(rq, val, vlen, rq->session_id)) ==
			    NULL)
				return -1;
			free(rq->session_id);
			rq->session_id = v;
		}
#undef CAP_IS
	}
	return 0;
}

void
rp_caps_write(struct pkt_buf *out, const struct rp_request *rq,
    uint32_t drop)
{
	const char	*sep = "";
	size_t		 i;
	char		*s;

	for (i = 0; i < sizeof(rp_caps) / sizeof(rp_caps[0]); i++) {
		if (!(rq->capflags & rp_caps[i].flag) ||
		    (drop & rp_caps[i].flag))
			continue;
		xasprintf(&s, "%s%s", sep, rp_caps[i].name);
		pkt_buf_add(out, s, strlen(s));
		free(s);
		sep = " ";
	}
	if (rq->hexlen == 64 || rq->objfmt_given) {
		xasprintf(&s, "%sobject-format=%s", sep,
		    rq->hexlen == 64 ? "sha256" : "sha1");
		pkt_buf_add(out, s, strlen(s));
		free(s);
		sep = " ";
	}
	if (rq->session_id != NULL) {
		xasprintf(&s, "%ssession-id=%s", sep, rq->session_id);
		pkt_buf_add(out, s, strlen(s));
		free(s);
		sep = " ";
	}
	if (rq->agent != NULL) {
		xasprintf(&s, "%sagent=%s", sep, rq->agent);
		pkt_buf_add(out, s, strlen(s));
		free(s);
	}
}

/* "<old> <new> <ref>[\0caps]" with the trailing LF already removed. */
static int
rp_parse_command(struct rp_request *rq, const uint8_t *p, size_t len)
{
	struct rp_cmd	*c;
	const uint8_t	*sp1, *sp2, *nul;
	size_t		 reflen, hexlen;
	size_t		 i;

	if (rq->ncmds >= RP_MAX_COMMANDS) {
		rq->over_limit = 1;
		return rp_fail(rq, "more refs in one push than the gateway "
		    "takes (" RP_MAX_COMMANDS_STR ")");
	}
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
		if (rp_caps_parse(rq, nul + 1, (size_t)(p + len - nul - 1))
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

	/* Doubling: 10,000 commands must not cost 10,000 copies. */
	if (rq->ncmds == rq->cmds_cap) {
		rq->cmds_cap = rq->cmds_cap ? rq->cmds_cap * 2 : 16;
		rq->cmds = xreallocarray(rq->cmds, rq->cmds_cap,
		    sizeof(*rq->cmds));
	}
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
			rq->over_limit = 1;
			rp_fail(rq, "command list longer than the gateway "
			    "takes (8 MiB)");
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
pkt_put_delim(struct pkt_buf *b)
{
	pkt_buf_add(b, "0001", 4);
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
rp_report_unpack_error(struct pkt_buf *out, const struct rp_request *rq,
    const char *reason)
{
	struct pkt_buf	 rep = { 0 }, line = { 0 };

	pkt_buf_add(&line, "unpack ", 7);
	put_sanitised(&line, reason, 1024);
	pkt_buf_add(&line, "\n", 1);
	pkt_put(&rep, line.data, line.len);
	pkt_put_flush(&rep);
	if (rq->capflags & (RP_CAP_SIDE_BAND_64K | RP_CAP_SIDE_BAND)) {
		pkt_put_sideband(out, 1, rep.data, rep.len);
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
	size_t		 i;

	for (i = 0; i < rq->nshallow; i++)
		pkt_putf(out, "shallow %s", rq->shallow[i]);
	/* What upstream acts on is what was checked: the capabilities as
	 * parsed, in their one spelling, never the client's text. */
	if (rq->caps != NULL)
		rp_caps_write(&caps, rq, drop);
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
		/* Never longer than what was read, but never send a
		 * packet that does not fit either. */
		(void)pkt_put(out, line.data, line.len);
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

int
rp_lsrefs_symrefs(const uint8_t *p, size_t len, char ***pairs,
    const char **why)
{
	struct pkt_reader rd;
	struct pkt	 pk;
	const char	*tok, *end, *sp, *ref = NULL;
	size_t		 off = 0, used, reflen = 0, n;
	char		**v = xcalloc(1, sizeof(char *));
	int		 i;

	pkt_reader_init(&rd);
	for (;;) {
		if (off == len) {
			*why = "the ref list ended without a flush";
			goto bad;
		}
		switch (pkt_reader_feed(&rd, p + off, len - off, &used, &pk,
		    why)) {
		case PKT_ERROR:
			goto bad;
		case PKT_MORE:
			off += used;
			continue;
		case PKT_PACKET:
			off += used;
			break;
		}
		if (pk.kind == PKT_FLUSH)
			break;
		if (pk.kind != PKT_DATA) {
			*why = "unexpected packet in the ref list";
			goto bad;
		}
		n = pk.len;
		if (n > 0 && pk.data[n - 1] == '\n')
			n--;
		tok = (const char *)pk.data;
		end = tok + n;
		/* "<oid|unborn> <ref>[ <attribute>]..." */
		for (i = 0; tok < end; i++, tok = sp + 1) {
			if ((sp = memchr(tok, ' ', (size_t)(end - tok))) ==
			    NULL)
				sp = end;
			if (i == 1) {
				ref = tok;
				reflen = (size_t)(sp - tok);
			} else if (i > 1 && (size_t)(sp - tok) > 14 &&
			    memcmp(tok, "symref-target:", 14) == 0) {
				v = strv_add_n(v, ref, reflen);
				v = strv_add_n(v, tok + 14,
				    (size_t)(sp - tok) - 14);
			}
			if (sp == end)
				break;
		}
		if (i < 1) {
			*why = "malformed line in the ref list";
			goto bad;
		}
	}
	*pairs = v;
	return 0;
bad:
	strv_free(v);
	*pairs = NULL;
	return -1;
}
