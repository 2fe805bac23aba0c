#!/bin/sh
# SPDX-License-Identifier: ISC
#
# airlock-guard (issue 27): the seccomp-notify rule engine in a process
# of its own, started by the sandbox's init.  Through a real `airlock
# run`, as an unprivileged user:
#   - the guard killed with SIGKILL in the middle of an untar ends its
#     sandbox closed: nothing is created after it died, the run fails
#     and the event says why;
#   - a call naming a path outside the sandbox's view (a host directory
#     the sandbox does not show, the guard's own /proc entries) is
#     refused and leaves nothing on the host;
#   - the guard's own restriction, probed from inside it by the test
#     build's probe (guard/notify.c), and its memory closed to commands.
. "$(dirname "$0")/lib.sh"
plan 17

W=$(mkwork)
cd "$W" || exit 1
EV="$W/.ev.jsonl"
# sbx [AIRLOCK] CMD: a shell command in the sandbox (cwd: the workspace).
sbx() {
	_a=$AIRLOCK
	[ $# -eq 2 ] && { _a=$1; shift; }
	as_user "$_a" run --no-policy-check --workspace "$W" \
	    --events "$EV" -- sh -c "$1"
}

# ---- the guard killed mid-untar ----
as_user python3 -c '
import os
for i in range(10000):
    d = "src/d%d" % (i % 100)
    os.makedirs(d, exist_ok=True)
    open("%s/f%d.js" % (d, i), "w").write("x" * 100)'
as_user tar -cf files.tar -C src .
rm -rf src
as_user git init -q repo
sbx 'tar -xf files.tar -C repo' >"$W/.out" 2>&1 &
RP=$!
# Under way: some hundreds of files in.
i=0
while [ "$(find repo -name '*.js' 2>/dev/null | wc -l)" -lt 300 ] &&
    [ $i -lt 600 ]; do
	sleep 0.05
	i=$((i + 1))
done
# Our tar (other tests may untar too), then its sandbox's init and
# init's airlock-guard.
TP=
for p in $(pgrep -u "$TUSER" -x tar); do
	[ "$(readlink "/proc/$p/cwd")" = "$W" ] && TP=$p
done
IP=$TP
while [ -n "$IP" ] && [ "$IP" -gt 1 ] &&
    [ "$(cat "/proc/$IP/comm" 2>/dev/null)" != airlock-launche ]; do
	IP=$(awk '{ print $4 }' "/proc/$IP/stat" 2>/dev/null)
done
GP=$(pgrep -P "${IP:-0}" -x airlock-guard)
diag "tar $TP, init $IP, guard $GP"
check_sh "the guard is found beside the untar's init" \
    '[ -n "$TP" ] && [ -n "$GP" ]'
kill -KILL "$GP"
# Once it is dead (a zombie, or reaped), list the tree.
i=0
while [ -d "/proc/$GP" ] && ! grep -q '^State:.*Z' "/proc/$GP/status" \
    2>/dev/null && [ $i -lt 200 ]; do
	sleep 0.01
	i=$((i + 1))
done
find repo | sort >"$W/.before"
wait $RP
rc=$?
sleep 0.5
find repo | sort >"$W/.after"
diag "airlock run: $rc; $(wc -l <"$W/.after") entries; $(tail -2 "$W/.out" | tr '\n' ' ')"
# What a call notified after the guard died gets: the kernel's ENOSYS
# (the listener closed), if the command ran on long enough to see one.
diag "ENOSYS seen by tar: $(grep -c 'Function not implemented' "$W/.out")"
check_sh "the run fails when its guard is killed" '[ $rc -ne 0 ]'
check_sh "nothing is created after the guard died" \
    'cmp -s "$W/.before" "$W/.after"'
check_sh "... it died mid-untar (fewer than 10,000 files)" \
    '[ "$(grep -c "\.js$" "$W/.after")" -lt 10000 ]'
check_sh "... and the untar did not run on" '[ ! -d "/proc/$TP" ]'
check_sh "the event says the guard ended, and so does airlock" \
    'grep -q "guard-died" "$EV" &&
    grep -q "airlock-guard, which checks them, ended" "$W/.out"'
# Control: without the kill, the same untar completes.
rm -rf repo/d*
sbx 'tar -xf files.tar -C repo' >/dev/null 2>&1
check_sh "control: the untar completes with its guard alive" \
    '[ "$(find repo -name "*.js" | wc -l)" -eq 10000 ]'
rm -rf repo files.tar

# ---- paths outside the sandbox's view ----
HD=$(mktemp -d "$STAGE/hostonly.XXXXXX")
chmod 0777 "$HD"
out=$(sbx "echo x > '$HD/f' 2>&1; echo x > inside; g=; \
for p in /proc/[0-9]*; do [ \"\$(cat \$p/comm)\" = airlock-guard ] && \
g=\${p#/proc/}; done; echo guard=\$g; echo x > /proc/\$g/fd/3; \
true > /proc/\$g/mem; ls /proc/\$g/fd; cat /proc/\$g/environ" 2>&1)
diag "$(echo "$out" | head -6 | tr '\n' ' ')"
check_sh "a host directory the sandbox does not show: refused" \
    'echo "$out" | grep -q "$HD/f: Directory nonexistent\|$HD/f: No such"'
check_sh "... nothing on the host" '[ -z "$(ls -A "$HD")" ]'
check_sh "control: the same user writes there from the host" \
    'as_user sh -c "echo x > $HD/g" && [ -f "$HD/g" ]'
check_sh "control: the same run wrote in its workspace" '[ -f inside ]'
check_sh "the guard's own descriptors (/proc/<guard>/fd) are refused" \
    'echo "$out" | grep -q "/proc/[0-9]*/fd/3: Permission denied"'
check_sh "... and its memory (/proc/<guard>/mem)" \
    'echo "$out" | grep -q "/proc/[0-9]*/mem: Permission denied"'
check_sh "a command cannot read the guard's fds or environment" \
    'echo "$out" | grep -q "cannot open directory .*/proc/[0-9]*/fd.*: Permission denied" &&
    echo "$out" | grep -q "/proc/[0-9]*/environ: Permission denied"'

# A command cannot stop, kill or starve its own guard: guardkill.sh.

# ---- the guard's own restriction (the test build's probe) ----
out=$(sbx "$B/test/airlock" ': > .airlock-guard-probe; cat .airlock-guard-probe' 2>&1)
diag "$(echo "$out" | tr '\n' ' ')"
check_sh "probe control: a child of the guard that does nothing refused exits 0" \
    'echo "$out" | grep -qx "control: exit 0"'
check_sh "the guard cannot execve, make a socket, ptrace, or become dumpable (SIGSYS)" \
    '[ "$(echo "$out" | grep -c "^\(execve\|socket\|ptrace\|dumpable\): signal 31$")" -eq 4 ]'
check_sh "the shipped guard has no probe; the test build's has" \
    '! grep -qa airlock-guard-probe "$B/airlock-guard" &&
    grep -qa airlock-guard-probe "$B/test/airlock-guard"'
finish
