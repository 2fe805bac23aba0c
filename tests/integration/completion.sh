#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Shell completion (issue 13): contrib/completion/airlock.bash in bash
# and contrib/completion/_airlock in a real interactive `zsh -f` with
# compinit complete airlock's subcommands and options.  The lists are
# taken from airlock's own usage text, so a subcommand or an option
# added without its completion fails here.  zsh is installed by
# contrib/install-deps.sh: without it this fails, it does not skip.
. "$(dirname "$0")/lib.sh"
plan 14
W=$(mkwork)
C="${AIRLOCK_TOP:?}/contrib/completion"

bcomp() {	# bcomp WORDS...: what bash completes for the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
	    _airlock; printf "%s\n" "${COMPREPLY[@]}"' sh "$C/airlock.bash" "$@"
}
zcomp() {	# zcomp LINE: what zsh completes at the end of LINE
	rm -f "$W/z.out"
	timeout 20 zsh -f "$AIRLOCK_TOP/tests/helpers/zsh_complete.zsh" \
	    "$C" "$W/z.out" "$1" >/dev/null 2>&1
	grep -qx '#done' "$W/z.out" || { echo "zsh: no completion" >&2; return 1; }
	sed 's/^ *//' "$W/z.out" | grep -v '^#done$' | sort -u
}
# missing WANT HAVE: the words of WANT not among the lines of HAVE
missing() {
	for w in $1; do
		printf '%s\n' "$2" | grep -qxe "$w" || printf '%s ' "$w"
	done
}

# The subcommands: the first word of each "  name ..." line of the usage.
"$AIRLOCK" >/dev/null 2>"$W/usage"
SUBS=$(sed -n 's/^  \([a-z][a-z-]*\).*/\1/p' "$W/usage")
check "the usage names subcommands (run among them)" sh -c \
    'printf "%s\n" "$1" | grep -qx run' sh "$SUBS"
# run's options: every -x and --word of `airlock run --help`.
RUNOPTS=$("$AIRLOCK" run --help | grep -o -e '--[a-z][a-z-]*' -e ' -[a-zA-Z]\b' |
    tr -d ' ' | sort -u)
check "run --help names options (--workspace among them)" sh -c \
    'printf "%s\n" "$1" | grep -qx -e --workspace' sh "$RUNOPTS"
# The options of the other subcommands: the --words of their usage line.
opts_of() { sed -n "s/^  $1 //p" "$W/usage" | grep -o -e '--[a-z][a-z-]*' | sort -u; }

command -v zsh >/dev/null 2>&1
check "zsh is installed (contrib/install-deps.sh)" [ $? -eq 0 ]

m=$(missing "$SUBS" "$(bcomp airlock '')")
check "bash: every subcommand of the usage [${m}]" [ -z "$m" ]
m=$(missing "$SUBS" "$(zcomp 'airlock ')")
check "zsh: every subcommand of the usage [${m}]" [ -z "$m" ]
check "zsh: a prefix completes to its subcommand" \
    [ "$(zcomp 'airlock sta')" = status ]

m=$(missing "$RUNOPTS" "$(bcomp airlock run -)")
check "bash: every option of run --help [${m}]" [ -z "$m" ]
m=$(missing "$RUNOPTS" "$(zcomp 'airlock run -')")
check "zsh: every option of run --help [${m}]" [ -z "$m" ]
m=""
for s in status policy; do
	sub=$s; [ "$s" = policy ] && sub="policy check"
	m="$m$(missing "$(opts_of "$s")" "$(bcomp airlock $sub -)")"
	m="$m$(missing "$(opts_of "$s")" "$(zcomp "airlock $sub -")")"
done
check "bash and zsh: status and policy check options [${m}]" [ -z "$m" ]

check "zsh: run --mode completes the modes" \
    [ "$(zcomp 'airlock run --mode ' | tr '\n' ' ')" = \
    "chat orchestrate plan review " ]
check "zsh: run --network completes on/off" \
    [ "$(zcomp 'airlock run --network ' | tr '\n' ' ')" = "off on " ]
check "zsh: policy completes check and egress" \
    [ "$(zcomp 'airlock policy ' | tr '\n' ' ')" = "check egress " ]
check "bash: policy completes check and egress, egress its options" sh -c \
    '[ "$(printf "%s\n" "$1" | tr "\n" " ")" = "check egress " ] &&
    printf "%s\n" "$2" | grep -qx -e --allow-domain' sh \
    "$(bcomp airlock policy '')" "$(bcomp airlock policy egress -)"
check "zsh: help completes settings" \
    [ "$(zcomp 'airlock help set' | tr '\n' ' ')" = "settings setup " ]
finish
