# SPDX-License-Identifier: ISC
#
# Loopback test servers for tests/integration/proxyd.sh and the proxy
# benchmark: one plain HTTP server and one HTTPS server (certificate from
# the test CA the script made), both counting hits into files, so a test
# can tell "the request reached the server" from "it did not".
#
#   python3 proxyd_srv.py DIR [CERT KEY]
#
# Writes DIR/ports ("HTTP_PORT TLS_PORT BANNER_PORT") once listening;
# DIR/hits.http and DIR/hits.tls hold the counts.  GET answers "hello\n",
# GET /big/N answers N bytes (byte i is i % 251); POST reads a
# Content-Length or chunked body and answers "len=N".  The banner server
# speaks first ("banner\n"), then echoes until EOF, then closes: a
# protocol like SSH or SMTP through a tunnel.  Exits when stdin closes.
import http.server
import os
import socket
import ssl
import sys
import threading

DIR = sys.argv[1]
lock = threading.Lock()
counts = {"http": 0, "tls": 0}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def hit(self):
        with lock:
            counts[self.server.kind] += 1
            with open(os.path.join(DIR, "hits." + self.server.kind), "w") as f:
                f.write(str(counts[self.server.kind]))

    def reply(self, body):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Seen-Host", self.headers.get("Host", ""))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.hit()
        if self.path.startswith("/big/"):
            n = int(self.path[5:])
            self.send_response(200)
            self.send_header("Content-Length", str(n))
            self.end_headers()
            block = bytes(i % 251 for i in range(251 * 256))
            while n > 0:
                self.wfile.write(block[:n])
                n -= min(n, len(block))
            return
        self.reply(b"hello\n")

    def do_POST(self):
        self.hit()
        n = 0
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    break
                n += len(self.rfile.read(size))
                self.rfile.readline()
        else:
            n = len(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.reply(("len=%d\n" % n).encode())


def serve(kind, ctx):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.kind = kind
    if ctx is not None:
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv.server_address[1]


def banner_conn(c):
    with c:
        c.sendall(b"banner\n")
        while True:
            b = c.recv(65536)
            if not b:
                break
            c.sendall(b)


def banner_serve():
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)

    def loop():
        while True:
            c, _ = ls.accept()
            threading.Thread(target=banner_conn, args=(c,),
                             daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
    return ls.getsockname()[1]


ctx = None
if len(sys.argv) > 3:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[2], sys.argv[3])
hp = serve("http", None)
tp = serve("tls", ctx) if ctx is not None else 0
bp = banner_serve()
for k in counts:
    with open(os.path.join(DIR, "hits." + k), "w") as f:
        f.write("0")
with open(os.path.join(DIR, "ports.tmp"), "w") as f:
    f.write("%d %d %d\n" % (hp, tp, bp))
os.rename(os.path.join(DIR, "ports.tmp"), os.path.join(DIR, "ports"))
sys.stdin.read()
