#!/bin/sh
# SPDX-License-Identifier: ISC
#
# git over ssh through the session's SOCKS proxy without netcat (issue
# 13): GIT_SSH_COMMAND's ProxyCommand is airlock's own proxy-connect,
# bound read-only into the sandbox.  A real ssh client inside reaches a
# loopback ssh-like endpoint on the host (it answers with an SSH banner,
# then echoes) through the real proxyd; an address the allowlist does not
# name is refused by the proxy.
. "$(dirname "$0")/lib.sh"
plan 7

W=$(mkwork)
cd "$W" || exit 1
python3 - "$W/port" >/dev/null 2>&1 <<'PY' &
import socket, sys, threading
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
def serve(c):
    c.sendall(b"SSH-2.0-airlocktest_echo\r\n")
    while True:
        d = c.recv(4096)
        if not d:
            break
        c.sendall(d)
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
SRV=$!
i=0
while [ ! -s "$W/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(cat "$W/port")
diag "endpoint on 127.0.0.1:$PORT; nc on this host: $(command -v nc || echo none)"

run() {	# run ALLOWED -- CMD...
	_a=$1
	shift 2
	as_user "$AIRLOCK" run --workspace "$W" --allow-domain "$_a" -- "$@"
}

out=$(run "localhost:$PORT" -- sh -c 'printf "%s\n" "$GIT_SSH_COMMAND"' 2>&1)
check "GIT_SSH_COMMAND uses airlock proxy-connect, not nc" \
    sh -c 'case $1 in *"/run/airlock/bin/airlock proxy-connect 127.0.0.1:"*) ! printf %s "$1" | grep -q "nc -X" ;; *) exit 1 ;; esac' sh "$out"
check "the airlock binary is visible, read-only, inside" \
    run "localhost:$PORT" -- sh -c \
    'test -x /run/airlock/bin/airlock && ! test -w /run/airlock/bin/airlock'

out=$(run "localhost:$PORT" -- sh -c "printf 'ping-through-socks\n' |
    /run/airlock/bin/airlock proxy-connect 127.0.0.1:1080 localhost $PORT" \
    2>&1)
check "proxy-connect tunnels stdin/stdout through proxyd" \
    sh -c 'printf "%s\n" "$1" | grep -q "^SSH-2.0-airlocktest_echo" &&
    printf "%s\n" "$1" | grep -q "^ping-through-socks"' sh "$out"
[ "$_fails" -eq 0 ] || diag "$out"

# The real ssh client with the sandbox's GIT_SSH_COMMAND, as git runs it
# (from a script: the policy would not let an eval through).
OPTS="-v -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=10"
printf 'eval "$GIT_SSH_COMMAND %s -p %s git@localhost true"\n' "$OPTS" "$PORT" \
    >"$W/ssh.sh"
printf 'GIT_SSH_COMMAND="$GIT_SSH_COMMAND %s" git ls-remote %s\n' "$OPTS" \
    "ssh://git@localhost:$PORT/acme/app.git" >"$W/git.sh"
out=$(run "localhost:$PORT" -- sh ssh.sh 2>&1)
check "ssh inside reaches the host endpoint through the proxy" \
    sh -c 'printf "%s\n" "$1" | grep -q "remote software version airlocktest_echo"' \
    sh "$out"
[ "$_fails" -eq 0 ] || diag "$out"
out=$(run "localhost:$PORT" -- sh git.sh 2>&1)
check "git ls-remote over ssh takes the same path" \
    sh -c 'printf "%s\n" "$1" | grep -q "remote software version airlocktest_echo"' \
    sh "$out"
[ "$_fails" -eq 0 ] || diag "$out"

out=$(run "example.invalid" -- sh -c "printf 'x\n' |
    /run/airlock/bin/airlock proxy-connect 127.0.0.1:1080 localhost $PORT; \
    echo rc=\$?" 2>&1)
check "a destination not on the allowlist is refused by the proxy" \
    sh -c 'printf "%s\n" "$1" | grep -q "refused by the proxy" &&
    printf "%s\n" "$1" | grep -q "rc=1" &&
    ! printf "%s\n" "$1" | grep -q airlocktest' sh "$out"
check "proxy-connect rejects bad arguments (usage, exit 2)" \
    sh -c '"$1" proxy-connect 127.0.0.1:1 host 99999 2>/dev/null; [ $? -eq 2 ]' \
    sh "$AIRLOCK"
kill "$SRV" 2>/dev/null
cd /
finish
