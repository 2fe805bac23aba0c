#!/bin/sh
# SPDX-License-Identifier: ISC
#
# The home by allowlist and airlock's own configuration (issue 11):
# a sandbox that binds the user's home read-write (as its workspace, by
# --bind, or by binding a directory above it) can write ordinary files
# there, and the caches the settings carve out, but nothing the host
# executes or trusts: shell startup files, ~/.config, ~/.ssh, ~/.local,
# ~/bin, ... -- whether or not they exist at launch, and whatever route
# the write takes (create, mkdir, rename, symlink, hard link).  Each
# refusal is a violation event.  airlock's own settings are never
# writable, in any mode, and the next run is still sandboxed; a run whose
# settings turn the sandbox off says so on stderr.
#
# The home is a fresh directory made here: HOME points at it for the
# caller and for the private airlockd `airlock run` starts.
. "$(dirname "$0")/lib.sh"
plan 35

# The helpers live in $W, bound read-only into every run (inside, /tmp
# is the sandbox's own); the event files are written there by the client.
W=$(mkwork)
cd "$W" || exit 1
cp "$B/tests/helpers/trysys" "$B/tests/helpers/tmpfile_link" "$W/"
chmod 0755 "$W/trysys" "$W/tmpfile_link"
TS="$W/trysys"
WS=$(mkwork)	# a workspace that is not the home

# events FILE: the targets of the violation events, one a line.
vtargets() {
	python3 - "$1" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["type"] == "violation":
        print(e.get("target", ""))
PY
}
# okif DESC: ok when the previous command (a && chain) succeeded.
okif() { if [ $? -eq 0 ]; then ok "$1"; else not_ok "$1"; fi; }
# field NAME: the value printed after "NAME=" in $out.
field() { printf '%s\n' "$out" | sed -n "s|^$1=||p" | head -1; }

# Paths the host runs or trusts, none of which exists at launch.
NEW=".bashrc .bash_profile .bash_login .bash_logout .profile .bash_aliases
.zshrc .zshenv .zprofile .zlogin .inputrc .gitconfig .netrc
.config/git/config .config/airlock/settings.json .config/systemd/user/x.service
.config/autostart/x.desktop .ssh/config .ssh/authorized_keys .aws/config
.gnupg/gpg.conf .docker/config.json .kube/config
.local/share/systemd/user/x.service .local/bin/git bin/git
.local/state/airlock/audit.jsonl Library/LaunchAgents/x.plist
Library/Preferences/x.plist"
# The same kind, existing at launch (made by the host below).
OLD=".profile .config/user-dirs.dirs .local/bin/tool"

# A probe run inside: try each path by creating its directories and
# opening it for writing; print PATH=OK or the errno's name.
cat >"$W/probe.sh" <<EOF
for p in \$*; do
	mkdir -p "\$(dirname "\$HOME/\$p")" 2>/dev/null
	printf '%s=' "\$p"; $TS write "\$HOME/\$p"
done
EOF

# fresh_home: a new, empty home owned by the test user in $FH.
fresh_home() {
	FHP=$(mkwork)
	FH=$FHP/home
	as_user mkdir "$FH"
}
runh() {	# runh AIRLOCK-RUN-ARGS...: with HOME=$FH
	as_user env HOME="$FH" "$AIRLOCK" run --no-policy-check --ro-bind "$W" "$@"
}

# ---- 1. every listed path, not existing, three ways of binding ~ ----
for how in bind workspace parent; do
	fresh_home
	case $how in
	bind) set -- --workspace "$WS" --bind "$FH" ;;
	workspace) set -- --workspace "$FH" ;;
	parent) set -- --workspace "$WS" --bind "$FHP" ;;
	esac
	out=$(runh "$@" --events "$W/ev-$how.jsonl" -- sh "$W/probe.sh" \
	    $NEW 2>/dev/null)
	bad=""
	made=""
	for p in $NEW; do
		[ "$(field "$p")" = OK ] && bad="$bad $p"
		[ -e "$FH/$p" ] && made="$made $p"
	done
	[ -z "$bad" ] && [ -n "$(field .bashrc)" ]
	okif "--$how: no listed home path can be created ($bad)"
	check "--$how: none exists on the host afterwards ($made)" \
	    [ -z "$made" ]
	vt=$(vtargets "$W/ev-$how.jsonl")
	miss=""
	for p in $NEW; do
		# The first refused component is reported: the directory a
		# mkdir -p would have made, or the file itself.
		top=${p%%/*}
		printf '%s\n' "$vt" | grep -q "^$FH/$top" ||
		    miss="$miss $p"
	done
	check "--$how: each refusal is a violation event ($miss)" \
	    [ -z "$miss" ]
done

# ---- existing at launch: read-only, through open, rename and link ----
fresh_home
as_user sh -c "cd '$FH' && echo profile-original > .profile &&
    mkdir -p .config .local/bin .cache && echo d > .config/user-dirs.dirs &&
    echo t > .local/bin/tool && echo p > plain"
out=$(runh --workspace "$FH" --events "$W/ev-old.jsonl" -- sh -c "
    sh '$W/probe.sh' $OLD
    printf 'mv='; mv -f plain .profile 2>/dev/null && echo OK || echo refused
    printf 'ln='; ln .profile p2 2>/dev/null && echo OK || echo refused
    printf 'rm='; rm -f .profile 2>/dev/null && echo OK || echo refused
    printf 'mvcfg='; mv .config cfg 2>/dev/null && echo OK || echo refused
    printf 'air='; mkdir -p .config/airlock 2>/dev/null;
    $TS write .config/airlock/settings.json
    printf 'cache='; $TS write .cache/x; printf 'plain='; $TS write plain
    " 2>/dev/null)
bad=""
for p in $OLD; do
	[ "$(field "$p")" = OK ] && bad="$bad $p"
done
[ -z "$bad" ] && [ "$(cat "$FH/.profile")" = profile-original ]
okif "existing home paths cannot be written ($bad)"
[ "$(field mv)" = refused ] && [ "$(field ln)" = refused ] && [ "$(field rm)" = refused ] && [ ! -e "$FH/p2" ]
okif "an existing .profile cannot be replaced, linked or removed"
[ "$(field mvcfg)" = refused ] && [ -d "$FH/.config" ]
okif "an existing ~/.config cannot be moved away"
[ "$(field air)" != OK ] && [ ! -e "$FH/.config/airlock" ]
okif "~/.config/airlock cannot be made in an existing ~/.config"
[ "$(field cache)" = OK ] && [ "$(field plain)" = OK ]
okif "the carve-out ~/.cache and an ordinary file stay writable"
vt=$(vtargets "$W/ev-old.jsonl")
sh -c "printf '%s\n' \"\$1\" | grep -qx '$FH/.profile' && printf '%s\n' \"\$1\" | grep -qx '$FH/.local/bin/tool'" sh "$vt"
okif "writes to existing paths are violation events"

# ---- routes: mkdir, rename of a prepared tree, symlink, hard link ----
fresh_home
out=$(runh --workspace "$FH" -- sh -c "
    printf 'mkssh='; $TS mkdir .ssh
    printf 'mkcfg='; $TS mkdir .config
    mkdir -p prep/git && echo '[core] pager = x' > prep/git/config
    printf 'mvdir='; mv prep .config 2>/dev/null && echo OK || echo refused
    mkdir -p prep2 && echo x > prep2/f
    printf 'mvlocal='; mv prep2 .local 2>/dev/null && echo OK || echo refused
    mkdir -p elsewhere
    printf 'sym='; ln -s elsewhere .ssh 2>/dev/null && echo OK || echo refused
    printf 'symbin='; ln -s elsewhere bin 2>/dev/null && echo OK || echo refused
    echo 'echo pwned' > plain
    printf 'hard='; ln plain .bash_aliases 2>/dev/null && echo OK || echo refused
    printf 'mvfile='; mv plain .zshenv 2>/dev/null && echo OK || echo refused
    printf 'tmpf='; $W/tmpfile_link . .bash_logout
    printf 'mkcache='; $TS mkdir .cache
    printf 'cachew='; $TS write .cache/pip-x
    printf 'mkcargo='; $TS mkdir .cargo
    printf 'registry='; $TS mkdir .cargo/registry
    printf 'cargobin='; $TS mkdir .cargo/bin
    " 2>/dev/null)
[ "$(field mkssh)" = EACCES ] && [ "$(field mkcfg)" = EACCES ]
okif "mkdir ~/.ssh and ~/.config are refused"
# airlockd keeps its state in ~/.local/state/airlock (the recorded
# origin, issue 14), so ~/.local may exist: the move then goes into it.
[ "$(field mvdir)" = refused ] && [ "$(field mvlocal)" = refused ] && [ ! -e "$FH/.config" ] && [ ! -e "$FH/.local/f" ] && [ ! -e "$FH/.local/prep2" ]
okif "a prepared directory cannot be renamed to ~/.config or ~/.local"
[ "$(field sym)" = refused ] && [ "$(field symbin)" = refused ] && [ ! -L "$FH/.ssh" ] && [ ! -L "$FH/bin" ]
okif "~/.ssh and ~/bin cannot be made as symlinks"
[ "$(field hard)" = refused ] && [ "$(field mvfile)" = refused ] && [ ! -e "$FH/.bash_aliases" ] && [ ! -e "$FH/.zshenv" ]
okif "a file cannot be linked or renamed onto a startup file"
[ "$(field tmpf)" = "tmpfile=0 emptypath=EACCES procfd=EACCES" ] &&
    [ ! -e "$FH/.bash_logout" ]
okif "an O_TMPFILE cannot be linked to a startup file ($(field tmpf))"
[ "$(field mkcache)" = OK ] && [ "$(field cachew)" = OK ]
okif "~/.cache can be made and written (a default carve-out)"
[ "$(field mkcargo)" = OK ] && [ "$(field registry)" = OK ] && [ "$(field cargobin)" = EACCES ]
okif "~/.cargo/registry can be made, ~/.cargo/bin cannot"

# ---- a bind above the home: the home itself cannot be moved away ----
fresh_home
as_user sh -c "echo p > '$FH/.profile'"
out=$(runh --workspace "$WS" --bind "$FHP" -- sh -c "
    cd '$FHP'; printf 'mvhome='; mv home h2 2>/dev/null && echo OK || echo refused
    mkdir -p prep && echo 'echo pwned' > prep/.bashrc
    printf 'mvprep='; mv -T prep home 2>/dev/null && echo OK || echo refused
    printf 'other='; $TS write '$FHP/other'" 2>/dev/null)
[ "$(field mvhome)" = refused ] && [ "$(field mvprep)" = refused ] &&
    [ "$(field other)" = OK ] && [ "$(cat "$FH/.profile")" = p ] &&
    [ ! -e "$FHP/h2" ]
okif "with a bind above it, the home cannot be renamed away or replaced ($(field mvhome) $(field mvprep) $(field other))"

# ---- the caller's PATH entries inside the home ----
fresh_home
as_user mkdir -p "$FH/tools/bin"
out=$(as_user env HOME="$FH" PATH="$FH/go/bin:$FH/tools/bin/:/usr/bin:/bin" \
    "$AIRLOCK" run --no-policy-check --ro-bind "$W" --workspace "$FH" -- sh -c "
    mkdir go; printf 'mkgobin='; $TS mkdir go/bin
    printf 'gobin='; $TS write go/bin/git
    printf 'tools='; $TS write tools/bin/ls
    printf 'other='; $TS write tools/x" 2>/dev/null)
[ "$(field mkgobin)" = EACCES ] && [ "$(field gobin)" != OK ] &&
    [ "$(field tools)" != OK ] &&
    [ "$(field other)" = OK ] && [ ! -e "$FH/go/bin/git" ] &&
    [ ! -e "$FH/tools/bin/ls" ]
okif "PATH entries in the home, existing or not, are not writable ($(field mkgobin) $(field gobin) $(field tools) $(field other))"

# ---- carve-outs come from settings ----
fresh_home
as_user sh -c "mkdir -p '$FH/.config/airlock' && printf '%s' \
    '{\"sandbox\":{\"filesystem\":{\"homeWritable\":[\"~/.config/nvim\"]}}}' \
    > '$FH/.config/airlock/settings.json'"
out=$(runh --workspace "$FH" -- sh -c "
    printf 'nvim='; mkdir -p .config/nvim; $TS write .config/nvim/init.lua
    printf 'cache='; $TS mkdir .cache
    printf 'air='; $TS write .config/airlock/settings.json
    " 2>/dev/null)
[ "$(field nvim)" = OK ] && [ "$(field cache)" = EACCES ]
okif "settings' homeWritable replaces the defaults (~/.config/nvim yes, ~/.cache no)"
[ "$(field air)" != OK ] && [ "$(wc -c <"$FH/.config/airlock/settings.json")" -gt 10 ]
okif "a carve-out never opens airlock's own configuration"

# ---- 2. airlock's own configuration, in every mode, whatever is bound ----
fresh_home
as_user sh -c "mkdir -p '$FH/.config/airlock' && echo '{}' > \
    '$FH/.config/airlock/settings.json' && mkdir '$FHP/cfg' &&
    echo '{}' > '$FHP/cfg/extra.json' &&
    echo '{\"github\":{}}' > '$FHP/cfg/creds.json' && chmod 600 '$FHP/cfg/creds.json'"
for m in chat plan review orchestrate; do
	out=$(runh --mode "$m" --workspace "$FH" --bind "$FH/.config/airlock" \
	    --settings "$FHP/cfg/extra.json" --bind "$FHP/cfg" -- sh -c "
	    printf 's='; $TS write \$HOME/.config/airlock/settings.json
	    printf 'n='; $TS write \$HOME/.config/airlock/new.json
	    printf 'x='; $TS write '$FHP/cfg/extra.json'" 2>/dev/null)
	[ -n "$(field s)" ] && [ "$(field s)" != OK ] && [ "$(field n)" != OK ] && [ "$(field x)" != OK ] && [ "$(cat "$FH/.config/airlock/settings.json")" = '{}' ] && [ "$(cat "$FHP/cfg/extra.json")" = '{}' ]
	okif "mode $m: ~/.config/airlock and the --settings file cannot be written ($(field s) $(field n) $(field x))"
done
# The credentials file named by settings, in a bound directory.
as_user sh -c "printf '{\"credentials\":{\"file\":\"%s\"}}' '$FHP/cfg/creds.json' \
    > '$FHP/cfg/extra.json'"
out=$(runh --workspace "$FH" --settings "$FHP/cfg/extra.json" \
    --bind "$FHP/cfg" -- sh -c "printf 'c='; $TS write '$FHP/cfg/creds.json';
    printf 'o='; $TS write '$FHP/cfg/other'" 2>/dev/null)
[ -n "$(field c)" ] && [ "$(field c)" != OK ] && [ "$(field o)" = OK ]
okif "the credentials file cannot be written; its neighbour can ($(field c) $(field o))"

# The attack of the issue: {"sandbox":{"enabled":false}} written from
# inside; the next run must still be sandboxed.
fresh_home
runh --workspace "$FH" -- sh -c 'mkdir -p ~/.config/airlock;
    echo "{\"sandbox\":{\"enabled\":false}}" > ~/.config/airlock/settings.json' \
    >/dev/null 2>&1
out=$(runh --workspace "$FH" -- sh -c 'echo "sb=$AIRLOCK_SANDBOX"' 2>/dev/null)
[ ! -e "$FH/.config/airlock/settings.json" ] && [ "$(field sb)" = native ]
okif "settings written from inside do not exist, the next run is sandboxed ($(field sb))"

# A run whose settings turn the sandbox off says so, every time.
as_user sh -c "mkdir -p '$FH/.config/airlock' && echo \
    '{\"sandbox\":{\"enabled\":false}}' > '$FH/.config/airlock/settings.json'"
for i in 1 2; do
	err=$(runh --workspace "$FH" -- sh -c 'echo "sb=$AIRLOCK_SANDBOX"' \
	    2>&1 >/dev/null)
	check "settings sandbox.enabled=false: run $i warns on stderr ($err)" \
	    sh -c "printf '%s' \"\$1\" | grep -q 'NOT sandboxed.*sandbox.enabled is false'" \
	    sh "$err"
done
err=$(runh --workspace "$FH" --sandbox off -- true 2>&1 >/dev/null)
check "--sandbox off warns on stderr too ($err)" \
    sh -c "printf '%s' \"\$1\" | grep -q 'NOT sandboxed.*(--sandbox off)'" \
    sh "$err"

cd /
finish
