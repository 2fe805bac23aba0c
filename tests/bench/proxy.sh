#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Egress proxy benchmark: airlock-proxyd (driven by px_drive) against
# direct connections and, when installed, squid and tinyproxy from Debian,
# all on loopback, in one run of a few minutes.  Prints a markdown report
# (figures and the commands behind them) on stdout.
#
#   sh tests/bench/proxy.sh BUILD_DIR
#   PROXYD_BEFORE=/path/to/old/airlock-proxyd sh tests/bench/proxy.sh BUILD_DIR
#
# PROXYD_BEFORE adds a second proxyd (say, main's) to the same rounds, so
# a change is judged side by side: on a shared host two runs minutes
# apart differ by more than most changes do.
#
# Measures (medians of rounds that interleave the proxies): CONNECT bulk
# throughput (1 GiB through one tunnel) with the proxy's CPU seconds per
# GiB; absolute-form HTTP requests per second on keep-alive connections
# (wrk with a Lua script that sets an absolute-form path); new short
# tunnels per second (CONNECT + 1-byte echo); resident memory per idle
# tunnel at 1,000 and 4,000 tunnels.
#
# Two more rows are a test floor, not products: `px_bench nullproxy`, the
# least work a CONNECT proxy can do (no policy, no resolution, no
# logging; splice or read/write relay), measured for bulk and tunnels
# only, so the report says what any proxy reaches on this host and how
# far proxyd is from it.  Every proxy must first pass `px_bench check`
# (bytes really relayed, both ways, and a half-close); one that fails is
# left out of the table and the run exits 1.
#
# Needs root for the loopback sysctls it sets for the run (wide ephemeral
# port range, tcp_tw_reuse, the comparison proxies' ports reserved) and
# restores at exit.  Run it on an otherwise idle machine: the figures are
# only as quiet as the host.
set -u

BUILD=${1:-build}
BUILD=$(cd "$BUILD" && pwd)
PROXYD=$BUILD/airlock-proxyd
DRIVE=$BUILD/tests/helpers/px_drive
PXB=$BUILD/tests/helpers/px_bench
GIB=1073741824
# 1 GiB runs per proxy, interleaved across the proxies; wrk and tunnel
# runs likewise (both can be set in the environment)
BULK_ROUNDS=${BULK_ROUNDS:-3}
ROUNDS=${ROUNDS:-5}
WRK_SECS=2
TUN_SECS=2
SQUID_PORT=33128
TINY_PORT=38888
T=$(mktemp -d /tmp/proxy-bench.XXXXXX)
chmod 755 "$T"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy

for f in "$PROXYD" "$DRIVE" "$PXB"; do
	[ -x "$f" ] || { echo "missing $f (make all unit-bins)" >&2; exit 1; }
done

# ---- loopback tuning for the run only ----
OLD_RANGE=$(sysctl -n net.ipv4.ip_local_port_range 2>/dev/null | tr '\t' ' ')
OLD_TW=$(sysctl -n net.ipv4.tcp_tw_reuse 2>/dev/null)
OLD_RES=$(sysctl -n net.ipv4.ip_local_reserved_ports 2>/dev/null)
sysctl -q -w net.ipv4.ip_local_port_range="1024 65000" 2>/dev/null
sysctl -q -w net.ipv4.tcp_tw_reuse=1 2>/dev/null
sysctl -q -w net.ipv4.ip_local_reserved_ports="$SQUID_PORT,$TINY_PORT" \
    2>/dev/null
ulimit -n "$(ulimit -Hn)" 2>/dev/null

cleanup() {
	pids=
	for f in "$T"/*.pid "$T"/*.pid2; do
		[ -f "$f" ] && pids="$pids $(cat "$f")"
	done
	kill $pids 2>/dev/null
	exec 4>&- 5>&- 6>&- 7>&- 8>&- 2>/dev/null
	# a run right after this one needs the comparison proxies' ports
	i=0
	while [ $i -lt 50 ]; do
		alive=
		for p in $pids; do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ -z "$alive" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$OLD_RANGE" ] &&
	    sysctl -q -w net.ipv4.ip_local_port_range="$OLD_RANGE" 2>/dev/null
	[ -n "$OLD_TW" ] && sysctl -q -w net.ipv4.tcp_tw_reuse="$OLD_TW" \
	    2>/dev/null
	sysctl -q -w net.ipv4.ip_local_reserved_ports="$OLD_RES" 2>/dev/null
	sleep 0.3
	rm -rf "$T"
}
trap cleanup EXIT
# a signal must not skip the restore; a reader that went away must not
# kill the script before it (writes then just fail)
trap 'exit 1' HUP INT TERM
trap '' PIPE

# RSS (KB) and CPU ticks of a process and its children
tree_pids() { echo "$1"; pgrep -P "$1" 2>/dev/null; }
rss_kb() {
	s=0
	for p in $(tree_pids "$1"); do
		r=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null)
		s=$((s + ${r:-0}))
	done
	echo $s
}
cpu_ticks() {
	s=0
	for p in $(tree_pids "$1"); do
		c=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null)
		s=$((s + ${c:-0}))
	done
	echo $s
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

wait_port() {
	i=0
	# curl exits 7 while nothing listens on the port
	while curl -s -m 2 -o /dev/null "http://127.0.0.1:$1/"; [ $? -eq 7 ]; do
		i=$((i + 1))
		# squid can take seconds to come up on a loaded host
		[ $i -gt 150 ] && return 1
		sleep 0.1
	done
}

# ---- servers ----
mkfifo "$T/srv.in" "$T/drv.in"
"$PXB" serve <"$T/srv.in" >"$T/srv.out" &
echo $! >"$T/srv.pid"
exec 7>"$T/srv.in"
sleep 0.3
SINK=$(sed 's/.*sink=\([0-9]*\).*/\1/' "$T/srv.out")
HTTP=$(sed 's/.*http=\([0-9]*\).*/\1/' "$T/srv.out")
ECHO=$(sed 's/.*echo=\([0-9]*\).*/\1/' "$T/srv.out")

# ---- proxies ----
# the test floor: two null proxies (see px_bench.c), no product
for m in splice rw; do
	mkfifo "$T/null_$m.in"
	"$PXB" nullproxy $m <"$T/null_$m.in" >"$T/null_$m.out" &
	echo $! >"$T/null_$m.pid"
done
exec 5>"$T/null_splice.in" 6>"$T/null_rw.in"
"$DRIVE" "$PROXYD" 127.0.0.1 <"$T/drv.in" >"$T/drv.out" 2>"$T/drv.err" &
echo $! >"$T/drv.pid"
exec 8>"$T/drv.in"
sleep 0.5
PX_PORT=$(sed -n 's/^http_port=//p' "$T/drv.out")
PX_PID=$(sed -n 's/^hello \([0-9]*\) .*/\1/p' "$T/drv.out")
PXB_PORT=
PXB_PID=
if [ -n "${PROXYD_BEFORE:-}" ]; then
	mkfifo "$T/drvb.in"
	"$DRIVE" "$PROXYD_BEFORE" 127.0.0.1 <"$T/drvb.in" >"$T/drvb.out" \
	    2>"$T/drvb.err" &
	echo $! >"$T/drvb.pid"
	exec 4>"$T/drvb.in"
	sleep 0.5
	PXB_PORT=$(sed -n 's/^http_port=//p' "$T/drvb.out")
	PXB_PID=$(sed -n 's/^hello \([0-9]*\) .*/\1/p' "$T/drvb.out")
fi

sleep 0.2
NULL_SPLICE_PORT=$(sed -n 's/^port=//p' "$T/null_splice.out")
NULL_RW_PORT=$(sed -n 's/^port=//p' "$T/null_rw.out")
PROXIES="direct proxyd"
[ -n "$PXB_PORT" ] && PROXIES="$PROXIES proxyd_before"
PROXIES="$PROXIES null_splice null_rw"
if command -v squid >/dev/null 2>&1; then
	cat >"$T/squid.conf" <<EOF
http_port 127.0.0.1:$SQUID_PORT
http_access allow all
cache deny all
access_log none
cache_log $T/squid-cache.log
pid_filename $T/squid.pid
coredump_dir $T
max_filedescriptors 20000
workers 1
shutdown_lifetime 1 seconds
EOF
	touch "$T/squid-cache.log"
	chmod 666 "$T/squid-cache.log"
	squid -N -f "$T/squid.conf" >"$T/squid.out" 2>&1 &
	SQUID_PID=$!
	echo $SQUID_PID >"$T/squid.pid2"
	if wait_port $SQUID_PORT; then
		PROXIES="$PROXIES squid"
		echo $SQUID_PID >"$T/squidrun.pid"
	else
		echo "squid did not start: $(tail -3 "$T/squid.out" \
		    "$T/squid-cache.log" 2>/dev/null)" >&2
	fi
fi
if command -v tinyproxy >/dev/null 2>&1; then
	cat >"$T/tinyproxy.conf" <<EOF
Port $TINY_PORT
Listen 127.0.0.1
Timeout 600
MaxClients 6000
LogLevel Critical
EOF
	tinyproxy -d -c "$T/tinyproxy.conf" >"$T/tinyproxy.out" 2>&1 &
	TINY_PID=$!
	echo $TINY_PID >"$T/tiny.pid"
	if wait_port $TINY_PORT; then
		PROXIES="$PROXIES tinyproxy"
	else
		echo "tinyproxy did not start" >&2
	fi
fi

port_of() {
	case $1 in
	direct) echo - ;;
	proxyd) echo "$PX_PORT" ;;
	proxyd_before) echo "$PXB_PORT" ;;
	squid) echo "$SQUID_PORT" ;;
	tinyproxy) echo "$TINY_PORT" ;;
	null_splice) echo "$NULL_SPLICE_PORT" ;;
	null_rw) echo "$NULL_RW_PORT" ;;
	esac
}
pid_of() {
	case $1 in
	proxyd) echo "$PX_PID" ;;
	proxyd_before) echo "$PXB_PID" ;;
	squid) echo "$SQUID_PID" ;;
	tinyproxy) echo "$TINY_PID" ;;
	null_splice) cat "$T/null_splice.pid" ;;
	null_rw) cat "$T/null_rw.pid" ;;
	*) echo "" ;;
	esac
}

# A proxy that does not relay bytes intact is not measured (and the run
# fails): the figures would be of something else.
CHECKED=
FAILED=
for p in $PROXIES; do
	if "$PXB" check "$(port_of $p)" "$ECHO" 2>"$T/check.$p"; then
		CHECKED="$CHECKED $p"
	else
		FAILED="$FAILED $p"
		echo "relay check failed for $p: $(cat "$T/check.$p")" >&2
	fi
done
PROXIES=$CHECKED
is_floor() { case $1 in null_*) return 0 ;; esac; return 1; }
label() {
	case $1 in
	null_splice) echo "null proxy, splice (test floor)" ;;
	null_rw) echo "null proxy, read/write (test floor)" ;;
	proxyd_before) echo "proxyd before ($PROXYD_BEFORE)" ;;
	*) echo "$1" ;;
	esac
}

cat >"$T/abs.lua" <<'EOF'
-- absolute-form requests to the proxy (the Host header is the proxy's);
-- origin-form "/" for the direct run
local target = os.getenv("PX_TARGET")
request = function()
	return wrk.format("GET", target)
end
EOF

# Each kind of measurement runs in rounds that interleave the proxies
# (direct, proxyd, squid, ... then again), and each figure is the median
# of its rounds: on a shared host the load drifts over a run, and a ratio
# of two figures taken minutes apart would measure the drift as much as
# the proxies.
wrk_rps() {	# wrk_rps PROXY: keep-alive requests/s for one round
	command -v wrk >/dev/null 2>&1 || { echo 0; return; }
	if [ "$1" = direct ]; then
		# the same Lua request hook, origin-form: wrk spends the
		# same per request as in the proxied rounds
		PX_TARGET=/ wrk -t1 -c32 -d${WRK_SECS}s -s "$T/abs.lua" \
		    "http://127.0.0.1:$HTTP/" 2>/dev/null
	else
		PX_TARGET="http://127.0.0.1:$HTTP/" wrk -t1 -c32 \
		    -d${WRK_SECS}s -s "$T/abs.lua" \
		    "http://127.0.0.1:$(port_of "$1")/" 2>/dev/null
	fi | awk '/^Requests\/sec/ {printf "%d\n", $2}'
}
for p in $PROXIES; do
	: >"$T/bulk.$p"
	: >"$T/cpu.$p"
	: >"$T/rps.$p"
	: >"$T/tps.$p"
	: >"$T/tcpu.$p"
done
# rounds N ROUND_FN: N rounds of ROUND_FN PROXY over all the proxies
rounds() {
	i=0
	while [ $i -lt "$1" ]; do
		for p in $PROXIES; do
			"$2" $p
		done
		i=$((i + 1))
	done
}
bulk_round() {
	pid=$(pid_of $1)
	c0=0
	[ -n "$pid" ] && c0=$(cpu_ticks "$pid")
	"$PXB" bulk "$(port_of $1)" "$SINK" $GIB | awk '{print $2}' \
	    >>"$T/bulk.$1"
	[ -n "$pid" ] && echo $(( $(cpu_ticks "$pid") - c0 )) >>"$T/cpu.$1"
}
wrk_round() {
	is_floor $1 && return	# the floor proxies only tunnel
	wrk_rps $1 >>"$T/rps.$1"
}
tunnels_round() {
	pid=$(pid_of $1)
	c0=0
	[ -n "$pid" ] && c0=$(cpu_ticks "$pid")
	"$PXB" tunnels "$(port_of $1)" "$ECHO" $TUN_SECS 4 >"$T/tun.out"
	awk '{ printf "%d\n", $1 / $2 }' "$T/tun.out" >>"$T/tps.$1"
	# the proxy's CPU per tunnel, in microseconds
	[ -n "$pid" ] && awk -v c=$(( $(cpu_ticks "$pid") - c0 )) \
	    -v hz="$(getconf CLK_TCK)" \
	    '$1 > 0 { printf "%.0f\n", c / hz * 1e6 / $1 }' "$T/tun.out" \
	    >>"$T/tcpu.$1"
	sleep 1		# let TIME_WAIT and the accept queues settle
}
rounds $BULK_ROUNDS bulk_round
rounds $ROUNDS wrk_round
rounds $ROUNDS tunnels_round

printf '| | CONNECT GB/s | proxy CPU-s/GiB | keep-alive req/s | tunnels/s | proxy CPU µs/tunnel | KB/idle tunnel @1k | KB/idle tunnel @4k |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for p in $PROXIES; do
	pid=$(pid_of $p)
	port=$(port_of $p)
	s=$(median <"$T/bulk.$p")
	gbs=$(awk -v s="$s" -v b=$GIB 'BEGIN { if (s > 0) printf "%.2f", b / s / 1e9; else print "-" }')
	cpu="-"
	if [ -n "$pid" ]; then
		t=$(median <"$T/cpu.$p")
		cpu=$(awk -v t="$t" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }')
	fi
	rps=$(median <"$T/rps.$p")
	[ -n "$rps" ] || rps=-
	tps=$(median <"$T/tps.$p")
	tcpu=$(median <"$T/tcpu.$p")
	[ -n "$tcpu" ] || tcpu=-
	# idle tunnels
	idle1=-
	idle4=-
	if [ -n "$pid" ] && ! is_floor $p; then
		for n in 1000 4000; do
			mkfifo "$T/idle.in"
			r0=$(rss_kb "$pid")
			"$PXB" idle "$port" "$ECHO" $n <"$T/idle.in" >"$T/idle.out" 2>&1 &
			ip=$!
			exec 9>"$T/idle.in"
			while ! grep -q ready "$T/idle.out" && kill -0 $ip 2>/dev/null; do
				sleep 0.2
			done
			sleep 0.5
			r1=$(rss_kb "$pid")
			exec 9>&-
			wait $ip
			rm -f "$T/idle.in"
			v=$(awk -v a="$r0" -v b="$r1" -v n=$n 'BEGIN { printf "%.1f", (b - a) / n }')
			[ $n = 1000 ] && idle1=$v || idle4=$v
			sleep 1
		done
	fi
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(label $p)" \
	    "$gbs" "$cpu" "$rps" "$tps" "$tcpu" "$idle1" "$idle4"
	echo "$gbs $cpu $rps $tps $idle4 $tcpu" >"$T/res.$p"
done

# proxyd against issue 6's targets, as ratios within this one run
ratio() {	# ratio A B: A / B to two places, "-" if either is missing
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b
		else print "-" }'
}
if [ -f "$T/res.direct" ] && [ -f "$T/res.proxyd" ]; then
	read -r d_gbs d_cpu d_rps d_tps d_idle d_tcpu <"$T/res.direct"
	read -r p_gbs p_cpu p_rps p_tps p_idle p_tcpu <"$T/res.proxyd"
	s_rps=-
	[ -f "$T/res.squid" ] && read -r s_gbs s_cpu s_rps s_tps s_idle \
	    <"$T/res.squid"
	printf '\nproxyd: throughput %sx direct (target >= 0.7)' \
	    "$(ratio "$p_gbs" "$d_gbs")"
	printf ' at %s CPU-s/GiB' "$p_cpu"
	printf ' (<= 0.2); tunnels/s %sx direct (>= 0.5);' \
	    "$(ratio "$p_tps" "$d_tps")"
	printf ' keep-alive %sx squid (>= 2); %s KB per idle tunnel (<= 6).\n' \
	    "$(ratio "$p_rps" "$s_rps")" "$p_idle"
fi
# the floor: what a proxy doing nothing but relaying reaches here
for f in null_splice null_rw; do
	[ -f "$T/res.$f" ] && [ -f "$T/res.direct" ] &&
	    [ -f "$T/res.proxyd" ] || continue
	read -r f_gbs f_cpu f_rps f_tps f_idle f_tcpu <"$T/res.$f"
	printf '\n%s: throughput %sx direct, tunnels/s %sx' \
	    "$(label $f)" "$(ratio "$f_gbs" "$d_gbs")" \
	    "$(ratio "$f_tps" "$d_tps")"
	printf ' direct; proxyd / floor: throughput %s, CPU per GiB %s,' \
	    "$(ratio "$p_gbs" "$f_gbs")" "$(ratio "$p_cpu" "$f_cpu")"
	printf ' tunnels/s %s, CPU per tunnel %s.\n' \
	    "$(ratio "$p_tps" "$f_tps")" "$(ratio "$p_tcpu" "$f_tcpu")"
done
if [ -f "$T/res.proxyd_before" ] && [ -f "$T/res.proxyd" ]; then
	read -r b_gbs b_cpu b_rps b_tps b_idle b_tcpu <"$T/res.proxyd_before"
	printf '\nproxyd / proxyd before: throughput %s, CPU per GiB %s,' \
	    "$(ratio "$p_gbs" "$b_gbs")" "$(ratio "$p_cpu" "$b_cpu")"
	printf ' keep-alive %s, tunnels/s %s, CPU per tunnel %s.\n' \
	    "$(ratio "$p_rps" "$b_rps")" "$(ratio "$p_tps" "$b_tps")" \
	    "$(ratio "$p_tcpu" "$b_tcpu")"
fi

cat <<EOF

Host: $(nproc) CPUs, $(uname -r), load average at the end: $(cut -d' ' -f1-3 /proc/loadavg).
Commands (px_bench is tests/helpers/px_bench.c, the proxy port is P):
- each figure but idle: median of $ROUNDS rounds ($BULK_ROUNDS for bulk), the proxies interleaved within each round
- bulk: \`px_bench bulk P SINK_PORT $GIB\`; CPU = utime+stime of the proxy's process tree
- keep-alive: \`PX_TARGET=http://127.0.0.1:ORIGIN/ wrk -t1 -c32 -d${WRK_SECS}s -s abs.lua http://127.0.0.1:P/\` (direct: the same with PX_TARGET=/ on the origin)
- tunnels: \`px_bench tunnels P ECHO_PORT $TUN_SECS 4\` (CONNECT, 1-byte echo, close; 4 threads)
- tunnels CPU: utime+stime of the proxy's process tree over the round / tunnels made
- idle: \`px_bench idle P ECHO_PORT N\`; (RSS with N tunnels - RSS before) / N
- test floor: \`px_bench nullproxy splice|rw\` (no policy, no resolution, no logging; bulk and tunnels only)
- every proxy first passed \`px_bench check P ECHO_PORT\` (1 byte and 1 MiB echoed intact, a half-close)
EOF
if [ -n "$FAILED" ]; then
	echo "relay check FAILED, not measured:$FAILED"
	exit 1
fi
