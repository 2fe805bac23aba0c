/* SPDX-License-Identifier: ISC */
/*
 * A session's certificate authority for TLS termination (credential
 * masking): generated in proxyd's memory, never written, never
 * sent anywhere but its certificate.  Leaf certificates for a listed host
 * are signed on demand with one leaf key per CA.
 */
#ifndef AIRLOCK_PROXYD_TLSCA_H
#define AIRLOCK_PROXYD_TLSCA_H

#include <stddef.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

struct px_ca;

/* A fresh CA valid for days; NULL with a message in err. */
struct px_ca	*px_ca_new(unsigned days, char *err, size_t errlen);
/* Zeroes and frees both keys.  NULL-safe. */
void		 px_ca_free(struct px_ca *);
/* The CA certificate in PEM (the public part only); free() it. */
char		*px_ca_cert_pem(const struct px_ca *);
/*
 * A leaf certificate for host (a DNS name or an IP address literal),
 * signed by the CA; *key is the CA's leaf key (not to be freed).  NULL
 * on error.  The caller frees the certificate with X509_free().
 */
X509		*px_ca_leaf(struct px_ca *, const char *host, EVP_PKEY **key);
/* The CA certificate (not to be freed), for verifying in tests. */
X509		*px_ca_cert(const struct px_ca *);

#endif
