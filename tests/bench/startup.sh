#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Cold start and warm exec, beside bubblewrap, in one run.
#   tests/bench/startup.sh BUILD_DIR [RUNS]
# Prints a Markdown table: median wall time of
#   - airlock run -- /bin/true (cold: private airlockd + launcher + exec)
#   - airlock run --socket S -- /bin/true (a fresh sandbox per run from a
#     running airlockd, as an app's harness runs one-off commands), back
#     to back and, beside bwrap again, with 30 ms between runs
#   - bwrap --unshare-all ... /bin/true (a comparable bubblewrap sandbox)
#   - unshare -Urmpf --mount-proc /bin/true (bare namespaces, the floor)
#   - one exec in a warm airlock session (launch once, exec N times)
# Sandboxes run as an unprivileged user when invoked as root.
set -eu
BUILD=$(cd "${1:-build}" && pwd)
RUNS=${2:-30}
. "$(dirname "$0")/lib.sh"
bench_stage /tmp/airlock-bench.XXXXXX
chmod 0777 "$STAGE"
export -p >/dev/null
cd "$STAGE/ws"

# hyperfine (Debian package) runs each command RUNS times without a
# shell in between; medians come from its JSON export.
median_ms() {	# median_ms JSONFILE INDEX: prints the median in microseconds
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]; print(int(r["median"]*1e6))' "$1" "$2"
}
WS=$STAGE/ws
BW="bwrap --unshare-all --die-with-parent --new-session --ro-bind /usr /usr \
--symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
--symlink usr/sbin /sbin --ro-bind /etc /etc --proc /proc --dev /dev \
--tmpfs /tmp --bind $WS $WS --chdir $WS /bin/true"
# The running airlockd of the fourth row: the user's own, on a socket in
# the stage (its spare launcher is part of what is measured).
run_as "$STAGE/build/airlockd" --socket "$WS/airlockd.sock" --quiet &
DPID=$!
i=0
while [ ! -S "$WS/airlockd.sock" ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
run_as hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$STAGE/h.json" \
    --style none \
    "/bin/true" \
    "unshare -Urmpfn --mount-proc /bin/true" \
    "$BW" \
    "$STAGE/build/airlock run --workspace $WS -- /bin/true" \
    "$STAGE/build/airlock run --socket $WS/airlockd.sock --workspace $WS -- /bin/true" \
    >/dev/null 2>&1
# The same two with 30 ms between runs (hyperfine --prepare, not timed):
# an app's one-off commands come with some time between them, in which
# airlockd's spare launcher is ready; back to back, it is still starting.
run_as hyperfine -N --prepare "sleep 0.03" --warmup 3 --runs "$RUNS" \
    --export-json "$STAGE/p.json" --style none "$BW" \
    "$STAGE/build/airlock run --socket $WS/airlockd.sock --workspace $WS -- /bin/true" \
    >/dev/null 2>&1
# $! is run_as's subshell, not airlockd: end the one on our socket.
pkill -f -- "--socket $WS/airlockd.sock" 2>/dev/null
wait "$DPID" 2>/dev/null || true
HOST=$(median_ms "$STAGE/h.json" 0)
UN=$(median_ms "$STAGE/h.json" 1)
BW=$(median_ms "$STAGE/h.json" 2)
A=$(median_ms "$STAGE/h.json" 3)
S=$(median_ms "$STAGE/h.json" 4)
PBW=$(median_ms "$STAGE/p.json" 0)
PS=$(median_ms "$STAGE/p.json" 1)

# Warm exec: one session, many execs, over the client socket.
W=$(run_as python3 - "$STAGE/build/airlockd" "$STAGE/ws" "$RUNS" \
    "$STAGE/helpers" <<'PY'
import json, os, socket, subprocess, sys, time, statistics
airlockd, ws, runs, HELPERS = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    sys.argv[4]
sys.path.insert(0, HELPERS)
from airlockd_rpc import connect
p, a, f, call = connect(airlockd)
def wait_exit():
    while True:
        m = json.loads(f.readline())
        if m.get("method") == "sandbox.event" and m["params"]["type"] == "exit":
            return
r = call("sandbox.launch", {"spec": {"sessionId": "bench", "bindMounts":
     [{"hostPath": ws}], "guestWorkdir": ws}})
if "error" in r:
    sys.exit("launch: %s" % r["error"]["message"])
t = []
for i in range(runs):
    s = time.perf_counter()
    r = call("sandbox.exec", {"sessionId": "bench", "argv": ["/bin/true"]})
    if "error" in r:
        sys.exit("exec: %s" % r["error"]["message"])
    wait_exit()
    t.append((time.perf_counter() - s) * 1e6)
call("sandbox.destroy", {"sessionId": "bench"})
f.close(); a.close(); p.wait()
print(int(statistics.median(t)))
PY
)
rm -rf "$STAGE"
ms() { awk -v u="$1" 'BEGIN { printf "%.1f ms", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "| what (median of $RUNS, /bin/true) | wall time | vs bwrap |"
echo "|---|---|---|"
echo "| host, no sandbox | $(ms "$HOST") | $(ratio "$HOST" "$BW") |"
echo "| unshare -Urmpfn --mount-proc (bare namespaces) | $(ms "$UN") | $(ratio "$UN" "$BW") |"
echo "| bwrap --unshare-all, system dirs + workspace | $(ms "$BW") | 1.00 |"
echo "| airlock run, cold (private airlockd + launcher + exec) | $(ms "$A") | $(ratio "$A" "$BW") |"
echo "| airlock run via a running airlockd (a fresh sandbox) | $(ms "$S") | $(ratio "$S" "$BW") |"
echo "| bwrap, 30 ms between runs | $(ms "$PBW") | 1.00 |"
echo "| airlock run via a running airlockd, 30 ms between runs | $(ms "$PS") | $(ratio "$PS" "$PBW") |"
echo "| airlock, one exec in a warm session | $(ms "$W") | $(ratio "$W" "$BW") |"
