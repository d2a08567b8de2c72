#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# exits.sh -- one way out: a module returns its status (and a struct
# lr_err) up to main(), which leaves. exit() and _exit() are called only
# from main.c and from a process forked to exec or to be something else,
# which has no main() to return to:
#   proc/spawn.c      the command's child, when exec fails
#   proc/guard.c      the guard process
#   sched/starter.c   a scheduler's run, forked to go on as lockrun -t NAME
#   cli/mail.c        the mailer's child, when exec fails
# Prints each other call; exits 1 if any.
cd "$(dirname "$0")/../../src" || exit 2
allowed="cli/main.c proc/spawn.c proc/guard.c sched/starter.c cli/mail.c"
found=$(find . -name '*.c' | sed 's|^\./||' | sort | while read -r f; do
	case " $allowed " in *" $f "*) continue ;; esac
	# calls, not words in comments ("exit()" in prose) nor report_exit()
	grep -n '\(^\|[^A-Za-z0-9_]\)_\{0,1\}exit *(' "$f" |
		grep -v '^[0-9]*:[[:space:]]*\(/\*\|\*\)' | sed "s|^|$f:|"
done)
[ -z "$found" ] && exit 0
echo "exits: exit() outside main.c and the forked paths (return the status to main()):"
echo "$found" | sed 's/^/  /'
exit 1
