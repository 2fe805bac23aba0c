#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Cold `airlock run` of two builds beside bubblewrap, alternating.
#   tests/bench/startup_ab.sh BEFORE_BUILD AFTER_BUILD [ROUNDS] [RUNS]
# With AB_MODE=running, each build's `airlock run` goes through a running
# airlockd of its own (a fresh sandbox per run, back to back).
# A loaded machine drifts between one hyperfine invocation and the next:
# each of ROUNDS rounds runs bwrap, BEFORE and AFTER RUNS times each (in
# an order that changes every round), and the medians are taken over
# every sample of the rounds.  Prints a Markdown table and the load.
set -eu
BEFORE=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
ROUNDS=${3:-6}
RUNS=${4:-10}
. "$(dirname "$0")/lib.sh"
bench_stage /tmp/airlock-bench.XXXXXX
chmod 0777 "$STAGE"
cp -R "$BEFORE" "$STAGE/before"
chmod -R a+rX "$STAGE/before"
cd "$STAGE/ws"
WS=$STAGE/ws
BW="bwrap --unshare-all --die-with-parent --new-session --ro-bind /usr /usr \
--symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
--symlink usr/sbin /sbin --ro-bind /etc /etc --proc /proc --dev /dev \
--tmpfs /tmp --bind $WS $WS --chdir $WS /bin/true"
A0="$STAGE/before/airlock run --workspace $WS -- /bin/true"
A1="$STAGE/build/airlock run --workspace $WS -- /bin/true"
WHAT=cold
if [ "${AB_MODE:-cold}" = running ]; then
	WHAT="via a running airlockd"
	for b in before build; do
		run_as "$STAGE/$b/airlockd" --socket "$WS/$b.sock" --quiet &
	done
	i=0
	while { [ ! -S "$WS/before.sock" ] || [ ! -S "$WS/build.sock" ]; } &&
	    [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	A0="$STAGE/before/airlock run --socket $WS/before.sock --workspace $WS -- /bin/true"
	A1="$STAGE/build/airlock run --socket $WS/build.sock --workspace $WS -- /bin/true"
fi
load0=$(cut -d' ' -f1-3 /proc/loadavg)
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	case $((r % 3)) in
	0) set -- "$BW" "$A0" "$A1" ;;
	1) set -- "$A1" "$BW" "$A0" ;;
	2) set -- "$A0" "$A1" "$BW" ;;
	esac
	run_as hyperfine -N --warmup 2 --runs "$RUNS" --style none \
	    --export-json "$STAGE/r$r.json" "$@" >/dev/null 2>&1
	r=$((r + 1))
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
pkill -f -- "--socket $WS/" 2>/dev/null || true
python3 - "$STAGE" "$ROUNDS" "$BW" "$A0" "$A1" "$RUNS" "$load0" "$load1" \
    "$WHAT" <<'PY'
import json, statistics, sys
stage, rounds, bw, a0, a1, runs = sys.argv[1:7]
t = {bw: [], a0: [], a1: []}
for r in range(int(rounds)):
    for res in json.load(open("%s/r%d.json" % (stage, r)))["results"]:
        t[res["command"]] += res["times"]
m = {k: statistics.median(v) * 1000 for k, v in t.items()}
n = len(t[bw])
print("| what (median of %d, /bin/true, %s rounds alternating) | wall time "
      "| vs bwrap |" % (n, rounds))
print("|---|---|---|")
print("| bwrap --unshare-all, system dirs + workspace | %.1f ms | 1.00 |"
      % m[bw])
what = sys.argv[9]
print("| airlock run, %s, before | %.1f ms | %.2f |" % (what, m[a0], m[a0] / m[bw]))
print("| airlock run, %s, after | %.1f ms | %.2f |" % (what, m[a1], m[a1] / m[bw]))
print("load average (1, 5, 15 min): %s at the start, %s at the end"
      % (sys.argv[7], sys.argv[8]))
PY
rm -rf "$STAGE"
