// SPDX-License-Identifier: ISC
/*
 * Mapping a gateway path to a code host and an upstream URL, and the
 * R-G4 decision (see gwrepo.h).  untrusted: the path comes from the
 * sandbox (gatewayd checked only its characters), so every part of it is
 * checked again here.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/host/settings.h"
#include "common/xmalloc.h"
#include "supervisor/gwrepo.h"

static int
segment_ok(const char *s, size_t len)
{
	size_t	i;

	if (len == 0 || len > 100 || s[0] == '.')
		return 0;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '_' && s[i] != '-')
			return 0;
	return 1;
}

/* "owner/name[.git]" -> "owner/name", or NULL. */
static char *
owner_name(const char *s)
{
	const char	*slash;
	size_t		 len = strlen(s);

	if (len > 4 && strcmp(s + len - 4, ".git") == 0)
		len -= 4;
	if ((slash = memchr(s, '/', len)) == NULL)
		return NULL;
	if (!segment_ok(s, (size_t)(slash - s)) ||
	    !segment_ok(slash + 1, len - (size_t)(slash - s) - 1))
		return NULL;
	return xstrndup(s, len);
}

void
gwrepo_free(struct gwrepo *r)
{
	if (r == NULL)
		return;
	free(r->repo);
	free(r->upstream);
	memset(r, 0, sizeof(*r));
}

int
gwrepo_resolve(const struct settings *s, const char *origin_repo,
    const char *path, struct gwrepo *out, char *reason, size_t len)
{
	const struct code_host *h = NULL;
	const char	*slash, *canon = NULL;
	int		(*cmp)(const char *, const char *);
	char		*repo;
	size_t		 i, hl;
	int		 linked = 0;

	memset(out, 0, sizeof(*out));
	if ((slash = strchr(path, '/')) == NULL) {
		snprintf(reason, len, "not a repository path");
		return -1;
	}
	hl = (size_t)(slash - path);
	for (i = 0; i < s->nhosts; i++)
		if (strlen(s->hosts[i].name) == hl &&
		    strncmp(s->hosts[i].name, path, hl) == 0)
			h = &s->hosts[i];
	if (h == NULL || h->upstream == NULL) {
		snprintf(reason, len, "no code host is configured for this "
		    "push URL");
		return -1;
	}
	if ((repo = owner_name(slash + 1)) == NULL) {
		snprintf(reason, len, "not a repository path");
		return -1;
	}
	/*
	 * GitHub-like hosts compare owner and name without case
	 * (codeHosts[].caseInsensitive, default true); others exactly.
	 * What is matched is what is forwarded: the spelling of the record
	 * or of linkedRepos, so a case-sensitive upstream gets the name
	 * that was allowed, not the client's.
	 */
	cmp = h->case_sensitive ? strcmp : strcasecmp;
	if (origin_repo != NULL && cmp(origin_repo, repo) == 0)
		canon = origin_repo;
	for (i = 0; s->linked_repos && s->linked_repos[i] && canon == NULL;
	    i++)
		if (cmp(s->linked_repos[i], repo) == 0)
			canon = s->linked_repos[i];
	linked = canon != NULL;
	if (linked) {
		free(repo);
		repo = xstrdup(canon);
	}
	if (!linked) {
		snprintf(reason, len, "%s is neither this worktree's "
		    "repository nor linked to the workspace", repo);
		free(repo);
		return -1;
	}
	out->host = h;
	out->repo = repo;
	xasprintf(&out->upstream, "%s%s%s.git", h->upstream,
	    h->upstream[0] && h->upstream[strlen(h->upstream) - 1] == '/' ?
	    "" : "/", repo);
	return 0;
}

char *
gwrepo_from_url(const struct settings *s, const char *url,
    const struct code_host **hostp)
{
	size_t	i, j, pl;
	char	*r;

	for (i = 0; i < s->nhosts; i++) {
		const struct code_host *h = &s->hosts[i];

		for (j = 0; h->push_prefixes && h->push_prefixes[j]; j++) {
			pl = strlen(h->push_prefixes[j]);
			if (strncmp(url, h->push_prefixes[j], pl) != 0)
				continue;
			if ((r = owner_name(url + pl)) == NULL)
				continue;
			if (hostp != NULL)
				*hostp = h;
			return r;
		}
	}
	return NULL;
}
