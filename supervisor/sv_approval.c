// SPDX-License-Identifier: ISC
/*
 * Approvals (R-C4).  A connection becomes an approver with
 * approvals.subscribe; each "ask" (a command exec, a sandbox override, a
 * push rule of gatewayd) is sent to every approver as an
 * approval.request notification and the first approvals.answer decides;
 * later answers and unknown requestIds are errors.  No approver
 * connected: deny at once.  No answer by the deadline (settings
 * approvals.timeoutSeconds): deny.  The last approver leaving denies
 * what waits; a session ending cancels its requests.  Every decision is
 * an audit line (sv_audit.c) and every refusal a violation event of its
 * session.
 *
 * An "allow" with scope "session" is a standing allowance: the same
 * action under the same rule is allowed in that session from then on
 * without asking (`airlock approve`'s "a").  An unsandboxed command's
 * rule is always the same one, so there "the same" is the same command
 * line: one "a" must not become every command on the host.
 *
 * Untrusted: every answer (its client is this user, but any of its
 * connections may answer; only subscribed ones are listened to).
 *
 * approvals.ask puts a client's own question to the approvers before it
 * has a session: `airlock run` without a terminal, whose command line
 * its guard judged "ask" (client/cli_guard.c).  Its session id is ""
 * and an answer's "session" scope counts as "once" there: with no
 * session to end, a standing allowance would outlive every run.  The
 * asker leaving cancels its question.
 */
#include <sys/random.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "policy/classify.h"
#include "policy/policy.h"
#include "supervisor/sv.h"
#include "supervisor/sv_sess.h"

#define SV_MAX_APPROVERS	64
#define SV_MAX_PENDING		1024	/* requests waiting, in all */
/*
 * A request id is "r" and 96 random bits in hex: a forged prompt (or a
 * client guessing) cannot name the next request, as it could when ids
 * counted up from r1.
 */
#define SV_RID_BYTES		12
#define SV_ASK_MAX		65536	/* approvals.ask: the longest text */

struct approver {
	struct approver	*next;
	struct sv_client *c;
};

struct approval {
	struct approval	*next;
	char		 rid[2 + 2 * SV_RID_BYTES];
	char		*sid;
	char		*action;
	char		*target;
	char		*rule;
	char		*reason;
	unsigned	 classes;
	char		 deadline[40];
	struct event	*timer;
	sv_approval_cb	 cb;
	void		*arg;
	struct sv_client *asker;	/* approvals.ask: who waits */
};

struct standing {
	struct standing	*next;
	char		*sid;
	char		*action;
	char		*target;	/* NULL: any target under the rule */
	char		*rule;
};

static struct approver	*approvers;
static struct approval	*pending;
static struct standing	*standings;
static unsigned		 npending;
/*
 * While a decision's callback runs: the approver who answered (NULL
 * when nobody did) and how it was decided, for approvals.ask's reply.
 */
static const struct sv_client	*decided_by;
static const char		*decided_as;

static void
rid_new(char *rid, size_t len)
{
	unsigned char	 r[SV_RID_BYTES];
	size_t		 i, got = 0;
	ssize_t		 n;

	while (got < sizeof(r)) {
		if ((n = getrandom(r + got, sizeof(r) - got, 0)) == -1) {
			if (errno == EINTR)
				continue;
			fatal("getrandom");
		}
		got += (size_t)n;
	}
	rid[0] = 'r';
	for (i = 0; i < sizeof(r) && 2 + 2 * i < len; i++)
		snprintf(rid + 1 + 2 * i, 3, "%02x", r[i]);
	explicit_bzero(r, sizeof(r));
}

static void
approval_free(struct approval *a)
{
	if (a->timer != NULL)
		event_free(a->timer);
	free(a->sid);
	free(a->action);
	free(a->target);
	free(a->rule);
	free(a->reason);
	free(a);
}

static void
unlink_pending(struct approval *a)
{
	struct approval **pp;

	for (pp = &pending; *pp != NULL; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			npending--;
			return;
		}
}

static void
notify_all(const char *method, struct jgen *j)
{
	struct approver	*p;
	const char	*buf;
	size_t		 len;

	buf = jgen_buf(j, &len);
	for (p = approvers; p != NULL; p = p->next)
		sv_client_notify(p->c, method, buf, len);
}

/* Decide a pending request: audit, tell the approvers, call back. */
static void
decide(struct approval *a, int allowed, const char *why,
    const struct sv_client *by, const char *decision)
{
	struct jgen		*j = jgen_new();
	struct sv_session	*s;
	char			 rule[512];

	unlink_pending(a);
	snprintf(rule, sizeof(rule), "%s%s%s", a->rule != NULL ? a->rule :
	    "", a->rule != NULL && a->rule[0] != '\0' ? " " : "", why);
	sv_audit(a->sid, a->action, a->target, allowed ? "allow" : "deny",
	    rule, by);
	if (!allowed && (s = sv_session_find(a->sid)) != NULL)
		event_violation(s, a->action, a->target, NULL);
	jgen_obj_open(j);
	jgen_kstr(j, "requestId", a->rid);
	jgen_kstr(j, "decision", decision);
	jgen_obj_close(j);
	notify_all("approval.resolved", j);
	jgen_free(j);
	log_info("approval %s (%s %s, session %s): %s, %s", a->rid,
	    a->action, a->target, a->sid, decision, why);
	decided_by = by;
	decided_as = decision;
	a->cb(a->arg, allowed, rule);
	decided_by = NULL;
	decided_as = NULL;
	approval_free(a);
}

static void
deadline_cb(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	decide(arg, 0, "(no answer by the deadline: deny)", NULL, "timeout");
}

/* Keyed by the exact target, not the rule alone. */
static int
exact_target(const char *action)
{
	return strcmp(action, "sandbox-override") == 0;
}

int
sv_approval_standing(const char *sid, const char *action, const char *target,
    const char *rule)
{
	struct standing	*t;

	for (t = standings; t != NULL; t = t->next)
		if (strcmp(t->sid, sid) == 0 &&
		    strcmp(t->action, action) == 0 &&
		    strcmp(t->rule, rule != NULL ? rule : "") == 0 &&
		    (t->target == NULL || strcmp(t->target, target) == 0))
			return 1;
	return 0;
}

static void
approval_put(const char *sid, const char *action, const char *target,
    unsigned classes, const char *rule, const char *reason,
    sv_approval_cb cb, void *arg, struct sv_client *asker)
{
	struct approval	*a;
	struct jgen	*j;
	struct timeval	 tv;
	time_t		 dl;
	struct tm	 tm;
	char		 why[512];
	unsigned	 secs = sv_settings.approvals_timeout ?
	    sv_settings.approvals_timeout : 60;
	int		 c;

	if (sv_approval_standing(sid, action, target, rule)) {
		snprintf(why, sizeof(why), "%s (allowed for this session)",
		    rule != NULL ? rule : "");
		sv_audit(sid, action, target, "allow", why, NULL);
		cb(arg, 1, why);
		return;
	}
	if (approvers == NULL || npending >= SV_MAX_PENDING) {
		/* R-C4: ask with no approver connected is deny. */
		struct sv_session *s = sv_session_find(sid);

		snprintf(why, sizeof(why), "%s%s", rule != NULL ? rule : "",
		    approvers == NULL ? " (no approver: deny)" :
		    " (too many waiting: deny)");
		sv_audit(sid, action, target, "deny", why, NULL);
		if (s != NULL)
			event_violation(s, action, target, NULL);
		decided_as = approvers == NULL ? "noApprover" : "busy";
		cb(arg, 0, why);
		decided_as = NULL;
		return;
	}
	a = xcalloc(1, sizeof(*a));
	rid_new(a->rid, sizeof(a->rid));
	a->sid = xstrdup(sid);
	a->action = xstrdup(action);
	a->target = xstrdup(target);
	a->rule = xstrdup(rule != NULL ? rule : "");
	a->reason = xstrdup(reason != NULL ? reason : "");
	a->classes = classes;
	a->cb = cb;
	a->arg = arg;
	a->asker = asker;
	dl = time(NULL) + secs;
	gmtime_r(&dl, &tm);
	strftime(a->deadline, sizeof(a->deadline), "%Y-%m-%dT%H:%M:%SZ", &tm);
	a->timer = evtimer_new(sbase, deadline_cb, a);
	tv.tv_sec = secs;
	tv.tv_usec = 0;
	evtimer_add(a->timer, &tv);
	a->next = pending;
	pending = a;
	npending++;

	j = jgen_new();
	jgen_obj_open(j);
	jgen_kstr(j, "requestId", a->rid);
	jgen_kstr(j, "sessionId", a->sid);
	jgen_kstr(j, "action", a->action);
	jgen_kstr(j, "target", a->target);
	jgen_key(j, "classes");
	jgen_arr_open(j);
	for (c = 0; c < POL_CLASS_MAX; c++)
		if (classes & POL_CLASS_BIT(c))
			jgen_str(j, pol_class_name((enum pol_class)c));
	jgen_arr_close(j);
	jgen_kstr(j, "rule", a->rule);
	jgen_kstr(j, "reason", a->reason);
	jgen_kstr(j, "deadline", a->deadline);
	jgen_obj_close(j);
	notify_all("approval.request", j);
	jgen_free(j);
	log_info("approval %s: %s %s (session %s) put to the approvers",
	    a->rid, action, target, sid);
}

void
sv_approval_request(const char *sid, const char *action, const char *target,
    unsigned classes, const char *rule, const char *reason,
    sv_approval_cb cb, void *arg)
{
	approval_put(sid, action, target, classes, rule, reason, cb, arg,
	    NULL);
}

struct ask {
	struct sv_client *c;
	struct json	*id;
};

/* approvals.ask decided: tell the asker what and who. */
static void
ask_done(void *arg, int allowed, const char *why)
{
	struct ask	*k = arg;
	struct jgen	*j = jgen_new();
	const char	*buf;
	size_t		 len;

	jgen_obj_open(j);
	jgen_kbool(j, "allowed", allowed);
	jgen_kstr(j, "decision", decided_as != NULL ? decided_as :
	    allowed ? "allow" : "deny");
	jgen_kstr(j, "rule", why);
	if (decided_by != NULL) {
		jgen_key(j, "approver");
		jgen_obj_open(j);
		jgen_kint(j, "connection", sv_client_id(decided_by));
		jgen_kint(j, "uid", sv_client_uid(decided_by));
		jgen_obj_close(j);
	}
	if (!allowed && decided_as != NULL &&
	    strcmp(decided_as, "timeout") == 0)
		jgen_kint(j, "timeoutSeconds", sv_settings.approvals_timeout ?
		    sv_settings.approvals_timeout : 60);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	sv_client_result(k->c, k->id, buf, len);
	jgen_free(j);
	json_free(k->id);
	sv_client_unref(k->c);
	free(k);
}

/*
 * approvals.ask {target, rule?, reason?}: a command line a client asks
 * about before its run has a session.  untrusted: every field, shown to
 * the approvers (who escape it) and written to the audit log as sent.
 */
void
sv_approvals_ask(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	const char	*target = json_get_str(params, "target");
	const char	*rule = json_get_str(params, "rule");
	const char	*reason = json_get_str(params, "reason");
	struct ask	*k;

	/* A NUL inside would show the approver less than was asked. */
	if (target == NULL || target[0] == '\0' ||
	    strlen(target) != json_get(params, "target")->len ||
	    strlen(target) > SV_ASK_MAX || (rule != NULL &&
	    strlen(rule) > 256) || (reason != NULL &&
	    strlen(reason) > SV_ASK_MAX)) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "expected "
		    "{target: the command line, rule, reason}, each "
		    "shorter than 64 KiB");
		return;
	}
	k = xcalloc(1, sizeof(*k));
	k->c = c;
	sv_client_ref(c);
	k->id = dup_id(id);
	approval_put("", "command", target, 0, rule, reason, ask_done, k, c);
}

void
sv_approvals_subscribe(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct approver	*p;
	unsigned	 n = 0;

	(void)params;
	for (p = approvers; p != NULL; p = p->next, n++)
		if (p->c == c) {
			sv_client_result(c, id, "{\"subscribed\":true}", 19);
			return;
		}
	if (n >= SV_MAX_APPROVERS) {
		sv_client_error(c, id, RPC_SANDBOX_ERROR, "too many approvers");
		return;
	}
	p = xcalloc(1, sizeof(*p));
	p->c = c;
	p->next = approvers;
	approvers = p;
	log_info("client %u: an approver now", sv_client_id(c));
	sv_client_result(c, id, "{\"subscribed\":true}", 19);
}

void
sv_approvals_answer(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	const char	*rid = json_get_str(params, "requestId");
	const char	*dec = json_get_str(params, "decision");
	const char	*scope = json_get_str(params, "scope");
	struct approver	*p;
	struct approval	*a;
	struct standing	*t;
	char		 why[128];
	int		 allow;

	for (p = approvers; p != NULL && p->c != c; p = p->next)
		;
	if (p == NULL) {
		sv_client_error(c, id, RPC_INVALID_REQUEST, "not an approver "
		    "(approvals.subscribe first)");
		return;
	}
	if (rid == NULL || dec == NULL || (strcmp(dec, "allow") != 0 &&
	    strcmp(dec, "deny") != 0) || (scope != NULL &&
	    strcmp(scope, "once") != 0 && strcmp(scope, "session") != 0)) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "expected "
		    "{requestId, decision: \"allow\"|\"deny\", scope: "
		    "\"once\"|\"session\"}");
		return;
	}
	for (a = pending; a != NULL && strcmp(a->rid, rid) != 0;
	    a = a->next)
		;
	if (a == NULL) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, "requestId: "
		    "unknown, or already decided");
		return;
	}
	allow = strcmp(dec, "allow") == 0;
	if (a->sid[0] == '\0')
		scope = NULL;	/* no session: once */
	if (allow && scope != NULL && strcmp(scope, "session") == 0 &&
	    !sv_approval_standing(a->sid, a->action, a->target, a->rule)) {
		t = xcalloc(1, sizeof(*t));
		t->sid = xstrdup(a->sid);
		t->action = xstrdup(a->action);
		t->target = exact_target(a->action) ? xstrdup(a->target) :
		    NULL;
		t->rule = xstrdup(a->rule);
		t->next = standings;
		standings = t;
	}
	snprintf(why, sizeof(why), "(%s by approver %u%s)", allow ?
	    "allowed" : "denied", sv_client_id(c), allow && scope != NULL &&
	    strcmp(scope, "session") == 0 ? ", for this session" : "");
	sv_client_result(c, id, "{}", 2);
	decide(a, allow, why, c, dec);
}

int
sv_approvals_is_approver(const struct sv_client *c)
{
	struct approver	*p;

	for (p = approvers; p != NULL; p = p->next)
		if (p->c == c)
			return 1;
	return 0;
}

void
sv_approvals_client_gone(struct sv_client *c)
{
	struct approver	**pp, *p;
	struct approval	*a, *next;

	/* Its own questions first: nobody waits for their answers. */
	for (a = pending; a != NULL; a = next) {
		next = a->next;
		if (a->asker == c)
			decide(a, 0, "(the asker left)", NULL, "cancelled");
	}
	for (pp = &approvers; (p = *pp) != NULL;) {
		if (p->c == c) {
			*pp = p->next;
			free(p);
			continue;
		}
		pp = &p->next;
	}
	/* Nobody left to answer: what waits is denied now. */
	while (approvers == NULL && pending != NULL)
		decide(pending, 0, "(the last approver left: deny)", NULL,
		    "deny");
}

void
sv_approvals_session_gone(const char *sid)
{
	struct approval	*a, *next;
	struct standing	**tp, *t;

	for (a = pending; a != NULL; a = next) {
		next = a->next;
		if (strcmp(a->sid, sid) == 0)
			decide(a, 0, "(the session ended)", NULL,
			    "cancelled");
	}
	for (tp = &standings; (t = *tp) != NULL;) {
		if (strcmp(t->sid, sid) == 0) {
			*tp = t->next;
			free(t->sid);
			free(t->action);
			free(t->target);
			free(t->rule);
			free(t);
			continue;
		}
		tp = &t->next;
	}
}
