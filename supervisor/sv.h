/* SPDX-License-Identifier: ISC */
/*
 * airlockd's internal interfaces: the host probe, the session table, the
 * launch plan, the children (launchers and daemons) and the client side.
 * Everything airlockd decides is decided in these modules; its children
 * only apply what it sends them.
 */
#ifndef AIRLOCK_SV_H
#define AIRLOCK_SV_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "common/host/settings.h"
#include "common/json.h"
#include "common/msg.h"
#include "policy/policy.h"

struct event_base;
struct namerule_set;
struct sv_client;
struct sv_session;

/* ---- host probe (sv_probe.c), R-H1/R-H2 ---- */

enum sv_backend {
	SV_BACKEND_NONE = 0,
	SV_BACKEND_NATIVE,
	SV_BACKEND_MICROVM,
};

struct sv_probe {
	int		 available;	/* native backend usable */
	int		 requires_install;
	int		 landlock_abi;	/* 0: none */
	int		 seccomp;
	int		 userns;
	int		 ptrace_scope;	/* kernel.yama.ptrace_scope, -1: none */
	int		 ptrace_blocked; /* >= 2: init cannot read callers'
					   memory; sandboxes are refused */
	char		*notes;		/* "native: landlock abi 7, ..." */
	char		*install_hint;
	char		**reasons;	/* what is missing and how to fix */
};

void		 sv_probe_run(struct sv_probe *);
/* kernel.yama.ptrace_scope's text (NULL: absent): the value, or -1. */
int		 sv_probe_parse_ptrace_scope(const char *text);
/* Apply a ptrace scope to a probe result (>= 2 blocks the backend). */
void		 sv_probe_ptrace(struct sv_probe *, int scope);
void		 sv_probe_free(struct sv_probe *);
const char	*sv_backend_name(enum sv_backend);
/* R-H5: null/unknown -> none, "docker" -> native. */
enum sv_backend	 sv_backend_parse(const char *);

/* ---- the launch spec and plan (sv_plan.c) ---- */

struct sv_bind {
	char		*host_path;
	char		*guest_path;
	int		 read_only;
};

struct sv_limits {
	unsigned	 timeout_sec;	/* 0: none */
	uint64_t	 memory_bytes;	/* 0: none */
	unsigned	 pids;		/* 0: none */
	uint64_t	 output_bytes;	/* per stream */
};

/* SandboxSpec (SPEC §3), as received from the client. */
struct sv_spec {
	char		*session_id;
	char		*workspace_id;
	char		*agent_id;
	struct sv_bind	*binds;
	size_t		 nbinds;
	char		**bind_links;	/* a bind's path as given, then its
					   canonical one, for each that
					   differs (sv_spec_canonical) */
	int		 network_enabled;
	int		 no_push_gateway; /* "pushGateway": false */
	char		**egress_allowlist;
	char		*guest_workdir;
	enum pol_mode	 mode;
	char		**protected_paths;
	char		**runner_state_dirs;
	char		**runner_private_dirs; /* a tmpfs each, beneath
						  the home: the runner's
						  own, never kept */
	char		**exec_grant_roots;
	char		**deny_read;
	char		**deny_write;
	struct sv_limits limits;
	char		*backend;	/* requested backend name or NULL */
	char		*origin_repo;	/* "owner/name" of the worktree or NULL */
	/* What the workspace's config says (untrusted after the first
	 * run). */
	char		*workspace_origin;
	/* A run in a conversation (R-W4): its mounts come from
	 * the conversation (supervisor/sv_worktree.c). */
	char		*conversation_id;
	char		*agent_config_dir;	/* ro, optional */
	/* "claudeLogin" (airlock claude): the user's Claude Code login
	 * file, shown inside as a copy holding placeholders; its token
	 * goes on the wire toward login_host alone (sv_mask.c). */
	char		*login_file;
	char		*login_host;
	/* "maskPassed" (airlock claude): variables passed with passEnv
	 * whose values the sandbox gets as placeholders; name, host,
	 * header, name, ... (sv_mask.c). */
	char		**mask_passed;
	char		*attachments_dir;	/* ro, optional */
	/* Test build only (-DAIRLOCK_TEST_BUILD parses it; the field is
	 * always here so that both builds share one layout): a writable
	 * bind with no Landlock rule (proves the second layer holds
	 * alone). */
	char		*test_unlisted_bind;
};

void		 sv_spec_free(struct sv_spec *);
/* Parse a spec from JSON; -1 with a message naming the field. */
int		 sv_spec_from_json(const struct json *, struct sv_spec *,
		    char *err, size_t errlen);

/* A resolved plan: the frames to send to the launcher, in order. */
struct sv_plan {
	struct msgbuf	*frames;
	size_t		 nframes;
	char		*home;		/* $HOME inside the sandbox */
	char		*workdir;	/* default cwd */
	char		**env_base;	/* environment set by the plan */
	int		 listen_http;
	int		 listen_git;
	char		**tmpfs;	/* the sandbox's own writable tmpfs
					 * mounts, counted by the watchdog */
	char		**opened;	/* built-in write rules settings'
					   allowWrite opened, for the
					   run's summary */
	struct namerule_set *rules;	/* the filename rules sent, to
					   judge what the agent committed */
	char		**tops;		/* the writable binds, but a
					   runner's state: host paths */
	char		**moved;	/* host path, then guest path, of
					   each writable bind shown
					   elsewhere (--bind SRC:DST) */
};

struct sv_plan_ctx {
	const struct settings	*settings;
	const char		*home;		/* the caller's real $HOME */
	uid_t			 uid;
	gid_t			 gid;
	int			 with_proxy;	/* proxyd is installed */
	int			 with_gateway;	/* gatewayd is installed */
	const void		*bpf;		/* the seccomp program */
	size_t			 bpf_len;
	int			 bpf_known;	/* this kernel took it */
	char *const		*own_paths;	/* airlock's own files that no
						   run may write: --settings,
						   binaries, the socket dir */
	const char		*caller_path;	/* the caller's $PATH: its
						   entries in a home are what
						   the host runs */
	const char		*fs_helper;	/* airlock-fs, canonical, bound
						   for the file tools */
	const char		*control_socket; /* airlockd's, if it listens */
	const char		*caller_runtime; /* the caller's
						   $XDG_RUNTIME_DIR */
	const char		*ca_bundle;	/* credentials.mask: the
						   sandbox's CA bundle */
	char *const		*mask_env;	/* name, placeholder, ... */
	const char		*login_copy;	/* claudeLogin: its copy, bound
						   at login_file */
	const char		*login_file;
	const char		*hostep_path;	/* the host-header endpoint's
						   socket on the host */
};

void		 sv_spec_canonical(struct sv_spec *);
int		 sv_plan_build(const struct sv_spec *, const struct sv_plan_ctx *,
		    struct sv_plan *, char *err, size_t errlen);
void		 sv_plan_free(struct sv_plan *);
/*
 * R-L9: the environment of a command: the allowlisted part of the
 * caller's environment, then the plan's own variables, then the exec's
 * explicit ones (also filtered).  Returns a new vector.
 */
char		**sv_env_build(char *const *caller_env, char *const *plan_env,
		    char *const *exec_env);
int		 sv_env_allowed(const char *name);
int		 sv_env_injection(const char *name);
/* R-S6: both spellings (literal and symlink-resolved) of a path. */
char		**sv_path_spellings(char **v, const char *path);

/* ---- seccomp (sv_seccomp.c) ---- */

/* Compile the sandbox's filter to BPF; -1 on failure. */
void		 sv_seccomp_program(const void **bufp, size_t *lenp);
/* Does the program send write-intent syscalls to init (R-L4)? */
int		 sv_seccomp_notify(void);

/* ---- children (sv_child.c) ---- */

/* Path of a sibling binary (next to airlockd, else LIBEXECDIR). */
char		*sv_sibling(const char *name);
void		 sv_siblings_init(void);
/*
 * fork+exec a child with one end of a new socketpair on fd 3 and
 * /dev/null on stdin.  Returns the pid and the parent's end in *fdp.
 */
pid_t		 sv_spawn(const char *path, char *const argv[], int *fdp);

/* sv_spare.c: one launcher started ahead of need */
void		 sv_spare_init(struct event_base *, int refill);
pid_t		 sv_spare_take(int *fdp);
void		 sv_spare_session_ended(void);
int		 sv_spare_reaped(pid_t);
void		 sv_spare_stop(void);
/* sv_clock.c: notice a stepped wall clock (timerfd), drop the spare
 * copies made before it. */
void		 sv_clock_init(struct event_base *);
void		 sv_clock_stop(void);

/* ---- daemons (sv_daemon.c) ---- */

enum sv_daemon_kind {
	SV_DAEMON_PROXYD = 0,
	SV_DAEMON_GATEWAYD,
	SV_DAEMON_MAX
};

/*
 * A session's standing with one daemon.  A daemon starts when a sandbox
 * first connects to one of its listeners (or is already up): until then
 * airlockd holds the listeners and watches them.
 */
enum sv_dstate {
	DS_NONE = 0,	/* no listeners (daemon not installed, no sandbox) */
	DS_IDLE,	/* listeners held by airlockd, watched */
	DS_WANTED,	/* a connection waits: start the daemon, register */
	DS_REGISTERED	/* the daemon holds the listeners */
};

void		 sv_daemons_init(struct event_base *);
void		 sv_daemons_stop(void);
int		 sv_daemon_up(enum sv_daemon_kind);
int		 sv_daemon_present(enum sv_daemon_kind);
/* sv_mask.c: proxyd's MSG_PX_CA, the CA a masked launch waits for. */
struct msg;
void		 sv_mask_ca(struct msg *);
/* sv_mask.c: the host-header endpoint's socket and trust. */
struct sv_session;
struct settings;
int		 sv_hostep_make(struct sv_session *, char *err, size_t errlen);
char		*sv_hostep_path(const struct sv_session *);
char		*sv_mask_upstream_bundle(const struct settings *, char *err,
		    size_t errlen);
void		 sv_hostep_free(struct sv_session *);
void		 sv_hostep_sweep(void);
int		 sv_daemon_ready(enum sv_daemon_kind);
void		 sv_daemon_want(enum sv_daemon_kind);
struct msg_link	*sv_daemon_link(enum sv_daemon_kind);
void		 sv_daemons_status(struct jgen *);
void		 sv_daemon_failed(enum sv_daemon_kind, const char *why);
int		 sv_daemon_reaped(pid_t);
/* A daemon runs but has not said what it applied (its MSG_HELLO). */
int		 sv_daemons_unreported(void);

/* ---- airlockd's own restriction, the daemons' reports (sv_self.c) ---- */

void		 sv_self_init(struct event_base *);
void		 sv_self_restrict(void);
const char	*sv_self_summary(void);
/* host.status: answer(c, id) now, or once every running daemon has
 * reported (sv_self_reported), or after a bound. */
void		 sv_self_status(struct sv_client *, const struct json *id,
		    void (*answer)(struct sv_client *, const struct json *));
void		 sv_self_reported(void);
void		 sv_self_stop(void);
/* A session's guard, as /proc shows it: "guardRestriction" in j. */
void		 sv_self_guard_json(struct jgen *, pid_t init_pid);

/* ---- sessions (sv_session.c) ---- */

/* R-S1: a session's states. */
enum sv_state {
	ST_CREATED = 0,
	ST_WARM,
	ST_ACTIVE,
	ST_SUSPENDED,
	ST_DESTROYED,
	ST_ERROR,
};

/* A set of states: the states a method or a message is valid in. */
#define SV_SB(st)	(1U << (st))
#define SV_SB_LIVE	(SV_SB(ST_WARM) | SV_SB(ST_ACTIVE) | \
			 SV_SB(ST_SUSPENDED))
#define SV_SB_ANY	(~0U)

void		 sv_sessions_init(struct event_base *, const struct settings *,
		    const struct sv_probe *, int sandbox_on);
void		 sv_sessions_shutdown(void);
/* JSON-RPC methods; each either answers now or later via sv_client. */
void		 sv_session_launch(struct sv_client *, const struct json *id,
		    const struct json *params);
/* sandbox.profile: a launch's plan for review (sv_profile.c). */
void		 sv_session_profile(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_session_exec(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_session_destroy(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_session_signal(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_session_resize(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_session_suspend(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_session_resume(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_session_list(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_session_status(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_session_attach(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_session_input(struct sv_client *, const struct json *id,
		    const struct json *params);
/* airlockd's own command in a client's session (sv_fs.c). */
typedef void	(*sv_helper_done)(void *arg, int status);
struct sv_session *sv_session_helper(struct sv_client *,
		    const struct json *id, const struct json *params,
		    char *const argv[], int in_fd, int out_fd,
		    sv_helper_done, void *arg);
/*
 * R-R1 for airlockd's own commands: a lazy session not built yet is
 * built (or its build joined) and fn called once it is ready (err NULL)
 * or failed (err the reason).  0: nothing to wait for, go on now.
 */
typedef void	(*sv_built_fn)(void *arg, const char *err);
int		 sv_session_when_built(struct sv_client *,
		    struct sv_session *, sv_built_fn, void *arg);
const struct sv_spec *sv_session_spec(const struct sv_session *);
struct sv_session *sv_session_owned(struct sv_client *, const char *sid);
int		 sv_session_replace_failed(struct sv_client *, const char *sid);
int		 sv_session_confined(const struct sv_session *);
void		 sv_session_violation_rule(const char *sid, const char *action,
		    const char *target, const char *rule);
const char	*sv_session_workdir(const struct sv_session *);
/* A client went away: destroy the sessions it owned. */
void		 sv_sessions_client_gone(struct sv_client *);
void		 sv_sessions_client_drained(struct sv_client *);
/* Does the client own a session (it is not idle)? */
int		 sv_sessions_owned(const struct sv_client *);
/* A daemon died (ready: after its hello): fail its sessions closed. */
void		 sv_sessions_daemon_died(enum sv_daemon_kind, int ready);
/* proxyd could not take session sid: fail that one closed. */
void		 sv_sessions_proxy_failed(const char *sid, const char *);
void		 sv_sessions_daemon_up(enum sv_daemon_kind);
void		 sv_sessions_daemon_ready(enum sv_daemon_kind);
int		 sv_sessions_want(enum sv_daemon_kind);
/* Violation reported by a daemon for a session. */
void		 sv_session_violation(const char *session_id,
		    const char *action, const char *target);
/* A daemon's refusal: a violation event and an audit line. */
void		 sv_session_refused(const char *session_id,
		    const char *action, const char *target, const char *rule);
void		 sv_session_violation_why(const char *session_id,
		    const char *action, const char *target,
		    const char *reason);
struct sv_session *sv_session_find(const char *id);
/*
 * A session method's sessionId names a session of this client in one of
 * the states: 0; else -1, the client was answered with the error.
 */
int		 sv_session_check(struct sv_client *, const struct json *id,
		    const struct json *params, unsigned states);
/* The SIGCHLD reaper found a host pid; 1 if it was a session's. */
int		 sv_session_reaped(pid_t, int status);
/* For gatewayd: the session's origin repo and whether it exists. */
const char	*sv_session_origin(const struct sv_session *);
/* The ids of the live sessions in conversation conv or with a bind
 * beneath dir (worktree.remove waits for them); NULL: none. */
char		**sv_sessions_using(const char *conv, const char *dir);
void		 sv_status_json(struct jgen *);

/* ---- approvals (sv_approval.c), R-C4 ---- */

/* The decision on one request; why names the rule or the approver. */
typedef void	(*sv_approval_cb)(void *arg, int allowed, const char *why);
/*
 * Put an action to the subscribed approvers; cb is called exactly once:
 * at once (deny) when no approver is connected, else with the first
 * answer or a deny at the deadline (approvals.timeoutSeconds).
 */
void		 sv_approval_request(const char *session_id,
		    const char *action, const char *target, unsigned classes,
		    const char *rule, const char *reason, sv_approval_cb,
		    void *arg);
void		 sv_approvals_subscribe(struct sv_client *,
		    const struct json *id, const struct json *params);
void		 sv_approvals_answer(struct sv_client *, const struct json *id,
		    const struct json *params);
/* A client's own command line, before its run has a session. */
void		 sv_approvals_ask(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_approvals_client_gone(struct sv_client *);
int		 sv_approvals_is_approver(const struct sv_client *);
/* "scope":"session" answers: the session's standing allowances (an
 * unsandboxed command's: that exact command only). */
int		 sv_approval_standing(const char *session_id,
		    const char *action, const char *target, const char *rule);
void		 sv_approvals_session_gone(const char *session_id);

/* ---- the audit log (sv_audit.c) ---- */

/*
 * One JSON line per decision in $XDG_STATE_HOME/airlock/audit.jsonl:
 * time, sessionId, action, target, verdict, rule, approvedBy (the
 * approver's connection and uid, or null).
 */
void		 sv_audit(const char *session_id, const char *action,
		    const char *target, const char *verdict, const char *rule,
		    const struct sv_client *approver);
/* ---- the file tools (sv_fs.c), R-C6 ---- */

void		 sv_fs_read(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_fs_write(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_fs_edit(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_fs_apply_patch(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_fs_search(struct sv_client *, const struct json *id,
		    const struct json *params);
void		 sv_fs_find(struct sv_client *, const struct json *id,
		    const struct json *params);

/* ---- clients (sv_client.c) ---- */

int		 sv_client_listen(struct event_base *, const char *path,
		    int own_dir);
/* Socket activation: the listening fd systemd passed, -1 if none,
 * -2 with err set if what was passed is not one airlockd can serve. */
int		 sv_client_activated(char *err, size_t errlen);
int		 sv_client_listen_fd(struct event_base *, int fd);
void		 sv_client_adopt(struct event_base *, int fd, int exit_on_close);
/* The path of the socket airlockd listens on; NULL for a private one. */
const char	*sv_client_socket(void);
/* Send a JSON-RPC result / error / notification (text is one object). */
void		 sv_client_result(struct sv_client *, const struct json *id,
		    const char *result_json, size_t len);
void		 sv_client_error(struct sv_client *, const struct json *id,
		    int code, const char *message);
/* An error with a "data" member (a copy of data). */
void		 sv_client_error_data(struct sv_client *, const struct json *id,
		    int code, const char *message, const struct json *data);
void		 sv_client_notify(struct sv_client *, const char *method,
		    const char *params_json, size_t len);
/* The client's environment as sent with exec, for sv_env_build(). */
uid_t		 sv_client_uid(const struct sv_client *);
unsigned	 sv_client_id(const struct sv_client *);
void		 sv_client_ref(struct sv_client *);
void		 sv_client_unref(struct sv_client *);
int		 sv_client_alive(const struct sv_client *);
/* Over its output bound: stop reading command output for it until
 * sv_sessions_client_drained(). */
int		 sv_client_congested(const struct sv_client *);
int		 sv_client_take_fds(struct sv_client *, int *fds, int n);
void		 sv_clients_close_all(void);

/* JSON-RPC error codes. */
#define RPC_PARSE_ERROR		(-32700)
#define RPC_INVALID_REQUEST	(-32600)
#define RPC_METHOD_NOT_FOUND	(-32601)
#define RPC_INVALID_PARAMS	(-32602)
#define RPC_INTERNAL_ERROR	(-32603)
#define RPC_SANDBOX_ERROR	(-32000)	/* the sandbox could not be built */
#define RPC_NO_SESSION		(-32001)
#define RPC_POLICY_DENIED	(-32020)	/* refused by policy or by
						   an approver */
#define RPC_FS_REFUSED		(-32030)	/* a file tool refused; data
						   names the rule */

/* ---- globals of airlockd (airlockd.c) ---- */

extern int		 sv_sandbox_on;		/* --sandbox on|off */
extern struct sv_probe	 sv_host;
extern struct settings	 sv_settings;
extern char		*sv_settings_file;
extern struct event_base *sv_base;

void		 sv_quit(void);

#endif
