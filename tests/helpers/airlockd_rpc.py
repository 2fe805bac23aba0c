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


class Client:
    """A connection to airlockd's socket (`airlockd --socket PATH`) that
    keeps the notifications it reads while waiting for answers."""

    def __init__(self, path, tries=50):
        import time
        for _ in range(tries):
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                time.sleep(0.1)
        else:
            raise OSError("cannot connect to " + path)
        self.buf = b""
        self.n = 0
        self.notes = []

    def send(self, method, params=None, rid=None):
        """Send one request; its id."""
        if rid is None:
            self.n += 1
            rid = self.n
        m = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            m["params"] = params
        self.s.sendall(json.dumps(m).encode() + b"\n")
        return rid

    def read(self, timeout=None):
        """One message, or None at the timeout; EOFError at the end."""
        import select
        import time
        end = None if timeout is None else time.time() + timeout
        while b"\n" not in self.buf:
            left = None if end is None else max(0, end - time.time())
            p = select.poll()           # any fd number, unlike select
            p.register(self.s, select.POLLIN)
            if not p.poll(None if left is None else left * 1000):
                return None
            data = self.s.recv(1 << 20)
            if not data:
                raise EOFError("airlockd closed the connection")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def answer(self, rid, timeout=60):
        """The answer to request rid; notifications are kept."""
        while True:
            m = self.read(timeout)
            if m is None:
                raise TimeoutError("no answer to %r" % (rid,))
            if "method" in m and "id" not in m:
                self.notes.append(m)
            elif m.get("id") == rid:
                return m

    def call(self, method, params=None, timeout=60):
        return self.answer(self.send(method, params), timeout)

    def note(self, pred, timeout=10):
        """The first kept or new notification for which pred(m) holds."""
        import time
        end = time.time() + timeout
        while True:
            for i, m in enumerate(self.notes):
                if pred(m):
                    return self.notes.pop(i)
            left = end - time.time()
            if left <= 0:
                return None
            m = self.read(left)
            if m is not None and "method" in m and "id" not in m:
                self.notes.append(m)

    def events(self, seconds):
        """Every notification read within the next seconds (and kept)."""
        import time
        end = time.time() + seconds
        out, self.notes = self.notes, []
        while True:
            left = end - time.time()
            if left <= 0:
                return out
            m = self.read(left)
            if m is not None and "method" in m and "id" not in m:
                out.append(m)

    def close(self):
        self.s.close()
