#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Bind sources and Landlock rule paths are canonical and opened without
# following symlinks (issue 11, launcher review item): a bind whose
# source is a symlink binds what the caller named, never a secret it
# points at; and `--workspace /` works or fails with a clear reason
# (issue 12).
. "$(dirname "$0")/lib.sh"
plan 8

W=$(mkwork)
H=$(mkwork)
mkdir -p "$H/.ssh" "$H/.config/airlock"
echo ssh-secret-7 >"$H/.ssh/id_rsa"
ln -s "$H/.ssh" "$W/link"
X=$(mkwork)
ln -s "$H/.ssh" "$X/link"
ln -s "$H/.config/airlock" "$X/state"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$W" "$H" "$X"

# A client that sends the symlink as the bind source itself (the CLI
# resolves it; airlockd must not trust that it did).
as_user HOME="$H" timeout 60 python3 - "$AIRLOCKD" "$W" "$X/link" \
    "$STAGE/tests/helpers" >"$W/out" 2>&1 <<'PY'
import base64, json, socket, subprocess, sys, time
airlockd, ws, link, HELPERS = sys.argv[1:5]
sys.path.insert(0, HELPERS)
from airlockd_rpc import connect
p, a, f, call = connect(airlockd)
r = call("sandbox.launch", {"spec": {"sessionId": "nf", "bindMounts":
     [{"hostPath": ws}, {"hostPath": link}], "guestWorkdir": ws}})
print("launch", "error" not in r, r.get("error"))
r = call("sandbox.exec", {"sessionId": "nf", "argv": ["sh", "-c",
     "echo ran; cat " + link + "/id_rsa; ls " + link + "; true"]})
out = bytearray()
while "error" not in r:
    e = json.loads(f.readline())["params"]
    if e["type"] == "stdout":
        out += base64.b64decode(e["base64"]) if "base64" in e \
            else e["data"].encode()
    if e["type"] in ("exit", "killed"):
        break
print("out", bytes(out))
call("sandbox.destroy", {"sessionId": "nf"})
# runnerStateDirs are writable in every mode: one that is a symlink to
# airlock's own settings directory is refused like the real path.
r = call("sandbox.launch", {"spec": {"sessionId": "nf2", "bindMounts":
     [{"hostPath": ws}], "guestWorkdir": ws,
     "runnerStateDirs": [link.replace("/link", "/state")]}})
print("state", r.get("error", {}).get("message"))
if "error" not in r:
    call("sandbox.exec", {"sessionId": "nf2", "argv": ["true"]})
    call("sandbox.destroy", {"sessionId": "nf2"})
PY
check_sh "a bind of a symlink to ~/.ssh does not show ~/.ssh" \
    'grep -q "^out b.ran" "$W/out" && ! grep -q ssh-secret-7 "$W/out" &&
    ! grep -q "id_rsa" "$W/out"'
check "a runnerStateDirs symlink to ~/.config/airlock is refused" \
    grep -q "^state runnerStateDirs: .* holds airlock's own" "$W/out"
sed "s/^/# /" "$W/out" | tail -5

# The same through the command line.
out=$(cd "$W" && as_user HOME="$H" "$AIRLOCK" run --no-policy-check \
    --workspace "$W" --bind link -- sh -c "cat $W/link/id_rsa; cat $H/.ssh/id_rsa" 2>&1)
diag "--bind link: $out"
check "--bind link (-> ~/.ssh) does not expose ~/.ssh" \
    fails grep -q ssh-secret-7 <<E
$out
E

# issue 12: --workspace / works or fails naming the reason.
out=$(cd / && as_user "$AIRLOCK" run --no-policy-check --workspace / -- \
    sh -c ': >/dev/null && cat /dev/null' </dev/null 2>&1)
rc=$?
diag "--workspace /: rc=$rc $out"
check_sh "--workspace / runs, or refuses with exit 125 naming the reason" \
    '[ $rc -eq 0 ] || { [ $rc -eq 125 ] && case $out in *"workspace /"*) true ;; *) false ;; esac; }'
check "--workspace /: /dev/null is never refused" fails grep -q "/dev/null" <<E
$out
E

# A protected directory the host made a symlink (.claude -> clreal): a
# write relative to a cwd entered through it names only the target.
S=$(mkwork)
mkdir -p "$S/clreal" "$S/vsreal"
ln -s clreal "$S/.claude"
ln -s vsreal "$S/.vscode"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$S"
out=$(as_user "$AIRLOCK" run --no-policy-check --workspace "$S" -- sh -c '
    cd .claude && { echo x > settings.json; mkdir commands;
    echo ok > notes.txt; echo ok > ../top.txt; cd ../.vscode;
    echo y > tasks.json; }' 2>&1)
diag "symlinked .claude/.vscode: $out"
check_sh "through a host-made .claude symlink: settings.json, commands/ refused" \
    '[ ! -e "$S/clreal/settings.json" ] && [ ! -e "$S/clreal/commands" ]'
check "through a host-made .vscode symlink: tasks.json refused" \
    [ ! -e "$S/vsreal/tasks.json" ]
check_sh "... any name in .claude refused, one outside it written" \
    '[ ! -e "$S/clreal/notes.txt" ] && [ -s "$S/top.txt" ]'
finish
