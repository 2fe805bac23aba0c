#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Issue 30: `airlock profile --os linux|macos` prints what a run with the
# same options would be allowed, built by the launch's own code; the
# macOS form is a Seatbelt profile that an independent reader (below, in
# Python) accepts; and the microvm backend, asked for on a host without
# /dev/kvm, fails loudly with exit 125 and never falls back.  Everything
# runs as the unprivileged user.
. "$(dirname "$0")/lib.sh"
plan 20
W=$(mkwork)
cd "$W" || exit 1
A() { as_user "$AIRLOCK" "$@"; }
mkdir -p "$W/ws" "$W/other" "$W/q\"b\\s (x)"
echo secret >"$W/ws/secret.txt"
chown -R "$TUSER" "$W/ws" "$W/other" "$W/q\"b\\s (x)"

# ---- --os linux: the plan as JSON ----
A profile --os linux --workspace "$W/ws" --deny-read "$W/ws/secret.txt" \
    --bind "$W/other:$W/other" >"$W/lin.json" 2>"$W/lin.err"
check "profile --os linux exits 0 with JSON" sh -c \
    '[ $1 -eq 0 ] && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$2"' \
    sh $? "$W/lin.json"
[ -s "$W/lin.err" ] && diag "$(head -3 "$W/lin.err")"
check "  the --deny-read path is a mask item" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["plan"]
sys.exit(not any(i["item"] == "mask" and i["destination"] == sys.argv[2]
    for i in p))' "$W/lin.json" "$W/ws/secret.txt"
check "  the --bind is a writable bind with Landlock write rights" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["plan"]
b = any(i["item"] == "bind" and i["destination"] == sys.argv[2] for i in p)
l = any(i["item"] == "landlock" and i["path"] == sys.argv[2] and
    "write_file" in i["access"] for i in p)
sys.exit(not (b and l))' "$W/lin.json" "$W/other"
check "  items are typed: seccomp size, rlimits, listeners, filename rules" \
    python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["plan"]
k = {i["item"] for i in p}
s = [i for i in p if i["item"] == "seccomp"]
sys.exit(not ({"rlimit", "filename-rule", "landlock", "ro-bind", "tmpfs"} <= k
    and s and s[0]["instructions"] > 10 and
    any(i["item"] == "filename-rule" and i["pattern"] == ".env" for i in p)))' \
    "$W/lin.json"
# The caller's values stay out; the names that pass are listed.
as_user env TERM=xterm-marker-4711 "$AIRLOCK" profile --os linux \
    --workspace "$W/ws" >"$W/env.json" 2>/dev/null
check "  env: TERM named, its value not echoed; airlock's own values shown" \
    sh -c '! grep -q marker-4711 "$1" && python3 -c "
import json, sys
e = json.load(open(sys.argv[1]))[\"env\"]
sys.exit(not (any(v[\"name\"] == \"TERM\" and \"value\" not in v for v in e)
    and any(v[\"from\"] == \"airlock\" and \"value\" in v for v in e)))" "$1"' \
    sh "$W/env.json"
# What the profile says is what a run gets: the same options, for real.
A run --workspace "$W/ws" --deny-read "$W/ws/secret.txt" \
    --bind "$W/other:$W/other" -- sh -c "cat '$W/ws/secret.txt';
    echo written >'$W/other/f'" >"$W/run.out" 2>&1
check "  a run with the same options: the mask hides it, the bind writes" \
    sh -c '! grep -qx secret "$1" && [ "$(cat "$2")" = written ]' sh \
    "$W/run.out" "$W/other/f"
check "  control: the same read outside the sandbox sees the secret" \
    as_user cat "$W/ws/secret.txt"

# ---- --os macos: the Seatbelt profile, read by an independent reader ----
cat >"$W/sbpl.py" <<'PY'
import re, sys
src = open(sys.argv[1], "rb").read().decode("utf-8", "surrogateescape")
tok = re.compile(r'\s+|;[^\n]*|\(|\)|"((?:[^"\\\x00-\x1f\x7f]|\\["\\]|\\x[0-9a-fA-F]{2})*)"|[^\s()";]+')
def unesc(s):
    return re.sub(r'\\(["\\]|x[0-9a-fA-F]{2})', lambda m: m.group(1)
        if len(m.group(1)) == 1 else chr(int(m.group(1)[1:], 16)), s)
stack, top, pos = [[]], None, 0
while pos < len(src):
    m = tok.match(src, pos)
    if not m:
        sys.exit("bad token at %d: %r" % (pos, src[pos:pos + 20]))
    t, pos = m.group(0), m.end()
    if t[0].isspace() or t[0] == ";":
        continue
    if t == "(":
        stack.append([])
    elif t == ")":
        if len(stack) < 2:
            sys.exit("unbalanced )")
        x = stack.pop(); stack[-1].append(x)
    elif t[0] == '"':
        stack[-1].append(("s", unesc(m.group(1))))
    else:
        stack[-1].append(t)
if len(stack) != 1:
    sys.exit("unbalanced (")
forms = stack[0]
if forms[:2] != [["version", "1"], ["allow", "default"]]:
    sys.exit("does not start (version 1) (allow default)")
def paths(x, kinds):
    if isinstance(x, list):
        if len(x) == 2 and x[0] in kinds and isinstance(x[1], tuple):
            yield x[1][1]
        else:
            for k in x:
                yield from paths(k, kinds)
denied, unlink, every = set(), set(), set()
allk = ("literal", "subpath", "path-literal")
for f in forms[2:]:
    every |= set(paths(f, allk))
    if f[:2] == ["deny", "file-write-unlink"]:
        unlink |= set(paths(f, ("literal",)))
    elif f[0] == "deny" and f[1] in ("file-read*", "file-write*"):
        denied |= set(paths(f, allk))
# A deny regex anchored at "/" pins its literal directories (the one
# path it names, when it ends with $ or (/|$)) as a literal deny does.
def prefix(r):
    out, i = "", 1
    while i < len(r):
        if r[i] == "\\" and i + 1 < len(r):
            out += r[i + 1]; i += 2
        elif re.match(r"\[([a-z])([A-Z])\]", r[i:]) and \
                r[i + 1].upper() == r[i + 2]:
            out += r[i + 1]; i += 4
        elif r[i] not in ".[]()*+?{}|^$\\":
            out += r[i]; i += 1
        else:
            break
    if r[i:] in ("$", "(/|$)"):
        return out
    return out.rsplit("/", 1)[0] or "/"
for f in forms[2:]:
    if f[0] == "deny" and f[1] in ("file-read*", "file-write*"):
        for r in paths(f, ("regex",)):
            if r.startswith("^/"):
                denied.add(prefix(r))
unlink_ci = {u.lower() for u in unlink}
for p in denied:
    a = p
    while a.startswith("/") and a != "/":
        if a.lower() not in unlink_ci:
            sys.exit("%r denied, ancestor %r may be renamed" % (p, a))
        a = a.rsplit("/", 1)[0] or "/"
for p in every:
    for al in ("/tmp", "/var", "/etc"):
        if p == al or p.startswith(al + "/"):
            if "/private" + p not in every:
                sys.exit("%r without /private%s" % (p, p))
        if p == "/private" + al or p.startswith("/private" + al + "/"):
            if p[8:] not in every:
                sys.exit("%r without %r" % (p, p[8:]))
PY
A profile --os macos --workspace "$W/ws" --deny-read "$W/ws/secret.txt" \
    --bind "$W/q\"b\\s (x):$W/q\"b\\s (x)" >"$W/mac.sb" 2>"$W/mac.err"
check "profile --os macos exits 0 with a profile" sh -c \
    '[ $1 -eq 0 ] && head -1 "$2" | grep -qx "(version 1)"' sh $? "$W/mac.sb"
python3 "$W/sbpl.py" "$W/mac.sb" >"$W/chk.out" 2>&1
check "  the independent reader accepts it (parens, strings, ancestors, spellings)" \
    [ $? -eq 0 ]
[ -s "$W/chk.out" ] && diag "$(cat "$W/chk.out")"
check "  the --deny-read path is a file-read* deny, the bind a write root" \
    python3 -c '
import sys
s = open(sys.argv[1]).read()
r = s.split("(deny file-read*", 1)[1].split("\n(", 1)[0]
w = s.split("(allow file-write*", 1)[1].split("\n(", 1)[0]
sys.exit(not ("(subpath \"%s\")" % sys.argv[2] in r and
    "(subpath \"%s\")" % sys.argv[3].replace("\\", "\\\\").replace("\"", "\\\"")
    in w))' "$W/mac.sb" "$W/ws/secret.txt" "$W/q\"b\\s (x)"
# Control: the reader is not vacuous; a dropped unlink deny, an extra
# quote, a missing parenthesis are each refused.
bad=""
sed '0,/^    (literal "\/home/{/^    (literal "\/home/d}' "$W/mac.sb" >"$W/b1.sb"
grep -q '^    (literal "/home' "$W/mac.sb" || sed '/^(deny file-write-unlink/,/)$/{/literal/d}' "$W/mac.sb" >"$W/b1.sb"
sed '$ s/)$//' "$W/mac.sb" >"$W/b2.sb"
sed 's/(version 1)/(version 1 "x)/' "$W/mac.sb" >"$W/b3.sb"
for b in b1 b2 b3; do
	cmp -s "$W/$b.sb" "$W/mac.sb" && bad="$bad $b(unchanged)"
	python3 "$W/sbpl.py" "$W/$b.sb" >/dev/null 2>&1 && bad="$bad $b"
done
check "  control: the reader refuses broken profiles [$bad]" [ -z "$bad" ]
# A regex's literal directories need their unlink denies too: the same
# profile with one more regex is refused without them, accepted with.
{ cat "$W/mac.sb"; printf '%s\n' '(deny file-write* (regex "^/zz/yy/[^/]*\\.k$"))'; } \
    >"$W/b4.sb"
{ cat "$W/b4.sb"; printf '%s\n' \
    '(deny file-write-unlink (literal "/zz/yy") (literal "/zz"))'; } \
    >"$W/b5.sb"
check "  a regex without its prefix's unlink deny is refused, with it accepted" \
    sh -c '! python3 "$1" "$2" >/dev/null 2>&1 && python3 "$1" "$3"' sh \
    "$W/sbpl.py" "$W/b4.sb" "$W/b5.sb"
# The home's caches (a private tmpfs on Linux) are the user's real ones
# on macOS: not writable; $TMPDIR is, and nothing there may be run; a
# protected file is given no second name by a hard link.
check "  macOS: ~/.cache not writable, TMPDIR writable but not run, no links" \
    python3 -c '
import sys
s = open(sys.argv[1]).read()
tmp = "(regex \"^/(private/)?var/folders/[^/]+/[^/]+/T/\")"
w = [f for f in s.split("\n(") if f.startswith("allow file-write*")]
x = [f for f in s.split("\n(") if f.startswith("deny process-exec")]
sys.exit(not (not any("/.cache\"" in f for f in w) and
    any(tmp in f for f in w) and any(tmp in f for f in x) and
    "(deny file-write* file-link" in s))' "$W/mac.sb"
check "  control: on Linux the same ~/.cache is a carve-out of the home's tmpfs" \
    python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["plan"]
sys.exit(not any(i["item"] == "filename-rule" and i["kind"] == "carve" and
    i["pattern"].endswith("/.cache") for i in p))' "$W/lin.json"

# ---- usage errors ----
A profile --os windows >/dev/null 2>"$W/os.err"
check "an unknown --os: exit 2, naming it" sh -c \
    '[ $1 -eq 2 ] && grep -q -- "--os windows" "$2"' sh $? "$W/os.err"
A profile --workspace "$W/ws" >/dev/null 2>"$W/noos.err"
check "no --os: exit 2, saying it is required" sh -c \
    '[ $1 -eq 2 ] && grep -q -- "--os is required" "$2"' sh $? \
    "$W/noos.err"

# ---- R-H5: microvm on a host without /dev/kvm ----
[ -e /dev/kvm ] && diag "this host has /dev/kvm: the refusal names the monitor"
A run --workspace "$W/ws" --sandbox microvm -- sh -c "touch '$W/ws/vm'" \
    >/dev/null 2>"$W/vm.err"
check "run --sandbox microvm: exit 125 naming /dev/kvm and the VM monitor" \
    sh -c '[ $1 -eq 125 ] && grep -q "/dev/kvm" "$2" &&
    grep -q "no VM monitor" "$2"' sh $? "$W/vm.err"
diag "$(cat "$W/vm.err")"
check "  and nothing ran: no fallback to another backend" [ ! -e "$W/ws/vm" ]
A run --workspace "$W/ws" -- sh -c "touch '$W/ws/native'" >/dev/null 2>&1
check "  control: the same command with the default backend runs" \
    [ -e "$W/ws/native" ]
A profile --os linux --workspace "$W/ws" --sandbox microvm \
    >/dev/null 2>"$W/vmp.err"
check "profile --sandbox microvm: refused the same way (125)" sh -c \
    '[ $1 -eq 125 ] && grep -q "/dev/kvm" "$2"' sh $? "$W/vmp.err"
finish
