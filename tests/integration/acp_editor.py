# SPDX-License-Identifier: ISC
"""The editor's side of tests/integration/acp.sh: speaks ACP (JSON-RPC,
one message a line) to `airlock acp` on its stdin/stdout, as an editor
would: initialize (advertising neither files nor terminals), a session,
one prompt.  Whatever the agent asks of the client reaches us only when
airlock passes it through: such calls are recorded and answered with an
error, as is every session/request_permission (the editor "does not
implement it"), so airlock's policy answers.  Prints "key value" lines:
the agent's report (its JSON) and the methods we received.

usage: acp_editor.py WORKSPACE -- AIRLOCK acp ... -- AGENT ARGS...
"""
import json
import os
import select
import subprocess
import sys
import time

ws = sys.argv[1]
cmd = sys.argv[3:]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
buf = b""
received = []       # methods of requests the agent's side sent us
report = None
answers = {}
deadline = time.time() + 90


def send(obj):
    p.stdin.write(json.dumps(obj).encode() + b"\n")
    p.stdin.flush()


def pump(want_id):
    """Read until the response to want_id; serve requests meanwhile."""
    global buf, report
    while want_id not in answers and time.time() < deadline:
        r, _, _ = select.select([p.stdout], [], [], 1)
        if not r:
            if p.poll() is not None:
                return
            continue
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if not line.strip():
                continue
            m = json.loads(line)
            if "method" in m and "id" in m:
                received.append(m["method"])
                send({"jsonrpc": "2.0", "id": m["id"], "error": {
                    "code": -32601, "message": "not implemented by "
                    "this editor"}})
            elif "method" in m:
                u = m.get("params", {}).get("update", {})
                if u.get("sessionUpdate") == "agent_message_chunk":
                    report = json.loads(u["content"]["text"])
            else:
                answers[m["id"]] = m


send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": 1, "clientCapabilities": {
        "fs": {"readTextFile": False, "writeTextFile": False},
        "terminal": False}}})
pump(1)
send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {
    "cwd": ws, "mcpServers": []}})
pump(2)
send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {
    "sessionId": "s1", "prompt": [{"type": "text", "text": "go"}]}})
pump(3)
p.stdin.close()
try:
    rc = p.wait(timeout=30)
except subprocess.TimeoutExpired:
    p.kill()
    rc = "timeout"
print("init", json.dumps(answers.get(1)))
print("prompt", json.dumps(answers.get(3)))
print("received", " ".join(received) if received else "-")
print("rc", rc)
if report is not None:
    for k, v in report.items():
        print(k, json.dumps(v))
