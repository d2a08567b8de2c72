#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Tests of the bash completion: drives _lockrun with COMP_WORDS as bash would.
#
# usage: tests/completion/bash.sh [LOCKRUN]   (default ./lockrun)
# Runs every case twice: alone, and with bash-completion's helpers loaded
# when that package is installed (then the command's own completion
# takes over after "--").
set -u
cd "$(dirname "$0")/../.."
BIN=${1:-./lockrun}
SCRIPT=contrib/completion/lockrun.bash
BASH_COMPLETION=/usr/share/bash-completion/bash_completion
fails=0 cases=0
# The verbs, from their rows in src/cli/verbs.c: a new verb's row is all
# these cases need.
VERBS=$(sed -n 's/^[[:space:]]*\[VERB_[A-Z_]*\] = { "\([a-z-]*\)".*/\1/p' src/cli/verbs.c)
[[ -n $VERBS ]] || { echo "bash.sh: no verb rows in src/cli/verbs.c" >&2; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tasks.d" "$tmp/dir"
: > "$tmp/tasks.d/from-dir.yaml"
cat > "$tmp/lockrun.yaml" <<'YAML'
# a config with comments, quoting and nesting the task list must survive
redis:
  url: redis://127.0.0.1:6379/0
tasks_dir: tasks.d   # relative to this file
tasks:
  # a comment at the tasks' level
  import-products:
    command: [/bin/true]
    env:
      NOT_A_TASK: x
  "deploy:prod":  # quoted, with a colon
    command: [/bin/true]

  nightly-backup:
    schedule: "30 2 * * *"
defaults:
  ttl: 30s
YAML
: > "$tmp/dir/file.yaml"

# Set COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT as bash does for
# line $1 with the cursor at its end (splitting at blanks and at those of
# "=", ":" and "@" that are in COMP_WORDBREAKS, the breaks these lines use),
# call the completion, and print COMPREPLY one a line.
complete_line()
{
    local line=$1 tok piece br=${COMP_WORDBREAKS//[^=:@]/}
    local -a toks
    COMP_LINE=$line COMP_POINT=${#line} COMP_WORDS=()
    read -ra toks <<<"$line"
    for tok in "${toks[@]}"; do
        while [[ -n $tok ]]; do
            if [[ $tok == ["$br"]* ]]; then
                piece=${tok%%[!"$br"]*}
            else
                piece=${tok%%["$br"]*}
            fi
            COMP_WORDS+=("$piece")
            tok=${tok#"$piece"}
        done
    done
    [[ $line == *' ' ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _lockrun lockrun "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
    ((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}"
}

fail()
{
    fails=$((fails + 1))
    printf 'FAIL [%s] %s\n' "$mode" "$*" >&2
}

# offers LINE WORD...: completing LINE offers every WORD.
offers()
{
    local line=$1 w got
    shift
    cases=$((cases + 1))
    got=$(complete_line "$line")
    for w in "$@"; do
        grep -qxF -- "$w" <<<"$got" || fail "'$line' does not offer '$w' (got: $(echo $got | head -c 300))"
    done
}

# lacks LINE WORD...: completing LINE offers no WORD.
lacks()
{
    local line=$1 w got
    shift
    cases=$((cases + 1))
    got=$(complete_line "$line")
    for w in "$@"; do
        grep -qxF -- "$w" <<<"$got" && fail "'$line' offers '$w'"
    done
}

# only LINE WORD...: completing LINE offers exactly the WORDs.
only()
{
    local line=$1 got want
    shift
    cases=$((cases + 1))
    got=$(complete_line "$line" | sort)
    want=$(printf '%s\n' "$@" | sort)
    [[ $got == "$want" ]] || fail "'$line' offers [$(echo $got)], not [$(echo $want)]"
}

# The options `lockrun VERB --help` lists, one a line.
help_options()
{
    "$BIN" "$@" --help 2>/dev/null | sed -n 's/^  *\(-.*\)/\1/p' |
        sed 's/\([^ ,]\)  .*/\1/' | grep -oE '(^|[ ,])--?[a-zA-Z][-a-zA-Z]*' |
        sed 's/^[ ,]//' | sort -u
}

run_cases()
{
    # verbs, and a command when no verb starts so
    only 'lockrun ' $VERBS
    only 'lockrun st' status
    only 'lockrun -v -c x.yaml hi' history
    offers 'lockrun sle' sleep
    lacks 'lockrun sle' status

    # every option --help lists, for each verb that has its own --help
    local verb opt
    for verb in $VERBS; do
        if [[ $verb == run || $verb == check ]]; then
            set --
        elif "$BIN" "$verb" --help 2>/dev/null | head -1 | grep -q "lockrun $verb "; then
            set -- "$verb"
        else
            continue # not in this build yet
        fi
        for opt in $(help_options "$@"); do
            offers "lockrun $verb -" "$opt"
        done
    done
    offers 'lockrun --' --url --log --kill-mode --history --history-ttl --host \
        --wait-replicas --wait-timeout
    offers 'lockrun status --' --format --json --stale-after --url
    lacks 'lockrun status --' --ttl --task
    only 'lockrun history --co' --count --command-timeout --config --connect-timeout
    only 'lockrun unlock --y' --yes
    only 'lockrun pause --fo' --for
    only 'lockrun pause --r' --reason --redis
    only 'lockrun trigger --he' --help --here
    only "lockrun pause -c $tmp/lockrun.yaml imp" import-products
    only "lockrun trigger -c $tmp/lockrun.yaml n" nightly-backup

    # option arguments, split from the option or after "="
    only 'lockrun --on-lost ' term ignore
    only 'lockrun --on-lost=i' ignore
    only 'lockrun --kill-mode ' tree process
    only 'lockrun --on-server-error ' fail run
    only 'lockrun --on-redis-error ' fail run
    only 'lockrun status --format ' text json prometheus
    only 'lockrun status --format=p' prometheus
    only 'lockrun --log ' stderr syslog json json:
    only 'lockrun --log=sy' syslog
    only "lockrun --log json:$tmp/di" "$tmp/dir"
    only 'lockrun --ttl 90' 90ms 90s 90m 90h 90d
    offers 'lockrun --every ' 1m
    offers 'lockrun --timezone Europe/Be' Europe/Berlin
    only 'lockrun --timezone=America/New_Y' America/New_York
    lacks 'lockrun --timezone ' posix/Europe/Berlin zone.tab
    # a word break ("@", which bash-completion removes) is not replaced
    if [[ $COMP_WORDBREAKS == *@* ]]; then
        only 'lockrun --schedule @da' daily
    else
        only 'lockrun --schedule @da' @daily
    fi
    only "lockrun -c $tmp/dir/fi" "$tmp/dir/file.yaml"
    only "lockrun --config=$tmp/dir/fi" "$tmp/dir/file.yaml"
    only "lockrun --password-file $tmp/di" "$tmp/dir"
    only "lockrun -C $tmp/d" "$tmp/dir"
    offers 'lockrun --url red' redis:// rediss:// redis+sentinel:// redis+cluster://
    offers 'lockrun -e HOM' HOME=
    only 'lockrun -k ' # free text: nothing offered

    # an option's argument is not the command, not the verb
    only 'lockrun --url redis://h:6379/0 ' $VERBS
    only 'lockrun --log json st' status
    only 'lockrun --log json --tim' --timeout --timezone
    only 'lockrun -k status ' $VERBS
    only 'lockrun -vk x st' status
    only 'lockrun -t x --kill-mode process --on' --on-lost --on-server-error \
        --on-redis-error --one-server

    # task names from the config: -c, --config=, $LOCKRUN_CONFIG
    local names=(import-products deploy:prod nightly-backup from-dir)
    only "lockrun -c $tmp/lockrun.yaml -t " "${names[@]}"
    only "lockrun --config=$tmp/lockrun.yaml -t imp" import-products
    only "lockrun -c $tmp/lockrun.yaml -timp" -timport-products
    only "lockrun -c $tmp/lockrun.yaml check -t ni" nightly-backup
    only "lockrun status -c $tmp/lockrun.yaml " "${names[@]}"
    only "lockrun history -c $tmp/lockrun.yaml n" nightly-backup
    only "lockrun unlock -c $tmp/lockrun.yaml imp" import-products
    only "lockrun status -c $tmp/lockrun.yaml import-products -- n" nightly-backup
    LOCKRUN_CONFIG=$tmp/lockrun.yaml only 'lockrun history ' "${names[@]}"
    # a colon splits the word for bash: only the part after it is replaced
    only "lockrun -c $tmp/lockrun.yaml -t deploy:p" prod
    only 'lockrun -c /nonexistent -t ' # no config: nothing

    # after "--" or a run's command: commands, then the command's own
    offers 'lockrun -t x -- sle' sleep
    lacks 'lockrun -- sta' status
    lacks 'lockrun run sta' status
    offers 'lockrun run sle' sleep
    offers 'lockrun check -k x -- sle' sleep
    if [[ $mode == bash-completion ]]; then
        only 'lockrun --log json -- lockrun st' status
        only 'lockrun -k x -- lockrun --log=sy' syslog
    else
        only "lockrun -- ls $tmp/di" "$tmp/dir"
    fi
}

for mode in plain bash-completion; do
    (
        if [[ $mode == bash-completion ]]; then
            [[ -r $BASH_COMPLETION ]] || { echo "skip: $BASH_COMPLETION missing"; exit 0; }
            . "$BASH_COMPLETION"
        fi
        . "$SCRIPT"
        run_cases
        echo "bash completion [$mode]: $cases cases, $fails failed"
        ((fails == 0))
    ) || fails=$((fails + 1))
done
((fails == 0))
