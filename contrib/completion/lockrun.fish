# SPDX-License-Identifier: BSD-2-Clause
# fish completion for lockrun(1): verbs, options and their arguments, task names.
#
# Installed as /usr/share/fish/vendor_completions.d/lockrun.fish, or put in
# ~/.config/fish/completions/.

# Does option token $argv[1] take the next token as its argument? A
# cluster of short options ("-vt") does when its first option with an
# argument is its last letter (getopt's "c:t:k:E:C:e:n:").
function __lockrun_takes_arg
    switch $argv[1]
        case '--*=*' --
            return 1
        case --config --crontab --system-crontab --url --redis --password-file --connect-timeout \
            --command-timeout --prefix --host --log --task --key --ttl --every \
            --conflict-exit --wait-replicas --wait-timeout --on-server-error --on-redis-error --cwd \
            --env --on-lost --kill-mode --kill-after --wait --timeout --min-hold --retries --retry-delay \
            --keep-output --keep-runs --keep-failed-runs \
            --schedule --timezone --slot-tolerance --clock-tolerance --history --history-ttl \
            --between --not-between --concurrency \
            --format --stale-after --count --listen --html --for --until --reason --run --slot
            return 0
        case '--*'
            return 1
    end
    set -l letters (string split '' -- (string sub -s 2 -- $argv[1]))
    for i in (seq (count $letters))
        if string match -q -- "*$letters[$i]*" ctkECen
            test $i -eq (count $letters)
            return
        end
    end
    return 1
end

# Print where the cursor stands, read from the tokens before it as lockrun
# reads them: the verb ("-" before one is typed), then "arg" on an
# option's argument, "command N" in a run's command starting at token N,
# "names" after "--" of status, history and unlock, else "options".
function __lockrun_state
    set -l toks (commandline -opc)
    set -l verb -
    set -l i 2
    while test $i -le (count $toks)
        set -l w $toks[$i]
        if test "$w" = --
            if contains -- $verb - run check
                echo $verb command (math $i + 1)
            else
                echo $verb names
            end
            return
        else if string match -q -- '-?*' $w
            if __lockrun_takes_arg $w
                set i (math $i + 1)
                if test $i -gt (count $toks)
                    echo $verb arg
                    return
                end
            end
        else if test $verb = -; and contains -- $w run check status history logs unlock tick \
                cron pause resume trigger import-crontab
            set verb $w
        else if contains -- $verb - run check
            echo $verb command $i
            return
        end
        set i (math $i + 1)
    end
    echo $verb options
end

# Is the verb one of $argv ("-" for none yet), with options possible here?
function __lockrun_verb
    set -l s (__lockrun_state)
    string match -q -- '* options' $s; or string match -q -- '* arg' $s; or return
    contains -- (string split ' ' -- $s)[1] $argv
end

# Is the cursor where a verb may come (before any verb or command)?
function __lockrun_at_verb
    test (__lockrun_state) = '- options'
end

# Is the cursor on a task name (a word of status, history, unlock, pause,
# resume or trigger)?
function __lockrun_at_task
    set -l s (string split ' ' -- (__lockrun_state))
    contains -- $s[1] status history logs unlock pause resume trigger; and test $s[2] != arg
end

# Is the cursor in a run's command?
function __lockrun_in_command
    string match -q -- '* command *' (__lockrun_state)
end

# Complete the command and its arguments with that command's completion.
function __lockrun_complete_command
    set -l n (string split ' ' -- (__lockrun_state))[3]
    set -l toks (commandline -opc)
    set -l cmd (string escape -- $toks[$n..-1]) (commandline -ct)
    complete --do-complete=(string join ' ' -- $cmd)
end

# The verbs; if none starts as the word typed, the commands.
function __lockrun_verbs_or_commands
    set -l cur (commandline -ct)
    string match -q -- '-*' $cur; and return
    set -l verbs run\t'run a command under the lock (the default)' \
        check\t'validate, print keys and fire times, reach the server' \
        status\t'held or free, the holder and the last run' \
        history\t'the last decisions of a task' \
        logs\t"a run's output and why it ended" \
        unlock\t'free a task\'s lock' \
        tick\t'start every task whose slot is due now' \
        cron\t'a foreground scheduler for the config\'s tasks' \
        pause\t'skip tasks on every server until resumed or an end' \
        resume\t'lift the pause of tasks' \
        trigger\t'one run of a task now, without using a slot' \
        import-crontab\t'print crontab files as the tasks of a config'
    set -l match (string match -- "$cur*" $verbs)
    if set -q match[1]
        printf '%s\n' $match
    else
        complete --do-complete="$cur"
    end
end

# Print the task names in the config the line names with -c or --config,
# else $LOCKRUN_CONFIG, else the default path: the keys one level below
# the top-level "tasks:" line, then the NAME of each NAME.yaml in its
# tasks_dir. The same light reading as the bash completion's, without
# lockrun, so that TAB never waits for a server.
function __lockrun_tasks
    set -l cfg /etc/lockrun/lockrun.yaml
    set -q LOCKRUN_CONFIG; and set cfg $LOCKRUN_CONFIG
    set -l toks (commandline -opc)
    for i in (seq 2 (count $toks))
        switch $toks[$i]
            case --
                break
            case -c --config
                set -q toks[(math $i + 1)]; and set cfg $toks[(math $i + 1)]
            case '--config=*'
                set cfg (string replace -- --config= '' $toks[$i])
            case '-c?*'
                set cfg (string sub -s 3 -- $toks[$i])
        end
    end
    set cfg (string replace -r -- '^~/' "$HOME/" $cfg)
    test -r "$cfg"; or return 0
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
        }' $cfg 2>/dev/null
    set -l dir (sed -n 's/^tasks_dir:[ \t]*["\x27]\{0,1\}\([^"\x27#]*[^"\x27# \t]\).*/\1/p' $cfg)
    test -n "$dir"; or return 0
    string match -q -- '/*' $dir; or set dir (dirname -- $cfg)/$dir
    for f in $dir/*.yaml
        test -f $f; and basename -- $f .yaml
    end
end

# A duration: after a number, its units; else a few examples.
function __lockrun_durations
    set -l cur (commandline -ct | string replace -r -- '^--[^=]*=' '')
    if string match -qr -- '^[0-9]+$' $cur
        printf '%s\n' $cur{ms,s,m,h,d}
    else
        printf '%s\n' 500ms 2s 30s 1m 10m 1h 1d
    end
end

# The zone files under $TZDIR or /usr/share/zoneinfo whose names start
# with a capital letter (not posix/, right/ or the tables beside them).
function __lockrun_zones
    set -l dir /usr/share/zoneinfo
    set -q TZDIR; and test -n "$TZDIR"; and set dir $TZDIR
    test -d $dir; or return 0
    find $dir \( -type f -o -type l \) 2>/dev/null | string replace -- "$dir/" '' |
        string match -r -- '^[A-Z].*'
end

# --log's destinations; after "json:", a file.
function __lockrun_logs
    set -l cur (commandline -ct | string replace -r -- '^--log=' '')
    if string match -q -- 'json:*' $cur
        __fish_complete_path (string sub -s 6 -- $cur) | string replace -r -- '^' json:
    else
        printf '%s\n' stderr syslog json json:
    end
end

complete -c lockrun -f

# the verbs, and after "--" or a run's command, that command's completion
complete -c lockrun -n __lockrun_at_verb -a '(__lockrun_verbs_or_commands)'
complete -c lockrun -n __lockrun_in_command -a '(__lockrun_complete_command)'
complete -c lockrun -n __lockrun_at_task -a '(__lockrun_tasks)' -d task

# every verb
set -l all '__lockrun_verb - run check status history logs unlock tick cron pause resume trigger import-crontab'
complete -c lockrun -n $all -s h -l help -d 'show the help'
complete -c lockrun -n $all -s V -l version -d 'show the version'
complete -c lockrun -n $all -s c -l config -r -F -d 'config file'
complete -c lockrun -n $all -l url -l redis -x -d 'where the lock lives' \
    -a 'redis:// rediss:// unix:// redis+sentinel:// redis+cluster:// postgres:// postgresql:// mysql:// mariadb://'
complete -c lockrun -n $all -l crontab -r -F -d 'also read the crontab FILE, each job line a task'
complete -c lockrun -n $all -l system-crontab -r -F -d 'the same, in the /etc/crontab form'
complete -c lockrun -n $all -l password-file -r -F -d "read the server's password from FILE"
complete -c lockrun -n $all -l connect-timeout -x -a '(__lockrun_durations)' -d 'time allowed to connect'
complete -c lockrun -n $all -l command-timeout -x -a '(__lockrun_durations)' -d 'time allowed for each reply'
complete -c lockrun -n $all -l prefix -x -d 'key prefix'
complete -c lockrun -n $all -l host -x -a '(__fish_print_hostnames)' -d 'the name recorded for this host'
complete -c lockrun -n $all -l log -x -a '(__lockrun_logs)' -d "where lockrun's messages go"
complete -c lockrun -n $all -s v -l verbose -d 'say what was decided, also when skipping'
complete -c lockrun -n $all -s q -l quiet -d 'no warnings, only errors'

# a run, and check (which validates a run)
set -l run '__lockrun_verb - run check'
complete -c lockrun -n $run -s t -l task -x -a '(__lockrun_tasks)' -d 'run task NAME from the config file'
complete -c lockrun -n $run -s k -l key -x -d 'lock name'
complete -c lockrun -n $run -l no-overlap -d 'skip if a copy is still running anywhere'
complete -c lockrun -n $run -l overlap -d 'let copies run at the same time'
complete -c lockrun -n $run -l one-server -d 'skip if this slot already ran anywhere'
complete -c lockrun -n $run -l concurrency -x -a 'allow forbid replace' -d 'Kubernetes'\''s words for --overlap and --no-overlap'
complete -c lockrun -n $run -l no-one-server -d 'claim no slot'
complete -c lockrun -n $run -l schedule -x -a '@hourly @daily @midnight @weekly @monthly @yearly @annually' -d 'the cron schedule that starts this run'
complete -c lockrun -n $run -l timezone -x -a '(__lockrun_zones)' -d 'read the schedule and --between in ZONE'
complete -c lockrun -n $run -l between -x -d 'run only at these times of day (HH:MM-HH:MM)'
complete -c lockrun -n $run -l not-between -x -d 'never run at these times of day (HH:MM-HH:MM)'
complete -c lockrun -n $run -l every -x -a '(__lockrun_durations)' -d 'fixed slots instead of a schedule'
complete -c lockrun -n $run -l slot-tolerance -x -a '(__lockrun_durations)' -d 'a start this much before a fire time belongs to it'
complete -c lockrun -n $run -l clock-tolerance -x -a '(__lockrun_durations)' -d 'claim no slot when the clocks differ by more'
complete -c lockrun -n $run -l ttl -x -a '(__lockrun_durations)' -d 'lease of the no-overlap lock'
complete -c lockrun -n $run -l no-renew -d 'a fixed TTL: no renewal'
complete -c lockrun -n $run -l on-lost -x -a 'term ignore' -d 'when the lock is lost'
complete -c lockrun -n $run -l kill-after -x -a '(__lockrun_durations)' -d 'SIGTERM to SIGKILL when stopping the command'
complete -c lockrun -n $run -l kill-mode -x -a 'tree process' -d 'what to wait for and stop'
complete -c lockrun -n $run -l wait -x -a '(__lockrun_durations)' -d 'wait this long for a held lock'
complete -c lockrun -n $run -l timeout -x -a '(__lockrun_durations)' -d 'stop the command after this long'
complete -c lockrun -n $run -l min-hold -x -a '(__lockrun_durations)' -d 'keep the lock at least this long'
complete -c lockrun -n $run -l retries -x -d 'run a failed command again up to N times'
complete -c lockrun -n $run -l keep-output -x -d 'keep the last BYTES of the output with its run'
complete -c lockrun -n $run -l keep-runs -x -d 'keep the last N successful runs stories'
complete -c lockrun -n $run -l keep-failed-runs -x -d 'keep the last N failed runs stories'
complete -c lockrun -n $run -l retry-delay -x -a '(__lockrun_durations)' -d 'before the first retry, doubled for each next'
complete -c lockrun -n $run -s E -l conflict-exit -x -d 'exit status when skipped'
complete -c lockrun -n $run -l on-server-error -x -a 'fail run' -d 'when the server cannot be reached'
complete -c lockrun -n $run -l on-redis-error -x -a 'fail run' -d 'when the server cannot be reached (its old name)'
complete -c lockrun -n $run -l wait-replicas -x -d 'WAIT until N replicas have the lock'
complete -c lockrun -n $run -l wait-timeout -x -a '(__lockrun_durations)' -d 'how long WAIT may take'
complete -c lockrun -n $run -s C -l cwd -x -a '(__fish_complete_directories)' -d 'run the command in DIR'
complete -c lockrun -n $run -s e -l env -x -a '(set -xn | string replace -r -- \'$\' =)' -d "add to the command's environment"
complete -c lockrun -n $run -l shell -d 'run the command string with /bin/sh -c'
complete -c lockrun -n $run -l foreground -d "keep the command in lockrun's process group"

# a run, check, unlock, pause, resume and trigger record history
set -l hist '__lockrun_verb - run check unlock pause resume trigger'
complete -c lockrun -n $hist -l history -x -d "keep the task's last N decisions"
complete -c lockrun -n $hist -l history-ttl -x -a '(__lockrun_durations)' -d 'drop the history this long after its last write'

complete -c lockrun -n '__lockrun_verb status history logs' -l json -d 'one JSON object per line'
complete -c lockrun -n '__lockrun_verb status' -l format -x -a 'text json prometheus' -d 'output format'
complete -c lockrun -n '__lockrun_verb status' -l all -d 'also the locks no task of the config names'
complete -c lockrun -n '__lockrun_verb status' -s l -l long -d 'every column, times in UTC'
complete -c lockrun -n '__lockrun_verb status' -l stale-after -x -a '(__lockrun_durations)' -d 'exit 1 when a lock has been held this long'
complete -c lockrun -n '__lockrun_verb status' -l html -r -F -d 'also write the status page to FILE'
complete -c lockrun -n '__lockrun_verb cron' -l listen -x -d 'serve /metrics, /healthz, /readyz and a status page over HTTP'
complete -c lockrun -n '__lockrun_verb history logs' -s n -l count -x -d 'show the last N'
complete -c lockrun -n '__lockrun_verb logs' -l run -x -d "the run with this id (history's RUN)"
complete -c lockrun -n '__lockrun_verb logs' -l slot -x -d 'the run of this slot (2026-11-21T17:45:00Z)'
complete -c lockrun -n '__lockrun_verb logs' -l failed -d 'the last run that failed'
complete -c lockrun -n '__lockrun_verb unlock' -l yes -d 'free it without asking'
complete -c lockrun -n '__lockrun_verb pause' -l for -x -a '(__lockrun_durations)' -d 'the pause lifts itself after DURATION'
complete -c lockrun -n '__lockrun_verb pause' -l until -x -d 'the pause lifts itself at TIME (2026-12-01T06:00Z)'
complete -c lockrun -n '__lockrun_verb pause' -l reason -x -d 'why, for whoever finds it paused'
complete -c lockrun -n '__lockrun_verb trigger' -l here -d 'run it on this host now, in the foreground'
