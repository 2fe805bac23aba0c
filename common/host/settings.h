/* SPDX-License-Identifier: ISC */
/*
 * The settings file (SPEC §12, R-C5): layers merged in order, later wins,
 * except that every key the managed layer sets wins over all and is
 * reported as policy-locked.  Layers: built-in defaults ->
 * ~/.config/airlock/settings.json -> --settings FILE ->
 * /etc/airlock/managed-settings.json.  A settings file inside a workspace
 * is never read.  Unknown keys and wrong types are errors naming the key.
 * The sandbox-runtime format (top-level network/filesystem) is accepted
 * and mapped onto sandbox.*.
 */
#ifndef AIRLOCK_SETTINGS_H
#define AIRLOCK_SETTINGS_H

#include <stddef.h>

#include "policy/policy.h"
#include "policy/push.h"

struct code_host {
	char	 *name;
	char	**push_prefixes;	/* NULL-terminated */
	char	 *upstream;		/* base URL; repo path appended */
	char	 *ca_bundle;		/* NULL: system store */
	int	  case_sensitive;	/* owner/name compared with case
					   (caseInsensitive: false) */
};

struct push_rule {
	char		*ref;		/* glob, e.g. refs/heads/release/\* */
	enum pol_verdict action;
};

/*
 * credentials.mask[]: a credential the sandbox sees only as a placeholder
 * in variable `name`; the real value is read by airlockd (the credentials
 * file's entry `name`, or a command) and belongs on the wire toward
 * `host` alone.
 */
struct mask_setting {
	char	 *name;		/* environment variable inside */
	char	 *host;		/* lower case, no port */
	int	  where;	/* enum mask_where (common/mask.h) */
	char	 *field;	/* header or query parameter; NULL: basic */
	char	**command;	/* source {"command": [...]}; NULL: file */
};

/*
 * sandbox.network.tls.inspect[]: a host whose connections proxyd
 * terminates to judge each request's method and path; rules holds one
 * "allow METHOD PATH" or "deny METHOD PATH" a line (common/inspect.h).
 */
struct inspect_setting {
	char	*host;		/* lower case, no port */
	char	*rules;
};

struct settings {
	int		  sandbox_enabled;		/* default 1 */
	int		  fail_if_unavailable;		/* default 0 */
	int		  allow_unsandboxed;		/* default 1 */
	unsigned	  approvals_timeout;	/* seconds, default 60 */
	int		  allow_term_control;		/* default 0 */
	char		**enabled_platforms;		/* linux, macos */
	char		**allow_write;
	char		**deny_write;
	char		**allow_read;
	char		**deny_read;
	char		**home_writable;	/* carve-outs of a bound home */
	char		**env_pass;		/* sandbox.env.pass: names */
	char		**allowed_domains;
	char		**denied_domains;
	char		**allow_unix_sockets;	/* host sockets bound inside */
	int		  allow_unix_bind;	/* default 1: bind(2) of a
					   unix socket by path inside */
	enum pol_verdict  rules[POL_CLASS_MAX];
	struct code_host *hosts;
	size_t		  nhosts;
	char		**linked_repos;			/* "owner/name" */
	struct push_rule *push_rules;
	size_t		  npush_rules;
	char		 *credentials_file;		/* ~ expanded */
	char		 *worktrees_dir;	/* worktrees.dataDir, ~ expanded;
					   NULL: $XDG_DATA_HOME/airlock/
					   conversations */
	int		  worktrees_spares; /* worktrees.spares: how many
					   repositories keep a spare copy;
					   default 4, 0: none */
	char		**locked;	/* dotted keys set by the managed layer */
	char		**sources;	/* "key\tfile": the layer that set
					   each key last (settings --explain) */
	char		**notes;	/* things ignored while merging, for
					   the user: unsupported srt keys,
					   keys a managed layer locked */
	int		  egress_baseline; /* default 1: the curated baseline
					   joins allowedDomains; an srt file's
					   allowedDomains is the whole list */
	char		 *managed_file;	/* the managed layer's path, if read */
	char		 *unsandboxed_from; /* the file that last set
					   allowUnsandboxedCommands */
	char		**acp_pass_through; /* acp.passThrough: "fs",
					   "terminal" (`airlock acp`) */
	int		  acp_permission_timeout; /* acp.permissionTimeout:
					   seconds the editor has to answer a
					   permission request; 0: no limit */
	unsigned	  max_connections; /* sandbox.network.maxConnections:
					   a session's connections open at
					   once in proxyd */
	struct mask_setting *masks;	/* credentials.mask */
	size_t		  nmasks;
	char		 *tls_upstream_ca;	/* sandbox.network.tls.
						   upstreamCA, or NULL */
	struct inspect_setting *inspect;	/* sandbox.network.tls.
						   inspect */
	size_t		  ninspect;
	/* sandbox.network.upstream: proxies proxyd dials through, each
	 * "ADDRESS:PORT" (an IP literal, IPv6 in brackets) or NULL. */
	char		 *upstream_http;
	char		 *upstream_socks5;
	char		**upstream_no_proxy;	/* domain patterns, direct */
	char		 *upstream_credential;	/* credentials file entry
						   holding "user:password" */
};

/* sandbox.network.maxConnections: its default and its largest value. */
#define SETTINGS_MAX_CONNECTIONS	1024
#define SETTINGS_MAX_CONNECTIONS_MAX	65536
/* acp.permissionTimeout: seconds an editor has to answer an agent's
 * session/request_permission before airlock answers from its policy. */
#define SETTINGS_ACP_PERMISSION_TIMEOUT	300

#define SETTINGS_MANAGED_PATH	"/etc/airlock/managed-settings.json"

/* Fill with built-in defaults. */
void	settings_defaults(struct settings *);
/*
 * Load all layers on top of s, which settings_defaults() has filled.
 * user_file NULL: ~/.config/airlock/settings.json when it exists; cli_file
 * NULL: none; managed_file NULL: SETTINGS_MANAGED_PATH.  Returns 0, or -1
 * with a message naming the file and key in err (s is then reset to the
 * defaults).
 */
int	settings_load(struct settings *, const char *user_file,
	    const char *cli_file, const char *managed_file, char *err,
	    size_t errlen);
/* Merge one JSON text as a layer (managed != 0: record locked keys). */
int	settings_merge_text(struct settings *, const char *text, size_t len,
	    const char *origin, int managed, char *err, size_t errlen);
int	settings_is_locked(const struct settings *, const char *dotted_key);
/*
 * Why these settings forbid running a command unconfined (--sandbox off,
 * AIRLOCK_SANDBOX=off, a hook's dangerouslyDisableSandbox): a managed
 * sandbox.enabled=true, or sandbox.allowUnsandboxedCommands=false in any
 * layer.  NULL when nothing forbids it; else the reason, naming the file
 * and key, in buf.
 */
/*
 * NULL when v is a valid domain pattern (an allowedDomains or
 * deniedDomains entry, an --allow-domain value); else a message in buf
 * naming v (after flag, or quoted when flag is NULL) and what is
 * accepted, with the host when v is a URL.
 */
const char *settings_domain_error(const char *flag, const char *v,
	    char *buf, size_t len);
const char *settings_managed_forbids(char *buf, size_t len);
const char *settings_forbid_unconfined(const struct settings *, char *buf,
	    size_t len);
void	settings_free(struct settings *);
void	settings_masks_free(struct mask_setting *, size_t);
/* The push rules (git.pushRules) decide one ref update; see policy/push.h. */
enum pol_verdict settings_push_decide(const struct settings *,
	    const char *ref, enum pol_push_kind, char *reason,
	    size_t reasonlen);
/* Print each note (ignored or approximated keys) once, as a warning. */
void	settings_print_notes(const struct settings *, const char *prog);
/* "~" and "~/..." expanded against $HOME (or the password entry). */
char	*settings_expand_home(const char *);

#endif
