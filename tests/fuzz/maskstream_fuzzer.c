// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for common/maskstream.c, the request stream of a
 * TLS-terminated connection toward a masked host (proxyd/tls.c): any
 * bytes, delivered in pieces of a size the input chooses, as the loop
 * would see them arrive.  Every step consumes what it says within what
 * it was given, always makes progress, never hands on a head that is not
 * whole, and puts a real value only into heads toward its own host.
 * With method and path rules (common/inspect.c) on, every head it
 * hands on has a request line the rules allow.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/maskstream.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define REAL_A	"REALAAAAsecret0123456789"
#define REAL_B	"REALBBBBsecret9876543210"

/* The head's request line judged again: a head handed on is allowed. */
static void
check_allowed(const struct inspect_rule *r, size_t n, const char *h,
    size_t len)
{
	char	 line[HTTP_HEAD_MAX + 1], why[300], *sp1, *sp2;
	const char *eol;

	if ((eol = memchr(h, '\r', len)) == NULL)
		abort();
	memcpy(line, h, (size_t)(eol - h));
	line[eol - h] = '\0';
	if ((sp1 = strchr(line, ' ')) == NULL ||
	    (sp2 = strchr(sp1 + 1, ' ')) == NULL)
		abort();
	*sp1 = *sp2 = '\0';
	if (inspect_judge(r, n, line, sp1 + 1, why, sizeof(why)) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct mask_ent ents[] = {
		{ "a.example", MASK_HEADER, "Authorization",
		    "sk-ant-PLACEHOLDERaaaa0001", REAL_A },
		{ "b.example", MASK_QUERY, "key",
		    "sk-PLACEHOLDERbbbb00000002", REAL_B },
		{ "b.example", MASK_BASIC, "",
		    "sk-PLACEHOLDERcccc00000003", REAL_B },
	};
	static const char *const hosts[] = { "a.example", "b.example" };
	static struct inspect_rule rules[4];
	static int nrules = -1;
	const char	*why;
	struct mstream	 ms;
	struct mstream_out o;
	enum mstream_res r;
	const char	*in, *other;
	size_t		 len, off = 0, have, piece, avail;

	if (size < 2)
		return 0;
	mstream_init(&ms, hosts[data[0] & 1], 443, ents, 3);
	if (nrules == -1 && (nrules = inspect_rules_parse("allow GET /v2/\n"
	    "allow POST /up\ndeny * /v2/admin\n", rules, 4, &why)) != 3)
		abort();
	if (data[0] & 2)
		mstream_inspect(&ms, rules, (size_t)nrules);
	other = (data[0] & 1) ? REAL_A : REAL_B;
	piece = (size_t)data[1] * 7 + 1;
	in = (const char *)data + 2;
	len = size - 2;
	for (have = piece < len ? piece : len; off < len; ) {
		avail = have - off;
		r = mstream_step(&ms, in + off, avail, &o);
		if (r == MSTREAM_REFUSE) {
			if (o.status != 400 && o.status != 403)
				abort();
			if (o.exfil && o.which >= 3)
				abort();
			break;
		}
		if (r == MSTREAM_MORE) {
			if (have == len)
				break;	/* the sandbox sent no more */
			have = have + piece < len ? have + piece : len;
			continue;
		}
		if (o.used == 0 || o.used > avail)
			abort();
		if (r == MSTREAM_HEAD) {
			if (o.outlen < 4 ||
			    memcmp(o.out + o.outlen - 4, "\r\n\r\n", 4) != 0)
				abort();
			/* Another host's value never enters a head. */
			if (memmem(o.out, o.outlen, other, strlen(other)) !=
			    NULL && memmem(in + off, o.used, other,
			    strlen(other)) == NULL)
				abort();
			if (data[0] & 2)
				check_allowed(rules, (size_t)nrules, o.out,
				    o.outlen);
			mstream_out_free(&o);
		}
		off += o.used;
	}
	return 0;
}
