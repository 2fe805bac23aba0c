#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Git config by allowlist, git state in runner state, the effective hooks
# directory (issue 25, findings 1-3; SPEC R-L3).  Through a real `airlock
# run` (and `airlock claude` for the runner's state), as the unprivileged
# user: each route by which a config key, a commondir, a hooks
# directory or a file the user's config includes, written inside, would
# make the host's next git run a program is refused, and the host's real
# git fetch / status / commit / reset --hard / lfs pull / log -p on a
# pty afterwards runs nothing.  Each
# route has a control: the same thing done by the user outside the
# sandbox does touch the marker, so no check passes vacuously.  Last, a
# bounded random run of `git config` writes of dangerous and random keys
# and values inside one sandbox, then the host's git on that repository.
. "$(dirname "$0")/lib.sh"
plan 51

W=$(mkwork)
cd "$W" || exit 1
EV="$W/.ev.jsonl"
# Markers land on the host, outside the workspace.
MD=$(mktemp -d /tmp/gitcfg-mark.XXXXXX)
chmod 1777 "$MD"
CTL=$(mktemp -d /tmp/gitcfg-ctl.XXXXXX)
chmod 0777 "$CTL"
trap 'rm -rf "$MD" "$CTL"' EXIT
# A program the host must never run: it leaves its name in $MD.
cat >"$W/evil.sh" <<EOF
#!/bin/sh
touch "$MD/ran-\$(basename "\$0")-\$\$"
cat >/dev/null 2>&1 </dev/null
EOF
chmod 0755 "$W/evil.sh"
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$W/evil.sh"

# key_event KEY: a git-config-key violation named it.
key_event() { grep '"action":"git-config-key"' "$EV" | grep -qF "$1"; }
# u CMD: as the user, on the host, outside any sandbox.
u() { as_user sh -c "$1"; }
markers() { ls -A "$MD" | grep -E '^(ran-|fz-|ext)' ; }

# The user's repositories, made on the host before the run.
for r in r1 r2 r3 r4 r5 r7 r8 rf rs ri; do
	u "git init -q -b main '$W/$r' && cd '$W/$r' && echo r > readme &&
	    git add readme && git -c user.name=t -c user.email=t@t \
	    commit -qm one && git remote add origin \
	    https://github.com/acme/app.git" >/dev/null
done

# r5 as a user of git-lfs has it: a pointer committed, its object not
# fetched yet, lfs.url set, so that the host's `git lfs pull` below
# does transfer (through whatever agent the config names).
LH="$CTL/lfshome"
mkdir -p "$LH"
chmod 0777 "$LH"
u "cd '$W/r5' && export HOME='$LH' && git lfs install --skip-repo \
    >/dev/null && git lfs track '*.bin' >/dev/null && echo data > a.bin &&
    git add . && git -c user.name=t -c user.email=t@t commit -qm lfs &&
    rm -rf .git/lfs/objects && rm a.bin &&
    git config lfs.url http://127.0.0.1:9/x" >/dev/null 2>&1

# ---- 1. keys the old denylist missed ----
# protocol.ext.allow=user plus url.ext::...insteadOf: the next fetch of
# any github.com URL would run the ext:: command.
check "protocol.ext.allow user is refused" refused \
    'cd r1 && git config protocol.ext.allow user'
check "url.ext::...insteadOf is refused" refused \
    "cd r1 && git config 'url.ext::sh -c touch% $MD/ext% #.insteadOf' \
    https://github.com/"
check "... so is the same text renamed over the config by hand" refused \
    "cd r1 && cp .git/config c.new && printf '[url \"ext::sh -c touch%% \
$MD/ext2%% #\"]\n\tinsteadOf = https://github.com/\n[protocol \"ext\"]\n\
\tallow = user\n' >> c.new && cp c.new .git/config.lock &&
    mv .git/config.lock .git/config"
check "the refusal names the key (url.<sub>.insteadof)" \
    key_event 'url.<sub>.insteadof: not on the allowlist'
check "remote.origin.url = ext::... is refused, not only reported" refused \
    "cd r2 && git remote set-url origin 'ext::sh -c touch% $MD/ext-url'"
check "... and named (remote.<sub>.url)" key_event 'remote.<sub>.url'
# core.worktree outside the workspace, a .bashrc blob in the index: the
# host's `git reset --hard` would write it there.
OH="$CTL/outhome"
mkdir -p "$OH"
chmod 0777 "$OH"
check "core.worktree = a directory outside the workspace is refused" \
    refused "cd r3 && b=\$(echo evil | git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 100644,\$b,.bashrc &&
    git -c user.name=t -c user.email=t@t commit -qm b &&
    git config core.worktree '$OH'"
check "... as a relative path climbing out: refused" refused \
    "cd r3 && git config core.worktree ../../../../../../..$OH"
check "... through a symlink in the workspace: refused" refused \
    "cd r3 && ln -s '$OH' hl && git config core.worktree ../hl"
check "... one above the repository (the workspace, a home bound whole)" \
    refused "cd r3 && git config core.worktree ../.."
check "... a core.worktree inside the workspace is allowed" sbx \
    "cd r3 && git config core.worktree .. &&
    git config --unset core.worktree"
# remote.<name>.vcs names a helper program; a path in it runs from the
# workspace.
check "remote.origin.vcs is refused" refused \
    "cd r4 && mkdir -p git-remote-x && cp ../evil.sh ev &&
    git config remote.origin.vcs x/../ev"
check "lfs.standalonetransferagent is refused" refused \
    "cd r5 && git config lfs.standalonetransferagent ev"
check "lfs.customtransfer.*.path alone is refused" refused \
    "cd r5 && git config lfs.customtransfer.ev.path '$W/evil.sh'"
check "lfs.extension.*.clean is refused" refused \
    "cd r5 && git config lfs.extension.ev.clean '$W/evil.sh'"
check "... named (lfs.<sub>.path)" key_event 'lfs.<sub>.path'

# The host's git on each, for real.
u "cd '$W/r1' && timeout 20 git fetch -q origin" >/dev/null 2>&1
u "cd '$W/r2' && timeout 20 git fetch -q origin" >/dev/null 2>&1
u "cd '$W/r3' && timeout 20 git reset -q --hard" >/dev/null 2>&1
u "cd '$W/r4' && timeout 20 git fetch -q origin" >/dev/null 2>&1
u "cd '$W/r5' && HOME='$LH' timeout 20 git lfs pull" >/dev/null 2>&1
check "host git fetch (r1, r2, r4), reset --hard (r3), lfs pull: no marker" \
    [ -z "$(markers)" ]
check "... and nothing was checked out into the outside directory" \
    [ ! -e "$OH/.bashrc" ]
[ -z "$(markers)" ] || diag "markers: $(markers)"
# The lfs pull above cannot be vacuous: the same two keys, set by the
# user in r5 itself, make the same pull run the agent.
u "cd '$W/r5' && git config lfs.standalonetransferagent ev &&
    git config lfs.customtransfer.ev.path '$W/evil.sh' &&
    HOME='$LH' timeout 20 git lfs pull" >/dev/null 2>&1
check "control: in r5 the keys set by the user do run on git lfs pull" \
    [ -n "$(markers)" ]
rm -f "$MD"/ran-*

# Controls: the same configuration written by the user on the host.
ctl_repo() {	# ctl_repo NAME: a fresh repository of the user's, in $CTL
	u "rm -rf '$CTL/$1' && git init -q -b main '$CTL/$1' &&
	    cd '$CTL/$1' && echo r > readme && git add readme &&
	    git -c user.name=t -c user.email=t@t commit -qm one &&
	    git remote add origin https://github.com/acme/app.git"
}
ctl_repo c1
u "cd '$CTL/c1' && git config protocol.ext.allow user &&
    git config 'url.ext::sh -c touch% $CTL/m-ext% #.insteadOf' \
    https://github.com/ && timeout 20 git fetch -q origin" >/dev/null 2>&1
check "control: ext:: insteadOf set by the user does run on fetch" \
    [ -e "$CTL/m-ext" ]
ctl_repo c2
u "cd '$CTL/c2' && git config protocol.ext.allow user &&
    git remote set-url origin 'ext::sh -c touch% $CTL/m-url' &&
    timeout 20 git fetch -q origin" >/dev/null 2>&1
check "control: remote.origin.url = ext:: runs on fetch" \
    [ -e "$CTL/m-url" ]
ctl_repo c3
mkdir -p "$CTL/home3"
chmod 0777 "$CTL/home3"
u "cd '$CTL/c3' && b=\$(echo evil | git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 100644,\$b,.bashrc &&
    git -c user.name=t -c user.email=t@t commit -qm b &&
    git config core.worktree '$CTL/home3' && git reset -q --hard" \
    >/dev/null 2>&1
check "control: core.worktree outside + reset --hard writes .bashrc there" \
    [ -e "$CTL/home3/.bashrc" ]
ctl_repo c4
u "cd '$CTL/c4' && mkdir -p git-remote-x &&
    printf '#!/bin/sh\ntouch $CTL/m-vcs\n' > ev && chmod +x ev &&
    git config remote.origin.vcs x/../ev && timeout 20 git fetch -q origin" \
    >/dev/null 2>&1
check "control: remote.origin.vcs runs a program on fetch" \
    [ -e "$CTL/m-vcs" ]
# lfs: a pointer committed, its object gone, a custom transfer agent.
if command -v git-lfs >/dev/null 2>&1; then
	ctl_repo c5
	u "cd '$CTL/c5' && export HOME='$LH' && git lfs install --skip-repo \
	    >/dev/null && git lfs track '*.bin' >/dev/null &&
	    echo data > a.bin && git add . && git -c user.name=t \
	    -c user.email=t@t commit -qm lfs && rm -rf .git/lfs/objects &&
	    rm a.bin && git config lfs.url http://127.0.0.1:9/x &&
	    printf '#!/bin/sh\ntouch $CTL/m-lfs\n' > '$CTL/lfs.sh' &&
	    chmod +x '$CTL/lfs.sh' &&
	    git config lfs.standalonetransferagent ev &&
	    git config lfs.customtransfer.ev.path '$CTL/lfs.sh' &&
	    timeout 20 git lfs pull" >/dev/null 2>&1
	check "control: lfs.customtransfer runs on git lfs pull" \
	    [ -e "$CTL/m-lfs" ]
else
	not_ok "control: git-lfs is not installed (contrib/install-deps.sh)"
fi

# ---- 2. commondir into the runner's state; a module moved in ----
# Under `airlock claude`, ~/.claude is the runner's state.  A stand-in
# for the CLI runs its last argument as a shell command.
H=$(mkwork)
mkdir -p "$H/.claude" "$W/.bin"
printf '{}\n' >"$H/.claude/settings.json"
mkdir -p "$H/.claude/projects"
printf '#!/bin/sh\nfor a; do l=$a; done\nexec sh -c "$l"\n' \
    >"$W/.bin/claude"
chmod 0755 "$W/.bin/claude"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H" "$W/.bin"
claude_sbx() {
	as_user env HOME="$H" "$AIRLOCK" claude --workspace "$W" \
	    --claude "$W/.bin/claude" -- "$1"
}
u "cd '$W/r7' && git worktree add -q ../r7-wt -b wt" >/dev/null 2>&1
check "a commondir in a repository's own .git is refused" refused \
    "echo ../../r8/.git > r7/.git/commondir"
# Each step's status goes to stdout alone: the sandbox's stderr arrives
# on its own stream and may land in the middle of a line of stdout.
out=$(claude_sbx "cd ~/.claude/projects && git init -q --bare cache-r 2>/dev/null;
    git -C cache-r config core.fsmonitor '$W/evil.sh' 2>/dev/null;
    echo cfg=\$?;
    printf '[core]\n\tfsmonitor = $W/evil.sh\n' 2>/dev/null >> cache-r/config;
    echo app=\$?; echo ~/.claude/projects/cache-r 2>/dev/null > \
    '$W/r7/.git/worktrees/r7-wt/commondir'; echo rw=\$?;
    g='$W/r7/.git/worktrees/w2'; mkdir -p \$g '$W/w2' &&
    echo ~/.claude/projects/cache-r > \$g/commondir &&
    echo 'ref: refs/heads/main' > \$g/HEAD && echo '$W/w2/.git' \
    > \$g/gitdir && echo \"gitdir: \$g\" > '$W/w2/.git'; echo cd=\$?" \
    2>&1)
said() { printf '%s\n' "$out" | grep -q "$1"; }
check "airlock claude ran the stand-in (a new worktree's commondir made)" \
    said '^cd=0'
said '^cd=0' && said '^rw=[1-9]' && said '^cfg=[1-9]' || diag "$out"
check "... an existing worktree's commondir is not rewritten" said '^rw=[1-9]'
check_sh "a bare repository in ~/.claude gets no core.fsmonitor" \
    "said '^cfg=[1-9]' && said '^app=[1-9]' &&
    ! git config -f '$H/.claude/projects/cache-r/config' core.fsmonitor"
u "cd '$W/r7-wt' && timeout 20 git status >/dev/null 2>&1;
    cd '$W/w2' && timeout 20 git status >/dev/null 2>&1; true"
check "host git status, commondir -> ~/.claude/projects/cache-r: no marker" \
    [ -z "$(markers)" ]
# Control: the same repository built by the user, outside any sandbox.
u "git init -q --bare '$CTL/cache-c' &&
    git -C '$CTL/cache-c' config core.fsmonitor \
    'touch $CTL/m-fsm; false #' && git init -q -b main '$CTL/c7' &&
    echo '$CTL/cache-c' > '$CTL/c7/.git/commondir' &&
    cd '$CTL/c7' && timeout 20 git status" >/dev/null 2>&1
check "control: a commondir to a repository with core.fsmonitor runs it" \
    [ -e "$CTL/m-fsm" ]
# A directory prepared outside git state, then renamed into modules/.
check "a prepared directory renamed to .git/modules/foo is refused" \
    refused "mkdir -p d/hooks && cp evil.sh d/hooks/post-checkout &&
    printf '[core]\n\tbare = false\n' > d/config &&
    echo 'ref: refs/heads/main' > d/HEAD && mkdir -p r7/.git/modules &&
    mv d r7/.git/modules/foo"
check "... nested one level down too (modules/a holding b)" \
    refused "mkdir -p d2/b/hooks && cp evil.sh d2/b/hooks/post-checkout &&
    mkdir -p r7/.git/modules && mv d2 r7/.git/modules/a"
check "... no hook arrived in .git/modules" \
    [ -z "$(find "$W/r7/.git/modules" -path '*hooks/post-checkout' \
    2>/dev/null)" ]
check "... but git submodule add still works" sbx \
    "cd rs && git -c protocol.file.allow=always submodule add -q \
    \"file://$W/r8\" sm && git -c user.name=t -c user.email=t@t \
    commit -qm sm"

# ---- 3. the effective hooks directory ----
# The user set core.hooksPath (as husky does) before the run.
u "cd '$W/r8' && git config core.hooksPath .husky/_ && mkdir -p .husky/_"
check "a hook in core.hooksPath (.husky/_/pre-commit) is refused" refused \
    "cd r8 && cp ../evil.sh .husky/_/pre-commit"
check "... a directory renamed over it is refused" refused \
    "cd r8 && mkdir -p hk && cp ../evil.sh hk/pre-commit &&
    rm -rf .husky/_ && mv hk .husky/_"
check "... the same in another repository of the tree (same layout)" \
    refused "git init -q r9 && mkdir -p r9/.husky/_ &&
    cp evil.sh r9/.husky/_/pre-commit"
# A hooks path in the user's global config (a test home for that).
G=$(mkwork)
u "HOME='$G' git config --global core.hooksPath '$W/ghooks'"
as_user env HOME="$G" "$AIRLOCK" run --no-policy-check --workspace "$W" \
    -- sh -c 'touch ghooks-ran; mkdir -p ghooks;
    cp evil.sh ghooks/pre-commit' >/dev/null 2>&1
check_sh "a global core.hooksPath (absolute) is protected too" \
    '[ -e "$W/ghooks-ran" ] && [ ! -e "$W/ghooks/pre-commit" ]'
u "cd '$W/r8' && echo c >> readme && git add readme &&
    git -c user.name=u -c user.email=u@u commit -qm host" >/dev/null 2>&1
check "host git commit in r8 ran no hook" [ -z "$(markers)" ]
ctl_repo c8
u "cd '$CTL/c8' && git config core.hooksPath .husky/_ && mkdir -p .husky/_ &&
    printf '#!/bin/sh\ntouch $CTL/m-husky\n' > .husky/_/pre-commit &&
    chmod +x .husky/_/pre-commit && echo c >> readme && git add readme &&
    git -c user.name=u -c user.email=u@u commit -qm host" >/dev/null 2>&1
check "control: a pre-commit in core.hooksPath runs on commit" \
    [ -e "$CTL/m-husky" ]

# A file the user's config includes (a team's shared config in the
# tree): git reads every key in it, so it is protected like the config.
u "cd '$W/ri' && : > team.gitconfig && git config include.path \
    ../team.gitconfig"
check "a file the repository's config includes is refused" refused \
    "printf '[core]\n\tpager = $W/evil.sh\n' >> ri/team.gitconfig"
u "cd '$W/ri' && PAGER=cat timeout 20 script -qc 'git log -p -1' \
    /dev/null </dev/null" >/dev/null 2>&1
check "... the host's git log -p on a pty ran nothing" [ -z "$(markers)" ]
ctl_repo ci
u "cd '$CTL/ci' && printf '[core]\n\tpager = \"touch $CTL/m-inc; cat\"\n' \
    > team.gitconfig && git config include.path ../team.gitconfig &&
    PAGER=cat timeout 20 script -qc 'git log -p -1' /dev/null \
    </dev/null" >/dev/null 2>&1
check "control: a pager in an included file runs on git log -p" \
    [ -e "$CTL/m-inc" ]

# ---- porcelain keeps working ----
check "git remote add, branch -u, fetch (a local path)" sbx \
    "cd rf && git remote add up ../r8 && git fetch -q up &&
    git branch -q -u up/main"
check "git clone --no-tags --origin up" sbx \
    "git clone -q --no-tags -o up r8 rc"
check "git config user.name / user.email / pull.rebase" sbx \
    "cd rf && git config user.name A && git config user.email a@b &&
    git config pull.rebase true"
check "git worktree add; git sparse-checkout set" sbx \
    "cd rf && git worktree add -q ../rf-wt -b wt &&
    cd ../rf-wt && git sparse-checkout set --cone sub"
u "git -C '$W/rf' config alias.st status"
check "a key the user had stays when git rewrites the config" sbx \
    "cd rf && git config core.autocrlf false &&
    [ \"\$(git config alias.st)\" = status ]"

# ---- random keys and values (bounded) ----
# 200 `git config` writes of keys that run code and random ones, with
# values that would touch a marker, inside one sandbox; then the host's
# git on that repository; the same writes by the user are the control.
u "cd '$W/rf' && printf '* diff=x merge=x filter=x\n' > .gitattributes &&
    git add .gitattributes && git -c user.name=t -c user.email=t@t \
    commit -qm attrs && git init -q --bare '$W/up.git' &&
    git remote set-url origin '$W/up.git' && git push -q origin main"
# Markers of their own: what an earlier route left is not counted here.
MF=$(mktemp -d /tmp/gitcfg-fuzz.XXXXXX)
chmod 1777 "$MF"
trap 'rm -rf "$MD" "$CTL" "$MF"' EXIT
printf '#!/bin/sh\ntouch "%s/ran-$$"\ncat >/dev/null 2>&1\n' "$MF" \
    >"$W/evilf.sh"
chmod 0755 "$W/evilf.sh"
# A new seed each run (so runs together try more), printed so that a
# failure can be replayed: AIRLOCK_GITCFG_SEED=N.
SEED=${AIRLOCK_GITCFG_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
diag "config fuzz seed: $SEED (AIRLOCK_GITCFG_SEED=$SEED replays it)"
python3 - "$MF" "$W" 200 "$CTL/fuzz.lst" "$SEED" >"$W/fuzz.sh" <<'PY'
import random, sys
md, ws, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rnd = random.Random(int(sys.argv[5]))
ev = ws + "/evilf.sh"
# Keys that make git run something, each with a value that would.
danger = {
    "core.fsmonitor": ev, "core.pager": ev, "core.editor": ev,
    "core.sshCommand": ev, "core.askPass": ev, "core.gitProxy": ev,
    "core.alternateRefsCommand": ev, "sequence.editor": ev,
    "diff.external": ev, "diff.x.textconv": ev, "diff.x.command": ev,
    "filter.x.clean": ev, "filter.x.smudge": ev, "filter.x.process": ev,
    "filter.x.required": "true", "merge.x.driver": ev,
    "credential.helper": ev, "gpg.program": ev, "gpg.ssh.program": ev,
    "commit.gpgSign": "true", "interactive.diffFilter": ev,
    "uploadpack.packObjectsHook": ev, "trailer.x.command": ev,
    "hook.x.command": ev, "hook.x.event": "pre-commit",
    "pager.log": ev, "pager.status": ev, "pager.diff": ev,
    "lfs.customtransfer.x.path": ev, "lfs.standalonetransferagent": "x",
    "lfs.extension.x.clean": ev, "core.hooksPath": ws + "/fzhooks",
    "include.path": ws + "/fz.inc", "includeIf.gitdir:/.path":
    ws + "/fz.inc", "alias.st": "!" + ev, "alias.log": "!" + ev,
    "alias.status": "!" + ev, "protocol.ext.allow": "always",
    "protocol.allow": "always", "url.ext::%s.insteadOf" % ev.replace(
    "/", "/") : ws, "remote.origin.url": "ext::" + ev,
    "remote.origin.pushurl": "ext::" + ev, "remote.origin.vcs":
    "x/../../evilf.sh", "remote.origin.uploadpack": ev,
    "branch.main.remote": "ext::" + ev, "remote.pushDefault": "ext::" + ev,
    "submodule.s.update": "!" + ev, "core.worktree": md,
    "extensions.partialClone": "ext::" + ev, "http.proxy": "x",
    "receive.procReceiveRefs": "refs", "log.showSignature": "true",
}
words = ["core", "remote", "branch", "x", "origin", "main", "diff",
    "filter", "url", "lfs", "hook", "ext", "alias", "pager", "submodule"]
def rval(i):
    m = "%s/fz-%d" % (md, i)
    return rnd.choice([
        "!touch " + m, "sh -c 'touch %s'" % m, ev,
        "ext::sh -c touch%% %s" % m, "fd::3", "../../../.." + md,
        "touch " + m + "; cat", "true", "false", "origin", "always",
        "user", "--upload-pack=touch " + m, "-c core.pager=touch " + m,
        "x/../../evilf.sh", "https://github.com/acme/app.git"])
keys = sorted(danger)
ctl = open(sys.argv[4], "w")
print("cd rf || exit 1\nR=$(pwd)\nmkdir -p git-remote-x ../fzhooks")
print("cp ../evilf.sh ../fzhooks/pre-commit")
print("printf '[core]\\n\\tpager = %s\\n' > ../fz.inc" % ev)
# Two writes on the allowlist first: the run below counts them, so a
# sandbox that ran nothing (or refused everything) cannot pass.
print("git config user.name fz && echo ok")
print("git config branch.main.remote origin && echo ok")
for i in range(n):
    if rnd.random() < 0.65:
        k = rnd.choice(keys)
        v = danger[k] if rnd.random() < 0.8 else rval(i)
    else:
        k = "%s.%s%s" % (rnd.choice(words), rnd.choice(words) + "." if
            rnd.random() < 0.5 else "", rnd.choice(words + ["path",
            "command", "cmd", "program", "helper", "insteadOf"]))
        v = rval(i)
    k = k.replace("'", "'\\''")
    v = v.replace("'", "'\\''")
    # A value git rejects at start-up would stop every later git (and
    # so every later write): such a write is taken back.
    print("git config --add '%s' '%s' 2>/dev/null && echo ok && "
        "{ git status >/dev/null 2>&1 || git -C / config -f "
        "\"$R/.git/config\" --unset-all '%s'; }" % (k, v, k))
    ctl.write("git config --add '%s' '%s'\n" % (k, v))
PY
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$W/fuzz.sh" "$W/evilf.sh"
cp -R "$W/rf" "$CTL/rf-ctl"
chown -R "$TUSER" "$CTL/rf-ctl"
nok=$(sbx "sh fuzz.sh" 2>/dev/null | grep -c '^ok')
diag "random writes that went through: $nok"
check "the writes ran: the two allowed ones (at least) went through" \
    [ "$nok" -ge 2 ]
# The host's git, as the user: fetch, status, log -p on a pty, commit,
# diff, an alias, pull.
cat >"$CTL/host_git.sh" <<'EOF'
cd "$1" || exit 1
export PAGER=cat
timeout 20 git fetch -q origin
timeout 20 git status
timeout 20 script -qc 'git log -p -2' /dev/null </dev/null
echo more >> readme
timeout 20 git -c user.name=u -c user.email=u@u commit -qam host
timeout 20 git diff HEAD~1
timeout 20 git st
timeout 20 git pull -q
true
EOF
chmod 0755 "$CTL/host_git.sh"
host_git() { as_user sh "$CTL/host_git.sh" "$1" >/dev/null 2>&1; }
host_git "$W/rf"
check "after 200 random config writes: host fetch/status/log -p/commit/pull ran nothing" \
    [ -z "$(ls -A "$MF")" ]
[ -z "$(ls -A "$MF")" ] || diag "markers: $(ls -A "$MF" | head -5)"
# The control: the first 60 of the same writes, each by the user in a
# fresh copy of the repository (one at a time: a value git rejects
# at start-up would stop every later git before it ran anything).
chmod 0644 "$CTL/fuzz.lst"
as_user sh -c "head -n 60 '$CTL/fuzz.lst' | while IFS= read -r l; do
    rm -rf '$CTL/one' && cp -R '$CTL/rf-ctl' '$CTL/one' &&
    (cd '$CTL/one' && mkdir -p git-remote-x && eval \"\$l\") &&
    sh '$CTL/host_git.sh' '$CTL/one'; done" >/dev/null 2>&1
check "control: the same writes by the user make the host's git touch markers" \
    [ -n "$(ls -A "$MF")" ]
diag "control markers: $(ls -A "$MF" | wc -l)"
finish
