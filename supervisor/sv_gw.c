// SPDX-License-Identifier: ISC
/*
 * airlockd's answers to gatewayd (R-G2, R-G4, R-K1).  gatewayd holds no
 * policy and no credentials: for each push it asks here whether the
 * repository is the session's own or a linked one (and where upstream
 * is), what the push rule says for each ref, and for the write token of
 * this one push.  The token crosses only this link, in an 'S' (secret)
 * field that msg_dump() redacts, and is zeroed here after sending.
 * "ask" has no approver yet over the client socket, so it resolves to
 * deny (R-C4: ask with no approver connected is deny).
 * Untrusted: every field gatewayd sends (it faces the sandbox).
 */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "policy/push.h"
#include "supervisor/credentials.h"
#include "supervisor/gwrepo.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"

static const char *
session_origin(const char *sid, int *found)
{
	struct sv_session *s = sv_session_find(sid);

	*found = s != NULL;
	return s != NULL ? sv_session_origin(s) : NULL;
}

static void
send_or_fail(struct msg_link *l, struct msgbuf *b)
{
	if (msg_send(l, b, NULL, 0) == -1)
		sv_daemon_failed(SV_DAEMON_GATEWAYD, "send failed");
	msgbuf_free(b);
}

static void
answer_repo(struct msg_link *l, uint32_t reqid, const char *sid,
    const char *path)
{
	struct msgbuf	 b;
	struct gwrepo	 r;
	char		 reason[256];
	const char	*origin, *ca = "";
	int		 found, ok;
	size_t		 i;

	memset(&r, 0, sizeof(r));
	origin = session_origin(sid, &found);
	if (!found) {
		snprintf(reason, sizeof(reason), "this run has ended");
		ok = 0;
	} else
		ok = gwrepo_resolve(&sv_settings, origin, path, &r, reason,
		    sizeof(reason)) == 0;
	if (ok)
		for (i = 0; i < sv_settings.nhosts; i++)
			if (r.host == &sv_settings.hosts[i] &&
			    sv_settings.hosts[i].ca_bundle != NULL)
				ca = sv_settings.hosts[i].ca_bundle;
	msgbuf_init(&b, MSG_GW_REPO_ANS);
	msg_put_u32(&b, reqid);
	msg_put_u32(&b, ok);
	msg_put_str(&b, ok ? r.upstream : "");
	msg_put_str(&b, ok ? ca : "");
	msg_put_str(&b, ok ? "" : reason);
	if (!ok)
		log_info("push by session %s to %s refused: %s", sid, path,
		    reason);
	send_or_fail(l, &b);
	gwrepo_free(&r);
}

static void
answer_ref(struct msg_link *l, uint32_t reqid, const char *sid,
    const char *ref, uint32_t kind)
{
	struct msgbuf	 b;
	char		 reason[256];
	enum pol_verdict v;
	enum pol_push_kind pk;
	int		 found;

	(void)session_origin(sid, &found);
	switch (kind) {
	case GW_REF_CREATE:
		pk = POL_PUSH_CREATE;
		break;
	case GW_REF_DELETE:
		pk = POL_PUSH_DELETE;
		break;
	default:
		pk = POL_PUSH_UPDATE;
		break;
	}
	if (!found) {
		v = POL_DENY;
		snprintf(reason, sizeof(reason), "this run has ended");
	} else if (!pol_ref_valid(ref)) {
		v = POL_DENY;
		snprintf(reason, sizeof(reason), "invalid ref name");
	} else {
		v = settings_push_decide(&sv_settings, ref, pk, reason,
		    sizeof(reason));
		if (v == POL_ASK) {
			/* No approver is connected: ask is deny (R-C4). */
			size_t n = strlen(reason);

			snprintf(reason + n, sizeof(reason) - n,
			    " (ask: no approver connected)");
			v = POL_DENY;
		}
	}
	msgbuf_init(&b, MSG_GW_REF_ANS);
	msg_put_u32(&b, reqid);
	msg_put_u32(&b, v == POL_ALLOW);
	msg_put_str(&b, reason);
	log_info("push by session %s: %s %s: %s", sid, ref,
	    v == POL_ALLOW ? "allowed" : "refused", reason);
	if (v != POL_ALLOW)
		sv_session_violation(sid, "git-push", ref);
	send_or_fail(l, &b);
}

static void
answer_token(struct msg_link *l, uint32_t reqid, const char *sid,
    const char *path)
{
	struct msgbuf	 b;
	struct gwrepo	 r;
	char		 reason[256], err[256], *tok = NULL;
	const char	*origin;
	int		 found;

	memset(&r, 0, sizeof(r));
	origin = session_origin(sid, &found);
	if (found && gwrepo_resolve(&sv_settings, origin, path, &r, reason,
	    sizeof(reason)) == 0 && r.host != NULL) {
		tok = cred_token(&sv_settings, r.host->name, 1, err,
		    sizeof(err));
		if (tok == NULL)
			log_warnx("write token for %s: %s", r.host->name, err);
	}
	msgbuf_init(&b, MSG_GW_TOKEN_ANS);
	msg_put_u32(&b, reqid);
	msg_put_u32(&b, tok != NULL);
	msg_put_str(&b, tok != NULL ? tok : "");
	send_or_fail(l, &b);	/* msgbuf_free zeroes the copy */
	cred_secret_free(tok);
	gwrepo_free(&r);
}

void
sv_gw_dispatch(struct msg_link *l, struct msg *m)
{
	uint32_t	 reqid, kind;
	const char	*sid, *a;

	switch (m->info->type) {
	case MSG_GW_REPO_REQ:
		reqid = msg_get_u32(m);
		sid = msg_get_str(m);
		a = msg_get_str(m);
		answer_repo(l, reqid, sid, a);
		break;
	case MSG_GW_REF_REQ:
		reqid = msg_get_u32(m);
		sid = msg_get_str(m);
		a = msg_get_str(m);
		kind = msg_get_u32(m);
		answer_ref(l, reqid, sid, a, kind);
		break;
	case MSG_GW_TOKEN_REQ:
		reqid = msg_get_u32(m);
		sid = msg_get_str(m);
		a = msg_get_str(m);
		answer_token(l, reqid, sid, a);
		break;
	case MSG_GW_PUSH_DONE: {
		const char *summary;

		(void)msg_get_u32(m);
		sid = msg_get_str(m);
		summary = msg_get_str(m);
		kind = msg_get_u32(m);
		log_info("push by session %s: %s%s", sid, summary,
		    kind ? "" : " (not forwarded)");
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
