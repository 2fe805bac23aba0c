#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The proxy's special ranges (issue 11, R-E5): with `--allow-domain '*'`
# a sandbox must not reach a service on one of the host's own addresses
# (here a public-looking one), nor on the IETF documentation ranges,
# unless a rule names the literal.  The "host" is a network namespace
# this test makes itself (a user namespace keeps it unprivileged): its
# lo gets the addresses, and airlock run, its private airlockd and
# proxyd all live in it.  The machine's real interfaces are never
# touched.
. "$(dirname "$0")/lib.sh"
plan 8

W=$(mkwork)
cd "$W" || exit 1
IP=$(command -v ip || echo /usr/sbin/ip)

cat >"$W/srv.py" <<'PY'
import http.server, socket, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        open(sys.argv[3], "a").write("hit\n")
        self.send_response(200); self.send_header("Content-Length", "3")
        self.end_headers(); self.wfile.write(b"ok\n")
    def log_message(self, *a): pass
class S(http.server.HTTPServer):
    address_family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
S((sys.argv[1], int(sys.argv[2])), H).serve_forever()
PY

# Inside the namespace: addresses on lo, one server on each, then one
# run per target; prints NAME=HTTP-CODE:HITS.
cat >"$W/inner.sh" <<EOF
set -u
set -f	# the allow patterns below include '*'
$IP link set lo up
$IP addr add 1.2.3.4/32 dev lo
$IP addr add 198.51.100.7/32 dev lo
$IP -6 addr add 2001:db8::7/128 dev lo nodad
for a in 1.2.3.4 198.51.100.7 2001:db8::7; do
	: >"$W/hits-\$a"
	python3 "$W/srv.py" "\$a" 8765 "$W/hits-\$a" >/dev/null 2>&1 &
	pids="\${pids:-} \$!"
done
sleep 0.5
# Drop the namespace's capabilities before airlock runs.
try() {	# try NAME URL ALLOW...
	n=\$1; u=\$2; shift 2
	a=""
	for x in "\$@"; do a="\$a --allow-domain \$x"; done
	: >"$W/hits-now"
	c=\$(setpriv --inh-caps=-all --ambient-caps=-all env \
	    XDG_RUNTIME_DIR="$W/rt" "$AIRLOCK" run --workspace "$W" \
	    --events "$W/ev-\$n.jsonl" \$a -- curl -s -m 8 -o /dev/null \
	    -w '%{http_code}' "\$u" 2>/dev/null)
	printf '%s=%s\n' "\$n" "\$c"
}
mkdir -p "$W/rt"
try self http://1.2.3.4:8765/ '*'
printf 'selfhits=%s\n' "\$(grep -c hit "$W/hits-1.2.3.4")"
try selflit http://1.2.3.4:8765/ 1.2.3.4
printf 'selflithits=%s\n' "\$(grep -c hit "$W/hits-1.2.3.4")"
try doc http://198.51.100.7:8765/ '*'
printf 'dochits=%s\n' "\$(grep -c hit "$W/hits-198.51.100.7")"
try doc6 'http://[2001:db8::7]:8765/' '*'
printf 'doc6hits=%s\n' "\$(grep -c hit "$W/hits-2001:db8::7")"
# An address the host gains while a run is going: proxyd read the
# interfaces before it existed.
rm -f "$W/go"
setpriv --inh-caps=-all --ambient-caps=-all env XDG_RUNTIME_DIR="$W/rt" \
    "$AIRLOCK" run --workspace "$W" --events "$W/ev-late.jsonl" \
    --allow-domain '*' -- sh -c "while [ ! -e '$W/go' ]; do sleep 0.1;
    done; curl -s -m 8 -o /dev/null -w '%{http_code}' \
    http://5.6.7.8:8765/" >"$W/late.out" 2>/dev/null &
rp=\$!
sleep 2
$IP addr add 5.6.7.8/32 dev lo
: >"$W/hits-5.6.7.8"
python3 "$W/srv.py" 5.6.7.8 8765 "$W/hits-5.6.7.8" >/dev/null 2>&1 &
pids="\$pids \$!"
sleep 0.5
touch "$W/go"
wait \$rp
printf 'late=%s\n' "\$(cat "$W/late.out")"
printf 'latehits=%s\n' "\$(grep -c hit "$W/hits-5.6.7.8")"
kill \$pids 2>/dev/null
EOF
chmod -R a+rX "$W"
field() { printf '%s\n' "$out" | sed -n "s|^$1=||p" | head -1; }
out=$(as_user unshare --user --map-current-user --net --keep-caps \
    sh "$W/inner.sh" 2>&1)
diag "$(printf '%s' "$out" | tr '\n' ' ')"

check "with '*', the host's own address 1.2.3.4 is refused (HTTP $(field self), hits $(field selfhits))" \
    [ "$(field selfhits)" = 0 ]
check "the refusal is a violation event naming it" \
    grep -q '"type":"violation".*1\.2\.3\.4' "$W/ev-self.jsonl"
check "a rule naming the literal 1.2.3.4 reaches it (HTTP $(field selflit), hits $(field selflithits))" \
    [ "$(field selflit):$(field selflithits)" = 200:1 ]
check "with '*', 198.51.100.7 (documentation) is refused (HTTP $(field doc), hits $(field dochits))" \
    [ "$(field dochits)" = 0 ]
check "with '*', 2001:db8::7 (documentation) is refused (HTTP $(field doc6), hits $(field doc6hits))" \
    [ "$(field doc6hits)" = 0 ]
check "the documentation refusals are violation events" \
    sh -c "grep -q '\"type\":\"violation\"' '$W/ev-doc.jsonl' &&
    grep -q '\"type\":\"violation\"' '$W/ev-doc6.jsonl'"

check "an address the host gains during the run is refused too (HTTP $(field late), hits $(field latehits))" \
    [ "$(field latehits)" = 0 ]
check "... and is a violation event" \
    grep -q '"type":"violation".*5\.6\.7\.8' "$W/ev-late.jsonl"

cd /
finish
