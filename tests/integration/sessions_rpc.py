# SPDX-License-Identifier: ISC
#
# Scenarios of the session API (issue 15) over airlockd's real socket:
#   python3 sessions_rpc.py SOCKET WORKSPACE SCENARIO
# Exit 0 when the scenario holds; what went wrong on stderr otherwise.
import base64
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "helpers"))
from airlockd_rpc import Client  # noqa: E402

SOCK, WS, SCEN = sys.argv[1:4]


def spec(sid, **kw):
    s = {"sessionId": sid, "bindMounts": [{"hostPath": WS}],
         "guestWorkdir": WS}
    s.update(kw)
    return s


def launch(c, sid, **kw):
    r = c.call("sandbox.launch", dict({"spec": spec(sid)}, **kw))
    assert "result" in r, r
    return r["result"]


def out_of(evs, sid=None, xid=None):
    """The bytes of stdout events (of one session / exec)."""
    b = b""
    for m in evs:
        e = m["params"]
        if e["type"] != "stdout" or (sid and e["sessionId"] != sid) or \
                (xid is not None and e.get("execId") != xid):
            continue
        b += e["data"].encode() if "data" in e else \
            base64.b64decode(e["base64"])
    return b


def is_event(sid, typ, xid=None):
    def p(m):
        e = m.get("params", {})
        return m.get("method") == "sandbox.event" and \
            e.get("sessionId") == sid and e.get("type") == typ and \
            (xid is None or e.get("execId") == xid)
    return p


COUNT = ["sh", "-c", "i=0; while :; do i=$((i+1)); echo $i; sleep 0.1; done"]


def suspend_freezes():
    c = Client(SOCK)
    launch(c, "sus")
    r = c.call("sandbox.exec", {"sessionId": "sus", "argv": COUNT,
                                "output": "text"})
    assert "result" in r, r
    before = out_of(c.events(1.5), "sus")
    assert before.count(b"\n") >= 5, before
    r = c.call("sandbox.suspend", {"sessionId": "sus"})
    assert r.get("result", {}).get("state") == "suspended", r
    c.events(0.5)                       # what was in flight
    frozen = out_of(c.events(2.0), "sus")
    assert frozen == b"", ("output while suspended", frozen)
    st = c.call("sandbox.status", {"sessionId": "sus"})["result"]
    assert st["state"] == "suspended", st
    r = c.call("sandbox.exec", {"sessionId": "sus", "argv": ["true"]})
    assert "error" in r and "suspended" in r["error"]["message"], r
    r = c.call("sandbox.suspend", {"sessionId": "sus"})
    assert "error" in r, r
    r = c.call("sandbox.resume", {"sessionId": "sus"})
    assert r.get("result", {}).get("state") in ("active", "warm"), r
    after = out_of(c.events(1.5), "sus")
    nums = [int(x) for x in after.split()]
    assert len(nums) >= 5, after
    last = int(before.split()[-1])
    # Counted on from where it stopped: nothing ran while frozen.
    assert nums[0] <= last + 8, (last, nums[:3])
    c.call("sandbox.destroy", {"sessionId": "sus"})
    print("suspend: %d lines before, none frozen, on from %d after %d" %
          (before.count(b"\n"), nums[0], last))


def suspend_pauses_timeout():
    c = Client(SOCK)
    launch(c, "sto")
    r = c.call("sandbox.exec", {"sessionId": "sto", "argv":
                                ["sleep", "3"], "timeoutSec": 2})
    assert "result" in r, r
    xid = r["result"]["execId"]
    time.sleep(0.2)
    assert "result" in c.call("sandbox.suspend", {"sessionId": "sto"})
    time.sleep(3)
    assert "result" in c.call("sandbox.resume", {"sessionId": "sto"})
    e = c.note(lambda m: m.get("params", {}).get("type") in
               ("exit", "killed"), 10)
    assert e is not None and e["params"]["type"] == "exit" and \
        e["params"]["exitCode"] == 0, e
    c.call("sandbox.destroy", {"sessionId": "sto"})


def list_status():
    c = Client(SOCK)
    h = launch(c, "ls1")
    for k in ("sessionId", "state", "backend", "mode", "pid", "createdAt",
              "commands", "violations"):
        assert k in h, (k, h)
    c.call("sandbox.exec", {"sessionId": "ls1", "argv": ["true"]})
    c.note(is_event("ls1", "exit"))
    r = c.call("sandbox.list", {})["result"]
    ids = [s["sessionId"] for s in r["sessions"]]
    assert "ls1" in ids, r
    st = c.call("sandbox.status", {"sessionId": "ls1"})["result"]
    assert st["state"] == "warm" and st["commands"] == 1 and \
        st["backend"] == "native" and isinstance(st["pid"], int) and \
        st["mode"] == "chat", st
    r = c.call("sandbox.status", {"sessionId": "nope"})
    assert r["error"]["code"] == -32001, r
    c.call("sandbox.destroy", {"sessionId": "ls1"})
    r = c.call("sandbox.list", {})["result"]
    assert "ls1" not in [s["sessionId"] for s in r["sessions"]], r


def detached():
    a = Client(SOCK)
    launch(a, "det", detached=True)
    launch(a, "tied")
    a.close()
    time.sleep(1)
    b = Client(SOCK)
    ids = [s["sessionId"] for s in b.call("sandbox.list", {})["result"]
           ["sessions"]]
    assert "det" in ids and "tied" not in ids, ids
    r = b.call("sandbox.exec", {"sessionId": "det", "argv": ["true"]})
    assert r["error"]["code"] == -32001, ("exec before attach", r)
    r = b.call("sandbox.attach", {"sessionId": "det"})
    assert r["result"]["state"] == "warm" and r["result"]["detached"], r
    r = b.call("sandbox.exec", {"sessionId": "det", "argv":
                                ["echo", "after-attach"], "output": "text"})
    assert "result" in r, r
    assert b.note(is_event("det", "exit")) is not None
    b.call("sandbox.destroy", {"sessionId": "det"})


def detached_events():
    a = Client(SOCK)
    launch(a, "dev", detached=True)
    a.close()
    b = Client(SOCK)
    b.call("sandbox.attach", {"sessionId": "dev"})
    r = b.call("sandbox.exec", {"sessionId": "dev", "argv":
                                ["echo", "after-attach"], "output": "text"})
    xid = r["result"]["execId"]
    evs = []
    end = time.time() + 10
    while time.time() < end:
        m = b.note(lambda m: m.get("method") == "sandbox.event", 10)
        evs.append(m)
        if m["params"]["type"] == "exit":
            break
    assert out_of(evs, "dev", xid) == b"after-attach\n", evs
    b.call("sandbox.destroy", {"sessionId": "dev"})


def other_uid_refused():
    c = Client(SOCK)
    try:
        r = c.call("sandbox.list", {}, timeout=5)
    except (EOFError, ConnectionResetError, BrokenPipeError):
        return
    raise AssertionError("another uid was answered: %r" % (r,))


sys.exit(globals()[SCEN]() or 0)
