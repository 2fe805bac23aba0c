#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Install the Debian packages airlock needs to build and test.  With
# --if-missing it does nothing when every build library is found by
# pkg-config and every test tool is on PATH (the fast path of `make check`
# and `make demo`).  Uses sudo when not root.
set -eu

BUILD_PKGS="build-essential pkg-config libevent-dev libnl-3-dev
libnl-route-3-dev libyajl-dev libcap-dev libseccomp-dev check libssl-dev
zlib1g-dev"
# What the tests and benchmarks run: a real git, curl, an HTTPS smart-HTTP
# upstream (lighttpd + git http-backend), openssl for a test CA, clang for
# the libFuzzer targets, bubblewrap as the comparison, util-linux for
# setpriv, procps, iproute2, python3 for small test servers.
TEST_PKGS="git curl lighttpd openssl clang libclang-rt-14-dev bubblewrap
util-linux procps iproute2 python3 tar make"

missing() {
	for p in libevent yajl libcap libseccomp check libnl-3.0 \
	    libnl-route-3.0 openssl zlib; do
		pkg-config --exists "$p" 2>/dev/null || return 0
	done
	for t in git curl lighttpd openssl clang bwrap setpriv; do
		command -v "$t" >/dev/null 2>&1 || return 0
	done
	# The sandboxed tests run as another user with a system PATH: a
	# python3 found only in root's PATH (pyenv, say) is not theirs.
	[ -x /usr/bin/python3 ] || return 0
	[ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] ||
	    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a \
	    >/dev/null 2>&1 || return 0
	return 1
}

if [ "${1:-}" = "--if-missing" ] && ! missing; then
	exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "install-deps: not root and no sudo; install: $BUILD_PKGS $TEST_PKGS" >&2
		exit 1
	}
	SUDO=sudo
fi

echo "install-deps: installing Debian packages (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $BUILD_PKGS $TEST_PKGS >/dev/null
