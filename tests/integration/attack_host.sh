#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Issue 25, a hostile review of the protections against "a write inside
# the sandbox becomes code the host runs later".  Each attack is made
# inside a real `airlock run` as the unprivileged user, then the host's
# own tool (git, vim) does what a user does; a marker file shows whether
# the planted code ran.  Each has a control: the same write made by the
# user outside the sandbox does fire the marker.
# - core.worktree naming the git directory itself (or a directory in
#   it): the host's `git reset --hard` then checks the index out into
#   .git, a hook included, and the next `git checkout` runs it.
# - vim's and neovim's other exrc names (.vimrc, _vimrc, _exrc,
#   .nvimrc, .gvimrc): a user with 'exrc' set runs them on opening vim
#   in the project, like .exrc and .nvim.lua.
# - Claude Code hooks of the user's settings that name a project file
#   the way Claude Code's documentation writes them
#   ("$CLAUDE_PROJECT_DIR"/tools/x.sh) or as a relative path (sh
#   tools/x.sh): inside `airlock claude` the files stay unwritable, and
#   the host's next real `claude -p` (under claude_mock.py) runs no
#   planted SessionStart hook; the same for an MCP server the user's
#   ~/.claude.json starts for the project with a project file in its
#   args (sh tools/mcp.sh).
# - A relative core.hooksPath in the user's global config (.githooks)
#   and a workspace that is no repository yet: a `git init` inside and
#   .githooks/pre-commit, then the host's `git commit` there.
. "$(dirname "$0")/lib.sh"
plan 18

W=$(mkwork)
cd "$W" || exit 1
EV="$W/.ev.jsonl"
MD=$(mktemp -d /tmp/attack-mark.XXXXXX)
chmod 1777 "$MD"
CTL=$(mktemp -d /tmp/attack-ctl.XXXXXX)
chmod 0777 "$CTL"
trap 'rm -rf "$MD" "$CTL"' EXIT

u() { as_user sh -c "$1"; }
key_event() { grep '"action":"git-config-key"' "$EV" | grep -qF "$1"; }

# A hook blob in the index at hooks/post-checkout, committed: checked
# out into .git/hooks if the work tree is the git directory.
PLANT='b=$(printf "#!/bin/sh\ntouch \"\$MARK\"\n" |
    git hash-object -w --stdin) &&
    git update-index --add --cacheinfo 100755,$b,hooks/post-checkout &&
    git -c user.name=t -c user.email=t@t commit -qm h'
repo() {	# repo DIR: a repository of the user's with a commit
	u "git init -q -b main '$1' && cd '$1' && echo r > readme &&
	    git add readme && git -c user.name=t -c user.email=t@t \
	    commit -qm one"
}

# ---- core.worktree into the git directory ----
repo "$W/g1" >/dev/null
repo "$W/g2" >/dev/null
repo "$W/g3" >/dev/null
check "core.worktree = the git directory itself is refused" refused \
    "cd g1 && $PLANT && git config core.worktree \"\$PWD/.git\""
check "... as a relative path (., the git directory): refused" refused \
    "cd g2 && $PLANT && git config core.worktree ."
check "... named as git-config-key core.worktree" \
    key_event 'core.worktree: a path outside the writable tree'
check "... a directory not yet made in it (.git/x): refused" refused \
    "cd g3 && git config core.worktree \"\$PWD/.git/x\""
for r in g1 g2; do
	u "cd '$W/$r' && MARK='$MD/$r' timeout 20 git reset -q --hard &&
	    MARK='$MD/$r' timeout 20 git checkout -q -b x" >/dev/null 2>&1
done
check_sh "host git reset --hard; git checkout: no hook ran, none made" \
    '[ -z "$(ls -A "$MD")" ] && [ ! -e "$W/g1/.git/hooks/post-checkout" ]'
repo "$CTL/c1" >/dev/null
u "cd '$CTL/c1' && $PLANT && git config core.worktree \"\$PWD/.git\" &&
    git reset -q --hard && MARK='$CTL/m1' git checkout -q -b x" \
    >/dev/null 2>&1
check "control: the same by the user, reset --hard + checkout runs it" \
    [ -e "$CTL/m1" ]

# ---- vim's other exrc files ----
# The user's vimrc has 'exrc': vim then sources ./.vimrc (./_vimrc,
# ./.exrc, ./_exrc) of the directory it starts in, as the user.
VH="$CTL/vimhome"
mkdir -p "$VH"
echo 'set exrc' >"$VH/.vimrc"
chmod -R a+rX "$VH"
vim_on_host() {	# vim_on_host DIR MARK: the user opens vim in DIR, on a pty
	u "cd '$1' && MARK='$2' HOME='$VH' TERM=xterm timeout 20 \
	    script -qc \"vim -i NONE -N -c 'qa!'\" /dev/null" \
	    </dev/null >/dev/null 2>&1
}
VIMRC='call writefile([], expand("$MARK"))'
for n in .vimrc _vimrc _exrc .nvimrc .gvimrc; do
	sbx "mkdir -p v && echo '$VIMRC' > 'v/$n'" >/dev/null 2>&1
done
check "vim's exrc names (.vimrc _vimrc _exrc .nvimrc .gvimrc) refused" \
    [ -z "$(ls -A "$W/v" 2>/dev/null)" ]
check "... deeper too (sub/dir/.vimrc)" refused \
    "mkdir -p sub/dir && echo x > sub/dir/.vimrc"
vim_on_host "$W/v" "$MD/vim"
check "host vim with exrc in the project: nothing ran" [ ! -e "$MD/vim" ]
u "mkdir -p '$CTL/v' && echo '$VIMRC' > '$CTL/v/.vimrc'"
vim_on_host "$CTL/v" "$CTL/m-vim"
check "control: a .vimrc the user made there does run" [ -e "$CTL/m-vim" ]

# ---- Claude Code hooks naming project files ----
CH="$CTL/chome"
CW=$(mkwork)
mkdir -p "$CH/.claude" "$CW/tools"
as_user git -C "$CW" init -q -b main
for f in start.sh s2.sh mcp.sh; do
	printf '#!/bin/sh\nexit 0\n' >"$CW/tools/$f"
	chmod 0755 "$CW/tools/$f"
done
cat >"$CH/.claude/settings.json" <<'JSON'
{"model":"claude-mock","hooks":{"SessionStart":[{"hooks":[
 {"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/tools/start.sh"},
 {"type":"command","command":"sh tools/s2.sh"}]}]}}
JSON
cat >"$CH/.claude.json" <<JSON
{"numStartups":3,"hasCompletedOnboarding":true,
 "customApiKeyResponses":{"approved":["sk-ant-test"],"rejected":[]},
 "projects":{"$CW":{"hasTrustDialogAccepted":true,
   "hasCompletedProjectOnboarding":true,
   "mcpServers":{"x":{"type":"stdio","command":"sh",
     "args":["tools/mcp.sh"]}}}}}
JSON
# The agent: a stand-in CLI that rewrites the three, as a shell would.
cat >"$CTL/agent" <<SH
#!/bin/sh
printf '#!/bin/sh\\ntouch $MD/claude-1\\n' > tools/start.sh
printf 'touch $MD/claude-2\\n' > tools/s2.sh
printf 'touch $MD/claude-3\\n' > tools/mcp.sh
SH
chmod 0755 "$CTL/agent"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$CH" "$CW"
(cd "$CW" && as_user env HOME="$CH" "$AIRLOCK" claude --claude "$CTL/agent" \
    >/dev/null 2>&1)
check_sh "airlock claude: the hook files the user's settings name stay" \
    '! grep -q touch "$CW/tools/start.sh" && ! grep -q touch "$CW/tools/s2.sh"'
check "... and the project file an MCP server of ~/.claude.json runs" \
    fails grep -q touch "$CW/tools/mcp.sh"
echo '[]' >"$CTL/steps.json"
chmod a+r "$CTL/steps.json"
python3 "$(dirname "$0")/claude_mock.py" "$CW" "$CTL/mlog" "$CTL/port" \
    "$CTL/steps.json" >/dev/null 2>&1 &
MOCK=$!
trap 'kill $MOCK 2>/dev/null; rm -rf "$MD" "$CTL"' EXIT
i=0
while [ ! -s "$CTL/port" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
host_claude() {	# the user's own claude, unconfined, in the project
	(cd "$CW" && as_user env HOME="$CH" \
	    ANTHROPIC_BASE_URL="http://localhost:$(cat "$CTL/port")" \
	    ANTHROPIC_API_KEY=sk-ant-test DISABLE_AUTOUPDATER=1 \
	    timeout 90 claude -p go >/dev/null 2>&1)
}
host_claude
check "host claude -p: its hooks and MCP server ran nothing planted" \
    [ -z "$(ls -A "$MD" | grep claude)" ]
# Control: the same files written by the user; and the run, without the
# settings naming them, leaves them writable (the rule follows them).
u "printf '#!/bin/sh\ntouch $CTL/m-claude-1\n' > '$CW/tools/start.sh' &&
    printf 'touch $CTL/m-claude-2\n' > '$CW/tools/s2.sh' &&
    printf 'touch $CTL/m-claude-3\n' > '$CW/tools/mcp.sh'"
host_claude
check_sh "control: the same hooks written by the user do run" \
    '[ -e "$CTL/m-claude-1" ] && [ -e "$CTL/m-claude-2" ] &&
    [ -e "$CTL/m-claude-3" ]'
echo '{"model":"claude-mock"}' >"$CH/.claude/settings.json"
(cd "$CW" && as_user env HOME="$CH" "$AIRLOCK" claude --claude "$CTL/agent" \
    >/dev/null 2>&1)
check "control: with no hook naming them, the sandbox writes them" \
    grep -q "$MD/claude-1" "$CW/tools/start.sh"
kill $MOCK 2>/dev/null

# ---- a global relative core.hooksPath, no repository at launch ----
GH="$CTL/ghome"
mkdir -p "$GH"
printf '[core]\n\thooksPath = .githooks\n[user]\n\tname = t\n\temail = t@t\n' \
    >"$GH/.gitconfig"
chmod -R a+rX "$GH"
HW=$(mkwork)
HOOKSH="printf '#!/bin/sh\ntouch \"\$MARK\"\n' > .githooks/pre-commit &&
    chmod +x .githooks/pre-commit"
(cd "$HW" && as_user env HOME="$GH" "$AIRLOCK" run --no-policy-check \
    --workspace "$HW" -- sh -c "git init -q && mkdir -p .githooks &&
    $HOOKSH" >/dev/null 2>&1)
check "no repository at launch: git init, .githooks/pre-commit refused" \
    [ ! -e "$HW/.githooks/pre-commit" ]
u "cd '$HW' && HOME='$GH' MARK='$MD/hookspath' git commit -q --allow-empty \
    -m x" >/dev/null 2>&1
check "... the host's git commit there ran nothing" [ ! -e "$MD/hookspath" ]
HC="$CTL/hc"
u "mkdir -p '$HC' && cd '$HC' && HOME='$GH' git init -q &&
    mkdir -p .githooks && $HOOKSH &&
    HOME='$GH' MARK='$CTL/m-hookspath' git commit -q --allow-empty -m x" \
    >/dev/null 2>&1
check "control: the same hook made by the user runs on commit" \
    [ -e "$CTL/m-hookspath" ]

finish
