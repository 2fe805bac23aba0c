#!/bin/sh
# SPDX-License-Identifier: ISC
#
# `make install PREFIX=...` after a default build (issue 13): the
# helpers' directory is compiled into airlockd, so the install must
# rebuild it, and the installed airlock must then build a real sandbox
# with the installed launcher (not look in /usr/local/libexec/airlock).
# Works on a copy of the source and of the build, so only the objects
# that depend on the prefix are rebuilt.
. "$(dirname "$0")/lib.sh"
plan 3
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
finish
