# SPDX-License-Identifier: ISC
#
# The session-API parts of tests/integration/soak.sh, over airlockd's
# socket as the test user:
#   python3 soak_rpc.py SOCKET WORKSPACE MARKDIR SCENARIO [N]
# Where airlockd is to be measured (its fd count needs root: it is not
# dumpable), the scenario writes MARKDIR/at.K and waits for
# MARKDIR/ok.K, which soak.sh's sampler writes once it has measured.
#   execs N   N execs of `true`, one after another, in one warm session;
#             a sample after every 100
#   warm N    N warm sessions at once, each having run a command: a
#             sample before ("at.0") and with all N up ("at.1")
#   bigline   a 100 MB request line without its newline: airlockd
#             closes the connection (its line cap), and serves others
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "helpers"))
from airlockd_rpc import Client  # noqa: E402

SOCK, WS, MK, SCEN = sys.argv[1:5]
N = int(sys.argv[5]) if len(sys.argv) > 5 else 0


def sample(k):
    open(os.path.join(MK, "at.%s" % k), "w").close()
    end = time.time() + 60
    while not os.path.exists(os.path.join(MK, "ok.%s" % k)):
        assert time.time() < end, "no sampler"
        time.sleep(0.01)


def spec(sid):
    return {"spec": {"sessionId": sid, "bindMounts": [{"hostPath": WS}],
                     "guestWorkdir": WS}}


def exit_of(c, sid, xid, timeout=30):
    e = c.note(lambda m: m.get("method") == "sandbox.event" and
               m["params"].get("sessionId") == sid and
               m["params"].get("type") == "exit" and
               m["params"].get("execId") == xid, timeout)
    assert e is not None, "no exit for %s/%s" % (sid, xid)
    return e["params"]


def execs():
    c = Client(SOCK)
    r = c.call("sandbox.launch", spec("soak"))
    assert "result" in r, r
    t0 = time.time()
    for i in range(1, N + 1):
        r = c.call("sandbox.exec", {"sessionId": "soak", "argv": ["true"]})
        assert "result" in r, r
        e = exit_of(c, "soak", r["result"]["execId"])
        assert e.get("exitCode") == 0, e
        c.notes = []
        if i % 100 == 0:
            sample(i)
    print("execs: %d in %.1f s" % (N, time.time() - t0))
    c.call("sandbox.destroy", {"sessionId": "soak"})


def answers(c, rids, timeout):
    """The answers to rids, in any order; notifications are kept (the
    Client's answer() drops the answers it is not waiting for)."""
    want, got = set(rids), {}
    end = time.time() + timeout
    while want - set(got):
        m = c.read(max(0.1, end - time.time()))
        assert m is not None or time.time() < end, \
            "no answer to %s" % sorted(want - set(got))
        if m is None:
            continue
        if "method" in m and "id" not in m:
            c.notes.append(m)
        elif m.get("id") in want:
            got[m["id"]] = m
    return [got[r] for r in rids]


def warm():
    c = Client(SOCK)
    sample(0)
    t0 = time.time()
    ids = [c.send("sandbox.launch", spec("w%d" % i)) for i in range(N)]
    for r in answers(c, ids, 300):
        assert "result" in r, r
    ids = [c.send("sandbox.exec", {"sessionId": "w%d" % i, "argv":
                                   ["true"]}) for i in range(N)]
    for i, r in enumerate(answers(c, ids, 120)):
        assert "result" in r, r
        exit_of(c, "w%d" % i, r["result"]["execId"], 120)
    print("warm: %d sessions up, each ran a command, in %.1f s" %
          (N, time.time() - t0))
    sample(1)
    ids = [c.send("sandbox.destroy", {"sessionId": "w%d" % i})
           for i in range(N)]
    answers(c, ids, 120)


def bigline():
    s = socket.socket(socket.AF_UNIX)
    s.connect(SOCK)
    chunk = b'{"jsonrpc":"2.0","id":7,"method":"host.status","params":"' + \
        b"x" * (1 << 20)
    sent = 0
    try:
        while sent < 100 * (1 << 20):
            s.sendall(chunk)
            sent += len(chunk)
        closed = False
    except (BrokenPipeError, ConnectionResetError):
        closed = True
    if not closed:
        s.settimeout(10)
        try:
            closed = s.recv(1 << 16) == b""
        except ConnectionResetError:
            closed = True
    assert closed, "a 100 MB line was not refused"
    c = Client(SOCK)
    assert "result" in c.call("host.status"), "not served after"
    print("bigline: closed after %d MiB of a 100 MiB line; others served" %
          (sent >> 20))


{"execs": execs, "warm": warm, "bigline": bigline}[SCEN]()
