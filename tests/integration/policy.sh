#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The command policy from the CLI (issue 5): `airlock policy check` and
# the Claude Code PreToolUse hook with recorded payloads, through the
# real binary as an unprivileged user.
. "$(dirname "$0")/lib.sh"
plan 10

pc() {	# pc MODE 'command line': prints the verdict
	as_user "$AIRLOCK" policy check --mode "$1" -- "$2" |
	    python3 -c 'import json,sys; print(json.load(sys.stdin)["verdict"])'
}
check "chat: ls && sudo id is deny" [ "$(pc chat 'ls && sudo id')" = deny ]
check "chat: git push is ask" [ "$(pc chat 'git -C ../x push origin main')" = ask ]
check "chat: bash -c 'sudo id' is deny" [ "$(pc chat "bash -c 'sudo id'")" = deny ]
check "plan: echo hi > f is deny" [ "$(pc plan 'echo hi > f')" = deny ]
check "chat: echo hi > f is allow" [ "$(pc chat 'echo hi > f')" = allow ]
check "review: git status is allow" [ "$(pc review 'git status')" = allow ]
as_user "$AIRLOCK" policy check --mode nonsense -- ls >/dev/null 2>&1
check "a usage error exits 2" [ $? -eq 2 ]

T="$STAGE/tests/data/hook"
hook() {
	as_user "$AIRLOCK" hook claude-pretooluse <"$T/$1.json" |
	    python3 -c 'import json,sys; print(json.load(sys.stdin)["hookSpecificOutput"]["permissionDecision"])'
}
# The hook never answers allow: what the policy allows gets no opinion.
check "hook: the recorded allowed command gets no opinion ({})" \
    [ "$(as_user "$AIRLOCK" hook claude-pretooluse <"$T/allow.json")" = "{}" ]
check "hook: the recorded asked command is ask" [ "$(hook ask)" = ask ]
check "hook: the recorded denied command is deny" [ "$(hook deny)" = deny ]
finish
