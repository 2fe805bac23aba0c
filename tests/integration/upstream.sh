#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Egress edges of proxyd (issue 28), through a real sandbox:
#   - malformed hosts (NUL, CR/LF, a zone id, over 255 bytes, empty, a
#     colon in a SOCKS5 name, a malformed Host header) are answered 400
#     (HTTP) or reply 0x01 (SOCKS5) before any rule, and never dialed: a
#     loopback listener records every connection it gets; the same
#     requests well formed do reach it (the control);
#   - a CONNECT to port 22 that policy refuses answers 403 and an SSH
#     banner with a disconnect text, so ssh and git over ssh print why;
#   - sandbox.network.upstream: a real squid on loopback (run as the
#     test user, its logs in the test's directory) sees every connection
#     proxyd makes for the sandbox (CONNECT for tunnels, plain HTTP and
#     SOCKS5 alike), none of the noProxy hosts and never a denied host;
#     a masked host's connection goes through it too, the real value put
#     in by proxyd before;
#     srt's network.httpProxyPort means the same; bad settings are
#     refused naming the key.
. "$(dirname "$0")/lib.sh"
plan 31

W=$(mkwork)
cd "$W" || exit 1

# A listener that writes one line per connection it accepts.
: >"$W/conns"
python3 - "$W/conns" "$W/lport" >/dev/null 2>&1 <<'PY' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
open(sys.argv[2] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[2] + ".tmp", sys.argv[2])
while True:
    c, _ = s.accept()
    open(sys.argv[1], "a").write("conn\n")
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n")
    c.close()
PY
LPID=$!
i=0
while [ ! -s "$W/lport" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
LP=$(cat "$W/lport")
cleanup() {
	kill "$LPID" ${SPID:-} 2>/dev/null
	[ -s "$W/sq/squid.pid" ] && kill "$(cat "$W/sq/squid.pid")" 2>/dev/null
	http_counter_stop "$W/srv.pid"
}
trap cleanup EXIT
conns() { grep -c conn "$W/conns" 2>/dev/null || true; }
# line N FILE: the Nth line of a sandbox's output, airlock's own aside.
line() { grep -v '^airlock:' "$2" | sed -n "$1p"; }

# raw.py MODE TARGET...: one connection per target to the sandbox's
# proxies; prints the HTTP status line or the SOCKS5 reply code.
cat >"$W/raw.py" <<'PY'
import socket, struct, sys
mode, port = sys.argv[1], int(sys.argv[2])
for t in sys.argv[3:]:
    t = t.encode().decode("unicode_escape").encode("latin-1")
    try:
        if mode == "socks":
            s = socket.create_connection(("127.0.0.1", 1080), timeout=10)
            s.sendall(b"\x05\x01\x00")
            s.recv(2)
            s.sendall(b"\x05\x01\x00\x03" + bytes([len(t)]) + t +
                struct.pack(">H", port))
            r = s.recv(10)
            print("socks %d" % r[1] if len(r) > 1 else "socks closed")
            continue
        s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
        if mode == "connect":
            h = b"CONNECT " + t + b":%d HTTP/1.1\r\nHost: " % port + t + \
                b":%d\r\n\r\n" % port
        elif mode == "abs":
            h = b"GET http://" + t + b":%d/ HTTP/1.1\r\nHost: x\r\n\r\n" % port
        else:
            h = b"GET http://localhost:%d/ HTTP/1.1\r\nHost: " % port + t + \
                b"\r\n\r\n"
        s.sendall(h)
        b = b""
        while b"\r\n\r\n" not in b:
            d = s.recv(4096)
            if not d:
                break
            b += d
        lines = b.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
        why = [l for l in lines if l.lower().startswith("x-airlock-refused")]
        print((lines[0] or "closed") + (" | " + why[0] if why else ""))
    except Exception as e:
        print("error %s" % e)
PY
chmod a+r "$W/raw.py"

run() {
	as_user "$AIRLOCK" run --workspace "$W" --allow-domain "localhost:$LP" \
	    --allow-domain "127.0.0.1:$LP" --no-policy-check -- "$@"
}
LONG=$(python3 -c 'print(".".join(["a" * 63] * 4) + ".b")')
LONG255=$(python3 -c 'print(".".join(["a" * 63] * 4))')

# 1. Malformed hosts in every place a host is read.
BAD='localhost\x00.evil.example localhost\r\n fe80::1%eth0 [fe80::1%eth0] [fe80::1%25eth0] '"$LONG"' '
run python3 raw.py connect "$LP" $BAD '' >"$W/o1" 2>&1
c1=$(conns)
check_sh "CONNECT: NUL, CR/LF, zone ids, 256+ bytes, empty: each 400" \
    '[ "$(grep -c "^HTTP/1.1 400 " "$W/o1")" -eq 7 ]'
run python3 raw.py abs "$LP" $BAD '' >"$W/o2" 2>&1
check_sh "absolute-form http://: the same hosts, each 400" \
    '[ "$(grep -c "^HTTP/1.1 400 " "$W/o2")" -eq 7 ]'
run python3 raw.py host "$LP" 'localhost\x00.evil.example' \
    'local\rhost' 'fe80::1%eth0' '[fe80::1%eth0]' 'local host' "$LONG" \
    '' >"$W/o3" 2>&1
check_sh "a malformed Host header of an allowed request: each 400" \
    '[ "$(grep -c "^HTTP/1.1 400 " "$W/o3")" -eq 7 ]'
run python3 raw.py socks "$LP" 'localhost\x00.evil.example' \
    'localhost\r\n' 'fe80::1%eth0' 'localhost:80' '' "$LONG255" \
    >"$W/o4" 2>&1
check_sh "SOCKS5 names: each reply 1 (general failure), none succeeded" \
    '[ "$(grep -c "^socks 1$" "$W/o4")" -eq 6 ]'
check_sh "none of them was dialed (the listener saw $(conns))" \
    '[ "$(conns)" -eq 0 ]'
[ "$_fails" -eq 0 ] || diag "$(cat "$W/o1" "$W/o2" "$W/o3" "$W/o4")"
run python3 raw.py connect "$LP" localhost >"$W/o5" 2>&1
run python3 raw.py abs "$LP" localhost >>"$W/o5" 2>&1
run python3 raw.py host "$LP" "localhost:$LP" >>"$W/o5" 2>&1
run python3 raw.py socks "$LP" localhost >>"$W/o5" 2>&1
check_sh "control: the same requests well formed reach the listener ($(conns))" \
    '[ "$(conns)" -eq 4 ] && [ "$(grep -c " 200 " "$W/o5")" -eq 3 ] &&
    grep -q "^socks 0$" "$W/o5"'
check_sh "each 400 names what was wrong" \
    'grep -q "invalid IPv6 literal" "$W/o1" && grep -q "malformed Host" "$W/o3"' 

# 2. A refused CONNECT to port 22: 403, then what an ssh server says to
# refuse.  pc.py is a ProxyCommand that sends CONNECT and then passes
# every byte both ways, the proxy's answer included, as naive tools do.
cat >"$W/pc.py" <<'PY'
import os, socket, sys, threading
h, p = sys.argv[1], sys.argv[2]
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(("CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n" %
    (h, p, h, p)).encode())
def up():
    while True:
        d = os.read(0, 65536)
        if not d:
            s.shutdown(socket.SHUT_WR)
            return
        s.sendall(d)
threading.Thread(target=up, daemon=True).start()
while True:
    d = s.recv(65536)
    if not d:
        break
    os.write(1, d)
PY
chmod a+r "$W/pc.py"
SSHO="-o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=10"
printf 'ssh %s -o "ProxyCommand=python3 %s %%h %%p" -p "$1" git@git.example.org true\n' \
    "$SSHO" "$W/pc.py" >"$W/ssh.sh"
printf 'GIT_SSH_COMMAND="ssh %s -o \\"ProxyCommand=python3 %s %%h %%p\\"" git ls-remote ssh://git@git.example.org/acme/app.git\n' \
    "$SSHO" "$W/pc.py" >"$W/git.sh"
chmod a+r "$W/ssh.sh" "$W/git.sh"
run sh ssh.sh 22 >"$W/s1" 2>&1
check "ssh prints the refusal: Received disconnect ... refused" \
    grep -q "Received disconnect from .*airlock: connection to git.example.org:22 refused: " "$W/s1"
check "... and that ssh goes through the SOCKS proxy" \
    grep -q "ssh goes through the sandbox's SOCKS proxy" "$W/s1"
[ "$_fails" -eq 0 ] || diag "$(cat "$W/s1")"
run sh git.sh >"$W/s2" 2>&1
check_sh "git over ssh prints it too, then fails" \
    'grep -q "Received disconnect from .*git.example.org:22 refused" "$W/s2" &&
    grep -q "Could not read from remote repository" "$W/s2"'
[ "$_fails" -eq 0 ] || diag "$(cat "$W/s2")"
run python3 raw.py connect 22 git.example.org >"$W/s3" 2>&1
check "an HTTP client sees a plain 403 naming the rule" \
    grep -q "^HTTP/1.1 403 Forbidden | X-Airlock-Refused: not in allowlist" "$W/s3"
run sh ssh.sh 2222 >"$W/s4" 2>&1
check_sh "control: a refused port other than 22 gets no ssh text" \
    '! grep -q "Received disconnect" "$W/s4" && grep -q . "$W/s4"'

# 3. Upstream proxies: squid on loopback, as the test user.
SQ=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$W/sq"
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$W/sq"
cat >"$W/sq/squid.conf" <<EOF
http_port 127.0.0.1:$SQ
http_access allow all
cache deny all
access_log stdio:$W/sq/access.log
cache_log $W/sq/cache.log
pid_filename $W/sq/squid.pid
coredump_dir $W/sq
netdb_filename none
pinger_enable off
shutdown_lifetime 0 seconds
EOF
chmod a+r "$W/sq/squid.conf"
SQUID=$(command -v squid || echo /usr/sbin/squid)
squid_up() {	# squid_up N: wait for its Nth start in the log
	spawn_user "$SQUID" -N -f "$W/sq/squid.conf"
	SPID=$!
	_i=0
	while [ "$(grep -c "Accepting HTTP Socket" "$W/sq/cache.log" \
	    2>/dev/null)" != "$1" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}
squid_up 1
HP=$(http_counter_start "$W/hits" "$W/srv.pid")
diag "squid on 127.0.0.1:$SQ (pid $SPID), server on $HP"
sqlog() { cat "$W/sq/access.log" 2>/dev/null; }
cat >"$W/up.json" <<EOF
{"sandbox":{"network":{"upstream":{"http":"http://127.0.0.1:$SQ",
  "noProxy":["127.0.0.1"]}}}}
EOF
chmod a+r "$W/up.json"
urun() {	# urun SETTINGS CMD...
	_s=$1
	shift
	as_user "$AIRLOCK" run --workspace "$W" --settings "$_s" \
	    --allow-domain "localhost:$HP" --allow-domain "127.0.0.1:$HP" \
	    ${UX:-} --no-policy-check -- "$@"
}
code='-s -m 10 -o /dev/null -w "%{http_code}\\n"'
urun "$W/up.json" sh -c "curl $code http://localhost:$HP/plain;
    curl $code -p http://localhost:$HP/tunnel;
    curl $code -x socks5h://127.0.0.1:1080 http://localhost:$HP/socks" \
    >"$W/u1" 2>&1
check_sh "plain HTTP, a CONNECT tunnel and SOCKS5 reach the server (3 hits)" \
    '[ "$(grep -c "^200$" "$W/u1")" -eq 3 ] && [ "$(hits "$W/hits")" -eq 3 ]'
check_sh "squid's log shows each of them: 3 CONNECT localhost:$HP" \
    '[ "$(sqlog | grep -c "CONNECT localhost:$HP ")" -eq 3 ] &&
    [ "$(sqlog | wc -l)" -eq 3 ]'
[ "$_fails" -eq 0 ] || diag "$(cat "$W/u1"; sqlog)"
urun "$W/up.json" sh -c "curl $code http://127.0.0.1:$HP/direct;
    curl $code http://denied.example:$HP/denied" >"$W/u2" 2>&1
check_sh "a noProxy host is dialed directly: reached, not in squid's log" \
    '[ "$(line 1 "$W/u2")" = 200 ] && [ "$(hits "$W/hits")" -eq 4 ] &&
    [ "$(sqlog | wc -l)" -eq 3 ]'
check_sh "a denied host is refused (403) and never reaches squid" \
    '[ "$(line 2 "$W/u2")" = 403 ] && ! sqlog | grep -q denied'
kill -9 "$SPID" 2>/dev/null
wait "$SPID" 2>/dev/null
rm -f "$W/sq/squid.pid"
urun "$W/up.json" sh -c "curl $code http://localhost:$HP/nosquid" \
    >"$W/u3" 2>&1
check_sh "squid down: 502, never a direct dial (hits stay 4)" \
    '[ "$(line 1 "$W/u3")" = 502 ] && [ "$(hits "$W/hits")" -eq 4 ]'
squid_up 2
cat >"$W/srt.json" <<EOF
{"network":{"allowedDomains":["localhost:$HP"],"httpProxyPort":$SQ}}
EOF
chmod a+r "$W/srt.json"
urun "$W/srt.json" sh -c "curl $code http://localhost:$HP/srt" >"$W/u4" 2>&1
check_sh "srt's network.httpProxyPort: through squid on that port" \
    '[ "$(line 1 "$W/u4")" = 200 ] && [ "$(sqlog | wc -l)" -eq 4 ] &&
    [ "$(hits "$W/hits")" -eq 5 ]'
[ "$_fails" -eq 0 ] || diag "$(cat "$W/u4"; sqlog)"

# A masked host through the upstream: proxyd terminates TLS, puts the
# real value in the head, then reaches the server through squid
# (CONNECT).  The server logs what it got; squid sees the connection.
test_ca "$W" ca
test_cert "$W" ca srv "DNS:localhost,IP:127.0.0.1"
chmod a+r "$W"/*.pem
python3 - "$W/tls.log" "$W/srv" "$W/tls.port" >/dev/null 2>&1 <<'PY' &
import http.server, ssl, sys
log, base, portfile = sys.argv[1:4]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        open(log, "a").write("%s auth=%s\n" % (self.path,
            self.headers.get("Authorization")))
        self.send_response(200); self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
c.load_cert_chain(base + ".pem", base + ".key")
s.socket = c.wrap_socket(s.socket, server_side=True)
open(portfile, "w").write(str(s.server_address[1])); s.serve_forever()
PY
TPID=$!
i=0
while [ ! -s "$W/tls.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
TP=$(cat "$W/tls.port")
MREAL="sk-test-$(openssl rand -hex 20)"
printf '{"M_KEY":{"value":"%s"}}\n' "$MREAL" >"$W/mcred.json"
chmod 0600 "$W/mcred.json"
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$W/mcred.json"
cat >"$W/upm.json" <<EOF
{"credentials":{"file":"$W/mcred.json","mask":[
  {"name":"M_KEY","host":"localhost","header":"Authorization"}]},
 "sandbox":{"network":{"upstream":{"http":"http://127.0.0.1:$SQ"},
  "tls":{"upstreamCA":"$W/ca.pem"}}}}
EOF
chmod a+r "$W/upm.json"
UX="--allow-domain localhost:$TP" urun "$W/upm.json" sh -c "curl $code \
    -H \"Authorization: Bearer \$M_KEY\" https://localhost:$TP/masked" \
    >"$W/um" 2>&1
check_sh "a masked host through squid: the server got the real value" \
    '[ "$(line 1 "$W/um")" = 200 ] &&
    grep -q "^/masked auth=Bearer $MREAL\$" "$W/tls.log"'
check_sh "... over a CONNECT squid logged, the value in no output" \
    'sqlog | grep -q "CONNECT localhost:$TP " && ! grep -q "$MREAL" "$W/um"'
[ "$_fails" -eq 0 ] || diag "$(cat "$W/um"; sqlog | tail -3)"
kill "$TPID" 2>/dev/null

# 4. The upstream's credential, from the credentials file: a second
# squid that demands basic auth.
SQ2=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PXPASS="px-$(openssl rand -hex 12)"
printf 'pxuser:%s\n' "$(openssl passwd -1 "$PXPASS")" >"$W/sq/passwd"
sed -e "s/^http_port .*/http_port 127.0.0.1:$SQ2/" \
    -e "s|/sq/access.log|/sq/access2.log|; s|/sq/cache.log|/sq/cache2.log|" \
    -e "s|/sq/squid.pid|/sq/squid2.pid|" \
    -e "s|^http_access allow all|auth_param basic program /usr/lib/squid/basic_ncsa_auth $W/sq/passwd\nacl authed proxy_auth REQUIRED\nhttp_access allow authed\nhttp_access deny all|" \
    "$W/sq/squid.conf" >"$W/sq/squid2.conf"
chmod a+r "$W/sq/squid2.conf" "$W/sq/passwd"
spawn_user "$SQUID" -N -f "$W/sq/squid2.conf"
SPID2=$!
i=0
while ! grep -q "Accepting HTTP Socket" "$W/sq/cache2.log" 2>/dev/null &&
    [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
printf '{"PROXY_LOGIN":{"value":"pxuser:%s"}}\n' "$PXPASS" >"$W/cred.json"
chmod 0600 "$W/cred.json"
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$W/cred.json"
cat >"$W/up2.json" <<EOF
{"credentials":{"file":"$W/cred.json"},
 "sandbox":{"network":{"upstream":{"http":"http://127.0.0.1:$SQ2",
  "credential":"PROXY_LOGIN"}}}}
EOF
cat >"$W/up3.json" <<EOF
{"sandbox":{"network":{"upstream":{"http":"http://127.0.0.1:$SQ2"}}}}
EOF
chmod a+r "$W/up2.json" "$W/up3.json"
h0=$(hits "$W/hits")
urun "$W/up2.json" sh -c "curl $code http://localhost:$HP/authed;
    cat /proc/self/environ | tr '\0' '\n'; env; ls -la /run/airlock" \
    >"$W/u6" 2>&1
check_sh "with the credential: squid lets it through as pxuser" \
    '[ "$(line 1 "$W/u6")" = 200 ] && [ "$(hits "$W/hits")" -eq $((h0 + 1)) ] &&
    grep -q "CONNECT localhost:$HP pxuser " "$W/sq/access2.log"'
check "the proxy password is nowhere inside the sandbox" \
    fails grep -q "$PXPASS" "$W/u6"
urun "$W/up3.json" sh -c "curl $code http://localhost:$HP/noauth" \
    >"$W/u7" 2>&1
check_sh "control: without it squid refuses (407), the sandbox sees 502" \
    '[ "$(line 1 "$W/u7")" = 502 ] && grep -q "TCP_DENIED/407" "$W/sq/access2.log" &&
    [ "$(hits "$W/hits")" -eq $((h0 + 1)) ]'
urun "$W/up3.json" sh -c "curl -s -m 10 -o /dev/null -D - \
    http://localhost:$HP/noauth2" >"$W/u7b" 2>&1
check "... and its X-Airlock-Error says why ($(grep -i x-airlock "$W/u7b"))" \
    grep -qi "^X-Airlock-Error: upstream proxy: answered 407" "$W/u7b"
[ "$_fails" -eq 0 ] || diag "$(cat "$W/up3.json" "$W/u6" "$W/u7" "$W/sq/access2.log")"
kill "$SPID2" 2>/dev/null

# 5. A SOCKS5 upstream with a login (RFC 1929): a small server that logs
# each request with its user, then relays.  And a name proxyd cannot
# resolve goes to the upstream by name (squid logs it).
cat >"$W/socks.py" <<'PY'
import socket, struct, sys, threading
log, portfile = sys.argv[1], sys.argv[2]
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(portfile, "w").write(str(s.getsockname()[1]))
def rx(c, n):
    b = b""
    while len(b) < n:
        d = c.recv(n - len(b))
        if not d:
            raise EOFError
        b += d
    return b
def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    try:
        b.shutdown(socket.SHUT_WR)
    except OSError:
        pass
def serve(c):
    v, n = rx(c, 2)
    methods = rx(c, n)
    user = "-"
    if 2 in methods:
        c.sendall(b"\x05\x02")
        rx(c, 1)
        user = rx(c, rx(c, 1)[0]).decode()
        pw = rx(c, rx(c, 1)[0]).decode()
        c.sendall(b"\x01\x00")
        user += ":" + pw
    else:
        c.sendall(b"\x05\x00")
    _, cmd, _, at = rx(c, 4)
    host = rx(c, rx(c, 1)[0]).decode() if at == 3 else socket.inet_ntoa(rx(c, 4))
    port = struct.unpack(">H", rx(c, 2))[0]
    open(log, "a").write("%s %d %s\n" % (host, port, user))
    u = socket.create_connection((host, port))
    c.sendall(b"\x05\x00\x00\x01\x7f\x00\x00\x01\x00\x00")
    threading.Thread(target=pipe, args=(u, c), daemon=True).start()
    pipe(c, u)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
: >"$W/socks.log"
python3 "$W/socks.py" "$W/socks.log" "$W/socks.port" >/dev/null 2>&1 &
SOPID=$!
i=0
while [ ! -s "$W/socks.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
cat >"$W/up4.json" <<EOF
{"credentials":{"file":"$W/cred.json"},
 "sandbox":{"network":{"upstream":{"socks5":"127.0.0.1:$(cat "$W/socks.port")",
  "credential":"PROXY_LOGIN"}}}}
EOF
chmod a+r "$W/up4.json"
h0=$(hits "$W/hits")
urun "$W/up4.json" sh -c "curl $code http://localhost:$HP/s1;
    curl $code -x socks5h://127.0.0.1:1080 http://localhost:$HP/s2" \
    >"$W/u8" 2>&1
check_sh "a SOCKS5 upstream carries HTTP and SOCKS5 connections (2 hits)" \
    '[ "$(grep -c "^200$" "$W/u8")" -eq 2 ] &&
    [ "$(hits "$W/hits")" -eq $((h0 + 2)) ]'
check_sh "... each with the login from the credentials file" \
    '[ "$(grep -c "^localhost $HP pxuser:$PXPASS$" "$W/socks.log")" -eq 2 ]'
[ "$_fails" -eq 0 ] || diag "$(cat "$W/u8" "$W/socks.log")"
kill "$SOPID" 2>/dev/null
UX="--allow-domain nowhere.invalid:$HP" urun "$W/up.json" sh -c \
    "curl $code http://nowhere.invalid:$HP/byname" >"$W/u9" 2>&1
check_sh "a name proxyd cannot resolve goes to the upstream by name" \
    'sqlog | grep -q "CONNECT nowhere.invalid:$HP " &&
    [ "$(line 1 "$W/u9")" = 502 ]'
# R-E5 still holds in front of the upstream: localhost allowed without a
# port resolves to loopback, which only a rule with a port opens.
UX="--allow-domain localhost" urun "$W/up.json" sh -c \
    "curl $code http://localhost:$LP/rebind" >"$W/u10" 2>&1
check_sh "a name resolving to loopback is refused before the upstream" \
    '[ "$(line 1 "$W/u10")" = 403 ] && ! sqlog | grep -q "localhost:$LP " &&
    [ "$(conns)" -eq 4 ]'
cat >"$W/up5.json" <<EOF
{"credentials":{"file":"$W/cred.json"},
 "sandbox":{"network":{"upstream":{"http":"http://127.0.0.1:$SQ",
  "credential":"NO_SUCH_ENTRY"}}}}
EOF
chmod a+r "$W/up5.json"
urun "$W/up5.json" true >"$W/u11" 2>&1
rc=$?
check_sh "a credential entry that is not there fails the launch, named ($rc)" \
    '[ "$rc" -ne 0 ] && grep -q "sandbox.network.upstream.credential NO_SUCH_ENTRY: no credentials entry" "$W/u11"'
[ "$_fails" -eq 0 ] || diag "$(cat "$W/u11")"
: >"$W/u5"
for bad in '"http":"http://proxy.corp.example:3128"' \
    '"http":"http://127.0.0.1"' '"socks5":"127.0.0.1:99999"' \
    '"noProxy":["a..b"]' '"https":"x"' '"http":"https://127.0.0.1:3128"'; do
	printf '{"sandbox":{"network":{"upstream":{%s}}}}\n' "$bad" \
	    >"$W/bad.json"
	chmod a+r "$W/bad.json"
	urun "$W/bad.json" true >>"$W/u5" 2>&1 &&
	    echo "accepted: $bad" >>"$W/u5"
done
check_sh "bad upstream settings are refused naming the key" \
    '! grep -q accepted "$W/u5" && [ "$(grep -c "key sandbox.network.upstream.\(http\|socks5\|noProxy\|https\)" "$W/u5")" -eq 6 ]'
check "a TLS proxy address (https://) is refused, saying what to give" \
    grep -q "https://127.0.0.1:3128\": a TLS connection to the proxy is not supported: give its http:// address" "$W/u5"
[ "$_fails" -eq 0 ] || diag "$(cat "$W/u5")"
cd /
finish
