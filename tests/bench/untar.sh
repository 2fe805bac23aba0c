#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The cost of R-L4's filename rules: untar of 10,000 small files and
# their removal, timed inside each environment (so sandbox start-up is
# not counted), in one run, as ratios to the unconfined time.
#   tests/bench/untar.sh BUILD_DIR [RUNS]
# Environment: UNTAR_DIR, where the workspace is made (default /var/tmp,
# a disk; /dev/shm shows the per-call cost without the disk's).
# Rows (median of RUNS rounds, default 5; each round runs every row):
#   - unconfined: tar on the host, as the same user
#   - airlock run, full sandbox (seccomp notify: every create goes to init)
#   - airlock run without the notify rules (AIRLOCK_TEST_NO_NOTIFY=1 in
#     airlockd's environment, which only the test build in build/test/
#     reads): the rest of the sandbox
#   - bwrap with the same binds (no filename rules at all)
#   - a test floor: tar on the host under tests/helpers/notify_wrap, the
#     least a correct notify handler can do (no rules, no sandbox), so
#     the report shows what the notification mechanism costs by itself
# Sandboxes run as an unprivileged user when invoked as root.
set -eu
BUILD=$(cd "${1:-build}" && pwd)
RUNS=${2:-5}
. "$(dirname "$0")/lib.sh"
BENCH_HOME=/tmp
bench_stage "${UNTAR_DIR:-/var/tmp}/airlock-untar.XXXXXX"
WS="$STAGE/ws"
cd "$WS"

# 10,000 files of 100 bytes in 100 directories.
run_as sh -c 'mkdir src && i=0; while [ $i -lt 100 ]; do mkdir src/d$i;
    i=$((i+1)); done' 
run_as python3 -c '
for i in range(10000):
    open("src/d%d/f%d.js" % (i % 100, i), "w").write("x" * 100)'
run_as tar -cf files.tar -C src .
rm -rf src

# The extraction, then the removal of what it made (every unlink goes to
# init: a protected name's symlink is not taken away), in microseconds,
# printed by the shell that runs them: "EXTRACT REMOVE".
UNTAR='rm -rf out && mkdir out && sync && s=$(date +%s%N) &&
    tar -xf files.tar -C out && e=$(date +%s%N) && sync &&
    r=$(date +%s%N) && rm -rf out && f=$(date +%s%N) &&
    echo $(((e - s) / 1000)) $(((f - r) / 1000))'
median() {	# median [COLUMN]
	awk -v c="${1:-1}" '{print $c}' | sort -n |
	    awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'
}
BWRAP="bwrap --unshare-all --die-with-parent --new-session --ro-bind /usr /usr
    --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64
    --symlink usr/sbin /sbin --ro-bind /etc /etc --proc /proc --dev /dev
    --tmpfs /tmp --bind $WS $WS --chdir $WS"
# Rounds, each running every environment once, so that a noisy
# neighbour on the machine slows all of them alike.
i=0
while [ "$i" -lt "$RUNS" ]; do
	run_as sh -c "$UNTAR" 2>/dev/null | tail -1 >>"$STAGE/host"
	run_as "$STAGE/build/airlock" run --workspace "$WS" -- \
	    sh -c "$UNTAR" 2>/dev/null | tail -1 >>"$STAGE/airlock"
	run_as env AIRLOCK_TEST_NO_NOTIFY=1 "$STAGE/build/test/airlock" run \
	    --workspace "$WS" -- sh -c "$UNTAR" 2>/dev/null | tail -1 \
	    >>"$STAGE/nonotify"
	# shellcheck disable=SC2086
	run_as $BWRAP sh -c "$UNTAR" 2>/dev/null | tail -1 >>"$STAGE/bwrap"
	run_as "$STAGE/build/tests/helpers/notify_wrap" sh -c "$UNTAR" \
	    2>/dev/null | tail -1 >>"$STAGE/floor"
	i=$((i + 1))
done
HOST=$(median <"$STAGE/host")
A=$(median <"$STAGE/airlock")
AN=$(median <"$STAGE/nonotify")
BW=$(median <"$STAGE/bwrap")
FLR=$(median <"$STAGE/floor")
RHOST=$(median 2 <"$STAGE/host")
RA=$(median 2 <"$STAGE/airlock")
RAN=$(median 2 <"$STAGE/nonotify")
RBW=$(median 2 <"$STAGE/bwrap")

ratio() { awk -v a="$1" -v b="${2:-$HOST}" 'BEGIN {printf "%.2f", a / b}'; }
ms() { awk -v a="$1" 'BEGIN {printf "%.1f", a / 1000}'; }
echo "untar of 10,000 files of 100 bytes (median of $RUNS, $(uname -r))"
echo
echo "| environment | ms | ratio to unconfined |"
echo "|---|---|---|"
echo "| unconfined (host) | $(ms "$HOST") | 1.00 |"
echo "| airlock run (filename rules on) | $(ms "$A") | $(ratio "$A") |"
echo "| airlock run, no notify rules | $(ms "$AN") | $(ratio "$AN") |"
echo "| bwrap, same binds | $(ms "$BW") | $(ratio "$BW") |"
echo "| test floor: the least correct notify handler, no rules, no sandbox | $(ms "$FLR") | $(ratio "$FLR") |"
echo
echo "rm -rf of the same 10,000 files and 100 directories (median of $RUNS)"
echo
echo "| environment | ms | ratio to unconfined |"
echo "|---|---|---|"
echo "| unconfined (host) | $(ms "$RHOST") | 1.00 |"
echo "| airlock run (every unlink to init) | $(ms "$RA") | $(ratio "$RA" "$RHOST") |"
echo "| airlock run, no notify rules | $(ms "$RAN") | $(ratio "$RAN" "$RHOST") |"
echo "| bwrap, same binds | $(ms "$RBW") | $(ratio "$RBW" "$RHOST") |"

# The cost of one notified call, beside the kernel's floor for a round
# trip through a listener (tmpfs /tmp inside, so no disk in the numbers).
cp "$STAGE/build/tests/helpers/create_bench" "$WS/"
LAT='mkdir -p /tmp/cb && ./create_bench /tmp/cb 20000'
L1=$(run_as "$STAGE/build/airlock" run --workspace "$WS" -- sh -c "$LAT" \
    2>/dev/null | tail -1)
L0=$(run_as env AIRLOCK_TEST_NO_NOTIFY=1 "$STAGE/build/test/airlock" run \
    --workspace "$WS" -- sh -c "$LAT" 2>/dev/null | tail -1)
FL=$(run_as "$STAGE/build/tests/helpers/notify_floor" 20000 | tail -1)
echo
echo "| per call (20,000, tmpfs) | result |"
echo "|---|---|"
echo "| airlock, filename rules on | $L1 |"
echo "| airlock, no notify rules | $L0 |"
echo "| kernel floor (trivial handler) | $FL |"
rm -rf "$STAGE"
