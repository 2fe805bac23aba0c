#!/bin/sh
# SPDX-License-Identifier: ISC
#
# airlock setup (issue 29, R-H6) and doctor's by-hand commands quoted.
# setup: on this host (no apparmor_restrict_unprivileged_userns) --dry-run
# and a real run say nothing is needed and report ok; then in a fake root
# (--root DIR, the option a packager building an image uses) whose sysctl
# says 1: --dry-run writes nothing, a run writes the profile for the
# launcher, a second run is a no-op ok, a different profile (a partial
# or stale state) is replaced, and a target the user cannot write is an
# error naming the path with exit != 0, SIGINT before any change is
# cancelled.  doctor: with a HOME and a socket
# path holding a space and a quote, each by-hand command, run by a shell
# as printed, succeeds (and so targets the right file).
. "$(dirname "$0")/lib.sh"
plan 23
# The fake root's launcher must be root's (setup refuses one a user could
# replace): as a user, the checks that need it are skipped, named.
rcheck_sh() {
	if [ "$(id -u)" -eq 0 ]; then check_sh "$@"; else ok "$1 # SKIP needs root"; fi
}
rcheck() {
	if [ "$(id -u)" -eq 0 ]; then check "$@"; else ok "$1 # SKIP needs root"; fi
}

W=$(mkwork)
cd "$W" || exit 1
SYSCTL=/proc/sys/kernel/apparmor_restrict_unprivileged_userns

"$B/airlock" setup --dry-run >"$W/dry.out" 2>&1
rc=$?
sed 's/^/# /' "$W/dry.out"
check_sh "--dry-run on this host: says nothing is needed, ok, exit 0" \
    '[ ! -e $SYSCTL ] && [ "$rc" -eq 0 ] &&
    grep -q "^nothing to do: $SYSCTL is absent" "$W/dry.out" &&
    [ "$(tail -1 "$W/dry.out")" = "setup: ok" ]'

# The fake root: the sysctl at 1 and an empty /etc/apparmor.d.
R="$W/root"
mkdir -p "$R/proc/sys/kernel" "$R/etc/apparmor.d"
echo 1 >"$R$SYSCTL"
P="$R/etc/apparmor.d/airlock-launcher"
L=$(readlink -f "$B/airlock-launcher")
# The launcher inside the root, root's alone, as an image installs it:
# setup checks the launcher where the profile will name it.
mkdir -p "$R$(dirname "$L")" && cp "$L" "$R$L" && chmod 0755 "$R$L"

"$B/airlock" setup --dry-run --root "$R" >"$W/rdry.out" 2>&1
rc=$?
sed 's/^/# /' "$W/rdry.out"
rcheck_sh "--dry-run with the sysctl at 1: says it would write the profile, writes nothing" \
    '[ "$rc" -eq 0 ] && grep -q "^would write $P (new)" "$W/rdry.out" &&
    [ ! -e "$P" ] && [ -z "$(ls -A "$R/etc/apparmor.d")" ]'

"$B/airlock" setup --root "$R" >"$W/r1.out" 2>&1
rc=$?
sed 's/^/# /' "$W/r1.out"
rcheck_sh "a run writes the profile granting userns to the launcher's real path, ok" \
    '[ "$rc" -eq 0 ] && [ "$(tail -1 "$W/r1.out")" = "setup: ok" ] &&
    grep -q "^profile airlock-launcher \"$L\" flags=(unconfined) {" "$P" &&
    grep -q "^  userns,$" "$P" &&
    [ "$(stat -c %a "$P")" = 644 ]'
rcheck "  and the profile is contrib/apparmor's template with the path filled in" \
    sh -c "sed 's|@LAUNCHER@|$L|' '$AIRLOCK_TOP/contrib/apparmor/airlock-launcher.in' |
    cmp -s - '$P'"

cp "$P" "$W/p1"
touch -d '2020-01-01' "$P"
"$B/airlock" setup --root "$R" >"$W/r2.out" 2>&1
rc=$?
rcheck_sh "a second run: up to date, the file untouched, ok" \
    '[ "$rc" -eq 0 ] && grep -q "^profile $P: up to date" "$W/r2.out" &&
    [ "$(tail -1 "$W/r2.out")" = "setup: ok" ] &&
    [ "$(stat -c %Y "$P")" = "$(date -d 2020-01-01 +%s)" ] &&
    [ -z "$(ls "$R/etc/apparmor.d" | grep -v "^airlock-launcher$")" ]'

# A partial state: a profile there but not this one (an older launcher
# path, a hand edit, a write cut short).
sed 's|userns,|# userns,|' "$W/p1" >"$P"
"$B/airlock" setup --root "$R" >"$W/r3.out" 2>&1
rc=$?
rcheck_sh "a different profile in place is replaced, ok" \
    '[ "$rc" -eq 0 ] && grep -q "^wrote $P (replaced a different one)" "$W/r3.out" &&
    cmp -s "$W/p1" "$P"'
printf 'profile airlock-launcher "/x" {\n' >"$P"
"$B/airlock" setup --root "$R" >"$W/r4.out" 2>&1
rc=$?
rcheck_sh "  and so is a truncated one" '[ "$rc" -eq 0 ] && cmp -s "$W/p1" "$P"'

# A symlink where the profile goes (planted by whoever could write
# there, or left by a tool): replaced by the file, its target untouched.
echo victim >"$W/victim"
rm -f "$P" && ln -s "$W/victim" "$P"
"$B/airlock" setup --root "$R" >"$W/r5.out" 2>&1
rc=$?
rcheck_sh "a symlink in the profile's place: replaced by a file, its target untouched" \
    '[ "$rc" -eq 0 ] && [ ! -L "$P" ] && cmp -s "$W/p1" "$P" &&
    [ "$(cat "$W/victim")" = victim ]'

# The sysctl at 0: nothing needed, nothing written (the control for the
# runs above: the profile is written because the file says 1).
rm -f "$P"
echo 0 >"$R$SYSCTL"
"$B/airlock" setup --root "$R" >"$W/r0.out" 2>&1
rc=$?
check_sh "the sysctl at 0: nothing to do, ok, no profile written" \
    '[ "$rc" -eq 0 ] && grep -q "^nothing to do: .* is 0" "$W/r0.out" &&
    [ ! -e "$P" ]'
echo 1 >"$R$SYSCTL"

# A FIFO where the profile goes: replaced, and setup does not hang
# opening it.
rm -f "$P" && mkfifo "$P"
timeout 10 "$B/airlock" setup --root "$R" >"$W/fifo.out" 2>&1
rc=$?
rcheck_sh "a FIFO in the profile's place: replaced without blocking, ok" \
    '[ "$rc" -eq 0 ] && [ -f "$P" ] && cmp -s "$W/p1" "$P"'

# Interrupted before any change: cancelled, exit 1, nothing written.  The
# fake sysctl is a FIFO nobody writes, so setup is still reading it when
# SIGINT comes.
R2="$W/root2"
mkdir -p "$R2/proc/sys/kernel" "$R2/etc/apparmor.d"
mkfifo "$R2$SYSCTL"
"$B/airlock" setup --root "$R2" >"$W/int.out" 2>&1 &
spid=$!
sleep 0.5
kill -INT "$spid"
wait "$spid"
rc=$?
check_sh "SIGINT before a change: setup: cancelled, exit 1, nothing written" \
    '[ "$rc" -eq 1 ] && [ "$(tail -1 "$W/int.out")" = "setup: cancelled" ] &&
    [ -z "$(ls -A "$R2/etc/apparmor.d")" ]'

# Bad input: said in the user's words, exit 2, nothing done.
"$B/airlock" setup --root etc >"$W/bad1.out" 2>&1
rc1=$?
"$B/airlock" setup --frobnicate >"$W/bad2.out" 2>&1
rc2=$?
"$B/airlock" setup --root >"$W/bad3.out" 2>&1
rc3=$?
check_sh "bad input: a relative --root, an unknown option, a missing value: exit 2, named" \
    '[ "$rc1" -eq 2 ] && grep -q "^airlock setup: --root etc: not an absolute path" "$W/bad1.out" &&
    [ "$rc2" -eq 2 ] && grep -q "^airlock setup: unknown option --frobnicate" "$W/bad2.out" &&
    [ "$rc3" -eq 2 ] && grep -q "^airlock setup: --root needs a value" "$W/bad3.out"'

# A launcher path AppArmor cannot quote is refused, nothing written.
rm -f "$P"
"$B/airlock" setup --root "$R" --launcher '/opt/a"b/airlock-launcher' \
    >"$W/q.out" 2>&1
rc=$?
check_sh "a launcher path with a double quote: error, exit != 0, nothing written" \
    '[ "$rc" -ne 0 ] && [ "$(tail -1 "$W/q.out")" = "setup: error" ] &&
    grep -q "quote" "$W/q.out" && [ ! -e "$P" ]'

# AppArmor pattern characters in the launcher path: refused, naming the
# character, nothing written ("/home/*/{x,**}" would grant userns to
# every binary under /home).
rm -f "$P"
"$B/airlock" setup --root "$R" --launcher '/home/*/{x,**}' >"$W/pat1.out" 2>&1
rc1=$?
"$B/airlock" setup --root "$R" --launcher '/opt/@{HOME}/airlock-launcher' \
    >"$W/pat2.out" 2>&1
rc2=$?
sed 's/^/# /' "$W/pat1.out"
check_sh "a launcher path with * or @{: error naming the character, nothing written" \
    '[ "$rc1" -ne 0 ] && [ "$rc2" -ne 0 ] &&
    grep -q "holds .\*., an AppArmor pattern character" "$W/pat1.out" &&
    grep -q "holds .@., an AppArmor pattern character" "$W/pat2.out" &&
    [ ! -e "$P" ]'

# The launcher must be root's alone, and every directory above it: a
# file the user owns, a group-writable directory, a symbolic link.
# Control: the same layout owned by root with no group write is ok.
for d in own grp lnk ok; do
	mkdir -p "$R/opt/$d" && cp "$L" "$R/opt/$d/airlock-launcher"
	chmod 0755 "$R/opt/$d" "$R/opt/$d/airlock-launcher"
done
chown "$TUSER" "$R/opt/own/airlock-launcher"
chmod 0775 "$R/opt/grp"
mkdir -p "$R/opt/lnk/real" && mv "$R/opt/lnk/airlock-launcher" "$R/opt/lnk/real/" &&
    ln -s real "$R/opt/lnk/bin"
"$B/airlock" setup --root "$R" --launcher /opt/own/airlock-launcher \
    >"$W/own1.out" 2>&1
rc1=$?
"$B/airlock" setup --root "$R" --launcher /opt/grp/airlock-launcher \
    >"$W/own2.out" 2>&1
rc2=$?
"$B/airlock" setup --root "$R" --launcher /opt/lnk/bin/airlock-launcher \
    >"$W/own3.out" 2>&1
rc3=$?
sed 's/^/# /' "$W/own1.out" "$W/own2.out" "$W/own3.out"
rcheck_sh "a launcher the user owns, a group-writable directory, a link: error naming the path, nothing written" \
    '[ "$rc1" -ne 0 ] && [ "$rc2" -ne 0 ] && [ "$rc3" -ne 0 ] &&
    grep -q "^error: launcher .*: $R/opt/own/airlock-launcher is not root" "$W/own1.out" &&
    grep -q "^error: launcher .*: $R/opt/grp is not root" "$W/own2.out" &&
    grep -q "^error: launcher .*: $R/opt/lnk/bin is a symbolic link" "$W/own3.out" &&
    [ ! -e "$P" ]'
"$B/airlock" setup --root "$R" --launcher /opt/ok/airlock-launcher \
    >"$W/own4.out" 2>&1
rc=$?
rcheck_sh "  control: a root-owned launcher path is ok and named by the profile" \
    '[ "$rc" -eq 0 ] &&
    grep -q "^profile airlock-launcher \"/opt/ok/airlock-launcher\"" "$P"'
rm -f "$P"

# A symbolic link in the target directory's path inside --root: never
# followed, error, nothing written where it points.
R3="$W/root3"
mkdir -p "$R3/proc/sys/kernel" "$R3/etc" "$W/elsewhere"
echo 1 >"$R3$SYSCTL"
mkdir -p "$R3$(dirname "$L")" && cp "$L" "$R3$L" && chmod 0755 "$R3$L"
ln -s "$W/elsewhere" "$R3/etc/apparmor.d"
"$B/airlock" setup --root "$R3" >"$W/lnkd.out" 2>&1
rc=$?
sed 's/^/# /' "$W/lnkd.out"
rcheck_sh "etc/apparmor.d a symbolic link under --root: error, nothing written there" \
    '[ "$rc" -ne 0 ] && [ "$(tail -1 "$W/lnkd.out")" = "setup: error" ] &&
    grep -q "^error: $R3/etc/apparmor.d: " "$W/lnkd.out" &&
    [ -z "$(ls -A "$W/elsewhere")" ]'
rm "$R3/etc/apparmor.d" && mkdir "$R3/etc/apparmor.d"
"$B/airlock" setup --root "$R3" >"$W/lnkd2.out" 2>&1
rc=$?
rcheck_sh "  control: the same root with a real directory there: written, ok" \
    '[ "$rc" -eq 0 ] && [ -f "$R3/etc/apparmor.d/airlock-launcher" ]'

# A target the (unprivileged) user cannot write: what a run without root
# meets on a real host.
chmod 0755 "$R/etc/apparmor.d" && chmod -R a+rX "$W"
as_user "$B/airlock" setup --root "$R" >"$W/ro.out" 2>&1
rc=$?
sed 's/^/# /' "$W/ro.out"
rcheck_sh "an unwritable /etc/apparmor.d: error naming the path, exit != 0" \
    '[ "$rc" -ne 0 ] && [ "$(tail -1 "$W/ro.out")" = "setup: error" ] &&
    grep -q "^error: cannot write $P: Permission denied" "$W/ro.out" &&
    [ ! -e "$P" ]'
# Control: the same run as root (who can write there) is ok.
"$B/airlock" setup --root "$R" >"$W/rw.out" 2>&1
rc=$?
rcheck_sh "  control: the same run by root writes it, ok; no temporary file left" \
    '[ "$rc" -eq 0 ] && [ -f "$P" ] && [ "$(tail -1 "$W/rw.out")" = "setup: ok" ] &&
    [ "$(ls -A "$R/etc/apparmor.d")" = airlock-launcher ]'

# doctor's by-hand commands, with a HOME and a socket path that hold a
# space and a quote (the socket is absent: its command is `test ! -e`).
H="$W/my home's dir"
SK="$W/sock dir's/a b'c.sock"
mkdir -p "$H/.config/airlock" "$W/sock dir's"
echo '{}' >"$H/.config/airlock/credentials.json"
chown -R "$TUSER" "$H" "$W/sock dir's"
chmod -R a+rX "$W"
chmod 0600 "$H/.config/airlock/credentials.json"
as_user env HOME="$H" PATH="$B:/usr/bin:/bin" "$B/airlock" doctor \
    --socket "$SK" >"$W/doc.out" 2>&1
sed 's/^/# /' "$W/doc.out"
grep "^      by hand: " "$W/doc.out" | sed 's/^      by hand: //' |
    grep -e "my home" -e "sock dir" >"$W/quoted"
CRED=$(grep "^stat " "$W/quoted")
SOCK=$(grep "^test ! -e " "$W/quoted")
out=$(as_user env HOME="$H" sh -c "$CRED" 2>&1 </dev/null)
check "doctor: the credentials file's command, pasted into sh, stats that file [$CRED] -> [$out]" \
    [ "$out" = "600 $TUSER" ]
as_user sh -c "$SOCK" >/dev/null 2>&1 </dev/null
rc=$?
as_user python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])' "$SK"
as_user sh -c "$SOCK" >/dev/null 2>&1 </dev/null
rc2=$?
check_sh "  the socket's [$SOCK] holds (0) while absent, fails (1) once the path exists: $rc $rc2" \
    '[ "$rc" -eq 0 ] && [ "$rc2" -eq 1 ]'
# Control: the same commands with the paths unquoted, as doctor printed
# them before, do not do this.
out=$(as_user sh -c "stat -c '%a %U' $H/.config/airlock/credentials.json" \
    2>&1 </dev/null)
check "  control: unquoted, the stat command does not print 600 [$out]" \
    [ "$out" != "600 $TUSER" ]
