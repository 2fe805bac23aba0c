#!/bin/sh
# SPDX-License-Identifier: ISC
#
# A push refused for lack of a write credential names the push rule that
# would have applied (issue 13): `airlock run` in a real sandbox, the real
# git client, a real smart-HTTP upstream on loopback, settings with push
# rules and a code host but no credentials.  git prints the rule in its
# "[remote rejected]" line and the violation event carries it; nothing
# reaches upstream.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib/upstream.sh"
plan 8

trap 'upstream_stop; rm -rf "$UPD"' EXIT
upstream_up

W=$(mkwork)
CFG=$(mkwork)
# The user's settings: a code host and push rules, no credentials.
cat >"$CFG/settings.json" <<JSON
{ "git": {
    "codeHosts": [ { "name": "github",
      "pushUrlPrefixes": ["https://github.com/"],
      "upstream": "$UP_HTTPS_URL", "caBundle": "$UP_CA" } ],
    "linkedRepos": [],
    "pushRules": [ { "ref": "refs/heads/main", "action": "deny" },
                   { "ref": "refs/heads/*", "action": "allow" } ] } }
JSON
chown -R "$TUSER" "$CFG"

git clone -q "$UPD/repos/acme/app.git" "$W/app"
git -C "$W/app" remote set-url origin https://github.com/acme/app.git
git -C "$W/app" -c user.name=a -c user.email=a@example.invalid \
    commit -q --allow-empty -m work
git -C "$W/app" branch -q feature
chown -R "$TUSER" "$W"
MAIN0=$(upstream_ref acme/app.git refs/heads/main)

run() {	# run "shell command": in the sandbox, in the workspace clone
	as_user "$AIRLOCK" run --no-policy-check \
	    --settings "$CFG/settings.json" \
	    --workspace "$W/app" --events "$W/ev.jsonl" -- sh -c "$1"
}

run 'git push origin feature' >"$W/o1" 2>&1
check "git push origin feature fails without a write credential" [ $? -ne 0 ]
check "git's line says why and names the rule that would allow it" \
    grep -q ' ! \[remote rejected\] feature -> feature (airlock gateway: no write credential for this code host; with one: .*refs/heads/feature allowed by push rule 2 (refs/heads/\*))' "$W/o1"
check "nothing reached upstream" [ -z "$(upstream_ref acme/app.git refs/heads/feature)" ]
check "the violation event names the rule" grep -q \
    '"action":"git-push".*no write credential.*refs/heads/feature allowed by push rule 2 (refs/heads/\*)' \
    "$W/ev.jsonl"

run 'git push origin main' >"$W/o2" 2>&1
check "git push origin main fails" [ $? -ne 0 ]
check "git's line names the rule that denies main" \
    grep -q ' ! \[remote rejected\] main -> main (airlock policy: .*refs/heads/main denied by push rule 1 (refs/heads/main))' "$W/o2"
check "its violation event names the rule" grep -q \
    '"action":"git-push","target":"refs/heads/main".*denied by push rule 1 (refs/heads/main)' \
    "$W/ev.jsonl"
check "upstream main is unchanged" [ "$(upstream_ref acme/app.git refs/heads/main)" = "$MAIN0" ]
finish
