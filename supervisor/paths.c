// SPDX-License-Identifier: ISC
/*
 * Paths shared by airlockd and the airlock client (R-P5).
 */
#include <stdlib.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "supervisor/paths.h"

char *
airlock_default_socket(void)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	char	*p;

	if (rt != NULL && rt[0] == '/')
		xasprintf(&p, "%s/airlock/airlockd.sock", rt);
	else
		xasprintf(&p, "/tmp/airlock-%u/airlockd.sock",
		    (unsigned)getuid());
	return p;
}
