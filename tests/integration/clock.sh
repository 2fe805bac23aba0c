#!/bin/sh
# SPDX-License-Identifier: ISC
#
# A wall clock set while airlockd runs (issue 29): the spare copies made
# before it are dropped and never taken, even one that was out of
# @spares when the step came and put back after, while spares made after
# it are taken as before.  The step itself is injected: setting the clock
# needs CAP_SYS_TIME on a shared machine, and time namespaces do not
# cover CLOCK_REALTIME.  The test build's airlockd takes SIGUSR2 as a
# step (sv_clock.c); the shipped one has no such hook, and it is checked
# to hold the real timerfd on CLOCK_REALTIME armed with
# TFD_TIMER_CANCEL_ON_SET (its fdinfo), which is what a real step fires.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	plan 1
	ok "clock steps and spares on a loop-mounted XFS # SKIP needs root"
	exit 0
fi
plan 10

T=$(mktemp -d /tmp/airlock-clock.XXXXXX)
chmod 0755 "$T"
LOOP=
DPID=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	umount "$T/xfs" 2>/dev/null || umount -l "$T/xfs" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' HUP INT PIPE TERM
PATH=$PATH:/usr/sbin:/sbin
truncate -s 320M "$T/xfs.img" && LOOP=$(losetup --find --show "$T/xfs.img") &&
    mkfs.xfs -q -m reflink=1 "$LOOP" >/dev/null 2>&1 &&
    mkdir "$T/xfs" && mount "$LOOP" "$T/xfs" ||
    { echo "Bail out! cannot make an XFS"; exit 1; }
chown "$TUSER" "$T/xfs"
chmod 0755 "$T/xfs"

DATA=$T/xfs/data
SPARES=$DATA/airlock/conversations/@spares
R1=$T/xfs/r1
R2=$T/xfs/r2
u() { as_user env XDG_DATA_HOME="$DATA" "$@"; }
u sh -c "for r in '$R1' '$R2'; do mkdir -p \$r/.git \$r/a && \
    echo head >\$r/.git/HEAD && echo one >\$r/a/f && echo two >\$r/b; done"
sleep 1.2	# the originals' ctimes predate the first spare's since
cat >"$T/sp.py" <<'PY'
import json, sys, time
sys.path.insert(0, sys.argv[1])
from airlockd_rpc import Client
sock, cmd = sys.argv[2:4]
c = Client(sock)
if cmd == "provision":	# provision CONV REPO...
    r = c.call("worktree.provision", {"conversationId": sys.argv[4],
               "repos": sys.argv[5:], "agents": ["a1"]}, timeout=120)
    print(json.dumps(r))
elif cmd == "wait":	# wait REPO...: until each has a ready spare
    end = time.time() + 60
    while True:
        r = c.call("worktree.list", {})
        sp = r.get("result", {}).get("spares", [])
        if all(any(x["source"] == s and x["ready"] for x in sp)
               for s in sys.argv[4:]) or time.time() > end:
            break
        time.sleep(0.2)
    print(json.dumps(r))
PY
chmod 0644 "$T/sp.py"
sp() { u timeout 180 python3 "$T/sp.py" "$STAGE/tests/helpers" "$@"; }
from_spare() {	# from_spare FILE EXPECTED-LIST
	python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
sys.exit(0 if sorted(d['result']['fromSpare']) == $2 else 1)" "$1"
}
ready() {	# ready FILE REPO: worktree.list there shows a ready spare
	python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
sys.exit(0 if [x for x in d['result']['spares']
if x['source'] == sys.argv[2] and x['ready']] else 1)" "$1" "$2"
}
key_of() {	# the spare's key of a source (FNV-1a, as sv_wtspare.c)
	python3 -c "import sys
h = 0xcbf29ce484222325
for b in sys.argv[1].encode():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print('%016x' % h)" "$1"
}
K1=$(key_of "$R1")
K2=$(key_of "$R2")

SD=$(mkwork)
spawn_user env XDG_DATA_HOME="$DATA" "$B/test/airlockd" --socket \
    "$SD/d.sock" 2>"$SD/d.err"
DPID=$!
sp "$SD/d.sock" provision c1 "$R1" "$R2" >"$T/c1.json"
sp "$SD/d.sock" wait "$R1" "$R2" >"$T/w1.json"
check_sh "control: after a provisioning both repositories have a spare" \
    'ready "$T/w1.json" "$R1" && ready "$T/w1.json" "$R2" &&
    [ -d "$SPARES/$K1" ] && [ -d "$SPARES/$K2" ]'
sp "$SD/d.sock" provision c2 "$R1" "$R2" >"$T/c2.json"
check "control: with no step, the next provisioning takes both" \
    from_spare "$T/c2.json" "['r1', 'r2']"
sp "$SD/d.sock" wait "$R1" "$R2" >/dev/null
# r2's spare is out of @spares when the clock is set (as one another
# airlockd holds locked would be left there): it must not be taken when
# it is back.
mkdir "$T/xfs/aside" && chown "$TUSER" "$T/xfs/aside"
u mv "$SPARES/$K2" "$SPARES/$K2.json" "$T/xfs/aside/"
kill -USR2 "$DPID"
i=0
while [ -e "$SPARES/$K1" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "a step is noticed and said" \
    grep -q 'the wall clock was set' "$SD/d.err"
check "  the spare made before it is removed from @spares" \
    sh -c "[ ! -e '$SPARES/$K1' ] && [ ! -e '$SPARES/$K1.json' ] &&
    ! ls '$SPARES' | grep -q '\.tmp\.'"
u mv "$T/xfs/aside/$K2" "$T/xfs/aside/$K2.json" "$SPARES/"
sp "$SD/d.sock" provision c3 "$R1" "$R2" >"$T/c3.json"
check_sh "  no spare made before it is taken, even one put back after" \
    'from_spare "$T/c3.json" "[]" &&
    [ "$(cat "$DATA/airlock/conversations/c3/repos/r2/b")" = two ]'
sp "$SD/d.sock" wait "$R1" "$R2" >"$T/w4.json"
sp "$SD/d.sock" provision c4 "$R1" "$R2" >"$T/c4.json"
check "  spares made after the step are taken again" \
    from_spare "$T/c4.json" "['r1', 'r2']"
check "  airlockd ran on through it" kill -0 "$DPID"
kill "$DPID"
wait "$DPID" 2>/dev/null
DPID=

# The shipped airlockd: no hook, and the real watch is armed.
check "the shipped airlockd has no clock-step hook (the test build has)" \
    sh -c "! grep -qaF test-clock-step '$B/airlockd' &&
    grep -qaF test-clock-step '$B/test/airlockd'"
spawn_user env XDG_DATA_HOME="$DATA" "$AIRLOCKD" --socket "$SD/s.sock" \
    2>"$SD/s.err"
DPID=$!
i=0
while [ ! -S "$SD/s.sock" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
tfd=
for f in /proc/$DPID/fd/*; do
	[ "$(readlink "$f")" = "anon_inode:[timerfd]" ] &&
	    tfd=/proc/$DPID/fdinfo/${f##*/}
done
[ -n "$tfd" ] && sed 's/^/# /' "$tfd"
# clockid 0 is CLOCK_REALTIME; settime flags 03 are TFD_TIMER_ABSTIME and
# TFD_TIMER_CANCEL_ON_SET.
check "  it watches CLOCK_REALTIME with a timerfd armed TFD_TIMER_CANCEL_ON_SET" \
    sh -c "[ -n '$tfd' ] && grep -q '^clockid: 0' '$tfd' &&
    grep -q '^settime flags: 03' '$tfd'"
check "  and stops when asked (SIGUSR2 is not a step there: it ends it)" \
    sh -c "kill -USR2 $DPID; sleep 0.5; ! kill -0 $DPID 2>/dev/null"
wait "$DPID" 2>/dev/null
DPID=
[ "$_fails" -eq 0 ] || sed 's/^/# /' "$SD/d.err" | tail -20
finish
