# SPDX-License-Identifier: ISC
#
# A JSON-RPC client of `airlockd --fd N` for the tests and benchmarks
# that speak the client protocol directly (the desktop app's way): one
# private airlockd on a socketpair, one request at a time.
import json
import socket
import subprocess


def connect(airlockd):
    """Start airlockd on a socketpair: (process, socket, file, call)."""
    a, b = socket.socketpair()
    p = subprocess.Popen([airlockd, "--fd", str(b.fileno()), "--quiet"],
                         pass_fds=[b.fileno()], stderr=subprocess.DEVNULL)
    b.close()
    f = a.makefile("rwb")
    n = [0]

    def call(method, params):
        """Send one request; skip events until its answer comes."""
        n[0] += 1
        f.write(json.dumps({"jsonrpc": "2.0", "id": n[0], "method": method,
                            "params": params}).encode() + b"\n")
        f.flush()
        while True:
            m = json.loads(f.readline())
            if m.get("id") == n[0]:
                return m
    return p, a, f, call
