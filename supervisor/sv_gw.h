/* SPDX-License-Identifier: ISC */
/*
 * airlockd's side of the push gateway: answers gatewayd's questions
 * (is this repository allowed, what does the push rule say for this ref,
 * the write token for this one push) from settings and credentials.
 */
#ifndef AIRLOCK_SV_GW_H
#define AIRLOCK_SV_GW_H

#include "common/msg.h"

void	sv_gw_dispatch(struct msg_link *, struct msg *);
/* Forget the conversations in flight (after the sessions were failed). */
void	sv_gw_daemon_died(void);
/* 1 if the session has a gateway conversation open (a push in flight). */
int	sv_gw_in_flight(const char *session_id);

#endif
