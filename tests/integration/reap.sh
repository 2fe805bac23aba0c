#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Ends of sandboxes do not block airlockd (issue 29): 20 sandboxes of one
# connection end together while another session's output streams, and no
# line waits more than 100 ms in airlockd (reap_rpc.py, with a control
# that sees airlockd stopped for 300 ms).  Afterwards no process of the 20
# is left, and airlockd has no zombie child.
. "$(dirname "$0")/lib.sh"
plan 4

W=$(mkwork)
SD=$(mkwork)
H="$SD/home"
mkdir -p "$H" && chown "$TUSER" "$H" 2>/dev/null
spawn_user env HOME="$H" "$AIRLOCKD" --socket "$SD/d.sock" 2>"$SD/d.err"
dpid=$!

as_user timeout 180 python3 "$STAGE/tests/integration/reap_rpc.py" \
    "$SD/d.sock" "$W" "$dpid" >"$SD/reap.out" 2>&1
rc=$?
sed 's/^/# /' "$SD/reap.out"
check "20 sandboxes end while a stream runs: no line held over 100 ms" \
    [ "$rc" -eq 0 ]
# The stream's session was destroyed last: nothing of any sandbox runs.
sleep 0.5
check "  no process of the ended sandboxes is left" \
    fails pgrep -u "$TUSER" -f '^sleep 1000$'
check "  airlockd has no zombie child" \
    sh -c "! ps -o stat= --ppid $dpid | grep -q Z"
check "  and no launcher is left" \
    sh -c "! ps -o comm= --ppid $dpid | grep -q launcher"
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null
[ "$_fails" -eq 0 ] || sed 's/^/# /' "$SD/d.err" | tail -20
finish
