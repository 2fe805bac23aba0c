#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Issue 25, findings 8 and 9: the command policy judges what a line runs
# (aliases, make -f -, editors' ! commands, git subtree push), and results
# are honest (fs.search says what it could not search; a deny-read parent
# stays closed around a carve-out; an enclosing --ro-bind never covers the
# workspace; loopback needs its own setting; --allow-domain '*' warns).
# Each check has a control: the same line really pushes when run by a
# shell, the same request really reaches the loopback server when allowed.
. "$(dirname "$0")/lib.sh"
plan 36
TAB=$(printf '\t')

# ---- 8. the command policy ----
W=$(mkwork)
as_user git init -q --bare "$W/bare.git"
as_user git init -q -b main "$W/clone"
as_user sh -c "cd '$W/clone' && git config user.email t@t && git config user.name t &&
    mkdir sub && echo x >sub/f && git add sub && git commit -qm one &&
    git remote add origin '$W/bare.git'"

verdict() {	# verdict 'command line'
	as_user "$AIRLOCK" policy check -- "$1" |
	    python3 -c 'import json,sys; print(json.load(sys.stdin)["verdict"])'
}
# pushed BRANCH 'command line': the line, run by bash in the clone
# (aliases on, as in an interactive shell or zsh), creates BRANCH in the
# bare repository: the control that the line really pushes.
pushed() {
	as_user sh -c "cd '$W/clone' && timeout 30 bash -O expand_aliases \
	    -c \"\$1\" </dev/null >/dev/null 2>&1" sh "$2"
	as_user git -C "$W/bare.git" rev-parse -q --verify "refs/heads/$1" \
	    >/dev/null
}
L1='alias g=git
g push -q origin HEAD:refs/heads/b1'
L2="make -s -f - <<EOF
all:
${TAB}@git push -q origin HEAD:refs/heads/b2
EOF"
L3="vim -E -s -c '!git push -q origin HEAD:refs/heads/b3' -c 'qa!'"
L4='git subtree push -q --prefix=sub origin b4'
check "control: alias g=git, newline, g push really pushes" pushed b1 "$L1"
check "policy: alias g=git, newline, g push is asked as a push" \
    [ "$(verdict "$L1")" = ask ]
check "control: make -f - with a git push recipe really pushes" pushed b2 "$L2"
check "policy: make -f - with a git push recipe is asked" \
    [ "$(verdict "$L2")" = ask ]
check "control: vim -c '!git push' really pushes" pushed b3 "$L3"
check "policy: vim -c '!git push' is asked" [ "$(verdict "$L3")" = ask ]
check "control: git subtree push really pushes" pushed b4 "$L4"
check "policy: git subtree push is asked" [ "$(verdict "$L4")" = ask ]
check "policy: alias g=git; g status stays allowed" \
    [ "$(verdict 'alias g=git; g status')" = allow ]

# ---- 9d, 9e. loopback needs a rule with a port; '*' is told ----
cd "$W" || exit 1
PORT=$(http_counter_start "$W/hits" "$W/srv.pid")
trap 'http_counter_stop "$W/srv.pid"' EXIT
net() {	# net ERRFILE RULE URL: curl URL through the proxy under --allow-domain RULE
	as_user "$AIRLOCK" run --workspace "$W" --allow-domain "$2" -- \
	    curl -sf -m 5 "$3" >/dev/null 2>"$1"
}
net "$W/n1" "localhost:$PORT" "http://localhost:$PORT/"
check "control: --allow-domain localhost:PORT reaches the loopback server" \
    [ "$(hits "$W/hits")" -eq 1 ]
net "$W/n2" localhost "http://localhost:$PORT/"
check "--allow-domain localhost (no port) does not reach it" \
    [ "$(hits "$W/hits")" -eq 1 ]
check "... and the run says that loopback needs a rule with a port" \
    grep -q "warning: --allow-domain 'localhost' reaches none of this machine's own services.*localhost:5432" "$W/n2"
net "$W/n3" 127.0.0.0/8 "http://127.0.0.1:$PORT/"
check "--allow-domain 127.0.0.0/8 (no port) does not reach it either" \
    [ "$(hits "$W/hits")" -eq 1 ]
net "$W/n4" "127.0.0.1:$PORT" "http://127.0.0.1:$PORT/"
check "control: --allow-domain 127.0.0.1:PORT does" [ "$(hits "$W/hits")" -eq 2 ]
net "$W/n5" '*' "http://localhost:$PORT/"
check "'*' does not reach it" [ "$(hits "$W/hits")" -eq 2 ]
check "--allow-domain '*' prints a warning that names what it opens" \
    grep -q "warning: --allow-domain '\\*' lets the sandbox connect to every host on the internet" "$W/n5"
check "a plain rule prints no warning" fails grep -q warning "$W/n1"
printf '{"sandbox":{"network":{"allowedDomains":["*"]}}}\n' >"$W/star.json"
chmod a+r "$W/star.json"
as_user "$AIRLOCK" run --workspace "$W" --settings "$W/star.json" -- true \
    >/dev/null 2>"$W/n6"
check "allowedDomains [\"*\"] in settings prints the same warning" \
    grep -q "allowedDomains: '\\*' lets the sandbox connect to every host" "$W/n6"

# ---- 9a. fs.search says which file it could not search ----
F=$(mkwork)
as_user sh -c "cd '$F' && python3 -c \"print('a' * 40000); print('needle')\" \
    >big.txt && echo 'needle here' >small.txt && echo needle >locked.txt &&
    chmod 000 locked.txt"
fsq() {	# fsq OUT PATTERN: airlock fs search, as the user, in $F
	as_user sh -c "cd '$F' && timeout 120 '$AIRLOCK' fs search \"\$1\"" \
	    sh "$2" >"$1" 2>&1
}
fsq "$F/o1" needle
fsq "$F/o2" '(a+)+b|needle'
jq_py() {	# jq_py FILE EXPR: python expression over the JSON answer r
	python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}
check "control: a plain needle is found in the big file" \
    jq_py "$F/o1" 'any(m["path"] == "big.txt" and m["line"] == 2 for m in r["matches"])'
check "(a+)+b|needle: the file PCRE2 gave up on is named, with the error" \
    jq_py "$F/o2" 'any(u["path"] == "big.txt" and "match limit" in u["reason"] for u in r["unsearched"])'
check "... and the result says it is partial" jq_py "$F/o2" 'r["partial"] is True'
check "a file that cannot be opened is named too" \
    jq_py "$F/o1" 'r["partial"] is True and any(u["path"] == "locked.txt" and "Permission denied" in u["reason"] for u in r["unsearched"])'
check "... and the files it could search still answer" \
    jq_py "$F/o2" 'any(m["path"] == "small.txt" for m in r["matches"])'

# ---- 9b. a denied directory stays closed around its carve-out ----
D=$(mkwork)
as_user sh -c "cd '$D' && mkdir -p blocked/allowed b2/allowed &&
    echo s >blocked/secret.txt && echo a >blocked/allowed/a.txt &&
    echo s >b2/secret.txt && echo a >b2/allowed/a.txt"
printf '{"sandbox":{"filesystem":{"denyRead":["b2"],"allowRead":["b2/allowed"]}}}\n' \
    >"$D/settings.json"
chmod a+r "$D/settings.json"
inside() {	# inside OUT [OPTIONS...] -- SCRIPT: airlock run in $D
	_o=$1
	shift
	as_user "$AIRLOCK" run --workspace "$D" "$@" >"$_o" 2>&1
}
inside "$D/c1" -- sh -c "ls -A '$D/blocked'; touch '$D/blocked/ctl' && echo made"
check_sh "control: without --deny-read, blocked/ lists its names and takes new files" \
    'grep -q secret.txt "$D/c1" && grep -q made "$D/c1" && [ -e "$D/blocked/ctl" ]'
inside "$D/d1" --deny-read "$D/blocked" --bind "$D/blocked/allowed" -- sh -c "
    echo list:; ls -A '$D/blocked'; echo end
    touch '$D/blocked/new' && echo made-new
    touch '$D/blocked/allowed/../new2' && echo made-new2
    cat '$D/blocked/secret.txt' && echo read-secret
    mv '$D/blocked' '$D/moved' && echo moved
    cat '$D/blocked/allowed/a.txt' && echo x >'$D/blocked/allowed/b.txt' && echo carve-ok"
check_sh "--deny-read W/blocked --bind W/blocked/allowed: blocked/ lists only the carve-out" \
    '[ "$(sed -n "/^list:\$/,/^end\$/p" "$D/d1" | tr "\n" " ")" = "list: allowed end " ]'
check "... no new file can be created in blocked/ (nor through allowed/..)" \
    sh -c "! grep -q '^made-new' '$D/d1' && [ ! -e '$D/blocked/new' ] && [ ! -e '$D/blocked/new2' ]"
check "... blocked/ cannot be read or moved away" \
    sh -c "! grep -qx read-secret '$D/d1' && ! grep -qx moved '$D/d1' && [ -d '$D/blocked' ]"
check "... and the carve-out is readable and writable as bound" \
    sh -c "grep -q carve-ok '$D/d1' && [ -e '$D/blocked/allowed/b.txt' ]"
inside "$D/d2" --settings "$D/settings.json" -- sh -c "
    ls -A '$D/b2'; touch '$D/b2/new' && echo made-new
    cat '$D/b2/allowed/a.txt' && echo carve-ok"
check "settings denyRead + allowRead: the parent is neither listed nor writable" \
    sh -c "! grep -qx secret.txt '$D/d2' && ! grep -qx made-new '$D/d2' && [ ! -e '$D/b2/new' ]"
check "... and the allowRead carve-out is readable" grep -q carve-ok "$D/d2"
ln -s "$D" "$D.link"
inside "$D/d3" --deny-read "$D.link/blocked" --bind "$D/blocked/allowed" -- sh -c "
    echo list:; ls -A '$D/blocked'; echo end"
rm -f "$D.link"
check "the same, named through a symlinked parent: blocked/'s names stay hidden" \
    fails grep -qx secret.txt "$D/d3"

# ---- 9c. an enclosing --ro-bind never covers the workspace ----
R=$(mkwork)
as_user sh -c "cd '$R' && git init -q && mkdir sub && echo t >top.txt"
as_user "$AIRLOCK" run --workspace "$R/sub" --ro-bind "$R" -- sh -c "
    touch '$R/sub/new' && echo ws-writable
    touch '$R/other' && echo parent-writable
    cat '$R/top.txt' >/dev/null && echo parent-readable
    git -C '$R/sub' rev-parse --show-toplevel" >"$R/o" 2>&1
check "--workspace R/sub --ro-bind R: the workspace stays writable" \
    sh -c "grep -q ws-writable '$R/o' && [ -e '$R/sub/new' ]"
check "... R stays read-only around it" \
    sh -c "! grep -q parent-writable '$R/o' && [ ! -e '$R/other' ]"
check "... and readable, so git finds the repository above" \
    sh -c "grep -q parent-readable '$R/o' && grep -qx '$R' '$R/o'"
as_user "$AIRLOCK" run --workspace "$R/sub" --bind "$R" -- sh -c "
    touch '$R/ctl' && echo ok" >/dev/null 2>&1
check "control: with --bind R instead, R itself takes the write" [ -e "$R/ctl" ]
printf '{"sandbox":{"filesystem":{"allowRead":["%s"]}}}\n' "$R" >"$R/s.json"
chmod a+r "$R/s.json"
as_user "$AIRLOCK" run --workspace "$R/sub" --settings "$R/s.json" -- sh -c "
    touch '$R/sub/new2' && echo ws-writable
    cat '$R/top.txt' >/dev/null && echo parent-readable" >"$R/o2" 2>&1
check "settings allowRead of the workspace's parent: the workspace stays writable" \
    sh -c "grep -q ws-writable '$R/o2' && grep -q parent-readable '$R/o2' && [ -e '$R/sub/new2' ]"
finish
