/* SPDX-License-Identifier: ISC */
/*
 * Code-host credentials (R-K1, R-K2).  Only airlockd reads them: a JSON
 * file of mode 0600 (anything more open is refused), mapping a code host
 * name to { "writeToken": "...", "readToken": "..." } or to
 * { "command": ["prog", "arg", ...] } whose first line of stdout is the
 * token (the command sees AIRLOCK_TOKEN_KIND=write or read).  Tokens are
 * kept in pages marked MADV_DONTDUMP and zeroed before they are freed; no
 * error message ever contains one.
 */
#ifndef AIRLOCK_CREDENTIALS_H
#define AIRLOCK_CREDENTIALS_H

#include <stddef.h>

struct settings;
struct cred_store;

/* Load and check the file; NULL with a message in err. */
struct cred_store *cred_load(const char *path, char *err, size_t errlen);
void		 cred_free(struct cred_store *);
/*
 * The write (write != 0) or read token for a code host, as a secret
 * buffer the caller releases with cred_secret_free().  NULL with a message
 * in err when there is none.
 */
char		*cred_get(struct cred_store *, const char *host, int write,
		    char *err, size_t errlen);
/* Convenience: load settings->credentials_file, get, free the store. */
char		*cred_token(const struct settings *, const char *host,
		    int write, char *err, size_t errlen);

/*
 * The real value of a credentials.mask entry, as a secret buffer: its
 * source command's first line, or the file's entry named like its
 * variable, { "value": "..." } or { "command": [...] }.  cs may be NULL
 * when the entry has a command.  NULL with a message (never the value).
 */
struct mask_setting;
char		*cred_mask_value(struct cred_store *,
		    const struct mask_setting *, char *err, size_t errlen);

/*
 * A fresh placeholder of real's shape (common/mask.h); free() it (it is
 * not a secret).  NULL with a message (never the value).
 */
char		*cred_mask_placeholder(const char *real, char *err,
		    size_t errlen);

/*
 * The user's Claude Code login, the file the CLI keeps it in
 * (~/.claude/.credentials.json, "claudeAiOauth"), for airlock claude:
 * *token its access token (a secret buffer, NULL when the file holds no
 * login), *ph that token's placeholder, *copy the file as the sandbox
 * sees it: the placeholder, a placeholder of the refresh token (masked
 * nowhere), the expiry, scopes and plan; nothing else of the file (it
 * also holds MCP servers' tokens).  A login already expired is refused:
 * the sandbox cannot renew it.  0, or -1 with a message (never a token).
 */
int		 cred_claude_login(const char *path, char **token, char **ph,
		    char **copy, char *err, size_t errlen);

/* Secret strings: DONTDUMP pages, zeroed on free.  NULL-safe free. */
char		*cred_secret_dup(const char *, size_t len);
void		 cred_secret_free(char *);

#endif
