#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The commit judge does not stop airlockd (issue 29).  At a sandbox's end
# airlockd judges what it left in git (supervisor/commits.c), one git
# process after another, each allowed up to 5 s.  Here airlockd's git is a
# wrapper that, once armed, sleeps 3 s in the judge's for-each-ref; while
# it sleeps, another session's output must keep flowing through airlockd
# and `airlock status` must be answered -- both seen from inside the
# sleep (the wrapper counts the stream's lines before and after it, and
# status must return before the sleep ends), so no clock bound decides.
# The verdict must stay the same: the agent's commit of a hook is held.
. "$(dirname "$0")/lib.sh"
plan 12

W=$(mkwork)
SD=$(mkwork)
H="$SD/home"
MD="$SD/mark"
WRAP="$SD/bin"
mkdir -p "$H" "$MD" "$WRAP"
chown "$TUSER" "$H" "$MD" 2>/dev/null
OUT="$SD/stream.out"
: >"$OUT"
chown "$TUSER" "$OUT" 2>/dev/null
REAL_GIT=$(command -v git)
cat >"$WRAP/git" <<WRAPPER
#!/bin/sh
# Armed by $MD/slow, once: the judge's for-each-ref sleeps, and says
# how many lines the other session streamed meanwhile.
for a; do
	if [ "\$a" = for-each-ref ] && rm "$MD/slow" 2>/dev/null; then
		wc -l <"$OUT" >"$MD/before"
		: >"$MD/judging"
		sleep 3
		wc -l <"$OUT" >"$MD/after"
		: >"$MD/judged"
		break
	fi
done
exec $REAL_GIT "\$@"
WRAPPER
chmod 0755 "$WRAP/git"

spawn_user env HOME="$H" PATH="$WRAP:/usr/local/bin:/usr/bin:/bin" \
    "$AIRLOCKD" --socket "$SD/d.sock" 2>"$SD/d.err"
dpid=$!
i=0
while [ ! -S "$SD/d.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

u() { as_user sh -c "$1"; }
GC='git -c user.name=a -c user.email=a@a'
u "git init -q -b main '$W/r' && cd '$W/r' && echo r > readme &&
    git add readme && $GC commit -qm one &&
    git config core.hooksPath .husky/_" \
    >/dev/null
L=$(u "git -C '$W/r' rev-parse HEAD")

# The stream: a line each 0.1 s for 12 s, through airlockd.
run_user() {
	spawn_user env HOME="$H" "$AIRLOCK" run --no-policy-check \
	    --socket "$SD/d.sock" "$@"
}
run_user --workspace "$SD/home" -- \
    sh -c 'for i in $(seq 120); do echo $i; sleep 0.1; done' \
    >"$OUT" 2>"$SD/stream.err"
spid=$!
# The judged session: it commits a hook, waits until the host armed the
# slow git, and ends.
run_user --workspace "$W/r" -- sh -c "cd '$W/r' &&
    b=\$(printf '#!/bin/sh\n' | git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 100755,\$b,.husky/_/pre-commit &&
    $GC commit -qm evil && : > started && i=0 &&
    while [ ! -e armed ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done" \
    >"$SD/judged.out" 2>"$SD/judged.err"
jpid=$!
i=0
while [ ! -e "$W/r/started" ] && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
: >"$MD/slow"
chown "$TUSER" "$MD/slow"
u ": > '$W/r/armed'"
i=0
while [ ! -e "$MD/judging" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
check "the judge's git is running (the slow wrapper was reached)" \
    [ -e "$MD/judging" ]
as_user "$AIRLOCK" status --socket "$SD/d.sock" >"$SD/status.out" 2>&1
src=$?
judged_at_status=no
[ -e "$MD/judged" ] && judged_at_status=yes
check_sh "airlock status is answered while the judge's git still runs" \
    '[ $src -eq 0 ] && [ $judged_at_status = no ]'
wait "$jpid"
before=$(cat "$MD/before" 2>/dev/null || echo 0)
after=$(cat "$MD/after" 2>/dev/null || echo 0)
diag "stream lines: $before when the judge's git began, $after 3 s later"
check_sh "the other session's output streams while the judge's git runs" \
    '[ $((after - before)) -ge 10 ]'
check "the verdict holds: main is back at its launch value" \
    [ "$(u "git -C '$W/r' rev-parse main")" = "$L" ]
check_sh "... the commit is kept under refs/airlock/held/" \
    '[ -n "$(u "git -C $W/r for-each-ref refs/airlock/held")" ]'
check "... and the run's summary names the held path" \
    grep -q '\.husky/_/pre-commit' "$SD/judged.err"
wait "$spid"

# The judge's child killed mid-judge: airlockd judges in place instead,
# and main is put back all the same.
rm -f "$W/r/started" "$W/r/armed" "$MD/judging" "$MD/judged"
L3=$(u "git -C '$W/r' rev-parse main")
run_user --workspace "$W/r" -- sh -c "cd '$W/r' &&
    b=\$(printf '#!/bin/sh\n' | git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 100755,\$b,.husky/_/pre-commit &&
    $GC commit -qm evil3 && : > started && i=0 &&
    while [ ! -e armed ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done" \
    >"$SD/judged3.out" 2>"$SD/judged3.err"
jpid=$!
i=0
while [ ! -e "$W/r/started" ] && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
: >"$MD/slow"
chown "$TUSER" "$MD/slow"
u ": > '$W/r/armed'"
i=0
while [ ! -e "$MD/judging" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
JP=$(pgrep -P "$dpid" -x airlockd | head -1)
check "the judge is a child of airlockd ($JP)" [ -n "$JP" ]
kill -KILL "$JP"
wait "$jpid"
check "judge killed: airlockd judges in place, main is put back" \
    [ "$(u "git -C '$W/r' rev-parse main")" = "$L3" ]
check "  and says so" grep -q 'commit judge ended before it finished' \
    "$SD/d.err"
# The killed judge's git (the slow wrapper) ends on its own.
i=0
while [ ! -e "$MD/judged" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null

# airlockd killed while its judge's git runs: the judge goes on and puts
# the ref back (judged inside airlockd, it died with it, and the
# agent's commit stayed on main).
spawn_user env HOME="$H" PATH="$WRAP:/usr/local/bin:/usr/bin:/bin" \
    "$AIRLOCKD" --socket "$SD/d2.sock" 2>"$SD/d2.err"
dpid=$!
i=0
while [ ! -S "$SD/d2.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
rm -f "$W/r/started" "$W/r/armed" "$MD/judging" "$MD/judged"
L2=$(u "git -C '$W/r' rev-parse main")
spawn_user env HOME="$H" "$AIRLOCK" run --no-policy-check \
    --socket "$SD/d2.sock" --workspace "$W/r" -- sh -c "cd '$W/r' &&
    b=\$(printf '#!/bin/sh\n' | git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 100755,\$b,.husky/_/pre-commit &&
    $GC commit -qm evil2 && : > started && i=0 &&
    while [ ! -e armed ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done" \
    >"$SD/judged2.out" 2>"$SD/judged2.err"
jpid=$!
i=0
while [ ! -e "$W/r/started" ] && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
moved=$(u "git -C '$W/r' rev-parse main")
: >"$MD/slow"
chown "$TUSER" "$MD/slow"
u ": > '$W/r/armed'"
i=0
while [ ! -e "$MD/judging" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "$dpid"
wait "$dpid" 2>/dev/null
wait "$jpid"
# The judge, airlockd's orphan now, ends by itself.
i=0
while pgrep -u "$TUSER" -f "$SD/d2.sock" >/dev/null && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_sh "control: the agent's commit had moved main" '[ "$moved" != "$L2" ]'
check "airlockd killed mid-judge: the judge still puts main back" \
    [ "$(u "git -C '$W/r' rev-parse main")" = "$L2" ]
check "  and no judge is left running" \
    fails pgrep -u "$TUSER" -f "$SD/d2.sock"
[ "$_fails" -eq 0 ] || { sed 's/^/# d: /' "$SD/d.err" | tail -20;
    sed 's/^/# j: /' "$SD/judged.err" | tail -5; }
finish
