// SPDX-License-Identifier: ISC
/*
 * The request stream toward a masked host (common/maskstream.c) and the
 * masked-credential frames (common/pxmask.c), issue 28: kept-alive
 * requests with bodies are cut where the server cuts them, each head
 * rewritten for its own host, another host's placeholder and a fronted
 * Host refused; a frame whose placeholder could leak the value refused.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/inspect.h"
#include "common/maskstream.h"
#include "common/msg.h"
#include "common/pxmask.h"
#include "tests/unit/unit.h"

#define PH_A	"sk-ant-PLACEHOLDERaaaa0001"
#define REAL_A	"sk-ant-REALVALUEaaaaaa0001"
#define PH_B	"sk-PLACEHOLDERbbbb00000002"
#define REAL_B	"sk-REALVALUEbbbbbbbbbb0002"

static const struct mask_ent ents[] = {
	{ "a.example", MASK_HEADER, "Authorization", PH_A, REAL_A },
	{ "b.example", MASK_HEADER, "X-Key", PH_B, REAL_B },
};

/* Run the whole of in through a stream; the forwarded bytes in *out. */
static enum mstream_res
drive(const char *host, const char *in, char **out, struct mstream_out *last)
{
	struct mstream	 ms;
	enum mstream_res r = MSTREAM_MORE;
	size_t		 off = 0, len = strlen(in), olen = 0;

	*out = calloc(1, 4 * len + 1);
	mstream_init(&ms, host, 443, ents, 2);
	while (off < len) {
		r = mstream_step(&ms, in + off, len - off, last);
		if (r == MSTREAM_MORE || r == MSTREAM_REFUSE)
			break;
		if (r == MSTREAM_HEAD) {
			memcpy(*out + olen, last->out, last->outlen);
			olen += last->outlen;
			mstream_out_free(last);
		} else {
			memcpy(*out + olen, in + off, last->used);
			olen += last->used;
		}
		off += last->used;
	}
	return r;
}

START_TEST(kept_alive_requests_each_rewritten)
{
	struct mstream_out o;
	char	*out;
	const char *in =
	    "POST /v1 HTTP/1.1\r\nHost: a.example\r\nAuthorization: Bearer "
	    PH_A "\r\nContent-Length: 59\r\n\r\n"
	    "GET / HTTP/1.1\r\nAuthorization: " PH_A "\r\n"
	    "PUT /c HTTP/1.1\r\nHost: a.example:443\r\nAuthorization: Bearer "
	    PH_A "\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "5\r\nhello\r\n0\r\n\r\n"
	    "GET /last HTTP/1.1\r\nHost: A.EXAMPLE\r\nAuthorization: " PH_A
	    "\r\n\r\n";

	ck_assert_int_ne(drive("a.example", in, &out, &o), MSTREAM_REFUSE);
	/* Three heads rewritten; the body that looks like a head is not. */
	ck_assert_ptr_nonnull(strstr(out, "Bearer " REAL_A "\r\nContent"));
	ck_assert_ptr_nonnull(strstr(out, "GET / HTTP/1.1\r\nAuthorization: "
	    PH_A "\r\n"));
	ck_assert_ptr_nonnull(strstr(out, "Bearer " REAL_A "\r\nTransfer"));
	ck_assert_ptr_nonnull(strstr(out, "/last HTTP/1.1\r\nHost: A.EXAMPLE"
	    "\r\nAuthorization: " REAL_A "\r\n\r\n"));
	ck_assert_int_eq(strlen(out), strlen(in));
	free(out);
}
END_TEST

START_TEST(other_hosts_placeholder_refused)
{
	struct mstream_out o;
	char	*out;

	ck_assert_int_eq(drive("a.example", "GET / HTTP/1.1\r\nHost: "
	    "a.example\r\nX-Key: " PH_B "\r\n\r\n", &out, &o), MSTREAM_REFUSE);
	ck_assert_int_eq(o.status, 403);
	ck_assert(o.exfil);
	ck_assert_uint_eq(o.which, 1);
	ck_assert_ptr_null(strstr(o.why, "PLACEHOLDER"));
	free(out);
}
END_TEST

/* A TRACE's answer echoes the head the server got: with a placeholder
 * in it, never sent; without one, it goes as any request does. */
START_TEST(trace_with_placeholder_refused)
{
	struct mstream_out o;
	char	*out;

	ck_assert_int_eq(drive("a.example", "TRACE / HTTP/1.1\r\nHost: "
	    "a.example\r\nAuthorization: " PH_A "\r\n\r\n", &out, &o),
	    MSTREAM_REFUSE);
	ck_assert_int_eq(o.status, 405);
	ck_assert(o.rule);
	ck_assert_ptr_null(strstr(out, REAL_A));
	free(out);
	ck_assert_int_eq(drive("a.example", "track / HTTP/1.1\r\nHost: "
	    "a.example\r\nAuthorization: " PH_A "\r\n\r\n", &out, &o),
	    MSTREAM_REFUSE);
	free(out);
	ck_assert_int_eq(drive("a.example", "TRACE / HTTP/1.1\r\nHost: "
	    "a.example\r\n\r\n", &out, &o), MSTREAM_HEAD);
	free(out);
}
END_TEST

START_TEST(fronted_and_malformed_refused)
{
	struct mstream_out o;
	char	*out;

	ck_assert_int_eq(drive("a.example", "GET / HTTP/1.1\r\nHost: "
	    "b.example\r\nAuthorization: " PH_A "\r\n\r\n", &out, &o),
	    MSTREAM_REFUSE);
	ck_assert_int_eq(o.status, 403);
	ck_assert(!o.exfil);
	ck_assert_uint_eq(strlen(out), 0);
	free(out);
	/* Another port of the same name is another service. */
	ck_assert_int_eq(drive("a.example", "GET / HTTP/1.1\r\nHost: "
	    "a.example:8443\r\n\r\n", &out, &o), MSTREAM_REFUSE);
	free(out);
	/* Without Host (1.1 or 1.0), absolute form, smuggling shapes. */
	ck_assert_int_eq(drive("a.example", "GET / HTTP/1.1\r\n\r\n", &out,
	    &o), MSTREAM_REFUSE);
	free(out);
	ck_assert_int_eq(drive("a.example", "GET / HTTP/1.0\r\nAuthorization: "
	    PH_A "\r\n\r\n", &out, &o), MSTREAM_REFUSE);
	ck_assert_uint_eq(strlen(out), 0);
	free(out);
	ck_assert_int_eq(drive("a.example", "GET http://b.example/ HTTP/1.1"
	    "\r\nHost: a.example\r\n\r\n", &out, &o), MSTREAM_REFUSE);
	ck_assert_int_eq(o.status, 400);
	free(out);
	ck_assert_int_eq(drive("a.example", "POST / HTTP/1.1\r\nHost: "
	    "a.example\r\nContent-Length: 3\r\nTransfer-Encoding: chunked"
	    "\r\n\r\n", &out, &o), MSTREAM_REFUSE);
	free(out);
	ck_assert_int_eq(drive("a.example", "POST / HTTP/1.1\r\nHost: "
	    "a.example\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", &out,
	    &o), MSTREAM_REFUSE);
	free(out);
	ck_assert_int_eq(drive("a.example", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	    &out, &o), MSTREAM_REFUSE);
	free(out);
}
END_TEST

/* On an inspected host an Upgrade is refused: the server may ignore it
 * and serve the pipelined requests after it, which would go unjudged. */
START_TEST(upgrade_refused_where_inspected)
{
	struct inspect_rule	 rules[4];
	struct mstream		 ms;
	struct mstream_out	 o;
	const char		*why, *in =
	    "GET /v2/x HTTP/1.1\r\nHost: a.example\r\nUpgrade: foo\r\n"
	    "Connection: upgrade\r\n\r\n"
	    "DELETE /repos/x HTTP/1.1\r\nHost: a.example\r\n\r\n";
	int			 n;

	n = inspect_rules_parse("allow GET /v2/", rules, 4, &why);
	ck_assert_int_eq(n, 1);
	mstream_init(&ms, "a.example", 443, ents, 2);
	mstream_inspect(&ms, rules, (size_t)n);
	ck_assert_int_eq(mstream_step(&ms, in, strlen(in), &o),
	    MSTREAM_REFUSE);
	ck_assert_int_eq(o.status, 403);
	ck_assert_ptr_nonnull(strstr(o.why, "Upgrade"));
}
END_TEST

START_TEST(partial_head_waits)
{
	struct mstream	 ms;
	struct mstream_out o;
	const char	*h = "GET / HTTP/1.1\r\nHost: a.example\r\n";

	mstream_init(&ms, "a.example", 443, ents, 2);
	ck_assert_int_eq(mstream_step(&ms, h, strlen(h), &o), MSTREAM_MORE);
	ck_assert_uint_eq(o.used, 0);
}
END_TEST

/* A MSG_PX_MASK with the given placeholder and value, decoded. */
static int
mask_frame(const char *host, int where, const char *field, const char *ph,
    const char *real)
{
	struct msg_link	 l;
	struct msgbuf	 b;
	struct msg_hdr	 hdr;
	struct msg	 m;
	struct pxmask_wire w;
	uint8_t		*buf;
	const char	*why;
	int		 rc;

	memset(&l, 0, sizeof(l));
	l.chan = MSG_CH_PROXYD;
	msgbuf_init(&b, MSG_PX_MASK);
	msg_put_str(&b, "sid");
	msg_put_str(&b, "API_KEY");
	msg_put_str(&b, host);
	msg_put_u32(&b, (uint32_t)where);
	msg_put_str(&b, field);
	msg_put_str(&b, ph);
	msg_put_str(&b, real);
	msg_frame_hdr(&l, &b, 0, &hdr);
	buf = malloc(sizeof(hdr) + b.len);
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), b.data, b.len);
	ck_assert_int_eq(msg_decode_mem(buf, sizeof(hdr) + b.len,
	    MSG_CH_PROXYD, MSG_DOWN, &m, &why), 0);
	rc = pxmask_decode(&m, &w, &why);
	if (rc == -1)
		ck_assert_ptr_null(strstr(why, real));
	msg_free(&m);
	msgbuf_free(&b);
	free(buf);
	return rc;
}

START_TEST(mask_frames_checked)
{
	ck_assert_int_eq(mask_frame("a.example", MASK_HEADER, "Authorization",
	    PH_A, REAL_A), 0);
	ck_assert_int_eq(mask_frame("a.example", MASK_BASIC, "", PH_A,
	    REAL_A), 0);
	/* The placeholder equal to the value, of another length. */
	ck_assert_int_eq(mask_frame("a.example", MASK_HEADER, "X", REAL_A,
	    REAL_A), -1);
	ck_assert_int_eq(mask_frame("a.example", MASK_HEADER, "X", "short",
	    REAL_A), -1);
	/* A host with a port, in upper case; a field with a colon. */
	ck_assert_int_eq(mask_frame("a.example:443", MASK_HEADER, "X", PH_A,
	    REAL_A), -1);
	ck_assert_int_eq(mask_frame("A.example", MASK_HEADER, "X", PH_A,
	    REAL_A), -1);
	ck_assert_int_eq(mask_frame("a.example", MASK_HEADER, "X:Y", PH_A,
	    REAL_A), -1);
	ck_assert_int_eq(mask_frame("a.example", 9, "X", PH_A, REAL_A), -1);
	/* A value that would break a head (CRLF, a space). */
	ck_assert_int_eq(mask_frame("a.example", MASK_HEADER, "X",
	    "sk-ant-PLACEHOLDERaa\r\n0001", "sk-ant-REALVALUEaaaa\r\n0001"),
	    -1);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("maskstream");
	TCase	*tc = tcase_create("maskstream");

	tcase_add_test(tc, kept_alive_requests_each_rewritten);
	tcase_add_test(tc, other_hosts_placeholder_refused);
	tcase_add_test(tc, trace_with_placeholder_refused);
	tcase_add_test(tc, fronted_and_malformed_refused);
	tcase_add_test(tc, upgrade_refused_where_inspected);
	tcase_add_test(tc, partial_head_waits);
	tcase_add_test(tc, mask_frames_checked);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
