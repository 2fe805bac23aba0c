# SPDX-License-Identifier: ISC
#
# Open a CONNECT tunnel through the proxy on 127.0.0.1:PROXY to
# 127.0.0.1:PORT, print "up", then wait (10 s at most) and print "closed"
# when the proxy closes it, "data" if bytes arrive instead.
#
#   python3 tunnel_wait.py PROXY PORT
import socket
import sys

s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(("CONNECT 127.0.0.1:%s HTTP/1.1\r\nHost: x\r\n\r\n"
           % sys.argv[2]).encode())
if not s.recv(100).startswith(b"HTTP/1.1 200"):
    print("refused", flush=True)
    sys.exit(1)
print("up", flush=True)
s.settimeout(10)
try:
    print("closed" if s.recv(100) == b"" else "data", flush=True)
except (socket.timeout, ConnectionResetError) as e:
    print("closed" if isinstance(e, ConnectionResetError) else "timeout",
          flush=True)
