# SPDX-License-Identifier: ISC
#
# Drives airlockd's terminals (terminal.open/input/resize/close, the
# terminal.output and terminal.exit notifications) like the desktop app:
# JSON-RPC on a socketpair to a private `airlockd --fd`.  Prints one line
# per finding, "name value", for tests/integration/terminal.sh to check.
#
#   python3 terminal_drive.py AIRLOCKD CWD SECRETFILE [AIRLOCKD-ARGS...]
import base64
import json
import os
import select
import socket
import subprocess
import sys
import time

airlockd, cwd, secret = sys.argv[1:4]
a, b = socket.socketpair()
p = subprocess.Popen([airlockd, "--fd", str(b.fileno()), "--quiet"] +
                     sys.argv[4:], pass_fds=[b.fileno()],
                     stderr=subprocess.DEVNULL)
b.close()
buf = b""
n = 0
out = {}        # terminalId -> bytes seen
exits = {}      # terminalId -> params of terminal.exit


def pump(timeout):
    global buf
    r, _, _ = select.select([a], [], [], timeout)
    if not r:
        return []
    d = a.recv(65536)
    if not d:
        raise SystemExit("airlockd closed the connection")
    buf += d
    msgs = []
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        m = json.loads(line)
        if m.get("method") == "terminal.output":
            t = m["params"]["terminalId"]
            out[t] = out.get(t, b"") + base64.b64decode(
                m["params"]["base64"])
        elif m.get("method") == "terminal.exit":
            exits[m["params"]["terminalId"]] = m["params"]
        msgs.append(m)
    return msgs


def call(method, params):
    global n
    n += 1
    a.sendall(json.dumps({"jsonrpc": "2.0", "id": n, "method": method,
                          "params": params}).encode() + b"\n")
    end = time.time() + 30
    while time.time() < end:
        for m in pump(0.5):
            if m.get("id") == n:
                return m
    raise SystemExit("no answer to " + method)


def wait_for(t, what, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        if what in out.get(t, b"") or t in exits:
            break
        pump(0.2)
    return what in out.get(t, b"")


def typ(t, s):
    return call("terminal.input", {"terminalId": t, "base64":
                                   base64.b64encode(s.encode()).decode()})


def wait_exit(t, timeout=20):
    end = time.time() + timeout
    while t not in exits and time.time() < end:
        pump(0.2)
    return exits.get(t)


def say(name, value):
    print(name, value)
    sys.stdout.flush()


mode = os.environ.get("DRIVE", "full")
if mode == "refused":
    r = call("terminal.open", {"backend": "native", "cwd": cwd,
                               "cols": 80, "rows": 24})
    say("refused", "error" in r)
    say("refused_msg", json.dumps(r.get("error", {}).get("message", "")))
    r = call("terminal.open", {"backend": "none", "cwd": cwd, "cols": 80,
                               "rows": 24, "shell": "/bin/sh"})
    say("none_still_opens", "result" in r)
    sys.exit(0)

for backend in ("native", "none"):
    r = call("terminal.open", {"backend": backend, "cwd": cwd, "cols": 80,
                               "rows": 24, "shell": "/bin/sh"})
    if "result" not in r:
        say(backend + "_open", "error " + json.dumps(r))
        continue
    t = r["result"]["terminalId"]
    say(backend + "_open", "ok")
    typ(t, "echo $((6*7))x\r")
    say(backend + "_typing", wait_for(t, b"42x"))
    call("terminal.resize", {"terminalId": t, "cols": 101, "rows": 37})
    time.sleep(0.3)
    typ(t, "stty size\r")
    say(backend + "_resize", wait_for(t, b"37 101"))
    typ(t, "echo sb=${AIRLOCK_SANDBOX:-host}.\r")
    if not wait_for(t, b"sb=native.", 3):
        wait_for(t, b"sb=host.", 3)
    o = out.get(t, b"")
    say(backend + "_label", b"sb=native." in o and "native" or
        b"sb=host." in o and "host" or "?")
    typ(t, "echo gw=${GIT_CONFIG_GLOBAL:-none}.\r")
    if not wait_for(t, b"gw=none.", 3):
        wait_for(t, b"gw=/", 3)
    say(backend + "_no_gateway", b"gw=none." in out.get(t, b""))
    typ(t, "cat " + secret + "; echo rc=$((0+$?))\r")
    wait_for(t, b"rc=")
    wait_for(t, b"\r\n", 2)
    time.sleep(0.3)
    pump(0.2)
    o = out.get(t, b"")
    say(backend + "_secret_read", b"SECRET-KEY-BYTES" in o)
    start = time.time()
    typ(t, "sleep 30\r")
    time.sleep(1)
    typ(t, "\x03")
    typ(t, "echo after-$((1+1))\r")
    got = wait_for(t, b"after-2", 15)
    say(backend + "_ctrl_c", got and time.time() - start < 20)
    # Much output, read late: all of it arrives (flow control, no loss).
    typ(t, "seq 1 100000; echo end-$((1+1))\r")
    time.sleep(1)
    wait_for(t, b"end-2", 60)
    o = out.get(t, b"")
    say(backend + "_bulk", b"\r\n99999\r\n100000\r\n" in o and
        o.count(b"\r\n5") >= 11111)
    typ(t, "exit 7\r")
    e = wait_exit(t)
    say(backend + "_exit", e and e.get("exitCode"))

# close: a hang-up, then the exit notification.
r = call("terminal.open", {"backend": "none", "cwd": cwd, "cols": 80,
                           "rows": 24, "shell": "/bin/sh"})
t = r["result"]["terminalId"]
time.sleep(0.5)
call("terminal.close", {"terminalId": t})
e = wait_exit(t)
say("close_exit", e and e.get("signal"))
r = call("terminal.input", {"terminalId": t, "base64": "eA=="})
say("closed_gone", "error" in r)
r = call("terminal.open", {"backend": "native", "cwd": "relative",
                           "cols": 80, "rows": 24})
say("bad_cwd", "error" in r)
r = call("terminal.input", {"terminalId": "term-1", "base64": "%%%"})
say("bad_b64", "error" in r)
