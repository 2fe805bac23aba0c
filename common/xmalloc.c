// SPDX-License-Identifier: ISC
/*
 * Allocation helpers.  Libc only: the launcher links this file; the
 * string helpers only the host side uses are in xstr.c.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"

void *
xmalloc(size_t n)
{
	return xreallocarray(NULL, 1, n);
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void	*p = xreallocarray(NULL, nmemb, size);

	/* nmemb * size cannot overflow: reallocarray checked it. */
	return memset(p, 0, nmemb * size);
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void	*p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if ((p = reallocarray(ptr, nmemb, size)) == NULL)
		fatal("reallocarray %zu x %zu", nmemb, size);
	return p;
}

char *
xstrdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		fatal("strdup");
	return p;
}

void
strv_free(char **v)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}
