/* SPDX-License-Identifier: ISC */
/*
 * The one strict HTTP/1.x parser shared by proxyd (requests from the
 * sandbox) and gatewayd (requests from the sandbox, responses from the
 * code host).  Pure: no I/O, no global state.  The caller buffers bytes
 * until http_head_scan() says a whole head is there, then parses it in one
 * go; bodies are framed by the caller with the result (Content-Length, or
 * the chunked decoder below).
 *
 * Everything here reads untrusted bytes, so the grammar is the strict one
 * of RFC 9110/9112 and every ambiguity that has ever been used for request
 * smuggling is an error: bare LF, CR not followed by LF, obs-fold, both
 * Content-Length and Transfer-Encoding, duplicate or non-numeric
 * Content-Length, a Transfer-Encoding other than exactly "chunked",
 * whitespace before a header colon, control characters, userinfo in a
 * request target, over-long heads and too many header fields.
 */
#ifndef AIRLOCK_HTTP_H
#define AIRLOCK_HTTP_H

#include <stddef.h>
#include <stdint.h>

#define HTTP_HEAD_MAX		(64 * 1024)	/* one head */
#define HTTP_HEADERS_MAX	100		/* header fields per head */
#define HTTP_HOST_MAX		256		/* incl. NUL */
#define HTTP_CHUNK_LINE_MAX	1024		/* size + exts */
#define HTTP_TRAILER_MAX	(16 * 1024)	/* all trailer lines */

enum http_scan {
	HTTP_SCAN_MORE = 0,	/* no end of head yet: read more */
	HTTP_SCAN_DONE,		/* *headlen bytes are a whole head */
	HTTP_SCAN_ERROR,	/* bare LF, or too long: answer 400 */
};

enum http_form {
	HTTP_FORM_ORIGIN = 1,	/* "/path?query" */
	HTTP_FORM_ABSOLUTE,	/* "http://host:port/path" (to a proxy) */
	HTTP_FORM_AUTHORITY,	/* "host:port" (CONNECT only) */
	HTTP_FORM_ASTERISK,	/* "*" (OPTIONS only) */
};

enum http_body {
	HTTP_BODY_NONE = 0,	/* no body */
	HTTP_BODY_LENGTH,	/* content_length bytes */
	HTTP_BODY_CHUNKED,	/* chunked coding: use struct http_chunked */
	HTTP_BODY_CLOSE,	/* responses only: until the peer closes */
};

/* A header field; both strings point into the parsed head's copy. */
struct http_header {
	const char	*name;
	const char	*value;		/* OWS trimmed */
};

struct http_request {
	char		*buf;		/* owned copy, NUL-split */
	const char	*method;
	const char	*target;	/* as sent */
	enum http_form	 form;
	int		 minor;		/* HTTP/1.<minor>: 0 or 1 */
	/* absolute and authority form: */
	char		 scheme[8];	/* "http", "https" or "" */
	char		 host[HTTP_HOST_MAX]; /* lower case, no brackets */
	uint16_t	 port;		/* explicit, else the scheme's */
	int		 host_is_v6;	/* host was a [IPv6] literal */
	/* origin and absolute form: path and query ("/" if absent) */
	const char	*path;
	struct http_header *hdrs;
	size_t		 nhdrs;
	enum http_body	 body;
	uint64_t	 content_length;
	int		 keep_alive;	/* persistent after this */
};

struct http_response {
	char		*buf;		/* owned copy, NUL-split */
	int		 minor;
	int		 status;	/* 100..999 */
	const char	*reason;	/* may be "" */
	struct http_header *hdrs;
	size_t		 nhdrs;
	enum http_body	 body;
	uint64_t	 content_length;
	int		 keep_alive;
};

/*
 * Look for the end of a head (CRLF CRLF) in buf[0..len).  Returns DONE with
 * *headlen set, MORE when the caller should read more (len stays below
 * HTTP_HEAD_MAX), or ERROR for a bare LF or a head over HTTP_HEAD_MAX.
 * Leading empty lines before a request line are not skipped: an error.
 */
enum http_scan	 http_head_scan(const void *buf, size_t len,
		    size_t *headlen);

/*
 * Parse a whole request head (exactly what http_head_scan() measured).
 * Returns 0, or -1 with *why set to a short reason for a 400 answer.
 * On success r owns memory: release with http_request_free().
 */
int		 http_request_parse(const void *buf, size_t len,
		    struct http_request *r, const char **why);
void		 http_request_free(struct http_request *);

/*
 * Parse a whole response head.  head_request: the request was HEAD (so
 * the response has no body whatever its headers say); connect_request:
 * a 2xx answer to CONNECT has no body either.
 */
int		 http_response_parse(const void *buf, size_t len,
		    int head_request, int connect_request,
		    struct http_response *r, const char **why);
void		 http_response_free(struct http_response *);

/* Case-insensitive lookup of the first field named name, or NULL. */
const char	*http_header_get(const struct http_header *, size_t n,
		    const char *name);
/* Whether a comma-separated field value lists token (case-insensitive). */
int		 http_list_has(const char *value, const char *token);

/*
 * Parse an authority "host[:port]" (no userinfo, no path): a DNS name
 * (letters, digits, '-', '.', '_'; labels 1..63, total <= 253 plus one
 * trailing dot), a dotted-quad IPv4 literal, or a bracketed IPv6 literal
 * (no zone id).  The host is lower-cased into host[HTTP_HOST_MAX] without
 * brackets; a trailing dot is kept (the domain matcher ignores it).  A
 * missing port gives default_port; default_port 0 makes the port
 * mandatory.  Returns 0, or -1 with *why set.
 */
int		 http_authority_parse(const char *s, size_t len,
		    uint16_t default_port, char *host, uint16_t *port,
		    int *is_v6, const char **why);

/*
 * Chunked transfer coding decoder (RFC 9112 section 7.1), a state machine
 * fed with whatever bytes arrived.  Call http_chunked_feed() in a loop:
 *   HTTP_CHUNK_MORE   all of in[0..len) consumed (*used == len): read more
 *   HTTP_CHUNK_DATA   *used bytes consumed, of which the last *datalen are
 *                     body data starting at in + *used - *datalen
 *   HTTP_CHUNK_DONE   the last chunk and trailers end at in + *used; any
 *                     bytes after that belong to the next message
 *   HTTP_CHUNK_ERROR  malformed: *why says what; stop
 * A relay that passes the coding through unchanged forwards in[0..*used)
 * each time; a consumer of the body takes only the data.
 */
enum http_chunk_result {
	HTTP_CHUNK_MORE = 0,
	HTTP_CHUNK_DATA,
	HTTP_CHUNK_DONE,
	HTTP_CHUNK_ERROR,
};

struct http_chunked {
	int		 state;
	uint64_t	 remaining;	/* data bytes left in this chunk */
	size_t		 linelen;	/* of the current line */
	size_t		 trailerlen;	/* bytes of trailers so far */
	int		 ndigits;
	int		 in_ext;
	const char	*why;
	uint64_t	 max_chunk;	/* 0: HTTP_CL_MAX; a larger size is
					   an error as soon as its digits
					   say so */
};

void		 http_chunked_init(struct http_chunked *);
enum http_chunk_result http_chunked_feed(struct http_chunked *,
		    const void *in, size_t len, size_t *used,
		    size_t *datalen);

/* Standard reason phrase for the statuses we send ourselves. */
const char	*http_status_text(int status);

#endif
