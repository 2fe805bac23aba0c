#!/bin/sh
# SPDX-License-Identifier: ISC
#
# `airlock run` judges its own command line with the settings' rules and
# the run's mode before it starts anything (issue 13, R-C4): deny is
# refused with exit 126 and the rule on stderr; ask has no approver and
# is refused the same way; allowed commands run.
. "$(dirname "$0")/lib.sh"
plan 13

W=$(mkwork)
cd "$W" || exit 1
as_user git init -q -b main "$W/repo"
as_user git -C "$W/repo" -c user.name=t -c user.email=t@example.invalid \
    commit -q --allow-empty -m initial
# As the repository's owner: root's git refuses another user's repo.
head_of() { as_user git -C "$W/repo" rev-parse HEAD 2>/dev/null; }
head0=$(head_of)
[ -n "$head0" ] || echo "Bail out! no initial commit"
printf '{"rules":{"create-commit":"deny"}}\n' >"$W/deny.json"
commit() {	# commit [RUN-OPTIONS]: airlock run -- git commit in repo
	as_user "$AIRLOCK" run --workspace "$W/repo" "$@" -- git \
	    -c user.name=t -c user.email=t@example.invalid commit -q \
	    --allow-empty -m agent
}

commit --settings "$W/deny.json" --events "$W/ev1.jsonl" 2>"$W/e1"
rc=$?
check "rules.create-commit=deny: airlock run -- git commit exits 126 ($rc)" \
    [ "$rc" -eq 126 ]
check "  nothing was committed" \
    [ "$(head_of)" = "$head0" ]
check "  the rule is printed" grep -q 'rules.create-commit=deny' "$W/e1"
check "  nothing was started (no event stream)" [ ! -s "$W/ev1.jsonl" ]

commit 2>"$W/e2"
rc=$?
check_sh "control: without the rule the commit is made ($rc)" \
    '[ "$rc" -eq 0 ] && [ "$(head_of)" != "$head0" ]'

as_user "$AIRLOCK" run --workspace "$W/repo" -- sh -c \
    'git push origin main' 2>"$W/e3"
rc=$?
check_sh "ask (git push) with no approver is refused, exit 126 ($rc)" \
    '[ "$rc" -eq 126 ] && grep -q "ask:git-push (no approver: deny)" "$W/e3"'

as_user "$AIRLOCK" run --workspace "$W/repo" -- sudo id 2>"$W/e4"
rc=$?
check_sh "a hard deny (sudo) is refused, exit 126 ($rc)" \
    '[ "$rc" -eq 126 ] && grep -q "hard-deny:privilege-escalation" "$W/e4"'

as_user "$AIRLOCK" run --workspace "$W/repo" --mode review -- \
    touch made 2>"$W/e5"
rc=$?
check_sh "review mode refuses a mutating command before it runs ($rc)" \
    '[ "$rc" -eq 126 ] && [ ! -e "$W/repo/made" ] &&
    grep -q "mode:review" "$W/e5"'
check "review mode still runs a read-only one" \
    as_user "$AIRLOCK" run --workspace "$W/repo" --mode review -- \
    git log --oneline -1
printf '{"rules":{"network-access":"deny"}}\n' >"$W/net.json"
as_user "$AIRLOCK" run --workspace "$W/repo" --settings "$W/net.json" -- \
    sh -c 'curl -s https://example.com' 2>"$W/e6"
rc=$?
check_sh "rules.network-access=deny refuses curl inside sh -c ($rc)" \
    '[ "$rc" -eq 126 ] && grep -q "rules.network-access=deny" "$W/e6"'
head1=$(head_of)
commit --settings "$W/deny.json" --no-policy-check 2>"$W/e7"
check "--no-policy-check skips the check (the sandbox still confines)" \
    [ "$(head_of)" != "$head1" ]
# Text a shell reads from a pipe is hidden: opaque, ask, no approver.
printf 'touch piped\n' | as_user "$AIRLOCK" run --workspace "$W/repo" -- sh \
    2>"$W/e8"
rc=$?
check "sh reading commands from a pipe is refused, exit 126 ($rc)" \
    sh -c '[ "$1" -eq 126 ] && [ ! -e "$2/repo/piped" ] &&
    grep -q "reads commands from its input" "$3"' sh "$rc" "$W" "$W/e8"
# An interactive shell on the caller's terminal: the person types.
out=$(printf 'echo in-shell-$((6*7))\nexit 3\n' | as_user script -qec \
    "$AIRLOCK run --workspace $W/repo -- bash --norc --noprofile -i" \
    /dev/null 2>&1)
rc=$?
check "an interactive shell on a terminal starts unasked, exits 3 ($rc)" \
    sh -c '[ "$1" -eq 3 ] && printf "%s" "$2" | grep -q in-shell-42 &&
    ! printf "%s" "$2" | grep -q "run it?"' sh "$rc" "$out"
cd /
finish
