#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The launch walks fail closed (issue 25, attack B).  airlockd walks each
# writable bind at launch to find its repositories: it asks git for each
# one's core.hooksPath (protected like .git/hooks) and snapshots its refs
# and index (the commit judge).  Both walks are bounded, and the agent
# fills the tree they walk: on one run it made 5000 directories named
# d*/.git, and on the next the walks stopped before the user's nested
# repository zz (core.hooksPath .githooks), so the agent wrote
# zz/.githooks/pre-commit and committed .claude/settings.json there; the
# host's `git commit` ran the hook and its `git reset --hard` wrote the
# file.  Now a `.git` that is no repository counts for nothing; past the
# repositories git is asked about their config files are read without
# git; past those whose refs are kept, what changed is named at the end
# as not judged; only a walk past 100,000 directories refuses the
# launch.  Through real `airlock run`s as
# the unprivileged user, then the host's real git; controls: the same
# writes done outside the sandbox do fire.
. "$(dirname "$0")/lib.sh"
plan 44

MD=$(mktemp -d /tmp/walklimit-mark.XXXXXX)
chmod 1777 "$MD"
trap 'rm -rf "$MD"' EXIT

u() { as_user sh -c "$1"; }
GC='git -c user.name=a -c user.email=a@a'
# sbx W CMD: one run with W as the workspace; stderr in $ERR.
ERR="$MD/err"
sbx() {
	as_user "$AIRLOCK" run --no-policy-check --workspace "$1" \
	    --events "$MD/ev" -- sh -c "$2" >"$MD/out" 2>"$ERR"
	_rc=$?
	[ $_rc -eq 0 ] || diag "exit $_rc: $(head -c 600 "$ERR")"
	return $_rc
}
# mkrepo W NAME: the user's repository W/NAME, core.hooksPath .githooks.
mkrepo() {
	u "mkdir -p '$1/$2' && git init -q -b main '$1/$2' && cd '$1/$2' &&
	    echo r > readme && git add readme && $GC commit -qm one &&
	    git config core.hooksPath .githooks" >/dev/null
}
# What the agent does on the second run, in the repository at $1: the
# hook written, .claude/settings.json committed (no write of the file).
ATTACK='cd "$1" && mkdir -p .githooks;
    printf "#!/bin/sh\ntouch $MARK\n" > .githooks/pre-commit;
    chmod +x .githooks/pre-commit;
    b=$(printf "{\"hooks\":{}}\n" | git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 100644,$b,.claude/settings.json &&
    git -c user.name=a -c user.email=a@a commit -qm evil; true'
attack() {	# attack W REPO NAME: the second run
	sbx "$1" "MARK='$MD/$3'; set -- '$1/$2'; $ATTACK"
}
# host_fires W REPO NAME: the host's git reset --hard and git commit:
# did the hook run, or the file land?
host_fires() {
	u "cd '$1/$2' && git reset -q --hard && $GC commit -q --allow-empty \
	    -m host" >/dev/null 2>&1
	[ -e "$MD/$3" ] || [ -e "$1/$2/.claude/settings.json" ]
}
hook_fired() { [ -e "$MD/$1" ]; }
file_landed() { [ -e "$1/.claude/settings.json" ]; }
# The fillers: N directories (or whatever CMD makes of each name $d).
filler() {	# filler W N CMD
	sbx "$1" "cd '$1' && for d in \$(seq -f d%g 0 $(($2 - 1))); do $3;
	    done"
}

# ---- control: the same writes outside the sandbox do fire ----
C=$(mkwork)
mkrepo "$C" zz
u "MARK='$MD/ctl'; set -- '$C/zz'; $ATTACK" >/dev/null 2>&1
u "cd '$C/zz' && $GC commit -q --allow-empty -m host" >/dev/null 2>&1
check "control: the user's own hook runs on the host's git commit" \
    hook_fired ctl
u "cd '$C/zz' && rm -rf .claude && git reset -q --hard"
check "control: the host's reset --hard writes the committed file" \
    file_landed "$C/zz"

# ---- the attack: 5000 d*/.git directories, then the second run ----
W=$(mkwork)
mkrepo "$W" zz
check "run 1: 5000 d*/.git directories made" \
    filler "$W" 5000 'mkdir -p $d/.git'
check "run 2 launches (an empty .git is no repository)" \
    attack "$W" zz atk
check "run 2: the hook in zz/.githooks was refused" \
    [ ! -e "$W/zz/.githooks/pre-commit" ]
check "the host's git commit and reset --hard run nothing, write nothing" \
    fails host_fires "$W" zz atk
check "zz's commit of .claude/settings.json is held" \
    u "git -C '$W/zz' for-each-ref refs/airlock/held | grep -q ."

# ---- 5000 gitfiles that are not gitfiles, and symlinks to zz ----
W2=$(mkwork)
mkrepo "$W2" zz
check "run 1: 2500 .git files of junk and 2500 links to them made" \
    filler "$W2" 2500 'mkdir $d && echo junk > $d/.git && ln -s $d l$d'
check "run 2 launches" attack "$W2" zz junk
check "... the hook refused, nothing fires on the host" \
    fails host_fires "$W2" zz junk

# ---- 300 real repositories (HEAD, objects/, refs/): launched ----
# Past the 256 whose refs are kept at launch, a repository that changed
# during the run is named as not judged; one that did not is not named.
# Past the 256 git is asked about, config files are read without git.
W3=$(mkwork)
mkrepo "$W3" zz
check "run 1: 300 minimal repositories made" \
    filler "$W3" 300 'mkdir -p $d/.git/objects $d/.git/refs &&
    echo "ref: refs/heads/main" > $d/.git/HEAD'
check "run 2 launches (a full tree is no reason to refuse a launch)" \
    attack "$W3" zz real
check "... the hook in zz/.githooks was refused" \
    [ ! -e "$W3/zz/.githooks/pre-commit" ]
u "cd '$W3/zz' && $GC commit -q --allow-empty -m host" >/dev/null 2>&1
check "... the host's git commit runs no hook" fails hook_fired real
check_sh "... zz's commit is held, or zz is named as not judged" \
    'u "git -C $W3/zz for-each-ref refs/airlock/held" | grep -q . ||
    grep -q "not judged: $W3/zz (a repository past the 256" "$ERR"'
check_sh "... a repository only named is not called held in the summary" \
    '! grep -q "not judged: $W3/zz" "$ERR" ||
    ! grep -q "held, see above" "$ERR"'
check "... the fillers, unchanged during the run, are not named" \
    [ "$(grep -c 'not judged' "$ERR")" -le 1 ]
check "... the same fillers made by gitfiles (git asked of 256 only)" \
    u "cd '$W3' && for d in \$(seq -f g%g 0 299); do mkdir \$d &&
    echo 'gitdir: ../zz/.git' > \$d/.git; done; rm -rf d*"
u "cd '$W3/zz' && rm -rf .githooks .claude; true"
check "... the run launches" attack "$W3" zz real2
check "... the hook refused" [ ! -e "$W3/zz/.githooks/pre-commit" ]
u "cd '$W3/zz' && $GC commit -q --allow-empty -m host" >/dev/null 2>&1
check "... the host's git commit runs no hook" fails hook_fired real2
u "rm -rf '$W3'/g*"
check "... with the fillers gone the user's run launches" \
    sbx "$W3" true

# ---- too many directories: refused, never a walk that stops ----
W4=$(mkwork)
mkrepo "$W4" zz
# (made by the user: the same as the agent's, faster)
check "101,101 directories made" \
    u "cd '$W4' && seq -f a%g 0 100 | xargs mkdir &&
    for a in a*; do (cd \$a && seq -f b%g 0 999 | xargs mkdir); done"
check "run 2: the launch is refused" fails attack "$W4" zz dirs
check "... the refusal names the bind and the directories" \
    grep -q "$W4: more than [0-9]* directories" "$ERR"
check "... nothing fires on the host" fails host_fires "$W4" zz dirs
check "... the same directories within node_modules do not count" \
    u "mkdir '$W4/node_modules' && mv '$W4'/a* '$W4/node_modules/'"
check "... the run launches, the hook refused" attack "$W4" zz dirs2
check "... nothing fires on the host" fails host_fires "$W4" zz dirs2

# ---- a .git that becomes a repository during the run ----
W5=$(mkwork)
mkrepo "$W5" zz
check "run 1: 300 empty d*/.git" filler "$W5" 300 'mkdir -p $d/.git'
check "run 2: they become repositories during the run" \
    sbx "$W5" "cd '$W5' && for d in d*; do mkdir \$d/.git/objects \
    \$d/.git/refs && echo 'ref: refs/heads/main' > \$d/.git/HEAD; done &&
    git init -q nz && cd nz && $GC commit -q --allow-empty -m x"
check "... the end of the run names what it could not judge" \
    grep -q "not judged" "$ERR"
check "... an event names a repository not judged" \
    grep -q '"kind":"unjudged"' "$MD/ev"
check "... zz, found at launch, still protected" fails host_fires "$W5" zz d5

# ---- the user's repository moved out of the walks' reach and back ----
# (zz itself, and p holding it: a directory of the user's own)
W7=$(mkwork)
mkrepo "$W7" zz
mkrepo "$W7" p/zz
sbx "$W7" "cd '$W7' && mkdir -p a/b/c/d && mv zz a/b/c/d/; mv p a/b/c/d/"
check_sh "run 1: moving zz five levels down is refused or named" \
    '[ -d "$W7/zz/.git" ] || grep -q "zz (a repository moved or removed" "$ERR"'
check_sh "run 1: moving p (zz in it) down is refused or named" \
    '[ -d "$W7/p/zz/.git" ] ||
    grep -q "p/zz (a repository moved or removed" "$ERR"'
sbx "$W7" "cd '$W7' && { [ -d zz ] || mv a/b/c/d/zz zz; } &&
    { [ -d p ] || mv a/b/c/d/p p; };
    MARK='$MD/moved'; set -- '$W7/p/zz'; $ATTACK"
check_sh "run 2: moved back, its hook is refused or named" \
    '[ ! -e "$W7/p/zz/.githooks/pre-commit" ] ||
    grep -q "not judged: $W7/p/zz (.*sets core.hooksPath" "$ERR"'
check "... its commit of .claude/settings.json does not land" \
    u "cd '$W7/p/zz' && git reset -q --hard 2>/dev/null; [ ! -e .claude/settings.json ]"

# ---- a normal workspace with a few nested repositories ----
W6=$(mkwork)
mkrepo "$W6" .
mkrepo "$W6" a
mkrepo "$W6" b/c
mkrepo "$W6" d/e/f
check "a normal workspace launches" sbx "$W6" true
check "... with nothing said about limits" \
    fails grep -q "more than\|not judged" "$ERR"
check "... the hook of the repository 3 levels down refused" \
    attack "$W6" d/e/f norm
check "... nothing fires on the host" fails host_fires "$W6" d/e/f norm
check "... the top repository's hook refused too" attack "$W6" . norm2
check "... nothing fires on the host" fails host_fires "$W6" . norm2

finish
