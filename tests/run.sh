#!/bin/sh
# SPDX-License-Identifier: ISC
#
# `make check`: every unit test, every integration test (real sandboxes,
# run as an unprivileged user even when CI is root), and a short run of
# every libFuzzer target.  Ends with one line "N passed, N failed" (CI
# parses it), after a line "N skipped" when any test was skipped.
#
# A skipped test is never a pass.  A TAP "ok N - ... # SKIP needs root"
# is accepted only when this run is not root; any other skip means the
# machine lacks something the install step should have put there
# (contrib/install-deps.sh) and fails the run, as does a fuzz target that
# was not built.
#
#   tests/run.sh BUILD_DIR
# Environment: FUZZ_SECONDS (default 20 per target; 0 skips them, where
# libFuzzer would take 0 as "no limit"), TESTS (a space list of
# integration script names to run instead of all of them),
# AIRLOCK_KEEP_STAGE (keep the staged tree, the scripts' work trees and
# every script's log, e.g. for the figures a long soak prints; without
# it a failed run keeps the logs alone).
set -u
BUILD=${1:-build}
BUILD=$(cd "$BUILD" && pwd)
TOP=$(cd "$(dirname "$0")/.." && pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
pass=0
fail=0
skip=0
failed=""
skipped=""

note() { printf '%s\n' "$*"; }
count() {	# count NAME RESULT(0=pass)
	if [ "$2" -eq 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		failed="$failed $1"
	fi
}

# ---- unit tests (check) ----
note "== unit tests"
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	if out=$(CK_FORK=yes "$t" 2>&1); then
		note "ok - $name: $(printf '%s\n' "$out" | grep -E '^[0-9]+%:' | tail -1)"
		count "$name" 0
	else
		printf '%s\n' "$out" | tail -20
		note "not ok - $name"
		count "$name" 1
	fi
done

# ---- integration tests ----
# Stage what the tests run where an unprivileged user can reach it: CI's
# clone may sit under a directory that user cannot traverse.
STAGE=$(mktemp -d /tmp/airlock-check.XXXXXX)
chmod 0755 "$STAGE"
cp -R "$BUILD" "$STAGE/build"
cp -R "$TOP/tests" "$STAGE/tests"
chmod -R a+rX "$STAGE"
export AIRLOCK_STAGE="$STAGE"
export AIRLOCK_TOP="$TOP"

if [ "$(id -u)" -eq 0 ]; then
	if ! id airlock-test >/dev/null 2>&1; then
		useradd --create-home --shell /bin/sh airlock-test ||
		    { note "cannot create the test user"; exit 1; }
	fi
	export AIRLOCK_TEST_USER=airlock-test
else
	export AIRLOCK_TEST_USER=$(id -un)
fi

note "== integration tests (sandboxes run as $AIRLOCK_TEST_USER)"
scripts=${TESTS:-$(cd "$STAGE/tests/integration" && ls *.sh | grep -v '^lib')}
for s in $scripts; do
	s=${s%.sh}
	log="$STAGE/$s.log"
	note "-- $s"
	sh "$STAGE/tests/integration/$s.sh" >"$log" 2>&1
	rc=$?
	oks=$(grep -c '^ok ' "$log")
	nots=$(grep -c '^not ok ' "$log")
	# Skips: those this machine may take, and the rest (failures).
	skips=$(grep -c '^ok .*# SKIP' "$log")
	badskips=$(grep '^ok .*# SKIP' "$log" | if [ "$(id -u)" -eq 0 ]; then
		cat; else grep -v '# SKIP needs root$'; fi | grep -c .)
	oks=$((oks - skips))
	skip=$((skip + skips - badskips))
	nots=$((nots + badskips))
	[ "$skips" -ne "$badskips" ] && skipped="$skipped $s"
	plan=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$log" | head -1)
	grep -E '^(ok|not ok) ' "$log" | sed 's/^/   /'
	if [ "$nots" -ne 0 ] || [ "$rc" -ne 0 ] || [ -z "$plan" ] ||
	    [ "$((oks + nots + skips - badskips))" -ne "${plan:-0}" ]; then
		note "   (exit $rc, plan ${plan:-none}, ran $((oks + nots + skips - badskips)); log follows)"
		grep -vE '^(ok|not ok) ' "$log" | tail -40 | sed 's/^/   | /'
	fi
	pass=$((pass + oks))
	fail=$((fail + nots))
	[ -n "$nots" ] && [ "$nots" -ne 0 ] && failed="$failed $s"
	if [ "$rc" -ne 0 ] || [ -z "$plan" ] ||
	    [ "$((oks + nots + skips - badskips))" -ne "${plan:-0}" ]; then
		fail=$((fail + 1))
		failed="$failed $s(incomplete)"
	fi
done

# ---- fuzzers: a short run each, in make check's budget ----
note "== fuzz targets (${FUZZ_SECONDS}s each)"
for src in "$TOP"/tests/fuzz/*_fuzzer.c; do
	name=$(basename "$src" .c)
	f="$BUILD/fuzz/$name"
	if [ "$FUZZ_SECONDS" -le 0 ]; then
		# Asked for by the one running the tests, so not a failure.
		note "ok - $name # SKIP FUZZ_SECONDS=0"
		skip=$((skip + 1))
		skipped="$skipped $name"
		continue
	fi
	if [ ! -x "$f" ]; then
		# clang or its libFuzzer runtime is missing: an install
		# failure (contrib/install-deps.sh), not a skip.
		note "not ok - $name: not built (clang or libclang_rt.fuzzer missing?)"
		count "$name" 1
		continue
	fi
	corpus="$STAGE/corpus-$name"
	mkdir -p "$corpus"
	seeds="$TOP/tests/fuzz/corpus/${name%_fuzzer}"
	[ -d "$seeds" ] && cp "$seeds"/* "$corpus"/ 2>/dev/null
	if "$f" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 \
	    -print_final_stats=0 "$corpus" >"$STAGE/$name.log" 2>&1; then
		note "ok - $name: $(grep -c . "$STAGE/$name.log") log lines, clean"
		count "$name" 0
	else
		tail -30 "$STAGE/$name.log"
		note "not ok - $name"
		count "$name" 1
	fi
done

if [ "$fail" -eq 0 ] && [ -z "${AIRLOCK_KEEP_STAGE:-}" ]; then
	rm -rf "$STAGE"
elif [ "$fail" -eq 0 ]; then
	note "logs kept in $STAGE (AIRLOCK_KEEP_STAGE)"
elif [ -z "${AIRLOCK_KEEP_STAGE:-}" ]; then
	# The logs stay; the scripts' trees go (a full run's hold some
	# 20,000 directories, and kept ones would fill /tmp run after run,
	# which a test that binds /tmp reads).
	chmod -R u+w "$STAGE" 2>/dev/null
	rm -rf "$STAGE"/work.* "$STAGE/build" "$STAGE/tests"
	note "failed:$failed (logs in $STAGE; AIRLOCK_KEEP_STAGE=1 keeps the trees)"
else
	note "failed:$failed (logs and trees in $STAGE)"
fi
[ "$skip" -ne 0 ] && note "$skip skipped:$skipped"
note "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
