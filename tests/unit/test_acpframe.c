// SPDX-License-Identifier: ISC
/*
 * Unit tests for common/acpframe.c: lines split across reads, CRLF and
 * empty lines, an over-long line dropped whole without losing its
 * neighbours, and the classification of JSON-RPC messages.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/acpframe.h"
#include "tests/unit/unit.h"

START_TEST(t_split)
{
	struct acpf	 f;
	char		*l;
	size_t		 len;

	acpf_init(&f);
	acpf_feed(&f, "{\"a\":", 5);
	ck_assert_ptr_null(acpf_next(&f, &len));
	acpf_feed(&f, "1}\r\n\n\n{\"b\":2}\n{\"c\"", 18);
	l = acpf_next(&f, &len);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l, "{\"a\":1}");
	ck_assert_uint_eq(len, 7);
	l = acpf_next(&f, &len);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l, "{\"b\":2}");
	ck_assert_ptr_null(acpf_next(&f, &len));
	acpf_feed(&f, ":3}\n", 4);
	l = acpf_next(&f, &len);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l, "{\"c\":3}");
	acpf_free(&f);
}
END_TEST

START_TEST(t_long)
{
	struct acpf	 f;
	char		*big, *l;
	size_t		 len, n = ACPF_LINE_MAX + 100, k;

	big = malloc(n);
	ck_assert_ptr_nonnull(big);
	memset(big, 'x', n);
	acpf_init(&f);
	acpf_feed(&f, "before\n", 7);
	/* The long line in pieces, its end in the same read as the next. */
	for (k = 0; k < n; k += 65536)
		acpf_feed(&f, big, n - k < 65536 ? n - k : 65536);
	acpf_feed(&f, "\nafter\n", 7);
	l = acpf_next(&f, &len);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l, "before");
	l = acpf_next(&f, &len);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l, "after");
	ck_assert_ptr_null(acpf_next(&f, &len));
	ck_assert_uint_eq(f.dropped, 1);
	ck_assert_uint_le(f.cap, ACPF_LINE_MAX * 2 + 2);
	acpf_free(&f);
	free(big);
}
END_TEST

static enum acpf_kind
kind(const char *s, const char **method)
{
	struct json	*m = json_parse(s, strlen(s), NULL, 0);
	enum acpf_kind	 k = acpf_classify(m, method);

	json_free(m);
	return k;
}

START_TEST(t_classify)
{
	const char *m;

	ck_assert_int_eq(kind("{\"id\":1,\"method\":\"fs/read_text_file\"}",
	    &m), ACPF_REQUEST);
	ck_assert_int_eq(kind("{\"id\":\"x\",\"method\":\"a\"}", &m),
	    ACPF_REQUEST);
	ck_assert_int_eq(kind("{\"method\":\"session/update\"}", &m),
	    ACPF_NOTIFICATION);
	ck_assert_int_eq(kind("{\"id\":1,\"result\":{}}", &m),
	    ACPF_RESPONSE);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(kind("{\"id\":1,\"error\":{}}", &m), ACPF_RESPONSE);
	/* Neither or both of result and error; ids that are not ids. */
	ck_assert_int_eq(kind("{\"id\":1}", &m), ACPF_INVALID);
	ck_assert_int_eq(kind("{\"id\":1,\"result\":1,\"error\":{}}", &m),
	    ACPF_INVALID);
	ck_assert_int_eq(kind("{\"id\":[1],\"method\":\"a\"}", &m),
	    ACPF_INVALID);
	ck_assert_int_eq(kind("{\"id\":1.5,\"result\":1}", &m),
	    ACPF_INVALID);
	ck_assert_int_eq(kind("{\"id\":1,\"method\":7}", &m), ACPF_INVALID);
	ck_assert_int_eq(kind("{\"method\":\"a\\u0000b\"}", &m),
	    ACPF_INVALID);
	ck_assert_int_eq(kind("[1]", &m), ACPF_INVALID);
	ck_assert_int_eq(kind("not json", &m), ACPF_INVALID);
}
END_TEST

static enum acpf_kind
take(const char *s, char *why, size_t len)
{
	struct json	*m;
	const char	*method;
	enum acpf_kind	 k = acpf_take(s, strlen(s), &m, &method, why, len);

	if (k == ACPF_INVALID)
		ck_assert_ptr_null(m);
	json_free(m);
	return k;
}

/* What JSON.parse takes another way never passes, and says why. */
START_TEST(t_take)
{
	char		 why[320];
	struct json	*m;
	const char	*method, *in = "{\"id\": 7, \"method\":\"a\","
	    "\"params\":{\"x\":\"\\u0041\\n\"}}";
	char		*out;
	size_t		 len;

	ck_assert_int_eq(take("{\"id\":101.5,\"method\":\"fs/w\"}", why,
	    sizeof(why)), ACPF_INVALID);
	ck_assert_str_eq(why, "its id 101.5 is not a string, an integer or "
	    "null");
	ck_assert_int_eq(take("{\"id\":1e2,\"method\":\"a\"}", why,
	    sizeof(why)), ACPF_INVALID);
	ck_assert_int_eq(take("{\"id\":123456789012345678901,\"method\":"
	    "\"a\"}", why, sizeof(why)), ACPF_INVALID);
	ck_assert_int_eq(take("{\"id\":1,\"method\":\"a\",\"method\":\"b\"}",
	    why, sizeof(why)), ACPF_INVALID);
	ck_assert_ptr_nonnull(strstr(why, "duplicate key"));
	ck_assert_int_eq(take("{\"id\":1,\"id\":2.5,\"method\":\"a\"}",
	    why, sizeof(why)), ACPF_INVALID);
	/* An overlong sequence: an editor would read U+FFFD there. */
	ck_assert_int_eq(take("{\"id\":1,\"method\":\"fs/\301\211\"}",
	    why, sizeof(why)), ACPF_INVALID);
	ck_assert_str_eq(why, "a string that is not UTF-8");
	ck_assert_int_eq(take("{\"id\":1,\"method\":\"a\",\"p\":{"
	    "\"\355\240\200\":1}}", why, sizeof(why)), ACPF_INVALID);
	ck_assert_int_eq(take("[{\"id\":1,\"method\":\"a\"}]", why,
	    sizeof(why)), ACPF_INVALID);
	ck_assert_str_eq(why, "a JSON array, not a JSON-RPC object");
	ck_assert_int_eq(take("{\"id\":1,\"method\":5}", why, sizeof(why)),
	    ACPF_INVALID);
	ck_assert_int_eq(take("{\"m\\u0000\":1,\"id\":1,\"result\":1}", why,
	    sizeof(why)), ACPF_INVALID);
	ck_assert_int_eq(take("{\"id\":1,\"method\":\"a\"} x", why,
	    sizeof(why)), ACPF_INVALID);
	/* Taken: written again as parsed, one line, escapes kept. */
	ck_assert_int_eq(acpf_take(in, strlen(in), &m, &method, why,
	    sizeof(why)), ACPF_REQUEST);
	ck_assert_str_eq(method, "a");
	out = acpf_serialise(m, &len);
	ck_assert_str_eq(out, "{\"id\":7,\"method\":\"a\",\"params\":"
	    "{\"x\":\"A\\n\"}}");
	ck_assert_uint_eq(len, strlen(out));
	free(out);
	json_free(m);
}
END_TEST

static Suite *
acpframe_suite(void)
{
	Suite	*s = suite_create("acpframe");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, t_split);
	tcase_add_test(tc, t_long);
	tcase_add_test(tc, t_classify);
	tcase_add_test(tc, t_take);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(acpframe_suite());
}
