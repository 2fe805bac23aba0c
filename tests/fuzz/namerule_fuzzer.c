// SPDX-License-Identifier: ISC
/*
 * libFuzzer target for common/namerule.c: the sandbox chooses every path
 * init checks and every byte of a .git/config it renames into place.
 * The input is split at the first NUL: the part before is a path checked
 * against a small rule set (and folded as one component), the part after
 * is a git config text, checked against itself (it must pass unless it
 * does not parse) and against the path bytes as the old file.  Folding
 * must never grow a name.  The path also goes through the git state
 * allowlist and the lexical join of a symlink's target.  The config text
 * also meets the config allowlist with three judges of path values.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/namerule.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct namerule_set *set;

/* Judges of a path-valued key (core.worktree): none, all, under /w. */
static int
judge_none(const char *v, int wt, void *a)
{
	(void)v;
	(void)wt;
	(void)a;
	return 0;
}

static int
judge_all(const char *v, int wt, void *a)
{
	(void)v;
	(void)wt;
	(void)a;
	return 1;
}

static int
judge_lex(const char *v, int wt, void *a)
{
	char	p[256];

	(void)wt;
	(void)a;
	return namerule_lexical("/w/.git", v, p, sizeof(p)) == 0 &&
	    strncmp(p, "/w/", 3) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t	*nul = memchr(data, '\0', size);
	size_t		 plen = nul ? (size_t)(nul - data) : size;
	char		*path, *out, why[64];

	if (set == NULL) {
		set = namerule_new();
		namerule_add(set, NR_NAME, ".env.*", NULL);
		namerule_add(set, NR_NAME, "*.pem", NULL);
		namerule_add(set, NR_PATH, ".git/hooks/*", "*.sample");
		namerule_add(set, NR_PATH, ".git/modules/**/hooks/*", NULL);
		namerule_add(set, NR_TREE, ".idea", NULL);
		namerule_add(set, NR_ABS, "/w/s/**/*.txt", NULL);
		namerule_add(set, NR_GITCONFIG, ".git/config", NULL);
		/* The home's allowlist and its carve-outs (issue 11). */
		namerule_add(set, NR_HOME, "/h/.*", NULL);
		namerule_add(set, NR_HOME, "/h/bin", NULL);
		namerule_add(set, NR_CARVE, "/h/.cache", NULL);
		namerule_add(set, NR_CARVE, "/h/.cargo/registry", NULL);
	}
	path = malloc(plen + 2);
	out = malloc(plen + 1);
	if (path == NULL || out == NULL)
		abort();
	path[0] = '/';
	memcpy(path + 1, data, plen);
	path[plen + 1] = '\0';
	(void)namerule_check(set, path, 0);
	(void)namerule_check(set, path, NR_F_PREFIX);
	/* Git state: the allowlist and a symlink target's lexical form,
	 * which must stay absolute and free of "." and "..". */
	{
		char	lex[128];
		enum namerule_verdict v = namerule_gitstate_rel(path + 1);

		if (v != NR_ALLOW && v != NR_DENY && v != NR_CHECK_CONFIG &&
		    v != NR_ALLOW_TREE)
			__builtin_trap();
		if (namerule_lexical("/w/a", path + 1, lex, sizeof(lex)) == 0 &&
		    (lex[0] != '/' || strstr(lex, "/../") != NULL ||
		    strstr(lex, "/./") != NULL))
			__builtin_trap();
		(void)namerule_gitstate_name(path + 1);
	}
	if (namerule_fold(path + 1, plen, out) > plen)
		__builtin_trap();
	free(path);
	free(out);
	if (nul == NULL)
		return 0;
	/* A text vouches for itself: only unparsable text is refused. */
	if (namerule_gitconfig_check((const char *)nul + 1, size - plen - 1,
	    (const char *)nul + 1, size - plen - 1, why, sizeof(why)) == -1 &&
	    strncmp(why, "unparsable", 10) != 0)
		__builtin_trap();
	(void)namerule_gitconfig_check((const char *)nul + 1, size - plen - 1,
	    (const char *)data, plen, why, sizeof(why));
	{
		/* The allowlist with a judge of paths: a text that passes
		 * when no path is inside passes when every path is; one
		 * that passes with every path inside passes the lexical
		 * judge only if its paths stay under /w. */
		const char *t = (const char *)nul + 1;
		size_t	 tl = size - plen - 1;
		int	 none, all, lex;

		none = namerule_gitconfig_check_at(t, tl, NULL, 0, judge_none,
		    NULL, why, sizeof(why));
		all = namerule_gitconfig_check_at(t, tl, NULL, 0, judge_all,
		    NULL, why, sizeof(why));
		lex = namerule_gitconfig_check_at(t, tl, NULL, 0, judge_lex,
		    NULL, why, sizeof(why));
		if ((none == 0 && (all != 0 || lex != 0)) ||
		    (lex == 0 && all != 0) ||
		    none != namerule_gitconfig_check(t, tl, NULL, 0, why,
		    sizeof(why)))
			__builtin_trap();
		/* A refusal always names why. */
		if (none != 0 && why[0] == '\0')
			__builtin_trap();
	}
	{
		/* The origin lookup walks the same parser: a value or none. */
		char	*v;
		int	 r = namerule_gitconfig_get((const char *)nul + 1,
		    size - plen - 1, "remote", "origin", "url", &v);

		if ((r == 1) != (v != NULL))
			__builtin_trap();
		free(v);
	}
	/* .gitmodules' allowlist: a refusal always says why. */
	why[0] = '\0';
	if (namerule_gitmodules_check((const char *)nul + 1, size - plen - 1,
	    why, sizeof(why)) == -1 && why[0] == '\0')
		__builtin_trap();
	return 0;
}
