# SPDX-License-Identifier: BSD-2-Clause
# Drives zsh's completion of lockrun in an interactive zsh on a pseudo-terminal.
#
# usage: zsh -f tests/completion/zsh-complete.zsh DIR LINE...
# Starts `zsh -f -i` under zpty with DIR (holding _lockrun) in $fpath,
# types each LINE and a TAB, and prints "LINE<TAB>match match ..." for
# each: the matches the completion added (recorded by a compadd wrapper
# inside the widget), sorted. Each line is typed only once the prompt is
# back, since zle drops what was typed before it started reading.
zmodload zsh/zpty || exit 1
dir=$1
shift
out=$(mktemp) || exit 1
zpty -b z 'zsh -f -i' || exit 1
# The prompt the shell prints, spelt so that its echo differs from it.
zpty -w z "PS1='RE''ADY>'; fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'setopt no_auto_list no_auto_menu no_beep; zstyle ":completion:*" list-prompt ""'
# The wrapper records a call's matches when it added some (not the calls
# that only ask which would match, with -O, -A or -D).
zpty -w z '_capture() { compadd() { local -a m; local -i n=$compstate[nmatches];
	builtin compadd "$@" || return; (( compstate[nmatches] > n )) || return 0;
	builtin compadd -O m "$@"; print -rl -- $m >> '$out'; };
	_main_complete; unfunction compadd; }'
zpty -w z 'zle -C capture complete-word _capture; bindkey "^I" capture'
for i in 1 2 3 4; do
	zpty -r -m z junk '*READY>' || exit 1
done
for line in "$@"; do
	: > $out
	zpty -w -n z "$line"$'\t'
	zpty -w z $'\C-u'
	zpty -r -m z junk '*READY>' || exit 1
	print -r -- "$line"$'\t'"$(sort -u $out | tr '\n' ' ')"
done
zpty -d z
rm -f $out
