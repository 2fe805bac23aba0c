#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Git state by allowlist (issue 11, SPEC R-L3): through a real `airlock
# run`, every route a hostile agent knows to plant a config key, hook or
# pager that the host's next `git` would run is refused, at the
# workspace root and in a nested repository, whatever the git directory
# is called (.git, a gitfile's target, a commondir, a bare layout); git's
# own porcelain keeps working inside; and afterwards the user's `git
# status`, `git log -p` (on a pty) and `git commit` on the host run
# nothing of the agent's.
. "$(dirname "$0")/lib.sh"
REFUSED_EACCES=1
plan 67

W=$(mkwork)
cd "$W" || exit 1
EV="$W/.ev.jsonl"
mkdir -p "$W/.bin"
cp "$B/tests/helpers/tmpfile_link" "$W/.bin/"
H=.bin
# Markers land on the host, where the sandbox cannot write.
MD=$(mktemp -d /tmp/gitstate-mark.XXXXXX)
chmod 1777 "$MD"
cat >"$W/evil.sh" <<EOF
#!/bin/sh
touch "$MD/ran-\$(basename "\$0")-\$\$"
EOF
chmod 0755 "$W/evil.sh"
{
	printf '[core]\n\tfsmonitor = "%s"\n' "$W/evil.sh"
	printf '\tpager = "touch %s/pager; cat"\n' "$MD"
	printf '[alias]\n\tst = "!touch %s/alias"\n' "$MD"
} >"$W/evil.cfg"
chown "$TUSER" "$W/evil.cfg" "$W/evil.sh"

# no_key DIR: the repository's config (as git reads it) runs nothing.
no_key() {
	! as_user git -C "$1" config --get-regexp \
	    '^(core\.(fsmonitor|pager)|alias\..*)$' >/dev/null 2>&1
}

as_user sh -c 'git init -q -b main . && git init -q -b main sub/nested &&
    for d in . sub/nested; do (cd $d && echo r > readme && git add readme &&
    git -c user.name=t -c user.email=t@t commit -qm one); done' >/dev/null

for D in . sub/nested; do
	# 1. A hard link of the config, then an append to the link.
	check "[$D] ln .git/config c is refused" refused \
	    "ln $D/.git/config $D/c && cat evil.cfg >> $D/c"
	check "[$D] ... and the config runs nothing" no_key "$D"
	# 2. The git directory under another name, a gitfile pointing there.
	check "[$D] mv .git g is refused" refused \
	    "mv $D/.git $D/g && echo 'gitdir: g' > $D/.git &&
	    cat evil.cfg >> $D/g/config"
	check "[$D] ... .git is still the directory" [ -d "$D/.git" ]
	check "[$D] a copy of .git is git state: its config is refused" \
	    refused "mkdir -p $D/w && cp -R $D/.git $D/w/gd;
	    echo 'gitdir: gd' > $D/w/.git && cat evil.cfg >> $D/w/gd/config"
	check "[$D] ... its hooks too" refused \
	    "cp evil.sh $D/w/gd/hooks/pre-commit"
	# 3. A directory made git state after its config was written: by
	# mkdir, by renaming refs in, by a symlink, by O_TMPFILE + linkat.
	check "[$D] config then objects, refs (mkdir): refused" refused \
	    "mkdir -p $D/p1/objects && cat evil.cfg > $D/p1/config &&
	    echo 'ref: refs/heads/main' > $D/p1/HEAD && mkdir $D/p1/refs"
	check "[$D] ... refs renamed in: refused" refused \
	    "mkdir -p $D/p2/objects $D/q2/refs/heads &&
	    cat evil.cfg > $D/p2/config && echo 'ref: refs/heads/main' \
	    > $D/p2/HEAD && mv $D/q2/refs $D/p2/refs"
	check "[$D] ... refs as a symlink: refused" refused \
	    "mkdir -p $D/p3/objects && cat evil.cfg > $D/p3/config &&
	    echo 'ref: refs/heads/main' > $D/p3/HEAD &&
	    ln -s objects $D/p3/refs"
	out=$(sbx "mkdir -p $D/p4/objects && cat evil.cfg > $D/p4/config &&
	    $H/tmpfile_link $D/p4 $D/p4/refs" 2>/dev/null)
	check "[$D] ... refs by O_TMPFILE + linkat: refused ($out)" \
	    [ "$out" = "tmpfile=0 emptypath=EACCES procfd=EACCES" ]
	check "[$D] ... a prepared hook dir with objects+refs: refused" \
	    refused "mkdir -p $D/p5/hooks $D/p5/objects &&
	    cp evil.sh $D/p5/hooks/post-checkout && mkdir $D/p5/refs"
	check "[$D] ... a prepared directory renamed to .git: refused" \
	    refused "mkdir -p $D/p6/x/hooks &&
	    cp evil.sh $D/p6/x/hooks/pre-commit && mv $D/p6/x $D/p6/.git"
	# 4. A worktree gitdir whose commondir points at a prepared dir.
	check "[$D] commondir beside a hook: refused" refused \
	    "mkdir -p $D/wt/hooks && echo 'ref: refs/heads/main' > $D/wt/HEAD &&
	    cp evil.sh $D/wt/hooks/pre-commit && echo ../p1 > $D/wt/commondir"
	check "[$D] commondir beside an evil config.worktree: refused" refused \
	    "mkdir -p $D/wt2 && cat evil.cfg > $D/wt2/config.worktree &&
	    echo ../.git > $D/wt2/commondir"
	# 5. Into the real git directory: by name, rename, symlink, O_TMPFILE.
	check "[$D] a new hook by cp: refused" refused \
	    "cp evil.sh $D/.git/hooks/pre-commit"
	out=$(sbx "$H/tmpfile_link $D/.git $D/.git/hooks/post-commit" \
	    2>/dev/null)
	check "[$D] a hook by O_TMPFILE + linkat: refused ($out)" \
	    [ "$out" = "tmpfile=0 emptypath=EACCES procfd=EACCES" ]
	check "[$D] a name git never writes (info/attributes): refused" \
	    refused "echo '* diff=x' > $D/.git/info/attributes"
	check "[$D] an info directory renamed in, holding one: refused" \
	    refused "mkdir -p i && echo '* diff=x' > i/attributes &&
	    rm -rf $D/.git/info && mv i $D/.git/info"
	check "[$D] a symlinked .git/modules/x/hooks: refused" refused \
	    "mkdir -p $D/.git/modules/x && ln -s /tmp $D/.git/modules/x/hooks &&
	    mkdir $D/.git/modules/x/objects $D/.git/modules/x/refs"
	check "[$D] the config linked out by an fd: refused" refused \
	    "exec 3<$D/.git/config && ln -L /proc/self/fd/3 $D/c3"
done

# A bare repository is git state by its contents, whatever its name.
check "a hook in a bare repository made inside is refused" refused \
    'git init -q --bare sub/b.git && cp evil.sh sub/b.git/hooks/post-update'
check "... its config only through the content check" refused \
    'cat evil.cfg >> sub/b.git/config'

# ---- link and rename sources; symlinks ----
echo secret >"$W/.env"
chown "$TUSER" "$W/.env"
check "ln .env e2 (the source is protected) is refused" refused 'ln .env e2'
check "mv .env e3 (rename away) is refused" refused 'mv .env e3'
check "... .env is intact" [ "$(cat "$W/.env")" = secret ]
check "a symlink named .claude is refused" refused \
    'mkdir -p cl && ln -s cl .claude'
check "a symlink to a protected name (dangling) is refused" refused \
    'ln -s .git/hooks/pre-push lnk1'
check "a symlink named .git is refused" refused \
    'mkdir -p s1 && ln -s ../sub/nested/.git s1/.git'
# A symlinked parent the host made: the path as written is protected.
# (Only as written: a call relative to a dirfd opened on .claude names
# no parent; docs/SECURITY.md, "What is not covered".)
as_user sh -c "mkdir -p '$W/clreal/commands' && ln -s clreal '$W/.claude'"
check "through a host symlink .claude -> clreal: settings.json refused" \
    refused 'echo {} > .claude/settings.json'
check "... and commands/x.md too" refused 'echo x > .claude/commands/x.md'
check "... nothing landed in clreal" \
    [ "$(find "$W/clreal" | wc -l)" -eq 2 ]

# ---- ordinary work: each porcelain command, inside ----
check "git init" sbx 'git init -q -b main wk'
check "git commit" sbx 'cd wk && echo a > a && git add a &&
    git -c user.name=t -c user.email=t@t commit -qm a'
check "git clone (a local path)" sbx 'git clone -q wk cl2'
check "git worktree add" sbx 'cd wk && git worktree add -q ../wk-tree -b wtb'
check "... and a commit in the worktree" sbx 'cd wk-tree && echo w > w &&
    git add w && git -c user.name=t -c user.email=t@t commit -qm w'
check "git submodule add (file://)" sbx 'cd wk &&
    git -c protocol.file.allow=always submodule add -q \
    "file://$PWD/../cl2" sm &&
    git -c user.name=t -c user.email=t@t commit -qm sm'
# A checkout cannot write .gitmodules (only git's lock rename, content-
# checked, can): the clone is the host's, the submodule update inside.
as_user git clone -q "$W/wk" "$W/wk2" 2>/dev/null
check "git submodule update (a fresh clone)" sbx 'cd wk2 &&
    git -c protocol.file.allow=always submodule update -q --init'
check "git merge" sbx 'cd wk &&
    git -c user.name=t -c user.email=t@t merge -q --no-edit wtb'
check "git rebase" sbx 'cd wk && git checkout -q -b rb HEAD~1 && echo b > b &&
    git add b && git -c user.name=t -c user.email=t@t commit -qm b &&
    git -c user.name=t -c user.email=t@t rebase -q main'
check "git stash" sbx 'cd wk && echo dirty >> a && git stash -q &&
    git stash pop -q'
check "git gc" sbx 'cd wk && git gc -q'
check "git config user.name still works" \
    sbx 'cd wk && git config user.name Someone'

# ---- on the host: nothing of the agent's runs ----
host_git() {	# host_git DIR
	as_user env PAGER=cat sh -c "cd '$1' &&
	    { timeout 20 git status >/dev/null 2>&1;
	    timeout 20 script -qc 'git log -p -1' /dev/null </dev/null \
	    >/dev/null 2>&1; git -c user.name=u -c user.email=u@u \
	    commit -q --allow-empty -m host \
	    >/dev/null 2>&1; timeout 20 git st >/dev/null 2>&1; true; }"
}
for d in . sub/nested sub/nested/w ./w p1 p2 p3 p4 p5 p6 wt wt2 wk wk-tree \
    wk/sm wk2 wk2/sm sub/nested/p1 sub/nested/wt sub/b.git; do
	[ -e "$W/$d" ] && host_git "$W/$d"
done
check "the host's git status, log -p on a pty, commit ran no marker" \
    [ -z "$(ls -A "$MD")" ]
[ -z "$(ls -A "$MD")" ] || diag "markers: $(ls -A "$MD")"
check "a host git run does run core.pager (the marker works)" sh -c "
    mkdir -p '$MD/ctl' && cd '$MD/ctl' && git init -q &&
    git config core.pager 'touch $MD/ctl/pager-ran; cat' &&
    git -c user.name=u -c user.email=u@u commit -q --allow-empty -m x &&
    PAGER=cat script -qc 'git log -p -1' /dev/null </dev/null >/dev/null 2>&1;
    [ -e '$MD/ctl/pager-ran' ]"
check "refusals are violation events" \
    grep -q '"action":"file-write-create"' "$EV"
rm -rf "$MD"

# ---- read-only binds are set by mount_setattr on the clone's fd ----
# (issue 12: a remount by path failed with EINVAL on /usr and on a home
# whose mounts the host locked.)
out=$(as_user "$AIRLOCK" run --no-policy-check --workspace "$W" --ro-bind /home -- sh -c \
    'echo inside; touch /usr/x /home/x 2>&1' 2>&1)
check "--ro-bind /home runs, /usr and /home read-only" sh -c "
    echo '$out' | grep -q '^inside' &&
    [ \$(echo '$out' | grep -c 'Read-only file system') -eq 2 ]"
[ $? -eq 0 ] || diag "$out"
finish
