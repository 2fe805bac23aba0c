#!/bin/sh
# SPDX-License-Identifier: ISC
# Build and run the command-policy benchmark (tests/bench/policy_bench.c)
# pinned to one core.  Usage: tests/bench/policy.sh [BUILD] [SECONDS]
set -e
cd "$(dirname "$0")/../.."
B=${1:-build}
SECS=${2:-3}
make --no-print-directory "$B/libpolicy.a" "$B/libcommon.a" >/dev/null
${CC:-cc} -std=gnu17 -O2 -I. -D_GNU_SOURCE -o "$B/policy_bench" \
	tests/bench/policy_bench.c "$B/libpolicy.a" "$B/libcommon.a"
if command -v taskset >/dev/null 2>&1; then
	exec taskset -c 0 "$B/policy_bench" "$SECS"
fi
exec "$B/policy_bench" "$SECS"
