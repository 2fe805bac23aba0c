// SPDX-License-Identifier: ISC
/*
 * sandbox.profile: the plan a sandbox.launch with the same params would
 * get, for review, without launching anything.  The spec is decoded and
 * checked by sandbox.launch's own code and the plan built by the same
 * session_plan(); this file only writes what was built: as JSON (the
 * Linux plan, item by item, with Landlock rights and limits named) or as
 * the Seatbelt profile the macOS backend would run it under
 * (common/seatbelt.c, SPEC R-M1).  The caller's environment values are
 * never echoed, only the names that would pass; airlock's own variables
 * are shown with their values.
 */
#include <sys/resource.h>

#include <linux/landlock.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/json.h"
#include "common/msg.h"
#include "common/namerule.h"
#include "common/seatbelt.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"
#include "supervisor/sv_sbpl.h"
#include "supervisor/sv_sess.h"
#include "supervisor/sv_worktree.h"

static const char *const op_name[PLAN_OP_MAX] = {
	[PLAN_OP_BIND] = "bind", [PLAN_OP_TMPFS] = "tmpfs",
	[PLAN_OP_DIR] = "dir", [PLAN_OP_PROC] = "proc",
	[PLAN_OP_DEV] = "dev", [PLAN_OP_MASK] = "mask",
	[PLAN_OP_REMOUNT_RO] = "remount-ro", [PLAN_OP_SYMLINK] = "symlink",
	[PLAN_OP_CHDIR_HOME] = "chdir-home",
};

static const char *const ll_name[] = {
	"execute", "write_file", "read_file", "read_dir", "remove_dir",
	"remove_file", "make_char", "make_dir", "make_reg", "make_sock",
	"make_fifo", "make_block", "make_sym", "refer", "truncate",
	"ioctl_dev",
};

static const char *const nr_name[NR_KIND_MAX] = {
	[NR_NAME] = "name", [NR_PATH] = "path", [NR_TREE] = "tree",
	[NR_ABS] = "absolute", [NR_GITCONFIG] = "gitconfig",
	[NR_SCOPE] = "scope", [NR_HOME] = "home", [NR_CARVE] = "carve",
	[NR_GITSTATE] = "gitstate", [NR_GITSCOPE] = "gitscope",
	[NR_UNIXSOCK] = "unix-socket", [NR_NOUNIXBIND] = "no-unix-bind",
};

static const char *
rlimit_name(uint32_t r)
{
	switch (r) {
	case RLIMIT_NPROC:	return "nproc";
	case RLIMIT_CORE:	return "core";
	case RLIMIT_AS:		return "as";
	case RLIMIT_FSIZE:	return "fsize";
	case RLIMIT_NOFILE:	return "nofile";
	case RLIMIT_CPU:	return "cpu";
	case RLIMIT_DATA:	return "data";
	case RLIMIT_STACK:	return "stack";
	default:		return "other";
	}
}

/* ---- JSON ---- */

static void
json_item(struct jgen *j, struct msg *m)
{
	uint32_t	 a, b;
	uint64_t	 q, r;
	const char	*s, *t;
	size_t		 k, n;

	jgen_obj_open(j);
	switch (m->info->type) {
	case MSG_PLAN_BEGIN:
		jgen_kstr(j, "item", "begin");
		(void)msg_get_str(m);
		a = msg_get_u32(m);
		jgen_kbool(j, "netns", (a & PLAN_F_NET_NS) != 0);
		jgen_kbool(j, "landlockNet", (a & PLAN_F_LANDLOCK_NET) != 0);
		jgen_kbool(j, "landlockScope",
		    (a & PLAN_F_LANDLOCK_SCOPE) != 0);
		jgen_kint(j, "uid", msg_get_u32(m));
		jgen_kint(j, "gid", msg_get_u32(m));
		break;
	case MSG_PLAN_OP:
		a = msg_get_u32(m);
		b = msg_get_u32(m);
		s = msg_get_str(m);
		t = msg_get_str(m);
		jgen_kstr(j, "item", a == PLAN_OP_BIND && (b & PLAN_OPF_RO) ?
		    "ro-bind" : a < PLAN_OP_MAX && op_name[a] != NULL ?
		    op_name[a] : "unknown");
		/* A tmpfs's and a /dev's "source" is its size. */
		if (s[0] != '\0')
			jgen_kstr(j, a == PLAN_OP_TMPFS || a == PLAN_OP_DEV ?
			    "size" : "source", s);
		jgen_kstr(j, "destination", t);
		if (b & PLAN_OPF_OPTIONAL)
			jgen_kbool(j, "optional", 1);
		if (b & PLAN_OPF_DEV)
			jgen_kbool(j, "devices", 1);
		if (b & PLAN_OPF_INSIDE)
			jgen_kbool(j, "sourceInSandbox", 1);
		break;
	case MSG_PLAN_FILE:
		jgen_kstr(j, "item", "file");
		jgen_kstr(j, "destination", msg_get_str(m));
		jgen_kint(j, "mode", msg_get_u32(m));
		(void)msg_get_blob(m, &n);
		jgen_kint(j, "bytes", (long long)n);
		break;
	case MSG_PLAN_LANDLOCK:
		jgen_kstr(j, "item", "landlock");
		q = msg_get_u64(m);
		jgen_kstr(j, "path", msg_get_str(m));
		jgen_key(j, "access");
		jgen_arr_open(j);
		for (k = 0; k < sizeof(ll_name) / sizeof(ll_name[0]); k++)
			if (q & (1ULL << k))
				jgen_str(j, ll_name[k]);
		jgen_arr_close(j);
		break;
	case MSG_PLAN_RLIMIT:
		jgen_kstr(j, "item", "rlimit");
		jgen_kstr(j, "resource", rlimit_name(msg_get_u32(m)));
		q = msg_get_u64(m);
		r = msg_get_u64(m);
		jgen_kint(j, "soft", q == RLIM_INFINITY ? -1 : (long long)q);
		jgen_kint(j, "hard", r == RLIM_INFINITY ? -1 : (long long)r);
		break;
	case MSG_PLAN_SECCOMP:
		jgen_kstr(j, "item", "seccomp");
		a = msg_get_u32(m);
		(void)msg_get_blob(m, &n);
		jgen_kint(j, "instructions", (long long)(n / 8));
		jgen_kbool(j, "notify", (a & PLAN_SECF_NOTIFY) != 0);
		break;
	case MSG_PLAN_LISTEN:
		jgen_kstr(j, "item", "listen");
		a = msg_get_u32(m);
		jgen_kstr(j, "kind", a == LISTEN_HTTP ? "http" :
		    a == LISTEN_SOCKS ? "socks5" : a == LISTEN_GIT ? "git" :
		    "unknown");
		jgen_kstr(j, "address", "127.0.0.1");
		jgen_kint(j, "port", msg_get_u32(m));
		break;
	case MSG_PLAN_WRITE_RULE:
		jgen_kstr(j, "item", "filename-rule");
		a = msg_get_u32(m);
		jgen_kstr(j, "kind", a < NR_KIND_MAX && nr_name[a] != NULL ?
		    nr_name[a] : "unknown");
		jgen_kstr(j, "pattern", msg_get_str(m));
		s = msg_get_str(m);
		if (s[0] != '\0')
			jgen_kstr(j, "except", s);
		break;
	case MSG_PLAN_END:
		jgen_kstr(j, "item", "end");
		break;
	default:
		jgen_kstr(j, "item", m->info->name);
		break;
	}
	jgen_obj_close(j);
}

/* The names that would pass: airlock's own with their values, the
 * caller's allowlisted ones and passEnv by name alone. */
static void
json_env(struct jgen *j, const struct sv_session *s)
{
	char	**v = NULL, *eq;
	size_t	 i;

	jgen_key(j, "env");
	jgen_arr_open(j);
	for (i = 0; s->plan.env_base != NULL && s->plan.env_base[i]; i++) {
		if ((eq = strchr(s->plan.env_base[i], '=')) == NULL)
			continue;
		jgen_obj_open(j);
		jgen_key(j, "name");
		jgen_strn(j, s->plan.env_base[i],
		    (size_t)(eq - s->plan.env_base[i]));
		jgen_kstr(j, "value", eq + 1);
		jgen_kstr(j, "from", "airlock");
		jgen_obj_close(j);
		v = strv_add(v, s->plan.env_base[i]);
	}
	for (i = 0; s->caller_env != NULL && s->caller_env[i] != NULL; i++) {
		char	name[256];
		size_t	n;

		if ((eq = strchr(s->caller_env[i], '=')) == NULL ||
		    (n = (size_t)(eq - s->caller_env[i])) == 0 ||
		    n >= sizeof(name))
			continue;
		memcpy(name, s->caller_env[i], n);
		name[n] = '\0';
		if (!sv_env_allowed(name) && !strv_in(s->pass_env, name))
			continue;
		jgen_obj_open(j);
		jgen_kstr(j, "name", name);
		jgen_kstr(j, "from", strv_in(s->pass_env, name) ?
		    "passEnv" : "caller");
		jgen_obj_close(j);
	}
	jgen_arr_close(j);
	strv_free(v);
}

static char *
profile_json(const struct sv_session *s, enum sv_backend want,
    const char *unconfined)
{
	struct jgen	*j = jgen_new();
	struct msg	 m;
	char		*out;
	size_t		 i;

	jgen_obj_open(j);
	jgen_kstr(j, "os", "linux");
	jgen_kstr(j, "backend", sv_backend_name(want));
	if (unconfined != NULL)
		jgen_kstr(j, "unsandboxedReason", unconfined);
	if (s->plan.home != NULL)
		jgen_kstr(j, "home", s->plan.home);
	if (s->plan.workdir != NULL)
		jgen_kstr(j, "workdir", s->plan.workdir);
	jgen_key(j, "plan");
	jgen_arr_open(j);
	for (i = 0; i < s->plan.nframes; i++)
		if (sv_plan_msg(&s->plan, i, &m) == 0)
			json_item(j, &m);
	jgen_arr_close(j);
	json_env(j, s);
	jgen_obj_close(j);
	out = xstrdup(jgen_buf(j, NULL));
	jgen_free(j);
	return out;
}

/* ---- the method ---- */

void
sv_session_profile(struct sv_client *c, const struct json *id,
    const struct json *params)
{
	struct sv_session s;
	struct settings	*own = NULL;
	const struct settings *set;
	const char	*os = json_get_str(params, "os"), *unconfined = NULL;
	const char	*path;
	enum sv_backend	 want;
	char		 err[512], *out = NULL, *home = NULL;
	struct jgen	*j;

	if (os == NULL || (strcmp(os, "linux") != 0 &&
	    strcmp(os, "macos") != 0)) {
		snprintf(err, sizeof(err), "os: \"%s\": linux or macos",
		    os != NULL ? os : "");
		sv_client_error(c, id, RPC_INVALID_PARAMS, err);
		return;
	}
	memset(&s, 0, sizeof(s));
	if (sv_spec_from_json(param(params, "spec"), &s.spec, err,
	    sizeof(err)) == -1) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, err);
		return;
	}
	sv_spec_canonical(&s.spec);
	if (spec_entries_bad(c, id, &s.spec) ||
	    session_settings(c, id, params, &own, &home) == -1)
		goto done;
	set = own != NULL ? own : ssettings;
	if ((s.pass_env = pass_env(c, id, params, set)) == NULL)
		goto done;
	if (sv_worktree_spec(&s.spec, set, home, err, sizeof(err)) == -1) {
		sv_client_error(c, id, RPC_INVALID_PARAMS, err);
		goto done;
	}
	sv_spec_canonical(&s.spec);
	if (launch_backend(c, id, &s.spec, set, &want, &unconfined) == -1)
		goto done;
	s.own_settings = own;
	s.home = home != NULL ? home : xstrdup(caller_home(getuid()));
	home = NULL;
	s.caller_env = json_strv(param(params, "env"));
	if ((path = json_get_str(params, "settingsFile")) != NULL)
		s.settings_path = realpath(path, NULL);
	if (want == SV_BACKEND_NONE && strcmp(os, "macos") == 0) {
		snprintf(err, sizeof(err), "no profile: the run would be "
		    "unconfined (%s)", unconfined != NULL ? unconfined :
		    "backend none");
		sv_client_error(c, id, RPC_SANDBOX_ERROR, err);
		goto done;
	}
	if (want != SV_BACKEND_NONE && session_plan(&s, err,
	    sizeof(err)) == -1) {
		sv_client_error(c, id, RPC_SANDBOX_ERROR, err);
		goto done;
	}
	if (strcmp(os, "linux") == 0)
		out = profile_json(&s, want, unconfined);
	else {
		char	*sb = NULL;
		size_t	 k;

		/* Seatbelt filters paths and mounts nothing: a bind shown
		 * at another path (--ro-bind SRC:DST) has no form there. */
		for (k = 0; k < s.spec.nbinds; k++)
			if (strcmp(s.spec.binds[k].host_path,
			    s.spec.binds[k].guest_path) != 0)
				break;
		if (k < s.spec.nbinds)
			snprintf(err, sizeof(err), "%s shown at %s: macOS "
			    "shows a path only at its own name (Seatbelt "
			    "mounts nothing)", s.spec.binds[k].host_path,
			    s.spec.binds[k].guest_path);
		else
			sb = sv_plan_sbpl(&s.plan, s.spec.exec_grant_roots,
			    err, sizeof(err));
		if (sb == NULL) {
			sv_client_error(c, id, RPC_SANDBOX_ERROR, err);
			goto done;
		}
		j = jgen_new();
		jgen_obj_open(j);
		jgen_kstr(j, "os", "macos");
		jgen_kstr(j, "profile", sb);
		jgen_obj_close(j);
		out = xstrdup(jgen_buf(j, NULL));
		jgen_free(j);
		free(sb);
	}
	sv_client_result(c, id, out, strlen(out));
done:
	free(out);
	free(home);
	sv_plan_free(&s.plan);
	strv_free(s.pass_env);
	strv_free(s.caller_env);
	free(s.home);
	free(s.settings_path);
	if (own != NULL) {
		settings_free(own);
		free(own);
	}
	sv_spec_free(&s.spec);
}
