#!/bin/sh
# SPDX-License-Identifier: ISC
#
# A command cannot stop, kill or starve its own airlock-guard (issue 27).
# The commands share the guard's uid, so only Landlock's signal scope
# (the guard outside the commands' domain) and the seccomp filter
# (prlimit64 on another process refused) keep them from it.  Through a
# real `airlock run`, as the unprivileged user, from inside:
#   - the guard found by its comm, then kill -STOP, kill -KILL,
#     pidfd_send_signal and prlimit --pid --nofile=3:3 on it, each
#     refused;
#   - afterwards a guarded write is still judged: a plain write made, a
#     protected one refused (the guard is alive and answering);
#   - controls: the same kill -STOP / -KILL works on a process the
#     command started itself, and on one an earlier exec of the same
#     session started (the commands share one domain), prlimit and
#     ulimit -n on the command's own limits still work;
#   - renice -u (PRIO_USER) / -g (PRIO_PGRP) and ionice -u / -P, which
#     would slow the guard with everything else of the uid, refused;
#     controls: nice, renice -p and ionice -p on the command's own child
#     still work.
. "$(dirname "$0")/lib.sh"
plan 22

W=$(mkwork)
cd "$W" || exit 1
# sbx CMD: a shell command in the sandbox (cwd: the workspace), bounded,
# since a stopped guard would leave a guarded write waiting for ever.
sbx() {
	as_user timeout 30 "$AIRLOCK" run --no-policy-check --workspace "$W" \
	    -- sh -c "$1"
}
FINDG='g=; for p in /proc/[0-9]*; do
[ "$(cat $p/comm 2>/dev/null)" = airlock-guard ] && g=${p#/proc/}; done
echo guard=$g'

out=$(sbx "$FINDG
kill -STOP \$g 2>&1 && echo stop=done || echo stop=refused
grep State /proc/\$g/status
echo x > after-stop && echo write=made
echo x > .env || echo protected=refused" 2>&1)
rc=$?
diag "$(echo "$out" | tr '\n' ' ') rc=$rc"
check_sh "the command finds its guard by name" \
    'echo "$out" | grep -q "^guard=[0-9][0-9]*$"'
check_sh "kill -STOP on the guard is refused" \
    'echo "$out" | grep -q "^stop=refused" &&
    echo "$out" | grep -q "Operation not permitted"'
check_sh "... the guard still runs, and a guarded write is made after" \
    '! echo "$out" | grep -q "State:.*stopped" &&
    echo "$out" | grep -q "^write=made" && [ -f after-stop ]'
check_sh "... and a protected write is still refused by it" \
    'echo "$out" | grep -q "protected=refused" && [ ! -e .env ] &&
    [ $rc -eq 0 ]'

out=$(sbx "$FINDG
kill -KILL \$g 2>&1 && echo kill=done || echo kill=refused
sleep 0.3; echo x > after-kill && echo write=made" 2>&1)
rc=$?
diag "$(echo "$out" | tr '\n' ' ') rc=$rc"
check_sh "kill -KILL on the guard is refused" \
    'echo "$out" | grep -q "^kill=refused"'
check_sh "... and the sandbox goes on: a guarded write is made after" \
    'echo "$out" | grep -q "^write=made" && [ -f after-kill ] && [ $rc -eq 0 ]'

# The same by another route to the signal: a pidfd.
out=$(sbx "$FINDG
python3 -c 'import os, signal, sys
fd = os.pidfd_open(int(sys.argv[1]))
try:
    signal.pidfd_send_signal(fd, signal.SIGSTOP)
    print(\"pidfd=done\")
except PermissionError:
    print(\"pidfd=refused\")' \$g
grep State /proc/\$g/status
echo x > after-pidfd && echo write=made" 2>&1)
diag "$(echo "$out" | tr '\n' ' ')"
check_sh "pidfd_send_signal(SIGSTOP) to the guard is refused" \
    'echo "$out" | grep -q "^pidfd=refused"'
check_sh "... the guard still runs, and a guarded write is made after" \
    '! echo "$out" | grep -q "State:.*stopped" &&
    echo "$out" | grep -q "^write=made" && [ -f after-pidfd ]'

out=$(sbx "$FINDG
prlimit --pid \$g --nofile=3:3 2>&1 && echo prlimit=done ||
echo prlimit=refused
grep 'open files' /proc/\$g/limits
echo x > after-prlimit && echo write=made" 2>&1)
rc=$?
diag "$(echo "$out" | tr '\n' ' ') rc=$rc"
check_sh "prlimit --pid <guard> --nofile=3:3 is refused" \
    'echo "$out" | grep -q "^prlimit=refused" &&
    echo "$out" | grep -q "Operation not permitted"'
check_sh "... the guard's limit is unchanged, and a guarded write is made" \
    '! echo "$out" | grep -q "open files *3 *3 " &&
    echo "$out" | grep -q "^write=made" && [ -f after-prlimit ]'

# Controls: the same calls on what is the command's own.
out=$(sbx 'sleep 60 & s=$!
kill -STOP $s && for i in $(seq 50); do
	grep -q "State:.*stopped" /proc/$s/status && break; sleep 0.1; done
grep State /proc/$s/status
kill -KILL $s && wait $s; echo killed=$?
ulimit -n 100 && echo ulimit=$(ulimit -n)
prlimit --nofile=50:50 sh -c "ulimit -n" | sed "s/^/prlimit=/"
sh -c "ulimit -n 64; echo child=\$(ulimit -n)"
sleep 60 & s=$!
python3 -c "import os, signal, sys
signal.pidfd_send_signal(os.pidfd_open(int(sys.argv[1])), signal.SIGKILL)
print(\"pidfd=done\")" $s' 2>&1)
diag "$(echo "$out" | tr '\n' ' ')"
check_sh "control: kill -STOP works on a process the command started" \
    'echo "$out" | grep -q "State:.*stopped"'
check_sh "control: ... and so does kill -KILL" \
    'echo "$out" | grep -q "^killed=137$"'
check_sh "control: ulimit -n inside the shell still works" \
    'echo "$out" | grep -q "^ulimit=100$" &&
    echo "$out" | grep -q "^child=64$"'
check_sh "control: prlimit on the command's own limits still works" \
    'echo "$out" | grep -q "^prlimit=50$"'
check_sh "control: pidfd_send_signal works on a process the command started" \
    'echo "$out" | grep -q "^pidfd=done$"'
# Control outside the sandbox: the same user may stop a process of its
# own with the same tool (what the sandbox takes away is real).
spawn_user sleep 60
S=$!
sleep 0.2
check_sh "control: outside, the same user stops and limits its own process" \
    'as_user kill -STOP $S && as_user prlimit --pid $S --nofile=3:3 &&
    waitfor 5 grep -q "State:.*stopped" /proc/$S/status'
kill -KILL $S 2>/dev/null

# Control across execs of one session (airlockd's session API): what the
# first exec left running, the second may still kill.
SD=$(mkwork)
spawn_user "$AIRLOCKD" --socket "$SD/d.sock" 2>"$SD/d.err"
DP=$!
cat >"$SD/x.py" <<'EOF'
import sys, time
sys.path.insert(0, sys.argv[3])
from airlockd_rpc import Client
c = Client(sys.argv[1])
ws = sys.argv[2]
r = c.call("sandbox.launch", {"spec": {"sessionId": "gk", "guestWorkdir": ws,
           "bindMounts": [{"hostPath": ws}]}})
assert "result" in r, r
def run(cmd):
    r = c.call("sandbox.exec", {"sessionId": "gk", "argv": ["sh", "-c", cmd],
               "output": "text"})
    x = r["result"]["execId"]
    out, end = "", time.time() + 20
    while time.time() < end:
        m = c.note(lambda m: m.get("method") == "sandbox.event" and
                   m["params"].get("execId") == x, end - time.time())
        if m is None:
            break
        if m["params"]["type"] == "stdout":
            out += m["params"].get("data", "")
        if m["params"]["type"] == "exit":
            break
    return out
run("setsid sleep 300 >/dev/null 2>&1 & echo $! > .gk-pid")
print(run("kill -KILL $(cat .gk-pid) && echo killed=yes || echo killed=no"))
c.call("sandbox.destroy", {"sessionId": "gk"})
EOF
out=$(as_user timeout 60 python3 "$SD/x.py" "$SD/d.sock" "$W" \
    "$STAGE/tests/helpers" 2>&1)
diag "$(echo "$out" | tr '\n' ' ')"
check_sh "control: a command kills what an earlier exec of its session left" \
    'echo "$out" | grep -q "^killed=yes"'
kill "$DP" 2>/dev/null
# ---- priorities by user or group (the guard's with them) ----
out=$(sbx "$FINDG
pg=\$(awk '{print \$5}' /proc/\$g/stat)
nice -n 5 true && echo nice=ok
sleep 30 & c=\$!
renice -n 7 -p \$c >/dev/null && echo rchild=\$(awk '{print \$19}' /proc/\$c/stat)
ionice -c3 -p \$c && echo ichild=\$(ionice -p \$c)
kill \$c
g0=\$(awk '{print \$19}' /proc/\$g/stat)
renice -n 19 -u \$(id -u) >/dev/null 2>&1 && echo ruser=done || echo ruser=refused
renice -n 19 -g \$pg >/dev/null 2>&1 && echo rpgrp=done || echo rpgrp=refused
ionice -c3 -u \$(id -u) >/dev/null 2>&1 && echo iuser=done || echo iuser=refused
ionice -c3 -P \$pg >/dev/null 2>&1 && echo ipgrp=done || echo ipgrp=refused
[ \"\$(awk '{print \$19}' /proc/\$g/stat)\" = \"\$g0\" ] && echo gnice=same" 2>&1)
diag "$(echo "$out" | tr '\n' ' ')"
check_sh "renice -u and -g (PRIO_USER, PRIO_PGRP) are refused" \
    'echo "$out" | grep -q "^ruser=refused" &&
    echo "$out" | grep -q "^rpgrp=refused"'
check_sh "ionice -u and -P are refused" \
    'echo "$out" | grep -q "^iuser=refused" &&
    echo "$out" | grep -q "^ipgrp=refused"'
check_sh "... and the guard's nice value is unchanged" \
    'echo "$out" | grep -q "^gnice=same"'
check_sh "control: nice -n 5 works" 'echo "$out" | grep -q "^nice=ok"'
check_sh "control: renice -p and ionice -p on the command's own child work" \
    'echo "$out" | grep -q "^rchild=7" && echo "$out" | grep -q "^ichild=idle"'
finish
