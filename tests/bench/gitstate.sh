#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The cost of the git-state allowlist (issue 11): every write in a
# workspace asks which ancestor directory git would take for a
# repository (a stat or two per level), and every write inside one is
# matched against what porcelain writes.  Timed inside each environment
# (sandbox start-up not counted), in one run, as ratios to unconfined:
#   - untar of 10,000 files of 100 bytes into a repository's working
#     tree, three levels below the workspace (ws/repo/a/b)
#   - git clone (file://, so objects are transferred and indexed, not
#     hard-linked) of a repository of 5,000 commits, and its checkout
#   tests/bench/gitstate.sh BUILD_DIR [RUNS]
# Rows (median of RUNS rounds, default 3; each round runs every row):
# unconfined (the same user on the host), airlock run with the filename
# rules, airlock run without notify rules (AIRLOCK_TEST_NO_NOTIFY=1, a
# test-only switch in airlockd's environment).  UNTAR_DIR as untar.sh.
# BEFORE=DIR (another build, e.g. of the previous commit): its airlock
# run is timed in the same rounds, in place of the no-notify row, so
# that a change to the handler is measured side by side.
set -eu
BUILD=$(cd "${1:-build}" && pwd)
RUNS=${2:-3}
. "$(dirname "$0")/lib.sh"
BENCH_HOME=/tmp
BENCH_ENV=GIT_CONFIG_NOSYSTEM=1
bench_stage "${UNTAR_DIR:-/var/tmp}/airlock-gitbench.XXXXXX"
if [ -n "${BEFORE:-}" ]; then
	cp -R "$BEFORE" "$STAGE/before"
	chmod -R a+rX "$STAGE/before"
fi
WS="$STAGE/ws"
cd "$WS"

# The tree to untar, and a repository around the place it lands.
run_as python3 -c '
import os
for i in range(10000):
    d = "src/d%d" % (i % 100)
    os.makedirs(d, exist_ok=True)
    open("%s/f%d.js" % (d, i), "w").write("x" * 100)'
run_as tar -cf files.tar -C src .
rm -rf src
run_as sh -c 'git init -q -b main repo && mkdir -p repo/a/b'
# 5,000 commits, each changing one of 100 files (git fast-import).
run_as python3 - <<'PY' >"$STAGE/stream"
import sys
w = sys.stdout.write
for i in range(5000):
    w("commit refs/heads/main\nmark :%d\n" % (i + 1))
    w("committer b <b@b> %d +0000\n" % (1700000000 + i))
    w("data 8\nc%06d\n" % i)
    if i:
        w("from :%d\n" % i)
    body = "line %d\n" % i * 20
    w("M 644 inline f%d.txt\ndata %d\n%s\n" % (i % 100, len(body), body))
PY
run_as sh -c "git init -q --bare src5k.git && cd src5k.git &&
    git fast-import --quiet <'$STAGE/stream' && git gc -q"

UNTAR='cd repo/a/b && rm -rf out && mkdir out && sync && s=$(date +%s%N) &&
    tar -xf ../../../files.tar -C out && e=$(date +%s%N) &&
    echo $(((e - s) / 1000))'
CLONE='rm -rf cl && sync && s=$(date +%s%N) &&
    git clone -q "file://$PWD/src5k.git" cl && e=$(date +%s%N) &&
    echo $(((e - s) / 1000))'
median() {
	sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2];
	    else print (a[NR/2]+a[NR/2+1])/2}'
}
i=0
while [ "$i" -lt "$RUNS" ]; do
	for t in UNTAR CLONE; do
		eval "c=\$$t"
		run_as sh -c "$c" 2>/dev/null | tail -1 >>"$STAGE/$t.host"
		run_as "$STAGE/build/airlock" run --workspace "$WS" -- \
		    sh -c "$c" 2>/dev/null | tail -1 >>"$STAGE/$t.airlock"
		if [ -n "${BEFORE:-}" ]; then
			run_as "$STAGE/before/airlock" run --workspace "$WS" \
			    -- sh -c "$c" 2>/dev/null | tail -1 \
			    >>"$STAGE/$t.nonotify"
		else
			run_as env AIRLOCK_TEST_NO_NOTIFY=1 \
			    "$STAGE/build/airlock" run --workspace "$WS" -- \
			    sh -c "$c" 2>/dev/null | tail -1 \
			    >>"$STAGE/$t.nonotify"
		fi
	done
	i=$((i + 1))
done
ms() { awk -v a="$1" 'BEGIN {printf "%.1f", a / 1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo "git state allowlist: median of $RUNS, $(uname -r)"
echo
last="no notify ms"
[ -n "${BEFORE:-}" ] && last="before ms"
echo "| workload | unconfined ms | airlock ms | ratio | $last | ratio |"
echo "|---|---|---|---|---|---|"
for t in UNTAR CLONE; do
	H=$(median <"$STAGE/$t.host")
	A=$(median <"$STAGE/$t.airlock")
	N=$(median <"$STAGE/$t.nonotify")
	case $t in
	UNTAR) name="untar 10,000 files into repo/a/b (a working tree)" ;;
	CLONE) name="git clone file:// of 5,000 commits" ;;
	esac
	echo "| $name | $(ms "$H") | $(ms "$A") | $(ratio "$A" "$H") |" \
	    "$(ms "$N") | $(ratio "$N" "$H") |"
done
rm -rf "$STAGE"
