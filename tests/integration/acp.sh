#!/bin/sh
# SPDX-License-Identifier: ISC
#
# `airlock acp` with a real ACP agent: tests/data/acp/agent.mjs, written on
# npm's @agentclientprotocol/sdk (installed by contrib/install-deps.sh),
# driven by acp_editor.py playing the editor, as the test user.  The
# agent's fs/write_text_file outside the workspace and to .env must be
# refused by airlock with the rule named, inside done; its terminal
# command must run confined (the secret unreadable, its write outside
# failed, its write inside done); permission requests the editor answers
# with an error get airlock's policy; the editor never sees fs/* or
# terminal/* unless --pass-through says so; terminal commands pass the
# command policy first.
. "$(dirname "$0")/lib.sh"
plan 28

SDK=$(npm root -g 2>/dev/null)/@agentclientprotocol/sdk/dist/v1/stable/acp.js
if [ ! -f "$SDK" ]; then
	echo "Bail out! @agentclientprotocol/sdk is not installed" \
	    "(contrib/install-deps.sh installs it)"
	exit 1
fi
H=$(mkwork)		# the test user's home, with a secret
mkdir -p "$H/.ssh" "$H/proj" "$H/outside"
echo SECRET-KEY-BYTES >"$H/.ssh/id_rsa"
chmod 0600 "$H/.ssh/id_rsa"
cp "$(dirname "$0")/../data/acp/agent.mjs" "$H/proj/agent.mjs"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H"
E="$(cd "$(dirname "$0")" && pwd)/acp_editor.py"

drive() {	# drive OUT [ACP-OPTIONS]: the editor's findings in OUT
	_o=$1
	shift
	(cd "$H/proj" && as_user env HOME="$H" python3 "$E" "$H/proj" -- \
	    "$AIRLOCK" acp "$@" -- node "$H/proj/agent.mjs" "$SDK" \
	    "$H/proj" "$H/outside" "$H/.ssh/id_rsa") >"$_o" 2>"$_o.err"
}
got() { sed -n "s/^$1 //p" "$R"; }
has() { got "$1" | grep -q -- "$2"; }

R="$H/confined.out"
drive "$R"
[ -s "$R" ] || { diag "editor said nothing"; sed 's/^/# /' "$R.err"; }
check "the agent answered the prompt through airlock acp" \
    has prompt '"stopReason": "end_turn"'
check "airlock told the agent it serves files and terminals" \
    has caps '"writeTextFile": true.*"terminal": true'
check "write outside the workspace refused, rule outside-workspace" \
    has outside '"rule": "outside-workspace"'
check "... and nothing was written there" [ ! -e "$H/outside/acp-outside.txt" ]
check "write of .env refused, the filename rule named" \
    has env '"rule": "protected-name"'
check "... and .env does not exist" [ ! -e "$H/proj/.env" ]
check "write inside the workspace answered {}" has inside '"result": {}'
check "... and done" [ "$(cat "$H/proj/inside.txt" 2>/dev/null)" = "one
two
three" ]
check "read inside, line 2 limit 1, as text" has read '"content": "two\\n"'
check "fs/read_text_file of the secret refused" \
    has readSecret '"rule": "outside-workspace"'
check "the terminal command ran to its exit status" \
    has term '"exit": {"exitCode": 3'
check "... confined: the secret unreadable" \
    fails has term SECRET-KEY-BYTES
check "... confined: its write outside failed" \
    [ ! -e "$H/outside/term-outside.txt" ]
check "... its write inside done" has term wrote-inside
check "... and it is on disk" \
    [ "$(cat "$H/proj/term-inside.txt" 2>/dev/null)" = inside ]
check "terminal gh pr create (ask, no approver) refused, rule named" \
    has termPolicy '"rule": "command-policy"'
check "the editor never received fs/* or terminal/*" \
    fails has received 'fs/\|terminal/'
check "permission requests still went to the editor" \
    has received session/request_permission
check "editor's error: install (ask) answered reject_once from policy" \
    has permInstall '"optionId": "no"'
check "editor's error: a read answered allow_once" \
    has permRead '"optionId": "yes"'
check "editor's error: ls (allow) answered allow_once" \
    has permLs '"optionId": "yes"'

# Pass-through: the files go to the editor (this one refuses them).
rm -f "$H/proj/inside.txt"
printf '{"rules":{"open-pull-request":"allow"}}\n' >"$H/rules.json"
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$H/rules.json"
R="$H/pass.out"
drive "$R" --pass-through fs --settings "$H/rules.json"
check "--pass-through fs: the editor received fs/write_text_file" \
    has received fs/write_text_file
check "--pass-through fs: terminals still served by airlock" \
    fails has received terminal/
check "--pass-through fs: nothing written by airlock for the agent" \
    [ ! -e "$H/proj/inside.txt" ]
check "rules.open-pull-request allow: gh pr create ran (not found, 127)" \
    has termPolicy '"exitCode": 127'

# The settings: acp.passThrough, and the rules permissions are judged by.
printf '{"acp":{"passThrough":["terminal"]},"rules":{"install-package":"allow"}}\n' \
    >"$H/acp.json"
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$H/acp.json"
R="$H/settings.out"
drive "$R" --settings "$H/acp.json"
check "acp.passThrough [terminal]: the editor received terminal/create" \
    has received terminal/create
check "acp.passThrough [terminal]: files still served by airlock" \
    fails has received fs/
check "rules.install-package allow: the install answered allow_once" \
    has permInstall '"optionId": "yes"'
finish
