// SPDX-License-Identifier: ISC
/*
 * SandboxSpec (SPEC §3) from the client's JSON.  Untrusted: from the
 * client socket.  Strict: an unknown field or a wrong type is an error
 * naming the field, so a typo in a deny list is never silently ignored.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pxmask.h"
#include "common/xmalloc.h"
#include "supervisor/sv.h"

void
sv_spec_free(struct sv_spec *s)
{
	size_t	i;

	if (s == NULL)
		return;
	free(s->session_id);
	free(s->workspace_id);
	free(s->agent_id);
	for (i = 0; i < s->nbinds; i++) {
		free(s->binds[i].host_path);
		free(s->binds[i].guest_path);
	}
	free(s->binds);
	strv_free(s->egress_allowlist);
	free(s->guest_workdir);
	strv_free(s->protected_paths);
	strv_free(s->runner_state_dirs);
	strv_free(s->runner_private_dirs);
	strv_free(s->exec_grant_roots);
	strv_free(s->deny_read);
	strv_free(s->bind_links);
	strv_free(s->deny_write);
	free(s->backend);
	free(s->origin_repo);
	free(s->workspace_origin);
	free(s->conversation_id);
	free(s->agent_config_dir);
	free(s->attachments_dir);
	free(s->login_file);
	free(s->login_host);
	strv_free(s->mask_passed);
	free(s->test_unlisted_bind);
	memset(s, 0, sizeof(*s));
}

static int
get_strv(const struct json *v, const char *name, char ***out, char *err,
    size_t errlen)
{
	size_t	i;

	if (v->type != JSON_ARRAY) {
		snprintf(err, errlen, "%s: expected an array of strings",
		    name);
		return -1;
	}
	for (i = 0; i < v->n; i++) {
		if (v->items[i]->type != JSON_STRING ||
		    strlen(v->items[i]->str) != v->items[i]->len) {
			snprintf(err, errlen, "%s[%zu]: expected a string",
			    name, i);
			return -1;
		}
		*out = strv_add(*out, v->items[i]->str);
	}
	if (*out == NULL)
		*out = xcalloc(1, sizeof(char *));
	return 0;
}

static int
get_str(const struct json *v, const char *name, char **out, char *err,
    size_t errlen)
{
	if (v->type != JSON_STRING || strlen(v->str) != v->len) {
		snprintf(err, errlen, "%s: expected a string", name);
		return -1;
	}
	free(*out);
	*out = xstrdup(v->str);
	return 0;
}

static int
get_u64(const struct json *v, const char *name, uint64_t *out, char *err,
    size_t errlen)
{
	if (v->type != JSON_NUMBER || !v->is_int || v->integer < 0) {
		snprintf(err, errlen, "%s: expected a non-negative integer",
		    name);
		return -1;
	}
	*out = (uint64_t)v->integer;
	return 0;
}

static int
parse_binds(const struct json *v, struct sv_spec *s, char *err,
    size_t errlen)
{
	size_t	i, k;

	if (v->type != JSON_ARRAY) {
		snprintf(err, errlen, "bindMounts: expected an array");
		return -1;
	}
	s->binds = xcalloc(v->n + 1, sizeof(*s->binds));
	for (i = 0; i < v->n; i++) {
		const struct json *b = v->items[i];
		struct sv_bind *bd = &s->binds[s->nbinds++];
		char	name[64];

		if (b->type != JSON_OBJECT) {
			snprintf(err, errlen, "bindMounts[%zu]: expected an "
			    "object", i);
			return -1;
		}
		for (k = 0; k < b->n; k++) {
			const char *key = b->keys[k];

			snprintf(name, sizeof(name), "bindMounts[%zu].%s", i,
			    key);
			if (strcmp(key, "hostPath") == 0) {
				if (get_str(b->items[k], name, &bd->host_path,
				    err, errlen) == -1)
					return -1;
			} else if (strcmp(key, "guestPath") == 0) {
				if (get_str(b->items[k], name,
				    &bd->guest_path, err, errlen) == -1)
					return -1;
			} else if (strcmp(key, "readOnly") == 0) {
				if (b->items[k]->type != JSON_BOOL) {
					snprintf(err, errlen, "%s: expected a "
					    "boolean", name);
					return -1;
				}
				bd->read_only = b->items[k]->boolean;
			} else {
				snprintf(err, errlen, "%s: unknown field",
				    name);
				return -1;
			}
		}
		if (bd->host_path == NULL) {
			snprintf(err, errlen, "bindMounts[%zu].hostPath: "
			    "required", i);
			return -1;
		}
		if (bd->guest_path == NULL)
			bd->guest_path = xstrdup(bd->host_path);
	}
	return 0;
}

static int
parse_limits(const struct json *v, struct sv_limits *l, char *err,
    size_t errlen)
{
	size_t	 k;
	uint64_t u;

	if (v->type != JSON_OBJECT) {
		snprintf(err, errlen, "limits: expected an object");
		return -1;
	}
	for (k = 0; k < v->n; k++) {
		const char *key = v->keys[k];
		char	name[64];

		snprintf(name, sizeof(name), "limits.%s", key);
		if (get_u64(v->items[k], name, &u, err, errlen) == -1)
			return -1;
		if (strcmp(key, "timeoutSec") == 0)
			l->timeout_sec = (unsigned)u;
		else if (strcmp(key, "memoryBytes") == 0)
			l->memory_bytes = u;
		else if (strcmp(key, "pids") == 0)
			l->pids = (unsigned)u;
		else if (strcmp(key, "outputBytes") == 0)
			l->output_bytes = u;
		else {
			snprintf(err, errlen, "%s: unknown field", name);
			return -1;
		}
	}
	return 0;
}

/*
 * "claudeLogin": {"file": absolute path, "host": where its token goes}.
 * From the client (the user), not from a sandbox; checked all the same.
 */
static int
parse_login(const struct json *v, struct sv_spec *s, char *err,
    size_t errlen)
{
	const char	*f, *h;

	f = v->type == JSON_OBJECT ? json_get_str(v, "file") : NULL;
	h = v->type == JSON_OBJECT ? json_get_str(v, "host") : NULL;
	if (f == NULL || h == NULL || v->n != 2) {
		snprintf(err, errlen, "claudeLogin: expected {\"file\": "
		    "PATH, \"host\": HOST}");
		return -1;
	}
	if (f[0] != '/' || strstr(f, "/../") != NULL ||
	    strlen(f) >= PATH_MAX) {
		snprintf(err, errlen, "claudeLogin.file: expected an absolute "
		    "path");
		return -1;
	}
	if (!pxmask_host_ok(h)) {
		snprintf(err, errlen, "claudeLogin.host: expected a host name "
		    "or IPv4 address in lower case, without a port");
		return -1;
	}
	s->login_file = xstrdup(f);
	s->login_host = xstrdup(h);
	return 0;
}

/*
 * "maskPassed": [{"name": VAR, "host": HOST, "header": FIELD}, ...]: a
 * variable of passEnv masked toward HOST in header FIELD.
 */
static int
parse_mask_passed(const struct json *v, struct sv_spec *s, char *err,
    size_t errlen)
{
	const struct json *e;
	const char	*n, *h, *f;
	size_t		 i;

	if (v->type != JSON_ARRAY) {
		snprintf(err, errlen, "maskPassed: expected an array");
		return -1;
	}
	for (i = 0; i < v->n; i++) {
		e = v->items[i];
		n = e->type == JSON_OBJECT ? json_get_str(e, "name") : NULL;
		h = e->type == JSON_OBJECT ? json_get_str(e, "host") : NULL;
		f = e->type == JSON_OBJECT ? json_get_str(e, "header") : NULL;
		if (n == NULL || h == NULL || f == NULL || e->n != 3 ||
		    n[0] == '\0' || strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(n) ||
		    f[0] == '\0' || strspn(f, "abcdefghijklmnopqrstuvwxyz"
		    "0123456789-") != strlen(f) || !pxmask_host_ok(h)) {
			snprintf(err, errlen, "maskPassed[%zu]: expected "
			    "{\"name\": VARIABLE, \"host\": HOST, \"header\": "
			    "lower-case-name}", i);
			return -1;
		}
		s->mask_passed = strv_add(s->mask_passed, n);
		s->mask_passed = strv_add(s->mask_passed, h);
		s->mask_passed = strv_add(s->mask_passed, f);
	}
	return 0;
}

int
sv_spec_from_json(const struct json *o, struct sv_spec *s, char *err,
    size_t errlen)
{
	size_t	 i;
	char	*mode = NULL;
	int	 rc = -1;

	memset(s, 0, sizeof(*s));
	s->network_enabled = 1;
	s->mode = POL_MODE_CHAT;
	if (o == NULL || o->type != JSON_OBJECT) {
		snprintf(err, errlen, "spec: expected an object");
		return -1;
	}
	for (i = 0; i < o->n; i++) {
		const char *k = o->keys[i];
		const struct json *v = o->items[i];
		int r = 0;

		if (strcmp(k, "sessionId") == 0)
			r = get_str(v, k, &s->session_id, err, errlen);
		else if (strcmp(k, "workspaceId") == 0)
			r = get_str(v, k, &s->workspace_id, err, errlen);
		else if (strcmp(k, "agentId") == 0)
			r = v->type == JSON_NULL ? 0 :
			    get_str(v, k, &s->agent_id, err, errlen);
		else if (strcmp(k, "bindMounts") == 0)
			r = parse_binds(v, s, err, errlen);
		else if (strcmp(k, "networkEnabled") == 0) {
			if (v->type != JSON_BOOL) {
				snprintf(err, errlen, "%s: expected a boolean",
				    k);
				r = -1;
			} else
				s->network_enabled = v->boolean;
		} else if (strcmp(k, "pushGateway") == 0) {
			/* false: the terminal profile (R-A4). */
			if (v->type != JSON_BOOL) {
				snprintf(err, errlen, "%s: expected a boolean",
				    k);
				r = -1;
			} else
				s->no_push_gateway = !v->boolean;
		} else if (strcmp(k, "egressAllowlist") == 0)
			r = get_strv(v, k, &s->egress_allowlist, err, errlen);
		else if (strcmp(k, "guestWorkdir") == 0)
			r = v->type == JSON_NULL ? 0 :
			    get_str(v, k, &s->guest_workdir, err, errlen);
		else if (strcmp(k, "mode") == 0) {
			r = get_str(v, k, &mode, err, errlen);
			if (r == 0 && pol_mode_parse(mode, &s->mode) == -1) {
				snprintf(err, errlen, "mode: expected chat, "
				    "plan, review or orchestrate");
				r = -1;
			}
		} else if (strcmp(k, "protectedPaths") == 0)
			r = get_strv(v, k, &s->protected_paths, err, errlen);
		else if (strcmp(k, "runnerStateDirs") == 0)
			r = get_strv(v, k, &s->runner_state_dirs, err,
			    errlen);
		else if (strcmp(k, "runnerPrivateDirs") == 0)
			r = get_strv(v, k, &s->runner_private_dirs, err,
			    errlen);
		else if (strcmp(k, "execGrantRoots") == 0)
			r = get_strv(v, k, &s->exec_grant_roots, err, errlen);
		else if (strcmp(k, "denyRead") == 0)
			r = get_strv(v, k, &s->deny_read, err, errlen);
		else if (strcmp(k, "denyWrite") == 0)
			r = get_strv(v, k, &s->deny_write, err, errlen);
		else if (strcmp(k, "limits") == 0)
			r = parse_limits(v, &s->limits, err, errlen);
		else if (strcmp(k, "backend") == 0)
			r = v->type == JSON_NULL ? 0 :
			    get_str(v, k, &s->backend, err, errlen);
		else if (strcmp(k, "originRepo") == 0)
			r = v->type == JSON_NULL ? 0 :
			    get_str(v, k, &s->origin_repo, err, errlen);
		else if (strcmp(k, "workspaceOrigin") == 0)
			r = v->type == JSON_NULL ? 0 :
			    get_str(v, k, &s->workspace_origin, err, errlen);
		else if (strcmp(k, "conversationId") == 0)
			r = v->type == JSON_NULL ? 0 :
			    get_str(v, k, &s->conversation_id, err, errlen);
		else if (strcmp(k, "agentConfigDir") == 0)
			r = v->type == JSON_NULL ? 0 :
			    get_str(v, k, &s->agent_config_dir, err, errlen);
		else if (strcmp(k, "maskPassed") == 0)
			r = parse_mask_passed(v, s, err, errlen);
		else if (strcmp(k, "claudeLogin") == 0)
			r = v->type == JSON_NULL ? 0 :
			    parse_login(v, s, err, errlen);
		else if (strcmp(k, "attachmentsDir") == 0)
			r = v->type == JSON_NULL ? 0 :
			    get_str(v, k, &s->attachments_dir, err, errlen);
#ifdef AIRLOCK_TEST_BUILD
		/* Test build only (tests/tests.mk): never in a shipped one. */
		else if (strcmp(k, "testUnlistedBind") == 0)
			r = get_str(v, k, &s->test_unlisted_bind, err, errlen);
#endif
		else {
			snprintf(err, errlen, "spec.%s: unknown field", k);
			r = -1;
		}
		if (r == -1)
			goto out;
	}
	if (s->session_id == NULL || s->session_id[0] == '\0' ||
	    strlen(s->session_id) > 128 ||
	    strspn(s->session_id, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") !=
	    strlen(s->session_id)) {
		snprintf(err, errlen, "sessionId: required, 1-128 of "
		    "[A-Za-z0-9._-]");
		goto out;
	}
	rc = 0;
out:
	free(mode);
	if (rc == -1)
		sv_spec_free(s);
	return rc;
}
