#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Sessions for the desktop app (issue 15), over airlockd's real socket as
# the unprivileged user: suspend and resume, list and status, sessions
# that outlive their connection.
. "$(dirname "$0")/lib.sh"
plan 6

W=$(mkwork)
SD=$(mkwork)
RPC="$STAGE/tests/integration/sessions_rpc.py"
spawn_user "$AIRLOCKD" --socket "$SD/d.sock" 2>"$SD/d.err"
dpid=$!

scen() {	# scen NAME: run one scenario of sessions_rpc.py as the user
	as_user timeout 60 python3 "$RPC" "$SD/d.sock" "$W" "$1" \
	    >>"$SD/scen.out" 2>&1 || { sed 's/^/# /' "$SD/scen.out" | tail -15; false; }
}

check "suspend stops a counting loop, resume continues it; exec into a suspended session errors" \
    scen suspend_freezes
check "an exec's timeout does not run while its session is suspended" \
    scen suspend_pauses_timeout
check "sandbox.list and sandbox.status give the HANDLE" scen list_status
check "a detached session survives its connection, is attached from another" \
    scen detached
check "an attached connection receives the session's events" \
    scen detached_events
if [ "$(id -u)" -eq 0 ] && [ "$TUSER" != root ]; then
	check "a connection of another uid is refused" \
	    python3 "$RPC" "$SD/d.sock" "$W" other_uid_refused
else
	ok "a connection of another uid is refused # SKIP needs root"
fi
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null
finish
