#!/bin/sh
# SPDX-License-Identifier: ISC
#
# A writable bind shown at another path (issue 26, `--bind SRC:DST`):
# the sandbox writes SRC's files through DST, and every protection that
# names SRC holds at DST too -- the protected names (existing ones
# read-only, new ones refused by the guard), the hooks directory the
# repository's core.hooksPath names by its host path, a --deny-write path, a --deny-read
# secret -- while the commit judge, which reads the host, still holds a
# protected path committed through DST.  A bind whose SRC holds the home
# stays refused.  Sandboxes run as the unprivileged user.
. "$(dirname "$0")/lib.sh"
plan 25

W=$(mkwork)
cd "$W" || exit 1
EV="$W/.ev"
S="$W/src"
GC='git -c user.name=a -c user.email=a@a'
u() { as_user sh -c "$1"; }
u "mkdir -p '$W/ws' && git init -q -b main '$S' && cd '$S' &&
    echo r > readme && echo locked > locked.txt &&
    echo SECRET-IN-SRC > secret.txt && mkdir -p .claude tools/hooks &&
    echo '{}' > .claude/keep.json && git add readme && $GC commit -qm one &&
    git config core.hooksPath '$S/tools/hooks'" >/dev/null
L=$(u "git -C '$S' rev-parse HEAD")

# mv CMD: one run with $S at /mnt/x (cwd there); stdout+stderr in $EV.out.
mv_run() {
	as_user "$AIRLOCK" run --no-policy-check --workspace "$W/ws" \
	    --bind "$S:/mnt/x" --chdir /mnt/x --deny-write "$S/locked.txt" \
	    --deny-write "$S/gen" --deny-read "$S/secret.txt" --events "$EV.1" -- sh -c "$1" \
	    >"$EV.out" 2>&1
	_rc=$?
	cat "$EV.1" >>"$EV" 2>/dev/null
	return $_rc
}
# refused CMD PATH [NAMED]: CMD fails inside, PATH (beneath $S) is not on
# the host, and the run's summary names the refusal at /mnt/x/NAMED
# (default PATH) with the rule that refused it.
refused() {
	if mv_run "$1"; then
		diag "exit 0: $(cat "$EV.out")"
		return 1
	fi
	if [ -e "$S/$2" ] || [ -L "$S/$2" ]; then
		diag "$S/$2 exists: $(cat "$EV.out")"
		return 1
	fi
	grep -q "/mnt/x/${3:-$2} refused - [a-z]" "$EV.out" ||
	    { diag "no rule named: $(cat "$EV.out")"; false; }
}
# violation PATH: an event names the refused write at /mnt/x/PATH.
violation() {
	grep '"type":"violation"' "$EV" 2>/dev/null |
	    grep -q "\"target\":\"/mnt/x/$1\"" ||
	    { diag "no violation for /mnt/x/$1"; false; }
}

mv_run 'echo hi > /mnt/x/f && echo there > f2'
rc=$?
check_sh "--bind SRC:/mnt/x: a write at DST lands in SRC on the host" \
    '[ $rc -eq 0 ] && [ "$(cat "$S/f" 2>/dev/null)" = hi ] &&
    [ "$(cat "$S/f2" 2>/dev/null)" = there ] ||
    { diag "exit $rc: $(cat "$EV.out")"; false; }'
check "the file is the user's" [ "$(stat -c %U "$S/f" 2>/dev/null)" = "$TUSER" ]

check "a new .git/hooks/pre-commit at DST is refused, not on the host" \
    refused 'echo x > /mnt/x/.git/hooks/pre-commit' .git/hooks/pre-commit
check "a new .env at DST is refused, not on the host" \
    refused 'echo x > /mnt/x/.env' .env
check "... and a violation names /mnt/x/.env" violation .env
check "a new .vscode/settings.json at DST is refused" \
    refused 'mkdir -p /mnt/x/.vscode && echo x > /mnt/x/.vscode/settings.json' \
    .vscode/settings.json .vscode
check "a new .claude/settings.json (.claude exists) is refused" \
    refused 'echo x > /mnt/x/.claude/settings.json' .claude/settings.json
mv_run 'echo x > /mnt/x/.claude/keep.json; echo x > /mnt/x/ok1'
check_sh "the existing .claude/keep.json stays as it was (ok1 written)" \
    '[ "$(cat "$S/.claude/keep.json")" = "{}" ] && [ -e "$S/ok1" ] ||
    { diag "$(cat "$EV.out")"; false; }'
mv_run 'cat /proc/self/mountinfo'
check_sh "the existing .claude and .git/hooks are read-only mounts at DST" \
    'grep -q " /mnt/x/\.claude ro," "$EV.out" &&
    grep -q " /mnt/x/\.git/hooks ro," "$EV.out" ||
    { diag "$(grep /mnt/x "$EV.out")"; false; }'
check "the core.hooksPath directory (SRC/tools/hooks) at DST is refused" \
    refused 'echo x > /mnt/x/tools/hooks/pre-commit' tools/hooks/pre-commit
check "... and a violation names it" violation tools/hooks/pre-commit
mv_run 'echo x > /mnt/x/tools/notes && echo y > /mnt/x/settings.json'
rc=$?
check_sh "control: beside them, tools/notes and settings.json are written" \
    '[ $rc -eq 0 ] && [ -e "$S/tools/notes" ] && [ -e "$S/settings.json" ] ||
    { diag "exit $rc: $(cat "$EV.out")"; false; }'
mv_run 'echo x >> /mnt/x/locked.txt; echo x > /mnt/x/locked.txt;
    echo x > /mnt/x/gen; mkdir /mnt/x/gen; echo x > /mnt/x/ok2'
check_sh "--deny-write SRC/locked.txt and SRC/gen (new) hold at DST" \
    '[ "$(cat "$S/locked.txt")" = locked ] && [ ! -e "$S/gen" ] &&
    [ -e "$S/ok2" ] || { diag "$(cat "$EV.out")"; false; }'
mv_run 'cat /mnt/x/readme /mnt/x/secret.txt'
check_sh "--deny-read SRC/secret.txt: unreadable at DST (readme read)" \
    '! grep -q SECRET-IN-SRC "$EV.out" && grep -qx r "$EV.out"'

as_user "$AIRLOCK" run --no-policy-check --workspace "$W/ws" \
    --bind "$S:~/in" -- sh -c 'echo home > ~/in/h; echo x > ~/in/.env' \
    >"$EV.out" 2>&1
check_sh "DST ~/in (the sandbox's home): written there, .env refused" \
    '[ "$(cat "$S/h" 2>/dev/null)" = home ] && [ ! -e "$S/.env" ] ||
    { diag "$(cat "$EV.out")"; false; }'

# The commit judge reads the host at SRC: a commit made at DST of a
# protected path is held.
mv_run "b=\$(echo evil | git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 100644,\$b,.claude/settings.json &&
    $GC commit -qm evil"
rc=$?
check_sh "inside at DST: .claude/settings.json committed" \
    '[ $rc -eq 0 ] || { diag "exit $rc: $(cat "$EV.out")"; false; }'
check_sh "main is back at its launch value" \
    '[ $rc -eq 0 ] && [ "$(u "git -C '"'$S'"' rev-parse main")" = "$L" ]'
check_sh "the commit is held: for-each-ref refs/airlock/held shows it" \
    'u "git -C '"'$S'"' for-each-ref refs/airlock/held" |
    grep -q refs/airlock/held/ || { diag "$(cat "$EV.out")"; false; }'

# A protected directory bound alone at DST: the names above SRC that
# made it protected (.git, .vscode ...) are gone at DST, and it is
# protected there as at its own path.
alone() {	# alone SRC-REL FILE: $S/SRC-REL at /mnt/p, FILE written there
	as_user "$AIRLOCK" run --no-policy-check --workspace "$W/ws" \
	    --bind "$S/$1:/mnt/p" -- sh -c "echo pwn > /mnt/p/$2" \
	    >"$EV.out" 2>&1
}
u "mkdir -p '$S/.vscode'"
for c in ".git/hooks pre-commit" ".vscode tasks.json" \
    ".claude settings.json" ".git hooks/post-checkout"; do
	d1=${c% *}
	f1=${c#* }
	alone "$d1" "$f1"
	check_sh "$d1 bound alone at DST: $f1 refused, named, not on the host" \
	    '[ ! -e "$S/$d1/$f1" ] &&
	    grep -q "/mnt/p/$f1 refused - [a-z]" "$EV.out" ||
	    { diag "$(cat "$EV.out")"; false; }'
done
u "mkdir -p '$S/.git/modules/z'"
alone .git modules/z/config
check_sh ".git bound alone at DST: a module's config refused, not on the host" \
    '[ ! -e "$S/.git/modules/z/config" ] || { diag "$(cat "$EV.out")"; false; }'
alone tools notes2
check_sh "control: tools bound alone at DST, notes2 written" \
    '[ -e "$S/tools/notes2" ] || { diag "$(cat "$EV.out")"; false; }'

# A writable SRC that holds the home: refused, saying why.
H="$W/h"
mkdir -p "$H/proj"
chown -R "$TUSER" "$H"
as_user env HOME="$H" "$AIRLOCK" run --workspace "$H/proj" \
    --bind "$H:/mnt/h" -- true >/dev/null 2>"$W/home.err"
rc=$?
check_sh "--bind HOME:DST: refused (125), naming the home" \
    '[ $rc -eq 125 ] && grep -qF "holds the home $H" "$W/home.err" ||
    { diag "exit $rc: $(cat "$W/home.err")"; false; }'
finish
