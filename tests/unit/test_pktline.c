/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for common/pktline.c: pkt-line framing fed byte by byte and
 * in one piece, the receive-pack command list as git 2.39 sends it, and
 * the refusal report git must be able to read.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pktline.h"
#include "common/xmalloc.h"
#include "tests/unit/unit.h"

#define Z40 "0000000000000000000000000000000000000000"
#define A40 "1111111111111111111111111111111111111111"
#define B40 "2222222222222222222222222222222222222222"

static void
add_pkt(struct pkt_buf *b, const char *s, size_t len)
{
	ck_assert_int_eq(pkt_put(b, s, len), 0);
}

/* Feed in pieces of `step` bytes; returns bytes consumed in total. */
static size_t
feed(struct rp_request *rq, const uint8_t *p, size_t len, size_t step)
{
	size_t	off = 0, n, used;

	while (off < len && (rq->state == RP_COMMANDS ||
	    rq->state == RP_OPTIONS)) {
		n = len - off < step ? len - off : step;
		used = rp_request_feed(rq, p + off, n);
		off += used;
		if (used < n)
			break;
	}
	return off;
}

START_TEST(test_reader_special)
{
	struct pkt_reader r;
	struct pkt	 pk;
	const char	*why;
	size_t		 used;

	pkt_reader_init(&r);
	ck_assert_int_eq(pkt_reader_feed(&r, (const uint8_t *)"0000", 4,
	    &used, &pk, &why), PKT_PACKET);
	ck_assert_int_eq(pk.kind, PKT_FLUSH);
	ck_assert_int_eq(pkt_reader_feed(&r, (const uint8_t *)"0001", 4,
	    &used, &pk, &why), PKT_PACKET);
	ck_assert_int_eq(pk.kind, PKT_DELIM);
	ck_assert_int_eq(pkt_reader_feed(&r, (const uint8_t *)"0002", 4,
	    &used, &pk, &why), PKT_PACKET);
	ck_assert_int_eq(pk.kind, PKT_RESPONSE_END);
	ck_assert_int_eq(pkt_reader_feed(&r, (const uint8_t *)"0003", 4,
	    &used, &pk, &why), PKT_ERROR);
	pkt_reader_init(&r);
	ck_assert_int_eq(pkt_reader_feed(&r, (const uint8_t *)"fff1", 4,
	    &used, &pk, &why), PKT_ERROR);
	pkt_reader_init(&r);
	ck_assert_int_eq(pkt_reader_feed(&r, (const uint8_t *)"00g5", 4,
	    &used, &pk, &why), PKT_ERROR);
	pkt_reader_init(&r);
	/* The maximum length is accepted. */
	ck_assert_int_eq(pkt_reader_feed(&r, (const uint8_t *)"fff0", 4,
	    &used, &pk, &why), PKT_MORE);
}
END_TEST

START_TEST(test_reader_split)
{
	struct pkt_reader r;
	struct pkt	 pk;
	const char	*why, *in = "0009hello0006hi0000";
	size_t		 used, off = 0;
	int		 got = 0;

	pkt_reader_init(&r);
	while (off < strlen(in)) {
		enum pkt_result res = pkt_reader_feed(&r,
		    (const uint8_t *)in + off, 1, &used, &pk, &why);
		ck_assert_int_ne(res, PKT_ERROR);
		off += used;
		if (res == PKT_PACKET) {
			if (got == 0)
				ck_assert(pk.len == 5 &&
				    memcmp(pk.data, "hello", 5) == 0);
			if (got == 1)
				ck_assert(pk.len == 2 &&
				    memcmp(pk.data, "hi", 2) == 0);
			if (got == 2)
				ck_assert_int_eq(pk.kind, PKT_FLUSH);
			got++;
		}
	}
	ck_assert_int_eq(got, 3);
}
END_TEST

static const char first_cmd[] = Z40 " " A40 " refs/heads/feature\0"
    "report-status-v2 side-band-64k quiet atomic push-options "
    "object-format=sha1 agent=git/2.39.5\n";

static void
build_push(struct pkt_buf *b)
{
	char	line[200];
	int	n;

	add_pkt(b, first_cmd, sizeof(first_cmd) - 1);
	n = snprintf(line, sizeof(line), "%s %s refs/heads/main\n", A40, B40);
	add_pkt(b, line, (size_t)n);
	n = snprintf(line, sizeof(line), "%s %s refs/heads/old\n", B40, Z40);
	add_pkt(b, line, (size_t)n);
	pkt_put_flush(b);
	add_pkt(b, "ci.skip\n", 8);
	add_pkt(b, "merge_request.create", 20);
	pkt_put_flush(b);
}

START_TEST(test_commands)
{
	struct pkt_buf	 b = { 0 };
	struct rp_request *rq;
	size_t		 steps[] = { 1, 3, 7, 4096 }, i, used, plen;

	build_push(&b);
	plen = b.len;
	/* the pack follows */
	b.data = realloc(b.data, b.len + 8);
	memcpy(b.data + b.len, "PACK\0\0\0\2", 8);
	b.len += 8;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		rq = rp_request_new();
		used = feed(rq, b.data, b.len, steps[i]);
		ck_assert_int_eq(rq->state, RP_DONE);
		ck_assert_uint_eq(used, plen);
		ck_assert_uint_eq(rq->ncmds, 3);
		ck_assert_uint_eq(rq->hexlen, 40);
		ck_assert_str_eq(rq->cmds[0].ref, "refs/heads/feature");
		ck_assert_int_eq(rq->cmds[0].kind, RP_CREATE);
		ck_assert_str_eq(rq->cmds[1].ref, "refs/heads/main");
		ck_assert_int_eq(rq->cmds[1].kind, RP_UPDATE);
		ck_assert_str_eq(rq->cmds[1].old_id, A40);
		ck_assert_str_eq(rq->cmds[1].new_id, B40);
		ck_assert_int_eq(rq->cmds[2].kind, RP_DELETE);
		ck_assert(rq->capflags & RP_CAP_REPORT_STATUS_V2);
		ck_assert(rq->capflags & RP_CAP_SIDE_BAND_64K);
		ck_assert(rq->capflags & RP_CAP_ATOMIC);
		ck_assert(rq->capflags & RP_CAP_PUSH_OPTIONS);
		ck_assert(!(rq->capflags & RP_CAP_REPORT_STATUS));
		ck_assert_uint_eq(rq->noptions, 2);
		ck_assert_str_eq(rq->options[0], "ci.skip");
		ck_assert_str_eq(rq->options[1], "merge_request.create");
		rp_request_free(rq);
	}
	pkt_buf_free(&b);
}
END_TEST

START_TEST(test_probe_and_delete_only)
{
	struct rp_request *rq;
	struct pkt_buf	 b = { 0 };
	char		 line[200];
	int		 n;

	rq = rp_request_new();
	ck_assert_uint_eq(rp_request_feed(rq, (const uint8_t *)"0000", 4), 4);
	ck_assert_int_eq(rq->state, RP_DONE);
	ck_assert_uint_eq(rq->ncmds, 0);
	rp_request_free(rq);

	n = snprintf(line, sizeof(line), "%s %s refs/heads/x%creport-status",
	    A40, Z40, '\0');
	add_pkt(&b, line, (size_t)n);
	pkt_put_flush(&b);
	rq = rp_request_new();
	ck_assert_uint_eq(rp_request_feed(rq, b.data, b.len), b.len);
	ck_assert_int_eq(rq->state, RP_DONE);
	ck_assert_uint_eq(rq->ncmds, 1);
	ck_assert_int_eq(rq->cmds[0].kind, RP_DELETE);
	ck_assert(rq->capflags & RP_CAP_REPORT_STATUS);
	rp_request_free(rq);
	pkt_buf_free(&b);
}
END_TEST

START_TEST(test_sha256)
{
	struct rp_request *rq;
	struct pkt_buf	 b = { 0 };
	char		 line[300], a[65], z[65];
	int		 n;

	memset(a, 'a', 64);
	a[64] = '\0';
	memset(z, '0', 64);
	z[64] = '\0';
	n = snprintf(line, sizeof(line), "%s %s refs/heads/x%c"
	    "object-format=sha256\n", z, a, '\0');
	add_pkt(&b, line, (size_t)n);
	pkt_put_flush(&b);
	rq = rp_request_new();
	rp_request_feed(rq, b.data, b.len);
	ck_assert_int_eq(rq->state, RP_DONE);
	ck_assert_uint_eq(rq->hexlen, 64);
	ck_assert_int_eq(rq->cmds[0].kind, RP_CREATE);
	rp_request_free(rq);

	/* sha1 ids with object-format=sha256 are refused. */
	b.len = 0;
	n = snprintf(line, sizeof(line), "%s %s refs/heads/x%c"
	    "object-format=sha256\n", Z40, A40, '\0');
	add_pkt(&b, line, (size_t)n);
	rq = rp_request_new();
	rp_request_feed(rq, b.data, b.len);
	ck_assert_int_eq(rq->state, RP_FAILED);
	rp_request_free(rq);
	pkt_buf_free(&b);
}
END_TEST

static void
expect_failed(const char *s, size_t len)
{
	struct rp_request *rq;
	struct pkt_buf	 b = { 0 };

	add_pkt(&b, s, len);
	pkt_put_flush(&b);
	rq = rp_request_new();
	rp_request_feed(rq, b.data, b.len);
	ck_assert_msg(rq->state == RP_FAILED, "accepted: %.*s", (int)len, s);
	ck_assert_ptr_nonnull(rq->err);
	rp_request_free(rq);
	pkt_buf_free(&b);
}

START_TEST(test_malformed)
{
	const char bad1[] = Z40 " " Z40 " refs/heads/x\n";
	const char bad2[] = Z40 " " A40 " \n";
	const char bad3[] = Z40 "  " A40 " refs/heads/x\n";
	const char bad4[] = "ABCDEF" " " A40 " refs/heads/x\n";
	const char bad5[] = Z40 " " A40 " refs/heads/\x01x\n";
	const char bad6[] = "push-cert\0report-status\n";
	const char bad7[] = Z40 " " A40 " refs/heads/x\0object-format=md5\n";
	const char bad8[] = "1111111111111111111111111111111111111A "
	    A40 " refs/heads/x\n";

	expect_failed(bad1, sizeof(bad1) - 1);
	expect_failed(bad2, sizeof(bad2) - 1);
	expect_failed(bad3, sizeof(bad3) - 1);
	expect_failed(bad4, sizeof(bad4) - 1);
	expect_failed(bad5, sizeof(bad5) - 1);
	expect_failed(bad6, sizeof(bad6) - 1);
	expect_failed(bad7, sizeof(bad7) - 1);
	expect_failed(bad8, sizeof(bad8) - 1);
	expect_failed("", 0);
}
END_TEST

START_TEST(test_caps_on_second)
{
	struct rp_request *rq;
	struct pkt_buf	 b = { 0 };
	const char	 c1[] = Z40 " " A40 " refs/heads/a\n";
	const char	 c2[] = Z40 " " A40 " refs/heads/b\0atomic\n";

	add_pkt(&b, c1, sizeof(c1) - 1);
	add_pkt(&b, c2, sizeof(c2) - 1);
	rq = rp_request_new();
	rp_request_feed(rq, b.data, b.len);
	ck_assert_int_eq(rq->state, RP_FAILED);
	rp_request_free(rq);
	pkt_buf_free(&b);
}
END_TEST

/* Parse a report back the way git would and check every line. */
START_TEST(test_report_sideband)
{
	struct pkt_buf	 b = { 0 }, out = { 0 }, inner = { 0 };
	struct rp_request *rq;
	struct pkt_reader r;
	struct pkt	 pk;
	const char	*why, *reasons[3] = { "airlock policy: a",
	    "airlock policy: b\nng refs/heads/x forged", NULL };
	size_t		 off = 0, used;
	int		 flushes = 0;

	build_push(&b);
	rq = rp_request_new();
	rp_request_feed(rq, b.data, b.len);
	ck_assert_int_eq(rq->state, RP_DONE);
	rp_report_refusal(&out, rq, reasons);

	/* Outer layer: band-1 packets, then a flush. */
	pkt_reader_init(&r);
	while (off < out.len) {
		ck_assert_int_eq(pkt_reader_feed(&r, out.data + off,
		    out.len - off, &used, &pk, &why), PKT_PACKET);
		off += used;
		if (pk.kind == PKT_FLUSH) {
			flushes++;
			continue;
		}
		ck_assert_int_eq(pk.data[0], 1);
		inner.data = realloc(inner.data, inner.len + pk.len);
		memcpy(inner.data + inner.len, pk.data + 1, pk.len - 1);
		inner.len += pk.len - 1;
	}
	ck_assert_int_eq(flushes, 1);
	ck_assert(inner.len > 0);
	/* Inner layer: the report-status. */
	{
		const char *want[] = { "unpack ok\n",
		    "ng refs/heads/feature airlock policy: a\n",
		    "ng refs/heads/main airlock policy: b?ng refs/heads/x "
		    "forged\n",
		    "ng refs/heads/old refused\n" };
		int	 i = 0;

		off = 0;
		pkt_reader_init(&r);
		while (off < inner.len) {
			ck_assert_int_eq(pkt_reader_feed(&r, inner.data + off,
			    inner.len - off, &used, &pk, &why), PKT_PACKET);
			off += used;
			if (pk.kind == PKT_FLUSH)
				break;
			ck_assert_int_lt(i, 4);
			ck_assert_uint_eq(pk.len, strlen(want[i]));
			ck_assert(memcmp(pk.data, want[i], pk.len) == 0);
			i++;
		}
		ck_assert_int_eq(i, 4);
		ck_assert_uint_eq(off, inner.len);
	}
	rp_request_free(rq);
	pkt_buf_free(&b);
	pkt_buf_free(&out);
	pkt_buf_free(&inner);
}
END_TEST

START_TEST(test_report_plain)
{
	struct pkt_buf	 b = { 0 }, out = { 0 };
	struct rp_request *rq;
	const char	 c1[] = Z40 " " A40 " refs/heads/a\0report-status\n";
	const char	*reasons[1] = { "airlock policy: no" };
	const char	 want[] = "000eunpack ok\n"
	    "0027ng refs/heads/a airlock policy: no\n0000";

	add_pkt(&b, c1, sizeof(c1) - 1);
	pkt_put_flush(&b);
	rq = rp_request_new();
	rp_request_feed(rq, b.data, b.len);
	rp_report_refusal(&out, rq, reasons);
	ck_assert_uint_eq(out.len, sizeof(want) - 1);
	ck_assert(memcmp(out.data, want, out.len) == 0);
	rp_request_free(rq);
	pkt_buf_free(&b);
	pkt_buf_free(&out);
}
END_TEST

START_TEST(test_rewrite_strips_options)
{
	struct pkt_buf	 b = { 0 }, out = { 0 };
	struct rp_request *rq, *rq2;

	build_push(&b);
	rq = rp_request_new();
	rp_request_feed(rq, b.data, b.len);
	rp_request_rewrite(&out, rq, RP_CAP_PUSH_OPTIONS);
	rq2 = rp_request_new();
	ck_assert_uint_eq(rp_request_feed(rq2, out.data, out.len), out.len);
	ck_assert_int_eq(rq2->state, RP_DONE);
	ck_assert_uint_eq(rq2->ncmds, 3);
	ck_assert_uint_eq(rq2->noptions, 0);
	ck_assert(!(rq2->capflags & RP_CAP_PUSH_OPTIONS));
	ck_assert(rq2->capflags & RP_CAP_ATOMIC);
	/* The capabilities as parsed, in one canonical order. */
	ck_assert_str_eq(rq2->caps, "report-status-v2 side-band-64k atomic "
	    "quiet object-format=sha1 agent=git/2.39.5");
	ck_assert_str_eq(rq2->cmds[2].ref, "refs/heads/old");
	rp_request_free(rq2);
	/* Keeping them reproduces the request. */
	out.len = 0;
	rp_request_rewrite(&out, rq, 0);
	rq2 = rp_request_new();
	rp_request_feed(rq2, out.data, out.len);
	ck_assert_uint_eq(rq2->noptions, 2);
	rp_request_free(rq2);
	rp_request_free(rq);
	pkt_buf_free(&b);
	pkt_buf_free(&out);
}
END_TEST

START_TEST(test_sideband_split)
{
	struct pkt_buf	 out = { 0 };
	char		*big;

	big = calloc(1, 70000);
	pkt_put_sideband(&out, 2, big, 70000);
	/* two packets: 65515 + 4485 data bytes, 5 bytes overhead each */
	ck_assert_uint_eq(out.len, 70000 + 10);
	ck_assert(memcmp(out.data, "fff0\2", 5) == 0);
	ck_assert_int_eq(pkt_put(&out, big, PKT_DATA_MAX + 1), -1);
	free(big);
	pkt_buf_free(&out);
}
END_TEST

/* Capabilities as git's parse_feature_request() reads them (issue 14). */
static struct rp_request *
caps_push(const char *caps, struct pkt_buf *out)
{
	struct pkt_buf	 b = { 0 };
	struct rp_request *rq;
	char		 line[600];
	int		 n;

	n = snprintf(line, sizeof(line), "%s %s refs/heads/x%c%s\n", Z40,
	    A40, '\0', caps);
	add_pkt(&b, line, (size_t)n);
	pkt_put_flush(&b);
	add_pkt(&b, "ci.skip\n", 8);
	pkt_put_flush(&b);
	/* A second options section, as pack data after the first. */
	add_pkt(&b, "merge_request.create\n", 21);
	pkt_put_flush(&b);
	rq = rp_request_new();
	rp_request_feed(rq, b.data, b.len);
	if (out != NULL && rq->state == RP_DONE)
		rp_request_rewrite(out, rq, RP_CAP_PUSH_OPTIONS);
	pkt_buf_free(&b);
	return rq;
}

START_TEST(test_caps_feature_request)
{
	static const char *const opts[] = {
		"report-status push-options=1",
		"push-options push-options=1 report-status",
		"push-options=1 push-options",
		"report-status  push-options=",
		"push-options=yes=no side-band-64k",
	};
	struct pkt_buf	 out = { 0 };
	struct rp_request *rq, *rq2;
	size_t		 i;

	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		out.len = 0;
		rq = caps_push(opts[i], &out);
		ck_assert_msg(rq->state == RP_DONE, "%s", opts[i]);
		ck_assert_msg(rq->capflags & RP_CAP_PUSH_OPTIONS, "%s",
		    opts[i]);
		/* One options section was read: the second is "pack". */
		ck_assert_uint_eq(rq->noptions, 1);
		/* Upstream gets no push-options in any spelling, and so
		 * reads no options section at all. */
		ck_assert_ptr_null(memmem(out.data, out.len, "push-options",
		    12));
		rq2 = rp_request_new();
		rp_request_feed(rq2, out.data, out.len);
		ck_assert_int_eq(rq2->state, RP_DONE);
		ck_assert(!(rq2->capflags & RP_CAP_PUSH_OPTIONS));
		rp_request_free(rq2);
		rp_request_free(rq);
	}
	/* Names match whole: side-band-64kx is not side-band-64k. */
	rq = caps_push("side-band-64kx report-statusx quiet=1", NULL);
	ck_assert_int_eq(rq->state, RP_DONE);
	ck_assert_uint_eq(rq->capflags, RP_CAP_QUIET);
	rp_request_free(rq);
	/* Unknown capabilities are not forwarded. */
	out.len = 0;
	rq = caps_push("report-status frobnicate=1 agent=git/2.4", &out);
	ck_assert_ptr_null(memmem(out.data, out.len, "frob", 4));
	ck_assert_ptr_nonnull(memmem(out.data, out.len, "agent=git/2.4", 13));
	rp_request_free(rq);
	/* push-cert in any spelling, and two different values, fail. */
	rq = caps_push("report-status push-cert=1234", NULL);
	ck_assert_int_eq(rq->state, RP_FAILED);
	rp_request_free(rq);
	rq = caps_push("agent=a agent=b", NULL);
	ck_assert_int_eq(rq->state, RP_FAILED);
	rp_request_free(rq);
	rq = caps_push("object-format=sha1 object-format=sha256", NULL);
	ck_assert_int_eq(rq->state, RP_FAILED);
	rp_request_free(rq);
	pkt_buf_free(&out);
}
END_TEST

/* issue 14: upstream's symbolic refs from a v2 ls-refs answer. */
START_TEST(test_lsrefs_symrefs)
{
	struct pkt_buf	 b = { 0 };
	const char	*why;
	char		**v;

	pkt_putf(&b, "%s HEAD symref-target:refs/heads/main\n", A40);
	pkt_putf(&b, "%s refs/heads/alias symref-target:refs/heads/main\n",
	    A40);
	pkt_putf(&b, "%s refs/heads/main\n", A40);
	pkt_putf(&b, "%s refs/tags/v1 peeled:%s\n", B40, A40);
	pkt_putf(&b, "unborn refs/heads/new symref-target:refs/heads/x");
	ck_assert_int_eq(rp_lsrefs_symrefs(b.data, b.len, &v, &why), -1);
	pkt_put_flush(&b);
	ck_assert_int_eq(rp_lsrefs_symrefs(b.data, b.len, &v, &why), 0);
	ck_assert_str_eq(v[0], "HEAD");
	ck_assert_str_eq(v[1], "refs/heads/main");
	ck_assert_str_eq(v[2], "refs/heads/alias");
	ck_assert_str_eq(v[3], "refs/heads/main");
	ck_assert_str_eq(v[4], "refs/heads/new");
	ck_assert_str_eq(v[5], "refs/heads/x");
	ck_assert_ptr_null(v[6]);
	strv_free(v);
	pkt_buf_free(&b);
}
END_TEST

/* More refs than the gateway takes: a limit, not a parse error. */
START_TEST(test_over_limit)
{
	struct pkt_buf	 b = { 0 };
	struct rp_request *rq;
	char		 line[200];
	int		 n;
	size_t		 i;

	for (i = 0; i <= RP_MAX_COMMANDS; i++) {
		n = snprintf(line, sizeof(line), "%s %s refs/heads/b%zu\n",
		    Z40, A40, i);
		add_pkt(&b, line, (size_t)n);
	}
	rq = rp_request_new();
	rp_request_feed(rq, b.data, b.len);
	ck_assert_int_eq(rq->state, RP_FAILED);
	ck_assert_int_eq(rq->over_limit, 1);
	ck_assert_uint_eq(rq->ncmds, RP_MAX_COMMANDS);
	b.len = 0;
	rp_report_unpack_error(&b, rq, "airlock policy: too many");
	ck_assert_uint_eq(b.len, 4 + 32 + 4);
	ck_assert(memcmp(b.data, "0024unpack airlock policy: too many\n0000",
	    b.len) == 0);
	rp_request_free(rq);
	pkt_buf_free(&b);
}
END_TEST

static Suite *
pktline_suite(void)
{
	Suite	*s = suite_create("pktline");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_reader_special);
	tcase_add_test(tc, test_caps_feature_request);
	tcase_add_test(tc, test_over_limit);
	tcase_add_test(tc, test_lsrefs_symrefs);
	tcase_add_test(tc, test_reader_split);
	tcase_add_test(tc, test_commands);
	tcase_add_test(tc, test_probe_and_delete_only);
	tcase_add_test(tc, test_sha256);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_caps_on_second);
	tcase_add_test(tc, test_report_sideband);
	tcase_add_test(tc, test_report_plain);
	tcase_add_test(tc, test_rewrite_strips_options);
	tcase_add_test(tc, test_sideband_split);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(pktline_suite());
}
