// SPDX-License-Identifier: ISC
/*
 * The JSON parameters of the session methods: the small decoders, the
 * caller's settings and $HOME for a shared airlockd, the variables passed
 * on purpose (R-L9).
 *
 * Untrusted: every parameter from a client.
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <linux/magic.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/host/paths.h"
#include "common/host/wsorigin.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "policy/domain.h"
#include "policy/egress.h"
#include "supervisor/gwrepo.h"
#include "supervisor/sv.h"
#include "supervisor/sv_gw.h"
#include "supervisor/sv_sess.h"

const struct json *
param(const struct json *params, const char *key)
{
	return json_get(params, key);
}

char **
json_strv(const struct json *v)
{
	char	**out = xcalloc(1, sizeof(char *));
	size_t	 i;

	if (v == NULL || v->type != JSON_ARRAY)
		return out;
	for (i = 0; i < v->n; i++) {
		if (v->items[i]->type != JSON_STRING ||
		    strlen(v->items[i]->str) != v->items[i]->len) {
			strv_free(out);
			return NULL;
		}
		out = strv_add(out, v->items[i]->str);
	}
	return out;
}

struct json *
dup_id(const struct json *id)
{
	struct jgen	*j = jgen_new();
	struct json	*copy;
	const char	*buf;
	size_t		 len;
	char		 err[64];

	jgen_value(j, id);
	buf = jgen_buf(j, &len);
	copy = json_parse(buf, len, err, sizeof(err));
	jgen_free(j);
	return copy;
}

const char *
caller_home(uid_t uid)
{
	struct passwd *pw;
	const char *h = getenv("HOME");

	if (h != NULL && h[0] == '/')
		return h;
	if ((pw = getpwuid(uid)) != NULL)
		return pw->pw_dir;
	return "/tmp";
}

/*
 * airlock's own files that a run must never write, whatever it binds:
 * the --settings file, the binaries the next run executes,
 * and the directory of the client socket.  sv_plan.c adds the user and
 * managed settings directories and the credentials file.
 */
char **
own_paths(void)
{
	static const char *const bins[] = {
		"airlock", "airlockd", "airlock-launcher", "airlock-proxyd",
		"airlock-gatewayd", "airlock-fs", "airlock-clone",
	};
	char	**v = NULL, *p, *slash, self[PATH_MAX];
	ssize_t	 n;
	size_t	 i;

	if (sv_settings_file != NULL && (p = realpath(sv_settings_file,
	    NULL)) != NULL) {
		v = strv_add(v, p);
		free(p);
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		v = strv_add(v, self);
	}
	for (i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		p = sv_sibling(bins[i]);
		if (p[0] == '/')
			v = strv_add(v, p);
		free(p);
	}
	p = airlock_default_socket();
	if ((slash = strrchr(p, '/')) != NULL && slash != p) {
		*slash = '\0';
		v = strv_add(v, p);
	}
	free(p);
	return v;
}

/* A remote URL of a code host -> "owner/name" (else NULL). */
void
origin_normalise(char **o)
{
	char	*r;

	if (*o == NULL || !(strstr(*o, "://") || strchr(*o, '@') ||
	    strchr(*o, ':')))
		return;
	r = gwrepo_from_url(ssettings, *o, NULL);
	free(*o);
	*o = r;
}

/*
 * "home" and "settingsFile" of a launch: the caller's, for a shared
 * airlockd.  The settings load as this daemon's own do (the caller's
 * user file, the file named, the managed file on top), with ~ meaning
 * the caller's home.  The client is this uid (SO_PEERCRED): the home is
 * taken as given once it is an existing directory of ours.
 */
int
session_settings(struct sv_client *c, const struct json *id,
    const struct json *params, struct settings **own, char **home)
{
	const char	*h = json_get_str(params, "home");
	const char	*f = json_get_str(params, "settingsFile");
	char		 err[1024], *saved = NULL;
	struct stat	 sb;
	int		 rc;

	*own = NULL;
	*home = NULL;
	if (h != NULL && (h[0] != '/' || stat(h, &sb) == -1 ||
	    !S_ISDIR(sb.st_mode) || sb.st_uid != getuid())) {
		snprintf(err, sizeof(err), "home: \"%.200s\" is not a "
		    "directory of this user", h);
		sv_client_error(c, id, RPC_INVALID_PARAMS, err);
		return -1;
	}
	if (h != NULL)
		*home = xstrdup(h);
	if (f == NULL && (h == NULL || strcmp(h, caller_home(getuid())) == 0))
		return 0;
	if (getenv("HOME") != NULL)
		saved = xstrdup(getenv("HOME"));
	if (h != NULL)
		setenv("HOME", h, 1);
	*own = xcalloc(1, sizeof(**own));
	settings_defaults(*own);
	/* NULL: the user file of $HOME, which is now the caller's. */
	rc = settings_load(*own, NULL, f, NULL, err, sizeof(err));
	if (saved != NULL) {
		setenv("HOME", saved, 1);
		free(saved);
	} else
		unsetenv("HOME");
	if (rc == -1) {
		settings_free(*own);
		free(*own);
		*own = NULL;
		free(*home);
		*home = NULL;
		sv_client_error(c, id, RPC_INVALID_PARAMS, err);
		return -1;
	}
	return 0;
}

int
deny_entry_bad(struct sv_client *c, const struct json *id, const char *key,
    size_t i, const char *path)
{
	char	err[PATH_MAX + 128];

	if (path[0] == '/' || (path[0] == '~' && (path[1] == '/' ||
	    path[1] == '\0')))
		return 0;
	snprintf(err, sizeof(err), "%s[%zu]: \"%s\": not an absolute path "
	    "(relative to what?); it cannot be applied", key, i, path);
	sv_client_error(c, id, RPC_INVALID_PARAMS, err);
	return 1;
}

/* Replace or add NAME=VALUE in an environment vector. */
char **
env_set(char **v, const char *kv)
{
	size_t	i, n = strcspn(kv, "=") + 1;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (strncmp(v[i], kv, n) == 0) {
			free(v[i]);
			v[i] = xstrdup(kv);
			return v;
		}
	return strv_add(v, kv);
}

/*
 * The variables passed on purpose (R-L9 allows them only so): the
 * client's "passEnv" (NAME=VALUE, from `airlock run --env`), then the
 * names of settings sandbox.env.pass with the caller's values.  An
 * injection variable is refused, naming it.  NULL after an error.
 */
char **
pass_env(struct sv_client *c, const struct json *id,
    const struct json *params, const struct settings *set)
{
	char		**v = xcalloc(1, sizeof(*v)), **asked, **caller;
	char		 err[512];
	const char	*eq;
	size_t		 i, k, n;

	asked = json_strv(param(params, "passEnv"));
	caller = json_strv(param(params, "env"));
	for (i = 0; set->env_pass && set->env_pass[i]; i++) {
		n = strlen(set->env_pass[i]);
		for (k = 0; caller && caller[k]; k++)
			if (strncmp(caller[k], set->env_pass[i], n) == 0 &&
			    caller[k][n] == '=')
				asked = strv_add(asked, caller[k]);
	}
	for (i = 0; asked && asked[i]; i++) {
		char name[256];

		eq = strchr(asked[i], '=');
		n = eq != NULL ? (size_t)(eq - asked[i]) : 0;
		if (n == 0 || n >= sizeof(name)) {
			snprintf(err, sizeof(err), "passEnv[%zu]: not "
			    "NAME=VALUE", i);
			goto bad;
		}
		memcpy(name, asked[i], n);
		name[n] = '\0';
		if (sv_env_injection(name)) {
			snprintf(err, sizeof(err), "%s: a variable that "
			    "changes what a program loads or runs is never "
			    "passed into a sandbox", name);
			goto bad;
		}
		v = env_set(v, asked[i]);
		log_info("passing %s into the sandbox on purpose", name);
	}
	strv_free(asked);
	strv_free(caller);
	return v;
bad:
	sv_client_error(c, id, RPC_INVALID_PARAMS, err);
	strv_free(asked);
	strv_free(caller);
	strv_free(v);
	return NULL;
}
