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

#endif
