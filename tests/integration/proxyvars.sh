#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The proxy variables of a sandbox for tools that read neither HTTP_PROXY
# nor ALL_PROXY (issue 28): gRPC, the Google Cloud SDK, the JVM, npm,
# yarn and pip.  The JVM and npm are run for real: a Java program inside
# reaches an allowed loopback server only through the sandbox's proxy
# (the same program without JAVA_TOOL_OPTIONS does not), and npm reports
# the proxy as its own setting.
. "$(dirname "$0")/lib.sh"
plan 6

W=$(mkwork)
cd "$W" || exit 1
PORT=$(http_counter_start "$W/hits" "$W/srv.pid")
trap 'http_counter_stop "$W/srv.pid"' EXIT

A() { as_user "$AIRLOCK" run --workspace "$W" "$@"; }

A -- env >"$W/env" 2>&1
check_sh "gRPC, Cloud SDK, npm, yarn and pip variables name the HTTP listener" \
    'for v in GRPC_PROXY grpc_proxy npm_config_proxy npm_config_https_proxy \
	    YARN_HTTP_PROXY YARN_HTTPS_PROXY PIP_PROXY; do
	grep -qx "$v=http://127.0.0.1:3128" "$W/env" || { diag "no $v"; exit 1; }
    done; grep -qx CLOUDSDK_PROXY_TYPE=http "$W/env" &&
    grep -qx CLOUDSDK_PROXY_ADDRESS=127.0.0.1 "$W/env" &&
    grep -qx CLOUDSDK_PROXY_PORT=3128 "$W/env"'
check "JAVA_TOOL_OPTIONS holds the proxy properties and nothing else" \
    grep -qx "JAVA_TOOL_OPTIONS=-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=3128 -Dhttp.nonProxyHosts=" "$W/env"

if command -v java >/dev/null 2>&1; then
	cat >"$W/Get.java" <<'JAVA'
import java.net.HttpURLConnection;
import java.net.URL;
public class Get {
	public static void main(String[] a) throws Exception {
		HttpURLConnection c =
		    (HttpURLConnection)new URL(a[0]).openConnection();
		c.setConnectTimeout(5000);
		c.setReadTimeout(5000);
		System.out.println("status " + c.getResponseCode());
	}
}
JAVA
	chmod a+r "$W/Get.java"
	A --allow-domain "localhost:$PORT" -- java Get.java \
	    "http://localhost:$PORT/" >"$W/java1" 2>&1
	check_sh "a Java program reaches the allowed server through the proxy" \
	    'grep -qx "status 200" "$W/java1" && [ "$(hits "$W/hits")" -eq 1 ]'
	A --allow-domain "localhost:$PORT" -- sh -c 'unset JAVA_TOOL_OPTIONS
	    exec java Get.java "$1"' sh "http://localhost:$PORT/" \
	    >"$W/java2" 2>&1
	check_sh "control: without the variable it does not (nothing direct)" \
	    '! grep -q "status 200" "$W/java2" && [ "$(hits "$W/hits")" -eq 1 ]'
else
	ok "# SKIP no java"
	ok "# SKIP no java"
fi
if command -v npm >/dev/null 2>&1; then
	A -- sh -c 'npm config get proxy; npm config get https-proxy' \
	    >"$W/npm" 2>&1
	check_sh "npm takes the proxy as its own setting" \
	    '[ "$(grep -cx "http://127.0.0.1:3128" "$W/npm")" -eq 2 ]'
else
	ok "# SKIP no npm"
fi
A --env JAVA_TOOL_OPTIONS=-javaagent:/x.jar -- true >"$W/jto" 2>&1
jrc=$?
check_sh "a JAVA_TOOL_OPTIONS of the caller's is still refused, named" \
    '[ $jrc -ne 0 ] && grep -q "JAVA_TOOL_OPTIONS: a variable that changes what a program loads" "$W/jto"'
