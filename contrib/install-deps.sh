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
# What the tests and benchmarks run: a real git, curl, an HTTPS smart-HTTP
# upstream (lighttpd + its TLS module + git http-backend), openssl for a
# test CA, clang and its libFuzzer runtime (libclang-rt-dev, the version
# the clang package points at) for the fuzz targets, bubblewrap as the
# comparison, util-linux for setpriv, procps, iproute2, python3 for small
# test servers, an ssh client for git over ssh through the proxy.
TEST_PKGS="git curl lighttpd lighttpd-mod-openssl openssl clang
libclang-rt-dev bubblewrap util-linux procps iproute2 python3 tar make
openssh-client"
# zsh (with its zpty module) drives the zsh completion's test.
TEST_PKGS="$TEST_PKGS zsh"

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
	for t in git curl lighttpd openssl clang bwrap setpriv ssh zsh; do
		have_cmd "$t" || echo "command $t"
	done
	# The sandboxed tests run as another user with a system PATH: a
	# python3 found only in root's PATH (pyenv, say) is not theirs.
	[ -x /usr/bin/python3 ] || echo "file /usr/bin/python3"
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
# Packages present and files still missing is a broken install, not
# something for the tests to skip over.
m=$(missing)
if [ -n "$m" ]; then
	printf '%s\n' "$m" | sed 's/^/install-deps: still missing after install: /' >&2
	exit 1
fi
