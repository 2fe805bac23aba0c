#!/bin/sh
# SPDX-License-Identifier: ISC
#
# A carve-out beneath a secret opens the path it names (issue 25).  The
# user's own link ~/.ssh/known_hosts -> id_ed25519 made allowRead
# ~/.ssh/known_hosts open the private key (the carve-out is taken by its
# canonical path); a --bind of such a link, or of a link elsewhere that
# resolves into a secret, likewise.  Each is refused, naming both paths.
# Controls: a plain known_hosts carve-out still opens known_hosts, and
# the key is what the link shows when the secret set is not in the way.
. "$(dirname "$0")/lib.sh"
plan 8

W=$(mkwork)
H=$(mkwork)
mkdir -p "$H/.ssh" "$H/proj"
echo private-key >"$H/.ssh/id_ed25519"
echo kh-line >"$H/.ssh/kh-real"
ln -s id_ed25519 "$H/.ssh/known_hosts"
ln -s ../.ssh/id_ed25519 "$H/proj/key"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H"
S="$W/../cl-$$.json"
trap 'rm -f "$S" "$W/../cl-$$.err"' EXIT
hrun() {	# hrun SETTINGS ARGS... -- sh -c CMD, with $H as the home
	_s=$1
	shift
	as_user HOME="$H" "$AIRLOCK" run --no-policy-check --workspace "$W" \
	    --settings "$_s" "$@"
}

# Control: what the link shows, outside any sandbox.
check "control: the user's known_hosts link shows the key" \
    [ "$(cat "$H/.ssh/known_hosts")" = private-key ]

printf '{"sandbox":{"filesystem":{"allowRead":["~/.ssh/known_hosts"]}}}\n' \
    >"$S"
out=$(hrun "$S" -- sh -c 'cat ~/.ssh/id_ed25519 || cat ~/.ssh/known_hosts' \
    2>"$W/../cl-$$.err")
check "allowRead of known_hosts -> id_ed25519 does not show the key" \
    [ "$out" != private-key ]
check_sh "it is refused, naming both paths" \
    "grep -q 'allowRead $H/.ssh/known_hosts resolves to $H/.ssh/id_ed25519' \
    '$W/../cl-$$.err'"

printf '{}\n' >"$S"
out=$(hrun "$S" --bind "$H/.ssh/known_hosts" -- sh -c \
    "cat '$H/.ssh/id_ed25519'" 2>"$W/../cl-$$.err")
check "--bind of that link does not show the key" [ "$out" != private-key ]
check "  refused, naming both paths" grep -q \
    "bind $H/.ssh/known_hosts resolves to $H/.ssh/id_ed25519" "$W/../cl-$$.err"
out=$(hrun "$S" --bind "$H/proj/key" -- sh -c \
    "cat '$H/.ssh/id_ed25519' || cat '$H/proj/key'" 2>"$W/../cl-$$.err")
check "--bind of a link elsewhere into ~/.ssh does not show the key" \
    [ "$out" != private-key ]
check "  refused: it resolves inside the secret" grep -q \
    "resolves to $H/.ssh/id_ed25519, inside the secret" "$W/../cl-$$.err"

# Control: a plain file carve-out still opens that file alone.
rm -f "$H/.ssh/known_hosts"
mv "$H/.ssh/kh-real" "$H/.ssh/known_hosts"
printf '{"sandbox":{"filesystem":{"allowRead":["~/.ssh/known_hosts"]}}}\n' \
    >"$S"
check "control: a plain known_hosts carve-out still opens it" \
    [ "$(hrun "$S" -- sh -c 'cat ~/.ssh/known_hosts' 2>/dev/null)" = kh-line ]
finish
