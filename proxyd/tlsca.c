/* SPDX-License-Identifier: ISC */
/*
 * The per-session CA (tlsca.h).  P-256 keys: generated in a few
 * milliseconds, so a session pays little for its CA and its leaf key.
 */
#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "proxyd/tlsca.h"

struct px_ca {
	EVP_PKEY	*key;		/* the CA's */
	EVP_PKEY	*leaf_key;	/* every leaf's */
	X509		*cert;
	unsigned	 days;
};

static int
add_ext(X509 *issuer, X509 *subject, int nid, const char *value)
{
	X509V3_CTX	 ctx;
	X509_EXTENSION	*ex;
	int		 rc;

	X509V3_set_ctx(&ctx, issuer, subject, NULL, NULL, 0);
	if ((ex = X509V3_EXT_conf_nid(NULL, &ctx, nid, value)) == NULL)
		return -1;
	rc = X509_add_ext(subject, ex, -1) == 1 ? 0 : -1;
	X509_EXTENSION_free(ex);
	return rc;
}

/* A certificate with a random serial, valid from an hour ago. */
static X509 *
cert_new(const char *cn, unsigned days, EVP_PKEY *pub)
{
	X509		*x;
	X509_NAME	*nm;
	unsigned char	 serial[16];
	BIGNUM		*bn;

	if ((x = X509_new()) == NULL)
		return NULL;
	if (RAND_bytes(serial, sizeof(serial)) != 1)
		goto bad;
	serial[0] &= 0x7f;	/* positive */
	if ((bn = BN_bin2bn(serial, sizeof(serial), NULL)) == NULL)
		goto bad;
	if (BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) == NULL) {
		BN_free(bn);
		goto bad;
	}
	BN_free(bn);
	if (X509_set_version(x, 2) != 1 ||
	    X509_gmtime_adj(X509_getm_notBefore(x), -3600) == NULL ||
	    X509_gmtime_adj(X509_getm_notAfter(x),
	    (long)days * 86400) == NULL ||
	    X509_set_pubkey(x, pub) != 1)
		goto bad;
	nm = X509_get_subject_name(x);
	if (X509_NAME_add_entry_by_txt(nm, "O", MBSTRING_ASC,
	    (const unsigned char *)"airlock", -1, -1, 0) != 1 ||
	    X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC,
	    (const unsigned char *)cn, -1, -1, 0) != 1)
		goto bad;
	return x;
bad:
	X509_free(x);
	return NULL;
}

struct px_ca *
px_ca_new(unsigned days, char *err, size_t errlen)
{
	struct px_ca	*ca;

	if ((ca = calloc(1, sizeof(*ca))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ca->days = days;
	if ((ca->key = EVP_EC_gen("P-256")) == NULL ||
	    (ca->leaf_key = EVP_EC_gen("P-256")) == NULL ||
	    (ca->cert = cert_new("airlock session CA", days,
	    ca->key)) == NULL ||
	    X509_set_issuer_name(ca->cert,
	    X509_get_subject_name(ca->cert)) != 1 ||
	    add_ext(ca->cert, ca->cert, NID_basic_constraints,
	    "critical,CA:TRUE,pathlen:0") == -1 ||
	    add_ext(ca->cert, ca->cert, NID_key_usage,
	    "critical,keyCertSign,cRLSign") == -1 ||
	    add_ext(ca->cert, ca->cert, NID_subject_key_identifier,
	    "hash") == -1 ||
	    X509_sign(ca->cert, ca->key, EVP_sha256()) == 0) {
		snprintf(err, errlen, "cannot make the session CA: %s",
		    ERR_reason_error_string(ERR_get_error()));
		px_ca_free(ca);
		return NULL;
	}
	return ca;
}

void
px_ca_free(struct px_ca *ca)
{
	if (ca == NULL)
		return;
	/* EVP_PKEY_free() clears the key material it frees. */
	EVP_PKEY_free(ca->key);
	EVP_PKEY_free(ca->leaf_key);
	X509_free(ca->cert);
	free(ca);
}

char *
px_ca_cert_pem(const struct px_ca *ca)
{
	BIO	*b;
	char	*p, *out = NULL;
	long	 n;

	if ((b = BIO_new(BIO_s_mem())) == NULL)
		return NULL;
	if (PEM_write_bio_X509(b, ca->cert) == 1 &&
	    (n = BIO_get_mem_data(b, &p)) > 0 &&
	    (out = malloc((size_t)n + 1)) != NULL) {
		memcpy(out, p, (size_t)n);
		out[n] = '\0';
	}
	BIO_free(b);
	return out;
}

X509 *
px_ca_cert(const struct px_ca *ca)
{
	return ca->cert;
}

X509 *
px_ca_leaf(struct px_ca *ca, const char *host, EVP_PKEY **key)
{
	X509		*x;
	char		 san[300];
	unsigned char	 ip[16];
	int		 isip;

	if (strlen(host) == 0 || strlen(host) > 253)
		return NULL;
	/* untrusted: the name the sandbox asked for, checked by the caller
	 * against the masked hosts; a literal address gets an IP name. */
	isip = inet_pton(AF_INET, host, ip) == 1 ||
	    inet_pton(AF_INET6, host, ip) == 1;
	snprintf(san, sizeof(san), "%s:%s", isip ? "IP" : "DNS", host);
	if ((x = cert_new(host, ca->days, ca->leaf_key)) == NULL)
		return NULL;
	if (X509_set_issuer_name(x, X509_get_subject_name(ca->cert)) != 1 ||
	    add_ext(ca->cert, x, NID_basic_constraints,
	    "critical,CA:FALSE") == -1 ||
	    add_ext(ca->cert, x, NID_key_usage,
	    "critical,digitalSignature") == -1 ||
	    add_ext(ca->cert, x, NID_ext_key_usage, "serverAuth") == -1 ||
	    add_ext(ca->cert, x, NID_authority_key_identifier,
	    "keyid:always") == -1 ||
	    add_ext(ca->cert, x, NID_subject_alt_name, san) == -1 ||
	    X509_sign(x, ca->key, EVP_sha256()) == 0) {
		X509_free(x);
		return NULL;
	}
	*key = ca->leaf_key;
	return x;
}
