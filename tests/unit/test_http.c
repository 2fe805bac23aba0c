// SPDX-License-Identifier: ISC
/*
 * Unit tests for common/http.c: the strict request and response head
 * parsers, authority parsing and the chunked decoder.  Each smuggling
 * vector the parser must refuse has its own case.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/http.h"
#include "tests/unit/unit.h"

static int
req(const char *s, struct http_request *r, const char **why)
{
	size_t	 hl;
	enum http_scan sc = http_head_scan(s, strlen(s), &hl);

	*why = "scan";
	if (sc != HTTP_SCAN_DONE)
		return -1;
	return http_request_parse(s, hl, r, why);
}

static void
bad(const char *s)
{
	struct http_request r;
	const char *why = NULL;

	ck_assert_msg(req(s, &r, &why) == -1, "accepted: %s", s);
	ck_assert_ptr_nonnull(why);
}

START_TEST(t_scan)
{
	size_t	 hl = 0;

	ck_assert_int_eq(http_head_scan("GET / HTTP/1.1\r\n", 16, &hl),
	    HTTP_SCAN_MORE);
	ck_assert_int_eq(http_head_scan("GET / HTTP/1.1\r\n\r\nxyz", 21, &hl),
	    HTTP_SCAN_DONE);
	ck_assert_uint_eq(hl, 18);
	ck_assert_int_eq(http_head_scan("GET / HTTP/1.1\n\n", 16, &hl),
	    HTTP_SCAN_ERROR);
	ck_assert_int_eq(http_head_scan("\r\nGET / HTTP/1.1\r\n\r\n", 20, &hl),
	    HTTP_SCAN_ERROR);
}
END_TEST

START_TEST(t_scan_cap)
{
	size_t	 n = HTTP_HEAD_MAX + 10, hl;
	char	*b = malloc(n);

	memset(b, 'a', n);
	ck_assert_int_eq(http_head_scan(b, HTTP_HEAD_MAX - 1, &hl),
	    HTTP_SCAN_MORE);
	ck_assert_int_eq(http_head_scan(b, n, &hl), HTTP_SCAN_ERROR);
	free(b);
}
END_TEST

START_TEST(t_absolute)
{
	struct http_request r;
	const char *why;

	ck_assert_int_eq(req("GET http://Example.COM:8080/a/b?c=d HTTP/1.1\r\n"
	    "Host: example.com\r\nX-A:  v  \r\n\r\n", &r, &why), 0);
	ck_assert_int_eq(r.form, HTTP_FORM_ABSOLUTE);
	ck_assert_str_eq(r.method, "GET");
	ck_assert_str_eq(r.scheme, "http");
	ck_assert_str_eq(r.host, "example.com");
	ck_assert_uint_eq(r.port, 8080);
	ck_assert_str_eq(r.path, "/a/b?c=d");
	ck_assert_uint_eq(r.nhdrs, 2);
	ck_assert_str_eq(http_header_get(r.hdrs, r.nhdrs, "x-a"), "v");
	ck_assert_int_eq(r.body, HTTP_BODY_NONE);
	ck_assert_int_eq(r.keep_alive, 1);
	http_request_free(&r);

	ck_assert_int_eq(req("GET http://h.example?q HTTP/1.0\r\n\r\n", &r,
	    &why), 0);
	ck_assert_str_eq(r.path, "/?q");
	ck_assert_uint_eq(r.port, 80);
	ck_assert_int_eq(r.keep_alive, 0);
	http_request_free(&r);

	ck_assert_int_eq(req("GET http://[::1]:99 HTTP/1.1\r\nHost: x\r\n"
	    "Connection: close\r\n\r\n", &r, &why), 0);
	ck_assert_str_eq(r.host, "::1");
	ck_assert_int_eq(r.host_is_v6, 1);
	ck_assert_str_eq(r.path, "/");
	ck_assert_int_eq(r.keep_alive, 0);
	http_request_free(&r);
}
END_TEST

START_TEST(t_connect_origin)
{
	struct http_request r;
	const char *why;

	ck_assert_int_eq(req("CONNECT api.example.com:443 HTTP/1.1\r\n"
	    "Host: api.example.com:443\r\n\r\n", &r, &why), 0);
	ck_assert_int_eq(r.form, HTTP_FORM_AUTHORITY);
	ck_assert_str_eq(r.host, "api.example.com");
	ck_assert_uint_eq(r.port, 443);
	http_request_free(&r);

	ck_assert_int_eq(req("POST /x HTTP/1.1\r\nHost: a\r\n"
	    "Content-Length: 12\r\n\r\n", &r, &why), 0);
	ck_assert_int_eq(r.form, HTTP_FORM_ORIGIN);
	ck_assert_int_eq(r.body, HTTP_BODY_LENGTH);
	ck_assert_uint_eq(r.content_length, 12);
	http_request_free(&r);

	ck_assert_int_eq(req("POST /x HTTP/1.1\r\nHost: a\r\n"
	    "Transfer-Encoding: Chunked\r\n\r\n", &r, &why), 0);
	ck_assert_int_eq(r.body, HTTP_BODY_CHUNKED);
	http_request_free(&r);

	ck_assert_int_eq(req("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", &r,
	    &why), 0);
	ck_assert_int_eq(r.form, HTTP_FORM_ASTERISK);
	http_request_free(&r);
}
END_TEST

START_TEST(t_reject)
{
	bad("GET / HTTP/1.1\nHost: a\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\r\nX: b\r\n c\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost : a\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n"
	    "Content-Length: 1\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1,1\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: +1\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\r\n"
	    "Content-Length: 99999999999999999999\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\r\n"
	    "Transfer-Encoding: chunked, gzip\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n");
	bad("GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n");
	bad("GET / HTTP/1.1\r\n\r\n");			/* no Host */
	bad("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
	bad("GET http://user:pw@example.com/ HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("GET http://example.com@evil.com/ HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT user@example.com:443 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT example.com HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT example.com:0 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT example.com:65536 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT exa mple.com:1 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT [::1:443 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT [fe80::1%25eth0]:443 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT ex%61mple.com:443 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT a..b:443 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT 0x7f000001:443 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT 2130706433:443 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT 127.1:443 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT 0177.0.0.1:443 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("CONNECT 169.254.169.254.:80 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("GET ftp://example.com/ HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("GET example.com/ HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("GET http://example.com/#f HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("GET  / HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("GET / HTTP/1.1 \r\nHost: a\r\n\r\n");
	bad("GET / HTTP/2.0\r\nHost: a\r\n\r\n");
	bad("GET / HTTP/1.10\r\nHost: a\r\n\r\n");
	bad("G(T / HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("GET /\x01 HTTP/1.1\r\nHost: a\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\x01\r\n\r\n");
	bad("GET / HTTP/1.1\r\nHost: a\x7f\r\n\r\n");
	bad("GET * HTTP/1.1\r\nHost: a\r\n\r\n");
}
END_TEST

START_TEST(t_nul_and_count)
{
	struct http_request r;
	const char *why;
	char	 buf[8192];
	size_t	 n, i;
	const char s[] = "GET / HTTP/1.1\r\nHost: a\0b\r\n\r\n";

	ck_assert_int_eq(http_request_parse(s, sizeof(s) - 1, &r, &why), -1);

	n = (size_t)snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: a\r\n");
	for (i = 0; i < HTTP_HEADERS_MAX; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "X: y\r\n");
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\r\n");
	ck_assert_int_eq(http_request_parse(buf, n, &r, &why), -1);
	ck_assert_str_eq(why, "too many header fields");
}
END_TEST

START_TEST(t_authority)
{
	char	 host[HTTP_HOST_MAX];
	uint16_t port;
	int	 v6;
	const char *why;

	ck_assert_int_eq(http_authority_parse("API.Example.COM.", 16, 443,
	    host, &port, &v6, &why), 0);
	ck_assert_str_eq(host, "api.example.com.");
	ck_assert_uint_eq(port, 443);
	ck_assert_int_eq(http_authority_parse("10.0.0.1:5432", 13, 0,
	    host, &port, &v6, &why), 0);
	ck_assert_str_eq(host, "10.0.0.1");
	ck_assert_uint_eq(port, 5432);
	ck_assert_int_eq(http_authority_parse("[2001:db8::1]:22", 16, 0,
	    host, &port, &v6, &why), 0);
	ck_assert_str_eq(host, "2001:db8::1");
	ck_assert_int_eq(v6, 1);
	ck_assert_int_eq(http_authority_parse("a:1:2", 5, 0, host, &port,
	    &v6, &why), -1);
	ck_assert_int_eq(http_authority_parse("a:", 2, 80, host, &port,
	    &v6, &why), -1);
	ck_assert_int_eq(http_authority_parse("", 0, 80, host, &port,
	    &v6, &why), -1);
	ck_assert_int_eq(http_authority_parse(".", 1, 80, host, &port,
	    &v6, &why), -1);
	ck_assert_int_eq(http_authority_parse("[1.2.3.4]", 9, 80, host,
	    &port, &v6, &why), -1);
}
END_TEST

START_TEST(t_response)
{
	struct http_response r;
	const char *why;
	const char *s;

	s = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n";
	ck_assert_int_eq(http_response_parse(s, strlen(s), 0, 0, &r, &why),
	    0);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.reason, "OK");
	ck_assert_int_eq(r.body, HTTP_BODY_LENGTH);
	ck_assert_int_eq(r.keep_alive, 1);
	http_response_free(&r);

	ck_assert_int_eq(http_response_parse(s, strlen(s), 1, 0, &r, &why),
	    0);
	ck_assert_int_eq(r.body, HTTP_BODY_NONE);
	http_response_free(&r);

	s = "HTTP/1.1 204\r\n\r\n";
	ck_assert_int_eq(http_response_parse(s, strlen(s), 0, 0, &r, &why),
	    0);
	ck_assert_int_eq(r.body, HTTP_BODY_NONE);
	http_response_free(&r);

	s = "HTTP/1.0 200 OK\r\n\r\n";
	ck_assert_int_eq(http_response_parse(s, strlen(s), 0, 0, &r, &why),
	    0);
	ck_assert_int_eq(r.body, HTTP_BODY_CLOSE);
	ck_assert_int_eq(r.keep_alive, 0);
	http_response_free(&r);

	s = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
	ck_assert_int_eq(http_response_parse(s, strlen(s), 0, 0, &r, &why),
	    0);
	ck_assert_int_eq(r.body, HTTP_BODY_CHUNKED);
	http_response_free(&r);

	s = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
	    "Content-Length: 3\r\n\r\n";
	ck_assert_int_eq(http_response_parse(s, strlen(s), 0, 0, &r, &why),
	    -1);
	s = "HTTP/1.1 20 OK\r\n\r\n";
	ck_assert_int_eq(http_response_parse(s, strlen(s), 0, 0, &r, &why),
	    -1);
	s = "HTTP/1.1 200 OK\r\nA: b\r\n\tc\r\n\r\n";
	ck_assert_int_eq(http_response_parse(s, strlen(s), 0, 0, &r, &why),
	    -1);
}
END_TEST

/* Feed s to the decoder in pieces of step bytes; collect the data. */
static enum http_chunk_result
dechunk(const char *s, size_t step, char *out, size_t *outlen, size_t *rest)
{
	struct http_chunked c;
	size_t	 len = strlen(s), off = 0, used, dl, piece;
	enum http_chunk_result res = HTTP_CHUNK_MORE;

	http_chunked_init(&c);
	*outlen = 0;
	while (off < len) {
		piece = len - off < step ? len - off : step;
		res = http_chunked_feed(&c, s + off, piece, &used, &dl);
		if (res == HTTP_CHUNK_ERROR)
			return res;
		memcpy(out + *outlen, s + off + used - dl, dl);
		*outlen += dl;
		off += used;
		if (res == HTTP_CHUNK_DONE)
			break;
	}
	*rest = len - off;
	return res;
}

START_TEST(t_chunked)
{
	char	 out[256];
	size_t	 ol, rest, step;
	const char *s = "5;ext=1\r\nhello\r\n1A\r\n"
	    "abcdefghijklmnopqrstuvwxyz\r\n0\r\nX-T: 1\r\n\r\nNEXT";

	for (step = 1; step < 80; step++) {
		ck_assert_int_eq(dechunk(s, step, out, &ol, &rest),
		    HTTP_CHUNK_DONE);
		ck_assert_uint_eq(ol, 31);
		ck_assert(memcmp(out, "helloabcdefghijklmnopqrstuvwxyz", 31)
		    == 0);
		ck_assert_uint_eq(rest, 4);
	}
	ck_assert_int_eq(dechunk("5\r\nhelloX\r\n", 64, out, &ol, &rest),
	    HTTP_CHUNK_ERROR);
	ck_assert_int_eq(dechunk("5\nhello\r\n", 64, out, &ol, &rest),
	    HTTP_CHUNK_ERROR);
	ck_assert_int_eq(dechunk("g\r\n", 64, out, &ol, &rest),
	    HTTP_CHUNK_ERROR);
	ck_assert_int_eq(dechunk(" 5\r\n", 64, out, &ol, &rest),
	    HTTP_CHUNK_ERROR);
	ck_assert_int_eq(dechunk("fffffffffffffffffff\r\n", 64, out, &ol,
	    &rest), HTTP_CHUNK_ERROR);
	ck_assert_int_eq(dechunk("0\r\n\r", 64, out, &ol, &rest),
	    HTTP_CHUNK_MORE);
}
END_TEST

/* issue 14: Transfer-Encoding is chunked, exactly, or the head is bad. */
START_TEST(t_te_values)
{
	static const char *const badv[] = { "chunked, chunked", "chunked ,",
	    ",chunked", "identity", "gzip, chunked", "chun ked", "chunked;x",
	    "chunked\x0b", NULL };
	struct http_request r;
	const char	*why;
	char		 buf[256];
	size_t		 i;

	for (i = 0; badv[i] != NULL; i++) {
		snprintf(buf, sizeof(buf), "POST /a HTTP/1.1\r\nHost: x\r\n"
		    "Transfer-Encoding: %s\r\n\r\n", badv[i]);
		bad(buf);
	}
	/* Optional white space around a value is not part of it. */
	ck_assert_int_eq(req("POST /a HTTP/1.1\r\nHost: x\r\n"
	    "Transfer-Encoding:  chunked \t\r\n\r\n", &r, &why), 0);
	ck_assert_int_eq(r.body, HTTP_BODY_CHUNKED);
	http_request_free(&r);
}
END_TEST

/* issue 14: an impossible chunk size fails at its digits, at once. */
START_TEST(t_chunk_max)
{
	struct http_chunked c;
	size_t	 used, dl;

	http_chunked_init(&c);
	c.max_chunk = 64ULL << 20;
	ck_assert_int_eq(http_chunked_feed(&c, "4000001", 7, &used, &dl),
	    HTTP_CHUNK_ERROR);
	http_chunked_init(&c);
	c.max_chunk = 64ULL << 20;
	ck_assert_int_eq(http_chunked_feed(&c, "4000000\r\n", 9, &used,
	    &dl), HTTP_CHUNK_MORE);
	http_chunked_init(&c);
	ck_assert_int_eq(http_chunked_feed(&c, "ffffffffff\r\n", 12, &used,
	    &dl), HTTP_CHUNK_MORE);
	ck_assert_str_eq(http_status_text(404), "Not Found");
	ck_assert_str_eq(http_status_text(415), "Unsupported Media Type");
	ck_assert_str_eq(http_status_text(499), "Client Error");
}
END_TEST

static Suite *
http_suite(void)
{
	Suite	*s = suite_create("http");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, t_scan);
	tcase_add_test(tc, t_scan_cap);
	tcase_add_test(tc, t_absolute);
	tcase_add_test(tc, t_connect_origin);
	tcase_add_test(tc, t_reject);
	tcase_add_test(tc, t_nul_and_count);
	tcase_add_test(tc, t_authority);
	tcase_add_test(tc, t_response);
	tcase_add_test(tc, t_chunked);
	tcase_add_test(tc, t_chunk_max);
	tcase_add_test(tc, t_te_values);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(http_suite());
}
