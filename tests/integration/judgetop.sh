#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Repositories the commit judge must find however they are laid out: a
# git directory bound alone (`--bind SRC/.git:DST`, or at its own path),
# a bare repository in the workspace, a work tree whose .git is a
# symlink the host made.  In each, a commit made inside that adds a
# protected path (.husky/pre-commit, which the host's git runs) is held:
# the branch is back at its launch value, the commit under
# refs/airlock/held.  A commit of an ordinary file is kept (control).
# Sandboxes run as the unprivileged user.
. "$(dirname "$0")/lib.sh"
plan 15
judge_init

W=$(mkwork)
cd "$W" || exit 1
mkdir "$W/ws"
chown "$TUSER" "$W/ws"
# mkrepo DIR: a repository with one commit on main.
mkrepo() {
	u "git init -q -b main '$1' && cd '$1' && echo r > readme &&
	    git add readme && $GC commit -qm one" >/dev/null
}
head_of() { u "git -C '$1' rev-parse main"; }
held_in() { u "git -C '$1' for-each-ref refs/airlock/held" | grep -q .; }
# The commit made inside: FILE added through GIT_DIR=$1 (inside paths).
commit_in() {	# commit_in GITDIR FILE
	echo "mkdir -p /tmp/w/\$(dirname $2) && echo x > /tmp/w/$2 &&
	    cd /tmp/w && GIT_DIR=$1 GIT_WORK_TREE=/tmp/w git add $2 &&
	    GIT_DIR=$1 GIT_WORK_TREE=/tmp/w $GC commit -qm evil"
}
bound() {	# bound SRC DST CMD
	as_user "$AIRLOCK" run --no-policy-check --workspace "$W/ws" \
	    --bind "$1:$2" -- sh -c "$3" >"$MD/out" 2>"$ERR"
	_rc=$?
	[ $_rc -eq 0 ] || diag "exit $_rc: $(head -c 600 "$ERR")"
	return $_rc
}

# ---- a .git bound alone at another path ----
R1="$W/r1"
mkrepo "$R1"
L1=$(head_of "$R1")
check "--bind R/.git:/mnt/g: .husky/pre-commit committed inside" \
    bound "$R1/.git" /mnt/g "$(commit_in /mnt/g .husky/pre-commit)"
check_sh "  main is back at its launch value, the commit held" \
    '[ "$(head_of "$R1")" = "$L1" ] && held_in "$R1" ||
    { diag "$(cat "$ERR")"; false; }'
check "control: an ordinary file committed there is kept" \
    bound "$R1/.git" /mnt/g "$(commit_in /mnt/g notes.txt)"
check_sh "  main moved" '[ "$(head_of "$R1")" != "$L1" ]'

# ---- the same .git bound at its own path ----
R2="$W/r2"
mkrepo "$R2"
L2=$(head_of "$R2")
bound "$R2/.git" "$R2/.git" "$(commit_in "$R2/.git" .husky/pre-commit)"
check_sh "--bind R/.git: the commit of .husky/pre-commit is held" \
    '[ "$(head_of "$R2")" = "$L2" ] && held_in "$R2" ||
    { diag "$(cat "$ERR")"; false; }'

# ---- a bare repository in the workspace ----
B="$W/ws/b.git"
mkrepo "$W/seed"
u "git clone -q --bare '$W/seed' '$B'"
LB=$(head_of "$B")
jrun "$W/ws" "$(commit_in "$B" .husky/pre-commit)"
check_sh "a bare repository in the workspace: the commit is held" \
    '[ "$(head_of "$B")" = "$LB" ] && held_in "$B" ||
    { diag "$(cat "$ERR")"; false; }'
check_sh "  and named on the run's error output, as held" \
    'grep "b.git" "$ERR" | grep -qv "not judged" ||
    { diag "$(cat "$ERR")"; false; }'

# ---- a bare repository under a dot name (the .bare layout, alone) ----
DB="$W/ws/.vault"
u "git clone -q --bare '$W/seed' '$DB'"
LD=$(head_of "$DB")
jrun "$W/ws" "$(commit_in "$DB" .husky/pre-commit)"
check_sh "a bare repository named .vault: the commit is held" \
    '[ "$(head_of "$DB")" = "$LD" ] && held_in "$DB" ||
    { diag "$(cat "$ERR")"; false; }'

# ---- a work tree whose .git is a symlink the host made ----
mkrepo "$W/ws/lk"
u "cd '$W/ws/lk' && mv .git ../.lk-git && ln -s ../.lk-git .git"
LL=$(head_of "$W/ws/lk")
jrun "$W/ws" "cd '$W/ws/lk' && b=\$(echo x | git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 100644,\$b,.husky/pre-commit &&
    $GC commit -qm evil"
check_sh "a .git symlink the host made: the commit is held" \
    '[ "$(head_of "$W/ws/lk")" = "$LL" ] && held_in "$W/ws/lk" ||
    { diag "$(cat "$ERR")"; false; }'
check_sh "  and the host's index does not stage it" \
    '! u "git -C '"'$W/ws/lk'"' ls-files" | grep -q husky'
check_sh "the bare repository, unchanged in that run, is not named" \
    '! grep -q "b.git" "$ERR" || { diag "$(cat "$ERR")"; false; }'
# ---- a pointer left inside to a repository outside the binds ----
# Run 1 leaves a git directory whose commondir names R3 (not bound);
# during run 2 the user commits in R3 on the host: the judge, which
# follows the pointer at launch, must not take that commit back.
R3="$W/r3"
mkrepo "$R3"
jrun "$W/ws" "mkdir '$W/ws/fake' && echo 'ref: refs/heads/main' > \
    '$W/ws/fake/HEAD' && echo '$R3/.git' > '$W/ws/fake/commondir'"
as_user "$AIRLOCK" run --no-policy-check --workspace "$W/ws" -- \
    sh -c 'sleep 6' >/dev/null 2>"$ERR" &
rp=$!
sleep 3
u "cd '$R3' && mkdir -p .claude && echo '{}' > .claude/settings.json &&
    git add .claude && $GC commit -qm mine" >/dev/null
H3=$(head_of "$R3")
wait $rp
check_sh "a repository outside the binds keeps the user's own commit" \
    '[ "$(head_of "$R3")" = "$H3" ] && ! held_in "$R3" ||
    { diag "$(cat "$ERR")"; false; }'

# ---- an ordinary commit leaves nothing of the judge's in .git ----
mkrepo "$W/ws/plain"
LP=$(head_of "$W/ws/plain")
jrun "$W/ws" "cd '$W/ws/plain' && echo n > n && git add n &&
    $GC commit -qm n"
check_sh "an ordinary commit: kept, and no airlock-held/ left in .git" \
    '[ "$(head_of "$W/ws/plain")" != "$LP" ] &&
    [ ! -e "$W/ws/plain/.git/airlock-held" ] ||
    { ls -la "$W/ws/plain/.git" | sed "s/^/# /"; false; }'

# ---- a bare repository's core.hooksPath (the user's) ----
u "git init -q --bare '$W/ws/hb.git' && mkdir '$W/ws/hk' '$W/ws/other' &&
    git -C '$W/ws/hb.git' config core.hooksPath '$W/ws/hk'"
jrun "$W/ws" "echo x > '$W/ws/hk/pre-receive'"
check_sh "a bare repository's core.hooksPath directory is refused" \
    '[ ! -e "$W/ws/hk/pre-receive" ] || { diag "$(cat "$ERR")"; false; }'
jrun "$W/ws" "echo x > '$W/ws/other/pre-receive'"
check "control: the same name in another directory is written" \
    [ -e "$W/ws/other/pre-receive" ]
finish
