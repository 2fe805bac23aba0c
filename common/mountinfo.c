// SPDX-License-Identifier: ISC
/*
 * Parsing of /proc/self/mountinfo lines (see mountinfo.h).  Libc only.
 */
#include <string.h>

#include "common/mountinfo.h"

static void
unescape(char *s)
{
	char	*d = s;

	while (*s != '\0') {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
			    (s[3] - '0'));
			s += 4;
		} else
			*d++ = *s++;
	}
	*d = '\0';
}

char *
mountinfo_point(char *line)
{
	char	*f, *save = NULL;
	int	 i;

	f = strtok_r(line, " \n", &save);
	for (i = 0; i < 4 && f != NULL; i++)
		f = strtok_r(NULL, " \n", &save);
	if (f == NULL)
		return NULL;
	unescape(f);
	return f;
}
