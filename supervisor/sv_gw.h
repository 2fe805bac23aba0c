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
void	sv_gw_daemon_died(void);

#endif
