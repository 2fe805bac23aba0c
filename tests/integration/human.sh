#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Output for people (issue 13): `airlock status` and `airlock policy
# check` are readable on a terminal and JSON with --json or when stdout
# is not a terminal; policy check exits 0 allow, 1 deny, 3 ask (2 usage,
# 4 settings); `airlock run` sums up its violations on stderr unless
# --quiet; JSON errors name line and column; the bash completion works.
. "$(dirname "$0")/lib.sh"
plan 19
W=$(mkwork)
cd "$W" || exit 1

# on_tty CMD...: run with stdout on a pseudo-terminal, print its output
on_tty() {
	as_user python3 -c 'import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace").replace("\r\n", "\n"))' "$@"
}
pc_rc() { as_user "$AIRLOCK" policy check -- "$1" >/dev/null 2>&1; echo $?; }

check "policy check: allow exits 0" [ "$(pc_rc 'ls -la')" -eq 0 ]
check "policy check: deny exits 1" [ "$(pc_rc 'sudo id')" -eq 1 ]
check "policy check: ask exits 3" [ "$(pc_rc 'git push origin main')" -eq 3 ]
as_user "$AIRLOCK" policy check --bogus -- ls >/dev/null 2>&1
check "policy check: a usage error exits 2" [ $? -eq 2 ]
printf '{\n  "rules": {\n    "create-commit": deny\n  }\n}\n' >"$W/bad.json"
as_user "$AIRLOCK" policy check --settings "$W/bad.json" -- ls \
    >/dev/null 2>"$W/bad.err"
rc=$?
check "policy check: settings that do not load exit 4 ($rc)" [ "$rc" -eq 4 ]
check "  and the JSON error names line and column" \
    grep -q "bad.json: line 3, column [0-9]*:" "$W/bad.err"

out=$(on_tty "$AIRLOCK" policy check -- 'ls && git push origin main')
check "policy check on a terminal: a readable verdict" sh -c '
    printf "%s\n" "$1" | grep -q "^ask  (chat mode)  ask:git-push" &&
    printf "%s\n" "$1" | grep -q "why: git push" &&
    ! printf "%s\n" "$1" | grep -q "{"' sh "$out"
out=$(on_tty "$AIRLOCK" policy check --json -- 'ls')
check "  and JSON with --json" sh -c \
    'printf "%s" "$1" | python3 -c "import json,sys; json.load(sys.stdin)"' \
    sh "$out"
check "  and JSON when not a terminal (scripts keep working)" sh -c \
    '"$1" policy check -- ls | python3 -c "import json,sys; json.load(sys.stdin)"' \
    sh "$AIRLOCK"

out=$(on_tty "$AIRLOCK" status)
check "status on a terminal: readable" sh -c '
    printf "%s\n" "$1" | grep -q "^sandbox:   available (backend native)" &&
    printf "%s\n" "$1" | grep -q "^daemon:    proxyd    not running (starts at a sandbox.s first connection)"' sh "$out"
[ "$_fails" -eq 0 ] || diag "$out"
# A daemon that is not installed never starts: status says so rather
# than that it starts at the first connection.
cp -R "$B" "$W/b2"
rm "$W/b2/airlock-gatewayd"
chmod -R a+rX "$W/b2"
out=$(on_tty "$W/b2/airlock" status)
check "  a daemon that is not installed is shown as such" sh -c '
    printf "%s\n" "$1" | grep -q "^daemon:    gatewayd  not installed$" &&
    printf "%s\n" "$1" | grep -q "^daemon:    proxyd    not running (starts"' \
    sh "$out"
[ "$_fails" -eq 0 ] || diag "$out"
out=$(on_tty "$AIRLOCK" status --json)
check "  and JSON with --json" sh -c \
    'printf "%s" "$1" | python3 -c "import json,sys; assert json.load(sys.stdin)[\"available\"]"' \
    sh "$out"

as_user "$AIRLOCK" run --workspace "$W" -- sh -c \
    'echo x > .env; echo y > .env.local; true' >/dev/null 2>"$W/run.err"
check_sh "run: a summary of the refusals on stderr, each named with its rule" \
    'grep -qF "airlock:   write: $W/.env refused - protected file (secrets)" "$W/run.err" &&
    grep -qF "airlock:   write: $W/.env.local refused - protected file (secrets)" "$W/run.err"'
as_user "$AIRLOCK" run --workspace "$W" --quiet -- sh -c \
    'echo x > .env; true' >/dev/null 2>"$W/quiet.err"
check "  --quiet turns it off" sh -c "! grep -q 'sandbox refused' '$W/quiet.err'"
as_user "$AIRLOCK" run --workspace "$W" -- true 2>"$W/clean.err"
check "  a clean run prints none" [ ! -s "$W/clean.err" ]

comp() {	# comp WORDS...: what bash completes for the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
	    _airlock; echo "${COMPREPLY[*]}"' sh \
	    "${AIRLOCK_TOP:?}/contrib/completion/airlock.bash" "$@"
}
check "bash completion: subcommands" [ "$(comp airlock st)" = status ]
check "bash completion: run's options and modes" sh -c \
    '[ "$1" = "--no-policy-check" ] && [ "$2" = "review" ]' sh \
    "$(comp airlock run --no)" "$(comp airlock run --mode rev)"

# approve reads AIRLOCK_SOCKET as run does, and names the socket it
# could not reach (the name was printed after it was freed).
NS="$W/no-airlockd.sock"
as_user env AIRLOCK_SOCKET="$NS" "$AIRLOCK" approve </dev/null \
    >/dev/null 2>"$W/appr.err"
check "approve: AIRLOCK_SOCKET is the airlockd it asks, named when absent" \
    grep -qxF "airlock approve: no airlockd listening on $NS" "$W/appr.err"
as_user "$AIRLOCK" approve --socket "$NS.2" </dev/null >/dev/null \
    2>"$W/appr2.err"
check "approve: --socket, named when absent" \
    grep -qxF "airlock approve: no airlockd listening on $NS.2" "$W/appr2.err"
cd /
finish
