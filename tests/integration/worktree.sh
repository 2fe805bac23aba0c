#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Copy-on-write worktrees per conversation (issue 16, SPEC §5) on real
# filesystems made here: root makes a loop-mounted XFS (mkfs.xfs -m
# reflink=1), a btrfs, an ext4 and a tmpfs; the unprivileged test user
# provisions and runs.
#
# - the copy shares extents with the original (filefrag shows "shared")
#   and df barely moves for a 200 MB checkout; worktree.progress comes at
#   least every 250 ms;
# - edits in one conversation are invisible to another and to the
#   original; git status and git log work in the copy; git push from it
#   goes through the gateway to a real upstream (lib/upstream.sh);
# - two agents share repos/ and cannot see each other's private dirs;
# - a run cannot write the registered checkout, even when it binds it;
# - ext4, tmpfs and a data dir on another filesystem fail with the
#   filesystem's name and the fix, and leave nothing behind, not even the
#   copies this provisioning had finished;
# - the copier's property test (tests/helpers/clone_prop.c) on XFS and
#   btrfs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib/upstream.sh"

if [ "$(id -u)" -ne 0 ]; then
	plan 1
	ok "worktrees on loop-mounted XFS and btrfs # SKIP needs root"
	exit 0
fi
plan 54

T=$(mktemp -d /tmp/airlock-wt.XXXXXX)
chmod 0755 "$T"
LOOPS=
MNTS=
UPD=
cleanup() {
	[ -n "$UPD" ] && { upstream_stop; rm -rf "$UPD"; }
	for m in $MNTS; do umount "$m" 2>/dev/null || umount -l "$m"; done
	for l in $LOOPS; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' HUP INT PIPE TERM

# mkfs_loop NAME SIZE MKFS...: an image in $T, on a loop device, mounted
# at $T/NAME and given to the test user.
mkfs_loop() {
	_name=$1 _size=$2
	shift 2
	truncate -s "$_size" "$T/$_name.img" || return 1
	_dev=$(losetup --find --show "$T/$_name.img") || return 1
	LOOPS="$_dev $LOOPS"
	"$@" "$_dev" >/dev/null 2>&1 || return 1
	mkdir -p "$T/$_name"
	mount "$_dev" "$T/$_name" || return 1
	MNTS="$T/$_name $MNTS"
	chown "$TUSER" "$T/$_name"
	chmod 0755 "$T/$_name"
}
PATH=$PATH:/usr/sbin:/sbin
mkfs_loop xfs 1200M mkfs.xfs -q -m reflink=1 ||
    { echo "Bail out! cannot make an XFS with reflink=1"; exit 1; }
grep -qw btrfs /proc/filesystems && mkfs_loop btrfs 600M mkfs.btrfs -q
mkfs_loop ext4 64M mkfs.ext4 -q ||
    { echo "Bail out! cannot make an ext4"; exit 1; }
mkdir -p "$T/tmpfs"
mount -t tmpfs -o size=64m tmpfs "$T/tmpfs" && MNTS="$T/tmpfs $MNTS"
chown "$TUSER" "$T/tmpfs"
chmod 0755 "$T/tmpfs"

upstream_up
CFG=$(mkwork)
cat >"$CFG/settings.json" <<JSON
{ "git": {
    "codeHosts": [ { "name": "github",
      "pushUrlPrefixes": ["https://github.com/"],
      "upstream": "$UP_HTTPS_URL", "caBundle": "$UP_CA" } ],
    "linkedRepos": ["acme/app"],
    "pushRules": [ { "ref": "refs/heads/main", "action": "deny" },
                   { "ref": "refs/heads/*", "action": "allow" } ] },
  "credentials": { "file": "$CFG/credentials.json" } }
JSON
printf '{ "github": { "writeToken": "%s" } }\n' "$TOKEN" >"$CFG/credentials.json"
chown -R "$TUSER" "$CFG"
chmod 0600 "$CFG/credentials.json"

# u CMD...: as the test user, with the XFS data dir.
DATA=$T/xfs/data
u() { as_user env XDG_DATA_HOME="$DATA" "$@"; }
# The user's checkout on XFS: a clone of acme/app, 200 MB with an
# ignored build artefact; and a tree of 20,000 small files (whose inodes
# alone take 10 MB: df is measured with the checkout).
REPO=$T/xfs/app
git clone -q "$UPD/repos/acme/app.git" "$REPO"
git -C "$REPO" remote set-url origin https://github.com/acme/app.git
chown -R "$TUSER" "$REPO"
u sh -c "cd '$REPO' && printf 'hello\n' >README && printf 'big.bin\n' \
    >.gitignore && mkdir -p src && for i in \$(seq 1 200); do \
    echo \"line \$i\" >src/f\$i.c; done && git add -A && \
    git -c user.name=a -c user.email=a@example.invalid commit -qm work && \
    head -c 200M /dev/urandom >big.bin && mkdir ../many && cd ../many && \
    python3 -c 'import os
for d in range(100):
    os.mkdir(str(d))
    for f in range(200):
        open(\"%d/%d\" % (d, f), \"w\").write(str(f))'"
MANY=$T/xfs/many

# ---- provisioning on XFS, with its progress ----
sync
DF0=$(df -k --output=used "$T/xfs" | tail -1)
cat >"$T/prov.py" <<'PY'
import json, socket, subprocess, sys, time
a, b = socket.socketpair()
p = subprocess.Popen([sys.argv[1], "--fd", str(b.fileno()), "--quiet"],
                     pass_fds=[b.fileno()])
b.close()
f = a.makefile("rwb")
f.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "worktree.provision",
    "params": {"conversationId": sys.argv[3], "repos": [sys.argv[2]],
               "agents": ["a1", "a2"]}}).encode() + b"\n")
f.flush()
t0 = time.monotonic(); times = []; res = None
while res is None:
    m = json.loads(f.readline())
    if m.get("method") == "worktree.progress":
        times.append(time.monotonic())
    elif m.get("id") == 1:
        res = m
t1 = time.monotonic()
# During the copy: from one event to the next, and from the last to the
# answer (the first waits for airlockd and its daemons to start).
gaps = [y - x for x, y in zip(times, times[1:] + [t1])] or [t1 - t0]
print(json.dumps({"answer": res, "events": len(times),
                  "maxgap": max(gaps), "secs": t1 - t0}))
f.close(); a.close(); p.wait()
PY
chmod 0644 "$T/prov.py"
u python3 "$T/prov.py" "$AIRLOCKD" "$REPO" c1 >"$T/prov.json" 2>"$T/prov.err"
sync
DF1=$(df -k --output=used "$T/xfs" | tail -1)
C1=$DATA/airlock/conversations/c1
# jget FILE EXPR: a Python expression over the JSON d, printed
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
check "worktree.provision answers {root, repos, agents}" \
    [ "$(jget "$T/prov.json" "d['answer']['result']['repos']['app'], \
    d['answer']['result']['root'], sorted(d['answer']['result']['agents'])")" \
    = "$C1/repos/app $C1 ['a1', 'a2']" ]
u python3 "$T/prov.py" "$AIRLOCKD" "$MANY" cp >"$T/prog.json" 2>"$T/prog.err"
diag "progress: $(jget "$T/prog.json" "d['events'], 'events, longest gap', round(d['maxgap'], 3), 's of', round(d['secs'], 2), 's; files', d['answer']['result']['files']")"
check "worktree.progress at least every 250 ms during the copy" \
    [ "$(jget "$T/prog.json" "d['events'] >= 2 and d['maxgap'] <= 0.25 and d['answer']['result']['files'] == 20000")" = True ]
diag "df used: $DF0 KiB before, $DF1 KiB after"
check_sh "df barely moves for a 200 MB checkout (< 10 MB)" \
    '[ $((DF1 - DF0)) -lt 10240 ]'
check "filefrag shows the copy's extents shared with the original" \
    sh -c "filefrag -v '$C1/repos/app/big.bin' | grep -q shared"
check "the copy is a whole repository with the original's origin" \
    [ "$(u git -C "$C1/repos/app" remote get-url origin)" = \
    https://github.com/acme/app.git ]
check "the copy's files are alike" \
    cmp -s "$REPO/big.bin" "$C1/repos/app/big.bin"

# ---- runs in the conversation ----
run() {	# run AGENT "shell command"
	u "$AIRLOCK" run --no-policy-check --settings "$CFG/settings.json" \
	    --conversation c1 --agent "$1" -- sh -c "$2"
}
run a1 "pwd; ls $C1/agents; test -z \"\$(git -C $C1/repos/app status --porcelain)\" && echo clean; \
    git -C $C1/repos/app log --oneline" >"$T/r1" 2>&1
diag "$(head -5 "$T/r1")"
check "a run's working directory is its agent's private dir" \
    [ "$(head -1 "$T/r1")" = "$C1/agents/a1" ]
check "a peer agent's private dir is not visible" \
    [ "$(sed -n 2p "$T/r1")" = a1 ]
check "git status in the copy: clean" [ "$(sed -n 3p "$T/r1")" = clean ]
check "git log in the copy" grep -q " work$" "$T/r1"
run a1 "echo from-a1 >$C1/repos/app/shared.txt && echo edit >>$C1/repos/app/README && echo mine >$C1/agents/a1/note" \
    >/dev/null 2>&1
run a2 "cat $C1/repos/app/shared.txt; cat $C1/agents/a1/note 2>&1; ls $C1/agents" \
    >"$T/r2" 2>&1
check "two agents share repos/" grep -qx from-a1 "$T/r2"
check "an agent cannot read a peer's private dir" \
    sh -c "! grep -q mine '$T/r2' && grep -qx a2 '$T/r2'"
check "the original is untouched by edits in the copy" \
    sh -c "[ ! -e '$REPO/shared.txt' ] && [ \"\$(cat '$REPO/README')\" = hello ]"

# A second conversation sees the original, not the first one's edits.
u "$AIRLOCK" worktree provision --conversation c2 --agent a1 "$REPO" \
    >"$T/c2.json" 2>&1
C2=$DATA/airlock/conversations/c2
check "another conversation does not see the first one's edits" \
    sh -c "[ ! -e '$C2/repos/app/shared.txt' ] && [ \"\$(cat '$C2/repos/app/README')\" = hello ]"
u "$AIRLOCK" worktree provision --conversation c1 --agent a3 "$REPO" \
    >"$T/again.json" 2>&1
check "re-provisioning adds the agent and changes nothing else" \
    sh -c "[ -d '$C1/agents/a3' ] && grep -qx from-a1 '$C1/repos/app/shared.txt'"

# git push from the copy goes through the gateway.
run a1 "cd $C1/repos/app && git -c user.name=a -c user.email=a@example.invalid commit -qam in-copy && git push -q origin HEAD:refs/heads/feature" \
    >"$T/push" 2>&1
diag "$(tail -3 "$T/push")"
check "git push from the copy reaches upstream through the gateway" \
    [ "$(upstream_ref acme/app.git refs/heads/feature)" = \
    "$(u git -C "$C1/repos/app" rev-parse HEAD)" ]
run a1 "cd $C1/repos/app && git push -q origin HEAD:refs/heads/main" \
    >"$T/push2" 2>&1
check "the push rules hold for the copy (main refused)" \
    [ "$(upstream_ref acme/app.git refs/heads/main)" != \
    "$(u git -C "$C1/repos/app" rev-parse HEAD)" ]

# The registered checkout is never writable, even when a run binds it.
u sh -c "cd '$REPO' && '$AIRLOCK' run --no-policy-check -- sh -c 'echo x >PWNED; echo y >src/PWNED'" \
    >/dev/null 2>&1
u sh -c "cd '$T/xfs' && '$AIRLOCK' run --no-policy-check --workspace '$T/xfs' -- sh -c 'echo x >app/PWNED2; echo ok >app-sibling'" \
    >/dev/null 2>&1
check "a run binding the registered checkout cannot write it" \
    sh -c "[ ! -e '$REPO/PWNED' ] && [ ! -e '$REPO/src/PWNED' ]"
check "nor through a bind of its parent (while the parent is writable)" \
    sh -c "[ ! -e '$REPO/PWNED2' ] && [ -e '$T/xfs/app-sibling' ]"
u sh -c "cd '$DATA' && '$AIRLOCK' run --no-policy-check --workspace '$DATA' -- sh -c 'echo {} >airlock/conversations/c1/conversation.json'" \
    >/dev/null 2>&1
check "a run binding the data dir cannot unregister the checkout" \
    grep -q "\"app\":\"$REPO\"" "$C1/conversation.json"
check "R-W4: a run in a conversation takes no other bind" \
    fails u "$AIRLOCK" run --no-policy-check --conversation c1 --agent a1 \
    --bind "$T/xfs" -- true

# ---- filesystems that cannot reflink ----
nothing_left() { [ -z "$(ls -A "$1" 2>/dev/null)" ]; }
for fs in ext4 tmpfs; do
	u mkdir -p "$T/$fs/repo/sub" "$T/$fs/data"
	u sh -c "echo x >'$T/$fs/repo/sub/f'"
	as_user env XDG_DATA_HOME="$T/$fs/data" "$AIRLOCK" worktree provision \
	    --conversation c9 --agent a1 "$T/$fs/repo" >/dev/null 2>"$T/$fs.err"
	diag "$(tail -1 "$T/$fs.err")"
	check "$fs: provisioning fails naming $fs and the fix, nothing left" \
	    sh -c "grep -q '$fs cannot clone files copy-on-write' '$T/$fs.err' && grep -q 'reflink=1' '$T/$fs.err' && [ -z \"\$(ls -A '$T/$fs/data/airlock/conversations')\" ]"
done
# Across filesystems: the first copy (XFS to XFS) is made, the second
# (ext4 to XFS) cannot be: neither is left.
u "$AIRLOCK" worktree provision --conversation c8 --agent a1 "$REPO" \
    "$T/ext4/repo" >/dev/null 2>"$T/xdev.err"
diag "$(tail -1 "$T/xdev.err")"
check "across filesystems: the error names both and the fix" \
    sh -c "grep -q 'on ext4) and the worktree data dir (on xfs) are different filesystems' '$T/xdev.err' && grep -q worktrees.dataDir '$T/xdev.err'"
check "across filesystems: nothing of the conversation is left" \
    [ ! -e "$DATA/airlock/conversations/c8" ]

# ---- btrfs, with worktrees.dataDir from the settings ----
if [ -d "$T/btrfs" ]; then
	u mkdir -p "$T/btrfs/app"
	u sh -c "cd '$T/btrfs/app' && git init -q && head -c 8M /dev/urandom >blob && git add blob && git -c user.name=a -c user.email=a@example.invalid commit -qm b"
	printf '{ "worktrees": { "dataDir": "%s" } }\n' "$T/btrfs/conv" \
	    >"$CFG/btrfs.json"
	chmod 0644 "$CFG/btrfs.json"
	u "$AIRLOCK" worktree provision --settings "$CFG/btrfs.json" \
	    --conversation b1 --agent a1 "$T/btrfs/app" >"$T/b.json" 2>&1
	sync
	check "btrfs: the copy shares extents with the original" \
	    sh -c "filefrag -v '$T/btrfs/conv/b1/repos/app/blob' | grep -q shared"
	check "btrfs: git log works in the copy" \
	    u git -C "$T/btrfs/conv/b1/repos/app" log --oneline
else
	ok "btrfs: the copy shares extents # SKIP the kernel has no btrfs"
	ok "btrfs: git log works in the copy # SKIP the kernel has no btrfs"
fi

# ---- spare copies (a long-lived airlockd) ----
# After a provisioning, airlockd keeps a spare copy of the repository in
# DATADIR/@spares; the next provisioning takes it and brings it up to
# date with what changed in the original since the spare was made.
SDATA=$T/xfs/sdata
SCONV=$SDATA/airlock/conversations
SPARES=$SCONV/@spares
SREP=$T/xfs/srep
su_() { as_user env XDG_DATA_HOME="$SDATA" "$@"; }
u sh -c "mkdir -p '$SREP/.git' '$SREP/a/b' '$SREP/d1/x' '$SREP/quiet' \
    '$SREP/m' && cd '$SREP' && echo head >.git/HEAD && \
    head -c 8M /dev/urandom >big && for f in e1 gone tolink; do \
    echo \$f >a/\$f; done && echo kept >a/b/kept && echo x >d1/x/f && \
    echo q >quiet/q && echo m >m/f && chmod 0644 m/f && \
    touch -d '2020-01-02 03:04:05' a/e1 && mkdir rel ../rel.new && \
    echo 1.2.3 >rel/v && echo 1.2.4 >../rel.new/v && \
    touch -d '1985-10-26 08:15:00' rel/v ../rel.new/v"
# (rel.new's ctimes must predate the spare's SINCE, its start less 1 s)
sleep 1.2
cat >"$T/sp.py" <<'PY'
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from airlockd_rpc import Client
sock, cmd = sys.argv[2:4]
c = Client(sock)
if cmd == "provision":
    r = c.call("worktree.provision", {"conversationId": sys.argv[4],
               "repos": [sys.argv[5]], "agents": ["a1"]}, timeout=120)
    print(json.dumps(r))
elif cmd == "race":	# race CONV1 CONV2 SRC: provision twice, at once
    p = {"repos": [sys.argv[6]], "agents": ["a1"]}
    r1 = c.call("worktree.provision", dict(p, conversationId=sys.argv[4]),
                timeout=120)
    ls = c.call("worktree.list", {})
    r2 = c.call("worktree.provision", dict(p, conversationId=sys.argv[5]),
                timeout=120)
    print(json.dumps({"r1": r1, "list": ls, "r2": r2}))
elif cmd == "launch":	# launch CONV DIR: DIR as the attachments
    r = c.call("sandbox.launch", {"spec": {"sessionId": "sp-att",
               "conversationId": sys.argv[4], "agentId": "a1",
               "attachmentsDir": sys.argv[5]}})
    if "result" in r:
        c.call("sandbox.destroy", {"sessionId": "sp-att"})
    print(json.dumps(r))
elif cmd == "wait":	# wait SRC [SECS]: until a ready spare of SRC
    end = time.time() + float(sys.argv[5] if len(sys.argv) > 5 else 60)
    while True:
        r = c.call("worktree.list", {})
        sp = r.get("result", {}).get("spares", [])
        if any(x["source"] == sys.argv[4] and x["ready"] for x in sp) or \
                time.time() > end:
            break
        time.sleep(0.2)
    print(json.dumps(r))
PY
cat >"$T/tree.py" <<'PY'
# (path, type, mode, size, mtime, symlink target, content hash) of a tree
import hashlib, os, stat, sys
top = sys.argv[1]
for d, dirs, files in sorted(os.walk(top)):
    dirs.sort()
    for n in sorted(dirs + files):
        p = os.path.join(d, n)
        st = os.lstat(p)
        t = stat.S_IFMT(st.st_mode)
        tgt = os.readlink(p) if stat.S_ISLNK(st.st_mode) else ""
        h = hashlib.sha256(open(p, "rb").read()).hexdigest() \
            if stat.S_ISREG(st.st_mode) else ""
        print(os.path.relpath(p, top), t, oct(stat.S_IMODE(st.st_mode)),
              st.st_size if not stat.S_ISDIR(st.st_mode) else "-",
              st.st_mtime_ns, tgt, h,
              "" if stat.S_ISLNK(st.st_mode) else os.listxattr(p))
PY
chmod 0644 "$T/sp.py" "$T/tree.py"
sp() { su_ timeout 180 python3 "$T/sp.py" "$STAGE/tests/helpers" "$@"; }
SPD=$(mkwork)
spawn_user env XDG_DATA_HOME="$SDATA" "$AIRLOCKD" --socket "$SPD/d.sock" \
    2>"$T/sd.err"
spid=$!
sp "$SPD/d.sock" provision s1 "$SREP" >"$T/s1.json"
sp "$SPD/d.sock" wait "$SREP" >"$T/slist.json"
diag "$(head -c 400 "$T/slist.json")"
check "spares: after a provisioning, worktree.list shows a ready spare" \
    jget "$T/slist.json" "exit(0 if [x for x in d['result']['spares']
if x['source'] == '$SREP' and x['ready'] and x['since'].endswith('Z')]
and [c['conversationId'] for c in d['result']['conversations']] == ['s1']
else 1)"
SKEY=$(ls "$SPARES" 2>/dev/null | grep -E '^[0-9a-f]{16}$' | head -1)
sync
check "spares: the spare shares extents with the original" \
    sh -c "[ -n '$SKEY' ] && filefrag -v '$SPARES/$SKEY/big' | grep -q shared"
# A run in a conversation cannot reach @spares; a run binding the data
# dir cannot write it.
su_ "$AIRLOCK" run --no-policy-check --conversation s1 --agent a1 -- \
    sh -c "ls '$SPARES' && echo listed; echo pwn >'$SPARES/$SKEY/pwn' && echo wrote" \
    >"$T/srun" 2>&1
su_ sh -c "cd '$SDATA' && '$AIRLOCK' run --no-policy-check --workspace '$SDATA' -- sh -c 'echo pwn >$SPARES/$SKEY/pwn2; echo pwn >$SPARES/$SKEY/a/e1'" \
    >"$T/srun2" 2>&1
check "spares: a run in a conversation can neither list nor write them" \
    sh -c "[ -n '$SKEY' ] && [ -d '$SPARES/$SKEY' ] && ! grep -q listed '$T/srun' && ! grep -q wrote '$T/srun' && [ ! -e '$SPARES/$SKEY/pwn' ]"
sp "$SPD/d.sock" launch s1 "$SPARES/$SKEY" >"$T/satt.json"
check "spares: a launch cannot mount one (as its attachmentsDir)" \
    jget "$T/satt.json" "exit(0 if 'spare copies' in d['error']['message'] and
'$SKEY' != '' else 1)"
check "spares: a run binding the data dir cannot write them" \
    sh -c "[ -n '$SKEY' ] && [ ! -e '$SPARES/$SKEY/pwn2' ] && [ \"\$(cat '$SREP/a/e1')\" = \"\$(cat '$SPARES/$SKEY/a/e1')\" ]"
# What changes in the original between the two provisionings.
python3 "$T/tree.py" "$SCONV/s1/repos/srep" >"$T/s1.before"
u sh -c "cd '$SREP' && cp -p a/e1 ../e1.ref && echo edited >a/e1 && \
    touch -r ../e1.ref a/e1 && echo new >a/new && rm a/gone && \
    mv d1 d2 && chmod 0600 m/f && rm a/tolink && ln -s ../big a/tolink && \
    echo fresh >quiet/fresh && mv rel ../rel.old && mv ../rel.new rel"
sp "$SPD/d.sock" provision s2 "$SREP" >"$T/s2.json"
diag "$(head -c 300 "$T/s2.json")"
check "spares: the next provisioning takes the spare (fromSpare)" \
    jget "$T/s2.json" "exit(0 if d['result']['fromSpare'] == ['srep'] else 1)"
python3 "$T/tree.py" "$SREP" >"$T/orig.tree"
python3 "$T/tree.py" "$SCONV/s2/repos/srep" >"$T/s2.tree"
diff "$T/orig.tree" "$T/s2.tree" | head -8 | sed 's/^/# /'
check "spares: the copy made from the spare equals the changed original" \
    sh -c "grep -q '\"fromSpare\": \[\"srep\"\]' '$T/s2.json' && cmp -s '$T/orig.tree' '$T/s2.tree' && [ \"\$(cat '$SCONV/s2/repos/srep/a/e1')\" = edited ]"
python3 "$T/tree.py" "$SCONV/s1/repos/srep" >"$T/s1.after"
check "spares: the first conversation's copy is unchanged by it" \
    sh -c "grep -q '\"fromSpare\": \[\"srep\"\]' '$T/s2.json' && cmp -s '$T/s1.before' '$T/s1.after'"
# A record of another boot, or of a clock stepped since, is not taken.
sp "$SPD/d.sock" wait "$SREP" >/dev/null
su_ python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p))
d['boot'] = '00000000-0000-0000-0000-000000000000'; json.dump(d, open(p, 'w'))" \
    "$SPARES/$SKEY.json"
sp "$SPD/d.sock" provision s3 "$SREP" >"$T/s3.json"
check "spares: a record of another boot is not taken" \
    jget "$T/s3.json" "exit(0 if d['result']['fromSpare'] == [] else 1)"
sp "$SPD/d.sock" wait "$SREP" >/dev/null
su_ python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p))
d['realtime'] -= 5 * 10**9; d['since'] -= 5 * 10**9; json.dump(d, open(p, 'w'))" \
    "$SPARES/$SKEY.json"
sp "$SPD/d.sock" provision s4 "$SREP" >"$T/s4.json"
check "spares: a record whose clocks disagree (a stepped clock) is not taken" \
    jget "$T/s4.json" "exit(0 if d['result']['fromSpare'] == [] else 1)"
# A spare the update cannot bring up to date (a directory of it made
# unreadable) is not a failure: it is emptied and a whole copy made.
sp "$SPD/d.sock" wait "$SREP" >/dev/null
u chmod 0000 "$SPARES/$SKEY/quiet"
sp "$SPD/d.sock" provision s5 "$SREP" >"$T/s5.json"
diag "$(head -c 300 "$T/s5.json")"
check "spares: a spare whose update fails gives way to a whole copy" \
    jget "$T/s5.json" "exit(0 if d['result']['fromSpare'] == [] and
d['result']['files'] > 0 else 1)"
python3 "$T/tree.py" "$SREP" >"$T/orig.tree"
python3 "$T/tree.py" "$SCONV/s5/repos/srep" >"$T/s5.tree"
check "spares: ... and that copy equals the original" \
    cmp -s "$T/orig.tree" "$T/s5.tree"
sp "$SPD/d.sock" wait "$SREP" >/dev/null
su_ "$AIRLOCK" worktree ls --socket "$SPD/d.sock" >"$T/sls.json"
sed 's/^/# /' "$T/sls.json"
check "spares: airlock worktree ls shows them" \
    jget "$T/sls.json" "exit(0 if any(x['source'] == '$SREP' and x['ready']
for x in d['spares']) else 1)"
# A provisioning while the spare is being made does not wait for it.
sp "$SPD/d.sock" race r1 r2 "$MANY" >"$T/race.json"
check "spares: one being made is listed with ready false" \
    jget "$T/race.json" "exit(0 if {'source': '$MANY', 'ready': False} in
[{k: x[k] for k in ('source', 'ready')} for x in d['list']['result']['spares']]
else 1)"
check "spares: a provisioning meanwhile makes a whole copy" \
    jget "$T/race.json" "exit(0 if d['r1']['result']['fromSpare'] == [] and
d['r2']['result']['fromSpare'] == [] and d['r2']['result']['files'] == 20000
else 1)"
sp "$SPD/d.sock" wait "$MANY" >/dev/null
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
# The CLI's private airlockd, and airlockd --no-spares, make none.
u sh -c "mkdir -p '$T/xfs/nrep/.git' && echo n >'$T/xfs/nrep/f'"
ls "$SPARES" >"$T/sp.before"
su_ "$AIRLOCK" worktree provision --conversation n1 --agent a1 \
    "$T/xfs/nrep" >"$T/n1.json" 2>&1
spawn_user env XDG_DATA_HOME="$SDATA" "$AIRLOCKD" --no-spares \
    --socket "$SPD/n.sock" 2>"$T/sn.err"
spid=$!
sp "$SPD/n.sock" provision n2 "$T/xfs/nrep" >"$T/n2.json"
sp "$SPD/n.sock" wait "$T/xfs/nrep" 3 >"$T/nlist.json"
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
check "spares: the CLI's provisioning leaves no @spares/*.tmp.* and makes none" \
    sh -c "[ -d '$SCONV/n1/repos/nrep' ] && [ -n '$SKEY' ] && [ -d '$SPARES/$SKEY' ] && ls '$SPARES' | cmp -s - '$T/sp.before'"
check_sh "spares: airlockd --no-spares makes none" \
    '[ -d "$SCONV/n2/repos/nrep" ] && ls "$SPARES" | cmp -s - "$T/sp.before" &&
    jget "$T/nlist.json" "exit(0 if sorted(x[\"source\"] for x in
    d[\"result\"][\"spares\"]) == sorted([\"$SREP\", \"$MANY\"]) else 1)"'
# worktrees.spares bounds them; 0 makes none and removes those there.
u sh -c "mkdir -p '$T/xfs/brep/.git' && echo b >'$T/xfs/brep/f'"
printf '{ "worktrees": { "spares": 1 } }\n' >"$CFG/sp1.json"
printf '{ "worktrees": { "spares": 0 } }\n' >"$CFG/sp0.json"
chmod 0644 "$CFG/sp1.json" "$CFG/sp0.json"
spawn_user env XDG_DATA_HOME="$SDATA" "$AIRLOCKD" --settings \
    "$CFG/sp1.json" --socket "$SPD/b.sock" 2>"$T/sb.err"
spid=$!
sp "$SPD/b.sock" provision b1 "$T/xfs/brep" >"$T/b1.json"
sp "$SPD/b.sock" wait "$T/xfs/brep" >"$T/blist.json"
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
check "spares: worktrees.spares 1 keeps one, the least recently made goes" \
    jget "$T/blist.json" "exit(0 if [x['source'] for x in d['result']['spares']]
== ['$T/xfs/brep'] else 1)"
# A record half written by an airlockd that died goes with its key.
BKEY=$(ls "$SPARES" | grep -E '^[0-9a-f]{16}$' | head -1)
u sh -c "echo '{\"half' >'$SPARES/$BKEY.json.tmp'"
spawn_user env XDG_DATA_HOME="$SDATA" "$AIRLOCKD" --settings \
    "$CFG/sp0.json" --socket "$SPD/z.sock" 2>"$T/sz.err"
spid=$!
sp "$SPD/z.sock" provision z1 "$SREP" >"$T/z1.json"
i=0
while [ -n "$(ls "$SPARES")" ] && [ $i -lt 100 ]; do
	sleep 0.2
	i=$((i + 1))
done
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
check_sh "spares: worktrees.spares 0 makes none and removes those there" \
    'jget "$T/z1.json" "exit(0 if d[\"result\"][\"fromSpare\"] == [] else 1)" &&
    [ -n "$BKEY" ] && [ -z "$(ls "$SPARES" | grep -v "\.lock$")" ] &&
    [ -d "$SCONV/z1/repos/srep" ]'
# A lock file per repository ever spared would pile up with every path
# a repository was ever provisioned from: a removed spare leaves none.
check_sh "spares: removed spares leave no lock files behind" \
    '[ -z "$(ls "$SPARES")" ]'

# ---- the copier's property test ----
u mkdir "$T/xfs/prop" "$T/ext4/prop"
check "property test on XFS (and the refusal on ext4)" \
    u "$B/tests/helpers/clone_prop" "$T/xfs/prop" "$$" 12 "$T/ext4/prop"
if [ -d "$T/btrfs" ]; then
	u mkdir "$T/btrfs/prop"
	check "property test on btrfs" \
	    u "$B/tests/helpers/clone_prop" "$T/btrfs/prop" "$(($$ + 1))" 8
else
	ok "property test on btrfs # SKIP the kernel has no btrfs"
fi

# ---- ls and rm ----
u "$AIRLOCK" worktree ls >"$T/ls.json"
check "worktree ls lists the conversations and their sources" \
    sh -c "grep -q '\"conversationId\":\"c1\"' '$T/ls.json' && grep -q '\"app\":\"$REPO\"' '$T/ls.json'"
# Not from under a live sandbox.  A session of another airlockd (the
# private one of `airlock run`) holds the conversation too: a private
# `worktree rm` is refused.
# The agent leaves a directory nobody may open in its copy: the removal
# below must still take it (the helper makes it 0700 first).
u "$AIRLOCK" run --no-policy-check --conversation c2 --agent a1 -- \
    sh -c "mkdir '$C2/repos/app/shut' && touch '$C2/repos/app/shut/f' && chmod 000 '$C2/repos/app/shut' && touch '$C2/agents/a1/up'; sleep 5" >"$T/hold.out" 2>&1 &
rpid=$!
i=0
while [ ! -e "$C2/agents/a1/up" ] && [ $i -lt 150 ]; do
	sleep 0.1
	i=$((i + 1))
done
u "$AIRLOCK" worktree rm --conversation c2 >"$T/rm1.out" 2>&1
rc1=$?
wait "$rpid"
sed 's/^/# /' "$T/rm1.out"
check_sh "worktree rm while airlock run (another airlockd) runs in the conversation: refused, nothing removed" \
    '[ "$rc1" -ne 0 ] && grep -q "another airlockd" "$T/rm1.out" &&
    [ -d "$C2/agents/a1" ] && [ -d "$C2/repos" ]'
# In the airlockd asked: refused naming the session, then done once the
# session is destroyed.
SD=$(mkwork)
spawn_user env XDG_DATA_HOME="$DATA" "$AIRLOCKD" --socket "$SD/d.sock" \
    2>"$T/d.err"
dpid=$!
cat >"$T/live.py" <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, sys.argv[1])
from airlockd_rpc import Client
sock, airlock, conv, root = sys.argv[2:6]
rm = [airlock, "worktree", "rm", "--conversation", conv, "--socket", sock]
c = Client(sock)
# A removal under way (another airlockd's, its exclusive lock held
# here): a launch in the conversation is refused.
import fcntl
fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
fcntl.flock(fd, fcntl.LOCK_EX)
busy = c.call("sandbox.launch", {"spec": {"sessionId": "wt-busy",
              "conversationId": conv, "agentId": "a1"}})
os.close(fd)
r = c.call("sandbox.launch", {"spec": {"sessionId": "wt-live",
           "conversationId": conv, "agentId": "a1"}})
assert "result" in r, r
r1 = subprocess.run(rm, capture_output=True, text=True)
rpc = c.call("worktree.remove", {"conversationId": conv})
there = os.path.isdir(root + "/agents/a1") and os.path.isdir(root + "/repos")
c.call("sandbox.destroy", {"sessionId": "wt-live"})
r2 = subprocess.run(rm, capture_output=True, text=True)
print(json.dumps({"rc1": r1.returncode, "err1": r1.stderr, "rpc": rpc,
                  "there": there, "rc2": r2.returncode, "err2": r2.stderr,
                  "busy": busy}))
PY
chmod 0644 "$T/live.py"
u timeout 120 python3 "$T/live.py" "$STAGE/tests/helpers" "$SD/d.sock" \
    "$AIRLOCK" c2 "$C2" >"$T/live.json" 2>"$T/live.err"
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null
head -c 600 "$T/live.json" "$T/live.err" | sed "s/^/# /"
check "a launch in a conversation being removed is refused" \
    jget "$T/live.json" "exit(0 if 'being removed' in
d['busy'].get('error', {}).get('message', '') else 1)"
check "worktree rm under a running session is refused, naming it; nothing removed" \
    jget "$T/live.json" "exit(0 if d['rc1'] != 0 and 'wt-live' in d['err1']
and d['rpc']['error']['data']['sessions'] == ['wt-live'] and d['there']
else 1)"
check_sh "worktree rm removes the conversation once the session is destroyed" \
    '[ "$(jget "$T/live.json" "d[\"rc2\"]")" = 0 ] && [ ! -e "$C2" ]'
finish
