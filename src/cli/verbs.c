/* SPDX-License-Identifier: BSD-2-Clause */
/* verbs.c -- the table of verbs (verbs.h). */
#include "cli/verbs.h"

#define ALL_RUN		(OG_ALL | OG_RUN | OG_HISTORY)

static const char run_usage[] =
"usage: lockrun [run] [options] -t task [-- command [arg ...]]\n"
"       lockrun [run] [options] [-k key] [--] command [arg ...]\n"
"       lockrun check [options] [-t task | -- command [arg ...]]\n"
"       lockrun status [options] [task ...]\n"
"       lockrun history [options] task\n"
"       lockrun unlock [options] task|key\n"
"       lockrun tick [options]\n"
"       lockrun cron [options]\n"
"       lockrun pause [options] task ...\n"
"       lockrun resume [options] task ...\n"
"       lockrun trigger [options] task\n"
"       lockrun logs [options] task\n"
"       lockrun import-crontab [options] file ...\n"
"\n"
"Run a command at most once at a time (--no-overlap) and/or once per\n"
"scheduled slot (--one-server) across all servers sharing one Redis: a run\n"
"with a schedule has both (unless --no-one-server, --overlap), one without\n"
"--no-overlap.\n"
"`lockrun check` validates, prints the keys, slot and fire times a run would\n"
"use, and reaches Redis, without taking a lock. `lockrun VERB --help` shows\n"
"the options of status, history and unlock. To run a program called like a\n"
"verb: lockrun -- status, or lockrun run status.\n"
"\n";

static const char run_footer[] =
"\n"
"Durations: 500ms, 90s, 10m, 1h30m, or plain seconds.\n"
"Exit: the command's status (128+N if killed by signal N); the conflict\n"
"status when skipped; 124 --timeout; 64 usage, 69 Redis unavailable,\n"
"70 internal error, 71 fork, signalfd or memory failed or the guard was\n"
"killed, 73 log file cannot be opened, 74 output cannot be written,\n"
"78 bad config, 126/127 command not executable/found.\n";

const struct lr_verb_def lr_verbs[] = {
	[VERB_RUN] = { "run", verb_run, run_usage, run_footer, ALL_RUN, 1, READS_TASK, "" },
	[VERB_CHECK] = { "check", verb_check, run_usage, run_footer, ALL_RUN, 1, READS_ALL,
	    "" },
	[VERB_STATUS] = { "status", verb_status,
"usage: lockrun status [options] [task ...]\n"
"\n"
"For each task of the config (or each task named, or with no config or\n"
"none in it each lock under the prefix): held or free, the holder (host,\n"
"pid, since, TTL left, token), the last run and how it ended, and the\n"
"next fire time.\n"
"\n",
"\nExit: 0 all listed locks free or healthy; 1 a lock held longer than\n"
"--stale-after; 64 usage; 69 Redis unavailable; 78 bad config.\n",
	    OG_ALL | OG_JSON | OG_STATUS, 0, READS_NAMES, "status" },
	[VERB_HISTORY] = { "history", verb_history,
"usage: lockrun history [options] task\n"
"\n"
"The task's last decisions across all servers, newest first: time, host,\n"
"pid, event (ran, skipped-held, skipped-slot, skipped-condition, lost,\n"
"stopped-timeout, released, killed, unlocked), slot, token, exit status,\n"
"duration.\n"
"\n",
"\nExit: 0 shown (also when empty); 64 usage; 69 Redis unavailable;\n"
"78 bad config.\n",
	    OG_ALL | OG_COUNT | OG_JSON, 0, READS_NONE, "history" },
	[VERB_UNLOCK] = { "unlock", verb_unlock,
"usage: lockrun unlock [options] task|key\n"
"\n"
"Show who holds the task's lock (or the key given in full), then free it.\n"
"The holder finds its lock lost at its next renewal and stops its command.\n"
"Recorded in the task's history.\n"
"\n",
"\nExit: 0 freed, or it was free; 1 not confirmed; 64 usage; 69 Redis\n"
"unavailable; 78 bad config.\n",
	    OG_ALL | OG_YES | OG_HISTORY, 0, READS_TARGET, "unlock" },
	[VERB_TICK] = { "tick", verb_tick,
"usage: lockrun tick [options]\n"
"\n"
"Start every task of the config whose schedule fires this minute, each as\n"
"`lockrun -t NAME` (one-server and no-overlap unless the task says), all at\n"
"once; wait for them. For a crontab line: * * * * * lockrun tick\n"
"It runs minute schedules only: a task whose fire times are under a minute\n"
"apart or off the minute (every: 10s, a 6-field schedule) is not started,\n"
"with a warning; `lockrun cron` runs those.\n"
"\n",
"\nExit: 0 every due task ran with status 0 or was skipped; else the\n"
"status of the first that failed; 64 usage; 78 bad config.\n",
	    OG_ALL, 0, READS_ALL, "tick" },
	[VERB_CRON] = { "cron", verb_cron,
"usage: lockrun cron [options]\n"
"\n"
"Stay in the foreground and start each task of the config at its schedule's\n"
"fire times (schedule:, to the second with six fields, or every:), each\n"
"as `lockrun -t NAME`; its output is prefixed with its name. SIGHUP reads\n"
"the config again; SIGTERM stops the tasks and exits 0.\n"
"\n",
"\nExit: 0 stopped by SIGTERM or SIGINT; 64 usage; 69 cannot listen; 71 cannot run;\n"
"78 bad config.\n",
	    OG_ALL | OG_LISTEN, 0, READS_ALL, "cron" },
	[VERB_PAUSE] = { "pause", verb_pause,
"usage: lockrun pause [options] task ...\n"
"\n"
"Pause the tasks on every server: each run, from a crontab line, tick or\n"
"cron, skips them (its conflict status) with a line naming who paused them,\n"
"when, until when and why, until `lockrun resume` or the end given. A copy\n"
"running now goes on: `lockrun unlock` stops it. Recorded in the history.\n"
"\n",
"\nExit: 0 paused; 64 usage; 69 server unavailable; 78 bad config.\n",
	    OG_ALL | OG_HISTORY | OG_PAUSE, 0, READS_NAMES, "pause" },
	[VERB_RESUME] = { "resume", verb_resume,
"usage: lockrun resume [options] task ...\n"
"\n"
"Lift the tasks' pause (lockrun pause) on every server. Recorded in the\n"
"history.\n"
"\n",
"\nExit: 0 resumed, or it was not paused; 64 usage; 69 server unavailable;\n"
"78 bad config.\n",
	    OG_ALL | OG_HISTORY, 0, READS_NAMES, "resume" },
	[VERB_TRIGGER] = { "trigger", verb_trigger,
"usage: lockrun trigger [options] task\n"
"\n"
"Run the task once now, under its no-overlap lock, without claiming or\n"
"using up a slot: on the first server whose `lockrun cron` looks (within\n"
"seconds), or with --here on this host, in the foreground. Recorded as\n"
"triggered in the history.\n"
"\n",
"\nExit: 0 asked (--here: the command's status, or the conflict status\n"
"when held or paused); 64 usage; 69 server unavailable; 78 bad config.\n",
	    OG_ALL | OG_HISTORY | OG_TRIGGER, 0, READS_TARGET, "trigger" },
	[VERB_LOGS] = { "logs", verb_logs,
"usage: lockrun logs [options] task\n"
"\n"
"The task's last run, wherever it ran: a header (run id, host, slot,\n"
"attempt, end, duration, status, reason), then the end of its output, each\n"
"line marked out| or err|. With -n N the headers of the last N runs kept.\n"
"\n",
"\nExit: 0 shown; 1 no such run kept; 64 usage; 69 server unavailable;\n"
"78 bad config.\n",
	    OG_ALL | OG_COUNT | OG_JSON | OG_LOGS, 0, READS_NONE, "logs" },
	[VERB_IMPORT_CRONTAB] = { "import-crontab", verb_import_crontab,
"usage: lockrun import-crontab [options] file ...\n"
"\n"
"Print the crontab files' job lines as the tasks: of a config, read as\n"
"`lockrun cron --crontab` reads them: the same names, schedules, zones,\n"
"environment and settings. A file in /etc/cron.d, or /etc/crontab, has a\n"
"user field. A line that cannot run is said and left out.\n"
"\n",
"\nExit: 0 every line imported; 1 a line left out; 64 usage; 78 a file\n"
"cannot be read or is not trusted.\n",
	    OG_ALL, 0, READS_NONE, "import-crontab" },
};

/* A row for every verb up to the last (make lint checks each has its
 * row, tests/lint/verbs.sh). */
_Static_assert(sizeof(lr_verbs) / sizeof(lr_verbs[0]) == NVERBS, "a row per verb");
