#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Egress through proxyd from inside real sandboxes (issue 6): the
# sandbox's only way out is the per-session HTTP/SOCKS5 proxy, whose
# listening sockets the launcher made inside the sandbox's own network
# namespace.  Servers are on the host's loopback only.
. "$(dirname "$0")/lib.sh"
plan 34

W=$(mkwork)
cd "$W" || exit 1

# A plain HTTP server and a TLS server (test CA) on loopback, counting hits.
PORT=$(http_counter_start "$W/hits" "$W/srv.pid")
test_ca "$W" ca
test_cert "$W" ca srv "DNS:localhost,IP:127.0.0.1"
chmod a+r "$W/ca.pem"
python3 - "$W/tlshits" "$W/srv.pem" "$W/srv.key" "$W/tls.port" >/dev/null 2>&1 <<'PY' &
import http.server, ssl, sys
hits, cert, key, portfile = sys.argv[1:5]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        open(hits, "a").write("hit\n")
        self.send_response(200); self.send_header("Content-Length", "4")
        self.end_headers(); self.wfile.write(b"tls\n")
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); c.load_cert_chain(cert, key)
s.socket = c.wrap_socket(s.socket, server_side=True)
open(portfile, "w").write(str(s.server_address[1])); s.serve_forever()
PY
TLSPID=$!
# Up to 10 s: python's TLS start-up is slow on a loaded CI machine.
i=0
while [ ! -s "$W/tls.port" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
TLSPORT=$(cat "$W/tls.port")
: >"$W/tlshits"
cleanup() {
	http_counter_stop "$W/srv.pid"
	kill "$TLSPID" 2>/dev/null
	[ -n "${DPID:-}" ] && kill "$DPID" 2>/dev/null
	for p in $DPIDS; do kill "$p" 2>/dev/null; done
}
DPIDS=""

# airlockd_copy N [DAEMON SCRIPT]: a copy of the build in $W/bN (DAEMON
# replaced by the shell SCRIPT), its airlockd serving $W/dN.sock with its
# log in $W/dN.log, once the socket is there.
airlockd_copy() {
	cp -R "$B" "$W/b$1"
	[ $# -lt 3 ] || printf '#!/bin/sh\n%s\n' "$3" >"$W/b$1/$2"
	chmod -R a+rX "$W/b$1"
	spawn_user "$W/b$1/airlockd" --socket "$W/d$1.sock" 2>"$W/d$1.log"
	DPIDS="$DPIDS $!"
	wait_for test -S "$W/d$1.sock"
}
# gw_connect N SECONDS OUT: a run of copy N connects to its gateway port
# directly; OUT gets curl's "rc=" (7 refused, 56 reset, 28 timed out).
gw_connect() {
	as_user "$W/b$1/airlock" run --socket "$W/d$1.sock" --workspace "$W" \
	    -- sh -c "curl -s -m $2 --noproxy '*' http://127.0.0.1:9418/x;
	    echo rc=\$?" >"$3" 2>&1
}
# wait_for CMD...: up to 10 s for CMD to succeed.
wait_for() {
	_i=0
	while ! "$@" 2>/dev/null && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}
trap cleanup EXIT

run() {	# run EVENTS ALLOW... -- CMD: airlock run with --allow-domain each
	_ev=$1
	shift
	_a=""
	while [ "$1" != "--" ]; do
		_a="$_a --allow-domain $1"
		shift
	done
	shift
	set -f		# '*' is a pattern for airlock, not for the shell
	# shellcheck disable=SC2086
	as_user "$AIRLOCK" run --workspace "$W" --events "$_ev" $_a -- "$@"
	_rc=$?
	set +f
	return $_rc
}

# Allowed: plain HTTP, HTTPS through CONNECT, SOCKS5 with the name.
run "$W/e1" "localhost:$PORT" "localhost:$TLSPORT" -- sh -c "
    curl -sf -m 5 http://localhost:$PORT/ &&
    curl -sf -m 5 --cacert ca.pem https://localhost:$TLSPORT/ &&
    curl -sf -m 5 --socks5-hostname 127.0.0.1:1080 http://localhost:$PORT/" \
    >"$W/o1" 2>&1
check "allowed: all three requests succeed through the proxies" [ $? -eq 0 ]
check "plain HTTP and SOCKS5 reached the host server (2 hits)" [ "$(hits "$W/hits")" -eq 2 ]
check "HTTPS via CONNECT reached the TLS server (1 hit)" [ "$(hits "$W/tlshits")" -eq 1 ]
check "the sandbox's proxy variables point at its own listeners" \
    run "$W/e0" -- sh -c 'test "$HTTPS_PROXY" = http://127.0.0.1:3128 &&
        test "$ALL_PROXY" = socks5h://127.0.0.1:1080 && case "${NO_PROXY:-}" in
        *127.0.0.1*|*localhost*) exit 1;; esac'

# Empty allowlist: the same requests fail, 0 hits, one violation each.
: >"$W/hits"
: >"$W/tlshits"
run "$W/e2" -- sh -c "
    curl -sf -m 5 http://localhost:$PORT/;
    curl -sf -m 5 --cacert ca.pem https://localhost:$TLSPORT/;
    curl -sf -m 5 --socks5-hostname 127.0.0.1:1080 http://localhost:$PORT/x" \
    >"$W/o2" 2>&1
check_sh "empty allowlist: the host servers counted 0 hits" \
    '[ "$(hits "$W/hits")" -eq 0 ] && [ "$(hits "$W/tlshits")" -eq 0 ]'
n=$(grep -c '"type":"violation","seq":[0-9]*,"time":"[^"]*","sessionId":"[^"]*","action":"network-outbound"' "$W/e2")
check "empty allowlist: one network-outbound violation per request (got $n)" [ "$n" -eq 3 ]
check "the violations name host:port" grep -q "\"target\":\"localhost:$TLSPORT\"" "$W/e2"

# A direct connection (no proxy) has no route at all.
run "$W/e3" "localhost:$PORT" -- sh -c "curl -sf -m 3 --noproxy '*' http://127.0.0.1:$PORT/" \
    >/dev/null 2>&1
check "a direct connection that bypasses the proxy fails" [ $? -ne 0 ]
check "... and reaches nothing" [ "$(hits "$W/hits")" -eq 0 ]

# A name that resolves to 127.0.0.1 is refused under '*' unless loopback
# is allowed explicitly.
run "$W/e4" '*' -- curl -sf -m 5 "http://localhost:$PORT/" >/dev/null 2>&1
check "'*' does not reach loopback by name" [ "$(hits "$W/hits")" -eq 0 ]
check "... and says why" grep -q '"action":"network-outbound"' "$W/e4"
run "$W/e5" '*' "localhost:$PORT" -- curl -sf -m 5 "http://localhost:$PORT/" >/dev/null 2>&1
check "an explicit localhost:PORT rule does (R-L8)" [ "$(hits "$W/hits")" -eq 1 ]
run "$W/e7" "127.0.0.1:$PORT" -- curl -sf -m 5 "http://127.0.0.1:$PORT/" >/dev/null 2>&1
check "so does an explicit 127.0.0.1:PORT rule for that literal" [ "$(hits "$W/hits")" -eq 2 ]

# proxyd killed during a tunnel: the session fails closed, proxyd is
# restarted, and new sessions work.
spawn_user "$AIRLOCKD" --socket "$W/d.sock" 2>"$W/d.log"
DPID=$!
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	[ -S "$W/d.sock" ] && break
	sleep 0.1
done
# The daemons start at a sandbox's first connection to them (issue 15):
# a run that never connects starts neither.
starts() {	# starts SOCKET: "PROXYD GATEWAYD", the daemons' start counts
	as_user "$AIRLOCK" status --socket "$1" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["daemons"]
print(d["proxyd"]["starts"], d["gatewayd"]["starts"])'
}
as_user "$AIRLOCK" run --socket "$W/d.sock" --workspace "$W" -- true
n=$(starts "$W/d.sock")
check "a run that never connects starts neither daemon ($n)" [ "$n" = "0 0" ]
as_user "$AIRLOCK" run --socket "$W/d.sock" --workspace "$W" --events "$W/e6" \
    --allow-domain "localhost:$PORT" -- sh -c "
    curl -sf -m 5 http://localhost:$PORT/ >/dev/null && echo first-ok;
    sleep 30; echo still-running" >"$W/o6" 2>&1 &
RUNPID=$!
for i in $(seq 1 50); do
	grep -q first-ok "$W/o6" 2>/dev/null && break
	sleep 0.1
done
n=$(starts "$W/d.sock")
check "the first request through the proxy started proxyd only ($n)" \
    [ "$n" = "1 0" ]
PX=$(pgrep -u "$TUSER" -P "$DPID" -f airlock-proxyd | head -1)
kill -KILL "$PX"
wait "$RUNPID"
rc=$?
check "killing proxyd ends the session that used it (exit $rc)" [ "$rc" -ne 0 ]
check "... with killed{proxy-died} and nothing after" \
    fails grep -q still-running "$W/o6"
grep -q '"reason":"proxy-died"' "$W/e6" || diag "$(cat "$W/e6")"
sleep 0.5
as_user "$AIRLOCK" run --socket "$W/d.sock" --workspace "$W" \
    --allow-domain "localhost:$PORT" -- curl -sf -m 5 "http://localhost:$PORT/" >/dev/null 2>&1
check "a new session after the restart works" [ $? -eq 0 ]
st=$(as_user "$AIRLOCK" status --socket "$W/d.sock" --json)
case $st in
*'"proxyd":{"running":true'*'"starts":2'*) ok "status shows proxyd restarted" ;;
*) not_ok "status shows proxyd restarted"; diag "$st" ;;
esac

# A daemon that cannot be started (its binary gone after airlockd
# started): the connection waiting for it is refused, not left hanging,
# and airlockd says why.
airlockd_copy 2
chmod a-x "$W/b2/airlock-gatewayd"
gw_connect 2 10 "$W/o8"
# 7: refused; 55 or 56: reset while curl sent or read (it was in the
# backlog when the listener closed);
# 28 would be a connection left waiting until curl's timeout.
check "a gatewayd that cannot start: the connection is refused or reset" \
    grep -Eq "^rc=(7|55|56)$" "$W/o8"
[ "$_fails" -eq 0 ] || diag "$(cat "$W/o8")"
check "... and airlockd says why" \
    grep -q "gatewayd could not be started: closing its listeners" "$W/d2.log"
# A gatewayd that exits before it says it is ready (a broken install, a
# crash at start) could not be started either: the connection that
# started it is refused, not kept waiting through a loop of restarts
# (git has no timeout of its own).  A session that was not connecting
# keeps its listener: the next gatewayd, once it can start, serves it.
mkdir "$W/ws3"
chown "$TUSER" "$W/ws3"
airlockd_copy 3 airlock-gatewayd "exit 1"
as_user "$W/b3/airlock" run --socket "$W/d3.sock" --workspace "$W/ws3" -- \
    sh -c 'echo b-started; while [ ! -e .go ]; do sleep 0.2; done
    curl -s -m 10 -o /dev/null -w "code=%{http_code}\n" --noproxy "*" \
        http://127.0.0.1:9418/x' >"$W/o9b" 2>&1 &
BPID=$!
wait_for grep -q b-started "$W/o9b"
gw_connect 3 10 "$W/o9"
check "a gatewayd that exits at once: the connection is refused or reset" \
    grep -Eq "^rc=(7|55|56)$" "$W/o9"
[ "$_fails" -eq 0 ] || diag "$(cat "$W/o9")"
n=$(starts "$W/d3.sock")
check "... after one start, not a loop of them ($n)" [ "$n" = "0 1" ]
cp "$B/airlock-gatewayd" "$W/b3/airlock-gatewayd"
chmod a+rx "$W/b3/airlock-gatewayd"
sleep 0.3	# past the backoff after the first exit
touch "$W/ws3/.go"
wait "$BPID"
check "a session that was not connecting then is served by the next one" \
    grep -Eq "^code=[1-5][0-9][0-9]$" "$W/o9b"
[ "$_fails" -eq 0 ] || diag "$(cat "$W/o9b")"
n=$(starts "$W/d3.sock")
check "... started at its connection ($n)" [ "$n" = "0 2" ]
# The same for proxyd: the connection that started it is refused and its
# session goes on (nothing went through a proxy); a session that was not
# connecting is not killed either, and the next proxyd serves it.
mkdir "$W/ws4"
chown "$TUSER" "$W/ws4"
airlockd_copy 4 airlock-proxyd "exit 1"
as_user "$W/b4/airlock" run --socket "$W/d4.sock" --workspace "$W/ws4" \
    --allow-domain "localhost:$PORT" -- sh -c "echo b-started
    while [ ! -e .go ]; do sleep 0.2; done
    curl -sf -m 10 http://localhost:$PORT/ >/dev/null && echo b-ok" \
    >"$W/o10b" 2>&1 &
BPID=$!
wait_for grep -q b-started "$W/o10b"
as_user "$W/b4/airlock" run --socket "$W/d4.sock" --workspace "$W" -- \
    sh -c 'curl -s -m 10 http://localhost:1/; echo "rc=$?"' >"$W/o10" 2>&1
rc=$?
check_sh "a proxyd that exits at once: refused, the session goes on ($rc)" \
    '[ "$rc" -eq 0 ] && grep -Eq "^rc=(7|55|56)$" "$W/o10"'
[ "$_fails" -eq 0 ] || diag "$(cat "$W/o10")"
cp "$B/airlock-proxyd" "$W/b4/airlock-proxyd"
chmod a+rx "$W/b4/airlock-proxyd"
sleep 0.3	# past the backoff after the first exit
touch "$W/ws4/.go"
wait "$BPID"
check "a session that was not connecting is not killed" \
    fails grep -q "proxy-died" "$W/o10b"
check "... and the next proxyd serves it" grep -q b-ok "$W/o10b"
[ "$_fails" -eq 0 ] || diag "$(cat "$W/o10b")"
# A session whose egress lists are more than one message to proxyd can
# carry (here 4,200 names) gets no proxy: no proxy variables (6: the
# name does not resolve) or, when proxyd starts later, its connections
# refused.  airlockd, which registers every session at proxyd's start,
# does not die of it and the other sessions go on.
A=$(seq 1 4200 | sed 's/.*/--allow-domain d&.example.com/' | tr '\n' ' ')
# shellcheck disable=SC2086
as_user "$AIRLOCK" run --socket "$W/d.sock" --workspace "$W" $A -- \
    sh -c 'curl -s -m 10 http://d1.example.com/; echo "rc=$?"' \
    >"$W/o11" 2>&1
check "4,200 allowed names: the session gets no way out" \
    grep -Eq "^rc=(6|7|56)$" "$W/o11"
[ "$_fails" -eq 0 ] || diag "$(cat "$W/o11")"
check "... airlockd is still there" kill -0 "$DPID"
: >"$W/hits"
as_user "$AIRLOCK" run --socket "$W/d.sock" --workspace "$W" \
    --allow-domain "localhost:$PORT" -- \
    curl -sf -m 5 "http://localhost:$PORT/" >/dev/null 2>&1
check "... and serves the next session" [ "$(hits "$W/hits")" -eq 1 ]
# A gatewayd that never says hello (stuck at its start) is one that
# could not be started either, once it has had 10 s: the connection
# waiting for it is refused then, not held for as long as it hangs.
airlockd_copy 5 airlock-gatewayd "exec sleep 120"
gw_connect 5 30 "$W/o12"
check "a gatewayd stuck at its start: the connection is refused or reset" \
    grep -Eq "^rc=(7|55|56)$" "$W/o12"
[ "$_fails" -eq 0 ] || diag "$(cat "$W/o12")"
check "... and airlockd says why" grep -q "said no hello within" "$W/d5.log"

# The helpers are found once, at airlockd's start: where airlock-gatewayd
# is missing next to airlockd and the installed one is used, a file
# planted next to airlockd later (by whoever can write that directory, a
# sandbox that binds it) is never run.  Root only: the installed copy is
# made over /usr/local in a mount namespace of the test's own.
if [ "$(id -u)" -eq 0 ] && grep -qaF /usr/local/libexec/airlock "$AIRLOCKD"; then
	mkdir "$W/b6"
	cp -R "$B"/. "$W/b6"
	rm -f "$W/b6/airlock-gatewayd"
	chmod -R a+rX "$W/b6"
	chown "$TUSER" "$W/b6"
	unshare -m sh -s "$W" "$B" "$TUSER" >"$W/o13" 2>&1 <<'SH'
W=$1 B=$2 U=$3
mount --make-rprivate / && mount -t tmpfs tmpfs /usr/local &&
    mkdir -p /usr/local/libexec/airlock &&
    cp "$B/airlock-gatewayd" /usr/local/libexec/airlock/ || exit 1
runuser -u "$U" -- "$W/b6/airlockd" --socket "$W/d6.sock" 2>"$W/d6.log" &
i=0
while [ ! -S "$W/d6.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
printf '#!/bin/sh\ntouch %s/planted-ran\nexec sleep 60\n' "$W" \
    >"$W/b6/airlock-gatewayd"
chmod 755 "$W/b6/airlock-gatewayd"
chown "$U" "$W/b6/airlock-gatewayd"
cd "$W" && runuser -u "$U" -- "$W/b6/airlock" run --socket "$W/d6.sock" \
    --workspace "$W" -- sh -c 'curl -s -m 15 -o /dev/null \
    -w "http=%{http_code}\n" --noproxy "*" http://127.0.0.1:9418/x'
pkill -f -- "--socket $W/d6.sock"
SH
	check_sh "a helper planted next to airlockd after its start never runs" \
	    '[ ! -e "$W/planted-ran" ] && grep -q "^http=404" "$W/o13"'
	[ "$_fails" -eq 0 ] || diag "$(cat "$W/o13" "$W/d6.log")"
else
	ok "a helper planted next to airlockd after its start never runs # SKIP needs root"
fi
finish
