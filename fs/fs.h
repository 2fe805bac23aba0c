/* SPDX-License-Identifier: ISC */
/*
 * airlock-fs: the file tools (SPEC R-C6) as one small program that
 * airlockd execs inside a session's sandbox (namespaces, Landlock,
 * seccomp), so that a tool call can do no more than a shell command of
 * that session.  It reads one JSON request on stdin and writes one JSON
 * answer on stdout (supervisor/sv_fs.c builds the one and reads the
 * other).  The pure parts (globs, patches) are here for the fuzzers.
 */
#ifndef AIRLOCK_FS_H
#define AIRLOCK_FS_H

#include <stddef.h>

/* ---- globs (glob.c) ---- */

/*
 * untrusted: both.  1 if path (relative, '/'-separated) matches pat:
 * '*' and '?' stop at '/', [...] classes ('!' or '^' negates), '\'
 * escapes, "**" as a whole component spans any number of components,
 * {a,b} alternatives (at most FS_GLOB_MAX_ALT expansions, then no
 * match).  Polynomial time whatever the input.
 */
#define FS_GLOB_MAX_ALT	256
int	fs_glob_match(const char *pat, const char *path);

/* ---- patches (patch.c) ---- */

enum fs_patch_op {
	FS_PATCH_UPDATE = 0,
	FS_PATCH_ADD,
	FS_PATCH_DELETE,
};

struct fs_pline {
	char		 kind;		/* ' ', '-', '+' */
	const char	*text;		/* without its newline */
	size_t		 len;
};

struct fs_hunk {
	long		 old_start;	/* 1-based; 0: unknown (envelope) */
	long		 old_len;
	long		 new_start;
	long		 new_len;
	const char	*anchor;	/* envelope "@@ text", or NULL */
	size_t		 anchor_len;
	int		 at_eof;	/* "*** End of File" */
	int		 old_nonl;	/* "\ No newline" after old's last */
	int		 new_nonl;	/* ... after new's last */
	struct fs_pline	*lines;
	size_t		 nlines;
};

struct fs_pfile {
	char		*old_path;	/* NULL for an added file */
	char		*new_path;	/* NULL for a deleted file */
	enum fs_patch_op op;
	struct fs_hunk	*hunks;
	size_t		 nhunks;
};

struct fs_patch {
	char		*text;		/* the patch; lines point into it */
	struct fs_pfile	*files;
	size_t		 nfiles;
};

/*
 * untrusted: buf.  A unified diff (as `git apply` takes it: "diff
 * --git", ---/+++, @@ hunks, new/deleted file, rename from/to) or the
 * "*** Begin Patch" envelope.  0, or -1 with the reason in err.
 */
int	fs_patch_parse(const char *buf, size_t len, struct fs_patch *,
	    char *err, size_t errlen);
void	fs_patch_free(struct fs_patch *);
/*
 * The new text of one file: its hunks against old (NULL for an added
 * file).  0 and *out (free()), or -1 with the failing hunk in err.
 */
int	fs_patch_apply(const struct fs_pfile *, const char *old,
	    size_t oldlen, char **out, size_t *outlen, char *err,
	    size_t errlen);

#endif
