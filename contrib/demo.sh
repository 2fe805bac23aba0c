#!/bin/sh
# SPDX-License-Identifier: ISC
#
# `make demo`: an agent-like command in a real airlock sandbox, through a
# private airlockd (nothing to set up): it edits a file in its workspace
# (allowed), writes outside it (refused), reaches for the network
# (refused by the egress proxy) and pushes to main (rejected by the push
# gateway, in git's own words), while a feature branch push goes through.
# Everything stays on this machine: the "code host" is a local smart-HTTP
# server (lighttpd + git http-backend over HTTPS with a throwaway CA) that
# the settings map github.com onto; the refused network request is
# refused by the proxy before any name is resolved.
set -u
BUILD=$(cd "${1:-build}" && pwd)
TOP=$(cd "$(dirname "$0")/.." && pwd)
AIRLOCK="$BUILD/airlock"

D=$(mktemp -d /tmp/airlock-demo.XXXXXX)
chmod 0755 "$D"
cleanup() { upstream_stop 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT INT TERM
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy ALL_PROXY NO_PROXY

say() { printf '\n\033[1m%s\033[0m\n' "$*"; }

# A local code host and a clone of acme/app whose origin is GitHub.
. "$TOP/tests/integration/lib/upstream.sh"
TOKEN="demo-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
upstream_start "$D/up" "$TOKEN" >/dev/null 2>&1 ||
    { echo "demo: cannot start the local code host (lighttpd)"; exit 1; }
git clone -q "$D/up/repos/acme/app.git" "$D/app"
git -C "$D/app" remote set-url origin https://github.com/acme/app.git
mkdir "$D/outside"
cat >"$D/settings.json" <<JSON
{ "git": { "codeHosts": [ { "name": "github",
      "pushUrlPrefixes": ["https://github.com/", "git@github.com:", "ssh://git@github.com/"],
      "upstream": "$UP_HTTPS_URL", "caBundle": "$UP_CA" } ] },
  "credentials": { "file": "$D/credentials.json" } }
JSON
printf '{ "github": { "writeToken": "%s" } }\n' "$TOKEN" >"$D/credentials.json"
chmod 0600 "$D/credentials.json"

# The "agent": what a coding agent does in a turn, good and bad.  It is
# a script the sandbox sees read-only, as an agent's own commands are not
# airlock run's command line (that one is judged by the policy first).
mkdir "$D/agent"
cat >"$D/agent/agent.sh" <<'AGENT'
exec 2>&1
step() { printf '\n[agent] %s\n' "$*"; }
step "edit a file in the workspace"
printf 'print("fixed")\n' > app.py && echo "  ok: app.py now holds: $(cat app.py)"
git add app.py && git -c user.name=agent -c user.email=agent@example.invalid \
    commit -qm "fix the bug" && git branch -q feature && echo "  ok: committed"
step "write a secrets file in the workspace (.env)"
echo API_KEY=sk-test > .env || echo "  refused"
step "write outside the workspace ($OUTSIDE/notes.txt)"
echo x > "$OUTSIDE/notes.txt" 2>&1 || echo "  refused"
step "install something system-wide (/usr/local/bin/helper)"
echo x > /usr/local/bin/helper 2>&1 || echo "  refused"
step "fetch from the network (curl https://example.com)"
curl -sS -m 10 -o /dev/null https://example.com 2>&1 || echo "  refused"
step "push the fix straight to main"
git push -q origin HEAD:main 2>&1 || echo "  refused"
step "push the feature branch for review"
git push -q origin feature 2>&1 && echo "  ok: feature pushed"
AGENT

say "airlock status"
"$AIRLOCK" status --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print("  available=%s backend=%s landlockAbi=%s proxyd=%s gatewayd=%s" % (s["available"], s["backend"], s["landlockAbi"], s["daemons"]["proxyd"]["running"], s["daemons"]["gatewayd"]["running"]))'

say "airlock run --settings settings.json -- sh agent.sh   (workspace: a clone of acme/app)"
cd "$D/app" || exit 1
"$AIRLOCK" run --settings "$D/settings.json" --events "$D/events.jsonl" \
    --ro-bind "$D/agent" -- env OUTSIDE="$D/outside" sh "$D/agent/agent.sh"
rc=$?

say "what happened on the host"
printf '  app.py in the workspace:        %s\n' "$(cat "$D/app/app.py" 2>/dev/null || echo missing)"
printf '  .env in the workspace:          %s\n' "$([ -e "$D/app/.env" ] && echo EXISTS || echo absent)"
printf '  %s/notes.txt:         %s\n' "outside" "$([ -e "$D/outside/notes.txt" ] && echo EXISTS || echo absent)"
printf '  /usr/local/bin/helper:          %s\n' "$([ -e /usr/local/bin/helper ] && echo EXISTS || echo absent)"
printf '  upstream main moved:            %s\n' "$([ "$(upstream_ref acme/app.git refs/heads/main)" = "$(git -C "$D/up/seed" rev-parse HEAD)" ] && echo no || echo YES)"
printf '  upstream feature:               %s\n' "$(upstream_ref acme/app.git refs/heads/feature >/dev/null && echo pushed || echo absent)"
say "violations reported on the event stream"
python3 - "$D/events.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["type"] == "violation":
        print("  %-18s %s" % (e["action"], e["target"][:90]))
PY
echo
echo "exit status of the agent: $rc"

# The demo is also CI's check that the README's first command works on a
# fresh machine: it fails when any step did not end as shown above.
[ "$(cat "$D/app/app.py" 2>/dev/null)" = 'print("fixed")' ] &&
    [ ! -e "$D/app/.env" ] && [ ! -e "$D/outside/notes.txt" ] &&
    [ ! -e /usr/local/bin/helper ] &&
    [ "$(upstream_ref acme/app.git refs/heads/main)" = \
    "$(git -C "$D/up/seed" rev-parse HEAD)" ] &&
    upstream_ref acme/app.git refs/heads/feature >/dev/null || {
	echo "demo: an outcome differs from the one described" >&2
	exit 1
}
