#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The commit judge past its walk's bound (walklimit.sh has the bounds
# themselves).  The agent fills the workspace with repositories so that
# the user's lands past the 256 whose refs are kept at launch; at the end
# such a repository is named "not judged" if its git directory changed.
# Here the agent changes it in ways that must not go unnamed: a linked
# work tree (the bare-repository layout: p/.bare, p/wt), a ref in a
# directory deeper than a bounded look at refs/ reaches, and the
# repository moved out of the walk's reach with a symlink left in its
# place.  Through real `airlock run`s as the unprivileged user.
. "$(dirname "$0")/lib.sh"
plan 22

MD=$(mktemp -d /tmp/walkjudge-mark.XXXXXX)
chmod 1777 "$MD"
trap 'rm -rf "$MD"' EXIT

u() { as_user sh -c "$1"; }
GC='git -c user.name=a -c user.email=a@a'
ERR="$MD/err"
sbx() {	# sbx W CMD: one run with W as the workspace; stderr in $ERR
	as_user "$AIRLOCK" run --no-policy-check --workspace "$1" \
	    --events "$MD/ev" -- sh -c "$2" >"$MD/out" 2>"$ERR"
	_rc=$?
	[ $_rc -eq 0 ] || diag "exit $_rc: $(head -c 600 "$ERR")"
	return $_rc
}
mkrepo() {	# mkrepo W NAME: the user's repository W/NAME
	u "mkdir -p '$1/$2' && git init -q -b main '$1/$2' && cd '$1/$2' &&
	    echo r > readme && git add readme && $GC commit -qm one" >/dev/null
}
# fill W BEFORE [N]: N (300) minimal repositories in a directory of W
# that the walk reads before W/BEFORE (readdir's order, as the agent
# sees it).
fill() {
	u "cd '$1' && seq -f f%g 0 99 | xargs mkdir"
	_f=$(ls -f "$1" | grep -E "^(f[0-9]+|$2)\$" | head -1)
	[ "$_f" != "$2" ] || { diag "no directory before $2"; return 1; }
	u "cd '$1' && for f in f*; do [ \$f = $_f ] || rmdir \$f; done &&
	    cd $_f && for d in \$(seq -f d%g 0 $((${3:-300} - 1))); do
	    mkdir -p \$d/.git/objects \$d/.git/refs &&
	    echo 'ref: refs/heads/main' > \$d/.git/HEAD; done"
}
# The commit of .claude/settings.json on top of HEAD, by plumbing only
# (objects, then the ref $REF; no index, no HEAD), in the current dir.
EVIL='b=$(printf "{\"hooks\":{}}\n" | git hash-object -w --stdin) &&
    tc=$(printf "100644 blob $b\tsettings.json\n" | git mktree) &&
    t=$({ git ls-tree HEAD; printf "040000 tree $tc\t.claude\n"; } |
    git mktree) && c=$(git -c user.name=a -c user.email=a@a commit-tree \
    $t -p HEAD -m evil) && git update-ref "$REF" $c'
# held W REPO REF: the commit held, or the repository named not judged
held() {
	u "git -C '$1/$2' for-each-ref refs/airlock/held" | grep -q . ||
	    grep -q "not judged: $1/$2 " "$ERR"
}
has_evil() { u "git -C '$1' log -1 --format=%s '$2'" | grep -q evil; }

# ---- a linked work tree past the bound (p/.bare, p/wt) ----
W=$(mkwork)
mkrepo "$W" src
u "git clone -q --bare '$W/src' '$W/p/.bare' && rm -rf '$W/src' &&
    git -C '$W/p/.bare' worktree add -q ../wt main" >/dev/null 2>&1
check "the work tree p/wt of p/.bare made" [ -f "$W/p/wt/.git" ]
check "300 repositories walked before p" fill "$W" p
check "a run commits .claude/settings.json in p/wt" \
    sbx "$W" "cd '$W/p/wt' && REF=refs/heads/main && $EVIL"
check "... the commit is there" has_evil "$W/p/wt" main
check "... held, or p/wt named as not judged" held "$W" p/wt main

# ---- a ref in a directory 16 levels below refs/heads ----
W=$(mkwork)
mkrepo "$W" zz
DEEP=refs/heads/$(seq -s/ -f a%g 1 16)/x
check "run 1 (zz judged): a harmless branch $DEEP" \
    sbx "$W" "cd '$W/zz' && git update-ref $DEEP HEAD"
check "300 repositories walked before zz" fill "$W" zz
check "run 2: .claude/settings.json committed on that branch" \
    sbx "$W" "cd '$W/zz' && REF=$DEEP && $EVIL"
check "... the commit is there" has_evil "$W/zz" "$DEEP"
check "... held, or zz named as not judged" held "$W" zz

# ---- HEAD's tree object rewritten, past the bound: no ref moves ----
# (objstore.sh has the rewrite within the bound.)  Its object stores
# need no launch state, so they are verified past the bound too.
W=$(mkwork)
mkrepo "$W" zz
check "300 repositories walked before zz" fill "$W" zz
check "a run rewrites HEAD's tree object of zz in place" \
    sbx "$W" "cd '$W/zz' && T=\$(git rev-parse HEAD^{tree}) &&
    TF=.git/objects/\${T%\${T#??}}/\${T#??} &&
    b=\$(printf '{}\n' | git hash-object -w --stdin) &&
    tc=\$(printf \"100644 blob \$b\tsettings.json\n\" | git mktree) &&
    E=\$({ git ls-tree HEAD; printf \"040000 tree \$tc\t.claude\n\"; } |
    git mktree) && chmod u+w \$TF &&
    cat .git/objects/\${E%\${E#??}}/\${E#??} > \$TF"
u "cd '$W/zz' && git reset -q --hard" >/dev/null 2>&1
check "... the host's reset --hard writes no .claude/settings.json" \
    [ ! -e "$W/zz/.claude/settings.json" ]
check "... the object named held" grep -q "held $W/zz/.git/objects/" "$ERR"

# ---- moved out of reach, a symlink in its place ----
W=$(mkwork)
mkrepo "$W" zz
check "300 repositories walked before zz" fill "$W" zz
sbx "$W" "cd '$W/zz' && REF=refs/heads/main && $EVIL && cd '$W' &&
    mkdir -p a/b/c/d && mv zz a/b/c/d/ && ln -s a/b/c/d/zz zz"
check_sh "a run commits in zz (past the bound), moves it down, links it" \
    '[ -L "$W/zz" ] && has_evil "$W/zz" main'
check "... held, or zz named" held "$W" zz

# The same for a repository within the bound: its commits are judged
# where the link leads, but the next launch's walks do not follow a
# symlink, so its hooks directory would go unprotected.
W=$(mkwork)
mkrepo "$W" zz
sbx "$W" "cd '$W' && mkdir -p a/b/c/d && mv zz a/b/c/d/ &&
    ln -s a/b/c/d/zz zz"
check "a run moves zz down and links it" [ -L "$W/zz" ]
check "... zz named as moved" \
    grep -q "not judged: $W/zz (a repository moved or removed" "$ERR"

# Past 4,352 repositories the launch's walk stops: one moved away after
# that point was never listed, so the end cannot say it moved.
W=$(mkwork)
mkrepo "$W" zz
check "4400 repositories walked before zz" fill "$W" zz 4400
sbx "$W" "cd '$W' && mkdir -p a/b/c/d && mv zz a/b/c/d/ &&
    ln -s a/b/c/d/zz zz"
check "a run moves zz down and links it" [ -L "$W/zz" ]
check "... the end says its launch walk was not whole" \
    grep -q "not judged: $W (the walk when the run started" "$ERR"

finish
