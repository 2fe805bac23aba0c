#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The push gateway alone, with the real git client and a real smart-HTTP
# upstream (lighttpd + git http-backend behind HTTPS with a test CA and
# basic auth that accepts only the write token).  gw_drive plays airlockd:
# it registers one run, links acme/app, and answers the push rules
# deny refs/heads/main, allow refs/heads/*.  The sandbox's git config is
# imitated with pushInsteadOf from an unresolvable code host name
# (code.invalid), so nothing can leave loopback.  TAP output.
#
# usage: tests/integration/gatewayd.sh [BUILD_DIR]
# (under tests/run.sh the build is $AIRLOCK_STAGE/build)

set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-${AIRLOCK_STAGE:+$AIRLOCK_STAGE/build}}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
GATEWAYD=$BUILD/airlock-gatewayd
DRIVE=$BUILD/tests/helpers/gw_drive

echo "1..25"
T=$(mktemp -d /tmp/airlock-gw.XXXXXX)
DRIVE_PID=
. "$ROOT/tests/integration/lib/upstream.sh"
# A missing lighttpd is a failed install (contrib/install-deps.sh), not a
# reason to skip: every test below fails instead.
if [ ! -x "$GATEWAYD" ] || [ ! -x "$DRIVE" ] ||
    [ ! -x "$(upstream_lighttpd)" ]; then
	i=1
	while [ $i -le 25 ]; do
		echo "not ok $i - gatewayd, gw_drive or lighttpd missing"
		i=$((i + 1))
	done
	rm -rf "$T"
	exit 1
fi
cleanup() {
	[ -n "$DRIVE_PID" ] && kill "$DRIVE_PID" 2>/dev/null
	upstream_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT INT TERM

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
contains() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -qF -- "$2" "$1"; }

TOKEN=wt-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
upstream_start "$T/up" "$TOKEN" || { echo "Bail out! upstream did not start"; exit 1; }
git --git-dir="$T/up/repos/acme/app.git" config receive.advertisePushOptions true
# The upstream records the push options it receives.
cat > "$T/up/repos/acme/app.git/hooks/pre-receive" <<EOF
#!/bin/sh
echo "\${GIT_PUSH_OPTION_COUNT:-none}" >> "$T/up/push-options"
cat > /dev/null
EOF
chmod +x "$T/up/repos/acme/app.git/hooks/pre-receive"

umask 077
printf '%s\n' "$TOKEN" > "$T/token"
"$DRIVE" -g "$GATEWAYD" -P "$T/port" -u "$UP_HTTPS_URL" -c "$UP_CA" \
    -C "$UP_CA" -H code -l acme/app -r deny:refs/heads/main \
    -r 'allow:refs/heads/*' -T "$T/token" -E "$T/events" \
    </dev/null >/dev/null 2>"$T/gw.err" &
DRIVE_PID=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(cat "$T/port")
GW=http://127.0.0.1:$PORT/

# The sandbox's git: a private global config like gitcfg_render()'s.
export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
mkdir -p "$HOME"
git config --global user.name agent
git config --global user.email agent@example.invalid
git config --global "url.${GW}code/.pushInsteadOf" https://code.invalid/
git config --global "http.$GW.proxy" ""
git clone -q "$T/up/repos/acme/app.git" "$T/wc"
cd "$T/wc" || exit 1
git remote set-url origin https://code.invalid/acme/app.git
MAIN0=$(upstream_ref acme/app.git refs/heads/main)
OUT=$T/out

commit() { echo "$1" > "$1"; git add "$1"; git commit -qm "$1"; }

# 1-2: an allowed branch lands upstream.
git checkout -q -b feature
commit f1
git push origin feature >"$OUT" 2>&1
check "git push origin feature succeeds" test $? -eq 0
check "feature is upstream" test "$(upstream_ref acme/app.git refs/heads/feature)" = "$(git rev-parse feature)"

# 3-5: main is refused in git's own words, upstream unchanged.
git checkout -q main
commit m1
git push origin main >"$OUT" 2>&1
check "git push origin main fails" test $? -ne 0
check "main: [remote rejected] with the airlock policy reason" \
    contains "$OUT" " ! [remote rejected] main -> main (airlock policy: push to refs/heads/main denied by rule refs/heads/main)"
check "upstream main unchanged" test "$(upstream_ref acme/app.git refs/heads/main)" = "$MAIN0"

# 6-7: HEAD:main.
git push origin HEAD:main >"$OUT" 2>&1
check "git push origin HEAD:main fails" test $? -ne 0
check "HEAD:main: [remote rejected]" contains "$OUT" " ! [remote rejected] HEAD -> main (airlock policy: "

# 8-10: delete main.
git push origin :main >"$OUT" 2>&1
check "git push origin :main fails" test $? -ne 0
check ":main: [remote rejected]" contains "$OUT" " ! [remote rejected] main (airlock policy: "
check "upstream main still there" test "$(upstream_ref acme/app.git refs/heads/main)" = "$MAIN0"

# 11-13: --atomic with one refused ref refuses both.
git checkout -q feature
commit f2
FEAT0=$(upstream_ref acme/app.git refs/heads/feature)
git push --atomic origin feature main >"$OUT" 2>&1
check "git push --atomic origin feature main fails" test $? -ne 0
check "--atomic: both refs [remote rejected]" sh -c \
    "grep -qF ' ! [remote rejected] main -> main (airlock policy: ' '$OUT' && grep -qF ' ! [remote rejected] feature -> feature (airlock policy: ' '$OUT'"
check "--atomic: upstream feature unchanged" test "$(upstream_ref acme/app.git refs/heads/feature)" = "$FEAT0"

# 14-15: a repository that is not linked.
OTHER0=$(upstream_ref acme/other.git refs/heads/main)
git push https://code.invalid/acme/other.git feature:refs/heads/x >"$OUT" 2>&1
check "push to unlinked acme/other fails" test $? -ne 0
check "unlinked: refused before upstream, nothing there" sh -c \
    "grep -qF 'airlock policy: repository is not linked' '$OUT' && ! git --git-dir='$T/up/repos/acme/other.git' rev-parse -q --verify refs/heads/x >/dev/null"

# 16-17: push options are not forwarded to the code host.
commit f3
git push -o merge_request.create origin feature >"$OUT" 2>&1
check "push with -o succeeds" test $? -eq 0
# (a direct push -o records 1 here; the gateway strips the option)
check "upstream saw no push option" test "$(tail -n 1 "$T/up/push-options")" = 0

# 18-20: more than http.postBuffer: probe POST, then a chunked body.
head -c 3000000 /dev/urandom > big
git add big
git commit -qm big
GIT_TRACE_CURL="$T/curl.trace" GIT_TRACE_CURL_NO_DATA=1 git push origin feature >"$OUT" 2>&1
check "3 MB push succeeds" test $? -eq 0
check "3 MB push: upstream has it" test "$(upstream_ref acme/app.git refs/heads/feature)" = "$(git rev-parse feature)"
check "3 MB push went as probe + chunked" sh -c \
    "grep -q 'Content-Length: 4' '$T/curl.trace' && grep -q 'Transfer-Encoding: chunked' '$T/curl.trace'"

# 21: a direct push without the token is refused by the code host.
git push "https://x-access-token:wrong@127.0.0.1:$UP_HTTPS_PORT/acme/app.git" feature:refs/heads/direct >"$OUT" 2>&1
check "direct push without the write token fails" test $? -ne 0

# 22: revoked run: later pushes are refused.
kill -USR1 "$DRIVE_PID"
sleep 0.3
commit f4
FEAT0=$(upstream_ref acme/app.git refs/heads/feature)
git push origin feature >"$OUT" 2>&1
rc=$?
check "after RUN_DEL a push is refused and nothing lands" sh -c \
    "[ $rc -ne 0 ] && [ '$(upstream_ref acme/app.git refs/heads/feature)' = '$FEAT0' ]"

# 23: the token appears nowhere we can see.
check "write token not in gatewayd's stderr, events or git output" sh -c \
    "! grep -rqF '$TOKEN' '$T/gw.err' '$T/events' '$OUT' '$T/curl.trace' '$HOME'"

# 24: gatewayd ran restricted and exits cleanly (no seccomp kill).
kill "$DRIVE_PID"
wait "$DRIVE_PID" 2>/dev/null
DRIVE_PID=
check "gatewayd restricted itself and exited cleanly" sh -c \
    "grep -q 'HELLO.*seccomp.*allowlist' '$T/events' && grep -q 'EXIT status 0' '$T/events'"

# 25: the gateway judges nothing itself (airlockd does): no policy/ code
# is linked in, only protocol (pkt-lines, ref-name syntax from common/).
nm "$GATEWAYD" >"$T/nm" 2>&1
check "gatewayd links no policy code (no pol_ symbol, refname_valid there)" \
    sh -c "! grep -q ' [TtDdBbRr] pol_' '$T/nm' && grep -q ' refname_valid' '$T/nm'"

if [ $failed -ne 0 ]; then
	echo "# $failed failed; gatewayd stderr:" >&2
	sed 's/^/# /' "$T/gw.err" >&2
	exit 1
fi
exit 0
