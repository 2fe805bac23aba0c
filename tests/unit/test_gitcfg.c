/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for supervisor/gitcfg.c.  The rendered text is checked by
 * the real git: parsed with `git config -f`, and used as a global config
 * to see that every push URL form of a code host is rewritten to the
 * gateway while fetch URLs are not.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/gitcfg.h"
#include "tests/unit/sv_fixture.h"
#include "tests/unit/unit.h"

static char	tmpdir[] = "/tmp/test_gitcfg.XXXXXX";

/* Run a shell command with HOME pointing at the rendered config. */
static char *
run(const char *cmd)
{
	static char	 out[4096];
	char		*full;
	FILE		*p;
	size_t		 n;

	if (asprintf(&full, "cd %s && export HOME=%s GIT_CONFIG_NOSYSTEM=1 && %s "
	    "2>&1", tmpdir, tmpdir, cmd) < 0)
		return NULL;
	p = popen(full, "r");
	free(full);
	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	pclose(p);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

static void
write_cfg(const char *text)
{
	char	path[256];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/.gitconfig", tmpdir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(test_push_rewrites)
{
	struct settings	 s;
	char		*cfg;
	static const struct {
		const char *url, *push;
	} cases[] = {
		{ "https://github.com/acme/app.git",
		    "http://127.0.0.1:9418/github/acme/app.git" },
		{ "git@github.com:acme/app.git",
		    "http://127.0.0.1:9418/github/acme/app.git" },
		{ "ssh://git@github.com/acme/app",
		    "http://127.0.0.1:9418/github/acme/app" },
		{ "https://ghe.example.com/team/tool.git",
		    "http://127.0.0.1:9418/ghe/team/tool.git" },
		/* not a code host: untouched */
		{ "https://gitlab.example/x/y.git",
		    "https://gitlab.example/x/y.git" },
	};
	size_t		 i;
	char		 cmd[512];

	fx_settings(&s);
	cfg = gitcfg_render(&s, "http://127.0.0.1:9418", "/run/helper");
	ck_assert_ptr_nonnull(cfg);
	write_cfg(cfg);
	ck_assert_ptr_nonnull(strstr(cfg, "[http \"http://127.0.0.1:9418/\"]"
	    "\n\tproxy = \"\"\n"));
	run("git init -q r");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(cmd, sizeof(cmd), "git -C r remote remove o "
		    ">/dev/null 2>&1; git -C r remote add o '%s' && "
		    "git -C r remote get-url --push o", cases[i].url);
		ck_assert_str_eq(run(cmd), cases[i].push);
		/* Fetch is not rewritten: it uses the read-only token. */
		snprintf(cmd, sizeof(cmd), "git -C r remote get-url o");
		ck_assert_str_eq(run(cmd), cases[i].url);
	}
	ck_assert_str_eq(run("git config --get-all "
	    "credential.https://github.com.helper | tail -n 1"),
	    "/run/helper");
	ck_assert_str_eq(run("git config --get protocol.ext.allow"), "never");
	free(cfg);
}
END_TEST

START_TEST(test_quoting_and_refusals)
{
	struct settings	 s;
	struct code_host h[1];
	char		*pfx[] = { "https://x\"y/", NULL };
	char		*cfg;

	fx_settings(&s);
	/* A quote in a value is escaped, and git reads it back. */
	h[0] = (struct code_host){ "odd", pfx, "https://x/", NULL, 0 };
	s.hosts = h;
	s.nhosts = 1;
	cfg = gitcfg_render(&s, "http://127.0.0.1:1/", NULL);
	ck_assert_ptr_nonnull(cfg);
	write_cfg(cfg);
	ck_assert_str_eq(run("git config --get "
	    "url.http://127.0.0.1:1/odd/.pushInsteadOf"), "https://x\"y/");
	ck_assert_ptr_null(strstr(cfg, "[credential \"https"));
	free(cfg);
	/* A newline in a value, or an unsafe host name: refused. */
	pfx[0] = "https://x/\n[core]";
	ck_assert_ptr_null(gitcfg_render(&s, "http://127.0.0.1:1", NULL));
	pfx[0] = "https://x/";
	h[0].name = "a/b";
	ck_assert_ptr_null(gitcfg_render(&s, "http://127.0.0.1:1", NULL));
	h[0].name = "ok";
	ck_assert_ptr_null(gitcfg_render(&s, "http://127.0.0.1:1", "a\nb"));
}
END_TEST

int
main(void)
{
	Suite	*su = suite_create("gitcfg");
	TCase	*tc = tcase_create("core");
	int	 failed;
	char	 cmd[128];

	if (mkdtemp(tmpdir) == NULL)
		return EXIT_FAILURE;
	tcase_add_test(tc, test_push_rewrites);
	tcase_add_test(tc, test_quoting_and_refusals);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(su, tc);
	failed = unit_run(su);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		failed++;
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
