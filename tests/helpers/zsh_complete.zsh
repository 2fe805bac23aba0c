# SPDX-License-Identifier: ISC
#
# zsh -f zsh_complete.zsh FPATHDIR OUT LINE: type LINE and a TAB into an
# interactive `zsh -f` on a pseudo-terminal (zsh/zpty) with compinit and
# FPATHDIR first in $fpath, and write every match the completion system
# offers to OUT, one a line, then "#done".  compadd is wrapped: calls
# that only compute matches (-O, -A, -D) pass through, the others have
# their matches recorded and are then made for real.
zmodload zsh/zpty || exit 3
dir=$1 out=$2 line=$3
: >$out
zpty z zsh -f -i
zpty -w z "PS1=; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'zstyle ":completion:*" insert-tab false'
# One line each, and no TAB: what is written is typed at the prompt.
zpty -w z "compadd() { if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd \"\$@\"; return; fi; local -a __h; builtin compadd -A __h \"\$@\"; print -rl -- \$__h >>${(q)out}; builtin compadd \"\$@\"; }"
zpty -w z "_done() { print -r -- '#done' >>${(q)out}; exit; }; comppostfuncs=(_done)"
zpty -w z 'bindkey "^I" complete-word'
zpty -wn z "$line"$'\t'
while zpty -r z l; do :; done
