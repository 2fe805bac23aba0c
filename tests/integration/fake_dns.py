# SPDX-License-Identifier: ISC
#
# A tiny DNS server on 127.0.0.1 for tests/integration/proxyd.sh, so the
# proxy's resolver path (evdns, R-E5 address checks) is exercised without
# sending a query anywhere but loopback.
#
#   python3 fake_dns.py DIR NAME=ADDR[,ADDR...]...
#
# Answers A queries for the given names (AAAA: no data; anything else:
# NXDOMAIN).  Writes DIR/dns.port once listening; exits when stdin closes.
import os
import socket
import struct
import sys
import threading

DIR = sys.argv[1]
table = {}
for arg in sys.argv[2:]:
    name, addrs = arg.split("=", 1)
    table[name.lower().rstrip(".")] = addrs.split(",")

sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", 0))
with open(os.path.join(DIR, "dns.port.tmp"), "w") as f:
    f.write("%d\n" % sock.getsockname()[1])
os.rename(os.path.join(DIR, "dns.port.tmp"), os.path.join(DIR, "dns.port"))


def answer(q):
    qid, flags, qd = struct.unpack(">HHH", q[:6])
    off, labels = 12, []
    while q[off] != 0:
        n = q[off]
        labels.append(q[off + 1:off + 1 + n].decode("ascii", "replace"))
        off += 1 + n
    qtype, qclass = struct.unpack(">HH", q[off + 1:off + 5])
    question = q[12:off + 5]
    name = ".".join(labels).lower()
    addrs = table.get(name)
    rcode, answers = 0, b""
    if addrs is None:
        rcode = 3
    elif qtype == 1:
        for a in addrs:
            answers += b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 5, 4) + \
                socket.inet_aton(a)
    n = len(answers) // 16
    hdr = struct.pack(">HHHHHH", qid, 0x8180 | rcode, 1, n, 0, 0)
    return hdr + question + answers


def serve():
    while True:
        q, peer = sock.recvfrom(512)
        try:
            sock.sendto(answer(q), peer)
        except Exception:
            pass


threading.Thread(target=serve, daemon=True).start()
sys.stdin.read()
