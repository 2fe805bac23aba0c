#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Approvals of gatewayd's "ask" push rules (issue 15), with the real git
# client in real sandboxes, one shared airlockd, two approvers connected
# to its socket, and a real smart-HTTP upstream (lib/upstream.sh): a
# push approved by one approver lands upstream, one denied by the other
# does not, one nobody answers is denied at the deadline; an answer
# after the first and an unknown requestId are errors; a push to a
# repository that is not linked is a violation event; every decision is
# an audit line with its rule.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib/upstream.sh"
plan 12

DPID=
trap '[ -n "$DPID" ] && kill "$DPID" 2>/dev/null; upstream_stop; rm -rf "$UPD"' EXIT
upstream_up

W=$(mkwork)
CFG=$(mkwork)
cat >"$CFG/settings.json" <<JSON
{ "git": {
    "codeHosts": [ { "name": "github",
      "pushUrlPrefixes": ["https://github.com/"],
      "upstream": "$UP_HTTPS_URL", "caBundle": "$UP_CA" } ],
    "linkedRepos": [],
    "pushRules": [ { "ref": "refs/heads/release/*", "action": "ask" },
                   { "ref": "refs/heads/*", "action": "allow" } ] },
  "approvals": { "timeoutSeconds": 3 },
  "credentials": { "file": "$CFG/credentials.json" } }
JSON
printf '{ "github": { "writeToken": "%s" } }\n' "$TOKEN" >"$CFG/credentials.json"
chown -R "$TUSER" "$CFG"
chmod 0600 "$CFG/credentials.json"
git clone -q "$UPD/repos/acme/app.git" "$W/app"
git -C "$W/app" remote set-url origin https://github.com/acme/app.git
git -C "$W/app" -c user.name=a -c user.email=a@example.invalid \
    commit -q --allow-empty -m "work"
chown -R "$TUSER" "$W"
STATE=$W/state
mkdir -p "$STATE"
chown "$TUSER" "$STATE"
AUDIT=$STATE/airlock/audit.jsonl

spawn_user env XDG_STATE_HOME="$STATE" "$AIRLOCKD" --settings "$CFG/settings.json" \
    --socket "$W/d.sock" 2>"$W/d.log"
DPID=$!
for i in $(seq 1 50); do
	[ -S "$W/d.sock" ] && break
	sleep 0.1
done
RPC="$STAGE/tests/integration/sessions_rpc.py"
as_user python3 "$RPC" "$W/d.sock" "$W" approver "allow,-,-" >"$W/ap1" 2>&1 &
AP1=$!
as_user python3 "$RPC" "$W/d.sock" "$W" approver "late-deny,deny,-" >"$W/ap2" 2>&1 &
AP2=$!
for i in $(seq 1 50); do
	grep -q subscribed "$W/ap1" 2>/dev/null &&
	    grep -q subscribed "$W/ap2" 2>/dev/null && break
	sleep 0.1
done

push() {	# push REFSPEC [URL]: git push from a sandbox of the shared airlockd
	as_user env XDG_STATE_HOME="$STATE" "$AIRLOCK" run --no-policy-check \
	    --socket "$W/d.sock" --workspace "$W/app" --events "$W/ev" -- \
	    git push -q "${2:-origin}" "$1" >"$W/push.out" 2>&1
}
HEAD=$(git -c safe.directory='*' -C "$W/app" rev-parse HEAD)

push HEAD:refs/heads/release/a
rc=$?
check "an ask push approved by a subscribed approver succeeds (exit $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/# /' "$W/push.out" "$W/ap1" "$W/ap2"
check "... and lands upstream" \
    [ "$(upstream_ref acme/app.git refs/heads/release/a)" = "$HEAD" ]
push HEAD:refs/heads/release/b
rc=$?
check "an ask push denied by another approver fails (exit $rc)" [ "$rc" -ne 0 ]
check "... and is not upstream" \
    [ -z "$(upstream_ref acme/app.git refs/heads/release/b)" ]
t0=$(date +%s)
push HEAD:refs/heads/release/c
rc=$?
t1=$(date +%s)
check "an ask push nobody answers is denied at the deadline (exit $rc, $((t1 - t0))s)" \
    sh -c "[ $rc -ne 0 ] && [ $((t1 - t0)) -ge 3 ] && \
    [ -z '$(upstream_ref acme/app.git refs/heads/release/c)' ]"
wait "$AP1" "$AP2"
check "an answer after the first one is an error" \
    grep -q '^answer 0 late-deny error' "$W/ap2"
check "an unknown requestId is an error" grep -q '^unknown error' "$W/ap1"
check "the audit log: the approved push, with its rule and approver" \
    grep -q '"action":"git-push","target":"refs/heads/release/a","verdict":"allow","rule":"[^"]*release/[^"]*","approvedBy":{"connection":[0-9]*,"uid":[0-9]*}' "$AUDIT"
check "the audit log: the denied push" \
    grep -q '"target":"refs/heads/release/b","verdict":"deny","rule":"[^"]*release/[^"]*","approvedBy":{' "$AUDIT"
check "the audit log: the push denied at the deadline" \
    grep -q '"target":"refs/heads/release/c","verdict":"deny","rule":"[^"]*deadline[^"]*","approvedBy":null' "$AUDIT"
# A repository that is not linked: refused, and now a violation too.
push HEAD:refs/heads/x https://github.com/acme/other.git
check "a push to an unlinked repository is a violation event" \
    grep -q '"type":"violation".*"action":"git-push-repository"' "$W/ev"
check "... and an audit line" \
    grep -q '"action":"git-push-repository","target":"[^"]*acme/other[^"]*","verdict":"deny"' "$AUDIT"
kill "$DPID" 2>/dev/null
wait "$DPID" 2>/dev/null
DPID=
finish
