#!/bin/sh
# SPDX-License-Identifier: ISC
#
# Refusals that explain themselves and errors in the user's words
# (issue 26): the summary after `airlock run` names each refused host and
# path with its rule, a bind the secret set overrides is a warning at
# launch, `airlock policy egress` lists the allowlist with where each
# entry came from, and every error a person reads is said once, without
# spec ids, message names or airlockd's JSON field names.
. "$(dirname "$0")/lib.sh"
plan 45

W=$(mkwork)
cd "$W" || exit 1
# A home of the test's own (the secret set is taken beneath $HOME), so a
# secret made here touches no other test.
H="$W/home"
mkdir -p "$H/.ssh" "$H/.config/airlock" "$H/notsecret" "$W/ws"
echo "not a key" >"$H/.ssh/id_test"
echo "plain" >"$H/notsecret/f"
chmod 0700 "$H/.ssh"
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$H" "$W/ws"
git -C "$W/ws" init -q 2>/dev/null
[ "$(id -u)" -eq 0 ] && chown -R "$TUSER" "$W/ws"

# as the test user, in the workspace, with the test's home
au() { as_user env HOME="$H" sh -c 'cd "$0" && exec "$@"' "$W/ws" "$@"; }

# ---- the summary names refused hosts and paths, with the rule ----
au timeout 60 "$AIRLOCK" run -- sh -c '
	curl -sS -m 5 https://refused.example.test/ >/dev/null 2>&1
	echo x > .bashrc
	printf x > "$(printf ".env.\033[2J")"
	for h in a b c d e; do
		curl -sS -m 5 "https://$h.more.example.test/" >/dev/null 2>&1
	done
	exit 0' >"$W/sum.out" 2>"$W/sum.err"
diag "$(cat "$W/sum.err")"
check "the summary names the refused host and the allowlist rule" \
    grep -qF "network: refused.example.test:443 refused - not in the allowlist (add it with --allow-domain refused.example.test)" "$W/sum.err"
check "the summary names the refused path and the protection" \
    grep -qF "write: $W/ws/.bashrc refused - protected file (shell startup)" "$W/sum.err"
check "the summary names a secrets rule" \
    grep -qF "refused - protected file (secrets)" "$W/sum.err"
check "a name from the sandbox is escaped in the summary" \
    grep -qF '.env.\e[2J refused' "$W/sum.err"
check_sh "no raw escape byte in airlock's own lines" \
    '! grep "^airlock:" "$W/sum.err" | grep -q "$(printf "\033")"'
check "the first few of a kind, then how many more" \
    grep -qF "and 3 more network refusals" "$W/sum.err"
check_sh "the same write refused once in the summary, not again as a stderr line" \
    '[ "$(grep -c "\.bashrc" "$W/sum.err")" -eq 2 ]'
# Hostile: a line the command prints that imitates the summary is shown
# only quoted, as the command's own words, and names no rule.
au timeout 60 "$AIRLOCK" run -- sh -c '
	echo "x: /etc/forged refused - protected file (shell startup): Permission denied" >&2
	echo "something Permission denied" >&2' >/dev/null 2>"$W/forge.err"
check_sh "a forged stderr line is quoted, not read as a refusal with a rule" \
    '! grep -qE "^airlock:   [a-z]+: /etc/forged refused" "$W/forge.err" &&
    grep -qF "airlock:   file: \"x: /etc/forged refused" "$W/forge.err"'
# Controls: the same write outside the sandbox succeeds; the host
# allowed by flag is not named as refused.
as_user sh -c "echo x > '$W/ws/.bashrc'"
check "control: the write succeeds outside the sandbox" \
    grep -q x "$W/ws/.bashrc"
rm -f "$W/ws/.bashrc"
au timeout 60 "$AIRLOCK" run --allow-domain refused.example.test -- sh -c \
    'curl -sS -m 5 https://refused.example.test/ >/dev/null 2>&1; exit 0' \
    >/dev/null 2>"$W/ctl.err"
check_sh "control: an allowed host is not in the summary as refused" \
    '! grep -q "refused.example.test:443 refused - not in the allowlist" "$W/ctl.err"'

# ---- a bind the secret set overrides ----
au timeout 60 "$AIRLOCK" run --ro-bind "$H/.ssh" -- sh -c \
    'cat ~/.ssh/id_test; exit 0' >"$W/sec.out" 2>"$W/sec.err"
diag "$(cat "$W/sec.err")"
check "a bind of a secret is a warning at launch naming the path and why" \
    grep -qF "warning: --ro-bind $H/.ssh: ~/.ssh is in the secret set and stays unreadable" "$W/sec.err"
check_sh "the warning comes before the command's own error" \
    '[ "$(grep -n "secret set and stays" "$W/sec.err" | cut -d: -f1 | head -1)" -lt "$(grep -n "^cat:" "$W/sec.err" | cut -d: -f1 | head -1)" ]'
check "the summary names the unreadable secret and the rule" \
    grep -qF "read: $H/.ssh/id_test refused - in the secret set (~/.ssh)" "$W/sec.err"
check_sh "the secret's content is not shown" '! grep -q "not a key" "$W/sec.out"'
check_sh "control: the user reads the file outside the sandbox" \
    'as_user cat "$H/.ssh/id_test" | grep -q "not a key"'
au timeout 60 "$AIRLOCK" run --quiet --ro-bind "$H/notsecret" -- \
    cat "$H/notsecret/f" >"$W/ns.out" 2>"$W/ns.err"
check_sh "control: a bind outside the secret set warns of nothing and reads" \
    '! grep -q "secret set" "$W/ns.err" && grep -q plain "$W/ns.out"'

# ---- airlock policy egress ----
printf '{"sandbox":{"network":{"allowedDomains":["from-user.example.test"]}}}\n' \
    >"$H/.config/airlock/settings.json"
printf '{"sandbox":{"network":{"allowedDomains":["from-file.example.test"]}}}\n' \
    >"$W/extra.json"
chmod a+r "$W/extra.json" "$H/.config/airlock/settings.json"
au "$AIRLOCK" policy egress --settings "$W/extra.json" \
    --allow-domain from-flag.example.test >"$W/eg.out" 2>"$W/eg.err"
diag "$(head -3 "$W/eg.out"; tail -14 "$W/eg.out")"
check "egress: a baseline entry with its group" \
    grep -qE "^  api\.anthropic\.com +baseline \(LLM API providers\)$" "$W/eg.out"
check_sh "egress: all 46 baseline entries are listed" \
    '[ "$(grep -c " baseline (" "$W/eg.out")" -eq 46 ]'
check "egress: the settings entry with its file" \
    grep -qE "^  from-file\.example\.test +settings $W/extra\.json$" "$W/eg.out"
check "egress: the flag entry" \
    grep -qE "^  from-flag\.example\.test +--allow-domain$" "$W/eg.out"
au "$AIRLOCK" policy egress >"$W/eg2.out" 2>&1
check "egress: the user's settings file entry with its path" \
    grep -qE "^  from-user\.example\.test +settings $H/\.config/airlock/settings\.json$" "$W/eg2.out"
au "$AIRLOCK" policy egress --json --allow-domain from-flag.example.test \
    >"$W/eg.json" 2>&1
check "egress: --json gives each entry's pattern and source" \
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
src = {e["pattern"]: e["from"] for e in d["allow"]}
assert src["from-flag.example.test"] == "--allow-domain", src
assert src["pypi.org"] == "baseline (package registries)", src
assert src["from-user.example.test"].startswith("settings "), src
assert any(e["pattern"] == "169.254.169.254" for e in d["deny"])' "$W/eg.json"
rm -f "$H/.config/airlock/settings.json"

# ---- every error path: once, in the user's words ----
# err NAME ARGS...: run airlock as the user, keep its output (stdout and
# stderr) in $W/e.NAME with the stage's path taken out (a random
# directory name could look like camelCase), and its exit status.
err() {
	_en=$1
	shift
	au timeout 60 "$AIRLOCK" "$@" >"$W/e.$_en" 2>&1
	echo $? >"$W/e.$_en.rc"
	sed -i "s|$STAGE|STAGE|g" "$W/e.$_en"
}
printf '{"sandbox": {"bogus": 1}}\n' >"$W/bad.json"
chmod a+r "$W/bad.json"
big=$(head -c 120000 /dev/zero | tr '\0' a)
err url run --allow-domain https://x.example.test/path -- true
err badname run --allow-domain 'a..b' -- true
err empty run -- ""
err envname run --env 1BAD=x -- true
err envinj run --env LD_PRELOAD=x -- true
err bindproc run --bind /proc -- true
err bindmissing run --bind "$W/missing" -- true
err badset run --settings "$W/bad.json" -- true
err wtbadset worktree ls --settings "$W/bad.json"
err fsbadset fs --settings "$W/bad.json" read "$W/bad.json"
err timeout run --timeout soon -- true
err mode run --mode nap -- true
err unknownopt run --frobnicate -- true
err notfound run -- /nonexistent/cmd
err nochdir run --chdir /nonexistent -- true
err nochdiroff run --sandbox off --chdir /nonexistent -- true
err egressurl policy egress --allow-domain https://x.example.test/
err egressnet policy egress --network maybe
err conv run --conversation 'x/y' --agent a -- true
err denyempty run --deny-read "" -- true
err wtagent worktree provision --conversation c1 --agent 'b@d' "$W/ws"
err bigenv run --env "A1=$big" --env "A2=$big" --env "A3=$big" \
    --env "A4=$big" --env "A5=$big" --env "A6=$big" --env "A7=$big" \
    --env "A8=$big" --env "A9=$big" -- true
cp "$W/bad.json" "$H/.config/airlock/settings.json"
err status status
rm -f "$H/.config/airlock/settings.json"
for f in "$W"/e.*[!c]; do
	diag "$(basename "$f"): $(cut -c1-200 "$f" | grep -v passing | head -3)"
done
bad=$(grep -lE 'R-[A-Z][0-9]|MSG_|[A-Za-z][0-9]*\[[0-9]+\]|\b(bindMounts|egressAllowlist|passEnv|denyRead|denyWrite|hostPath|argv:)|[a-z][A-Z][a-z]+(\[|:)' \
    "$W"/e.*[!c] 2>/dev/null)
check_sh "no spec id, message name, JSON index or field name in any error" \
    '[ -z "$bad" ] || { diag "leaks in: $bad"; false; }'
dup=""
for f in "$W"/e.*[!c]; do
	# The same failure printed twice (airlockd's line, then ours),
	# compared without the process prefix.
	if grep -q '^airlockd\[' "$f" || [ -n "$(sed -E \
	    's/^(airlockd\[[0-9]+\]|airlock( [a-z]+)?): (fatal: )?(settings: )?//' \
	    "$f" | sort | uniq -d)" ]; then
		dup="$dup $(basename "$f")"
	fi
done
check_sh "each failure printed once, by the client" \
    '[ -z "$dup" ] || { diag "twice in:$dup"; false; }'
check_sh "a URL for a domain is named as a URL, with the host to give" \
    'grep -qF "a domain, not a URL" "$W/e.url" && grep -qF "(here: --allow-domain x.example.test)" "$W/e.url" && [ "$(cat "$W/e.url.rc")" -eq 2 ]'
check_sh "an empty command word is named as such" \
    'grep -qF "the command is an empty word" "$W/e.empty" && [ "$(cat "$W/e.empty.rc")" -eq 2 ]'
check_sh "a bad variable name is refused, saying what a name is" \
    'grep -qF "not starting with a digit" "$W/e.envname" && [ "$(cat "$W/e.envname.rc")" -eq 2 ]'
check_sh "a bind error names the flag and path typed" \
    'grep -qF -- "--bind /proc: /proc would hide" "$W/e.bindproc"'
check_sh "a bad settings file fails status, said once" \
    '[ "$(cat "$W/e.status.rc")" -ne 0 ] && [ "$(grep -c "sandbox.bogus: unknown key" "$W/e.status")" -eq 1 ]'
check_sh "a bad settings file: worktree and fs name it, airlockd is not started" \
    'grep -qF "bad.json: key sandbox.bogus: unknown key" "$W/e.wtbadset" && grep -qF "bad.json: key sandbox.bogus: unknown key" "$W/e.fsbadset" && ! grep -q "connection closed" "$W/e.wtbadset" "$W/e.fsbadset"'
check_sh "a missing --chdir is named, and is not 'command not found' (126, not 127)" \
    'grep -qF "chdir /nonexistent: No such file" "$W/e.nochdir" && [ "$(cat "$W/e.nochdir.rc")" -eq 126 ] && grep -qF "chdir /nonexistent: No such file" "$W/e.nochdiroff" && [ "$(cat "$W/e.nochdiroff.rc")" -eq 126 ] && [ "$(cat "$W/e.notfound.rc")" -eq 127 ]'
check_sh "an empty --deny-read is a usage error" \
    'grep -qF -- "--deny-read \"\": a path or glob" "$W/e.denyempty" && [ "$(cat "$W/e.denyempty.rc")" -eq 2 ]'
check_sh "too large an environment is an error, not airlockd's end" \
    'grep -qF "the command and its environment come to" "$W/e.bigenv" && ! grep -q "connection closed" "$W/e.bigenv"'

# ---- settings lists: no entry dropped in silence ----
sv() {	# sv NAME JSON: $W/NAME.json, readable by the test user
	printf '%s\n' "$2" >"$W/$1.json"
	chmod a+r "$W/$1.json"
}
sv surl '{"sandbox":{"network":{"allowedDomains":["https://x.example.test/p"]}}}'
au "$AIRLOCK" run --settings "$W/surl.json" -- true >/dev/null 2>"$W/s.url"
rc=$?
check_sh "a URL in allowedDomains: refused naming file, key, value and host" \
    '[ $rc -eq 125 ] && grep -qF "$W/surl.json: key sandbox.network.allowedDomains: element 0 \"https://x.example.test/p\": a domain, not a URL" "$W/s.url" && grep -qF "(here: \"x.example.test\")" "$W/s.url" ||
    { diag "$(cat "$W/s.url")"; false; }'
sv sden '{"network":{"deniedDomains":["https://evil.example.test"]}}'
au "$AIRLOCK" policy egress --settings "$W/sden.json" >/dev/null 2>"$W/s.den"
rc=$?
check_sh "a URL in srt's deniedDomains: refused the same way" \
    '[ $rc -ne 0 ] && grep -qF "key network.deniedDomains: element 0 \"https://evil.example.test\": a domain, not a URL" "$W/s.den" ||
    { diag "$(cat "$W/s.den")"; false; }'
sv sempty '{"sandbox":{"filesystem":{"denyWrite":[""]}}}'
sv spass '{"sandbox":{"env":{"pass":["1BAD"]}}}'
au "$AIRLOCK" run --settings "$W/sempty.json" -- true >/dev/null 2>"$W/s.empty"
rc=$?
au "$AIRLOCK" run --settings "$W/spass.json" -- true >/dev/null 2>"$W/s.pass"
rc2=$?
check_sh "an empty path and a bad variable name in a list: refused, named" \
    '[ $rc -eq 125 ] && [ $rc2 -eq 125 ] && grep -qF "key sandbox.filesystem.denyWrite: element 0 is empty" "$W/s.empty" && grep -qF "key sandbox.env.pass: element 0 \"1BAD\": not a variable name" "$W/s.pass" ||
    { diag "$(cat "$W/s.empty" "$W/s.pass")"; false; }'
sv sok '{"sandbox":{"network":{"allowedDomains":["x.example.test"]}}}'
au "$AIRLOCK" policy egress --settings "$W/sok.json" >"$W/s.ok" 2>&1
check "control: a domain in the same place is listed with its file" \
    grep -qE "^  x\.example\.test +settings $W/sok\.json$" "$W/s.ok"

# ---- settings --explain: list values, escaped, with their file ----
sv slist '{"sandbox":{"network":{"allowedDomains":["a.example.test","b.example.test"]},"filesystem":{"denyRead":["~/x","y\u001b[2Jz"]}}}'
au "$AIRLOCK" settings --explain --settings "$W/slist.json" >"$W/x.out" 2>&1
check_sh "settings --explain prints each list value with its file" \
    'grep -qE "^sandbox\.network\.allowedDomains +\"a\.example\.test\" +$W/slist\.json$" "$W/x.out" && grep -qE "^ +\"b\.example\.test\" +$W/slist\.json$" "$W/x.out" && ! grep -q "(set)" "$W/x.out" ||
    { diag "$(cat "$W/x.out")"; false; }'
check_sh "a value's terminal escape is shown escaped, never raw" \
    'grep -qF "\"y\e[2Jz\"" "$W/x.out" && ! grep -q "$(printf "\033")" "$W/x.out"'

# ---- srt's settings file: named as the source, its list the whole one ----
rm -f "$H/.config/airlock/settings.json"
printf '{"network":{"allowedDomains":["pypi.org","srt-only.example.test"],"deniedDomains":[]},"filesystem":{"denyRead":[]}}\n' \
    >"$H/.srt-settings.json"
chmod a+r "$H/.srt-settings.json"
au "$AIRLOCK" settings --explain >"$W/srt.out" 2>&1
check_sh "settings --explain names the srt file for its list and the baseline" \
    'grep -qE "^sandbox\.network\.allowedDomains +\"pypi\.org\" +$H/\.srt-settings\.json$" "$W/srt.out" && grep -qE "^sandbox\.network\.useBaseline +false +$H/\.srt-settings\.json" "$W/srt.out" ||
    { diag "$(cat "$W/srt.out")"; false; }'
au "$AIRLOCK" policy egress >"$W/srteg.out" 2>&1
check_sh "policy egress: srt entries name the srt file, no baseline label" \
    'grep -qE "^  pypi\.org +settings $H/\.srt-settings\.json$" "$W/srteg.out" && grep -qE "^  srt-only\.example\.test +settings $H/\.srt-settings\.json$" "$W/srteg.out" && ! grep -q "baseline (\|a settings layer" "$W/srteg.out" ||
    { diag "$(head -5 "$W/srteg.out")"; false; }'
# What a run does: a baseline host the srt list leaves out is refused.
au timeout 60 "$AIRLOCK" run -- sh -c \
    'curl -sS -m 5 https://api.anthropic.com/ >/dev/null 2>&1; exit 0' \
    >/dev/null 2>"$W/srtrun.err"
check "under srt's list a baseline host is refused by the allowlist" \
    grep -qF "api.anthropic.com:443 refused - not in the allowlist" \
    "$W/srtrun.err"
rm -f "$H/.srt-settings.json"
au timeout 60 "$AIRLOCK" run -- sh -c \
    'curl -sS -m 5 https://api.anthropic.com/ >/dev/null 2>&1; exit 0' \
    >/dev/null 2>"$W/basrun.err"
check_sh "control: without it the baseline host is not refused by the allowlist" \
    '! grep -q "api.anthropic.com:443 refused - not in the allowlist" "$W/basrun.err"'

# ---- AIRLOCK_DEBUG: 0 and empty are off; the trace quotes each word ----
au env AIRLOCK_DEBUG=0 "$AIRLOCK" run -- true >/dev/null 2>"$W/d0.err"
au env AIRLOCK_DEBUG= "$AIRLOCK" run -- true >/dev/null 2>"$W/de.err"
check_sh "AIRLOCK_DEBUG=0 and AIRLOCK_DEBUG= trace nothing" \
    '! grep -q "debug:" "$W/d0.err" "$W/de.err" ||
    { diag "$(head -3 "$W/d0.err")"; false; }'
au env AIRLOCK_DEBUG=1 "$AIRLOCK" run -- sh -c 'echo "a b" c' \
    >/dev/null 2>"$W/d1.err"
check "AIRLOCK_DEBUG=1 traces the command, each word quoted and escaped" \
    grep -qF 'exec "sh" "-c" "echo \"a b\" c"' "$W/d1.err"
