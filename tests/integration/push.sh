#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The push gateway end to end (issue 7): `airlock run --settings FILE` in
# a real sandbox as an unprivileged user, the real git client, and a real
# smart-HTTP upstream on loopback (lighttpd + git http-backend behind
# HTTPS with a test CA and basic auth that accepts only the write token).
# The workspace's origin is https://github.com/acme/app.git; settings map
# the github code host's upstream to the local server.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib/upstream.sh"
plan 19

trap 'upstream_stop; rm -rf "$UPD"' EXIT
upstream_up

W=$(mkwork)
CFG=$(mkwork)
HOMEDIR=$(user_home)
# The user's settings and credentials (0600, the user's own).
cat >"$CFG/settings.json" <<JSON
{ "git": {
    "codeHosts": [ { "name": "github",
      "pushUrlPrefixes": ["https://github.com/", "git@github.com:",
                          "ssh://git@github.com/"],
      "upstream": "$UP_HTTPS_URL", "caBundle": "$UP_CA" } ],
    "linkedRepos": [],
    "pushRules": [ { "ref": "refs/heads/main", "action": "deny" },
                   { "ref": "refs/heads/release/*", "action": "ask" },
                   { "ref": "refs/heads/*", "action": "allow" } ] },
  "credentials": { "file": "$CFG/credentials.json" } }
JSON
RTOKEN="rt-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
printf '{ "github": { "writeToken": "%s", "readToken": "%s" } }\n' "$TOKEN" \
    "$RTOKEN" >"$CFG/credentials.json"
chown -R "$TUSER" "$CFG"
chmod 0600 "$CFG/credentials.json"

# The workspace: a clone whose origin is the GitHub URL.
git clone -q "$UPD/repos/acme/app.git" "$W/app"
git -C "$W/app" remote set-url origin https://github.com/acme/app.git
git -C "$W/app" -c user.name=a -c user.email=a@example.invalid \
    commit -q --allow-empty -m feature-work
git -C "$W/app" branch -q feature
git -C "$W/app" branch -q release/1
chown -R "$TUSER" "$W"
MAIN0=$(upstream_ref acme/app.git refs/heads/main)

run() {	# run "shell command": in the sandbox, in the workspace clone
	# The gateway is under test: git push is "ask" for the policy.
	as_user "$AIRLOCK" run --no-policy-check \
	    --settings "$CFG/settings.json" \
	    --workspace "$W/app" --events "$W/ev.jsonl" -- sh -c "$1"
}

run 'git push origin feature' >"$W/o1" 2>&1
check "git push origin feature succeeds" [ $? -eq 0 ]
check "the branch is upstream" [ "$(upstream_ref acme/app.git refs/heads/feature)" = \
    "$(git -c safe.directory='*' -C "$W/app" rev-parse feature)" ]

run 'git push origin main' >"$W/o2" 2>&1
rc=$?
check "git push origin main fails" [ "$rc" -ne 0 ]
check "git prints ' ! [remote rejected] main -> main (airlock policy: ...)'" \
    grep -q ' ! \[remote rejected\] main -> main (airlock policy: ' "$W/o2"
check "upstream main is unchanged" [ "$(upstream_ref acme/app.git refs/heads/main)" = "$MAIN0" ]
check "the refusal is a violation event" grep -q '"action":"git-push"' "$W/ev.jsonl"

run 'git push origin HEAD:main' >"$W/o3" 2>&1
check "HEAD:main is refused the same way" \
    grep -q ' ! \[remote rejected\] HEAD -> main (airlock policy: ' "$W/o3"
run 'git push origin :main' >"$W/o4" 2>&1
check "deleting main is refused" grep -q '\[remote rejected\] main (airlock policy: ' "$W/o4"
check "upstream main still exists" [ "$(upstream_ref acme/app.git refs/heads/main)" = "$MAIN0" ]
as_user git -C "$W/app" -c user.name=a -c user.email=a@example.invalid \
    commit -q --allow-empty -m more
as_user git -C "$W/app" branch -q -f feature HEAD
run 'git push --atomic origin feature main' >"$W/o5" 2>&1
check "--atomic feature main: refused" [ $? -ne 0 ]
check "--atomic: feature did not move upstream either" [ "$(upstream_ref acme/app.git refs/heads/feature)" != \
    "$(git -c safe.directory='*' -C "$W/app" rev-parse feature)" ]

run 'git push origin release/1' >"$W/o6" 2>&1
check "release/* is ask, and with no approver it is refused" \
    grep -q 'remote rejected\] release/1 -> release/1 (airlock policy: .*no approver' "$W/o6"

# A repository that is neither the worktree's own nor linked.
run 'git push https://github.com/acme/other.git feature' >"$W/o7" 2>&1
check "a push to an unlinked repository is refused" [ $? -ne 0 ]
check "... and nothing reached it" [ -z "$(upstream_ref acme/other.git refs/heads/feature)" ]

# The write token is nowhere inside: environment, files, config, output.
run "env; cat \$GIT_CONFIG_GLOBAL; git config --list --show-origin; \
    grep -rs '$TOKEN' / --exclude-dir=proc --exclude-dir=sys -l; \
    GIT_TRACE=1 GIT_CURL_VERBOSE=1 git push origin feature" >"$W/o8" 2>&1
check "the write token appears nowhere in the sandbox" fails grep -q "$TOKEN" "$W/o8"
# A direct push to upstream from inside fails (no route, no token).
run "git push $UP_HTTPS_URL""acme/app.git feature:direct" >"$W/o9" 2>&1
check "a direct push to upstream from inside fails" [ -z "$(upstream_ref acme/app.git refs/heads/direct)" ]
check "the token is not in any event" fails grep -q "$TOKEN" "$W/ev.jsonl"

# R-K1: fetch gets the read-only token through the run's credential helper.
run "printf 'protocol=https\nhost=github.com\npath=acme/app.git\n\n' | git credential fill" \
    >"$W/o10" 2>&1
check "git credential fill inside gives the read-only token" \
    grep -q "^password=$RTOKEN\$" "$W/o10"
check "... and never the write token" fails grep -q "$TOKEN" "$W/o10"
finish
