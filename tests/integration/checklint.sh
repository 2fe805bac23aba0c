#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The integration scripts' own checks are honest: no `check` statement
# goes on past its command with a shell operator.  In
# `check "d" [ a ] && [ b ]` check is handed only `[ a ]`; the shell runs
# `&& [ b ]` after check has printed ok, and a false [ b ] is never
# counted (the same for ||, |, ; and &).  Such a condition belongs in
# check_sh "d" '[ a ] && [ b ]'.  The scan tokenizes each statement as
# the shell would (quotes, backslash-newlines, a trailing && or |
# continuing the line); a known-bad sample shows it can fail.
. "$(dirname "$0")/lib.sh"
plan 2

scan() {	# scan FILE...: print each check statement with an operator
	python3 - "$@" <<'PY'
import re, shlex, sys

def tokens(text):
    lx = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lx.whitespace_split = True
    lx.commenters = ""
    return list(lx)

for name in sys.argv[1:]:
    lines = open(name).read().split("\n")
    i = 0
    while i < len(lines):
        if not re.match(r"\s*check\s", lines[i]):
            i += 1
            continue
        start, text = i, lines[i]
        while True:
            try:
                t = tokens(text.replace("\\\n", " "))
                if text.endswith("\\") or (t and t[-1] in ("&&", "||", "|")):
                    raise ValueError("continued")
                break
            except ValueError:
                i += 1
                if i >= len(lines):
                    t = []
                    break
                text += "\n" + lines[i]
        i += 1
        if any(x in ("&&", "||", "|", ";", "&") for x in t):
            print("%s:%d: %s" % (name, start + 1, text.split("\n")[0]))
PY
}

T=$(mktemp -d "$STAGE/lint.XXXXXX")
cat >"$T/bad.sh" <<'EOF'
check "one" [ "$a" = 1 ] && [ "$b" = 2 ]
check "two" \
    [ "$a" = 1 ] ||
    [ "$b" = 2 ]
check "three" sh -c 'echo a && echo b'; echo outside
check_sh "fine" '[ "$a" = 1 ] && [ "$b" = 2 ]'
check "fine too" sh -c "[ '$a' = 1 ] && [ '$b' = 2 ]"
EOF
bad=$(scan "$T/bad.sh" | wc -l)
check "the scan finds the 3 bad statements of a sample (found $bad)" \
    [ "$bad" -eq 3 ]

# shlex does not know $( ): keep an operator inside "$(...)" out of a
# check statement (compute the value first), or the scan reports it.
# (This script is left out: its sample is bad on purpose.)
(cd "$STAGE/tests/integration" &&
    scan $(ls *.sh | grep -vx checklint.sh)) >"$T/found"
rc=$?
found=$(cat "$T/found")
check_sh "no check statement in tests/integration runs on past its command" \
    '[ "$rc" -eq 0 ] && [ -z "$found" ]'
[ -z "$found" ] || printf '%s\n' "$found" | sed 's/^/# /'
rm -rf "$T"
finish
