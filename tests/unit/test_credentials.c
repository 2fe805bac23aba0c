/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for supervisor/credentials.c: the 0600 rule, tokens and
 * credential commands, and that no error message contains a token.
 */
#include <sys/stat.h>

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/credentials.h"
#include "tests/unit/sv_fixture.h"

static char	dir[] = "/tmp/test_credentials.XXXXXX";

static char *
write_file(const char *name, const char *text, mode_t mode)
{
	static char	path[256];
	int		fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	chmod(path, mode);
	return path;
}

START_TEST(test_tokens)
{
	struct cred_store *cs;
	char		 err[256], *t, *path;

	path = write_file("c.json", "{\"github\": {\"writeToken\": \"w-SECRET1\","
	    " \"readToken\": \"r-SECRET2\"}, \"ghe\": {\"readToken\": "
	    "\"r-SECRET3\"}}", 0600);
	cs = cred_load(path, err, sizeof(err));
	ck_assert_msg(cs != NULL, "%s", err);
	t = cred_get(cs, "github", 1, err, sizeof(err));
	ck_assert_str_eq(t, "w-SECRET1");
	cred_secret_free(t);
	t = cred_get(cs, "github", 0, err, sizeof(err));
	ck_assert_str_eq(t, "r-SECRET2");
	cred_secret_free(t);
	ck_assert_ptr_null(cred_get(cs, "ghe", 1, err, sizeof(err)));
	ck_assert_str_eq(err, "no write token for code host ghe");
	ck_assert_ptr_null(cred_get(cs, "nope", 1, err, sizeof(err)));
	cred_free(cs);
	cred_secret_free(NULL);
}
END_TEST

START_TEST(test_mode_refused)
{
	char	err[256], *path;

	path = write_file("open.json", "{\"github\": {\"writeToken\": "
	    "\"w-SECRET1\"}}", 0644);
	ck_assert_ptr_null(cred_load(path, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "mode 0600"));
	ck_assert_ptr_null(strstr(err, "SECRET"));
	path = write_file("group.json", "{}", 0640);
	ck_assert_ptr_null(cred_load(path, err, sizeof(err)));
	/* A symlink to a good file is refused too. */
	path = write_file("good.json", "{}", 0600);
	{
		char link[256];

		snprintf(link, sizeof(link), "%s/link.json", dir);
		ck_assert_int_eq(symlink(path, link), 0);
		ck_assert_ptr_null(cred_load(link, err, sizeof(err)));
	}
}
END_TEST

START_TEST(test_errors_never_quote_tokens)
{
	char	err[256], *path;
	const char *bad[] = {
		"{\"github\": {\"writeToken\": \"has SECRET space\"}}",
		"{\"github\": {\"writeToken\": \"w-SECRET\", \"x\": 1}}",
		"{\"github\": {\"writeToken\": 42}}",
		"{\"github\": {\"writeToken\": \"w-SECRET\", "
		    "\"command\": [\"/bin/echo\"]}}",
		"{\"github\": {\"command\": [\"echo\", \"SECRET\"]}}",
		"{\"github\": {\"writeToken\": \"SECRET\"",
		"[\"SECRET\"]",
	};
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		path = write_file("bad.json", bad[i], 0600);
		err[0] = '\0';
		ck_assert_msg(cred_load(path, err, sizeof(err)) == NULL,
		    "accepted %s", bad[i]);
		ck_assert(err[0] != '\0');
		ck_assert_msg(strstr(err, "SECRET") == NULL, "%s", err);
	}
}
END_TEST

START_TEST(test_command)
{
	struct settings	 s;
	char		 err[256], *t, *path, json[512], script[256];

	snprintf(script, sizeof(script), "%s/helper.sh", dir);
	write_file("helper.sh", "#!/bin/sh\necho \"tok-$AIRLOCK_TOKEN_KIND-$1\"\n"
	    "echo second line\n", 0700);
	write_file("fail.sh", "#!/bin/sh\necho FAILSECRET\nexit 1\n", 0700);
	snprintf(json, sizeof(json), "{\"github\": {\"command\": [\"%s\", "
	    "\"x\"]}, \"bad\": {\"command\": [\"%s/fail.sh\"]}}", script,
	    dir);
	path = write_file("cmd.json", json, 0600);
	fx_settings(&s);
	s.credentials_file = path;
	t = cred_token(&s, "github", 1, err, sizeof(err));
	ck_assert_msg(t != NULL, "%s", err);
	ck_assert_str_eq(t, "tok-write-x");
	cred_secret_free(t);
	t = cred_token(&s, "github", 0, err, sizeof(err));
	ck_assert_str_eq(t, "tok-read-x");
	cred_secret_free(t);
	ck_assert_ptr_null(cred_token(&s, "bad", 1, err, sizeof(err)));
	ck_assert_ptr_null(strstr(err, "FAILSECRET"));
	s.credentials_file = NULL;
	ck_assert_ptr_null(cred_token(&s, "github", 1, err, sizeof(err)));
}
END_TEST

/*
 * The Claude login: the token and its placeholder out, the copy holding
 * placeholders and the kept keys only; refusals never quote a token.
 */
START_TEST(test_claude_login)
{
	static const char *const bad[][2] = {
		/* an expired login: named with its time */
		{ "{\"claudeAiOauth\":{\"accessToken\":\"sk-ant-oat01-"
		  "AAAASECRETAAAAAAAAAAAAAAAAAAAAAA\",\"expiresAt\":"
		  "1000000000000}}", "expired at 2001-09-09 01:46 UTC" },
		/* a token the header could not carry */
		{ "{\"claudeAiOauth\":{\"accessToken\":\"sk SECRET "
		  "AAAAAAAAAAAAAAAAAAAAAAAA\"}}", "not a token airlock" },
		{ "{\"claudeAiOauth\":{\"accessToken\":7}}",
		  "not a token airlock" },
		{ "{\"claudeAiOauth\":\"SECRET\"}", "not a token airlock" },
		/* too short to leave 16 random characters */
		{ "{\"claudeAiOauth\":{\"accessToken\":\"sk-SECRET\"}}",
		  "too short" },
		{ "[\"SECRET\"]", "not a JSON object" },
		{ "{\"claudeAiOauth\":{\"accessToken\":\"SECRET", "" },
	};
	char	 err[512], *tok, *ph, *copy, *path, link[256];
	size_t	 i;

	/* A login as Claude Code writes it, with an MCP server's token. */
	path = write_file("login.json", "{\"claudeAiOauth\":{\"accessToken\":"
	    "\"sk-ant-oat01-Abc123Def456Ghi789Jkl012\",\"refreshToken\":"
	    "\"sk-ant-ort01-Zyx987Wvu654Tsr321Qpo000\",\"expiresAt\":"
	    "4102444800000,\"scopes\":[\"user:inference\"],"
	    "\"subscriptionType\":\"max\",\"idToken\":\"LEFTOUT\"},"
	    "\"mcpOAuth\":{\"s\":{\"accessToken\":\"MCPSECRET\"}}}", 0600);
	ck_assert_int_eq(cred_claude_login(path, &tok, &ph, &copy, err,
	    sizeof(err)), 0);
	ck_assert_str_eq(tok, "sk-ant-oat01-Abc123Def456Ghi789Jkl012");
	ck_assert_uint_eq(strlen(ph), strlen(tok));
	ck_assert_str_ne(ph, tok);
	ck_assert_int_eq(strncmp(ph, "sk-ant-oat01-", 13), 0);
	ck_assert_ptr_nonnull(strstr(copy, ph));
	ck_assert_ptr_nonnull(strstr(copy, "\"refreshToken\":\"sk-ant-ort01-"));
	ck_assert_ptr_nonnull(strstr(copy, "\"expiresAt\":4102444800000"));
	ck_assert_ptr_nonnull(strstr(copy, "\"scopes\":[\"user:inference\"]"));
	ck_assert_ptr_nonnull(strstr(copy, "\"subscriptionType\":\"max\""));
	ck_assert_ptr_null(strstr(copy, "Abc123Def456"));
	ck_assert_ptr_null(strstr(copy, "Zyx987Wvu654"));
	ck_assert_ptr_null(strstr(copy, "LEFTOUT"));
	ck_assert_ptr_null(strstr(copy, "MCPSECRET"));
	cred_secret_free(tok);
	free(ph);
	free(copy);

	/* No login in the file (its MCP tokens only): an empty copy. */
	path = write_file("mcp.json", "{\"mcpOAuth\":{\"s\":{\"accessToken\":"
	    "\"MCPSECRET\"}}}", 0644);
	ck_assert_int_eq(cred_claude_login(path, &tok, &ph, &copy, err,
	    sizeof(err)), 0);
	ck_assert_ptr_null(tok);
	ck_assert_ptr_null(ph);
	ck_assert_str_eq(copy, "{}\n");
	free(copy);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		path = write_file("bad.json", bad[i][0], 0600);
		ck_assert_int_eq(cred_claude_login(path, &tok, &ph, &copy, err,
		    sizeof(err)), -1);
		ck_assert_ptr_null(tok);
		ck_assert_ptr_null(copy);
		ck_assert_msg(strstr(err, bad[i][1]) != NULL, "%zu: %s", i,
		    err);
		ck_assert_msg(strstr(err, "SECRET") == NULL, "%zu: %s", i, err);
	}

	/* A symbolic link is not followed. */
	path = write_file("login.json", "{}", 0600);
	snprintf(link, sizeof(link), "%s/login-link.json", dir);
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_int_eq(cred_claude_login(link, &tok, &ph, &copy, err,
	    sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "symbolic link"));
}
END_TEST

int
main(void)
{
	Suite	*su = suite_create("credentials");
	TCase	*tc = tcase_create("core");
	SRunner	*sr;
	int	 failed;
	char	 cmd[128];

	if (mkdtemp(dir) == NULL)
		return EXIT_FAILURE;
	tcase_add_test(tc, test_tokens);
	tcase_add_test(tc, test_mode_refused);
	tcase_add_test(tc, test_errors_never_quote_tokens);
	tcase_add_test(tc, test_command);
	tcase_add_test(tc, test_claude_login);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		failed++;
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
