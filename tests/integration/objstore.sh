#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The object store as an agent rewrites it.  Git state lets a sandbox
# write objects/ (every commit does), and git, the judge and the host's
# checkout alike take the bytes found for a name to be that object.  So
# the agent gives HEAD's own tree, which no ref move reveals, the bytes
# of a tree that adds .claude/settings.json: rewritten in place,
# deleted and written again, through a link, in a pack, in a store that
# objects/info/alternates adds, and a commit graph that names another
# tree for HEAD.  After each run the user's `git reset --hard` on the
# host must not write the file, and the run must say what it held.
# A control does the same rewrite outside any sandbox: the file appears.
. "$(dirname "$0")/lib.sh"
plan 35

judge_init
mkrepo() {	# mkrepo W NAME: the user's repository W/NAME, two commits
	u "mkdir -p '$1/$2' && git init -q -b main '$1/$2' && cd '$1/$2' &&
	    echo r > readme && git add readme && $GC commit -qm one &&
	    $GC commit -q --allow-empty -m two" >/dev/null
}
# In the repository (the current directory): T, HEAD's tree, and TF,
# its loose object's path; E, a tree that is HEAD's with
# .claude/settings.json added, and EF, its loose object.
FORGE='T=$(git rev-parse HEAD^{tree}) &&
    TF=.git/objects/${T%${T#??}}/${T#??} &&
    b=$(printf "{\"hooks\":{}}\n" | git hash-object -w --stdin) &&
    tc=$(printf "100644 blob $b\tsettings.json\n" | git mktree) &&
    E=$({ git ls-tree HEAD; printf "040000 tree $tc\t.claude\n"; } |
    git mktree) && EF=.git/objects/${E%${E#??}}/${E#??}'
# host_reset W/REPO: the user's `git reset --hard` (failing is fine:
# a held object is missing); the protected file must not be written.
clean_after_reset() {
	u "cd '$1' && git reset -q --hard" >/dev/null 2>&1
	[ ! -e "$1/.claude/settings.json" ] ||
	    { diag "$1/.claude/settings.json written"; return 1; }
}
said() { grep -q "held .*$1" "$ERR" || { diag "$(cat "$ERR")"; false; }; }
none_held() { ! grep -q "held" "$ERR" || { diag "$(cat "$ERR")"; false; }; }

# ---- control: the rewrite, with no sandbox, writes the file ----
W=$(mkwork)
mkrepo "$W" c
u "cd '$W/c' && $FORGE && chmod u+w \$TF && cat \$EF > \$TF"
check "control: HEAD's tree rewritten outside, reset --hard writes it" \
    fails clean_after_reset "$W/c"

# ---- rewritten in place ----
W=$(mkwork)
mkrepo "$W" r
check "a run rewrites HEAD's tree object in place" \
    jrun "$W" "cd '$W/r' && $FORGE && chmod u+w \$TF && cat \$EF > \$TF"
check "... the host's reset --hard writes no .claude/settings.json" \
    clean_after_reset "$W/r"
check "... the run names the object it held" said "objects/"
check_sh "... kept under .git/airlock-held" \
    '[ -n "$(ls "$W/r/.git/airlock-held/"*/ 2>/dev/null)" ]'

# ---- deleted and written again ----
W=$(mkwork)
mkrepo "$W" r
check "a run deletes HEAD's tree object and writes it again" \
    jrun "$W" "cd '$W/r' && $FORGE && rm -f \$TF && cp \$EF \$TF"
check "... reset --hard writes nothing protected" clean_after_reset "$W/r"
check "... named" said "objects/"

# ---- a link in its place (hard, then symbolic) ----
W=$(mkwork)
mkrepo "$W" r
check "a run puts a hard link to another object in its place" \
    jrun "$W" "cd '$W/r' && $FORGE && rm -f \$TF && ln \$EF \$TF"
check "... reset --hard writes nothing protected" clean_after_reset "$W/r"
W=$(mkwork)
mkrepo "$W" r
check "a run may not put a symlink to another object in its place" \
    fails jrun "$W" "cd '$W/r' && $FORGE && rm -f \$TF &&
    ln -s \"\$PWD/\$EF\" \$TF"
check "... reset --hard writes nothing protected" clean_after_reset "$W/r"

# ---- in a pack whose index names it ----
W=$(mkwork)
mkrepo "$W" r
check "a run writes a pack that gives HEAD's tree other bytes" \
    jrun "$W" "cd '$W/r' && $FORGE && X=\$(mktemp -d) &&
    git init -q --bare \$X/x.git && mkdir -p \$X/x.git/objects/\${T%\${T#??}} &&
    cp \$EF \$X/x.git/\${TF#.git/} && mkdir -p .git/objects/pack &&
    echo \$T | git --git-dir=\$X/x.git pack-objects -q --window=0 \
    \$X/pack >/dev/null && cp \$X/pack-* .git/objects/pack/ && rm -f \$TF"
check "... reset --hard writes nothing protected" clean_after_reset "$W/r"
check "... the pack named" said "pack-"

# ---- the same pack under a name that is not pack-* ----
W=$(mkwork)
mkrepo "$W" r
check "a run writes that pack as objects/pack/x.pack and x.idx" \
    jrun "$W" "cd '$W/r' && $FORGE && X=\$(mktemp -d) &&
    git init -q --bare \$X/x.git && mkdir -p \$X/x.git/objects/\${T%\${T#??}} &&
    cp \$EF \$X/x.git/\${TF#.git/} && mkdir -p .git/objects/pack &&
    echo \$T | git --git-dir=\$X/x.git pack-objects -q --window=0 \
    \$X/pack >/dev/null && cp \$X/pack-*.pack .git/objects/pack/x.pack &&
    cp \$X/pack-*.idx .git/objects/pack/x.idx && rm -f \$TF"
check "... reset --hard writes nothing protected" clean_after_reset "$W/r"

# ---- a store that objects/info/alternates adds ----
W=$(mkwork)
mkrepo "$W" r
check "a run adds a store holding other bytes for HEAD's tree" \
    jrun "$W" "cd '$W/r' && $FORGE && A='$W/alt/objects' &&
    mkdir -p \$A/\${T%\${T#??}} && cp \$EF \$A/\${TF#.git/objects/} &&
    echo \"\$A\" > .git/objects/info/alternates && rm -f \$TF"
check "... reset --hard writes nothing protected" clean_after_reset "$W/r"
check "... the alternates file named" said "info/alternates"

# ---- a store outside any repository, with the true bytes for now ----
# (a later run whose workspace holds alt/ but not r could rewrite them)
W=$(mkwork)
mkrepo "$W" r
check "a run moves HEAD's tree to a store outside any repository" \
    jrun "$W" "cd '$W/r' && $FORGE && A='$W/alt/objects' &&
    mkdir -p \$A/\${T%\${T#??}} && cp \$TF \$A/\${TF#.git/objects/} &&
    echo \"\$A\" > .git/objects/info/alternates && rm -f \$TF"
check "... the alternates file held" said "info/alternates"

# ---- git clone --reference: a repository's store, kept ----
W=$(mkwork)
mkrepo "$W" r
check "a run clones r --reference r" \
    jrun "$W" "git clone -q --reference '$W/r' '$W/r' '$W/r2'"
check "... nothing held" none_held
check "... the clone reads its objects through r's store" \
    u "git -C '$W/r2' log --oneline | grep -q two"

# ---- a commit graph naming another tree for HEAD ----
W=$(mkwork)
mkrepo "$W" r
u "cd '$W/r' && git commit-graph write --reachable"
check "a run rewrites the commit graph: HEAD's tree is another" \
    jrun "$W" "cd '$W/r' && $FORGE && G=.git/objects/info/commit-graph &&
    chmod u+w \$G && T=\$T E=\$E perl -0777 -pi -e \
    '\$a = pack(\"H*\", \$ENV{T}); \$b = pack(\"H*\", \$ENV{E});
    s/\\Q\$a\\E/\$b/g' \$G && [ \"\$(git log -1 --format=%T)\" = \$E ]"
check "... the host's git log shows HEAD's own tree" \
    u "cd '$W/r' && [ \"\$(git log -1 --format=%T)\" = \
    \"\$(git cat-file -p HEAD | sed -n 's/^tree //p')\" ]"
check "... the commit graph named" said "commit-graph"

# ---- thousands of files named like objects: held, named by 16 ----
W=$(mkwork)
mkrepo "$W" r
check "a run writes 3,000 junk files named like loose objects" \
    jrun "$W" "cd '$W/r/.git/objects' && mkdir -p 77 &&
    seq -f '%038g' 1 3000 | sed 's/ /0/g' | while read n; do
    echo junk > 77/\$n; done"
junk_held() {
	[ "$(grep -c "held .*objects/77/" "$ERR")" -eq 16 ] &&
	    grep -q "held 2984 more object files of .*; moved to" "$ERR" &&
	    [ -z "$(ls "$W/r/.git/objects/77/" 2>/dev/null)" ] ||
	    { diag "$(grep -c "held .*objects/77/" "$ERR") named; $(grep \
	    "more object" "$ERR"); left $(ls "$W/r/.git/objects/77/" | wc -l)"
	    false; }
}
check "... all held: 16 named, the rest counted" junk_held
fsck_ok() { _o=$(u "git -C '$1' fsck 2>&1") || { diag "$_o"; false; }; }
check "... the user's objects kept (git fsck)" fsck_ok "$W/r"

# ---- what git itself writes is kept ----
W=$(mkwork)
mkrepo "$W" r
check "a run commits, repacks and writes a commit graph" \
    jrun "$W" "cd '$W/r' && echo x > x && git add x &&
    $GC commit -qm three && echo y > y && git add y &&
    $GC commit -qm four && git repack -qad && git commit-graph write \
    --reachable && echo z > z && git add z && $GC commit -qm five"
check "... nothing held" none_held
whole() {
	_o=$(u "cd '$1' && git fsck 2>&1 && git log --oneline") ||
	    { diag "$_o"; return 1; }
	case $_o in *five*) ;; *) diag "$_o"; return 1 ;; esac
}
check "... the repository whole (git fsck)" whole "$W/r"
check "... and its files there" u "cd '$W/r' && git reset -q --hard &&
    [ -f x ] && [ -f y ] && [ -f z ]"

finish
