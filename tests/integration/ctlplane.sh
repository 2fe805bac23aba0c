#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Issue 25: the control plane out of reach, what a person's terminal
# shows, the managed lock over terminals.
# - With /tmp and $XDG_RUNTIME_DIR bound, no socket of the user's on the
#   host is reachable from inside: airlockd's (whose terminal.open with
#   backend none ran a host command), a session-bus-like one, an editor's
#   in /tmp and in the workspace, an abstract one; through a symlink, a
#   hard link or /proc/self/fd neither.  The same probe from outside
#   reaches each one (and the host command runs): the control.  A socket
#   the sandbox made itself still works.
# - The forged approval prompt of the issue, through the real `airlock
#   approve` on a pty: what is printed holds no raw ESC, shows the real
#   command; the request ids are random.
# - Under a managed sandbox.enabled=true, terminal.open with backend none
#   is refused, and with none named opens the sandbox; without the
#   managed file (the control) none opens the host shell.
# The managed file is the real one, in a private mount namespace (as
# managed.sh); as a normal user those checks are skipped.
. "$(dirname "$0")/lib.sh"
N=30
MANAGED=/etc/airlock/managed-settings.json

if [ "$(id -u)" -eq 0 ] && [ -z "${AIRLOCK_MANAGED_NS:-}" ]; then
	made=
	[ -d /etc/airlock ] || { mkdir /etc/airlock && made=1; }
	AIRLOCK_MANAGED_NS=1 unshare --mount --propagation private \
	    sh "$0" "$@"
	rc=$?
	[ -n "$made" ] && rmdir /etc/airlock 2>/dev/null
	exit $rc
fi
plan $N

H=$(mkwork)		# the user's home
W=$(mkwork)		# the workspace
SD=$(mkwork)		# sockets, markers
RT="$SD/rt"		# the user's $XDG_RUNTIME_DIR
mkdir -p "$RT" "$H/.config"
chmod 0700 "$RT"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H" "$RT" "$SD"
PY="$STAGE/tests/integration/ctlplane_rpc.py"
cp "$PY" "$W/probe.py"	# what the sandbox runs, where it sees it
IPY="$W/probe.py"
ED="/tmp/ctlplane-editor-$$.sock"
ABS="@ctlplane-abstract-$$"
pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; rm -f "$ED"; }
trap cleanup EXIT

# airlockd on its default socket, $XDG_RUNTIME_DIR/airlock/airlockd.sock.
spawn_user env HOME="$H" XDG_RUNTIME_DIR="$RT" "$AIRLOCKD" --quiet \
    2>"$SD/d.err"
pids="$pids $!"
DS="$RT/airlock/airlockd.sock"
# The user's other sockets: a session bus, an editor's in /tmp and one
# in the workspace, an abstract one.
spawn_user python3 "$PY" serve "$SD/ready" "$RT/bus" "$ED" "$W/.ide.sock" \
    "$ABS"
pids="$pids $!"
i=0
while { [ ! -S "$DS" ] || [ ! -s "$SD/ready" ]; } && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
ALL="$DS $RT/bus $ED $W/.ide.sock $ABS"
opened() { grep -c " open$" "$1" 2>/dev/null || true; }

# The control: from outside every socket answers, and airlockd's opens
# a host shell that touches the marker.
as_user env HOME="$H" python3 "$PY" probe "$SD/m-out" $ALL >"$SD/out.txt" \
    2>&1
check_sh "outside: every socket of the user's is reachable (control)" \
    '[ "$(opened "$SD/out.txt")" -eq 5 ]' || diag "$(cat "$SD/out.txt")"
check "outside: airlockd's terminal.open none runs a host command" \
    [ -e "$SD/m-out" ]

# Inside, /tmp and $XDG_RUNTIME_DIR bound writable.
inside() {	# inside OUT [RUN-ARGS]: the probe in a sandbox
	_o=$1
	shift
	as_user env HOME="$H" XDG_RUNTIME_DIR="$RT" "$AIRLOCK" run --quiet \
	    --workspace "$W" --bind /tmp --bind "$RT" "$@" -- \
	    python3 "$IPY" probe "$SD/m-in" $ALL >"$_o" 2>&1
}
inside "$SD/in.txt"
# A /tmp past the repository walk's bound refuses the launch: say so.
grep -q "directories within" "$SD/in.txt" && diag "$(cat "$SD/in.txt")
/tmp holds $(find /tmp -mindepth 1 -maxdepth 4 -type d 2>/dev/null |
    wc -l) directories within 4 levels: clean it to run this test"
for s in $ALL; do
	check "inside, /tmp and \$XDG_RUNTIME_DIR bound: $s refused" \
	    grep -q "^$s refused" "$SD/in.txt"
done
check_sh "  and no host command ran" '[ ! -e "$SD/m-in" ]'
[ "$(opened "$SD/in.txt")" -eq 0 ] || diag "$(cat "$SD/in.txt")"

# Other routes to the same sockets: a symlink, a hard link (in the
# bound /tmp), the inode through /proc/self/fd.
as_user env HOME="$H" "$AIRLOCK" run --quiet --no-policy-check \
    --workspace "$W" --bind /tmp -- sh -c "
	ln -sf '$ED' '$W/link.sock'; ln -f '$ED' /tmp/ctlplane-hard-$$.sock
	python3 '$IPY' probe '$SD/m-in' '$W/link.sock' \
	    /tmp/ctlplane-hard-$$.sock
	python3 -c '
import os, socket, sys
fd = os.open(\"$ED\", os.O_PATH)
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(\"/proc/self/fd/%d\" % fd); print(\"procfd open\")
except OSError as e:
    print(\"procfd refused\", e.errno)
'" >"$SD/routes.txt" 2>&1
rm -f "/tmp/ctlplane-hard-$$.sock"
check "inside: through a symlink in the workspace, refused" \
    grep -q "link.sock refused" "$SD/routes.txt"
check "inside: through a hard link in the bound /tmp, refused" \
    grep -q "hard-$$.sock refused" "$SD/routes.txt"
check "inside: through /proc/self/fd of an O_PATH open, refused" \
    grep -q "procfd refused" "$SD/routes.txt"
[ "$(opened "$SD/routes.txt")" -eq 0 ] || diag "$(cat "$SD/routes.txt")"

# The sandbox's own sockets still work: in its /tmp and its workspace.
as_user env HOME="$H" "$AIRLOCK" run --quiet --workspace "$W" -- sh -c \
    "python3 '$IPY' own /tmp; python3 '$IPY' own '$W'" >"$SD/own.txt" 2>&1
check_sh "inside: a socket the sandbox bound itself is reachable" \
    '[ "$(grep -c "own open" "$SD/own.txt")" -eq 2 ]' ||
    diag "$(cat "$SD/own.txt")"
check_sh "  also from a thread that does not lead its process" \
    '[ "$(grep -c "thread open" "$SD/own.txt")" -eq 2 ]'
as_user env HOME="$H" "$AIRLOCK" run --quiet --workspace "$W" -- \
    timeout 30 python3 "$IPY" backlog /tmp >"$SD/bl.txt" 2>&1
check "inside: a connect waiting on a full backlog holds up no file write" \
    grep -q "^backlog ok" "$SD/bl.txt"
check "inside: airlockd's socket directory is masked (empty)" \
    as_user env HOME="$H" XDG_RUNTIME_DIR="$RT" "$AIRLOCK" run --quiet \
    --workspace "$W" --bind "$RT" -- sh -c "! ls -A '$RT' | grep -q ."

# airlockd's socket inside the workspace itself (--socket): the run
# works there, the socket is out of reach.
W2=$(mkwork)
cp "$PY" "$W2/probe.py"
spawn_user env HOME="$H" "$AIRLOCKD" --quiet --socket "$W2/ctl.sock" \
    2>"$SD/d2.err"
pids="$pids $!"
i=0
while [ ! -S "$W2/ctl.sock" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
as_user env HOME="$H" "$AIRLOCK" run --quiet --socket "$W2/ctl.sock" \
    --workspace "$W2" -- sh -c "python3 probe.py probe '$SD/m-ws' \
    '$W2/ctl.sock' && echo ran-in-ws" >"$SD/ws.txt" 2>&1
check_sh "airlockd's socket in the workspace: the run works, it is refused" \
    'grep -q "ctl.sock refused" "$SD/ws.txt" &&
    grep -q ran-in-ws "$SD/ws.txt" && [ ! -e "$SD/m-ws" ]' ||
    diag "$(cat "$SD/ws.txt")"

# / read-only through the settings (allowRead "/" binds the host's root
# read-only): every socket is still refused.
printf '{"sandbox":{"filesystem":{"allowRead":["/"]}}}\n' >"$SD/root.json"
chmod 0644 "$SD/root.json"
inside "$SD/rootro.txt" --settings "$SD/root.json"
check_sh "inside, / read-only by allowRead: all refused, no host command" \
    '[ "$(grep -c " refused" "$SD/rootro.txt")" -eq 5 ] &&
    [ ! -e "$SD/m-in" ]' ||
    diag "$(cat "$SD/rootro.txt")"

# The rest of the sandbox stays on top of that root: the secret set
# masked, the sandbox's own /proc, /tmp and /run, the workspace
# writable, airlock's git config present.  (Mounted beneath the host's
# root instead, every one of these was lost: the host's ~/.ssh read,
# every process of the machine listed, the workspace read-only.)
mkdir -p "$H/.ssh"
echo ROOTBIND-SECRET >"$H/.ssh/id_ed25519"
echo host-tmp >"/tmp/ctlplane-hosttmp-$$"
chmod 0644 "/tmp/ctlplane-hosttmp-$$"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H/.ssh"
as_user env HOME="$H" "$AIRLOCK" run --quiet --workspace "$W" \
    --settings "$SD/root.json" -- sh -c "
    cat '$H/.ssh/id_ed25519' 2>/dev/null || echo no-secret
    [ -e /proc/$$ ] && echo host-proc || echo own-proc
    [ -e /tmp/ctlplane-hosttmp-$$ ] && echo host-tmp || echo own-tmp
    [ -f /run/airlock/gitconfig ] && echo gitconfig
    echo w >'$W/rootbind-w' && echo ws-writable" >"$SD/rootbind.txt" 2>&1
rm -f "/tmp/ctlplane-hosttmp-$$"
check_sh "allowRead /: the secret set stays masked, /proc and /tmp the sandbox's" \
    'grep -q no-secret "$SD/rootbind.txt" &&
    ! grep -q ROOTBIND-SECRET "$SD/rootbind.txt" &&
    grep -q own-proc "$SD/rootbind.txt" &&
    grep -q own-tmp "$SD/rootbind.txt"' || diag "$(cat "$SD/rootbind.txt")"
check_sh "allowRead /: the workspace writable, /run/airlock/gitconfig there" \
    'grep -q ws-writable "$SD/rootbind.txt" &&
    grep -q gitconfig "$SD/rootbind.txt" && [ -e "$W/rootbind-w" ]'

# / read-only is refused, with the reason.
as_user env HOME="$H" "$AIRLOCK" run --quiet --workspace "$W" \
    --ro-bind / -- true >"$SD/root.txt" 2>&1
rc=$?
check_sh "--ro-bind / is refused, saying why (exit $rc)" \
    '[ "$rc" -ne 0 ] && grep -q "would hide" "$SD/root.txt"'

# What an approver sees.
as_user env HOME="$H" XDG_RUNTIME_DIR="$RT" python3 "$PY" forged "$DS" \
    "$AIRLOCK" "$SD/m-forged" >"$SD/forged.txt" 2>&1
check "approve: the forged prompt reaches the terminal without a raw ESC" \
    grep -q "^raw_esc False" "$SD/forged.txt"
check "approve: the real command is shown" \
    grep -q "^real_shown True" "$SD/forged.txt"
check 'approve: the control characters are shown visibly (CR, ESC as text)' \
    grep -q "^escaped_shown True" "$SD/forged.txt"
grep -q "^marker False" "$SD/forged.txt" || diag "$(cat "$SD/forged.txt")"
as_user env HOME="$H" python3 "$PY" ids "$DS" >"$SD/ids.txt" 2>&1
read -r id1 id2 <"$SD/ids.txt"
check_sh "approval ids are random: 96 bits in hex, two differ ($id1 $id2)" \
    'echo "$id1" | grep -Eq "^r[0-9a-f]{24}$" &&
    echo "$id2" | grep -Eq "^r[0-9a-f]{24}$" && [ "$id1" != "$id2" ]'

# `airlock policy check` on a terminal (script(1) gives it a pty) quotes
# a command line a script may have written.
printf 'sudo id \033[2K\033]0;x\007 #' >"$SD/pc.cmd"
chmod 0644 "$SD/pc.cmd"
as_user env HOME="$H" script -qec \
    "'$AIRLOCK' policy check \"\$(cat '$SD/pc.cmd')\"" /dev/null \
    >"$SD/pc.txt" 2>&1
check_sh "policy check shows the command's ESC and BEL visibly, none raw" \
    '! grep -q "$(printf "\033")" "$SD/pc.txt" && grep -q "e\[2K" "$SD/pc.txt"' ||
    diag "$(od -c "$SD/pc.txt" | head -5)"

# The managed lock over terminals.
if [ "$(id -u)" -ne 0 ]; then
	for i in 1 2 3 4 5; do ok "managed terminals # SKIP needs root"; done
	finish
	exit
fi
mount -t tmpfs -o mode=0755,size=64k ctlplane-managed /etc/airlock
term() {	# term MARKER BACKEND: terminal.open on a managed airlockd
	as_user env HOME="$H" python3 "$PY" term "$SD/m.sock" "$SD/$1" "$2"
}
spawn_user env HOME="$H" "$AIRLOCKD" --quiet --socket "$SD/m.sock" \
    2>"$SD/m.err"
mpid=$!
wait_sock "$SD/m.sock"
term t0 none >"$SD/t0.txt" 2>&1
kill "$mpid"
check_sh "no managed file: backend none opens a host shell (control)" \
    '[ -e "$SD/t0" ] && [ "$(cat "$SD/t0.label")" = host ]' ||
    diag "$(cat "$SD/t0.txt" "$SD/m.err")"
printf '{"sandbox":{"enabled":true}}\n' >"$MANAGED"
chmod 0644 "$MANAGED"
rm -f "$SD/m.sock"
spawn_user env HOME="$H" "$AIRLOCKD" --quiet --socket "$SD/m.sock" \
    2>"$SD/m.err"
pids="$pids $!"
wait_sock "$SD/m.sock"
term t1 none >"$SD/t1.txt" 2>&1
check_sh "managed enabled=true: backend none is refused, naming the file" \
    'grep -q "refused.*$MANAGED" "$SD/t1.txt" && [ ! -e "$SD/t1" ]' ||
    diag "$(cat "$SD/t1.txt")"
term t2 omit >"$SD/t2.txt" 2>&1
check "managed: a terminal with no backend named opens the sandbox" \
    grep -q "^opened native" "$SD/t2.txt"
check "  and its shell runs inside (AIRLOCK_SANDBOX=native)" \
    [ "$(cat "$SD/t2.label" 2>/dev/null)" = native ]
check "managed: run --sandbox off is refused too" \
    fails as_user env HOME="$H" "$AIRLOCK" run --socket "$SD/m.sock" \
    --workspace "$W" --sandbox off -- touch "$SD/t4"
finish
