/* SPDX-License-Identifier: ISC */
/*
 * git ref names as `git check-ref-format` accepts them, and only under
 * refs/.  untrusted: the name comes from the sandbox's push.  A name git
 * itself would refuse is refused before airlockd's push rule sees it, so
 * that a rule like refs/heads/main cannot be walked around with
 * refs/heads//main or refs/heads/main/. spellings.  To be replaced by
 * policy/push.h's pol_ref_valid() once that lands.
 */
#include <string.h>

#include "gatewayd/gw.h"

int
gw_ref_valid(const char *ref)
{
	const char	*seg, *p;
	size_t		 len = strlen(ref), slen;

	if (strncmp(ref, "refs/", 5) != 0 || len > 1024)
		return 0;
	if (ref[len - 1] == '/' || ref[len - 1] == '.')
		return 0;
	if (strstr(ref, "..") != NULL || strstr(ref, "@{") != NULL ||
	    strstr(ref, "//") != NULL)
		return 0;
	for (p = ref; *p != '\0'; p++) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c == 0x7f || strchr(" ~^:?*[\\", c) != NULL)
			return 0;
	}
	for (seg = ref; seg != NULL; seg = p ? p + 1 : NULL) {
		p = strchr(seg, '/');
		slen = p != NULL ? (size_t)(p - seg) : strlen(seg);
		if (slen == 0 || seg[0] == '.')
			return 0;
		if (slen >= 5 && memcmp(seg + slen - 5, ".lock", 5) == 0)
			return 0;
	}
	/* refs/<something>/<name>: "refs/x" alone names no branch or tag. */
	return strchr(ref + 5, '/') != NULL;
}
