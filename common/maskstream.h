/* SPDX-License-Identifier: ISC */
/*
 * The request stream of a TLS-terminated connection toward a masked host
 * (proxyd/tls.c), without I/O: the bytes the sandbox sends are cut into
 * heads and bodies; each head is parsed by the strict parser
 * (common/http.c), must name the connection's own host, and is judged and
 * rewritten by common/mask.c; bodies are framed by their head and passed
 * on unchanged.  Libc only, so tests/fuzz/maskstream_fuzzer.c drives it
 * with any bytes.
 */
#ifndef AIRLOCK_MASKSTREAM_H
#define AIRLOCK_MASKSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "common/http.h"
#include "common/inspect.h"
#include "common/mask.h"

struct mstream {
	const char		*host;	/* the CONNECT's, lower case */
	uint16_t		 port;
	const struct mask_ent	*ents;
	size_t			 nent;
	int			 state;	/* MS_* in maskstream.c */
	uint64_t		 left;	/* Content-Length still to pass */
	struct http_chunked	 chunk;
	const struct inspect_rule *rules; /* an inspected host's */
	size_t			 nrules;
	int			 inspect;
	int			 no_upgrade;	/* the host-header endpoint */
};

enum mstream_res {
	MSTREAM_MORE = 0,	/* nothing complete: more bytes needed */
	MSTREAM_PASS,		/* forward in[0..used) as it is */
	MSTREAM_HEAD,		/* forward out[0..outlen), consume used */
	MSTREAM_REFUSE,		/* answer status with why, then close */
};

struct mstream_out {
	size_t		 used;		/* bytes of in consumed */
	const char	*out;		/* MSTREAM_HEAD: what to send */
	size_t		 outlen;
	char		*owned;		/* a rewritten head (holds a real
					   value): mstream_out_free() */
	int		 status;	/* MSTREAM_REFUSE: 400, 403 */
	int		 exfil;		/* credential-exfiltration */
	int		 rule;		/* refused by a method and path
					   rule (why names it) */
	size_t		 which;		/* its entry */
	char		 why[160];	/* never any part of a value */
};

void	 mstream_init(struct mstream *, const char *host, uint16_t port,
	    const struct mask_ent *, size_t nent);
/* The host is inspected: each request judged by r[0..n) too. */
void	 mstream_inspect(struct mstream *, const struct inspect_rule *r,
	    size_t n);
/*
 * An Upgrade is refused (403) whether or not the host is inspected: on
 * the host-header endpoint every head must be judged, the Host of each
 * included.
 */
void	 mstream_no_upgrade(struct mstream *);
#define MSTREAM_NO_UPGRADE	"an Upgrade is not taken on the host-header " \
	"endpoint: what follows it would pass unjudged"
/* A TRACE or TRACK that carries a placeholder: its answer would echo the
 * real value. */
#define MSTREAM_NO_TRACE	"TRACE and TRACK are not sent with a masked " \
	"credential: the answer would echo its real value"

/*
 * One step over in[0..len): the bytes the sandbox sent and nothing has
 * consumed yet (a head must start at in; give at least HTTP_HEAD_MAX
 * bytes when there are that many).  untrusted: in is from the sandbox.
 */
enum mstream_res mstream_step(struct mstream *, const char *in, size_t len,
	    struct mstream_out *);
void	 mstream_out_free(struct mstream_out *);

#endif
