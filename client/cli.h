/* SPDX-License-Identifier: ISC */
/*
 * The airlock client: subcommands and the JSON-RPC connection to
 * airlockd (an existing one on its socket, or a private one started for
 * this invocation, R-P6).
 */
#ifndef AIRLOCK_CLI_H
#define AIRLOCK_CLI_H

#include <sys/types.h>

#include <stddef.h>

#include "common/json.h"

struct rpc {
	int	 fd;
	pid_t	 private_pid;	/* a private airlockd, or -1 */
	char	*rbuf;
	size_t	 rlen;
	size_t	 rcap;
	long	 next_id;
};

typedef void (*rpc_notify_fn)(const struct json *params, void *arg);

/*
 * Connect to airlockd on sock (NULL: the default path); when nothing
 * listens there and allow_private is set, start a private airlockd with
 * extra_args on a socketpair instead.  -1 with a message in err.
 */
int	 rpc_open(struct rpc *, const char *sock, int allow_private,
	    char *const *extra_args, char *err, size_t errlen);
char	**rpc_private_args(const char *sandbox, const char *settings);
/* A result on standard output as one line of JSON. */
void	 cli_print_json(const struct json *);
void	 cli_put_json(const char *, size_t);
int	 rpc_open_private(struct rpc *, char *const *extra_args, char *err,
	    size_t errlen);
/*
 * Call method with params (a JSON object text, or NULL).  Notifications
 * that arrive meanwhile go to fn.  Returns the result (json_free() it),
 * or NULL with *code and err set (code 0: the connection failed).
 */
struct json *rpc_call(struct rpc *, const char *method, const char *params,
	    rpc_notify_fn fn, void *arg, int *code, char *err, size_t errlen);
/* The same, passing fds with the request (SCM_RIGHTS). */
struct json *rpc_call_fds(struct rpc *, const char *method,
	    const char *params, const int *fds, int nfds, rpc_notify_fn fn,
	    void *arg, int *code, char *err, size_t errlen);
/* A request whose answer nobody waits for (rpc_pump drops it). */
void	 rpc_send(struct rpc *, const char *method, const char *params);
/* Read what the connection has (it polled readable); -1 at its end. */
int	 rpc_pump(struct rpc *, int do_read, rpc_notify_fn fn, void *arg);
/* Wait for notifications until fn sets *stop or the connection ends. */
int	 rpc_wait(struct rpc *, rpc_notify_fn fn, void *arg, int *stop);
void	 rpc_close(struct rpc *);

/* What an adapter adds to `airlock run` (see cli_run_adapter()). */
struct run_adapter {
	char *const	*runner_state;	/* runnerStateDirs, absolute */
	char *const	*runner_private; /* runnerPrivateDirs, absolute */
	int		 no_push_gateway; /* the terminal profile */
	int		 require_sandbox; /* fail rather than run unconfined */
	int		 acp;		/* stdout is ACP: check it (cli_run.c) */
	int		 acp_pass_fs;	/* fs/ requests may reach the editor */
	int		 acp_pass_term;	/* terminal/ requests may too */
	const char	*login_file;	/* claudeLogin: the Claude login */
	const char	*login_host;	/* and where its token goes */
	char *const	*mask_passed;	/* maskPassed: name, host, header */
};

/*
 * Defaults of airlock run that a real agent run does not hit (LIMITS in
 * the man page): a day of wall time, 4096 processes, 16 GiB of output
 * per stream, and three quarters of the machine's memory.
 */
#define RUN_DEFAULT_TIMEOUT	(24 * 3600)
#define RUN_DEFAULT_PIDS	4096
/* The output passes through, nothing is held: a cap for runaways only. */
#define RUN_DEFAULT_OUTPUT	(16ULL << 30)

int	 cli_run_main(int argc, char **argv);
int	 cli_settings_main(int argc, char **argv);
int	 cli_run_adapter(int argc, char **argv, const struct run_adapter *);
/* `airlock profile`: a run's plan for review (cli_profile.c). */
int	 cli_run_profile(int argc, char **argv, const char *os);
int	 cli_profile_main(int argc, char **argv);
int	 cli_claude_main(int argc, char **argv);
int	 cli_acp_main(int argc, char **argv);
int	 cli_acp_relay_main(int argc, char **argv);
/* Without --workspace: the caller's repository top, else its cwd. */
void	 default_workspace(const char *cwd, char *ws, size_t len);
int	 cli_matrix_main(int argc, char **argv);
int	 cli_shell_main(int argc, char **argv);
int	 cli_status_main(int argc, char **argv);
/* cli_doctor.c */
int	 cli_doctor_main(int argc, char **argv);
int	 cli_setup_main(int argc, char **argv);
int	 cli_approve_main(int argc, char **argv);
int	 cli_audit_main(int argc, char **argv);
int	 cli_worktree_main(int argc, char **argv);
int	 cli_fs_main(int argc, char **argv);

#endif
