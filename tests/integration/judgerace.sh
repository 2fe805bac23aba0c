#!/bin/sh
# Review finding: a commit judge racing a second session, or the host,
# on the same repository.  A's judge is slowed in its update-ref (a git
# wrapper on airlockd's PATH); meanwhile B launches on the repository
# (refused: A's judge holds the repository's judge lock), and in a
# second round the host commits on top (A's put-back fails, the judge
# reads the ref again and holds the new tip).
. "$(dirname "$0")/lib.sh"
plan 9
W=$(mkwork); SD=$(mkwork); H="$SD/home"; MD="$SD/mark"; WRAP="$SD/bin"
mkdir -p "$H" "$MD" "$WRAP"; chown "$TUSER" "$H" "$MD" 2>/dev/null
REAL_GIT=$(command -v git)
cat >"$WRAP/git" <<WRAPPER
#!/bin/sh
for a; do
	if [ "\$a" = update-ref ] && rm "$MD/slow" 2>/dev/null; then
		: >"$MD/judging"; sleep 3; : >"$MD/judged"; break
	fi
done
exec $REAL_GIT "\$@"
WRAPPER
chmod 0755 "$WRAP/git"
spawn_user env HOME="$H" PATH="$WRAP:/usr/local/bin:/usr/bin:/bin" \
    "$AIRLOCKD" --socket "$SD/d.sock" 2>"$SD/d.err"
dpid=$!
i=0; while [ ! -S "$SD/d.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
u() { as_user sh -c "$1"; }
GC='git -c user.name=a -c user.email=a@a'
u "git init -q -b main '$W/r' && cd '$W/r' && echo r > readme && git add readme && $GC commit -qm one && git config core.hooksPath .husky/_" >/dev/null
run_user() { spawn_user env HOME="$H" "$AIRLOCK" run --no-policy-check --socket "$SD/d.sock" "$@"; }
# An agent that commits a hook, then waits for "armed" to end.
evil() {
	rm -f "$W/r/started" "$W/r/armed" "$MD/judging"
	run_user --workspace "$W/r" -- sh -c "cd '$W/r' &&
	    b=\$(printf '#!/bin/sh\necho pwned\n' | git hash-object -w --stdin) &&
	    git update-index --add --cacheinfo 100755,\$b,.husky/_/pre-commit &&
	    $GC commit -qm evil$1 && : > started && i=0 &&
	    while [ ! -e armed ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done" >"$SD/a$1.out" 2>"$SD/a$1.err"
	apid=$!
	i=0; while [ ! -e "$W/r/started" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	: >"$MD/slow"; chown "$TUSER" "$MD/slow"
	u ": > '$W/r/armed'"
	i=0; while [ ! -e "$MD/judging" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
}
# Round 1: B launched while A's judge runs.
evil 1
run_user --workspace "$W/r" -- sh -c "cd '$W/r' && $GC commit -q --allow-empty -m innocent" >"$SD/b.out" 2>"$SD/b.err"
bpid=$!
wait "$bpid"; wait "$apid"
check_sh "B refused while A's commits are judged" 'grep -q "still being judged" "$SD/b.err"'
check_sh "A reported the hold" 'grep -q pre-commit "$SD/a1.err"'
check_sh "A's held ref exists" '[ -n "$(u "git -C $W/r for-each-ref refs/airlock/held")" ]'
check_sh "evil hook not reachable from main" '! u "git -C $W/r cat-file -e main:.husky/_/pre-commit" 2>/dev/null'
# Control: once the judge ended, the same launch runs.
as_user env HOME="$H" "$AIRLOCK" run --no-policy-check --socket "$SD/d.sock" --workspace "$W/r" -- sh -c "cd '$W/r' && $GC commit -q --allow-empty -m after" >"$SD/c.out" 2>"$SD/c.err"
check_sh "control: a launch after the judge runs" 'u "git -C $W/r log -1 --format=%s main" | grep -qx after'
# Round 2: the host commits on top while A2's judge waits.
evil 2
u "cd '$W/r' && $GC commit -q --no-verify --allow-empty -m hostwork"
wait "$apid"
check_sh "A2 reported the hold" 'grep -q pre-commit "$SD/a2.err"'
check_sh "evil2 hook not reachable from main" '! u "git -C $W/r cat-file -e main:.husky/_/pre-commit" 2>/dev/null'
check_sh "the host's commit on top kept under the held ref" 'u "git -C $W/r log --format=%s --glob=refs/airlock/held" | grep -qx hostwork'
check_sh "no NOT-restored report when it could be put back" '! grep -q "NOT put back" "$SD/a2.err"'
sed 's/^/# a1: /' "$SD/a1.err" | tail -3; sed 's/^/# b: /' "$SD/b.err" | tail -3
sed 's/^/# a2: /' "$SD/a2.err" | tail -3; sed 's/^/# d: /' "$SD/d.err" | tail -8
u "git -C $W/r log --oneline --all" | sed 's/^/# log: /'
kill "$dpid"; wait "$dpid" 2>/dev/null
finish
