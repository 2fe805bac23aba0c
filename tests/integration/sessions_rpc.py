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


def run_exec(c, sid, timeout=20, **kw):
    """Start an exec; its reply, events (to its exit) and exit event."""
    r = c.call("sandbox.exec", dict({"sessionId": sid}, **kw))
    if "error" in r:
        return r, [], None
    xid = r["result"]["execId"]
    evs = []
    end = time.time() + timeout
    while time.time() < end:
        m = c.note(lambda m: m.get("method") == "sandbox.event" and
                   m["params"].get("execId") == xid, end - time.time())
        if m is None:
            break
        evs.append(m)
        if m["params"]["type"] == "exit":
            return r, evs, m["params"]
    return r, evs, None


def exec_ids():
    c = Client(SOCK)
    launch(c, "xid")
    loop = "for i in 1 2 3 4 5; do echo %s$i; sleep 0.1; done"
    a = c.call("sandbox.exec", {"sessionId": "xid", "argv":
                                ["sh", "-c", loop % "A"], "output": "text"})
    b = c.call("sandbox.exec", {"sessionId": "xid", "argv":
                                ["sh", "-c", loop % "B"], "output": "text"})
    xa, xb = a["result"]["execId"], b["result"]["execId"]
    assert xa != xb, (a, b)
    evs, done = [], set()
    end = time.time() + 20
    while len(done) < 2 and time.time() < end:
        m = c.note(lambda m: m.get("method") == "sandbox.event", 5)
        evs.append(m)
        e = m["params"]
        if e["type"] in ("stdout", "stderr", "exit"):
            assert "execId" in e, e
        if e["type"] == "exit":
            done.add(e["execId"])
    assert out_of(evs, "xid", xa) == b"A1\nA2\nA3\nA4\nA5\n", evs
    assert out_of(evs, "xid", xb) == b"B1\nB2\nB3\nB4\nB5\n", evs
    ex = [m["params"] for m in evs if m["params"]["type"] == "exit"][0]
    for k in ("sandboxed", "sandboxEnabled", "dangerouslyDisableSandbox",
              "backend", "violations"):
        assert k in ex, (k, ex)
    assert ex["sandboxed"] is True and ex["backend"] == "native" and \
        ex["dangerouslyDisableSandbox"] is False, ex
    c.call("sandbox.destroy", {"sessionId": "xid"})


def command_policy():
    c = Client(SOCK)
    launch(c, "cmd")
    marker = os.path.join(WS, "sudo-ran")
    r, evs, ex = run_exec(c, "cmd", command="echo hi | tr a-z A-Z",
                          output="text")
    assert ex is not None and out_of(evs) == b"HI\n", (r, evs)
    r = c.call("sandbox.exec", {"sessionId": "cmd",
                                "command": "sudo id; touch " + marker})
    assert r.get("error", {}).get("code") == -32020 and \
        "hard-deny:privilege-escalation" in r["error"]["message"], r
    # In chat mode git push asks; no approver is connected: deny.
    r = c.call("sandbox.exec", {"sessionId": "cmd",
                                "command": "git push origin main"})
    assert r.get("error", {}).get("code") == -32020 and \
        "ask:git-push" in r["error"]["message"] and \
        "no approver" in r["error"]["message"], r
    v = c.note(is_event("cmd", "violation"), 5)
    assert v is not None, "no violation event"
    time.sleep(0.5)
    assert not os.path.exists(marker), "the refused command ran"
    c.call("sandbox.destroy", {"sessionId": "cmd"})


def pty_input_resize():
    c = Client(SOCK)
    launch(c, "pty")
    r = c.call("sandbox.exec", {"sessionId": "pty", "argv": ["sh", "-c",
               "stty size; read x; echo got:$x; read y; stty size"],
               "pty": {"cols": 100, "rows": 30}, "output": "text"})
    assert r["result"]["tty"] is True, r
    xid = r["result"]["execId"]
    time.sleep(0.5)
    r = c.call("sandbox.input", {"sessionId": "pty", "execId": xid,
               "base64": base64.b64encode(b"hello\n").decode()})
    assert r.get("result") == {}, r
    time.sleep(0.3)
    r = c.call("sandbox.resize", {"sessionId": "pty", "execId": xid,
                                  "cols": 120, "rows": 40})
    assert "result" in r, r
    c.call("sandbox.input", {"sessionId": "pty", "execId": xid,
           "base64": base64.b64encode(b"\n").decode()})
    evs = []
    while True:
        m = c.note(lambda m: m.get("method") == "sandbox.event" and
                   m["params"].get("execId") == xid, 10)
        assert m is not None, evs
        evs.append(m)
        if m["params"]["type"] == "exit":
            break
    out = out_of(evs, "pty", xid).replace(b"\r", b"")
    assert b"30 100" in out and b"got:hello" in out and \
        b"40 120" in out, out
    r = c.call("sandbox.input", {"sessionId": "pty", "execId": xid,
                                 "base64": "aGk="})
    assert "error" in r, r
    c.call("sandbox.destroy", {"sessionId": "pty"})


def stdin_eof():
    c = Client(SOCK)
    launch(c, "cat")
    r = c.call("sandbox.exec", {"sessionId": "cat", "argv": ["cat"],
                                "stdin": True, "output": "text"})
    xid = r["result"]["execId"]
    for chunk in (b"abc", b"def\n"):
        r = c.call("sandbox.input", {"sessionId": "cat", "execId": xid,
                   "base64": base64.b64encode(chunk).decode()})
        assert r.get("result") == {}, r
    r = c.call("sandbox.input", {"sessionId": "cat", "execId": xid,
                                 "base64": "!!", "eof": True})
    assert r.get("error", {}).get("code") == -32602, r
    r = c.call("sandbox.input", {"sessionId": "cat", "execId": xid,
                                 "eof": True})
    assert r.get("result") == {}, r
    evs = []
    while True:
        m = c.note(lambda m: m.get("method") == "sandbox.event" and
                   m["params"].get("execId") == xid, 10)
        assert m is not None, ("cat did not end at eof", evs)
        evs.append(m)
        if m["params"]["type"] == "exit":
            break
    assert out_of(evs, "cat", xid) == b"abcdef\n", evs
    assert evs[-1]["params"]["exitCode"] == 0, evs[-1]
    c.call("sandbox.destroy", {"sessionId": "cat"})


def signal_kill():
    c = Client(SOCK)
    launch(c, "sig")
    r = c.call("sandbox.exec", {"sessionId": "sig", "argv":
               ["sh", "-c", "trap '' TERM; sleep 30"]})
    xid = r["result"]["execId"]
    time.sleep(0.3)
    r = c.call("sandbox.signal", {"sessionId": "sig", "execId": xid,
                                  "signal": "KILL"})
    assert r.get("result") == {}, r
    e = c.note(is_event("sig", "exit", xid), 10)
    assert e is not None and e["params"].get("signal") == 9, e
    r = c.call("sandbox.signal", {"sessionId": "sig", "execId": xid,
                                  "signal": "NOPE"})
    assert "error" in r, r
    c.call("sandbox.destroy", {"sessionId": "sig"})


def exec_timeout():
    c = Client(SOCK)
    launch(c, "eto")
    r = c.call("sandbox.exec", {"sessionId": "eto", "argv": ["sleep", "30"],
                                "timeoutSec": 1})
    xid = r["result"]["execId"]
    k = c.note(is_event("eto", "killed"), 10)
    assert k is not None and k["params"]["reason"] == "timeout" and \
        k["params"]["execId"] == xid, k
    assert c.note(is_event("eto", "exit", xid), 10) is not None
    st = c.call("sandbox.status", {"sessionId": "eto"})["result"]
    assert st["state"] == "warm", st
    r, evs, ex = run_exec(c, "eto", argv=["echo", "still"], output="text")
    assert ex is not None and out_of(evs) == b"still\n", (r, evs)
    c.call("sandbox.destroy", {"sessionId": "eto"})


def override_refused():
    c = Client(SOCK)
    sf = os.path.join(WS, "nounsandboxed.json")
    with open(sf, "w") as f:
        f.write('{"sandbox": {"allowUnsandboxedCommands": false}}')
    launch(c, "ovr", settingsFile=sf)
    marker = os.path.join(WS, "override-ran")
    r = c.call("sandbox.exec", {"sessionId": "ovr", "argv":
               ["touch", marker], "dangerouslyDisableSandbox": True})
    assert r.get("error", {}).get("code") == -32020 and \
        "allowUnsandboxedCommands" in r["error"]["message"], r
    time.sleep(0.3)
    assert not os.path.exists(marker)
    c.call("sandbox.destroy", {"sessionId": "ovr"})


def spec_fields_refused():
    # A malformed claudeLogin or maskPassed is refused, naming the
    # field, before anything is read or launched.
    c = Client(SOCK)
    bad = [
        ({"claudeLogin": {"file": "rel/x", "host": "h"}}, "claudeLogin.file"),
        ({"claudeLogin": {"file": "/x", "host": "Bad:443"}},
         "claudeLogin.host"),
        ({"claudeLogin": {"file": "/x"}}, "claudeLogin: expected"),
        ({"maskPassed": {}}, "maskPassed: expected an array"),
        ({"maskPassed": [{"name": "A B", "host": "h", "header": "x"}]},
         "maskPassed[0]"),
        ({"maskPassed": [{"name": "K", "host": "h", "header": "X:Y"}]},
         "maskPassed[0]"),
        ({"maskPassed": [{"name": "K", "host": "h", "header": "x",
                          "value": "v"}]}, "maskPassed[0]"),
    ]
    for i, (extra, want) in enumerate(bad):
        sp = spec("bad%d" % i)
        sp.update(extra)
        r = c.call("sandbox.launch", {"spec": sp})
        assert want in r.get("error", {}).get("message", ""), (extra, r)


def rss_kib(pid):
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def flood():
    """1,000+ idle connections, 10,000 requests to closed sockets and a
    client that never reads: airlockd keeps serving the others."""
    import resource
    import socket
    pid = sys.argv[4]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    app = Client(SOCK)
    assert "result" in app.call("host.status")
    launch(app, "fl")
    base = rss_kib(pid)
    idle = []
    for _ in range(1100):
        s = socket.socket(socket.AF_UNIX)
        s.connect(SOCK)
        idle.append(s)
    req = b'{"jsonrpc":"2.0","id":1,"method":"host.status"}\n'
    t0 = time.time()
    for i in range(10000):
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(SOCK)
            s.sendall(req)
        except OSError:
            pass
        s.close()
    # One that sends and never reads: its answers stop at a bound.
    hog = socket.socket(socket.AF_UNIX)
    hog.connect(SOCK)
    hog.setblocking(False)
    sent = 0
    try:
        for _ in range(200000):
            hog.send(req)
            sent += 1
    except BlockingIOError:
        pass
    # The app is served through it all, and a newcomer too.
    r = app.call("host.status", timeout=30)
    assert "result" in r, r
    r, evs, ex = run_exec(app, "fl", argv=["echo", "served"],
                          output="text")
    assert ex is not None and out_of(evs) == b"served\n", (r, evs)
    new = Client(SOCK, tries=100)
    assert "result" in new.call("host.status", timeout=30)
    grown = rss_kib(pid) - base
    assert grown < 96 * 1024, ("airlockd grew by %d KiB" % grown)
    app.call("sandbox.destroy", {"sessionId": "fl"})
    print("flood: 1100 idle, 10000 closed in %.1fs, hog sent %d, "
          "airlockd +%d KiB" % (time.time() - t0, sent, grown))


def ids_echoed():
    import socket
    s = socket.socket(socket.AF_UNIX)
    s.connect(SOCK)
    f = s.makefile("rwb")
    for raw in (b'1e999999', b'-0', b'1.50', b'123456789012345678901234567890',
                b'"x\\u00e9"', b'true', b'null', b'{"a":[1,{"b":2.0e1}]}',
                b'[]', b'"1e999999"'):
        f.write(b'{"jsonrpc":"2.0","id":' + raw +
                b',"method":"host.status"}\n')
        f.flush()
        line = f.readline()
        import json
        m = json.loads(line)    # valid JSON
        if raw[:1] in b"-0123456789":
            assert b'"id":' + raw + b',' in line, (raw, line[:80])
        else:
            assert m["id"] == json.loads(raw), (raw, line[:80])


def approver():
    """approver PLAN: subscribe, then answer the i-th request as PLAN's
    i-th word says (allow, deny, late-deny: deny 1.5 s later, expecting
    an error; -: no answer), printing what happened; exit after them."""
    plan = sys.argv[4].split(",")
    c = Client(SOCK)
    r = c.call("approvals.subscribe", {})
    assert r.get("result", {}).get("subscribed") is True, r
    print("subscribed", flush=True)
    for i, what in enumerate(plan):
        m = c.note(lambda m: m.get("method") == "approval.request", 120)
        assert m is not None, "no request %d" % i
        p = m["params"]
        for k in ("requestId", "sessionId", "action", "target", "classes",
                  "rule", "reason", "deadline"):
            assert k in p, (k, p)
        print("request", i, p["action"], p["target"], p["rule"],
              flush=True)
        if what == "-":
            continue
        if what == "late-deny":
            time.sleep(1.5)
        r = c.call("approvals.answer", {"requestId": p["requestId"],
                   "decision": "deny" if "deny" in what else "allow",
                   "scope": "once"})
        print("answer", i, what, "error" if "error" in r else "ok",
              flush=True)
    r = c.call("approvals.answer", {"requestId": "r999999",
               "decision": "allow", "scope": "once"})
    print("unknown", "error" if "error" in r else "ok", flush=True)
    time.sleep(6)       # connected past the last request's deadline


def command_ask():
    """A command exec with an ask verdict goes to the approver: allowed
    once it runs; "session" scope allows the next without asking; a
    requester that goes away mid-approval cancels it."""
    ap = Client(SOCK)
    assert ap.call("approvals.subscribe", {})["result"]["subscribed"]
    c = Client(SOCK)
    launch(c, "ask")
    line = "git push --dry-run /nonexistent 2>/dev/null; echo after-push"
    rid = c.send("sandbox.exec", {"sessionId": "ask", "command": line,
                                  "output": "text"})
    m = ap.note(lambda m: m.get("method") == "approval.request", 10)
    p = m["params"]
    assert p["sessionId"] == "ask" and p["action"] == "command" and \
        p["target"] == line and p["rule"] == "ask:git-push", p
    r = ap.call("approvals.answer", {"requestId": p["requestId"],
                "decision": "allow", "scope": "session"})
    assert r.get("result") == {}, r
    r = c.answer(rid)
    assert "result" in r, r
    xid = r["result"]["execId"]
    e = c.note(is_event("ask", "exit", xid), 10)
    assert e is not None, "the approved command did not run"
    # scope "session": the same rule is not asked again in this session.
    r, evs, ex = run_exec(c, "ask", command=line, output="text")
    assert ex is not None and b"after-push" in out_of(evs), (r, evs)
    assert ap.note(lambda m: m.get("method") == "approval.request",
                   1) is None
    # A requester that disconnects mid-approval.
    d = Client(SOCK)
    launch(d, "gone")
    d.send("sandbox.exec", {"sessionId": "gone", "command":
                            "git push /nonexistent"})
    m = ap.note(lambda m: m.get("method") == "approval.request", 10)
    d.close()
    p2 = m["params"]
    res = ap.note(lambda m: m.get("method") == "approval.resolved" and
                  m["params"]["requestId"] == p2["requestId"], 10)
    assert res is not None and res["params"]["decision"] == "cancelled", \
        res
    r = ap.call("approvals.answer", {"requestId": p2["requestId"],
                "decision": "allow", "scope": "once"})
    assert "error" in r, r
    assert "result" in c.call("host.status")
    c.call("sandbox.destroy", {"sessionId": "ask"})


def scope_narrow():
    """A session-scope allow does not widen (hostile review): an
    unsandboxed command is shown whole to the approver and allowed again
    only as that same command; a command line that hides a second kind
    of ask behind an allowed rule is asked again."""
    ap = Client(SOCK)
    assert ap.call("approvals.subscribe", {})["result"]["subscribed"]
    c = Client(SOCK)
    launch(c, "narrow")
    req = lambda m: m.get("method") == "approval.request"  # noqa: E731
    m1 = "/tmp/airlock-narrow1-%d" % os.getpid()
    m2 = "/tmp/airlock-narrow2-%d" % os.getpid()
    rid = c.send("sandbox.exec", {"sessionId": "narrow", "argv":
                 ["sh", "-c", "touch " + m1],
                 "dangerouslyDisableSandbox": True})
    m = ap.note(req, 10)
    assert m is not None and m1 in m["params"]["target"], \
        "the approver is not shown what runs on the host: %r" % (m,)
    ap.call("approvals.answer", {"requestId": m["params"]["requestId"],
            "decision": "allow", "scope": "session"})
    r = c.answer(rid)
    assert "result" in r, r
    assert c.note(is_event("narrow", "exit", r["result"]["execId"]), 10)
    # Another host command: asked again (denied here), never run.
    rid = c.send("sandbox.exec", {"sessionId": "narrow", "argv":
                 ["sh", "-c", "touch " + m2],
                 "dangerouslyDisableSandbox": True})
    m = ap.note(req, 5)
    if m is not None:
        ap.call("approvals.answer", {"requestId": m["params"]["requestId"],
                "decision": "deny", "scope": "once"})
    r = c.answer(rid)
    ran = os.path.exists(m2)
    for f in (m1, m2):
        if os.path.exists(f):
            os.unlink(f)
    assert m is not None and "error" in r and not ran, \
        "another host command ran on a standing allowance: %r" % (r,)
    # A line whose first ask is allowed for the session, then another.
    line = "git push --dry-run /nonexistent 2>/dev/null; echo one"
    rid = c.send("sandbox.exec", {"sessionId": "narrow", "command": line})
    m = ap.note(req, 10)
    assert m is not None and m["params"]["rule"] == "ask:git-push", m
    ap.call("approvals.answer", {"requestId": m["params"]["requestId"],
            "decision": "allow", "scope": "session"})
    r = c.answer(rid)
    assert "result" in r, r
    assert c.note(is_event("narrow", "exit", r["result"]["execId"]), 10)
    hidden = "git push --dry-run /nonexistent 2>/dev/null; " \
        "echo echo hidden | sh"
    rid = c.send("sandbox.exec", {"sessionId": "narrow", "command": hidden})
    m = ap.note(req, 5)
    if m is not None:
        ap.call("approvals.answer", {"requestId": m["params"]["requestId"],
                "decision": "deny", "scope": "once"})
    r = c.answer(rid)
    assert m is not None and "error" in r, \
        "a second kind of ask rode on the allowance of the first: %r" % (r,)
    # The same kind alone is still allowed without asking.
    r, evs, ex = run_exec(c, "narrow", command=line, output="text")
    assert ex is not None and b"one" in out_of(evs), (r, evs)
    assert ap.note(req, 1) is None
    c.call("sandbox.destroy", {"sessionId": "narrow"})


def override_fds():
    """An approved unsandboxed command gets only its three streams:
    none of airlockd's own descriptors (sessions.sh starts airlockd
    with an extra one open, as an app's helper may be)."""
    ap = Client(SOCK)
    assert ap.call("approvals.subscribe", {})["result"]["subscribed"]
    c = Client(SOCK)
    launch(c, "ovfd")
    rid = c.send("sandbox.exec", {"sessionId": "ovfd", "argv":
                 ["ls", "/proc/self/fd"], "output": "text",
                 "dangerouslyDisableSandbox": True})
    m = ap.note(lambda m: m.get("method") == "approval.request", 10)
    ap.call("approvals.answer", {"requestId": m["params"]["requestId"],
            "decision": "allow", "scope": "once"})
    r = c.answer(rid)
    assert "result" in r, r
    xid = r["result"]["execId"]
    evs = []
    while True:
        e = c.note(lambda m: m.get("method") == "sandbox.event" and
                   m["params"].get("execId") == xid, 10)
        assert e is not None, "no exit"
        evs.append(e)
        if e["params"]["type"] == "exit":
            break
    fds = set(out_of(evs).decode().split())
    # 3: ls's own directory of /proc/self/fd.
    assert fds <= {"0", "1", "2", "3"}, "descriptors leaked: %r" % (fds,)
    c.call("sandbox.destroy", {"sessionId": "ovfd"})


def approve_cli():
    """`airlock approve` on a terminal: scripted y, then n."""
    import pty
    import subprocess
    mfd, sfd = pty.openpty()
    p = subprocess.Popen([sys.argv[4], "approve", "--socket", SOCK],
                         stdin=sfd, stdout=sfd, stderr=sfd,
                         start_new_session=True)
    os.close(sfd)
    seen = b""

    def until(word, timeout=15):
        nonlocal seen
        import select
        end = time.time() + timeout
        while word not in seen and time.time() < end:
            if select.select([mfd], [], [], 0.2)[0]:
                try:
                    seen += os.read(mfd, 4096)
                except OSError:
                    break
        assert word in seen, seen
        got, seen = seen, b""
        return got

    try:
        until(b"approving for airlockd")
        c = Client(SOCK)
        launch(c, "cli")
        line = "git push --dry-run /nonexistent 2>/dev/null; echo ran"
        rid = c.send("sandbox.exec", {"sessionId": "cli", "command": line,
                                      "output": "text"})
        got = until(b"[y/n/a] ")
        assert b"session cli: command git push" in got and \
            b"ask:git-push" in got, got
        os.write(mfd, b"y\n")
        r = c.answer(rid)
        assert "result" in r, r
        assert c.note(is_event("cli", "exit", r["result"]["execId"]),
                      10) is not None
        rid = c.send("sandbox.exec", {"sessionId": "cli", "command": line})
        until(b"[y/n/a] ")
        os.write(mfd, b"n\n")
        r = c.answer(rid)
        assert r.get("error", {}).get("code") == -32020, r
        c.call("sandbox.destroy", {"sessionId": "cli"})
    finally:
        p.terminate()
        p.wait()


def override_approved():
    """dangerouslyDisableSandbox: no approver, denied; approved (reason
    sandboxOverride), it runs on the host and its exit event says so."""
    c = Client(SOCK)
    launch(c, "ovh")
    mark = "/tmp/airlock-override-%d" % os.getpid()
    argv = ["sh", "-c", "touch " + mark]
    r = c.call("sandbox.exec", {"sessionId": "ovh", "argv": argv,
                                "dangerouslyDisableSandbox": True})
    assert r.get("error", {}).get("code") == -32020 and \
        "no approver" in r["error"]["message"], r
    assert not os.path.exists(mark)
    ap = Client(SOCK)
    ap.call("approvals.subscribe", {})
    rid = c.send("sandbox.exec", {"sessionId": "ovh", "argv": argv,
                                  "dangerouslyDisableSandbox": True})
    m = ap.note(lambda m: m.get("method") == "approval.request", 10)
    assert m["params"]["reason"] == "sandboxOverride", m
    ap.call("approvals.answer", {"requestId": m["params"]["requestId"],
            "decision": "allow", "scope": "once"})
    r = c.answer(rid)
    assert r["result"]["sandboxed"] is False, r
    e = c.note(is_event("ovh", "exit", r["result"]["execId"]), 10)
    p = e["params"]
    assert p["sandboxed"] is False and p["dangerouslyDisableSandbox"] \
        is True and p["backend"] == "none" and p["exitCode"] == 0, p
    # The sandbox has its own /tmp: only the host run makes it here.
    assert os.path.exists(mark), "the override did not run on the host"
    os.unlink(mark)
    c.call("sandbox.destroy", {"sessionId": "ovh"})


def lazy_build():
    """R-R1: a lazy session is built by its first commands, once for all
    of them; a failed build reports its reason to each and clears."""
    c = Client(SOCK)
    r = c.call("sandbox.launch", {"spec": spec("lz"), "lazy": True})
    assert r["result"]["state"] == "created" and r["result"]["pid"] is \
        None, r
    ids = [c.send("sandbox.exec", {"sessionId": "lz", "argv":
                                   ["echo", "n%d" % i], "output": "text"})
           for i in range(3)]
    xids = []
    for rid in ids:
        r = c.answer(rid)
        assert "result" in r, r
        xids.append(r["result"]["execId"])
    for x in xids:
        assert c.note(is_event("lz", "exit", x), 10) is not None
    readies = [m for m in c.events(0.5)
               if is_event("lz", "ready")(m)]
    assert len(readies) == 1, readies
    st = c.call("sandbox.status", {"sessionId": "lz"})["result"]
    assert st["state"] == "warm" and isinstance(st["pid"], int), st
    c.call("sandbox.destroy", {"sessionId": "lz"})
    later = os.path.join(WS, "later")
    s2 = {"sessionId": "lz2", "bindMounts": [{"hostPath": later}],
          "guestWorkdir": later}
    r = c.call("sandbox.launch", {"spec": s2, "lazy": True})
    assert r["result"]["state"] == "created", r
    ids = [c.send("sandbox.exec", {"sessionId": "lz2", "argv": ["true"]})
           for i in range(2)]
    errs = [c.answer(rid) for rid in ids]
    assert all("error" in e for e in errs), errs
    assert errs[0]["error"]["message"] == errs[1]["error"]["message"], errs
    st = c.call("sandbox.status", {"sessionId": "lz2"})["result"]
    assert st["state"] == "created" and st.get("error"), st
    os.mkdir(later)
    r, evs, ex = run_exec(c, "lz2", argv=["echo", "built"], output="text")
    assert ex is not None and out_of(evs) == b"built\n", (r, evs)
    c.call("sandbox.destroy", {"sessionId": "lz2"})
    print("lazy: failed build said: %s" % errs[0]["error"]["message"])


def fs_read(c, name="fsfile.txt", sid="fsa"):
    return c.call("fs.read", {"sessionId": sid,
                              "path": os.path.join(WS, name)})


def fs_attached():
    """The file tools follow sandbox.exec's rule: the connection that
    launched the session or attached it last, of its uid."""
    with open(os.path.join(WS, "fsfile.txt"), "w") as f:
        f.write("fs-attached\n")
    a = Client(SOCK)
    launch(a, "fsa", detached=True)
    r = fs_read(a)
    assert "fs-attached" in r["result"]["content"], ("launcher's", r)
    b = Client(SOCK)
    for m, p in (("fs.read", {}), ("sandbox.exec", {"argv": ["true"]})):
        r = b.call(m, dict({"sessionId": "fsa"}, **p))
        assert r.get("error", {}).get("code") == -32001, \
            ("%s before attach" % m, r)
    r = b.call("sandbox.attach", {"sessionId": "fsa"})
    assert "result" in r, r
    r = fs_read(b)
    assert "fs-attached" in r.get("result", {}).get("content", ""), \
        ("fs.read after attach", r)
    r = b.call("fs.write", {"sessionId": "fsa", "path": os.path.join(
        WS, "fsfile2.txt"), "content": "by-b\n"})
    assert "result" in r, ("fs.write after attach", r)
    # The connection it was taken from: as sandbox.exec, refused.
    for m, p in (("fs.read", {"path": os.path.join(WS, "fsfile.txt")}),
                 ("sandbox.exec", {"argv": ["true"]})):
        r = a.call(m, dict({"sessionId": "fsa"}, **p))
        assert r.get("error", {}).get("code") == -32001, \
            ("%s by the connection it was taken from" % m, r)
    # The same, once that connection has closed and another attaches.
    b.close()
    time.sleep(0.5)
    d = Client(SOCK)
    d.call("sandbox.attach", {"sessionId": "fsa"})
    r = fs_read(d, "fsfile2.txt")
    assert "by-b" in r.get("result", {}).get("content", ""), r
    d.call("sandbox.destroy", {"sessionId": "fsa"})
    # Left detached for other_uid_refused to try.
    launch(d, "fso", detached=True)


def answers(c, ids, timeout=60):
    """The answers to requests ids, in whatever order they come."""
    got = {}
    end = time.time() + timeout
    while len(got) < len(ids):
        m = c.read(max(0, end - time.time()))
        if m is None:
            raise TimeoutError("no answer to %r" % (set(ids) - set(got)))
        if "method" in m and "id" not in m:
            c.notes.append(m)
        elif m.get("id") in ids:
            got[m["id"]] = m
    return [got[i] for i in ids]


def fs_lazy():
    """R-R1 for the file tools: a lazy session's first fs.* calls join
    the one build with its first commands; a failed build reports its
    reason to each."""
    with open(os.path.join(WS, "fsfile.txt"), "w") as f:
        f.write("fs-lazy\n")
    c = Client(SOCK)
    r = c.call("sandbox.launch", {"spec": spec("fl"), "lazy": True})
    assert r["result"]["state"] == "created", r
    ids = [c.send("fs.read", {"sessionId": "fl", "path":
                              os.path.join(WS, "fsfile.txt")}),
           c.send("sandbox.exec", {"sessionId": "fl", "argv": ["true"]}),
           c.send("fs.find", {"sessionId": "fl", "glob": "fsfile*"})]
    rs = answers(c, ids)
    assert all("result" in r for r in rs), rs
    assert "fs-lazy" in rs[0]["result"]["content"], rs
    readies = [m for m in c.events(0.5) if is_event("fl", "ready")(m)]
    assert len(readies) == 1, readies
    c.call("sandbox.destroy", {"sessionId": "fl"})
    later = os.path.join(WS, "fslater")
    s2 = {"sessionId": "fl2", "bindMounts": [{"hostPath": later}],
          "guestWorkdir": later}
    r = c.call("sandbox.launch", {"spec": s2, "lazy": True})
    assert r["result"]["state"] == "created", r
    ids = [c.send("fs.read", {"sessionId": "fl2", "path":
                              os.path.join(later, "x")}) for i in range(2)]
    errs = answers(c, ids)
    assert all("error" in e for e in errs), errs
    m0 = errs[0]["error"]["message"]
    assert m0 == errs[1]["error"]["message"] and "fslater" in m0, errs
    st = c.call("sandbox.status", {"sessionId": "fl2"})["result"]
    assert st["state"] == "created" and st.get("error"), st
    os.mkdir(later)
    with open(os.path.join(later, "x"), "w") as f:
        f.write("built-now\n")
    r = c.call("fs.read", {"sessionId": "fl2", "path":
                           os.path.join(later, "x")})
    assert "built-now" in r.get("result", {}).get("content", ""), r
    c.call("sandbox.destroy", {"sessionId": "fl2"})
    # A launch whose build failed at once: fs.* answers, airlockd lives.
    s3 = {"sessionId": "fl3", "bindMounts": [{"hostPath": later + "-no"}],
          "guestWorkdir": later + "-no"}
    r = c.call("sandbox.launch", {"spec": s3})
    assert "error" in r, r
    r = c.call("fs.read", {"sessionId": "fl3", "path": later + "-no/x"})
    assert "error" in r and r["error"]["code"] != -32603, r
    assert "result" in c.call("sandbox.list", {}), "airlockd went away"
    print("fs lazy: failed build said: %s" % m0)


def marked(mark):
    """Host pids whose command line holds mark (zombies have none)."""
    pids = []
    for p in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                if mark in f.read():
                    pids.append(p)
        except (OSError, ValueError):
            pass
    return pids


def destroy_prompt():
    """sandbox.destroy answers once nothing of the sandbox runs (its
    launcher's exit is waited for), promptly, never by the 5 s bound."""
    c = Client(SOCK)
    times = []
    for i in range(5):
        sid = "dp%d" % i
        h = launch(c, sid)
        mark = b"4242.%d" % i
        r = c.call("sandbox.exec", {"sessionId": sid, "argv": [
            "sh", "-c", "sleep %s & sleep %s & wait" % (mark.decode(),
                                                        mark.decode())]})
        assert "result" in r, r
        end = time.time() + 10
        while len(marked(mark)) < 2 and time.time() < end:
            time.sleep(0.05)
        assert len(marked(mark)) >= 2, "the sleeps did not start"
        t = time.monotonic()
        r = c.call("sandbox.destroy", {"sessionId": sid})
        times.append(time.monotonic() - t)
        assert r.get("result", {}).get("state") == "destroyed", r
        left = marked(mark)
        assert not left, ("processes left after destroy", left)
        assert not os.path.exists("/proc/%d" % h["pid"]), \
            ("init still there, even as a zombie", h["pid"])
    assert max(times) < 2.0, times
    with open(os.path.join(os.path.dirname(SOCK), "d.err"), "rb") as f:
        assert b"did not end within" not in f.read()
    print("destroy answered in %s ms" % sorted(round(x * 1000, 1)
                                              for x in times))


def destroy_stuck():
    """A launcher that does not end (stopped here) holds the destroy for
    the bound, 5 s, then is killed and reported: fail closed."""
    import signal
    c = Client(SOCK)
    h = launch(c, "dstuck")
    with open("/proc/%d/stat" % h["pid"]) as f:
        launcher = int(f.read().rsplit(")", 1)[1].split()[1])
    os.kill(launcher, signal.SIGSTOP)
    t = time.monotonic()
    r = c.call("sandbox.destroy", {"sessionId": "dstuck"})
    t = time.monotonic() - t
    assert r.get("result", {}).get("state") == "destroyed", r
    assert 4.5 < t < 15, t
    assert not os.path.exists("/proc/%d" % launcher), "launcher left"
    with open(os.path.join(os.path.dirname(SOCK), "d.err"), "rb") as f:
        assert (b"launcher %d: the sandbox did not end within" % launcher) \
            in f.read()
    assert "result" in c.call("sandbox.list", {})


def other_uid_refused():
    c = Client(SOCK)
    try:
        r = c.call("sandbox.list", {}, timeout=5)
    except (EOFError, ConnectionResetError, BrokenPipeError):
        pass
    else:
        raise AssertionError("another uid was answered: %r" % (r,))
    # Nor a file tool on, or an attach of, the user's detached session.
    for m, p in (("fs.read", {"sessionId": "fso", "path": WS}),
                 ("sandbox.attach", {"sessionId": "fso"})):
        c = Client(SOCK)
        try:
            r = c.call(m, p, timeout=5)
        except (EOFError, ConnectionResetError, BrokenPipeError):
            continue
        raise AssertionError("another uid was answered: %r" % (r,))


sys.exit(globals()[SCEN]() or 0)
