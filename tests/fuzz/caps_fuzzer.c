/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the receive-pack capability parser
 * (rp_caps_parse(); untrusted: the capability list comes from the
 * sandbox).  Differential: every capability the gateway knows must be
 * seen exactly when git's own parse_feature_request() would see it
 * (reimplemented below as git writes it, with strstr), so that no
 * spelling asks upstream for something the gateway did not check.  The
 * canonical list written for upstream must parse to the same flags and
 * values, never carry a dropped capability, and be a fixed point.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/pktline.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* git's connect.c parse_feature_value(), reduced to found or not. */
static int
git_feature_request(const char *list, const char *feature)
{
	size_t		 len = strlen(feature);
	const char	*found, *v;

	while (*list) {
		if ((found = strstr(list, feature)) == NULL)
			return 0;
		if (list == found || found[-1] == ' ') {
			v = found + len;
			if (*v == '\0' || *v == ' ' || *v == '=')
				return 1;
		}
		list = found + 1;
	}
	return 0;
}

static const struct {
	const char	*name;
	uint32_t	 flag;
} known[] = {
	{ "report-status", RP_CAP_REPORT_STATUS },
	{ "report-status-v2", RP_CAP_REPORT_STATUS_V2 },
	{ "side-band-64k", RP_CAP_SIDE_BAND_64K },
	{ "side-band", RP_CAP_SIDE_BAND },
	{ "atomic", RP_CAP_ATOMIC },
	{ "push-options", RP_CAP_PUSH_OPTIONS },
	{ "quiet", RP_CAP_QUIET },
	{ "ofs-delta", RP_CAP_OFS_DELTA },
};

static int
same_str(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_request *rq, *rq2;
	struct pkt_buf	 out = { 0 }, again = { 0 };
	size_t		 i;

	if (size > 4096)
		return 0;
	rq = rp_request_new();
	if (rp_caps_parse(rq, data, size) == 0) {
		/* Parsed: the text has no NUL, so git would read all of it. */
		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (git_feature_request(rq->caps, known[i].name) !=
			    ((rq->capflags & known[i].flag) != 0))
				abort();
		if (git_feature_request(rq->caps, "push-cert"))
			abort();
		rp_caps_write(&out, rq, RP_CAP_PUSH_OPTIONS);
		rq2 = rp_request_new();
		if (rp_caps_parse(rq2, out.data, out.len) != 0)
			abort();
		/* As git upstream would read it: no push options. */
		if (git_feature_request(rq2->caps, "push-options"))
			abort();
		if (rq2->capflags != (rq->capflags & ~RP_CAP_PUSH_OPTIONS) ||
		    !same_str(rq->agent, rq2->agent) ||
		    !same_str(rq->session_id, rq2->session_id) ||
		    (rq->hexlen == 64) != (rq2->hexlen == 64))
			abort();
		rp_caps_write(&again, rq2, 0);
		if (again.len != out.len || (out.len > 0 &&
		    memcmp(again.data, out.data, out.len) != 0))
			abort();
		rp_request_free(rq2);
	} else if (rq->state != RP_FAILED)
		abort();
	pkt_buf_free(&out);
	pkt_buf_free(&again);
	rp_request_free(rq);
	return 0;
}
