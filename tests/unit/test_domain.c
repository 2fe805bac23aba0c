// SPDX-License-Identifier: ISC
/*
 * Unit tests for policy/domain.c and policy/egress.c: the R-E3 pattern
 * cases of issue 6, pattern validation, the hard deny list, composing a
 * session allowlist and the R-E5 address check.
 */
#include <sys/socket.h>
#include <arpa/inet.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"
#include "tests/unit/unit.h"

START_TEST(t_wild_left)
{
	ck_assert(dom_match("*.example.com", "a.example.com", 443));
	ck_assert(dom_match("*.example.com", "a.b.example.com", 443));
	ck_assert(!dom_match("*.example.com", "example.com", 443));
	ck_assert(!dom_match("*.example.com", "evilexample.com", 443));
	ck_assert(!dom_match("*.example.com", "example.com.evil.com", 443));
	ck_assert(!dom_match("*.example.com", ".example.com", 443));
	ck_assert(dom_match("*.example.com", "A.Example.COM.", 80));
}
END_TEST

START_TEST(t_wild_mid)
{
	const char *p = "bedrock.*.amazonaws.com";

	ck_assert(dom_match(p, "bedrock.us-east-1.amazonaws.com", 443));
	ck_assert(!dom_match(p, "bedrock.evil.attacker.amazonaws.com", 443));
	ck_assert(!dom_match(p, "bedrock.amazonaws.com", 443));
	ck_assert(!dom_match(p, "bedrock..amazonaws.com", 443));
	ck_assert(!dom_match(p, "xbedrock.us-east-1.amazonaws.com", 443));
	ck_assert(!dom_match(p, "bedrock.us-east-1.amazonaws.com.evil", 443));
	ck_assert(!dom_match(p, "a.bedrock.us-east-1.amazonaws.com", 443));
}
END_TEST

START_TEST(t_exact_case_dot_port)
{
	ck_assert(dom_match("api.example.com", "API.Example.COM.", 443));
	ck_assert(dom_match("API.example.com.", "api.example.com", 443));
	ck_assert(!dom_match("api.example.com", "api.example.com..", 443));
	ck_assert(!dom_match("api.example.com", "xapi.example.com", 443));
	ck_assert(dom_match("localhost:5432", "localhost", 5432));
	ck_assert(!dom_match("localhost:5432", "localhost", 5433));
	ck_assert(dom_match("*.example.com:443", "a.example.com", 443));
	ck_assert(!dom_match("*.example.com:443", "a.example.com", 80));
	ck_assert(dom_match("*", "anything.at.all", 1));
	ck_assert(dom_match("*:22", "a.b", 22));
	ck_assert(!dom_match("*:22", "a.b", 23));
}
END_TEST

START_TEST(t_ip)
{
	ck_assert(dom_match("10.0.0.0/8:5432", "10.1.2.3", 5432));
	ck_assert(!dom_match("10.0.0.0/8:5432", "10.1.2.3", 5433));
	ck_assert(!dom_match("10.0.0.0/8", "11.0.0.1", 1));
	ck_assert(dom_match("127.0.0.1", "127.0.0.1", 80));
	ck_assert(dom_match("::1", "::1", 80));
	ck_assert(dom_match("[::1]:22", "::1", 22));
	ck_assert(!dom_match("[::1]:22", "::1", 23));
	ck_assert(dom_match("fd00::/8", "fd12::1", 1));
	ck_assert(dom_match("[fd00::/8]:5", "fd12::1", 5));
	ck_assert(!dom_match("fd00::/8", "fe12::1", 1));
	ck_assert(dom_match("0.0.0.0/0", "8.8.8.8", 1));
	/* IP literals never match domain patterns */
	ck_assert(!dom_match("*.0.0.1", "127.0.0.1", 80));
	ck_assert(!dom_match("*.1", "10.0.0.1", 80));
	/* and a domain never matches an IP rule */
	ck_assert(!dom_match("10.0.0.0/8", "10.example.com", 80));
}
END_TEST

START_TEST(t_invalid)
{
	const char *bad[] = {
		"", "*.*.example.com", "a*.example.com", "*example.com",
		"example.*", "*.", "example..com", "exa mple.com",
		"example.com:0", "example.com:65536", "example.com:", ":80",
		"10.0.0.1/8", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/08",
		"[::1", "[::1]x", "::1/129", "[example.com]:1",
		"a:b:c", "ex%41mple.com", "bedrock.**.amazonaws.com",
		"bedrock.*x.amazonaws.com", "a.example.com/8", NULL
	};
	const char *good[] = {
		"*", "*.example.com", "bedrock.*.amazonaws.com", "localhost",
		"localhost:5432", "10.0.0.0/8:5432", "::1", "[fd00::/8]:22",
		"Example.COM.", "a_b.example.com", "*:443", NULL
	};
	const char *why;
	size_t	 i;

	for (i = 0; bad[i] != NULL; i++)
		ck_assert_msg(!dom_pattern_valid(bad[i], &why),
		    "accepted %s", bad[i]);
	for (i = 0; good[i] != NULL; i++)
		ck_assert_msg(dom_pattern_valid(good[i], &why),
		    "rejected %s: %s", good[i], why);
}
END_TEST

START_TEST(t_hard_deny)
{
	char	*allow[] = { "*", "169.254.0.0/16", NULL };
	char	 reason[EGRESS_REASON_MAX];

	ck_assert_int_eq(egress_decide(allow, NULL, "169.254.169.254", 80,
	    reason, sizeof(reason)), POL_DENY);
	ck_assert_ptr_nonnull(strstr(reason, "hard-denied"));
	ck_assert_int_eq(egress_decide(allow, NULL, "metadata.google.internal",
	    80, reason, sizeof(reason)), POL_DENY);
	ck_assert_int_eq(egress_decide(allow, NULL, "Metadata.Google.Internal.",
	    80, reason, sizeof(reason)), POL_DENY);
	ck_assert_int_eq(egress_decide(allow, NULL, "fd00:ec2::254",
	    80, reason, sizeof(reason)), POL_DENY);
	ck_assert_int_eq(egress_decide(allow, NULL, "example.com", 443,
	    reason, sizeof(reason)), POL_ALLOW);
	ck_assert_str_eq(reason, "allowed by '*'");
}
END_TEST

START_TEST(t_decide_reasons)
{
	char	*allow[] = { "*.example.com", "api.other.org:443", NULL };
	char	*deny[] = { "secret.example.com", NULL };
	char	*none[] = { NULL };
	char	 reason[EGRESS_REASON_MAX];

	ck_assert_int_eq(egress_decide(allow, deny, "a.example.com", 1,
	    reason, sizeof(reason)), POL_ALLOW);
	ck_assert_str_eq(reason, "allowed by '*.example.com'");
	ck_assert_int_eq(egress_decide(allow, deny, "secret.example.com", 1,
	    reason, sizeof(reason)), POL_DENY);
	ck_assert_str_eq(reason, "denied by 'secret.example.com'");
	ck_assert_int_eq(egress_decide(allow, deny, "api.other.org", 80,
	    reason, sizeof(reason)), POL_DENY);
	ck_assert_str_eq(reason, "not in allowlist");
	ck_assert_int_eq(egress_decide(none, NULL, "a.example.com", 1,
	    reason, sizeof(reason)), POL_DENY);
	ck_assert_str_eq(reason, "not in allowlist (allowlist empty)");
}
END_TEST

START_TEST(t_allowlist)
{
	char	*spec[] = { "db.internal:5432", "github.com", NULL };
	char	*settings[] = { "*.corp.example", "bad..pattern", NULL };
	char	**v;
	size_t	 i, n;
	int	 gh = 0;

	v = egress_allowlist(0, spec, settings);
	ck_assert_uint_eq(strv_len(v), 0);
	strv_free(v);

	v = egress_allowlist(1, spec, settings);
	n = strv_len(v);
	for (i = 0; i < n; i++) {
		if (strcmp(v[i], "github.com") == 0)
			gh++;
		ck_assert_str_ne(v[i], "bad..pattern");
	}
	ck_assert_int_eq(gh, 1);
	ck_assert(dom_match(v[n - 1], "x.corp.example", 1));
	ck_assert_str_eq(v[n - 2], "db.internal:5432");
	for (i = 0; egress_baseline[i] != NULL; i++)
		ck_assert_str_eq(v[i], egress_baseline[i]);
	strv_free(v);
}
END_TEST

static void
addr_of(const char *s, int *af, uint8_t *a)
{
	ck_assert(dom_host_is_ip(s, af, a));
}

START_TEST(t_addr_check)
{
	char	*star[] = { "*", NULL };
	char	*lo[] = { "*", "127.0.0.1:5432", NULL };
	char	*lhost[] = { "localhost:8080", NULL };
	char	*lname[] = { "localhost", NULL };
	char	*lnet[] = { "127.0.0.0/8", "127.0.0.1", "::1", "0.0.0.0",
	    "localhost", NULL };
	char	*net10[] = { "10.0.0.0/8", NULL };
	char	 reason[EGRESS_REASON_MAX];
	uint8_t	 a[16];
	int	 af;

	addr_of("127.0.0.1", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "evil.example", af, a, 5432,
	    reason, sizeof(reason)), POL_DENY);
	ck_assert_str_eq(reason, "resolves to a loopback address");
	ck_assert_int_eq(egress_check_addr(lo, "evil.example", af, a, 5432,
	    reason, sizeof(reason)), POL_ALLOW);
	ck_assert_int_eq(egress_check_addr(lo, "evil.example", af, a, 5433,
	    reason, sizeof(reason)), POL_DENY);
	ck_assert_int_eq(egress_check_addr(lhost, "localhost", af, a, 8080,
	    reason, sizeof(reason)), POL_ALLOW);
	ck_assert_int_eq(egress_check_addr(lhost, "localhost", af, a, 8081,
	    reason, sizeof(reason)), POL_DENY);
	ck_assert_int_eq(egress_check_addr(lhost, "evil.example", af, a, 8080,
	    reason, sizeof(reason)), POL_DENY);
	/* issue 25: loopback only by a rule that names a port as well */
	ck_assert_int_eq(egress_check_addr(lname, "localhost", af, a, 8080,
	    reason, sizeof(reason)), POL_DENY);
	ck_assert_str_eq(reason, "resolves to a loopback address");
	ck_assert_int_eq(egress_check_addr(lname, "LOCALHOST.", af, a, 22,
	    reason, sizeof(reason)), POL_DENY);
	ck_assert_int_eq(egress_check_addr(lnet, "x", af, a, 8080, reason,
	    sizeof(reason)), POL_DENY);
	addr_of("::1", &af, a);
	ck_assert_int_eq(egress_check_addr(lnet, "localhost", af, a, 8080,
	    reason, sizeof(reason)), POL_DENY);
	addr_of("0.0.0.0", &af, a);
	ck_assert_int_eq(egress_check_addr(lnet, "x", af, a, 8080, reason,
	    sizeof(reason)), POL_DENY);
	addr_of("127.0.0.1", &af, a);

	addr_of("10.1.2.3", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 1, reason,
	    sizeof(reason)), POL_DENY);
	ck_assert_int_eq(egress_check_addr(net10, "x", af, a, 1, reason,
	    sizeof(reason)), POL_ALLOW);
	addr_of("169.254.169.254", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);
	ck_assert_ptr_nonnull(strstr(reason, "hard-denied"));
	addr_of("::ffff:169.254.169.254", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);
	ck_assert_ptr_nonnull(strstr(reason, "hard-denied"));
	addr_of("::ffff:127.0.0.1", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);
	addr_of("::1", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);
	addr_of("fe80::1", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);
	addr_of("fd12::1", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);
	addr_of("100.64.1.1", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);
	ck_assert_str_eq(reason, "resolves to a cgnat address");
	addr_of("0.0.0.0", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);
	addr_of("239.1.1.1", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);
	addr_of("93.184.216.34", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_ALLOW);
	addr_of("2606:4700::1", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_ALLOW);
}
END_TEST

/* Documentation and benchmarking ranges, and the host's own addresses. */
/* issue 25: '*' and a portless loopback rule are told to the user. */
START_TEST(t_pattern_note)
{
	char	buf[320];

	ck_assert_ptr_nonnull(dom_pattern_note("*", buf, sizeof(buf)));
	ck_assert_ptr_nonnull(strstr(buf, "every host on the internet"));
	ck_assert_ptr_nonnull(strstr(buf, "any port"));
	ck_assert_ptr_nonnull(dom_pattern_note("*:443", buf, sizeof(buf)));
	ck_assert_ptr_nonnull(strstr(buf, "on port 443"));
	ck_assert_ptr_nonnull(dom_pattern_note("localhost", buf,
	    sizeof(buf)));
	ck_assert_ptr_nonnull(strstr(buf, "localhost:5432"));
	ck_assert_ptr_nonnull(dom_pattern_note("LocalHost.", buf,
	    sizeof(buf)));
	ck_assert_ptr_nonnull(dom_pattern_note("127.0.0.1", buf,
	    sizeof(buf)));
	ck_assert_ptr_nonnull(dom_pattern_note("127.0.0.0/8", buf,
	    sizeof(buf)));
	ck_assert_ptr_nonnull(dom_pattern_note("::1", buf, sizeof(buf)));
	ck_assert_ptr_nonnull(dom_pattern_note("0.0.0.0", buf, sizeof(buf)));
	ck_assert_ptr_null(dom_pattern_note("localhost:5432", buf,
	    sizeof(buf)));
	ck_assert_ptr_null(dom_pattern_note("github.com", buf, sizeof(buf)));
	ck_assert_ptr_null(dom_pattern_note("*.github.com", buf,
	    sizeof(buf)));
	ck_assert_ptr_null(dom_pattern_note("10.0.0.0/8", buf, sizeof(buf)));
	ck_assert_ptr_null(dom_pattern_note("not a pattern", buf,
	    sizeof(buf)));
}
END_TEST

START_TEST(t_addr_special_ietf_host)
{
	static const char *const special[] = {
		"192.0.2.1", "198.51.100.7", "203.0.113.255", "198.18.0.1",
		"198.19.255.254", "192.88.99.1", "2001:db8::7", "3fff::1",
		"2001:2::1", "100::1", "2001::1", "::ffff:203.0.113.9",
	};
	char	*star[] = { "*", NULL };
	char	*lit[] = { "*", "203.0.113.7", "8.8.4.4", NULL };
	char	 reason[EGRESS_REASON_MAX];
	uint8_t	 a[16];
	size_t	 i;
	int	 af;

	for (i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		addr_of(special[i], &af, a);
		ck_assert_msg(egress_check_addr(star, "x", af, a, 80, reason,
		    sizeof(reason)) == POL_DENY, "%s: %s", special[i], reason);
	}
	addr_of("203.0.113.7", &af, a);
	ck_assert_str_eq(egress_addr_special(af, a), "documentation");
	ck_assert_int_eq(egress_check_addr(lit, "x", af, a, 80, reason,
	    sizeof(reason)), POL_ALLOW);
	addr_of("203.0.113.8", &af, a);
	ck_assert_int_eq(egress_check_addr(lit, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);

	/* A public address of the host's own is special: "host". */
	addr_of("8.8.4.4", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_ALLOW);
	ck_assert_int_eq(egress_host_addr_add(af, a), 0);
	ck_assert_int_eq(egress_host_addr_add(af, a), 0);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);
	ck_assert_str_eq(reason, "resolves to a host address");
	ck_assert_int_eq(egress_check_addr(lit, "x", af, a, 80, reason,
	    sizeof(reason)), POL_ALLOW);
	addr_of("::ffff:8.8.4.4", &af, a);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);
	addr_of("2606:4700::9", &af, a);
	ck_assert_int_eq(egress_host_addr_add(af, a), 0);
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_DENY);
	ck_assert_int_eq(egress_host_addr_add(99, a), -1);
	egress_host_addrs_clear();
	ck_assert_int_eq(egress_check_addr(star, "x", af, a, 80, reason,
	    sizeof(reason)), POL_ALLOW);
}
END_TEST

START_TEST(t_bad_deny_fails_closed)
{
	char	*allow[] = { "*", NULL };
	char	*deny[] = { "bad..x", NULL };
	char	 reason[EGRESS_REASON_MAX];
	const char *why;

	ck_assert_ptr_null(egress_rules_new(allow, deny, &why));
	ck_assert_int_eq(egress_decide(allow, deny, "a.com", 1, reason,
	    sizeof(reason)), POL_DENY);
}
END_TEST

/*
 * One prepared host matched against many patterns (what egress decisions
 * do) must answer exactly what dom_match() answers for each pair.
 */
START_TEST(t_prepared_host)
{
	static const char *const pats[] = {
		"*.example.com", "bedrock.*.amazonaws.com", "api.example.com",
		"localhost:5432", "*:22", "10.0.0.0/8", "::1", "[fd00::/8]:5",
		"127.0.0.1", "*", NULL
	};
	static const char *const hosts[] = {
		"a.example.com", "example.com", "API.Example.COM.",
		"bedrock.us-east-1.amazonaws.com", "localhost", "10.1.2.3",
		"::1", "fd12::1", "127.0.0.1", "a..b", "", NULL
	};
	static const uint16_t ports[] = { 22, 443, 5432, 5 };
	struct dom_pattern p;
	struct dom_host h;
	const char *why;
	size_t	 i, j, k;
	int	 matched = 0;

	for (j = 0; hosts[j] != NULL; j++) {
		dom_host_prepare(hosts[j], &h);
		for (i = 0; pats[i] != NULL; i++) {
			ck_assert_int_eq(dom_pattern_parse(pats[i], &p, &why),
			    0);
			for (k = 0; k < sizeof(ports) / sizeof(ports[0]); k++) {
				ck_assert_int_eq(dom_pattern_match_host(&p, &h,
				    ports[k]), dom_match(pats[i], hosts[j],
				    ports[k]));
				matched += dom_match(pats[i], hosts[j],
				    ports[k]);
			}
		}
	}
	/* the table holds matches and misses, not only one kind */
	ck_assert_int_gt(matched, 10);
	ck_assert_int_lt(matched, 10 * 11 * 4 - 10);
}
END_TEST

static Suite *
domain_suite(void)
{
	Suite	*s = suite_create("domain");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, t_wild_left);
	tcase_add_test(tc, t_wild_mid);
	tcase_add_test(tc, t_exact_case_dot_port);
	tcase_add_test(tc, t_ip);
	tcase_add_test(tc, t_invalid);
	tcase_add_test(tc, t_hard_deny);
	tcase_add_test(tc, t_decide_reasons);
	tcase_add_test(tc, t_allowlist);
	tcase_add_test(tc, t_addr_check);
	tcase_add_test(tc, t_addr_special_ietf_host);
	tcase_add_test(tc, t_pattern_note);
	tcase_add_test(tc, t_bad_deny_fails_closed);
	tcase_add_test(tc, t_prepared_host);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(domain_suite());
}
