#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Integration tests of airlock-launcher: real sandboxes, built through
# tests/helpers/launch_drive (which plays airlockd's part), run as an
# unprivileged user as on a desktop.  When run as root (CI), a user
# airlock-test is created if absent, the two binaries are staged in a
# world-readable directory and the sandboxes run under setpriv as that
# user.  TAP output; exits non-zero if any test fails.
#
# usage: sh tests/integration/launcher.sh [BUILD_DIR]   (default: build)
# needs: make build/airlock-launcher build/tests/helpers/launch_drive
set -u

BUILD=${1:-${AIRLOCK_STAGE:+$AIRLOCK_STAGE/build}}
BUILD=${BUILD:-build}
# Absolute: the tests below run from / (a non-root run uses it in place).
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || BUILD=${1:-build}
for f in "$BUILD/airlock-launcher" "$BUILD/tests/helpers/launch_drive"; do
	if [ ! -x "$f" ]; then
		echo "Bail out! $f not built"
		exit 1
	fi
done

# Outside /tmp, like a real checkout: the sandbox's /tmp is its own.
WORK=$(mktemp -d /var/tmp/airlock-launcher-test.XXXXXX)
chmod 755 "$WORK"
if [ "$(id -u)" = 0 ]; then
	TUSER=airlock-test
	id "$TUSER" >/dev/null 2>&1 || useradd -M -s /bin/sh "$TUSER" ||
	    { echo "Bail out! cannot create $TUSER"; exit 1; }
	mkdir -p "$WORK/bin/tests/helpers"
	cp "$BUILD/airlock-launcher" "$BUILD/airlock-guard" "$WORK/bin/"
	cp "$BUILD/tests/helpers/launch_drive" "$WORK/bin/tests/helpers/"
	chmod -R a+rX "$WORK/bin"
	AS="setpriv --reuid=$TUSER --regid=$TUSER --init-groups"
	STAGE="$WORK/bin"
else
	TUSER=$(id -un)
	AS=""
	STAGE=$BUILD
fi
TUID=$(id -u "$TUSER")
W="$WORK/w"			# the user's files, as the user owns them
mkdir -p "$W/rw" "$W/ro" "$W/outside" "$W/ll" "$W/rw/secretdir"
echo hello-secret > "$W/rw/secret.txt"
echo key-material > "$W/rw/secretdir/key"
echo rc-original > "$W/rw/.bashrc"
echo n0 > "$W/rw/neighbour"
chown -R "$TUSER" "$W"
cd /

DRIVE="$STAGE/tests/helpers/launch_drive -L $STAGE/airlock-launcher"
# run [drive options] -- CMD...: one sandbox, output on stdout+stderr.
run() {
	$AS $DRIVE "$@" 2>&1
}
# gone PATTERN: no process of the test user matches PATTERN (waits 3 s).
gone() {
	i=0
	while [ $i -lt 30 ]; do
		pgrep -u "$TUSER" -f "$1" >/dev/null 2>&1 || return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# dead PID: PID is gone or a zombie (a container's pid 1 may never reap the
# launcher once its parent, the driver, has gone).
dead() {
	[ ! -e "/proc/$1" ] || grep -q '^[0-9]* (.*) Z' "/proc/$1/stat"
}
# in_ns NS: how many live processes are in pid namespace NS ("pid:[N]"),
# whoever else runs as the test user meanwhile (zombies have no ns link).
in_ns() {
	ls -l /proc/[0-9]*/ns/pid 2>/dev/null | grep -cF -- "-> $1"
}
# waitfile FILE: wait up to 10 s for FILE to be non-empty.
waitfile() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$1" ]
}

N=0
FAIL=0
ok() {
	N=$((N + 1))
	echo "ok $N - $1"
}
notok() {
	N=$((N + 1))
	FAIL=$((FAIL + 1))
	echo "not ok $N - $1"
	shift
	for l in "$@"; do
		printf '%s\n' "$l" | sed 's/^/# /'
	done
}
# t DESCRIPTION CONDITION OUTPUT...: report one test.
t() {
	d=$1
	c=$2
	shift 2
	if [ "$c" = 0 ]; then ok "$d"; else notok "$d" "$@"; fi
}

echo "1..37"

out=$(run -- id -u)
[ "$out" = "$TUID" ]
t "the uid inside is the caller's ($TUID)" $? "$out"

out=$(run -- cat /proc/self/uid_map /proc/self/gid_map)
TGID=$(id -g "$TUSER")
[ "$(echo $out)" = "$TUID $TUID 1 $TGID $TGID 1" ]
t "the id maps hold only the caller's uid and gid" $? "$out"

out=$(run --bind "$W/rw" "$W/rw" -- sh -c "echo written > $W/rw/new")
[ "$(cat "$W/rw/new" 2>/dev/null)" = written ]
t "a write in a writable bind succeeds with its content" $? "$out"

out=$(run --bind "$W/rw" "$W/rw" -- sh -c \
    "echo x > $W/outside/f; mkdir -p $W/outside/d; echo x > /f; \
     echo x > /usr/f")
rc=$?
[ $rc -ne 0 ] && [ -z "$(ls -A "$W/outside")" ] && [ ! -e /f ] &&
    [ ! -e /usr/f ]
t "a write outside the binds fails and leaves nothing" $? "$out"

out=$(run -- sh -c 'for p in /root /home /var /srv /work /mnt /boot \
    /sys '"$WORK"'; do [ -e $p ] && echo "visible: $p"; done; true')
[ -z "$out" ]
t "unbound host paths are invisible" $? "$out"

# With a Landlock rw rule on it, so that the mount alone must refuse.
out=$(run --ro-bind "$W/ro" "$W/ro" --landlock-rw "$W/ro" -- sh -c \
    "echo x > $W/ro/f")
rc=$?
[ $rc -ne 0 ] && [ ! -e "$W/ro/f" ] &&
    echo "$out" | grep -q "Read-only file system"
t "a read-only bind refuses writes (the mount alone)" $? "$out"

# init, airlock-guard, sh, ls, grep.
out=$(run -- sh -c 'cat /proc/1/comm; ls /proc | grep -c "^[0-9]"')
[ "$(echo "$out" | head -1)" = airlock-launche ] &&
    [ "$(echo "$out" | tail -1)" -le 5 ]
t "/proc shows only the sandbox (pid 1 is init)" $? "$out"

# A listener on the host's loopback (port 0: the kernel picks a free one),
# kept open while the sandbox tries to reach it.
python3 -c 'import socket, os, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept(); c.close()' "$W/rw/hostport" >/dev/null 2>&1 &
HOSTL=$!
if waitfile "$W/rw/hostport"; then
	PORT=$(cat "$W/rw/hostport")
	bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT" 2>/dev/null
	host=$?
	out=$(run --no-landlock-net -- bash -c \
	    "exec 3<>/dev/tcp/127.0.0.1/$PORT && echo CONNECTED")
	[ $host = 0 ] && ! echo "$out" | grep -q CONNECTED
	t "no network: a host loopback port is unreachable (netns alone)" \
	    $? "host=$host $out"
	out=$(run -- bash -c \
	    "exec 3<>/dev/tcp/127.0.0.1/$PORT && echo CONNECTED")
	! echo "$out" | grep -q CONNECTED
	t "no network: a host loopback port is unreachable (default plan)" \
	    $? "$out"
else
	notok "no network: host listener did not start" ""
	notok "no network: host listener did not start" ""
fi
kill "$HOSTL" 2>/dev/null
wait "$HOSTL" 2>/dev/null

out=$(run --listen http -- bash -c \
    'exec 3<>/dev/tcp/127.0.0.1/$AIRLOCK_PORT_HTTP && read -r l <&3 && \
     echo "OWN $l"; \
     exec 4<>/dev/tcp/127.0.0.1/$((AIRLOCK_PORT_HTTP + 1)) && echo OTHER')
echo "$out" | grep -q "OWN hello-from-host" &&
    ! echo "$out" | grep -q OTHER &&
    echo "$out" | grep -q "Permission denied"
t "a listener made inside is served from the host; connect only to it" \
    $? "$out"

out=$(run --bind "$W/rw" "$W/rw" --mask "$W/rw/secret.txt" \
    --mask "$W/rw/secretdir" --mask "$W/rw/not-there" -- sh -c \
    "cat $W/rw/secret.txt; ls $W/rw/secretdir; cat $W/rw/secretdir/key; \
     chmod 644 $W/rw/secret.txt; cat $W/rw/secret.txt; \
     echo x > $W/rw/secret.txt")
! echo "$out" | grep -q -e hello-secret -e key-material &&
    [ "$(cat "$W/rw/secret.txt")" = hello-secret ]
t "masked files and directories cannot be read, chmod or written" $? "$out"

out=$(run --bind "$W/rw" "$W/rw" --ro "$W/rw/.bashrc" -- sh -c \
    "echo appended >> $W/rw/.bashrc; echo n1 >> $W/rw/neighbour; \
     rm -f $W/rw/.bashrc; mv $W/rw/neighbour $W/rw/.bashrc")
[ "$(cat "$W/rw/.bashrc")" = rc-original ] &&
    [ "$(cat "$W/rw/neighbour" 2>/dev/null | tail -1)" = n1 ]
t "a read-only path inside a writable bind: it refuses, its neighbour not" \
    $? "$out"

out=$(run --bind-no-landlock "$W/ll" "$W/ll" -- sh -c \
    "grep ' $W/ll ' /proc/self/mountinfo | cut -d' ' -f6; \
     echo x > $W/ll/f")
rc=$?
[ $rc -ne 0 ] && [ ! -e "$W/ll/f" ] && echo "$out" | grep -q '^rw' &&
    echo "$out" | grep -q "Permission denied"
t "Landlock alone refuses a write in a rw bind without a rw rule" $? "$out"

out=$(run -- sh -c 'grep -E "^(CapInh|CapEff|CapPrm|CapBnd|CapAmb|NoNewPrivs)" \
    /proc/self/status')
[ "$(echo "$out" | grep -c ':[[:space:]]*0000000000000000$')" = 5 ] &&
    echo "$out" | grep -q 'NoNewPrivs:[[:space:]]*1'
t "no capabilities at all, no_new_privs set" $? "$out"

out=$(run -- ls /proc/self/fd)
[ "$(echo $out)" = "0 1 2 3" ]
t "only stdio is open in a command (+ ls's own directory fd)" $? "$out"

out=$(run --repeat 3 -- sh -c \
    'read -r p c s pp pg sid rest < /proc/$$/stat; \
     [ "$sid" = "$$" ] && [ "$pg" = "$$" ] && echo LEADER')
[ "$(echo "$out" | grep -c LEADER)" = 3 ]
t "each exec is its own session and group leader (3 execs, one sandbox)" \
    $? "$out"

# A process left by an earlier exec stops the next exec's child the moment
# it exists (its pid is ns_last_pid + 1), before its execve.  Init must go
# on serving (notifications, signals, exit reports): a vfork child would
# hold it, suspended, for as long as the attacker liked.
mkdir -p "$WORK/stopper"
cat >"$WORK/stopper/stop.py" <<'EOF_PY'
import os, signal, time
def st(p):
    s = open('/proc/%d/stat' % p).read()
    return s[s.rindex(')') + 2]
open('/tmp/ready', 'w').close()
n = int(open('/proc/sys/kernel/ns_last_pid').read()) + 1
t0 = time.time()
while time.time() - t0 < 20:
    try:
        os.kill(n, signal.SIGSTOP)
        break
    except ProcessLookupError:
        pass
time.sleep(0.5)
open('/tmp/log', 'a').write('child %s init %s\n' % (st(n), st(1)))
os.kill(n, signal.SIGCONT)
EOF_PY
chmod -R a+rX "$WORK/stopper"
out=$(run --ro-bind "$WORK/stopper" /stopper --repeat 2 -- sh -c \
    'if [ -e /tmp/m ]; then cat /tmp/log; else touch /tmp/m; \
     python3 /stopper/stop.py </dev/null >/dev/null 2>&1 & \
     while [ ! -e /tmp/ready ]; do :; done; fi')
echo "$out" | grep -q '^child T init [SR]$'
t "a sandbox process that stops an exec's child does not stop init" $? \
    "$out"

out=$(run -- sh -c 'hostname; echo x > /dev/null; \
    head -c 16 /dev/urandom | wc -c; ls /dev/pts/ptmx /dev/shm /dev/fd/0')
echo "$out" | grep -q '^airlock$' && echo "$out" | grep -q '^16$' &&
    echo "$out" | grep -q '/dev/pts/ptmx'
t "hostname airlock; a working minimal /dev" $? "$out"

out=$(run --tmpfs /home/u --file /home/u/.gitconfig "[user] name = t" -- \
    sh -c 'cat /home/u/.gitconfig; echo; stat -c "%a %u" /home/u/.gitconfig')
echo "$out" | grep -q '^\[user\] name = t$' &&
    echo "$out" | grep -q "^644 $TUID$"
t "a plan file is created with its mode and content, owned by the caller" \
    $? "$out"

out=$(run --seccomp-eperm mkdir --seccomp-eperm mkdirat -- sh -c \
    'mkdir /tmp/x; grep "^Seccomp:" /proc/self/status')
echo "$out" | grep -q "Operation not permitted" &&
    echo "$out" | grep -q 'Seccomp:[[:space:]]*2'
t "the plan's seccomp program is loaded into each command" $? "$out"

out=$(run --seccomp-invalid -- true)
rc=$?
[ $rc = 125 ] && echo "$out" | grep -q "seccomp program rejected"
t "a seccomp program the kernel rejects fails the launch" $? "rc=$rc $out"

# A plan that says its programs are known skips that check (airlockd says
# so once a launch has loaded them): if it were wrong, every exec fails at
# its own load and the command never runs.
out=$(run --seccomp-invalid --seccomp-known -- sh -c 'echo RAN')
rc=$?
[ $rc -ne 0 ] && ! echo "$out" | grep -q RAN &&
    echo "$out" | grep -q "seccomp"
t "a wrongly 'known' seccomp program fails each exec, never runs it" $? \
    "rc=$rc $out"

# The ids are checked in plan_recv() now, after the namespaces were made
# (a spare launcher enters them before any plan): a plan for anyone else
# is still refused before anything runs.
out=$(run --plan-uid 0 -- sh -c 'echo RAN')
rc=$?
[ $rc = 125 ] && ! echo "$out" | grep -q RAN &&
    echo "$out" | grep -q "are not the caller's"
t "a plan for another uid is refused, nothing runs" $? "rc=$rc $out"

out=$(run -- sh -c 'kill -TERM 1; kill -KILL 1; kill -HUP 1; sleep 0.3; \
    echo ALIVE')
[ "$out" = ALIVE ]
t "a command cannot stop the sandbox's init by signalling pid 1" $? "$out"

out=$(run --rlimit nofile 17 -- sh -c 'ulimit -n')
[ "$out" = 17 ]
t "the plan's rlimits apply to each command" $? "$out"

# The background sleep holds stdout: only a signal to the whole process
# group lets the exec's streams end (else timeout's 20 s run out).
out=$(timeout 20 $AS $DRIVE --term-after 500 -- sh -c \
    'sleep 100 & sleep 100; echo SURVIVED' 2>&1)
rc=$?
[ $rc = 143 ] && ! echo "$out" | grep -q SURVIVED
t "MSG_EXEC_SIGNAL reaches the exec's whole process group" $? "rc=$rc $out"

out=$(run -- /nonexistent/cmd)
rc=$?
[ $rc = 127 ] && echo "$out" | grep -q "exec failed: execve"
t "an exec failure is reported as MSG_EXEC_FAILED" $? "rc=$rc $out"

# Every sandbox has its own network namespace (the launcher enters it
# before its plan comes): a plan without one is refused, not honoured.
out=$(run --no-net-ns -- true)
rc=$?
[ $rc = 125 ] && echo "$out" | grep -q "own network namespace"
t "a plan without a network namespace is refused" $? "rc=$rc $out"

out=$(run --bind /nonexistent-source /x -- true)
rc=$?
[ $rc = 125 ] && echo "$out" | grep -q "bind source /nonexistent-source"
t "a launch failure names the op (MSG_LAUNCH_FAILED)" $? "rc=$rc $out"

# Kill the launcher: everything inside must die with it.
rm -f "$W/rw/pids"
$AS $DRIVE --bind "$W/rw" "$W/rw" --pidfile "$W/rw/pids" -- sh -c \
    'sleep 876543 & sleep 876543 & exec sleep 876543' >/dev/null 2>&1 &
DRV=$!
if waitfile "$W/rw/pids"; then
	sleep 0.3
	before=$(pgrep -u "$TUSER" -c -f "^sleep 876543")
	kill -9 "$(cut -d' ' -f1 "$W/rw/pids")"
	gone "^sleep 876543"
	rc=$?
	[ "$before" = 3 ] && [ $rc = 0 ] &&
	    dead "$(cut -d' ' -f2 "$W/rw/pids")"
	t "killing the launcher kills everything inside" $? "before=$before" \
	    "$(ps -u "$TUSER" -o pid,ppid,stat,cmd)"
else
	notok "killing the launcher: sandbox did not start" ""
fi
wait "$DRV" 2>/dev/null

# Kill the supervisor (the driver): init sees EOF and fails closed.
rm -f "$W/rw/pids"
$AS $DRIVE --bind "$W/rw" "$W/rw" --pidfile "$W/rw/pids" -- sh -c \
    'sleep 765432 & exec sleep 765432' >/dev/null 2>&1 &
DRV=$!
if waitfile "$W/rw/pids"; then
	sleep 0.3
	before=$(pgrep -u "$TUSER" -c -f "^sleep 765432")
	kill -9 "$DRV"
	gone "^sleep 765432"
	rc=$?
	[ "$before" = 2 ] && [ $rc = 0 ] &&
	    dead "$(cut -d' ' -f1 "$W/rw/pids")"
	t "losing airlockd kills the sandbox (fail closed)" $? "before=$before"
else
	notok "losing airlockd: sandbox did not start" ""
fi
wait "$DRV" 2>/dev/null

# A fork bomb under RLIMIT_NPROC 64: first prove the limit is in place
# (never run an unbounded bomb), then count the processes in the sandbox's
# pid namespace: at most 64 under the limit plus init.  Each of the
# bomb's processes forks forever and never exits (bash retries a fork
# that fails), so it fills the limit and stays there; one whose
# processes exit when a fork fails can die out on a loaded machine.
out=$(run --rlimit nproc 64 -- bash -c 'ulimit -u')
if [ "$out" = 64 ]; then
	rm -f "$W/rw/pids"
	$AS $DRIVE --rlimit nproc 64 --bind "$W/rw" "$W/rw" \
	    --pidfile "$W/rw/pids" -- sh -c \
	    'bash -c "b() { b & b; }; b" >/dev/null 2>&1 & exec sleep 543210' \
	    >/dev/null 2>&1 &
	DRV=$!
	waitfile "$W/rw/pids"
	ns=$(readlink "/proc/$(cut -d' ' -f1 "$W/rw/pids")/ns/pid_for_children")
	sleep 3
	count=$(in_ns "$ns")
	kill -9 "$(cut -d' ' -f1 "$W/rw/pids")" 2>/dev/null
	wait "$DRV" 2>/dev/null
	gone "^sleep 543210"
	rc=$?
	i=0
	while [ "$(in_ns "$ns")" != 0 ] && [ $i -lt 30 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	left=$(in_ns "$ns")
	[ -n "$ns" ] && [ "$count" -ge 20 ] && [ "$count" -le 66 ] &&
	    [ $rc = 0 ] && [ "$left" = 0 ]
	t "a fork bomb under --rlimit nproc 64 is contained and cleaned up" \
	    $? "$ns: processes during: $count, after: $left"
else
	notok "a fork bomb: RLIMIT_NPROC not applied, bomb not run" "$out"
fi

out=$(run --dev-bind /dev/null "$W/rw/devnull" --ro-bind /etc/hostname \
    /tmp/hostname-copy -- sh -c \
    "echo x > $W/rw/devnull && echo DEVOK; cat /tmp/hostname-copy")
echo "$out" | grep -q DEVOK
t "file binds work, and --dev-bind keeps a device usable" $? "$out"

# A planted symlink in a writable bind must resolve in the sandbox's view:
# masking it masks the sandbox's target (a file the plan made in /tmp),
# where resolving on the host's side would have missed it.
ln -sf /tmp/t/target "$W/rw/planted"
out=$(run --bind "$W/rw" "$W/rw" --file /tmp/t/target "visible" \
    --mask "$W/rw/planted" -- sh -c "cat $W/rw/planted; cat /tmp/t/target")
rm -f "$W/rw/planted"
! echo "$out" | grep -q visible
t "a mask through a planted symlink resolves inside the sandbox" $? "$out"

# A read-only bind is read-only all the way down: a writable mount under
# its source (made here by root) must not stay writable inside.
if [ "$(id -u)" = 0 ] && mkdir -p "$W/ro/sub" &&
    mount -t tmpfs -o mode=0777 airlock-test-sub "$W/ro/sub"; then
	out=$(run --ro-bind "$W/ro" "$W/ro" --landlock-rw "$W/ro" -- sh -c \
	    "echo x > $W/ro/sub/f")
	rc=$?
	[ $rc -ne 0 ] && [ ! -e "$W/ro/sub/f" ] &&
	    echo "$out" | grep -q "Read-only file system"
	t "a submount under a read-only bind is read-only too" $? "$out"
	umount "$W/ro/sub"
else
	ok "a submount under a read-only bind is read-only too # SKIP needs root"
fi

# issue 11: a bind source or a Landlock path swapped for a symlink after
# airlockd planned it (the plan holds canonical paths) is never followed:
# the bind fails naming the path, the Landlock path gets no grant.
mkdir -p "$W/ll/sub"
ln -sfn "$W/rw/secretdir" "$W/swapped"
ln -sfn sub "$W/ll/lnk"
chown -h "$TUSER" "$W/swapped" "$W/ll/lnk" "$W/ll/sub"
out=$(run --bind "$W/swapped" /x -- cat /x/key)
rc=$?
[ $rc = 125 ] && echo "$out" | grep -q "bind source $W/swapped" &&
    ! echo "$out" | grep -q key-material
t "a bind source that is a symlink is refused, naming it" $? "rc=$rc $out"
out=$(run --bind-no-landlock "$W/ll" "$W/ll" --landlock-rw "$W/ll/lnk" -- \
    sh -c "echo x > $W/ll/sub/f")
rc=$?
[ $rc -ne 0 ] && [ ! -e "$W/ll/sub/f" ] &&
    echo "$out" | grep -q "Permission denied"
t "a Landlock path through a symlink grants nothing" $? "rc=$rc $out"
rm -f "$W/swapped" "$W/ll/lnk"

cd /
rm -rf "$WORK"
if [ $FAIL -ne 0 ]; then
	echo "# $FAIL of $N failed"
	exit 1
fi
exit 0
