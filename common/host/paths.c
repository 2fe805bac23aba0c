// SPDX-License-Identifier: ISC
/*
 * Paths shared by airlockd and the airlock client (R-P5).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/host/paths.h"
#include "common/xmalloc.h"

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
			/*
			 * bindir/../libexec/airlock: an install moved
			 * whole (a DESTDIR staging, a package unpacked
			 * elsewhere) finds its own helpers, not those of
			 * the prefix it was built for.
			 */
			if (fallback_dir != NULL) {
				xasprintf(&path, "%s/../libexec/airlock/%s",
				    self, name);
				if (access(path, X_OK) == 0)
					return path;
				free(path);
			}
		}
	}
	if (fallback_dir == NULL)
		return xstrdup(name);
	xasprintf(&path, "%s/%s", fallback_dir, name);
	return path;
}

/* Drop ".", "..", repeated and trailing slashes of an absolute path. */
void
airlock_path_clean(char *p)
{
	char	*r = p, *w = p, *seg;
	size_t	 n;

	while (*r != '\0') {
		while (*r == '/')
			r++;
		if (*r == '\0')
			break;
		seg = r;
		while (*r != '\0' && *r != '/')
			r++;
		n = (size_t)(r - seg);
		if (n == 1 && seg[0] == '.')
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (w > p && *--w != '/')
				;
			continue;
		}
		*w++ = '/';
		memmove(w, seg, n);
		w += n;
	}
	if (w == p)
		*w++ = '/';
	*w = '\0';
}

void
airlock_debug_env(void)
{
	const char	*e = getenv("AIRLOCK_DEBUG");

	if (e != NULL && (e[0] == '\0' || strcmp(e, "0") == 0))
		(void)unsetenv("AIRLOCK_DEBUG");
}
