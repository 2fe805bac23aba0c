#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Filename rules at creation time (issue 4, SPEC R-L3, R-L4): through a
# real `airlock run`, as an unprivileged user, every route to a protected
# name is refused with EACCES and leaves no inode on the host, while
# ordinary work (git, make, many small files) is undisturbed, and the
# emulation is faithful (umask, O_CLOEXEC, O_APPEND, FIFOs, /dev/stderr).
. "$(dirname "$0")/lib.sh"
plan 74

W=$(mkwork)
cd "$W" || exit 1
EV="$W/.ev.jsonl"

# The helpers must be inside: the sandbox has its own /tmp.
mkdir -p "$W/.bin"
cp "$B/tests/helpers/tmpfile_link" "$B/tests/helpers/path_race" "$W/.bin/"
H=.bin
# sbx CMD: run a shell command in the sandbox (cwd: the workspace); the
# events of every run are collected in $EV.
sbx() {
	# The sandbox is under test, not the policy (python3 -c is opaque).
	as_user "$AIRLOCK" run --no-policy-check --workspace "$W" \
	    --events "$EV.1" -- sh -c "$1"
	_rc=$?
	cat "$EV.1" >>"$EV"
	return $_rc
}
# gone NAME...: none of these names exists on the host (no inode).
gone() {
	for _f in "$@"; do
		if [ -e "$W/$_f" ] || [ -L "$W/$_f" ]; then
			diag "$_f exists"
			return 1
		fi
	done
}
# refused CMD NAME...: CMD fails, says "Permission denied" (EACCES), and
# leaves none of the names.
refused() {
	_c=$1
	shift
	_o=$(sbx "$_c" 2>&1)
	_r=$?
	[ $_r -ne 0 ] || { diag "exit 0: $_o"; return 1; }
	case $_o in
	*"Permission denied"*) ;;
	*) diag "no EACCES: $_o"; return 1 ;;
	esac
	gone "$@"
}

# ---- every route to a protected name ----
check "echo x > .env is refused" refused 'echo x > .env' .env
check "touch a.key b.pem is refused" refused 'touch a.key b.pem' a.key b.pem
echo data > "$W/tmpfile"
chown "$TUSER" "$W/tmpfile"
check "mv tmpfile .env is refused (tmpfile stays)" \
    refused 'mv tmpfile .env' .env
check "the source of the refused rename is intact" \
    [ "$(cat "$W/tmpfile")" = data ]
check "ln tmpfile k.pem is refused" refused 'ln tmpfile k.pem' k.pem
check "ln -s target a.key is refused" refused 'ln -s target a.key' a.key
check "mkfifo .env is refused" refused 'mkfifo .env' .env
out=$(sbx "$H/tmpfile_link . .env" 2>/dev/null)
check "O_TMPFILE + linkat (both ways) to .env: EACCES ($out)" \
    [ "$out" = "tmpfile=0 emptypath=EACCES procfd=EACCES" ]
check "... and no .env" gone .env
check "a hook at depth 6 is refused" refused \
    'mkdir -p a/b/c/d/e/.git/hooks && echo x > a/b/c/d/e/.git/hooks/pre-commit' \
    a/b/c/d/e/.git/hooks/pre-commit
check "... the directories themselves were made" [ -d "$W/a/b/c/d/e/.git/hooks" ]
check "a hook cannot arrive by rename" refused \
    'echo x > h.tmp && mv h.tmp a/b/c/d/e/.git/hooks/post-merge' \
    a/b/c/d/e/.git/hooks/post-merge
check "a directory cannot be renamed to .git" refused \
    'mkdir -p fake/hooks && mv fake a/.git' a/.git
check "a symlink cannot stand in for .git/hooks" refused \
    'mkdir -p r/.git && ln -s /tmp r/.git/hooks' r/.git/hooks
check "a symlink to .env, then a write through it, is refused" refused \
    'ln -s .env lnk && echo x > lnk' .env

# A .env that exists (made on the host) is not written either.
mkdir -p "$W/sub"
echo secret > "$W/sub/.env"
chown -R "$TUSER" "$W/sub"
check "an existing .env cannot be overwritten" \
    refused 'echo x > sub/.env'
check "... nor truncated by name" refused 'truncate -s 0 sub/.env'
check "... and still holds its contents" [ "$(cat "$W/sub/.env")" = secret ]

# git checkout of a commit that holds a .env; tar of an x.pem.
G="$W/grepo"
as_user sh -c "git init -q -b main '$G' && cd '$G' && echo s > .env &&
    echo r > readme && git add -A && git -c user.name=t -c user.email=t@t \
    commit -qm one && git rm -q .env && git -c user.name=t \
    -c user.email=t@t commit -qm two" >/dev/null 2>&1
# git reports the file it could not create (and still exits 0).
out=$(sbx 'cd grepo && git checkout -q HEAD~1' 2>&1)
case $out in
*".env"*"Permission denied"*) ok "git names .env and EACCES" ;;
*) not_ok "git names .env and EACCES"; diag "$out" ;;
esac
check "... and leaves no .env" gone grepo/.env
T=$(mktemp -d /tmp/filerules.XXXXXX)
echo k > "$T/x.pem"
echo ok > "$T/fine.txt"
tar -C "$T" -cf "$W/arch.tar" x.pem fine.txt
rm -rf "$T"
chmod a+r "$W/arch.tar"
out=$(sbx 'mkdir -p untar && tar -C untar -xf arch.tar' 2>&1)
check "tar xf of an archive holding x.pem fails" [ $? -ne 0 ]
case $out in
*"x.pem"*"Permission denied"*) ok "tar names x.pem and EACCES" ;;
*) not_ok "tar names x.pem and EACCES"; diag "$out" ;;
esac
check "... no x.pem, fine.txt extracted" \
    sh -c "[ ! -e '$W/untar/x.pem' ] && [ -f '$W/untar/fine.txt' ]"

# ---- names: controls and look-alikes ----
check "controls env.txt, x.keys, pem.md are created" \
    sbx 'echo 1 > env.txt && echo 2 > x.keys && echo 3 > pem.md'
check "... and hold their contents" \
    [ "$(cat "$W/env.txt" "$W/x.keys" "$W/pem.md" | tr -d '\n')" = 123 ]
for n in .env.local .envrc .ENV '.env.' '.env ' '.Env..' \
    "$(printf '\357\274\216env')" "$(printf '.e\342\200\213nv')" \
    "$(printf '.env\342\200\215.local')" "$(printf 'a.\357\274\253ey')" \
    .bashrc .gitconfig .mcp.json; do
	check "look-alike or sibling '$n' is refused" \
	    refused "echo x > '$n'" "$n"
done

# ---- ordinary work ----
check "git init works" sbx 'git init -q -b main proj'
check "... with its sample hooks" \
    [ -f "$W/proj/.git/hooks/pre-commit.sample" ]
check "git config user.email works" \
    sbx 'cd proj && git config user.email me@example.com'
check "... and is in .git/config" \
    grep -q 'email = me@example.com' "$W/proj/.git/config"
check "git clone of a local repository works" \
    sbx 'git clone -q -b main grepo clone'
check "git checkout -b with tracking works" \
    sbx 'cd clone && git checkout -q -b feat --track origin/main &&
        git config branch.feat.remote | grep -qx origin'
check "a commit in the clone works" \
    sbx 'cd clone && echo more >> readme && git -c user.name=t \
        -c user.email=t@t commit -qam more'
mkdir -p "$W/mk"
printf 'int main(void) { return 0; }\n' >"$W/mk/hello.c"
printf 'hello: hello.o\n\t$(CC) -o $@ hello.o\nhello.o: hello.c\n\t$(CC) -c hello.c\n' \
    >"$W/mk/Makefile"
chown -R "$TUSER" "$W/mk"
check "a make build works" sbx 'cd mk && make -s && ./hello'
check "many small files (2000, npm style) are written" \
    sbx 'mkdir -p nm/pkg && i=0 && while [ $i -lt 2000 ]; do
        echo "module.exports=$i" > nm/pkg/f$i.js || exit 1; i=$((i+1)); done'
check "... all 2000 on the host" [ "$(ls "$W/nm/pkg" | wc -l)" -eq 2000 ]

# ---- .git/config is content-checked; hooks are not writable ----
out=$(sbx "cd proj && git config core.fsmonitor 'sh -c id'" 2>&1)
check "git config core.fsmonitor 'sh -c id' fails" [ $? -ne 0 ]
check "... and .git/config has no fsmonitor" \
    sh -c "! grep -qi fsmonitor '$W/proj/.git/config'"
check "... nor any lock or temporary file left" \
    sh -c "! ls -a '$W/proj/.git' | grep -qE 'config.lock|airlock'"
# A key the user set on the host stays; only new ones are the agent's.
as_user git -C "$W/proj" config core.editor vim
check "with the user's core.editor in .git/config, git config user.name works" \
    sbx 'cd proj && git config user.name Someone'
check "... and keeps core.editor as it was" \
    [ "$(as_user git -C "$W/proj" config core.editor)" = vim ]
out=$(sbx "cd proj && git config core.editor 'sh -c id'" 2>&1)
check "... but changing core.editor is refused" \
    [ "$(as_user git -C "$W/proj" config core.editor)" = vim ]
check "echo x >> .git/config is refused" \
    refused 'echo x >> proj/.git/config'
check "cp of a sample onto .git/hooks/pre-commit is refused" refused \
    'cp proj/.git/hooks/pre-commit.sample proj/.git/hooks/pre-commit' \
    proj/.git/hooks/pre-commit

# ---- the race: the path buffer flips to .env after the check ----
out=$(sbx "mkdir -p race && cd race && ../$H/path_race 20000" 2>/dev/null)
check "race: .env is never created ($out)" \
    sh -c "[ ! -e '$W/race/.env' ] && case '$out' in *env=no*) ;; *) exit 1;; esac"
case $out in
*made=0*|*refused=0\ *) not_ok "race: both outcomes occurred"; diag "$out" ;;
*) ok "race: both outcomes occurred" ;;
esac

# ---- unix sockets: bind() makes an inode ----
BIND='import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])'
check "a unix socket bound as .env is refused" \
    refused "python3 -c '$BIND' .env" .env
check "... and as .git/hooks/pre-commit at depth" \
    refused "python3 -c '$BIND' a/b/c/d/e/.git/hooks/pre-commit" \
    a/b/c/d/e/.git/hooks/pre-commit
# A relative path from another cwd, with the caller's umask, usable.
UNIX='import os,socket
os.umask(0o077)
s=socket.socket(socket.AF_UNIX); s.bind("s1"); s.listen(1)
c=socket.socket(socket.AF_UNIX); c.connect("s1"); a,_=s.accept()
c.sendall(b"ping"); assert a.recv(4) == b"ping"
a2=socket.socket(socket.AF_UNIX); a2.bind("\0airlock-abstract-%d" % os.getpid())
u=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
print("bound", u.getsockname()[1] > 0)'
out=$(sbx "cd mk && python3 -c '$UNIX'" 2>&1)
check "a unix socket bound by relative path works ($out)" \
    [ "$out" = "bound True" ]
check "... made in the caller's cwd, a socket, mode 0700 (umask 077)" \
    sh -c "[ -S '$W/mk/s1' ] && [ \"\$(stat -c %a '$W/mk/s1')\" = 700 ]"
out=$(sbx "python3 -c 'import socket; socket.socket().bind((\"127.0.0.1\", 0))'" 2>&1)
check "a TCP bind is still Landlock's to refuse (init grants nothing)" \
    [ $? -ne 0 ]
case $out in
*"Permission denied"*) ok "... with EACCES" ;;
*) not_ok "... with EACCES"; diag "$out" ;;
esac
out=$(sbx "python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"nodir/s\")'" 2>&1)
case $out in
*"No such file or directory"*) ok "a bind beneath a missing directory: ENOENT" ;;
*) not_ok "a bind beneath a missing directory: ENOENT"; diag "$out" ;;
esac
check "a bind of a fd that is no socket: ENOTSOCK" sbx \
    "python3 -c 'import ctypes,errno
l=ctypes.CDLL(None, use_errno=True)
assert l.bind(0, b\"\\x01\\x00x\\x00\", 4) == -1
assert ctypes.get_errno() == errno.ENOTSOCK, ctypes.get_errno()'"

# ---- faithfulness ----
umask_ok() {
	sbx 'umask 077; echo x > u1; umask 002; echo x > u2; mkdir u3' &&
	    [ "$(stat -c %a "$W/u1")" = 600 ] &&
	    [ "$(stat -c %a "$W/u2")" = 664 ] &&
	    [ "$(stat -c %a "$W/u3")" = 775 ]
}
check "umask is the caller's (077 -> 0600, 002 -> 0664, 0775)" umask_ok
check "O_CLOEXEC is kept, and its absence too" sbx \
    'python3 -c "import os,fcntl; fd=os.open(\"c1\", os.O_CREAT|os.O_WRONLY); assert fcntl.fcntl(fd, fcntl.F_GETFD) == fcntl.FD_CLOEXEC" &&
     exec 5>c2 && python3 -c "import fcntl; assert fcntl.fcntl(5, fcntl.F_GETFD) == 0"'
check "O_APPEND is kept" \
    sbx 'echo a > ap && echo b >> ap && [ "$(cat ap)" = "a
b" ]'
stdio_ok() {
	[ "$(sbx 'echo e > /dev/stderr; echo o > /dev/stdout' 2>&1 |
	    grep -x '[eo]' | sort | tr -d '\n')" = eo ]
}
check "/dev/stderr and /dev/stdout reach the caller's pipes" stdio_ok
check "a writer waiting on a FIFO does not stop other writes" \
    sbx 'mkfifo ff && (echo hi > ff &) && sleep 0.3 && echo y > after &&
        [ "$(cat ff)" = hi ] && [ -f after ]'
# Forty writers block on a FIFO nobody reads, then are killed: init keeps
# no helper per call (issue 11), so the sandbox's process count returns.
out=$(sbx 'mkfifo ff40; nproc() { ls /proc | grep -c "^[0-9]"; }; b=$(nproc)
    i=0; p=; while [ $i -lt 40 ]; do sh -c "echo x > ff40" & p="$p $!"
    i=$((i+1)); done; sleep 1; m=$(nproc); kill $p; wait; sleep 0.5
    echo "$b $m $(nproc)"' 2>/dev/null)
set -- $out
check "forty killed FIFO writers leave no process behind ($out)" \
    sh -c "[ '${2:-0}' -ge $((${1:-0} + 40)) ] && [ '${3:-x}' = '$1' ]"

# ---- events ----
check "violations are events: file-write-create with the path" \
    grep -q "\"action\":\"file-write-create\",\"target\":\"$W/.env\"" "$EV"
check "renames are file-rename events" \
    grep -q "\"action\":\"file-rename\",\"target\":\"$W/proj/.git/config\"" "$EV"

finish
