#!/bin/sh
# SPDX-License-Identifier: ISC
#
# What the agent commits, the host checks out (issue 25).  Inside a
# sandbox the filename rules refuse writing .husky/_/pre-commit or
# .claude/settings.json, but the agent may write git objects, the index
# and refs: a commit of such a path (by update-index --cacheinfo, or by
# commit-tree + update-ref), or an index entry staged and left, is
# written by the host's own `git reset --hard`, `git checkout -- .` or
# checkout of the agent's branch, and with core.hooksPath=.husky/_ (as
# husky sets it) the host's next `git commit` runs it.  Through a real
# `airlock run` as the unprivileged user: each route, then the host's
# real git; airlockd holds such a ref (put back, the commit kept under
# refs/airlock/held/) and restores such an index entry.  Controls: the
# same done by the user outside the sandbox does fire the marker.
. "$(dirname "$0")/lib.sh"
plan 97

W=$(mkwork)
cd "$W" || exit 1
MD=$(mktemp -d /tmp/commits-mark.XXXXXX)
chmod 1777 "$MD"
trap 'rm -rf "$MD"' EXIT
EV="$W/.ev"

u() { as_user sh -c "$1"; }
# sbx REPO CMD: one run with REPO as the workspace; its stderr in $R.err.
sbx() {
	as_user "$AIRLOCK" run --no-policy-check --workspace "$1" \
	    --events "$EV.1" -- sh -c "$2" >"$EV.out" 2>"$EV.err"
	_rc=$?
	cat "$EV.1" >>"$EV" 2>/dev/null
	[ $_rc -eq 0 ] || diag "exit $_rc: $(cat "$EV.err")"
	[ -z "$CM_DEBUG" ] || cat "$EV.err" >>"$CM_DEBUG"
	return $_rc
}
GC='git -c user.name=a -c user.email=a@a'
# A repository of the user's, husky-style: core.hooksPath .husky/_.
mkrepo() {
	u "git init -q -b main '$W/$1' && cd '$W/$1' && echo r > readme &&
	    git add readme && $GC commit -qm one &&
	    git config core.hooksPath .husky/_" >/dev/null
}
# The hook the agent tries to plant: it leaves NAME in $MD.
HOOK="printf '#!/bin/sh\ntouch $MD/%s\n'"
# plant NAME PATH: the inside commands that stage PATH (a hook) by
# hash-object + update-index --cacheinfo.
plant() {
	echo "b=\$($HOOK $1 | git hash-object -w --stdin) &&
	    git update-index --add --cacheinfo 100755,\$b,$2"
}
# host_fires REPO NAME ACTION: the host's ACTION in REPO, then its own
# git commit (which runs .husky/_/pre-commit): did the marker appear?
host_fires() {
	u "cd '$W/$1' && $3 && $GC commit -q --allow-empty -m host" \
	    >/dev/null 2>&1
	[ -e "$MD/$2" ]
}
head_is() { [ "$(u "git -C '$W/$1' rev-parse $2")" = "$3" ]; }
held_ref() { u "git -C '$W/$1' for-each-ref refs/airlock/held" | grep -q "$2"; }

# ---- controls: the same, by the user outside the sandbox ----
mkrepo c1
u "cd '$W/c1' && $(plant ctl-idx .husky/_/pre-commit) && $GC commit -qm x"
check "control: the user's own committed hook runs after reset --hard" \
    host_fires c1 ctl-idx "git reset -q --hard"
mkrepo c2
u "cd '$W/c2' && $(plant ctl-stage .husky/_/pre-commit)"
check "control: a staged hook runs after the host's checkout -- ." \
    host_fires c2 ctl-stage "git checkout -q -- ."

# ---- 1. the index route: hash-object + update-index + commit ----
mkrepo r1
L1=$(u "git -C '$W/r1' rev-parse HEAD")
check "inside: a hook committed by update-index --cacheinfo" \
    sbx "$W/r1" "$(plant idx .husky/_/pre-commit) && $GC commit -qm evil"
check "main is back at its launch value" head_is r1 main "$L1"
check "the host's reset --hard and commit run no hook" \
    fails host_fires r1 idx "git reset -q --hard"
check "the agent's commit is kept under refs/airlock/held/" \
    held_ref r1 refs/heads/main
check "the run's summary names the path" \
    grep -q '\.husky/_/pre-commit' "$EV.err"
check "... and the command that takes the commit" \
    grep -q 'update-ref refs/heads/main refs/airlock/held/' "$EV.err"
check "an event names the held path" \
    grep -q '"type":"held".*\.husky/_/pre-commit' "$EV"
# The user takes it on purpose: the one command the summary gave.
TAKE=$(sed -n 's/.*to take it: //p' "$EV.err" | head -n 1)
take_it() {
	u "cd '$W/r1' && $TAKE" >/dev/null &&
	    [ "$(u "git -C '$W/r1' log -1 --format=%s")" = evil ]
}
check "the command given takes the commit" take_it

# ---- 2. commit-tree + update-ref, no porcelain ----
mkrepo r2
L2=$(u "git -C '$W/r2' rev-parse HEAD")
check "inside: commit-tree + update-ref of a hook" sbx "$W/r2" \
    "I=/tmp/alt-index; export GIT_INDEX_FILE=\$I; git read-tree HEAD &&
    $(plant ct .husky/_/pre-commit) && t=\$(git write-tree) &&
    c=\$(echo x | $GC commit-tree \$t -p HEAD) && unset GIT_INDEX_FILE &&
    git update-ref refs/heads/main \$c || { rm -f \$I; false; }"
check "main is back at its launch value" head_is r2 main "$L2"
check "the host's reset --hard and commit run no hook" \
    fails host_fires r2 ct "git reset -q --hard"

# ---- 3. staged, not committed ----
mkrepo r3
check "inside: a hook staged and left in the index" \
    sbx "$W/r3" "$(plant stage .husky/_/pre-commit)"
check "the host's checkout -- . and commit run no hook" \
    fails host_fires r3 stage "git checkout -q -- ."
check "the index entry was restored and said" \
    grep -q 'index.*\.husky/_/pre-commit\|\.husky/_/pre-commit.*index' \
    "$EV.err"

# ---- 4. other protected files: on disk after the host's reset ----
mkrepo r4
check "inside: .claude/settings.json and .vscode/tasks.json committed" \
    sbx "$W/r4" "$(plant cl .claude/settings.json) &&
    $(plant vs sub/dir/.vscode/tasks.json) && $GC commit -qm evil"
u "cd '$W/r4' && git reset -q --hard" >/dev/null 2>&1
check_sh "neither reaches the disk with the host's reset --hard" \
    "[ ! -e '$W/r4/.claude/settings.json' ] &&
    [ ! -e '$W/r4/sub/dir/.vscode/tasks.json' ]"
check "both are named, the one at depth too" \
    grep -q 'sub/dir/.vscode/tasks.json' "$EV.err"

# ---- 5. other refs: a branch, a tag, a remote-tracking ref, packed ----
mkrepo r5
L5=$(u "git -C '$W/r5' rev-parse HEAD")
check "inside: the hook on a new branch, a tag and origin/main, packed" \
    sbx "$W/r5" "git checkout -qb side && $(plant br .husky/_/pre-commit) &&
    $GC commit -qm evil && git tag v9 && $GC tag -a -m t v9a &&
    git update-ref refs/remotes/origin/main HEAD &&
    git update-ref refs/replace/$L5 HEAD && git pack-refs --all &&
    git checkout -q main"
check "the host's reset --hard origin/main runs no hook" \
    fails host_fires r5 br "git reset -q --hard origin/main"
check "nor a checkout of the tag" \
    fails host_fires r5 br "git checkout -q v9a"
check "nor of the branch" fails host_fires r5 br "git checkout -q side"
check_sh "refs/replace/ is held too: HEAD is the user's commit" \
    "u \"git -C '$W/r5' cat-file -p $L5\" | grep -q '^tree' &&
    ! u \"git -C '$W/r5' for-each-ref refs/replace\" | grep -q ."

# ---- 6. a detached HEAD ----
mkrepo r6
L6=$(u "git -C '$W/r6' rev-parse HEAD")
check "inside: a hook committed on a detached HEAD" \
    sbx "$W/r6" "git checkout -q --detach && $(plant det .husky/_/pre-commit) &&
    $GC commit -qm evil"
check "HEAD is back on main, at its launch value" \
    head_is r6 HEAD "$L6"
check "the host's reset --hard runs no hook" \
    fails host_fires r6 det "git reset -q --hard"

# ---- 7. a symlink, a gitlink, a case variant ----
mkrepo r7
check "inside: .husky as a committed symlink, .claude as a gitlink" \
    sbx "$W/r7" "l=\$(printf hooks | git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 120000,\$l,.husky &&
    $(plant sym hooks/_/pre-commit) &&
    git update-index --add --cacheinfo 160000,\$(git rev-parse HEAD),.claude &&
    $GC commit -qm evil"
check "the host's reset --hard runs no hook" \
    fails host_fires r7 sym "git reset -q --hard"
check_sh "no .husky link on disk, no .claude gitlink in HEAD" \
    "[ ! -L '$W/r7/.husky' ] &&
    ! u \"git -C '$W/r7' ls-files -s\" | grep -q 160000"
mkrepo r8
check "inside: a case variant (.HUSKY/_/pre-commit) committed" \
    sbx "$W/r8" "$(plant case .HUSKY/_/pre-commit) && $GC commit -qm evil"
check "it is held as the sandbox judges names (folded)" \
    grep -q '\.HUSKY/_/pre-commit' "$EV.err"
mkrepo r9
check "inside: a symlink pointing to a protected name" \
    sbx "$W/r9" "l=\$(printf .husky/_/pre-commit | git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 120000,\$l,pc && $GC commit -qm evil"
check "is held like the name it points to" grep -q "'pc'\| pc " "$EV.err"

# ---- 8. a worktree made inside ----
mkrepo ra
check "inside: git worktree add, the hook committed there" \
    sbx "$W/ra" "git worktree add -q wt -b wtb && cd wt &&
    $(plant wt .husky/_/pre-commit) && $GC commit -qm evil &&
    cd .. && git worktree add -q --detach wd &&
    cd wd && $(plant wd .husky/_/pre-commit)"
check "the host's reset --hard in the worktree runs no hook" \
    fails host_fires ra/wt wt "git reset -q --hard"
check "nor a checkout -- . in the detached one" \
    fails host_fires ra/wd wd "git checkout -q -- ."
check "inside: a worktree added detached at a commit of the hook" \
    sbx "$W/ra" "$(plant wd2 .husky/_/pre-commit) && $GC commit -qm evil &&
    git worktree add -q --no-checkout --detach wd2 HEAD &&
    git reset -q --soft HEAD~1 && git rm -q --cached .husky/_/pre-commit"
check "the host's reset --hard in it runs no hook" \
    fails host_fires ra/wd2 wd2 "git reset -q --hard"

# ---- 9. two runs on one repository ----
mkrepo rb
Lb=$(u "git -C '$W/rb' rev-parse HEAD")
as_user "$AIRLOCK" run --no-policy-check --workspace "$W/rb" -- sh -c \
    "$(plant two .husky/_/pre-commit) && $GC commit -qm evil && touch .a &&
    while [ ! -e .b ]; do sleep 0.1; done" >/dev/null 2>&1 &
A=$!
n=0
while [ ! -e "$W/rb/.a" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
check "a second run starts after the first committed, commits on top" \
    sbx "$W/rb" "echo y > y && git add y && $GC commit -qm clean && touch .b"
wait $A
check "main is back at the value before both runs" head_is rb main "$Lb"
check "the host's reset --hard runs no hook" \
    fails host_fires rb two "git reset -q --hard"

# ---- 11. other routes to the same state ----
# A branch renamed after the commit: main is gone, HEAD on the new name.
mkrepo rd
Ld=$(u "git -C '$W/rd' rev-parse HEAD")
check "inside: the hook committed, then main renamed" \
    sbx "$W/rd" "$(plant ren .husky/_/pre-commit) && $GC commit -qm evil &&
    git branch -m main other"
check "main is back at its launch value, HEAD on it" \
    head_is rd HEAD "$Ld"
check "the host's reset --hard runs no hook" \
    fails host_fires rd ren "git reset -q --hard"
# ORIG_HEAD: the commit made and undone, its name left for the host's
# `git reset --hard ORIG_HEAD`.
mkrepo re
check "inside: the hook committed and reset away (ORIG_HEAD names it)" \
    sbx "$W/re" "$(plant orig .husky/_/pre-commit) && $GC commit -qm evil &&
    git reset -q --soft HEAD~1 && git rm -q --cached .husky/_/pre-commit"
check "ORIG_HEAD is put back, named" grep -q "put back ORIG_HEAD" "$EV.err"
check "the host's reset --hard ORIG_HEAD runs no hook" \
    fails host_fires re orig "git reset -q --hard ORIG_HEAD"
# git stash: the staged hook kept in refs/stash for the host's pop.
mkrepo rf
check "inside: the hook staged and stashed" \
    sbx "$W/rf" "$(plant stash .husky/_/pre-commit) && $GC stash -q"
check "the host's stash pop runs no hook" \
    fails host_fires rf stash "git stash pop -q"
# A repository made inside: no snapshot, everything in it is new.
check "inside: git init, .claude/settings.json committed" \
    sbx "$W" "git init -q -b main rg && cd rg &&
    $(plant new .claude/settings.json) && $GC commit -qm evil"
u "cd '$W/rg' && git reset -q --hard" >/dev/null 2>&1
check "the host's reset --hard there writes no .claude/settings.json" \
    test ! -e "$W/rg/.claude/settings.json"
# .gitmodules by its content, as inside: a safe one passes.
mkrepo rh
check "inside: a .gitmodules with an https URL committed" \
    sbx "$W/rh" "b=\$(printf '[submodule \"m\"]\\n\\tpath = m\\n\\turl = https://example.com/m.git\\n' |
    git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 100644,\$b,.gitmodules && $GC commit -qm mods"
check "is kept: .gitmodules judged by its content" \
    fails grep -q held "$EV.err"
mkrepo ri
check "inside: a .gitmodules with update = !command committed" \
    sbx "$W/ri" "b=\$(printf '[submodule \"m\"]\\n\\tpath = m\\n\\tupdate = !sh\\n' |
    git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 100644,\$b,.gitmodules && $GC commit -qm mods"
check "is held" grep -q 'held refs/heads/main.*\.gitmodules' "$EV.err"

# A ref to a tree (git checkout takes a tree-ish) and one to a blob.
mkrepo rj
check "inside: a tag naming a tree with the hook, one naming a blob" \
    sbx "$W/rj" "I=/tmp/alt-index; export GIT_INDEX_FILE=\$I;
    git read-tree HEAD && $(plant tree .husky/_/pre-commit) &&
    t=\$(git write-tree) && git update-ref refs/tags/tr \$t &&
    echo \$t > .git/MERGE_HEAD &&
    git update-ref refs/tags/bl \$(echo data | git hash-object -w --stdin)"
check "the host's checkout of the tree runs no hook" \
    fails host_fires rj tree "git checkout -q tr -- ."
check "nor a checkout of MERGE_HEAD, written by hand to name the tree" \
    fails host_fires rj tree "git checkout -q MERGE_HEAD -- ."
check_sh "the tree's tag is held, the blob's kept" \
    "grep -q 'held refs/tags/tr' '$EV.err' && ! grep -q 'refs/tags/bl' '$EV.err'"

# What the user staged before the run is the user's: kept.
mkrepo rk
u "cd '$W/rk' && mkdir .vscode && echo '{}' > .vscode/settings.json &&
    git add .vscode/settings.json"
check "inside: another file added beside the user's staged .vscode" \
    sbx "$W/rk" "echo y > y && git add y"
check_sh "the user's staged entry stays, nothing said" \
    "u \"git -C '$W/rk' ls-files .vscode\" | grep -q settings.json &&
    ! grep -q 'restored' '$EV.err'"
# Two runs the other way round: the first ends (and holds) while the
# second, started after its commit, still runs and commits on top, the
# hook still in its tree: the second run's launch tip is no base (the
# first run held it), the value it was put back to is.
mkrepo rl
Ll=$(u "git -C '$W/rl' rev-parse HEAD")
as_user "$AIRLOCK" run --no-policy-check --workspace "$W/rl" -- sh -c \
    "$(plant two2 .husky/_/pre-commit) && $GC commit -qm evil && touch .a &&
    while [ ! -e .b ]; do sleep 0.1; done" \
    >/dev/null 2>&1 &
A=$!
n=0
while [ ! -e "$W/rl/.a" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
as_user "$AIRLOCK" run --no-policy-check --workspace "$W/rl" -- sh -c \
    "x=\$(git rev-parse HEAD); touch .b; while [ ! -e .c ]; do sleep 0.1; done;
    git update-ref refs/heads/main \$x && git reset -q \$x &&
    echo z > z && git add z && $GC commit -qm clean" >/dev/null 2>"$EV.err" &
B=$!
n=0
while [ ! -e "$W/rl/.b" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
wait $A
touch "$W/rl/.c"
wait $B
check_sh "the second run's commit on the held one is held too" \
    "[ \"\$(u \"git -C '$W/rl' rev-parse main\")\" = '$Ll' ]"
check "the host's reset --hard runs no hook" \
    fails host_fires rl two2 "git reset -q --hard"

# ---- 12. what a host checkout writes: the tips' trees, not history ----
# A repository of the user's whose history once had .env (added, then
# removed) and 200 tags after it: a clone inside, a tracking branch and
# a commit there are no hold, whatever the history holds.
# The clone is made in a workspace of its own (the judge looks at 16
# repositories a bind).
u "mkdir '$W/hw' && git init -q -b main '$W/hw/hist' && cd '$W/hw/hist' &&
    echo s > .env && echo r > readme && git add -A && $GC commit -qm one &&
    git rm -q .env && $GC commit -qm two && i=0 &&
    while [ \$i -lt 200 ]; do echo \$i > n && git add n &&
    $GC commit -qm \$i && git tag t\$i || exit 1; i=\$((i + 1)); done" \
    >/dev/null 2>&1
check "inside: a clone of a repository whose history had .env, 200 tags" \
    sbx "$W/hw" "git clone -q -b main hist hclone && cd hclone &&
    git checkout -q -b feat --track origin/main && echo m >> readme &&
    $GC commit -qam more"
check_sh "nothing of it is held: feat, main and origin/main stay" \
    "! grep -q 'held\|put back' '$EV.err' &&
    [ \"\$(u \"git -C '$W/hw/hclone' log -1 --format=%s feat\")\" = more ] &&
    u \"git -C '$W/hw/hclone' rev-parse -q --verify origin/main\" >/dev/null"
check_sh "... and all 200 tags are there" \
    "[ \"\$(u \"git -C '$W/hw/hclone' tag | wc -l\")\" -eq 200 ]"
# Control: the judge did look at the clone (a hook committed there is
# held).
check "control: a hook committed in that clone is held" \
    sbx "$W/hw" "cd hclone && $(plant hc .husky/_/pre-commit) && $GC commit -qm evil"
check "... named" grep -q 'held refs/heads/feat.*\.husky/_/pre-commit' "$EV.err"
# A hook added and removed again on one branch: the tip's tree writes
# nothing on the host, so nothing is held.
mkrepo s1
check "inside: a hook committed, then removed in a later commit" \
    sbx "$W/s1" "$(plant addrm .husky/_/pre-commit) && $GC commit -qm evil &&
    git rm -q --cached .husky/_/pre-commit && $GC commit -qm gone"
check_sh "main keeps the agent's last commit, nothing held" \
    "[ \"\$(u \"git -C '$W/s1' log -1 --format=%s main\")\" = gone ] &&
    ! grep -q 'held' '$EV.err'"
check "the host's reset --hard and commit run no hook" \
    fails host_fires s1 addrm "git reset -q --hard"
# A directory of the user's renamed (in the index) to a protected one.
mkrepo s2
u "cd '$W/s2' && mkdir cfg && echo '{}' > cfg/tasks.json &&
    git add cfg && $GC commit -qm cfg" >/dev/null
check "inside: cfg/ renamed to .vscode/ in a commit" \
    sbx "$W/s2" "git read-tree --prefix=.vscode/ HEAD:cfg &&
    git rm -q -r --cached cfg && $GC commit -qm mv"
check_sh "held, naming .vscode/tasks.json and the rule" \
    "grep -q 'held refs/heads/main.*\.vscode/tasks\.json' '$EV.err' &&
    grep -q 'agent and editor project files' '$EV.err'"
u "cd '$W/s2' && git reset -q --hard" >/dev/null 2>&1
check "the host's reset --hard writes no .vscode/" test ! -e "$W/s2/.vscode"
# A symlink committed at a protected name (.envrc -> readme).
mkrepo s3
check "inside: .envrc committed as a symlink" \
    sbx "$W/s3" "l=\$(printf readme | git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 120000,\$l,.envrc && $GC commit -qm l"
check_sh "held, and the host's reset --hard makes no .envrc" \
    "grep -q 'held refs/heads/main.*\.envrc' '$EV.err' &&
    u \"cd '$W/s3' && git reset -q --hard\" >/dev/null 2>&1 &&
    [ ! -L '$W/s3/.envrc' ]"
# Gitlinks at names git takes for its own directory, by mktree (the
# index refuses them; a tree need not).
mkrepo s4
check "inside: a tree with gitlinks at .Git and sub/.git, committed" \
    sbx "$W/s4" "h=\$(git rev-parse HEAD) &&
    s=\$(printf '160000 commit %s\t.git\n' \$h | git mktree) &&
    t=\$( { git ls-tree HEAD; printf '160000 commit %s\t.Git\n040000 tree %s\tsub\n' \$h \$s; } | git mktree) &&
    c=\$(echo x | $GC commit-tree \$t -p HEAD) && git update-ref refs/heads/main \$c"
check_sh "held, naming both" \
    "grep -q 'held refs/heads/main.*\.Git' '$EV.err' &&
    grep -q 'held refs/heads/main.*sub/\.git' '$EV.err'"
# A ref moved by git update-ref alone, to a commit made by commit-tree,
# and a new branch that is never checked out.
mkrepo s5
L5b=$(u "git -C '$W/s5' rev-parse HEAD")
check "inside: a new branch (not checked out) and a tag by update-ref" \
    sbx "$W/s5" "I=/tmp/alt-index; export GIT_INDEX_FILE=\$I; git read-tree HEAD &&
    $(plant nb .husky/_/pre-commit) && t=\$(git write-tree) &&
    c=\$(echo x | $GC commit-tree \$t -p HEAD) && rm -f \$I &&
    git update-ref refs/heads/side \$c && git update-ref refs/tags/v1 \$c"
check_sh "both are held: side and v1 gone, kept under refs/airlock/held" \
    "! u \"git -C '$W/s5' rev-parse -q --verify refs/heads/side\" &&
    ! u \"git -C '$W/s5' rev-parse -q --verify refs/tags/v1\" &&
    held_ref s5 refs/heads/side && held_ref s5 refs/tags/v1"
check "the host's checkout of side runs no hook" \
    fails host_fires s5 nb "git checkout -q side"
# packed-refs edited by hand: main named at the hook's commit there.
mkrepo s6
L6b=$(u "git -C '$W/s6' rev-parse HEAD")
check "inside: packed-refs rewritten to move main to a hook's commit" \
    sbx "$W/s6" "I=/tmp/alt-index; export GIT_INDEX_FILE=\$I; git read-tree HEAD &&
    $(plant pk .husky/_/pre-commit) && t=\$(git write-tree) &&
    c=\$(echo x | $GC commit-tree \$t -p HEAD) && rm -f \$I &&
    git pack-refs --all && p=\$(sed \"s/^$L6b refs\/heads\/main\$/\$c refs\/heads\/main/\" .git/packed-refs) &&
    printf '%s\\n' \"\$p\" > .git/packed-refs &&
    [ \"\$(git rev-parse main)\" = \$c ]"
check "main is back at its launch value" head_is s6 main "$L6b"
check "the host's reset --hard runs no hook" \
    fails host_fires s6 pk "git reset -q --hard"
# A new branch from main where the user already committed .vscode/:
# judged against main's tree at launch, so the user's file is no hold.
mkrepo s7
u "cd '$W/s7' && mkdir .vscode && echo '{}' > .vscode/settings.json &&
    git add .vscode && $GC commit -qm user" >/dev/null
check "inside: a new branch on a tree that has the user's .vscode/" \
    sbx "$W/s7" "git checkout -qb feat && echo y > y && git add y &&
    $GC commit -qm feat"
check_sh "is kept, nothing held" \
    "! grep -q held '$EV.err' &&
    [ \"\$(u \"git -C '$W/s7' log -1 --format=%s feat\")\" = feat ]"
check "... but a change to that .vscode/settings.json is held" \
    sbx "$W/s7" "$(plant vsc .vscode/settings.json) && $GC commit -qm evil"
check "held, naming it" grep -q 'held refs/heads/feat.*\.vscode/settings\.json' "$EV.err"

# A replace ref for the blob of the user's own .vscode/settings.json:
# the host's next checkout of that file writes the agent's content.
u "cd '$W/s7' && git checkout -q main" >/dev/null 2>&1
check "inside: git replace of the user's .vscode/settings.json blob" \
    sbx "$W/s7" "b=\$(echo '{\"evil\":1}' | git hash-object -w --stdin) &&
    git replace \$(git rev-parse main:.vscode/settings.json) \$b"
check_sh "held, and the host's checkout of the file writes the user's" \
    "grep -q 'held refs/replace/' '$EV.err' &&
    u \"cd '$W/s7' && rm .vscode/settings.json &&
    git checkout -q -- .vscode/settings.json\" &&
    ! grep -q evil '$W/s7/.vscode/settings.json'"
# refs/airlock/ forged inside to make a hook's commit the base: the
# judge takes a value another run put back only if it adds no
# protected path, so the hold still comes.
mkrepo s8
L8=$(u "git -C '$W/s8' rev-parse HEAD")
check "inside: refs/airlock/held and was forged, a hook committed" \
    sbx "$W/s8" "$(plant forge .husky/_/pre-commit) && $GC commit -qm evil &&
    git update-ref refs/airlock/held/x/refs/heads/main $L8 &&
    git update-ref refs/airlock/was/x/refs/heads/main HEAD"
check_sh "main no longer names the hook's commit (deleted, kept held)" \
    "[ \"\$(u \"git -C '$W/s8' rev-parse -q --verify main\")\" != \
    \"\$(u \"git -C '$W/s8' rev-parse refs/airlock/was/x/refs/heads/main\")\" ] &&
    held_ref s8 refs/heads/main"
check "the host's reset --hard runs no hook" \
    fails host_fires s8 forge "git reset -q --hard"

# ---- 10. porcelain keeps working: an ordinary commit is not held ----
mkrepo rc
check "inside: an ordinary commit" \
    sbx "$W/rc" "echo y > y && git add y && $GC commit -qm ok"
check_sh "is kept on main, nothing held" \
    "[ \"\$(u \"git -C '$W/rc' log -1 --format=%s\")\" = ok ] &&
    ! u \"git -C '$W/rc' for-each-ref refs/airlock\" | grep -q ."
check "no marker from any route" sh -c "! ls -A '$MD' | grep -v ^ctl- | grep -q ."
finish
