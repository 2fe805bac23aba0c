#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The file tools (issue 17, SPEC R-C6): fs.read, write, edit,
# applyPatch, search and find over airlockd's client protocol, as the
# unprivileged user, executed inside the session's sandbox.  Every path
# stays beneath the workspace (symlinks out, "..", absolute paths and
# /proc's magic links are refused), writes obey the filename rules and
# the mode, patches and edits change all or nothing, and a directory
# flipped to a symlink while fs.write runs never lets a byte out.
. "$(dirname "$0")/lib.sh"
plan 48

T=$(mkwork)
W="$T/ws"
OUT="$T/out"
mkdir -p "$W/src" "$W/.git/objects" "$W/build" "$OUT"
printf 'one\ntwo\nthree\n' >"$W/src/a.txt"
printf 'alpha\nbeta\ngamma\n' >"$W/src/b.txt"
printf 'dup dup\n' >"$W/dup.txt"
printf 'needle in git\n' >"$W/.git/objects/x"
printf 'needle ignored\n' >"$W/build/out.txt"
printf 'needle kept\n' >"$W/src/keep.txt"
printf 'needle\n' >"$W/src/skip.log"
printf 'build/\n*.log\n' >"$W/.gitignore"
printf 'beside-secret\n' >"$T/beside.txt"
printf 'root:x:0:0\n' >"$T/passwd-copy"
ln -s /etc/passwd "$W/pw"
ln -s ../beside.txt "$W/beside"
ln -s "$T/beside.txt" "$W/besideabs"
ln -s src "$W/srclink"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$T"
sum_before=$(cat /etc/passwd "$T/beside.txt" | cksum)

# The race's writes: each starts airlock-fs, which costs about ten times
# more in a sanitizer build (make check SANITIZE=...).
race_n=3000
[ -n "${SANITIZE:-}" ] && race_n=300
as_user timeout 300 python3 - "$AIRLOCKD" "$W" "$OUT" "$T" \
    "$STAGE/tests/helpers" "$race_n" >"$T/log" 2>&1 <<'PY'
import json, os, sys
airlockd, ws, out, top, helpers = sys.argv[1:6]
sys.path.insert(0, helpers)
from airlockd_rpc import connect
p, a, f, _ = connect(airlockd)
events = []
n = [0]

def call(method, params):
    n[0] += 1
    f.write(json.dumps({"jsonrpc": "2.0", "id": n[0], "method": method,
                        "params": params}).encode() + b"\n")
    f.flush()
    while True:
        m = json.loads(f.readline())
        if m.get("id") == n[0]:
            return m
        if m.get("method") == "sandbox.event":
            events.append(m["params"])
        elif "params" in m:
            events.append(m["params"])

def say(name, cond, detail=""):
    print("CHECK %s %d %s" % (name, 1 if cond else 0, detail), flush=True)

def rule(r):
    return r.get("error", {}).get("data", {}).get("rule")

def viol(action, target, rule_):
    return any(e.get("type") == "violation" and e.get("action") == action
               and e.get("target") == target and e.get("rule") == rule_
               for e in events)

def launch(sid, mode, extra=None):
    spec = {"sessionId": sid, "mode": mode, "guestWorkdir": ws,
            "bindMounts": [{"hostPath": ws}]}
    spec.update(extra or {})
    r = call("sandbox.launch", {"spec": spec})
    return r

r = launch("c", "chat", {"bindMounts": [{"hostPath": ws},
                                         {"hostPath": out}],
                         "runnerStateDirs": [out]})
say("launch", "error" not in r and r["result"].get("backend") == "native",
    json.dumps(r)[:200])
S = {"sessionId": "c"}

def fs(method, **kw):
    q = dict(S)
    q.update(kw)
    return call("fs." + method, q)

# Happy paths.
r = fs("read", path="src/a.txt")
say("read", r.get("result", {}).get("content") ==
    "     1\tone\n     2\ttwo\n     3\tthree\n", json.dumps(r)[:200])
r = fs("read", path=ws + "/src/a.txt", offset=2, limit=1)
say("read-abs-offset", r.get("result", {}).get("content") == "     2\ttwo\n"
    and r["result"]["totalLines"] == 3, json.dumps(r)[:200])
r = fs("read", path="srclink/b.txt")
say("read-inside-symlink", "beta" in r.get("result", {}).get("content", ""),
    json.dumps(r)[:200])
with open(ws + "/bin.dat", "wb") as b:
    b.write(b"\x00\x01\xffbinary")
r = fs("read", path="bin.dat")
say("read-binary", r.get("result", {}).get("type") == "binary" and
    r["result"].get("base64") == "AAH/YmluYXJ5", json.dumps(r)[:200])
r = fs("write", path="new/deep/file.txt", content="hello\n")
say("write", r.get("result", {}).get("created") is True and
    open(ws + "/new/deep/file.txt").read() == "hello\n", json.dumps(r)[:200])
os.chmod(ws + "/src/b.txt", 0o640)
r = fs("write", path="src/b.txt", base64="YWxwaGEK")
st = os.stat(ws + "/src/b.txt")
say("write-replace", open(ws + "/src/b.txt").read() == "alpha\n" and
    (st.st_mode & 0o777) == 0o640 and
    not [x for x in os.listdir(ws + "/src") if x.startswith(".airlock-fs")],
    json.dumps(r)[:200])
r = fs("edit", path="src/a.txt", old="two", new="TWO")
say("edit", r.get("result", {}).get("replacements") == 1 and
    open(ws + "/src/a.txt").read() == "one\nTWO\nthree\n", json.dumps(r)[:200])
r = fs("edit", path="dup.txt", old="dup", new="x")
say("edit-ambiguous", rule(r) == "ambiguous-edit" and
    r["error"]["data"].get("matches") == 2 and
    open(ws + "/dup.txt").read() == "dup dup\n", json.dumps(r)[:200])
r = fs("edit", path="dup.txt", old="dup", new="x", replaceAll=True)
say("edit-all", open(ws + "/dup.txt").read() == "x x\n", json.dumps(r)[:200])
r = fs("edit", path="dup.txt", old="nothere", new="x")
say("edit-none", rule(r) == "not-found" and
    r["error"]["data"].get("matches") == 0, json.dumps(r)[:200])
unified = ("diff --git a/src/a.txt b/src/a.txt\n--- a/src/a.txt\n"
           "+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n one\n-TWO\n+two\n three\n"
           "--- /dev/null\n+++ b/added.txt\n@@ -0,0 +1 @@\n+added\n")
r = fs("applyPatch", patch=unified)
say("patch-unified", "error" not in r and
    open(ws + "/src/a.txt").read() == "one\ntwo\nthree\n" and
    open(ws + "/added.txt").read() == "added\n", json.dumps(r)[:300])
env = ("*** Begin Patch\n*** Update File: src/a.txt\n@@ one\n-two\n+2\n"
       "*** Add File: env/new.txt\n+made\n*** Delete File: added.txt\n"
       "*** End Patch\n")
r = fs("applyPatch", patch=env)
say("patch-envelope", "error" not in r and
    open(ws + "/src/a.txt").read() == "one\n2\nthree\n" and
    open(ws + "/env/new.txt").read() == "made\n" and
    not os.path.exists(ws + "/added.txt"), json.dumps(r)[:300])
before = (open(ws + "/src/a.txt").read(), open(ws + "/dup.txt").read())
bad = ("--- a/dup.txt\n+++ b/dup.txt\n@@ -1 +1 @@\n-x x\n+y y\n"
       "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n one\n-nope\n"
       "+yes\n--- /dev/null\n+++ b/never.txt\n@@ -0,0 +1 @@\n+never\n")
r = fs("applyPatch", patch=bad)
say("patch-bad-hunk", rule(r) == "patch-does-not-apply" and
    (open(ws + "/src/a.txt").read(), open(ws + "/dup.txt").read()) == before
    and not os.path.exists(ws + "/never.txt") and
    not [x for x in os.listdir(ws) if x.startswith(".airlock-fs")],
    json.dumps(r)[:300])
r = fs("search", pattern="needle")
got = sorted((m["path"], m["line"]) for m in
             r.get("result", {}).get("matches", []))
say("search", got == [("src/keep.txt", 1)], json.dumps(r)[:300])
r = fs("search", pattern="^ALPHA$", ignoreCase=True, glob="*.txt")
got = [m["path"] for m in r.get("result", {}).get("matches", [])]
say("search-i-glob", got == ["src/b.txt"], json.dumps(r)[:300])
r = fs("search", pattern="(", path="src")
say("search-bad-pattern", rule(r) == "invalid-pattern", json.dumps(r)[:200])
r = fs("find", glob="**/*.txt")
got = r.get("result", {}).get("files", [])
say("find", "src/a.txt" in got and "new/deep/file.txt" in got and
    "build/out.txt" not in got and not [g for g in got if ".git/" in g],
    json.dumps(r)[:300])
r = fs("find", glob="*.{txt,dat}", path="src")
say("find-path", sorted(r.get("result", {}).get("files", [])) ==
    ["src/a.txt", "src/b.txt", "src/keep.txt"], json.dumps(r)[:300])

# Refusals: out of the workspace, for reads and writes.
for name, path in (("symlink-etc", "pw"), ("symlink-beside", "beside"),
                   ("symlink-beside-abs", "besideabs"),
                   ("dotdot", "../beside.txt"),
                   ("abs-outside", top + "/passwd-copy"),
                   ("proc-root", "/proc/self/root/etc/passwd"),
                   ("proc-root-ws", "/proc/self/root" + ws + "/src/a.txt")):
    r1 = fs("read", path=path)
    r2 = fs("write", path=path, content="owned\n")
    say("refuse-" + name, rule(r1) == "outside-workspace" and
        rule(r2) == "outside-workspace",
        json.dumps(r1)[:150] + json.dumps(r2)[:150])
r = fs("search", pattern="root", path="../")
say("refuse-search-out", rule(r) == "outside-workspace", json.dumps(r)[:200])
say("violation-outside", viol("fs.read", "pw", "outside-workspace") and
    viol("fs.write", "../beside.txt", "outside-workspace"),
    json.dumps(events[-3:])[:300])

# Filename rules (R-L4): refused with a violation event.
for name, path in ((".env", ".env"), ("key.pem", "a/b/c/key.pem")):
    r = fs("write", path=path, content="SECRET=1\n")
    say("refuse-" + name, rule(r) == "protected-name" and
        not os.path.exists(ws + "/" + path) and
        viol("fs.write", path, "protected-name"), json.dumps(r)[:200])
say("key.pem-no-dirs", not os.path.exists(ws + "/a"), "")
r = fs("applyPatch", patch="*** Begin Patch\n*** Add File: x.key\n+k\n"
       "*** End Patch\n")
say("refuse-patch-key", rule(r) == "protected-name" and
    not os.path.exists(ws + "/x.key"), json.dumps(r)[:200])
r = fs("write", path=".git/hooks/pre-commit", content="#!/bin/sh\n")
say("refuse-git-hook", rule(r) == "protected-name" and
    not os.path.exists(ws + "/.git/hooks/pre-commit"), json.dumps(r)[:200])
call("sandbox.destroy", {"sessionId": "c"})

# Review mode: every write method refused, the file untouched.
r = launch("rv", "review")
S = {"sessionId": "rv"}
before = open(ws + "/src/a.txt").read()
mt = os.stat(ws + "/src/a.txt").st_mtime_ns
r1 = fs("write", path="src/a.txt", content="x\n")
r2 = fs("edit", path="src/a.txt", old="one", new="1")
r3 = fs("applyPatch", patch="*** Begin Patch\n*** Update File: src/a.txt\n"
        "@@\n-one\n+1\n*** End Patch\n")
r4 = fs("write", path="brand-new.txt", content="x\n")
say("review-refused", [rule(x) for x in (r1, r2, r3, r4)] ==
    ["read-only-mode"] * 4, json.dumps([r1, r4])[:300])
say("review-untouched", open(ws + "/src/a.txt").read() == before and
    os.stat(ws + "/src/a.txt").st_mtime_ns == mt and
    not os.path.exists(ws + "/brand-new.txt"), "")
say("review-violation", viol("fs.edit", "src/a.txt", "read-only-mode"),
    json.dumps(events[-2:])[:300])
r = fs("read", path="src/a.txt")
say("review-read", "result" in r, json.dumps(r)[:200])
call("sandbox.destroy", {"sessionId": "rv"})
for m in ("plan", "orchestrate"):
    launch(m, m)
    S = {"sessionId": m}
    r = fs("write", path="src/a.txt", content="x\n")
    say("mode-" + m, rule(r) == "read-only-mode" and
        open(ws + "/src/a.txt").read() == before, json.dumps(r)[:200])
    call("sandbox.destroy", {"sessionId": m})

# Unconfined (backend none, where openat2 is allowed): the same
# confinement of paths, by RESOLVE_BENEATH.
r0 = launch("u", "chat", {"backend": "none"})
S = {"sessionId": "u"}
r1 = fs("read", path=ws + "/src/a.txt")
r2 = fs("read", path="pw")
r3 = fs("write", path="beside", content="x\n")
r4 = fs("read", path="../beside.txt")
say("unconfined", r0.get("result", {}).get("backend") == "none" and
    "result" in r1 and [rule(x) for x in (r2, r3, r4)] ==
    ["outside-workspace"] * 3, json.dumps([r1, r3])[:300])
call("sandbox.destroy", {"sessionId": "u"})

# The race: a process in the session flips race/d between a directory
# and symlinks out of the workspace (to a writable bind beside it,
# absolute and relative) while fs.write writes race/d/f.
os.mkdir(ws + "/race")
os.mkdir(ws + "/race/junk")
r = launch("race", "chat", {"bindMounts": [{"hostPath": ws},
                                            {"hostPath": out}],
                            "runnerStateDirs": [out]})
S = {"sessionId": "race"}
flip = ("import os\nos.chdir(%r)\ni = 0\nwhile True:\n"
        "    i += 1\n"
        "    try: os.rename('d', 'junk/%%d' %% i)\n"
        "    except OSError: pass\n"
        "    try:\n"
        "        if i %% 3 == 0: os.mkdir('d')\n"
        "        elif i %% 3 == 1: os.symlink(%r, 'd')\n"
        "        else: os.symlink('../../out', 'd')\n"
        "    except OSError: pass\n") % (ws + "/race", out)
r = call("sandbox.exec", {"sessionId": "race",
                          "argv": ["python3", "-c", flip]})
say("race-flipper", "result" in r, json.dumps(r)[:200])
ok = refused = other = 0
N = int(sys.argv[6])
others = {}
for i in range(N):
    r = fs("write", path="race/d/f", content="race %d\n" % i)
    if "result" in r:
        ok += 1
    elif rule(r) == "outside-workspace":
        refused += 1
    else:
        other += 1
        others[rule(r)] = others.get(rule(r), 0) + 1
call("sandbox.destroy", {"sessionId": "race"})
leaked = os.listdir(out)
say("race-nothing-outside", leaked == [] and ok + refused + other == N,
    "writes=%d ok=%d outside-workspace=%d other=%r leaked=%r" %
    (N, ok, refused, others, leaked[:5]))
say("race-exercised", ok > 0 and refused > 0,
    "ok=%d refused=%d" % (ok, refused))
PY
sed -n 's/^CHECK \([^ ]*\) 0 \(.*\)/# failed \1: \2/p' "$T/log"
grep -v '^CHECK' "$T/log" | tail -5 | sed 's/^/# /'
grep '^CHECK race' "$T/log" | sed 's/^/# /'
for c in launch read read-abs-offset read-inside-symlink read-binary write \
    write-replace edit edit-ambiguous edit-all edit-none patch-unified \
    patch-envelope patch-bad-hunk search search-i-glob search-bad-pattern \
    find find-path refuse-symlink-etc refuse-symlink-beside \
    refuse-symlink-beside-abs refuse-dotdot refuse-abs-outside \
    refuse-proc-root refuse-proc-root-ws refuse-search-out \
    violation-outside refuse-.env refuse-key.pem key.pem-no-dirs \
    refuse-patch-key refuse-git-hook review-refused review-untouched \
    review-violation review-read mode-plan mode-orchestrate unconfined race-flipper \
    race-nothing-outside race-exercised; do
	check "$c" grep -q "^CHECK $c 1" "$T/log"
done
# airlock fs: a private session, JSON out, exit 0 / 1 / 2.
out=$(cd "$W" && as_user "$AIRLOCK" fs read src/keep.txt 2>&1)
check "airlock fs read: exit 0 and the text" \
    grep -q '"content":"     1\\tneedle kept\\n"' <<E
$out
E
out=$(cd "$W" && printf 'x\n' | as_user "$AIRLOCK" fs write pw 2>&1)
rc=$?
check_sh "airlock fs write through a symlink out: exit 1 naming the rule" \
    '[ $rc -eq 1 ] && case $out in *'"'"'"rule":"outside-workspace"'"'"'*) true ;; *) false ;; esac'
out=$(cd "$W" && as_user "$AIRLOCK" fs --mode review edit src/keep.txt \
    --old needle --new pin 2>&1)
rc=$?
check_sh "airlock fs --mode review edit: exit 1, read-only-mode, untouched" \
    '[ $rc -eq 1 ] && grep -q "^needle kept" "$W/src/keep.txt" &&
    case $out in *read-only-mode*) true ;; *) false ;; esac'
as_user "$AIRLOCK" fs frobnicate >/dev/null 2>&1
rc=$?
check "airlock fs with an unknown verb: exit 2" [ $rc -eq 2 ]
diag "airlock fs: $out"
check_sh "nothing outside the workspace changed" \
    '[ "$(cat /etc/passwd "$T/beside.txt" | cksum)" = "$sum_before" ] &&
    [ -z "$(ls -A "$OUT")" ]'
