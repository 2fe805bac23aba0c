// SPDX-License-Identifier: ISC
/*
 * Unit tests for the wrapper family of policy/ (issue 25, point 8 and the
 * audit's attack D): a command that runs a command is judged by what it
 * runs, or is opaque; it is never allowed because its own name is not in
 * the table.  Each wrapper runs "git push origin main" (which asks on its
 * own) and, where the wrapper is modelled, the harmless "ls" (which stays
 * allowed, in chat and in the read-only plan mode).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/classify.h"
#include "tests/unit/unit.h"

#define PUSH	"git push origin main"

/*
 * A wrapped push and the verdict it must get: the push's own rule
 * ("ask:git-push"), the opaque rule, or a hard deny the wrapper earns by
 * itself (privilege, namespaces).
 */
struct wcase {
	const char	*cmd;
	const char	*rule;		/* prefix of the rule */
};

#define SAME	"ask:git-push"
#define OPAQUE	"opaque:chat"
#define HARD	"hard-deny:"

static const struct wcase pushes[] = {
	/* the audit's list */
	{ "ssh-agent " PUSH, SAME },
	{ "ssh-agent -a /tmp/s -t 60 " PUSH, SAME },
	{ "fakeroot " PUSH, SAME },
	{ "fakeroot -s f -i f -- " PUSH, SAME },
	{ "faketime '2020-01-01 00:00:00' " PUSH, SAME },
	{ "faketime -f '+2d' " PUSH, SAME },
	{ "firejail " PUSH, SAME },
	{ "firejail --private --net=none " PUSH, SAME },
	{ "direnv exec . " PUSH, SAME },
	{ "mise exec -- " PUSH, SAME },
	{ "mise x node@20 -- " PUSH, SAME },
	{ "mise exec -c '" PUSH "'", SAME },
	{ "tmux new -d '" PUSH "'", SAME },
	{ "tmux new-session -d -s x '" PUSH "'", SAME },
	{ "tmux split-window " PUSH, SAME },
	{ "tmux send-keys '" PUSH "' Enter", OPAQUE },
	{ "tmux run-shell '" PUSH "'", SAME },
	{ "tmux ls \\; run '" PUSH "'", OPAQUE },
	{ "screen -dm " PUSH, SAME },
	{ "screen -dmS name " PUSH, SAME },
	{ "screen -X stuff '" PUSH "\n'", OPAQUE },
	{ "gdb --args " PUSH, SAME },
	{ "gdb -q --args " PUSH, SAME },
	{ "gdb -batch -ex 'shell " PUSH "'", OPAQUE },
	{ "eatmydata " PUSH, SAME },
	{ "tini -- " PUSH, SAME },
	{ "tini -s -g -p SIGKILL -- " PUSH, SAME },
	{ "dumb-init " PUSH, SAME },
	{ "dumb-init --single-child -r 15:9 " PUSH, SAME },
	{ "runuser -u x -- " PUSH, HARD },
	{ "runuser x -c '" PUSH "'", HARD },
	{ "cpulimit -l 50 -- " PUSH, SAME },
	{ "cpulimit -l50 " PUSH, SAME },
	{ "cpulimit --limit=50 -- " PUSH, SAME },
	{ "watchexec -- " PUSH, SAME },
	{ "watchexec -w src -e c -- " PUSH, SAME },
	{ "watchexec '" PUSH "'", OPAQUE },
	{ "nodemon --exec '" PUSH "'", OPAQUE },
	{ "bwrap --bind / / " PUSH, SAME },
	{ "bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all "
	    "--setenv A b --chdir / " PUSH, SAME },
	{ "bwrap --args 3 " PUSH, OPAQUE },
	{ "bwrap --no-such-option " PUSH, OPAQUE },
	/* daemontools, runit, s6 */
	{ "chpst -m 1000 " PUSH, OPAQUE },
	{ "softlimit -m 100000 " PUSH, SAME },
	{ "setuidgid u " PUSH, HARD },
	{ "s6-setuidgid u " PUSH, HARD },
	{ "envdir ./env " PUSH, SAME },
	{ "s6-envdir ./env " PUSH, SAME },
	{ "envuidgid u " PUSH, SAME },
	{ "pgrphack " PUSH, SAME },
	{ "setlock f " PUSH, SAME },
	{ "daemonize /usr/bin/" PUSH, OPAQUE },
	{ "start-stop-daemon --start --exec /usr/bin/git -- push", OPAQUE },
	/* privilege, hosts, containers */
	{ "su -c '" PUSH "'", HARD },
	{ "sg grp '" PUSH "'", HARD },
	{ "newgrp grp", HARD },
	{ "sudo " PUSH, HARD },
	{ "doas " PUSH, HARD },
	{ "pkexec " PUSH, HARD },
	{ "gosu u " PUSH, HARD },
	{ "su-exec u " PUSH, HARD },
	{ "systemd-run " PUSH, HARD },
	{ "flatpak-spawn --host " PUSH, HARD },
	{ "toolbox run " PUSH, OPAQUE },
	{ "distrobox-enter -- " PUSH, OPAQUE },
	{ "nsenter -t 1 " PUSH, HARD },
	{ "unshare -r " PUSH, HARD },
	{ "chroot / " PUSH, HARD },
	{ "schroot -c x -- " PUSH, HARD },
	{ "docker run img " PUSH, OPAQUE },
	{ "docker exec c " PUSH, OPAQUE },
	{ "podman run --rm img " PUSH, OPAQUE },
	{ "kubectl exec p -- " PUSH, SAME },
	{ "kubectl exec p " PUSH, OPAQUE },
	/* resource and tracing wrappers */
	{ "prlimit --nofile=1024 " PUSH, SAME },
	{ "prlimit -n1024 -- " PUSH, SAME },
	{ "trickle -d 100 -u 50 " PUSH, SAME },
	{ "rlwrap " PUSH, OPAQUE },
	{ "catchsegv " PUSH, SAME },
	{ "ltrace -o /dev/null " PUSH, SAME },
	{ "valgrind --tool=memcheck " PUSH, SAME },
	{ "perf record -g -- " PUSH, OPAQUE },
	{ "perf stat " PUSH, OPAQUE },
	{ "hyperfine '" PUSH "'", OPAQUE },
	{ "entr " PUSH, SAME },
	{ "entr -rs '" PUSH "'", SAME },
	{ "parallel " PUSH " ::: a", OPAQUE },
	{ "xargs -n1 " PUSH, SAME },
	{ "find . -exec " PUSH " \\;", SAME },
	{ "sshpass -p pw " PUSH, SAME },
	{ "systemd-inhibit --why x " PUSH, SAME },
	{ "systemd-cat -t tag " PUSH, SAME },
	{ "cgexec -g cpu:x " PUSH, SAME },
	{ "ifne " PUSH, SAME },
	{ "run-one " PUSH, SAME },
	{ "nocache " PUSH, SAME },
	{ "lckdo f " PUSH, SAME },
	{ "dbus-launch " PUSH, SAME },
	{ "authbind --deep " PUSH, SAME },
	{ "aa-exec -p prof -- " PUSH, SAME },
	{ "linux32 " PUSH, SAME },
	{ "arch -x86_64 " PUSH, SAME },
	{ "arch -arch x86_64 " PUSH, SAME },
	{ "torify " PUSH, SAME },
	{ "gdbserver :1234 " PUSH, SAME },
	{ "optirun " PUSH, SAME },
	{ "prime-run " PUSH, SAME },
	{ "gamemoderun " PUSH, SAME },
	{ "heaptrack " PUSH, SAME },
	{ "mpirun -np 2 " PUSH, OPAQUE },
	{ "proot " PUSH, OPAQUE },
	{ "fakechroot " PUSH, OPAQUE },
	{ "nsjail -- " PUSH, OPAQUE },
	{ "sem " PUSH, OPAQUE },
	{ "uftrace record " PUSH, OPAQUE },
	{ "rr record " PUSH, OPAQUE },
	{ "lldb -- " PUSH, OPAQUE },
	/* environments and package runners */
	{ "nix-shell --run '" PUSH "'", SAME },
	{ "nix-shell -p git --command '" PUSH "'", SAME },
	{ "nix develop -c " PUSH, SAME },
	{ "nix develop .#x --command " PUSH, SAME },
	{ "nix shell nixpkgs#git -c " PUSH, SAME },
	{ "nix run nixpkgs#git -- push origin main", OPAQUE },
	{ "guix shell -- " PUSH, OPAQUE },
	{ "conda run " PUSH, SAME },
	{ "conda run -n env " PUSH, SAME },
	{ "mamba run -n env " PUSH, SAME },
	{ "poetry run " PUSH, SAME },
	{ "pipenv run " PUSH, SAME },
	{ "uv run " PUSH, SAME },
	{ "hatch run " PUSH, SAME },
	{ "bundle exec " PUSH, SAME },
	{ "npm exec -- " PUSH, SAME },
	{ "pnpm exec " PUSH, SAME },
	{ "pnpm " PUSH, SAME },
	{ "pnpm sudo id", HARD },
	{ "yarn exec " PUSH, SAME },
	{ "yarn exec '" PUSH "'", SAME },
	/* attacks: glued values, "--", nesting, shells, env -S, aliases */
	{ "cpulimit -l50 -- " PUSH, SAME },
	{ "tini -pSIGKILL -- " PUSH, SAME },
	{ "ssh-agent -a/tmp/s " PUSH, SAME },
	{ "trickle -d100 " PUSH, SAME },
	{ "fakeroot --lib=x " PUSH, SAME },
	{ "timeout 5 fakeroot eatmydata tini -- " PUSH, SAME },
	{ "ssh-agent fakeroot nice -n 5 env A=1 " PUSH, SAME },
	{ "sh -c 'eatmydata " PUSH "'", SAME },
	{ "bash -c \"cpulimit -l 50 -- " PUSH "\"", SAME },
	{ "env -S 'fakeroot " PUSH "'", SAME },
	{ "alias w=eatmydata\nw " PUSH, SAME },
	{ "alias g='ssh-agent git'\ng push origin main", SAME },
	{ "f() { git push origin main; }; fakeroot f", SAME },
	{ "tmux new -d 'fakeroot " PUSH "'", SAME },
	{ "screen -dm sh -c '" PUSH "'", SAME },
	{ "mise exec -- fakeroot " PUSH, SAME },
	{ "entr -s 'eatmydata " PUSH "'", SAME },
	{ "gdb --args eatmydata " PUSH, SAME },
	{ "bwrap --bind / / eatmydata " PUSH, SAME },
	{ "/usr/bin/eatmydata " PUSH, SAME },
	{ "direnv exec /x tini -- " PUSH, SAME },
	{ "faketime -f +1d tini " PUSH, SAME },
	{ "tmux -c '" PUSH "'", SAME },
	{ "tmux -f conf new", OPAQUE },
	{ "tmux new -e LD_PRELOAD=x ls", OPAQUE },
	{ "watchexec -E A=1 -- " PUSH, OPAQUE },
	{ "watchexec -- fakeroot " PUSH, SAME },
	/* a wrapper's option letter among the wrapped command's words */
	{ "taskset 1 sh -c '" PUSH "' -p", SAME },
	{ "prlimit sh -c '" PUSH "' -p", SAME },
	{ "strace sh -c '" PUSH "' -p", SAME },
	{ "cpulimit -l 5 sh -c '" PUSH "' -p", SAME },
	{ "tmux splitw -l 50 '" PUSH "'", SAME },
	{ "tmux splitw -l50 -f '" PUSH "'", SAME },
	{ "tmux run -d 1 '" PUSH "'", SAME },
	{ "tmux -L sock new '" PUSH "'", SAME },
	{ "yarn exec -- " PUSH, SAME },
	{ "conda run --name=e " PUSH, SAME },
	{ "docker run --rm -it img", OPAQUE },
	{ "bwrap --setenv LD_PRELOAD /x.so --bind / / ls", OPAQUE },
	{ "arch -e LD_PRELOAD=/x.so -x86_64 ls", OPAQUE },
	{ "flatpak run --command=git org.x push origin main", OPAQUE },
	{ "snap run " PUSH, SAME },
	/* a wrapper the table does not know */
	{ "mywrap " PUSH, OPAQUE },
	{ "mywrap --flag x " PUSH, OPAQUE },
	{ "./scripts/run sudo id", OPAQUE },
	{ "mytool sh -c '" PUSH "'", OPAQUE },
	{ "mytool npm install left-pad", OPAQUE },
	{ "alias w=mywrap\nw " PUSH, OPAQUE },
	{ "timeout 5 mywrap nice " PUSH, OPAQUE },
	{ "firejail -c '" PUSH "'", SAME },
	{ "mywrap '" PUSH "'", OPAQUE },
	{ "mywrap --exec 'ls; " PUSH "'", OPAQUE },
	{ "mywrap -x 'sudo id'", OPAQUE },
	{ "mywrap --exec='" PUSH "'", OPAQUE },
	{ "docker container run img " PUSH, OPAQUE },
	{ "cmake -E env A=1 " PUSH, SAME },
	{ "cmake -E time " PUSH, SAME },
	{ "cmake -P x.cmake", OPAQUE },
	{ "watchman -- trigger . t '*.c' -- " PUSH, OPAQUE },
	{ "watchman -j <<< '[\"trigger\"]'", OPAQUE },
	{ "docker compose exec svc " PUSH, OPAQUE },
	{ "podman container exec c " PUSH, OPAQUE },
};

/* Modelled wrappers around a harmless command stay allowed. */
static const char *const harmless[] = {
	"ssh-agent ls", "fakeroot ls", "faketime '2020-01-01' ls",
	"firejail ls", "direnv exec . ls", "mise exec -- ls",
	"tmux new -d ls", "screen -dm ls", "gdb --args ls", "eatmydata ls",
	"tini -- ls", "dumb-init ls", "cpulimit -l 50 -- ls",
	"watchexec -- ls", "bwrap --bind / / ls", "softlimit -m 100 ls",
	"envdir ./e ls", "pgrphack ls", "prlimit --nofile=10 ls",
	"trickle -d 10 ls", "catchsegv ls", "entr ls", "entr -s ls",
	"nix-shell --run ls", "nix develop -c ls", "conda run -n e ls",
	"sshpass -p x ls", "systemd-inhibit ls", "cgexec -g cpu:x ls",
	"ifne ls", "nocache ls", "arch -x86_64 ls", "linux64 ls",
	"kubectl exec p -- ls", "yarn exec ls", "pnpm exec ls",
	"timeout 5 fakeroot eatmydata tini -- ls",
	"mytool build", "foo ls -la", "pytest -k git", "mywrap ls",
	"./run curl https://example.com", "mytool git status",
	"mytool commit -m 'fix the push bug'", "mytool -m \"don't\"",
	"mytool 'ls -la; cat x'",
	"mytool --message='fix the push'", "docker container ls",
	"pnpm ls", "pnpm lint", "pnpm test", "pnpm run build",
	"cmake -E env A=1 ls", "cmake -S . -B build", "watchman watch-list",
};

START_TEST(wrapped_push)
{
	const struct wcase	*t = &pushes[_i];
	struct pol_result	*r, *base;

	base = pol_check(PUSH, strlen(PUSH), POL_MODE_CHAT, NULL);
	r = pol_check(t->cmd, strlen(t->cmd), POL_MODE_CHAT, NULL);
	ck_assert_msg(strncmp(r->rule, t->rule, strlen(t->rule)) == 0,
	    "%s: %s by %s (%s), want %s", t->cmd,
	    pol_verdict_name(r->verdict), r->rule, r->reason, t->rule);
	ck_assert_msg(r->verdict >= base->verdict, "%s: %s, weaker than "
	    "the push alone", t->cmd, pol_verdict_name(r->verdict));
	if (strcmp(t->rule, SAME) == 0)
		ck_assert_int_eq(r->verdict, base->verdict);
	pol_result_free(r);
	pol_result_free(base);
}
END_TEST

START_TEST(wrapped_ls)
{
	const char		*cmd = harmless[_i];
	struct pol_result	*r;

	r = pol_check(cmd, strlen(cmd), POL_MODE_CHAT, NULL);
	ck_assert_msg(r->verdict == POL_ALLOW, "%s: %s by %s (%s)", cmd,
	    pol_verdict_name(r->verdict), r->rule, r->reason);
	pol_result_free(r);
}
END_TEST

/* The wrappers that only change how ls runs keep it read-only. */
START_TEST(wrapped_ls_plan)
{
	static const char *const ro[] = { "eatmydata ls", "tini -- ls",
	    "cpulimit -l 50 -- ls", "faketime -f +1d ls", "fakeroot ls",
	    "prlimit --nofile=10 ls", "catchsegv ls", "dumb-init ls",
	    "gdb --args ls", "nice -n 5 eatmydata ls" };
	struct pol_result	*r;
	size_t			 i;

	for (i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		r = pol_check(ro[i], strlen(ro[i]), POL_MODE_PLAN, NULL);
		ck_assert_msg(r->verdict == POL_ALLOW, "%s [plan]: %s by %s "
		    "(%s)", ro[i], pol_verdict_name(r->verdict), r->rule,
		    r->reason);
		pol_result_free(r);
	}
}
END_TEST

/* s in double quotes, for a shell. */
static char *
dquote(const char *s)
{
	char	*o = malloc(strlen(s) * 2 + 3), *p = o;

	*p++ = '"';
	for (; *s != '\0'; s++) {
		if (strchr("\\\"$`", *s) != NULL)
			*p++ = '\\';
		*p++ = *s;
	}
	*p++ = '"';
	*p = '\0';
	return o;
}

/*
 * The probe of an unknown command is no more lenient one level deeper,
 * behind an alias (alias zz='LINE' then zz), whatever the nesting: a
 * probe that reaches the nesting limit is opaque.
 */
START_TEST(probe_behind_alias)
{
	struct pol_result	*r, *ra;
	char			*line, *q, *al;
	int			 d;

	line = strdup(PUSH);
	for (d = 0; d < 7; d++) {
		q = dquote(line);
		free(line);
		if (asprintf(&line, "sh -c %s", q) == -1)
			ck_abort();
		free(q);
		q = dquote(line);
		if (asprintf(&al, "alias zz='mywrap %s'\nzz", q) == -1)
			ck_abort();
		free(q);
		r = pol_check(al + 10, strlen(al + 10) - 4, POL_MODE_CHAT,
		    NULL);
		ra = pol_check(al, strlen(al), POL_MODE_CHAT, NULL);
		ck_assert_msg(r->verdict >= POL_ASK && ra->verdict >=
		    r->verdict, "depth %d: %s / behind an alias %s (%s)", d,
		    pol_verdict_name(r->verdict),
		    pol_verdict_name(ra->verdict), ra->reason);
		pol_result_free(r);
		pol_result_free(ra);
		free(al);
	}
	free(line);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("classify_wrap");
	TCase	*tc = tcase_create("wrappers");

	tcase_add_loop_test(tc, wrapped_push, 0,
	    sizeof(pushes) / sizeof(pushes[0]));
	tcase_add_loop_test(tc, wrapped_ls, 0,
	    sizeof(harmless) / sizeof(harmless[0]));
	tcase_add_test(tc, wrapped_ls_plan);
	tcase_add_test(tc, probe_behind_alias);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
