#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The Claude Code PreToolUse hook through the real binary, on the
# recorded payloads of tests/data/hook/ (issue 13): it answers deny or
# ask with a reason, or no opinion ({}), never allow.
. "$(dirname "$0")/lib.sh"
plan 13
D="$STAGE/tests/data/hook"
W=$(mkwork)

# answer FILE [ARGS]: the permissionDecision, or "none" for {}
answer() {
	_f=$1
	shift
	env HOME=/home/dev "$AIRLOCK" hook claude-pretooluse "$@" <"$D/$_f" |
	    python3 -c 'import json,sys
o = json.load(sys.stdin)
h = o.get("hookSpecificOutput")
print("none" if o == {} else h["permissionDecision"] + " " + h["permissionDecisionReason"])'
}
expect() {	# expect FILE WANT REASON-PART [ARGS]
	_got=$(answer "$1" ${4:+"$4" "$5"})
	case $_got in
	"$2"*"$3"*) ok "$1: $2${3:+ ($3)}" ;;
	*) not_ok "$1: $2${3:+ ($3)}"; diag "got: $_got" ;;
	esac
}
expect allow.json none ""
expect ask.json ask "ask:git-push"
expect deny.json deny "hard-deny"
expect bash-secret.json deny "secret-read"
expect bash-rm.json none ""
expect bash-nosandbox.json ask "sandboxOverride"
expect write-env.json deny ".env"
expect write-hook.json deny ".git/hooks/*"
expect write-bashrc.json deny ".bashrc"
expect read-ssh.json deny "~/.ssh"
expect write-ok.json none ""
printf '{"sandbox":{"allowUnsandboxedCommands":false}}\n' >"$W/s.json"
expect bash-nosandbox.json deny "$W/s.json" --settings "$W/s.json"
out=$(for f in "$D"/*.json; do answer "$(basename "$f")"; done)
check "no payload is answered allow" sh -c '! printf "%s\n" "$1" | grep -q "^allow"' sh "$out"
finish
