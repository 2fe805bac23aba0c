// SPDX-License-Identifier: ISC
/*
 * Unit tests for common/host/settings.c: defaults of SPEC §12, layering,
 * managed locks, errors that name the key, atomic layers, the
 * sandbox-runtime format and push-rule decisions.
 */
#include <sys/stat.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/host/settings.h"
#include "common/xmalloc.h"
#include "tests/unit/unit.h"

static struct settings	S;
static char		E[512];

static int
merge(const char *text, int managed)
{
	return settings_merge_text(&S, text, strlen(text), "test.json",
	    managed, E, sizeof(E));
}

static int
has(char **v, const char *s)
{
	for (; v != NULL && *v != NULL; v++)
		if (strcmp(*v, s) == 0)
			return 1;
	return 0;
}

static void
setup(void)
{
	setenv("HOME", "/home/tester", 1);
	settings_defaults(&S);
}

static void
teardown(void)
{
	settings_free(&S);
}

START_TEST(defaults)
{
	ck_assert_int_eq(S.sandbox_enabled, 1);
	ck_assert_int_eq(S.fail_if_unavailable, 0);
	ck_assert_int_eq(S.allow_unsandboxed, 1);
	ck_assert(has(S.enabled_platforms, "linux"));
	ck_assert(has(S.enabled_platforms, "macos"));
	ck_assert_int_eq(S.rules[POL_CLASS_CREATE_COMMIT], POL_ALLOW);
	ck_assert_int_eq(S.rules[POL_CLASS_OPEN_PULL_REQUEST], POL_ASK);
	ck_assert_int_eq(S.rules[POL_CLASS_INSTALL_PACKAGE], POL_ASK);
	ck_assert_int_eq(S.rules[POL_CLASS_NETWORK_ACCESS], POL_ALLOW);
	ck_assert_uint_eq(S.nhosts, 1);
	ck_assert_str_eq(S.hosts[0].name, "github");
	ck_assert_str_eq(S.hosts[0].upstream, "https://github.com/");
	ck_assert(has(S.hosts[0].push_prefixes, "https://github.com/"));
	ck_assert(has(S.hosts[0].push_prefixes, "git@github.com:"));
	ck_assert(has(S.hosts[0].push_prefixes, "ssh://git@github.com/"));
	ck_assert(S.hosts[0].ca_bundle == NULL);
	ck_assert_uint_eq(S.npush_rules, 3);
	ck_assert_str_eq(S.push_rules[0].ref, "refs/heads/main");
	ck_assert_int_eq(S.push_rules[0].action, POL_DENY);
	ck_assert_int_eq(S.push_rules[1].action, POL_ASK);
	ck_assert_int_eq(S.push_rules[2].action, POL_ALLOW);
	ck_assert_str_eq(S.credentials_file,
	    "/home/tester/.config/airlock/credentials.json");
	ck_assert(S.deny_read != NULL && S.deny_read[0] == NULL);
}
END_TEST

START_TEST(full_file)
{
	ck_assert_int_eq(merge("{\"sandbox\":{\"enabled\":false,"
	    "\"failIfUnavailable\":true,\"allowUnsandboxedCommands\":false,"
	    "\"enabledPlatforms\":[\"linux\"],\"filesystem\":{\"allowWrite\":"
	    "[\"~/w\"],\"denyWrite\":[\"/x\"],\"allowRead\":[],\"denyRead\":"
	    "[\"~/.ssh\"]},\"network\":{\"allowedDomains\":[\"github.com\"],"
	    "\"deniedDomains\":[\"evil.com\"]}},\"rules\":{\"create-commit\":"
	    "\"ask\",\"network-access\":\"deny\"},\"git\":{\"codeHosts\":[{"
	    "\"name\":\"ghe\",\"pushUrlPrefixes\":[\"https://ghe.local/\"],"
	    "\"upstream\":\"http://127.0.0.1:9/\",\"caBundle\":null}],"
	    "\"linkedRepos\":[\"acme/app\"],\"pushRules\":[{\"ref\":"
	    "\"refs/heads/*\",\"action\":\"ask\"}]},\"credentials\":{\"file\":"
	    "\"~/creds.json\"}}", 0), 0);
	ck_assert_int_eq(S.sandbox_enabled, 0);
	ck_assert_int_eq(S.fail_if_unavailable, 1);
	ck_assert_int_eq(S.allow_unsandboxed, 0);
	ck_assert(!has(S.enabled_platforms, "macos"));
	ck_assert(has(S.allow_write, "/home/tester/w"));
	ck_assert(has(S.deny_read, "/home/tester/.ssh"));
	ck_assert(has(S.allowed_domains, "github.com"));
	ck_assert(has(S.denied_domains, "evil.com"));
	ck_assert_int_eq(S.rules[POL_CLASS_CREATE_COMMIT], POL_ASK);
	ck_assert_int_eq(S.rules[POL_CLASS_NETWORK_ACCESS], POL_DENY);
	ck_assert_int_eq(S.rules[POL_CLASS_OPEN_PULL_REQUEST], POL_ASK);
	ck_assert_uint_eq(S.nhosts, 1);
	ck_assert_str_eq(S.hosts[0].name, "ghe");
	ck_assert_str_eq(S.hosts[0].upstream, "http://127.0.0.1:9/");
	ck_assert(has(S.linked_repos, "acme/app"));
	ck_assert_uint_eq(S.npush_rules, 1);
	ck_assert_int_eq(S.push_rules[0].action, POL_ASK);
	ck_assert_str_eq(S.credentials_file, "/home/tester/creds.json");
}
END_TEST

START_TEST(list_entries_checked)
{
	static const struct { const char *text, *needle; } bad[] = {
		{ "{\"sandbox\":{\"network\":{\"allowedDomains\":"
		    "[\"https://x.com/p\"]}}}", "(here: \"x.com\")" },
		{ "{\"network\":{\"deniedDomains\":[\"a.com\",\"b.com/x\"]}}",
		    "element 1 \"b.com/x\": a domain has no path" },
		{ "{\"sandbox\":{\"filesystem\":{\"allowWrite\":[\"\"]}}}",
		    "element 0 is empty" },
		{ "{\"sandbox\":{\"env\":{\"pass\":[\"A-B\"]}}}",
		    "not a variable name" },
	};
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		settings_free(&S);
		settings_defaults(&S);
		ck_assert_int_eq(merge(bad[i].text, 0), -1);
		ck_assert_msg(strstr(E, bad[i].needle) != NULL, "%s", E);
		ck_assert_ptr_null(S.allowed_domains == NULL ? NULL :
		    S.allowed_domains[0]);
	}
	settings_free(&S);
	settings_defaults(&S);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{\"allowedDomains"
	    "\":[\"*.x.com:443\",\"10.0.0.0/8\"]},\"env\":{\"pass\":"
	    "[\"MY_KEY\"]}}}", 0), 0);
	ck_assert(has(S.allowed_domains, "10.0.0.0/8"));
}
END_TEST

START_TEST(errors_name_the_key)
{
	static const struct { const char *text, *needle; } bad[] = {
		{ "{\"sandbox\":{\"enabld\":true}}", "sandbox.enabld" },
		{ "{\"sandbox\":{\"enabled\":\"yes\"}}", "sandbox.enabled" },
		{ "{\"sandbox\":{\"filesystem\":{\"denyRead\":[1]}}}",
		    "sandbox.filesystem.denyRead" },
		{ "{\"sandbox\":{\"network\":{\"allowedDomains\":\"x\"}}}",
		    "sandbox.network.allowedDomains" },
		{ "{\"sandbox\":{\"enabledPlatforms\":[\"windows\"]}}",
		    "sandbox.enabledPlatforms" },
		{ "{\"rules\":{\"create-commit\":\"maybe\"}}",
		    "rules.create-commit" },
		{ "{\"rules\":{\"launch-missiles\":\"deny\"}}",
		    "rules.launch-missiles" },
		{ "{\"git\":{\"pushRules\":[{\"ref\":\"x\"}]}}",
		    "git.pushRules[0]" },
		{ "{\"git\":{\"pushRules\":[{\"ref\":\"x\","
		    "\"action\":\"ok\"}]}}",
		    "git.pushRules[0].action" },
		{ "{\"git\":{\"codeHosts\":[{\"name\":\"x\"}]}}",
		    "git.codeHosts[0]" },
		{ "{\"git\":{\"codeHosts\":[{\"name\":\"x\",\"upstream\":\"u\","
		    "\"token\":\"t\"}]}}", "git.codeHosts[0].token" },
		{ "{\"credentials\":{\"file\":3}}", "credentials.file" },
		{ "{\"credentials\":{\"token\":\"x\"}}", "credentials.token" },
		{ "{\"worktrees\":{\"dir\":\"/x\"}}", "worktrees.dir" },
		{ "{\"worktrees\":{\"dataDir\":\"\"}}", "worktrees.dataDir" },
		{ "{\"worktrees\":{\"dataDir\":1}}", "worktrees.dataDir" },
		{ "{\"worktrees\":[]}", "worktrees" },
		{ "{\"bogus\":1}", "bogus" },
		{ "{\"network\":{\"allowedDomain\":[]}}",
		    "network.allowedDomain" },
		{ "{\"sandbox\":{\"network\":{\"allowedDomains\":[\"a\"]}},"
		    "\"network\":{\"allowedDomains\":[\"b\"]}}",
		    "network.allowedDomains" },
		{ "[1]", "top level" },
		{ "{\"a\":1,\"a\":2}", "duplicate" },
		{ "{", "test.json" },
	};
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(merge(bad[i].text, 0) == -1, "accepted %s",
		    bad[i].text);
		ck_assert_msg(strstr(E, bad[i].needle) != NULL, "%s: error "
		    "\"%s\" does not name %s", bad[i].text, E, bad[i].needle);
		ck_assert(strstr(E, "test.json") != NULL);
	}
}
END_TEST

START_TEST(bad_layer_changes_nothing)
{
	ck_assert_int_eq(merge("{\"sandbox\":{\"enabled\":false,"
	    "\"filesystem\":{\"denyRead\":[\"/a\"]},\"bogus\":1}}", 0), -1);
	ck_assert_int_eq(S.sandbox_enabled, 1);
	ck_assert(S.deny_read[0] == NULL);
}
END_TEST

START_TEST(srt_format)
{
	ck_assert_int_eq(merge("{\"network\":{\"allowedDomains\":[\"a.com\","
	    "\"*.b.com\"],\"deniedDomains\":[\"c.com\"],\"allowUnixSockets\":"
	    "[\"/var/run/x.sock\"],\"allowAllUnixSockets\":true,"
	    "\"allowLocalBinding\":true},\"filesystem\":"
	    "{\"denyRead\":[\"~/.ssh\"],\"allowWrite\":[\".\",\"/tmp\"],"
	    "\"denyWrite\":[\".env\"]},\"ignoreViolations\":{\"*\":[\"/x\"]},"
	    "\"enableWeakerNestedSandbox\":false}", 0), 0);
	ck_assert(has(S.allowed_domains, "*.b.com"));
	ck_assert(has(S.denied_domains, "c.com"));
	ck_assert(has(S.deny_read, "/home/tester/.ssh"));
	ck_assert(has(S.allow_write, "/tmp"));
	ck_assert(has(S.deny_write, ".env"));
	/* Unsupported srt keys are notes, not errors; so is the srt
	 * allowlist being the whole list (no baseline). */
	ck_assert_uint_eq(strv_len(S.notes), 5);
	ck_assert(strstr(S.notes[0], "network.allowedDomains") != NULL);
	ck_assert(strstr(S.notes[0], "no built-in baseline") != NULL);
	ck_assert_int_eq(S.egress_baseline, 0);
	/* allowUnixSockets is applied; allowAll... stays a note. */
	ck_assert(has(S.allow_unix_sockets, "/var/run/x.sock"));
	ck_assert(strstr(S.notes[1], "network.allowAllUnixSockets") != NULL);
	ck_assert(strstr(S.notes[1], "ignored") != NULL);
	/* srt's filesystem-only key is a note in srt's spelling alone. */
	ck_assert_int_eq(merge("{\"filesystem\":{\"allowGitConfig\":true}}",
	    0), 0);
	ck_assert_uint_eq(strv_len(S.notes), 6);
	ck_assert_int_eq(merge("{\"sandbox\":{\"filesystem\":{"
	    "\"allowGitConfig\":true}}}", 0), -1);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"allowedDomain\":[\"a.com\"]}}}", 0), -1);
	/* An srt credentials section is a note, not a refusal. */
	ck_assert_int_eq(merge("{\"credentials\":{\"github\":{\"token\":"
	    "\"x\"}},\"network\":{\"deniedDomains\":[]}}", 0), 0);
	ck_assert(strstr(S.notes[strv_len(S.notes) - 1],
	    "credentials.github") != NULL);
}
END_TEST

START_TEST(unix_sockets)
{
	ck_assert_int_eq(S.allow_unix_bind, 1);
	ck_assert(S.allow_unix_sockets[0] == NULL);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"allowUnixSockets\":[\"/run/a.sock\",\"/run/b.sock\"],"
	    "\"allowUnixBind\":false}}}", 0), 0);
	ck_assert(has(S.allow_unix_sockets, "/run/b.sock"));
	ck_assert_int_eq(S.allow_unix_bind, 0);
	ck_assert_uint_eq(strv_len(S.notes), 0);
	/* Wrong types, and both spellings in one layer, are errors. */
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"allowUnixSockets\":\"/run/a.sock\"}}}", 0), -1);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"allowUnixBind\":\"no\"}}}", 0), -1);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"allowUnixSockets\":[1]}}}", 0), -1);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"allowUnixSockets\":[]}},\"network\":{"
	    "\"allowUnixSockets\":[]}}", 0), -1);
}
END_TEST

START_TEST(json_error_position)
{
	/* A parse error names line and column, for a file fixed by hand. */
	ck_assert_int_eq(merge("{\n  \"rules\": {\n    \"create-commit\": "
	    "deny\n  }\n}\n", 0), -1);
	ck_assert_msg(strstr(E, "line 3, column ") != NULL, "%s", E);
	ck_assert_int_eq(merge("{\"a\": 1,\n\"a\": 2}", 0), -1);
	ck_assert_msg(strstr(E, "line 2, column ") != NULL, "%s", E);
	ck_assert(strstr(E, "duplicate") != NULL);
}
END_TEST

START_TEST(baseline_switch)
{
	/* airlock's format keeps the baseline unless told otherwise. */
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"allowedDomains\":[\"a.com\"]}}}", 0), 0);
	ck_assert_int_eq(S.egress_baseline, 1);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"useBaseline\":false}}}", 0), 0);
	ck_assert_int_eq(S.egress_baseline, 0);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"useBaseline\":1}}}", 0), -1);
}
END_TEST

START_TEST(managed_wins_and_locks)
{
	/* user, then managed: managed wins and is locked. */
	ck_assert_int_eq(merge("{\"sandbox\":{\"enabled\":false},\"rules\":{"
	    "\"install-package\":\"allow\"}}", 0), 0);
	ck_assert_int_eq(merge("{\"sandbox\":{\"enabled\":true},\"rules\":{"
	    "\"install-package\":\"deny\"},\"network\":{\"deniedDomains\":"
	    "[\"x.com\"]}}", 1), 0);
	ck_assert_int_eq(S.sandbox_enabled, 1);
	ck_assert_int_eq(S.rules[POL_CLASS_INSTALL_PACKAGE], POL_DENY);
	ck_assert(settings_is_locked(&S, "sandbox.enabled"));
	ck_assert(settings_is_locked(&S, "rules.install-package"));
	ck_assert(settings_is_locked(&S, "sandbox.network.deniedDomains"));
	ck_assert(settings_is_locked(&S, "sandbox"));	/* a parent */
	ck_assert(!settings_is_locked(&S, "rules.create-commit"));
	ck_assert(!settings_is_locked(&S, "sandbox.failIfUnavailable"));
	/* A later non-managed layer cannot change a locked key. */
	ck_assert_int_eq(merge("{\"sandbox\":{\"enabled\":false,"
	    "\"failIfUnavailable\":true},\"rules\":{\"install-package\":"
	    "\"allow\"}}", 0), 0);
	ck_assert_int_eq(S.sandbox_enabled, 1);
	ck_assert_int_eq(S.rules[POL_CLASS_INSTALL_PACKAGE], POL_DENY);
	ck_assert_int_eq(S.fail_if_unavailable, 1);
	ck_assert_uint_ge(strv_len(S.notes), 2);
	ck_assert(strstr(S.notes[0], "policyLocked") != NULL);
}
END_TEST

START_TEST(managed_forbids_unconfined)
{
	char	buf[512];

	/* Defaults: nothing forbids --sandbox off. */
	ck_assert_ptr_null(settings_forbid_unconfined(&S, buf, sizeof(buf)));
	/* A user's enabled=true is only a default the flag may override. */
	ck_assert_int_eq(merge("{\"sandbox\":{\"enabled\":true}}", 0), 0);
	ck_assert_ptr_null(settings_forbid_unconfined(&S, buf, sizeof(buf)));
	/* Managed enabled=true forbids it, naming the file. */
	ck_assert_int_eq(settings_merge_text(&S, "{\"sandbox\":{\"enabled\":"
	    "true}}", 28, "/etc/m.json", 1, E, sizeof(E)), 0);
	ck_assert_ptr_nonnull(settings_forbid_unconfined(&S, buf,
	    sizeof(buf)));
	ck_assert(strstr(buf, "managed policy /etc/m.json") != NULL);
	ck_assert(strstr(buf, "sandbox.enabled") != NULL);
	settings_free(&S);
	settings_defaults(&S);
	/* allowUnsandboxedCommands=false, from any layer, names its file. */
	ck_assert_int_eq(settings_merge_text(&S, "{\"sandbox\":{"
	    "\"allowUnsandboxedCommands\":false}}", 46, "/home/u/s.json", 0,
	    E, sizeof(E)), 0);
	ck_assert_ptr_nonnull(settings_forbid_unconfined(&S, buf,
	    sizeof(buf)));
	ck_assert(strstr(buf, "/home/u/s.json sets "
	    "sandbox.allowUnsandboxedCommands: false") != NULL);
}
END_TEST

static char *
tmpfile_with(const char *text, mode_t mode)
{
	char	*path = strdup("/tmp/airlock-settings-XXXXXX");
	int	 fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	fchmod(fd, mode);
	close(fd);
	return path;
}

START_TEST(load_layers)
{
	char	*user, *cli, *managed;

	settings_free(&S);
	user = tmpfile_with("{\"rules\":{\"create-commit\":\"ask\"},"
	    "\"sandbox\":{\"enabled\":false}}", 0600);
	cli = tmpfile_with("{\"rules\":{\"create-commit\":\"deny\"}}", 0600);
	managed = tmpfile_with("{\"sandbox\":{\"enabled\":true}}", 0644);
	settings_defaults(&S);
	ck_assert_int_eq(settings_load(&S, user, cli, managed, E, sizeof(E)),
	    0);
	ck_assert_int_eq(S.rules[POL_CLASS_CREATE_COMMIT], POL_DENY);
	ck_assert_int_eq(S.sandbox_enabled, 1);
	ck_assert(settings_is_locked(&S, "sandbox.enabled"));
	settings_free(&S);
	/* A managed file others can write is refused. */
	chmod(managed, 0666);
	settings_defaults(&S);
	ck_assert_int_eq(settings_load(&S, user, NULL, managed, E, sizeof(E)),
	    -1);
	ck_assert(strstr(E, "writable") != NULL);
	settings_free(&S);
	/* A missing --settings file is an error; a missing user file is not. */
	settings_defaults(&S);
	ck_assert_int_eq(settings_load(&S, user, "/nonexistent/x.json",
	    "/nonexistent/m.json", E, sizeof(E)), -1);
	ck_assert(strstr(E, "/nonexistent/x.json") != NULL);
	ck_assert_int_eq(S.sandbox_enabled, 1);	/* reset to the defaults */
	settings_free(&S);
	unlink(user);
	unlink(cli);
	unlink(managed);
	free(user);
	free(cli);
	free(managed);
	settings_defaults(&S);
}
END_TEST

START_TEST(push_decide)
{
	char	r[256];

	ck_assert_int_eq(settings_push_decide(&S, "refs/heads/main",
	    POL_PUSH_UPDATE, r, sizeof(r)), POL_DENY);
	ck_assert_int_eq(settings_push_decide(&S, "refs/heads/release/1",
	    POL_PUSH_UPDATE, r, sizeof(r)), POL_ASK);
	ck_assert_int_eq(settings_push_decide(&S, "refs/heads/topic",
	    POL_PUSH_CREATE, r, sizeof(r)), POL_ALLOW);
	ck_assert_int_eq(settings_push_decide(&S, "refs/tags/v1",
	    POL_PUSH_CREATE, r, sizeof(r)), POL_DENY);
	ck_assert_int_eq(merge("{\"git\":{\"pushRules\":[]}}", 0), 0);
	ck_assert_int_eq(settings_push_decide(&S, "refs/heads/topic",
	    POL_PUSH_CREATE, r, sizeof(r)), POL_DENY);
}
END_TEST

START_TEST(expand_home)
{
	char	*p;

	p = settings_expand_home("~");
	ck_assert_str_eq(p, "/home/tester");
	free(p);
	p = settings_expand_home("~/a");
	ck_assert_str_eq(p, "/home/tester/a");
	free(p);
	p = settings_expand_home("~bob/a");
	ck_assert_str_eq(p, "~bob/a");
	free(p);
	p = settings_expand_home("/abs");
	ck_assert_str_eq(p, "/abs");
	free(p);
}
END_TEST

/* approvals.timeoutSeconds (issue 15): 60 by default, 1..86400. */
START_TEST(approvals_timeout)
{
	ck_assert_uint_eq(S.approvals_timeout, 60);
	ck_assert_int_eq(merge("{\"approvals\":{\"timeoutSeconds\":5}}", 0),
	    0);
	ck_assert_uint_eq(S.approvals_timeout, 5);
	ck_assert_int_eq(merge("{\"approvals\":{\"timeoutSeconds\":0}}", 0),
	    -1);
	ck_assert_ptr_nonnull(strstr(E, "approvals.timeoutSeconds"));
	ck_assert_int_eq(merge("{\"approvals\":{\"timeoutSeconds\":\"9\"}}",
	    0), -1);
	ck_assert_int_eq(merge("{\"approvals\":{\"other\":1}}", 0), -1);
	ck_assert_uint_eq(S.approvals_timeout, 5);
}
END_TEST

/* issue 16: where conversations' copies go; ~ is the home. */
START_TEST(worktrees_data_dir)
{
	ck_assert_ptr_null(S.worktrees_dir);
	ck_assert_int_eq(merge("{\"worktrees\":{\"dataDir\":\"~/wt\"}}",
	    0), 0);
	ck_assert_str_eq(S.worktrees_dir, "/home/tester/wt");
	ck_assert_int_eq(merge("{\"worktrees\":{\"dataDir\":\"/srv/wt\"}}",
	    0), 0);
	ck_assert_str_eq(S.worktrees_dir, "/srv/wt");
}
END_TEST

/* issue 16: how many repositories keep a spare copy; 4 by default. */
START_TEST(worktrees_spares)
{
	ck_assert_int_eq(S.worktrees_spares, 4);
	ck_assert_int_eq(merge("{\"worktrees\":{\"spares\":0}}", 0), 0);
	ck_assert_int_eq(S.worktrees_spares, 0);
	ck_assert_int_eq(merge("{\"worktrees\":{\"spares\":64}}", 0), 0);
	ck_assert_int_eq(S.worktrees_spares, 64);
	ck_assert_int_eq(merge("{\"worktrees\":{\"spares\":65}}", 0), -1);
	ck_assert_ptr_nonnull(strstr(E, "worktrees.spares"));
	ck_assert_int_eq(merge("{\"worktrees\":{\"spares\":-1}}", 0), -1);
	ck_assert_int_eq(merge("{\"worktrees\":{\"spares\":true}}", 0),
	    -1);
	ck_assert_int_eq(S.worktrees_spares, 64);
}
END_TEST

/* proxyd's per-session cap: 1024 by default, 1 to 65536, canon only. */
START_TEST(max_connections)
{
	ck_assert_uint_eq(S.max_connections, 1024);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"maxConnections\":20}}}", 0), 0);
	ck_assert_uint_eq(S.max_connections, 20);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"maxConnections\":0}}}", 0), -1);
	ck_assert_ptr_nonnull(strstr(E, "sandbox.network.maxConnections"));
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"maxConnections\":65537}}}", 0), -1);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"maxConnections\":1.5}}}", 0), -1);
	ck_assert_int_eq(merge("{\"network\":{\"maxConnections\":5}}", 0),
	    -1);
	ck_assert_uint_eq(S.max_connections, 20);
	/* Managed: locked, a user's layer is ignored. */
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"maxConnections\":8}}}", 1), 0);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"maxConnections\":4000}}}", 0), 0);
	ck_assert_uint_eq(S.max_connections, 8);
}
END_TEST

/* sandbox.network.upstream and srt's proxy ports. */
START_TEST(upstream)
{
	ck_assert_ptr_null(S.upstream_http);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{\"upstream\":{"
	    "\"http\":\"http://localhost:3128\",\"socks5\":"
	    "\"socks5://[::1]:1080\",\"noProxy\":[\"*.internal\"],"
	    "\"credential\":\"PROXY\"}}}}", 0), 0);
	ck_assert_str_eq(S.upstream_http, "127.0.0.1:3128");
	ck_assert_str_eq(S.upstream_socks5, "[::1]:1080");
	ck_assert_str_eq(S.upstream_no_proxy[0], "*.internal");
	ck_assert_str_eq(S.upstream_credential, "PROXY");
	/* a name, no port, a path, a bad pattern: refused by key */
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{\"upstream\":{"
	    "\"http\":\"http://proxy.corp:3128\"}}}}", 0), -1);
	ck_assert_ptr_nonnull(strstr(E, "sandbox.network.upstream.http"));
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{\"upstream\":{"
	    "\"http\":\"http://10.0.0.1:3128/\"}}}}", 0), -1);
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{\"upstream\":{"
	    "\"socks5\":\"10.0.0.1\"}}}}", 0), -1);
	ck_assert_ptr_nonnull(strstr(E, "sandbox.network.upstream.socks5"));
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{\"upstream\":{"
	    "\"noProxy\":[\"a b\"]}}}}", 0), -1);
	ck_assert_ptr_nonnull(strstr(E, "sandbox.network.upstream.noProxy"));
	ck_assert_str_eq(S.upstream_http, "127.0.0.1:3128");
	/* srt: a proxy on the local host, with a note */
	ck_assert_int_eq(merge("{\"network\":{\"httpProxyPort\":8080,"
	    "\"socksProxyPort\":1081}}", 0), 0);
	ck_assert_str_eq(S.upstream_http, "127.0.0.1:8080");
	ck_assert_str_eq(S.upstream_socks5, "127.0.0.1:1081");
	ck_assert_int_eq(merge("{\"network\":{\"httpProxyPort\":0}}", 0),
	    -1);
	/* Claude Code's spelling, under sandbox: applied the same way */
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"httpProxyPort\":8081,\"socksProxyPort\":1082}}}", 0), 0);
	ck_assert_str_eq(S.upstream_http, "127.0.0.1:8081");
	ck_assert_str_eq(S.upstream_socks5, "127.0.0.1:1082");
	ck_assert_int_eq(merge("{\"sandbox\":{\"network\":{"
	    "\"httpProxyPort\":70000}}}", 0), -1);
	ck_assert_ptr_nonnull(strstr(E, "sandbox.network.httpProxyPort"));
	ck_assert_int_eq(merge("{\"network\":{\"httpProxyPort\":1},"
	    "\"sandbox\":{\"network\":{\"upstream\":{\"http\":"
	    "\"http://127.0.0.1:2\"}}}}", 0), -1);
	ck_assert_ptr_nonnull(strstr(E, "set twice"));
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("settings");
	TCase	*tc = tcase_create("settings");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, full_file);
	tcase_add_test(tc, errors_name_the_key);
	tcase_add_test(tc, bad_layer_changes_nothing);
	tcase_add_test(tc, srt_format);
	tcase_add_test(tc, unix_sockets);
	tcase_add_test(tc, managed_wins_and_locks);
	tcase_add_test(tc, baseline_switch);
	tcase_add_test(tc, json_error_position);
	tcase_add_test(tc, managed_forbids_unconfined);
	tcase_add_test(tc, load_layers);
	tcase_add_test(tc, push_decide);
	tcase_add_test(tc, expand_home);
	tcase_add_test(tc, approvals_timeout);
	tcase_add_test(tc, worktrees_data_dir);
	tcase_add_test(tc, worktrees_spares);
	tcase_add_test(tc, max_connections);
	tcase_add_test(tc, upstream);
	tcase_add_test(tc, list_entries_checked);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
