#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Operations in progress as an agent forges them.  Git acts on a
# rebase, a merge's autostash or a bisection when the user goes on:
# `git rebase --continue` runs the todo's `exec` lines, `git merge
# --abort` applies MERGE_AUTOSTASH, `git bisect reset` checks out what
# BISECT_START names.  A sandbox writes them (git state), no ref moves:
# after each run the user's own command on the host must run nothing
# and write no protected file, and the run must name what it took away.
# A control forges the rebase outside any sandbox: its exec line runs.
. "$(dirname "$0")/lib.sh"
plan 16

judge_init
mkrepo() {	# mkrepo W: the user's repository W/r, one commit
	u "git init -q -b main '$1/r' && cd '$1/r' && echo r > readme &&
	    git add readme && $GC commit -qm one" >/dev/null
}
# In the repository: S, a stash commit adding .claude/settings.json,
# and C, a commit that adds it.
FORGE='B=$(git rev-parse HEAD) &&
    b=$(printf "{\"hooks\":{}}\n" | git hash-object -w --stdin) &&
    tc=$(printf "100644 blob $b\tsettings.json\n" | git mktree) &&
    t=$({ git ls-tree HEAD; printf "040000 tree $tc\t.claude\n"; } |
    git mktree) && I=$(git -c user.name=a -c user.email=a@a \
    commit-tree $t -p $B -m "index on main") &&
    S=$(git -c user.name=a -c user.email=a@a commit-tree $t -p $B -p $I \
    -m "WIP on main: x") && C=$(git -c user.name=a -c user.email=a@a \
    commit-tree $t -p $B -m x)'
# A rebase in progress whose todo runs a command (touches MARK).
REBASE='R=.git/rebase-merge && mkdir $R && git rev-parse HEAD > $R/onto &&
    git rev-parse HEAD > $R/orig-head && echo refs/heads/main > \
    $R/head-name && : > $R/interactive && : > $R/done && echo 1 > $R/end &&
    echo 0 > $R/msgnum && echo "exec touch $MARK" > $R/git-rebase-todo'
clean() { [ ! -e "$1/.claude/settings.json" ] ||
    { diag "$1/.claude/settings.json written"; return 1; }; }
said() { grep -q "took away .*$1" "$ERR" || { diag "$(cat "$ERR")"
    false; }; }

# ---- control: the forged rebase, outside any sandbox ----
W=$(mkwork)
mkrepo "$W"
MARK=$MD/control
u "cd '$W/r' && MARK='$MARK' && $REBASE"
u "cd '$W/r' && $GC rebase --continue" >/dev/null 2>&1
check "control: outside, git rebase --continue runs its exec line" \
    [ -e "$MARK" ]

# ---- a rebase whose todo runs a command ----
W=$(mkwork)
mkrepo "$W"
MARK=$MD/rebase
check "a run leaves a rebase in progress whose todo runs a command" \
    jrun "$W" "cd '$W/r' && MARK='$MARK' && $REBASE"
u "cd '$W/r' && $GC rebase --continue" >/dev/null 2>&1
check "... the host's git rebase --continue runs nothing" [ ! -e "$MARK" ]
check "... named" said rebase-merge
check_sh "... kept under .git/airlock-held" \
    '[ -f "$(echo "$W/r/.git/airlock-held/"*/state-rebase-merge/git-rebase-todo)" ]'

# ---- a merge's autostash ----
W=$(mkwork)
mkrepo "$W"
check "a run leaves a merge in progress with an autostash" \
    jrun "$W" "cd '$W/r' && $FORGE && git rev-parse HEAD > .git/MERGE_HEAD &&
    echo \$S > .git/MERGE_AUTOSTASH && : > .git/MERGE_MSG"
u "cd '$W/r' && git merge --abort" >/dev/null 2>&1
check "... the host's git merge --abort writes nothing protected" \
    clean "$W/r"
check "... named" said MERGE_AUTOSTASH

# ---- a bisection ----
W=$(mkwork)
mkrepo "$W"
check "a run leaves a bisection whose start is the commit" \
    jrun "$W" "cd '$W/r' && $FORGE && echo \$C > .git/BISECT_START &&
    printf 'bad\ngood\n' > .git/BISECT_TERMS && : > .git/BISECT_LOG"
u "cd '$W/r' && git bisect reset" >/dev/null 2>&1
check "... the host's git bisect reset writes nothing protected" \
    clean "$W/r"
check "... named" said BISECT_START

# ---- the user's own bisection, untouched by the run, stays ----
W=$(mkwork)
mkrepo "$W"
u "cd '$W/r' && $GC commit -q --allow-empty -m two && git bisect start &&
    git bisect bad && git bisect good HEAD~" >/dev/null 2>&1
check "a run that does not touch the user's bisection" \
    jrun "$W" "cd '$W/r' && git status >/dev/null"
check "... nothing taken away" fails grep -q "took away" "$ERR"
check "... the bisection is still there" [ -f "$W/r/.git/BISECT_START" ]

# ---- what git leaves after a whole rebase: nothing ----
W=$(mkwork)
mkrepo "$W"
check "a run rebases a branch onto main, to the end" \
    jrun "$W" "cd '$W/r' && git checkout -q -b topic && echo t > t &&
    git add t && $GC commit -qm t && git checkout -q main &&
    $GC commit -q --allow-empty -m two && git checkout -q topic &&
    $GC rebase -q main"
check "... nothing taken away or held" fails grep -q "took away\|held" "$ERR"

finish
