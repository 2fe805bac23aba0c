#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Every daemon's self-restriction, shown truthfully (issue 29, R-P2).
# `airlock status` shows what airlockd, proxyd and gatewayd applied, and
# never a null: a daemon that is not running says why, one that runs but
# has not reported is waited for and then named "not reported" with the
# reason.  What status says is checked against the kernel's own view
# (/proc/PID/status: NoNewPrivs, Seccomp, CapEff).  airlockd's filter is
# proved from inside: the test build's airlockd takes SIGUSR1 as "try
# the refused calls" (sv_self.c) and writes how each ended; the control
# is the same test build run unrestricted (AIRLOCK_TEST_SELF_OFF, also
# test build only), where the same calls go through.  The shipped
# airlockd carries neither hook.
. "$(dirname "$0")/lib.sh"

plan 23

T=$(mktemp -d /tmp/airlock-selfr.XXXXXX)
chmod 0755 "$T"
chown "$TUSER" "$T"
DPIDS=
RUNPID=
cleanup() {
	for p in $RUNPID $DPIDS; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' HUP INT PIPE TERM
W=$(mkwork)

wait_sock() {
	for i in $(seq 1 100); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
# jget FILE EXPR: a Python expression on the status object d
jget() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
print($2)" "$1"
}
# nonull FILE: no daemon's selfRestriction is null or missing
nonull() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['daemons']
sys.exit(0 if d and all(isinstance(v.get('selfRestriction'), str) and
    v['selfRestriction'] for v in d.values()) else 1)" "$1"
}
procf() {	# procf PID FIELD
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

# --- The shipped airlockd: its own line, and the kernel agrees. ---
spawn_user "$AIRLOCKD" --socket "$T/d.sock" --quiet 2>"$T/d.log"
DPID=$!
DPIDS="$DPIDS $DPID"
wait_sock "$T/d.sock"
as_user "$AIRLOCK" status --socket "$T/d.sock" --json >"$T/s1.json"
check "status names no daemon's restriction null (none running yet)" \
    nonull "$T/s1.json"
r=$(jget "$T/s1.json" "d['daemons']['airlockd']['selfRestriction']")
diag "airlockd: $r"
check_sh "airlockd reports its seccomp, caps and no_new_privs" \
    'case "$r" in *"seccomp: denylist"*"caps: none; no_new_privs") true;;
    *) false;; esac'
check_sh "airlockd says it applies no Landlock, and why" \
    'case "$r" in "landlock: not applied (everything airlockd starts"*)
    true;; *) false;; esac'
check_sh "the kernel agrees: airlockd has no_new_privs, a filter, no caps" \
    '[ "$(procf $DPID NoNewPrivs)" = 1 ] && [ "$(procf $DPID Seccomp)" = 2 ] &&
    [ "$(procf $DPID CapEff)" = 0000000000000000 ]'
r=$(jget "$T/s1.json" "d['daemons']['proxyd']['selfRestriction']")
check_sh "a proxyd not yet started says why there is nothing ($r)" \
    'case "$r" in "not running: it starts"*) true;; *) false;; esac'
as_user "$AIRLOCK" status --socket "$T/d.sock" >"$T/s1.txt"
check "the text status shows airlockd's restriction" \
    grep -q "^           restricted: landlock: not applied" "$T/s1.txt"

# A sandbox inherits airlockd's filter on top of its own.
as_user "$AIRLOCK" run --socket "$T/d.sock" --workspace "$W" -- \
    awk '$1 == "Seccomp_filters:" { print $2 }' /proc/self/status \
    >"$T/nf" 2>"$T/run.err"
check_sh "a sandboxed command runs under airlockd's filter too ($(cat "$T/nf"))" \
    '[ "$(cat "$T/nf")" -ge 2 ]'

# proxyd, started by a sandbox's connection: what it says is what it is.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$T" \
    >/dev/null 2>&1 &
HPID=$!
DPIDS="$DPIDS $HPID"
sleep 0.3
as_user "$AIRLOCK" run --socket "$T/d.sock" --workspace "$W" \
    --allow-domain "localhost:$PORT" -- sh -c "
    curl -sf -m 5 -o /dev/null http://localhost:$PORT/ && echo first-ok;
    cp /bin/sleep ./airlock-guard && exec ./airlock-guard 30" \
    >"$T/o2" 2>&1 &
RUNPID=$!
IMP=
# Up to 30 s: under a full check's load the sandbox, its curl and the
# copy take a while; the checks below need the impostor running.
for i in $(seq 1 300); do
	IMP=$(pgrep -u "$TUSER" -f '^\./airlock-guard 30$' | head -1)
	[ -n "$IMP" ] && break
	sleep 0.1
done
as_user "$AIRLOCK" status --socket "$T/d.sock" --json >"$T/s2.json"
check "with proxyd running, still no null" nonull "$T/s2.json"
PX=$(jget "$T/s2.json" "d['daemons']['proxyd'].get('pid', '')")
r=$(jget "$T/s2.json" "d['daemons']['proxyd']['selfRestriction']")
diag "proxyd ($PX): $r"
check_sh "proxyd reports its Landlock ABI and rules, filter, caps, nnp" \
    'case "$r" in "landlock abi "*"seccomp: allowlist "*"caps: none; no_new_privs")
    true;; *) false;; esac'
check_sh "the kernel agrees with proxyd's report" \
    '[ -n "$PX" ] && [ "$(procf $PX NoNewPrivs)" = 1 ] &&
    [ "$(procf $PX Seccomp)" = 2 ] &&
    [ "$(procf $PX CapEff)" = 0000000000000000 ]'
# Each built sandbox's guard, as the kernel shows it (its report stays
# with the sandbox's init).
g=$(jget "$T/s2.json" "list(d.get('guards', {}).values())[0]['guardRestriction'] if d.get('guards') else 'none'")
diag "guard: $g"
GP=$(echo "$g" | sed -n 's/^pid \([0-9]*\), as \/proc shows it: .*/\1/p')
check_sh "status shows the running session's guard: filter, no caps, nnp" \
    'case "$g" in "pid "*"seccomp: mode 2, "*"caps: none; no_new_privs: yes")
    true;; *) false;; esac'
# An impostor: the command itself runs as "airlock-guard", a child of
# the sandbox's init like the guard; the guard is the older one.
stime() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20; }
ppid() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f2; }
diag "guard $GP (parent $(ppid $GP)), impostor ${IMP:-none} (parent $(ppid $IMP))"
check_sh "that pid is the real guard, not the command named airlock-guard" \
    '[ -n "$GP" ] && [ -n "$IMP" ] && [ "$GP" != "$IMP" ] &&
    [ "$(cat /proc/$GP/comm)" = airlock-guard ] &&
    [ "$(cat /proc/$IMP/comm)" = airlock-guard ] &&
    [ "$(stime $GP)" -le "$(stime $IMP)" ]'
kill "$RUNPID" 2>/dev/null
wait "$RUNPID" 2>/dev/null
RUNPID=

# --- A daemon that runs but never reports: status waits, then says so. ---
# A copy of the build whose proxyd stand-in never says its hello.
mkdir "$T/b"
for f in "$B"/airlock*; do
	[ -f "$f" ] && cp "$f" "$T/b/"
done
chmod -R a+rX "$T/b"
# It reads its channel (what airlockd sends it, the sessions' listeners
# among it, is taken and dropped) but never answers: one that did not
# read made airlockd's send fail as an unprivileged user (its in-flight
# descriptors), and status then truly said "it ended".
cat >"$T/b/airlock-proxyd" <<'EOF'
#!/bin/sh
exec python3 -c 'import os, time
while os.read(3, 65536):
    pass
time.sleep(60)' silent-proxyd
EOF
chmod 0755 "$T/b/airlock-proxyd"
spawn_user "$T/b/airlockd" --socket "$T/m.sock" --quiet 2>"$T/m.log"
MPID=$!
DPIDS="$DPIDS $MPID"
wait_sock "$T/m.sock"
# airlockd restarts a daemon silent for 10 s (SV_DAEMON_HELLO_SEC) and
# status waits 5 s: on a loaded machine the run's start and status's
# wait together can pass 10 s, and status then truly says "it ended".
# That is a slow start, not the behaviour under test: tried again, up to
# three times, each with a fresh proxyd.
for try in 1 2 3; do
	as_user "$T/b/airlock" run --socket "$T/m.sock" --workspace "$W" \
	    --allow-domain "localhost:$PORT" -- \
	    curl -s -m 20 -o /dev/null "http://localhost:$PORT/" \
	    >/dev/null 2>&1 &
	RUNPID=$!
	for i in $(seq 1 100); do
		pgrep -P "$MPID" -f silent-proxyd >/dev/null && break
		sleep 0.1
	done
	t0=$(date +%s%N)
	as_user "$T/b/airlock" status --socket "$T/m.sock" --json \
	    >"$T/s3.json"
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	r=$(jget "$T/s3.json" "d['daemons']['proxyd']['selfRestriction']")
	diag "silent proxyd (try $try) after ${ms} ms: $r"
	case "$r" in "not running: it ended"*) ;; *) break;; esac
	kill "$RUNPID" 2>/dev/null
	wait "$RUNPID" 2>/dev/null
	pkill -u "$TUSER" -P "$MPID" -f silent-proxyd 2>/dev/null
done
check "a running daemon without a report is never null" nonull "$T/s3.json"
check_sh "status waited for its report before saying none came (${ms} ms)" \
    '[ "$ms" -ge 4000 ]'
check_sh "and says 'not reported' with the reason" \
    'case "$r" in "not reported: started "*"has not said what it applied"*)
    true;; *) false;; esac'
kill "$RUNPID" 2>/dev/null
wait "$RUNPID" 2>/dev/null
RUNPID=

# --- From inside airlockd: the test build's probe, and its control. ---
probe() {	# probe SOCKET OUT DOCTOR-OUT [env...]: start, ask, signal
	_s=$1 _o=$2 _dr=$3
	shift 3
	spawn_user env AIRLOCK_TEST_SELF_PROBE="$_o" "$@" "$B/test/airlockd" \
	    --socket "$_s" --quiet --no-spares 2>>"$T/p.log"
	_p=$!
	wait_sock "$_s"
	as_user "$AIRLOCK" doctor --socket "$_s" >"$_dr" 2>&1
	kill -USR1 "$_p"
	for i in $(seq 1 50); do
		grep -q '^done' "$_o" 2>/dev/null && break
		sleep 0.1
	done
	kill "$_p"
	wait "$_p" 2>/dev/null
}
probe "$T/p1.sock" "$T/probe.on" "$T/dr.on"
probe "$T/p2.sock" "$T/probe.off" "$T/dr.off" AIRLOCK_TEST_SELF_OFF=1
diag "restricted: $(tr '\n' ' ' <"$T/probe.on" 2>/dev/null)"
diag "control:    $(tr '\n' ' ' <"$T/probe.off" 2>/dev/null)"
check "airlockd's io_uring_setup is refused" \
    grep -qx "io_uring_setup: Operation not permitted" "$T/probe.on"
check "control: the unrestricted airlockd's io_uring_setup goes through" \
    grep -qx "io_uring_setup: allowed" "$T/probe.off"
check_sh "airlockd's userfaultfd is refused, the control's is not" \
    'grep -qx "userfaultfd: Operation not permitted" "$T/probe.on" &&
    grep -qx "userfaultfd: allowed" "$T/probe.off"'
check_sh "airlockd's perf_event_open is refused, the control's is not" \
    'grep -qx "perf_event_open: Operation not permitted" "$T/probe.on" &&
    ! grep -qx "perf_event_open: Operation not permitted" "$T/probe.off"'
# Another table's calls: x32's numbers (bit 30) are testable everywhere
# (ENOSYS where x32 is off); i386's int 0x80 only where ia32 runs.
check_sh "a call of the x32 table is refused, the control's is not" \
    'grep -qx "x32-getpid: Operation not permitted" "$T/probe.on" &&
    grep -q "^x32-getpid: " "$T/probe.off" &&
    ! grep -qx "x32-getpid: Operation not permitted" "$T/probe.off"'
if grep -qx "int80-getpid: allowed" "$T/probe.off"; then
	grep -qx "int80-getpid: Operation not permitted" "$T/probe.on" ||
	    not_ok "an i386 call (int 0x80) got through the filter"
fi
check_sh "doctor: self-restriction ok for the restricted airlockd" \
    'grep -q "^ok    self-restriction  *every running daemon reported" "$T/dr.on"'
check_sh "doctor: self-restriction fails for the unrestricted control" \
    'grep -q "^fail  self-restriction  *airlockd: NOT restricted" "$T/dr.off"'
# The hooks are in the test build only.
check_sh "the shipped airlockd has no probe; the test build has" \
    '! grep -qaF AIRLOCK_TEST_SELF "$AIRLOCKD" &&
    grep -qaF AIRLOCK_TEST_SELF_PROBE "$B/test/airlockd"'
