#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Credential masking end to end (issue 28, R-K1): a sandbox holds only a
# placeholder for API_KEY; proxyd terminates TLS toward the masked host
# (localhost) with the session's CA, verifies the real server against
# sandbox.network.tls.upstreamCA, and puts the real value in the request
# head there alone.  Real clients inside (curl, python requests, git);
# loopback TLS servers with a test CA that log what they receive.
#   - the server of the masked host logs the real value for each client,
#     in a header, a query parameter and Basic's password, and from a
#     source command;
#   - the real value is nowhere inside (environment, /proc, files), nor
#     in the events, airlockd's and proxyd's log, the audit log or any
#     error;
#   - a placeholder toward another host (vm, masked for another
#     credential, and plain HTTP toward runsc) is refused as
#     credential-exfiltration and that server never sees it; control:
#     the same server answers the same request without the placeholder;
#   - an unlisted host (runsc) stays an opaque tunnel: the sandbox sees
#     the server's own certificate and the placeholder reaches it as it
#     is (worthless there);
#   - a masked host whose server does not verify is refused, never
#     downgraded: that server gets no request;
#   - a request on the masked host's connection whose Host header names
#     another host (domain fronting) is refused.
. "$(dirname "$0")/lib.sh"
plan 41

W=$(mkwork)
cd "$W" || exit 1
# The machine's CA variables are not what the test decides with.
unset SSL_CERT_FILE CURL_CA_BUNDLE GIT_SSL_CAINFO REQUESTS_CA_BUNDLE \
    NODE_EXTRA_CA_CERTS

test_ca "$W" ca
test_ca "$W" badca
test_cert "$W" ca srv "DNS:localhost,DNS:vm,DNS:runsc,IP:127.0.0.1"
test_cert "$W" badca bad "DNS:localhost,DNS:vm,DNS:runsc,IP:127.0.0.1"
chmod a+r "$W"/*.pem

# serve NAME CERT|-: a server logging "host path auth other leak ua cmd" per
# request with $W/CERT.pem and .key, its port in $W/NAME.port ("-":
# plain HTTP).
PIDS=""
serve() {
	python3 - "$W/$1.log" "$2" "$W/$2" "$W/$1.port" >/dev/null 2>&1 <<'PY' &
import http.server, ssl, sys
log, cert, base, portfile = sys.argv[1:5]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        h = self.headers
        open(log, "a").write("%s %s auth=%s other=%s leak=%s ua=%s cmd=%s\n" % (
            h.get("Host"), self.path, h.get("Authorization"),
            h.get("X-Other"), h.get("X-Leak"), h.get("User-Agent"),
            h.get("X-Cmd")))
        self.send_response(200); self.send_header("Content-Length", "3")
        self.end_headers(); self.wfile.write(b"ok\n")
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
if cert != "-":
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    c.load_cert_chain(base + ".pem", base + ".key")
    s.socket = c.wrap_socket(s.socket, server_side=True)
open(portfile, "w").write(str(s.server_address[1])); s.serve_forever()
PY
	PIDS="$PIDS $!"
}
serve good srv
serve bad bad
serve plain -
for n in good bad plain; do
	i=0
	while [ ! -s "$W/$n.port" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	: >"$W/$n.log"
done
P=$(cat "$W/good.port")
PB=$(cat "$W/bad.port")
PH=$(cat "$W/plain.port")
cleanup() {
	for p in $PIDS ${DPID:-}; do kill "$p" 2>/dev/null; done
}
trap cleanup EXIT

# The real values, only in the user's credentials file (0600).
REAL="sk-test-$(openssl rand -hex 20)"
OTHER="ot-test-$(openssl rand -hex 20)"
QREAL="qk-test-$(openssl rand -hex 20)"
BREAL="bp-test-$(openssl rand -hex 20)"
CREAL="cm-test-$(openssl rand -hex 20)"
printf '{"API_KEY":{"value":"%s"},"OTHER_KEY":{"value":"%s"},'\
'"Q_KEY":{"value":"%s"},"B_PASS":{"value":"%s"}}\n' "$REAL" "$OTHER" \
    "$QREAL" "$BREAL" >"$W/cred.json"
chmod 0600 "$W/cred.json"
# A source command (R-K1): the value is the first line it prints.
printf '#!/bin/sh\necho %s\n' "$CREAL" >"$W/cmdsrc.sh"
chmod 0700 "$W/cmdsrc.sh"
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$W/cred.json" "$W/cmdsrc.sh"
cat >"$W/settings.json" <<EOF
{"credentials":{"file":"$W/cred.json","mask":[
  {"name":"API_KEY","host":"localhost","header":"Authorization"},
  {"name":"OTHER_KEY","host":"vm","header":"X-Other"},
  {"name":"Q_KEY","host":"localhost","query":"key"},
  {"name":"B_PASS","host":"localhost","basic":true},
  {"name":"C_KEY","host":"localhost","header":"X-Cmd",
   "source":{"command":["$W/cmdsrc.sh"]}}]},
 "sandbox":{"network":{"tls":{"upstreamCA":"$W/ca.pem"}}}}
EOF

spawn_user env AIRLOCK_DEBUG=1 "$AIRLOCKD" --socket "$W/d.sock" \
    2>"$W/d.log"
DPID=$!
i=0
while [ ! -S "$W/d.sock" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done

# run EVENTS -- CMD: a sandbox allowed to reach the three servers (vm
# and runsc are names of 127.0.0.1 too: a loopback address needs its
# own rule with the port).
run() {
	_ev=$1
	shift 2
	as_user "$AIRLOCK" run --socket "$W/d.sock" --settings "$W/settings.json" \
	    --workspace "$W" --events "$_ev" \
	    --allow-domain "localhost:$P" --allow-domain "vm:$P" \
	    --allow-domain "runsc:$P" --allow-domain "localhost:$PB" \
	    --allow-domain "runsc:$PH" --allow-domain "localhost:$PH" \
	    --allow-domain "127.0.0.1:$P" \
	    --allow-domain "127.0.0.1:$PH" --no-policy-check -- "$@"
}

# curl: the placeholder inside, the real value on the wire to localhost.
run "$W/e1" -- sh -c 'printf "%s\n" "$API_KEY" >ph.txt;
    curl -sf -m 10 -H "Authorization: Bearer $API_KEY" \
    https://localhost:'"$P"'/curl' >"$W/o1" 2>&1
rc=$?
check_sh "curl through the masked host succeeds (exit $rc)" '[ "$rc" -eq 0 ]'
PH_VAL=$(cat "$W/ph.txt" 2>/dev/null)
check_sh "the sandbox holds a placeholder of the value's shape" \
    '[ -n "$PH_VAL" ] && [ "$PH_VAL" != "$REAL" ] &&
    [ ${#PH_VAL} -eq ${#REAL} ] && case $PH_VAL in sk-test-*) true;;
    *) false;; esac'
check "the server logged the real value for curl" \
    grep -q "^localhost:$P /curl auth=Bearer $REAL .*ua=curl" "$W/good.log"
check "... and never the placeholder" \
    fails grep -q "/curl auth=Bearer ${PH_VAL:-none}" "$W/good.log"

# python requests and git, with the variables airlock set.
run "$W/e2" -- python3 -c '
import os, requests
r = requests.get("https://localhost:'"$P"'/py", timeout=10,
    headers={"Authorization": "Bearer " + os.environ["API_KEY"]})
print(r.status_code)' >"$W/o2" 2>&1
check "python requests: the server logged the real value" \
    grep -q "^localhost:$P /py auth=Bearer $REAL .*ua=python-requests" \
    "$W/good.log"
run "$W/e3" -- sh -c 'git -c http.extraHeader="Authorization: Bearer $API_KEY" \
    ls-remote https://localhost:'"$P"'/repo.git' >"$W/o3" 2>&1
check "git over https (http.extraHeader): the server logged the real value" \
    grep -q "^localhost:$P /repo.git/info/refs.* auth=Bearer $REAL .*ua=git/" \
    "$W/good.log"

# node's fetch(), which reads no proxy variable: airlock's preload
# (NODE_OPTIONS) tunnels it through the proxy.  The control runs the
# same fetch without the preload: it cannot get out at all.
if command -v node >/dev/null 2>&1; then
	NF='fetch("https://localhost:'"$P"'/node", {headers: {Authorization:
	    "Bearer " + process.env.API_KEY}}).then((r) => console.log("status",
	    r.status)).catch((e) => console.log("ERR", e.cause ? e.cause.message :
	    e.message))'
	run "$W/e3n" -- node -e "$NF" >"$W/o3n" 2>&1
	check "node fetch: through the proxy, the server logged the real value" \
	    grep -q "^localhost:$P /node auth=Bearer $REAL .*ua=node" \
	    "$W/good.log"
	run "$W/e3o" -- env -u NODE_OPTIONS node -e "$NF" >"$W/o3o" 2>&1
	check_sh "control: without airlock's preload node fetch gets nowhere" \
	    'grep -q "^ERR" "$W/o3o" &&
	    [ "$(grep -c "/node auth=" "$W/good.log")" -eq 1 ]'
	run "$W/e3d" -- node -e 'fetch("https://vm:'"$PB"'/").then((r) =>
	    console.log("status", r.status)).catch((e) => console.log("ERR",
	    e.cause ? e.cause.message : e.message))' >"$W/o3d" 2>&1
	check "node fetch to a host not allowed: the proxy's refusal, named" \
	    grep -q "ERR the sandbox's proxy refused vm:$PB: HTTP/1.1 403" \
	    "$W/o3d"
else
	not_ok "node fetch: node is not installed (contrib/install-deps.sh)"
	not_ok "control: node fetch without the preload"
	not_ok "node fetch to a host not allowed"
fi

# The other places a value goes: a query parameter, Basic's password,
# and a header whose value a source command printed.
run "$W/e3q" -- sh -c 'curl -sf -m 10 -o /dev/null \
    "https://localhost:'"$P"'/q?key=$Q_KEY&x=1";
    curl -sf -m 10 -o /dev/null -u "me:$B_PASS" https://localhost:'"$P"'/basic;
    curl -sf -m 10 -o /dev/null -H "X-Cmd: $C_KEY" https://localhost:'"$P"'/cmd;
    printf "%s\n" "$Q_KEY" "$B_PASS" "$C_KEY" >ph3.txt' >"$W/o3q" 2>&1
check "query: the server logged the real value as the parameter" \
    grep -q "^localhost:$P /q?key=$QREAL&x=1 " "$W/good.log"
BAUTH=$(printf 'me:%s' "$BREAL" | base64 -w0)
check "basic: the server logged the real password" \
    grep -q "^localhost:$P /basic auth=Basic $BAUTH " "$W/good.log"
check "a source command's value: the server logged it in its header" \
    grep -q "^localhost:$P /cmd .* cmd=$CREAL\$" "$W/good.log"
check_sh "... and the sandbox held three placeholders, none of them a value" \
    '[ "$(wc -l <"$W/ph3.txt")" -eq 3 ] &&
    ! grep -qe "$QREAL" -e "$BREAL" -e "$CREAL" "$W/ph3.txt" &&
    [ "$(grep -c "^\(qk\|bp\|cm\)-test-" "$W/ph3.txt")" -eq 3 ]'

# What tools read: the bundle with the session CA, the five variables.
run "$W/e4" -- sh -c 'for v in SSL_CERT_FILE NODE_EXTRA_CA_CERTS \
    REQUESTS_CA_BUNDLE GIT_SSL_CAINFO CURL_CA_BUNDLE; do
    eval "printf \"%s=%s\n\" $v \"\$$v\""; done;
    curl -sv -m 10 -o /dev/null https://localhost:'"$P"'/issuer 2>&1 |
    grep -i "issuer:"' >"$W/o4" 2>&1
check_sh "the five CA variables name the session's bundle" \
    '[ "$(grep -c "=/run/airlock/ca-bundle.pem$" "$W/o4")" -eq 5 ]'
check "the masked host's certificate inside is the session CA's" \
    grep -q "issuer: .*CN=airlock session CA" "$W/o4"

# The real value is nowhere inside: environment, /proc, the files of the
# sandbox's own root, $HOME and /tmp (dumped inside, searched outside).
run "$W/e5" -- sh -c 'env; tr "\0" "\n" </proc/self/environ;
    cat /proc/1/environ /proc/1/cmdline 2>/dev/null | tr "\0" "\n";
    find /run /tmp "$HOME" /etc/airlock -xdev -type f -size -2M \
    -exec cat {} + 2>/dev/null' >"$W/dump" 2>&1
check_sh "the sandbox's view was dumped (its bundle and the placeholder)" \
    'grep -q "airlock: this session" "$W/dump" &&
    grep -q "^API_KEY=sk-test-" "$W/dump"'
check "... and the real values appear nowhere in it" \
    fails grep -qe "$REAL" -e "$OTHER" -e "$QREAL" -e "$BREAL" -e "$CREAL" "$W/dump"

# The credentials file itself, in the workspace: unreadable inside by its
# path, through a symbolic link and a hard link made inside (link(2)
# across the mask's mount fails; a copy would read the mask).  Control:
# the same user reads it outside.
run "$W/e5b" -- sh -c 'cat "$1"; ln -s "$1" credsl; cat credsl;
    ln "$1" credhl 2>/dev/null && cat credhl;
    cat /proc/self/root"$1"' sh "$W/cred.json" >"$W/dumpc" 2>&1
check "the credentials file is unreadable inside (path, links)" \
    fails grep -qe "$REAL" -e "$OTHER" "$W/dumpc"
check_sh "control: the same user reads it outside" \
    'as_user cat "$W/cred.json" | grep -q "$REAL"'
# ... nor outside the workspace in a directory the run binds writable.
mkdir -p "$W/cdir" && cp -p "$W/cred.json" "$W/cdir/cred.json"
[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$W/cdir"
printf '{"credentials":{"file":"%s"}}\n' "$W/cdir/cred.json" >"$W/s2.json"
as_user "$AIRLOCK" run --socket "$W/d.sock" --settings "$W/s2.json" \
    --workspace "$W" --bind "$W/cdir" --no-policy-check -- \
    cat "$W/cdir/cred.json" >"$W/dumpd" 2>&1
check "... nor through a bind of its directory" \
    fails grep -qe "$REAL" -e "$OTHER" "$W/dumpd"

# A placeholder toward another host: refused, reported, never seen.
run "$W/e6" -- sh -c 'curl -s -m 10 -o /dev/null -w "%{http_code}\n" \
    -H "Authorization: Bearer $API_KEY" https://vm:'"$P"'/exfil;
    curl -s -m 10 -o /dev/null -w "%{http_code}\n" -H "X-Leak: $API_KEY" \
    http://runsc:'"$PH"'/exfil-plain;
    curl -sf -m 10 -H "Authorization: Bearer none" https://vm:'"$P"'/control;
    curl -sf -m 10 http://runsc:'"$PH"'/control-plain' >"$W/o6" 2>&1
check_sh "the placeholder toward vm and in clear toward runsc: 403 both" \
    '[ "$(grep -c "^403$" "$W/o6")" -eq 2 ]'
check_sh "neither server ever saw the placeholder request" \
    '! grep -q exfil "$W/good.log" && ! grep -q exfil "$W/plain.log"'
check_sh "control: the same servers answer without the placeholder" \
    'grep -q "^vm:$P /control " "$W/good.log" &&
    grep -q "^runsc:$PH /control-plain " "$W/plain.log"'
n=$(grep -c '"action":"credential-exfiltration"' "$W/e6")
check "both refusals reported as credential-exfiltration ($n)" [ "$n" -eq 2 ]
check "the report names the variable, not its value" \
    grep -q "\"target\":\"vm:$P (the placeholder of API_KEY)\"" "$W/e6"

# Domain fronting: the masked host's connection with a Host header that
# names another host (a shared front end would route the value there).
run "$W/e10" -- sh -c 'curl -s -m 10 -o /dev/null -w "%{http_code}\n" \
    -H "Host: vm:'"$P"'" -H "Authorization: Bearer $API_KEY" \
    https://localhost:'"$P"'/front' >"$W/o10" 2>&1
check "a Host header naming another host is refused (403)" \
    grep -q "^403$" "$W/o10"
check "... and the server never saw that request" \
    fails grep -q /front "$W/good.log"

# OTHER_KEY goes to vm, its host, as the real value (two masked hosts).
run "$W/e7" -- sh -c 'curl -sf -m 10 -H "X-Other: $OTHER_KEY" \
    https://vm:'"$P"'/other' >"$W/o7" 2>&1
check "a second masked credential reaches its own host as the value" \
    grep -q "^vm:$P /other .*other=$OTHER " "$W/good.log"

# An unlisted host stays a tunnel: its own certificate, the placeholder
# as it is (worthless there).
cp "$W/ca.pem" "$W/testca.pem"
run "$W/e8" -- sh -c 'printf "%s\n" "$API_KEY" >ph8.txt;
    curl -sv -m 10 --cacert testca.pem \
    -H "X-Leak: $API_KEY" https://runsc:'"$P"'/tunnel 2>&1 |
    grep -i "issuer:"' >"$W/o8" 2>&1
check "an unlisted host's certificate inside is the server's own" \
    grep -q "issuer: CN=airlock test ca" "$W/o8"
PH8=$(cat "$W/ph8.txt" 2>/dev/null)
check "... and the placeholder reached it unchanged, never the value" \
    grep -q "^runsc:$P /tunnel .*leak=${PH8:-none} " "$W/good.log"

# Upstream verification: a masked host whose server the upstream CA does
# not sign gets no request (never a downgrade).
run "$W/e9" -- sh -c 'curl -s -m 10 -o /dev/null -w "%{http_code}\n" \
    -H "Authorization: Bearer $API_KEY" https://localhost:'"$PB"'/unverified' \
    >"$W/o9" 2>&1
check "an unverified masked server: refused with 502" grep -q "^502$" "$W/o9"
check "... and it received no request" fails grep -q unverified "$W/bad.log"
check "proxyd says why (the certificate did not verify)" \
    grep -q "localhost:$PB: upstream TLS refused: certificate not verified" \
    "$W/d.log"

# The masked host over plain HTTP: the value never goes in clear, the
# placeholder is refused there too.
run "$W/e11" -- sh -c 'curl -s -m 10 -o /dev/null -w "%{http_code}\n" \
    -H "Authorization: Bearer $API_KEY" http://localhost:'"$PH"'/clear' \
    >"$W/o11" 2>&1
check_sh "the placeholder to its own host in clear: 403, never sent" \
    'grep -q "^403$" "$W/o11" && ! grep -q /clear "$W/plain.log"'

# An --env of a masked name would hand the agent the value: refused.
as_user "$AIRLOCK" run --socket "$W/d.sock" --settings "$W/settings.json" \
    --workspace "$W" --env API_KEY=handed-in -- true >"$W/o12" 2>&1
rc=$?
check_sh "--env of a masked variable is refused, naming it (exit $rc)" \
    '[ "$rc" -ne 0 ] && grep -q "API_KEY is masked" "$W/o12"'

# proxyd dies: the masked session ends (its CA and values died with it).
run "$W/e13" -- sh -c 'curl -sf -m 10 -o /dev/null \
    https://localhost:'"$P"'/before && echo first-ok; sleep 30;
    echo still-running' >"$W/o13" 2>&1 &
RUNPID=$!
i=0
while ! grep -q first-ok "$W/o13" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
PX=$(pgrep -u "$TUSER" -P "$DPID" -f airlock-proxyd | head -1)
[ -n "$PX" ] && kill -KILL "$PX"
wait "$RUNPID"
rc=$?
check_sh "proxyd killed: the masked session ends (exit $rc), nothing after" \
    '[ -n "$PX" ] && [ "$rc" -ne 0 ] && ! grep -q still-running "$W/o13"'

# airlock claude: ANTHROPIC_API_KEY masked toward the model's host, the
# real CLI against the mock Messages API serving TLS; the caller's own
# variable (a decoy here) is not passed either.
CLAUDE=$(PATH=/usr/local/bin:/usr/bin:/bin command -v claude)
H=$(mkwork)
mkdir -p "$H/.claude"
printf '{"model":"claude-mock","permissions":{"deny":[]}}\n' \
    >"$H/.claude/settings.json"
printf '{"numStartups":3,"hasCompletedOnboarding":true}\n' >"$H/.claude.json"
REALC="sk-ant-api03-$(openssl rand -hex 24)"
printf '{"ANTHROPIC_API_KEY":{"value":"%s"}}\n' "$REALC" >"$H/cred.json"
chmod 0600 "$H/cred.json"
cat >"$H/airlock.json" <<EOF
{"credentials":{"file":"$H/cred.json","mask":[
  {"name":"ANTHROPIC_API_KEY","host":"localhost","header":"x-api-key"}]},
 "sandbox":{"network":{"tls":{"upstreamCA":"$W/ca.pem"}}}}
EOF
cat >"$H/steps.json" <<'EOF'
[["Bash", {"command": "printf '%s\\n' \"$ANTHROPIC_API_KEY\" >claude-key.txt; env >claude-env.txt", "description": "key"}]]
EOF
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H"
: >"$W/mock.log"
CLAUDE_MOCK_TLS="$W/srv" python3 "$(dirname "$0")/claude_mock.py" "$W" \
    "$W/mock.log" "$W/mock.port" "$H/steps.json" >/dev/null 2>&1 &
PIDS="$PIDS $!"
i=0
while [ ! -s "$W/mock.port" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
as_user env HOME="$H" \
    ANTHROPIC_BASE_URL="https://localhost:$(cat "$W/mock.port")" \
    ANTHROPIC_API_KEY=sk-ant-api03-caller-decoy-value-0123456789 \
    "$AIRLOCK" claude --settings "$H/airlock.json" -- -p "the key" \
    >"$W/oc" 2>&1
rc=$?
check_sh "airlock claude ran the CLI to its end with a masked key (exit $rc)" \
    '[ -n "$CLAUDE" ] && [ "$rc" -eq 0 ]'
[ "$rc" -eq 0 ] || diag "$(tail -5 "$W/oc")"
keys() {	# keys LOG: the x-api-key values the mock received, one a line
	python3 -c 'import json, sys
print("\n".join(sorted({str(json.loads(l).get("apiKey"))
    for l in open(sys.argv[1])})))' "$1"
}
check_sh "the mock received the real key on every request" \
    '[ -s "$W/mock.log" ] && [ "$(keys "$W/mock.log")" = "$REALC" ]'
KC=$(cat "$W/claude-key.txt" 2>/dev/null)
check_sh "the agent's shell saw a placeholder of the key's shape" \
    '[ ${#KC} -eq ${#REALC} ] && [ "$KC" != "$REALC" ] &&
    case $KC in sk-ant-api03-*) true;; *) false;; esac'
check_sh "neither the real key nor the caller's value is in its environment" \
    '[ -s "$W/claude-env.txt" ] && ! grep -qe "$REALC" -e caller-decoy \
    "$W/claude-env.txt"'

# Nothing outside the sandbox carries the values either, airlockd's
# state (its audit log) included.
ST=$(as_user sh -c 'echo "${XDG_STATE_HOME:-$HOME/.local/state}/airlock"')
check_sh "the real values are in no event, log, audit log or client output" \
    '[ -s "$ST/audit.jsonl" ] && ! grep -rqe "$REAL" -e "$OTHER" -e "$REALC" \
    -e "$QREAL" -e "$BREAL" -e "$CREAL" "$W"/e[0-9]* "$W/d.log" \
    "$W"/o[0-9]* "$W/oc" "$ST" "$H"/.local/state'
finish
