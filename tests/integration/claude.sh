#!/bin/sh
# SPDX-License-Identifier: ISC
#
# `airlock claude` with the real Claude Code CLI (npm's
# @anthropic-ai/claude-code, installed by contrib/install-deps.sh) against
# a mock of the Messages API on the host's loopback (claude_mock.py), which
# streams tool calls: Bash `git push origin main`, Write of .env, Read and
# Edit of notes.txt, a shell write of ~/.claude/settings.json and an env
# dump.  The mock must receive the push and the .env write refused by
# airlock's hook, the edit done; the workspace must show exactly that; the
# CLI's settings file is unchanged while its state dir stays writable; the
# caller's other variables do not reach the agent.
. "$(dirname "$0")/lib.sh"
plan 20

CLAUDE=$(PATH=/usr/local/bin:/usr/bin:/bin command -v claude)
if [ -z "$CLAUDE" ]; then
	echo "Bail out! the Claude Code CLI is not installed" \
	    "(contrib/install-deps.sh installs it)"
	exit 1
fi

W=$(mkwork)		# the workspace, a git repository with an origin
H=$(mkwork)		# the test user's home for this test
O=$(mkwork)		# the origin (bare)
git init -q --bare "$O/origin.git"
git -C "$W" init -q -b main
echo hello >"$W/notes.txt"
git -C "$W" add notes.txt
git -C "$W" -c user.name=t -c user.email=t@t commit -q -m init
git -C "$W" remote add origin "$O/origin.git"
mkdir -p "$H/.claude"
printf '{"model":"claude-mock","permissions":{"deny":[]}}\n' \
    >"$H/.claude/settings.json"
cp "$H/.claude/settings.json" "$O/settings.orig"
printf '{"numStartups":3,"hasCompletedOnboarding":true}\n' >"$H/.claude.json"
cp "$H/.claude.json" "$O/state.orig"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$W" "$H" "$O"

: >"$O/log"
python3 "$(dirname "$0")/claude_mock.py" "$W" "$O/log" "$O/port" \
    >/dev/null 2>&1 &
MOCK=$!
trap 'kill $MOCK 2>/dev/null' EXIT
i=0
while [ ! -s "$O/port" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
PORT=$(cat "$O/port")

cd "$W" || exit 1
as_user env HOME="$H" ANTHROPIC_BASE_URL="http://localhost:$PORT" \
    ANTHROPIC_API_KEY=sk-ant-test CALLER_PRIVATE=do-not-pass \
    "$AIRLOCK" claude -- -p "push, write .env, edit notes" >"$O/out" \
    2>"$O/err"
rc=$?
check "airlock claude ran the CLI to its end (exit 0)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { diag "$(cat "$O/err")"; diag "$(cat "$O/out")"; }

# result ID: "error|ok<TAB>text" of the tool result for toolu_ID
result() {
	python3 - "$O/log" "toolu_$1" <<'PY'
import json, sys
log, want = sys.argv[1:3]
for line in open(log):
    for m in json.loads(line)["body"].get("messages", []):
        c = m.get("content")
        for b in c if isinstance(c, list) else []:
            if isinstance(b, dict) and b.get("tool_use_id") == want:
                t = b.get("content")
                if isinstance(t, list):
                    t = " ".join(x.get("text", "") for x in t)
                print(("error" if b.get("is_error") else "ok") + "\t" + t)
                sys.exit(0)
print("missing")
PY
}
r=$(result 00)
check_sh "the push came back refused by airlock's hook" \
    'case $r in error*airlock*git-push*) true;; *) false;; esac'
[ -n "${r%%error*airlock*}" ] && diag "push: $r"
r=$(result 01)
check_sh "the .env write came back refused by airlock" \
    'case $r in error*airlock*.env*write-protected*) true;; *) false;; esac'
r=$(result 03)
check_sh "the plain edit came back done" \
    'case $r in ok*updated*) true;; *) false;; esac'
r=$(result 04)
check_sh "the shell write of ~/.claude/settings.json failed in the sandbox" \
    'case $r in *settings.json*[Rr]ead-only*|*[Rr]ead-only*settings.json*)
    true;; *) false;; esac'

check "the workspace has no .env" [ ! -e "$W/.env" ]
check "notes.txt is edited" [ "$(cat "$W/notes.txt")" = "hello, edited" ]
check "the origin got no push" \
    [ -z "$(git -C "$O/origin.git" for-each-ref)" ]
check "~/.claude/settings.json is unchanged" \
    cmp -s "$O/settings.orig" "$H/.claude/settings.json"
check "no command definition could be created in ~/.claude/commands" \
    [ ! -e "$H/.claude/commands/evil.md" ]
check "~/.claude.json (its MCP servers) is unchanged on the host" \
    cmp -s "$O/state.orig" "$H/.claude.json"
check "~/.claude/projects stays the CLI's writable state" \
    [ "$(cat "$H/.claude/projects/state-ok" 2>/dev/null)" = ok ]
env=$(cat "$W/env.txt" 2>/dev/null)
check_sh "the caller's other variables did not reach the agent" \
    '[ -n "$env" ] && ! printf "%s\n" "$env" | grep -q CALLER_PRIVATE'
check_sh "non-essential traffic is switched off, the key passed" \
    'printf "%s\n" "$env" | grep -qx CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC &&
    printf "%s\n" "$env" | grep -qx DISABLE_TELEMETRY &&
    printf "%s\n" "$env" | grep -qx ANTHROPIC_API_KEY'

# airlock's settings reach the hook inside the sandbox (which keeps
# airlock's own files unreadable): a --settings denyWrite refuses the edit.
printf '{"sandbox":{"filesystem":{"denyWrite":["%s/notes.txt"]}}}\n' "$W" \
    >"$O/deny.json"
chmod a+r "$O/deny.json"
echo hello >"$W/notes.txt"
: >"$O/log"
as_user env HOME="$H" ANTHROPIC_BASE_URL="http://localhost:$PORT" \
    ANTHROPIC_API_KEY=sk-ant-test "$AIRLOCK" claude --settings \
    "$O/deny.json" -- -p "edit notes" >"$O/out2" 2>"$O/err2"
r=$(result 03)
check_sh "a --settings denyWrite reaches the hook: the edit is refused" \
    'case $r in error*airlock*denyWrite*) true;; *) false;; esac'
[ -n "${r%%error*denyWrite*}" ] && diag "edit: $r $(cat "$O/err2")"
check "... and notes.txt is as it was" [ "$(cat "$W/notes.txt")" = hello ]

# No sandbox here (AIRLOCK_SANDBOX=off reaches the private airlockd): the
# CLI in bypass mode must not run on the host; it is refused instead.
: >"$O/log"
as_user env HOME="$H" ANTHROPIC_BASE_URL="http://localhost:$PORT" \
    ANTHROPIC_API_KEY=sk-ant-test AIRLOCK_SANDBOX=off "$AIRLOCK" claude \
    -- -p "anything" >"$O/out3" 2>"$O/err3"
rc=$?
check "no sandbox: airlock claude exits 125" [ $rc -eq 125 ]
check "... and the CLI never ran (no request reached the model)" \
    [ ! -s "$O/log" ]

# The hook outside airlock never loosens and keeps ask; confined, ask
# with no approver is deny.
P='{"tool_name":"Bash","cwd":"/tmp","tool_input":
    {"command":"git push origin main"}}'
d=$(printf '%s' "$P" | "$AIRLOCK" hook claude-pretooluse)
check_sh "outside airlock the hook asks for a push" \
    'case $d in *\"ask\"*git-push*) true;; *) false;; esac'
d=$(printf '%s' "$P" | "$AIRLOCK" hook claude-pretooluse --confined)
check_sh "confined, the hook denies it (no approver)" \
    'case $d in *\"deny\"*"no approver"*) true;; *) false;; esac'
finish
