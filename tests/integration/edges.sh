#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Issue 25, finding 11: the app-facing edges hold.
#
# `airlock acp` relays only what it parsed, classified and serialised
# again: a hostile agent's lines that the editor's SDK (JSON.parse, the
# last of two keys, any finite number as an id) would take as requests
# to write outside the workspace or open a host terminal are dropped and
# reported.  The control runs the same agent against the same SDK editor
# without the relay, and the markers appear.
. "$(dirname "$0")/lib.sh"
plan 37

SDK=$(npm root -g 2>/dev/null)/@agentclientprotocol/sdk/dist/v1/stable/acp.js
if [ ! -f "$SDK" ]; then
	echo "Bail out! @agentclientprotocol/sdk is not installed" \
	    "(contrib/install-deps.sh installs it)"
	exit 1
fi
ED="$STAGE/tests/integration/edges_editor.mjs"
HA="$STAGE/tests/data/acp/hostile_agent.py"
H=$(mkwork)
mkdir -p "$H/proj" "$H/outside" "$H/ctl"
cp "$HA" "$H/proj/hostile_agent.py"
HA="$H/proj/hostile_agent.py"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H"
MARKS="float-write float-term exp-term big-write dup-method dup-id valid-write"

# Control: the SDK editor and the agent, no relay between them.
as_user timeout 90 node "$ED" "$SDK" "$H/ctl" -- python3 "$HA" "$H/ctl" \
    >"$H/ctl.out" 2>&1
n=0
for m in $MARKS; do [ -e "$H/ctl/$m" ] && n=$((n + 1)); done
check "control: without a relay the SDK editor acts on all 7 lines ($n)" \
    [ "$n" -eq 7 ]
check "control: ... terminal/create ran on the host for a float id" \
    grep -q "^terminal /bin/sh -c touch $H/ctl/float-term" "$H/ctl.out"

# Through airlock acp, pass-through off: nothing reaches the editor.
(cd "$H/proj" && as_user env HOME="$H" timeout 120 node "$ED" "$SDK" \
    "$H/proj" -- "$AIRLOCK" acp -- python3 "$HA" "$H/outside") \
    >"$H/relay.out" 2>"$H/relay.err"
check "airlock acp: the session still ran to end_turn" \
    grep -q "^prompt end_turn" "$H/relay.out"
for m in $MARKS; do
	check "airlock acp: $m never reached the editor (no $m on the host)" \
	    [ ! -e "$H/outside/$m" ]
done
check "airlock acp: the editor served no write and opened no terminal" \
    fails grep -q "^wrote \|^terminal " "$H/relay.out"
check "stderr names the float id it dropped" \
    grep -q "dropped a line from the agent.*its id 101.5 is not a string, an integer or null" \
    "$H/relay.err"
check "stderr names the duplicate key" \
    grep -q "dropped a line from the agent.*duplicate key" "$H/relay.err"
check "stderr names each of the 7 lines dropped" \
    [ "$(grep -c "dropped a line from the agent" "$H/relay.err")" -eq 7 ]
check "... an fs/ notification too (no marker: it is not a request)" \
    eval 'grep -q "a notification of fs/write_text_file" "$H/relay.err" &&
    [ ! -e "$H/outside/notify-write" ]'
check "the editor was told: _airlock/dropped notifications" \
    grep -q "^notify _airlock/dropped" "$H/relay.out"

# Around the relay: the agent opens its parent's stdout through /proc.
(cd "$H/proj" && as_user env HOME="$H" timeout 120 node "$ED" "$SDK" \
    "$H/proj" -- "$AIRLOCK" acp -- python3 "$HA" "$H/outside" procfd) \
    >"$H/proc.out" 2>"$H/proc.err"
check "/proc/PID/fd/N: the session ran to end_turn" \
    grep -q "^prompt end_turn" "$H/proc.out"
check "/proc/PID/fd/N: the agent tried, and wrote nowhere" \
    eval 'grep -q "^procfd: " "$H/proc.err" &&
    ! grep -q "^procfd: .*: written" "$H/proc.err"'
check "/proc/PID/fd/N: no write reached the editor" \
    [ ! -e "$H/outside/proc-write" ]
# The relay is not the only check: with none at all (the test build's
# --test-no-relay puts the agent's stdout straight to airlock acp's own
# side, as a subverted relay would), the host side still drops them.
rm -f "$H/outside"/*
(cd "$H/proj" && as_user env HOME="$H" timeout 120 node "$ED" "$SDK" \
    "$H/proj" -- "$B/test/airlock" acp --test-no-relay -- python3 "$HA" \
    "$H/outside") >"$H/raw.out" 2>"$H/raw.err"
n=0
for m in $MARKS; do [ -e "$H/outside/$m" ] && n=$((n + 1)); done
check "no relay: the session ran, and none of the 7 reached the editor ($n)" \
    eval 'grep -q "^prompt end_turn" "$H/raw.out" && [ "$n" -eq 0 ]'
nd=$(grep -c "the sandbox's output held a line" "$H/raw.err")
check "no relay: airlock acp's side named each of the 8 lines it dropped" \
    [ "$nd" -eq 8 ]
check_sh "--test-no-relay is in no shipped binary (the test build has it)" \
    '! grep -qaF test-no-relay "$B"/airlock* &&
    grep -qaF test-no-relay "$B/test/airlock"'
[ "$_fails" -eq 0 ] || { sed 's/^/# /' "$H/relay.err" | tail -20
	sed 's/^/# out: /' "$H/relay.out"; }

# ---- proxyd: a fair share for each session ----
# One airlockd (so one proxyd) with a small fd limit, as many sessions
# on a busy machine would leave it.  Session A holds as many idle
# connections to its proxy as it can (tests/helpers/conn_hog.py); B and
# then a new session C must still get through to a loopback server, and
# nothing may die.
W=$(mkwork)
cp "$STAGE/tests/helpers/conn_hog.py" "$W/"
PORT=$(http_counter_start "$W/hits" "$W/srv.pid")
spawn_user prlimit --nofile=256:256 "$AIRLOCKD" --socket "$W/d.sock" \
    2>"$W/d.log"
DPID=$!
trap 'http_counter_stop "$W/srv.pid"; kill "$DPID" 2>/dev/null' EXIT
i=0
while [ ! -S "$W/d.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
arun() {	# arun EVENTS [OPTIONS] -- CMD: a session of the shared airlockd
	_ev=$1
	shift
	as_user timeout 120 "$AIRLOCK" run --socket "${ASOCK:-$W/d.sock}" \
	    --workspace \
	    "$W" --events "$_ev" "$@"
}
hog_wait() {	# hog_wait OUT: up to 60 s for the hog's count
	i=0
	while ! grep -q "^open" "$1" 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
# Two hogs: each process has the same fd limit as proxyd.
arun "$W/eA" -- sh -c "python3 conn_hog.py 127.0.0.1 3128 200 25 hog1.out &
    python3 conn_hog.py 127.0.0.1 3128 200 25 hog2.out; wait" \
    >"$W/a.out" 2>&1 &
APID=$!
hog_wait "$W/hog1.out"
hog_wait "$W/hog2.out"
open=$(($(sed -n 's/^open \([0-9]*\) of.*/\1/p' "$W/hog1.out") + \
    $(sed -n 's/^open \([0-9]*\) of.*/\1/p' "$W/hog2.out")))
diag "the hog holds ${open:-none} connections"
arun "$W/eB" --allow-domain "localhost:$PORT" -- \
    curl -sf -m 10 "http://localhost:$PORT/" >"$W/b.out" 2>&1
check "B gets through its proxy while A holds its connections" \
    [ "$(hits "$W/hits")" -eq 1 ]
arun "$W/eC" --allow-domain "localhost:$PORT" -- \
    curl -sf -m 10 "http://localhost:$PORT/" >"$W/c.out" 2>&1
check "a new session C starts and gets through too" \
    [ "$(hits "$W/hits")" -eq 2 ]
check_sh "A was held to its share: ${open:-?} of the 400 it opened" \
    '[ "${open:-400}" -gt 0 ] && [ "${open:-400}" -lt 120 ]'
wait "$APID"
rc=$?
check "A itself lived on to its end (exit $rc)" \
    eval '[ $rc -eq 0 ] && grep -q "^held" "$W/hog1.out" &&
    grep -q "^held" "$W/hog2.out"'
check "no session was killed: no proxy-died" \
    fails grep -q "proxy-died" "$W/eA" "$W/eB" "$W/eC"
check "proxyd never died: started once" \
    fails grep -q "proxyd.*failing its sessions closed" "$W/d.log"

# The cap a setting gives: 20 connections, the rest refused at once,
# said once as a violation of the session.
printf '{"sandbox":{"network":{"maxConnections":20}}}\n' >"$W/cap.json"
chown "$TUSER" "$W/cap.json" 2>/dev/null
arun "$W/eD" --settings "$W/cap.json" -- python3 conn_hog.py 127.0.0.1 3128 \
    60 1 hogD.out >"$W/d.out" 2>&1
check "sandbox.network.maxConnections 20: the session holds 20 of 60" \
    grep -q "^open 20 of 60" "$W/hogD.out"
check "... and the refusal is a network-connections violation" \
    grep -q '"action":"network-connections".*maxConnections' "$W/eD"
printf '{"sandbox":{"network":{"maxConnections":0}}}\n' >"$W/bad.json"
chown "$TUSER" "$W/bad.json" 2>/dev/null
arun "$W/eX" --settings "$W/bad.json" -- true >"$W/x.out" 2>&1
check "maxConnections 0 is refused, the key named" \
    grep -q "sandbox.network.maxConnections: expected an integer, 1 to 65536" \
    "$W/x.out"

# Listeners that arrive truncated (proxyd out of descriptors, here by
# its limit lowered to what it holds): that session fails alone.
PX=$(pgrep -u "$TUSER" -P "$DPID" -f airlock-proxyd | head -1)
arun "$W/eE" --allow-domain "localhost:$PORT" -- sh -c \
    "sleep 10; curl -sf -m 5 http://localhost:$PORT/ && echo E-ok" \
    >"$W/e.out" 2>&1 &
EPID=$!
sleep 2
# Its lowest free fd as the limit: no slot below it is free.
nfd=0
while [ -e "/proc/$PX/fd/$nfd" ]; do nfd=$((nfd + 1)); done
as_user prlimit --pid "$PX" --nofile="$nfd:256"
# A command that outlives proxyd's answer (under load, a bare `true` could
# end before the refusal reached airlockd).
arun "$W/eF" -- sleep 5 >"$W/f.out" 2>&1
rc=$?
as_user prlimit --pid "$PX" --nofile=256:256
check "truncated listeners: that session fails (exit $rc), proxy-refused" \
    eval '[ $rc -ne 0 ] && grep -q "proxy-refused" "$W/eF"'
wait "$EPID"
check "... the session before it goes on through the same proxyd" \
    grep -q E-ok "$W/e.out"
check "... proxyd is still the same process" \
    [ "$(pgrep -u "$TUSER" -P "$DPID" -f airlock-proxyd | head -1)" = "$PX" ]
check "... and airlockd said which session and why" \
    grep -q "proxyd could not take it: its listeners arrived truncated" \
    "$W/d.log"
# The control: the same two hogs against the test build's proxyd with
# no reserve and no fair share (AIRLOCK_TEST_NO_FAIR_SHARE, in no shipped
# binary): B does not get through, so the checks above cannot pass on a
# load too small to starve anyone.
spawn_user env AIRLOCK_TEST_NO_FAIR_SHARE=1 prlimit --nofile=256:256 \
    "$B/test/airlockd" --socket "$W/n.sock" 2>"$W/n.log"
NPID=$!
trap 'http_counter_stop "$W/srv.pid"; kill "$DPID" "$NPID" 2>/dev/null' EXIT
i=0
while [ ! -S "$W/n.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
rm -f "$W/hog1.out" "$W/hog2.out"
ASOCK="$W/n.sock" arun "$W/nA" -- sh -c "python3 conn_hog.py 127.0.0.1 3128 \
    200 25 hog1.out & python3 conn_hog.py 127.0.0.1 3128 200 25 hog2.out;
    wait" >"$W/na.out" 2>&1 &
NAPID=$!
hog_wait "$W/hog1.out"
hog_wait "$W/hog2.out"
h0=$(hits "$W/hits")
ASOCK="$W/n.sock" arun "$W/nB" --allow-domain "localhost:$PORT" -- \
    curl -sf -m 10 "http://localhost:$PORT/" >"$W/nb.out" 2>&1
o1=$(sed -n 's/^open \([0-9]*\) of.*/\1/p' "$W/hog1.out")
o2=$(sed -n 's/^open \([0-9]*\) of.*/\1/p' "$W/hog2.out")
nopen=$((${o1:-0} + ${o2:-0}))
diag "without the share the hog holds ${nopen:-none} connections"
check_sh "control: with no reserve and no fair share, A takes more (${nopen:-?}) and B does not get through" \
    '[ "$(hits "$W/hits")" -eq "$h0" ] && [ "${nopen:-0}" -ge 120 ]'
kill "$NPID" 2>/dev/null
wait "$NAPID"
check_sh "AIRLOCK_TEST_NO_FAIR_SHARE is in no shipped binary" \
    '! grep -qaF AIRLOCK_TEST_NO_FAIR_SHARE "$B"/airlock* &&
    grep -qaF AIRLOCK_TEST_NO_FAIR_SHARE "$B/test/airlock-proxyd"'
[ "$_fails" -eq 0 ] || { tail -20 "$W/d.log" | sed 's/^/# d: /'
	tail -20 "$W/n.log" | sed 's/^/# n: /'
	cat "$W/eA" "$W/a.out" "$W/b.out" | sed 's/^/# /' | tail -20; }
finish
