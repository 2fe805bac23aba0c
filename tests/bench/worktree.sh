#!/bin/sh
# SPDX-License-Identifier: ISC
#
# A conversation's copy of a repository (issue 16, SPEC §5): provisioning
# a generated 50,000-file repository against what a user would do
# instead, in one run, with time and disk used, on a loop-mounted XFS
# made with reflink=1 (root makes it; the copies run as an unprivileged
# user).
#   tests/bench/worktree.sh BUILD_DIR [RUNS]
# Environment: BENCH_REPO, a real repository (a clone of git's sources,
# say) to measure as well, copied onto the XFS first.
# Rows (median of RUNS rounds, default 3; each round runs every row):
#   - worktree.provision: the JSON-RPC call to a running airlockd, from
#     request to answer (airlock-clone with its default workers), the
#     first copy of the repository (airlockd --no-spares: no spare)
#   - worktree.provision from the spare: a long-lived airlockd provisions
#     one conversation (untimed), waits until worktree.list shows the
#     spare copy it then makes ready, and provisions another (timed):
#     with nothing changed in the repository, and again after 1% of its
#     files were appended to
#   - airlock-clone -j 1 and -j 2, alone (is the second worker worth it?)
#   - cp -a --reflink=always
#   - git worktree add (a checkout: every file written)
#   - git clone --local (objects hard-linked, then a checkout)
#   - floor: a minimal C loop (below) doing only mkdir per directory and
#     open, open+create, FICLONE, close, close per file, with as many
#     threads as cores, no modes, times, symlinks or sandbox: a lower
#     bound for any copy-on-write copy on this machine.  Timed by itself
#     (from main to the last close), so it leaves out its own start-up.
#     It runs last in each round, so the other rows run as before.
# Disk: what df says the filesystem gained, after sync.
set -eu
BUILD=$(cd "${1:-build}" && pwd)
RUNS=${2:-3}
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ]; then
	echo "(skipped: root makes the XFS this benchmark needs)"
	exit 0
fi
PATH=$PATH:/usr/sbin:/sbin
bench_stage "/tmp/airlock-wtbench.XXXXXX"
IMG=$STAGE/xfs.img
M=$STAGE/xfs
LOOP=
cleanup() {
	umount "$M" 2>/dev/null || umount -l "$M" 2>/dev/null || true
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$STAGE"
}
trap cleanup EXIT
trap 'exit 1' HUP INT PIPE TERM
truncate -s 4G "$IMG"
LOOP=$(losetup --find --show "$IMG")
mkfs.xfs -q -m reflink=1 "$LOOP"
mkdir "$M"
mount "$LOOP" "$M"
chown "$U" "$M"

# The repository: 500 directories of 100 files (0 to 3 KB), committed.
run_as python3 - "$M/repo" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(500):
    p = os.path.join(root, "d%d" % (d // 50), "e%d" % d)
    os.makedirs(p)
    for f in range(100):
        with open(os.path.join(p, "f%d.c" % f), "w") as fh:
            fh.write("x" * ((f * 37 + d) % 3000))
PY
run_as sh -c "cd '$M/repo' && git init -q && git add -A && git -c user.name=b -c user.email=b@example.invalid commit -qm tree"
REPOS="$M/repo"
if [ -n "${BENCH_REPO:-}" ] && [ -d "$BENCH_REPO/.git" ]; then
	git clone -q --no-hardlinks "$BENCH_REPO" "$M/real"
	chown -R "$U" "$M/real"
	REPOS="$REPOS $M/real"
fi

cat >"$STAGE/prov.py" <<'PY'
# prov.py AIRLOCKD REPO cold: seconds of one worktree.provision call
# prov.py AIRLOCKD REPO spare: two lines, seconds of a provisioning from
#   the spare with nothing changed, then with 1% of the files changed
import json, os, socket, subprocess, sys, time
spare = sys.argv[3] == "spare"
a, b = socket.socketpair()
p = subprocess.Popen([sys.argv[1], "--fd", str(b.fileno()), "--quiet"] +
                     ([] if spare else ["--no-spares"]),
                     pass_fds=[b.fileno()], stderr=subprocess.DEVNULL)
b.close()
f = a.makefile("rwb")
def call(method, params):
    f.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method,
                        "params": params}).encode() + b"\n")
    f.flush()
    while True:
        m = json.loads(f.readline())
        if m.get("id") == 1:
            return m
def provision(conv, want_spare):
    t = time.monotonic()
    r = call("worktree.provision", {"conversationId": conv,
                                    "repos": [sys.argv[2]], "agents": ["a"]})
    t = time.monotonic() - t
    if "result" not in r:
        sys.exit(str(r))
    if want_spare is not None and \
       bool(r["result"].get("fromSpare")) != want_spare:
        sys.exit("fromSpare is not %s: %s" % (want_spare, r["result"]))
    return t
def spare_ready():
    for _ in range(1200):
        l = call("worktree.list", {})["result"]
        if any(s.get("source") == sys.argv[2] and s.get("ready")
               for s in l.get("spares", [])):
            return
        time.sleep(0.1)
    sys.exit("no spare after 120 s")
call("host.status", {})
if not spare:
    print("%.3f" % provision("c", False))
else:
    provision("s0", False)
    spare_ready()
    t1 = provision("s1", True)
    spare_ready()
    n = 0
    for dp, dns, fns in os.walk(sys.argv[2]):
        dns[:] = [d for d in dns if d != ".git"]
        for fn in fns:
            n += 1
            if n % 100 == 0:
                with open(os.path.join(dp, fn), "a") as fh:
                    fh.write("/* changed */\n")
    t2 = provision("s2", True)
    spare_ready()	# nothing left running when airlockd exits
    print("%.3f" % t1)
    print("%.3f" % t2)
f.close(); a.close(); p.wait()
PY
cat >"$STAGE/helper.py" <<'PY'
# helper.py AIRLOCK_CLONE JOBS SRC DST: seconds of one airlock-clone copy
import os, socket, struct, subprocess, sys, time
hold = os.open("/dev/null", os.O_RDONLY)	# keep fd 3 busy
a, b = socket.socketpair()
os.dup2(b.fileno(), 3)
t = time.monotonic()
p = subprocess.Popen([sys.argv[1], "-j", sys.argv[2], "copy", sys.argv[3],
                      sys.argv[4]], pass_fds=(3,), stderr=subprocess.DEVNULL)
os.close(3); b.close()
buf = b""
while True:
    d = a.recv(65536)
    if not d:
        break
    buf += d
p.wait()
t = time.monotonic() - t
err = None
while len(buf) >= 8:
    typ, ver, nf, ln = struct.unpack("<HBBI", buf[:8])
    if typ == 0x402:
        err = struct.unpack("<I", buf[8:12])[0]
    buf = buf[8 + ln:]
if err != 0:
    sys.exit("airlock-clone failed: %s" % err)
print("%.3f" % t)
PY
cat >"$STAGE/floor.c" <<'C'
/* floor SRC DST NTHREADS: mkdir, open+FICLONE+close per file, nothing else */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static struct { int s, d; } q[1 << 20];
static int qn, qh, busy;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void
dodir(int sfd, int dfd)
{
	char buf[32768];
	long n, o;
	struct dirent64 *e;
	int s, d;

	while ((n = getdents64(sfd, buf, sizeof(buf))) > 0)
		for (o = 0; o < n; o += e->d_reclen) {
			e = (struct dirent64 *)(buf + o);
			if (e->d_name[0] == '.' && (e->d_name[1] == 0 ||
			    (e->d_name[1] == '.' && e->d_name[2] == 0)))
				continue;
			if (e->d_type == DT_DIR) {
				if (mkdirat(dfd, e->d_name, 0700) == -1)
					exit(1);
				s = openat(sfd, e->d_name, O_RDONLY | O_DIRECTORY);
				d = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY);
				pthread_mutex_lock(&mu);
				q[qn].s = s; q[qn].d = d; qn++;
				pthread_cond_signal(&cv);
				pthread_mutex_unlock(&mu);
			} else if (e->d_type == DT_REG) {
				s = openat(sfd, e->d_name, O_RDONLY);
				d = openat(dfd, e->d_name, O_WRONLY | O_CREAT |
				    O_EXCL, 0600);
				if (s == -1 || d == -1 ||
				    ioctl(d, FICLONE, s) == -1)
					exit(1);
				close(d);
				close(s);
			}
		}
}

static void *
worker(void *a)
{
	int s, d;

	for (;;) {
		pthread_mutex_lock(&mu);
		while (qh == qn && busy > 0)
			pthread_cond_wait(&cv, &mu);
		if (qh == qn) {
			pthread_cond_broadcast(&cv);
			pthread_mutex_unlock(&mu);
			return a;
		}
		s = q[qh].s; d = q[qh].d; qh++; busy++;
		pthread_mutex_unlock(&mu);
		dodir(s, d);
		close(s);
		close(d);
		pthread_mutex_lock(&mu);
		busy--;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
}

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t t[64];
	int i, n = argc > 3 ? atoi(argv[3]) : 1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (n < 1 || n > 64 || mkdir(argv[2], 0700) == -1)
		return 1;
	q[0].s = open(argv[1], O_RDONLY | O_DIRECTORY);
	q[0].d = open(argv[2], O_RDONLY | O_DIRECTORY);
	qn = 1;
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.3f\n", (double)(t1.tv_sec - t0.tv_sec) +
	    (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
C
FLOOR=
if ${CC:-cc} -D_GNU_SOURCE -O2 -o "$STAGE/floor" "$STAGE/floor.c" \
    -lpthread 2>/dev/null; then
	FLOOR=$STAGE/floor
	chmod 0755 "$FLOOR"
fi
chmod 0644 "$STAGE/prov.py" "$STAGE/helper.py"

used() { sync; df -k --output=used "$M" | tail -1; }
# one NAME CMD...: time (s) and disk (KiB) of one copy, appended to
# $STAGE/NAME.t and $STAGE/NAME.d.  A command printing a number is
# timed by itself (it leaves out its own start-up); else wall time.
one() {
	_name=$1
	shift
	_u0=$(used)
	_t0=$(date +%s.%N)
	run_as "$@" >"$STAGE/$_name.out" 2>"$STAGE/$_name.err" ||
	    { echo "($_name failed: $(tail -1 "$STAGE/$_name.err"))"; return 1; }
	_t1=$(date +%s.%N)
	_out=$(tail -1 "$STAGE/$_name.out")
	case $_out in
	[0-9]*.[0-9]*) echo "$_out" >>"$STAGE/$_name.t" ;;
	*) awk "BEGIN {print $_t1 - $_t0}" >>"$STAGE/$_name.t" ;;
	esac
	echo "$(($(used) - _u0))" >>"$STAGE/$_name.d"
}
median() { sort -n "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

for src in $REPOS; do
	rm -f "$STAGE"/*.t "$STAGE"/*.d
	n=$(find "$src" -type f | wc -l)
	mb=$(du -sm --exclude=.git "$src" | cut -f1)
	r=1
	while [ "$r" -le "$RUNS" ]; do
		D=$M/out$r
		run_as mkdir "$D"
		one provision env XDG_DATA_HOME="$D/data" python3 \
		    "$STAGE/prov.py" "$BUILD/airlockd" "$src" cold
		# The spare rows: two times from one run (its disk: three
		# conversations' copies and the spare, so none is recorded).
		if run_as env XDG_DATA_HOME="$D/sdata" python3 \
		    "$STAGE/prov.py" "$BUILD/airlockd" "$src" spare \
		    >"$STAGE/spare.out" 2>"$STAGE/spare.err"; then
			sed -n 1p "$STAGE/spare.out" >>"$STAGE/spare0.t"
			sed -n 2p "$STAGE/spare.out" >>"$STAGE/spare1.t"
		else
			echo "(spare failed: $(tail -1 "$STAGE/spare.err"))"
		fi
		rm -rf "$D/sdata"	# the rows below find the disk as before
		one clone1 python3 "$STAGE/helper.py" "$BUILD/airlock-clone" \
		    1 "$src" "$D/j1"
		one clone2 python3 "$STAGE/helper.py" "$BUILD/airlock-clone" \
		    2 "$src" "$D/j2"
		one cp cp -a --reflink=always "$src" "$D/cp"
		one worktree git -C "$src" worktree add -q "$D/wt"
		one clone git clone -q --local "$src" "$D/clone"
		[ -z "$FLOOR" ] || one floor "$FLOOR" "$src" "$D/floor" "$(nproc)"
		run_as git -C "$src" worktree remove --force "$D/wt"
		rm -rf "$D"
		r=$((r + 1))
	done
	base=$(median "$STAGE/provision.t")
	echo "### $(basename "$src"): $n files, $mb MB checked out (median of $RUNS)"
	echo
	echo "| method | time (s) | vs worktree.provision | disk used (MB) |"
	echo "|---|---|---|---|"
	for row in "provision:worktree.provision (airlockd), first copy" \
	    "spare0:worktree.provision from the spare, nothing changed" \
	    "spare1:worktree.provision from the spare, 1% of files changed" \
	    "clone1:airlock-clone -j 1" "clone2:airlock-clone -j 2" \
	    "cp:cp -a --reflink=always" "worktree:git worktree add" \
	    "clone:git clone --local" \
	    "floor:floor: open+FICLONE+close per file (C, $(nproc) threads)"; do
		k=${row%%:*}
		[ -s "$STAGE/$k.t" ] || continue
		t=$(median "$STAGE/$k.t")
		d=-
		[ -s "$STAGE/$k.d" ] && d=$(median "$STAGE/$k.d")
		awk -v n="${row#*:}" -v t="$t" -v b="$base" -v d="$d" \
		    'BEGIN {printf "| %s | %.2f | %.1f× | %s |\n", n, t,
		    t / b, d == "-" ? "-" : sprintf("%.1f", d / 1024)}'
	done
	echo
	wt=$(median "$STAGE/worktree.t")
	for k in provision spare0 spare1; do
		[ -s "$STAGE/$k.t" ] || continue
		awk -v k="$k" -v t="$(median "$STAGE/$k.t")" -v w="$wt" \
		    'BEGIN {printf "git worktree add / %s: %.1f×\n", k, w / t}'
	done
	echo
done
echo "XFS on a loop device (mkfs.xfs -m reflink=1), $(nproc) cores;"
echo "airlock-clone's default is $(nproc) worker(s), at most 4."
