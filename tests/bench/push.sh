#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Push through airlock-gatewayd vs directly to the same upstream (lighttpd +
# git http-backend, plain HTTP on loopback, basic auth), in one run, for
# three sizes: 10 commits, 5,000 commits, and ~200 MB of random blobs.
# Every push goes to a fresh bare repository, so each one sends the same
# pack.  Reports wall time per push (median of REPS runs; one run for the
# 200 MB case) and gatewayd's peak RSS (VmHWM) after each size.  The
# target (issue 7) is <= 1.1x direct at every size with flat RSS.
#
# usage: tests/bench/push.sh [BUILD_DIR]    env: REPS (default 5), BIG_MB

set -u
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
REPS=${REPS:-5}
BIG_MB=${BIG_MB:-200}
T=$(mktemp -d /tmp/airlock-bench.XXXXXX)
DRIVE_PID=
. "$ROOT/tests/integration/lib/upstream.sh"
cleanup() {
	[ -n "$DRIVE_PID" ] && kill "$DRIVE_PID" 2>/dev/null
	upstream_stop
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

TOKEN=bench-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
upstream_start "$T/up" "$TOKEN" >/dev/null || { echo "upstream failed"; exit 1; }
printf '%s\n' "$TOKEN" > "$T/token"
chmod 600 "$T/token"
"$BUILD/tests/helpers/gw_drive" -g "$BUILD/airlock-gatewayd" -P "$T/port" \
    -u "$UP_HTTP_URL" -H code -l acme/bench -r 'allow:refs/heads/*' \
    -T "$T/token" -E "$T/events" </dev/null >/dev/null 2>"$T/gw.err" &
DRIVE_PID=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
GW_PID=$(sed -n 's/^PID //p' "$T/events")
GW="http://127.0.0.1:$(cat "$T/port")/code/acme/bench.git"
DIRECT="http://x-access-token:$TOKEN@127.0.0.1:$UP_HTTP_PORT/acme/bench.git"

export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
mkdir -p "$HOME"
git config --global user.name bench
git config --global user.email bench@example.invalid

# ---- the three source repositories ----
mk_commits() {	# dir count
	git init -q -b main "$1"
	awk -v n="$2" 'BEGIN {
		for (i = 1; i <= n; i++) {
			data = "line " i "\n"
			printf "commit refs/heads/main\n"
			printf "committer bench <b@example.invalid> %d +0000\n", 1700000000 + i
			printf "data %d\nc%d\n", length("c" i), i
			printf "M 100644 inline f%d\ndata %d\n%s\n", i % 50, length(data), data
		}
	}' | git -C "$1" fast-import --quiet
}
mk_commits "$T/small" 10
mk_commits "$T/many" 5000
git init -q -b main "$T/big"
i=0
while [ $i -lt $((BIG_MB / 10)) ]; do
	head -c 10485760 /dev/urandom > "$T/big/blob$i"
	i=$((i + 1))
done
git -C "$T/big" add .
git -C "$T/big" commit -qm blobs
git -C "$T/big" repack -adq	# both pushes send the same, already packed

fresh_upstream() {
	rm -rf "$T/up/repos/acme/bench.git"
	git init -q --bare "$T/up/repos/acme/bench.git"
	git --git-dir="$T/up/repos/acme/bench.git" config http.receivepack true
}

now() { date +%s.%N; }

# One timed push; prints seconds.
push_once() {	# src url
	fresh_upstream
	t0=$(now)
	if ! git -C "$1" push -q "$2" main:refs/heads/main >"$T/push.out" 2>&1; then
		echo "push failed:" >&2
		cat "$T/push.out" >&2
		exit 1
	fi
	t1=$(now)
	[ "$(git --git-dir="$T/up/repos/acme/bench.git" rev-parse main)" = \
	    "$(git -C "$1" rev-parse main)" ] || { echo "ref mismatch" >&2; exit 1; }
	echo "$t1 - $t0" | bc -l
}

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'; }

echo "# push through airlock-gatewayd vs direct (lighttpd + git http-backend, plain HTTP, loopback)"
printf "%-22s %10s %10s %7s %14s\n" "case" "direct s" "gateway s" "ratio" "gw VmHWM kB"
for case in small many big; do
	reps=$REPS
	[ $case = big ] && reps=1
	: > "$T/d"
	: > "$T/g"
	r=0
	while [ $r -lt $reps ]; do
		# Alternate the order so caches favour neither.
		push_once "$T/$case" "$DIRECT" >> "$T/d"
		push_once "$T/$case" "$GW" >> "$T/g"
		r=$((r + 1))
	done
	d=$(median < "$T/d")
	g=$(median < "$T/g")
	hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$GW_PID/status")
	case $case in
	small) name="10 commits" ;;
	many) name="5,000 commits" ;;
	big) name="${BIG_MB} MB random blobs" ;;
	esac
	printf "%-22s %10s %10s %7.2f %14s\n" "$name" "$d" "$g" \
	    "$(echo "$g / $d" | bc -l)" "$hwm"
done
if grep -qF "$TOKEN" "$T/gw.err" "$T/events"; then
	echo "token leaked into gatewayd's output" >&2
	exit 1
fi
