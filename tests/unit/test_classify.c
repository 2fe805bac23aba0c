// SPDX-License-Identifier: ISC
/*
 * Unit tests for policy/classify.c and policy/guard.c: every case of
 * issue 5's "Done when" list, plus wrappers, read-only modes, the
 * dangerous git configuration keys, settings rules and nesting limits.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/classify.h"
#include "policy/guard.h"
#include "tests/unit/unit.h"

#define ANY	0xffffffffU
#define C(x)	POL_CLASS_BIT(POL_CLASS_##x)

struct tcase {
	enum pol_mode	 mode;
	const char	*cmd;
	enum pol_verdict verdict;
	unsigned	 flags;		/* must all be set */
	unsigned	 classes;	/* ANY: not checked */
	const char	*rule;		/* prefix, or NULL */
};

static const struct tcase cases[] = {
	/* issue 5, Done when */
	{ POL_MODE_CHAT, "ls && sudo id", POL_DENY, POL_F_PRIVILEGE, ANY,
	    "hard-deny:privilege-escalation" },
	{ POL_MODE_CHAT, "ls | sh", POL_ASK, POL_F_OPAQUE, ANY, "opaque" },
	{ POL_MODE_CHAT, "(git push)", POL_ASK, POL_F_PUSH, ANY,
	    "ask:git-push" },
	{ POL_MODE_CHAT, "{ git push; }", POL_ASK, POL_F_PUSH, ANY,
	    "ask:git-push" },
	{ POL_MODE_CHAT, "echo $(git push)", POL_ASK, POL_F_PUSH, ANY,
	    "ask:git-push" },
	{ POL_MODE_CHAT, "echo `git push`", POL_ASK, POL_F_PUSH, ANY,
	    "ask:git-push" },
	{ POL_MODE_CHAT, "'git' \"push\"", POL_ASK, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "g\\it push", POL_ASK, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "/usr/bin/git push", POL_ASK, POL_F_PUSH, ANY, NULL },
	/* issue 26: a path given as the command is a program of its own,
	 * unless it may be an installed tool (program_path()). */
	{ POL_MODE_CHAT, "/etc/passwd", POL_ALLOW, 0, ANY, NULL },
	{ POL_MODE_CHAT, "./build/sudo x", POL_ALLOW, 0, ANY, NULL },
	{ POL_MODE_PLAN, "/etc/passwd", POL_DENY, 0, ANY, "mode:plan" },
	{ POL_MODE_CHAT, "/usr/bin/sudo id", POL_DENY, POL_F_PRIVILEGE, ANY,
	    "hard-deny:privilege-escalation" },
	{ POL_MODE_CHAT, "/bin/sudo id", POL_DENY, POL_F_PRIVILEGE, ANY,
	    NULL },
	{ POL_MODE_CHAT, "/etc/../usr/bin/sudo id", POL_DENY,
	    POL_F_PRIVILEGE, ANY, NULL },
	{ POL_MODE_CHAT, "../../usr/bin/sudo id", POL_DENY, POL_F_PRIVILEGE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "/usr/local/bin/sudo id", POL_DENY, POL_F_PRIVILEGE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "/opt/x/sudo id", POL_DENY, POL_F_PRIVILEGE, ANY,
	    NULL },
	{ POL_MODE_CHAT, "/home/u/.local/bin/git push", POL_ASK, POL_F_PUSH,
	    ANY, NULL },
	{ POL_MODE_CHAT, "node_modules/.bin/rm -rf /", POL_DENY,
	    POL_F_DESTRUCTION, ANY, NULL },
	{ POL_MODE_CHAT, "bash -c '/usr/sbin/sudo id'", POL_DENY,
	    POL_F_PRIVILEGE, ANY, NULL },
	{ POL_MODE_CHAT, "git -C ../x push", POL_ASK, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "bash -c 'sudo id'", POL_DENY, POL_F_PRIVILEGE, ANY,
	    NULL },
	{ POL_MODE_CHAT, "eval \"$X\"", POL_ASK, POL_F_OPAQUE, ANY,
	    "opaque:chat" },
	{ POL_MODE_CHAT, "git -c core.sshCommand='sh -c id' fetch", POL_DENY,
	    POL_F_CODE_EXEC, ANY, "hard-deny:code-execution" },
	{ POL_MODE_CHAT, "rm -rf /", POL_DENY, POL_F_DESTRUCTION, ANY,
	    "hard-deny:system-destruction" },
	{ POL_MODE_CHAT, "rm --recursive --force ~", POL_DENY,
	    POL_F_DESTRUCTION, ANY, NULL },
	{ POL_MODE_CHAT, "nsenter -t 1 -a", POL_DENY, POL_F_ESCAPE, ANY,
	    "hard-deny:namespace-escape" },
	{ POL_MODE_CHAT, "npm i left-pad", POL_ASK, 0, C(INSTALL_PACKAGE),
	    "rules.install-package=ask" },
	{ POL_MODE_CHAT, "git commit -m x", POL_ALLOW, POL_F_MUTATING,
	    C(CREATE_COMMIT), "rules.create-commit=allow" },
	{ POL_MODE_CHAT, "gh issue comment 1 -b x", POL_ASK, 0,
	    C(WRITE_EXTERNAL_TRACKER), "rules.write-external-tracker" },
	{ POL_MODE_CHAT, "curl https://x", POL_ALLOW, 0, C(NETWORK_ACCESS),
	    "rules.network-access=allow" },
	{ POL_MODE_PLAN, "echo hi > f", POL_DENY, POL_F_MUTATING, ANY,
	    "mode:plan" },
	{ POL_MODE_CHAT, "echo hi > f", POL_ALLOW, POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_REVIEW, "git status", POL_ALLOW, POL_F_READONLY, 0, NULL },
	{ POL_MODE_REVIEW, "ls -la", POL_ALLOW, POL_F_READONLY, 0, NULL },
	{ POL_MODE_REVIEW, "grep -r x .", POL_ALLOW, POL_F_READONLY, 0, NULL },

	/* more effect classes */
	{ POL_MODE_CHAT, "gh pr create --fill", POL_ASK, 0,
	    C(OPEN_PULL_REQUEST), "rules.open-pull-request=ask" },
	{ POL_MODE_CHAT, "gh pr merge 3 --squash", POL_ASK, 0,
	    C(PUBLISH_REVIEW_OR_MERGE), NULL },
	{ POL_MODE_CHAT, "gh pr view 3", POL_ALLOW, POL_F_READONLY, 0, NULL },
	{ POL_MODE_CHAT, "git merge main", POL_ALLOW, 0, C(CREATE_COMMIT),
	    NULL },
	{ POL_MODE_CHAT, "git rebase -i HEAD~3", POL_ALLOW, 0,
	    C(CREATE_COMMIT), NULL },
	{ POL_MODE_CHAT, "git cherry-pick abc", POL_ALLOW, 0, C(CREATE_COMMIT),
	    NULL },
	{ POL_MODE_CHAT, "pip install requests", POL_ASK, 0,
	    C(INSTALL_PACKAGE), NULL },
	{ POL_MODE_CHAT, "python3 -m pip install requests", POL_ASK, 0,
	    C(INSTALL_PACKAGE), NULL },
	{ POL_MODE_CHAT, "cargo install ripgrep", POL_ASK, 0,
	    C(INSTALL_PACKAGE), NULL },
	{ POL_MODE_CHAT, "apt-get install -y jq", POL_ASK, 0,
	    C(INSTALL_PACKAGE), NULL },
	{ POL_MODE_CHAT, "npm publish", POL_ASK, POL_F_REMOTE, 0,
	    "ask:publish" },
	{ POL_MODE_CHAT, "cargo publish", POL_ASK, POL_F_REMOTE, 0, NULL },
	{ POL_MODE_CHAT, "wget https://x/f", POL_ALLOW, 0, C(NETWORK_ACCESS),
	    NULL },
	{ POL_MODE_CHAT, "ssh host ls", POL_ALLOW, 0, C(NETWORK_ACCESS),
	    NULL },
	{ POL_MODE_CHAT, "gh api repos/a/b/issues -f title=x", POL_ASK,
	    POL_F_REMOTE, ANY, NULL },
	{ POL_MODE_CHAT, "gh api repos/a/b", POL_ALLOW, POL_F_READONLY, 0,
	    NULL },

	/* wrappers are seen through */
	{ POL_MODE_CHAT, "env FOO=1 git push", POL_ASK, POL_F_PUSH, ANY,
	    NULL },
	{ POL_MODE_CHAT, "env -i -u X git push", POL_ASK, POL_F_PUSH, ANY,
	    NULL },
	{ POL_MODE_CHAT, "env -S 'sudo id'", POL_DENY, POL_F_PRIVILEGE, ANY,
	    NULL },
	{ POL_MODE_CHAT, "command git push", POL_ASK, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "command -v git", POL_ALLOW, POL_F_READONLY, ANY,
	    NULL },
	{ POL_MODE_CHAT, "exec git push", POL_ASK, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "nice -n 5 nohup timeout -s KILL 10 stdbuf -oL "
	    "setsid git push", POL_ASK, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "xargs -n1 -I{} sudo rm {}", POL_DENY,
	    POL_F_PRIVILEGE, ANY, NULL },
	{ POL_MODE_CHAT, "find . -exec sudo rm {} \\;", POL_DENY,
	    POL_F_PRIVILEGE, ANY, NULL },
	{ POL_MODE_CHAT, "find / -delete", POL_DENY, POL_F_DESTRUCTION, ANY,
	    NULL },
	{ POL_MODE_CHAT, "find . -name '*.o' -execdir git push \\;", POL_ASK,
	    POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "sh -c 'bash -c \"sudo id\"'", POL_DENY,
	    POL_F_PRIVILEGE, ANY, NULL },
	{ POL_MODE_CHAT, "bash -lc 'git push'", POL_ASK, POL_F_PUSH, ANY,
	    NULL },
	{ POL_MODE_CHAT, "eval 'git push'", POL_ASK, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "sh <<EOF\nsudo id\nEOF", POL_DENY, POL_F_PRIVILEGE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "bash <<< 'git push'", POL_ASK, POL_F_PUSH, ANY,
	    NULL },
	{ POL_MODE_CHAT, "busybox rm -rf /", POL_DENY, POL_F_DESTRUCTION, ANY,
	    NULL },
	{ POL_MODE_CHAT, "time git push", POL_ASK, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "watch git push", POL_ASK, POL_F_PUSH, ANY, NULL },

	/* issue 25: aliases, make -f -, editors' commands, git subtree */
	{ POL_MODE_CHAT, "alias g=git\ng push origin main", POL_ASK,
	    POL_F_PUSH, ANY, "ask:git-push" },
	{ POL_MODE_CHAT, "alias g=git; g push", POL_ASK, POL_F_PUSH, ANY,
	    NULL },
	{ POL_MODE_CHAT, "alias p='git push'; p origin", POL_ASK, POL_F_PUSH,
	    ANY, NULL },
	{ POL_MODE_CHAT, "alias -- g=git h=ls; time g push", POL_ASK,
	    POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "while :; do g push; alias g=git; done", POL_ASK,
	    POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "eval 'alias g=git'; g push", POL_ASK, POL_F_PUSH,
	    ANY, NULL },
	{ POL_MODE_CHAT, "alias a='alias b=git'; a; b push", POL_ASK,
	    POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "alias s='sudo '; s id", POL_DENY, POL_F_PRIVILEGE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "alias g=ls; alias g=git; g push", POL_ASK,
	    POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "alias g=\"$X\"; g push", POL_ASK, POL_F_OPAQUE,
	    ANY, "opaque" },
	{ POL_MODE_CHAT, "alias \"$X\"; g push", POL_ASK, POL_F_OPAQUE, ANY,
	    "opaque" },
	{ POL_MODE_CHAT, "alias a=b b=a; a", POL_ALLOW, 0, ANY, NULL },
	{ POL_MODE_CHAT, "alias g=git; g status", POL_ALLOW, POL_F_READONLY,
	    ANY, NULL },
	{ POL_MODE_CHAT, "BASH_ALIASES[g]=git; g push", POL_ASK, POL_F_OPAQUE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "declare -A BASH_ALIASES=([g]=git); g push",
	    POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "f() { \"$@\"; }\nf git push", POL_ASK,
	    POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "make -f - <<EOF\nall:\n\tgit push origin main\n"
	    "EOF", POL_ASK, POL_F_PUSH, ANY, "ask:git-push" },
	{ POL_MODE_CHAT, "make -f- <<'EOF'\nall: ; @-git push\nEOF",
	    POL_ASK, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "make --file=/dev/stdin <<< $'all:\\n\\tsudo id'",
	    POL_DENY, POL_F_PRIVILEGE, ANY, NULL },
	{ POL_MODE_CHAT, "make -f - <<'EOF'\nX := $(shell git push)\nEOF",
	    POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "make -f - <<'EOF'\nSHELL = /tmp/x\nall:\n\t:\n"
	    "EOF", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "make --eval='all:\n\tsudo id'", POL_DENY,
	    POL_F_PRIVILEGE, ANY, NULL },
	{ POL_MODE_CHAT, "cat mk | make -f -", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	/* issue 25, a hostile review: other routes to an unseen command */
	{ POL_MODE_CHAT, "git rebase -x 'git push origin main' HEAD~1",
	    POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "git rebase --exe='sudo id' main", POL_ASK,
	    POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "git rebase --empty=drop main", POL_ALLOW,
	    POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_CHAT, "git http-push https://h/r.git main", POL_ASK,
	    POL_F_PUSH, ANY, "ask:git-push" },
	{ POL_MODE_CHAT, "source <(echo git push origin main)", POL_ASK,
	    POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, ". $(mktemp)", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "source /dev/stdin <<< 'git push origin main'",
	    POL_ASK, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "sh /dev/stdin <<EOF\nsudo id\nEOF", POL_DENY,
	    POL_F_PRIVILEGE, ANY, NULL },
	{ POL_MODE_CHAT, "bash /dev/fd/3 3<<< 'git push'", POL_ASK,
	    POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "source venv/bin/activate", POL_ALLOW,
	    POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_CHAT, "git fetch --upload-pack='touch /tmp/m;' ../r",
	    POL_DENY, POL_F_CODE_EXEC, ANY, "hard-deny:code-execution" },
	{ POL_MODE_CHAT, "git clone -u 'sh -c x' a b", POL_DENY,
	    POL_F_CODE_EXEC, ANY, NULL },
	{ POL_MODE_CHAT, "git ls-remote --upl='sh -c x' o", POL_DENY,
	    POL_F_CODE_EXEC, ANY, NULL },
	{ POL_MODE_CHAT, "git archive --remote=../r --exec='sh -c x' HEAD",
	    POL_DENY, POL_F_CODE_EXEC, ANY, NULL },
	{ POL_MODE_CHAT, "git fetch 'ext::sh -c touch% m' main", POL_DENY,
	    POL_F_CODE_EXEC, ANY, NULL },
	{ POL_MODE_CHAT, "coproc git push origin main", POL_ASK, POL_F_PUSH,
	    ANY, "ask:git-push" },
	{ POL_MODE_CHAT, "git fetch --update-head-ok origin", POL_ALLOW,
	    0, ANY, NULL },
	{ POL_MODE_CHAT, "vim -S /dev/stdin <<EOF\n!git push\nEOF",
	    POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "vim -s /dev/fd/0 f <<< ':!git push'", POL_ASK,
	    POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "make -f - <<EOF\nall:\n\t@echo hi\nEOF",
	    POL_ALLOW, POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_CHAT, "vim -c '!git push origin main' f", POL_ASK,
	    POL_F_PUSH, ANY, "ask:git-push" },
	{ POL_MODE_CHAT, "vim '+!git push' f", POL_ASK, POL_F_PUSH, ANY,
	    NULL },
	{ POL_MODE_CHAT, "nvim --cmd ':!sudo id'", POL_DENY, POL_F_PRIVILEGE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "vi -c 'silent !git push'", POL_ASK, POL_F_OPAQUE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "vim -c 'call system(\"git push\")'", POL_ASK,
	    POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "vim -c 'set ts=4|!git push'", POL_ASK, POL_F_OPAQUE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "ex f <<EOF\n!git push\nEOF", POL_ASK, POL_F_PUSH,
	    ANY, NULL },
	{ POL_MODE_CHAT, "vim -es f < cmds", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	{ POL_MODE_CHAT, "vim -c wq +10 f", POL_ALLOW, POL_F_MUTATING, ANY,
	    NULL },
	{ POL_MODE_CHAT, "emacs --eval '(shell-command \"git push\")'",
	    POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "emacsclient -e '(x)'", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	{ POL_MODE_CHAT, "less '+!git push' f", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	{ POL_MODE_PLAN, "less +G f", POL_ALLOW, POL_F_READONLY, ANY, NULL },
	{ POL_MODE_CHAT, "git subtree push --prefix=x origin main", POL_ASK,
	    POL_F_PUSH, ANY, "ask:git-push" },
	{ POL_MODE_CHAT, "git subtree --prefix x push origin main", POL_ASK,
	    POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "git svn dcommit", POL_ASK, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "git lfs push origin main", POL_ASK, POL_F_PUSH, ANY,
	    NULL },
	{ POL_MODE_CHAT, "git subtree split --prefix=x", POL_ALLOW,
	    POL_F_MUTATING, ANY, NULL },
	/* issue 25: other routes to the same commands */
	{ POL_MODE_CHAT, "builtin alias g=git; g push", POL_ASK, POL_F_PUSH,
	    ANY, NULL },
	{ POL_MODE_CHAT, "make -sf - <<EOF\nall:\n\tgit push\nEOF", POL_ASK,
	    POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "make -kf- <<EOF\nall:\n\tgit push\nEOF", POL_ASK,
	    POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "make -f - SHELL=/tmp/x <<EOF\nall:\n\ttrue\nEOF",
	    POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "make -f <(echo x)", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	{ POL_MODE_CHAT, "MAKEFLAGS=--eval=x make", POL_ASK, POL_F_OPAQUE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "MAKEFLAGS=-j4 make -j4 -C sub CC=clang all",
	    POL_ALLOW, POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_CHAT, "vim -c'!git push'", POL_ASK, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_CHAT, "vim -S <(echo '!git push')", POL_ASK, POL_F_OPAQUE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "VIMINIT=':!git push' vim f", POL_ASK, POL_F_OPAQUE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "export EXINIT='!id'; ex f", POL_ASK, POL_F_OPAQUE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "LESSOPEN='|git push %s' less f", POL_ASK,
	    POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "LESS='+!git push' less f", POL_ASK, POL_F_OPAQUE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "PAGER='less +!git push' git log", POL_DENY,
	    POL_F_CODE_EXEC, ANY, NULL },
	{ POL_MODE_CHAT, "PAGER='less -R' git log", POL_ALLOW, 0, ANY, NULL },

	/* opaque */
	{ POL_MODE_CHAT, "$CMD push", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "bash -c \"$X\"", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "python -c 'import os'", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	/* issue 13: inline programs; the read-only one-liners pass */
	{ POL_MODE_CHAT, "node -e 'x'", POL_ALLOW, POL_F_READONLY, ANY,
	    NULL },
	{ POL_MODE_CHAT, "perl -ne 'print'", POL_ALLOW, POL_F_READONLY, ANY,
	    NULL },
	{ POL_MODE_CHAT, "node -e 'require(\"child_process\").execSync(\"id\")'",
	    POL_ASK, POL_F_OPAQUE, ANY, "opaque:chat" },
	{ POL_MODE_CHAT, "perl -e 'system(\"id\")'", POL_ASK, POL_F_OPAQUE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "perl -e 'print `id`'", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	{ POL_MODE_CHAT, "perl -pe 's/a/id/e' f", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	{ POL_MODE_CHAT, "perl -MPOSIX -e 'print 1'", POL_ASK, POL_F_OPAQUE,
	    ANY, NULL },
	{ POL_MODE_REVIEW, "perl -lane 'print $F[0]' f", POL_ALLOW,
	    POL_F_READONLY, ANY, NULL },
	{ POL_MODE_REVIEW, "python3 -c 'print(1 + 2)'", POL_ALLOW,
	    POL_F_READONLY, ANY, NULL },
	{ POL_MODE_REVIEW, "python3 -c 'import json, sys; "
	    "print(json.load(sys.stdin)[\"a\"])'", POL_ALLOW, POL_F_READONLY,
	    ANY, NULL },
	{ POL_MODE_CHAT, "python3 -c 'import subprocess; "
	    "subprocess.run([\"id\"])'", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "python3 -c 'print(f\"{1}\")'", POL_ASK,
	    POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "python3 -c 'print(().__class__)'", POL_ASK,
	    POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "python3 -c 'open(\"f\", \"w\").write(\"x\")'",
	    POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_REVIEW, "python3 -c 'import os; os.system(\"id\")'",
	    POL_DENY, POL_F_OPAQUE, ANY, "opaque:review" },
	{ POL_MODE_CHAT, "ruby -e 'puts 1'", POL_ALLOW, POL_F_READONLY, ANY,
	    NULL },
	{ POL_MODE_CHAT, "ruby -e 'puts %x(id)'", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	{ POL_MODE_CHAT, "awk 'BEGIN { system(\"id\") }'", POL_ASK,
	    POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "awk '{ print | \"sh\" }' f", POL_ASK, POL_F_OPAQUE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "awk '{ \"date\" | getline d }'", POL_ASK,
	    POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "awk -f prog.awk f", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	{ POL_MODE_REVIEW, "awk -F: '$3 > 1000 || $1 == \"x\" { print $1 }' f",
	    POL_ALLOW, POL_F_READONLY, ANY, NULL },
	{ POL_MODE_REVIEW, "awk '{ print ($1 > 2) }' f", POL_ALLOW,
	    POL_F_READONLY, ANY, NULL },
	{ POL_MODE_REVIEW, "awk '{ printf \"%s\", $1 >> \"log\" }' f",
	    POL_DENY, POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_REVIEW, "awk '{ print $1, $NF }' f", POL_ALLOW,
	    POL_F_READONLY, ANY, NULL },
	{ POL_MODE_REVIEW, "awk '{ print > \"out\" }' f", POL_DENY,
	    POL_F_MUTATING, ANY, "mode:review" },
	{ POL_MODE_CHAT, "sed 's/x/id/e' f", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "sed -n '1e id' f", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "sed -f script.sed f", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	{ POL_MODE_REVIEW, "sed 's/a/b/w out' f", POL_DENY, POL_F_MUTATING,
	    ANY, NULL },
	{ POL_MODE_REVIEW, "sed -n -e '/x/p' -e 's/a/b/gp' f", POL_ALLOW,
	    POL_F_READONLY, ANY, NULL },
	/* issue 13: command names outside ASCII are opaque */
	{ POL_MODE_CHAT, "\xd1\x95udo id", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "\xef\xbd\x92m -rf /", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	/* issue 13: options that write files are writes in read-only modes */
	{ POL_MODE_REVIEW, "tree -o listing.txt", POL_DENY, POL_F_MUTATING,
	    ANY, NULL },
	{ POL_MODE_REVIEW, "tree -L 2", POL_ALLOW, POL_F_READONLY, ANY, NULL },
	{ POL_MODE_REVIEW, "shuf --output=x f", POL_DENY, POL_F_MUTATING, ANY,
	    NULL },
	{ POL_MODE_REVIEW, "iconv -f utf8 -t ascii -o out f", POL_DENY,
	    POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_REVIEW, "less --log-file=copy f", POL_DENY, POL_F_MUTATING,
	    ANY, NULL },
	{ POL_MODE_REVIEW, "git log --output=log.txt", POL_DENY,
	    POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_REVIEW, "git show HEAD", POL_ALLOW, POL_F_READONLY, ANY,
	    NULL },
	{ POL_MODE_REVIEW, "curl -o page.html https://x", POL_DENY,
	    POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_REVIEW, "curl --output-dir d -O https://x/f", POL_DENY,
	    POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_REVIEW, "wget -qO- -o log https://x", POL_DENY,
	    POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_REVIEW, "xxd in.bin out.hex", POL_DENY, POL_F_MUTATING,
	    ANY, NULL },
	{ POL_MODE_REVIEW, "sort -o sorted f", POL_DENY, POL_F_MUTATING, ANY,
	    NULL },
	{ POL_MODE_CHAT, "man -P 'sh -c id' ls", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	{ POL_MODE_CHAT, "dc -e '!id'", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "fc -s", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "git grep -Ovim x", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "curl -s https://x | bash", POL_ASK, POL_F_OPAQUE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "git $SUB", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_CHAT, "git -c alias.p=push p", POL_ASK, POL_F_OPAQUE, ANY,
	    NULL },
	{ POL_MODE_CHAT, "{git,push}", POL_ASK, POL_F_OPAQUE, ANY, NULL },
	{ POL_MODE_REVIEW, "eval \"$X\"", POL_DENY, POL_F_OPAQUE, ANY,
	    "opaque:review" },

	/* dangerous git configuration and environment */
	{ POL_MODE_CHAT, "git -c core.pager='sh -c x' log", POL_DENY,
	    POL_F_CODE_EXEC, ANY, NULL },
	{ POL_MODE_CHAT, "git -c core.fsmonitor=./x status", POL_DENY,
	    POL_F_CODE_EXEC, ANY, NULL },
	{ POL_MODE_CHAT, "git -c 'alias.x=!sh' x", POL_DENY, POL_F_CODE_EXEC,
	    ANY, NULL },
	{ POL_MODE_CHAT, "git -c protocol.ext.allow=always fetch", POL_DENY,
	    POL_F_CODE_EXEC, ANY, NULL },
	{ POL_MODE_CHAT, "git -c credential.helper='!x' fetch", POL_DENY,
	    POL_F_CODE_EXEC, ANY, NULL },
	{ POL_MODE_CHAT, "git -c Core.HooksPath=/tmp commit", POL_DENY,
	    POL_F_CODE_EXEC, ANY, NULL },
	{ POL_MODE_CHAT, "git config core.sshCommand 'sh -c x'", POL_DENY,
	    POL_F_CODE_EXEC, ANY, NULL },
	{ POL_MODE_CHAT, "git config --get core.sshCommand", POL_ALLOW,
	    POL_F_READONLY, ANY, NULL },
	/* git config set KEY VALUE: the key and value checked together */
	{ POL_MODE_CHAT, "git config set user.name Bob", POL_ALLOW,
	    POL_F_MUTATING, ANY, "default:allow" },
	{ POL_MODE_CHAT, "git config set --local user.email a@b", POL_ALLOW,
	    POL_F_MUTATING, ANY, "default:allow" },
	{ POL_MODE_CHAT, "git config set core.pager 'sh -c x'", POL_DENY,
	    POL_F_CODE_EXEC, ANY, "hard-deny:code-execution" },
	{ POL_MODE_CHAT, "git config set --global core.sshCommand x",
	    POL_DENY, POL_F_CODE_EXEC, ANY, "hard-deny:code-execution" },
	{ POL_MODE_CHAT, "GIT_SSH_COMMAND='sh -c x' git fetch", POL_DENY,
	    POL_F_CODE_EXEC, ANY, NULL },
	{ POL_MODE_CHAT, "GIT_PAGER=cat git log", POL_ALLOW, 0, ANY, NULL },
	{ POL_MODE_CHAT, "git -c user.name=x commit -m y", POL_ALLOW, 0, ANY,
	    NULL },
	{ POL_MODE_CHAT, "git --no-pager -P --git-dir=.git --work-tree . "
	    "log", POL_ALLOW, POL_F_READONLY, ANY, NULL },

	/* destruction and escape */
	{ POL_MODE_CHAT, "rm -rf /*", POL_DENY, POL_F_DESTRUCTION, ANY, NULL },
	{ POL_MODE_CHAT, "rm -rf $HOME", POL_DENY, POL_F_DESTRUCTION, ANY,
	    NULL },
	{ POL_MODE_CHAT, "rm -fr \"${HOME}\"/", POL_DENY, POL_F_DESTRUCTION,
	    ANY, NULL },
	{ POL_MODE_CHAT, "rm -rf /usr/../", POL_DENY, POL_F_DESTRUCTION, ANY,
	    NULL },
	{ POL_MODE_CHAT, "rm -rf /home/alice", POL_DENY, POL_F_DESTRUCTION,
	    ANY, NULL },
	{ POL_MODE_CHAT, "rm -rf \"$BUILD\"/", POL_DENY, POL_F_DESTRUCTION,
	    ANY, NULL },
	{ POL_MODE_CHAT, "rm -rf build dist", POL_ALLOW, POL_F_MUTATING, ANY,
	    NULL },
	{ POL_MODE_CHAT, "rm -rf ~/project/build", POL_ALLOW, 0, ANY, NULL },
	{ POL_MODE_CHAT, "mkfs.ext4 /dev/sda1", POL_DENY, POL_F_DESTRUCTION,
	    ANY, NULL },
	{ POL_MODE_CHAT, "dd if=/dev/zero of=/dev/nvme0n1", POL_DENY,
	    POL_F_DESTRUCTION, ANY, NULL },
	{ POL_MODE_CHAT, "dd if=a of=b", POL_ALLOW, POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_CHAT, "shred /dev/sda", POL_DENY, POL_F_DESTRUCTION, ANY,
	    NULL },
	{ POL_MODE_CHAT, "chmod -R 777 /", POL_DENY, POL_F_DESTRUCTION, ANY,
	    NULL },
	{ POL_MODE_CHAT, "chmod u+s /bin/x", POL_DENY, POL_F_PRIVILEGE, ANY,
	    NULL },
	{ POL_MODE_CHAT, ":(){ :|:& };:", POL_DENY, POL_F_DESTRUCTION, ANY,
	    NULL },
	{ POL_MODE_CHAT, "echo x > /dev/sda", POL_DENY, POL_F_DESTRUCTION,
	    ANY, NULL },
	{ POL_MODE_CHAT, "kill -9 -1", POL_DENY, POL_F_DESTRUCTION, ANY,
	    NULL },
	{ POL_MODE_CHAT, "unshare -r sh", POL_DENY, POL_F_ESCAPE, ANY, NULL },
	{ POL_MODE_CHAT, "mount -t proc proc /mnt", POL_DENY, POL_F_ESCAPE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "chroot / sh", POL_DENY, POL_F_ESCAPE, ANY, NULL },
	{ POL_MODE_CHAT, "docker run --privileged -it x", POL_DENY,
	    POL_F_ESCAPE, ANY, NULL },
	{ POL_MODE_CHAT, "docker run -v /:/host x", POL_DENY, POL_F_ESCAPE,
	    ANY, NULL },
	{ POL_MODE_CHAT, "doas ls", POL_DENY, POL_F_PRIVILEGE, ANY, NULL },
	{ POL_MODE_CHAT, "pkexec ls", POL_DENY, POL_F_PRIVILEGE, ANY, NULL },
	{ POL_MODE_CHAT, "su -c id", POL_DENY, POL_F_PRIVILEGE, ANY, NULL },
	{ POL_MODE_CHAT, "run0 id", POL_DENY, POL_F_PRIVILEGE, ANY, NULL },

	/* read-only modes */
	{ POL_MODE_PLAN, "sed -i s/a/b/ f", POL_DENY, POL_F_MUTATING, ANY,
	    NULL },
	{ POL_MODE_PLAN, "sed -n 1,5p f", POL_ALLOW, POL_F_READONLY, ANY,
	    NULL },
	{ POL_MODE_REVIEW, "tee out < in", POL_DENY, POL_F_MUTATING, ANY,
	    NULL },
	{ POL_MODE_REVIEW, "cp a b", POL_DENY, POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_REVIEW, "mv a b", POL_DENY, POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_REVIEW, "git commit -m x", POL_DENY, 0, ANY, "mode:review" },
	{ POL_MODE_REVIEW, "git stash", POL_DENY, POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_REVIEW, "git push", POL_DENY, POL_F_PUSH, ANY, NULL },
	{ POL_MODE_REVIEW, "npm i x", POL_DENY, 0, ANY, NULL },
	{ POL_MODE_ORCHESTRATE, "touch x", POL_DENY, POL_F_MUTATING, ANY,
	    "mode:orchestrate" },
	{ POL_MODE_ORCHESTRATE, "make", POL_DENY, POL_F_MUTATING, ANY, NULL },
	{ POL_MODE_ORCHESTRATE, "./run-tests.sh", POL_DENY, 0, ANY, NULL },
	{ POL_MODE_REVIEW, "git log --oneline | head -20", POL_ALLOW, 0, ANY,
	    NULL },
	{ POL_MODE_REVIEW, "git diff HEAD~1 -- a.c 2>/dev/null", POL_ALLOW, 0,
	    ANY, NULL },
	{ POL_MODE_REVIEW, "find . -name '*.c' | xargs grep -n foo", POL_ALLOW,
	    0, ANY, NULL },
	{ POL_MODE_REVIEW, "find . -name x -delete", POL_DENY, 0, ANY, NULL },
	{ POL_MODE_REVIEW, "cat <<'EOF'\nhi\nEOF", POL_ALLOW, 0, ANY, NULL },
	{ POL_MODE_REVIEW, "cd src && ls && wc -l *.c", POL_ALLOW, 0, ANY,
	    NULL },
	{ POL_MODE_REVIEW, "curl -s https://x", POL_ALLOW, 0,
	    C(NETWORK_ACCESS), NULL },
	{ POL_MODE_REVIEW, "curl -o f https://x", POL_DENY, 0, ANY, NULL },
	{ POL_MODE_REVIEW, "python3 --version", POL_ALLOW, 0, ANY, NULL },
	{ POL_MODE_PLAN, "sudo ls", POL_DENY, POL_F_PRIVILEGE, ANY,
	    "hard-deny" },

	/* malformed */
	{ POL_MODE_CHAT, "ls |", POL_DENY, POL_F_PARSE_ERROR, ANY,
	    "parse-error" },
	{ POL_MODE_CHAT, "echo 'unterminated", POL_DENY, POL_F_PARSE_ERROR,
	    ANY, "parse-error" },
	{ POL_MODE_CHAT, "bash -c 'echo \"x'", POL_DENY, POL_F_PARSE_ERROR,
	    ANY, "parse-error" },
	{ POL_MODE_CHAT, "", POL_ALLOW, 0, 0, "empty" },
	{ POL_MODE_CHAT, "# just a comment", POL_ALLOW, 0, 0, "empty" },
};

START_TEST(table)
{
	const struct tcase	*t = &cases[_i];
	struct pol_result	*r;

	r = pol_check(t->cmd, strlen(t->cmd), t->mode, NULL);
	ck_assert_msg(r->verdict == t->verdict, "%s [%s]: verdict %s, want %s "
	    "(%s: %s)", t->cmd, pol_mode_name(t->mode),
	    pol_verdict_name(r->verdict), pol_verdict_name(t->verdict),
	    r->rule, r->reason);
	ck_assert_msg((r->flags & t->flags) == t->flags, "%s: flags %#x, want "
	    "%#x", t->cmd, r->flags, t->flags);
	if (t->classes != ANY)
		ck_assert_msg(r->classes == t->classes, "%s: classes %#x, want "
		    "%#x", t->cmd, r->classes, t->classes);
	if (t->rule != NULL)
		ck_assert_msg(strncmp(r->rule, t->rule, strlen(t->rule)) == 0,
		    "%s: rule %s, want %s", t->cmd, r->rule, t->rule);
	ck_assert(r->reason != NULL && r->reason[0] != '\0');
	pol_result_free(r);
}
END_TEST

START_TEST(per_command_results)
{
	struct pol_result *r;

	r = pol_check("ls && git push && sudo id", 25, POL_MODE_CHAT, NULL);
	ck_assert_uint_eq(r->ncmds, 3);
	ck_assert_str_eq(r->cmds[0].argv[0], "ls");
	ck_assert(r->cmds[0].argv[1] == NULL);
	ck_assert_int_eq(r->cmds[0].verdict, POL_ALLOW);
	ck_assert_int_eq(r->cmds[1].verdict, POL_ASK);
	ck_assert_int_eq(r->cmds[2].verdict, POL_DENY);
	ck_assert_int_eq(r->verdict, POL_DENY);
	ck_assert_str_eq(r->rule, "hard-deny:privilege-escalation");
	pol_result_free(r);
	/* Nested commands appear with their own argv. */
	r = pol_check("bash -c 'ls; git push'", 22, POL_MODE_CHAT, NULL);
	ck_assert_uint_eq(r->ncmds, 3);
	ck_assert_str_eq(r->cmds[1].argv[1], "push");
	ck_assert_str_eq(r->cmds[2].argv[0], "bash");
	pol_result_free(r);
}
END_TEST

START_TEST(settings_rules)
{
	enum pol_verdict	 rules[POL_CLASS_MAX];
	struct pol_result	*r;

	pol_rules_default(rules);
	rules[POL_CLASS_CREATE_COMMIT] = POL_DENY;
	rules[POL_CLASS_INSTALL_PACKAGE] = POL_ALLOW;
	rules[POL_CLASS_NETWORK_ACCESS] = POL_ASK;
	r = pol_check("git commit -m x", 15, POL_MODE_CHAT, rules);
	ck_assert_int_eq(r->verdict, POL_DENY);
	ck_assert_str_eq(r->rule, "rules.create-commit=deny");
	pol_result_free(r);
	r = pol_check("npm i x", 7, POL_MODE_CHAT, rules);
	ck_assert_int_eq(r->verdict, POL_ALLOW);
	pol_result_free(r);
	r = pol_check("curl https://x", 14, POL_MODE_CHAT, rules);
	ck_assert_int_eq(r->verdict, POL_ASK);
	pol_result_free(r);
	/* git pull: create-commit (deny) beats network-access (ask). */
	r = pol_check("git pull", 8, POL_MODE_CHAT, rules);
	ck_assert_int_eq(r->verdict, POL_DENY);
	ck_assert_uint_eq(r->classes, C(CREATE_COMMIT) | C(NETWORK_ACCESS));
	pol_result_free(r);
	/* Read-only mode: network rule still applies to read-only curl. */
	r = pol_check("curl https://x", 14, POL_MODE_REVIEW, rules);
	ck_assert_int_eq(r->verdict, POL_ASK);
	pol_result_free(r);
}
END_TEST

START_TEST(nesting_limit)
{
	struct pol_result	*r;
	char			 buf[4096];
	int			 i;

	/* eval eval ... deeper than POL_MAX_NEST: denied. */
	buf[0] = '\0';
	for (i = 0; i < POL_MAX_NEST + 2; i++)
		strcat(buf, "eval ");
	strcat(buf, "ls");
	r = pol_check(buf, strlen(buf), POL_MODE_CHAT, NULL);
	ck_assert_int_eq(r->verdict, POL_DENY);
	ck_assert(r->flags & POL_F_PARSE_ERROR);
	pol_result_free(r);
	r = pol_check("eval eval eval ls", 17, POL_MODE_CHAT, NULL);
	ck_assert_int_eq(r->verdict, POL_ALLOW);
	pol_result_free(r);
}
END_TEST

START_TEST(guard)
{
	enum pol_verdict	rules[POL_CLASS_MAX];
	char			rule[128];

	pol_rules_default(rules);
	ck_assert_int_eq(rules[POL_CLASS_CREATE_COMMIT], POL_ALLOW);
	ck_assert_int_eq(rules[POL_CLASS_OPEN_PULL_REQUEST], POL_ASK);
	ck_assert_int_eq(rules[POL_CLASS_NETWORK_ACCESS], POL_ALLOW);
	ck_assert_int_eq(pol_guard_classes(rules, 0, rule, sizeof(rule)),
	    POL_ALLOW);
	ck_assert_str_eq(rule, "default:allow");
	ck_assert_int_eq(pol_guard_classes(rules, C(CREATE_COMMIT) |
	    C(OPEN_PULL_REQUEST), rule, sizeof(rule)), POL_ASK);
	ck_assert_str_eq(rule, "rules.open-pull-request=ask");
	/* ask with no approver is deny, and the rule says why. */
	ck_assert_int_eq(pol_guard_tool(rules, POL_MODE_CHAT,
	    C(OPEN_PULL_REQUEST), 1, 0, rule, sizeof(rule)), POL_DENY);
	ck_assert_str_eq(rule, "rules.open-pull-request=ask (no approver: "
	    "deny)");
	ck_assert_int_eq(pol_guard_tool(rules, POL_MODE_CHAT,
	    C(OPEN_PULL_REQUEST), 1, 1, rule, sizeof(rule)), POL_ASK);
	ck_assert_int_eq(pol_guard_tool(rules, POL_MODE_REVIEW,
	    C(CREATE_COMMIT), 1, 1, rule, sizeof(rule)), POL_DENY);
	ck_assert_str_eq(rule, "mode:review");
	ck_assert_int_eq(pol_guard_tool(rules, POL_MODE_REVIEW, 0, 0, 0,
	    rule, sizeof(rule)), POL_ALLOW);
	snprintf(rule, sizeof(rule), "opaque:chat");
	ck_assert_int_eq(pol_guard_finish(POL_ASK, 0, rule, sizeof(rule)),
	    POL_DENY);
	ck_assert(strstr(rule, "no approver") != NULL);
	ck_assert_int_eq(pol_guard_finish(POL_ALLOW, 0, rule, sizeof(rule)),
	    POL_ALLOW);
	/* A corrupt rule value fails closed. */
	rules[POL_CLASS_CREATE_COMMIT] = (enum pol_verdict)7;
	ck_assert_int_eq(pol_guard_classes(rules, C(CREATE_COMMIT), rule,
	    sizeof(rule)), POL_DENY);
}
END_TEST

/* classify.c: its name table must stay sorted for bsearch(). */
START_TEST(kind_table_sorted)
{
	ck_assert(pol_kind_table_ok());
}
END_TEST

START_TEST(null_and_binary)
{
	struct pol_result *r;

	r = pol_check(NULL, 0, POL_MODE_CHAT, NULL);
	ck_assert_int_eq(r->verdict, POL_ALLOW);
	pol_result_free(r);
	r = pol_check("ls\0sudo id", 10, POL_MODE_CHAT, NULL);
	ck_assert_int_eq(r->verdict, POL_DENY);
	pol_result_free(r);
	pol_result_free(NULL);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("classify");
	TCase	*tc = tcase_create("classify");

	tcase_add_loop_test(tc, table, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, per_command_results);
	tcase_add_test(tc, settings_rules);
	tcase_add_test(tc, nesting_limit);
	tcase_add_test(tc, guard);
	tcase_add_test(tc, null_and_binary);
	tcase_add_test(tc, kind_table_sorted);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
