#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Output throughput (issue 12): `airlock run -- cat BIGFILE > out` beside
# `cat BIGFILE > out`, in one run.
#   tests/bench/output.sh BUILD_DIR [MIB] [RUNS]
# Prints a Markdown table: median wall time and MiB/s of each, to a file
# on the same filesystem (with its sync, so that writeback is counted the
# same for both) and to /dev/null (the pipe path alone), and the ratio to
# plain cat.  The two commands alternate.  The cold start of airlock run (~70 ms) is in its
# figure.  Sandboxes run as an unprivileged user when invoked as root.
set -eu
BUILD=$(cd "${1:-build}" && pwd)
MIB=${2:-1024}
RUNS=${3:-5}
. "$(dirname "$0")/lib.sh"
bench_stage /tmp/airlock-bench.XXXXXX
cd "$STAGE/ws"
run_as head -c $((MIB << 20)) /dev/urandom >big 2>/dev/null ||
    head -c $((MIB << 20)) /dev/urandom >big
chmod 644 big
A="$STAGE/build/airlock run --workspace $STAGE/ws --"
run_as sh -c "$A true" >/dev/null 2>&1	# warm the page cache of the build

sync

# pair CMD1 CMD2: RUNS runs of each, alternating so that both see the
# same writeback and load; prints the two medians in ms.
ms_of() {
	s=$(date +%s%N)
	run_as sh -c "$1" >/dev/null 2>&1
	e=$(date +%s%N)
	echo $(( (e - s) / 1000000 ))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
pair() {
	: >"$STAGE/t1"
	: >"$STAGE/t2"
	i=0
	while [ $i -lt "$RUNS" ]; do
		ms_of "$1" >>"$STAGE/t1"
		ms_of "$2" >>"$STAGE/t2"
		i=$((i + 1))
	done
	echo "$(median <"$STAGE/t1") $(median <"$STAGE/t2")"
}
set -- $(pair "cat big > out; sync out; rm -f out" \
    "$A cat big > out; sync out; rm -f out")
C_F=$1 A_F=$2
set -- $(pair "cat big > /dev/null" "$A cat big > /dev/null")
C_N=$1 A_N=$2
# The floor of any pass-through: one plain pipe between two processes.
set -- $(pair "cat big > /dev/null" "cat big | cat > /dev/null")
C_N2=$1 P_N=$2
ok=$(run_as sh -c "$A cat big" | cmp - big >/dev/null 2>&1 && echo yes || echo NO)
rm -rf "$STAGE"
row() {	# row WHAT MS BASE_MS
	awk -v w="$1" -v t="$2" -v b="$3" -v m="$MIB" 'BEGIN {
	    printf "| %s | %d ms | %.0f MiB/s | %.2f |\n", w, t,
	    m * 1000 / (t > 0 ? t : 1), b / (t > 0 ? t : 1) }'
}
echo "| what (median of $RUNS, $MIB MiB, byte-identical: $ok) | wall time | throughput | throughput vs cat |"
echo "|---|---|---|---|"
row "cat BIGFILE > out" "$C_F" "$C_F"
row "airlock run -- cat BIGFILE > out" "$A_F" "$C_F"
row "cat BIGFILE > /dev/null" "$C_N" "$C_N"
row "airlock run -- cat BIGFILE > /dev/null" "$A_N" "$C_N"
row "cat BIGFILE \\\\| cat > /dev/null (one pipe, no sandbox)" "$P_N" "$C_N2"
