#!/bin/sh
# SPDX-License-Identifier: ISC
#
# What the commit judge costs a run, two builds side by side: cold
# `airlock run` in a repository (one commit, 200 files, a stash and a
# reflog of 50 entries) that does nothing (`true`), makes one commit,
# or makes one commit and repacks (`git gc`: a new pack, commit graph
# and pruned loose objects for the object check to verify).  ROUNDS
# rounds alternate the builds; medians over all samples, in ms.
#   tests/bench/judge_ab.sh BEFORE_BUILD AFTER_BUILD [ROUNDS]
set -eu
BEFORE=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
ROUNDS=${3:-10}
. "$(dirname "$0")/lib.sh"
bench_stage /tmp/airlock-bench.XXXXXX
cp -R "$BEFORE" "$STAGE/before"
chmod -R a+rX "$STAGE/before"
WS=$STAGE/ws
GC='git -c user.name=a -c user.email=a@a'
run_as sh -c "cd '$WS' && git init -q -b main r && cd r &&
    for i in \$(seq 200); do echo \$i > f\$i; done && git add . &&
    $GC commit -qm one && for i in \$(seq 50); do
    git checkout -q -b b\$i && git checkout -q main; done &&
    echo x >> f1 && git stash -q"
now() { date +%s%N; }
sample() {	# sample BUILD CMD: ms of one run
	_t0=$(now)
	run_as "$1/airlock" run --no-policy-check --workspace "$WS/r" \
	    -- sh -c "$2" >/dev/null 2>&1
	echo $((($(now) - _t0) / 1000000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "| the run does | before (ms) | after (ms) | after / before |"
echo "|---|---|---|---|"
for what in true commit gc; do
	case $what in
	true) c=true ;;
	commit) c="echo \$\$ >> f2 && $GC commit -qam c" ;;
	gc) c="echo \$\$ >> f3 && $GC commit -qam c && git gc -q" ;;
	esac
	: >"$STAGE/b" ; : >"$STAGE/a"
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		sample "$STAGE/before" "$c" >>"$STAGE/b"
		sample "$STAGE/build" "$c" >>"$STAGE/a"
		r=$((r + 1))
	done
	b=$(median <"$STAGE/b")
	a=$(median <"$STAGE/a")
	echo "| $what | $b | $a | $(awk "BEGIN { printf \"%.2f\", $a / $b }") |"
done
echo
echo "load $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS rounds"
rm -rf "$STAGE"
