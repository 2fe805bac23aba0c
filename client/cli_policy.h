/* SPDX-License-Identifier: ISC */
/*
 * `airlock policy check` and `airlock hook claude-pretooluse`: the command
 * policy without a running airlockd.  argv[0] is "policy" or "hook".
 * Both return the process exit status.
 */
#ifndef AIRLOCK_CLI_POLICY_H
#define AIRLOCK_CLI_POLICY_H

int	cli_policy_main(int argc, char **argv);
int	cli_hook_main(int argc, char **argv);
/*
 * `airlock run`'s own command line, judged before anything starts (see
 * cli_guard.c): 0 to go on, else the exit status (126: refused by the
 * policy, with the rule on stderr).  skip: --no-policy-check.
 */
int	cli_run_guard(const char *mode, const char *settings_file,
	    char *const *argv, int skip);
/* The same; an ask without a terminal goes to the approvers of the
 * airlockd on sock (NULL: AIRLOCK_SOCKET, else the default socket), told
 * where the command runs (unsandboxed: on the host, --sandbox off). */
int	cli_run_guard_sock(const char *mode, const char *settings_file,
	    char *const *argv, int skip, const char *sock, int unsandboxed);
/* `airlock proxy-connect`: ssh's ProxyCommand in a sandbox (SOCKS5). */
int	cli_proxyconnect_main(int argc, char **argv);

#endif
