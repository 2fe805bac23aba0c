#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The file tools (issue 17): fs.search and fs.find over a generated
# 50,000-file tree, beside ripgrep, grep -rn and find on the same tree,
# in one run.  fs.* times are whole calls over airlockd's client
# protocol in a warm session, so they include entering the sandbox (one
# exec of airlock-fs in it); that entry alone is measured too (fs.read
# of a one-line file), and a cold `airlock fs search` (private airlockd,
# sandbox launch, call, teardown).
#   tests/bench/fs.sh BUILD_DIR [RUNS]
set -eu
BUILD=$(cd "${1:-build}" && pwd)
RUNS=${2:-7}
. "$(dirname "$0")/lib.sh"
bench_stage /tmp/airlock-bench.XXXXXX
cd "$STAGE/ws"
command -v rg >/dev/null 2>&1 || { echo "rg not found (contrib/install-deps.sh)"; exit 1; }

run_as python3 - "$STAGE/build" "$STAGE/ws" "$RUNS" "$STAGE/helpers" <<'PY'
import json, os, random, statistics, subprocess, sys, time
build, ws, runs, helpers = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    sys.argv[4]
sys.path.insert(0, helpers)
from airlockd_rpc import connect

# 500 directories of 100 files, ~1.5 KB of text each, a match in ~2%.
tree = os.path.join(ws, "tree")
rnd = random.Random(17)
words = ["alpha", "beta", "gamma", "delta", "return", "static", "int",
         "char", "const", "struct", "void", "if", "else", "for", "while"]
nfiles = 0
for d in range(500):
    dd = os.path.join(tree, "d%03d" % (d // 50), "s%03d" % d)
    os.makedirs(dd)
    for i in range(100):
        ext = (".c", ".h", ".py", ".txt")[i % 4]
        lines = [" ".join(rnd.choice(words) for _ in range(8))
                 for _ in range(30)]
        if rnd.random() < 0.02:
            lines[rnd.randrange(30)] = "    frobnicate_%d(ctx);" % i
        with open(os.path.join(dd, "f%03d%s" % (i, ext)), "w") as f:
            f.write("\n".join(lines) + "\n")
        nfiles += 1
with open(os.path.join(ws, "one.txt"), "w") as f:
    f.write("one line\n")

PAT = r"frobnicate_[0-9]+\("
def med(fn):
    fn()					# warm the page cache
    t = []
    for _ in range(runs):
        s = time.perf_counter()
        out = fn()
        t.append(time.perf_counter() - s)
    return statistics.median(t) * 1000, out

def sh(argv):
    return lambda: subprocess.run(argv, cwd=ws, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL).stdout.count(b"\n")

p, a, f, call = connect(os.path.join(build, "airlockd"))
r = call("sandbox.launch", {"spec": {"sessionId": "b", "bindMounts":
         [{"hostPath": ws}], "guestWorkdir": ws}})
if "error" in r:
    sys.exit("launch: %s" % r["error"]["message"])
def fs(method, **kw):
    kw["sessionId"] = "b"
    def go():
        r = call("fs." + method, kw)
        if "error" in r:
            sys.exit("fs.%s: %s" % (method, r["error"]["message"]))
        res = r["result"]
        return len(res.get("matches", res.get("files", [1])))
    return go

rows = []
rg_s, n1 = med(sh(["rg", "-n", PAT, "tree"]))
gr_s, n2 = med(sh(["grep", "-rnE", PAT, "tree"]))
fs_s, n3 = med(fs("search", pattern=PAT, path="tree", maxResults=100000))
rg_f, m1 = med(sh(["rg", "--files", "-g", "*.c", "tree"]))
fi_f, m2 = med(sh(["find", "tree", "-name", "*.c", "-type", "f"]))
fs_f, m3 = med(fs("find", glob="*.c", path="tree", maxResults=100000))
entry, _ = med(fs("read", path="one.txt"))
def true_exec():
    r = call("sandbox.exec", {"sessionId": "b", "argv": ["/bin/true"]})
    if "error" in r:
        sys.exit("exec: %s" % r["error"]["message"])
    while True:
        m = json.loads(f.readline())
        if m.get("method") == "sandbox.event" and \
                m["params"]["type"] == "exit":
            return 0
exec_true, _ = med(true_exec)
call("sandbox.destroy", {"sessionId": "b"})
f.close(); a.close(); p.wait()
cold, _ = med(sh([os.path.join(build, "airlock"), "fs", "--workspace", ws,
                  "search", PAT, "tree", "--max", "100000"]))
if not (n1 == n2 == n3 and m1 == m2 == m3):
    sys.exit("the tools disagree: search %d/%d/%d, find %d/%d/%d" %
             (n1, n2, n3, m1, m2, m3))

def row(what, ms, base):
    print("| %s | %.1f ms | %.2f |" % (what, ms, ms / base))
print("%d files, %d matching lines, %d *.c files; median of %d runs, "
      "warm page cache" % (nfiles, n1, m1, runs))
print()
print("| search `%s` | wall time | vs rg |" % PAT)
print("|---|---|---|")
row("rg -n", rg_s, rg_s)
row("grep -rnE", gr_s, rg_s)
row("fs.search (warm session, sandbox entry included)", fs_s, rg_s)
row("airlock fs search (cold: airlockd, sandbox, call)", cold, rg_s)
print()
print("| find `*.c` | wall time | vs find |")
print("|---|---|---|")
row("find -name", fi_f, fi_f)
row("rg --files -g", rg_f, fi_f)
row("fs.find (warm session, sandbox entry included)", fs_f, fi_f)
print()
print("Sandbox entry alone (fs.read of a one-line file, warm session): "
      "%.1f ms; sandbox.exec of /bin/true in the same session: %.1f ms" %
      (entry, exec_true))
PY
rm -rf "$STAGE"
