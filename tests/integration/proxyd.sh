#!/bin/sh
# SPDX-License-Identifier: ISC
#
# airlock-proxyd end to end, without the rest of airlock: px_drive stands
# in for airlockd, real curl is the client, small python3 servers on
# loopback count the requests that reach them.  TAP output.
#
#   sh tests/integration/proxyd.sh BUILD_DIR
# or through tests/run.sh (make check), which sets AIRLOCK_STAGE.
#
# Network traffic stays on 127.0.0.1.  169.254.169.254 appears only as a
# target proxyd must refuse before dialing anything.
set -u

BUILD=${1:-${AIRLOCK_STAGE:+$AIRLOCK_STAGE/build}}
BUILD=${BUILD:-build}
BUILD=$(cd "$BUILD" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
PROXYD=$BUILD/airlock-proxyd
DRIVE=$BUILD/tests/helpers/px_drive
T=$(mktemp -d /tmp/proxyd-test.XXXXXX)
N=0
FAILED=0

# The machine's environment must not steer curl or openssl.
unset CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR http_proxy https_proxy \
    HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy NO_PROXY no_proxy

ok() {
	N=$((N + 1))
	echo "ok $N - $1"
}

not_ok() {
	N=$((N + 1))
	FAILED=$((FAILED + 1))
	echo "not ok $N - $1"
	[ $# -gt 1 ] && printf '#   %s\n' "$2"
	return 0
}

check() {	# check DESCRIPTION COMMAND...
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

cleanup() {
	for f in "$T"/*.pid; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- 2>/dev/null
	sleep 0.2
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

hits() { cat "$T/srv/hits.$1"; }
has_line() { printf '%s\n' "$1" | grep -q -- "$2"; }
violations() { grep -c '^violation ' "$T/$1.out"; }

# start_drive NAME FD [px_drive options and allow patterns]: stdin of
# px_drive is a fifo held open on fd FD; closing it ends the session.
start_drive() {
	name=$1
	fd=$2
	shift 2
	mkfifo "$T/$name.in"
	# the children must not hold the other drivers' fifos open
	"$DRIVE" "$@" <"$T/$name.in" >"$T/$name.out" 2>"$T/$name.err" \
	    3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
	echo $! >"$T/$name.pid"
	eval "exec $fd>\"\$T/\$name.in\""
	i=0
	while ! grep -q '^socks_port=' "$T/$name.out" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 50 ]; then
			echo "# px_drive $name did not start"
			cat "$T/$name.err" "$T/$name.out" | sed 's/^/# /'
			return 1
		fi
		sleep 0.1
	done
}

http_port() { sed -n 's/^http_port=//p' "$T/$1.out"; }
socks_port() { sed -n 's/^socks_port=//p' "$T/$1.out"; }

# ---- test CA and servers ----
mkdir -p "$T/srv"
(
	cd "$T" &&
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	    -nodes -keyout ca.key -out ca.crt -subj /CN=airlock-test-ca \
	    -days 1 &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	    -keyout srv.key -out srv.csr -subj /CN=localhost &&
	printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >ext &&
	openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key \
	    -CAcreateserial -out srv.crt -days 1 -extfile ext
) >"$T/openssl.log" 2>&1 || { echo "Bail out! openssl failed"; exit 1; }

mkfifo "$T/srv.in"
python3 "$HERE/proxyd_srv.py" "$T/srv" "$T/srv.crt" "$T/srv.key" \
    <"$T/srv.in" >"$T/srv.log" 2>&1 &
echo $! >"$T/srv.pid"
exec 9>"$T/srv.in"
i=0
while [ ! -f "$T/srv/ports" ]; do
	i=$((i + 1))
	[ $i -gt 50 ] && { echo "Bail out! test servers did not start"; exit 1; }
	sleep 0.1
done
read -r HP TP BP <"$T/srv/ports"

# Every driver's proxyd resolves through a DNS server on loopback only:
# rebind.test -> 127.0.0.1; mixed.test -> a documentation address (special
# too, and never dialled) and a loopback address.
mkfifo "$T/dns.in"
python3 "$HERE/fake_dns.py" "$T/srv" rebind.test=127.0.0.1 \
    mixed.test=198.51.100.7,127.0.0.1 <"$T/dns.in" >"$T/dns.log" 2>&1 &
echo $! >"$T/dns.pid"
exec 5>"$T/dns.in"
i=0
while [ ! -f "$T/srv/dns.port" ]; do
	i=$((i + 1))
	[ $i -gt 50 ] && { echo "Bail out! fake DNS did not start"; exit 1; }
	sleep 0.1
done
echo "nameserver 127.0.0.1:$(cat "$T/srv/dns.port")" >"$T/resolv.conf"
AIRLOCK_RESOLV_CONF=$T/resolv.conf
export AIRLOCK_RESOLV_CONF

echo "1..49"

# ---- allowed: localhost:HP and localhost:TP explicitly ----
start_drive allow 8 "$PROXYD" "localhost:$HP" "localhost:$TP" \
    "127.0.0.1:$HP" "localhost:$BP" || exit 1
AP=$(http_port allow)
AS=$(socks_port allow)

check "HELLO reports Landlock and seccomp" \
    grep -q '^hello [0-9]* landlock abi [0-9]*: no fs access.*seccomp: allowlist [0-9]* syscalls.*caps: none; no_new_privs' "$T/allow.out"

PXPID=$(sed -n 's/^hello \([0-9]*\) .*/\1/p' "$T/allow.out")
check "proxyd runs with seccomp, no_new_privs and no capabilities" \
    sh -c "grep -q '^Seccomp:[[:space:]]*2' /proc/$PXPID/status &&
	grep -q '^NoNewPrivs:[[:space:]]*1' /proc/$PXPID/status &&
	grep -q '^CapEff:[[:space:]]*0000000000000000' /proc/$PXPID/status"

h0=$(hits http)
out=$(curl -sS -m 10 -x "http://127.0.0.1:$AP" "http://localhost:$HP/" 2>&1)
check "absolute-form GET via the HTTP proxy reaches the server" \
    [ "$out" = "hello" ]
check "... exactly one hit" [ "$(hits http)" -eq $((h0 + 1)) ]

t0=$(hits tls)
out=$(curl -sS -m 10 --cacert "$T/ca.crt" -x "http://127.0.0.1:$AP" \
    "https://localhost:$TP/" 2>&1)
check "https via CONNECT to a local TLS server" [ "$out" = "hello" ]
check "... exactly one TLS hit" [ "$(hits tls)" -eq $((t0 + 1)) ]

h0=$(hits http)
out=$(curl -sS -m 10 --socks5-hostname "127.0.0.1:$AS" \
    "http://localhost:$HP/" 2>&1)
check "curl --socks5-hostname reaches the server" [ "$out" = "hello" ]
check "... exactly one hit" [ "$(hits http)" -eq $((h0 + 1)) ]

out=$(curl -sS -m 10 --socks5 "127.0.0.1:$AS" "http://127.0.0.1:$HP/" 2>&1)
check "curl --socks5 with an IPv4 literal allowed by an IP rule" \
    [ "$out" = "hello" ]

t0=$(hits tls)
out=$(curl -sS -m 10 --cacert "$T/ca.crt" --socks5-hostname \
    "127.0.0.1:$AS" "https://localhost:$TP/" 2>&1)
check "https through SOCKS5" [ "$out" = "hello" ]

h0=$(hits http)
out=$(curl -sS -m 10 -x "http://127.0.0.1:$AP" "http://localhost:$HP/a" \
    "http://localhost:$HP/b" -w '%{num_connects}\n' 2>&1 | tr '\n' ' ')
check "two requests on one kept-alive proxy connection" \
    [ "$out" = "hello 1 hello 0 " ]
check "... two hits" [ "$(hits http)" -eq $((h0 + 2)) ]

head -c 300000 /dev/urandom >"$T/body"
out=$(curl -sS -m 10 -x "http://127.0.0.1:$AP" -H 'Transfer-Encoding: chunked' \
    --data-binary @"$T/body" "http://localhost:$HP/post" 2>&1)
check "chunked POST body streamed through the proxy" [ "$out" = "len=300000" ]
out=$(curl -sS -m 10 -x "http://127.0.0.1:$AP" --data-binary @"$T/body" \
    "http://localhost:$HP/post" 2>&1)
check "Content-Length POST body streamed through the proxy" \
    [ "$out" = "len=300000" ]

out=$(curl -sS -m 10 -D - -o /dev/null -x "http://127.0.0.1:$AP" \
    -H 'Host: evil.example' "http://localhost:$HP/" 2>&1 |
    tr -d '\r' | sed -n 's/^X-Seen-Host: //p')
check "Host header rewritten to the decided target" \
    [ "$out" = "localhost:$HP" ]

# The relay and the forwarding path write at once and register events
# only when a socket blocks; these make them block and resume.
python3 -c 'import sys
sys.stdout.buffer.write(bytes(i % 251 for i in range(4000000)))' >"$T/big.want"
curl -sS -m 20 --limit-rate 4M -x "http://127.0.0.1:$AP" \
    "http://localhost:$HP/big/4000000" -o "$T/big.got" 2>/dev/null
check "4 MB answer to a slow reader through absolute-form forwarding" \
    cmp -s "$T/big.want" "$T/big.got"
out=$(python3 "$HERE/proxyd_cli.py" connect "$AP" localhost "$BP" 3000000)
check "CONNECT: early data, server speaks first, 3 MB echoed, half-close" \
    [ "$out" = "ok" ]
out=$(python3 "$HERE/proxyd_cli.py" socks "$AS" localhost "$BP")
check "SOCKS5: a server that speaks first is heard before the client" \
    [ "$out" = "ok" ]
h0=$(hits http)
out=$(python3 "$HERE/proxyd_cli.py" pipeline "$AP" localhost "$HP")
check "two pipelined absolute-form requests in one write" [ "$out" = "ok" ]
check "... two hits" [ "$(hits http)" -eq $((h0 + 2)) ]

code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$AP/")
check "origin-form request to the proxy: 400" [ "$code" = "400" ]

resp=$(python3 - "$AP" "$HP" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(("POST http://localhost:%s/ HTTP/1.1\r\nHost: localhost\r\n"
           "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
           "0\r\n\r\n" % sys.argv[2]).encode())
print(s.recv(4096).decode().split("\r\n")[0])
EOF
)
check "Content-Length with Transfer-Encoding: 400" \
    [ "$resp" = "HTTP/1.1 400 Bad Request" ]

rep=$(python3 - "$AS" "$HP" <<'EOF'
import socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"\x05\x01\x00")
assert s.recv(2) == b"\x05\x00"
s.sendall(b"\x05\x02\x00\x01\x7f\x00\x00\x01" + struct.pack(">H", int(sys.argv[2])))
print(s.recv(10)[1])
EOF
)
check "SOCKS5 BIND: reply 7 (command not supported)" [ "$rep" = "7" ]

v0=$(violations allow)
code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$AP" \
    "http://localhost:$((HP + 1))/")
check "other port of an allowed host: 403" [ "$code" = "403" ]
sleep 0.2
check "... one violation naming host:port" \
    grep -q "^violation s1 network-outbound localhost:$((HP + 1))\$" "$T/allow.out"

# ---- empty allowlist: everything refused, nothing reaches a server ----
start_drive none 7 "$PROXYD" || exit 1
NP=$(http_port none)
NS=$(socks_port none)
h0=$(hits http)
t0=$(hits tls)
hdr=$(curl -s -m 10 -D - -o /dev/null -x "http://127.0.0.1:$NP" \
    "http://localhost:$HP/" | tr -d '\r')
curl -s -m 10 --cacert "$T/ca.crt" -x "http://127.0.0.1:$NP" \
    "https://localhost:$TP/" >/dev/null 2>&1
rc_https=$?
curl -s -m 10 --socks5-hostname "127.0.0.1:$NS" "http://localhost:$HP/" \
    >/dev/null 2>&1
rc_socks=$?
sleep 0.3
check "empty allowlist: absolute-form answered 403" \
    has_line "$hdr" '^HTTP/1.1 403'
check "... with the reason header" \
    has_line "$hdr" '^X-Airlock-Refused: not in allowlist (allowlist empty)'
r=0
[ $rc_https -ne 0 ] && [ $rc_socks -ne 0 ] && r=1
check "empty allowlist: CONNECT and SOCKS5 fail" [ $r -eq 1 ]
r=0
[ "$(hits http)" -eq "$h0" ] && [ "$(hits tls)" -eq "$t0" ] && r=1
check "empty allowlist: the servers counted 0 hits" [ $r -eq 1 ]
check "empty allowlist: one violation per request (3)" \
    [ "$(violations none)" -eq 3 ]
check "... each names host:port" \
    [ "$(grep -c "^violation s1 network-outbound localhost:\($HP\|$TP\)\$" "$T/none.out")" -eq 3 ]

# ---- '*' allowed: a name resolving to loopback is still refused ----
start_drive star 6 "$PROXYD" '*' || exit 1
SP=$(http_port star)
SS=$(socks_port star)
h0=$(hits http)
hdr=$(curl -s -m 10 -D - -o /dev/null -x "http://127.0.0.1:$SP" \
    "http://localhost:$HP/" | tr -d '\r')
check "'*' allowed: localhost (resolves to 127.0.0.1) refused" \
    has_line "$hdr" '^X-Airlock-Refused: resolves to a loopback address'
check "... a 403" has_line "$hdr" '^HTTP/1.1 403'

curl -s -m 10 --socks5 "127.0.0.1:$SS" "http://127.0.0.1:$HP/" \
    >/dev/null 2>&1
check "'*' allowed: SOCKS5 to 127.0.0.1 refused" [ $? -ne 0 ]
check "... 0 hits" [ "$(hits http)" -eq "$h0" ]
hdr=$(curl -s -m 10 -D - -o /dev/null -x "http://127.0.0.1:$SP" \
    "http://169.254.169.254/latest/meta-data/" | tr -d '\r')
check "'*' allowed: 169.254.169.254 hard-denied" \
    has_line "$hdr" "^X-Airlock-Refused: hard-denied: '169.254.169.254'"
sleep 0.2

hdr=$(curl -s -m 10 -D - -o /dev/null -x "http://127.0.0.1:$SP" \
    "http://rebind.test:$HP/" | tr -d '\r')
check "'*' allowed: a DNS name answering 127.0.0.1 refused" \
    has_line "$hdr" '^X-Airlock-Refused: resolves to a loopback address'
hdr=$(curl -s -m 10 -D - -o /dev/null -x "http://127.0.0.1:$SP" \
    "http://mixed.test:$HP/" | tr -d '\r')
check "'*' allowed: documentation + loopback answer refused before any dial" \
    has_line "$hdr" '^X-Airlock-Refused: resolves to a \(documentation\|loopback\) address'
curl -s -m 10 --socks5-hostname "127.0.0.1:$SS" "http://rebind.test:$HP/" \
    >/dev/null 2>&1
check "'*' allowed: SOCKS5 to rebind.test refused" [ $? -ne 0 ]
code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' \
    -x "http://127.0.0.1:$SP" "http://nx.test:$HP/")
check "unknown name: 502, not a violation" [ "$code" = "502" ]
check "... 0 hits" [ "$(hits http)" -eq "$h0" ]
sleep 0.2
check "'*' allowed: each refusal is a violation (6)" \
    [ "$(violations star)" -eq 6 ]

# ---- loopback allowed explicitly by an IP rule with its port: the name works ----
start_drive lo 4 "$PROXYD" '*' "127.0.0.1:$HP" || exit 1
h0=$(hits http)
out=$(curl -sS -m 10 -x "http://127.0.0.1:$(http_port lo)" \
    "http://rebind.test:$HP/" 2>&1)
check "'127.0.0.1:PORT' allowed: rebind.test reaches the loopback server" \
    [ "$out" = "hello" ]
check "... exactly one hit" [ "$(hits http)" -eq $((h0 + 1)) ]

# ---- network off: the proxies listen but refuse everything ----
start_drive off 3 -n "$PROXYD" "localhost:$HP" || exit 1
h0=$(hits http)
hdr=$(curl -s -m 10 -D - -o /dev/null -x "http://127.0.0.1:$(http_port off)" \
    "http://localhost:$HP/" | tr -d '\r')
check "network off: an allowed pattern is refused too" \
    has_line "$hdr" '^X-Airlock-Refused: network disabled'
sleep 0.2
r=0
[ "$(hits http)" -eq "$h0" ] && [ "$(violations off)" -eq 1 ] && r=1
check "... 0 hits, one violation" [ $r -eq 1 ]
exec 3>&-

# ---- removing the session closes its open tunnels ----
python3 "$HERE/tunnel_wait.py" "$(http_port lo)" "$HP" >"$T/tun.out" 2>&1 4>&- &
tp=$!
i=0
while ! grep -q up "$T/tun.out" 2>/dev/null && [ $i -lt 50 ]; do
	i=$((i + 1))
	sleep 0.1
done
exec 4>&-
wait $tp
check "SESSION_DEL closes the session's open tunnel" \
    grep -q '^closed$' "$T/tun.out"

# ---- session removal and a killed proxyd leave no path out ----
exec 6>&-
sleep 0.5
check "session removed and proxyd shut down cleanly" \
    grep -q '^proxyd exited 0$' "$T/star.out"
PID=$(sed -n 's/^hello \([0-9]*\) .*/\1/p' "$T/none.out")
kill -9 "$PID"
sleep 0.3
curl -s -m 5 -x "http://127.0.0.1:$NP" "http://localhost:$HP/" >/dev/null 2>&1
check "after SIGKILL of proxyd its listeners are gone (no path out)" \
    [ $? -ne 0 ]

echo "# $FAILED of $N failed"
[ $FAILED -eq 0 ]
