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
plan 17

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
MARKS="float-write float-term exp-term big-write dup-method dup-id"

# Control: the SDK editor and the agent, no relay between them.
as_user timeout 90 node "$ED" "$SDK" "$H/ctl" -- python3 "$HA" "$H/ctl" \
    >"$H/ctl.out" 2>&1
n=0
for m in $MARKS; do [ -e "$H/ctl/$m" ] && n=$((n + 1)); done
check "control: without a relay the SDK editor acts on all 6 lines ($n)" \
    [ "$n" -eq 6 ]
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
check "stderr names each of the 6 lines dropped" \
    [ "$(grep -c "dropped a line from the agent" "$H/relay.err")" -eq 6 ]
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
[ "$_fails" -eq 0 ] || { sed 's/^/# /' "$H/relay.err" | tail -20; sed 's/^/# out: /' "$H/relay.out"; }
finish
