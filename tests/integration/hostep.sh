#!/bin/sh
# SPDX-License-Identifier: ISC
#
# proxyd's host-header endpoint (issue 28): a unix socket inside every
# sandbox, /run/airlock/http.sock, for tools that cannot speak CONNECT.
# A plain origin-form request there is routed by its Host header to that
# host over TLS (port 443 unless Host names one), judged exactly as a
# CONNECT to it, the server verified against the upstream trust
# (sandbox.network.tls.upstreamCA: a test CA here).  Real curl inside,
# loopback TLS servers that log every connection and every request.
#   - an allowed Host reaches the server (path and Host logged);
#   - a refused Host: 403 with the rule's words, a network-outbound
#     event, and no connection reaches any server;
#   - missing, empty, duplicate and malformed Hosts (NUL, CR/LF, zone
#     id, 300 bytes, userinfo): 400, nothing dialed;
#   - not origin-form (absolute-form, CONNECT): 400, nothing dialed;
#   - a server the trust does not verify: 502, no request reaches it;
#   - keep-alive while Host stays; another Host on the connection: 403;
#   - masked credentials apply: the real value to its host, the
#     placeholder toward another refused; an inspected host's method
#     rules apply (DELETE refused, GET passes);
#   - R-E5: an allowed name resolving to loopback is refused, unreached;
#   - control: the same curl without the socket reaches nothing;
#   - the socket's host side is 0700/0600 and another user cannot
#     connect to it (control: the session's user can).
#   - a hostile agent's attacks: an Upgrade (first or later head) is
#     403 and nothing after it passes; pipelined heads, a head after a
#     chunked body, lenient chunk sizes, TE+CL, obs-fold, a huge head,
#     Host spellings, later absolute-form/CONNECT/HTTP/1.0 heads are
#     judged or refused, another Host never sent; the placeholder toward
#     another Host anywhere in the head refused; inspection path tricks
#     (../, %2e%2e, //, ..;) refused; --network off reaches nothing; the
#     socket cannot be removed or renamed away; idle connections count
#     toward maxConnections; an unended head is closed (slowloris); a
#     verified server's close is no tls-upstream-unverified violation.
. "$(dirname "$0")/lib.sh"
plan 56

W=$(mkwork)
cd "$W" || exit 1
# The machine's CA variables are not what the test decides with.
unset SSL_CERT_FILE CURL_CA_BUNDLE GIT_SSL_CAINFO REQUESTS_CA_BUNDLE \
    NODE_EXTRA_CA_CERTS SSL_CERT_DIR

test_ca "$W" ca
test_ca "$W" badca
test_cert "$W" ca srv "DNS:localhost,DNS:vm,DNS:runsc,IP:127.0.0.1"
test_cert "$W" badca bad "DNS:localhost,DNS:vm,DNS:runsc,IP:127.0.0.1"
chmod a+r "$W"/*.pem

# serve NAME CERT: a TLS server logging "conn" for every TCP connection
# it accepts (before any handshake) and "host path auth other" for each
# request; its port in $W/NAME.port.
PIDS=""
serve() {
	python3 - "$W/$1.log" "$W/$2" "$W/$1.port" >/dev/null 2>&1 <<'PY' &
import http.server, ssl, sys
log, base, portfile = sys.argv[1:4]
def note(s):
    with open(log, "a") as f:
        f.write(s + "\n")
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        h = self.headers
        note("%s %s auth=%s other=%s" % (h.get("Host"), self.path,
            h.get("Authorization"), h.get("X-Other")))
        self.send_response(200); self.send_header("Content-Length", "3")
        self.end_headers(); self.wfile.write(b"ok\n")
    def do_POST(self):
        # The body read as its head frames it (chunked sizes as a
        # lenient server reads them), so what follows is the next head.
        if self.headers.get("Transfer-Encoding") == "chunked":
            while True:
                n = int(self.rfile.readline().split(b";")[0], 16)
                self.rfile.read(n + 2)
                if n == 0:
                    break
        else:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.do_GET()
    def log_message(self, *a): pass
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
c.load_cert_chain(base + ".pem", base + ".key")
class S(http.server.HTTPServer):
    def get_request(self):
        sock, addr = self.socket.accept()
        note("conn")
        return c.wrap_socket(sock, server_side=True), addr
s = S(("127.0.0.1", 0), H)
open(portfile, "w").write(str(s.server_address[1])); s.serve_forever()
PY
	PIDS="$PIDS $!"
}
serve good srv
serve bad bad
for n in good bad; do
	i=0
	while [ ! -s "$W/$n.port" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	: >"$W/$n.log"
done
P=$(cat "$W/good.port")
PB=$(cat "$W/bad.port")
cleanup() {
	for p in $PIDS ${DPID:-}; do kill "$p" 2>/dev/null; done
}
trap cleanup EXIT
conns() { grep -c '^conn$' "$W/$1.log"; }

REAL="sk-test-$(openssl rand -hex 20)"
printf '{"API_KEY":{"value":"%s"}}\n' "$REAL" >"$W/cred.json"
chmod 0600 "$W/cred.json"
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$W/cred.json"
cat >"$W/settings.json" <<EOF
{"credentials":{"file":"$W/cred.json","mask":[
  {"name":"API_KEY","host":"localhost","header":"Authorization"}]},
 "sandbox":{"network":{"tls":{"upstreamCA":"$W/ca.pem"}}}}
EOF
# Method rules of an inspected host apply on the endpoint too.
cat >"$W/inspect.json" <<EOF
{"sandbox":{"network":{"tls":{"upstreamCA":"$W/ca.pem",
  "inspect":[{"host":"localhost","deny":["DELETE"]}]}}}}
EOF
# Without credentials.mask: the endpoint needs no masking to work.
printf '{"sandbox":{"network":{"tls":{"upstreamCA":"%s"}}}}\n' \
    "$W/ca.pem" >"$W/plain.json"

spawn_user env AIRLOCK_DEBUG=1 "$AIRLOCKD" --socket "$W/d.sock" \
    2>"$W/d.log"
DPID=$!
i=0
while [ ! -S "$W/d.sock" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done

# run SETTINGS EVENTS -- CMD: localhost:$P, vm:$P and localhost:$PB are
# allowed (a loopback address needs its own rule with the port too);
# runsc (127.0.0.1 too) is not.
run() {
	_set=$1
	_ev=$2
	shift 3
	as_user "$AIRLOCK" run --socket "$W/d.sock" --settings "$W/$_set" \
	    --workspace "$W" --events "$_ev" \
	    --allow-domain "localhost:$P" --allow-domain "vm:$P" \
	    --allow-domain "localhost:$PB" --allow-domain "127.0.0.1:$P" \
	    --allow-domain "127.0.0.1:$PB" --no-policy-check -- "$@"
}
S=/run/airlock/http.sock

# An allowed Host: the request reaches the server over TLS.
run plain.json "$W/e1" -- sh -c 'test -S '$S' && echo is-socket;
    curl -s -m 10 --unix-socket '$S' http://localhost:'"$P"'/hello' \
    >"$W/o1" 2>&1
check "the endpoint is a socket at $S" grep -q is-socket "$W/o1"
check "curl --unix-socket with an allowed Host gets the server's answer" \
    grep -q "^ok$" "$W/o1"
check "the server logged the path and the Host" \
    grep -q "^localhost:$P /hello " "$W/good.log"

# A refused Host: 403 naming the rule, reported, nothing dialed.
c0=$(conns good)
run plain.json "$W/e2" -- sh -c 'curl -s -m 10 -D - --unix-socket '$S' \
    http://runsc:'"$P"'/refused' >"$W/o2" 2>&1
check "a refused Host: 403" grep -q "^HTTP/1.1 403" "$W/o2"
check "... with the rule's words, as a CONNECT's" \
    grep -q "^X-Airlock-Refused: not in allowlist" "$W/o2"
check "... reported as network-outbound to runsc:$P" \
    grep -q "\"action\":\"network-outbound\".*\"runsc:$P\"" "$W/e2"
check_sh "... and no connection reached the server ($(conns good) vs $c0)" \
    '[ "$(conns good)" -eq "$c0" ] && ! grep -q /refused "$W/good.log"'
# The same words as a CONNECT to runsc:$P through the HTTP proxy.
run plain.json "$W/e2b" -- sh -c 'curl -sv -m 10 -o /dev/null \
    https://runsc:'"$P"'/connect 2>&1 |
    sed -n "s/^< X-Airlock-Refused: //p"' >"$W/o2b" 2>&1
check_sh "control: a CONNECT to runsc:$P is refused with the same words" \
    'w=$(sed -n "s/^X-Airlock-Refused: //p" "$W/o2" | tr -d "\r");
    [ -n "$w" ] && tr -d "\r" <"$W/o2b" | grep -qxF "$w" &&
    [ "$(conns good)" -eq "$c0" ]'

# An allowed name that resolves to loopback without a rule for the
# address (R-E5): refused after resolution, nothing connected.
c0=$(conns good)
as_user "$AIRLOCK" run --socket "$W/d.sock" --settings "$W/plain.json" \
    --workspace "$W" --events "$W/e2c" --allow-domain "vm:$P" \
    --no-policy-check -- curl -s -m 10 -D - --unix-socket $S \
    http://vm:$P/special >"$W/o2c" 2>&1
check_sh "an allowed name resolving to loopback: 403, nothing connected" \
    'grep -q "^HTTP/1.1 403" "$W/o2c" &&
    grep -q "^X-Airlock-Refused: resolves to a loopback address" "$W/o2c" &&
    [ "$(conns good)" -eq "$c0" ]'

# Bad Hosts and bad requests, written raw by python inside: 400 each.
cat >"$W/raw.py" <<'PY'
import socket, sys
def ask(head):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect("/run/airlock/http.sock")
    s.sendall(head)
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except socket.timeout:
        pass
    s.close()
    return out
port = sys.argv[1]
cases = [
    ("missing", b"GET /x HTTP/1.1\r\n\r\n"),
    ("missing10", b"GET /x HTTP/1.0\r\n\r\n"),
    ("empty", b"GET /x HTTP/1.1\r\nHost:\r\n\r\n"),
    ("duplicate", ("GET /x HTTP/1.1\r\nHost: localhost:%s\r\n"
        "Host: localhost:%s\r\n\r\n" % (port, port)).encode()),
    ("nul", ("GET /x HTTP/1.1\r\nHost: localhost\0.evil:%s\r\n\r\n"
        % port).encode()),
    ("crlf", ("GET /x HTTP/1.1\r\nHost: localhost:%s\rX: y\r\n\r\n"
        % port).encode()),
    ("zone", b"GET /x HTTP/1.1\r\nHost: [fe80::1%25eth0]:443\r\n\r\n"),
    ("long", ("GET /x HTTP/1.1\r\nHost: %s:%s\r\n\r\n"
        % ("a" * 300, port)).encode()),
    ("userinfo", ("GET /x HTTP/1.1\r\nHost: u@localhost:%s\r\n\r\n"
        % port).encode()),
    ("absolute", ("GET http://localhost:%s/x HTTP/1.1\r\n"
        "Host: localhost:%s\r\n\r\n" % (port, port)).encode()),
    ("connect", ("CONNECT localhost:%s HTTP/1.1\r\n"
        "Host: localhost:%s\r\n\r\n" % (port, port)).encode()),
]
for name, head in cases:
    first = ask(head).split(b"\r\n", 1)[0].decode("latin-1")
    print("%s %s" % (name, first))
# keep-alive: two requests on one connection, then another Host
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect("/run/airlock/http.sock")
f = s.makefile("rb")
def one(host, path):
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host))
        .encode())
    st = f.readline().decode().strip()
    n = 0
    while True:
        l = f.readline()
        if l.lower().startswith(b"content-length:"):
            n = int(l.split(b":")[1])
        if l in (b"\r\n", b""):
            break
    f.read(n)
    return st
print("dot " + one("localhost.:" + port, "/dot"))
print("ka1 " + one("localhost:" + port, "/ka1"))
print("ka2 " + one("localhost:" + port, "/ka2"))
print("ka3 " + one("vm:" + port, "/ka3"))
PY
chmod a+r "$W/raw.py"
c0=$(conns good)
run plain.json "$W/e3" -- python3 "$W/raw.py" "$P" >"$W/o3" 2>&1
for n in missing missing10 empty duplicate nul crlf zone long userinfo \
    absolute connect; do
	check "$n Host/request: 400" grep -q "^$n HTTP/1.1 400" "$W/o3"
done
check "a Host with one final dot is the same host (200)" \
    grep -q "^dot HTTP/1.1 200" "$W/o3"
check "two requests on one connection, the same Host: both 200" \
    grep -q "^ka2 HTTP/1.1 200" "$W/o3"
check "... then another Host on that connection: 403" \
    grep -q "^ka3 HTTP/1.1 403" "$W/o3"
check_sh "only the keep-alive connection reached the server" \
    '[ "$(conns good)" -eq $((c0 + 1)) ] && grep -q " /ka2 " "$W/good.log" &&
    ! grep -q -e " /x " -e /ka3 "$W/good.log"'

# The server is verified against the upstream trust: one the test CA
# does not sign gets no request.
run plain.json "$W/e4" -- curl -s -m 10 -D - --unix-socket $S \
    http://localhost:$PB/unverified >"$W/o4" 2>&1
check_sh "an unverified server: 502, and it received no request" \
    'grep -q "^HTTP/1.1 502" "$W/o4" && ! grep -q /unverified "$W/bad.log"'

# Masked credentials apply: the value toward its own host, the
# placeholder toward another refused.
run settings.json "$W/e5" -- sh -c 'curl -s -m 10 --unix-socket '$S' \
    -H "Authorization: Bearer $API_KEY" http://localhost:'"$P"'/masked;
    curl -s -m 10 -o /dev/null -w "%{http_code}\n" --unix-socket '$S' \
    -H "Authorization: Bearer $API_KEY" http://vm:'"$P"'/exfil' \
    >"$W/o5" 2>&1
check "masked: the server logged the real value on this path" \
    grep -q "^localhost:$P /masked auth=Bearer $REAL " "$W/good.log"
check_sh "masked: the placeholder toward vm is 403, never seen there" \
    'grep -q "^403$" "$W/o5" && ! grep -q /exfil "$W/good.log" &&
    grep -q "credential-exfiltration" "$W/e5"'

# An inspected host's method rules: DELETE refused, GET passes.
run inspect.json "$W/e8" -- sh -c 'curl -s -m 10 -o /dev/null \
    -w "%{http_code}\n" -X DELETE --unix-socket '$S' \
    http://localhost:'"$P"'/del; curl -s -m 10 --unix-socket '$S' \
    http://localhost:'"$P"'/get-inspected' >"$W/o8" 2>&1
check_sh "inspected: DELETE is 403 (network-request), never sent" \
    'grep -q "^403$" "$W/o8" && ! grep -q " /del " "$W/good.log" &&
    grep -q "\"action\":\"network-request\"" "$W/e8"'
check "control: GET to the same host passes" \
    grep -q "^localhost:$P /get-inspected " "$W/good.log"

# Control: the same curl without the socket reaches nothing.
c0=$(conns good)
run plain.json "$W/e6" -- sh -c 'curl -s -m 10 --noproxy "*" \
    --cacert '"$W"'/ca.pem https://localhost:'"$P"'/direct; echo "rc=$?"' \
    >"$W/o6" 2>&1
check_sh "control: without the socket curl reaches no server" \
    '! grep -q "^rc=0" "$W/o6" && [ "$(conns good)" -eq "$c0" ]'

# The host side of the socket: the session's user alone.
run plain.json "$W/e7" -- sh -c '
    echo "seen=$(ls -d /tmp/airlock-http.* 2>/dev/null | wc -l)";
    stat -c ino=%i '$S'; sleep 5' \
    >"$W/o7" 2>&1 &
RP=$!
i=0
while ! grep -q "^ino=" "$W/o7" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
INO=$(sed -n "s/^ino=//p" "$W/o7")
HOSTSOCK=$(find /tmp -maxdepth 2 -name http.sock -inum "${INO:-0}" \
    2>/dev/null | head -1)
check_sh "the host-side socket is in a 0700 directory of the user's" \
    '[ -n "$HOSTSOCK" ] &&
    [ "$(stat -c "%a %U" "$(dirname "$HOSTSOCK")")" = "700 $TUSER" ]'
check "... and no such directory (its own or another's) is seen inside" \
    grep -q "^seen=0$" "$W/o7"
if [ "$(id -u)" -eq 0 ]; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups curl -s -m 5 \
	    --unix-socket "$HOSTSOCK" http://localhost:$P/other-user \
	    >/dev/null 2>&1
	rc=$?
	check_sh "another user cannot connect to it (curl exit $rc)" \
	    '[ "$rc" -ne 0 ] && ! grep -q /other-user "$W/good.log"'
else
	ok "another user cannot connect to it # SKIP needs root"
fi
as_user curl -s -m 5 --unix-socket "$HOSTSOCK" \
    http://localhost:$P/owner >/dev/null 2>&1
check "control: the session's own user can (the same rules)" \
    grep -q "^localhost:$P /owner " "$W/good.log"
wait "$RP"

# ---- A hostile agent's attacks on the endpoint (raw bytes inside) ----
# Slowloris: a head begun and never ended is closed (proxyd's 30 s for
# a head), in the background while the rest runs.
cat >"$W/slow.py" <<'PY'
import socket, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(60)
s.connect("/run/airlock/http.sock")
t = time.time()
s.sendall(b"GET /slow HTTP/1.1\r\nHo")
try:
    while s.recv(4096):
        pass
except OSError:
    pass
print("closed after %d" % (time.time() - t))
PY
chmod a+r "$W/slow.py"
run plain.json "$W/e15" -- python3 "$W/slow.py" >"$W/o15" 2>&1 &
SLOWP=$!
cat >"$W/attack.py" <<'PY'
import os, socket, sys, time
port = sys.argv[1]
key = os.environ.get("API_KEY", "none")
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect("/run/airlock/http.sock")
    return s
def drain(s):
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return out
def statuses(out):
    # the server's bodies end in a bare LF: lines split on LF
    return ",".join(l.split(b" ")[1].decode() for l in out.split(b"\n")
        if l.startswith(b"HTTP/1.1 "))
def get(path, host, extra=""):
    return ("GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (path, host, extra)
        ).encode()
L = "localhost:" + port
V = "vm:" + port
def send(name, *parts):
    s = conn()
    for p in parts:
        try:
            s.sendall(p)
        except OSError:
            break	# refused and closed: what it answered is read
        time.sleep(0.3)
    print("%s %s" % (name, statuses(drain(s))))
# An Upgrade the server ignores, then another Host on the connection:
# in the first head, and in a later one.
send("upgrade", get("/up1", L, "Connection: Upgrade\r\nUpgrade: x\r\n"),
    get("/up2", V))
send("upgrade2", get("/up3", L), get("/up4", L, "Connection: Upgrade\r\n"
    "Upgrade: x\r\n"), get("/up5", V))
# Two heads in one write, the second to another Host.
send("pipe", get("/pipe1", L) + get("/pipe2", V))
# A chunked body, then a head to another Host in the same write.
send("chunk", ("POST /c1 HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: "
    "chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" % L).encode() +
    get("/c2", V))
# Chunk sizes a lenient server reads as 16 (hiding /c3s in the body).
for n, sz in (("chunk_", "1_0"), ("chunkx", "0x10"), ("chunkp", "+10")):
    send(n, ("POST /c3 HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked"
        "\r\n\r\n%s\r\n" % (L, sz)).encode() + b"0\r\n\r\n" +
        get("/c3s", V)[:-2] + b"\r\n0\r\n\r\n")
# Content-Length and Transfer-Encoding both, first and second head.
send("tecl1", ("POST /tecl1 HTTP/1.1\r\nHost: %s\r\nContent-Length: 5\r\n"
    "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" % L).encode())
send("tecl2", get("/tecl0", L), ("POST /tecl2 HTTP/1.1\r\nHost: %s\r\n"
    "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    % L).encode())
# Host spellings: each either the same host or refused, never another.
for n, h in (("pct", "local%68ost:" + port), ("v6", "[::1]:" + port),
        ("altip", "127.1:" + port), ("twoport", L + ":" + port),
        ("at", "localhost@vm:" + port), ("space", "local host:" + port),
        ("fold", L + "\r\n vm"), ("port0", "localhost:0"),
        ("portbig", "localhost:%d" % (65536 + int(port))),
        ("portsign", "localhost:+" + port)):
    send("host-" + n, get("/h-" + n, h))
send("obsfold", get("/obsfold", L, "X-Other: a\r\n b\r\n"))
# Later heads: absolute-form, CONNECT, HTTP/1.0 without Host.
send("abs2", get("/abs1", L), ("GET http://%s/abs2 HTTP/1.1\r\nHost: "
    "%s\r\n\r\n" % (V, L)).encode())
send("connect2", get("/cn1", L), ("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n"
    % (V, V)).encode())
send("nohost10", get("/nh1", L), b"GET /nh2 HTTP/1.0\r\n\r\n")
# A head over the limit, in one piece and in a trickle.
send("huge", get("/huge", L, "X-Other: " + "a" * 70000 + "\r\n"))
PY
chmod a+r "$W/attack.py"
c0=$(conns good)
run plain.json "$W/e9" -- python3 "$W/attack.py" "$P" >"$W/o9" 2>&1
diag "$(tr '\n' ' ' <"$W/o9")"
check_sh "an Upgrade in the first head: 403, nothing after it is sent" \
    'grep -q "^upgrade 403$" "$W/o9" &&
    ! grep -q -e " /up1 " -e " /up2 " "$W/good.log"'
check_sh "... in a later head: 403, and no later head is sent" \
    'grep -q "^upgrade2 200,403$" "$W/o9" && grep -q " /up3 " "$W/good.log" &&
    ! grep -q -e " /up4 " -e " /up5 " "$W/good.log"'
check_sh "pipelined heads in one write, the second to another Host: 403" \
    'grep -q "^pipe .*403$" "$W/o9" && ! grep -q /pipe2 "$W/good.log"'
check_sh "a head after a chunked body naming another Host: 403, never sent" \
    'grep -q "^chunk .*403$" "$W/o9" && ! grep -q /c2 "$W/good.log"'
check_sh "lenient chunk sizes (1_0, 0x10, +10): 400, nothing hidden passes" \
    'grep -q "^chunk_ .*400" "$W/o9" && grep -q "^chunkx .*400" "$W/o9" &&
    grep -q "^chunkp .*400" "$W/o9" && ! grep -q /c3s "$W/good.log"'
check_sh "Content-Length with Transfer-Encoding: 400, first head or later" \
    'grep -q "^tecl1 400$" "$W/o9" && grep -q "^tecl2 200,400$" "$W/o9" &&
    ! grep -q -e /tecl1 -e /tecl2 "$W/good.log"'
check_sh "Host spellings (%, [::1], 127.1, ports 0/+/big, @, fold...): 4xx" \
    'for n in pct v6 altip twoport at space fold port0 portbig portsign; do
        grep -q "^host-$n 4[0-9][0-9]$" "$W/o9" || exit 1; done;
    ! grep -q " /h-" "$W/good.log"'
check_sh "obs-fold in a header: 400, not sent" \
    'grep -q "^obsfold 400$" "$W/o9" && ! grep -q /obsfold "$W/good.log"'
check_sh "later heads: absolute-form, CONNECT 400; HTTP/1.0 without Host 403" \
    'grep -q "^abs2 200,400$" "$W/o9" && grep -q "^connect2 200,400$" "$W/o9" &&
    grep -q "^nohost10 200,403$" "$W/o9" &&
    ! grep -q -e /abs2 -e /nh2 "$W/good.log"'
check_sh "a head over 64 KiB: refused (400 or reset), not sent" \
    'grep -q "^huge \(400\)\?$" "$W/o9" && ! grep -q /huge "$W/good.log"'

# Masked credentials: the placeholder toward another Host in the query
# or another header is refused and reported; toward its own host, any
# header but the masked one carries only the placeholder.
cat >"$W/mask.py" <<'PY'
import os, socket, sys
port, key = sys.argv[1], os.environ["API_KEY"]
def ask(head):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect("/run/airlock/http.sock")
    s.sendall(head.encode())
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except (socket.timeout, ConnectionResetError):
        pass
    return out.split(b"\r\n", 1)[0].decode("latin-1")
L, V = "localhost:" + port, "vm:" + port
print("query " + ask("GET /mq?k=%s HTTP/1.1\r\nHost: %s\r\n\r\n" % (key, V)))
print("other " + ask("GET /mo HTTP/1.1\r\nHost: %s\r\nX-Other: %s\r\n\r\n"
    % (V, key)))
print("second " + ask("GET /m1 HTTP/1.1\r\nHost: %s\r\n\r\nGET /m2 "
    "HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n"
    % (L, V, key)))
print("own " + ask("GET /mown HTTP/1.1\r\nHost: %s\r\nX-Other: %s\r\n"
    "Connection: close\r\n\r\n" % (L, key)))
PY
chmod a+r "$W/mask.py"
run settings.json "$W/e10" -- python3 "$W/mask.py" "$P" >"$W/o10" 2>&1
diag "$(tr '\n' ' ' <"$W/o10")"
check_sh "the placeholder toward vm in the query or X-Other: 403, reported" \
    'grep -q "^query HTTP/1.1 403" "$W/o10" &&
    grep -q "^other HTTP/1.1 403" "$W/o10" &&
    [ "$(grep -c credential-exfiltration "$W/e10")" -ge 2 ] &&
    ! grep -q -e " /mq" -e " /mo " "$W/good.log"'
check_sh "... or after a request to its own host on that connection: unsent" \
    'grep -q "^second HTTP/1.1 403" "$W/o10" && ! grep -q /m2 "$W/good.log"'
check_sh "a verified server's close after Connection: close is no violation" \
    'grep -q "^own HTTP/1.1 200" "$W/o10" &&
    ! grep -q tls-upstream-unverified "$W/e10"'
check_sh "the real value is nowhere but the one masked header's request" \
    '! grep -q "$REAL" "$W/o10" "$W/e10" "$W/d.log" &&
    [ "$(grep -c "$REAL" "$W/good.log")" -eq 1 ]'

# Inspection rules on the endpoint: only the canonical path is judged;
# a dot segment, its escapes, an empty segment or an escaped slash is
# refused, never normalised.
cat >"$W/inspect2.json" <<EOF
{"sandbox":{"network":{"tls":{"upstreamCA":"$W/ca.pem",
  "inspect":[{"host":"localhost","allow":["GET /v2/"]}]}}}}
EOF
run inspect2.json "$W/e11" -- sh -c 'for p in /v2/ok /v2/../admin \
    /v2/%2e%2e/admin /v2/%2E%2E/admin /v2//admin /v2/.%2e/admin \
    /v2%2f../admin /admin "/v2/..;/admin" "/v2/%5c../admin"; do
    printf "%s " "$p"; curl -s -m 10 -o /dev/null -w "%{http_code}\n" \
    --path-as-is --unix-socket '$S' "http://localhost:'"$P"'$p"; done' \
    >"$W/o11" 2>&1
diag "$(tr '\n' ' ' <"$W/o11")"
# The inspected host spelled in capitals with a final dot is the same
# host to its rules.
run inspect.json "$W/e11b" -- curl -s -m 10 -o /dev/null -w "%{http_code}\n" \
    -X DELETE -H "Host: LOCALHOST.:$P" --unix-socket $S \
    http://localhost:$P/del-caps >"$W/o11b" 2>&1
check_sh "inspected: DELETE with Host LOCALHOST.: is 403, never sent" \
    'grep -q "^403$" "$W/o11b" && ! grep -q /del-caps "$W/good.log"'
check "inspected via the endpoint: GET /v2/ok passes" \
    grep -q "^/v2/ok 200$" "$W/o11"
check_sh "... ../, %2e%2e, //, %2f, %5c, ..;, /admin: 403 each, never sent" \
    '[ "$(grep -c " 403$" "$W/o11")" -eq 9 ] &&
    ! grep -q admin "$W/good.log"'

# Network off: the endpoint is there, and reaches nothing.
c0=$(conns good)
as_user "$AIRLOCK" run --socket "$W/d.sock" --settings "$W/plain.json" \
    --workspace "$W" --events "$W/e12" --network off \
    --allow-domain "localhost:$P" --no-policy-check -- curl -s -m 10 -D - \
    --unix-socket $S http://localhost:$P/netoff >"$W/o12" 2>&1
check_sh "--network off: the endpoint answers 403, nothing dialed" \
    'grep -q "^HTTP/1.1 403" "$W/o12" && [ "$(conns good)" -eq "$c0" ] &&
    ! grep -q /netoff "$W/good.log"'

# The socket cannot be removed, replaced or renamed away from inside.
run plain.json "$W/e13" -- sh -c 'rm -f '$S' 2>/dev/null; echo rm=$?;
    mv '$S' /run/airlock/x.sock 2>/dev/null; echo mv=$?;
    mv /run/airlock /run/moved 2>/dev/null; echo mvdir=$?;
    ln -sf /tmp/fake.sock '$S' 2>/dev/null; echo ln=$?;
    curl -s -m 10 --unix-socket '$S' http://localhost:'"$P"'/after-rm' \
    >"$W/o13" 2>&1
diag "$(tr '\n' ' ' <"$W/o13")"
check_sh "rm, mv of the socket or of /run/airlock, ln -sf over it: refused" \
    'for k in rm mv mvdir ln; do grep -q "^$k=0$" "$W/o13" && exit 1; done;
    grep -q "^ok$" "$W/o13" && grep -q " /after-rm " "$W/good.log"'

# Endpoint connections count toward the session's cap: held idle (no
# head: slowloris), the one past the cap is closed at once, reported.
printf '{"sandbox":{"network":{"maxConnections":3,"tls":{"upstreamCA":"%s"}}}}\n' \
    "$W/ca.pem" >"$W/cap.json"
cat >"$W/cap.py" <<'PY'
import socket, sys, time
held = []
for i in range(3):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("/run/airlock/http.sock")
    held.append(s)
time.sleep(0.5)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect("/run/airlock/http.sock")
try:
    print("past-cap", "closed" if s.recv(10) == b"" else "open")
except socket.timeout:
    print("past-cap open")
except ConnectionResetError:
    print("past-cap closed")
for h in held:
    h.close()
time.sleep(0.5)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect("/run/airlock/http.sock")
s.sendall(("GET /after-cap HTTP/1.1\r\nHost: localhost:%s\r\n"
    "Connection: close\r\n\r\n" % sys.argv[1]).encode())
print("after", s.recv(100).split(b"\r\n")[0].decode())
PY
chmod a+r "$W/cap.py"
run cap.json "$W/e14" -- python3 "$W/cap.py" "$P" >"$W/o14" 2>&1
diag "$(tr '\n' ' ' <"$W/o14")"
check_sh "idle endpoint connections count: the 4th of cap 3 closed, reported" \
    'grep -q "^past-cap closed$" "$W/o14" &&
    grep -q "network-connections" "$W/e14"'
check "... and once they close, a request passes again" \
    grep -q "^after HTTP/1.1 200" "$W/o14"

wait "$SLOWP"
diag "$(tr '\n' ' ' <"$W/o15")"
check_sh "slowloris: an unended head is closed within 30-40 s, unsent" \
    'n=$(sed -n "s/^closed after //p" "$W/o15");
    [ -n "$n" ] && [ "$n" -ge 29 ] && [ "$n" -le 40 ] &&
    ! grep -q /slow "$W/good.log"'

finish
