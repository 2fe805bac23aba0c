#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Managed policy wins, loudly (issue 13, R-C5, R-H4): a managed
# sandbox.enabled=true or sandbox.allowUnsandboxedCommands=false refuses
# --sandbox off and AIRLOCK_SANDBOX=off with an error naming the managed
# file, from a private and from a shared supervisor; every unconfined run
# says so on stderr, with why.
#
# The managed file is the real one, /etc/airlock/managed-settings.json,
# so the shipped binaries are tested with no test hook: the script runs
# itself again in a mount namespace of its own with a tmpfs on
# /etc/airlock, which no other process on the machine sees.  That needs
# root; as a normal user these tests are skipped ("needs root").
. "$(dirname "$0")/lib.sh"
N=16
MANAGED=/etc/airlock/managed-settings.json

if [ "$(id -u)" -ne 0 ]; then
	plan $N
	i=0
	while [ $i -lt $N ]; do
		ok "managed policy # SKIP needs root"
		i=$((i + 1))
	done
	exit 0
fi
if [ -z "${AIRLOCK_MANAGED_NS:-}" ]; then
	# An empty /etc/airlock (what a package would own) is the
	# mount point; nothing reads the directory itself.
	made=
	[ -d /etc/airlock ] || { mkdir /etc/airlock && made=1; }
	AIRLOCK_MANAGED_NS=1 unshare --mount --propagation private \
	    sh "$0" "$@"
	rc=$?
	[ -n "$made" ] && rmdir /etc/airlock 2>/dev/null
	exit $rc
fi
mount -t tmpfs -o mode=0755,size=64k airlock-test-managed /etc/airlock || {
	echo "Bail out! cannot mount a private /etc/airlock"
	exit 1
}
plan $N

W=$(mkwork)
OUT=$(mkwork)
cd "$W" || exit 1
managed() {	# managed JSON: install the managed file, root-owned, 0644
	printf '%s\n' "$1" >"$MANAGED"
	chmod 0644 "$MANAGED"
}
# ran MARKER: the command (which creates MARKER in OUT) ran
ran() { [ -e "$OUT/$1" ]; }

managed '{"sandbox":{"enabled":true}}'
as_user "$AIRLOCK" run --workspace "$W" --sandbox off -- \
    sh -c "touch '$OUT/m1'" 2>"$W/e1"
rc=$?
check_sh "managed enabled=true: --sandbox off is refused (exit $rc)" \
    '[ "$rc" -ne 0 ] && ! ran m1'
check "  and the error names the managed file and key" \
    grep -q "refused: managed policy $MANAGED sets sandbox.enabled" "$W/e1"

as_user env AIRLOCK_SANDBOX=off "$AIRLOCK" run --workspace "$W" -- \
    sh -c "touch '$OUT/m2'" 2>"$W/e2"
rc=$?
check_sh "managed enabled=true: AIRLOCK_SANDBOX=off is refused (exit $rc)" \
    '[ "$rc" -ne 0 ] && ! ran m2'
check "  and the error names AIRLOCK_SANDBOX and the managed file" \
    grep -q "AIRLOCK_SANDBOX=off refused: managed policy $MANAGED" "$W/e2"

# A user's settings cannot turn it off either (the key is locked).
printf '{"sandbox":{"enabled":false}}\n' >"$W/off.json"
as_user "$AIRLOCK" run --workspace "$W" --settings "$W/off.json" -- \
    sh -c "echo \$AIRLOCK_SANDBOX > m3; touch '$OUT/m3'" 2>"$W/e3"
check_sh "managed enabled=true beats a user's sandbox.enabled=false" \
    '[ "$(cat "$W/m3" 2>/dev/null)" = native ] && ! ran m3'

# A shared supervisor, started with the sandbox on: the client's
# --sandbox off (backend "none") is refused by it.
spawn_user "$AIRLOCKD" --socket "$W/d.sock" --quiet
dpid=$!
i=0
while [ ! -S "$W/d.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
as_user "$AIRLOCK" run --socket "$W/d.sock" --workspace "$W" --sandbox off \
    -- sh -c "touch '$OUT/m4'" 2>"$W/e4"
rc=$?
check_sh "shared supervisor: --sandbox off is refused (exit $rc)" \
    '[ "$rc" -ne 0 ] && ! ran m4'
check "  and the error names the managed file" grep -q "$MANAGED" "$W/e4"
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null

managed '{"sandbox":{"allowUnsandboxedCommands":false}}'
as_user "$AIRLOCK" run --workspace "$W" --sandbox off -- \
    sh -c "touch '$OUT/m5'" 2>"$W/e5"
rc=$?
check_sh "managed allowUnsandboxedCommands=false: --sandbox off is refused" \
    '[ "$rc" -ne 0 ] && ! ran m5 &&
    grep -q "managed policy $MANAGED sets sandbox.allowUnsandboxedCommands: false" "$W/e5"'
as_user timeout 3 "$AIRLOCKD" --sandbox off --socket "$W/x.sock" \
    >"$W/e6" 2>&1
rc=$?
check_sh "  airlockd --sandbox off itself refuses to start (exit $rc)" \
    '[ "$rc" -eq 1 ] && grep -q "refused: managed policy $MANAGED" "$W/e6"'

# Managed rules cannot be skipped with --no-policy-check.
managed '{"rules":{"create-commit":"deny"}}'
as_user "$AIRLOCK" run --workspace "$W" --no-policy-check -- \
    sh -c "touch '$OUT/m6'" 2>"$W/e6b"
rc=$?
check_sh "managed rules: --no-policy-check is refused (exit $rc)" \
    '[ "$rc" -eq 2 ] && ! ran m6 &&
    grep -q "no-policy-check refused: managed policy $MANAGED" "$W/e6b"'

# No managed file: --sandbox off runs, and says so in one line.
rm -f "$MANAGED"
as_user "$AIRLOCK" run --workspace "$W" --sandbox off -- \
    sh -c "touch '$OUT/m7'" 2>"$W/e7"
check "no managed policy: --sandbox off runs" ran m7
check_sh "  with one line on stderr saying it is unconfined, and why" \
    '[ "$(grep -c "UNCONFINED" "$W/e7")" -eq 1 ] &&
    grep -q "UNCONFINED.*--sandbox off" "$W/e7"'
as_user "$AIRLOCK" run --workspace "$W" --settings "$W/off.json" -- \
    sh -c "touch '$OUT/m8'" 2>"$W/e8"
check_sh "sandbox.enabled=false in settings: runs unconfined and says why" \
    'ran m8 && grep -q "UNCONFINED.*sandbox.enabled is false" "$W/e8"'

# A lock installed while airlockd runs: it holds from the next command,
# in sessions already open too.  A backend-none session is opened on a
# shared airlockd with no managed file; its first host command runs.
# Then the admin installs the lock: the same session's next command is
# refused at the last stop every host command passes (host_exec), a new
# --sandbox off run at the door -- neither needs airlockd's restart.
spawn_user "$AIRLOCKD" --socket "$W/l.sock" --quiet
lpid=$!
i=0
while [ ! -S "$W/l.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
cat >"$W/late.py" <<'PY'
import os, sys, time
sys.path.insert(0, sys.argv[3])
from airlockd_rpc import Client
sock, ws, _, out, go = sys.argv[1:6]
c = Client(sock)
r = c.call("sandbox.launch", {"spec": {"sessionId": "late", "backend":
           "none", "bindMounts": [{"hostPath": ws}], "guestWorkdir": ws}})
assert "result" in r, r
def run(mark):
    r = c.call("sandbox.exec", {"sessionId": "late", "argv":
               ["sh", "-c", "touch " + out + "/" + mark]})
    if "error" in r:
        return r["error"]["message"]
    x = r["result"]["execId"]
    c.note(lambda m: m.get("method") == "sandbox.event" and
           m["params"].get("execId") == x and
           m["params"]["type"] == "exit", 20)
    return "ran"
print("first:", run("m9"), flush=True)
end = time.time() + 60
while not os.path.exists(go) and time.time() < end:
    time.sleep(0.1)
print("second:", run("m10"), flush=True)
PY
chmod 0644 "$W/late.py"
spawn_user python3 "$W/late.py" "$W/l.sock" "$W" "$STAGE/tests/helpers" \
    "$OUT" "$W/go" >"$W/late.out" 2>&1
ppid=$!
waitfor 60 grep -q "^first:" "$W/late.out"
managed '{"sandbox":{"enabled":true}}'
touch "$W/go"
wait "$ppid"
check_sh "no lock yet: the none session's first host command ran" \
    'ran m9 && grep -q "^first: ran" "$W/late.out"'
check_sh "lock installed meanwhile: its next command is refused at host_exec" \
    '! ran m10 && grep -q "^second: .*refused: managed policy $MANAGED" \
    "$W/late.out"'
as_user "$AIRLOCK" run --socket "$W/l.sock" --workspace "$W" --sandbox off \
    -- sh -c "touch '$OUT/m11'" 2>"$W/e11"
check_sh "... and a new --sandbox off run on the same airlockd at the door" \
    '! ran m11 && grep -q "$MANAGED" "$W/e11"'
kill "$lpid" 2>/dev/null
wait "$lpid" 2>/dev/null
[ "$_fails" -eq 0 ] || sed 's/^/# late: /' "$W/late.out"
rm -f "$MANAGED"

cd /
finish
