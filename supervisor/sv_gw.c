// SPDX-License-Identifier: ISC
/*
 * airlockd's answers to gatewayd (R-G2, R-G4, R-K1).  Every question is
 * answered from airlockd's own state; gatewayd holds no policy.  Until a
 * question has an answer it is refused: the gateway fails closed.
 */
#include <string.h>

#include "common/log.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"

static void
answer_refused(struct msg_link *l, uint16_t type, uint32_t reqid,
    const char *reason)
{
	struct msgbuf b;

	msgbuf_init(&b, type);
	msg_put_u32(&b, reqid);
	msg_put_u32(&b, 0);
	if (type == MSG_GW_REPO_ANS) {
		msg_put_str(&b, "");
		msg_put_str(&b, "");
		msg_put_str(&b, reason);
	} else if (type == MSG_GW_REF_ANS)
		msg_put_str(&b, reason);
	else
		msg_put_str(&b, "");
	if (msg_send(l, &b, NULL, 0) == -1)
		log_warn("gatewayd: send");
	msgbuf_free(&b);
}

void
sv_gw_dispatch(struct msg_link *l, struct msg *m)
{
	uint32_t reqid;

	switch (m->info->type) {
	case MSG_GW_REPO_REQ:
		reqid = msg_get_u32(m);
		answer_refused(l, MSG_GW_REPO_ANS, reqid,
		    "no repository is linked to this session");
		break;
	case MSG_GW_REF_REQ:
		reqid = msg_get_u32(m);
		answer_refused(l, MSG_GW_REF_ANS, reqid, "no push rule");
		break;
	case MSG_GW_TOKEN_REQ:
		reqid = msg_get_u32(m);
		answer_refused(l, MSG_GW_TOKEN_ANS, reqid, "");
		break;
	case MSG_GW_PUSH_DONE: {
		const char *sid, *summary;

		(void)msg_get_u32(m);
		sid = msg_get_str(m);
		summary = msg_get_str(m);
		log_info("push by session %s: %s", sid, summary);
		break;
	}
	default:
		log_warnx("gatewayd: unexpected %s", m->info->name);
		break;
	}
}

void
sv_gw_daemon_died(void)
{
}
