/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for `airlock acp`'s framing of the agent's stdio
 * (untrusted: the agent runs in the sandbox) and the look at each
 * message.  The first byte picks the piece size, so that lines split
 * across reads are exercised; every line handed out must be within the
 * cap, hold no newline, and classify without a crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/acpframe.h"
#include "common/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct acpf	 f;
	struct json	*m;
	const char	*method;
	char		*line;
	size_t		 step, off = 1, n, len;

	if (size == 0)
		return 0;
	step = (size_t)data[0] + 1;
	acpf_init(&f);
	while (off < size) {
		n = size - off < step ? size - off : step;
		acpf_feed(&f, (const char *)data + off, n);
		off += n;
		while ((line = acpf_next(&f, &len)) != NULL) {
			if (len == 0 || len > ACPF_LINE_MAX ||
			    memchr(line, '\n', len) != NULL)
				abort();
			m = json_parse(line, len, NULL, 0);
			(void)acpf_classify(m, &method);
			json_free(m);
		}
	}
	acpf_free(&f);
	return 0;
}
