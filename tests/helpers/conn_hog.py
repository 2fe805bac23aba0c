# SPDX-License-Identifier: ISC
"""Hold many idle connections to a proxy, as a hostile sandbox would to
starve its neighbours (tests/integration/edges.sh).

Each connection sends the start of an HTTP request head and never ends
it (a line every 10 s keeps it within proxyd's handshake timeout).  The
soft RLIMIT_NOFILE is raised to the hard one first.  After opening,
it waits 3 s and writes "open K of N" to OUT, K being the connections
the proxy has not closed; then it holds them for HOLD seconds and
writes "held" to OUT.

usage: conn_hog.py HOST PORT N HOLD OUT
"""
import resource
import socket
import sys
import time

host, port, n, hold, out = (sys.argv[1], int(sys.argv[2]),
                            int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
report = open(out, "a")      # before the fds run out
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
conns = []
misses = 0
for i in range(n):
    try:
        s = socket.socket()
    except OSError:
        break           # its own fd limit
    s.settimeout(1)
    try:
        s.connect((host, port))
        s.sendall(b"GET http://localhost/ HTTP/1.1\r\n")
        conns.append(s)
        misses = 0
    except OSError:
        s.close()
        misses += 1
        if misses >= 5:
            break


def alive(s):
    try:
        s.setblocking(False)
        return s.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


time.sleep(3)
conns = [s for s in conns if alive(s)]
report.write("open %d of %d\n" % (len(conns), n))
report.flush()
end = time.time() + hold
while time.time() < end:
    time.sleep(min(10, max(0, end - time.time())))
    for s in conns:
        try:
            s.send(b"X-Keep: 1\r\n")
        except OSError:
            pass
report.write("held\n")
report.close()
