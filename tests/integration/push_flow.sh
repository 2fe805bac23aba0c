#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The push gateway under load and attack (issue 14), with the real git
# client in real sandboxes served by one shared airlockd, and a real
# smart-HTTP upstream (lighttpd + git http-backend, see lib/upstream.sh):
#
# - a push of 5,000 new refs is decided and forwarded while another
#   session's long-running command keeps running; the same with main
#   among them is refused whole; 100,000 refs are refused cleanly;
# - gatewayd killed while one session has a push in flight fails that
#   session closed and no other: the others are registered again with
#   the restarted gatewayd and can push;
# - the upstream is the one recorded the first time the user ran airlock
#   in the workspace: `git remote set-url origin` inside changes nothing;
# - push options in any spelling never reach upstream's hooks;
# - a symbolic ref upstream cannot move the branch it points at;
# - 50,000 refused requests leave gatewayd's memory flat.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib/upstream.sh"
plan 35

DPID=
trap '[ -n "$DPID" ] && kill "$DPID" 2>/dev/null; upstream_stop; rm -rf "$UPD"' EXIT
upstream_up
# upstream's pre-receive hook records the push options it is given.
for r in app other; do
	cat >"$UPD/repos/acme/$r.git/hooks/pre-receive" <<'HOOK'
#!/bin/sh
echo "count=${GIT_PUSH_OPTION_COUNT:-none}" >>"$GIT_DIR/push-options.log"
i=0
while [ "$i" -lt "${GIT_PUSH_OPTION_COUNT:-0}" ]; do
	eval "echo \"option=\$GIT_PUSH_OPTION_$i\"" >>"$GIT_DIR/push-options.log"
	i=$((i + 1))
done
cat >/dev/null
HOOK
	chmod 0755 "$UPD/repos/acme/$r.git/hooks/pre-receive"
	git -C "$UPD/repos/acme/$r.git" config receive.advertisePushOptions true
done

W=$(mkwork)
CFG=$(mkwork)
cat >"$CFG/settings.json" <<JSON
{ "git": {
    "codeHosts": [ { "name": "github",
      "pushUrlPrefixes": ["https://github.com/", "git@github.com:",
                          "ssh://git@github.com/"],
      "upstream": "$UP_HTTPS_URL", "caBundle": "$UP_CA" } ],
    "linkedRepos": [],
    "pushRules": [ { "ref": "refs/heads/main", "action": "deny" },
                   { "ref": "refs/heads/*", "action": "allow" } ] },
  "credentials": { "file": "$CFG/credentials.json" } }
JSON
printf '{ "github": { "writeToken": "%s" } }\n' "$TOKEN" >"$CFG/credentials.json"
chown -R "$TUSER" "$CFG"
chmod 0600 "$CFG/credentials.json"

# Two workspaces, both clones whose origin is acme/app on GitHub.
for c in app app2; do
	git clone -q "$UPD/repos/acme/app.git" "$W/$c"
	git -C "$W/$c" remote set-url origin https://github.com/acme/app.git
	git -C "$W/$c" -c user.name=a -c user.email=a@example.invalid \
	    commit -q --allow-empty -m "work in $c"
done
chown -R "$TUSER" "$W"
MAIN0=$(upstream_ref acme/app.git refs/heads/main)
STATE=$W/state
mkdir -p "$STATE"
chown "$TUSER" "$STATE"

spawn_user env XDG_STATE_HOME="$STATE" "$AIRLOCKD" --settings "$CFG/settings.json" \
    --socket "$W/d.sock" 2>"$W/d.log"
DPID=$!
for i in $(seq 1 50); do
	[ -S "$W/d.sock" ] && break
	sleep 0.1
done

run() {	# run WORKSPACE "shell command"
	as_user env XDG_STATE_HOME="$STATE" "$AIRLOCK" run --no-policy-check \
	    --socket "$W/d.sock" --workspace "$1" --events "$1.ev" -- \
	    sh -c "$2"
}
refs() {	# refs PREFIX: how many upstream refs under it
	git --git-dir="$UPD/repos/acme/app.git" for-each-ref "$1" | wc -l
}
mkrefs() {	# mkrefs WORKSPACE PREFIX N: N packed branches at HEAD
	_oid=$(git -c safe.directory='*' -C "$1" rev-parse HEAD)
	{ grep -v '^#' "$1/.git/packed-refs" 2>/dev/null
	  seq 1 "$3" | sed "s|.*|$_oid refs/heads/$2/b&|"; } >"$1/.git/packed-refs.new"
	mv "$1/.git/packed-refs.new" "$1/.git/packed-refs"
	chown "$TUSER" "$1/.git/packed-refs"
}

# The pushes are the point: --no-policy-check lets the gateway, not
# the run's own check (which asks about git push), decide them.
# Session A: a long-running command in the second workspace, which
# pushes once the test says so (after gatewayd was restarted).
as_user git -C "$W/app2" branch -q after-restart
as_user env XDG_STATE_HOME="$STATE" "$AIRLOCK" run --no-policy-check --socket "$W/d.sock" \
    --workspace "$W/app2" --events "$W/a.ev" -- sh -c \
    'echo a-started; while [ ! -e .go ]; do sleep 0.2; done;
    git push -q origin after-restart && echo a-pushed; echo a-done' \
    >"$W/oa" 2>&1 &
APID=$!
for i in $(seq 1 100); do
	grep -q a-started "$W/oa" 2>/dev/null && break
	sleep 0.1
done
a_runs() { kill -0 "$APID" && ! grep -q a-done "$W/oa"; }

# ---- 1. many refs ----
mkrefs "$W/app" bulk 5000
run "$W/app" "git push -q origin 'refs/heads/bulk/*:refs/heads/bulk/*'" \
    >"$W/o1" 2>&1
rc=$?
check "a push of 5,000 new refs succeeds (exit $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || diag "$(tail -5 "$W/o1")"
check "... all 5,000 are upstream" [ "$(refs refs/heads/bulk/)" -eq 5000 ]
check "... and the other session's command still runs" a_runs

# git's send-pack slows down with many refs on both sides: start again
# from few (the refs were checked above).
git --git-dir="$UPD/repos/acme/app.git" for-each-ref --format='delete %(refname)' \
    refs/heads/bulk/ | git --git-dir="$UPD/repos/acme/app.git" update-ref --stdin
grep -v ' refs/heads/bulk/' "$W/app/.git/packed-refs" >"$W/pr" &&
    cat "$W/pr" >"$W/app/.git/packed-refs"
mkrefs "$W/app" bulk2 5000
run "$W/app" "git push origin 'refs/heads/bulk2/*:refs/heads/bulk2/*' main" \
    >"$W/o2" 2>&1
rc=$?
check "5,000 refs with main among them: refused (exit $rc)" [ "$rc" -ne 0 ]
check "... git says why for main" \
    grep -q ' ! \[remote rejected\] main -> main (airlock policy: ' "$W/o2"
check "... and nothing of it is upstream" [ "$(refs refs/heads/bulk2/)" -eq 0 ]
check "... main is unchanged" [ "$(upstream_ref acme/app.git refs/heads/main)" = "$MAIN0" ]
check "... and the other session's command still runs" a_runs

# 100,000 commands (git's own send-pack takes minutes to list that many
# refs, so the request is written directly, as an agent could).
cat >"$W/app/bigpush.py" <<'PY'
import socket, sys
n, new = int(sys.argv[1]), sys.argv[2].encode()
def pkt(b): return b"%04x" % (len(b) + 4) + b
cmds = [pkt(b"0" * 40 + b" " + new + b" refs/heads/huge/b%d" % i +
    (b"\0report-status side-band-64k" if i == 0 else b"") + b"\n")
    for i in range(n)]
body = b"".join(cmds) + b"0000"
s = socket.create_connection(("127.0.0.1", 9418))
s.sendall(b"POST /github/acme/app.git/git-receive-pack HTTP/1.1\r\nHost: x\r\n"
    b"Content-Type: application/x-git-receive-pack-request\r\n"
    b"Content-Length: %d\r\n\r\n" % len(body) + body)
out = b""
while True:
    d = s.recv(65536)
    if not d: break
    out += d
sys.stdout.write(out.decode("latin-1"))
PY
chown "$TUSER" "$W/app/bigpush.py"
run "$W/app" "python3 bigpush.py 100000 $MAIN0" >"$W/o3" 2>&1
check "100,000 refs: refused cleanly, with the unpack error git prints" \
    grep -q 'unpack airlock policy: more refs in one push than the gateway takes' "$W/o3"
check "... nothing of it is upstream" [ "$(refs refs/heads/huge/)" -eq 0 ]
check "... and the other session's command still runs" a_runs
check "no session was failed by the gateway" \
    fails grep -q 'gateway-died' "$W/a.ev" "$W/app.ev"

# ---- 2. gatewayd dies: only a session with a push in flight fails ----
# Session C holds a push open (request head sent, body not) and waits.
run "$W/app" 'exec python3 -c "
import socket, time
s = socket.create_connection((\"127.0.0.1\", 9418))
s.sendall(b\"POST /github/acme/app.git/git-receive-pack HTTP/1.1\r\nHost: x\r\n\"
    b\"Content-Type: application/x-git-receive-pack-request\r\n\"
    b\"Content-Length: 1000\r\n\r\n\")
print(\"c-open\", flush=True)
time.sleep(30)
print(\"c-still-running\", flush=True)
"' >"$W/oc" 2>&1 &
CPID=$!
for i in $(seq 1 100); do
	grep -q c-open "$W/oc" 2>/dev/null && break
	sleep 0.1
done
sleep 0.5
GW=$(pgrep -u "$TUSER" -P "$DPID" -f airlock-gatewayd | head -1)
kill -KILL "$GW"
wait "$CPID"
check "the session with a push in flight is failed closed" \
    fails grep -q c-still-running "$W/oc"
check "... as gateway-died" grep -q '"reason":"gateway-died"' "$W/app.ev"
check "the other session's command still runs" a_runs
sleep 1
touch "$W/app2/.go"
wait "$APID"
check "... and, registered again with the restarted gatewayd, it pushes" \
    grep -q a-pushed "$W/oa"
check "... to upstream" [ -n "$(upstream_ref acme/app.git refs/heads/after-restart)" ]

# ---- 3. the upstream is the user's, recorded outside the sandbox ----
run "$W/app" 'git remote set-url origin https://github.com/acme/other.git' \
    >"$W/o5" 2>&1
check "git remote set-url inside is reported by the content check" \
    grep -q '"action":"git-remote-changed"' "$W/app.ev"
run "$W/app" 'git push origin HEAD:refs/heads/stolen' >"$W/o6" 2>&1
rc=$?
check "after set-url origin to an unlinked repository, the push is refused (exit $rc)" \
    [ "$rc" -ne 0 ]
check "... and nothing reaches it" [ -z "$(upstream_ref acme/other.git refs/heads/stolen)" ]
check "... the changed origin is a violation event" \
    grep -q '"action":"git-origin-changed","target":"acme/other"' "$W/app.ev"
check "... and said on stderr" grep -q "airlock: this workspace's git origin is now acme/other" "$W/o6"
as_user git -C "$W/app" remote set-url origin https://github.com/acme/app.git

# ---- 4. push options in any spelling never reach upstream ----
cat >"$W/app/rawpush.py" <<'PY'
import hashlib, socket, struct, sys
caps, opts, ref, new = sys.argv[1], sys.argv[2].split(","), sys.argv[3], sys.argv[4]
def pkt(b): return b"%04x" % (len(b) + 4) + b
body = pkt(b"0" * 40 + b" " + new.encode() + b" " + ref.encode() + b"\0" +
    caps.encode() + b"\n") + b"0000"
for section in opts:
    for o in section.split("+"):
        body += pkt(o.encode() + b"\n")
    body += b"0000"
pack = b"PACK" + struct.pack(">II", 2, 0)
body += pack + hashlib.sha1(pack).digest()
s = socket.create_connection(("127.0.0.1", 9418))
s.sendall(b"POST /github/acme/app.git/git-receive-pack HTTP/1.1\r\nHost: x\r\n"
    b"Content-Type: application/x-git-receive-pack-request\r\n"
    b"Content-Length: %d\r\n\r\n" % len(body) + body)
out = b""
while True:
    d = s.recv(65536)
    if not d: break
    out += d
sys.stdout.write(out.decode("latin-1"))
PY
chown "$TUSER" "$W/app/rawpush.py"
LOG=$UPD/repos/acme/app.git/push-options.log
run "$W/app" "python3 rawpush.py 'report-status push-options=1' ci.skip refs/heads/opt1 $MAIN0" \
    >"$W/o7" 2>&1
check "push-options=1: the push is forwarded" [ "$(upstream_ref acme/app.git refs/heads/opt1)" = "$MAIN0" ]
check "... and upstream's hook got no push option" \
    sh -c "grep -q count= '$LOG' && ! grep -q option= '$LOG'"
run "$W/app" "python3 rawpush.py 'report-status push-options push-options=1' \
    ci.skip,merge_request.create refs/heads/opt2 $MAIN0" >"$W/o8" 2>&1
check "push-options doubled, two option sections: no option reaches upstream's hook" \
    fails grep -q 'option=' "$LOG"
[ -f "$LOG" ] && diag "hook log: $(tr '\n' ' ' <"$LOG")"

# ---- 5. 50,000 refused requests: gatewayd's memory stays flat ----
cat >"$W/app/flood.py" <<'PY'
import socket, sys
def pkt(b): return b"%04x" % (len(b) + 4) + b
body = pkt(b"0" * 40 + b" " + b"1" * 40 + b" refs/heads/x\0report-status\n") + \
    b"0000"
req = (b"POST /github/acme/unlinked.git/git-receive-pack HTTP/1.1\r\n"
    b"Host: x\r\nContent-Type: application/x-git-receive-pack-request\r\n"
    b"Content-Length: %d\r\n\r\n" % len(body)) + body
for i in range(int(sys.argv[1])):
    s = socket.create_connection(("127.0.0.1", 9418))
    s.sendall(req)
    while s.recv(65536): pass
    s.close()
print("flood-done")
PY
chown "$TUSER" "$W/app/flood.py"
GW=$(pgrep -u "$TUSER" -P "$DPID" -f airlock-gatewayd | head -1)
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$GW/status"; }
run "$W/app" 'python3 flood.py 5000' >/dev/null 2>&1
R0=$(rss)
run "$W/app" 'python3 flood.py 50000' >"$W/o9" 2>&1
R1=$(rss)
diag "gatewayd VmRSS after 5,000 refusals: $R0 kB, after 50,000 more: $R1 kB"
check "50,000 refused requests leave gatewayd's RSS flat (+$((R1 - R0)) kB)" \
    [ "$((R1 - R0))" -lt 512 ]
check "... all were served" grep -q flood-done "$W/o9"
check "... and airlockd logged them in a few lines" \
    [ "$(grep -c 'unlinked.git refused' "$W/d.log")" -lt 100 ]

# ---- 6. a symbolic ref upstream cannot move its target ----
git --git-dir="$UPD/repos/acme/app.git" symbolic-ref refs/heads/alias refs/heads/main
MAIN1=$(upstream_ref acme/app.git refs/heads/main)
run "$W/app" 'git push origin HEAD:refs/heads/alias' >"$W/o10" 2>&1
rc=$?
check "a push to refs/heads/alias (-> main upstream) is refused (exit $rc)" [ "$rc" -ne 0 ]
check "... git says why" grep -q 'remote rejected\] HEAD -> alias (airlock policy: refs/heads/alias is a symbolic ref upstream' "$W/o10"
check "... and main did not move" [ "$(upstream_ref acme/app.git refs/heads/main)" = "$MAIN1" ]
run "$W/app" 'git push origin HEAD:refs/heads/plain' >"$W/o11" 2>&1
check "a push to an ordinary branch still goes through (ls-refs over v2)" \
    [ -n "$(upstream_ref acme/app.git refs/heads/plain)" ]

# The repository is matched without case (GitHub's rule) and forwarded as
# the record spells it: this upstream's paths are case-sensitive.
run "$W/app" 'git push https://github.com/ACME/App.git HEAD:refs/heads/cased' \
    >"$W/o14" 2>&1
check "a push to ACME/App lands in acme/app, the recorded spelling" \
    [ -n "$(upstream_ref acme/app.git refs/heads/cased)" ]

# ---- 7. strict framing: answered at once, with a reason phrase ----
cat >"$W/app/raw.py" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", 9418))
s.settimeout(10)
t = time.time()
s.sendall(sys.argv[1].encode().decode("unicode_escape").encode("latin-1"))
out = b""
try:
    while True:
        d = s.recv(65536)
        if not d: break
        out += d
except socket.timeout:
    out += b" TIMEOUT"
print(out.split(b"\r\n")[0].decode("latin-1"), "after %.1fs" % (time.time() - t))
PY
chown "$TUSER" "$W/app/raw.py"
run "$W/app" "python3 raw.py 'POST /github/acme/app.git/git-receive-pack HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-git-receive-pack-request\r\nTransfer-Encoding: chunked\r\n\r\nffffffffff\r\n'" \
    >"$W/o12" 2>&1
check "a chunk size of 1 TB is a 400 at once ($(cat "$W/o12"))" \
    grep -q '^HTTP/1.1 400 Bad Request after [0-4]\.' "$W/o12"
run "$W/app" "python3 raw.py 'GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n'" >"$W/o13" 2>&1
check "a 404 has its reason phrase ($(cat "$W/o13"))" grep -q '^HTTP/1.1 404 Not Found' "$W/o13"
finish
