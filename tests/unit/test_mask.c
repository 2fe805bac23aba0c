// SPDX-License-Identifier: ISC
/*
 * Credential masking (issue 28): placeholders of a key's shape
 * (common/mask.c), the request-head rewrite toward the key's own host,
 * the refusal toward any other, and the credentials.mask settings.
 */
#include <sys/stat.h>

#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/b64.h"
#include "common/host/settings.h"
#include "common/mask.h"
#include "supervisor/credentials.h"
#include "tests/unit/unit.h"

#define REAL	"sk-ant-api03-REALsecretVALUE0123456789abcdefXYZ"

static unsigned char	R[MASK_VALUE_MAX];
static char		PH[128], PQ[128];
static struct mask_ent	ENT[2];

static void
setup(void)
{
	size_t	i;

	for (i = 0; i < sizeof(R); i++)
		R[i] = (unsigned char)(i * 131 + 7);
	ck_assert_int_eq(mask_placeholder(REAL, R, sizeof(R), PH,
	    sizeof(PH)), 0);
	R[20] ^= 1;
	ck_assert_int_eq(mask_placeholder(REAL, R, sizeof(R), PQ,
	    sizeof(PQ)), 0);
	ck_assert_str_ne(PH, PQ);
	ENT[0] = (struct mask_ent){ "api.example", MASK_HEADER,
	    "Authorization", PH, REAL };
	ENT[1] = (struct mask_ent){ "q.example", MASK_QUERY, "key", PQ,
	    REAL };
}

static void
teardown(void)
{
}

START_TEST(placeholder_shape)
{
	size_t	i;
	char	out[16];

	ck_assert_uint_eq(strlen(PH), strlen(REAL));
	ck_assert(strncmp(PH, "sk-ant-api03-", 13) == 0);
	ck_assert_str_ne(PH, REAL);
	for (i = 13; i < strlen(REAL); i++) {
		ck_assert(!!islower((unsigned char)PH[i]) ==
		    !!islower((unsigned char)REAL[i]));
		ck_assert(!!isdigit((unsigned char)PH[i]) ==
		    !!isdigit((unsigned char)REAL[i]));
	}
	/* Too short to hide: refused, nothing left behind. */
	ck_assert_int_eq(mask_placeholder("sk-ant-abc", R, sizeof(R), out,
	    sizeof(out)), -1);
	ck_assert_int_eq(mask_placeholder("", R, sizeof(R), out,
	    sizeof(out)), -1);
}
END_TEST

static enum mask_verdict
judge(const char *head, const char *host, char **out, size_t *outlen,
    size_t *which)
{
	char	why[128];

	return mask_head(head, strlen(head), host, ENT, 2, out, outlen,
	    which, why, sizeof(why));
}

START_TEST(header_rewritten_for_its_host)
{
	char	head[512], want[512], *out;
	size_t	n, w;

	snprintf(head, sizeof(head), "GET /v1 HTTP/1.1\r\nHost: api.example"
	    "\r\nauthorization: Bearer %s\r\nX-Other: %s\r\n\r\n", PH, PH);
	snprintf(want, sizeof(want), "GET /v1 HTTP/1.1\r\nHost: api.example"
	    "\r\nauthorization: Bearer %s\r\nX-Other: %s\r\n\r\n", REAL, PH);
	ck_assert_int_eq(judge(head, "API.example", &out, &n, &w),
	    MASK_REWRITTEN);
	ck_assert_uint_eq(n, strlen(want));
	ck_assert(memcmp(out, want, n) == 0);
	mask_head_free(out, n);
}
END_TEST

START_TEST(query_rewritten_exact_only)
{
	char	head[512], want[512], *out;
	size_t	n, w;

	snprintf(head, sizeof(head), "GET /a?x=1&key=%s&k=%s HTTP/1.1\r\n"
	    "\r\n", PQ, PQ);
	snprintf(want, sizeof(want), "GET /a?x=1&key=%s&k=%s HTTP/1.1\r\n"
	    "\r\n", REAL, PQ);
	ck_assert_int_eq(judge(head, "q.example", &out, &n, &w),
	    MASK_REWRITTEN);
	ck_assert(n == strlen(want) && memcmp(out, want, n) == 0);
	mask_head_free(out, n);
}
END_TEST

START_TEST(basic_rewritten)
{
	struct mask_ent	 e = { "b.example", MASK_BASIC, NULL, PH, REAL };
	char		 head[512], up[256], *enc, *out, *got;
	size_t		 n, w;

	snprintf(up, sizeof(up), "user:%s", PH);
	enc = b64_encode((unsigned char *)up, strlen(up));
	snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nAuthorization: "
	    "Basic %s\r\n\r\n", enc);
	free(enc);
	ck_assert_int_eq(mask_head(head, strlen(head), "b.example", &e, 1,
	    &out, &n, &w, NULL, 0), MASK_REWRITTEN);
	snprintf(up, sizeof(up), "user:%s", REAL);
	enc = b64_encode((unsigned char *)up, strlen(up));
	ck_assert((got = memmem(out, n, enc, strlen(enc))) != NULL);
	free(enc);
	mask_head_free(out, n);
	/* Toward another host the encoded placeholder is seen. */
	ck_assert_int_eq(mask_head(head, strlen(head), "evil.example", &e, 1,
	    &out, &n, &w, NULL, 0), MASK_EXFIL);
	ck_assert_ptr_null(out);
}
END_TEST

START_TEST(other_host_refused)
{
	char	head[512], *out;
	size_t	n, w = 99;

	snprintf(head, sizeof(head), "POST /up HTTP/1.1\r\nHost: x\r\n"
	    "X-Data: pre%spost\r\n\r\n", PH);
	ck_assert_int_eq(judge(head, "other.example", &out, &n, &w),
	    MASK_EXFIL);
	ck_assert_uint_eq(w, 0);
	ck_assert_ptr_null(out);
	/* In the target too. */
	snprintf(head, sizeof(head), "GET /?k=%s HTTP/1.1\r\n\r\n", PH);
	ck_assert_int_eq(judge(head, "other.example", &out, &n, &w),
	    MASK_EXFIL);
	/* Without the placeholder the head passes untouched. */
	ck_assert_int_eq(judge("GET / HTTP/1.1\r\nHost: o\r\n\r\n",
	    "other.example", &out, &n, &w), MASK_PASS);
	ck_assert_ptr_null(out);
}
END_TEST

START_TEST(bad_heads)
{
	char		*out;
	size_t		 n, w;
	static const char *const bad[] = {
		"GET / HTTP/1.1\r\n",				/* no end */
		"GET / HTTP/1.1\n\n",				/* LF only */
		"GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n",		/* folded */
		"GET / HTTP/1.1\r\nno colon\r\n\r\n",
		"GET / HTTP/1.1\r\nA: b\rc\r\n\r\n",		/* bare CR */
		"GET /\r\n\r\n",				/* HTTP/0.9 */
		"GET / HTTP/1.1\r\n\r\nextra\r\n\r\n",
		"\r\n\r\n",
	};
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(judge(bad[i], "api.example", &out, &n, &w),
		    MASK_BAD);
	ck_assert_int_eq(mask_head("GET / HTTP/1.1\r\nA: \0\r\n\r\n", 24,
	    "api.example", ENT, 2, &out, &n, &w, NULL, 0), MASK_BAD);
}
END_TEST

START_TEST(settings_parse)
{
	struct settings	 s;
	char		 e[512];
	const char	*ok = "{\"credentials\": {\"mask\": ["
	    "{\"name\": \"ANTHROPIC_API_KEY\", \"host\": \"API.anthropic.com\","
	    " \"header\": \"x-api-key\", \"source\": \"file\"},"
	    "{\"name\": \"T\", \"host\": \"h.example\", \"basic\": true,"
	    " \"source\": {\"command\": [\"/usr/bin/pass\", \"show\","
	    " \"t\"]}}]}}";

	settings_defaults(&s);
	ck_assert_int_eq(settings_merge_text(&s, ok, strlen(ok), "u.json", 0,
	    e, sizeof(e)), 0);
	ck_assert_uint_eq(s.nmasks, 2);
	ck_assert_str_eq(s.masks[0].name, "ANTHROPIC_API_KEY");
	ck_assert_str_eq(s.masks[0].host, "api.anthropic.com");
	ck_assert_int_eq(s.masks[0].where, MASK_HEADER);
	ck_assert_str_eq(s.masks[0].field, "x-api-key");
	ck_assert_ptr_null(s.masks[0].command);
	ck_assert_int_eq(s.masks[1].where, MASK_BASIC);
	ck_assert_str_eq(s.masks[1].command[2], "t");
	settings_free(&s);
}
END_TEST

START_TEST(settings_errors)
{
	static const struct { const char *json, *want; } c[] = {
		{ "{\"credentials\": {\"mask\": {}}}",
		    "credentials.mask: expected array" },
		{ "{\"credentials\": {\"mask\": [{\"name\": \"A\", "
		    "\"host\": \"h\"}]}}", "needs exactly one of" },
		{ "{\"credentials\": {\"mask\": [{\"name\": \"A\", "
		    "\"host\": \"h:443\", \"header\": \"X\"}]}}",
		    "credentials.mask[0].host: \"h:443\" is not a host" },
		{ "{\"credentials\": {\"mask\": [{\"name\": \"A B\", "
		    "\"host\": \"h\", \"header\": \"X\"}]}}",
		    "is not a variable name" },
		{ "{\"credentials\": {\"mask\": [{\"name\": \"A\", "
		    "\"host\": \"h\", \"query\": \"k\", \"header\": \"X\"}]}}",
		    "needs exactly one of" },
		{ "{\"credentials\": {\"mask\": [{\"name\": \"A\", "
		    "\"host\": \"h\", \"header\": \"X\", "
		    "\"source\": \"env\"}]}}",
		    "credentials.mask[0].source: expected \"file\"" },
		{ "{\"credentials\": {\"mask\": [{\"name\": \"A\", "
		    "\"host\": \"h\", \"header\": \"X\", \"source\": "
		    "{\"command\": [\"pass\"]}}]}}",
		    "credentials.mask[0].source: the command's program must" },
		{ "{\"credentials\": {\"mask\": [{\"name\": \"A\", "
		    "\"host\": \"h\", \"header\": \"X\", \"value\": \"s\"}]}}",
		    "credentials.mask[0].value: unknown key" },
		{ "{\"credentials\": {\"mask\": [{\"name\": \"A\", \"host\": "
		    "\"h\", \"header\": \"X\"}, {\"name\": \"A\", \"host\": "
		    "\"g\", \"header\": \"X\"}]}}", "name \"A\" given twice" },
	};
	struct settings	s;
	char		e[512];
	size_t		i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		settings_defaults(&s);
		ck_assert_int_eq(settings_merge_text(&s, c[i].json,
		    strlen(c[i].json), "u.json", 0, e, sizeof(e)), -1);
		if (strstr(e, c[i].want) == NULL)
			ck_abort_msg("%zu: \"%s\" lacks \"%s\"", i, e,
			    c[i].want);
		ck_assert_uint_eq(s.nmasks, 0);
		settings_free(&s);
	}
}
END_TEST

START_TEST(value_from_file_or_command)
{
	struct mask_setting	 ms = { "API_KEY", "api.example", MASK_HEADER,
	    "Authorization", NULL };
	struct cred_store	*cs;
	char			 path[] = "/tmp/test_mask.XXXXXX", err[256];
	char			*v, *ph;
	char			*cmd[] = { "/bin/echo", REAL, NULL };
	int			 fd;
	static const char	 text[] = "{\"API_KEY\": {\"value\": \"" REAL
	    "\"}, \"other\": {\"readToken\": \"r\"}}";

	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	ck_assert_ptr_nonnull(cs = cred_load(path, err, sizeof(err)));
	ck_assert_ptr_nonnull(v = cred_mask_value(cs, &ms, err, sizeof(err)));
	ck_assert_str_eq(v, REAL);
	ck_assert_ptr_nonnull(ph = cred_mask_placeholder(v, err,
	    sizeof(err)));
	ck_assert_uint_eq(strlen(ph), strlen(REAL));
	ck_assert_str_ne(ph, REAL);
	ck_assert(strncmp(ph, "sk-ant-api03-", 13) == 0);
	free(ph);
	cred_secret_free(v);
	/* A missing entry: the error names it and holds no value. */
	ms.name = "NOPE";
	ck_assert_ptr_null(cred_mask_value(cs, &ms, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "no credentials entry NOPE"));
	ms.name = "other";
	ck_assert_ptr_null(cred_mask_value(cs, &ms, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "has no \"value\""));
	/* The entry's own command. */
	ms.command = cmd;
	ck_assert_ptr_nonnull(v = cred_mask_value(NULL, &ms, err,
	    sizeof(err)));
	ck_assert_str_eq(v, REAL);
	cred_secret_free(v);
	cred_free(cs);
	unlink(path);
	ck_assert_ptr_null(cred_mask_placeholder("short-1234", err,
	    sizeof(err)));
	ck_assert_ptr_null(strstr(err, "1234"));
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("mask");
	TCase	*tc = tcase_create("mask");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, placeholder_shape);
	tcase_add_test(tc, header_rewritten_for_its_host);
	tcase_add_test(tc, query_rewritten_exact_only);
	tcase_add_test(tc, basic_rewritten);
	tcase_add_test(tc, other_host_refused);
	tcase_add_test(tc, bad_heads);
	tcase_add_test(tc, settings_parse);
	tcase_add_test(tc, settings_errors);
	tcase_add_test(tc, value_from_file_or_command);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
