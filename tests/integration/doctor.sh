#!/bin/sh
# SPDX-License-Identifier: ISC
#
# airlock doctor (issue 29), as the unprivileged user: on this host every
# check is ok and each "by hand" command of an ok line, run for real,
# succeeds; then each check is made to fail for real and says so, naming
# the fix: a credentials file readable by others, settings that do not
# load (and then no probe), a helper writable by its group in a copy of
# the build, a stale socket (warn) and a live airlockd (ok).
. "$(dirname "$0")/lib.sh"
plan 9

W=$(mkwork)
H="$W/home"
mkdir -p "$H/.config/airlock" && chown -R "$TUSER" "$H"
D() { as_user env HOME="$H" PATH="$B:/usr/bin:/bin" "$@"; }
cd "$W" || exit 1

D "$B/airlock" doctor >"$W/ok.out" 2>&1
rc=$?
sed 's/^/# /' "$W/ok.out"
check_sh "doctor on this host: exit 0, every check ok (control for the failures below)" \
    '[ "$rc" -eq 0 ] && ! grep -qE "^(warn|fail) " "$W/ok.out" &&
    [ "$(grep -c "^ok " "$W/ok.out")" -ge 12 ] &&
    grep -q "^ok    probe run " "$W/ok.out" && grep -q "^0 failed" "$W/ok.out"'
check_sh "  each check is followed by a by-hand command" \
    '[ "$(grep -c "^      by hand: " "$W/ok.out")" -eq "$(grep -cE "^(ok|warn|fail) " "$W/ok.out")" ]'
bad=""
grep "^      by hand: " "$W/ok.out" | sed 's/^      by hand: //' >"$W/cmds"
while IFS= read -r c; do
	D sh -c "$c" >/dev/null 2>&1 </dev/null || bad="$bad [$c]"
done <"$W/cmds"
check "  and each of those commands, run by the user, succeeds [$bad]" \
    [ -z "$bad" ]

# A credentials file others can read.
echo '{}' >"$H/.config/airlock/credentials.json"
chown "$TUSER" "$H/.config/airlock/credentials.json"
chmod 0644 "$H/.config/airlock/credentials.json"
D "$B/airlock" doctor >"$W/cred.out" 2>&1
rc=$?
check_sh "a credentials file mode 0644: fail, exit 1, says chmod 600" \
    '[ "$rc" -eq 1 ] && grep -q "^fail  credentials file .*0644.*chmod 600" "$W/cred.out"'
chmod 0600 "$H/.config/airlock/credentials.json"

# Settings that do not load: said, and no probe is run with them.
echo '{ "sandbox": ' >"$W/bad.json"
chmod 0644 "$W/bad.json"
D "$B/airlock" doctor --settings "$W/bad.json" >"$W/set.out" 2>&1
rc=$?
check_sh "settings that do not load: fail naming the file; the probe not tried" \
    '[ "$rc" -eq 1 ] && grep -q "^fail  settings .*bad.json" "$W/set.out" &&
    grep -q "^fail  probe run .*not tried" "$W/set.out"'

# A helper its group can write, in a copy of the build.
CB="$W/copy"
mkdir "$CB" && cp -p "$B"/airlock "$B"/airlockd "$B"/airlock-* "$CB/"
chmod 0775 "$CB/airlock-launcher"
chmod -R a+rX "$CB"
D "$CB/airlock" doctor >"$W/bin.out" 2>&1
rc=$?
check_sh "a launcher its group can write: fail, says chmod go-w" \
    '[ "$rc" -eq 1 ] && grep -q "^fail  airlock-launcher .*$CB/airlock-launcher: mode 0775.*chmod go-w" "$W/bin.out"'
rm -f "$CB/airlock-fs"
D "$CB/airlock" doctor >"$W/miss.out" 2>&1
check "a missing helper: fail, naming where it was looked for" \
    grep -q "^fail  airlock-fs .*No such file" "$W/miss.out"

# The socket: stale (a file nothing listens on), then a live airlockd.
SD=$(mkwork)
D python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])' "$SD/stale.sock"
D "$B/airlock" doctor --socket "$SD/stale.sock" >"$W/stale.out" 2>&1
check "a stale socket: warn" \
    grep -q "^warn  socket .*stale.sock.*stale" "$W/stale.out"
spawn_user env HOME="$H" "$AIRLOCKD" --socket "$SD/live.sock" 2>/dev/null
dpid=$!
i=0
while [ ! -S "$SD/live.sock" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
D "$B/airlock" doctor --socket "$SD/live.sock" >"$W/live.out" 2>&1
check "a live airlockd: ok, it listens" \
    grep -q "^ok    socket .*airlockd listens on $SD/live.sock" "$W/live.out"
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null
cd /
[ "$_fails" -eq 0 ] || sed 's/^/# /' "$W/cred.out" "$W/set.out" "$W/bin.out" \
    "$W/stale.out" "$W/live.out"
finish
