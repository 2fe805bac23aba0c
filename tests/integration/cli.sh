#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The client's shape for people (issue 26): --help and `help CMD` for
# every command, an unknown command named with the nearest one, status
# as text (and JSON with --json), the man page's SYNOPSIS one command a
# line, the option table (client/cli_opt.c, printed by CMD --help) in
# agreement with the man page and both completions, and the habits of
# bwrap and docker: --chdir, -e NAME[=VALUE], --bind SRC:DST, a path
# given as the command run as a program.  Sandboxes run as the
# unprivileged user.
. "$(dirname "$0")/lib.sh"
plan 59
W=$(mkwork)
cd "$W" || exit 1
TOP=${AIRLOCK_TOP:?}
MAN="$TOP/contrib/man/airlock.1"
C="$TOP/contrib/completion"
A() { as_user "$AIRLOCK" "$@"; }

# ---- help for every command ----
A --help >"$W/help" 2>"$W/help.err"
check "airlock --help exits 0 on stdout" sh -c \
    '[ $1 -eq 0 ] && grep -q "^  run " "$2" && [ ! -s "$3" ]' sh $? \
    "$W/help" "$W/help.err"
# The commands: those the bare usage (on stderr, exit 2) lists.
A >/dev/null 2>"$W/usage"
SUBS=$(sed -n 's/^  \([a-z][a-z-]*\).*/\1/p' "$W/usage")
check "the command list has a dozen commands" \
    [ "$(printf '%s\n' "$SUBS" | wc -l)" -ge 12 ]
bad=""
for s in $SUBS; do
	A "$s" --help >"$W/h.$s" 2>/dev/null || bad="$bad $s(exit $?)"
	# A description, not just a usage line: two lines at least.
	[ "$(wc -l <"$W/h.$s")" -ge 2 ] || bad="$bad $s(short)"
	grep -q "usage: airlock $s" "$W/h.$s" || bad="$bad $s(usage)"
done
check "every command's --help exits 0 with its own text [$bad]" [ -z "$bad" ]
bad=""
for s in $SUBS; do
	A help "$s" >"$W/hh.$s" 2>/dev/null || bad="$bad $s(exit $?)"
	cmp -s "$W/h.$s" "$W/hh.$s" || bad="$bad $s(differs)"
done
check "airlock help CMD is CMD --help [$bad]" [ -z "$bad" ]
bad=""
for s in status fs shell worktree matrix approve audit; do
	A "$s" -h >/dev/null 2>&1 || bad="$bad $s"
done
check "-h as well [$bad]" [ -z "$bad" ]
A fs --workspace >/dev/null 2>"$W/fsv"
check "fs: an option without its value is named" sh -c \
    '[ $1 -eq 2 ] && grep -q -- "--workspace needs a value" "$2"' sh $? \
    "$W/fsv"
A worktree ls --help >"$W/wl" 2>&1
check "help after a verb (worktree ls --help)" sh -c \
    '[ $1 -eq 0 ] && grep -q "usage: airlock worktree" "$2"' sh $? "$W/wl"

# ---- unknown commands ----
A runn -- true >/dev/null 2>"$W/unk"
check "airlock runn: exit 2, unknown command, did you mean run" sh -c \
    '[ $1 -eq 2 ] && grep -q "unknown command \"runn\"" "$2" &&
    grep -q "did you mean \"run\"" "$2"' sh $? "$W/unk"
A stauts >/dev/null 2>"$W/unk2"
check "  a transposition finds status" grep -q 'did you mean "status"' \
    "$W/unk2"
A xyzzy >/dev/null 2>"$W/unk3"
check "  nothing near: no suggestion, one line and the hint" sh -c \
    '[ $1 -eq 2 ] && grep -q "unknown command \"xyzzy\"" "$2" &&
    ! grep -q "did you mean" "$2" && [ "$(wc -l <"$2")" -eq 2 ]' sh $? \
    "$W/unk3"

# ---- status ----
A status >"$W/st" 2>&1
check "status (not a terminal) prints text for a person, with labels" sh -c \
    '[ $1 -eq 0 ] && grep -q "^sandbox:   available" "$2" &&
    ! grep -q "^{" "$2" && grep -q "^  Landlock ABI  " "$2" &&
    ! grep -Eq "landlockAbi|ptraceBlocked|installHint" "$2"' sh $? "$W/st"
A status --json >"$W/stj" 2>&1
check "status --json parses as JSON with the host's fields" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["available"] is True and "daemons" in s and "landlockAbi" in s
' "$W/stj"

# ---- the man page ----
render() {	# the page as a person reads it, 80 columns, no formatting
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=80 man -l "$1" 2>/dev/null
	elif command -v groff >/dev/null 2>&1; then
		groff -mandoc -Tutf8 -rLL=80n -P-cbou "$1" 2>/dev/null
	else
		echo "neither man nor groff (contrib/install-deps.sh)" >&2
	fi
}
render "$MAN" | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' >"$W/syn"
bad=""
for s in $SUBS; do
	grep -Eq "^     airlock $s( |\$)" "$W/syn" || bad="$bad $s"
done
check "man SYNOPSIS: each command starts its own line [$bad]" \
    sh -c '[ -z "$1" ] && [ "$(wc -l <"$2")" -gt 20 ]' sh "$bad" "$W/syn"
# Each command of the source's SYNOPSIS (a .Cm naming one, or the
# generic "airlock subcommand --help") is a rendered line of its own.
re=$(printf '%s|' $SUBS)
nm=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh DESCRIPTION/p' "$MAN" |
    grep -cE "^\.Cm (${re%|})( |\$)|^\.Ar subcommand\$")
check "man SYNOPSIS: one rendered line per command ($nm)" \
    [ "$(grep -c '^     airlock ' "$W/syn")" -eq "$nm" ]
[ "$_fails" -eq 0 ] || diag "$(cat "$W/syn")"

# ---- the option table against the man page and the completions ----
opts_of() {	# the options of CMD --help: every -x and --word of its lines
	A "$1" --help | sed -n 's/^  \(-.*\)/\1/p' | cut -c1-25 |
	    grep -oE -e '(^|, )--?[a-zA-Z][a-z-]*' | sed 's/^, //' | sort -u
}
inman() {	# inman OPT: the man page names OPT as an option (Fl)
	case $1 in
	--*) grep -Eq "Fl \\\\-${1#--}([^a-z-]|\$)" "$MAN" ;;
	*) grep -Eq "Fl ${1#-}([^a-zA-Z-]|\$)" "$MAN" ;;
	esac
}
bad=""
for s in run claude acp shell; do
	opts_of "$s" >"$W/o.$s"
	[ -s "$W/o.$s" ] || bad="$bad $s:none"
	for o in $(cat "$W/o.$s"); do
		inman "$o" || bad="$bad $s:$o"
	done
done
check "every table option is in airlock(1) [$bad]" [ -z "$bad" ]
check "  the table has the new options" sh -c \
    'for o in --chdir -e --env --bind -t; do
    grep -qx -e "$o" "$1" || exit 1; done' sh "$W/o.run"
# The man page's run options (the .It list of "airlock run") and the
# options of each SYNOPSIS line, each in its command's table.
sed -n '/^\.Ss airlock run$/,/^\.El$/p' "$MAN" | grep '^\.It Fl' |
    grep -oE 'Fl (\\-[a-z][a-z-]*|[a-zA-Z])' | sed 's/^Fl //; s/^\\-/--/; s/^\([a-zA-Z]\)$/-\1/' |
    sort -u >"$W/man.run"
bad=""
for o in $(cat "$W/man.run"); do
	grep -qx -e "$o" "$W/o.run" || bad="$bad $o"
done
check "every run option of airlock(1) is in the table [$bad]" sh -c \
    '[ -z "$1" ] && [ "$(wc -l <"$2")" -ge 25 ]' sh "$bad" "$W/man.run"
bad=""
for s in claude acp shell; do
	for o in $(grep -E "^     airlock $s " "$W/syn" | grep -oE -- '--[a-z][a-z-]*'); do
		grep -qx -e "$o" "$W/o.$s" || bad="$bad $s:$o"
	done
done
check "the SYNOPSIS options of claude, acp, shell are in the table [$bad]" \
    [ -z "$bad" ]

bcomp() {	# bcomp WORDS...: what bash completes for the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
	    _airlock; printf "%s\n" "${COMPREPLY[@]}"' sh "$C/airlock.bash" "$@"
}
zcomp() {	# zcomp LINE: what zsh completes at the end of LINE
	rm -f "$W/z.out"
	timeout 20 zsh -f "$TOP/tests/helpers/zsh_complete.zsh" \
	    "$C" "$W/z.out" "$1" >/dev/null 2>&1
	sed 's/^ *//' "$W/z.out" | grep -v '^#done$' | sort -u
}
both() {	# both CMD WHICH: the options bash or zsh offers after CMD -
	if [ "$2" = bash ]; then bcomp airlock "$1" -; else
		zcomp "airlock $1 -"; fi | grep -E '^-' | grep -vx -e '--' -e '-' |
	    sort -u
}
for sh in bash zsh; do
	bad=""
	for s in run claude acp shell; do
		both "$s" "$sh" >"$W/c.$sh.$s"
		bad="$bad$(comm -3 "$W/o.$s" "$W/c.$sh.$s" | tr -d '\t' |
		    sed "s/^/ $s:/" | tr '\n' ' ')"
	done
	check "$sh completion offers exactly the table's options [$bad]" \
	    [ -z "$bad" ]
done

check "bash and zsh complete help's command" sh -c \
    '[ "$1" = worktree ] && [ "$2" = worktree ]' sh \
    "$(bcomp airlock help wo)" "$(zcomp 'airlock help wo')"

# ---- habits: --bind SRC:DST, --chdir, -e ----
mkdir -p "$W/ws/sub" "$W/other"
chown -R "$TUSER" "$W/ws" "$W/other"
A run --workspace "$W/ws" -- sh -c "echo x > '$W/other/f'" 2>/dev/null
check "control: without a bind the other directory is not writable" \
    [ ! -e "$W/other/f" ]
A run --workspace "$W/ws" --bind "$W/other:$W/other" -- \
    sh -c "echo bound > '$W/other/f'" 2>"$W/b.err"
check "--bind SRC:DST with DST = SRC binds it writable" sh -c \
    '[ "$(cat "$1" 2>/dev/null)" = bound ]' sh "$W/other/f"
[ "$_fails" -eq 0 ] || diag "$(cat "$W/b.err")"
A run --workspace "$W/ws" --ro-bind "$W/other:$W/other" -- \
    cat "$W/other/f" >"$W/rb.out" 2>&1
check "--ro-bind SRC:DST reads it" grep -qx bound "$W/rb.out"
A run --workspace "$W/ws" --bind "$W/other:/srv/else" -- \
    sh -c 'echo moved > /srv/else/m' >/dev/null 2>"$W/bd.err"
rc=$?
check_sh "--bind SRC:DST elsewhere: writable at DST, the write in SRC" \
    '[ $rc -eq 0 ] && [ "$(cat "$W/other/m" 2>/dev/null)" = moved ] ||
    { diag "exit $rc: $(cat "$W/bd.err")"; false; }'
out=$(A run --workspace "$W/ws" -- pwd 2>/dev/null)
check "control: the command starts in the workspace ($out)" \
    [ "$out" = "$W/ws" ]
out=$(cd "$W/ws" && A run --workspace "$W/ws" --chdir sub -- pwd 2>/dev/null)
check "--chdir DIR (relative to the cwd) starts it there ($out)" \
    [ "$out" = "$W/ws/sub" ]
out=$(A run --workspace "$W/ws" --chdir /tmp -- pwd 2>/dev/null)
check "--chdir to the sandbox's own /tmp ($out)" [ "$out" = /tmp ]
out=$(as_user env MY_TOKEN=tok-1 "$AIRLOCK" run --workspace "$W/ws" -- \
    sh -c 'echo "[$MY_TOKEN]"' 2>/dev/null)
check "control: MY_TOKEN is not passed by default ($out)" [ "$out" = "[]" ]
out=$(as_user env MY_TOKEN=tok-1 "$AIRLOCK" run --workspace "$W/ws" \
    -e MY_TOKEN -e OTHER_KEY=v2 -- \
    sh -c 'echo "[$MY_TOKEN][$OTHER_KEY]"' 2>/dev/null)
check "-e NAME takes the caller's value, -e NAME=VALUE the given ($out)" \
    [ "$out" = "[tok-1][v2]" ]
A run -e 1BAD=x -- true >/dev/null 2>"$W/e.err"
check "-e with a name starting with a digit: refused naming it" sh -c \
    '[ $1 -eq 2 ] && grep -q "1BAD=x" "$2"' sh $? "$W/e.err"

# ---- a path given as the command ----
cp /bin/true "$W/ws/passwd"
chown "$TUSER" "$W/ws/passwd"
A run --workspace "$W/ws" -- "$W/ws/passwd" >/dev/null 2>"$W/p.err"
check "a program named passwd given by its path runs (exit $?)" sh -c \
    '[ $1 -eq 0 ] && ! grep -q "privileges" "$2"' sh $? "$W/p.err"
A run --workspace "$W/ws" -- /etc/passwd >/dev/null 2>"$W/p2.err"
check "/etc/passwd is run (126, not executable), not judged as passwd" \
    sh -c '[ $1 -eq 126 ] && ! grep -q "privileges" "$2"' sh $? "$W/p2.err"
A run --workspace "$W/ws" -- /usr/bin/sudo id >/dev/null 2>"$W/s.err"
check "/usr/bin/sudo is still judged as sudo (refused)" sh -c \
    '[ $1 -ne 0 ] && grep -q "sudo changes privileges" "$2"' sh $? \
    "$W/s.err"

# ---- one error, in the user's words (issue 26, the auditor's list) ----
# A refusal of --sandbox off by the settings: said once, by the client,
# naming the flag and the setting (airlockd's fatal line and "connection
# closed" before).
printf '{"sandbox":{"allowUnsandboxedCommands":false}}\n' >"$W/nounc.json"
printf '{}\n' >"$W/empty.json"
chmod a+r "$W/nounc.json" "$W/empty.json"
A run --settings "$W/nounc.json" --sandbox off -- true >/dev/null \
    2>"$W/so.err"
rc=$?
check_sh "--sandbox off refused by the settings: one line, flag and setting" \
    '[ $rc -eq 125 ] && [ "$(wc -l <"$W/so.err")" -eq 1 ] &&
    grep -qF -- "--sandbox off refused: $W/nounc.json sets sandbox.allowUnsandboxedCommands: false" "$W/so.err" &&
    ! grep -q "airlockd\[\|connection closed" "$W/so.err" ||
    { diag "$(cat "$W/so.err")"; false; }'
as_user env AIRLOCK_SANDBOX=off "$AIRLOCK" run --settings "$W/nounc.json" \
    -- true >/dev/null 2>"$W/so2.err"
rc=$?
check_sh "AIRLOCK_SANDBOX=off refused the same way, once" \
    '[ $rc -eq 125 ] && [ "$(wc -l <"$W/so2.err")" -eq 1 ] &&
    grep -qF "AIRLOCK_SANDBOX=off refused" "$W/so2.err" ||
    { diag "$(cat "$W/so2.err")"; false; }'
out=$(A run --settings "$W/empty.json" --sandbox off -- sh -c 'echo ran' \
    2>"$W/so3.err")
check "control: with the setting open, --sandbox off runs ($out)" sh -c \
    '[ "$1" = ran ] && grep -q UNCONFINED "$2"' sh "$out" "$W/so3.err"

# A bind under /proc (the sandbox's /proc is its own): said once, naming
# the path as typed (the launcher's "mkdir /proc/PID" twice before).
A run --ro-bind /proc/self -- true >/dev/null 2>"$W/pr.err"
rc=$?
check_sh "--ro-bind /proc/self: one line naming it and what is accepted" \
    '[ $rc -eq 125 ] && [ "$(wc -l <"$W/pr.err")" -eq 1 ] &&
    grep -qF -- "--ro-bind /proc/self: resolves to /proc/" "$W/pr.err" &&
    grep -qF "outside /proc" "$W/pr.err" && ! grep -q "launcher\[" "$W/pr.err" ||
    { diag "$(cat "$W/pr.err")"; false; }'

# Bad values and options named, with what is accepted, exit 2, without
# the whole usage.
bad=""
badval() {	# badval EXPECT ARGS...
	_want=$1
	shift
	A "$@" >"$W/bv.out" 2>&1
	_rc=$?
	if [ $_rc -ne 2 ] || ! grep -qF -- "$_want" "$W/bv.out" ||
	    grep -q "^usage:" "$W/bv.out"; then
		bad="$bad [$* -> $_rc: $(head -2 "$W/bv.out" | tr '\n' ' ')]"
	fi
}
badval "unknown option --bogus (it takes --socket PATH)" approve --bogus
badval "unknown option --bogus (it takes --session ID" audit --bogus
badval "--sandbox maybe: on or off" matrix --sandbox maybe
badval "unknown verb frob: provision, ls or rm" worktree frob
badval "unknown verb frob: claude-pretooluse" hook frob
badval "unknown verb frob: check or egress" policy frob
badval "unknown verb frob: read, write, edit" fs frob x
badval "unknown option --bogus" fs --bogus
badval "read: unknown option --bogus" fs read x --bogus
badval "--chdir needs a value (DIR) before --" run --chdir -- true
badval '--origin "bad origin": a repository as owner/name' \
    run --origin 'bad origin' -- true
badval "unknown option --bogus" policy check --bogus -- true
check "bad values and options are named with what is accepted [$bad]" \
    [ -z "$bad" ]
out=$(A run --workspace "$W/ws" --origin acme/widget -- sh -c 'echo ok' \
    2>/dev/null)
check "control: --origin owner/name is accepted ($out)" [ "$out" = ok ]

# `airlock shell` opens every host itself: no warning about a flag
# nobody typed; its --help says so.  Control: the flag typed warns.
A shell -- true >/dev/null 2>"$W/sh.err"
rc=$?
check_sh "shell warns about no --allow-domain nobody typed" \
    '[ $rc -eq 0 ] && ! grep -q "allow-domain" "$W/sh.err" ||
    { diag "$(cat "$W/sh.err")"; false; }'
A run --allow-domain '*' -- true >/dev/null 2>"$W/star.err"
check "control: --allow-domain '*' typed is warned about" \
    grep -qF -- "--allow-domain '*' lets the sandbox connect" "$W/star.err"
check "shell --help says it opens every host" sh -c \
    '"$@" shell --help | grep -qF "network open to every host"' sh "$AIRLOCK"
check "policy --help names policy egress" sh -c \
    '"$@" policy --help | grep -qF "airlock policy egress"' sh "$AIRLOCK"

# ---- --ro-bind SRC:DST: shown elsewhere, read-only, its secrets masked ----
S="$W/src" H="$W/h"
mkdir -p "$S/d" "$H/.ssh"
echo from-src >"$S/f"
echo SECRET-KEY >"$H/.ssh/id_rsa"
echo NETRC-SECRET >"$H/.netrc"
echo plain >"$H/plain.txt"
ln -s "$H/.ssh/id_rsa" "$S/lnk"
ln -s ../../h/.ssh/id_rsa "$S/d/rel"
chown -R "$TUSER" "$S" "$H"
HA() { as_user env HOME="$H" "$AIRLOCK" "$@"; }
out=$(A run --workspace "$W/ws" --ro-bind "$S:/srv/in" --chdir /srv/in -- \
    cat f 2>"$W/rm.err")
check "--ro-bind SRC:DST shows SRC's file at DST ($out)" \
    [ "$out" = from-src ]
[ "$_fails" -eq 0 ] || diag "$(cat "$W/rm.err")"
out=$(A run --workspace "$W/ws" --ro-bind "$S:~/in" -- sh -c 'cat ~/in/f' \
    2>/dev/null)
check "DST ~/in: in the sandbox's own home, made as a mount point ($out)" \
    [ "$out" = from-src ]
out=$(A run --workspace "$W/ws" --ro-bind "$S:/srv/in" -- sh -c \
    'echo x >/srv/in/new; echo x >>/srv/in/f; mkdir /srv/in/nd; cat /srv/in/f' \
    2>/dev/null)
check "a write, an append and a mkdir under DST are refused ($out)" sh -c \
    '[ "$2" = from-src ] && [ ! -e "$1/new" ] && [ ! -e "$1/nd" ] &&
    [ "$(cat "$1/f")" = from-src ]' sh "$S" "$out"
A run --workspace "$W/ws" --bind "$S" -- sh -c "echo x >'$S/new'" \
    >/dev/null 2>&1
check "control: the same write through --bind SRC lands" [ -e "$S/new" ]
rm -f "$S/new"
out=$(as_user cat "$H/.ssh/id_rsa" "$H/.netrc" "$S/lnk" "$S/d/rel" |
    tr '\n' ' ')
check "control: the secrets and links read outside the sandbox ($out)" \
    [ "$out" = "SECRET-KEY NETRC-SECRET SECRET-KEY SECRET-KEY " ]
out=$(HA run --workspace "$W/ws" --ro-bind "$H:/srv/h" -- sh -c \
    'cat /srv/h/plain.txt; cat /srv/h/.ssh/id_rsa /srv/h/.netrc' \
    2>/dev/null)
check "the home bound at DST: plain files read, ~/.ssh and ~/.netrc not ($out)" \
    [ "$out" = plain ]
out=$(HA run --workspace "$W/ws" --ro-bind "$H/.ssh:/srv/ssh" -- sh -c \
    'cat /srv/ssh/id_rsa; ls /srv/ssh; ls /srv' 2>/dev/null)
check "~/.ssh itself bound at DST: nothing of it shows ($out)" \
    [ "$out" = ssh ]
out=$(HA run --workspace "$W/ws" --ro-bind "$S:/srv/in" \
    --ro-bind "$H:/srv/h" -- sh -c \
    'cat /srv/in/lnk /srv/in/d/rel; readlink /srv/in/d/rel' 2>/dev/null)
check "attack: links in SRC to the secret (absolute, and relative into the other DST) read nothing ($out)" \
    [ "$out" = ../../h/.ssh/id_rsa ]
bad=""
dst_refused() {	# dst_refused DST WHAT...: refused (2) naming the value
	_d=$1
	shift
	A run --workspace "$W/ws" --ro-bind "$S:$_d" -- true >/dev/null \
	    2>"$W/dst.err"
	_rc=$?
	{ [ $_rc -eq 2 ] && grep -qF -- "--ro-bind $S:$_d: DST" "$W/dst.err" &&
	    grep -qF -- "$*" "$W/dst.err"; } ||
	    bad="$bad [$_d: rc $_rc $(head -1 "$W/dst.err")]"
}
dst_refused /etc/mtab "goes through a symbolic link"
dst_refused /bin/sh "goes through a symbolic link"
dst_refused /proc/x "inside /proc"
dst_refused /sys/kernel "inside /sys"
dst_refused /dev/shm/x "inside /dev"
dst_refused /run/airlock/x "airlock's own /run/airlock"
dst_refused /usr "would hide the system directory /usr"
dst_refused /usr/share/no-such-dir "does not exist in /usr"
dst_refused /srv/../etc "not in normal form"
dst_refused srv/x "not an absolute path"
dst_refused / "the sandbox's root itself"
check "DST refused where the sandbox would not show it as typed [$bad]" \
    [ -z "$bad" ]
A run --workspace "$W/ws" --ro-bind "$S:$W/ws/sub" -- true >/dev/null \
    2>"$W/ov.err"
rc=$?
check_sh "attack: DST inside the workspace (a bound path): refused" \
    '[ $rc -eq 125 ] && grep -qF -- "--ro-bind $S:$W/ws/sub: DST $W/ws/sub shares its place with the workspace $W/ws" "$W/ov.err" ||
    { diag "$(cat "$W/ov.err")"; false; }'
A run --workspace "$W/ws" --ro-bind "$W/other" --ro-bind "$S:$W" -- true \
    >/dev/null 2>"$W/ov2.err"
rc=$?
check_sh "attack: DST above another bind: refused" \
    '[ $rc -eq 125 ] && grep -qF "shares its place with" "$W/ov2.err" ||
    { diag "$(cat "$W/ov2.err")"; false; }'
A run --workspace "$W/ws" --ro-bind "$S:/srv/a" --ro-bind "$W/other:/srv/a" \
    -- true >/dev/null 2>"$W/ov3.err"
rc=$?
check_sh "two binds at one DST: refused, naming the other as typed" \
    '[ $rc -eq 125 ] && grep -qF -- "shares its place with --ro-bind $W/other:/srv/a" "$W/ov3.err" ||
    { diag "$(cat "$W/ov3.err")"; false; }'
A run --workspace "$W/ws" --ro-bind-try "$W/no-such:/srv/a" \
    --ro-bind "$S:/srv/a" -- true >/dev/null 2>"$W/ov4.err"
rc=$?
check_sh "--ro-bind-try of a missing SRC is left out: its DST is free" \
    '[ $rc -eq 0 ] || { diag "exit $rc: $(cat "$W/ov4.err")"; false; }'
A run --workspace "$W/ws" --bind-try /proc/self/environ -- true \
    >/dev/null 2>"$W/ov5.err"
check "a refused --bind-try is named --bind-try" \
    grep -qF -- "--bind-try /proc/self/environ:" "$W/ov5.err"
A run --workspace "$W/ws" --ro-bind "/:/srv/root" -- true >/dev/null \
    2>"$W/root.err"
rc=$?
check_sh "attack: SRC / shown elsewhere: refused, naming /proc" \
    '[ $rc -eq 125 ] && grep -qF -- "--ro-bind /:/srv/root: SRC / holds the host'"'"'s /proc" "$W/root.err" ||
    { diag "$(cat "$W/root.err")"; false; }'
finish
