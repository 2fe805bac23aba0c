// SPDX-License-Identifier: ISC
/*
 * The string and vector helpers of xmalloc.h that the launcher does not
 * use (so it does not link them).  Libc only.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"

char *
xstrndup(const char *s, size_t n)
{
	char	*p;

	if ((p = strndup(s, n)) == NULL)
		fatal("strndup");
	return p;
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vasprintf(ret, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("vasprintf");
	return n;
}

void
freezero_str(char *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

size_t
strv_len(char *const *v)
{
	size_t	n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

/* 1 if s is one of v's strings. */
int
strv_in(char *const *v, const char *s)
{
	for (; v != NULL && *v != NULL; v++)
		if (strcmp(*v, s) == 0)
			return 1;
	return 0;
}

char **
strv_add(char **v, const char *s)
{
	size_t	n = strv_len(v);

	v = xreallocarray(v, n + 2, sizeof(*v));
	v[n] = xstrdup(s);
	v[n + 1] = NULL;
	return v;
}

int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
