# SPDX-License-Identifier: ISC
"""A hostile ACP agent for tests/integration/edges.sh: it answers
initialize and session/new, and on the prompt writes lines its client's
relay must not pass on, each of which an editor's JSON-RPC reader (the
ACP SDK's JSON.parse) takes as a request to write a file outside the
workspace or to open a terminal on the host:

  a float id, an exponent id, an integer id past 64 bits (JSON-RPC
  allows only strings, integers and null), a duplicate "method" key (the
  last one wins in JavaScript), a duplicate "id"; and fs/write_text_file
  as a notification (the SDK serves it only as a request); and one
  well-formed fs/write_text_file, which only a relay should serve.

Each names its own marker in OUTSIDE, so a test can tell which went
through.  Then it says end_turn.

With "procfd" it instead writes a well-formed request (an integer id)
to the editor around its relay: through /proc/PID/fd/N of every other
process it sees (its parent's stdout is the relay's channel to the
editor), and says on stderr what each open and write did.

usage: hostile_agent.py OUTSIDE [procfd]
"""
import os
import json
import sys
import time

out = sys.argv[1]
procfd = len(sys.argv) > 2 and sys.argv[2] == "procfd"


def put(s):
    sys.stdout.write(s + "\n")
    sys.stdout.flush()


def write(mid, name):
    return ('{"jsonrpc":"2.0","id":%s,"method":"fs/write_text_file",'
            '"params":{"sessionId":"s1","path":"%s/%s","content":"x"}}'
            % (mid, out, name))


def term(mid, name):
    return ('{"jsonrpc":"2.0","id":%s,"method":"terminal/create","params":'
            '{"sessionId":"s1","command":"/bin/sh","args":["-c",'
            '"touch %s/%s"]}}' % (mid, out, name))


for raw in sys.stdin:
    m = json.loads(raw)
    if "method" not in m or "id" not in m:
        continue
    if m["method"] == "initialize":
        put(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {
            "protocolVersion": 1, "agentCapabilities": {}}}))
    elif m["method"] == "session/new":
        put(json.dumps({"jsonrpc": "2.0", "id": m["id"],
                        "result": {"sessionId": "s1"}}))
    elif m["method"] == "session/prompt" and procfd:
        own = {os.fstat(f).st_ino for f in (0, 1, 2)}
        for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
            if int(pid) == os.getpid():
                continue
            for n in ("0", "1", "2"):
                path = "/proc/%s/fd/%s" % (pid, n)
                try:
                    fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                except OSError as e:
                    sys.stderr.write("procfd: %s: %s\n" % (path,
                                     e.strerror))
                    continue
                if os.fstat(fd).st_ino in own:
                    os.close(fd)
                    continue
                try:
                    os.write(fd, (write("107", "proc-write") +
                                  "\n").encode())
                    sys.stderr.write("procfd: %s: written\n" % path)
                except OSError as e:
                    sys.stderr.write("procfd: %s: write: %s\n" % (path,
                                     e.strerror))
                os.close(fd)
        time.sleep(2)
        put(json.dumps({"jsonrpc": "2.0", "id": m["id"],
                        "result": {"stopReason": "end_turn"}}))
    elif m["method"] == "session/prompt":
        put(write("101.5", "float-write"))
        put(term("102.5", "float-term"))
        put(term("1e2", "exp-term"))
        put(write("123456789012345678901", "big-write"))
        put('{"jsonrpc":"2.0","id":105,"method":"session/update",'
            '"method":"fs/write_text_file","params":{"sessionId":"s1",'
            '"path":"%s/dup-method","content":"x"}}' % out)
        put('{"jsonrpc":"2.0","id":"a","method":"terminal/create",'
            '"id":106.5,"params":{"sessionId":"s1","command":"/bin/sh",'
            '"args":["-c","touch %s/dup-id"]}}' % out)
        # And a well-formed one, which airlock serves in the sandbox.
        put(write("108", "valid-write"))
        # fs/* only exists as a request; as a notification, no id.
        put('{"jsonrpc":"2.0","method":"fs/write_text_file","params":'
            '{"sessionId":"s1","path":"%s/notify-write","content":"x"}}'
            % out)
        time.sleep(2)
        put(json.dumps({"jsonrpc": "2.0", "id": m["id"],
                        "result": {"stopReason": "end_turn"}}))
