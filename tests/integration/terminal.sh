#!/bin/sh
# SPDX-License-Identifier: ISC
#
# airlockd's terminals (R-A4) through their PTY, as the desktop app
# drives them (terminal_drive.py): typing, resize, Ctrl-C and the exit
# status for both backends; in native the secret set is unreadable and
# the shell is in the sandbox, in none it is the host's; close hangs up;
# a native terminal fails to open where no sandbox can be built, and
# `airlock shell` refuses to run unconfined.
. "$(dirname "$0")/lib.sh"
plan 27

H=$(mkwork)		# the test user's home, with a secret
mkdir -p "$H/.ssh" "$H/proj"
echo SECRET-KEY-BYTES >"$H/.ssh/id_rsa"
chmod 0600 "$H/.ssh/id_rsa"
printf '{"sandbox":{"enabled":false}}\n' >"$H/off.json"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H"
D="$(dirname "$0")/terminal_drive.py"

drive() {	# drive OUT [AIRLOCKD-ARGS]: the driver's findings in OUT
	_o=$1
	shift
	as_user env HOME="$H" DRIVE="${DRIVE:-full}" python3 "$D" \
	    "$AIRLOCKD" "$H/proj" "$H/.ssh/id_rsa" "$@" >"$_o" 2>&1
}
got() { sed -n "s/^$1 //p" "$R"; }
R="$H/full.out"
drive "$R"
[ -s "$R" ] || diag "driver said nothing"
for b in native none; do
	check "$b: opens" [ "$(got ${b}_open)" = ok ]
	check "$b: typing reaches the shell" [ "$(got ${b}_typing)" = True ]
	check "$b: resize reaches the shell (stty size)" \
	    [ "$(got ${b}_resize)" = True ]
	check "$b: Ctrl-C interrupts the foreground command" \
	    [ "$(got ${b}_ctrl_c)" = True ]
	check "$b: 100000 lines of output all arrive" \
	    [ "$(got ${b}_bulk)" = True ]
	check "$b: the exit status comes back (7)" [ "$(got ${b}_exit)" = 7 ]
done
check "native: the shell runs in the sandbox" [ "$(got native_label)" = native ]
check "native: no push gateway (no gateway git config)" \
    [ "$(got native_no_gateway)" = True ]
check "native: the secret set is unreadable" \
    [ "$(got native_secret_read)" = False ]
check "none: the host shell, labelled so" [ "$(got none_label)" = host ]
check "none: the same file is readable on the host (the test is real)" \
    [ "$(got none_secret_read)" = True ]
check "close hangs the shell up (SIGHUP)" [ "$(got close_exit)" = 1 ]
check "a closed terminal takes no input" [ "$(got closed_gone)" = True ]
check "a relative cwd is refused" [ "$(got bad_cwd)" = True ]
check "input that is not base64 is refused" [ "$(got bad_b64)" = True ]
[ "$(grep -c . "$R")" -eq 22 ] || diag "$(cat "$R")"

R="$H/off.out"
DRIVE=refused drive "$R" --sandbox off
check "--sandbox off: native fails to open" [ "$(got refused)" = True ]
check_sh "... saying why" 'got refused_msg | grep -q "no sandbox here"'
check "... and none still opens" [ "$(got none_still_opens)" = True ]
R="$H/set.out"
DRIVE=refused drive "$R" --settings "$H/off.json"
check "sandbox.enabled false: native fails to open" \
    [ "$(got refused)" = True ]

as_user env HOME="$H" AIRLOCK_SANDBOX=off "$AIRLOCK" shell --cwd "$H/proj" \
    -- /bin/sh -c 'echo UNCONFINED' >"$H/sh.out" 2>&1
rc=$?
check "airlock shell with no sandbox exits 125" [ $rc -eq 125 ]
check "... without running the shell" fails grep -q UNCONFINED "$H/sh.out"
finish
