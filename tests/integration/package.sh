#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The Debian package (issue 29): built from contrib/debian in a scratch
# copy of the tree, checked by lintian, installed into a scratch root with
# dpkg --root, and run from there.
#
# dpkg-buildpackage wants debian/ at the top of the source: the test (as
# README says a packager does) copies the tree without .git and build/,
# and contrib/debian to its debian/.  The staged build is copied in as
# build/ and dpkg-buildpackage runs with -nc (no pre-clean), so make finds
# the objects up to date and recompiles only what the package's LIBEXECDIR
# changes (about 30 s here, against about 95 s for a build from scratch,
# which is what a sanitizer build, not reusable, gets).
#
# The package has no maintainer scripts (the systemd user units are
# shipped, not enabled): dpkg --root installs it exactly as on a real
# system, and the test checks that there are none, so this stays true.
. "$(dirname "$0")/lib.sh"
plan 11

TOP=${AIRLOCK_TOP:?}
W=$(mkwork)
S="$W/src/airlock"
mkdir -p "$S"
tar -C "$TOP" --exclude=./build --exclude=./.git -cf - . | tar -C "$S" -xf -
cp -R "$TOP/contrib/debian" "$S/debian"
# A sanitizer build (make check SANITIZE=...) is not what a package
# ships, and its objects do not link without the sanitizer's flags: the
# package is then built from nothing.  What make passed down (MAKEFLAGS
# holds SANITIZE and BUILD) is not handed to the package's own make.
if grep -qa -e __asan_init -e __ubsan_handle "$B/airlockd"; then
	diag "the staged build is sanitized: the package builds from nothing"
else
	cp -R "$B" "$S/build"
fi

t0=$(date +%s)
(cd "$S" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u BUILD \
    dpkg-buildpackage -us -uc -b -nc) >"$W/build.log" 2>&1
rc=$?
t1=$(date +%s)
diag "dpkg-buildpackage: exit $rc in $((t1 - t0)) s, $(grep -cE '^\s*(cc|gcc) ' "$W/build.log") files compiled"
[ "$rc" -eq 0 ] || tail -20 "$W/build.log" | sed 's/^/# /'
DEB=$(ls "$W"/src/airlock_*_*.deb 2>/dev/null | grep -v dbgsym | head -1)
check_sh "dpkg-buildpackage -us -uc -b builds a .deb [$DEB]" \
    '[ "$rc" -eq 0 ] && [ -f "$DEB" ]'

lintian "$W"/src/airlock_*.changes >"$W/lintian.out" 2>&1
rc=$?
sed 's/^/# lintian: /' "$W/lintian.out"
check_sh "lintian: no error (exit $rc)" \
    '[ "$rc" -eq 0 ] && ! grep -q "^E:" "$W/lintian.out"'
check_sh "  and no warning (the static-pie helpers' false positive is overridden, with its reason)" \
    '! grep -q "^W:" "$W/lintian.out"'

dpkg-deb -c "$DEB" | awk '{ print $6 }' >"$W/files"
check_sh "the package holds the binaries, helpers, man pages and user units" \
    'for f in ./usr/bin/airlock ./usr/bin/airlockd \
        ./usr/libexec/airlock/airlock-launcher ./usr/libexec/airlock/airlock-guard \
        ./usr/libexec/airlock/airlock-proxyd ./usr/libexec/airlock/airlock-gatewayd \
        ./usr/libexec/airlock/airlock-clone ./usr/libexec/airlock/airlock-fs \
        ./usr/share/man/man1/airlock.1.gz ./usr/share/man/man8/airlockd.8.gz \
        ./usr/lib/systemd/user/airlockd.service ./usr/lib/systemd/user/airlockd.socket \
        ./usr/share/doc/airlock/copyright; do
        grep -qx "$f" "$W/files" || { echo "missing $f"; exit 1; }; done'
dpkg-deb --ctrl-tarfile "$DEB" | tar -t >"$W/ctrl"
check_sh "no maintainer scripts (so dpkg --root installs as on a real system)" \
    '! grep -qE "(preinst|postinst|prerm|postrm)$" "$W/ctrl"'

# The scratch root: an empty dpkg database.  The libraries the package
# depends on are the host's (the binaries run from the scratch root with
# them), so dependencies are not checked against the empty database.
R="$W/root"
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
touch "$R/var/lib/dpkg/status" "$R/var/lib/dpkg/available"
# dpkg on the scratch root: as a user it must be told it may
# (--force-not-root; the root is the user's own), its log kept there, and
# it wants ldconfig and start-stop-daemon on PATH (a user's has no sbin).
NOTROOT=
[ "$(id -u)" -eq 0 ] || NOTROOT=--force-not-root
pkg() {
	PATH="$PATH:/usr/sbin:/sbin" dpkg --root="$R" --log="$R/dpkg.log" \
	    $NOTROOT "$@"
}
pkg --force-depends -i "$DEB" >"$W/install.log" 2>&1
rc=$?
sed 's/^/# /' "$W/install.log"
check_sh "dpkg --root installs it: installed, the unit's ExecStart names /usr/bin" \
    '[ "$rc" -eq 0 ] &&
    dpkg --root="$R" -s airlock | grep -q "^Status: install ok installed" &&
    grep -q "^ExecStart=/usr/bin/airlockd" "$R/usr/lib/systemd/user/airlockd.service"'

chmod -R a+rX "$W"
H="$W/home"
mkdir -p "$H" && chown "$TUSER" "$H"
I() { as_user env HOME="$H" PATH="/usr/bin:/bin" "$@"; }
v=$(I "$R/usr/bin/airlock" --version 2>&1)
check "the installed airlock --version [$v]" [ "$v" = "airlock 0.1.0" ]

I "$R/usr/bin/airlock" status >"$W/status.out" 2>&1
rc=$?
sed 's/^/# /' "$W/status.out"
check_sh "the installed airlock status: a sandbox can be built, installed yes" \
    '[ "$rc" -eq 0 ] && grep -q "^sandbox: *available" "$W/status.out" &&
    grep -q "installed *yes" "$W/status.out"'

I "$R/usr/bin/airlock" doctor >"$W/doctor.out" 2>&1
rc=$?
sed 's/^/# /' "$W/doctor.out"
check_sh "the installed airlock doctor: every check ok, on the installed helpers, a real probe" \
    '[ "$rc" -eq 0 ] && ! grep -qE "^(warn|fail) " "$W/doctor.out" &&
    grep -qE "^ok    airlock-launcher *$R/usr/(bin/\.\./)?libexec/airlock/airlock-launcher \(0755\)" "$W/doctor.out" &&
    grep -q "^ok    airlockd *$R/usr/bin/airlockd" "$W/doctor.out" &&
    grep -q "^ok    probe run " "$W/doctor.out"'

I "$R/usr/bin/airlock" setup --dry-run >"$W/setup.out" 2>&1
check "the installed airlock setup --dry-run: ok" \
    [ "$(tail -1 "$W/setup.out")" = "setup: ok" ]

pkg --purge airlock >"$W/purge.log" 2>&1
rc=$?
left=$(cd "$R" && find usr -type f 2>/dev/null | head -5)
check_sh "dpkg --root --purge removes every file it installed [$left]" \
    '[ "$rc" -eq 0 ] && [ -z "$left" ]'
