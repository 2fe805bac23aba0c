#!/bin/sh
# SPDX-License-Identifier: ISC
#
# A remote that names a local repository the sandbox can write (issue 25,
# git config by allowlist; SPEC R-L3).  Through a real `airlock run`, as
# the unprivileged user: the agent makes a bare repository in the
# workspace, tries to plant a hook in it by each route it knows, and
# points the user's repository at it (remote.<name>.url, .pushurl,
# remote.pushDefault, branch.<name>.remote and .pushRemote, by path or
# through a new remote); then the user's own `git push` on the host runs
# receive-pack there, and no hook of the agent's runs.  A control: the
# same bare repository with the hook planted by the user does run it on
# the same push, so the push does reach the hook.  The legitimate uses
# stay: `git clone ./a ./b` inside, then the host's `git -C b fetch`;
# a remote naming a repository outside the workspace.
. "$(dirname "$0")/lib.sh"
REFUSED_EACCES=1
plan 26

W=$(mkwork)
cd "$W" || exit 1
EV="$W/.ev.jsonl"
# Markers and the outside repository live on the host, outside the
# workspace (the sandbox's /tmp is its own).
MD=$(mktemp -d /tmp/localremote-mark.XXXXXX)
chmod 1777 "$MD"
OUT=$(mktemp -d /tmp/localremote-out.XXXXXX)
chmod 0777 "$OUT"
trap 'rm -rf "$MD" "$OUT"' EXIT

u() { as_user sh -c "$1"; }
# hook NAME: a hook's text that leaves NAME in $MD.
hook() { printf '#!/bin/sh\ntouch %s/%s\ncat >/dev/null\n' "$MD" "$1"; }
# pushed REPO REMOTE: the user's push on the host (its outcome is not
# the point: what ran is).
pushed() { u "cd '$W/$1' && git push -q $2" >/dev/null 2>&1; true; }
none() { [ -z "$(ls -A "$MD")" ] || { diag "ran: $(ls -A "$MD")"; return 1; }; }

u "git init -q -b main '$W/r' && cd '$W/r' && echo r > readme &&
    git add readme && git -c user.name=t -c user.email=t@t commit -qm one &&
    git config push.default current" \
    >/dev/null
hook pre-receive >"$W/.hook"
chown "$TUSER" "$W/.hook"
HOOKS="pre-receive post-receive post-update update reference-transaction \
    proc-receive push-to-checkout"

# ---- 1. the bare repository and its hooks ----
check "git init --bare in the workspace works inside" \
    sbx "git init -q --bare evil.git"
for h in pre-receive post-receive post-update reference-transaction; do
	check "a $h hook in the bare repository is refused" refused \
	    "cp .hook evil.git/hooks/$h && chmod +x evil.git/hooks/$h"
done
check "a hook hard-linked into the bare repository is refused" refused \
    "chmod +x .hook && ln .hook evil.git/hooks/pre-receive"
check "a hook symlinked into the bare repository is refused" refused \
    "ln -s ../../.hook evil.git/hooks/pre-receive"
check "a hooks directory renamed into the bare repository is refused" \
    refused "mkdir h && cp .hook h/pre-receive && chmod +x h/pre-receive &&
    rm -rf evil.git/hooks && mv h evil.git/hooks"
check "core.hooksPath in the bare repository's config is refused" \
    refused "git --git-dir=evil.git config core.hooksPath ../h"
# The hooks first, the repository after: objects and refs make it git
# state, and the directory is checked then.
check "a hooks directory completed into a bare repository is refused" \
    refused "mkdir -p e2/hooks && cp .hook e2/hooks/pre-receive &&
    chmod +x e2/hooks/pre-receive && git init -q --bare e2"
# A bare repository copied in whole from the sandbox's own /tmp.
sbx "git init -q --bare /tmp/e3 && for h in $HOOKS; do cp .hook
    /tmp/e3/hooks/\$h; chmod +x /tmp/e3/hooks/\$h; done;
    cp -R /tmp/e3 e3" >/dev/null 2>&1
check "no hook of a bare repository copied in is there" \
    sh -c "! ls '$W/e3/hooks' 2>/dev/null | grep -qv sample"
pushed r "'$W/e2' main"
check "the one completed is no repository: a push there runs nothing" none

# ---- 2. the user's repository pointed at it; the host pushes ----
# reached: the user's push did land in evil.git (its main was removed
# before), and nothing ran.
reached() {
	u "git -C '$W/evil.git' rev-parse -q --verify main" >/dev/null ||
	    { diag "the push did not reach evil.git"; return 1; }
	none
}
# route DESCRIPTION SANDBOX-COMMAND REMOTE-ARG
route() {
	u "git -C '$W/evil.git' update-ref -d refs/heads/main" 2>/dev/null
	sbx "cd r && $2" >/dev/null 2>&1
	pushed r "$3"
	check "$1: the host's push runs no hook" reached
	sbx "cd r && git config --unset remote.origin.pushurl;
	    git config --unset remote.pushDefault;
	    git config --unset branch.main.pushRemote;
	    git config --unset branch.main.remote;
	    git remote remove ev" >/dev/null 2>&1
}
E="$W/evil.git"
route "remote.origin.url" "git remote add origin '$E'" "origin main"
route "remote.origin.pushurl" "git config remote.origin.url '$W/e2' &&
    git config remote.origin.pushurl '$E'" "origin main"
route "a new remote and remote.pushDefault" "git remote add ev '$E' &&
    git config remote.pushDefault ev" ""
route "branch.main.pushRemote naming the path" \
    "git config branch.main.pushRemote '$E'" ""
route "branch.main.remote naming the path" \
    "git config branch.main.remote '$E'" ""

# A remote's URL in a file of .git/branches/ (git's older remotes:
# read when no config names the remote) passes no URL rule: refused.
# The control: the user's own such file is one git pushes through.
check "a remote's URL in .git/branches/ is refused" \
    refused "echo '$E' > r/.git/branches/ev"
u "git -C '$W/evil.git' update-ref -d refs/heads/main;
    echo '$E#main' > '$W/r/.git/branches/ev2'"
pushed r "ev2"
check "control: git pushes through the user's own .git/branches file" \
    u "git -C '$W/evil.git' rev-parse -q --verify main"
rm -f "$W/r/.git/branches/ev2"

# ---- 3. the control: the user plants the hook ----
u "git -C '$W/evil.git' update-ref -d refs/heads/main;
    mkdir -p '$W/evil.git/hooks' &&
    cp '$W/.hook' '$W/evil.git/hooks/pre-receive' &&
    chmod +x '$W/evil.git/hooks/pre-receive'"
pushed r "'$W/evil.git' main"
check "control: the user's own hook in the bare repository runs on push" \
    test -e "$MD/pre-receive"
rm -f "$MD/pre-receive" "$W/evil.git/hooks/pre-receive"

# ---- 4. what stays ----
check "git clone ./a ./b inside works" sbx "git init -q -b main a &&
    cd a && echo a > f && git add f &&
    git -c user.name=t -c user.email=t@t commit -qm a &&
    cd .. && git clone -q ./a ./b"
check_sh "b's origin is a's absolute path" '
    _o=$(u "git -C \"$W/b\" config remote.origin.url") &&
    [ "${_o#/}" != "$_o" ] && [ "$(cd "$_o" && pwd -P)" = "$(cd "$W/a" && pwd -P)" ]' 
check "the host's git -C b fetch works" u "git -C '$W/b' fetch -q"
u "git init -q --bare '$OUT/up.git'"
check "a remote naming a repository outside the workspace is accepted" \
    sbx "cd r && git remote add up '$OUT/up.git' &&
    git config remote.up.url | grep -qx '$OUT/up.git'"
check "the host pushes there" u "cd '$W/r' && git push -q up main &&
    git -C '$OUT/up.git' rev-parse -q --verify main"
check "nothing of the agent's ran on the host" none
finish
