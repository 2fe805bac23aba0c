#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Unix sockets and the guard (issues 27, 28), through a real `airlock
# run` as the unprivileged user:
#   - a blocking connect to a listener whose backlog is full (an
#     abstract socket: connected "as asked") never holds the guard:
#     the sandbox's other notified calls (a checked write, a bind and a
#     connect by path) still complete while it waits.
. "$(dirname "$0")/lib.sh"
plan 5

W=$(mkwork)
cd "$W" || exit 1
EV="$W/.ev.jsonl"
# sbx CMD: a shell command in the sandbox (cwd: the workspace).
sbx() {
	as_user "$AIRLOCK" run --no-policy-check --workspace "$W" \
	    --events "$EV" "$@"
}

# ---- a full backlog does not hold the guard (issue 27) ----
cat >"$W/full.py" <<'PY'
import os, socket, subprocess, threading, time
name = "\0airlock-full-%d" % os.getpid()
l = socket.socket(socket.AF_UNIX)
l.bind(name)
l.listen(0)
fill = []
while len(fill) < 64:
    c = socket.socket(socket.AF_UNIX)
    c.setblocking(False)
    try:
        c.connect(name)
    except BlockingIOError:
        c.close()
        break
    fill.append(c)
res = {}
def blocked():
    c = socket.socket(socket.AF_UNIX)
    c.connect(name)
    res["bg"] = c
t = threading.Thread(target=blocked, daemon=True)
t.start()
time.sleep(0.5)
def run(cmd):
    return subprocess.run(["timeout", "5"] + cmd).returncode
w = run(["sh", "-c", "echo x > written"])
s = run(["python3", "-c", "import socket\n"
    "s = socket.socket(socket.AF_UNIX); s.bind('own'); s.listen(1)\n"
    "c = socket.socket(socket.AF_UNIX); c.connect('own')"])
print("waiting=%d write=%d sock=%d" % ("bg" not in res, w, s))
# Make room: the waiting connect then completes.
l.setblocking(False)
for i in range(len(fill) + 2):
    try:
        l.accept()
    except BlockingIOError:
        time.sleep(0.1)
t.join(5)
print("done=%d filled=%d" % ("bg" in res, len(fill)))
PY
chown "$TUSER" "$W/full.py"
out=$(sbx -- python3 full.py 2>&1)
diag "$out"
case $out in
*waiting=1*) ok "the blocking connect waits on the full backlog" ;;
*) not_ok "the blocking connect waits on the full backlog" ;;
esac
case $out in
*write=0*) ok "meanwhile a checked write completes" ;;
*) not_ok "meanwhile a checked write completes" ;;
esac
check "... and it wrote" [ -f "$W/written" ]
case $out in
*sock=0*) ok "meanwhile a bind and a connect by path complete" ;;
*) not_ok "meanwhile a bind and a connect by path complete" ;;
esac
case $out in
*done=1*) ok "the waiting connect completes once there is room" ;;
*) not_ok "the waiting connect completes once there is room" ;;
esac

finish
