#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Issue 25, a hostile review of the control plane's protections.
# - `airlock acp` prints on its stderr (an editor's log pane, or the
#   terminal of a person who runs it by hand) the command of an agent's
#   permission request and a refused terminal command.  Both are the
#   agent's own text: an OSC 52 (clipboard write) or a CSI in them must
#   come out escaped by vis(), never raw.  The control: the agent did
#   send the raw ESC, and the line is printed (escaped).
# - `airlock fs find` (and every JSON answer) on a person's terminal:
#   file names are the sandbox's, and JSON passes C1 controls (U+009B is
#   CSI on xterm), bidi overrides and bytes that are not UTF-8 raw.  On a
#   pty (script(1)) none of them is printed raw; the control: through a
#   pipe the JSON carries them, so the names did reach the client.
# - A unix datagram names its peer in each sendto/sendmsg, past init's
#   connect check: a host datagram socket in a bound directory must not
#   receive what a sandbox sends.  The control: the same send from
#   outside arrives.
. "$(dirname "$0")/lib.sh"
plan 11

H=$(mkwork)
mkdir -p "$H/proj"
# The agent: a permission request whose command ends in an OSC 52 that
# would write the clipboard, and a terminal/create of `sh -c` whose line
# (a push, refused by the policy) carries a CSI; then it waits for EOF.
cat >"$H/proj/agent.py" <<'PY'
import json, sys
esc = "\x1b"
osc = esc + "]52;c;cm0gLXJmIH4K" + "\x07"
csi = esc + "[2K" + esc + "[8m"
msgs = [
    {"jsonrpc": "2.0", "id": 7, "method": "session/request_permission",
     "params": {"sessionId": "s", "toolCall": {"toolCallId": "t",
     "kind": "execute", "rawInput": {"command": "ls" + osc}},
     "options": [{"optionId": "a", "name": "Allow",
     "kind": "allow_once"}]}},
    {"jsonrpc": "2.0", "id": 8, "method": "terminal/create",
     "params": {"sessionId": "s", "command": "/bin/sh",
     "args": ["-c", "git push origin main" + csi]}},
]
for m in msgs:
    sys.stdout.write(json.dumps(m) + "\n")
sys.stdout.flush()
open("agent-sent.txt", "w").write(osc + csi)
sys.stdin.read()
PY
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H"
(cd "$H/proj" && (sleep 3; printf '') | as_user env HOME="$H" \
    "$AIRLOCK" acp -- python3 "$H/proj/agent.py") >"$H/acp.out" \
    2>"$H/acp.err"
sed 's/^/# /' "$H/acp.err" | cat -v
check "control: the agent sent the raw ESC" grep -q "$(printf '\033')" \
    "$H/proj/agent-sent.txt"
check "the permission request's command is printed" \
    grep -q 'permission for `ls' "$H/acp.err"
check "the refused terminal command is printed" \
    grep -q 'terminal command refused' "$H/acp.err"
check "... with no raw ESC or BEL on stderr" \
    fails grep -q "$(printf '[\033\007]')" "$H/acp.err"

W=$(mkwork)
touch "$W/a$(printf '\302\233')2Jb" "$W/c$(printf '\342\200\256')d" \
    "$W/e$(printf '\233')f"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$W"
raw() {	# raw FILE: any C1 (UTF-8 or 8-bit) or U+202E byte sequence
	_c1=$(printf '\302\233') _bd=$(printf '\342\200\256')
	LC_ALL=C grep -q "$_c1\\|$_bd\\|$(printf '\233')" "$1"
}
as_user env HOME="$H" "$AIRLOCK" fs --workspace "$W" find '*' \
    >"$W.pipe" 2>&1
check "control: through a pipe the JSON carries the names raw" raw "$W.pipe"
as_user env HOME="$H" script -qec "'$AIRLOCK' fs --workspace '$W' find '*'" \
    /dev/null >"$W.tty" 2>&1
grep -q 'a\\x9b2Jb' "$W.tty" || diag "$(od -c "$W.tty" | head -8)"
check "on a terminal fs find names the files" grep -q 'a\\x9b2Jb' "$W.tty"
check "... and no C1, bidi override or stray byte is raw" fails raw "$W.tty"

# ---- unix datagrams to a host socket in a bound directory ----
D=$(mkwork)
DG="$D/host.dgram"
cat >"$D/recv.py" <<'PY'
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
open(sys.argv[2], "w").write("up")
s.settimeout(30)
with open(sys.argv[3], "ab") as f:
    while True:
        try:
            d = s.recv(100)
        except socket.timeout:
            break
        f.write(d + b"\n")
        f.flush()
PY
cat >"$D/send.py" <<'PY'
import socket, sys
for kind in ("socket", "socketpair"):
    try:
        if kind == "socket":
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        else:
            s = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0]
        s.sendto(b"FROM-" + sys.argv[2].encode() + b"-" + kind.encode(),
            sys.argv[1])
        print(kind, "sent")
    except OSError as e:
        print(kind, "refused", e.errno)
PY
chmod a+r "$D/recv.py" "$D/send.py"
python3 "$D/recv.py" "$DG" "$D/up" "$D/got" &
RP=$!
i=0
while [ ! -e "$D/up" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
as_user python3 "$D/send.py" "$DG" OUTSIDE >"$D/out.ctl" 2>&1
as_user "$AIRLOCK" run --no-policy-check --workspace "$H/proj" \
    --bind "$D" -- python3 "$D/send.py" "$DG" SANDBOX >"$D/out.sbx" 2>&1
sleep 0.3
kill "$RP" 2>/dev/null
check "control: a datagram from outside reaches the host socket" \
    grep -q FROM-OUTSIDE-socket "$D/got"
check "no datagram from the sandbox reaches it ($(tr '\n' ' ' <"$D/got"))" \
    fails grep -q FROM-SANDBOX "$D/got"
check "the sandbox's datagram socket is refused (EACCES)" \
    grep -qx "socket refused 13" "$D/out.sbx"
check "... and a datagram socketpair too" \
    grep -qx "socketpair refused 13" "$D/out.sbx"
finish
