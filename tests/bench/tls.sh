#!/bin/sh
# SPDX-License-Identifier: ISC
#
# TLS termination against a plain CONNECT tunnel, in one run: a sandbox's
# curl fetches from one loopback HTTPS server (lighttpd, a test CA) by
# two names, localhost (listed in sandbox.network.tls.inspect, so proxyd
# terminates TLS, judges each request and opens a second TLS connection)
# and 127.0.0.1 (an opaque CONNECT tunnel).  Bulk: MiB/s of one 256 MiB
# download; requests: small GETs per second on one kept-alive connection.
# Medians of ROUNDS (default 3) interleaved rounds.  Prints Markdown.
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
	[ -n "${TLS_BENCH_KEEP:-}" ] || rm -rf "$STAGE"
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

# one HOST: "bulk MiB/s" and "requests/s" inside one sandbox run
measure() {
	run_as "$STAGE/build/airlock" run --workspace "$STAGE/ws" \
	    --settings "$T/settings.json" --allow-domain "$1:$PORT" \
	    --no-policy-check -- sh -c '
	    u=https://$1:$2
	    bulk=$(curl -s -o /dev/null -w "%{speed_download}" "$u/big")
	    urls=$(i=0; while [ $i -lt $3 ]; do echo "$u/small"; i=$((i+1)); done)
	    t0=$(date +%s.%N)
	    curl -s -o /dev/null $urls
	    t1=$(date +%s.%N)
	    echo "bench: $bulk $t0 $t1"' sh "$1" "$PORT" "$NREQ" 2>>"$T/err" |
	    sed -n 's/^bench: //p' | awk -v n="$NREQ" '{ printf "%.0f %.0f\n", $1 / 1048576, n / ($3 - $2) }'
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$T/term"
: >"$T/tun"
r=0
while [ $r -lt "$ROUNDS" ]; do
	measure localhost >>"$T/term"
	measure 127.0.0.1 >>"$T/tun"
	r=$((r + 1))
done
tb=$(cut -d' ' -f1 "$T/tun" | median)
tr=$(cut -d' ' -f2 "$T/tun" | median)
mb=$(cut -d' ' -f1 "$T/term" | median)
mr=$(cut -d' ' -f2 "$T/term" | median)
echo "| path | bulk MiB/s | requests/s (kept alive) |"
echo "|---|---|---|"
echo "| CONNECT tunnel (127.0.0.1) | ${tb:-?} | ${tr:-?} |"
echo "| TLS terminated, inspected (localhost) | ${mb:-?} | ${mr:-?} |"
echo
awk -v a="${mb:-0}" -v b="${tb:-0}" -v c="${mr:-0}" -v d="${tr:-0}" 'BEGIN {
	if (b > 0 && d > 0)
		printf "terminated / tunnel: bulk %.2fx (target >= 0.5x), requests %.2fx\n", a / b, c / d
}'
echo
echo "$ROUNDS rounds, medians; $BULK_MIB MiB bulk, $NREQ requests per round;"
echo "mitmproxy and squid's ssl-bump are not measured: neither is installed"
echo "by contrib/install-deps.sh (Debian's squid has no ssl-bump; squid-openssl"
echo "does)."
