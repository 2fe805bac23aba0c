/* SPDX-License-Identifier: ISC */
/*
 * SOCKS5 (RFC 1928) wire parsing and reply building for proxyd.  Pure: the
 * caller buffers bytes and calls the parsers until they stop saying MORE.
 * Only what R-E1 needs: the no-authentication method, and CONNECT with
 * IPv4, domain and IPv6 address types; BIND and UDP ASSOCIATE parse but
 * must be answered with SOCKS_REP_CMD_UNSUPPORTED.
 */
#ifndef AIRLOCK_SOCKS_H
#define AIRLOCK_SOCKS_H

#include <stddef.h>
#include <stdint.h>

#define SOCKS_VERSION		5
#define SOCKS_METHOD_NOAUTH	0x00
#define SOCKS_METHOD_NONE	0xff	/* no acceptable method */

#define SOCKS_CMD_CONNECT	1
#define SOCKS_CMD_BIND		2
#define SOCKS_CMD_UDP		3

#define SOCKS_ATYP_IPV4		1
#define SOCKS_ATYP_DOMAIN	3
#define SOCKS_ATYP_IPV6		4

/* Reply codes */
#define SOCKS_REP_OK			0x00
#define SOCKS_REP_FAILURE		0x01
#define SOCKS_REP_NOT_ALLOWED		0x02
#define SOCKS_REP_NET_UNREACH		0x03
#define SOCKS_REP_HOST_UNREACH		0x04
#define SOCKS_REP_REFUSED		0x05
#define SOCKS_REP_TTL			0x06
#define SOCKS_REP_CMD_UNSUPPORTED	0x07
#define SOCKS_REP_ATYP_UNSUPPORTED	0x08

#define SOCKS_REPLY_MAX		22	/* 4 + 16 + 2 */
#define SOCKS_HOST_MAX		256

enum socks_result {
	SOCKS_MORE = 0,		/* incomplete: read more */
	SOCKS_OK,		/* parsed; *used bytes consumed */
	SOCKS_ERROR,		/* malformed: reply *rep, close */
};

struct socks_request {
	uint8_t		 cmd;
	uint8_t		 atyp;
	/* the host as text: the domain (lower-cased) or the IP literal */
	char		 host[SOCKS_HOST_MAX];
	int		 af;		/* AF_INET/AF_INET6, or 0 */
	uint8_t		 addr[16];
	uint16_t	 port;
};

/*
 * Method selection message: VER NMETHODS METHODS...  *noauth is set when
 * the client offers "no authentication".  A version other than 5 is an
 * error (no reply: close).
 */
enum socks_result socks_greeting_parse(const void *buf, size_t len,
		    size_t *used, int *noauth);

/*
 * Request: VER CMD RSV ATYP DST.ADDR DST.PORT.  On SOCKS_ERROR, *rep is
 * the reply code to send before closing (SOCKS_REP_FAILURE for a
 * malformed request or domain, SOCKS_REP_ATYP_UNSUPPORTED for an unknown
 * address type).  Commands other than CONNECT parse as SOCKS_OK: the
 * caller answers SOCKS_REP_CMD_UNSUPPORTED.
 */
enum socks_result socks_request_parse(const void *buf, size_t len,
		    size_t *used, struct socks_request *r, uint8_t *rep);

/*
 * Build a reply into out[SOCKS_REPLY_MAX]: rep, and the bound address
 * (af 0 gives 0.0.0.0:0).  Returns its length.
 */
size_t		 socks_reply_build(uint8_t *out, uint8_t rep, int af,
		    const void *addr, uint16_t port);

/*
 * The client side (`airlock proxy-connect`): a server's reply to CONNECT,
 * VER REP RSV ATYP BND.ADDR BND.PORT.  SOCKS_OK with *rep the reply code
 * and *used its length; SOCKS_ERROR for a wrong version or address type.
 */
enum socks_result socks_reply_parse(const void *buf, size_t len,
		    size_t *used, uint8_t *rep);

#endif
