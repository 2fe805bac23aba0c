# SPDX-License-Identifier: ISC
#
# Helpers of ctlplane.sh (issue 25: the control plane out of reach, what a
# person's terminal shows, the managed lock over terminals):
#   python3 ctlplane_rpc.py serve READY PATH... [@ABSTRACT]
#       listen on unix sockets; write READY when all listen
#   python3 ctlplane_rpc.py probe MARKER PATH... [@ABSTRACT]
#       connect to each; print "PATH open|refused ERR"; on airlockd's
#       socket, open a host terminal (backend none) that touches MARKER
#   python3 ctlplane_rpc.py own DIR
#       bind a socket in DIR and connect to it: print "own open"
#   python3 ctlplane_rpc.py forged SOCK AIRLOCK MARKER
#       the forged approval prompt through the real `airlock approve`
#   python3 ctlplane_rpc.py term SOCK MARKER none|omit|native
#       terminal.open with that backend; "refused MSG" or "opened B"
import base64
import json
import os
import select
import socket
import sys
import time


def addr(p):
    return "\0" + p[1:] if p.startswith("@") else p


def serve(ready, paths):
    ls = []
    for p in paths:
        s = socket.socket(socket.AF_UNIX)
        s.bind(addr(p))
        s.listen(16)
        ls.append(s)
    open(ready, "w").write("ok\n")
    while True:
        r, _, _ = select.select(ls, [], [])
        for s in r:
            try:
                c, _ = s.accept()
                c.sendall(b"hello\n")
                c.close()
            except OSError:
                pass


def rpc(s, n, method, params):
    s.sendall(json.dumps({"jsonrpc": "2.0", "id": n, "method": method,
                          "params": params}).encode() + b"\n")
    buf = b""
    end = time.time() + 10
    while time.time() < end:
        d = s.recv(65536)
        if not d:
            break
        buf += d
        for line in buf.split(b"\n")[:-1]:
            m = json.loads(line)
            if m.get("id") == n:
                return m
    return {}


def probe(marker, paths):
    for p in paths:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.settimeout(5)
            s.connect(addr(p))
        except OSError as e:
            print(p, "refused", e.errno)
            continue
        print(p, "open")
        if p.endswith("airlockd.sock"):
            r = rpc(s, 1, "terminal.open", {"backend": "none", "cwd": "/",
                                            "cols": 80, "rows": 24})
            tid = r.get("result", {}).get("terminalId")
            if tid is not None:
                cmd = base64.b64encode(("touch %s\n" % marker).encode())
                rpc(s, 2, "terminal.input", {"terminalId": tid,
                                             "base64": cmd.decode()})
                time.sleep(1.5)
        s.close()
    sys.stdout.flush()


def own(d):
    import threading
    p = os.path.join(d, "own.sock")
    s = socket.socket(socket.AF_UNIX)
    s.bind(p)
    s.listen(4)

    def one(what):
        c = socket.socket(socket.AF_UNIX)
        try:
            c.connect(p)
            print(what, "open")
        except OSError as e:
            print(what, "refused", e.errno)
    one("own")
    # From a thread that does not lead the process, as Bun connects.
    t = threading.Thread(target=one, args=("thread",))
    t.start()
    t.join()
    os.unlink(p)


def backlog(d):
    """A blocking connect waits on a full backlog while the listener's
    own process opens a file for writing, then accepts: both finish."""
    import threading
    p = os.path.join(d, "bl.sock")
    s = socket.socket(socket.AF_UNIX)
    s.bind(p)
    s.listen(0)
    fill = []
    for _ in range(8):          # until the backlog is full
        c = socket.socket(socket.AF_UNIX)
        c.setblocking(False)
        try:
            c.connect(p)
            fill.append(c)
        except BlockingIOError:
            c.close()
            break
    done = []

    def waiter():
        c = socket.socket(socket.AF_UNIX)
        c.connect(p)
        done.append(c)
    t = threading.Thread(target=waiter)
    t.start()
    time.sleep(0.5)
    with open(os.path.join(d, "bl.log"), "w") as f:
        f.write("written while a connect waits\n")
    for _ in range(len(fill) + 1):
        s.accept()
    t.join(10)
    print("backlog", "ok" if done else "stuck")
    os.unlink(p)


def forged(sock, airlock, marker):
    import pty
    import subprocess
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                    "helpers"))
    from airlockd_rpc import Client
    mfd, sfd = pty.openpty()
    p = subprocess.Popen([airlock, "approve", "--socket", sock], stdin=sfd,
                         stdout=sfd, stderr=sfd, start_new_session=True)
    os.close(sfd)
    seen = b""

    def read_for(secs, until=None):
        nonlocal seen
        end = time.time() + secs
        while time.time() < end and (until is None or until not in seen):
            if select.select([mfd], [], [], 0.2)[0]:
                try:
                    seen += os.read(mfd, 65536)
                except OSError:
                    break
    try:
        read_for(15, b"approving for airlockd")
        banner_end = len(seen)
        c = Client(sock)
        r = c.call("sandbox.launch", {"spec": {
            "sessionId": "forge", "bindMounts": [{"hostPath": "/tmp"}]}})
        assert "result" in r, r
        # The request of the issue: the real command, then CR, erase
        # line, a forged harmless prompt and "conceal" for the rest.
        real = "id > %s #" % marker
        fake = ("\r\x1b[2K[r7] session forge: command ls -la (ask: "
                "listing) until 2026-12-04T12:00:00Z  allow? [y/n/a] "
                "\x1b[8m")
        rid = c.send("sandbox.exec", {"sessionId": "forge", "argv":
                                      ["sh", "-c", real + fake],
                                      "dangerouslyDisableSandbox": True})
        read_for(4)
        shown = seen[banner_end:]
        os.write(mfd, b"n\n")
        c.answer(rid)
        read_for(1)
        print("raw_esc", b"\x1b" in shown)
        print("real_shown", real.encode() in shown)
        print("escaped_shown", b"\\r\\e[2K[r7]" in shown)
        print("marker", os.path.exists(marker))
        c.call("sandbox.destroy", {"sessionId": "forge"})
    finally:
        p.terminate()
        p.wait()


def ids(sock):
    """Two approval requests' ids, as an approver sees them."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                    "helpers"))
    from airlockd_rpc import Client
    c = Client(sock)
    ap = Client(sock)
    ap.call("approvals.subscribe", {})
    c.call("sandbox.launch", {"spec": {"sessionId": "ids", "bindMounts":
                                       [{"hostPath": "/tmp"}]}})
    got = []
    for _ in range(2):
        rid = c.send("sandbox.exec", {"sessionId": "ids", "argv": ["true"],
                                      "dangerouslyDisableSandbox": True})
        m = ap.note(lambda m: m.get("method") == "approval.request", 10)
        got.append(m["params"]["requestId"])
        ap.call("approvals.answer", {"requestId": got[-1],
                                     "decision": "deny", "scope": "once"})
        c.answer(rid)
    print(" ".join(got))


def term(sock, marker, backend):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    p = {"cwd": os.path.dirname(marker), "cols": 80, "rows": 24}
    if backend != "omit":
        p["backend"] = backend
    r = rpc(s, 1, "terminal.open", p)
    if "error" in r:
        print("refused", r["error"].get("message"))
        return
    res = r.get("result", {})
    tid = res.get("terminalId")
    cmd = "echo ${AIRLOCK_SANDBOX:-host} > %s.label; touch %s\n" % (
        marker, marker)
    rpc(s, 2, "terminal.input", {"terminalId": tid, "base64":
                                 base64.b64encode(cmd.encode()).decode()})
    time.sleep(2)
    print("opened", res.get("backend"))


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[0] == "serve":
        serve(a[1], a[2:])
    elif a[0] == "probe":
        probe(a[1], a[2:])
    elif a[0] == "own":
        own(a[1])
    elif a[0] == "backlog":
        backlog(a[1])
    elif a[0] == "forged":
        forged(a[1], a[2], a[3])
    elif a[0] == "ids":
        ids(a[1])
    elif a[0] == "term":
        term(a[1], a[2], a[3])
