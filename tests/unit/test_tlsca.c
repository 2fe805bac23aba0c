// SPDX-License-Identifier: ISC
/*
 * proxyd's per-session CA (proxyd/tlsca.c, issue 28): a leaf for a host
 * verifies against the CA for that host alone, the CA's PEM carries no
 * key, and two sessions' CAs do not vouch for each other's leaves.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "proxyd/tlsca.h"
#include "tests/unit/unit.h"

static int
verifies(X509 *root, X509 *leaf)
{
	X509_STORE	*st = X509_STORE_new();
	X509_STORE_CTX	*ctx = X509_STORE_CTX_new();
	int		 ok;

	X509_STORE_add_cert(st, root);
	X509_STORE_CTX_init(ctx, st, leaf, NULL);
	X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER);
	ok = X509_verify_cert(ctx) == 1;
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(st);
	return ok;
}

START_TEST(leaf_verifies_for_its_host)
{
	struct px_ca	*ca, *other;
	EVP_PKEY	*k = NULL;
	X509		*leaf, *ipleaf;
	char		 err[256], *pem;

	ck_assert_ptr_nonnull(ca = px_ca_new(1, err, sizeof(err)));
	ck_assert_ptr_nonnull(other = px_ca_new(1, err, sizeof(err)));
	ck_assert_ptr_nonnull(leaf = px_ca_leaf(ca, "api.example", &k));
	ck_assert_ptr_nonnull(k);
	ck_assert(X509_check_private_key(leaf, k) == 1);
	ck_assert(verifies(px_ca_cert(ca), leaf));
	ck_assert(!verifies(px_ca_cert(other), leaf));
	ck_assert_int_eq(X509_check_host(leaf, "api.example", 0, 0, NULL),
	    1);
	ck_assert_int_ne(X509_check_host(leaf, "evil.example", 0, 0, NULL),
	    1);
	ck_assert_ptr_nonnull(ipleaf = px_ca_leaf(ca, "127.0.0.1", &k));
	ck_assert_int_eq(X509_check_ip_asc(ipleaf, "127.0.0.1", 0), 1);
	ck_assert_ptr_null(px_ca_leaf(ca, "", &k));
	pem = px_ca_cert_pem(ca);
	ck_assert_ptr_nonnull(strstr(pem, "BEGIN CERTIFICATE"));
	ck_assert_ptr_null(strstr(pem, "PRIVATE"));
	free(pem);
	X509_free(leaf);
	X509_free(ipleaf);
	px_ca_free(ca);
	px_ca_free(other);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("tlsca");
	TCase	*tc = tcase_create("tlsca");

	tcase_add_test(tc, leaf_verifies_for_its_host);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
