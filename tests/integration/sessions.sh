#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Sessions for the desktop app (issue 15), over airlockd's real socket as
# the unprivileged user: suspend and resume, list and status, sessions
# that outlive their connection.
. "$(dirname "$0")/lib.sh"
plan 36

W=$(mkwork)
SD=$(mkwork)
RPC="$STAGE/tests/integration/sessions_rpc.py"
# A home of its own: the shared test user's settings and state are not
# this test's (other scripts write them).
H="$SD/home"
mkdir -p "$H" && chown "$TUSER" "$H" 2>/dev/null
AUDIT="$H/.local/state/airlock/audit.jsonl"
# fd 7: a descriptor airlockd inherits, which no host command may get.
spawn_user env HOME="$H" "$AIRLOCKD" --socket "$SD/d.sock" 2>"$SD/d.err" \
    7<"$SD/d.err"
dpid=$!

scen() {	# scen NAME: run one scenario of sessions_rpc.py as the user
	as_user timeout 120 python3 "$RPC" "$SD/d.sock" "$W" "$@" \
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
check "execId in the reply and every output and exit event; concurrent execs stay apart" \
    scen exec_ids
check "a command line is judged first: sudo id refused with its rule, never run; git push asks, no approver: deny" \
    scen command_policy
check "pty: a terminal of the size asked, sandbox.input feeds it, sandbox.resize resizes it" \
    scen pty_input_resize
check "stdin: sandbox.input feeds a pipe, eof closes it" scen stdin_eof
check "sandbox.signal KILL sends SIGKILL" scen signal_kill
check "an exec's timeoutSec kills it alone; the session stays warm" \
    scen exec_timeout
check "dangerouslyDisableSandbox refused when allowUnsandboxedCommands is false" \
    scen override_refused
check "a malformed claudeLogin or maskPassed is refused, naming the field" \
    scen spec_fields_refused
check "dangerouslyDisableSandbox: no approver denies; approved (sandboxOverride) it runs on the host, its exit event says so" \
    scen override_approved
check "each decision is in the audit log with its rule" \
    grep -q '"action":"command","target":"sudo id; touch [^"]*","verdict":"deny","rule":"hard-deny:privilege-escalation"' "$AUDIT"
check "a command that asks goes to the approver: allowed runs, session scope asks once, a requester gone mid-approval cancels it" \
    scen command_ask
check "an unsandboxed command gets none of airlockd's descriptors" \
    scen override_fds
check "a session-scope allow does not widen: a host command only as itself, a line's other kinds of ask asked" \
    scen scope_narrow
check "airlock approve on a terminal: a request per line, y allows, n denies" \
    scen approve_cli "$AIRLOCK"
as_user env HOME="$H" "$AIRLOCK" audit >"$SD/audit.all"
as_user env HOME="$H" "$AIRLOCK" audit --session cli >"$SD/audit.cli"
check "airlock audit prints the log; --session keeps one session's lines" \
    sh -c "[ \$(wc -l <'$SD/audit.all') -gt \$(wc -l <'$SD/audit.cli') ] &&
    [ \$(wc -l <'$SD/audit.cli') -ge 2 ] && ! grep -qv '\"sessionId\":\"cli\"' '$SD/audit.cli'"
as_user env HOME="$H" "$AIRLOCK" audit --since 2999-01-01T00:00:00+02:00 >"$SD/audit.none"
check "airlock audit --since: nothing after a future time" [ ! -s "$SD/audit.none" ]
check "lazy: concurrent first commands wait on one build; a failed build reports its reason and clears itself" \
    scen lazy_build
check "the file tools follow attach: an attached connection uses fs.*, the one it was taken from and an unattached one cannot" \
    scen fs_attached
check "lazy: fs.* joins the one build with the first commands; a failed build reports its reason to each" \
    scen fs_lazy
# The launcher's exit is waited for on its pidfd: airlockd sleeps in no
# polling loop (strace, root only, sees every sleep it makes).
if [ "$(id -u)" -eq 0 ] && [ "$TUSER" != root ]; then
	strace -q -p "$dpid" -e trace=nanosleep,clock_nanosleep,pidfd_open \
	    -o "$SD/strace.out" 2>/dev/null &
	spid=$!
	sleep 1
fi
check "sandbox.destroy answers promptly, once no process of the sandbox is left" \
    scen destroy_prompt
if [ "$(id -u)" -eq 0 ] && [ "$TUSER" != root ]; then
	kill -INT "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	check "airlockd waits for the launchers on their pidfds, in no sleeping loop" \
	    sh -c "! grep -q nanosleep '$SD/strace.out' &&
	    [ \$(grep -c '^pidfd_open' '$SD/strace.out') -ge 5 ]"
else
	ok "airlockd waits for the launchers on their pidfds, in no sleeping loop # SKIP needs root"
fi
check "a launcher that does not end holds sandbox.destroy 5 s, then is killed and reported" \
    scen destroy_stuck
check "request ids of every JSON type come back as sent (1e999999 too)" \
    scen ids_echoed
check "1,100 idle connections, 10,000 requests to closed sockets, a client that never reads: others served, memory bounded" \
    scen flood "$dpid"
check "the idle connections closed are logged" \
    grep -q 'the idle connection that did least' "$SD/d.err"
if [ "$(id -u)" -eq 0 ] && [ "$TUSER" != root ]; then
	check "a connection of another uid is refused, fs.* and attach too" \
	    python3 "$RPC" "$SD/d.sock" "$W" other_uid_refused
else
	ok "a connection of another uid is refused, fs.* and attach too # SKIP needs root"
fi
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null

# The audit log planted before airlockd makes it: its directory a
# symlink to a place of the planter's choice, the file a FIFO.
H2="$SD/home2" H3="$SD/home3"
mkdir -p "$H2/.local/state" "$H3/.local/state/airlock" "$SD/elsewhere"
ln -s "$SD/elsewhere" "$H2/.local/state/airlock"
mkfifo "$H3/.local/state/airlock/audit.jsonl"
chmod 0700 "$H3/.local/state/airlock"
chown -R "$TUSER" "$H2" "$H3" "$SD/elsewhere" 2>/dev/null
spawn_user env HOME="$H2" "$AIRLOCKD" --socket "$SD/d2.sock" 2>"$SD/d2.err"
d2=$!
as_user timeout 60 python3 "$RPC" "$SD/d2.sock" "$W" command_policy \
    >>"$SD/scen.out" 2>&1
check "the audit log is not written through a symlinked state directory" \
    sh -c "[ ! -e '$SD/elsewhere/audit.jsonl' ] && grep -q 'audit log' '$SD/d2.err'"
kill "$d2" 2>/dev/null
wait "$d2" 2>/dev/null
spawn_user env HOME="$H3" "$AIRLOCKD" --socket "$SD/d3.sock" 2>"$SD/d3.err"
d3=$!
check "a FIFO planted as the audit log does not hang airlockd" \
    as_user timeout 30 python3 "$RPC" "$SD/d3.sock" "$W" command_policy
kill -9 "$d3" 2>/dev/null	# a regression hangs it past SIGTERM
wait "$d3" 2>/dev/null

# The spare launcher (issue 15) killed from outside before a run: the run
# starts a launcher of its own and works; none is left after airlockd.
spawn_user env HOME="$H" "$AIRLOCKD" --socket "$SD/d4.sock" 2>"$SD/d4.err"
d4=$!
sp="" i=0
while [ -z "$sp" ] && [ $i -lt 100 ]; do
	sleep 0.05
	sp=$(pgrep -P "$d4" -x airlock-launche)
	i=$((i + 1))
done
[ -n "$sp" ] && kill -9 $sp
sleep 0.2
out=$(as_user env HOME="$H" "$AIRLOCK" run --no-policy-check \
    --socket "$SD/d4.sock" --workspace "$W" -- echo fresh-run 2>&1)
check "a spare launcher killed before a run: the run starts its own (${sp:-none})" \
    sh -c "[ -n '$sp' ] && echo '$out' | grep -qx fresh-run"
# The spare started again when that run ended, and its init: both must
# die with airlockd.
left="" i=0
while [ -z "$left" ] && [ $i -lt 100 ]; do
	sleep 0.05
	left=$(pgrep -P "$d4" -x airlock-launche)
	i=$((i + 1))
done
for p in $left; do left="$left $(pgrep -P "$p")"; done
# A filesystem the host mounts after the spare started is in the sandbox
# built from it: the spare's mount table is not a snapshot of its start.
if [ "$(id -u)" -eq 0 ] && mkdir -p "$W/late" &&
    mount -t tmpfs -o mode=0755,size=64k airlock-test-late "$W/late"; then
	echo late-mount >"$W/late/f" && chmod 644 "$W/late/f"
	out=$(as_user env HOME="$H" "$AIRLOCK" run --no-policy-check \
	    --socket "$SD/d4.sock" --workspace "$W" -- cat "$W/late/f" 2>"$SD/late.err")
	umount "$W/late"
	check "a mount made after the spare started is seen (${left:-none}: $out)" \
	    sh -c "[ -n '$left' ] && [ '$out' = late-mount ]"
else
	ok "a mount made after the spare started is seen # SKIP needs root"
fi
kill "$d4" 2>/dev/null
wait "$d4" 2>/dev/null
alive="" i=0
while [ $i -lt 50 ]; do
	alive=""
	for p in $left; do
		[ -e "/proc/$p" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$p/stat" &&
		    alive="$alive $p"
	done
	[ -z "$alive" ] && break
	sleep 0.1
	i=$((i + 1))
done
check "no launcher outlives its airlockd, the new spare neither (${left:-none}; alive:${alive:-none})" \
    sh -c "[ -n '$left' ] && [ -z '$alive' ]"
finish
