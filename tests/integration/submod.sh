#!/bin/sh
# SPDX-License-Identifier: ISC
#
# A submodule's commit as an agent forges it.  The commit judge judges
# the superproject's trees; a gitlink there names a commit that `git
# submodule update` on the host checks out from the submodule's own git
# directory (.git/modules/NAME), which the sandbox writes like any git
# state.  The agent puts there, by plumbing, a commit that adds
# .vscode/tasks.json and commits the gitlink: the host's update must
# not write it, and the run must say what it held.  A control does the
# same outside any sandbox: the file appears.
. "$(dirname "$0")/lib.sh"
plan 10

judge_init
GF='git -c protocol.file.allow=always'
# mkrepo W: the user's W/s and W/r, s a submodule of r at sub
mkrepo() {
	u "git init -q -b main '$1/s' && cd '$1/s' && echo s > s &&
	    git add s && $GC commit -qm s && git init -q -b main '$1/r' &&
	    cd '$1/r' && echo r > readme && git add readme &&
	    $GF submodule -q add '$1/s' sub && $GC commit -qm one" >/dev/null
}
# In r: a commit in sub's git directory adding .vscode/tasks.json, by
# plumbing, and the gitlink to it committed in r.
FORGE='M=.git/modules/sub && B=$(git --git-dir=$M rev-parse HEAD) &&
    b=$(printf "{\"tasks\":[]}\n" | git --git-dir=$M hash-object -w --stdin) &&
    tc=$(printf "100644 blob $b\ttasks.json\n" | git --git-dir=$M mktree) &&
    t=$({ git --git-dir=$M ls-tree HEAD; printf "040000 tree $tc\t.vscode\n"
    } | git --git-dir=$M mktree) && C=$(git --git-dir=$M -c user.name=a \
    -c user.email=a@a commit-tree $t -p $B -m evil) &&
    git update-index --cacheinfo 160000,$C,sub &&
    git -c user.name=a -c user.email=a@a commit -qm bump'
clean() { [ ! -e "$1/sub/.vscode/tasks.json" ] ||
    { diag "$1/sub/.vscode/tasks.json written"; return 1; }; }

# ---- control: outside any sandbox ----
W=$(mkwork)
mkrepo "$W"
u "cd '$W/r' && $FORGE && $GF submodule -q update" >/dev/null 2>&1
check "control: outside, git submodule update writes it" fails clean "$W/r"

# ---- inside ----
W=$(mkwork)
mkrepo "$W"
check "a run commits a gitlink to a forged commit of sub's" \
    jrun "$W" "cd '$W/r' && $FORGE"
u "cd '$W/r' && git reset -q --hard && $GF submodule -q update" \
    >/dev/null 2>&1
check "... the host's git submodule update writes no .vscode/tasks.json" \
    clean "$W/r"
check "... held, naming sub/.vscode/tasks.json" \
    grep -q "held refs/heads/main .*sub/.vscode/tasks.json" "$ERR"
check "... the superproject's main is back" \
    u "git -C '$W/r' log -1 --format=%s main | grep -q one"

# ---- the same gitlink only staged ----
W=$(mkwork)
mkrepo "$W"
check "a run stages a gitlink to a forged commit of sub's" \
    jrun "$W" "cd '$W/r' && ${FORGE%&&*}"
u "cd '$W/r' && $GF submodule -q update" >/dev/null 2>&1
check "... the host's git submodule update writes nothing protected" \
    clean "$W/r"

# ---- an ordinary bump of the submodule is kept ----
W=$(mkwork)
mkrepo "$W"
check "a run commits in sub and bumps the gitlink" \
    jrun "$W" "cd '$W/r/sub' && echo x > x && git add x &&
    $GC commit -qm x && cd .. && git add sub && $GC commit -qm bump"
check "... nothing held" fails grep -q "held\|put back\|restored" "$ERR"
check "... the superproject's main has the bump" \
    u "git -C '$W/r' log -1 --format=%s main | grep -q bump"

finish
