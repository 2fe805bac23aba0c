#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Questions reach a person (issue 26, R-C4): `airlock run` whose command
# line asks, without a terminal, puts the question to the approver
# connected to its airlockd (`airlock approve`) and waits: y runs the
# command, n does not and is reported as that person's no.  With nobody
# to ask the refusal says how to go on; on a terminal (a real pty) an n
# is the person's no too, never "no approver".  The approve path under
# AddressSanitizer: the socket it names is not read after free.  A
# gateway push rule whose action is ask reaches `airlock approve` too
# (a real smart-HTTP upstream, lib/upstream.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib/upstream.sh"
plan 28
W=$(mkwork)
cd "$W" || exit 1
RT=$(mkwork)	# an XDG_RUNTIME_DIR with no airlockd in it
S="$W/d.sock"
pids=
UPD=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	[ -n "$UPD" ] && { upstream_stop; rm -rf "$UPD"; }
}
trap cleanup EXIT
CMD='touch "$0"; git push origin main'

spawn_user env XDG_RUNTIME_DIR="$RT" "$AIRLOCKD" --quiet --socket "$S" \
    2>"$W/d.err"
pids="$pids $!"
i=0
while [ ! -S "$S" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

# An approver whose answers we write into a fifo, one per question.
mkfifo "$W/answers"
chmod 0666 "$W/answers"
spawn_user sh -c 'exec "$1" approve --socket "$2" <"$3" >"$4" 2>&1' sh \
    "$AIRLOCK" "$S" "$W/answers" "$W/appr.out"
pids="$pids $!"
APID=$!
exec 7>"$W/answers"
i=0
while ! grep -q '^approving for airlockd' "$W/appr.out" 2>/dev/null &&
    [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

# ask_run NAME ANSWER: airlock run without a terminal, the command
# asking (git push); the approver answers; rc in $rc, stderr in NAME.err.
ask_run() {
	n0=$(grep -c 'allow? \[y/n/a\]' "$W/appr.out")
	as_user env XDG_RUNTIME_DIR="$RT" "$AIRLOCK" run --socket "$S" \
	    --workspace "$W" -- sh -c "$CMD" "$1.mark" </dev/null \
	    >"$W/$1.out" 2>"$W/$1.err" &
	rp=$!
	i=0
	while [ "$(grep -c 'allow? \[y/n/a\]' "$W/appr.out")" -le "$n0" ] &&
	    [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
	echo "$2" >&7
	wait $rp
	rc=$?
}

ask_run yes y
check_sh "no terminal, approver connected: y runs the command (marker made)" \
    '[ -e "$W/yes.mark" ]' || diag "$(cat "$W/yes.err" "$W/appr.out")"
check "  the approver was shown exactly the command line" grep -qF \
    "airlock run, before its sandbox: command 'sh' '-c' 'touch \"\$0\"; git push origin main' 'yes.mark' (ask:git-push: git push changes a remote repository; in $W, in a sandbox)" \
    "$W/appr.out"
check "  the run says who allowed it" \
    grep -q '^airlock: allowed by the approver on connection [0-9]*$' \
    "$W/yes.err"

AUDIT="$(user_home)/.local/state/airlock/audit.jsonl"
a0=$(cat "$AUDIT" 2>/dev/null | wc -l)
ask_run no n
check_sh "no terminal, approver connected: n does not run it (exit $rc)" \
    '[ "$rc" -eq 126 ] && [ ! -e "$W/no.mark" ]'
check "  reported as the person's no, naming who answered" grep -q \
    "^airlock: refused: the approver on connection [0-9]* answered no: git push changes a remote repository \[ask:git-push\]$" \
    "$W/no.err"
check_sh "  never as \"no approver\", and no how-to-go-on" \
    '! grep -qi "no approver\|to go on" "$W/no.err"' ||
    diag "$(cat "$W/no.err")"
check "  the audit log names the approver's denial of that command" sh -c \
    'tail -n "+$(($2 + 1))" "$1" | grep -F "'"'no.mark'"'" |
    grep "\"verdict\":\"deny\"" | grep -q "denied by approver"' sh \
    "$AUDIT" "$a0"

# The question holds what a terminal would garble: shown escaped.
as_user env XDG_RUNTIME_DIR="$RT" "$AIRLOCK" run --socket "$S" \
    --workspace "$W" -- sh -c "$CMD" "$(printf 'esc\033[2Jx')" </dev/null \
    >/dev/null 2>"$W/esc.err" &
rp=$!
i=0
while ! grep -q 'esc.*allow?' "$W/appr.out" && [ $i -lt 150 ]; do
	sleep 0.1; i=$((i + 1)); done
echo n >&7
wait $rp
check_sh "  a control character in the command reaches the approver escaped" \
    '! grep -q "$(printf "\033")" "$W/appr.out" &&
    grep -q "esc\\\\033\[2Jx\|esc\\\\x1b\[2Jx\|esc\\\\e\[2Jx" "$W/appr.out"' ||
    diag "$(grep esc "$W/appr.out")"

# --sandbox off: the approver is told it would run on the host.
as_user env XDG_RUNTIME_DIR="$RT" "$AIRLOCK" run --socket "$S" \
    --sandbox off --workspace "$W" -- sh -c "$CMD" host.mark </dev/null \
    >/dev/null 2>&1 &
rp=$!
i=0
while ! grep -q "'host.mark'.*allow?" "$W/appr.out" && [ $i -lt 150 ]; do
	sleep 0.1; i=$((i + 1)); done
echo n >&7
wait $rp
check_sh "  a run with --sandbox off is shown as on the host, and n refuses it" \
    'grep "'"'host.mark'"'" "$W/appr.out" |
    grep -q "on the host WITHOUT a sandbox (--sandbox off)" &&
    [ ! -e "$W/host.mark" ]' || diag "$(grep host.mark "$W/appr.out")"

# A "session" answer ("a") to a run without a session is once: the next
# run asks again.
ask_run all1 a
ask_run all2 n
check_sh "  an \"a\" before a run's sandbox allows once: the next run is asked" \
    '[ -e "$W/all1.mark" ] && [ ! -e "$W/all2.mark" ]'

# The approver leaves (it reads its input only when asked): nobody to ask.
exec 7>&-
kill "$APID"
wait "$APID" 2>/dev/null
as_user env XDG_RUNTIME_DIR="$RT" "$AIRLOCK" run --socket "$S" \
    --workspace "$W" -- sh -c "$CMD" none.mark </dev/null >/dev/null \
    2>"$W/none.err"
rc=$?
check_sh "no terminal, no approver: refused (exit $rc), not run" \
    '[ "$rc" -eq 126 ] && [ ! -e "$W/none.mark" ]'
check "  the refusal names the rule and says it had nobody to ask" \
    grep -q 'ask:git-push (no approver: deny)' "$W/none.err"
check "  and one line says how to go on, with the real option names" sh -c '
    [ "$(grep -c "^airlock: to go on:" "$1")" -eq 1 ] &&
    grep "^airlock: to go on:" "$1" | grep -q -- "--socket" &&
    grep "^airlock: to go on:" "$1" | grep -q -- "--no-policy-check" &&
    grep "^airlock: to go on:" "$1" | grep -q "airlock approve"' sh \
    "$W/none.err"
as_user env XDG_RUNTIME_DIR="$RT" "$AIRLOCK" run --no-policy-check \
    --socket "$S" --workspace "$W" -- sh -c "$CMD" nocheck.mark \
    </dev/null >/dev/null 2>&1
check "  the way it names works: --no-policy-check runs it" \
    [ -e "$W/nocheck.mark" ]
as_user env XDG_RUNTIME_DIR="$RT" "$AIRLOCK" run --workspace "$W" -- \
    sh -c "$CMD" priv.mark </dev/null >/dev/null 2>"$W/priv.err"
check_sh "a private airlockd, nothing on the default socket: the same refusal" \
    '[ ! -e "$W/priv.mark" ] && grep -q "^airlock: to go on:" "$W/priv.err"'

# A listener that is not the user's, on the default socket, says yes to
# everything (its /tmp/airlock-UID fallback is a directory another user
# could make first): a private run does not ask it.  The control: the
# same listener as the user is asked, and its yes runs the command.
cat >"$W/fake_yes.py" <<'PY'
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(4)
while True:
    c, _ = s.accept()
    f = c.makefile("rwb")
    for line in f:
        m = json.loads(line)
        f.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result":
            {"allowed": True, "decision": "allow"}}).encode() + b"\n")
        f.flush()
PY
chmod 0644 "$W/fake_yes.py"
mkdir -p "$W/rt-other/airlock" "$W/rt-mine/airlock"
chmod 0755 "$W/rt-other" "$W/rt-other/airlock"
chown -R "$TUSER" "$W/rt-mine"
python3 "$W/fake_yes.py" "$W/rt-other/airlock/airlockd.sock" &
pids="$pids $!"
spawn_user python3 "$W/fake_yes.py" "$W/rt-mine/airlock/airlockd.sock"
pids="$pids $!"
i=0
while { [ ! -S "$W/rt-other/airlock/airlockd.sock" ] ||
    [ ! -S "$W/rt-mine/airlock/airlockd.sock" ]; } && [ $i -lt 50 ]; do
	sleep 0.1; i=$((i + 1)); done
as_user env XDG_RUNTIME_DIR="$W/rt-mine" "$AIRLOCK" run --workspace "$W" \
    -- sh -c "$CMD" mine.mark </dev/null >/dev/null 2>"$W/mine.err"
check "control: a private run asks the user's own default socket; yes runs it" \
    [ -e "$W/mine.mark" ]
as_user env XDG_RUNTIME_DIR="$W/rt-other" "$AIRLOCK" run --workspace "$W" \
    -- sh -c "$CMD" other.mark </dev/null >/dev/null 2>"$W/other.err"
if [ "$(id -u)" -eq 0 ] && [ "$TUSER" != root ]; then
	check_sh "another user's listener on the default socket is not asked" \
	    '[ ! -e "$W/other.mark" ] &&
	    grep -q "not asking the listener on the default socket: it is not yours" \
	    "$W/other.err"' || diag "$(cat "$W/other.err")"
else
	ok "another user's listener # SKIP needs root"
fi

# On a terminal (a real pty): the person answers n, then y.
on_pty() {	# on_pty ANSWER MARK: airlock run on a pty, answer the ask
	as_user env XDG_RUNTIME_DIR="$RT" python3 -c '
import os, pty, sys, time
ans, argv = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
out, sent, t0 = b"", False, time.time()
while True:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
    if not sent and b"run it? [y/N]" in out:
        os.write(fd, ans.encode() + b"\n")
        sent = True
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace").replace("\r\n", "\n"))
sys.stdout.write("\nrc=%d\n" % os.waitstatus_to_exitcode(st))' "$1" \
	    "$AIRLOCK" run --workspace "$W" -- sh -c "$CMD" "$2"
}
out=$(on_pty n tty-n.mark)
check_sh "terminal: n is not run and is the person's no (rc=126)" \
    '[ ! -e "$W/tty-n.mark" ] &&
    printf "%s\n" "$out" | grep -q "^airlock: refused: you answered no: git push changes a remote repository \[ask:git-push\]" &&
    printf "%s\n" "$out" | grep -q "^rc=126$"' || diag "$out"
check_sh "  never \"no approver\", no how-to-go-on" \
    '! printf "%s\n" "$out" | grep -qi "no approver\|to go on"'
out=$(on_pty y tty-y.mark)
check_sh "  control: y on the terminal runs it" '[ -e "$W/tty-y.mark" ]' ||
    diag "$out"

# A gateway push rule that asks, during a run of a shared airlockd:
# `airlock approve` answers it (the run's own command line is not judged
# here, --no-policy-check, so the ref is the one question).
upstream_up
G=$(mkwork)
cat >"$G/settings.json" <<JSON
{ "git": {
    "codeHosts": [ { "name": "github",
      "pushUrlPrefixes": ["https://github.com/"],
      "upstream": "$UP_HTTPS_URL", "caBundle": "$UP_CA" } ],
    "linkedRepos": [],
    "pushRules": [ { "ref": "refs/heads/release/*", "action": "ask" },
                   { "ref": "refs/heads/*", "action": "allow" } ] },
  "approvals": { "timeoutSeconds": 2 },
  "credentials": { "file": "$G/credentials.json" } }
JSON
printf '{ "github": { "writeToken": "%s" } }\n' "$TOKEN" >"$G/credentials.json"
git clone -q "$UPD/repos/acme/app.git" "$G/app"
git -C "$G/app" remote set-url origin https://github.com/acme/app.git
git -C "$G/app" -c user.name=a -c user.email=a@example.invalid \
    commit -q --allow-empty -m work
chown -R "$TUSER" "$G"
chmod 0600 "$G/credentials.json"
GS="$G/d.sock"
spawn_user env XDG_STATE_HOME="$G" XDG_RUNTIME_DIR="$RT" "$AIRLOCKD" \
    --quiet --settings "$G/settings.json" --socket "$GS" 2>"$G/d.err"
pids="$pids $!"
i=0
while [ ! -S "$GS" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mkfifo "$G/answers"
chmod 0666 "$G/answers"
spawn_user sh -c 'exec "$1" approve --socket "$2" <"$3" >"$4" 2>&1' sh \
    "$AIRLOCK" "$GS" "$G/answers" "$G/appr.out"
pids="$pids $!"
exec 7>"$G/answers"
i=0
while ! grep -q '^approving for airlockd' "$G/appr.out" 2>/dev/null &&
    [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
gw_push() {	# gw_push REF ANSWER: a push the approver answers
	n0=$(grep -c 'allow? \[y/n/a\]' "$G/appr.out")
	as_user env XDG_STATE_HOME="$G" XDG_RUNTIME_DIR="$RT" "$AIRLOCK" run \
	    --no-policy-check --socket "$GS" --workspace "$G/app" -- \
	    git push -q origin "HEAD:$1" </dev/null >"$G/push.out" 2>&1 &
	rp=$!
	i=0
	while [ "$(grep -c 'allow? \[y/n/a\]' "$G/appr.out")" -le "$n0" ] &&
	    [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	echo "$2" >&7
	wait $rp
	rc=$?
}
# Nobody answers by the deadline (approvals.timeoutSeconds 2): refused,
# and said so; then the approver's late answer finds nothing to decide.
as_user env XDG_STATE_HOME="$G" XDG_RUNTIME_DIR="$RT" "$AIRLOCK" run \
    --socket "$GS" --workspace "$G" -- sh -c "$CMD" late.mark </dev/null \
    >/dev/null 2>"$G/late.err"
rc=$?
echo n >&7
check_sh "an ask nobody answers: refused at the deadline (exit $rc), not run" \
    '[ "$rc" -eq 126 ] && [ ! -e "$G/late.mark" ]'
check "  said as such, not as a no or \"no approver\"" grep -qx \
    "airlock: refused: no answer from the approver within 2 s: git push changes a remote repository \[ask:git-push\]" \
    "$G/late.err"
GHEAD=$(git -c safe.directory='*' -C "$G/app" rev-parse HEAD)
gw_push refs/heads/release/a y
check_sh "gateway ask rule: airlock approve sees the ref, y pushes it (exit $rc)" \
    '[ "$rc" -eq 0 ] &&
    [ "$(upstream_ref acme/app.git refs/heads/release/a)" = "$GHEAD" ]' ||
    diag "$(cat "$G/push.out" "$G/appr.out")"
check "  the approver was shown the session, action and ref" grep -q \
    "session [^ ]*: git-push refs/heads/release/a (" "$G/appr.out"
gw_push refs/heads/release/b n
check_sh "  n refuses it (exit $rc): not upstream" \
    '[ "$rc" -ne 0 ] &&
    [ -z "$(upstream_ref acme/app.git refs/heads/release/b)" ]'
check_sh "  git says the approver denied it, not \"no approver\"" \
    'grep -q "denied by approver" "$G/push.out" &&
    ! grep -qi "no approver" "$G/push.out"' || diag "$(cat "$G/push.out")"
exec 7>&-

# The approve path under AddressSanitizer (build/asan/airlock, make
# asan-client): with no listener it names the socket it tried, read
# after it was freed before the fix.
ASAN="$B/asan/airlock"
if [ -x "$ASAN" ]; then
	NS="$W/none.sock"
	as_user env ASAN_OPTIONS=detect_leaks=0 AIRLOCK_SOCKET="$NS" \
	    "$ASAN" approve </dev/null >/dev/null 2>"$W/asan1.err"
	check_sh "ASan: approve with AIRLOCK_SOCKET, no listener: names it, no report" \
	    '! grep -q AddressSanitizer "$W/asan1.err" &&
	    grep -qxF "airlock approve: no airlockd listening on $NS" "$W/asan1.err"' ||
	    diag "$(head -20 "$W/asan1.err")"
	as_user env ASAN_OPTIONS=detect_leaks=0 XDG_RUNTIME_DIR="$RT" \
	    "$ASAN" approve </dev/null >/dev/null 2>"$W/asan2.err"
	check_sh "ASan: approve on the default socket, no listener: names it, no report" \
	    '! grep -q AddressSanitizer "$W/asan2.err" &&
	    grep -qxF "airlock approve: no airlockd listening on $RT/airlock/airlockd.sock" "$W/asan2.err"' ||
	    diag "$(head -20 "$W/asan2.err")"
else
	not_ok "ASan: $ASAN was not built (make asan-client)"
	not_ok "ASan: $ASAN was not built (make asan-client)"
fi
cd /
finish
