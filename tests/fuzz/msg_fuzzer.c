// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for frame decoding (common/msg.c): arbitrary bytes as
 * a frame on every channel and direction; a frame that validates must be
 * fully readable through msg_get_*() and printable by msg_dump(); the
 * masked-credential frames go through their checks (common/pxmask.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/pxmask.h"
#include "common/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
walk(struct msg *m)
{
	const char	*s;
	char		 out[512], **v;
	size_t		 len;

	for (s = m->info->schema; *s != '\0'; s++) {
		switch (*s) {
		case 'u':
			(void)msg_get_u32(m);
			break;
		case 'q':
			(void)msg_get_u64(m);
			break;
		case 's':
		case 'S':
			if (strlen(msg_get_str(m)) > m->len)
				abort();
			break;
		case 'b':
			(void)msg_get_blob(m, &len);
			if (len > m->len)
				abort();
			break;
		case 'v':
			v = msg_get_strv(m);
			strv_free(v);
			break;
		}
	}
	if (m->off != m->len)
		abort();
	msg_dump(m, out, sizeof(out));
}

/* A masked-credential frame that passes its checks is what it says. */
static void
pxmask_check(struct msg *m)
{
	struct pxmask_wire w;
	const char	*why, *sid;
	const void	*pem;
	size_t		 n;

	if (m->info->type == MSG_PX_MASK) {
		if (pxmask_decode(m, &w, &why) == 0 &&
		    (strlen(w.real) != strlen(w.placeholder) ||
		    strcmp(w.real, w.placeholder) == 0 || w.host[0] == '\0'))
			abort();
	} else if (m->info->type == MSG_PX_MASK_END) {
		if (pxmask_end_decode(m, &sid, &pem, &n, &why) == 0 &&
		    (n == 0 || memchr(pem, '\0', n) != NULL))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t chans[] = { MSG_CH_LAUNCHER, MSG_CH_PROXYD,
	    MSG_CH_GATEWAYD, MSG_CH_CLONE };
	struct msg	m;
	const char	*why;
	size_t		i, d;

	log_setverbose(-1);
	for (i = 0; i < sizeof(chans); i++) {
		for (d = 1; d <= 2; d++) {
			if (msg_decode_mem(data, size, chans[i], (uint8_t)d,
			    &m, &why) == 0) {
				walk(&m);
				msg_free(&m);
			}
			if (msg_decode_mem(data, size, chans[i], (uint8_t)d,
			    &m, &why) == 0) {
				pxmask_check(&m);
				msg_free(&m);
			}
		}
	}
	return 0;
}
