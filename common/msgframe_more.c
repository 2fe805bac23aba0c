// SPDX-License-Identifier: ISC
/*
 * The frame calls airlock-launcher never makes: building a blob or a
 * string vector (only airlockd sends those: the plan's seccomp programs
 * and files, a command's argv and envp) and closing a link for good (the
 * launcher's links end with the process).  Apart from msgframe.c so that
 * the launcher, which links that file, need not carry them; airlockd,
 * the daemons and the test helpers link both (libcommon.a).
 */
#include <stdlib.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msgframe.h"

void
msg_link_close(struct msg_link *l)
{
	int	i;

	if (l->fd != -1)
		close(l->fd);
	l->fd = -1;
	for (i = 0; i < l->nrfds; i++)
		close(l->rfds[i]);
	l->nrfds = 0;
	free(l->rbuf);
	l->rbuf = NULL;
	l->rlen = l->rcap = 0;
}

void
msg_put_blob(struct msgbuf *b, const void *p, size_t n)
{
	uint32_t n32 = (uint32_t)n;

	msgbuf_expect(b, "b");
	if (n > MSG_MAX_PAYLOAD)
		fatalx("blob too large");
	msgbuf_append(b, &n32, sizeof(n32));
	msgbuf_append(b, p, n);
}

void
msg_put_strv(struct msgbuf *b, char *const *v)
{
	uint32_t n = 0, i;

	msgbuf_expect(b, "v");
	while (v != NULL && v[n] != NULL)
		n++;
	if (n > MSG_MAX_STRV)
		fatalx("%s: vector of %u strings", msg_type_name(b->type), n);
	msgbuf_append(b, &n, sizeof(n));
	for (i = 0; i < n; i++)
		msgbuf_put_string(b, v[i]);
}
