#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Method and path rules on TLS-terminated hosts (issue 28):
# sandbox.network.tls.inspect lists localhost (GET and HEAD under /v2/
# only, never DELETE) and vm (no DELETE); proxyd terminates TLS toward
# them with the session's CA even without a masked credential, and
# judges each request before a byte of it leaves.  Loopback TLS servers
# with a test CA log the method and path of what reaches them.
#   - an allowed GET passes; DELETE and a path outside /v2/ get 403
#     naming the rule, an event network-request, and never reach the
#     server; /v2x is not under /v2/;
#   - path tricks (dot segments raw and percent-encoded, //, an escaped
#     slash, a fragment, an absolute-form URL inside the tunnel) are
#     refused, never normalised;
#   - another spelling of the host (a final dot) or a Host header
#     naming another host does not get around the rules;
#   - the second request of a keep-alive connection is judged too;
#   - a plain http:// request toward an inspected host is judged; SOCKS
#     toward it is refused (it would be an unjudged tunnel);
#   - controls: an unlisted host (runsc) stays an opaque tunnel and its
#     server receives the DELETE; a bad rule is refused by name.
. "$(dirname "$0")/lib.sh"
plan 23

W=$(mkwork)
cd "$W" || exit 1
# The machine's CA variables are not what the test decides with.
unset SSL_CERT_FILE CURL_CA_BUNDLE GIT_SSL_CAINFO REQUESTS_CA_BUNDLE \
    NODE_EXTRA_CA_CERTS

test_ca "$W" ca
test_cert "$W" ca srv "DNS:localhost,DNS:vm,DNS:runsc,IP:127.0.0.1"
chmod a+r "$W"/*.pem

# serve NAME TLS|-: a server logging "METHOD host path" per request.
PIDS=""
serve() {
	python3 - "$W/$1.log" "$2" "$W/srv" "$W/$1.port" >/dev/null 2>&1 <<'PY' &
import http.server, ssl, sys
log, tls, base, portfile = sys.argv[1:5]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def any(self):
        open(log, "a").write("%s %s %s\n" % (self.command,
            self.headers.get("Host"), self.path))
        self.send_response(200); self.send_header("Content-Length", "3")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(b"ok\n")
    do_GET = do_DELETE = do_HEAD = do_POST = do_PUT = any
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
if tls != "-":
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    c.load_cert_chain(base + ".pem", base + ".key")
    s.socket = c.wrap_socket(s.socket, server_side=True)
open(portfile, "w").write(str(s.server_address[1])); s.serve_forever()
PY
	PIDS="$PIDS $!"
}
serve tls tls
serve plain -
for n in tls plain; do
	i=0
	while [ ! -s "$W/$n.port" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	: >"$W/$n.log"
done
P=$(cat "$W/tls.port")
PH=$(cat "$W/plain.port")
cleanup() {
	for p in $PIDS ${DPID:-}; do kill "$p" 2>/dev/null; done
}
trap cleanup EXIT

cat >"$W/settings.json" <<EOF
{"sandbox":{"network":{"tls":{"upstreamCA":"$W/ca.pem","inspect":[
  {"host":"localhost","allow":["GET /v2/","HEAD /v2"],"deny":["DELETE"]},
  {"host":"vm","deny":["DELETE /"]}]}}}}
EOF

# raw.py: requests written as they are into one TLS connection through
# the HTTP proxy; prints each answer's status line.
cat >"$W/raw.py" <<'PY'
import os, socket, ssl, sys, urllib.parse
host, port = sys.argv[1], int(sys.argv[2])
p = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
s = socket.create_connection((p.hostname, p.port), timeout=10)
s.sendall(b"CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" %
    (host.encode(), port, host.encode(), port))
b = b""
while b"\r\n\r\n" not in b:
    b += s.recv(1)
c = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
t = c.wrap_socket(s, server_hostname=host)
f = t.makefile("rb")
for target in sys.argv[3:]:
    m, path = target.split(" ", 1)
    t.sendall(b"%s %s HTTP/1.1\r\nHost: %s:%d\r\n\r\n" %
        (m.encode(), path.encode(), host.encode(), port))
    line = f.readline().decode().strip()
    print(line)
    n = 0
    while True:
        h = f.readline()
        if h.lower().startswith(b"content-length:"):
            n = int(h.split(b":")[1])
        if h in (b"\r\n", b""):
            break
    if m != "HEAD":
        f.read(n)
    if not line.startswith("HTTP/1.1 200"):
        break
PY
chmod a+r "$W/raw.py"

spawn_user env AIRLOCK_DEBUG=1 "$AIRLOCKD" --socket "$W/d.sock" \
    2>"$W/d.log"
DPID=$!
i=0
while [ ! -S "$W/d.sock" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done

run() {
	_ev=$1
	shift 2
	as_user "$AIRLOCK" run --socket "$W/d.sock" --settings "$W/settings.json" \
	    --workspace "$W" --events "$_ev" \
	    --allow-domain "localhost:$P" --allow-domain "vm:$P" \
	    --allow-domain "runsc:$P" --allow-domain "localhost:$PH" \
	    --allow-domain "127.0.0.1:$P" --allow-domain "127.0.0.1:$PH" \
	    --no-policy-check -- "$@"
}
# line N FILE: the Nth line of a sandbox's output, airlock's own aside.
line() { grep -v '^airlock:' "$2" | sed -n "$1p"; }
code='-s -m 10 -o /dev/null -w "%{http_code}\n"'

# GET allowed, DELETE and a path outside /v2/ refused.
run "$W/e1" -- sh -c "curl $code https://localhost:$P/v2/ok;
    curl $code -X DELETE https://localhost:$P/v2/del;
    curl -s -m 10 -X DELETE https://localhost:$P/v2/del2;
    curl $code https://localhost:$P/outside;
    curl $code https://localhost:$P/v2x;
    curl $code -I https://localhost:$P/v2/head" >"$W/o1" 2>&1
check_sh "GET under /v2/ passes (200) and reaches the server" \
    '[ "$(line 1 "$W/o1")" = 200 ] && grep -q "^GET localhost:$P /v2/ok$" "$W/tls.log"'
check_sh "DELETE is refused (403)" '[ "$(line 2 "$W/o1")" = 403 ]'
check "... its answer names the rule" \
    grep -q 'DELETE /v2/del2 refused by the rule "deny DELETE /"' "$W/o1"
check "... and no DELETE ever reached the server" \
    fails grep -q "^DELETE" "$W/tls.log"
check_sh "a path outside the allowed prefix is refused (403)" \
    '[ "$(line 4 "$W/o1")" = 403 ] && ! grep -q /outside "$W/tls.log"'
check_sh "/v2x is not under /v2/ (403)" \
    '[ "$(line 5 "$W/o1")" = 403 ] && ! grep -q /v2x "$W/tls.log"'
check_sh "HEAD under /v2 passes" '[ "$(line 6 "$W/o1")" = 200 ]'
n=$(grep -c '"action":"network-request"' "$W/e1")
check "each refusal is an event network-request ($n)" [ "${n:-0}" -eq 4 ]
check "... naming host, method, path and rule" \
    grep -q "localhost:$P: DELETE /v2/del refused by the rule" "$W/e1"
check_sh "the run's summary says it in words, not the event's name" \
    'grep "^airlock" "$W/o1" | grep -q "the method and path rules of this host" && ! grep "^airlock" "$W/o1" | grep -q "network-request"'

# Path tricks: refused, never normalised into /v2/.
run "$W/e2" -- sh -c "curl $code --path-as-is https://localhost:$P/v2/../secret1;
    curl $code --path-as-is https://localhost:$P/v2/%2e%2e/secret2;
    curl $code https://localhost:$P/v2//secret3;
    curl $code https://localhost:$P/v2/a%2F..%2Fsecret4;
    curl $code --path-as-is https://localhost:$P/v2/./secret5" \
    >"$W/o2" 2>&1
check_sh "dot segments, %2e%2e, //, %2F, /./: all 403" \
    '[ "$(grep -c "^403$" "$W/o2")" -eq 5 ]'
check "... and none reached the server" fails grep -q secret "$W/tls.log"
run "$W/e2b" -- sh -c "curl $code https://localhost.:$P/outside-dot;
    curl $code -H 'Host: vm:$P' https://localhost:$P/outside-front" \
    >"$W/o2b" 2>&1
check_sh "another spelling (localhost.) or Host: vm is not a way around" \
    '[ "$(line 1 "$W/o2b")" != 200 ] && [ "$(line 2 "$W/o2b")" = 403 ] &&
    ! grep -q outside- "$W/tls.log"'
run "$W/e3" -- python3 "$W/raw.py" localhost "$P" "GET /v2/a#frag" \
    >"$W/o3" 2>&1
check_sh "a fragment in the target is refused" \
    'grep -q "^HTTP/1.1 40[03]" "$W/o3" && ! grep -q frag "$W/tls.log"'
run "$W/e4" -- python3 "$W/raw.py" localhost "$P" \
    "GET https://localhost:$P/v2/abs" >"$W/o4" 2>&1
check_sh "an absolute-form URL inside the tunnel is refused" \
    'grep -q "^HTTP/1.1 40[03]" "$W/o4" && ! grep -q /v2/abs "$W/tls.log"'

# Keep-alive: the second request on one connection is judged too.
run "$W/e5" -- python3 "$W/raw.py" localhost "$P" "GET /v2/ka1" \
    "DELETE /v2/ka2" >"$W/o5" 2>&1
check_sh "keep-alive: the first request passes, the second is refused" \
    '[ "$(line 1 "$W/o5")" = "HTTP/1.1 200 OK" ] &&
    grep -q "^HTTP/1.1 403" "$W/o5" &&
    grep -q "GET localhost:$P /v2/ka1" "$W/tls.log" &&
    ! grep -q ka2 "$W/tls.log"'

# Another inspected host with deny rules only; an unlisted host.
run "$W/e6" -- sh -c "curl $code https://vm:$P/any/path;
    curl $code -X DELETE https://vm:$P/vmdel;
    curl $code -X DELETE https://runsc:$P/v2/runscdel;
    curl -sv -m 10 -o /dev/null https://runsc:$P/issuer 2>&1 |
    grep -i 'issuer:'" >"$W/o6" 2>&1
check_sh "vm (deny DELETE only): GET passes, DELETE refused" \
    '[ "$(line 1 "$W/o6")" = 200 ] && [ "$(line 2 "$W/o6")" = 403 ] &&
    ! grep -q vmdel "$W/tls.log"'
check_sh "control: an unlisted host stays a tunnel; its server gets DELETE" \
    '[ "$(line 3 "$W/o6")" = 200 ] &&
    grep -q "^DELETE runsc:$P /v2/runscdel" "$W/tls.log" &&
    grep -q "issuer: .*CN=airlock test ca" "$W/o6"'

# Plain HTTP toward an inspected host is judged; SOCKS to it refused.
run "$W/e7" -- sh -c "curl $code -X DELETE http://localhost:$PH/v2/plaindel;
    curl $code http://localhost:$PH/v2/plainok;
    curl $code -x \"\$ALL_PROXY\" https://localhost:$P/v2/socks" \
    >"$W/o7" 2>&1
check_sh "plain http:// DELETE toward localhost refused, GET passes" \
    '[ "$(line 1 "$W/o7")" = 403 ] && [ "$(line 2 "$W/o7")" = 200 ] &&
    ! grep -q plaindel "$W/plain.log"'
check_sh "SOCKS toward an inspected host is refused" \
    '[ "$(line 3 "$W/o7")" = 000 ] && ! grep -q /v2/socks "$W/tls.log"'

# Bad rules: refused, named.
cat >"$W/bad.json" <<EOF
{"sandbox":{"network":{"tls":{"inspect":[
  {"host":"localhost","allow":["GET v2"]}]}}}}
EOF
as_user "$AIRLOCK" run --socket "$W/d.sock" --settings "$W/bad.json" \
    --workspace "$W" --no-policy-check -- true >"$W/o8" 2>&1
rc=$?
check_sh "a rule whose path lacks / is refused (exit $rc)" '[ "$rc" -ne 0 ]'
check "... naming the setting" \
    grep -q 'sandbox.network.tls.inspect\[0\].allow' "$W/o8"
cat >"$W/bad2.json" <<EOF
{"sandbox":{"network":{"tls":{"inspect":[
  {"host":"localhost:443","deny":["DELETE"]}]}}}}
EOF
as_user "$AIRLOCK" run --socket "$W/d.sock" --settings "$W/bad2.json" \
    --workspace "$W" --no-policy-check -- true >"$W/o9" 2>&1
check "a host with a port is refused by name" \
    grep -q 'inspect\[0\].host' "$W/o9"
