// SPDX-License-Identifier: ISC
/*
 * A session's event stream (R-S2): every event is one notification to
 * the session's client, in order, with a monotonic seq; violations are
 * reported precisely (daemons, seccomp) or guessed from stderr (R-L10)
 * and deduplicated.
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <linux/magic.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/host/paths.h"
#include "common/host/wsorigin.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"
#include "supervisor/gwrepo.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"
#include "supervisor/sv_sess.h"

void
now_rfc3339(char *buf, size_t len)
{
	struct timespec	ts;
	struct tm	tm;
	size_t		n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

/* Begin an event object: the common fields of R-S2. */
struct jgen *
event_begin(struct sv_session *s, const char *type)
{
	struct jgen	*j = jgen_new();
	char		 ts[64];

	now_rfc3339(ts, sizeof(ts));
	jgen_obj_open(j);
	jgen_kstr(j, "type", type);
	jgen_kint(j, "seq", (long long)++s->seq);
	jgen_kstr(j, "time", ts);
	jgen_kstr(j, "sessionId", s->id);
	return j;
}

void
event_end(struct sv_session *s, struct jgen *j)
{
	const char	*buf;
	size_t		 len;

	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	if (s->owner != NULL && sv_client_alive(s->owner))
		sv_client_notify(s->owner, "sandbox.event", buf, len);
	jgen_free(j);
}

void
event_simple(struct sv_session *s, const char *type)
{
	struct jgen *j = event_begin(s, type);

	jgen_kstr(j, "backend", sv_backend_name(s->backend));
	event_end(s, j);
}

void
event_killed(struct sv_session *s, struct sv_exec *x, const char *reason)
{
	struct jgen *j = event_begin(s, "killed");

	if (x != NULL)
		jgen_kint(j, "execId", x->id);
	jgen_kstr(j, "reason", reason);
	event_end(s, j);
	log_info("session %s: killed (%s)", s->id, reason);
}

static unsigned
hash_str(const char *a, const char *b)
{
	unsigned h = 2166136261u;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 16777619u;
	h = (h ^ 0xff) * 16777619u;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 16777619u;
	return h;
}

/*
 * Precise violations (proxy, gateway, filename rules) are each reported;
 * those guessed from a stream (R-L10) are deduplicated on (action, key),
 * so a tool retrying in a loop is one event; key is the target unless the
 * caller normalised it.  Both are capped per session.
 */
void
event_violation_key(struct sv_session *s, const char *action,
    const char *target, const char *key, const char *raw)
{
	struct jgen	*j;
	unsigned	 h = hash_str(action, key), i;

	if (strcmp(action, "os-denied") == 0) {
		for (i = 0; i < s->nviol; i++)
			if (s->viol_hash[i] == h)
				return;
		if (s->nviol >= SV_MAX_VIOL)
			return;
		s->viol_hash[s->nviol++] = h;
	} else if (++s->nprecise > SV_MAX_PRECISE)
		return;
	s->nviolations++;
	j = event_begin(s, "violation");
	jgen_kstr(j, "action", action);
	jgen_kstr(j, "target", target);
	if (raw != NULL)
		jgen_kstr(j, "raw", raw);
	event_end(s, j);
}

void
event_violation(struct sv_session *s, const char *action, const char *target,
    const char *raw)
{
	event_violation_key(s, action, target, target, raw);
}

void
sv_session_violation(const char *sid, const char *action, const char *target)
{
	struct sv_session *s = sv_session_find(sid);

	if (s == NULL)
		return;
	event_violation(s, action, target, NULL);
}

/* A precise violation with one more member: the rule, the reason. */
static void
violation_with(const char *sid, const char *action, const char *target,
    const char *key, const char *value)
{
	struct sv_session	*s = sv_session_find(sid);
	struct jgen		*j;

	if (s == NULL || ++s->nprecise > SV_MAX_PRECISE)
		return;
	s->nviolations++;
	j = event_begin(s, "violation");
	jgen_kstr(j, "action", action);
	jgen_kstr(j, "target", target);
	jgen_kstr(j, key, value);
	event_end(s, j);
}

/* A file tool's refusal (sv_fs.c), with the rule that decided it. */
void
sv_session_violation_rule(const char *sid, const char *action,
    const char *target, const char *rule)
{
	violation_with(sid, action, target, "rule", rule);
}

/* A violation with the words that explain it (the push rule, ...). */
void
sv_session_violation_why(const char *sid, const char *action,
    const char *target, const char *reason)
{
	violation_with(sid, action, target, "reason", reason);
}

/*
 * A refusal by a daemon (a network connection, an unlinked repository):
 * a violation event and an audit line, both within the session's cap on
 * precise violations (a sandbox can be refused as fast as it connects).
 */
void
sv_session_refused(const char *sid, const char *action, const char *target,
    const char *rule)
{
	struct sv_session *s = sv_session_find(sid);
	unsigned	   before;

	if (s == NULL)
		return;
	before = s->nviolations;
	event_violation(s, action, target, NULL);
	if (s->nviolations != before)
		sv_audit(sid, action, target, "deny", rule, NULL);
}
