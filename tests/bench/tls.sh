#!/bin/sh
# SPDX-License-Identifier: ISC
#
# TLS termination against a plain CONNECT tunnel and against squid's
# ssl-bump, in one run: a sandbox's curl fetches from one loopback HTTPS
# server (lighttpd, a test CA) by two names, localhost (listed in
# sandbox.network.tls.inspect, so proxyd terminates TLS, judges each
# request and opens a second TLS connection) and 127.0.0.1 (an opaque
# CONNECT tunnel); the same curl on the host fetches localhost through a
# loopback squid that bumps every CONNECT (squid-openssl: the tool a user
# would pick instead of airlock's terminating proxy).  Bulk: MiB/s of one
# 256 MiB download; requests: small GETs per second on one kept-alive
# connection.  Medians of ROUNDS (default 3) rounds, each measuring all
# three paths in turn.  Prints Markdown.
#
#   sh tests/bench/tls.sh BUILD_DIR
set -u
BUILD=${1:-build}
BUILD=$(cd "$BUILD" && pwd)
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3}
NREQ=${NREQ:-300}
BULK_MIB=${BULK_MIB:-256}
bench_stage /tmp/tls-bench.XXXXXX
T=$STAGE/srv
mkdir -p "$T/www"
cleanup() {
	kill "${LPID:-}" 2>/dev/null
	squid_stop
	[ -n "${TLS_BENCH_KEEP:-}" ] || rm -rf "$STAGE"
}
# squid_stop: squid -N ends within shutdown_lifetime of a TERM and takes
# its certificate helpers with it; whatever is left after 5 s is killed,
# so no squid outlives the run.
squid_stop() {
	[ -n "${SQPID:-}" ] || return 0
	_h=$(pgrep -P "$SQPID" 2>/dev/null)
	kill "$SQPID" 2>/dev/null
	_i=0
	while kill -0 "$SQPID" 2>/dev/null && [ $_i -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	# shellcheck disable=SC2086
	kill -9 "$SQPID" $_h 2>/dev/null
	wait "$SQPID" 2>/dev/null
	SQPID=
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

(
	cd "$T" || exit 1
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 \
	    -subj "/CN=airlock bench CA" -keyout ca.key -out ca.pem \
	    -addext basicConstraints=critical,CA:TRUE 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
	    -keyout srv.key -out srv.csr 2>/dev/null
	printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >ext.cnf
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key \
	    -CAcreateserial -days 1 -extfile ext.cnf -out srv.pem 2>/dev/null
	cat srv.pem srv.key >bundle.pem
) || exit 1
head -c $((BULK_MIB * 1048576)) /dev/zero >"$T/www/big"
printf 'ok\n' >"$T/www/small"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$T/lighttpd.conf" <<EOF
server.modules = ( "mod_openssl" )
server.document-root = "$T/www"
server.bind = "127.0.0.1"
server.port = $PORT
server.errorlog = "$T/error.log"
server.pid-file = "$T/lighttpd.pid"
ssl.engine = "enable"
ssl.pemfile = "$T/bundle.pem"
EOF
LIGHTTPD=$(command -v lighttpd || echo /usr/sbin/lighttpd)
"$LIGHTTPD" -D -f "$T/lighttpd.conf" &
LPID=$!
sleep 0.5
chmod -R a+rX "$T"
cat >"$T/settings.json" <<EOF
{"sandbox":{"network":{"tls":{"upstreamCA":"$T/ca.pem","inspect":[
  {"host":"localhost","deny":["DELETE /"]}]}}}}
EOF
chmod a+r "$T/settings.json"

# What curl does on each path: one bulk download, then NREQ small GETs
# on one kept-alive connection; prints "bench: bulk-B/s t0 t1".
# Arguments: URL base, NREQ, then curl's own options.
# shellcheck disable=SC2016
FETCH='
	u=$1 n=$2
	shift 2
	bulk=$(curl -s "$@" -o /dev/null -w "%{speed_download}" "$u/big")
	urls=$(i=0; while [ $i -lt $n ]; do echo "$u/small"; i=$((i+1)); done)
	t0=$(date +%s.%N)
	curl -s "$@" -o /dev/null $urls
	t1=$(date +%s.%N)
	echo "bench: $bulk $t0 $t1"'
# "bench: ..." to "MiB/s requests/s"
rates() {
	sed -n 's/^bench: //p' |
	    awk -v n="$NREQ" '{ printf "%.0f %.0f\n", $1 / 1048576, n / ($3 - $2) }'
}

# one HOST: "bulk MiB/s" and "requests/s" inside one sandbox run
measure() {
	run_as "$STAGE/build/airlock" run --workspace "$STAGE/ws" \
	    --settings "$T/settings.json" --allow-domain "$1:$PORT" \
	    --no-policy-check -- sh -c "$FETCH" sh "https://$1:$PORT" "$NREQ" \
	    2>>"$T/err" | rates
}

# ---- squid with ssl-bump, the alternative ----
# Debian's squid is built with GnuTLS and has no ssl-bump; squid-openssl
# (what contrib/install-deps.sh installs) has it.  squid runs on loopback
# only, as the user the sandboxes run as when the bench runs as root
# (squid refuses to stay root), with its own CA that only the host curl
# trusts, and verifies lighttpd against the test CA.
SQ=$STAGE/squid
SQPID=
SQUID=$(command -v squid || echo /usr/sbin/squid)
SQUID_WHY=
if [ ! -x "$SQUID" ]; then
	SQUID_WHY="squid is not installed (contrib/install-deps.sh --bench"
	SQUID_WHY="$SQUID_WHY installs squid-openssl)"
elif ! "$SQUID" -v | grep -q -e "'--with-openssl'"; then
	SQUID_WHY="this squid has no ssl-bump (Debian's squid is the GnuTLS"
	SQUID_WHY="$SQUID_WHY build; squid-openssl has it)"
else
	CERTGEN=$("$SQUID" -v | tr ' ' '\n' |
	    sed -n "s/^'--libexecdir=\(.*\)'$/\1/p")/security_file_certgen
	[ -x "$CERTGEN" ] || SQUID_WHY="squid's $CERTGEN is missing"
fi
squid_start() {
	mkdir -p "$SQ"
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 \
	    -subj "/CN=squid ssl-bump bench CA" -keyout "$SQ/ca.key" \
	    -out "$SQ/ca.pem" -addext basicConstraints=critical,CA:TRUE \
	    2>/dev/null || { SQUID_WHY="openssl failed"; return 1; }
	"$CERTGEN" -c -s "$SQ/certs" -M 4MB >"$SQ/certgen.out" 2>&1 ||
	    { SQUID_WHY="$CERTGEN -c failed: $(cat "$SQ/certgen.out")"; return 1; }
	SQPORT=$(python3 -c 'import socket; s=socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	{
		echo "http_port 127.0.0.1:$SQPORT ssl-bump" \
		    "generate-host-certificates=on" \
		    "dynamic_cert_mem_cache_size=4MB" \
		    "tls-cert=$SQ/ca.pem tls-key=$SQ/ca.key"
		echo "sslcrtd_program $CERTGEN -s $SQ/certs -M 4MB"
		echo "sslcrtd_children 2 startup=1 idle=1"
		echo "ssl_bump bump all"
		echo "tls_outgoing_options cafile=$T/ca.pem"
		echo "http_access allow localhost"
		echo "http_access deny all"
		echo "cache deny all"
		echo "access_log stdio:$SQ/access.log"
		echo "cache_log $SQ/cache.log"
		echo "pid_filename $SQ/squid.pid"
		echo "coredump_dir $SQ"
		echo "netdb_filename none"
		echo "workers 1"
		echo "shutdown_lifetime 1 seconds"
		[ "$(id -u)" -eq 0 ] && echo "cache_effective_user $U"
	} >"$SQ/squid.conf"
	[ "$(id -u)" -eq 0 ] && chown -R "$U" "$SQ"
	"$SQUID" -N -f "$SQ/squid.conf" >"$SQ/out" 2>&1 &
	SQPID=$!
	# curl exits 7 while nothing listens; squid can take seconds on a
	# loaded host.
	_i=0
	while curl -s -m 2 -o /dev/null "http://127.0.0.1:$SQPORT/"
	    [ $? -eq 7 ]; do
		if ! kill -0 "$SQPID" 2>/dev/null || [ $_i -ge 300 ]; then
			SQUID_WHY="squid did not start: $(tail -3 "$SQ/out" \
			    "$SQ/cache.log" 2>/dev/null | tr '\n' ' ')"
			squid_stop
			return 1
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	# One bumped request before the rounds: a running squid has its
	# certificate for the host cached, as it would when deployed.
	curl -s -f -o /dev/null -x "http://127.0.0.1:$SQPORT" \
	    --cacert "$SQ/ca.pem" "https://localhost:$PORT/small" || {
		SQUID_WHY="a bumped request through squid failed: $(tail -3 \
		    "$SQ/cache.log" 2>/dev/null | tr '\n' ' ')"
		squid_stop
		return 1
	}
}
[ -n "$SQUID_WHY" ] || squid_start
# the same curl on the host, through squid, trusting squid's CA
measure_squid() {
	run_as sh -c "$FETCH" sh "https://localhost:$PORT" "$NREQ" \
	    -x "http://127.0.0.1:$SQPORT" --cacert "$SQ/ca.pem" \
	    2>>"$T/err" | rates
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$T/term"
: >"$T/tun"
: >"$T/bump"
r=0
while [ $r -lt "$ROUNDS" ]; do
	measure localhost >>"$T/term"
	measure 127.0.0.1 >>"$T/tun"
	[ -n "$SQPID" ] && measure_squid >>"$T/bump"
	r=$((r + 1))
done
squid_stop
tb=$(cut -d' ' -f1 "$T/tun" | median)
tr=$(cut -d' ' -f2 "$T/tun" | median)
mb=$(cut -d' ' -f1 "$T/term" | median)
mr=$(cut -d' ' -f2 "$T/term" | median)
sb=$(cut -d' ' -f1 "$T/bump" | median)
sr=$(cut -d' ' -f2 "$T/bump" | median)
# "a / b" to two places, "?" without both figures
ratio() {
	awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN {
		if (a > 0 && b > 0) printf "%.2fx", a / b; else printf "?" }'
}
echo "| path | bulk MiB/s | requests/s (kept alive) | bulk / tunnel |" \
    "requests / tunnel |"
echo "|---|---|---|---|---|"
echo "| CONNECT tunnel (127.0.0.1) | ${tb:-?} | ${tr:-?} | 1 | 1 |"
echo "| TLS terminated, inspected (localhost) | ${mb:-?} | ${mr:-?} |" \
    "$(ratio "$mb" "$tb") | $(ratio "$mr" "$tr") |"
[ -z "$SQUID_WHY" ] &&
    echo "| squid ssl-bump, host curl (localhost) | ${sb:-?} | ${sr:-?} |" \
    "$(ratio "$sb" "$tb") | $(ratio "$sr" "$tr") |"
echo
echo "terminated / tunnel: bulk $(ratio "$mb" "$tb") (target >= 0.5x)," \
    "requests $(ratio "$mr" "$tr")"
[ -z "$SQUID_WHY" ] &&
    echo "terminated / squid ssl-bump: bulk $(ratio "$mb" "$sb")," \
    "requests $(ratio "$mr" "$sr")"
echo
echo "$ROUNDS rounds, medians; $BULK_MIB MiB bulk, $NREQ requests per round."
if [ -n "$SQUID_WHY" ]; then
	echo "squid's ssl-bump is not measured: $SQUID_WHY."
else
	echo "squid: $("$SQUID" -v | sed -n 's/^Squid Cache: //p'), ssl-bump" \
	    "of every CONNECT, cache off, one worker, running through all rounds" \
	    "(certificate generated before them); curl on the host."
fi
echo "mitmproxy is not measured: contrib/install-deps.sh does not install it"
echo "(Debian 12 packages mitmproxy 8.1 with its Python stack; squid-openssl"
echo "is one package and replaces the squid the tests already use)."
