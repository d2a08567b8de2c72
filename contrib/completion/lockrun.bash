# SPDX-License-Identifier: BSD-2-Clause
# bash completion for lockrun(1): verbs, options and their arguments, task names.
#
# Installed as /usr/share/bash-completion/completions/lockrun (loaded on
# demand by the bash-completion package), or sourced from ~/.bashrc. It
# needs none of bash-completion's helpers; when _command_offset is there,
# the command after "--" is completed by that command's own completion.

# The verbs, and the options each takes (as `lockrun VERB --help` lists
# them), split into options with an argument and flags. Before the verb,
# lockrun accepts any option and checks it against the verb afterwards.
_lockrun_verbs='run check status history logs unlock tick cron pause resume trigger import-crontab'
_lockrun_common_arg='-c --config --crontab --system-crontab --url --redis --password-file --connect-timeout
    --command-timeout --prefix --host --log'
_lockrun_common_flag='-h --help -V --version -v --verbose -q --quiet'
_lockrun_run_arg='-t --task -k --key --ttl --every -E --conflict-exit
    --wait-replicas --wait-timeout --on-server-error --on-redis-error -C --cwd -e
    --env --on-lost
    --kill-mode --kill-after --wait --timeout --min-hold --retries --retry-delay
    --keep-output --keep-runs --keep-failed-runs
    --schedule --timezone --slot-tolerance --clock-tolerance --history --history-ttl
    --between --not-between --concurrency'
_lockrun_run_flag='--one-server --no-one-server --no-overlap --overlap --no-renew
    --shell --foreground'
_lockrun_status_opts='--json --format -l --long --stale-after --html --all'
_lockrun_cron_opts='--listen'
_lockrun_history_opts='-n --count --json'
_lockrun_logs_opts='-n --count --json --run --slot --failed'
_lockrun_unlock_opts='--yes --history --history-ttl'
_lockrun_pause_opts='--for --until --reason --history --history-ttl'
_lockrun_resume_opts='--history --history-ttl'
_lockrun_trigger_opts='--here --history --history-ttl'
# The short options with an argument (getopt's "c:t:k:E:C:e:n:").
_lockrun_short_arg=ctkECen

# Print the options VERB takes (run's before any verb is typed).
_lockrun_options()
{
    local own=
    case $1 in
    '' | run | check) own="$_lockrun_run_arg $_lockrun_run_flag" ;;
    status) own=$_lockrun_status_opts ;;
    history) own=$_lockrun_history_opts ;;
    logs) own=$_lockrun_logs_opts ;;
    unlock) own=$_lockrun_unlock_opts ;;
    pause) own=$_lockrun_pause_opts ;;
    resume) own=$_lockrun_resume_opts ;;
    trigger) own=$_lockrun_trigger_opts ;;
    cron) own=$_lockrun_cron_opts ;;
    esac
    printf '%s\n' $_lockrun_common_arg $_lockrun_common_flag $own
}

# Does option word $1 (as typed, without "=value") take the next word as
# its argument? A cluster of short options ("-vt") does when its first
# option with an argument is its last letter.
_lockrun_takes_arg()
{
    local w=$1 i
    case $w in
    --*=* | --) return 1 ;;
    --*)
        [[ " ${_lockrun_common_arg//$'\n'/ } ${_lockrun_run_arg//$'\n'/ } \
            --format --stale-after --count --listen --html --for --until --reason --run \
            --slot " \
            == *" $w "* ]]
        return
        ;;
    esac
    for ((i = 1; i < ${#w}; i++)); do
        [[ $_lockrun_short_arg == *"${w:i:1}"* ]] || continue
        ((i == ${#w} - 1))
        return
    done
    return 1
}

# Rebuild the words as lockrun will see them: bash splits a word at each
# character of COMP_WORDBREAKS ("--log=json:/tmp/x" arrives as five
# words), lockrun only at blanks. A piece with no blank before it joins
# the word before. Sets words, cword and cur (up to the cursor), and
# first[i], the index in COMP_WORDS of words[i]'s first piece.
_lockrun_words()
{
    local line=${COMP_LINE:0:COMP_POINT} rest piece i n=-1
    words=() first=()
    for ((i = 0; i <= COMP_CWORD; i++)); do
        rest=${line#"${line%%[![:space:]]*}"}
        # the word at the cursor ends at the cursor
        ((i == COMP_CWORD)) && piece=$rest || piece=${COMP_WORDS[i]}
        if ((n >= 0)) && [[ ${#rest} == "${#line}" ]]; then
            words[n]+=$piece
        else
            words[++n]=$piece
            first[n]=$i
        fi
        line=${rest#"$piece"}
    done
    cword=$n
    cur=${words[n]}
}

# Set COMPREPLY to the candidates given, those starting with $cur, minus
# the part of $cur that readline does not replace (up to its last
# COMP_WORDBREAKS character, e.g. "--log=json:").
_lockrun_reply()
{
    local keep=${cur%"${cur##*["${COMP_WORDBREAKS//[[:space:]]/}"]}"} c
    COMPREPLY=()
    for c in "$@"; do
        [[ $c == "$cur"* ]] && COMPREPLY+=("${c#"$keep"}")
    done
}

# The same, with the candidates a command prints, one a line.
_lockrun_reply_of()
{
    local -a cands
    mapfile -t cands < <("$@")
    _lockrun_reply "${cands[@]}"
}

# Print the config file lockrun would read: -c / --config on the line,
# else $LOCKRUN_CONFIG, else the default path.
_lockrun_config()
{
    local i w
    for ((i = 1; i < cword; i++)); do
        w=${words[i]}
        case $w in
        --) break ;;
        -c | --config) w=${words[i + 1]} ;;
        --config=*) w=${w#--config=} ;;
        -c?*) w=${w#-c} ;;
        *) continue ;;
        esac
        [[ $w == "~/"* ]] && w=$HOME/${w#"~/"}
        printf '%s\n' "$w"
        return
    done
    printf '%s\n' "${LOCKRUN_CONFIG:-/etc/lockrun/lockrun.yaml}"
}

# Print the task names in config file $1: the keys one level below the
# top-level "tasks:" line (block-style YAML, as config.example.yaml
# writes it), then the NAME of each NAME.yaml in its tasks_dir. A light
# reading, without lockrun, so that TAB never waits for a server.
_lockrun_tasks()
{
    [[ -r $1 ]] || return 0
    local dir f
    awk '
        /^[ \t]*(#.*)?$/ { next }
        /^[^ \t]/ { intasks = ($0 ~ /^tasks:[ \t]*(#.*)?$/); depth = 0; next }
        intasks {
            match($0, /^[ \t]+/)
            if (depth == 0)
                depth = RLENGTH
            if (RLENGTH != depth || $0 !~ /:([ \t]|$)/)
                next
            name = substr($0, RLENGTH + 1)
            sub(/:([ \t].*)?$/, "", name)
            gsub(/^["\047]|["\047]$/, "", name)
            print name
        }' "$1" 2>/dev/null
    dir=$(sed -n 's/^tasks_dir:[ \t]*["\x27]\{0,1\}\([^"\x27#]*[^"\x27# \t]\).*/\1/p' "$1")
    [[ -n $dir && $dir != /* ]] && dir=$(dirname -- "$1")/$dir
    [[ -n $dir && -d $dir ]] || return 0
    for f in "$dir"/*.yaml; do
        [[ -f $f ]] && f=${f##*/} && printf '%s\n' "${f%.yaml}"
    done
}

# Print the time zone names: the zone files under $TZDIR or
# /usr/share/zoneinfo whose names start with a capital letter (which
# leaves out posix/, right/ and the tables beside the zone files).
_lockrun_zones()
{
    local dir=${TZDIR:-/usr/share/zoneinfo}
    [[ -d $dir ]] || return 0
    (cd -- "$dir" && find . \( -type f -o -type l \) 2>/dev/null) |
        sed -n 's|^\./||; /^[A-Z]/p'
}

# Complete the argument of option $1, typed so far as $cur, whose first
# ${#2} characters ($2) are the option itself ("--log=", "-t" or empty).
_lockrun_argument()
{
    local opt=$1 pre=$2 val=${cur#"$2"} c
    local -a cands=()
    case $opt in
    -c | --config | --crontab | --system-crontab | --password-file)
        compopt -o filenames 2>/dev/null
        mapfile -t cands < <(compgen -f -- "$val")
        ;;
    -C | --cwd)
        compopt -o filenames 2>/dev/null
        mapfile -t cands < <(compgen -d -- "$val")
        ;;
    -t | --task) mapfile -t cands < <(_lockrun_tasks "$(_lockrun_config)") ;;
    --on-lost) cands=(term ignore) ;;
    --concurrency) cands=(allow forbid replace) ;;
    --kill-mode) cands=(tree process) ;;
    --on-server-error | --on-redis-error) cands=(fail run) ;;
    --format) cands=(text json prometheus) ;;
    --timezone) mapfile -t cands < <(_lockrun_zones) ;;
    --schedule)
        cands=(@hourly @daily @midnight @weekly @monthly @yearly @annually)
        ;;
    --log)
        if [[ $val == json:* ]]; then
            compopt -o filenames 2>/dev/null
            mapfile -t cands < <(compgen -f -- "${val#json:}")
            cands=("${cands[@]/#/json:}")
        else
            cands=(stderr syslog json json:)
            [[ $val == j* ]] && compopt -o nospace 2>/dev/null
        fi
        ;;
    --url | --redis)
        cands=(redis:// rediss:// unix:// redis+sentinel:// redis+cluster://
            postgres:// postgresql:// mysql:// mariadb://)
        compopt -o nospace 2>/dev/null
        ;;
    -e | --env)
        mapfile -t cands < <(compgen -e -- "$val")
        cands=("${cands[@]/%/=}")
        compopt -o nospace 2>/dev/null
        ;;
    --ttl | --every | --connect-timeout | --command-timeout | --kill-after | \
        --wait | --timeout | --min-hold | --retry-delay | --slot-tolerance | --clock-tolerance | --wait-timeout | \
        --history-ttl | --stale-after)
        # a number typed: its units; else a few durations as examples
        if [[ $val =~ ^[0-9]+$ ]]; then
            cands=("$val"ms "$val"s "$val"m "$val"h "$val"d)
        else
            cands=(500ms 2s 30s 1m 10m 1h 1d)
        fi
        ;;
    *) return ;; # free text or a number: -k -E --prefix --host -n ...
    esac
    _lockrun_reply "${cands[@]/#/$pre}"
}

_lockrun()
{
    local cur cword
    local -a words first
    _lockrun_words

    # Read the words before the cursor as lockrun does: options (and
    # their arguments) up to the first other word, which is the verb, or
    # a run's command; "--" says a command follows. After status,
    # history and unlock, words are task names, options may follow them,
    # and after "--" only names follow.
    local i w verb= cmd=0 names=0 argopt=
    for ((i = 1; i < cword; i++)); do
        w=${words[i]}
        if ((names)); then
            continue
        elif [[ $w == -- ]]; then
            case $verb in
            '' | run | check) cmd=$((i + 1)) && break ;;
            *) names=1 ;;
            esac
        elif [[ $w == -?* ]]; then
            _lockrun_takes_arg "$w" || continue
            ((++i == cword)) && argopt=$w
        elif [[ -z $verb && " $_lockrun_verbs " == *" $w "* ]]; then
            verb=$w
        elif [[ -z $verb || $verb == run || $verb == check ]]; then
            cmd=$i && break
        fi
    done

    COMPREPLY=()
    if ((cmd > 0 && cmd == cword)); then
        _lockrun_reply_of compgen -c -- "$cur"
    elif ((cmd > 0)) && declare -F _command_offset >/dev/null; then
        _command_offset "${first[cmd]}"
    elif ((cmd > 0)); then
        compopt -o filenames 2>/dev/null
        _lockrun_reply_of compgen -f -- "$cur"
    elif [[ -n $argopt ]]; then
        # the last letter of a cluster is the option: "-vt" is -t
        [[ $argopt == --* ]] || argopt=-${argopt: -1}
        _lockrun_argument "$argopt" ""
    elif ((!names)) && [[ $cur == --*=* ]]; then
        _lockrun_argument "${cur%%=*}" "${cur%%=*}="
    elif ((!names)) && [[ $cur == -[!-]* ]] && _lockrun_short_pre "$cur"; then
        :
    elif ((!names)) && [[ $cur == -* ]]; then
        _lockrun_reply_of _lockrun_options "$verb"
    elif [[ -z $verb ]]; then
        # the verbs; if none starts so, a run's command
        _lockrun_reply $_lockrun_verbs
        ((${#COMPREPLY[@]})) || _lockrun_reply_of compgen -c -- "$cur"
    elif [[ $verb == run || $verb == check ]]; then
        _lockrun_reply_of compgen -c -- "$cur"
    elif [[ " status history logs unlock pause resume trigger " == *" $verb "* ]]; then
        _lockrun_reply_of _lockrun_tasks "$(_lockrun_config)"
    elif [[ $verb == import-crontab ]]; then
        compopt -o filenames 2>/dev/null
        _lockrun_reply_of compgen -f -- "$cur"
    fi
}

# A short option with its argument attached ("-tdep", "-vtdep"): complete
# that argument and succeed; otherwise fail (a cluster of flags, "-t").
_lockrun_short_pre()
{
    local i
    for ((i = 1; i < ${#1} - 1; i++)); do
        [[ $_lockrun_short_arg == *"${1:i:1}"* ]] || continue
        _lockrun_argument "-${1:i:1}" "${1:0:i+1}"
        return 0
    done
    return 1
}

complete -F _lockrun lockrun
