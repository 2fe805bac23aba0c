/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target for `airlock acp`'s framing of the agent's stdio
 * (untrusted: the agent runs in the sandbox) and the look at each
 * message.  The first byte picks the piece size, so that lines split
 * across reads are exercised; every line handed out must be within the
 * cap, hold no newline, and classify without a crash; what the relay
 * would pass on must read back as what it judged (relayed()).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/acpframe.h"
#include "common/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/*
 * What the relay passes on is its own serialisation: one line, which
 * the relay takes again as the same kind and method, and serialises
 * to the same bytes.
 */
static void
relayed(const char *line, size_t len)
{
	struct json	*m, *m2;
	const char	*method, *method2;
	char		 why[320], *out, *out2;
	size_t		 olen, olen2;
	enum acpf_kind	 k, k2;

	if ((k = acpf_take(line, len, &m, &method, why, sizeof(why))) ==
	    ACPF_INVALID) {
		if (m != NULL || why[0] == '\0')
			abort();
		return;
	}
	out = acpf_serialise(m, &olen);
	if (memchr(out, '\n', olen) != NULL)
		abort();
	k2 = acpf_take(out, olen, &m2, &method2, why, sizeof(why));
	if (k2 != k || (method == NULL) != (method2 == NULL) ||
	    (method != NULL && strcmp(method, method2) != 0))
		abort();
	out2 = acpf_serialise(m2, &olen2);
	if (olen2 != olen || memcmp(out, out2, olen) != 0)
		abort();
	free(out);
	free(out2);
	json_free(m);
	json_free(m2);
}

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
			relayed(line, len);
		}
	}
	acpf_free(&f);
	return 0;
}
