/* SPDX-License-Identifier: BSD-2-Clause */
/* usage.c -- the usage text of each verb (--help): the man page's SYNOPSIS
 * and each option's one line, per verb. */
#include <stdio.h>

#include "cli/cli.h"

/* Options every verb takes. */
static const char common_usage[] =
"  -c, --config FILE        config file (default: $LOCKRUN_CONFIG, else\n"
"                           /etc/lockrun/lockrun.yaml if it exists)\n"
"      --url URL            where the lock lives: redis://[user[:password]@]host\n"
"                           [:port][/db], unix://[user@]/path[?db=N], rediss://,\n"
"                           redis+sentinel://, redis+cluster://,\n"
"                           postgres://[user@]host[:port]/db (postgresql://),\n"
"                           mysql://[user@]host[:port]/db (mariadb://) (default\n"
"                           $LOCKRUN_URL, $LOCKRUN_REDIS_URL, the config,\n"
"                           redis://127.0.0.1:6379/0); --redis URL is the same\n"
"      --password-file FILE read the server's password from FILE\n"
"      --connect-timeout DURATION, --command-timeout DURATION  (default 2s)\n"
"      --prefix STR         key prefix (default \"lockrun:\")\n"
"      --host NAME          the name recorded for this host (default: the\n"
"                           node name, uname -n)\n"
"      --log stderr|syslog|json[:FILE]  where lockrun's messages go\n"
"                           (default stderr; syslog and json get every\n"
"                           line, -v and -q apply to stderr's)\n"
"  -v, --verbose            say what was decided, also when skipping\n"
"  -q, --quiet              no warnings, only errors\n"
"  -h, --help               show this help\n"
"  -V, --version            show the version\n";

static void
usage_status(FILE *fp)
{
	fputs(
"usage: lockrun status [options] [task ...]\n"
"\n"
"For each task of the config (or each task named, or with no config each\n"
"lock under the prefix): held or free, the holder (host, pid, since, TTL\n"
"left, token), the last run and how it ended.\n"
"\n"
"      --json               one JSON object per task, one per line\n"
"      --format text|json|prometheus  prometheus: the text exposition\n"
"                           format, for node_exporter's textfile collector\n"
"      --stale-after DURATION  exit 1 when a lock has been held this long\n"
"      --html FILE          also write the status page (what cron --listen\n"
"                           serves at /) to FILE\n"
"\n", fp);
	fputs(common_usage, fp);
	fputs("\nExit: 0 all listed locks free or healthy; 1 a lock held longer than\n"
"--stale-after; 64 usage; 69 Redis unavailable; 78 bad config.\n", fp);
}

static void
usage_history(FILE *fp)
{
	fputs(
"usage: lockrun history [options] task\n"
"\n"
"The task's last decisions across all servers, newest first: time, host,\n"
"pid, event (ran, skipped-held, skipped-slot, lost, stopped-timeout,\n"
"released, killed, unlocked), slot, token, exit status, duration.\n"
"\n"
"  -n, --count N            show the last N (default 20)\n"
"      --json               one JSON object per entry, one per line\n"
"\n", fp);
	fputs(common_usage, fp);
	fputs("\nExit: 0 shown (also when empty); 64 usage; 69 Redis unavailable;\n"
"78 bad config.\n", fp);
}

static void
usage_unlock(FILE *fp)
{
	fputs(
"usage: lockrun unlock [options] task|key\n"
"\n"
"Show who holds the task's lock (or the key given in full), then free it.\n"
"The holder finds its lock lost at its next renewal and stops its command.\n"
"Recorded in the task's history.\n"
"\n"
"      --yes                free it without asking (needed without a terminal)\n"
"\n", fp);
	fputs(common_usage, fp);
	fputs("\nExit: 0 freed, or it was free; 1 not confirmed; 64 usage; 69 Redis\n"
"unavailable; 78 bad config.\n", fp);
}

static void
usage_sched(FILE *fp, enum lr_verb v)
{
	if (v == VERB_TICK)
		fputs(
"usage: lockrun tick [options]\n"
"\n"
"Start every task of the config whose schedule fires this minute, each as\n"
"`lockrun -t NAME` (one-server and no-overlap unless the task says), all at\n"
"once; wait for them. For a crontab line: * * * * * lockrun tick\n"
"It runs minute schedules only: a task whose fire times are under a minute\n"
"apart or off the minute (every: 10s, a 6-field schedule) is not started,\n"
"with a warning; `lockrun cron` runs those.\n"
"\n", fp);
	else
		fputs(
"usage: lockrun cron [options]\n"
"\n"
"Stay in the foreground and start each task of the config at its schedule's\n"
"fire times (schedule:, to the second with six fields, or every:), each\n"
"as `lockrun -t NAME`; its output is prefixed with its name. SIGHUP reads\n"
"the config again; SIGTERM stops the tasks and exits 0.\n"
"\n"
"      --listen ADDR        serve /metrics, /healthz, /readyz and a status\n"
"                           page at / over HTTP on ADDR: [HOST:]PORT (the\n"
"                           loopback address without HOST), [ADDRESS]:PORT\n"
"                           or unix:PATH\n"
"\n", fp);
	fputs(common_usage, fp);
	fputs(v == VERB_TICK ? "\nExit: 0 every due task ran with status 0 or was skipped; else the\n"
"status of the first that failed; 64 usage; 78 bad config.\n" :
"\nExit: 0 stopped by SIGTERM or SIGINT; 64 usage; 69 cannot listen; 71 cannot run;\n"
"78 bad config.\n", fp);
}

void
cli_usage(FILE *fp, enum lr_verb v)
{
	switch (v) {
	case VERB_STATUS: usage_status(fp); return;
	case VERB_HISTORY: usage_history(fp); return;
	case VERB_UNLOCK: usage_unlock(fp); return;
	case VERB_TICK: case VERB_CRON: usage_sched(fp, v); return;
	case VERB_RUN: case VERB_CHECK: case NVERBS: break;
	}
	fputs(
"usage: lockrun [run] [options] -t task [-- command [arg ...]]\n"
"       lockrun [run] [options] [-k key] [--] command [arg ...]\n"
"       lockrun check [options] [-t task | -- command [arg ...]]\n"
"       lockrun status [options] [task ...]\n"
"       lockrun history [options] task\n"
"       lockrun unlock [options] task|key\n"
"       lockrun tick [options]\n"
"       lockrun cron [options]\n"
"\n"
"Run a command at most once at a time (--no-overlap) and/or once per\n"
"scheduled slot (--one-server) across all servers sharing one Redis: a run\n"
"with a schedule has both (unless --no-one-server, --overlap), one without\n"
"--no-overlap.\n"
"`lockrun check` validates, prints the keys, slot and fire times a run would\n"
"use, and reaches Redis, without taking a lock. `lockrun VERB --help` shows\n"
"the options of status, history and unlock. To run a program called like a\n"
"verb: lockrun -- status, or lockrun run status.\n"
"\n"
"  -t, --task NAME          run task NAME from the config file\n"
"  -k, --key NAME           lock name (default: the task name, else derived\n"
"                           from the command line)\n"
"      --no-overlap         skip if a copy is still running anywhere\n"
"      --overlap            not that: copies may run at the same time\n"
"      --one-server         skip if this slot already ran anywhere\n"
"      --no-one-server      not that: claim no slot\n"
"      --schedule 'EXPR'    the cron schedule that starts this run: its fire\n"
"                           times are the --one-server slots (5 fields, or\n"
"                           @hourly, @daily, ...)\n"
"      --timezone ZONE      read the schedule in ZONE (default: local time)\n"
"      --every DURATION     fixed slots instead of a schedule (default 1m)\n"
"      --slot-tolerance DURATION  a start this much before a fire time\n"
"                           belongs to it (default 5s)\n"
"      --clock-tolerance DURATION  claim no slot when this host's clock and\n"
"                           the lock server's differ by more (default 3\n"
"                           times the slot tolerance; 0: no check)\n"
"      --ttl DURATION       lease of the no-overlap lock, renewed every ttl/3\n"
"                           while the command runs (default 30s)\n"
"      --no-renew           a fixed TTL: no renewal\n"
"      --on-lost term|ignore  when the lock is lost or Redis stops confirming\n"
"                           it: stop the command in time (default) or log\n"
"      --kill-after DURATION  SIGTERM to SIGKILL when stopping the command\n"
"                           (default and limit: the smaller of 10s, ttl/3)\n"
"      --kill-mode tree|process  hold the lock until the command's whole\n"
"                           process tree is gone, and stop all of it (default);\n"
"                           or wait for and signal its main process only\n"
"      --wait DURATION      wait this long for a held lock (default: skip)\n"
"      --timeout DURATION   stop the command after this long; exit 124\n"
"      --min-hold DURATION  keep the lock at least this long after taking it\n"
"  -E, --conflict-exit N    exit status when skipped (default 0)\n"
"      --on-redis-error fail|run  when Redis cannot be reached (default fail)\n"
"      --wait-replicas N    after taking or renewing the lock, WAIT until N\n"
"                           replicas have it; fewer: the lock is not trusted\n"
"                           (default 0: do not wait)\n"
"      --wait-timeout DURATION  how long WAIT may take (default 100ms)\n"
"      --history N          keep the task's last N decisions in Redis\n"
"                           (default 100; 0: no history)\n"
"      --history-ttl DURATION  drop the history this long after its last\n"
"                           write (default 35d)\n"
"  -C, --cwd DIR            run the command in DIR\n"
"  -e, --env NAME=VALUE     add to the command's environment (repeatable)\n"
"      --shell              run the command string with /bin/sh -c\n"
"      --foreground         keep the command in lockrun's process group, so\n"
"                           it can read the terminal and gets its signals\n"
"\n", fp);
	fputs(common_usage, fp);
	fputs("\n"
"Durations: 500ms, 90s, 10m, 1h30m, or plain seconds.\n"
"Exit: the command's status (128+N if killed by signal N); the conflict\n"
"status when skipped; 124 --timeout; 64 usage, 69 Redis unavailable,\n"
"70 internal error, 71 fork, signalfd or memory failed or the guard was\n"
"killed, 73 log file cannot be opened, 74 output cannot be written,\n"
"78 bad config, 126/127 command not executable/found.\n",
	    fp);
}
