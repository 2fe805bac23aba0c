// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for fs/glob.c: fs.find's and fs.search's globs and
 * every .gitignore line are the agent's, and so are the paths.  The
 * input is split at the first NUL: the pattern, then the path.  Matching
 * must end (the fuzzer's timeout catches exponential backtracking), a
 * path without glob characters matches itself, "**" matches every
 * path, and "{p,p}" matches what p does.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fs.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t	*nul = memchr(data, '\0', size);
	size_t		 plen = nul ? (size_t)(nul - data) : size;
	char		*pat, *path, *alt;
	int		 m;

	if (size > 4096)
		return 0;
	pat = strndup((const char *)data, plen);
	path = nul ? strndup((const char *)nul + 1, size - plen - 1) :
	    strdup("a/b.c");
	if (pat == NULL || path == NULL)
		abort();
	m = fs_glob_match(pat, path);
	if (strpbrk(path, "*?[]{}\\,") == NULL && !fs_glob_match(path, path))
		__builtin_trap();
	if (!fs_glob_match("**", path))
		__builtin_trap();
	if (strpbrk(pat, "{},\\") == NULL && strlen(pat) < 1000) {
		size_t n = strlen(pat);

		alt = malloc(2 * n + 4);
		if (alt == NULL)
			abort();
		alt[0] = '{';
		memcpy(alt + 1, pat, n);
		alt[1 + n] = ',';
		memcpy(alt + 2 + n, pat, n);
		memcpy(alt + 2 + 2 * n, "}", 2);
		if (fs_glob_match(alt, path) != m)
			__builtin_trap();
		free(alt);
	}
	free(pat);
	free(path);
	return 0;
}
