# SPDX-License-Identifier: ISC
#
# Shared helpers for the integration tests (POSIX sh, TAP output).
# The sandboxes run as $AIRLOCK_TEST_USER (an unprivileged user even when
# CI is root); binaries come from the staged, world-readable build.

STAGE=${AIRLOCK_STAGE:?run through tests/run.sh (make check)}
B="$STAGE/build"
AIRLOCK="$B/airlock"
AIRLOCKD="$B/airlockd"
TUSER=${AIRLOCK_TEST_USER:-$(id -un)}
_n=0
_fails=0

# The machine sets proxy and CA variables; tests decide their own.
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy ALL_PROXY all_proxy \
    NO_PROXY no_proxy

plan() { echo "1..$1"; }
ok() { _n=$((_n + 1)); echo "ok $_n - $*"; }
not_ok() { _n=$((_n + 1)); _fails=$((_fails + 1)); echo "not ok $_n - $*"; }
# check "description" command...: ok when the command succeeds
check() {
	_d=$1
	shift
	if "$@"; then ok "$_d"; else not_ok "$_d"; fi
}
# check_sh "description" 'condition': ok when the shell condition, for
# example '[ a ] && [ b ]', succeeds as a whole.  `check d [ a ] && [ b ]`
# would test only [ a ]: the shell runs `&& [ b ]` after check, outside
# it, and a false [ b ] is never counted.  The condition is evaluated
# here, so the test's functions and variables are in scope.
check_sh() {
	_csd=$1
	if [ $# -ne 2 ]; then
		not_ok "$_csd (check_sh takes one quoted condition)"
		return
	fi
	if eval "$2"; then ok "$_csd"; else not_ok "$_csd"; fi
}
diag() { echo "# $*"; }
# fails command...: succeeds when the command fails (for check)
fails() { ! "$@"; }
waitfor() {	# waitfor SECONDS COMMAND...: until it holds
	_t=$(($1 * 10))
	shift
	while ! "$@" && [ "$_t" -gt 0 ]; do sleep 0.1; _t=$((_t - 1)); done
	"$@"
}

# Run a command as the test user, in a login-free environment with HOME
# set to that user's home and the given working directory.
as_user() {
	if [ "$(id -u)" -eq 0 ] && [ "$TUSER" != root ]; then
		${_AS_EXEC:+exec} setpriv --reuid="$TUSER" --regid="$TUSER" --init-groups \
		    --reset-env -- env HOME="$(getent passwd "$TUSER" | cut -d: -f6)" \
		    USER="$TUSER" LOGNAME="$TUSER" PATH=/usr/local/bin:/usr/bin:/bin \
		    LANG=C.UTF-8 XDG_RUNTIME_DIR= "$@"
	else
		${_AS_EXEC:+exec} env "$@"
	fi
}

# Start a command as the test user in the background; $! is its pid (the
# subshell execs it in both branches of as_user, so killing $! kills the
# command, not a shell that would leave it running).
spawn_user() { ( _AS_EXEC=1 as_user "$@" ) & }

# The attack scripts' sandbox: one `airlock run` as the test user with
# $W as the workspace, its events appended to $EV.  sbx SHELL-COMMAND
sbx() {
	as_user "$AIRLOCK" run --no-policy-check --workspace "$W" \
	    --events "$EV.1" -- sh -c "$1"
	_rc=$?
	cat "$EV.1" >>"$EV" 2>/dev/null
	return $_rc
}
# refused SHELL-COMMAND: it fails inside the sandbox; with REFUSED_EACCES
# set, with "Permission denied" (the guard's EACCES, not any error).
refused() {
	_o=$(sbx "$1" 2>&1)
	[ $? -ne 0 ] || { diag "exit 0: $_o"; return 1; }
	[ -z "${REFUSED_EACCES:-}" ] && return 0
	case $_o in
	*"Permission denied"*) return 0 ;;
	*) diag "no EACCES: $_o"; return 1 ;;
	esac
}

# A test CA and certificates it signs, valid one day, in DIR (openssl;
# the machine's CA variables do not apply: the test names its own CA).
test_ca() {	# test_ca DIR NAME: DIR/NAME.pem and DIR/NAME.key
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 \
	    -subj "/CN=airlock test $2" -keyout "$1/$2.key" -out "$1/$2.pem" \
	    -addext basicConstraints=critical,CA:TRUE 2>/dev/null
}
test_cert() {	# test_cert DIR CA NAME SAN: DIR/NAME.pem, .key signed by CA
	openssl req -newkey rsa:2048 -nodes -subj "/CN=$3" -keyout "$1/$3.key" \
	    -out "$1/$3.csr" 2>/dev/null &&
	printf 'subjectAltName=%s\n' "$4" >"$1/$3.ext" &&
	openssl x509 -req -in "$1/$3.csr" -CA "$1/$2.pem" -CAkey "$1/$2.key" \
	    -CAcreateserial -days 1 -extfile "$1/$3.ext" -out "$1/$3.pem" \
	    2>/dev/null
}

# Wait up to 10 s for a unix socket to be there (a daemon just spawned).
wait_sock() {
	_i=0
	while [ ! -S "$1" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -S "$1" ]
}

# A fresh directory owned by the test user, under the world-readable stage.
mkwork() {
	_w=$(mktemp -d "$STAGE/work.XXXXXX")
	chmod 0755 "$_w"
	[ "$(id -u)" -eq 0 ] && chown "$TUSER" "$_w"
	echo "$_w"
}

user_home() { getent passwd "$TUSER" | cut -d: -f6; }

# A loopback HTTP server that counts hits in a file.  Prints its port.
http_counter_start() {	# http_counter_start HITFILE PIDFILE
	: >"$1"
	python3 - "$1" "$2" >/dev/null 2>&1 <<'PY' &
import http.server, sys, os
hits, pidfile = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(hits, "a") as f: f.write("hit\n")
        self.send_response(200); self.send_header("Content-Length", "3")
        self.end_headers(); self.wfile.write(b"ok\n")
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(pidfile + ".port", "w") as f: f.write(str(s.server_address[1]))
with open(pidfile, "w") as f: f.write(str(os.getpid()))
s.serve_forever()
PY
	# Up to 10 s: python starts slowly on a loaded CI machine.
	_i=0
	while [ ! -s "$2.port" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	cat "$2.port"
}
http_counter_stop() { kill "$(cat "$1")" 2>/dev/null; }
hits() { grep -c hit "$1" 2>/dev/null || true; }

# The commit judge's attack scripts (objstore, reflog, opstate, submod):
# judge_init makes MD, a world-writable directory for marks (removed at
# exit), and ERR; u CMD runs a shell command as the test user; GC is git
# with an identity; jrun W CMD is one `airlock run` with W as the
# workspace, its stderr in $ERR.
judge_init() {
	MD=$(mktemp -d /tmp/judge-mark.XXXXXX)
	chmod 1777 "$MD"
	trap 'rm -rf "$MD"' EXIT
	ERR="$MD/err"
	GC='git -c user.name=a -c user.email=a@a'
}
u() { as_user sh -c "$1"; }
jrun() {
	as_user "$AIRLOCK" run --no-policy-check --workspace "$1" \
	    -- sh -c "$2" >"$MD/out" 2>"$ERR"
	_rc=$?
	[ $_rc -eq 0 ] || diag "exit $_rc: $(head -c 600 "$ERR")"
	return $_rc
}

finish() { [ "$_fails" -eq 0 ]; }
