#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Credential masking settings (issue 28, R-K1): credentials.mask is read
# and checked, its errors name the entry and key in the user's words, a
# secret written inline in the settings is refused, and a launch whose
# masked value cannot be read is refused rather than started without it
# (never a setting accepted and ignored).  The control run without
# credentials.mask shows the command does run.  Masking itself, end to
# end: tlsmask.sh.
. "$(dirname "$0")/lib.sh"
plan 8

W=$(mkwork)

cd "$W" || exit 1
ran() { [ -e "$W/mark-$1" ]; }
run_with() {	# run_with SETTINGS-JSON MARKER
	printf '%s\n' "$1" >"$W/s-$2.json"
	as_user "$AIRLOCK" run --workspace "$W" --settings "$W/s-$2.json" \
	    -- sh -c "touch '$W/mark-$2'" 2>"$W/e-$2"
}
ENT='"name":"API_KEY","host":"api.example","header":"Authorization"'

run_with '{"credentials":{"mask":[{'"$ENT"',"source":"file"}]}}' m1
rc=$?
check_sh "credentials.mask without its value: launch refused (exit $rc)" \
    '[ "$rc" -ne 0 ] && ! ran m1'
check_sh "the refusal names the entry and the credentials file" \
    'grep -q "credentials.mask API_KEY: .*credentials.json" "$W/e-m1"'

run_with '{"credentials":{"mask":[{"name":"API_KEY",
    "host":"api.example:443","header":"Authorization"}]}}' m2
rc=$?
check_sh "a host with a port is refused before any launch (exit $rc)" \
    '[ "$rc" -ne 0 ] && ! ran m2'
check_sh "the error names credentials.mask[0].host" \
    'grep -q "credentials.mask\[0\].host: \"api.example:443\" is not a host" \
    "$W/e-m2"'

run_with '{"credentials":{"mask":[{'"$ENT"',
    "value":"sk-inline-SECRET-0123456789abcdef"}]}}' m3
rc=$?
check_sh "a value written inline in the settings is refused (exit $rc)" \
    '[ "$rc" -ne 0 ] && ! ran m3 &&
    grep -q "credentials.mask\[0\].value: unknown key" "$W/e-m3"'
check_sh "the refused inline value is not repeated in the error" \
    '! grep -q "SECRET-0123456789" "$W/e-m3"'

run_with '{"credentials":{"mask":[{"name":"API_KEY","host":"api.example"}]}}' m4
check_sh "an entry that says not where the value goes is refused" \
    '! ran m4 && grep -q "needs exactly one of" "$W/e-m4"'

# Control: the same run without credentials.mask does start.
run_with '{"credentials":{"file":"~/.config/airlock/credentials.json"}}' m5
rc=$?
check_sh "control: without credentials.mask the command runs (exit $rc)" \
    '[ "$rc" -eq 0 ] && ran m5'
finish
