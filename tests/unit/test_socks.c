// SPDX-License-Identifier: ISC
/*
 * Unit tests for common/socks.c: greeting, requests of each address type,
 * partial input, malformed requests and reply building.
 */
#include <sys/socket.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/socks.h"
#include "tests/unit/unit.h"

START_TEST(t_greeting)
{
	const uint8_t g1[] = { 5, 2, 0x02, 0x00 };
	const uint8_t g2[] = { 5, 1, 0x02 };
	const uint8_t g3[] = { 4, 1, 0 };
	const uint8_t g4[] = { 5, 0 };
	size_t	 used = 0;
	int	 noauth;

	ck_assert_int_eq(socks_greeting_parse(g1, 1, &used, &noauth),
	    SOCKS_MORE);
	ck_assert_int_eq(socks_greeting_parse(g1, 3, &used, &noauth),
	    SOCKS_MORE);
	ck_assert_int_eq(socks_greeting_parse(g1, 4, &used, &noauth),
	    SOCKS_OK);
	ck_assert_uint_eq(used, 4);
	ck_assert_int_eq(noauth, 1);
	ck_assert_int_eq(socks_greeting_parse(g2, 3, &used, &noauth),
	    SOCKS_OK);
	ck_assert_int_eq(noauth, 0);
	ck_assert_int_eq(socks_greeting_parse(g3, 3, &used, &noauth),
	    SOCKS_ERROR);
	ck_assert_int_eq(socks_greeting_parse(g4, 2, &used, &noauth),
	    SOCKS_ERROR);
}
END_TEST

START_TEST(t_request)
{
	const uint8_t v4[] = { 5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90 };
	const uint8_t v6[] = { 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 1, 0, 22 };
	uint8_t	 dom[64] = { 5, 1, 0, 3, 15 };
	struct socks_request r;
	size_t	 used, i;
	uint8_t	 rep;

	for (i = 0; i < sizeof(v4); i++)
		ck_assert_int_eq(socks_request_parse(v4, i, &used, &r, &rep),
		    SOCKS_MORE);
	ck_assert_int_eq(socks_request_parse(v4, sizeof(v4), &used, &r, &rep),
	    SOCKS_OK);
	ck_assert_uint_eq(used, sizeof(v4));
	ck_assert_int_eq(r.af, AF_INET);
	ck_assert_str_eq(r.host, "127.0.0.1");
	ck_assert_uint_eq(r.port, 8080);

	ck_assert_int_eq(socks_request_parse(v6, sizeof(v6), &used, &r, &rep),
	    SOCKS_OK);
	ck_assert_int_eq(r.af, AF_INET6);
	ck_assert_str_eq(r.host, "::1");
	ck_assert_uint_eq(r.port, 22);

	memcpy(dom + 5, "API.Example.COM", 15);
	dom[20] = 1;
	dom[21] = 187;
	ck_assert_int_eq(socks_request_parse(dom, 21, &used, &r, &rep),
	    SOCKS_MORE);
	ck_assert_int_eq(socks_request_parse(dom, 22, &used, &r, &rep),
	    SOCKS_OK);
	ck_assert_uint_eq(used, 22);
	ck_assert_int_eq(r.atyp, SOCKS_ATYP_DOMAIN);
	ck_assert_str_eq(r.host, "api.example.com");
	ck_assert_uint_eq(r.port, 443);

	dom[1] = SOCKS_CMD_BIND;
	ck_assert_int_eq(socks_request_parse(dom, 22, &used, &r, &rep),
	    SOCKS_OK);
	ck_assert_int_eq(r.cmd, SOCKS_CMD_BIND);
}
END_TEST

START_TEST(t_request_bad)
{
	const uint8_t badatyp[] = { 5, 1, 0, 9, 1, 2, 3, 4, 0, 80 };
	const uint8_t badrsv[] = { 5, 1, 1, 1, 1, 2, 3, 4, 0, 80 };
	const uint8_t port0[] = { 5, 1, 0, 1, 1, 2, 3, 4, 0, 0 };
	const uint8_t nul[] = { 5, 1, 0, 3, 3, 'a', 0, 'b', 0, 80 };
	const uint8_t empty[] = { 5, 1, 0, 3, 0, 0, 80 };
	const uint8_t userinfo[] = { 5, 1, 0, 3, 3, 'a', '@', 'b', 0, 80 };
	const uint8_t numeric[] = { 5, 1, 0, 3, 5, '1', '2', '7', '.', '1',
	    0, 80 };
	/* a port inside the name, a zone id: not names */
	const uint8_t colon[] = { 5, 1, 0, 3, 4, 'a', ':', '8', '0', 0, 80 };
	const uint8_t zone[] = { 5, 1, 0, 3, 9, 'f', 'e', '8', '0', ':', ':',
	    '1', '%', 'e', 0, 80 };
	struct socks_request r;
	size_t	 used;
	uint8_t	 rep;

	ck_assert_int_eq(socks_request_parse(badatyp, sizeof(badatyp), &used,
	    &r, &rep), SOCKS_ERROR);
	ck_assert_int_eq(rep, SOCKS_REP_ATYP_UNSUPPORTED);
	ck_assert_int_eq(socks_request_parse(badrsv, sizeof(badrsv), &used,
	    &r, &rep), SOCKS_ERROR);
	ck_assert_int_eq(socks_request_parse(port0, sizeof(port0), &used,
	    &r, &rep), SOCKS_ERROR);
	ck_assert_int_eq(socks_request_parse(nul, sizeof(nul), &used,
	    &r, &rep), SOCKS_ERROR);
	ck_assert_int_eq(socks_request_parse(empty, sizeof(empty), &used,
	    &r, &rep), SOCKS_ERROR);
	ck_assert_int_eq(socks_request_parse(userinfo, sizeof(userinfo),
	    &used, &r, &rep), SOCKS_ERROR);
	ck_assert_int_eq(socks_request_parse(numeric, sizeof(numeric),
	    &used, &r, &rep), SOCKS_ERROR);
	ck_assert_int_eq(socks_request_parse(colon, sizeof(colon),
	    &used, &r, &rep), SOCKS_ERROR);
	ck_assert_int_eq(socks_request_parse(zone, sizeof(zone),
	    &used, &r, &rep), SOCKS_ERROR);
	ck_assert_int_eq(rep, SOCKS_REP_FAILURE);
}
END_TEST

START_TEST(t_reply)
{
	uint8_t	 out[SOCKS_REPLY_MAX];
	const uint8_t a4[] = { 10, 0, 0, 1 };
	const uint8_t exp4[] = { 5, 0, 0, 1, 10, 0, 0, 1, 0x1f, 0x90 };
	const uint8_t exp0[] = { 5, 2, 0, 1, 0, 0, 0, 0, 0, 0 };
	uint8_t	 a6[16] = { [15] = 1 };

	ck_assert_uint_eq(socks_reply_build(out, 0, AF_INET, a4, 8080), 10);
	ck_assert(memcmp(out, exp4, 10) == 0);
	ck_assert_uint_eq(socks_reply_build(out, 2, 0, NULL, 0), 10);
	ck_assert(memcmp(out, exp0, 10) == 0);
	ck_assert_uint_eq(socks_reply_build(out, 0, AF_INET6, a6, 1), 22);
	ck_assert_int_eq(out[3], SOCKS_ATYP_IPV6);
	ck_assert_int_eq(out[19], 1);
}
END_TEST

static Suite *
socks_suite(void)
{
	Suite	*s = suite_create("socks");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, t_greeting);
	tcase_add_test(tc, t_request);
	tcase_add_test(tc, t_request_bad);
	tcase_add_test(tc, t_reply);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(socks_suite());
}
