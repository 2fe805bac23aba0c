/* SPDX-License-Identifier: ISC */
/*
 * gatewayd restricts itself (R-P2) once its CA store, resolver
 * configuration, time zone and channel are set up, before it reads a byte
 * from the sandbox or the network.  Why each permission:
 *   - no path at all: the CA bundles were read at start-up (gw_tls_init),
 *     so no file is opened afterwards;
 *   - STDIO, EVENT: the libevent loop;
 *   - INET: accepted git connections (the listeners come from airlockd),
 *     TCP/TLS to the code host, UDP to the resolver;
 *   - UNIX: fds (a run's listener) arrive on the channel to airlockd.
 * No capabilities, no_new_privs, not dumpable (it holds a write token for
 * the length of one push).
 */
#include "common/sandbox_self.h"
#include "common/xmalloc.h"
#include "gatewayd/gw.h"

char *
gw_restrict_self(void)
{
	static const struct sbx_profile profile = {
		.name = "gatewayd",
		.paths = NULL,
		.npaths = 0,
		.groups = SBX_SYS_STDIO | SBX_SYS_EVENT | SBX_SYS_INET |
		    SBX_SYS_UNIX,
	};

	sandbox_self(&profile);
	return xstrdup(sandbox_self_summary());
}
