#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Signals and lifecycle of `airlock run` (issue 26): a signal sent to the
# caller's process group reaches the command, not the private airlockd
# (which has a session of its own), so the command's trap runs and its
# status is the run's; the private airlockd and the sandbox still end
# when the client is killed; SIGWINCH reaches a command without a
# terminal; two Ctrl-C on a terminal end a command that traps INT; a
# launch that fails frees its session id.
. "$(dirname "$0")/lib.sh"
plan 44
W=$(mkwork)
cd "$W" || exit 1
D=$(dirname "$0")
R() { as_user "$AIRLOCK" run --workspace "$W" "$@"; }

# wait_file F: up to 10 s for F to appear
wait_file() {
	_i=0
	while [ ! -e "$1" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -e "$1" ]
}

# 1. timeout(1) signals its whole process group, the private airlockd
# with it unless that has a session of its own.
out=$(as_user timeout --preserve-status 4 "$AIRLOCK" run --workspace "$W" -- sh -c \
    'trap "echo T; exit 3" TERM; : >ready.t; sleep 9' 2>"$W/t.err")
rc=$?
diag "timeout: rc $rc, out '$out', err: $(cat "$W/t.err")"
check_sh "timeout's group SIGTERM: the command's trap runs (rc $rc)" \
    '[ "$out" = T ] && [ $rc -eq 3 ]'
check "  and no 'connection lost'" fails grep -q "connection lost" "$W/t.err"

# kill -SIG -PGID on a client that leads its own group (an interactive
# shell's job): the command's trap, its status.
grp_run() {	# grp_run SIG READY: the run's "out rc"
	as_user python3 - "$AIRLOCK" "$W" "$1" "$2" <<'PY'
import os, signal, subprocess, sys, time
air, w, sig, ready = sys.argv[1:5]
sig = getattr(signal, "SIG" + sig)
cmd = 'trap "echo C; exit 5" %s; : >%s; sleep 9' % (sig.name[3:], ready)
p = subprocess.Popen([air, "run", "--workspace", w, "--", "sh", "-c", cmd],
                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, start_new_session=True,
                     preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                      signal.SIG_DFL))
for _ in range(600):
    if os.path.exists(os.path.join(w, ready)):
        break
    time.sleep(0.1)
os.killpg(p.pid, sig)
out, err = p.communicate(timeout=20)
sys.stderr.write(err.decode())
print(out.decode().strip(), p.returncode)
PY
}
r=$(grp_run TERM ready.g1 2>"$W/g1.err")
diag "kill -TERM -PGID: $r; $(cat "$W/g1.err")"
check "kill -TERM -PGID: the command's trap and status ($r)" [ "$r" = "C 5" ]
r=$(grp_run INT ready.g2 2>"$W/g2.err")
diag "kill -INT -PGID: $r; $(cat "$W/g2.err")"
check "kill -INT -PGID: the command's trap and status ($r)" [ "$r" = "C 5" ]

# Control: the same command outside airlock gives the same answer.
r=$(as_user sh -c 'trap "echo C; exit 5" TERM; kill -TERM $$; sleep 1')
check "  control: the trap outside airlock prints C" [ "$r" = C ]

# The private airlockd still ends with its client: kill -KILL the client,
# the daemon and the sandboxed command are gone within a few seconds.
spawn_user "$AIRLOCK" run --workspace "$W" -- sh -c \
    ': >ready.k; exec sleep 31337' </dev/null >/dev/null 2>&1
cpid=$!
wait_file "$W/ready.k"
dpid=$(pgrep -P "$cpid" airlockd | head -1)
check "the private airlockd runs ($dpid)" [ -n "$dpid" ]
kill -KILL "$cpid"
wait "$cpid" 2>/dev/null
i=0
while [ $i -lt 50 ] && { kill -0 "$dpid" 2>/dev/null ||
    pgrep -x -f "sleep 31337" >/dev/null; }; do
	sleep 0.1
	i=$((i + 1))
done
gone() { ! kill -0 "$1" 2>/dev/null; }
check "  kill -KILL of the client: the private airlockd is gone" gone "$dpid"
check "  and the sandboxed command too" fails pgrep -x -f "sleep 31337"

# 2. SIGWINCH without a terminal reaches the command.
spawn_user "$AIRLOCK" run --workspace "$W" -- sh -c \
    'trap "echo W; exit 4" WINCH; : >ready.w; i=0
    while [ $i -lt 80 ]; do sleep 0.1; i=$((i+1)); done; exit 9' \
    </dev/null >"$W/w.out" 2>"$W/w.err"
wpid=$!
wait_file "$W/ready.w"
kill -WINCH "$wpid"
wait "$wpid"
rc=$?
check_sh "SIGWINCH without a terminal reaches the command (rc $rc)" \
    '[ $rc -eq 4 ] && grep -qx W "$W/w.out"'

# 3. Two Ctrl-C on a terminal (raw mode: the key is a byte for the pty
# inside) end a command that traps INT; a command that answers the first
# (a prompt) is left alone.
pty_ctrlc() {	# pty_ctrlc SCRIPT READY: "rc output"
	as_user python3 - "$AIRLOCK" "$W" "$1" "$2" <<'PY'
import os, pty, select, sys, time
air, w, script, ready = sys.argv[1:5]
pid, fd = pty.fork()
if pid == 0:
    os.execv(air, [air, "run", "--workspace", w, "--", "sh", "-c", script])
out = b""
def drain(t):
    global out
    end = time.time() + t
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                d = os.read(fd, 4096)
            except OSError:
                return
            if not d:
                return
            out += d
for _ in range(200):
    if os.path.exists(os.path.join(w, ready)):
        break
    drain(0.05)
drain(0.3)
os.write(fd, b"\x03")
drain(1.5)
alive = os.waitpid(pid, os.WNOHANG)[0] == 0
os.write(fd, b"\x03")
drain(0.4)
os.write(fd, b"\x03")
drain(5)
try:
    _, st = os.waitpid(pid, 0)
except ChildProcessError:
    st = 0
sys.stderr.write(repr(out) + "\n")
print("alive" if alive else "dead", os.waitstatus_to_exitcode(st),
      out.count(b"still here"))
PY
}
r=$(pty_ctrlc 'trap "" INT; : >ready.c1; sleep 20; exit 7' ready.c1 \
    2>"$W/c1.err")
diag "stuck: $r $(cat "$W/c1.err")"
check "a terminal, a command ignoring INT: one Ctrl-C leaves it running" \
    [ "${r%% *}" = alive ]
check "  two within a second end the run, status 130 ($r)" \
    [ "$(echo "$r" | cut -d' ' -f2)" = 130 ]
r=$(pty_ctrlc 'trap "echo still here" INT; : >ready.c2; i=0
    while [ $i -lt 40 ]; do sleep 0.1; i=$((i+1)); done; exit 7' ready.c2 \
    2>"$W/c2.err")
diag "answering: $r $(cat "$W/c2.err")"
check "  a command that answers each Ctrl-C is not killed ($r)" \
    [ "$r" = "alive 7 3" ]

# 4. A launch that fails (not lazy) frees its session id: the same id
# launches again.  The test build's airlockd takes a bind it does not
# check (testUnlistedBind), which the launcher then cannot make.
as_user python3 - "$B/test/airlockd" "$W" "$STAGE/tests/helpers" \
    >"$W/relaunch.out" 2>&1 <<'PY'
import sys
airlockd, ws, helpers = sys.argv[1:4]
sys.path.insert(0, helpers)
from airlockd_rpc import connect
p, a, f, call = connect(airlockd)
def spec(**kw):
    s = {"sessionId": "again", "bindMounts": [{"hostPath": ws}],
         "guestWorkdir": ws}
    s.update(kw)
    return {"spec": s}
r = call("sandbox.launch", spec(testUnlistedBind=ws + "/gone-before-build"))
print("first", "error" in r, r.get("error", {}).get("message"))
r = call("sandbox.status", {"sessionId": "again"})
print("status", r.get("result", {}).get("state"))
r = call("sandbox.launch", spec())
print("second", "error" not in r, r.get("error", {}).get("message"))
r = call("sandbox.exec", {"sessionId": "again", "argv": ["true"]})
print("exec", "error" not in r)
# Someone else's id is not taken over: a live session keeps its id.
r = call("sandbox.launch", spec())
print("live", r.get("error", {}).get("message"))
call("sandbox.destroy", {"sessionId": "again"})
PY
diag "$(cat "$W/relaunch.out")"
check "a failed launch is reported (control)" \
    grep -q "^first True .*gone-before-build" "$W/relaunch.out"
check "  the same id launches again" \
    grep -q "^second True" "$W/relaunch.out"
check "  and a live session still keeps its id" \
    grep -q "^live sessionId: a session with this id exists" "$W/relaunch.out"

# 5. An ACP agent's session/request_permission that the editor never
# answers: after acp.permissionTimeout seconds airlock answers from its
# policy (ls: allow).  An editor that answers in time is relayed as is.
cat >"$W/agent.sh" <<'AG'
printf '%s\n' '{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t","kind":"execute","rawInput":{"command":"ls"}},"options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}'
read -r line
printf '%s\n' "$line" >"$1"
AG
printf '{"acp":{"permissionTimeout":2}}\n' >"$W/acp.json"
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$W/agent.sh" "$W/acp.json"
acp_editor() {	# acp_editor ANSWER(yes|silent) OUT: "seconds rc"
	as_user python3 - "$AIRLOCK" "$W" "$1" "$2" <<'PY'
import json, os, select, subprocess, sys, time
air, w, mode, out = sys.argv[1:5]
p = subprocess.Popen([air, "acp", "--workspace", w, "--settings",
                      w + "/acp.json", "--", "sh", w + "/agent.sh", out],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
t0 = time.time()
buf = b""
while time.time() - t0 < 30 and p.poll() is None:
    r, _, _ = select.select([p.stdout], [], [], 0.2)
    if not r:
        continue
    d = os.read(p.stdout.fileno(), 65536)
    if not d:
        break
    buf += d
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        m = json.loads(line)
        if m.get("method") == "session/request_permission":
            t0 = time.time()
            if mode == "no":
                p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": m["id"],
                    "result": {"outcome": {"outcome": "selected",
                    "optionId": "no"}}}).encode() + b"\n")
                p.stdin.flush()
try:
    p.wait(timeout=max(1, 30 - (time.time() - t0)))
except subprocess.TimeoutExpired:
    p.kill()
print("%.1f" % (time.time() - t0), p.wait())
PY
}
r=$(acp_editor silent "$W/perm1.out" 2>"$W/acp1.err")
diag "silent editor: $r $(cat "$W/perm1.out" "$W/acp1.err" 2>/dev/null)"
check_sh "an unanswered permission request: airlock answers after the deadline ($r)" \
    'grep -q "\"optionId\":\"yes\"" "$W/perm1.out" &&
    [ "${r%%.*}" -ge 2 ] && [ "${r%%.*}" -lt 10 ]'
check "  and says so on stderr, naming the setting" \
    grep -q "did not answer .*(acp.permissionTimeout)" "$W/acp1.err"
r=$(acp_editor no "$W/perm2.out" 2>"$W/acp2.err")
diag "answering editor: $r $(cat "$W/perm2.out" 2>/dev/null)"
check "  control: the editor's own answer (no) reaches the agent" \
    grep -q '"optionId":"no"' "$W/perm2.out"
printf '{"acp":{"permissionTimeout":"soon"}}\n' >"$W/bad.json"
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$W/bad.json"
as_user "$AIRLOCK" acp --settings "$W/bad.json" -- true </dev/null \
    >/dev/null 2>"$W/bad.err"
check "  a bad acp.permissionTimeout is named with what is accepted" \
    grep -q "acp.permissionTimeout.*seconds" "$W/bad.err"

# 6. A refused fs.applyPatch names its target in the violation event:
# the protected file it would add, and in review mode the patch's file.
as_user python3 - "$AIRLOCKD" "$W" "$STAGE/tests/helpers" \
    >"$W/patch.out" 2>&1 <<'PY'
import json, sys
airlockd, ws, helpers = sys.argv[1:4]
sys.path.insert(0, helpers)
from airlockd_rpc import connect
p, a, f, _ = connect(airlockd)
events, n = [], [0]
def call(method, params):
    n[0] += 1
    f.write(json.dumps({"jsonrpc": "2.0", "id": n[0], "method": method,
                        "params": params}).encode() + b"\n")
    f.flush()
    while True:
        m = json.loads(f.readline())
        if m.get("id") == n[0]:
            return m
        if "params" in m:
            events.append(m["params"])
for sid, mode in (("pc", "chat"), ("pr", "review")):
    call("sandbox.launch", {"spec": {"sessionId": sid, "mode": mode,
         "guestWorkdir": ws, "bindMounts": [{"hostPath": ws}]}})
    name = "x.key" if mode == "chat" else "notes.txt"
    r = call("fs.applyPatch", {"sessionId": sid, "patch":
             "*** Begin Patch\n*** Add File: %s\n+k\n*** End Patch\n" % name})
    print(mode, r.get("error", {}).get("data", {}).get("rule"),
          [e.get("target") for e in events if e.get("type") == "violation"
           and e.get("action") == "fs.applyPatch"][-1:])
    call("sandbox.destroy", {"sessionId": sid})
PY
diag "$(cat "$W/patch.out")"
check "a refused fs.applyPatch names the protected file it would add" \
    grep -q "^chat protected-name \['x.key'\]" "$W/patch.out"
check "  and in review mode the patch's file" \
    grep -q "^review read-only-mode \['notes.txt'\]" "$W/patch.out"

# The microvm refusal names what is missing: /dev/kvm and the VM monitor.
as_user python3 - "$AIRLOCKD" "$W" "$STAGE/tests/helpers" \
    >"$W/vm.out" 2>&1 <<'PY'
import sys
airlockd, ws, helpers = sys.argv[1:4]
sys.path.insert(0, helpers)
from airlockd_rpc import connect
p, a, f, call = connect(airlockd)
r = call("sandbox.launch", {"spec": {"sessionId": "vm", "backend": "microvm",
         "guestWorkdir": ws, "bindMounts": [{"hostPath": ws}]}})
print(r.get("error", {}).get("message"))
PY
diag "$(cat "$W/vm.out")"
check_sh "the microvm refusal names /dev/kvm and the missing VM monitor" \
    'grep -q "/dev/kvm" "$W/vm.out" && grep -q "no VM monitor" "$W/vm.out"'

# 7. An origin change: one message naming where the origin is recorded
# and the command that accepts the new one; airlock fs never warns.
G=$(mkwork)
as_user sh -c "cd '$G' && git init -q && git remote add origin \
    https://github.com/first-owner/one.git && echo x >f.txt"
as_user sh -c "cd '$G' && '$AIRLOCK' run -- true" 2>"$W/o1.err"
as_user git -C "$G" remote set-url origin https://github.com/other-owner/two.git
as_user sh -c "cd '$G' && '$AIRLOCK' run -- true" 2>"$W/o2.err"
diag "after set-url: $(cat "$W/o2.err")"
check "an origin change is said on one line" \
    [ "$(grep -c origin "$W/o2.err")" -eq 1 ]
check_sh "  naming the record's file and the command that accepts it" \
    'grep -q "recorded first-owner/one in .*/origins/" "$W/o2.err" &&
    grep -q "airlock run --origin other-owner/two -- true" "$W/o2.err"'
as_user sh -c "cd '$G' && '$AIRLOCK' fs read f.txt" >/dev/null 2>"$W/o3.err"
diag "fs: $(cat "$W/o3.err")"
check "airlock fs says nothing about the origin" \
    fails grep -q origin "$W/o3.err"
as_user sh -c "cd '$G' && '$AIRLOCK' run --origin other-owner/two -- true" \
    2>"$W/o4.err"
as_user sh -c "cd '$G' && '$AIRLOCK' run -- true" 2>"$W/o5.err"
check "  the suggested command accepts the new origin: no more messages" \
    fails grep -q origin "$W/o5.err"
check "  (control: the first run recorded it silently)" \
    fails grep -q origin "$W/o1.err"

# 8. The documented defaults are the code's: airlock(1), docs/SETTINGS.md
# and docs/SECURITY.md against `airlock settings --explain`.
DOCS=${AIRLOCK_TOP:?run through tests/run.sh}
as_user "$AIRLOCK" settings --explain >"$W/explain.out" 2>"$W/explain.err"
check "airlock settings --explain runs" [ -s "$W/explain.out" ]
ex() { awk -v k="$1" 'index($0, k " ") == 1 { sub("^" k " +", ""); print $1 }' \
    "$W/explain.out"; }
bad=""
for key in sandbox.enabled sandbox.failIfUnavailable \
    sandbox.allowUnsandboxedCommands sandbox.network.maxConnections \
    approvals.timeoutSeconds worktrees.spares acp.permissionTimeout; do
	doc=$(grep "^| \`$key\` |" "$DOCS/docs/SETTINGS.md" |
	    awk -F'|' '{ print $4 }' | tr -d ' `')
	[ "$doc" = "$(ex "$key")" ] || bad="$bad $key(doc $doc, code $(ex "$key"))"
done
check "docs/SETTINGS.md's defaults are the code's:${bad:- all}" [ -z "$bad" ]
MAN="$DOCS/contrib/man/airlock.1"
mandef() { sed -n "/^.It Fl \\\\-$1 /,/^Default/p" "$MAN" |
    sed -n 's/^Default: \(.*\)\.$/\1/p'; }
check "airlock(1) --output-limit default is the code's ($(mandef output-limit))" \
    [ "$(mandef output-limit)" = "$(ex "run --output-limit")" ]
check "airlock(1) --pids default is the code's ($(mandef pids))" \
    [ "$(mandef pids)" = "$(ex "run --pids")" ]
check "airlock(1) and SECURITY.md give airlock run's output cap as 16 GiB" \
    sh -c "grep -q 'capped at 16 GiB' '$MAN' &&
    grep -q '16 GiB by default for .airlock run' '$DOCS/docs/SECURITY.md'"
printf '{"worktrees":{"spares":2}}\n' >"$W/sp.json"
chmod 644 "$W/sp.json"
as_user "$AIRLOCK" settings --explain --settings "$W/sp.json" \
    >"$W/sp.out" 2>&1
diag "$(grep spares "$W/sp.out")"
check "  and the explained file of a value a settings file sets" \
    grep -q "^worktrees.spares  *2  *$W/sp.json" "$W/sp.out"

# AIRLOCK_DEBUG: documented, and its trace names the command.
as_user env AIRLOCK_DEBUG=1 "$AIRLOCK" run --workspace "$W" -- \
    sh -c 'echo dbg-marker' >/dev/null 2>"$W/dbg.err"
check "AIRLOCK_DEBUG: the trace names the command" \
    grep -qF 'exec "sh" "-c" "echo dbg-marker"' "$W/dbg.err"
as_user "$AIRLOCK" run --workspace "$W" -- true 2>"$W/nodbg.err"
check "  (control: without it, no trace) and airlock(1) documents it" sh -c "
    ! grep -q debug: '$W/nodbg.err' &&
    grep -q '^.It Ev AIRLOCK_DEBUG' '$MAN'"

# 9. An srt user: no airlock settings file and a ~/.srt-settings.json:
# airlock uses it and says so once on stderr.
H=$(mkwork)
S=$(mkwork)
echo srt-hidden >"$S/hidden.txt"
printf '{"filesystem":{"denyRead":["%s/hidden.txt"]}}\n' "$S" \
    >"$H/.srt-settings.json"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H" "$S"
as_user env HOME="$H" "$AIRLOCK" run --workspace "$S" -- \
    cat "$S/hidden.txt" >"$W/srt.out" 2>"$W/srt.err"
diag "srt: $(cat "$W/srt.out" "$W/srt.err")"
check "~/.srt-settings.json is used without an airlock settings file" \
    fails grep -q srt-hidden "$W/srt.out"
check "  and said once on stderr" \
    [ "$(grep -c "using srt's settings, $H/.srt-settings.json" "$W/srt.err")" -eq 1 ]
as_user env HOME="$H" "$AIRLOCK" settings --explain >"$W/srt.ex" 2>/dev/null
check "  settings --explain names it as the file of its values" \
    grep -q "^sandbox.filesystem.denyRead .*$H/.srt-settings.json" "$W/srt.ex"
mkdir -p "$H/.config/airlock"
echo '{}' >"$H/.config/airlock/settings.json"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H"
as_user env HOME="$H" "$AIRLOCK" run --workspace "$S" -- \
    cat "$S/hidden.txt" >"$W/srt2.out" 2>"$W/srt2.err"
check_sh "  control: with an airlock settings file srt's is not read" \
    'grep -q srt-hidden "$W/srt2.out" && ! grep -q srt "$W/srt2.err"'

# Attack: an agent whose workspace is the home writes srt's file to
# loosen the next run (rewrite it, or create it where there is none).
rm -rf "$H/.config"
H2=$(mkwork)
as_user env HOME="$H" "$AIRLOCK" run --workspace "$H" -- sh -c \
    "echo '{}' >'$H/.srt-settings.json'" >/dev/null 2>&1
check "an agent cannot rewrite ~/.srt-settings.json" \
    grep -q denyRead "$H/.srt-settings.json"
as_user env HOME="$H2" "$AIRLOCK" run --workspace "$H2" -- sh -c \
    "echo '{}' >'$H2/.srt-settings.json'; echo '{}' >'$H2/other.json'" \
    >/dev/null 2>&1
check "  nor create it" [ ! -e "$H2/.srt-settings.json" ]
check "  (control: another file there is written)" [ -e "$H2/other.json" ]

# Attack on the freed id: on a shared airlockd, another connection of the
# same user cannot take over a failed session's id; its owner can.
SD=$(mkwork)
spawn_user env HOME="$SD" "$B/test/airlockd" --socket "$SD/d.sock" \
    2>"$SD/d.err"
spid=$!
as_user timeout 60 python3 - "$SD/d.sock" "$W" "$STAGE/tests/helpers" \
    >"$W/shared.out" 2>&1 <<'PY'
import sys
sock, ws, helpers = sys.argv[1:4]
sys.path.insert(0, helpers)
from airlockd_rpc import Client
a, b = Client(sock), Client(sock)
def spec(**kw):
    s = {"sessionId": "owned", "bindMounts": [{"hostPath": ws}],
         "guestWorkdir": ws}
    s.update(kw)
    return {"spec": s}
r = a.call("sandbox.launch", spec(testUnlistedBind=ws + "/gone"))
print("a-failed", "error" in r)
r = b.call("sandbox.launch", spec())
print("b", r.get("error", {}).get("message"))
r = a.call("sandbox.launch", spec())
print("a-again", "error" not in r, r.get("error"))
PY
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
diag "$(cat "$W/shared.out")"
check "another connection cannot take a failed session's id" \
    grep -q "^b sessionId: a session with this id exists" "$W/shared.out"
check "  its owner launches it again" grep -q "^a-again True" "$W/shared.out"
