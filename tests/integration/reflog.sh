#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Reflogs as an agent writes them.  Git reads a reflog as refs: `git
# stash pop` makes the next entry of logs/refs/stash the new stash@{0},
# `git reset --hard HEAD@{1}` takes an entry's value, `git checkout -`
# the text after "checkout: moving from " in HEAD's reflog.  A sandbox
# writes logs/ (git state), and no ref moves: the agent slips in an
# entry naming a commit that adds .claude/settings.json.  After each run
# the user's own command on the host must not write the file, and the
# run must say which entry it took out.  A control makes the same entry
# outside any sandbox: the file appears.
. "$(dirname "$0")/lib.sh"
plan 25

judge_init
# mkrepo W: the user's repository W/r, one commit and one stash of theirs
mkrepo() {
	u "git init -q -b main '$1/r' && cd '$1/r' && echo r > readme &&
	    git add readme && $GC commit -qm one && echo mine >> readme &&
	    git stash -q" >/dev/null
}
# In the repository: C, a commit on HEAD adding .claude/settings.json,
# and S, a stash commit (work tree and index) made of it.
FORGE='B=$(git rev-parse HEAD) &&
    b=$(printf "{\"hooks\":{}}\n" | git hash-object -w --stdin) &&
    tc=$(printf "100644 blob $b\tsettings.json\n" | git mktree) &&
    t=$({ git ls-tree HEAD; printf "040000 tree $tc\t.claude\n"; } |
    git mktree) && C=$(git -c user.name=a -c user.email=a@a commit-tree \
    $t -p $B -m evil) && I=$(git -c user.name=a -c user.email=a@a \
    commit-tree $t -p $B -m "index on main") &&
    S=$(git -c user.name=a -c user.email=a@a commit-tree $t -p $B -p $I \
    -m "WIP on main: x") &&
    Z=0000000000000000000000000000000000000000 &&
    ID="a <a@a> 1700000000 +0000"'
# The forged stash entry below the user's own (the top stays theirs).
STASH='L=.git/logs/refs/stash && top=$(tail -1 $L) &&
    printf "%s %s %s\tWIP on main: x\n" $Z $S "$ID" > $L.x &&
    echo "$top" >> $L.x && cat $L.x > $L && rm -f $L.x'
clean() {	# clean W/r: no .claude/settings.json there
	[ ! -e "$1/.claude/settings.json" ] ||
	    { diag "$1/.claude/settings.json written"; return 1; }
}
said() { grep -q "out of the reflog $1" "$ERR" || { diag "$(cat "$ERR")"
    false; }; }
none() { ! grep -q "reflog\|held" "$ERR" || { diag "$(cat "$ERR")"
    false; }; }

# ---- control: the forged stash entry, made outside any sandbox ----
W=$(mkwork)
mkrepo "$W"
u "cd '$W/r' && $FORGE && $STASH"
u "cd '$W/r' && git stash pop -q && git stash pop -q" >/dev/null 2>&1
check "control: outside, the second git stash pop writes it" fails clean "$W/r"

# ---- a stash entry slipped below the user's ----
W=$(mkwork)
mkrepo "$W"
check "a run slips a stash entry below the user's own" \
    jrun "$W" "cd '$W/r' && $FORGE && $STASH && git stash list | grep -q x"
u "cd '$W/r' && git stash pop -q; git stash pop -q" >/dev/null 2>&1
check "... the host's two git stash pop write no .claude/settings.json" \
    clean "$W/r"
check "... the run names the entry it took out" said refs/stash
check "... the user's own stash is still there and popped" \
    grep -q mine "$W/r/readme"
check_sh "... the entry kept under .git/airlock-held" \
    'grep -q "WIP on main: x" "$W/r/.git/airlock-held/"*/reflog-refs-stash'

# ---- HEAD@{1}: an entry of HEAD's reflog ----
W=$(mkwork)
mkrepo "$W"
check "a run appends two entries to HEAD's reflog, the first the commit" \
    jrun "$W" "cd '$W/r' && $FORGE && H=\$(git rev-parse HEAD) &&
    printf '%s %s %s\tcommit: x\n%s %s %s\treset: moving to HEAD\n' \
    \$H \$C \"\$ID\" \$C \$H \"\$ID\" >> .git/logs/HEAD"
u "cd '$W/r' && git reset -q --hard 'HEAD@{1}'" >/dev/null 2>&1
check "... the host's git reset --hard HEAD@{1} writes nothing protected" \
    clean "$W/r"
check "... named" said HEAD

# ---- git checkout -: the "moving from" of a checkout entry ----
W=$(mkwork)
mkrepo "$W"
check "a run writes a checkout entry moving from the commit's id" \
    jrun "$W" "cd '$W/r' && $FORGE && H=\$(git rev-parse HEAD) &&
    printf '%s %s %s\tcheckout: moving from %s to main\n' \
    \$H \$H \"\$ID\" \$C >> .git/logs/HEAD"
u "cd '$W/r' && git checkout -q -" >/dev/null 2>&1
check "... the host's git checkout - writes nothing protected" clean "$W/r"
check "... named" said HEAD

W=$(mkwork)
mkrepo "$W"
check "a run writes one moving from a ref no checkout should take" \
    jrun "$W" "cd '$W/r' && $FORGE && H=\$(git rev-parse HEAD) &&
    git update-ref refs/airlock/held/s0/main \$C &&
    printf '%s %s %s\tcheckout: moving from %s to main\n' \
    \$H \$H \"\$ID\" airlock/held/s0/main >> .git/logs/HEAD"
u "cd '$W/r' && git checkout -q -" >/dev/null 2>&1
check "... the host's git checkout - writes nothing protected" clean "$W/r"
check "... named" said HEAD

# ---- spellings git reads that a simpler reader misses ----
# A checkout entry with no tab before its message (git takes the text
# after the time zone), moving from a ref no checkout should take.
W=$(mkwork)
mkrepo "$W"
check "a run writes a checkout entry with no tab before its message" \
    jrun "$W" "cd '$W/r' && $FORGE && H=\$(git rev-parse HEAD) &&
    git update-ref refs/airlock/held/s0/main \$C &&
    printf '%s %s %scheckout: moving from %s to main\n' \
    \$H \$H \"\$ID\" airlock/held/s0/main >> .git/logs/HEAD"
u "cd '$W/r' && git checkout -q -" >/dev/null 2>&1
check "... the host's git checkout - writes nothing protected" clean "$W/r"
# The stash commit's id in upper case (git reads hex in either case).
W=$(mkwork)
mkrepo "$W"
check "a run slips in a stash entry whose id is in upper case" \
    jrun "$W" "cd '$W/r' && $FORGE && S=\$(echo \$S | tr a-f A-F) &&
    $STASH"
u "cd '$W/r' && git stash pop -q; git stash pop -q" >/dev/null 2>&1
check "... the host's two git stash pop write nothing protected" \
    clean "$W/r"
# A NUL byte before the forged entry: a C-string reader stops there.
W=$(mkwork)
mkrepo "$W"
check "a run appends a NUL byte, then the forged stash entry" \
    jrun "$W" "cd '$W/r' && $FORGE && L=.git/logs/refs/stash &&
    printf '\\000\\n%s %s %s\tWIP on main: x\n' \
    \$(git rev-parse refs/stash) \$S \"\$ID\" >> \$L &&
    git update-ref refs/stash \$(git rev-parse refs/stash)"
u "cd '$W/r' && git stash pop -q; git stash pop -q" >/dev/null 2>&1
check "... the host's two git stash pop write nothing protected" \
    clean "$W/r"
check "... named" said refs/stash

# ---- what git itself writes is kept ----
W=$(mkwork)
mkrepo "$W"
check "a run commits, switches branches and back, stashes" \
    jrun "$W" "cd '$W/r' && git stash pop -q && $GC commit -qam two &&
    git checkout -q -b topic && echo t > t && git add t &&
    $GC commit -qm three && git checkout -q main && echo w >> readme &&
    git stash -q && git checkout -q topic && git checkout -q main"
check "... nothing taken out or held" none
check "... the host's git checkout - and git stash pop work" \
    u "cd '$W/r' && git checkout -q - && git checkout -q main &&
    git stash pop -q && grep -q w readme"

finish
