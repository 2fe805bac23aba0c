/* SPDX-License-Identifier: ISC */
/*
 * Ref-name syntax (see refname.h).  Untrusted: the names come from the
 * sandbox, in the ref-update commands of a push.
 */
#include <string.h>

#include "common/refname.h"

int
refname_valid(const char *ref)
{
	const char	*p, *comp;
	size_t		 len, clen;
	unsigned char	 c;

	if (ref == NULL)
		return 0;
	len = strnlen(ref, REFNAME_MAX + 1);
	if (len == 0 || len > REFNAME_MAX)
		return 0;
	if (strcmp(ref, "@") == 0 || strchr(ref, '/') == NULL)
		return 0;
	if (ref[0] == '/' || ref[len - 1] == '/' || ref[len - 1] == '.')
		return 0;
	if (strstr(ref, "..") != NULL || strstr(ref, "@{") != NULL ||
	    strstr(ref, "//") != NULL)
		return 0;
	/* Bytes from 0x80 up are allowed, as git allows them (UTF-8). */
	for (p = ref; *p != '\0'; p++) {
		c = (unsigned char)*p;
		if (c < 0x20 || c == 0x7f || c == ' ' || c == '~' ||
		    c == '^' || c == ':' || c == '?' || c == '*' ||
		    c == '[' || c == '\\')
			return 0;
	}
	for (comp = ref; *comp != '\0'; comp += clen + (comp[clen] == '/')) {
		clen = strcspn(comp, "/");
		if (clen == 0 || comp[0] == '.')
			return 0;
		if (clen >= 5 && memcmp(comp + clen - 5, ".lock", 5) == 0)
			return 0;
	}
	return 1;
}
