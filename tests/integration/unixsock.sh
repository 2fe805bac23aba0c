#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Unix sockets and the guard (issues 27, 28), through a real `airlock
# run` as the unprivileged user:
#   - a blocking connect to a listener whose backlog is full (an
#     abstract socket: connected "as asked") never holds the guard:
#     the sandbox's other notified calls (a checked write, a bind and a
#     connect by path) still complete while it waits;
#   - sandbox.network.allowUnixSockets (and srt's network spelling):
#     one host socket, served by a real server, is reached with a real
#     curl; its neighbour in the same directory and a symlink made
#     inside to the neighbour stay refused (unix-connect); a path that
#     is missing or no socket fails the launch naming the setting;
#   - sandbox.network.allowUnixBind false refuses a unix bind(2).
#   - a unix datagram by address (SOCK_DGRAM, SOCK_RAW, socketpairs)
#     from inside never reaches a host datagram socket in the workspace;
#   - an allowUnixSockets path through a symlink fails the launch.
. "$(dirname "$0")/lib.sh"
plan 38

W=$(mkwork)
cd "$W" || exit 1
EV="$W/.ev.jsonl"
# sbx CMD: a shell command in the sandbox (cwd: the workspace).
sbx() {
	as_user "$AIRLOCK" run --no-policy-check --workspace "$W" \
	    --events "$EV" "$@"
}

# ---- a full backlog does not hold the guard (issue 27) ----
cat >"$W/full.py" <<'PY'
import os, socket, subprocess, threading, time
name = "\0airlock-full-%d" % os.getpid()
l = socket.socket(socket.AF_UNIX)
l.bind(name)
l.listen(0)
fill = []
while len(fill) < 64:
    c = socket.socket(socket.AF_UNIX)
    c.setblocking(False)
    try:
        c.connect(name)
    except BlockingIOError:
        c.close()
        break
    fill.append(c)
res = {}
def blocked():
    c = socket.socket(socket.AF_UNIX)
    c.connect(name)
    res["bg"] = c
t = threading.Thread(target=blocked, daemon=True)
t.start()
time.sleep(0.5)
def run(cmd):
    return subprocess.run(["timeout", "5"] + cmd).returncode
w = run(["sh", "-c", "echo x > written"])
s = run(["python3", "-c", "import socket\n"
    "s = socket.socket(socket.AF_UNIX); s.bind('own'); s.listen(1)\n"
    "c = socket.socket(socket.AF_UNIX); c.connect('own')"])
print("waiting=%d write=%d sock=%d" % ("bg" not in res, w, s))
# Make room: the waiting connect then completes.
l.setblocking(False)
for i in range(len(fill) + 2):
    try:
        l.accept()
    except BlockingIOError:
        time.sleep(0.1)
t.join(5)
print("done=%d filled=%d" % ("bg" in res, len(fill)))
PY
chown "$TUSER" "$W/full.py"
out=$(sbx -- python3 full.py 2>&1)
diag "$out"
case $out in
*waiting=1*) ok "the blocking connect waits on the full backlog" ;;
*) not_ok "the blocking connect waits on the full backlog" ;;
esac
case $out in
*write=0*) ok "meanwhile a checked write completes" ;;
*) not_ok "meanwhile a checked write completes" ;;
esac
check "... and it wrote" [ -f "$W/written" ]
case $out in
*sock=0*) ok "meanwhile a bind and a connect by path complete" ;;
*) not_ok "meanwhile a bind and a connect by path complete" ;;
esac
case $out in
*done=1*) ok "the waiting connect completes once there is room" ;;
*) not_ok "the waiting connect completes once there is room" ;;
esac
# A blocking TCP connect to the proxy's listener (its handshake may
# still be under way when the guard first asks) and a non-blocking one.
TCP="import socket
s = socket.create_connection(('127.0.0.1', 3128), timeout=None)
s.setblocking(True)
s.sendall(b'CONNECT example.invalid:443 HTTP/1.1\\r\\n\\r\\n')
print('blocking', s.recv(12).decode())
n = socket.socket(); n.setblocking(False)
print('nonblocking', n.connect_ex(('127.0.0.1', 3128)) in (0, 115))
for i in range(20):
    socket.create_connection(('127.0.0.1', 3128)).close()
print('twenty')"
out=$(sbx -- python3 -c "$TCP" 2>&1)
check_sh "blocking and non-blocking TCP connects to the proxy complete" \
    'case $out in *"blocking HTTP/1.1 4"*"nonblocking True"*twenty*) ;;
    *) false ;; esac'
diag "$out"

# ---- the unix-socket allowlist (issue 28) ----
mkdir -p "$W/socks"
cat >"$W/srv.py" <<'PY'
import os, socketserver, sys, threading
class H(socketserver.StreamRequestHandler):
    def handle(self):
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass
        body = ("hello-%s\n" % os.path.basename(
            self.server.server_address)).encode()
        self.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n"
            % len(body) + body)
for p in sys.argv[1:]:
    s = socketserver.ThreadingUnixStreamServer(p, H)
    threading.Thread(target=s.serve_forever, daemon=True).start()
open(sys.argv[1] + ".up", "w").close()
threading.Event().wait()
PY
echo plain >"$W/socks/file"
chown -R "$TUSER" "$W/socks" "$W/srv.py"
spawn_user python3 "$W/srv.py" "$W/socks/ok.sock" "$W/socks/nb.sock"
SRV=$!
i=0
while [ ! -e "$W/socks/ok.sock.up" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
SET="$W/../unixsock-$$.json"
printf '{ "sandbox": { "network": { "allowUnixSockets": ["%s"] } } }\n' \
    "$W/socks/ok.sock" >"$SET"
CURL='curl -sS --max-time 5 --unix-socket'
out=$(as_user $CURL "$W/socks/nb.sock" http://x/ 2>&1)
check "control: outside, the neighbour's server answers ($out)" \
    [ "$out" = hello-nb.sock ]
out=$(sbx -- sh -c "$CURL '$W/socks/ok.sock' http://x/" 2>&1)
check "without the setting the socket is refused inside ($out)" \
    [ "$out" != hello-ok.sock ]
: >"$EV"
out=$(sbx --settings "$SET" -- sh -c "$CURL '$W/socks/ok.sock' http://x/" \
    2>&1)
check "allowUnixSockets: curl reaches the allowed socket's server ($out)" \
    [ "$out" = hello-ok.sock ]
: >"$EV"
out=$(sbx --settings "$SET" -- sh -c "$CURL '$W/socks/nb.sock' http://x/" \
    2>&1)
check "... its neighbour in the same directory is refused ($out)" \
    [ "$out" != hello-nb.sock ]
check "... with a unix-connect violation naming it" \
    grep -q "unix-connect.*$W/socks/nb.sock" "$EV"
out=$(sbx --settings "$SET" -- sh -c "ln -s socks/nb.sock lnk &&
    $CURL lnk http://x/; ln -s socks/ok.sock lok && $CURL lok http://x/" \
    2>&1)
case $out in
*hello-nb*) not_ok "a symlink made inside to the neighbour is refused" ;;
*) ok "a symlink made inside to the neighbour is refused" ;;
esac
case $out in
*hello-ok*) ok "... one to the allowed socket passes (the same inode)" ;;
*) not_ok "... one to the allowed socket passes (the same inode)" ;;
esac
diag "$out"
out=$(sbx --settings "$SET" -- python3 -c "import socket
s = socket.socket(socket.AF_UNIX)
s.connect('$W/socks/ok.sock'); s.sendall(b'GET / HTTP/1.0\r\n\r\n')
r = b''.join(iter(lambda: s.recv(100), b''))
print(r.split(b'\n')[-2].decode().strip())" 2>&1)
check "a python client talks to the allowed socket too ($out)" \
    [ "$out" = hello-ok.sock ]
printf '{ "network": { "allowUnixSockets": ["%s"] } }\n' \
    "$W/socks/ok.sock" >"$SET.srt"
out=$(sbx --settings "$SET.srt" -- sh -c \
    "$CURL '$W/socks/ok.sock' http://x/" 2>"$W/.err")
check "srt's network.allowUnixSockets is applied ($out)" \
    [ "$out" = hello-ok.sock ]
check "... and not warned about as ignored" \
    fails grep -q "allowUnixSockets.*ignored" "$W/.err"
for bad in "$W/socks/missing.sock" "$W/socks/file" socks/ok.sock; do
	printf '{ "sandbox": { "network": { "allowUnixSockets": ["%s"] } } }\n' \
	    "$bad" >"$SET.bad"
	out=$(sbx --settings "$SET.bad" -- true 2>&1)
	rc=$?
	case $rc:$out in
	0:*) not_ok "$bad: the launch fails"; diag "$out" ;;
	*"sandbox.network.allowUnixSockets: $bad"*)
		ok "$bad: the launch fails naming the setting and path" ;;
	*) not_ok "$bad: the launch fails naming the setting and path"
		diag "$out" ;;
	esac
done
# A directory the sandbox does not show: the one socket alone appears.
X=$(mkwork)
chown "$TUSER" "$X"
spawn_user python3 "$W/srv.py" "$X/far.sock" "$X/near.sock"
SRV2=$!
i=0
while [ ! -e "$X/far.sock.up" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
printf '{ "sandbox": { "network": { "allowUnixSockets": ["%s"] } } }\n' \
    "$X/far.sock" >"$SET.far"
out=$(sbx --settings "$SET.far" -- sh -c "$CURL '$X/far.sock' http://x/;
    ls '$X'" 2>&1)
check_sh "a socket in a hidden directory is bound alone ($out)" \
    'case $out in hello-far.sock*near*) false ;; hello-far.sock*) ;;
    *) false ;; esac'
kill "$SRV2" 2>/dev/null

# airlock's own sockets (the default runtime directory's) never.
OWN=/tmp/airlock-$(id -u "$TUSER")
as_user sh -c "mkdir -p -m 700 '$OWN' && python3 -c 'import socket
socket.socket(socket.AF_UNIX).bind(\"$OWN/unixsock-$$.sock\")'"
printf '{ "sandbox": { "network": { "allowUnixSockets": ["%s"] } } }\n' \
    "$OWN/unixsock-$$.sock" >"$SET.own"
out=$(sbx --settings "$SET.own" -- true 2>&1)
case $out in
*"allowUnixSockets: $OWN/unixsock-$$.sock: airlock's own"*)
	ok "a socket in airlock's runtime directory is refused at launch" ;;
*) not_ok "a socket in airlock's runtime directory is refused at launch"
	diag "$out" ;;
esac
rm -f "$OWN/unixsock-$$.sock"
kill "$SRV" 2>/dev/null

# ---- allowUnixBind ----
BIND="import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.bind(sys.argv[1].replace('@', '\\0')); print('bound')
except OSError as e:
    print(e.strerror)"
printf '{ "sandbox": { "network": { "allowUnixBind": false } } }\n' \
    >"$SET.nobind"
out=$(sbx -- python3 -c "$BIND" own.sock 2>&1)
check "control: without the setting a unix bind inside works ($out)" \
    [ "$out" = bound ]
: >"$EV"
out=$(sbx --settings "$SET.nobind" -- python3 -c "$BIND" own2.sock \
    2>/dev/null)
check_sh "allowUnixBind false: a bind by path is refused ($out)" \
    '[ "$out" = "Permission denied" ] && [ ! -e "$W/own2.sock" ]'
check "... with a unix-bind violation naming the path" \
    grep -q "unix-bind.*$W/own2.sock" "$EV"
out=$(sbx --settings "$SET.nobind" -- python3 -c "$BIND" @abstract-x \
    2>/dev/null)
check "... and an abstract one too ($out)" [ "$out" = "Permission denied" ]
check "... reported as @abstract-x" grep -q "unix-bind.*@abstract-x" "$EV"
out=$(sbx -- python3 -c "$BIND" @abstract-y 2>&1)
check "control: without the setting an abstract bind works ($out)" \
    [ "$out" = bound ]

# ---- unix datagrams by address (SOCK_RAW is a datagram to the kernel) ----
cat >"$W/dgram.py" <<'PY'
import socket, sys
r = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
r.bind(sys.argv[1])
open(sys.argv[1] + ".up", "w").close()
while True:
    d = r.recv(100)
    with open(sys.argv[2], "ab") as f:
        f.write(d + b"\n")
PY
SEND="import socket, sys
try:
    if sys.argv[2] == 'pair':
        s = socket.socketpair(socket.AF_UNIX, int(sys.argv[3]))[0]
    else:
        s = socket.socket(socket.AF_UNIX, int(sys.argv[2]))
    s.sendto(sys.argv[4].encode(), sys.argv[1]); print('sent')
except OSError as e:
    print(e.strerror)"
chown "$TUSER" "$W/dgram.py"
spawn_user python3 "$W/dgram.py" "$W/host.dgram" "$W/.dgram.got"
DSRV=$!
i=0
while [ ! -e "$W/host.dgram.up" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
out=$(as_user python3 -c "$SEND" "$W/host.dgram" 2 0 outside 2>&1)
sleep 0.3
check_sh "control: outside, a datagram reaches the host socket ($out)" \
    '[ "$out" = sent ] && grep -qx outside "$W/.dgram.got"'
for t in 3 2 4; do
	out=$(sbx -- python3 -c "$SEND" "$W/host.dgram" "$t" 0 "in$t" 2>&1)
	check "inside, AF_UNIX type $t is refused ($out)" \
	    [ "$out" = "Permission denied" ]
	out=$(sbx -- python3 -c "$SEND" "$W/host.dgram" pair "$t" "pr$t" \
	    2>&1)
	check "... and a socketpair of type $t ($out)" \
	    [ "$out" = "Permission denied" ]
done
sleep 0.3
check "... nothing from inside reached the host socket" \
    fails grep -q "^in\|^pr" "$W/.dgram.got"
kill "$DSRV" 2>/dev/null

# ---- a listed path through a symlink is refused, not followed ----
mkdir -p "$W/real"
chown "$TUSER" "$W/real"
spawn_user python3 "$W/srv.py" "$W/real/r.sock"
SRV3=$!
i=0
while [ ! -e "$W/real/r.sock.up" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
ln -s real/r.sock "$W/lnk.sock"
ln -s real "$W/ldir"
for l in "$W/lnk.sock" "$W/ldir/r.sock"; do
	printf '{ "sandbox": { "network": { "allowUnixSockets": ["%s"] } } }\n' \
	    "$l" >"$SET.lnk"
	out=$(sbx --settings "$SET.lnk" -- sh -c "$CURL '$l' http://x/" 2>&1)
	case $out in
	*"sandbox.network.allowUnixSockets: $l"*"$W/real/r.sock"*)
		ok "$l: a symlink is refused, naming where it points" ;;
	*) not_ok "$l: a symlink is refused, naming where it points"
		diag "$out" ;;
	esac
done
printf '{ "sandbox": { "network": { "allowUnixSockets": ["%s"] } } }\n' \
    "$W/real/r.sock" >"$SET.lnk"
out=$(sbx --settings "$SET.lnk" -- sh -c "$CURL '$W/real/r.sock' http://x/" \
    2>&1)
check "control: the target listed itself is reached ($out)" \
    [ "$out" = hello-r.sock ]
kill "$SRV3" 2>/dev/null

finish
