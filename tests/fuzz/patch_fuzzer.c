// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for fs/patch.c: the agent writes every byte of the
 * patch fs.applyPatch takes, in either format (a unified diff or the
 * "*** Begin Patch" envelope), and the files it applies to are the
 * agent's too.  The input is split at the first NUL: the patch, then
 * the old text every file of it is applied to.  A parsed patch names
 * its files consistently; an applied hunk never reads outside the old
 * text; an added file's text is exactly its '+' lines.
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
	size_t		 plen = nul ? (size_t)(nul - data) : size, i, j, n;
	const char	*old = nul ? (const char *)nul + 1 : NULL;
	size_t		 oldlen = nul ? size - plen - 1 : 0;
	struct fs_patch	 p;
	char		 err[256], *out;
	size_t		 outlen;

	if (fs_patch_parse((const char *)data, plen, &p, err,
	    sizeof(err)) == -1) {
		if (p.nfiles != 0 || p.files != NULL)
			__builtin_trap();
		return 0;
	}
	if (p.nfiles == 0)
		__builtin_trap();
	for (i = 0; i < p.nfiles; i++) {
		const struct fs_pfile *f = &p.files[i];

		if ((f->op == FS_PATCH_ADD) != (f->old_path == NULL) ||
		    (f->op == FS_PATCH_DELETE) != (f->new_path == NULL))
			__builtin_trap();
		if (fs_patch_apply(f, f->op == FS_PATCH_ADD ? NULL : old,
		    f->op == FS_PATCH_ADD ? 0 : oldlen, &out, &outlen, err,
		    sizeof(err)) == 0) {
			if (out == NULL || strlen(out) > outlen)
				__builtin_trap();
			/* An envelope's added file: its '+' lines, each
			 * with its newline. */
			if (f->op == FS_PATCH_ADD && f->nhunks == 1 &&
			    f->hunks[0].old_start == 0 &&
			    f->hunks[0].new_start == 0) {
				for (j = 0, n = 0; j < f->hunks[0].nlines; j++)
					n += f->hunks[0].lines[j].len + 1;
				if (n != outlen)
					__builtin_trap();
			}
			free(out);
		} else if (out != NULL)
			__builtin_trap();
	}
	fs_patch_free(&p);
	return 0;
}
