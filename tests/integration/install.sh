#!/bin/sh
# SPDX-License-Identifier: ISC
#
# `make install PREFIX=...` after a default build (issue 13): the
# helpers' directory is compiled into airlockd, so the install must
# rebuild it, and the installed airlock must then build a real sandbox
# with the installed launcher (not look in /usr/local/libexec/airlock).
# Works on a copy of the source and of the build, so only the objects
# that depend on the prefix are rebuilt.
#
# Packaging (issue 29): `make install DESTDIR=... PREFIX=/usr` stages the
# whole install (binaries, helpers, man pages, completions, systemd user
# units); the staged `airlock` works from there (airlockd finds the
# helpers in ../libexec/airlock, not in /usr/libexec/airlock, which is
# not on this machine); airlockd serves a socket systemd passes it
# (systemd-socket-activate, else LISTEN_FDS set by hand) and refuses one
# it cannot serve; `make uninstall` leaves no file behind.
. "$(dirname "$0")/lib.sh"
plan 14
TOP=${AIRLOCK_TOP:?run through tests/run.sh}

C=$(mkwork)
P="$C/prefix"
mkdir "$C/src"
# tar keeps the build's times, so make sees it as up to date.
tar -C "$TOP" --exclude=./.git --exclude=./build -cf - . |
    tar -C "$C/src" -xf -
tar -C "$STAGE" -cf - build | tar -C "$C/src" -xf -
make -s -C "$C/src" install PREFIX="$P" >"$C/make.log" 2>&1
rc=$?
check_sh "make install PREFIX=... after a default build (exit $rc)" \
    '[ "$rc" -eq 0 ] && [ -x "$P/bin/airlockd" ] &&
    [ -x "$P/libexec/airlock/airlock-launcher" ] &&
    [ -x "$P/libexec/airlock/airlock-fs" ]'
check "  the installed airlockd looks in PREFIX/libexec/airlock" \
    grep -q "$P/libexec/airlock" "$P/bin/airlockd"
chmod -R a+rX "$C"
W=$(mkwork)
cd "$W" || exit 1
as_user "$P/bin/airlock" run --workspace "$W" -- \
    sh -c 'echo "$AIRLOCK_SANDBOX" > where' >"$C/run.log" 2>&1
check "  and builds a sandbox with the installed launcher" \
    [ "$(cat "$W/where" 2>/dev/null)" = native ]
[ "$_fails" -eq 0 ] || sed 's/^/# /' "$C/make.log" "$C/run.log"
cd /

# ---- make install DESTDIR=... PREFIX=/usr, and uninstall ----
D="$C/dest"
make -s -C "$C/src" install DESTDIR="$D" PREFIX=/usr >"$C/dmake.log" 2>&1
rc=$?
( cd "$D" && find . -type f -o -type l | sort ) >"$C/files"
sed 's/^/# /' "$C/files"
cat >"$C/want" <<'LIST'
./usr/bin/airlock
./usr/bin/airlockd
./usr/lib/systemd/user/airlockd.service
./usr/lib/systemd/user/airlockd.socket
./usr/libexec/airlock/airlock-clone
./usr/libexec/airlock/airlock-fs
./usr/libexec/airlock/airlock-gatewayd
./usr/libexec/airlock/airlock-guard
./usr/libexec/airlock/airlock-launcher
./usr/libexec/airlock/airlock-proxyd
./usr/share/bash-completion/completions/airlock
./usr/share/man/man1/airlock.1
./usr/share/man/man8/airlockd.8
./usr/share/zsh/site-functions/_airlock
LIST
check_sh "make install DESTDIR=... PREFIX=/usr stages exactly the install (exit $rc)" \
    '[ "$rc" -eq 0 ] && cmp -s "$C/want" "$C/files"'
modes=$(cd "$D/usr" && stat -c '%a %n' bin/* libexec/airlock/* \
    lib/systemd/user/* share/man/man*/* | sort | tr '\n' ' ')
diag "$modes"
check_sh "  programs 0755 (no set-id bit), the rest 0644; the unit runs /usr/bin/airlockd" \
    '[ "$(cd "$D/usr" && stat -c %a bin/* libexec/airlock/* | sort -u)" = 755 ] &&
    [ "$(cd "$D/usr" && stat -c %a lib/systemd/user/* share/man/man*/* | sort -u)" = 644 ] &&
    grep -qx "ExecStart=/usr/bin/airlockd" "$D/usr/lib/systemd/user/airlockd.service"'
chmod -R a+rX "$C"
W=$(mkwork)
cd "$W" || exit 1
as_user "$D/usr/bin/airlock" status >"$C/dstatus" 2>&1
src=$?
as_user "$D/usr/bin/airlock" run --workspace "$W" -- \
    sh -c 'echo "$AIRLOCK_SANDBOX" > where2' >"$C/drun.log" 2>&1
rrc=$?
cd /
sed 's/^/# /' "$C/dstatus" "$C/drun.log"
check_sh "  the staged airlock status works (control: no /usr/libexec/airlock here)" \
    '[ "$src" -eq 0 ] && grep -q "available" "$C/dstatus" &&
    [ ! -e /usr/libexec/airlock ]'
check_sh "  the staged airlock run -- builds a sandbox with the staged launcher" \
    '[ "$rrc" -eq 0 ] && [ "$(cat "$W/where2" 2>/dev/null)" = native ]'

# Socket activation: the socket made by someone else, airlockd started
# at the first connection with LISTEN_FDS=1 and LISTEN_PID.
SD=$(mkwork)
if command -v systemd-socket-activate >/dev/null 2>&1; then
	how=systemd-socket-activate
	spawn_user systemd-socket-activate -l "$SD/a.sock" \
	    "$D/usr/bin/airlockd" 2>"$SD/act.err"
else
	how="LISTEN_FDS by hand"
	spawn_user python3 -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(16)
os.dup2(s.fileno(), 3)
os.environ.update(LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
os.execv(sys.argv[2], [sys.argv[2]])' "$SD/a.sock" "$D/usr/bin/airlockd" \
	    2>"$SD/act.err"
fi
apid=$!
i=0
while [ ! -S "$SD/a.sock" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
as_user "$D/usr/bin/airlock" status --socket "$SD/a.sock" \
    >"$SD/astatus" 2>&1
arc=$?
sed 's/^/# /' "$SD/act.err" | tail -5
check_sh "socket activation ($how): airlockd serves the passed socket" \
    '[ "$arc" -eq 0 ] && grep -q "socket activation" "$SD/act.err" &&
    grep -q "available" "$SD/astatus"'
W2=$(mkwork)
cd "$W2" || exit 1
as_user env AIRLOCK_SOCKET="$SD/a.sock" "$D/usr/bin/airlock" run \
    --workspace "$W2" -- true >"$SD/arun" 2>&1
arun=$?
cd /
check "  airlock run -- true through it" [ "$arun" -eq 0 ]
# Both ways exec airlockd in the process that holds the socket: $apid.
kill "$apid" 2>/dev/null
wait "$apid" 2>/dev/null
check "  airlockd leaves the socket file to the one that made it" \
    [ -S "$SD/a.sock" ]
# The same by hand (what a service manager other than systemd does):
# the socket on fd 3, LISTEN_FDS=1 and LISTEN_PID set, then exec.
spawn_user python3 -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(16)
os.dup2(s.fileno(), 3)
os.environ.update(LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
os.execv(sys.argv[2], [sys.argv[2]])' "$SD/h.sock" "$D/usr/bin/airlockd" \
    2>"$SD/hand.err"
hpid=$!
i=0
while [ ! -S "$SD/h.sock" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
as_user "$D/usr/bin/airlock" status --socket "$SD/h.sock" >"$SD/hstatus" 2>&1
hrc=$?
kill "$hpid" 2>/dev/null
wait "$hpid" 2>/dev/null
check_sh "  and with LISTEN_FDS/LISTEN_PID set by hand" \
    '[ "$hrc" -eq 0 ] && grep -q "socket activation" "$SD/hand.err" &&
    grep -q "available" "$SD/hstatus"'
# What systemd could pass that airlockd cannot serve is refused.
as_user sh -c 'exec env LISTEN_PID=$$ LISTEN_FDS=2 "$0"' \
    "$D/usr/bin/airlockd" >"$SD/bad1" 2>&1
b1=$?
as_user sh -c 'exec 3</dev/null; exec env LISTEN_PID=$$ LISTEN_FDS=1 "$0"' \
    "$D/usr/bin/airlockd" >"$SD/bad2" 2>&1
b2=$?
sed 's/^/# /' "$SD/bad1" "$SD/bad2"
check_sh "  two sockets, or fd 3 not a listening socket: refused, said" \
    '[ "$b1" -ne 0 ] && grep -q "exactly one socket" "$SD/bad1" &&
    [ "$b2" -ne 0 ] && grep -q "not a listening unix stream socket" "$SD/bad2"'

make -s -C "$C/src" uninstall DESTDIR="$D" PREFIX=/usr >"$C/umake.log" 2>&1
urc=$?
left=$(cd "$D" && find . -type f -o -type l)
check_sh "make uninstall DESTDIR=... PREFIX=/usr leaves no file (exit $urc)" \
    '[ "$urc" -eq 0 ] && [ -z "$left" ] && [ ! -e "$D/usr/libexec/airlock" ]'
check "  and the original install is untouched by it" \
    [ -x "$P/bin/airlockd" ]
[ "$_fails" -eq 0 ] || sed 's/^/# /' "$C/dmake.log" "$C/umake.log"
finish
