#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Faults (issue 29): proxyd, gatewayd, a launcher and airlockd itself are
# each killed with SIGKILL in the middle of real work -- a transfer
# through the proxy (a 1 GiB body from a loopback server, at 6 MB/s), a
# `git push` held in gatewayd (an ask rule, the approver not answering;
# a real smart-HTTP upstream, lib/upstream.sh), a running command of a
# warm session, and all of those at once.  Each time: the affected
# sessions end closed (their processes gone, the upstream connection
# closed, nothing pushed), airlockd restarts the daemon it owns (or, for
# airlockd, a new one starts as a service manager would start it), new
# sessions work, and nothing is left behind: the test user's processes
# of this test (by their binary under the stage or their working
# directory in it), the mount namespaces they are in and their mount
# tables, the files under airlockd's runtime, state and temporary dirs
# and home, and airlockd's temporary files in /tmp are listed before and
# after and must be the same.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib/upstream.sh"
plan 40

SD=$(mkwork)
W=$(mkwork)
RT="$SD/rt"
ST="$SD/state"
H="$SD/home"
TD="$SD/tmp"
MK="$SD/mark"
CFG="$SD/cfg"
SRV="$SD/srv"
S="$SD/d.sock"
TAG="faults-$$"
mkdir -p "$RT" "$ST" "$H" "$TD" "$MK" "$CFG" "$SRV"
chmod 0700 "$RT"
chown "$TUSER" "$RT" "$ST" "$H" "$TD" "$MK" "$CFG" 2>/dev/null
UPD=
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	[ -n "$UPD" ] && { upstream_stop; rm -rf "$UPD"; }
}
trap cleanup EXIT
upstream_up

# ---- the upstreams: a slow HTTP body, a smart-HTTP code host ----
python3 "$STAGE/tests/integration/faults_srv.py" "$SRV" >/dev/null 2>&1 &
pids="$pids $!"
i=0
while [ ! -s "$SRV/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
BP=$(cat "$SRV/port")
cat >"$CFG/settings.json" <<JSON
{ "git": {
    "codeHosts": [ { "name": "github",
      "pushUrlPrefixes": ["https://github.com/"],
      "upstream": "$UP_HTTPS_URL", "caBundle": "$UP_CA" } ],
    "linkedRepos": [],
    "pushRules": [ { "ref": "refs/heads/held/*", "action": "ask" },
                   { "ref": "refs/heads/*", "action": "allow" } ] },
  "approvals": { "timeoutSeconds": 300 },
  "credentials": { "file": "$CFG/credentials.json" } }
JSON
printf '{ "github": { "writeToken": "%s" } }\n' "$TOKEN" \
    >"$CFG/credentials.json"
git clone -q "$UPD/repos/acme/app.git" "$W/app"
git -C "$W/app" remote set-url origin https://github.com/acme/app.git
git -C "$W/app" -c user.name=a -c user.email=a@example.invalid \
    commit -q --allow-empty -m work
chown -R "$TUSER" "$W" "$CFG"
chmod 0600 "$CFG/credentials.json"
HEAD=$(git -c safe.directory='*' -C "$W/app" rev-parse HEAD)

# ---- airlockd, its approver, and what runs through them ----
start_d() {
	spawn_user env HOME="$H" XDG_RUNTIME_DIR="$RT" XDG_STATE_HOME="$ST" \
	    TMPDIR="$TD" "$AIRLOCKD" --settings "$CFG/settings.json" \
	    --socket "$S" 2>>"$SD/d.err"
	DPID=$!
	i=0
	while ! as_user "$AIRLOCK" status --socket "$S" >/dev/null 2>&1 &&
	    [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	[ -p "$SD/answers" ] || { mkfifo "$SD/answers";
	    chmod 0666 "$SD/answers"; }
	: >"$SD/appr.out"
	chown "$TUSER" "$SD/appr.out"
	spawn_user sh -c 'exec "$1" approve --socket "$2" <"$3" >"$4" 2>&1' \
	    sh "$AIRLOCK" "$S" "$SD/answers" "$SD/appr.out"
	APID=$!
	exec 7>"$SD/answers"
	i=0
	while ! grep -q '^approving for airlockd' "$SD/appr.out" &&
	    [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
}
run() {	# run [airlock run options] -- CMD...: in the workspace clone
	as_user env HOME="$H" XDG_RUNTIME_DIR="$RT" TMPDIR="$TD" \
	    "$AIRLOCK" run --no-policy-check --socket "$S" \
	    --workspace "$W/app" "$@"
}
brun() {	# brun OUT [airlock run options] -- CMD...: run, in the background
	_o=$1
	shift
	( run "$@" >"$_o" 2>&1 ) &
	RUNPID=$!
}
starts() {	# "PROXYD GATEWAYD": the daemons' start counts
	as_user "$AIRLOCK" status --socket "$S" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["daemons"]
print(d["proxyd"]["starts"], d["gatewayd"]["starts"])'
}
child() {	# child NAME: airlockd's child process running NAME
	pgrep -u "$TUSER" -P "$DPID" -f "$1" | head -1
}
sent_over() { [ "$(cat "$SRV/sent" 2>/dev/null)" -gt "$1" ] 2>/dev/null; }
fetch_small() {	# a new session reaches the server through the proxy
	run --allow-domain "127.0.0.1:$BP" -- \
	    curl -sf -m 10 "http://127.0.0.1:$BP/small" >"$SD/small.out" \
	    2>&1 && grep -qx ok "$SD/small.out"
}
push_ok() {	# push_ok BRANCH: a new session pushes BRANCH (allowed)
	run -- git push -q origin "HEAD:refs/heads/$1" >"$SD/push.out" 2>&1 &&
	    [ "$(upstream_ref acme/app.git "refs/heads/$1")" = "$HEAD" ]
}
# The slow transfer, as a session's command; "after" is printed only if
# the sandbox lives on after curl ends (curl sees the proxy's connection
# reset as airlockd sees proxyd's link close: what comes right after
# curl may run, what comes 20 s later must not).
big_transfer() {	# big_transfer OUT
	: >"$SRV/sent"
	rm -f "$SRV/big.end"
	brun "$1" --allow-domain "127.0.0.1:$BP" -- sh -c \
	    "curl -s -o /dev/null http://127.0.0.1:$BP/big?$TAG;
	    sleep 20; echo after" "$TAG"
}

# ---- what is left: listed before and after each fault ----
ours() {	# pids of this test's processes of the test user
	for p in $(pgrep -u "$TUSER"); do
		c=$( (tr '\0' ' ' <"/proc/$p/cmdline") 2>/dev/null) ||
		    continue
		d=$(readlink "/proc/$p/cwd" "/proc/$p/exe" 2>/dev/null)
		case "$c $d" in
		*"$STAGE"*|*"$TAG"*) echo "$p" ;;
		esac
	done
}
# The host-header endpoints of the test user's sessions in /tmp whose
# socket nobody listens on (or none): those of other tests' live
# sessions answer, and are no one's leftovers.
dead_endpoints() {
	python3 - "$TUSER" <<'PY'
import glob, os, pwd, socket, sys
uid = pwd.getpwnam(sys.argv[1]).pw_uid
for d in sorted(glob.glob("/tmp/airlock-http.*")):
    try:
        if os.lstat(d).st_uid != uid:
            continue
    except OSError:
        continue
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(d + "/http.sock")
    except (FileNotFoundError, ConnectionRefusedError):
        print(d)
    except OSError:
        pass
    s.close()
PY
}
snap() {	# snap NAME: the listing, in $SD/snap.NAME
	{
		echo "== processes (command names)"
		for p in $(ours); do
			cat "/proc/$p/comm" 2>/dev/null
		done | sort
		echo "== mount namespaces of them: mount count of each"
		for p in $(ours); do
			n=$(readlink "/proc/$p/ns/mnt" 2>/dev/null) || continue
			echo "$n $(wc -l <"/proc/$p/mountinfo" 2>/dev/null)"
		done | sort -u | awk '{ print $2 }' | sort -n
		echo "== host mounts under the stage"
		grep -c "$STAGE" /proc/self/mountinfo
		echo "== files in airlockd's runtime, state, tmp dirs and home"
		find "$RT" "$ST" "$TD" "$H" -mindepth 1 \
		    -printf '%y %P\n' 2>/dev/null | sort
		echo "== socket files beside airlockd's"
		find "$SD" -maxdepth 1 -type s -printf '%P\n' | sort
		echo "== airlockd's files in /tmp"
		find /tmp -maxdepth 1 -user "$TUSER" -name 'airlock-index.*' \
		    2>/dev/null | sort
		echo "== endpoints in /tmp nobody listens on"
		dead_endpoints
	} >"$SD/snap.$1"
}
same_as_before() {	# same_as_before NAME: snap NAME equals the baseline
	# within 30 s: the spare launcher refilled, the judges ended, the
	# ended sessions freed (their endpoints in /tmp removed)
	_i=0
	while sleep 1; do
		snap "$1"
		cmp -s "$SD/snap.base" "$SD/snap.$1" && return 0
		_i=$((_i + 1))
		[ $_i -lt 30 ] || break
	done
	diff "$SD/snap.base" "$SD/snap.$1" | sed 's/^/# /'
	return 1
}

restart_approver() {
	kill "$APID" 2>/dev/null
	exec 7>&-
	wait "$APID" 2>/dev/null
	: >"$SD/appr.out"
	spawn_user sh -c 'exec "$1" approve --socket "$2" <"$3" >"$4" 2>&1' \
	    sh "$AIRLOCK" "$S" "$SD/answers" "$SD/appr.out"
	APID=$!
	exec 7>"$SD/answers"
	waitfor 60 grep -q '^approving for airlockd' "$SD/appr.out"
}

start_d
# Warm up: both daemons started, a spare launcher waiting.
check "a session fetches through the proxy" fetch_small
check "a session pushes through the gateway" push_ok warm
check "both daemons started once ($(starts))" [ "$(starts)" = "1 1" ]
sleep 1
snap base
sed 's/^/# base: /' "$SD/snap.base"

# ---- 1. proxyd, during a transfer ----
big_transfer "$SD/o1"
waitfor 90 sent_over 1000000
check "the transfer through the proxy is under way" sent_over 1000000
PX=$(child airlock-proxyd)
kill -KILL "$PX"
wait "$RUNPID"
rc=$?
check "proxyd killed: the session ends (exit $rc)" [ "$rc" -ne 0 ]
check "  its sandbox ended with curl, nothing ran after it" \
    fails grep -q after "$SD/o1"
check "  the upstream connection is closed" \
    waitfor 10 grep -q closed "$SRV/big.end"
check "  no process of the session is left" \
    fails pgrep -u "$TUSER" -f "big?$TAG"
check "  a new session fetches through the proxy" fetch_small
check "  proxyd was started again ($(starts))" [ "$(starts)" = "2 1" ]
check "  nothing left behind" same_as_before proxyd

# ---- 2. gatewayd, during a push ----
n0=$(grep -c 'allow? \[y/n/a\]' "$SD/appr.out")
brun "$SD/o2" -- sh -c \
    "git push origin HEAD:refs/heads/held/x; sleep 20; echo after" \
    "$TAG"
asked() { [ "$(grep -c 'allow? \[y/n/a\]' "$SD/appr.out")" -gt "$n0" ]; }
check "the push is in gatewayd, held for the approver" waitfor 90 asked
GW=$(child airlock-gatewayd)
kill -KILL "$GW"
wait "$RUNPID"
rc=$?
check "gatewayd killed: the session ends (exit $rc)" [ "$rc" -ne 0 ]
check "  its sandbox ended with the push, nothing ran after it" \
    fails grep -q after "$SD/o2"
check "  nothing was pushed" [ -z "$(upstream_ref acme/app.git \
    refs/heads/held/x)" ]
check "  no process of the session is left" \
    fails pgrep -u "$TUSER" -f "$TAG"
check "  a new session pushes through the gateway" push_ok after-gw
check "  gatewayd was started again ($(starts))" [ "$(starts)" = "2 2" ]
late_yes() {
	echo y >&7
	sleep 1
	[ -z "$(upstream_ref acme/app.git refs/heads/held/x)" ]
}
check "  the answer now comes too late to push anything" late_yes
# The approver is started afresh, with nothing on its screen.
restart_approver
check "  nothing left behind" same_as_before gatewayd

# ---- 3. a launcher, during a warm session's command ----
rpc() {	# rpc SCENARIO: faults_rpc.py in the background, its pid in RPID
	rm -f "$MK/$1.started" "$MK/$1.killed"
	spawn_user python3 "$STAGE/tests/integration/faults_rpc.py" "$S" \
	    "$W/app" "$MK" "$1" "$TAG" >"$SD/rpc.$1" 2>&1
	RPID=$!
	waitfor 90 test -e "$MK/$1.started"
}
check "a warm session runs a command" rpc launcher
launcher_of() {	# launcher_of PID: the launcher above PID, a child of airlockd
	_p=$1
	while [ -n "$_p" ] && [ "$_p" -gt 1 ]; do
		_pp=$(awk '/^PPid:/ { print $2 }' "/proc/$_p/status")
		[ "$_pp" = "$DPID" ] && { echo "$_p"; return; }
		_p=$_pp
	done
}
LP=$(launcher_of "$(pgrep -u "$TUSER" -x sleep -n)")
check_sh "  its launcher is found ($LP, a child of airlockd)" \
    '[ -n "$LP" ] && grep -q launch "/proc/$LP/comm"'
kill -KILL "$LP"
as_user touch "$MK/launcher.killed"
wait "$RPID"
rc=$?
sed 's/^/# /' "$SD/rpc.launcher"
d="launcher killed: the command's exit comes, the session refuses more,"
check "$d a new one works" [ "$rc" -eq 0 ]
check "  no process of the session is left" \
    fails pgrep -u "$TUSER" -f "sleep 1000"
check "  the daemons were not restarted ($(starts))" [ "$(starts)" = "2 2" ]
check "  nothing left behind" same_as_before launcher

# A launcher killed while its push waits in gatewayd for the approver:
# the approver's yes that comes after pushes nothing.
n0=$(grep -c 'allow? \[y/n/a\]' "$SD/appr.out")
brun "$SD/o3" -- sh -c \
    "git push origin HEAD:refs/heads/held/y; sleep 20; echo after" "$TAG"
check "a push waits in gatewayd for the approver" waitfor 90 asked
LP=
for p in $(pgrep -u "$TUSER" -f "HEAD:refs/heads/held/y"); do
	[ -n "$LP" ] || LP=$(launcher_of "$p")
done
check "  its launcher is found ($LP)" [ -n "$LP" ]
kill -KILL "$LP"
wait "$RUNPID"
rc=$?
echo y >&7
sleep 1
d="launcher killed: the run ends (exit $rc), the late yes pushes nothing"
check_sh "$d" '[ "$rc" -ne 0 ] &&
    [ -z "$(upstream_ref acme/app.git refs/heads/held/y)" ]'
restart_approver
check "  nothing left behind" same_as_before launcher-push

# ---- 4. airlockd itself, with all of it under way ----
big_transfer "$SD/o4"
BIGPID=$RUNPID
waitfor 90 sent_over 1000000
rpc daemon
brun "$SD/o4b" -- sh -c "echo up; sleep 1000; echo after" "$TAG"
RUNB=$RUNPID
waitfor 60 grep -q up "$SD/o4b"
diag "sent=$(cat "$SRV/sent" 2>/dev/null) o4b=$(tr '\n' ' ' <"$SD/o4b")" \
    "marks=$(ls "$MK" | tr '\n' ' ')"
check_sh "a transfer, a warm session's command and a run are under way" \
    'sent_over 1000000 && grep -q up "$SD/o4b" &&
    [ -e "$MK/daemon.started" ]'
kill -KILL "$DPID"
wait "$DPID" 2>/dev/null
as_user touch "$MK/daemon.killed"
wait "$BIGPID"
rc1=$?
wait "$RUNB"
rc2=$?
wait "$RPID"
rc3=$?
sed 's/^/# /' "$SD/rpc.daemon"
d="airlockd killed: its runs end ($rc1, $rc2), its connections close"
check_sh "$d ($rc3)" \
    '[ "$rc1" -ne 0 ] && [ "$rc2" -ne 0 ] && [ "$rc3" -eq 0 ]'
check "  nothing ran after (curl, sleep)" \
    fails grep -q after "$SD/o4" "$SD/o4b"
check "  the upstream connection is closed" \
    waitfor 10 grep -q closed "$SRV/big.end"
# As a user (no root to run sandboxes as another), the test's own script
# and servers are that user's too: they are not airlock's.
left_over() {
	ours | while read -r p; do
		case "$p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" in
		"$APID "*|"$$ "*|*faults_srv.py*|*faults.sh*) ;;
		*) echo "$p" ;;
		esac
	done
}
gone() { [ -z "$(left_over)" ]; }
# A commit judge outlives airlockd on purpose (it puts refs back), and
# may take seconds of git under load: 30 s for the last one to go.
left=
waitfor 30 gone || left=$(left_over | tr '\n' , | sed 's/,$//')
check "  every process of it is gone: launchers, sandboxes, daemons" \
    [ -z "$left" ]
[ -z "$left" ] || ps -o pid,ppid,comm,args -p "$left" | sed 's/^/# /'
kill "$APID" 2>/dev/null
wait "$APID" 2>/dev/null
exec 7>&-
# The killed airlockd's sessions left their host-header endpoints in
# /tmp; the next airlockd removes them at its start, but not one changed
# within 10 s (it may be another airlockd's being made).
n=$(dead_endpoints | wc -l)
check "the killed airlockd's endpoints are in /tmp ($n)" [ "$n" -gt 0 ]
sleep 11
start_d
check "  a new airlockd: a session fetches through the proxy" fetch_small
check "  ... and one pushes through the gateway" push_ok after-d
check "  ... and a warm session runs a command" \
    as_user python3 -c '
import sys
sys.path.insert(0, sys.argv[3])
from airlockd_rpc import Client
c = Client(sys.argv[1])
r = c.call("sandbox.launch", {"spec": {"sessionId": "n",
    "bindMounts": [{"hostPath": sys.argv[2]}], "guestWorkdir": sys.argv[2]}})
assert "result" in r, r
r = c.call("sandbox.exec", {"sessionId": "n", "argv": ["true"]})
assert "result" in r, r
x = r["result"]["execId"]
e = c.note(lambda m: m["params"].get("type") == "exit" and
    m["params"].get("execId") == x, 20)
assert e and e["params"]["exitCode"] == 0, e
c.call("sandbox.destroy", {"sessionId": "n"})' "$S" "$W/app" \
    "$STAGE/tests/helpers"
check "  nothing left behind" same_as_before airlockd

kill "$DPID" 2>/dev/null
wait "$DPID" 2>/dev/null
[ "$_fails" -eq 0 ] || sed 's/^/# d: /' "$SD/d.err" | tail -30
finish
