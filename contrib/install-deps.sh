#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Install the Debian packages airlock needs to build and test.  With
# --if-missing it does nothing when every build library is found by
# pkg-config, every test tool is found (PATH, then /usr/sbin and /sbin: a
# normal user's PATH lacks them) and every file the tests load at run time
# exists (lighttpd's TLS module, clang's libFuzzer runtime): that is the
# fast path of `make check` and `make demo`.  Uses sudo when not root.
#
# Packages are installed with --no-install-recommends, so everything a
# README command needs is named here, including what Debian only
# recommends (lighttpd-mod-openssl holds lighttpd's mod_openssl.so).
set -eu

BUILD_PKGS="build-essential pkg-config libevent-dev libyajl-dev libcap-dev
libseccomp-dev check libssl-dev zlib1g-dev"
# PCRE2 for airlock-fs's fs.search patterns.
BUILD_PKGS="$BUILD_PKGS libpcre2-dev"
# What the tests and benchmarks run: a real git, curl, an HTTPS smart-HTTP
# upstream (lighttpd + its TLS module + git http-backend), openssl for a
# test CA, clang and its libFuzzer runtime (libclang-rt-dev, the version
# the clang package points at) for the fuzz targets, bubblewrap as the
# comparison, util-linux for setpriv, procps, iproute2, python3 for small
# test servers, an ssh client for git over ssh through the proxy.
TEST_PKGS="git curl lighttpd lighttpd-mod-openssl openssl clang
libclang-rt-dev bubblewrap util-linux procps iproute2 python3 tar make
openssh-client"
# python3-requests: tlsmask.sh runs python requests inside a sandbox, a
# client that reads REQUESTS_CA_BUNDLE (credential masking's CA).
TEST_PKGS="$TEST_PKGS python3-requests"
# Node.js and npm from Debian, for the real Claude Code CLI that
# tests/integration/claude.sh runs under `airlock claude` (npm, below).
NODE_PKGS="nodejs npm"
# The worktree tests make copy-on-write filesystems on loop devices
# (mkfs.xfs -m reflink=1, mkfs.btrfs); filefrag (e2fsprogs) shows the
# shared extents.
TEST_PKGS="$TEST_PKGS xfsprogs btrfs-progs e2fsprogs"
# ripgrep: what `make bench` compares fs.search with (tests/bench/fs.sh).
TEST_PKGS="$TEST_PKGS ripgrep"
# squid: the corporate upstream proxy of tests/integration/upstream.sh.
# squid-openssl is the same squid built with OpenSSL (it replaces the
# GnuTLS-built `squid` package): it has ssl-bump, which
# tests/bench/tls.sh measures TLS termination against.
TEST_PKGS="$TEST_PKGS squid-openssl"
# zsh (with its zpty module) drives the zsh completion's test.
TEST_PKGS="$TEST_PKGS zsh"
# groff-base: cli.sh renders airlock(1) (groff -mandoc, what man -l runs)
# to check its SYNOPSIS line breaks.
TEST_PKGS="$TEST_PKGS groff-base"
# git-lfs: gitcfg_allow.sh's host-side `git lfs pull` (a custom transfer
# agent in a repository's config is a program the host runs).
TEST_PKGS="$TEST_PKGS git-lfs"
# strace: sessions.sh (as root) checks that airlockd sleeps in no
# polling loop while it waits for a launcher.
TEST_PKGS="$TEST_PKGS strace"

# Debian packaging: package.sh builds the .deb from contrib/debian with
# dpkg-buildpackage (dpkg-dev, debhelper, fakeroot) and checks it with
# lintian.
TEST_PKGS="$TEST_PKGS dpkg-dev debhelper fakeroot lintian"
# What `make bench` runs (tests/bench/*.sh), installed only for it
# (--bench, first argument): hyperfine (startup), squid, tinyproxy and wrk
# (proxy), squid's ssl-bump (tls), ripgrep (fs), taskset from util-linux
# (policy).
BENCH_PKGS="hyperfine squid-openssl tinyproxy wrk ripgrep util-linux"
BENCH=
if [ "${1:-}" = --bench ]; then
	BENCH=1
	shift
	TEST_PKGS="$TEST_PKGS $BENCH_PKGS"
fi

have_cmd() {
	command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] ||
	    [ -x "/sbin/$1" ]
}

# The file clang links for -fsanitize=fuzzer, or nothing.
fuzzer_runtime() {
	command -v clang >/dev/null 2>&1 || return 0
	_f=$(clang -print-file-name="libclang_rt.fuzzer-$(uname -m).a" \
	    2>/dev/null) || return 0
	[ -e "$_f" ] && echo "$_f"
	return 0
}

# Prints what is missing, one item a line; nothing when all is there.
missing() {
	for p in libevent yajl libcap libseccomp check openssl zlib; do
		pkg-config --exists "$p" 2>/dev/null || echo "pkg-config $p"
	done
	for t in git curl lighttpd openssl clang bwrap setpriv ssh zsh git-lfs \
	    groff; do
		have_cmd "$t" || echo "command $t"
	done
	for f in /usr/sbin/mkfs.xfs /usr/sbin/mkfs.btrfs /usr/sbin/filefrag; do
		[ -x "$f" ] || [ -x "/sbin/${f##*/}" ] || echo "file $f"
	done
	pkg-config --exists libpcre2-8 2>/dev/null ||
	    echo "pkg-config libpcre2-8"
	have_cmd rg || echo "command rg"
	have_cmd strace || echo "command strace"
	for t in dpkg-buildpackage dh fakeroot lintian; do
		have_cmd "$t" || echo "command $t"
	done
	if [ -n "$BENCH" ]; then
		for t in hyperfine squid tinyproxy wrk rg taskset; do
			have_cmd "$t" || echo "command $t (make bench)"
		done
		# The GnuTLS-built squid has no ssl-bump for tls.sh.
		have_cmd squid && ! "$(command -v squid || echo /usr/sbin/squid)" \
		    -v 2>/dev/null | grep -q -e "'--with-openssl'" &&
		    echo "squid with ssl-bump (squid-openssl, make bench)"
	fi
	# The sandboxed tests run as another user with a system PATH: a
	# python3 found only in root's PATH (pyenv, say) is not theirs.
	[ -x /usr/bin/python3 ] || echo "file /usr/bin/python3"
	/usr/bin/python3 -c 'import requests' 2>/dev/null ||
	    echo "python3 module requests (python3-requests)"
	have_cmd npm || echo "command npm"
	# The test user's PATH: /usr/local/bin, /usr/bin, /bin.
	PATH=/usr/local/bin:/usr/bin:/bin command -v claude >/dev/null 2>&1 ||
	    echo "command claude (npm @anthropic-ai/claude-code)"
	# tests/integration/acp.sh's agent is written on the ACP SDK.
	[ -f "$(npm root -g 2>/dev/null)/@agentclientprotocol/sdk/package.json" ] ||
	    echo "npm @agentclientprotocol/sdk"
	# lighttpd without its TLS module starts nothing for the tests'
	# HTTPS code host: the module is a separate package.
	[ -e /usr/lib/lighttpd/mod_openssl.so ] ||
	    echo "file /usr/lib/lighttpd/mod_openssl.so"
	[ -n "$(fuzzer_runtime)" ] ||
	    echo "file libclang_rt.fuzzer-$(uname -m).a (clang's libFuzzer runtime)"
}

case ${1:-} in
--if-missing)
	[ -z "$(missing)" ] && exit 0 ;;
--check)
	# Report only: the install step of CI ends with this.
	m=$(missing)
	[ -z "$m" ] && exit 0
	printf '%s\n' "$m" | sed 's/^/install-deps: missing: /' >&2
	exit 1 ;;
esac

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "install-deps: not root and no sudo; install: $BUILD_PKGS $TEST_PKGS" >&2
		exit 1
	}
	SUDO=sudo
fi

echo "install-deps: installing Debian packages (apt-get)" >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends $BUILD_PKGS $TEST_PKGS >/dev/null
# Debian's nodejs and npm only where no npm is: a Node.js from another
# source (NodeSource's nodejs provides npm and conflicts with Debian's npm
# package) is kept, not fought over.
if ! have_cmd npm; then
	# shellcheck disable=SC2086
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends $NODE_PKGS >/dev/null
fi
# The Claude Code CLI from the npm registry, where the test user finds it.
if ! PATH=/usr/local/bin:/usr/bin:/bin command -v claude >/dev/null; then
	echo "install-deps: installing @anthropic-ai/claude-code (npm)" >&2
	$SUDO npm install -g --no-audit --no-fund @anthropic-ai/claude-code \
	    >/dev/null
fi
# The Agent Client Protocol SDK the ACP test's agent is written on.
if [ ! -f "$(npm root -g)/@agentclientprotocol/sdk/package.json" ]; then
	echo "install-deps: installing @agentclientprotocol/sdk (npm)" >&2
	$SUDO npm install -g --no-audit --no-fund @agentclientprotocol/sdk \
	    >/dev/null
fi
# Packages present and files still missing is a broken install, not
# something for the tests to skip over.
m=$(missing)
if [ -n "$m" ]; then
	printf '%s\n' "$m" | sed 's/^/install-deps: still missing after install: /' >&2
	exit 1
fi
