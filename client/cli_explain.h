/* SPDX-License-Identifier: ISC */
/*
 * The refusal summary after `airlock run` (client/cli_explain.c): what
 * was refused, by which rule, in the user's words.
 */
#ifndef AIRLOCK_CLI_EXPLAIN_H
#define AIRLOCK_CLI_EXPLAIN_H

#include <stdio.h>

/* Events kept for the summary; the rest are only counted. */
#define EXPLAIN_MAX	256

struct explain_ev {
	char	*action;
	char	*target;		/* untrusted: from the sandbox */
	char	*why;			/* the event's reason, if any */
};

struct explain {
	struct explain_ev ev[EXPLAIN_MAX];
	size_t		  n;
	size_t		  total;
	int		  network_on;
};

void	explain_init(struct explain *, int network_on);
void	explain_add(struct explain *, const char *action, const char *target,
	    const char *why);
void	explain_print(const struct explain *, FILE *);
void	explain_free(struct explain *);
void	explain_bind_warn(const char *flag, char *const *paths);
/* The built-in rule a write-protected path falls under, for a person. */
const char *explain_write_group(const char *path);

/* What the client sent, to name a field of airlockd's error by its flag. */
struct explain_fields {
	const char	*workspace;	/* bindMounts[0], NULL if not sent */
	char *const	*binds, *const *robinds, *const *trybinds,
			*const *tryrobinds;
	char *const	*allow, *const *envs, *const *deny_read,
			*const *deny_write;
};

const char *explain_words(const char *msg, const struct explain_fields *,
	    char *out, size_t len);
/* The settings files checked before a private airlockd: 0, or -1 said. */
int	explain_settings_error(const char *, char *, size_t);
int	explain_settings_check(const char *cli_file);

/*
 * NULL when v is a valid domain pattern; else, in buf, a message naming
 * flag and v and what is accepted (client/cli_egress.c).
 */
/* `airlock policy egress`: argv[1] is "egress". */
int	cli_policy_egress(int argc, char **argv);

#endif
