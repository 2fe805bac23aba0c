#!/bin/sh
# SPDX-License-Identifier: ISC
#
# `airlock run` as a tool a developer lives in (issue 12): every byte of
# output with a slow reader, standard input, signals forwarded, strict
# flags, relative paths and unappliable entries (issue 11 item 4), --env,
# the working directory, a terminal, and a shared supervisor.  As an
# unprivileged user, real sandboxes.
. "$(dirname "$0")/lib.sh"
plan 62

W=$(mkwork)
cd "$W" || exit 1
run() { as_user "$AIRLOCK" run --no-policy-check --workspace "$W" "$@"; }
# reap PID: wait for it, killing it after 30 s (a failure, not a hang).
reap() {
	( sleep 30; kill -9 "$1" 2>/dev/null ) &
	_w=$!
	wait "$1"
	_rc=$?
	kill "$_w" 2>/dev/null
	return $_rc
}

# ---- output: nothing lost, flow control instead of a dropped client ----
# RUN_BIG_MIB (default 1024, about 12 s on two shared cores) sets the size;
# make bench times the same path beside cat (tests/bench/output.sh).
MIB=${RUN_BIG_MIB:-1024}
head -c $((MIB << 20)) /dev/urandom >"$W/big"
chmod 644 "$W/big"
want=$(sha256sum <"$W/big" | cut -d' ' -f1)
# The slow reader stops for two seconds first, then reads in small
# pieces: the command must wait for it, not lose what it wrote.
t0=$(date +%s)
got=$(run -- cat big 2>"$W/big.err" | python3 -c '
import hashlib, sys, time
time.sleep(2)
h = hashlib.sha256(); f = sys.stdin.buffer; n = 0
while True:
    b = f.read(65536 if n > (8 << 20) else 4096)
    if not b: break
    h.update(b); n += len(b)
print(h.hexdigest())')
diag "$MIB MiB through a slow reader: $(( $(date +%s) - t0 )) s"
check "$MIB MiB through stdout, byte-identical with a slow reader" \
    [ "$got" = "$want" ]
check "no complaint on stderr" [ ! -s "$W/big.err" ]
rm -f "$W/big"
n=$(run -- seq 1 6000000 | wc -l)
check "seq 1 6000000 | wc -l is exact ($n)" [ "$n" -eq 6000000 ]
n=$(run -- sh -c 'seq 1 300000 >&2' 2>&1 >/dev/null | wc -l)
check "stderr is complete too ($n)" [ "$n" -eq 300000 ]
out=$(as_user timeout 30 "$AIRLOCK" run --workspace "$W" -- yes | head -2 |
    tr -d '\n')
check "a reader that goes away ends the command (yes | head)" [ "$out" = yy ]
out=$(echo off-in | run --sandbox off -- cat)
check "--sandbox off: stdin and stdout pass too" [ "$out" = off-in ]
# The output cap is what ends a stream, with its reason.
run --output-limit 1M --events "$W/cap.jsonl" -- head -c 5000000 /dev/zero \
    >"$W/cap.out" 2>"$W/cap.err"
rc=$?
check "output cap: killed{reason:output}, non-zero ($rc)" sh -c \
    "[ $rc -ne 0 ] && grep -q '\"reason\":\"output\"' '$W/cap.jsonl'"
check "output cap: at most the cap reached the file" \
    [ "$(stat -c %s "$W/cap.out")" -le 1048576 ]

# ---- standard input ----
check "stdin from a pipe" [ "$(echo piped-in | run -- cat)" = piped-in ]
seq 1 100000 >"$W/in.txt"
check "stdin from a file" \
    [ "$(run -- wc -l <"$W/in.txt")" -eq 100000 ]
check "stdin /dev/null ends at once" \
    [ "$(run -- wc -c </dev/null)" -eq 0 ]
check "end of file is passed on (sh reads to EOF and exits)" \
    [ "$(printf 'echo one\necho two\n' | run -- sh)" = "one
two" ]

# ---- signals ----
# SIGTERM to airlock reaches the command, whose trap runs and prints.
spawn_user "$AIRLOCK" run --workspace "$W" -- sh -c \
    'trap "echo trapped-term; exit 3" TERM; echo up; while :; do sleep 0.1; done' \
    >"$W/sig.out" 2>"$W/sig.err"
pid=$!
for _i in $(seq 1 100); do grep -q up "$W/sig.out" 2>/dev/null && break
	sleep 0.1; done
kill -TERM $pid
reap $pid
rc=$?
check "SIGTERM forwarded: the trap's output is seen" grep -q trapped-term \
    "$W/sig.out"
check "SIGTERM forwarded: the trap's exit status is ours ($rc)" [ "$rc" -eq 3 ]
# SIGINT ignored by the command: a second SIGINT within a second kills.
spawn_user "$AIRLOCK" run --workspace "$W" --events "$W/int.jsonl" -- sh -c \
    'trap "" INT; echo up; while :; do sleep 0.1; done' \
    >"$W/int.out" 2>"$W/int.err"
pid=$!
for _i in $(seq 1 100); do grep -q up "$W/int.out" 2>/dev/null && break
	sleep 0.1; done
kill -INT $pid; sleep 0.3; kill -INT $pid
reap $pid
rc=$?
check "a second SIGINT within a second kills the sandbox ($rc)" \
    [ "$rc" -eq 130 ]
check "the stream has killed and ends with exit or killed" sh -c \
    "grep -q '\"type\":\"killed\"' '$W/int.jsonl' &&
    tail -1 '$W/int.jsonl' | grep -qE '\"type\":\"(exit|killed)\"'"
# --kill-after: SIGTERM ignored, the sandbox is killed S seconds later.
spawn_user "$AIRLOCK" run --workspace "$W" --kill-after 1 -- sh -c \
    'trap "" TERM; echo up; while :; do sleep 0.1; done' \
    >"$W/ka.out" 2>/dev/null
pid=$!
for _i in $(seq 1 100); do grep -q up "$W/ka.out" 2>/dev/null && break
	sleep 0.1; done
t0=$(date +%s)
kill -TERM $pid
reap $pid
rc=$?
check_sh "--kill-after 1 kills a command that ignores SIGTERM ($rc)" \
    '[ "$rc" -eq 143 ] && [ $(( $(date +%s) - t0 )) -le 4 ]'

# ---- strict flags: the flag and the value named, exit 2 ----
bad() {	# bad "description" ARGS...: exit 2, the value named on stderr
	_d=$1; shift
	_v=$(for _a in "$@"; do :; done; echo "$_a")
	as_user "$AIRLOCK" run --workspace "$W" "$@" -- true >/dev/null \
	    2>"$W/bad.err"
	_rc=$?
	if [ $_rc -eq 2 ] && grep -qF -- "$_v" "$W/bad.err"; then
		ok "$_d"
	else
		not_ok "$_d (exit $_rc: $(cat "$W/bad.err"))"
	fi
}
bad "--pids abc" --pids abc
bad "--pids 0" --pids 0
bad "--timeout abc" --timeout abc
bad "--timeout 5x" --timeout 5x
bad "--memory lots" --memory lots
bad "--network maybe" --network maybe
bad "--mode yolo" --mode yolo
bad "--sandbox perhaps" --sandbox perhaps
bad "--kill-after soon" --kill-after soon
bad "--output-limit 1Q" --output-limit 1Q
bad "--bogus" --bogus
as_user "$AIRLOCK" run --help >"$W/help.out" 2>"$W/help.err"
rc=$?
check "--help: usage on stdout, exit 0" sh -c \
    "[ $rc -eq 0 ] && grep -q usage '$W/help.out' && [ ! -s '$W/help.err' ]"
check "sizes and durations with units are taken" \
    run --memory 512M --timeout 2m --output-limit 1G -- true

# ---- paths as typed (issue 11 item 4, issue 12) ----
echo top-secret >"$W/secret.txt"
out=$(run --deny-read secret.txt -- cat secret.txt 2>&1)
case $out in
*top-secret*) not_ok "a relative --deny-read applies (the file is read)" ;;
*) ok "a relative --deny-read applies" ;;
esac
mkdir -p "$W/sub"
out=$(cd "$W/sub" && run --deny-read ../secret.txt -- cat "$W/secret.txt" 2>&1)
case $out in
*top-secret*) not_ok "--deny-read ../secret.txt resolves against the cwd" ;;
*) ok "--deny-read ../secret.txt resolves against the cwd" ;;
esac
run --deny-write '*.cfg' -- sh -c 'echo x > a.cfg' 2>/dev/null
check "a --deny-write glob applies" [ ! -s "$W/a.cfg" ]
run --bind "$W/no-such-dir" -- true 2>"$W/nb.err"
rc=$?
check "a --bind of a missing path is an error naming it ($rc)" sh -c \
    "[ $rc -eq 125 ] && grep -q no-such-dir '$W/nb.err'"
check "--bind-try of a missing path is skipped" \
    run --bind-try "$W/no-such-dir" -- true
# A sandbox the launcher cannot build (a bind airlockd did not check, from
# the test build): the run says so, with the reason, and exits 125; the
# command never starts (the exec is what builds it, issue 15).
as_user "$B/test/airlock" run --no-policy-check --workspace "$W" \
    --test-unlisted-bind "$W/gone-before-build" -- \
    sh -c "touch '$W/ran'" 2>"$W/lb.err"
rc=$?
check "a launch failure: 125, the reason named, nothing run ($rc)" sh -c \
    "[ $rc -eq 125 ] && grep -q 'sandbox could not be built' '$W/lb.err' \
    && grep -q gone-before-build '$W/lb.err' && [ ! -e '$W/ran' ]"
mkdir -p "$W/other"
echo bound >"$W/other/f"
D=$(mkwork)
echo in-d >"$D/f"
out=$(cd "$D" && as_user "$AIRLOCK" run --workspace "$W" --ro-bind . -- \
    cat "$D/f" 2>&1)
check "a relative --ro-bind resolves against the cwd" [ "$out" = in-d ]
out=$(cd "$D" && as_user "$AIRLOCK" run --workspace "$W" --bind '~' -- \
    sh -c 'ls -d "$HOME"' 2>&1)
check "--bind ~ expands to the caller's home ($out)" \
    [ "$out" = "$(user_home)" ]

# ---- the environment, on purpose ----
out=$(as_user FOO_TOKEN=tok-123 "$AIRLOCK" run --workspace "$W" -- \
    sh -c 'echo "[$FOO_TOKEN]"' 2>/dev/null)
check "a *_TOKEN variable is stripped by default ($out)" [ "$out" = "[]" ]
out=$(as_user FOO_TOKEN=tok-123 "$AIRLOCK" run --workspace "$W" \
    --env FOO_TOKEN --env BAR=xyz -- sh -c 'echo "$FOO_TOKEN $BAR"' \
    2>"$W/env.err")
check "--env NAME and --env NAME=VALUE pass ($out)" [ "$out" = "tok-123 xyz" ]
check "each passed name is said once on stderr" sh -c \
    "[ \$(grep -c FOO_TOKEN '$W/env.err') -eq 1 ] &&
    ! grep -q tok-123 '$W/env.err'"
run --env LD_PRELOAD=/tmp/x.so -- true 2>"$W/ld.err"
rc=$?
check "--env LD_PRELOAD is refused with an error naming it ($rc)" sh -c \
    "[ $rc -ne 0 ] && grep -q LD_PRELOAD '$W/ld.err'"
printf '{"sandbox":{"env":{"pass":["MY_API_KEY"]}}}\n' >"$W/env.json"
chmod 644 "$W/env.json"
out=$(as_user MY_API_KEY=k-9 "$AIRLOCK" run --workspace "$W" \
    --settings "$W/env.json" -- sh -c 'echo "$MY_API_KEY"' 2>/dev/null)
check "settings sandbox.env.pass passes a name ($out)" [ "$out" = k-9 ]

# ---- the working directory and the workspace ----
R=$(mkwork)
as_user sh -c "cd '$R' && git init -q repo && mkdir -p repo/src/lib"
out=$(cd "$R/repo/src/lib" && as_user "$AIRLOCK" run -- \
    sh -c 'pwd; git rev-parse --show-toplevel' 2>&1)
check "without --workspace: the repository's top, started in the cwd" \
    [ "$out" = "$R/repo/src/lib
$R/repo" ]
out=$(cd "$R/repo/src" && as_user "$AIRLOCK" run --workspace "$R/repo" -- pwd)
check "--workspace DIR keeps a cwd inside it ($out)" [ "$out" = "$R/repo/src" ]
out=$(cd "$W" && as_user "$AIRLOCK" run --workspace "$R/repo" -- pwd)
check "a cwd outside the workspace starts in the workspace ($out)" \
    [ "$out" = "$R/repo" ]
out=$(cd "$R" && as_user "$AIRLOCK" run -- pwd)
check "outside a repository the workspace is the cwd ($out)" [ "$out" = "$R" ]

# ---- a terminal: an interactive shell under a pty ----
as_user timeout 150 python3 -u - "$AIRLOCK" "$W" >"$W/pty.out" 2>&1 <<'PY'
import fcntl, os, pty, select, struct, sys, termios, time
airlock, ws = sys.argv[1], sys.argv[2]
def setsize(fd, r, c):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", r, c, 0, 0))
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm"
    os.execv(airlock, [airlock, "run", "--workspace", ws, "--", "bash",
        "--norc", "--noprofile", "-i"])
setsize(fd, 30, 100)
before = termios.tcgetattr(fd)
buf = b""
def expect(s, t=20):
    global buf
    end = time.time() + t
    while True:
        if s.encode() in buf:
            buf = buf[buf.index(s.encode()) + len(s):]
            return True
        left = end - time.time()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        try:
            d = os.read(fd, 4096)
        except OSError:
            break
        if not d:
            break
        buf += d
        seen.extend(d)
    print("TIMEOUT waiting for", repr(s), "got", repr(buf[-300:]),
        flush=True)
    return False
def send(s): os.write(fd, s.encode())
seen = bytearray()
def buf0():
    return bytes(seen)
res = {}
# Typed text echoes back: the markers are split by quotes when typed.
expect("$ ", 60)
send("echo RE''ADY\r")
res["prompt"] = expect("READY")
send("tty; stty size\r")
res["tty"] = expect("/dev/pts/") and expect("30 100")
setsize(fd, 40, 120)
os.kill(pid, 28)  # SIGWINCH, as the terminal would send
time.sleep(0.5)
send("stty size\r")
res["resize"] = expect("40 120")
send("sh -c 'trap \"echo caught-\"int INT; sleep 5'\r")
time.sleep(1)
send("\x03")
res["ctrl-c"] = expect("caught-int")
send("python3 -c 'import fcntl,termios; fcntl.ioctl(0, termios.TIOCSTI, b\"x\")' 2>&1 | tail -1\r")
res["tiocsti"] = expect("Operation not permitted")
# /dev/tty opened for writing goes through init's handler: it must be
# this shell's own terminal, not init's (which has none: ENXIO).
send("(exec 3<>/dev/tty && echo dev''tty-rw >&3)\r")
res["devtty"] = expect("devtty-rw")
send("sleep 30\r")
time.sleep(1)
send("\x1a")
res["ctrl-z"] = expect("Stopped")
# Job control: back to the foreground, then Ctrl-C ends it (a job
# killed while stopped can leave bash saying "There are stopped jobs").
send("fg\r")
time.sleep(1)
send("\x03")
time.sleep(0.5)
send("printf '\\033]52;c;aGk=\\007MARK''ER\\n'\r")
res["osc52"] = expect("MARKER") and b"\x1b]52" not in buf0()
send("exit 7\r")
# Keep reading, as a terminal does, until airlock has gone.
while select.select([fd], [], [], 30)[0]:
    try:
        if not os.read(fd, 4096):
            break
    except OSError:
        break
_, st = os.waitpid(pid, 0)
res["status"] = os.WIFEXITED(st) and os.WEXITSTATUS(st) == 7
try:
    res["restored"] = termios.tcgetattr(fd) == before
except OSError as e:
    print("tcgetattr", e)
for k, v in res.items():
    print(k, "ok" if v else "FAIL")
PY
for k in prompt tty resize ctrl-c ctrl-z osc52 tiocsti devtty status \
    restored; do
	check "pty: $k" grep -q "^$k ok" "$W/pty.out"
done
grep -q "FAIL\|TIMEOUT\|Traceback" "$W/pty.out" && sed 's/^/# /' "$W/pty.out"

# ---- which supervisor: a shared airlockd started with another HOME ----
# The caller's HOME is a fresh directory (never a real ~/.ssh).
OH=$(mkwork)
SD=$(mkwork)
CH=$(mkwork)
as_user sh -c "mkdir -p '$CH/.ssh' && echo caller-secret > '$CH/.ssh/airlock_probe'"
spawn_user env HOME="$OH" "$AIRLOCKD" --quiet --socket "$SD/d.sock" \
    2>"$SD/d.log"
dpid=$!
for _i in $(seq 1 50); do [ -S "$SD/d.sock" ] && break; sleep 0.1; done
out=$(as_user env HOME="$CH" "$AIRLOCK" run --socket "$SD/d.sock" \
    --workspace "$W" --bind "$CH" -- cat "$CH/.ssh/airlock_probe" \
    2>"$SD/run.err")
case $out in
*caller-secret*) not_ok "a shared airlockd with another HOME: the caller's secrets stay unreadable" ;;
*) ok "a shared airlockd with another HOME: the caller's secrets stay unreadable" ;;
esac
check "the run names the shared supervisor that served it" \
    grep -q "shared airlockd on $SD/d.sock" "$SD/run.err"
out=$(as_user MY_API_KEY=k-9 AIRLOCK_SOCKET="$SD/d.sock" "$AIRLOCK" run \
    --workspace "$W" --settings "$W/env.json" -- \
    sh -c 'echo "$MY_API_KEY"' 2>/dev/null)
check "AIRLOCK_SOCKET and --settings: the caller's settings apply ($out)" \
    [ "$out" = k-9 ]
kill $dpid 2>/dev/null
wait $dpid 2>/dev/null

# ---- a client that reads output as events (the desktop app's way) ----
# 10 million lines, read after a pause: flow control, not a dropped
# client; each byte once (base64), text only when asked for.
as_user timeout 120 python3 - "$AIRLOCKD" "$W" "$STAGE/tests/helpers" \
    >"$W/ev.out" 2>&1 <<'PY'
import base64, json, socket, subprocess, sys, time
airlockd, ws, HELPERS = sys.argv[1:4]
sys.path.insert(0, HELPERS)
from airlockd_rpc import connect
p, a, f, call = connect(airlockd)
r = call("sandbox.launch", {"spec": {"sessionId": "ev", "bindMounts":
     [{"hostPath": ws}], "guestWorkdir": ws}})
assert "error" not in r, r
def run(argv, **kw):
    r = call("sandbox.exec", dict({"sessionId": "ev", "argv": argv}, **kw))
    assert "error" not in r, r
    time.sleep(2)
    out, keys = bytearray(), set()
    while True:
        e = json.loads(f.readline())["params"]
        if e["type"] == "stdout":
            keys |= set(e) & {"data", "base64"}
            out += base64.b64decode(e["base64"]) if "base64" in e \
                else e["data"].encode()
        if e["type"] in ("exit", "killed"):
            return out, keys, e["type"]
out, keys, end = run(["seq", "1", "10000000"])
print("lines", out.count(b"\n"), "keys", sorted(keys), "end", end)
out, keys, end = run(["echo", "hello"], output="text")
print("text", bytes(out) == b"hello\n", "keys", sorted(keys))
call("sandbox.destroy", {"sessionId": "ev"})
PY
check "events: 10 million lines, none lost, to a slow client" \
    grep -q "^lines 10000000 keys \['base64'\] end exit" "$W/ev.out"
check "events: text only when asked for" \
    grep -q "^text True keys \['data'\]" "$W/ev.out"
grep -q "^lines 10000000" "$W/ev.out" || sed 's/^/# /' "$W/ev.out" | tail -5
