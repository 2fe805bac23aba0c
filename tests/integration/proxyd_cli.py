# SPDX-License-Identifier: ISC
#
# Raw-socket clients for tests/integration/proxyd.sh, for what curl cannot
# do on purpose: bytes sent together with the request head, a server that
# speaks first, half-closes, pipelined requests.  Prints "ok" or what went
# wrong; all traffic goes to 127.0.0.1.
#
#   python3 proxyd_cli.py connect PROXY_PORT HOST PORT NBYTES
#       CONNECT to the banner server with NBYTES of payload, the first
#       64 KB in the same write as the head; expects the 200, "banner\n",
#       the payload echoed back, then EOF after our half-close.
#   python3 proxyd_cli.py socks PROXY_PORT HOST PORT
#       SOCKS5 CONNECT (domain) to the banner server; expects "banner\n"
#       before sending anything, then an echo.
#   python3 proxyd_cli.py pipeline PROXY_PORT HOST PORT
#       two absolute-form GETs in one write; expects two "hello" answers.
import socket
import struct
import sys
import threading


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise RuntimeError("EOF after %d of %d bytes" % (len(b), n))
        b += c
    return b


def recv_head(s):
    b = b""
    while b"\r\n\r\n" not in b:
        c = s.recv(1)
        if not c:
            raise RuntimeError("EOF in answer head: %r" % b)
        b += c
    return b


def payload(n):
    return bytes((i * 7) % 256 for i in range(n))


def do_connect(pport, host, port, n):
    s = socket.create_connection(("127.0.0.1", pport), timeout=20)
    data = payload(n)
    head = ("CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" %
            (host, port, host, port)).encode()
    # the first bytes go with the head; the rest from a thread, so the
    # echo is read while we send (no buffer deadlock)
    s.sendall(head + data[:65536])

    def rest():
        s.sendall(data[65536:])
        s.shutdown(socket.SHUT_WR)
    t = threading.Thread(target=rest, daemon=True)
    t.start()
    h = recv_head(s)
    if not h.startswith(b"HTTP/1.1 200"):
        raise RuntimeError("answer %r" % h)
    if recv_exact(s, 7) != b"banner\n":
        raise RuntimeError("no banner first")
    if recv_exact(s, n) != data:
        raise RuntimeError("echo differs")
    if s.recv(1) != b"":
        raise RuntimeError("bytes after the echo")


def do_socks(pport, host, port):
    s = socket.create_connection(("127.0.0.1", pport), timeout=20)
    s.sendall(b"\x05\x01\x00")
    if recv_exact(s, 2) != b"\x05\x00":
        raise RuntimeError("method selection")
    hb = host.encode()
    s.sendall(b"\x05\x01\x00\x03" + bytes([len(hb)]) + hb +
              struct.pack(">H", port))
    r = recv_exact(s, 4)
    if r[1] != 0:
        raise RuntimeError("reply %d" % r[1])
    alen = {1: 4, 4: 16}.get(r[3])
    if alen is None:
        alen = recv_exact(s, 1)[0]
    recv_exact(s, alen + 2)
    if recv_exact(s, 7) != b"banner\n":
        raise RuntimeError("no banner before we spoke")
    s.sendall(b"ping")
    if recv_exact(s, 4) != b"ping":
        raise RuntimeError("echo differs")


def do_pipeline(pport, host, port):
    s = socket.create_connection(("127.0.0.1", pport), timeout=20)
    req = ("GET http://%s:%d/p HTTP/1.1\r\nHost: %s:%d\r\n\r\n" %
           (host, port, host, port)).encode()
    s.sendall(req + req)
    for i in range(2):
        h = recv_head(s).decode("latin-1")
        if not h.startswith("HTTP/1.1 200"):
            raise RuntimeError("answer %d: %r" % (i, h))
        n = 0
        for line in h.split("\r\n"):
            if line.lower().startswith("content-length:"):
                n = int(line.split(":")[1])
        if recv_exact(s, n) != b"hello\n":
            raise RuntimeError("body %d" % i)


try:
    cmd = sys.argv[1]
    a = sys.argv[2:]
    if cmd == "connect":
        do_connect(int(a[0]), a[1], int(a[2]), int(a[3]))
    elif cmd == "socks":
        do_socks(int(a[0]), a[1], int(a[2]))
    elif cmd == "pipeline":
        do_pipeline(int(a[0]), a[1], int(a[2]))
    else:
        raise RuntimeError("unknown command")
    print("ok")
except Exception as e:
    print("error: %s" % e)
