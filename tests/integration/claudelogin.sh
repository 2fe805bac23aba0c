#!/bin/sh
# SPDX-License-Identifier: ISC
#
# `airlock claude` with the user's Claude login (issue 28, R-K1): the
# OAuth token Claude Code keeps in ~/.claude/.credentials.json is read by
# airlockd, the sandbox sees a copy of the file holding placeholders, and
# proxyd puts the real token on the wire toward the model's host alone.
# The real CLI against the mock Messages API over TLS (a test CA):
#   - the mock receives the real token on every request;
#   - inside, the file holds placeholders of the tokens' shape and none
#     of the file's other entries (an MCP server's token); the agent's
#     other routes to the real file (a copy of ~/.claude, /proc/self/root,
#     a umount of the copy) find nothing;
#   - the real tokens are in no event, log or output, and the host's file
#     is unchanged;
#   - a plain `airlock run` binding ~/.claude cannot read the file (the
#     secret set);
#   - a key in the caller's environment (ANTHROPIC_API_KEY) is masked the
#     same way: the mock receives it, the agent's variable holds a
#     placeholder; the login is then not judged (an expired one does not
#     stop the run) nor shown;
#   - a Console login's key in ~/.claude.json (primaryApiKey) is left out
#     of the copy inside and reaches the mock masked;
#   - the host's CLI renewing the login (a new file renamed over the old)
#     while the sandbox runs: the sandbox still reads its copy;
#   - a login that has expired is refused before the CLI starts, and one
#     toward an IPv6 literal too: the real login is never handed in.
. "$(dirname "$0")/lib.sh"
plan 22

W=$(mkwork)
H=$(mkwork)
cd "$W" || exit 1
unset SSL_CERT_FILE CURL_CA_BUNDLE GIT_SSL_CAINFO REQUESTS_CA_BUNDLE \
    NODE_EXTRA_CA_CERTS ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN \
    CLAUDE_CODE_OAUTH_TOKEN
test_ca "$W" ca
test_cert "$W" ca srv "DNS:localhost,IP:127.0.0.1"
chmod a+r "$W"/*.pem

CLAUDE=$(PATH=/usr/local/bin:/usr/bin:/bin command -v claude)
mkdir -p "$H/.claude"
printf '{"model":"claude-mock","permissions":{"deny":[]}}\n' \
    >"$H/.claude/settings.json"
printf '{"numStartups":3,"hasCompletedOnboarding":true}\n' >"$H/.claude.json"
TOK="sk-ant-oat01-$(openssl rand -hex 40)"
REF="sk-ant-ort01-$(openssl rand -hex 40)"
MCP="mcp-secret-$(openssl rand -hex 20)"
# login FILE EXPIRES-IN-SECONDS: a login as Claude Code writes it.
login() {
	printf '{"claudeAiOauth":{"accessToken":"%s","refreshToken":"%s",'\
'"expiresAt":%s,"scopes":["user:inference","user:profile"],'\
'"subscriptionType":"max"},"mcpOAuth":{"srv|1":{"accessToken":"%s"}}}\n' \
	    "$TOK" "$REF" "$((($(date +%s) + $2) * 1000))" "$MCP" >"$1"
	chmod 0600 "$1"
}
login "$H/.claude/.credentials.json" 3600
# What else ~/.claude may hold: a renewal's leftover with the real
# login, backups of ~/.claude.json with a Console key, a symbolic link
# to a secret of the home (as a dotfiles set-up makes them).
BKEY="sk-ant-api03-$(openssl rand -hex 32)"
cp "$H/.claude/.credentials.json" "$H/.claude/.credentials.json.tmp.1234"
mkdir -p "$H/.claude/backups" "$H/.ssh"
printf '{"primaryApiKey":"%s"}\n' "$BKEY" \
    >"$H/.claude/backups/.claude.json.backup.1"
SSHK="ssh-secret-$(openssl rand -hex 20)"
echo "$SSHK" >"$H/.ssh/id_x"
ln -s "$H/.ssh/id_x" "$H/.claude/lnkssh"
ln -s "$H" "$H/.claude/lnkhome"
cat >"$H/airlock.json" <<EOF
{"sandbox":{"network":{"tls":{"upstreamCA":"$W/ca.pem"}}}}
EOF
# The agent's attempts, each writing what it found into the workspace;
# the file's name is put together in the shell, past the hook's check
# (which refuses a command naming the secret), as a hostile agent would.
cat >"$H/steps.json" <<'EOF'
[["Bash", {"command": "f=~/.claude/.cred; f=${f}entials.json; cat $f >login.txt; env >env.txt; cp -r ~/.claude dump 2>/dev/null; cat /proc/self/root$f >root.txt; cat /proc/*/environ >environ.txt 2>/dev/null; cat ~/.claude.json >state.txt; sh mint.sh >mint.txt 2>&1; d=~/.ss; cat ${d}h/id_x ~/.claude/lnkssh ~/.claude/lnkhome/.claude.json >links.txt 2>&1; true", "description": "login"}],
 ["Bash", {"command": "python3 umount.py >umount.txt 2>&1; f=~/.claude/.cred; cat ${f}entials.json >after.txt", "description": "umount"}]]
EOF
# With the token the agent cannot read, it asks the provider for a new
# API key (the CLI's own endpoint), then counts tokens (the control).
cat >"$W/mint.sh" <<'EOF'
f=~/.claude/.cred; f=${f}entials.json
t=$(sed -n 's/.*"accessToken":"\([^"]*\)".*/\1/p' $f 2>/dev/null)
[ -n "$t" ] || exit 0
for p in api/oauth/claude_cli/create_api_key v1/messages/count_tokens; do
	curl -s -m 10 -o /dev/null -w "%{http_code}\n" -X POST \
	    -H "Authorization: Bearer $t" -d '{}' "$ANTHROPIC_BASE_URL/$p"
done
EOF
cat >"$W/umount.py" <<'EOF'
import ctypes, os
f = os.path.expanduser("~/.claude/.cred") + "entials.json"
libc = ctypes.CDLL(None, use_errno=True)
print(libc.umount2(f.encode(), 2), os.strerror(ctypes.get_errno()))
EOF
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H" "$W"
SUM=$(sha256sum <"$H/.claude/.credentials.json")

: >"$W/mock.log"
CLAUDE_MOCK_TLS="$W/srv" python3 "$(dirname "$0")/claude_mock.py" "$W" \
    "$W/mock.log" "$W/mock.port" "$H/steps.json" >/dev/null 2>&1 &
MPID=$!
trap 'kill $MPID 2>/dev/null' EXIT
i=0
while [ ! -s "$W/mock.port" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
URL="https://localhost:$(cat "$W/mock.port")"
# claude [ENV...]: airlock claude as the user, its own airlockd in $H.
claude() {
	as_user env HOME="$H" AIRLOCK_DEBUG=1 ANTHROPIC_BASE_URL="$URL" "$@" \
	    "$AIRLOCK" claude --settings "$H/airlock.json" --events "$W/ev" \
	    -- -p "the login"
}
claude ANTHROPIC_API_KEY= >"$W/oc" 2>&1
rc=$?
check_sh "airlock claude ran the CLI to its end with the login, ANTHROPIC_API_KEY empty (exit $rc)" \
    '[ -n "$CLAUDE" ] && [ "$rc" -eq 0 ]'
[ "$rc" -eq 0 ] || diag "$(tail -5 "$W/oc")"
auths() {	# auths LOG: the Authorization values the mock received
	python3 -c 'import json, sys
print("\n".join(sorted({str(json.loads(l).get("auth"))
    for l in open(sys.argv[1])})))' "$1"
}
check_sh "the mock received the real token on every request" \
    '[ -s "$W/mock.log" ] && [ "$(auths "$W/mock.log")" = "Bearer $TOK" ]'

# What the agent read.
field() {	# field FILE KEY: claudeAiOauth.KEY of a login file
	python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["claudeAiOauth"].get(sys.argv[2]))' \
	    "$1" "$2" 2>/dev/null
}
PT=$(field "$W/login.txt" accessToken)
PR=$(field "$W/login.txt" refreshToken)
check_sh "inside, the file holds placeholders of the tokens' shape" \
    '[ ${#PT} -eq ${#TOK} ] && [ "$PT" != "$TOK" ] &&
    [ ${#PR} -eq ${#REF} ] && [ "$PR" != "$REF" ] &&
    case $PT$PR in sk-ant-oat01-*sk-ant-ort01-*) true;; *) false;; esac'
check_sh "... its expiry and scopes as they are, no other entry of the file" \
    '[ "$(field "$W/login.txt" scopes)" = "['"'"'user:inference'"'"', '"'"'user:profile'"'"']" ] &&
    ! grep -q mcpOAuth "$W/login.txt"'
check_sh "the copy could not be unmounted ($(cat "$W/umount.txt" 2>/dev/null)), reads the same after" \
    'grep -q "^-1 " "$W/umount.txt" && cmp -s "$W/login.txt" "$W/after.txt"'
check_sh "no route inside reached a real token (copy, /proc/self/root, env)" \
    '[ -s "$W/root.txt" ] && [ -d "$W/dump" ] &&
    ! grep -rqe "$TOK" -e "$REF" -e "$MCP" "$W/login.txt" "$W/root.txt" \
    "$W/dump" "$W/env.txt" "$W/environ.txt" "$W/after.txt"'
check_sh "the login's endpoint that makes API keys is refused (403), never reached" \
    '[ "$(sed -n 1p "$W/mint.txt")" = 403 ] &&
    ! grep -q create_api_key "$W/mock.log"'
check_sh "... while the same token counts tokens on the model's API (200)" \
    '[ "$(sed -n 2p "$W/mint.txt")" = 200 ] &&
    grep -q "\"path\": \"/v1/messages/count_tokens\".*\"auth\": \"Bearer $TOK\"" \
    "$W/mock.log"'
check_sh "nothing else of ~/.claude reached the agent: the login's leftover, backups, links to secrets" \
    '[ -d "$W/dump" ] && [ ! -e "$W/dump/.credentials.json.tmp.1234" ] &&
    [ -s "$W/links.txt" ] &&
    ! grep -rqe "$TOK" -e "$BKEY" -e "$SSHK" "$W/dump" "$W/links.txt"'
# Everywhere but the mock's log and the host's own files: the events,
# the output, airlockd's state and log, the CLI's transcripts.
check "the real tokens are in no event, log, output or transcript" \
    fails grep -rq --exclude=mock.log --exclude=.credentials.json \
    --exclude=.credentials.json.tmp.1234 --exclude-dir=backups \
    --exclude-dir=.ssh -e "$TOK" -e "$REF" -e "$MCP" -e "$BKEY" -e "$SSHK" \
    "$W" "$H"
check_sh "the host's login file is unchanged" \
    '[ "$(sha256sum <"$H/.claude/.credentials.json")" = "$SUM" ]'

# A plain run binding ~/.claude: the login is in the secret set.
as_user env HOME="$H" "$AIRLOCK" run --ro-bind "$H/.claude" --workspace "$W" \
    --no-policy-check -- cat "$H/.claude/.credentials.json" >"$W/o2" 2>&1
rc=$?
check_sh "airlock run with ~/.claude bound cannot read the login (exit $rc)" \
    '[ "$rc" -ne 0 ] && grep -q "in the secret set (~/.claude/.credentials.json)" \
    "$W/o2" && ! grep -qe "$TOK" "$W/o2"'

# mockkeys FROM: the x-api-key values the mock received from line FROM.
mockkeys() {
	tail -n +"$1" "$W/mock.log" | python3 -c 'import json, sys
print("\n".join(sorted({str(json.loads(l).get("apiKey")) for l in sys.stdin})))'
}

# A key in the caller's environment: masked the same way, in the header
# the CLI sends it in.  The CLI takes the key before the login, so the
# login (expired here) is neither judged nor shown.
login "$H/.claude/.credentials.json" -60
KEY="sk-ant-api03-$(openssl rand -hex 32)"
# ... and one the CLI's settings set (a documented set-up): their copy
# inside leaves it out, the CLI gets it masked in its variable.
SKEY="sk-ant-oat01-$(openssl rand -hex 32)"
cp -p "$H/.claude/settings.json" "$H/settings.saved"
printf '{"model":"claude-mock","permissions":{"deny":[]},"env":{"ANTHROPIC_AUTH_TOKEN":"%s","OTHER":"kept"}}\n' \
    "$SKEY" >"$H/.claude/settings.json"
rm -rf "$W/env.txt" "$W/environ.txt" "$W/login.txt" "$W/dump"
n0=$(wc -l <"$W/mock.log")
claude ANTHROPIC_API_KEY="$KEY" >"$W/ok" 2>&1
rc=$?
check_sh "with ANTHROPIC_API_KEY set, an expired login does not stop the run (exit $rc)" \
    '[ "$rc" -eq 0 ] && [ -e "$W/login.txt" ] && [ ! -s "$W/login.txt" ]'
[ "$rc" -eq 0 ] || diag "$(tail -5 "$W/ok")"
check_sh "the mock received the caller's key on every request" \
    '[ "$(mockkeys $((n0 + 1)))" = "$KEY" ]'
PK=$(sed -n 's/^ANTHROPIC_API_KEY=//p' "$W/env.txt")
check_sh "inside, the variable holds a placeholder of its shape; the key is nowhere" \
    '[ ${#PK} -eq ${#KEY} ] && [ "$PK" != "$KEY" ] &&
    case $PK in sk-ant-api03-*) true;; *) false;; esac &&
    ! grep -rq --exclude=mock.log -e "$KEY" "$W" "$H"'
check_sh "a token the settings set: the mock received it, the agent neither it nor the file's" \
    'tail -n +$((n0 + 1)) "$W/mock.log" | grep -q "\"auth\": \"Bearer $SKEY\"" &&
    grep -q "^ANTHROPIC_AUTH_TOKEN=sk-ant-oat01-" "$W/env.txt" &&
    grep -q "^OTHER=kept" "$W/env.txt" &&
    ! grep -rq --exclude=mock.log --exclude=settings.json -e "$SKEY" \
    "$W" "$H" && ! grep -q "$SKEY" "$W/dump/settings.json"'
mv "$H/settings.saved" "$H/.claude/settings.json"

# A Console login keeps its key in ~/.claude.json (primaryApiKey): the
# copy inside leaves it out, the CLI gets it masked in its variable.
mv "$H/.claude/.credentials.json" "$H/login.saved"
cp "$H/.claude.json" "$H/state.saved"
PKEY="sk-ant-api03-$(openssl rand -hex 32)"
printf '{"numStartups":3,"hasCompletedOnboarding":true,"primaryApiKey":"%s"}\n' \
    "$PKEY" >"$H/.claude.json"
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$H/.claude.json"
rm -f "$W/env.txt" "$W/state.txt"
n0=$(wc -l <"$W/mock.log")
claude >"$W/o5" 2>&1
rc=$?
check_sh "a Console login's key: the CLI ran, the mock received the key (exit $rc)" \
    '[ "$rc" -eq 0 ] && [ "$(mockkeys $((n0 + 1)))" = "$PKEY" ]'
[ "$rc" -eq 0 ] || diag "$(tail -5 "$W/o5")"
check_sh "... inside, ~/.claude.json has no key, the variable a placeholder" \
    'grep -q hasCompletedOnboarding "$W/state.txt" &&
    ! grep -q primaryApiKey "$W/state.txt" &&
    grep -q "^ANTHROPIC_API_KEY=sk-ant-api03-" "$W/env.txt" &&
    ! grep -rq --exclude=mock.log --exclude=.claude.json -e "$PKEY" "$W" "$H"'
mv "$H/state.saved" "$H/.claude.json"
mv "$H/login.saved" "$H/.claude/.credentials.json"
login "$H/.claude/.credentials.json" 3600

# The host's CLI renews the login while a sandbox runs: it renames a new
# file over the old.  The sandbox keeps seeing its copy, never the new
# tokens (a mount on the file's name would have come off).
TOK2="sk-ant-oat01-RENEWED$(openssl rand -hex 36)"
cat >"$H/steps2.json" <<'EOF'
[["Bash", {"command": "f=~/.claude/.cred; f=${f}entials.json; cat $f >before.txt; i=0; while [ ! -e renamed ] && [ $i -lt 120 ]; do sleep 0.5; i=$((i+1)); done; cat $f >after.txt; true", "description": "wait"}]]
EOF
: >"$W/mock2.log"
CLAUDE_MOCK_TLS="$W/srv" python3 "$(dirname "$0")/claude_mock.py" "$W" \
    "$W/mock2.log" "$W/mock2.port" "$H/steps2.json" >/dev/null 2>&1 &
MPID2=$!
trap 'kill $MPID $MPID2 2>/dev/null' EXIT
waitfor 10 test -s "$W/mock2.port"
URL="https://localhost:$(cat "$W/mock2.port")" claude >"$W/o6" 2>&1 &
CPID=$!
waitfor 60 test -s "$W/before.txt"
as_user sh -c "umask 077; sed 's/$TOK/$TOK2/' '$H/.claude/.credentials.json' \
    >'$H/.claude/.credentials.json.tmp' &&
    mv '$H/.claude/.credentials.json.tmp' '$H/.claude/.credentials.json' &&
    touch '$W/renamed'"
wait "$CPID"
rc=$?
check_sh "the host renamed a renewed login over the file: the sandbox still reads its copy (exit $rc)" \
    '[ "$rc" -eq 0 ] && grep -q "$TOK2" "$H/.claude/.credentials.json" &&
    [ -s "$W/after.txt" ] && cmp -s "$W/before.txt" "$W/after.txt" &&
    ! grep -qe "$TOK2" -e "$TOK" "$W/after.txt"'
[ "$rc" -eq 0 ] || diag "$(tail -5 "$W/o6")"
kill "$MPID2" 2>/dev/null
login "$H/.claude/.credentials.json" 3600

# An expired login: refused, named, before the CLI starts.
login "$H/.claude/.credentials.json" -60
n0=$(wc -l <"$W/mock.log")
claude >"$W/o3" 2>&1
rc=$?
check_sh "an expired login is refused before the CLI starts (exit $rc)" \
    '[ "$rc" -ne 0 ] && grep -q "credentials.json: the Claude login expired" \
    "$W/o3" && [ "$(wc -l <"$W/mock.log")" -eq "$n0" ]'
[ "$rc" -ne 0 ] || diag "$(tail -3 "$W/o3")"

# A provider at an IPv6 literal: nowhere to mask toward, so refused.
login "$H/.claude/.credentials.json" 3600
URL="https://[::1]:$(cat "$W/mock.port")"
claude >"$W/o4" 2>&1
rc=$?
check_sh "a provider at an IPv6 literal with a login is refused (exit $rc)" \
    '[ "$rc" -eq 2 ] && grep -q "masked only toward a host name" "$W/o4"'
check "the real tokens are in none of the refusals" \
    fails grep -qe "$TOK" -e "$REF" "$W/o3" "$W/o4"
finish
