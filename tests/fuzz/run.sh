#!/bin/sh
# SPDX-License-Identifier: ISC
#
# `make fuzz`: run every libFuzzer target for longer than make check does.
#   tests/fuzz/run.sh BUILD_DIR [SECONDS_PER_TARGET]
# Seeds come from tests/fuzz/corpus/<name>/; new inputs are kept in
# BUILD_DIR/fuzz/corpus-<name>/ between runs.  Exits non-zero on a crash.
set -u
BUILD=${1:-build}
SECS=${2:-300}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
rc=0
for f in "$BUILD"/fuzz/*_fuzzer; do
	[ -x "$f" ] || continue
	name=$(basename "$f" _fuzzer)
	corpus="$BUILD/fuzz/corpus-$name"
	mkdir -p "$corpus"
	[ -d "$TOP/tests/fuzz/corpus/$name" ] &&
	    cp -n "$TOP/tests/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null
	echo "== $name (${SECS}s)"
	if ! "$f" -max_total_time="$SECS" -rss_limit_mb=2048 \
	    -artifact_prefix="$BUILD/fuzz/$name-" "$corpus" \
	    >"$BUILD/fuzz/$name.log" 2>&1; then
		rc=1
	fi
	tail -3 "$BUILD/fuzz/$name.log"
done
exit $rc
