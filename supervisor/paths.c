// SPDX-License-Identifier: ISC
/*
 * Paths shared by airlockd and the airlock client (R-P5).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
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

char *
airlock_sibling(const char *name, const char *fallback_dir)
{
	char	self[PATH_MAX], *slash, *path;
	ssize_t	n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			xasprintf(&path, "%s/%s", self, name);
			if (access(path, X_OK) == 0)
				return path;
			free(path);
		}
	}
	if (fallback_dir == NULL)
		return xstrdup(name);
	xasprintf(&path, "%s/%s", fallback_dir, name);
	return path;
}
