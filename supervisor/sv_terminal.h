/* SPDX-License-Identifier: ISC */
/*
 * Terminals for the user (SPEC R-A4), served by airlockd: the JSON-RPC
 * methods terminal.open, terminal.input, terminal.resize, terminal.close
 * and the terminal.output / terminal.exit notifications (sv_terminal.c).
 */
#ifndef AIRLOCK_SV_TERMINAL_H
#define AIRLOCK_SV_TERMINAL_H

#include <sys/types.h>

#include <stddef.h>

#include "common/json.h"

struct sv_client;

void	sv_terminal_open(struct sv_client *, const struct json *id,
	    const struct json *params);
void	sv_terminal_input(struct sv_client *, const struct json *id,
	    const struct json *params);
void	sv_terminal_resize(struct sv_client *, const struct json *id,
	    const struct json *params);
void	sv_terminal_close(struct sv_client *, const struct json *id,
	    const struct json *params);
/* The SIGCHLD reaper found pid; 1 if it was a terminal's shell. */
int	sv_terminal_reaped(pid_t, int status);
/* Its client went away: hang its terminals up. */
void	sv_terminals_client_gone(struct sv_client *);
/* Its client read its backlog: read the terminals' output again. */
void	sv_terminals_client_drained(struct sv_client *);
void	sv_terminals_shutdown(void);

#endif
