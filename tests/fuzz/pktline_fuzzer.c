/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for the pkt-line reader, the receive-pack command
 * parser (untrusted: every byte of a push body comes from the sandbox)
 * and the ls-refs answer parser (untrusted: from the code host).
 * The first input byte picks the piece size so that the incremental paths
 * are exercised; a parsed request is then written back (refusal report and
 * rewritten header) and the rewrite must parse to the same commands and
 * capabilities, without push options in any spelling.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/pktline.h"
#include "common/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_request *rq, *rq2;
	struct pkt_buf	 out = { 0 };
	const char	**reasons;
	size_t		 step, off = 0, n, used, i;

	char		**pairs;
	const char	*why;

	if (size < 1)
		return 0;
	/* The same bytes as an ls-refs answer from the code host. */
	if (rp_lsrefs_symrefs(data, size, &pairs, &why) == 0) {
		for (i = 0; pairs[i] != NULL; i++)
			;
		if (i % 2 != 0)
			abort();
		strv_free(pairs);
	}
	step = (size_t)data[0] + 1;
	data++;
	size--;
	rq = rp_request_new();
	while (off < size && (rq->state == RP_COMMANDS ||
	    rq->state == RP_OPTIONS)) {
		n = size - off < step ? size - off : step;
		used = rp_request_feed(rq, data + off, n);
		if (used > n)
			abort();
		off += used;
		if (used < n && (rq->state == RP_COMMANDS ||
		    rq->state == RP_OPTIONS))
			abort();	/* must consume all while reading */
	}
	if (rq->state == RP_DONE) {
		reasons = calloc(rq->ncmds + 1, sizeof(*reasons));
		for (i = 0; i < rq->ncmds; i++)
			reasons[i] = (i & 1) ? "airlock policy: x" : NULL;
		rp_report_refusal(&out, rq, reasons);
		free(reasons);
		out.len = 0;
		rp_request_rewrite(&out, rq, RP_CAP_PUSH_OPTIONS);
		rq2 = rp_request_new();
		rp_request_feed(rq2, out.data, out.len);
		if (rq->ncmds > 0) {
			if (rq2->state != RP_DONE || rq2->ncmds != rq->ncmds)
				abort();
			/* Upstream is asked for no push option, in any
			 * spelling, and gets none (issue 14). */
			if (rq2->noptions != 0 || rq2->capflags !=
			    (rq->capflags & ~RP_CAP_PUSH_OPTIONS))
				abort();
			for (i = 0; i < rq->ncmds; i++)
				if (strcmp(rq->cmds[i].ref,
				    rq2->cmds[i].ref) != 0 ||
				    rq->cmds[i].kind != rq2->cmds[i].kind)
					abort();
		}
		rp_request_free(rq2);
		pkt_buf_free(&out);
	}
	rp_request_free(rq);
	return 0;
}
