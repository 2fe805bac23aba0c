/* SPDX-License-Identifier: ISC */
/*
 * Worktrees per conversation (SPEC §5): the JSON-RPC methods
 * worktree.provision / worktree.list / worktree.remove, and what a launch
 * in a conversation mounts.
 */
#ifndef AIRLOCK_SV_WORKTREE_H
#define AIRLOCK_SV_WORKTREE_H

#include <stddef.h>

#include "common/host/settings.h"
#include "common/json.h"

struct sv_client;
struct sv_spec;

void	 sv_worktree_provision(struct sv_client *, const struct json *id,
	    const struct json *params);
void	 sv_worktree_list(struct sv_client *, const struct json *id,
	    const struct json *params);
void	 sv_worktree_remove(struct sv_client *, const struct json *id,
	    const struct json *params);

/*
 * Before a launch is planned: a spec with conversationId gets its
 * conversation's mounts (R-W2, R-W4) and every spec gets the user's
 * registered checkouts as protectedPaths.  -1 with a message in err.
 */
int	 sv_worktree_spec(struct sv_spec *, const struct settings *,
	    const char *home, char *err, size_t errlen);

#endif
