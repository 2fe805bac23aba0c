// SPDX-License-Identifier: ISC
/*
 * airlockd's answers to gatewayd (R-G2, R-G4, R-K1).  gatewayd holds no
 * policy and no credentials: for each push it asks here whether the
 * repository is the session's own or a linked one (and where upstream
 * is), what the push rule says for each ref, and for the write token of
 * this one push.  The token crosses only this link, in an 'S' (secret)
 * field that msg_dump() redacts, and is zeroed here after sending.
 * A ref whose rule says "ask" is put to the approvers (sv_approval.c)
 * and answered when they decide; with no approver connected it is
 * denied at once (R-C4).  Every verdict is an audit line.
 * Untrusted: every field gatewayd sends (it faces the sandbox).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/refname.h"
#include "common/xmalloc.h"
#include "policy/push.h"
#include "supervisor/credentials.h"
#include "supervisor/gwrepo.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"

#define GW_LOG_INTERVAL	10	/* seconds between refusal lines */

/*
 * Per session: how many of its gateway conversations are open (a
 * question was asked and gatewayd has not said MSG_GW_CONN_END), so that
 * a gatewayd failure fails closed only the sessions with a push in
 * flight; and the refusal-log throttle.
 */
struct gw_track {
	struct gw_track	*next;
	char		*sid;
	unsigned	 open;
	time_t		 log_at;
	unsigned	 quiet;		/* not logged since log_at */
};

static struct gw_track *tracks;

/* The entry for sid (made if need be); entries of ended sessions go. */
static struct gw_track *
track_get(const char *sid, int make)
{
	struct gw_track	**tp, *t;

	for (tp = &tracks; (t = *tp) != NULL;) {
		if (strcmp(t->sid, sid) == 0)
			return t;
		if (sv_session_find(t->sid) == NULL) {
			*tp = t->next;
			free(t->sid);
			free(t);
			continue;
		}
		tp = &t->next;
	}
	if (!make || sv_session_find(sid) == NULL)
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->sid = xstrdup(sid);
	t->next = tracks;
	tracks = t;
	return t;
}

int
sv_gw_in_flight(const char *sid)
{
	struct gw_track	*t = track_get(sid, 0);

	return t != NULL && t->open > 0;
}

/*
 * untrusted: a sandbox can make gatewayd ask about an unlinked
 * repository as fast as it can connect; one line per interval per
 * session, with the count of the others, keeps the log useful.  1 when
 * this one was logged.
 */
static int
log_refusal(const char *sid, const char *path, const char *reason)
{
	struct gw_track	*t = track_get(sid, 1);
	time_t		 now = time(NULL);

	if (t == NULL) {
		log_info("push by session %s to %s refused: %s", sid, path,
		    reason);
		return 1;
	}
	if (t->log_at != 0 && now - t->log_at < GW_LOG_INTERVAL) {
		t->quiet++;
		return 0;
	}
	if (t->quiet > 0)
		log_info("push by session %s to %s refused: %s (and %u more "
		    "refusals in the last %lds)", sid, path, reason, t->quiet,
		    (long)(now - t->log_at));
	else
		log_info("push by session %s to %s refused: %s", sid, path,
		    reason);
	t->log_at = now;
	t->quiet = 0;
	return 1;
}

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
	/* A refused repository is a violation and an audit
	 * line too, within the session's cap. */
	if (!ok) {
		(void)log_refusal(sid, path, reason);
		sv_session_refused(sid, "git-push-repository", path, reason);
	}
	send_or_fail(l, &b);
	gwrepo_free(&r);
}

/*
 * A ref an approver decides on: answered when the decision comes, unless
 * gatewayd was restarted meanwhile (its request ids start again: an
 * answer could reach another push).
 */
struct gw_ask {
	uint32_t	 reqid;
	unsigned	 gen;
	char		*sid;
	char		*ref;
};

static unsigned	gw_gen;

static void
ref_approved(void *arg, int allowed, const char *why)
{
	struct gw_ask	*q = arg;
	struct msg_link	*l;
	struct msgbuf	 b;

	log_info("push by session %s: %s %s: %s", q->sid, q->ref,
	    allowed ? "allowed" : "refused", why);
	if (q->gen == gw_gen &&
	    (l = sv_daemon_link(SV_DAEMON_GATEWAYD)) != NULL) {
		msgbuf_init(&b, MSG_GW_REF_ANS);
		msg_put_u32(&b, q->reqid);
		msg_put_u32(&b, allowed != 0);
		msg_put_str(&b, why);
		send_or_fail(l, &b);
	}
	free(q->sid);
	free(q->ref);
	free(q);
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
	} else if (!refname_valid(ref)) {
		v = POL_DENY;
		snprintf(reason, sizeof(reason), "invalid ref name");
	} else {
		v = settings_push_decide(&sv_settings, ref, pk, reason,
		    sizeof(reason));
		if (v == POL_ASK) {
			struct gw_ask *q = xcalloc(1, sizeof(*q));

			q->reqid = reqid;
			q->gen = gw_gen;
			q->sid = xstrdup(sid);
			q->ref = xstrdup(ref);
			sv_approval_request(sid, "git-push", ref, 0, reason,
			    "a push rule asks", ref_approved, q);
			return;
		}
	}
	sv_audit(sid, "git-push", ref, v == POL_ALLOW ? "allow" : "deny",
	    reason, NULL);
	msgbuf_init(&b, MSG_GW_REF_ANS);
	msg_put_u32(&b, reqid);
	msg_put_u32(&b, v == POL_ALLOW);
	msg_put_str(&b, reason);
	log_info("push by session %s: %s %s: %s", sid, ref,
	    v == POL_ALLOW ? "allowed" : "refused", reason);
	if (v != POL_ALLOW)
		sv_session_violation_why(sid, "git-push", ref, reason);
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
	case MSG_GW_REPO_REQ: {
		struct gw_track *t;

		reqid = msg_get_u32(m);
		sid = msg_get_str(m);
		a = msg_get_str(m);
		/* A conversation starts: until MSG_GW_CONN_END, a gatewayd
		 * failure fails this session closed. */
		if ((t = track_get(sid, 1)) != NULL)
			t->open++;
		answer_repo(l, reqid, sid, a);
		break;
	}
	case MSG_GW_CONN_END: {
		struct gw_track *t;

		if ((t = track_get(msg_get_str(m), 0)) != NULL && t->open > 0)
			t->open--;
		break;
	}
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
		    kind == GW_DONE_FORWARDED ? "" : " (not forwarded)");
		/*
		 * Refused only for want of a write token: the refs were
		 * allowed by their rules, which the summary names, so the
		 * user learns what a credential would have let through.
		 */
		if (kind == GW_DONE_NOCRED)
			sv_session_violation_why(sid, "git-push", summary,
			    "no write credential for this code host");
		break;
	}
	default:
		log_warnx("gatewayd: unexpected %s", m->info->name);
		break;
	}
}

/* gatewayd is gone: no conversation is open any more. */
void
sv_gw_daemon_died(void)
{
	struct gw_track	*t;

	for (t = tracks; t != NULL; t = t->next)
		t->open = 0;
	gw_gen++;
}
