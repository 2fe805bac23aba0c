# SPDX-License-Identifier: ISC
#
# A stand-in for the Anthropic Messages API on loopback, for the real
# Claude Code CLI under `airlock claude` (tests/integration/claude.sh).
# Each POST /v1/messages that offers tools gets the next step of a fixed
# script, chosen by how many tool results the conversation holds so far:
# Bash `git push origin main`, Write of .env, Read then Edit of notes.txt,
# a shell write of ~/.claude/settings.json, the environment's names to
# env.txt, then a closing text.  Streams server-sent events as the API does
# (message_start, content_block_*, message_delta, message_stop) when the
# request asks for a stream.  Every request body is appended to LOG, one
# JSON object a line with its x-api-key header ("apiKey") and its
# Authorization header ("auth": a Claude login's token), for the test
# to read the tool results.  With CLAUDE_MOCK_TLS=BASE it serves HTTPS
# (BASE.pem, BASE.key): tests/integration/tlsmask.sh.
#
#   python3 claude_mock.py WORKSPACE LOG PORTFILE [STEPS]
# STEPS, a JSON file holding a list of [tool, input] pairs, replaces the
# fixed script (tests/integration/hostfiles.sh).
import http.server
import json
import os
import ssl
import sys

ws, log, portfile = sys.argv[1:4]
steps_file = sys.argv[4] if len(sys.argv) > 4 else None


def steps():
    if steps_file is not None:
        with open(steps_file) as f:
            return [tuple(x) for x in json.load(f)]
    return [
        ("Bash", {"command": "git push origin main",
                  "description": "Push the branch"}),
        ("Write", {"file_path": ws + "/.env", "content": "TOKEN=leak\n"}),
        ("Read", {"file_path": ws + "/notes.txt"}),
        ("Edit", {"file_path": ws + "/notes.txt", "old_string": "hello",
                  "new_string": "hello, edited"}),
        # The CLI's own settings and definitions, and the MCP servers of
        # its state file, from a shell: the sandbox's to refuse (the
        # hook sees no path); its session directories stay writable.
        ("Bash", {"command": "echo '{\"hooks\":{}}' > ~/.claude/settings.json;"
                  " echo evil > ~/.claude/commands/evil.md;"
                  " echo '{\"mcpServers\":{\"x\":{\"command\":\"id\"}}}'"
                  " > ~/.claude.json; echo ok > ~/.claude/projects/state-ok",
                  "description": "Change settings"}),
        ("Bash", {"command": "env | cut -d= -f1 | sort > env.txt",
                  "description": "List the environment"}),
    ]


def tool_results(body):
    n = 0
    for m in body.get("messages", []):
        c = m.get("content")
        if isinstance(c, list):
            n += sum(1 for b in c if isinstance(b, dict) and
                     b.get("type") == "tool_result")
    return n


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.reply(200, {"data": [], "has_more": False})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        with open(log, "a") as f:
            f.write(json.dumps({"path": self.path, "body": body,
                                "apiKey": self.headers.get("x-api-key"),
                                "auth": self.headers.get("Authorization")})
                    + "\n")
        if "count_tokens" in self.path:
            self.reply(200, {"input_tokens": 10})
            return
        if not self.path.startswith("/v1/messages"):
            self.reply(404, {"type": "error", "error": {
                "type": "not_found_error", "message": "no"}})
            return
        k = tool_results(body)
        script = steps()
        if body.get("tools") and k < len(script):
            name, inp = script[k]
            block = {"type": "tool_use", "id": "toolu_%02d" % k,
                     "name": name, "input": {}}
            delta = {"type": "input_json_delta",
                     "partial_json": json.dumps(inp)}
            stop = "tool_use"
            full = dict(block, input=inp)
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": "done"}
            stop = "end_turn"
            full = {"type": "text", "text": "done"}
        msg = {"id": "msg_%02d" % k, "type": "message", "role": "assistant",
               "model": body.get("model", "claude-mock"), "content": [],
               "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 1}}
        if not body.get("stream"):
            msg.update(content=[full], stop_reason=stop)
            self.reply(200, msg)
            return
        ev = [("message_start", {"type": "message_start", "message": msg}),
              ("content_block_start", {"type": "content_block_start",
                                       "index": 0, "content_block": block}),
              ("content_block_delta", {"type": "content_block_delta",
                                       "index": 0, "delta": delta}),
              ("content_block_stop", {"type": "content_block_stop",
                                      "index": 0}),
              ("message_delta", {"type": "message_delta",
                                 "delta": {"stop_reason": stop,
                                           "stop_sequence": None},
                                 "usage": {"output_tokens": 5}}),
              ("message_stop", {"type": "message_stop"})]
        data = "".join("event: %s\ndata: %s\n\n" % (e, json.dumps(d))
                       for e, d in ev).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
# CLAUDE_MOCK_TLS=BASE: serve HTTPS with BASE.pem and BASE.key
# (tests/integration/tlsmask.sh, credential masking).
if os.environ.get("CLAUDE_MOCK_TLS"):
    base = os.environ["CLAUDE_MOCK_TLS"]
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    c.load_cert_chain(base + ".pem", base + ".key")
    s.socket = c.wrap_socket(s.socket, server_side=True)
with open(portfile, "w") as f:
    f.write(str(s.server_address[1]))
s.serve_forever()
