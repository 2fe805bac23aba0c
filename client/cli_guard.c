// SPDX-License-Identifier: ISC
/*
 * `airlock run` judges its own command line before it starts anything
 * (R-C4): the same settings layers airlockd reads (the user's
 * file, --settings, the managed file), the same classifier and the run's
 * mode as `airlock policy check` and the hook.  deny refuses.  ask needs
 * an approver: the person at the terminal when stdin and stderr are one
 * (asked on /dev/tty); without a terminal, whoever answers for the
 * airlockd the run names (--socket, AIRLOCK_SOCKET, else the default
 * socket, where `airlock approve` and the app connect): the question
 * goes there as approvals.ask and the run waits for the answer.  With
 * neither, ask is refused (pol_guard_finish) and the refusal says in one
 * line how to go on.  A "no" is reported as the person's, naming who
 * answered.  The rule that decided is printed either way.
 * An interactive shell on the caller's terminal is not judged: the
 * person types its commands (interactive_shell()).
 *
 * This guards the caller's own command line, not the agent: what runs
 * inside is confined by the sandbox, not by this check, so
 * --no-policy-check (for tests that prove containment with commands the
 * policy refuses) weakens nothing, unless the managed layer sets rules,
 * which it then cannot skip.
 */
#include <sys/socket.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/cli.h"
#include "client/cli_policy.h"
#include "common/json.h"
#include "common/host/settings.h"
#include "common/vis.h"
#include "common/xmalloc.h"
#include "policy/classify.h"
#include "policy/guard.h"

/* argv as one sh command line, every word single-quoted. */
static char *
quote_argv(char *const *argv, size_t *lenp)
{
	size_t	 n = 1, i;
	char	*s, *p;
	const char *c;

	for (i = 0; argv[i] != NULL; i++)
		for (n += 3, c = argv[i]; *c != '\0'; c++)
			n += *c == '\'' ? 4 : 1;
	s = p = xmalloc(n);
	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			*p++ = ' ';
		*p++ = '\'';
		for (c = argv[i]; *c != '\0'; c++) {
			if (*c == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else
				*p++ = *c;
		}
		*p++ = '\'';
	}
	*p = '\0';
	*lenp = (size_t)(p - s);
	return s;
}

/* How an ask was answered. */
enum guard_answer {
	ANS_NONE,		/* nobody to ask */
	ANS_YES,
	ANS_NO,			/* a person said no */
	ANS_UNANSWERED,		/* asked, but nobody answered */
	ANS_TOOLONG,		/* too long to put to an approver */
};

/* The longest command line or reason airlockd puts to its approvers
 * (supervisor/sv_approval.c, SV_ASK_MAX). */
#define GUARD_ASK_MAX	65536

/* The person at the terminal approves an ask, or not. */
static enum guard_answer
tty_approves(const char *reason, const char *rule)
{
	FILE	*tty;
	char	 line[32], *r;
	int	 all, cut;
	enum guard_answer yes = ANS_NO;

	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO) ||
	    (tty = fopen("/dev/tty", "r+e")) == NULL)
		return ANS_NONE;
	/* The reason quotes the command line, which a script wrote:
	 * shown whole or by both ends (vis_ask), v shows all of it. */
	for (all = 0;; all = 1) {
		r = vis_ask(reason, all ? 0 : VIS_ASK_MAX, &cut);
		fprintf(tty, "airlock: %s [%s]\nairlock: run it? [y/N%s] ", r,
		    vis(rule), cut ? "/v" : "");
		free(r);
		fflush(tty);
		if (fgets(line, sizeof(line), tty) == NULL) {
			line[0] = '\0';
			break;
		}
		if ((line[0] != 'v' && line[0] != 'V') || !cut || all)
			break;
	}
	yes = line[0] == 'y' || line[0] == 'Y' ? ANS_YES : ANS_NO;
	fclose(tty);
	return yes;
}

/*
 * Without a terminal: the approvers of the airlockd on sock (NULL:
 * AIRLOCK_SOCKET, else the default socket) answer, through
 * approvals.ask; the wait ends with an answer, airlockd's deadline or the
 * last approver leaving.  An airlockd that cannot take the question (too
 * many waiting, an older one) counts as nobody to ask.  who gets the
 * approver's name for the messages.
 */
static enum guard_answer
approver_approves(const char *sock, const char *line, const char *reason,
    const char *rule, char *who, size_t wholen)
{
	struct rpc	 rpc;
	struct jgen	*j;
	struct json	*res;
	const struct json *ap, *v;
	const char	*dec;
	char		 err[512];
	int		 code;
	struct ucred	 cr;
	socklen_t	 crlen = sizeof(cr);
	enum guard_answer a;

	if (sock == NULL && (sock = getenv("AIRLOCK_SOCKET")) != NULL &&
	    sock[0] == '\0')
		sock = NULL;
	if (rpc_open(&rpc, sock, 0, NULL, err, sizeof(err)) == -1)
		return ANS_NONE;
	/*
	 * Only our own airlockd answers for us: the default socket's
	 * fallback directory (/tmp/airlock-UID) is one another user could
	 * have made first, to listen there and say yes.
	 */
	if (getsockopt(rpc.fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) == -1 ||
	    cr.uid != getuid()) {
		fprintf(stderr, "airlock: not asking the listener on %s: it is "
		    "not yours\n", sock != NULL ? vis(sock) :
		    "the default socket");
		rpc_close(&rpc);
		return ANS_NONE;
	}
	j = jgen_new();
	jgen_obj_open(j);
	jgen_kstr(j, "target", line);
	jgen_kstr(j, "rule", rule);
	jgen_kstr(j, "reason", reason);
	jgen_obj_close(j);
	res = rpc_call(&rpc, "approvals.ask", jgen_buf(j, NULL), NULL, NULL,
	    &code, err, sizeof(err));
	jgen_free(j);
	rpc_close(&rpc);
	if (res == NULL)
		return ANS_NONE;	/* an airlockd without approvals.ask */
	dec = json_get_str(res, "decision");
	ap = json_get(res, "approver");
	snprintf(who, wholen, "the approver");
	if (ap != NULL && (v = json_get(ap, "connection")) != NULL &&
	    v->is_int)
		snprintf(who, wholen, "the approver on connection %lld",
		    (long long)v->integer);
	if ((v = json_get(res, "allowed")) != NULL && v->type == JSON_BOOL &&
	    v->boolean)
		a = ANS_YES;
	else if (dec != NULL && strcmp(dec, "deny") == 0)
		a = ANS_NO;
	else if (dec != NULL && (strcmp(dec, "timeout") == 0 ||
	    strcmp(dec, "cancelled") == 0)) {
		v = json_get(res, "timeoutSeconds");
		if (strcmp(dec, "timeout") == 0 && v != NULL && v->is_int)
			snprintf(who, wholen, "no answer from the approver "
			    "within %lld s", (long long)v->integer);
		else
			snprintf(who, wholen, "the approver left without "
			    "answering");
		a = ANS_UNANSWERED;
	} else
		a = ANS_NONE;
	json_free(res);
	return a;
}

/* An ask: the terminal's person, else a connected approver. */
static enum guard_answer
ask_someone(const char *sock, const char *line, const struct pol_result *r,
    const char *rule, int unsandboxed, char *who, size_t wholen)
{
	const char	*reason = r->reason != NULL ? r->reason : "";
	char		 cwd[PATH_MAX], *where;
	enum guard_answer a;

	snprintf(who, wholen, "you");
	if ((a = tty_approves(reason, rule)) != ANS_NONE)
		return a;
	/* The approver is elsewhere: tell them where it would run. */
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		snprintf(cwd, sizeof(cwd), "?");
	xasprintf(&where, "%s; in %s, %s", reason, cwd, unsandboxed ?
	    "on the host WITHOUT a sandbox (--sandbox off)" :
	    "in a sandbox");
	if (strlen(line) > GUARD_ASK_MAX || strlen(where) > GUARD_ASK_MAX) {
		free(where);
		return ANS_TOOLONG;
	}
	if ((a = approver_approves(sock, line, where, rule, who,
	    wholen)) == ANS_YES)
		fprintf(stderr, "airlock: allowed by %s\n", vis(who));
	free(where);
	return a;
}

/*
 * An interactive shell on the caller's terminal: the commands are the
 * ones the person types, not a line an agent wrote, so there is nothing
 * to judge before it starts (the sandbox confines what they type, as it
 * confines anything).  Only a plain shell with no script and no -c, and
 * only when standard input is a terminal: `echo ... | airlock run -- sh`
 * reads hidden text and is judged (opaque).
 */
static int
interactive_shell(char *const *argv)
{
	static const char *const shells[] = {
		"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish",
	};
	static const char *const opts[] = {
		"-i", "-l", "-s", "-il", "-li", "--login", "--norc",
		"--noprofile", "--posix",
	};
	const char	*name;
	size_t		 i, k;

	if (argv[0] == NULL || !isatty(STDIN_FILENO))
		return 0;
	name = strrchr(argv[0], '/') != NULL ? strrchr(argv[0], '/') + 1 :
	    argv[0];
	for (i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (strcmp(name, shells[i]) == 0)
			break;
	if (i == sizeof(shells) / sizeof(shells[0]))
		return 0;
	for (i = 1; argv[i] != NULL; i++) {
		for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
			if (strcmp(argv[i], opts[k]) == 0)
				break;
		if (k == sizeof(opts) / sizeof(opts[0]))
			return 0;
	}
	return 1;
}

static int
managed_rules(const struct settings *s)
{
	char	key[64];
	int	c;

	for (c = 0; c < POL_CLASS_MAX; c++) {
		snprintf(key, sizeof(key), "rules.%s",
		    pol_class_name((enum pol_class)c));
		if (settings_is_locked(s, key))
			return 1;
	}
	return 0;
}

int
cli_run_guard(const char *mode_name, const char *settings_file,
    char *const *argv, int skip)
{
	return cli_run_guard_sock(mode_name, settings_file, argv, skip, NULL,
	    0);
}

int
cli_run_guard_sock(const char *mode_name, const char *settings_file,
    char *const *argv, int skip, const char *sock, int unsandboxed)
{
	struct settings		 s;
	struct pol_result	*r;
	enum pol_mode		 mode;
	enum pol_verdict	 v;
	char			 err[512], rule[256], who[128], *line;
	size_t			 len;
	enum guard_answer	 ans = ANS_NONE;

	if (pol_mode_parse(mode_name, &mode) == -1) {
		fprintf(stderr, "airlock: unknown mode %s\n", mode_name);
		return 2;
	}
	settings_defaults(&s);
	if (settings_load(&s, NULL, settings_file, NULL, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "airlock: %s\n", err);
		settings_free(&s);
		return 125;
	}
	/* What the settings ignore or approximate, once, before the run. */
	settings_print_notes(&s, "airlock");
	if (skip) {
		int locked = managed_rules(&s);

		if (locked)
			fprintf(stderr, "airlock: --no-policy-check refused: "
			    "managed policy %s sets rules\n",
			    s.managed_file != NULL ? s.managed_file :
			    SETTINGS_MANAGED_PATH);
		settings_free(&s);
		return locked ? 2 : 0;
	}
	if (interactive_shell(argv)) {
		settings_free(&s);
		return 0;
	}
	line = quote_argv(argv, &len);
	r = pol_check(line, len, mode, s.rules);
	snprintf(rule, sizeof(rule), "%s", r->rule != NULL ? r->rule : "");
	/* R-C4: ask with no approver is deny; a terminal is one. */
	if (r->verdict == POL_ASK && (ans = ask_someone(sock, line, r, rule,
	    unsandboxed, who, sizeof(who))) == ANS_YES)
		v = POL_ALLOW;
	else
		v = pol_guard_finish(r->verdict, ans != ANS_NONE, rule,
		    sizeof(rule));
	if (ans == ANS_TOOLONG) {
		fprintf(stderr, "airlock: refused: the command line is too long "
		    "to put to an approver (%zu bytes, at most %d): %s [%s]\n",
		    len, GUARD_ASK_MAX, r->reason != NULL ? vis(r->reason) :
		    "no reason", vis(rule));
		fprintf(stderr, "airlock: to go on: run it on a terminal and "
		    "answer y, or pass --no-policy-check\n");
		v = POL_DENY;
	} else if (ans == ANS_NO || ans == ANS_UNANSWERED) {
		/* A person's no, or their silence: not a rule's. */
		fprintf(stderr, "airlock: refused: %s%s: %s [%s]\n", vis(who),
		    ans == ANS_NO ? " answered no" : "", r->reason != NULL ?
		    vis(r->reason) : "no reason", vis(rule));
		v = POL_DENY;
	} else if (v != POL_ALLOW)
		fprintf(stderr, "airlock: refused by policy (%s mode): %s "
		    "[%s]\n", pol_mode_name(mode), r->reason != NULL ?
		    vis(r->reason) : "no reason", vis(rule));
	if (r->verdict == POL_ASK && ans == ANS_NONE)
		fprintf(stderr, "airlock: to go on: run it on a terminal and "
		    "answer y, or answer from `airlock approve` on the same "
		    "airlockd (--socket PATH or AIRLOCK_SOCKET for both), or "
		    "pass --no-policy-check\n");
	pol_result_free(r);
	free(line);
	settings_free(&s);
	return v == POL_ALLOW ? 0 : 126;
}
