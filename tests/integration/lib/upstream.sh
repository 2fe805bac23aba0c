# SPDX-License-Identifier: ISC
#
# A real git smart-HTTP upstream on loopback for the push gateway's tests:
# Debian's lighttpd running `git http-backend` as CGI, behind HTTPS with a
# test CA made here with openssl (and on a second, plain-HTTP port for the
# benchmark), with basic auth that accepts only the write token (user
# x-access-token).  Bare repositories acme/app.git (with main) and
# acme/other.git.  Source it, then:
#
#   upstream_start DIR TOKEN   sets UP_DIR UP_HTTPS_PORT UP_HTTP_PORT UP_CA
#                              UP_HTTPS_URL UP_HTTP_URL (bases ending in /)
#   upstream_ref REPO REF      prints the object id of REF in REPO (bare
#                              repo read directly, no network), or nothing
#   upstream_stop
#   upstream_up                upstream_start in a new world-traversable
#                              directory with a new write token, the TLS
#                              files readable by the test user; sets TOKEN
#                              and UPD, or bails out of the test (the
#                              caller's EXIT trap stops it and removes UPD)
#
# The machine's GIT_SSL_CAINFO / CURL_CA_BUNDLE / SSL_CERT_FILE are replaced
# by the test CA so a direct push verifies against it and nothing else,
# and the machine's proxy variables are unset: everything stays on
# loopback.

unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy ALL_PROXY all_proxy \
    NO_PROXY no_proxy SSL_CERT_DIR

# lighttpd's path, or "lighttpd" (which then fails to start) when absent.
upstream_lighttpd() {
	command -v lighttpd 2>/dev/null && return 0
	for _l in /usr/sbin/lighttpd /sbin/lighttpd; do
		[ -x "$_l" ] && { echo "$_l"; return 0; }
	done
	echo lighttpd
}

upstream_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

upstream_start() {
	UP_DIR=$1
	UP_TOKEN=$2
	mkdir -p "$UP_DIR/repos/acme" "$UP_DIR/tmp" "$UP_DIR/tls" "$UP_DIR/seed"
	# Test CA and a server certificate for 127.0.0.1 and localhost.
	(
		cd "$UP_DIR/tls" || exit 1
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
		    -subj "/CN=airlock test CA" -keyout ca.key -out ca.pem \
		    -addext basicConstraints=critical,CA:TRUE \
		    -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
		openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
		    -keyout server.key -out server.csr 2>/dev/null
		printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' > ext.cnf
		openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key \
		    -CAcreateserial -days 2 -extfile ext.cnf -out server.pem \
		    2>/dev/null
		cat server.pem server.key > server-bundle.pem
	) || return 1
	UP_CA=$UP_DIR/tls/ca.pem
	export GIT_SSL_CAINFO="$UP_CA" CURL_CA_BUNDLE="$UP_CA" SSL_CERT_FILE="$UP_CA"

	for r in app other; do
		git init -q --bare -b main "$UP_DIR/repos/acme/$r.git" || return 1
		git -C "$UP_DIR/repos/acme/$r.git" config http.receivepack true
	done
	git init -q -b main "$UP_DIR/seed"
	git -C "$UP_DIR/seed" -c user.name=seed -c user.email=seed@example.invalid \
	    commit -q --allow-empty -m "initial"
	git -C "$UP_DIR/seed" push -q "$UP_DIR/repos/acme/app.git" main || return 1
	git -C "$UP_DIR/seed" push -q "$UP_DIR/repos/acme/other.git" main || return 1

	printf 'x-access-token:%s\n' "$UP_TOKEN" > "$UP_DIR/users"
	chmod 600 "$UP_DIR/users"
	UP_HTTPS_PORT=$(upstream_free_port)
	UP_HTTP_PORT=$(upstream_free_port)
	cat > "$UP_DIR/lighttpd.conf" <<CONF
server.modules = ( "mod_access", "mod_alias", "mod_auth", "mod_authn_file",
    "mod_cgi", "mod_setenv", "mod_openssl" )
server.document-root = "$UP_DIR/repos"
server.bind = "127.0.0.1"
server.port = $UP_HTTP_PORT
server.errorlog = "$UP_DIR/error.log"
server.pid-file = "$UP_DIR/lighttpd.pid"
server.upload-dirs = ( "$UP_DIR/tmp" )
server.max-request-size = 4194304
server.stream-request-body = 0
server.stream-response-body = 2
\$SERVER["socket"] == "127.0.0.1:$UP_HTTPS_PORT" {
	ssl.engine = "enable"
	ssl.pemfile = "$UP_DIR/tls/server-bundle.pem"
}
alias.url = ( "/" => "/usr/lib/git-core/git-http-backend/" )
cgi.assign = ( "" => "" )
setenv.add-environment = ( "GIT_PROJECT_ROOT" => "$UP_DIR/repos",
    "GIT_HTTP_EXPORT_ALL" => "1" )
auth.backend = "plain"
auth.backend.plain.userfile = "$UP_DIR/users"
auth.require = ( "/" => ( "method" => "basic", "realm" => "code host",
    "require" => "valid-user" ) )
CONF
	# A normal user's PATH has no /usr/sbin, where Debian puts lighttpd.
	"$(upstream_lighttpd)" -f "$UP_DIR/lighttpd.conf" || return 1
	i=0
	while [ ! -s "$UP_DIR/lighttpd.pid" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	UP_HTTPS_URL="https://127.0.0.1:$UP_HTTPS_PORT/"
	UP_HTTP_URL="http://127.0.0.1:$UP_HTTP_PORT/"
	# Wait until it answers (401 without the token).
	i=0
	while ! curl -s -o /dev/null --cacert "$UP_CA" "$UP_HTTPS_URL" && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

upstream_ref() {
	git --git-dir="$UP_DIR/repos/$1" rev-parse -q --verify "$2" 2>/dev/null
}

upstream_stop() {
	if [ -s "$UP_DIR/lighttpd.pid" ]; then
		kill "$(cat "$UP_DIR/lighttpd.pid")" 2>/dev/null
		rm -f "$UP_DIR/lighttpd.pid"
	fi
}

upstream_up() {
	TOKEN="wt-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
	UPD=$(mktemp -d /tmp/airlock-up.XXXXXX)
	chmod 0755 "$UPD"
	upstream_start "$UPD" "$TOKEN" || { echo "Bail out! upstream"; exit 1; }
	chmod -R a+rX "$UPD/tls"
	chmod 0644 "$UP_CA"
}
