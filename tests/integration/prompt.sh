#!/bin/sh
# SPDX-License-Identifier: ISC
#
# An approver sees what they approve (issue 25, attack C; R-C4).  A
# command padded with 4,000 blanks, or carrying a 60 KB argument, before
# `git push` is put to `airlock approve` (no terminal: the question goes
# to the approver).  Plain escaping left the question 4,000 characters
# wide or 60 KB long: the `git push` at the end scrolled away and the
# person saw only the harmless start above "allow?".  Now the blanks are
# a count and a long command is shown by both ends with what was left
# out counted; v shows all of it, then the question again; n refuses.
# A command longer than an approver is asked (64 KiB) is refused saying
# so, never as "no approver".  On a real pty the question names the rule
# (the person typed the line), and fits a line whatever the padding.
. "$(dirname "$0")/lib.sh"
plan 11
W=$(mkwork)
cd "$W" || exit 1
RT=$(mkwork)	# an XDG_RUNTIME_DIR with no airlockd in it
S="$W/d.sock"
pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

PAD=$(printf '%4000s' '')
BIG=$(head -c 100000 /dev/zero | tr '\0' x)
MID=$(head -c 60000 /dev/zero | tr '\0' y)
CMDPAD="touch \"\$0\"; true$PAD; git push origin main"
CMDBIG="touch \"\$0\"; echo $BIG; git push origin main"
CMDMID="touch \"\$0\"; echo $MID; git push origin main"

spawn_user env XDG_RUNTIME_DIR="$RT" "$AIRLOCKD" --quiet --socket "$S" \
    2>"$W/d.err"
pids="$pids $!"
wait_sock "$S"
mkfifo "$W/answers"
chmod 0666 "$W/answers"
spawn_user sh -c 'exec "$1" approve --socket "$2" <"$3" >"$4" 2>&1' sh \
    "$AIRLOCK" "$S" "$W/answers" "$W/appr.out"
pids="$pids $!"
exec 7>"$W/answers"
i=0
while ! grep -q '^approving for airlockd' "$W/appr.out" 2>/dev/null &&
    [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

asked() { grep -c 'allow? \[y/n/a' "$W/appr.out"; }
# wait_ask N: until the approver has printed more than N questions.
wait_ask() {
	i=0
	while [ "$(asked)" -le "$1" ] && [ $i -lt 150 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
# ask_run NAME CMD ANSWER...: airlock run without a terminal; each
# answer given to one question; rc in $rc.
ask_run() {
	nm=$1
	cm=$2
	shift 2
	as_user env XDG_RUNTIME_DIR="$RT" "$AIRLOCK" run --socket "$S" \
	    --workspace "$W" -- sh -c "$cm" "$W/$nm.mark" </dev/null \
	    >"$W/$nm.out" 2>"$W/$nm.err" &
	rp=$!
	for a in "$@"; do
		n0=$(asked)
		wait_ask "$n0"
		echo "$a" >&7
	done
	wait $rp
	rc=$?
}
# The approver's question lines, one per line of output.
questions() {
	tr -d '\r' <"$W/appr.out" | sed 's/ \(\[r[0-9a-f]\{24\}\] \)/\
\1/g' | grep 'allow? \[y/n/a'
}

# ---- 4,000 blanks ----
ask_run pad "$CMDPAD" n
q=$(questions | tail -1)
check_sh "blanks: the approver's question shows them as a count" \
    'printf "%s\n" "$q" | grep -q "true<4000 blanks>; git push origin main"' ||
    diag "$(printf '%s' "$q" | head -c 300)"
check_sh "  and fits a screen (under 600 characters)" \
    '[ "$(printf "%s" "$q" | wc -c)" -lt 600 ]'
check_sh "  n refuses it: nothing ran (exit $rc)" \
    '[ ! -e "$W/pad.mark" ] && [ "$rc" -ne 0 ]'

# ---- 60 KB, then v, then n ----
ask_run mid "$CMDMID" v n
q=$(questions | tail -2 | head -1)
check_sh "60 KB: the question shows the head and the git push at its end" \
    'printf "%s\n" "$q" | grep -q "touch .*<\.\.\. [0-9]* bytes more, answer v to see all \.\.\.> .*; git push origin main.*allow? \[y/n/a/v\]"' ||
    diag "$(printf '%s' "$q" | head -c 600)"
check_sh "  within 700 characters" '[ "$(printf "%s" "$q" | wc -c)" -lt 700 ]'
q2=$(questions | tail -1)
check_sh "  v shows the whole command (every byte of the argument)" \
    'printf "%s\n" "$q2" | grep -qF "echo $MID; git push origin main"'
check_sh "  then n refuses it: nothing ran (exit $rc)" \
    '[ ! -e "$W/mid.mark" ] && [ "$rc" -ne 0 ]'
check "  the run reports the approver's no" \
    grep -q "the approver on connection [0-9]* answered no" "$W/mid.err"

# ---- 100 KB: more than an approver is asked; refused, and says so ----
n0=$(asked)
as_user env XDG_RUNTIME_DIR="$RT" "$AIRLOCK" run --socket "$S" \
    --workspace "$W" -- sh -c "$CMDBIG" "$W/big.mark" </dev/null \
    >"$W/big.out" 2>"$W/big.err"
rc=$?
check_sh "100 KB: refused as too long to ask, never as \"no approver\"" \
    '[ "$rc" -eq 126 ] && [ ! -e "$W/big.mark" ] &&
    grep -q "too long to put to an approver (10[0-9]* bytes, at most 65536)" "$W/big.err" &&
    ! grep -qi "no approver" "$W/big.err" && [ "$(asked)" -eq "$n0" ]' ||
    diag "$(head -c 400 "$W/big.err")"

# ---- on a terminal (a real pty): n, and the control y ----
on_pty() {	# on_pty MARK CMD ANSWER...: airlock run on a pty
	_m=$1
	cm=$2
	shift 2
	as_user env XDG_RUNTIME_DIR="$RT" python3 -c '
import os, pty, sys, time
airlock, w, cmd, mark = sys.argv[1:5]
answers = sys.argv[5:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(airlock, [airlock, "run", "--workspace", w, "--", "sh", "-c",
              cmd, mark])
out, seen = b"", 0
while True:
    try:
        d = os.read(fd, 65536)
    except OSError:
        break
    if not d:
        break
    out += d
    n = out.count(b"run it? [y/N")
    if n > seen and answers:
        seen = n
        os.write(fd, answers.pop(0).encode() + b"\n")
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace").replace("\r\n", "\n"))
sys.stdout.write("\nrc=%d\n" % os.waitstatus_to_exitcode(st))' \
	    "$AIRLOCK" "$W" "$cm" "$W/$_m" "$@"
}
# The terminal's question names the rule and its reason, not the line
# the person typed; a reason that quotes it goes through vis_ask too.
out=$(on_pty tty-pad-n.mark "$CMDPAD" n)
check_sh "terminal: the ask of the padded command fits a line; n refuses" \
    '[ "$(printf "%s\n" "$out" | grep -B1 "run it? \[y/N" | wc -c)" -lt 300 ] &&
    [ ! -e "$W/tty-pad-n.mark" ]' || diag "$(printf '%s' "$out" | tail -c 400)"
out=$(on_pty tty-pad.mark "$CMDPAD" y)
check_sh "  control: y on the padded command runs it" \
    '[ -e "$W/tty-pad.mark" ]' || diag "$(printf '%s' "$out" | tail -c 400)"
finish
