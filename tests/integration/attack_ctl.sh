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
. "$(dirname "$0")/lib.sh"
plan 4

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
