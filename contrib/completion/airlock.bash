# SPDX-License-Identifier: ISC
#
# bash completion for airlock(1).  Install as
# /usr/share/bash-completion/completions/airlock (or source it).

_airlock()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=${COMP_WORDS[1]}

	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "run claude acp shell matrix status policy hook proxy-connect approve audit worktree settings fs version" -- "$cur"))
		return 0
	fi
	# After "--" the command line is the sandboxed command's own.
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = "--" ]; then
			COMPREPLY=($(compgen -c -- "$cur"))
			return 0
		fi
	done
	case $prev in
	--mode)
		COMPREPLY=($(compgen -W "chat plan review orchestrate" -- "$cur"))
		return 0 ;;
	--sandbox|--network)
		COMPREPLY=($(compgen -W "on off" -- "$cur"))
		return 0 ;;
	--workspace|--bind|--ro-bind|--bind-try|--ro-bind-try|--deny-read|\
	    --deny-write)
		COMPREPLY=($(compgen -d -- "$cur"))
		return 0 ;;
	--settings|--events|--socket|--claude)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	--env)
		COMPREPLY=($(compgen -e -- "$cur"))
		return 0 ;;
	--timeout|--kill-after|--memory|--output-limit|--pids|--allow-domain|\
	    --origin)
		return 0 ;;
	--pass-through)
		COMPREPLY=($(compgen -W "fs terminal all none" -- "$cur"))
		return 0 ;;
	esac
	case $cmd in
	run)
		COMPREPLY=($(compgen -W "--workspace --mode --bind --ro-bind
		    --bind-try --ro-bind-try --events --sandbox --settings
		    --timeout --kill-after --memory --output-limit --pids
		    --network --allow-domain --deny-read --deny-write --origin
		    --env --socket --no-policy-check --quiet --conversation
		    --agent -t -T -h --help --" -- "$cur")) ;;
	claude)
		COMPREPLY=($(compgen -W "--claude --workspace --mode --bind
		    --ro-bind --events --settings --timeout --memory --pids
		    --allow-domain --deny-read --deny-write --origin --socket
		    --quiet --" -- "$cur")) ;;
	acp)
		COMPREPLY=($(compgen -W "--pass-through --workspace --mode
		    --bind --ro-bind --events --sandbox --settings --timeout
		    --memory --pids --network --allow-domain --deny-read
		    --deny-write --origin --socket --quiet --" -- "$cur")) ;;
	shell)
		COMPREPLY=($(compgen -W "--cwd --settings --" -- "$cur")) ;;
	settings)
		COMPREPLY=($(compgen -W "--explain --settings" -- "$cur")) ;;
	matrix)
		COMPREPLY=($(compgen -W "--sandbox --network --settings
		    --socket --json" -- "$cur")) ;;
	worktree)
		if [ "$COMP_CWORD" -eq 2 ]; then
			COMPREPLY=($(compgen -W "provision ls rm" -- "$cur"))
		else
			COMPREPLY=($(compgen -d -W "--conversation --agent
			    --settings --socket --json" -- "$cur"))
		fi ;;
	fs)
		COMPREPLY=($(compgen -W "read write edit apply-patch search find
		    --workspace --mode --sandbox --settings --socket" -- "$cur")) ;;
	status)
		COMPREPLY=($(compgen -W "--socket --json" -- "$cur")) ;;
	approve)
		COMPREPLY=($(compgen -W "--socket" -- "$cur")) ;;
	audit)
		COMPREPLY=($(compgen -W "--session --since" -- "$cur")) ;;
	policy)
		if [ "$COMP_CWORD" -eq 2 ]; then
			COMPREPLY=($(compgen -W "check" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "--mode --settings --json --" -- "$cur"))
		fi ;;
	hook)
		if [ "$COMP_CWORD" -eq 2 ]; then
			COMPREPLY=($(compgen -W "claude-pretooluse" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "--confined --mode --settings" -- "$cur"))
		fi ;;
	esac
	return 0
}
complete -F _airlock airlock
