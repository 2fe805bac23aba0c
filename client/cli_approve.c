// SPDX-License-Identifier: ISC
/*
 * `airlock approve`: a terminal approver (R-C4).  It connects to
 * the running airlockd (never a private one: a private airlockd has no
 * sandbox to ask about), subscribes, prints each approval request on one
 * line and reads the answer from standard input: y (allow once), n (deny)
 * or a (allow for the rest of that session); v, when the request was too
 * long to show whole, shows all of it and asks again.  Anything else, or
 * the end of input, denies.
 *
 * `airlock audit [--session ID] [--since RFC3339]`: the audit log's lines
 * (sv_audit.c), oldest first, as JSON lines; on a terminal escaped
 * (common/vis.h), since a target may hold bidi controls JSON leaves raw.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_opt.h"
#include "common/host/wsorigin.h"
#include "common/json.h"
#include "common/vis.h"
#include "common/xmalloc.h"

struct approve_ctx {
	struct rpc	*rpc;
	int		 stop;
};

/* One request: a line out, a line in, an answer sent. */
static void
approve_request(const struct json *p, void *arg)
{
	struct approve_ctx *ctx = arg;
	struct jgen	*j;
	const char	*rid, *buf, *dec = "deny", *scope = "once", *sid;
	char		 line[64], *tg, *why, *act, *rule;
	size_t		 len;
	int		 all, cut1, cut2, cut3, cut4;

	if ((rid = json_get_str(p, "requestId")) == NULL ||
	    json_get_str(p, "deadline") == NULL) {
		if (rid != NULL && json_get_str(p, "decision") != NULL)
			printf("[%s] decided: %s\n", vis(rid),
			    vis(json_get_str(p, "decision")));
		fflush(stdout);
		return;
	}
	/* untrusted: every field, from a sandbox (the command) or from
	 * whichever client asked; escaped so that none can erase or
	 * rewrite what the approver reads, and the command and reason
	 * shown whole or by both ends (vis_ask), so that nothing a
	 * sandbox wrote pushes the part that matters off the screen. */
	sid = json_get_str(p, "sessionId");
	for (all = 0;; all = 1) {
		tg = vis_ask(json_get_str(p, "target"), all ? 0 : VIS_ASK_MAX,
		    &cut1);
		why = vis_ask(json_get_str(p, "reason"), all ? 0 : VIS_ASK_MAX,
		    &cut2);
		act = vis_ask(json_get_str(p, "action"), all ? 0 : VIS_ASK_MAX,
		    &cut3);
		rule = vis_ask(json_get_str(p, "rule"), all ? 0 : VIS_ASK_MAX,
		    &cut4);
		cut1 |= cut2 | cut3 | cut4;
		printf("[%s] %s%s: %s %s (%s: %s) until %s  allow? [y/n/a%s] ",
		    vis(rid), sid != NULL && sid[0] != '\0' ? "session " :
		    "airlock run, before its sandbox", sid != NULL &&
		    sid[0] != '\0' ? vis(sid) : "", act, tg, rule, why,
		    vis(json_get_str(p, "deadline")), cut1 ? "/v" : "");
		free(tg);
		free(why);
		free(act);
		free(rule);
		fflush(stdout);
		if (fgets(line, sizeof(line), stdin) == NULL) {
			ctx->stop = 1;
			line[0] = '\0';
		}
		/* v: the whole request, then the question again. */
		if ((line[0] == 'v' || line[0] == 'V') && cut1 && !all)
			continue;
		break;
	}
	if (line[0] == 'y' || line[0] == 'Y')
		dec = "allow";
	else if (line[0] == 'a' || line[0] == 'A') {
		dec = "allow";
		/* No session yet: airlockd takes it as once. */
		if (sid != NULL && sid[0] != '\0')
			scope = "session";
	}
	j = jgen_new();
	jgen_obj_open(j);
	jgen_kstr(j, "requestId", rid);
	jgen_kstr(j, "decision", dec);
	jgen_kstr(j, "scope", scope);
	jgen_obj_close(j);
	buf = jgen_buf(j, &len);
	rpc_send(ctx->rpc, "approvals.answer", buf);
	jgen_free(j);
	printf("[%s] %s%s\n", vis(rid), dec, strcmp(scope, "session") == 0 ?
	    " for this session" : "");
	fflush(stdout);
}

int
cli_approve_main(int argc, char **argv)
{
	struct approve_ctx ctx;
	struct rpc	 rpc;
	struct json	*res;
	const char	*sock = NULL;
	char		 err[512];
	int		 code, i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
			sock = argv[++i];
		else
			cli_opt_reject("airlock approve", argv[i],
			    strcmp(argv[i], "--socket") == 0,
			    "it takes --socket PATH");
	}
	/* The airlockd `airlock run` would use. */
	if (sock == NULL && (sock = getenv("AIRLOCK_SOCKET")) != NULL &&
	    *sock == '\0')
		sock = NULL;
	if (rpc_open(&rpc, sock, 0, NULL, err, sizeof(err)) == -1) {
		fprintf(stderr, "airlock approve: %s\n", err);
		return 1;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.rpc = &rpc;
	if ((res = rpc_call(&rpc, "approvals.subscribe", "{}", approve_request,
	    &ctx, &code, err, sizeof(err))) == NULL) {
		fprintf(stderr, "airlock approve: %s\n", err);
		rpc_close(&rpc);
		return 1;
	}
	json_free(res);
	printf("approving for airlockd%s%s; y: allow, n: deny, a: allow for "
	    "the session\n", sock != NULL ? " on " : "", sock != NULL ?
	    vis(sock) : "");
	fflush(stdout);
	(void)rpc_wait(&rpc, approve_request, &ctx, &ctx.stop);
	rpc_close(&rpc);
	return 0;
}

/* RFC 3339 -> seconds since the epoch (fractions dropped); -1 if not. */
static long long
rfc3339(const char *s)
{
	struct tm	 tm;
	const char	*p;
	int		 oh = 0, om = 0, sign = 0;

	memset(&tm, 0, sizeof(tm));
	if ((p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL)
		return -1;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (*p == 'Z' || *p == 'z')
		p++;
	else if ((*p == '+' || *p == '-') &&
	    sscanf(p + 1, "%2d:%2d", &oh, &om) == 2) {
		sign = *p == '+' ? 1 : -1;
		p += 6;
	} else
		return -1;
	if (*p != '\0')
		return -1;
	return (long long)timegm(&tm) - sign * (oh * 3600LL + om * 60LL);
}

int
cli_audit_main(int argc, char **argv)
{
	const char	*sid = NULL, *t;
	char		*dir, *path, *line = NULL, perr[128];
	long long	 since = -1, when;
	size_t		 cap = 0;
	ssize_t		 n;
	struct json	*e;
	FILE		*f;
	int		 i, tty = isatty(STDOUT_FILENO);

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--session") == 0 && i + 1 < argc)
			sid = argv[++i];
		else if (strcmp(argv[i], "--since") == 0 && i + 1 < argc) {
			if ((since = rfc3339(argv[++i])) == -1) {
				fprintf(stderr, "airlock audit: --since %s: "
				    "not RFC 3339 (2026-01-31T12:00:00Z)\n",
				    argv[i]);
				return 2;
			}
		} else
			cli_opt_reject("airlock audit", argv[i],
			    strcmp(argv[i], "--session") == 0 ||
			    strcmp(argv[i], "--since") == 0,
			    "it takes --session ID and --since RFC3339");
	}
	if ((dir = airlock_state_dir()) == NULL) {
		fprintf(stderr, "airlock audit: no HOME or XDG_STATE_HOME\n");
		return 1;
	}
	xasprintf(&path, "%s/audit.jsonl", dir);
	free(dir);
	if ((f = fopen(path, "re")) == NULL) {
		if (errno == ENOENT) {
			free(path);
			return 0;	/* nothing decided yet */
		}
		fprintf(stderr, "airlock audit: %s: %s\n", path,
		    strerror(errno));
		free(path);
		return 1;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if ((e = json_parse(line, (size_t)n, perr, sizeof(perr))) ==
		    NULL)
			continue;
		t = json_get_str(e, "time");
		when = t != NULL ? rfc3339(t) : -1;
		if ((sid == NULL || (json_get_str(e, "sessionId") != NULL &&
		    strcmp(json_get_str(e, "sessionId"), sid) == 0)) &&
		    (since == -1 || when >= since))
			printf("%s\n", tty ? vis_json(line) : line);
		json_free(e);
	}
	free(line);
	fclose(f);
	free(path);
	return 0;
}
