#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Ends of sandboxes do not block airlockd (issue 29): 20 sandboxes of one
# connection end together (the connection closes, or 20 sandbox.destroy
# come in one write) while another session's output streams, and no
# line waits more than 100 ms in airlockd beyond what a line waited
# before the ends began (reap_rpc.py's baseline: the machine's own load;
# a control sees airlockd stopped for 300 ms).  Afterwards no process of the 20
# is left, and airlockd has no zombie child.
. "$(dirname "$0")/lib.sh"
plan 5

W=$(mkwork)
SD=$(mkwork)
H="$SD/home"
mkdir -p "$H" && chown "$TUSER" "$H" 2>/dev/null
spawn_user env HOME="$H" "$AIRLOCKD" --socket "$SD/d.sock" 2>"$SD/d.err"
dpid=$!

for how in close destroy; do
	as_user timeout 180 python3 "$STAGE/tests/integration/reap_rpc.py" \
	    "$SD/d.sock" "$W" "$dpid" $how >"$SD/reap.$how" 2>&1
	rc=$?
	sed 's/^/# /' "$SD/reap.$how"
	case $how in
	close) d="20 sandboxes end with their connection while a stream runs: no line held 100 ms over the baseline" ;;
	*) d="20 sandbox.destroy in one write, each answered: no line held 100 ms over the baseline" ;;
	esac
	check "$d" [ "$rc" -eq 0 ]
done
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
