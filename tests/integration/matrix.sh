#!/bin/sh
# SPDX-License-Identifier: ISC
#
# `airlock matrix` (R-A3) is computed from the live probe and the
# settings: turning the sandbox off (flag and settings), the network off,
# and removing the credentials file each change what it says.
. "$(dirname "$0")/lib.sh"
plan 15

H=$(mkwork)		# the test user's home
mkdir -p "$H/.config/airlock"
printf '{"github":{"writeToken":"t0k","readToken":"t0k"}}\n' \
    >"$H/.config/airlock/credentials.json"
chmod 0600 "$H/.config/airlock/credentials.json"
printf '{"sandbox":{"enabled":false}}\n' >"$H/off.json"
printf '{"acp":{"passThrough":["fs"]}}\n' >"$H/acpfs.json"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H"

mx() { as_user env HOME="$H" "$AIRLOCK" matrix --json "$@"; }
# cell JSON ADAPTER BOUNDARY: "state: text"
cell() {
	printf '%s' "$1" | python3 -c 'import json, sys
c = json.load(sys.stdin)["adapters"][sys.argv[1]][sys.argv[2]]
print(c["state"] + ": " + c.get("by", c.get("why", "")))' "$2" "$3"
}

on=$(mx)
check "the matrix runs and answers JSON" [ -n "$(cell "$on" claude env)" ]
n=$(printf '%s' "$on" | python3 -c 'import json, sys
a = json.load(sys.stdin)["adapters"]
print(len(a), *sorted(len(v) for v in a.values()))')
check "5 adapters x 9 boundaries" [ "$n" = "5 9 9 9 9 9" ]
c=$(cell "$on" claude "OS sandbox")
check_sh "sandbox on: claude's OS sandbox is enforced" \
    'case $c in "enforced: the OS sandbox"*) true;; *) false;; esac'
c=$(cell "$on" "harness command" "push gateway")
check_sh "credentials there: the push gateway is enforced" \
    'case $c in "enforced: gatewayd"*) true;; *) false;; esac'
c=$(cell "$on" acp "path checks")
check_sh "acp: its fs/* served by airlock-fs in the sandbox" \
    'case $c in enforced:*airlock-fs*) true;; *) false;; esac'
c=$(cell "$on" acp guardrails)
check_sh "acp: terminal commands through the command policy" \
    'case $c in enforced:*"command policy"*) true;; *) false;; esac'
pass=$(mx --settings "$H/acpfs.json")
c=$(cell "$pass" acp "path checks")
check_sh "acp.passThrough fs: acp's path checks are partial" \
    'case $c in partial:*passThrough*) true;; *) false;; esac'

off=$(mx --sandbox off)
c=$(cell "$off" claude "OS sandbox")
check_sh "--sandbox off: claude's OS sandbox is not enforced" \
    'case $c in "not enforced: the sandbox is turned off"*) true;;
    *) false;; esac'
c=$(cell "$off" "terminal native" "OS sandbox")
check_sh "--sandbox off: a native terminal cannot open" \
    'case $c in "not enforced: no native terminal"*) true;; *) false;; esac'
c=$(cell "$off" claude "path checks")
check_sh "--sandbox off: claude's path checks are the hook's alone" \
    'case $c in partial:*hook*) true;; *) false;; esac'
off=$(mx --settings "$H/off.json")
c=$(cell "$off" "harness command" "credentials")
check_sh "settings sandbox.enabled false: the secret set is readable" \
    'case $c in "not enforced: unconfined"*) true;; *) false;; esac'

net=$(mx --network off)
c=$(cell "$net" "harness command" network)
check_sh "--network off: no network at all" \
    'case $c in enforced:*"no network at all"*) true;; *) false;; esac'
c=$(cell "$net" claude network)
check_sh "--network off: claude does not start" \
    'case $c in "not enforced:"*network*) true;; *) false;; esac'

rm -f "$H/.config/airlock/credentials.json"
nocred=$(mx)
c=$(cell "$nocred" "harness command" "push gateway")
check_sh "credentials removed: the push gateway is partial" \
    'case $c in partial:*"no credentials"*) true;; *) false;; esac'
human=$(as_user env HOME="$H" "$AIRLOCK" matrix | grep -c \
    -e '  enforced by ' -e '  partial: ' -e '  not enforced: ')
check "the table names a state for each of the 45 cells" [ "$human" -eq 45 ]
finish
