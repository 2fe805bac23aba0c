#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Foundation (issue 2): `airlock run` through a real supervisor and a
# real launcher, as an unprivileged user.  The three acceptance probes of
# R-R6, read-only mode, invisibility of unbound paths, the startup line,
# --sandbox off, exit statuses, events, and malformed client input.
. "$(dirname "$0")/lib.sh"
plan 26

W=$(mkwork)
OUT=$(mkwork)		# a host directory the sandbox is not given
HOMEDIR=$(user_home)
cd "$W" || exit 1

# R-R6 probe 1: an allowed write inside succeeds and holds its content.
as_user "$AIRLOCK" run --workspace "$W" -- sh -c 'echo content-1 > inside.txt'
rc=$?
check "write inside the workspace exits 0" [ "$rc" -eq 0 ]
check "the file holds its content on the host" \
    [ "$(cat "$W/inside.txt" 2>/dev/null)" = content-1 ]

# R-R6 probe 2: a write outside fails and the target does not exist.
as_user "$AIRLOCK" run --workspace "$W" -- sh -c "echo x > '$OUT/outside.txt'" \
    2>"$W/err2"
rc=$?
check "write outside the workspace fails" [ "$rc" -ne 0 ]
check "the outside target does not exist" [ ! -e "$OUT/outside.txt" ]
as_user "$AIRLOCK" run --workspace "$W" -- sh -c 'echo x > /etc/airlock-probe' \
    2>/dev/null
check "write to a system directory fails" [ ! -e /etc/airlock-probe ]

# R-R6 probe 3, simplest form: no network at all.
PORT=$(http_counter_start "$W/hits" "$W/srv.pid")
as_user "$AIRLOCK" run --workspace "$W" --network off -- \
    curl -sf -m 3 "http://127.0.0.1:$PORT/" >/dev/null 2>&1
rc=$?
check "a request to a loopback server on the host fails" [ "$rc" -ne 0 ]
check "the host server counted zero hits" [ "$(hits "$W/hits")" -eq 0 ]
curl -s -m 3 "http://127.0.0.1:$PORT/" >/dev/null
check "the same server answers outside (control, 1 hit)" \
    [ "$(hits "$W/hits")" -eq 1 ]
http_counter_stop "$W/srv.pid"

# Read-only modes refuse writes to the workspace.
as_user "$AIRLOCK" run --workspace "$W" --mode review -- \
    sh -c 'echo x > ro.txt' 2>/dev/null
rc=$?
check "review mode: the write fails" [ "$rc" -ne 0 ]
check "review mode: no file appears" [ ! -e "$W/ro.txt" ]
check "review mode: reading still works" \
    as_user "$AIRLOCK" run --workspace "$W" --mode plan -- cat inside.txt

# Unbound host paths are invisible.
touch "$HOMEDIR/airlock-marker" 2>/dev/null
out=$(as_user "$AIRLOCK" run --workspace "$W" -- sh -c \
    "ls -a ~; ls /root /var/lib 2>&1; ls '$OUT' 2>&1" 2>&1)
case $out in
*airlock-marker*) not_ok "the real home's files are invisible" ;;
*) ok "the real home's files are invisible" ;;
esac
case $out in
*"/root"*"No such file"*"/var/lib"*"No such file"*) ok "/root and /var/lib do not exist inside" ;;
*) not_ok "/root and /var/lib do not exist inside"; diag "$out" ;;
esac
rm -f "$HOMEDIR/airlock-marker"

# pid 1 is the sandbox's init; no host process is visible (init,
# airlock-guard, sh, ls, grep).
n=$(as_user "$AIRLOCK" run --workspace "$W" -- sh -c 'ls /proc | grep -c "^[0-9]"')
check "only the sandbox's processes are visible (got $n)" [ "$n" -le 5 ]

# Exit status passes through; 125 when the sandbox cannot be built;
# 127 when the command does not exist.
as_user "$AIRLOCK" run --workspace "$W" -- sh -c 'exit 7'
check "exit status passes through" [ $? -eq 7 ]
as_user "$AIRLOCK" run --workspace "$W/nonexistent" -- true 2>"$W/e125"
rc=$?
check_sh "a workspace that does not exist gives 125 and one line" \
    '[ "$rc" -eq 125 ] && [ "$(wc -l <"$W/e125")" -eq 1 ]'
as_user "$AIRLOCK" run --workspace "$W" -- no-such-command-xyz 2>/dev/null
check "a missing command gives 127" [ $? -eq 127 ]

# Events: one JSON object per line, in order, with seq and time.
as_user "$AIRLOCK" run --workspace "$W" --events "$W/ev.jsonl" -- \
    sh -c 'echo out; echo err >&2' >/dev/null 2>&1
# (airlock run passes output through pipes, each byte once: the stdout
# and stderr events of clients that read output as events are in run.sh.)
check "events: starting, ready, exit in order" python3 - "$W/ev.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
types = [e["type"] for e in ev]
seqs = [e["seq"] for e in ev]
assert types[0] == "starting" and types[1] == "ready", types
assert types[-1] == "exit", types
assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), seqs
assert all("time" in e and e["sessionId"] for e in ev)
assert ev[-1]["exitCode"] == 0 and ev[0]["backend"] == "native"
PY

# --sandbox off runs the command on the host, and says so.
as_user "$AIRLOCK" run --workspace "$W" --sandbox off --events "$W/off.jsonl" \
    -- sh -c "echo unconfined > '$OUT/off.txt'" 2>/dev/null
check "--sandbox off: the command ran unconfined" [ -e "$OUT/off.txt" ]
check "--sandbox off: the events say backend none" \
    grep -q '"type":"ready".*"backend":"none"' "$W/off.jsonl"
st=$(as_user env AIRLOCK_SANDBOX=off "$AIRLOCK" status --json)
case $st in
*'"enabled":false'*'"backend":"none"'*) ok "status says the sandbox is disabled" ;;
*) not_ok "status says the sandbox is disabled"; diag "$st" ;;
esac

# The three startup lines (R-H3), each exactly once.
line() {	# line EXPECTED ARGS...: run airlockd briefly, grep its stderr
	_exp=$1
	shift
	as_user timeout 2 "$@" >"$W/start.log" 2>&1
	[ "$(grep -c "$_exp" "$W/start.log")" -eq 1 ] &&
	    [ "$(grep -cE 'agent sandbox|no OS-native' "$W/start.log")" -eq 1 ]
}
check "startup line: agent sandbox ON" \
    line 'agent sandbox ON (native' "$AIRLOCKD" --socket "$W/s1.sock"
check "startup line: DISABLED by --sandbox off" \
    line 'agent sandbox DISABLED by --sandbox off' "$AIRLOCKD" --sandbox off \
    --socket "$W/s2.sock"
# A host without user namespaces: made real inside a user namespace whose
# user.max_user_namespaces is 0.
check "startup line: no OS-native agent sandbox" \
    line 'no OS-native agent sandbox on this host (user namespaces are disabled' \
    unshare -Ur sh -c "echo 0 > /proc/sys/user/max_user_namespaces && exec \"\$@\"" \
    sh "$AIRLOCKD" --socket "$W/s3.sock"

# Malformed client JSON gets a JSON-RPC error; the daemon keeps serving.
spawn_user "$AIRLOCKD" --socket "$W/rpc.sock" 2>/dev/null
dpid=$!
check "malformed JSON: errors, and the daemon keeps serving" \
    as_user python3 - "$W/rpc.sock" <<'PY'
import json, socket, sys, time
for _ in range(50):
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); break
    except OSError: time.sleep(0.1)
f = s.makefile("rwb")
def ask(line):
    f.write(line + b"\n"); f.flush(); return json.loads(f.readline())
r = ask(b'{"jsonrpc":"2.0","id":1,"method":')
assert r["error"]["code"] == -32700 and r["id"] == 1, r  # the id read first
r = ask(b'{"jsonrpc":"2.0","id":2,"method":"x","method":"y"}')
assert r["error"]["code"] == -32700 and r["id"] == 2, r  # duplicate key
r = ask(b'{"jsonrpc":"2.0","id":"s7","params":{"a":[1,}}')
assert r["error"]["code"] == -32700 and r["id"] == "s7", r
r = ask(b'{"jsonrpc":"2.0","method":,"id":6}')
assert r["error"]["code"] == -32700 and r["id"] is None, r  # id after it
r = ask(b'{"jsonrpc":"2.0","id":{"x":1},"method":')
assert r["error"]["code"] == -32700 and r["id"] is None, r  # not an id
r = ask(b'[1,2,3]')
assert r["error"]["code"] == -32600, r
r = ask(b'{"jsonrpc":"2.0","id":3,"method":"no.such"}')
assert r["error"]["code"] == -32601 and r["id"] == 3, r
r = ask(b'{"jsonrpc":"2.0","id":4,"method":"sandbox.launch","params":{"spec":{"sessionId":"a","bogus":1}}}')
assert r["error"]["code"] == -32602 and "bogus" in r["error"]["message"], r
r = ask(b'\xff\xfe garbage')
assert r["error"]["code"] == -32700, r
r = ask(b'{"jsonrpc":"2.0","id":5,"method":"host.status"}')
assert r["id"] == 5 and "available" in r["result"], r
s2 = socket.socket(socket.AF_UNIX); s2.connect(sys.argv[1])
f2 = s2.makefile("rwb")
f2.write(b'{"jsonrpc":"2.0","id":9,"method":"host.status"}\n'); f2.flush()
assert json.loads(f2.readline())["id"] == 9
PY
check "the socket is mode 0600" [ "$(stat -c %a "$W/rpc.sock")" = 600 ]
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null
finish
