#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Tests of the zsh and fish completions: syntax, loading, and fish's answers.
#
# zsh: zsh -n, compinit finds _lockrun for lockrun and autoloads it, and
# the completion widget, driven on a pseudo-terminal (zsh-complete.zsh),
# offers verbs, options, option arguments, task names and commands.
# fish: fish -n, then `complete -C LINE` for verbs, options, option
# arguments, task names and commands after "--".
set -u
cd "$(dirname "$0")/../.."
dir=contrib/completion
fails=0 cases=0
# The verbs, from their rows in src/cli/verbs.c (sorted, as zsh offers
# them): a new verb's row is all these cases need.
VERBS=$(sed -n 's/^[[:space:]]*\[VERB_[A-Z_]*\] = { "\([a-z-]*\)".*/\1/p' src/cli/verbs.c |
	sort | tr '\n' ' ')
[ -n "$VERBS" ] || { echo "zsh-fish.sh: no verb rows in src/cli/verbs.c" >&2; exit 1; }

fail()
{
	fails=$((fails + 1))
	echo "FAIL $*" >&2
}

zsh -n "$dir/_lockrun" || fail "zsh -n $dir/_lockrun"
got=$(zsh -f -c "fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -D
	autoload -Uz +X _lockrun && print -r -- \$_comps[lockrun]" 2>&1)
[ "$got" = _lockrun ] || fail "zsh: compinit does not load _lockrun for lockrun: $got"

fish -n "$dir/lockrun.fish" || fail "fish -n $dir/lockrun.fish"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/lockrun.yaml" <<'YAML'
tasks:
  import-products:
    command: [/bin/true]
  "deploy:prod":   # quoted
    command: [/bin/true]
YAML

# Each line typed, a tab, and the matches zsh offers, sorted.
cat > "$tmp/zsh.want" <<EOF
lockrun 	$VERBS
lockrun st	status 
lockrun sle	sleep 
lockrun --log 	json json: stderr syslog 
lockrun --on-lost=	ignore term 
lockrun --kill-mode 	process tree 
lockrun status --format 	json prometheus text 
lockrun --ttl 90	90d 90h 90m 90ms 90s 
lockrun --timezone Europe/Be	Belfast Belgrade Berlin 
lockrun --url redis://h:1 st	status 
lockrun --log json --tim	--timeout --timezone 
lockrun -k status 	$VERBS
lockrun status --f	--format 
lockrun unlock --y	--yes 
lockrun pause --fo	--for 
lockrun trigger --he	--help --here 
lockrun resume -c $tmp/lockrun.yaml imp	import-products 
lockrun history --co	--command-timeout --config --connect-timeout --count 
lockrun -c $tmp/lockrun.yaml -t 	deploy:prod import-products 
lockrun status -c $tmp/lockrun.yaml 	deploy:prod import-products 
lockrun history --config=$tmp/lockrun.yaml imp	import-products 
lockrun -- sle	sleep 
lockrun -k x -- lockrun st	status 
EOF
cut -f1 "$tmp/zsh.want" | tr '\n' '\0' |
	xargs -0 timeout 120 zsh -f tests/completion/zsh-complete.zsh "$dir" > "$tmp/zsh.got"
cases=$(wc -l < "$tmp/zsh.want")
diff "$tmp/zsh.want" "$tmp/zsh.got" >&2 || fail "zsh: the matches differ (- wanted, + offered)"

# fish_offers LINE WORD...: fish, completing LINE, offers exactly the WORDs
# (the candidates, without their descriptions).
fish_offers()
{
	line=$1
	shift
	cases=$((cases + 1))
	got=$(fish -N -c "source $dir/lockrun.fish; complete -C '$line'" 2>&1 |
		cut -f1 | sort | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	[ "$got" = "$want" ] || fail "fish: '$line' offers [$got], not [$want]"
}

# fish_has LINE WORD: fish, completing LINE, offers WORD among others.
fish_has()
{
	cases=$((cases + 1))
	fish -N -c "source $dir/lockrun.fish; complete -C '$1'" 2>&1 | cut -f1 |
		grep -qxF -- "$2" || fail "fish: '$1' does not offer '$2'"
}

fish_offers 'lockrun ' $VERBS
fish_offers 'lockrun st' status
fish_has 'lockrun sle' sleep
fish_offers 'lockrun --log ' stderr syslog json json:
fish_offers 'lockrun --on-lost ' term ignore
fish_offers 'lockrun --kill-mode=p' --kill-mode=process
fish_offers 'lockrun status --format ' text json prometheus
fish_offers 'lockrun --ttl 90' 90ms 90s 90m 90h 90d
fish_has 'lockrun --timezone Europe/Be' Europe/Berlin
fish_offers 'lockrun --url redis://h:1 st' status
fish_offers 'lockrun --log json --tim' --timeout --timezone
fish_has 'lockrun status --' --format
fish_offers 'lockrun unlock --y' --yes
fish_offers 'lockrun pause --fo' --for
fish_offers 'lockrun trigger --he' --help --here
fish_offers "lockrun resume -c $tmp/lockrun.yaml imp" import-products
fish_offers "lockrun -c $tmp/lockrun.yaml -t " import-products deploy:prod
fish_offers "lockrun status -c $tmp/lockrun.yaml " import-products deploy:prod
fish_offers "lockrun history --config=$tmp/lockrun.yaml imp" import-products
fish_has 'lockrun -k x -- sle' sleep
fish_offers 'lockrun -k x -- lockrun st' status

echo "zsh and fish completion: $cases cases, $fails failed"
[ "$fails" -eq 0 ]
