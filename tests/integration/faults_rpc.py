# SPDX-License-Identifier: ISC
#
# Warm sessions for tests/integration/faults.sh, over airlockd's socket:
#   python3 faults_rpc.py SOCKET WORKSPACE DIR SCENARIO TAG
# A scenario launches a session, starts a long command in it (tagged TAG
# in its argv, so that faults.sh finds it), writes DIR/SCENARIO.started
# and waits for DIR/SCENARIO.killed (the fault done), then says what it
# saw on stdout; exit 0 when the scenario holds.
#   launcher  its launcher killed: the command's exit comes, the session
#             takes no more commands, a new session works
#   daemon    airlockd killed: the connection ends
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "helpers"))
from airlockd_rpc import Client  # noqa: E402

SOCK, WS, DIR, SCEN, TAG = sys.argv[1:6]


def launch(c, sid):
    r = c.call("sandbox.launch", {"spec": {
        "sessionId": sid, "bindMounts": [{"hostPath": WS}],
        "guestWorkdir": WS}})
    assert "result" in r, r


def exit_of(c, sid, xid, timeout):
    return c.note(lambda m: m.get("method") == "sandbox.event" and
                  m["params"].get("sessionId") == sid and
                  m["params"].get("type") == "exit" and
                  m["params"].get("execId") == xid, timeout)


def long_command(c, sid):
    """A command that runs until killed; its exec id once it runs."""
    r = c.call("sandbox.exec", {"sessionId": sid, "output": "text", "argv":
               ["sh", "-c", "echo up; exec sleep 1000", TAG]})
    assert "result" in r, r
    xid = r["result"]["execId"]
    up = c.note(lambda m: m.get("method") == "sandbox.event" and
                m["params"].get("type") == "stdout" and
                m["params"].get("execId") == xid, 20)
    assert up is not None, "the command never started"
    return xid


def wait_killed():
    end = time.time() + 60
    open(os.path.join(DIR, SCEN + ".started"), "w").close()
    while not os.path.exists(os.path.join(DIR, SCEN + ".killed")):
        assert time.time() < end, "never told of the fault"
        time.sleep(0.05)


def launcher():
    c = Client(SOCK)
    launch(c, "lk")
    xid = long_command(c, "lk")
    wait_killed()
    e = exit_of(c, "lk", xid, 15)
    assert e is not None, "no exit for the running command"
    print("exit event: %s" % e["params"])
    r = c.call("sandbox.exec", {"sessionId": "lk", "argv": ["true"]})
    assert "error" in r, ("the dead session took a command", r)
    print("the dead session refused a command: %s" % r["error"])
    launch(c, "lk2")
    r = c.call("sandbox.exec", {"sessionId": "lk2", "output": "text",
                                "argv": ["echo", "fresh"]})
    assert "result" in r, r
    e = exit_of(c, "lk2", r["result"]["execId"], 20)
    assert e is not None and e["params"].get("exitCode") == 0, e
    c.call("sandbox.destroy", {"sessionId": "lk2"})
    c.call("sandbox.destroy", {"sessionId": "lk"})
    print("a new session ran a command")


def daemon():
    c = Client(SOCK)
    launch(c, "dk")
    long_command(c, "dk")
    wait_killed()
    try:
        while True:
            if c.read(15) is None:
                raise AssertionError("the connection stayed open")
    except (EOFError, ConnectionResetError):
        print("the connection ended with airlockd")


{"launcher": launcher, "daemon": daemon}[SCEN]()
