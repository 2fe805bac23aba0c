#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Issue 25, findings 4, 5 and 10: what a sandbox writes that the host
# runs later, by directory and by allowlist.
# - Project files of agents and editors (.vscode/, .codex/, .gemini/,
#   .cursor/, .zed/, .devcontainer/, .husky/, .claude/, *.code-workspace,
#   .pre-commit-config.yaml, .ripgreprc, .nvim.lua, .exrc) cannot be
#   made at any depth; settings' allowWrite opens one with a note;
#   .gitmodules takes only the submodule keys git writes.
# - `airlock claude` (the real CLI under claude_mock.py): ~/.claude is
#   read-only but for its session directories; the status-line script
#   stays the user's, and the host's own `claude` (in a pty) does not run
#   a planted one -- while the same script planted outside the sandbox
#   does run (the control).
# - Links and globs: a dangling link on a protected name protects its
#   target; a --bind through a link leading out of the workspace is
#   refused; a protected link cannot be unlinked; "**/build/**" hides
#   what is inside build/, not a file named build; a writable bind
#   nested in an allowRead carve-out of a denied tree stays writable.
. "$(dirname "$0")/lib.sh"
plan 31

W=$(mkwork)		# the workspace
O=$(mkwork)		# outside: control files, logs
X=$(mkwork)		# a directory outside the workspace
as_user git -C "$W" init -q -b main
as_user git -C "$W" -c user.name=t -c user.email=t@t commit -q \
    --allow-empty -m init
run() {	# run [RUN-OPTION...] -- SHELL-COMMAND
	as_user "$AIRLOCK" run --no-policy-check --workspace "$W" "$@"
}

# ---- finding 5: project files by directory ----
FILES=".vscode/mcp.json .vscode/extensions.json .vscode/tasks.json
.idea/workspace.xml .zed/settings.json .codex/config.toml
.gemini/settings.json .cursor/mcp.json .devcontainer/devcontainer.json
.husky/pre-commit .claude/hooks/x.sh .claude/skills/x/SKILL.md
deep/er/.vscode/settings.json deep/.codex/config.toml
.pre-commit-config.yaml .ripgreprc proj.code-workspace .nvim.lua .exrc
sub/.ripgreprc .opencode/x.json .continue/config.json .windsurf/rules.md
.kiro/x.md .roo/mcp.json .amazonq/mcp.json .mise/config.toml opencode.json
opencode.jsonc .aider.conf.yml .dir-locals.el .dir-locals-2.el mise.toml
.mise.toml mise.local.toml .mise.local.toml deep/mise.toml mise.dev.toml
.mise.ci.toml mise/config.toml .config/mise.toml .config/mise/config.toml
.config/mise/conf.d/x.toml .helix/languages.toml .fleet/run.json
.theia/tasks.json .nova/Configuration.json .crush/x.json .qwen/settings.json
.kilocode/mcp.json .clinerules/hooks/x .factory/mcp.json
.junie/mcp/mcp.json .augment/x.json .trae/mcp.json crush.json .crush.json
.hg/hgrc .hg/hgrc-not-shared .jj/repo/config.toml sub/.hg/hgrc"
FILES=$(echo $FILES)
made() {	# made DIR: the FILES that exist beneath DIR
	for f in $FILES; do [ -e "$1/$f" ] && printf '%s ' "$f"; done
}
try="for f in $FILES; do mkdir -p \"\$(dirname \"\$f\")\" 2>/dev/null;
    echo '{\"mcpServers\":{\"x\":{\"command\":\"id\"}}}' > \"\$f\"; done;
    echo ok > plain.txt"
run -- sh -c "$try" >/dev/null 2>"$O/err5"
m=$(made "$W")
check_sh "no project file of an agent or editor could be made ($m)" \
    '[ -z "$m" ]'
check "... while a plain file in the same run was written" \
    [ "$(cat "$W/plain.txt" 2>/dev/null)" = ok ]
# The control: the same writes by the user, outside the sandbox.
C=$(mkwork)
(cd "$C" && as_user sh -c "$try")
m=$(made "$C")
check_sh "control: outside the sandbox every one of them is made" \
    '[ -n "$m" ] && [ "$(echo $m | wc -w)" -eq "$(echo $FILES | wc -w)" ]'
# A host-made .vscode directory at the top stays read-only too.
mkdir -p "$W/.vscode" && echo '{}' >"$W/.vscode/settings.json"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$W/.vscode"
run -- sh -c 'echo "{\"x\":1}" > .vscode/settings.json;
    echo x > .vscode/new.json' >/dev/null 2>&1
check_sh "an existing .vscode/ is neither rewritten nor added to" \
    '[ "$(cat "$W/.vscode/settings.json")" = "{}" ] &&
    [ ! -e "$W/.vscode/new.json" ]'
# Other routes to the same names: a tree renamed or linked into place,
# a hard link, a look-alike spelling, a deeper rename.
run -- sh -c 'mkdir -p prep && echo "{}" > prep/mcp.json; mv prep .cursor;
    ln -s prep .gemini; echo x > f; ln f .exrc; mkdir -p .VSCode/;
    echo x > .VSCode/tasks.json; mkdir -p .ｚed; echo x > .ｚed/s.json;
    mkdir -p a/b; echo x > a/b/c; mv a/b a/.husky; mv f x.code-workspace;
    mkdir -p hgp jjp/repo; echo "[hooks]" > hgp/hgrc; mv hgp .hg;
    echo x > jjp/repo/config.toml; mv jjp .jj; mkdir -p cfp/mise;
    echo x > cfp/mise/config.toml; mv cfp .config
    ' >/dev/null 2>&1
check_sh "renames, links and look-alikes reach none of them" \
    '[ ! -e "$W/.cursor" ] && [ ! -L "$W/.gemini" ] && [ ! -e "$W/.exrc" ] &&
    [ ! -e "$W/.VSCode/tasks.json" ] && [ ! -e "$W/.ｚed/s.json" ] &&
    [ ! -e "$W/a/.husky" ] && [ ! -e "$W/x.code-workspace" ] &&
    [ ! -e "$W/.hg/hgrc" ] && [ ! -e "$W/.jj/repo/config.toml" ] &&
    [ ! -e "$W/.config/mise/config.toml" ] &&
    [ -e "$W/prep/mcp.json" ]'

# allowWrite opens one on purpose, and the run says so.
printf '{"sandbox":{"filesystem":{"allowWrite":[".codex"]}}}\n' >"$O/open.json"
chmod a+r "$O/open.json"
run --settings "$O/open.json" -- sh -c 'mkdir -p .codex &&
    echo x > .codex/config.toml' >/dev/null 2>"$O/err5b"
check "allowWrite \".codex\" opens it (.codex/config.toml made)" \
    [ -e "$W/.codex/config.toml" ]
check "... and the run says so on stderr" \
    grep -q 'note: .*allowWrite.*\.codex' "$O/err5b"

# .gitmodules: written through git's lock and the allowlist.
S=$(mkwork)
as_user git -C "$S" init -q -b main
as_user git -C "$S" -c user.name=t -c user.email=t@t commit -q \
    --allow-empty -m s
run --ro-bind "$S" -- sh -c "git -c protocol.file.allow=always submodule \
    add -q '$S' mods/s" >/dev/null 2>"$O/errgm"
[ -s "$O/errgm" ] && diag "submodule add: $(cat "$O/errgm")"
check "git submodule add works inside (.gitmodules written)" \
    grep -q 'path = mods/s' "$W/.gitmodules"
cp "$W/.gitmodules" "$O/gm.orig"
run -- sh -c 'git config -f .gitmodules submodule.mods/s.branch main' \
    >/dev/null 2>&1
check "... a key git writes there may be set (branch)" \
    grep -q 'branch = main' "$W/.gitmodules"
cp "$W/.gitmodules" "$O/gm.orig"
for kv in "submodule.mods/s.url ext::sh%-c%touch%$O/gm-marker" \
    "submodule.mods/s.update !touch%$O/gm-marker" \
    "submodule.mods/s.url -uhttps://x" "core.fsmonitor touch" \
    "submodule.mods/s.path ../../escape"; do
	k=${kv%% *}
	v=$(printf '%s' "${kv#* }" | tr % ' ')
	run -- git config -f .gitmodules "$k" "$v" >/dev/null 2>&1
done
check "unsafe .gitmodules values (ext:: url, !update, -url, core, ..) refused" \
    cmp -s "$O/gm.orig" "$W/.gitmodules"
run -- sh -c 'echo "[submodule \"x\"]" > sub.gitmodules;
    echo "[submodule \"x\"]" > .gitmodules; mkdir -p d;
    echo "[core]" > d/.gitmodules' >/dev/null 2>&1
check_sh "... .gitmodules written directly (top or deeper) is refused" \
    'cmp -s "$O/gm.orig" "$W/.gitmodules" && [ ! -e "$W/d/.gitmodules" ] &&
    [ -e "$W/sub.gitmodules" ]'

# ---- finding 10: links and globs ----
ln -s target.json "$W/.mcp.json"	# host-made, dangling
run -- sh -c 'echo "{\"mcpServers\":{}}" > target.json; echo x > other.json' \
    >/dev/null 2>&1
check "the target of a dangling .mcp.json link cannot be created" \
    [ ! -e "$W/target.json" ]
check "... while another new file can (control)" [ -e "$W/other.json" ]
run -- sh -c 'rm -f .mcp.json' >/dev/null 2>&1
check "a protected name's symlink cannot be unlinked" [ -L "$W/.mcp.json" ]
ln -s other.json "$W/plainlink"
run -- sh -c 'rm -f plainlink' >/dev/null 2>&1
check "... an unprotected symlink can (control)" [ ! -L "$W/plainlink" ]
printf 'ok\n' >"$O/dw-target"
ln -s "$O/dw-target" "$W/dwlink"
run --deny-write "$W/dwlink" -- sh -c 'rm -f dwlink' >/dev/null 2>&1
check "a --deny-write path that is a symlink cannot be unlinked" \
    [ -L "$W/dwlink" ]

ln -s "$X" "$W/outlink"
[ "$(id -u)" -eq 0 ] && chown -h "$TUSER" "$W/outlink"
run --bind "$W/outlink" -- sh -c "echo pwned > '$X/f'" >/dev/null \
    2>"$O/errbind"
rc=$?
check_sh "--bind of a link in the workspace leading out is refused ($rc)" \
    '[ "$rc" -ne 0 ] && [ ! -e "$X/f" ]'
check "... with the reason" grep -q 'symbolic link' "$O/errbind"
run --bind "$X" -- sh -c "echo fine > '$X/f'" >/dev/null 2>&1
check "... while --bind of the target by its name works (control)" \
    [ "$(cat "$X/f" 2>/dev/null)" = fine ]

mkdir -p "$W/g/build" && echo inside >"$W/g/build/secret"
echo file-named-build >"$W/g/build2" && mv "$W/g/build2" "$W/build"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$W/g" "$W/build"
printf '{"sandbox":{"filesystem":{"denyRead":["**/build/**"]}}}\n' \
    >"$O/glob.json"
chmod a+r "$O/glob.json"
out=$(run --settings "$O/glob.json" -- sh -c 'cat build; cat g/build/secret' \
    2>/dev/null)
check_sh "\"**/build/**\" leaves a file named build readable" \
    'printf "%s\n" "$out" | grep -q file-named-build'
check_sh "... and hides what is inside build/ (control)" \
    '! printf "%s\n" "$out" | grep -q inside'

# A writable bind nested in an allowRead carve-out of a denied tree.
Y=$(mkwork)
mkdir -p "$Y/pub/out" && echo y-secret >"$Y/secret"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$Y"
printf '{"sandbox":{"filesystem":{"denyRead":["%s"],"allowRead":["%s/pub"]}}}\n' \
    "$Y" "$Y" >"$O/carve.json"
chmod a+r "$O/carve.json"
out=$(run --settings "$O/carve.json" --bind "$Y/pub/out" -- sh -c \
    "echo made > '$Y/pub/out/f' && echo wrote; cat '$Y/secret'" 2>&1)
check_sh "a --bind nested in an allowRead carve-out is writable" \
    '[ "$(cat "$Y/pub/out/f" 2>/dev/null)" = made ]'
check_sh "... while the denied tree's other entries stay hidden (control)" \
    'printf "%s\n" "$out" | grep -q wrote &&
    ! printf "%s\n" "$out" | grep -q y-secret'

# ---- finding 4: the runner's state (the real Claude Code CLI) ----
CLAUDE=$(PATH=/usr/local/bin:/usr/bin:/bin command -v claude)
H=$(mkwork)
CW=$(mkwork)
as_user git -C "$CW" init -q -b main
mkdir -p "$H/.claude" "$CW/tools"
printf '#!/bin/sh\necho status-ok\n' >"$H/.claude/statusline-command.sh"
chmod +x "$H/.claude/statusline-command.sh"
printf '#!/bin/sh\nexit 0\n' >"$CW/tools/notify.sh"
cat >"$H/.claude/settings.json" <<JSON
{"model":"claude-mock",
 "statusLine":{"type":"command","command":"~/.claude/statusline-command.sh"},
 "hooks":{"Notification":[{"matcher":"","hooks":[{"type":"command",
   "command":"cd $CW && sh ./tools/notify.sh"}]}]}}
JSON
cat >"$H/.claude.json" <<JSON
{"numStartups":3,"hasCompletedOnboarding":true,
 "customApiKeyResponses":{"approved":["sk-ant-test"],"rejected":[]},
 "projects":{"$CW":{"hasTrustDialogAccepted":true,
   "hasCompletedProjectOnboarding":true}}}
JSON
cp "$H/.claude/statusline-command.sh" "$O/sl.orig"
cp "$CW/tools/notify.sh" "$O/notify.orig"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H" "$CW" "$O"
# The writes as a script the agent wrote, so that airlock's hook (which
# refuses a visible write to ~/.claude) leaves them to the sandbox.
cat >"$O/plant.sh" <<SH
printf '#!/bin/sh\\ntouch $O/sl-marker\\n' > ~/.claude/statusline-command.sh
mkdir -p ~/.claude/local; echo x > ~/.claude/local/claude
mkdir -p ~/.claude/ide; echo '{}' > ~/.claude/ide/1.lock
echo x > ~/.claude/shell-snapshots/snapshot-bash-1-x.sh
echo evil > $CW/tools/notify.sh
echo ok > ~/.claude/projects/session-ok
SH
python3 - "$O/plant.sh" "$CW/plant.sh" >"$O/steps.json" <<'PY'
import json, sys
body = open(sys.argv[1]).read()
print(json.dumps([
    ["Write", {"file_path": sys.argv[2], "content": body}],
    ["Bash", {"command": "sh plant.sh", "description": "x"}]]))
PY
chmod a+r "$O/steps.json"
: >"$O/log"
python3 "$(dirname "$0")/claude_mock.py" "$CW" "$O/log" "$O/port" \
    "$O/steps.json" >/dev/null 2>&1 &
MOCK=$!
trap 'kill $MOCK 2>/dev/null' EXIT
i=0
while [ ! -s "$O/port" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
PORT=$(cat "$O/port")
(cd "$CW" && as_user env HOME="$H" ANTHROPIC_BASE_URL="http://localhost:$PORT" \
    ANTHROPIC_API_KEY=sk-ant-test "$AIRLOCK" claude -- -p "go" \
    >"$O/cout" 2>"$O/cerr")
rc=$?
check "airlock claude ran to its end with ~/.claude read-only ($rc)" \
    [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || diag "$(tail -5 "$O/cerr")"
check "the status-line script the settings name is unchanged" \
    cmp -s "$O/sl.orig" "$H/.claude/statusline-command.sh"
check_sh "no local install, IDE lock or shell snapshot was planted" \
    '[ ! -e "$H/.claude/local/claude" ] && [ ! -e "$H/.claude/ide/1.lock" ] &&
    [ ! -e "$H/.claude/shell-snapshots/snapshot-bash-1-x.sh" ]'
check "a hook command the settings run, in the workspace, is unchanged" \
    cmp -s "$O/notify.orig" "$CW/tools/notify.sh"
check_sh "the session directories stay writable (projects/, transcripts)" \
    '[ -e "$H/.claude/projects/session-ok" ] &&
    ls "$H"/.claude/projects/*/*.jsonl >/dev/null 2>&1'


# The home itself as the workspace: the session directories are still
# kept and the rest of ~/.claude still read-only.
python3 - "$O/plant.sh" "$H/plant.sh" >"$O/steps2.json" <<'PY'
import json, sys
body = open(sys.argv[1]).read()
print(json.dumps([
    ["Write", {"file_path": sys.argv[2], "content": body}],
    ["Bash", {"command": "sh plant.sh", "description": "x"}]]))
PY
chmod a+r "$O/steps2.json"
rm -f "$H/.claude/projects/session-ok"
python3 "$(dirname "$0")/claude_mock.py" "$H" "$O/log2" "$O/port2" \
    "$O/steps2.json" >/dev/null 2>&1 &
MOCK2=$!
trap 'kill $MOCK $MOCK2 2>/dev/null' EXIT
i=0
while [ ! -s "$O/port2" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
(cd "$H" && as_user env HOME="$H" \
    ANTHROPIC_BASE_URL="http://localhost:$(cat "$O/port2")" \
    ANTHROPIC_API_KEY=sk-ant-test "$AIRLOCK" claude --workspace "$H" -- \
    -p "go" >/dev/null 2>&1)
hp=$(printf '%s' "$H" | tr '/.' '--')
check_sh "with the home as the workspace: transcripts kept, status line not" \
    'ls "$H/.claude/projects/$hp/"*.jsonl >/dev/null 2>&1 &&
    [ -e "$H/.claude/projects/session-ok" ] &&
    cmp -s "$O/sl.orig" "$H/.claude/statusline-command.sh"'
kill $MOCK2 2>/dev/null

# The host's own claude, unconfined, in a terminal: its status line.
tui() {
	(cd "$CW" && as_user env HOME="$H" TERM=xterm \
	    ANTHROPIC_BASE_URL="http://localhost:$PORT" \
	    ANTHROPIC_API_KEY=sk-ant-test DISABLE_AUTOUPDATER=1 \
	    python3 -c '
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp("claude", ["claude"])
end = time.time() + 15
while time.time() < end:
    if os.path.exists(sys.argv[1]):
        break
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            os.read(fd, 65536)
        except OSError:
            break
os.kill(pid, 9)
os.waitpid(pid, 0)
' "$O/sl-marker" >/dev/null 2>&1)
}
tui
check "the host's claude then runs no planted status line (no marker)" \
    [ ! -e "$O/sl-marker" ]
as_user sh -c "printf '#!/bin/sh\ntouch $O/sl-marker\n' \
    >'$H/.claude/statusline-command.sh'"
tui
check "control: a script planted outside the sandbox does run (marker)" \
    [ -e "$O/sl-marker" ]
finish
