# SPDX-License-Identifier: ISC
#
# What the benchmarks share: a world-readable stage holding a copy of
# the build (an unprivileged user must reach it) and a way to run as
# that user.  Sourced after BUILD is set.

# bench_stage TEMPLATE: STAGE (mktemp -d TEMPLATE) with build/, ws/ and
# helpers/ (the JSON-RPC client),
# ws owned by U, the user the sandboxes run as (airlock-test for root).
bench_stage() {
	STAGE=$(mktemp -d "$1")
	chmod 755 "$STAGE"
	cp -R "$BUILD" "$STAGE/build"
	chmod -R a+rX "$STAGE"
	mkdir "$STAGE/ws" "$STAGE/helpers"
	cp "$(dirname "$0")/../helpers/airlockd_rpc.py" "$STAGE/helpers/"
	U=$(id -un)
	if [ "$(id -u)" -eq 0 ]; then
		id airlock-test >/dev/null 2>&1 || useradd -m airlock-test
		U=airlock-test
		chown "$U" "$STAGE/ws"
	fi
}

# run_as CMD...: as U, with a default PATH, HOME=$BENCH_HOME (default:
# U's home) and the assignments in $BENCH_ENV.
run_as() {
	if [ "$(id -u)" -eq 0 ]; then
		# shellcheck disable=SC2086
		setpriv --reuid="$U" --regid="$U" --init-groups -- \
		    env PATH=/usr/local/bin:/usr/bin:/bin \
		    HOME="${BENCH_HOME:-$(getent passwd "$U" | cut -d: -f6)}" \
		    ${BENCH_ENV:-} "$@"
	else
		# shellcheck disable=SC2086
		env ${BENCH_ENV:-} "$@"
	fi
}
