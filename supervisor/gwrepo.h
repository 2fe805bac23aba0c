/* SPDX-License-Identifier: ISC */
/*
 * Which repository a push through the gateway is for, and whether the run
 * may push there (R-G4).  The gateway URL path is
 * "<code host name>/<owner>/<name>[.git]" (gitcfg.h puts the host name in
 * the pushInsteadOf target); only the worktree's own repository or one in
 * git.linkedRepos is allowed, anything else is refused with a reason.
 * Pure: settings and strings in, a decision out.
 */
#ifndef AIRLOCK_GWREPO_H
#define AIRLOCK_GWREPO_H

#include <stddef.h>

struct settings;
struct code_host;

struct gwrepo {
	const struct code_host	*host;		/* points into settings */
	char			*repo;		/* "owner/name" */
	char			*upstream;	/* host upstream + owner/name.git */
};

/*
 * origin_repo: the worktree's origin "owner/name" (see gwrepo_from_url),
 * or NULL.  Returns 0 and fills out, or -1 with a reason (no secret, fit
 * for git's output) in reason.
 */
int	gwrepo_resolve(const struct settings *, const char *origin_repo,
	    const char *path, struct gwrepo *out, char *reason, size_t len);
void	gwrepo_free(struct gwrepo *);

/*
 * The "owner/name" of a remote URL whose prefix is one of the code hosts'
 * push URL forms ("https://github.com/acme/app.git" -> "acme/app"), with
 * the host in *hostp (may be NULL).  NULL when no host matches.
 */
char	*gwrepo_from_url(const struct settings *, const char *url,
	    const struct code_host **hostp);

#endif
