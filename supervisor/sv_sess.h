/* SPDX-License-Identifier: ISC */
/*
 * The session table's internal interfaces, shared by its files: the
 * state machine (sv_session.c), launch and the launcher link
 * (sv_launch.c), the exec methods (sv_exec.c), events (sv_event.c),
 * output streams (sv_stream.c), the memory watchdog (sv_watchdog.c),
 * daemon registration (sv_register.c), the none backend (sv_hostexec.c),
 * suspend and resume (sv_freeze.c), approvals (sv_approval.c), the audit
 * log (sv_audit.c) and the JSON parameters (sv_params.c).  Nothing
 * outside them includes this; the rest of airlockd sees sv.h.
 */
#ifndef AIRLOCK_SV_SESS_H
#define AIRLOCK_SV_SESS_H

#include <event2/event.h>

#include "supervisor/sv.h"

#define SV_READ_CHUNK		65536
#define SV_SPLICE_CHUNK		(1U << 20)
#define SV_PIPE_SIZE		(1 << 20)
#define SV_EXIT_GRACE_MS	300	/* output after exit, from orphans */
#define SV_WATCHDOG_MS		100
#define SV_KILL_WAIT_MS		5000	/* for a killed sandbox to end */
#define SV_DEFAULT_OUTPUT	(256ULL << 20)
#define SV_MAX_VIOL		64	/* distinct stream violations */
#define SV_INPUT_MAX		(1U << 20)	/* sandbox.input waiting */
#define SV_MAX_PRECISE		4096	/* precise violations per session */

struct sv_exec;
struct sv_xreq;

/*
 * One output stream of an exec.  Events mode: each read becomes a
 * stdout/stderr event (base64, or text when the client asked for it).
 * Pipe mode (`airlock run`): the bytes go on into the client's own pipe,
 * dst, spliced when the kernel can.  Either way a full client stops the
 * reading (ev deleted) so the command's writes block, and nothing read is
 * dropped: flow control from the client back to the command.
 */
struct sv_stream {
	struct sv_exec	*x;
	int		 fd;
	int		 is_err;
	struct event	*ev;
	uint64_t	 bytes;
	char		 line[512];	/* partial line, for R-L10 */
	size_t		 linelen;
	int		 paused;	/* events mode: client congested */
	int		 dst;		/* pipe mode: the client's pipe */
	struct event	*wev;		/* dst writable again */
	char		*pend;		/* read, not yet written to dst */
	size_t		 pendoff, pendlen;
	int		 nosplice;
	int		 is_in;		/* the client's stdin to a pty */
};

struct sv_exec {
	struct sv_exec	*next;
	struct sv_session *s;
	uint32_t	 id;
	pid_t		 pid;		/* sandbox view (native) or host */
	struct json	*reply_id;	/* sandbox.exec awaiting its answer */
	struct sv_stream out, err;
	struct sv_stream in;		/* pipe mode with a pty only */
	int		 stdin_fd;	/* pipe mode: to pass on, or -1 */
	int		 pty;
	int		 exited;
	int		 status;
	int		 done;		/* exit event sent */
	int		 text;		/* events carry "data", not "base64" */
	struct event	*timeout;
	uint64_t	 deadline_ms;	/* of timeout, CLOCK_MONOTONIC */
	uint64_t	 left_ms;	/* of timeout, while suspended */
	int		 tpaused;	/* timeout paused by a suspend */
	int		 own_timeout;	/* timeoutSec of this exec: kills it
					   alone, not the session */
	int		 unsandboxed;	/* dangerouslyDisableSandbox */
	unsigned	 viol_start;	/* session's violations at start */
	int		 events_in;	/* sandbox.input feeds it */
	int		 input_fd;	/* its stdin pipe or a master copy */
	struct evbuffer	*inbuf;		/* input not yet written */
	struct event	*inev;		/* input_fd writable */
	int		 in_eof;	/* close stdin once inbuf is out */
	struct event	*grace;
	uint64_t	 grace_mark;	/* bytes moved when grace was armed */
	sv_helper_done	 helper_done;	/* airlockd's own exec (sv_fs.c):
					   no events, this instead */
	void		*helper_arg;
};

struct sv_session {
	struct sv_session *next;
	char		*id;
	enum sv_backend	 backend;
	const char	*unconfined;	/* why backend none, for the client */
	enum sv_state	 state;
	char		*error;
	struct sv_client *owner;
	struct json	*launch_reply;	/* sandbox.launch awaiting READY */
	struct sv_spec	 spec;
	struct sv_plan	 plan;
	pid_t		 launcher_pid;
	pid_t		 init_pid;	/* host view */
	int		 init_pidfd;	/* init, for session_kill */
	int		 ending;	/* killed: its launcher's end awaited */
	int		 reap_fd;	/* the launcher's pidfd, while ending */
	struct event	*ev_reap;	/* reap_fd readable, or too long */
	char		*end_why;	/* session_kill's reason, for the end */
	int		 free_pending;	/* destroyed while ending */
	struct json	*destroy_reply;	/* sandbox.destroy awaiting the end */
	ino_t		 pidns;		/* inode of init's pid namespace */
	struct msg_link	 link;
	struct event	*ev_link;
	int		 listen_fd[LISTEN_MAX];
	int		 listen_port[LISTEN_MAX];
	enum sv_dstate	 dstate[SV_DAEMON_MAX];	/* with proxyd, gatewayd */
	struct event	*ev_listen[LISTEN_MAX];	/* idle: first connection */
	unsigned	 ll_abi;
	unsigned	 ll_gaps;
	uint64_t	 seq;
	uint32_t	 next_exec;
	struct sv_exec	*execs;
	struct event	*watchdog;
	uint64_t	 peak_rss;
	unsigned	 viol_hash[SV_MAX_VIOL];
	unsigned	 nviol;
	unsigned	 nprecise;
	char		**caller_env;
	char		**pass_env;	/* NAME=VALUE passed on purpose */
	struct settings	*own_settings;	/* the client's, on a shared airlockd */
	char		*home;		/* the caller's $HOME */
	char		 created_at[40];	/* RFC 3339 */
	int		 detached;	/* outlives its connection */
	uid_t		 uid;		/* of the connection that launched it */
	int		 lazy;		/* built by its first command (R-R1) */
	int		 building;	/* the launcher is on it */
	int		 build_failed;	/* a lazy build failed: again */
	struct sv_xreq	*waiting;	/* commands waiting for the build */
	char		*settings_path;	/* the caller's settingsFile, real */
	unsigned	 nviolations;	/* violation events sent */
	/* credentials.mask (sv_mask.c) */
	int		 mask_sent;	/* proxyd holds values of ours */
	int		 mask_wait;	/* the build waits for MSG_PX_CA */
	char		*mask_ca;	/* the session CA, PEM */
	char		*mask_upstream;	/* what proxyd verifies with */
	char		**mask_env;	/* name, placeholder, name, ... */
	char		*login_copy;	/* claudeLogin: the file inside */
	int		 mask_read;	/* the spec's own entries read */
	/* the host-header endpoint (sv_mask.c): its listener, whose file
	 * is bound into the sandbox; -1 and NULL when there is none */
	int		 hostep_fd;
	struct event	*ev_hostep;	/* idle: first connection */
	char		*hostep_dir;	/* private, holds http.sock */
	struct commits_snap *commits;	/* git refs and indexes at launch,
					   judged when the sandbox ends */
	struct commits_job *judge;	/* the judge, running in a child */
	struct event	*ev_judge;	/* its pipe readable */
};

/* The session table and what it was started with (sv_session.c). */
extern struct sv_session *sessions;
extern struct event_base *sbase;
extern const struct settings *ssettings;
extern const struct sv_probe *sprobe;
extern int		 ssandbox_on;
extern int		 bpf_known;	/* a launcher has loaded it */

/* sv_session.c */
const char	*sv_state_name(enum sv_state);
void		 handle_json(struct jgen *, struct sv_session *);
/* A lazy session whose build failed: as new, to be built again. */
void		 session_rebuildable(struct sv_session *);
void		 reply_handle(struct sv_session *, struct json *id);
void		 set_state(struct sv_session *, enum sv_state);
void		 update_active(struct sv_session *);
void		 session_kill(struct sv_session *, const char *why);
struct sv_session *session_param(struct sv_client *, const struct json *id,
		    const struct json *params);

/* sv_launch.c */
void		 launch_failed(struct sv_session *, const char *why);
int		 session_build(struct sv_session *, char *err, size_t errlen);
/* sv_mask.c: credentials.mask at a launch */
int		 sv_mask_begin(struct sv_session *, const struct settings *,
		    char *err, size_t errlen);
char		*sv_mask_bundle(const struct sv_session *,
		    const struct settings *);
void		 sv_mask_free(struct sv_session *);

/* sv_session.c: what the agent committed, once its sandbox ended */
int		 session_commits_judge(struct sv_session *);

/* The plan alone, into s->plan (session_build and sandbox.profile). */
int		 session_plan(struct sv_session *, char *err, size_t errlen);
/* sandbox.launch's checks, shared with sandbox.profile (sv_profile.c);
 * both -1 (or 1) after the client has its error. */
int		 spec_entries_bad(struct sv_client *, const struct json *id,
		    const struct sv_spec *);
int		 launch_backend(struct sv_client *, const struct json *id,
		    const struct sv_spec *, const struct settings *,
		    enum sv_backend *, const char **unconfined);

/* sv_event.c */
void		 now_rfc3339(char *, size_t);
struct jgen	*event_begin(struct sv_session *, const char *type);
void		 event_end(struct sv_session *, struct jgen *);
void		 event_simple(struct sv_session *, const char *type);
void		 event_killed(struct sv_session *, struct sv_exec *,
		    const char *reason);
void		 event_violation_key(struct sv_session *, const char *action,
		    const char *target, const char *key, const char *raw);
void		 event_violation(struct sv_session *, const char *action,
		    const char *target, const char *raw);

/* sv_exec.c: the commands that waited for a lazy build; err: it failed */
void		 exec_waiters_run(struct sv_session *, const char *err);

/* sv_stream.c */
void		 exec_streams(struct sv_exec *, int out, int err);
void		 stream_close(struct sv_stream *);
void		 exec_free(struct sv_exec *);
void		 exec_emit_exit(struct sv_exec *);
void		 exec_exited(struct sv_exec *, int status);
struct sv_exec	*exec_find(struct sv_session *, uint32_t id);
void		 exec_timeout_cb(evutil_socket_t, short, void *);
void		 exec_kill(struct sv_exec *);
void		 exec_input_flush(struct sv_exec *);
void		 input_close(struct sv_exec *);
/* Arm an exec's timeout ms from now; pause and resume it (suspend). */
void		 exec_timeout_arm(struct sv_exec *, uint64_t ms);
void		 exec_timeout_pause(struct sv_exec *);
void		 exec_timeout_resume(struct sv_exec *);

/* sv_freeze.c */
/* SIGSTOP or SIGCONT every process of the session but its init. */
int		 sv_freeze(struct sv_session *, int sig);

/* sv_watchdog.c */
void		 watchdog_cb(evutil_socket_t, short, void *);

/* sv_register.c */
void		 register_daemons(struct sv_session *);
void		 unregister_daemons(struct sv_session *);
void		 proxy_env(struct sv_session *);

/* sv_hostexec.c */
int		 host_exec(struct sv_exec *, char *const argv[],
		    const char *cwd, char *const envp[], char *errbuf,
		    size_t errlen, int *errnop);

/* sv_params.c */
const struct json *param(const struct json *params, const char *key);
char		**json_strv(const struct json *);
struct json	*dup_id(const struct json *id);
const char	*caller_home(uid_t);
char		**own_paths(void);
void		 origin_normalise(char **);
int		 session_settings(struct sv_client *, const struct json *id,
		    const struct json *params, struct settings **own,
		    char **home);
int		 deny_entry_bad(struct sv_client *, const struct json *id,
		    const char *key, size_t i, const char *path);
char		**env_set(char **, const char *kv);
char		**pass_env(struct sv_client *, const struct json *id,
		    const struct json *params, const struct settings *);

#endif
