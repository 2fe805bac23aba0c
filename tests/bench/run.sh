#!/bin/sh
# SPDX-License-Identifier: ISC
#
# `make bench`: every benchmark, each side by side with the tool a user
# would pick instead, as ratios measured in one run.  Prints Markdown;
# docs/PERFORMANCE.md holds a copy of a run with the machine it ran on.
#   tests/bench/run.sh BUILD_DIR
# BENCH (space list: startup output policy untar gitstate proxy tls push
# worktree fs)
# selects some.
set -u
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
ONLY=${BENCH:-startup output policy untar gitstate proxy tls push worktree fs}
echo "# airlock benchmarks"
echo
echo "$(date -u +%Y-%m-%d), $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for b in $ONLY; do
	[ -f "$HERE/$b.sh" ] || continue
	echo
	echo "## $b (sh tests/bench/$b.sh $BUILD)"
	echo
	sh "$HERE/$b.sh" "$BUILD" || echo "(benchmark $b failed: exit $?)"
done
