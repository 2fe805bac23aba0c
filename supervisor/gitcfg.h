/* SPDX-License-Identifier: ISC */
/*
 * The run's sandbox-private global git configuration (R-G1, R-K1): every
 * push URL form of every configured code host rewritten with
 * pushInsteadOf to the run's gateway endpoint, the gateway exempt from the
 * HTTP proxy, and the read-only token helper scoped to the code hosts.
 * Pure: settings in, text out.
 */
#ifndef AIRLOCK_GITCFG_H
#define AIRLOCK_GITCFG_H

struct settings;

/*
 * gateway_base_url: "http://127.0.0.1:PORT" (a trailing '/' is optional).
 * Each code host gets its own path under it, "<base>/<host name>/", so
 * the gateway can tell two hosts' "acme/app.git" apart (see gwrepo.h).
 * read_helper: a git credential helper command that prints the run's
 * read-only token, or NULL for none.  Returns the file's text (free()),
 * or NULL if a value cannot be written safely (a host name that is not
 * [A-Za-z0-9._-], or a newline in a value).
 */
char	*gitcfg_render(const struct settings *, const char *gateway_base_url,
	    const char *read_helper);

#endif
