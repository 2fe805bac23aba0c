#!/bin/sh
# SPDX-License-Identifier: ISC
#
# sandbox-runtime (srt) settings files mean what srt means (issue 13):
# filesystem.allowWrite binds a path writable, allowRead carve-outs stay
# readable inside a denied tree (and a directory nested in a read-only
# carve-out can be made writable), relative denyRead/denyWrite entries and
# globs are taken beneath the workspace with "**" recursive, a denyRead
# above the workspace or of "/" leaves a sandbox that starts and sees its
# workspace, keys airlock ignores are warned about once, a credentials
# section is not fatal, and the file's allowedDomains is the whole
# allowlist (no built-in baseline).
. "$(dirname "$0")/lib.sh"
plan 22

W=$(mkwork)		# the workspace
X=$(mkwork)		# another host directory: allowWrite
Y=$(mkwork)		# a denied tree with carve-outs
mkdir -p "$W/a/b/c" "$W/deny" "$W/locked" "$Y/pub/out"
echo top-secret >"$W/a/b/c/secret.txt"
echo other >"$W/a/b/c/other.txt"
echo shallow-secret >"$W/secret.txt"
echo hidden >"$W/deny/a.txt"
echo shown >"$W/deny/ok.txt"
echo locked >"$W/locked/a.txt"
echo y-secret >"$Y/secret.txt"
echo public >"$Y/pub/read.txt"
echo ws-file >"$W/file.txt"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$W" "$X" "$Y"
cat >"$W/../srt-$$.json" <<JSON
{
  "network": { "allowedDomains": ["example.invalid"],
               "allowAllUnixSockets": true },
  "filesystem": {
    "denyRead": ["$Y", "**/secret.txt", "deny"],
    "allowRead": ["$Y/pub", "deny/ok.txt"],
    "allowWrite": ["$X", "$Y/pub/out"],
    "denyWrite": ["locked/*.txt"]
  },
  "credentials": { "github": { "tokenCommand": "gh auth token" } }
}
JSON
S="$W/../srt-$$.json"
run() {	# run SETTINGS SHELL-COMMAND
	as_user "$AIRLOCK" run --no-policy-check --workspace "$W" \
	    --settings "$1" -- sh -c "$2"
}

out=$(run "$S" 'echo started' 2>"$W/err")
rc=$?
check_sh "an srt file with a credentials section loads and runs ($rc)" \
    '[ "$rc" -eq 0 ] && [ "$out" = started ]'
check_sh "the ignored key is warned about once on stderr" \
    '[ "$(grep -c "network.allowAllUnixSockets" "$W/err")" -eq 1 ] &&
    grep -q "warning: .*network.allowAllUnixSockets.*ignored" "$W/err"'
check "the credentials section is warned about" \
    grep -q 'warning: .*credentials.github' "$W/err"

run "$S" "echo made > '$X/made.txt'" 2>/dev/null
check "allowWrite: a directory outside the workspace is writable" \
    [ "$(cat "$X/made.txt" 2>/dev/null)" = made ]
check "allowRead: a carve-out in a denied tree is readable" \
    [ "$(run "$S" "cat '$Y/pub/read.txt'" 2>/dev/null)" = public ]
run "$S" "echo x > '$Y/pub/new.txt'" 2>/dev/null
check "  and read-only" [ ! -e "$Y/pub/new.txt" ]
run "$S" "mkdir -p '$Y/pub/out/d/e' && echo n > '$Y/pub/out/d/e/f'" \
    2>/dev/null
check "allowWrite nested in a read-only carve-out is writable" \
    [ "$(cat "$Y/pub/out/d/e/f" 2>/dev/null)" = n ]
check "denyRead: the rest of the denied tree is unreadable" \
    fails run "$S" "cat '$Y/secret.txt'"
check "denyRead **/secret.txt (relative): hidden at depth 3" \
    fails run "$S" "grep -q top-secret a/b/c/secret.txt"
check "  and at the top of the workspace" \
    fails run "$S" "grep -q shallow-secret secret.txt"
check "  its neighbour stays readable" \
    [ "$(run "$S" "cat a/b/c/other.txt" 2>/dev/null)" = other ]
check "denyRead deny (relative) hides the tree..." \
    fails run "$S" "grep -q hidden deny/a.txt"
check "  but not its allowRead file" \
    [ "$(run "$S" "cat deny/ok.txt" 2>/dev/null)" = shown ]
run "$S" "echo changed > locked/a.txt" 2>/dev/null
check "denyWrite locked/*.txt (relative glob) is refused" \
    [ "$(cat "$W/locked/a.txt")" = locked ]

# A denyRead above the workspace, or of /, does not hide the workspace.
printf '{"filesystem":{"denyRead":["%s"]}}\n' "$(dirname "$W")" \
    >"$W/../up-$$.json"
check "denyRead of the workspace's parent: the workspace is readable" \
    [ "$(run "$W/../up-$$.json" "cat file.txt" 2>/dev/null)" = ws-file ]
printf '{"filesystem":{"denyRead":["/"],"allowRead":["%s"]}}\n' \
    "$Y/pub" >"$W/../root-$$.json"
out=$(run "$W/../root-$$.json" "cat file.txt; cat '$Y/pub/read.txt'" \
    2>/dev/null | tr '\n' ' ')
check "denyRead / with a carve-out: the sandbox starts, sees its workspace" \
    [ "$out" = "ws-file public " ]
check "  and the rest of the host's files are hidden" \
    fails run "$W/../root-$$.json" "cat '$Y/secret.txt'"

# A carve-out beneath a built-in secret opens that one path (SETTINGS.md),
# never the secret directory itself nor its other entries.
H=$(mkwork)
mkdir -p "$H/.ssh"
echo kh-line >"$H/.ssh/known_hosts"
echo private-key >"$H/.ssh/id_ed25519"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H"
printf '{"sandbox":{"filesystem":{"allowRead":["~/.ssh/known_hosts"]}}}\n' \
    >"$W/../kh-$$.json"
printf '{"sandbox":{"filesystem":{"allowRead":["~/.ssh"]}}}\n' \
    >"$W/../sshdir-$$.json"
hrun() {	# hrun SETTINGS SHELL-COMMAND, with $H as the home
	as_user HOME="$H" "$AIRLOCK" run --no-policy-check --workspace "$W" \
	    --settings "$1" -- sh -c "$2"
}
check "allowRead beneath a secret: ~/.ssh/known_hosts is readable" \
    [ "$(hrun "$W/../kh-$$.json" 'cat ~/.ssh/known_hosts' 2>/dev/null)" = \
    kh-line ]
check "  and the secret directory's other entries are not" \
    fails hrun "$W/../kh-$$.json" 'cat ~/.ssh/id_ed25519'
check "allowRead of the secret directory itself opens nothing" \
    fails hrun "$W/../sshdir-$$.json" 'cat ~/.ssh/id_ed25519 ~/.ssh/known_hosts'
rm -f "$W/../kh-$$.json" "$W/../sshdir-$$.json"

# The allowlist: the srt file's list is the whole list; airlock's format
# keeps the baseline (pypi.org is in it).  The proxy answers 403 before
# any DNS for what the list does not allow.
code() {	# code SETTINGS: the proxy's answer to CONNECT pypi.org:443
	run "$1" 'curl -sS -m 10 -o /dev/null https://pypi.org/ 2>&1' 2>/dev/null |
	    sed -n 's/.*response \([0-9]*\).*/\1/p'
}
check "srt allowedDomains is the whole allowlist (pypi.org refused)" \
    [ "$(code "$S")" = 403 ]
printf '{"sandbox":{"network":{"allowedDomains":["example.invalid"]}}}\n' \
    >"$W/../air-$$.json"
c=$(code "$W/../air-$$.json")
check "airlock format keeps the baseline (pypi.org not refused: $c)" \
    [ "$c" != 403 ]
rm -f "$W/../srt-$$.json" "$W/../up-$$.json" "$W/../root-$$.json" \
    "$W/../air-$$.json"
cd /
finish
