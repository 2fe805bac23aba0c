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
		COMPREPLY=($(compgen -W "run claude acp shell profile matrix status doctor setup policy hook proxy-connect approve audit worktree settings fs version help" -- "$cur"))
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
	--network)
		COMPREPLY=($(compgen -W "on off" -- "$cur"))
		return 0 ;;
	--sandbox)
		if [ "$cmd" = matrix ]; then
			COMPREPLY=($(compgen -W "on off" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "on off microvm" -- "$cur"))
		fi
		return 0 ;;
	--os)
		COMPREPLY=($(compgen -W "linux macos" -- "$cur"))
		return 0 ;;
	--workspace|--chdir|--bind|--ro-bind|--bind-try|--ro-bind-try|--deny-read|\
	    --deny-write)
		COMPREPLY=($(compgen -d -- "$cur"))
		return 0 ;;
	--settings|--events|--socket|--claude)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	--env|-e)
		COMPREPLY=($(compgen -e -- "$cur"))
		return 0 ;;
	--timeout|--kill-after|--memory|--output-limit|--pids|--allow-domain|\
	    --origin)
		return 0 ;;
	--pass-through)
		COMPREPLY=($(compgen -W "fs terminal all none" -- "$cur"))
		return 0 ;;
	esac
	# The options of run, claude and acp (client/cli_opt.c's table;
	# tests/integration/cli.sh compares the two).
	local runopts="--workspace --chdir --mode --bind --ro-bind --bind-try
	    --ro-bind-try --deny-read --deny-write --network --allow-domain
	    --timeout --kill-after --memory --pids --output-limit -e --env
	    --sandbox --settings --origin --socket --events --conversation
	    --agent -t -T --no-policy-check --quiet -h --help"
	case $cmd in
	help)
		[ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "run claude
		    acp shell profile matrix status doctor setup policy hook proxy-connect approve
		    audit worktree settings fs version" -- "$cur")) ;;
	run)
		COMPREPLY=($(compgen -W "$runopts --" -- "$cur")) ;;
	profile)
		COMPREPLY=($(compgen -W "--os $runopts --" -- "$cur")) ;;
	claude)
		COMPREPLY=($(compgen -W "$runopts --claude --" -- "$cur")) ;;
	acp)
		COMPREPLY=($(compgen -W "$runopts --pass-through --" -- "$cur")) ;;
	shell)
		COMPREPLY=($(compgen -W "--cwd --settings -h --help --" -- "$cur")) ;;
	settings)
		COMPREPLY=($(compgen -W "--explain --settings -h --help" -- "$cur")) ;;
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
	doctor)
		COMPREPLY=($(compgen -W "--socket --settings" -- "$cur")) ;;
	setup)
		case $prev in
		--root) COMPREPLY=($(compgen -d -- "$cur")) ;;
		--launcher) COMPREPLY=($(compgen -f -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "--dry-run --root --launcher" -- "$cur")) ;;
		esac ;;
	approve)
		COMPREPLY=($(compgen -W "--socket" -- "$cur")) ;;
	audit)
		COMPREPLY=($(compgen -W "--session --since" -- "$cur")) ;;
	policy)
		if [ "$COMP_CWORD" -eq 2 ]; then
			COMPREPLY=($(compgen -W "check egress" -- "$cur"))
		elif [ "${COMP_WORDS[2]}" = egress ]; then
			COMPREPLY=($(compgen -W "--settings --allow-domain --network --json" -- "$cur"))
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
