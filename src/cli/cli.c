/* SPDX-License-Identifier: BSD-2-Clause */
/* cli.c -- getopt_long into a struct lr_cli; usage text. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "core/duration.h"
#include "core/keys.h"
#include "core/text.h"
#include "out/log.h"

enum {				/* long-only options */
	OPT_ONE_SERVER = CHAR_MAX + 1,
	OPT_NO_OVERLAP,
	OPT_TTL,
	OPT_EVERY,
	OPT_URL,
	OPT_PASSWORD_FILE,
	OPT_CONNECT_TIMEOUT,
	OPT_COMMAND_TIMEOUT,
	OPT_WAIT_REPLICAS,
	OPT_WAIT_TIMEOUT,
	OPT_PREFIX,
	OPT_ON_REDIS_ERROR,
	OPT_SHELL,
	OPT_FOREGROUND,
	OPT_NO_RENEW,
	OPT_ON_LOST,
	OPT_KILL_MODE,
	OPT_KILL_AFTER,
	OPT_WAIT,
	OPT_TIMEOUT,
	OPT_MIN_HOLD,
	OPT_SCHEDULE,
	OPT_TIMEZONE,
	OPT_SLOT_TOLERANCE,
	OPT_HISTORY,
	OPT_HISTORY_TTL,
	OPT_HOST,
	OPT_LOG,
	OPT_JSON,
	OPT_FORMAT,
	OPT_STALE_AFTER,
	OPT_YES,
};

/* Which verbs take an option. */
#define V(verb)		(1u << (verb))
#define ALL		(V(VERB_RUN) | V(VERB_CHECK) | V(VERB_STATUS) | V(VERB_HISTORY) | \
			    V(VERB_UNLOCK) | V(VERB_TICK) | V(VERB_CRON))
#define RUN		(V(VERB_RUN) | V(VERB_CHECK))	/* check validates a run */

/* The options, and the verbs each applies to (in the same order). */
static const struct {
	struct option	o;
	unsigned	verbs;
} opts[] = {
	{ { "help",		no_argument,		NULL, 'h' }, ALL },
	{ { "version",		no_argument,		NULL, 'V' }, ALL },
	{ { "config",		required_argument,	NULL, 'c' }, ALL },
	{ { "task",		required_argument,	NULL, 't' }, RUN },
	{ { "key",		required_argument,	NULL, 'k' }, RUN },
	{ { "one-server",	no_argument,		NULL, OPT_ONE_SERVER }, RUN },
	{ { "no-overlap",	no_argument,		NULL, OPT_NO_OVERLAP }, RUN },
	{ { "ttl",		required_argument,	NULL, OPT_TTL }, RUN },
	{ { "every",		required_argument,	NULL, OPT_EVERY }, RUN },
	{ { "conflict-exit",	required_argument,	NULL, 'E' }, RUN },
	{ { "url",		required_argument,	NULL, OPT_URL }, ALL },
	{ { "redis",		required_argument,	NULL, OPT_URL }, ALL },
	{ { "password-file",	required_argument,	NULL, OPT_PASSWORD_FILE }, ALL },
	{ { "connect-timeout",	required_argument,	NULL, OPT_CONNECT_TIMEOUT }, ALL },
	{ { "command-timeout",	required_argument,	NULL, OPT_COMMAND_TIMEOUT }, ALL },
	{ { "prefix",		required_argument,	NULL, OPT_PREFIX }, ALL },
	{ { "wait-replicas",	required_argument,	NULL, OPT_WAIT_REPLICAS }, RUN },
	{ { "wait-timeout",	required_argument,	NULL, OPT_WAIT_TIMEOUT }, RUN },
	{ { "on-server-error",	required_argument,	NULL, OPT_ON_REDIS_ERROR }, RUN },
	{ { "on-redis-error",	required_argument,	NULL, OPT_ON_REDIS_ERROR }, RUN },
	{ { "cwd",		required_argument,	NULL, 'C' }, RUN },
	{ { "env",		required_argument,	NULL, 'e' }, RUN },
	{ { "shell",		no_argument,		NULL, OPT_SHELL }, RUN },
	{ { "foreground",	no_argument,		NULL, OPT_FOREGROUND }, RUN },
	{ { "no-renew",		no_argument,		NULL, OPT_NO_RENEW }, RUN },
	{ { "on-lost",		required_argument,	NULL, OPT_ON_LOST }, RUN },
	{ { "kill-mode",	required_argument,	NULL, OPT_KILL_MODE }, RUN },
	{ { "kill-after",	required_argument,	NULL, OPT_KILL_AFTER }, RUN },
	{ { "wait",		required_argument,	NULL, OPT_WAIT }, RUN },
	{ { "timeout",		required_argument,	NULL, OPT_TIMEOUT }, RUN },
	{ { "min-hold",		required_argument,	NULL, OPT_MIN_HOLD }, RUN },
	{ { "schedule",		required_argument,	NULL, OPT_SCHEDULE }, RUN },
	{ { "timezone",		required_argument,	NULL, OPT_TIMEZONE }, RUN },
	{ { "slot-tolerance",	required_argument,	NULL, OPT_SLOT_TOLERANCE }, RUN },
	{ { "history",		required_argument,	NULL, OPT_HISTORY }, RUN | V(VERB_UNLOCK) },
	{ { "history-ttl",	required_argument,	NULL, OPT_HISTORY_TTL },
	    RUN | V(VERB_UNLOCK) },
	{ { "host",		required_argument,	NULL, OPT_HOST }, ALL },
	{ { "log",		required_argument,	NULL, OPT_LOG }, ALL },
	{ { "json",		no_argument,		NULL, OPT_JSON },
	    V(VERB_STATUS) | V(VERB_HISTORY) },
	{ { "format",		required_argument,	NULL, OPT_FORMAT }, V(VERB_STATUS) },
	{ { "stale-after",	required_argument,	NULL, OPT_STALE_AFTER }, V(VERB_STATUS) },
	{ { "count",		required_argument,	NULL, 'n' }, V(VERB_HISTORY) },
	{ { "yes",		no_argument,		NULL, OPT_YES }, V(VERB_UNLOCK) },
	{ { "verbose",		no_argument,		NULL, 'v' }, ALL },
	{ { "quiet",		no_argument,		NULL, 'q' }, ALL },
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static const char *const verb_names[NVERBS] = {
	[VERB_RUN] = "run", [VERB_CHECK] = "check", [VERB_STATUS] = "status",
	[VERB_HISTORY] = "history", [VERB_UNLOCK] = "unlock", [VERB_TICK] = "tick",
	[VERB_CRON] = "cron",
};

const char *
cli_verb_name(enum lr_verb v)
{
	return verb_names[v];
}

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
"\n", fp);
	fputs(common_usage, fp);
	fputs(v == VERB_TICK ? "\nExit: 0 every due task ran with status 0 or was skipped; else the\n"
"status of the first that failed; 64 usage; 78 bad config.\n" :
"\nExit: 0 stopped by SIGTERM or SIGINT; 64 usage; 71 cannot run; 78 bad config.\n", fp);
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
"Run a command at most once at a time (--no-overlap, the default) and/or once\n"
"per scheduled slot (--one-server) across all servers sharing one Redis.\n"
"`lockrun check` validates, prints the keys, slot and fire times a run would\n"
"use, and reaches Redis, without taking a lock. `lockrun VERB --help` shows\n"
"the options of status, history and unlock. To run a program called like a\n"
"verb: lockrun -- status, or lockrun run status.\n"
"\n"
"  -t, --task NAME          run task NAME from the config file\n"
"  -k, --key NAME           lock name (default: the task name, else derived\n"
"                           from the command line)\n"
"      --no-overlap         skip if a copy is still running anywhere\n"
"      --one-server         skip if this slot already ran anywhere\n"
"      --schedule 'EXPR'    the cron schedule that starts this run: its fire\n"
"                           times are the --one-server slots (5 fields, or\n"
"                           @hourly, @daily, ...)\n"
"      --timezone ZONE      read the schedule in ZONE (default: local time)\n"
"      --every DURATION     fixed slots instead of a schedule (default 1m)\n"
"      --slot-tolerance DURATION  a start this much before a fire time\n"
"                           belongs to it (default 5s)\n"
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
"      --on-server-error fail|run  when the server cannot be reached (default\n"
"                           fail); --on-redis-error is its old name\n"
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

/* Set the task option called name from the argument of --opt. */
static int
set_opt(struct lr_cli *c, const char *opt, const char *name, const char *arg,
    struct lr_err *e)
{
	struct lr_err te;

	if (task_set(&c->o, name, arg, &te) < 0)
		return lr_errf(e, EX_USAGE, "%s: %s", opt, te.msg);
	return 0;
}

static int
set_timeout(const char *opt, const char *arg, long long *dst, struct lr_err *e)
{
	if (duration_parse(arg, dst) != 0 || *dst <= 0)
		return lr_errf(e, EX_USAGE, "%s: \"%s\" is not a positive duration "
		    "(e.g. 500ms, 90s, 10m, 1h30m)", opt, arg);
	return 0;
}

/* A setting one backend alone reads (backend.h), for the URL's backend. */
static int
set_own(struct lr_cli *c, const char *opt, const char *key, const char *arg,
    struct lr_err *e)
{
	struct lr_err te;

	if (backend_setting(NULL, key, arg, &te) < 0)
		return lr_errf(e, EX_USAGE, "%s: %s", opt, te.msg);
	return settings_add(&c->server.own, NULL, key, arg, NULL, opt, EX_USAGE, e);
}

static int
add_env(struct lr_cli *c, const char *arg, struct lr_err *e)
{
	const char *eq = strchr(arg, '=');
	char name[256];
	struct lr_err te;

	if (eq == NULL || (size_t)(eq - arg) >= sizeof(name))
		return lr_errf(e, EX_USAGE, "--env: expected NAME=VALUE, got \"%s\"", arg);
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	if (task_add_env(&c->o, name, eq + 1, &te) != 0)
		return lr_errf(e, EX_USAGE, "--env: %s", te.msg);
	return 0;
}

/* One option; returns 0 or -1. */
static int
apply(struct lr_cli *c, int ch, const char *arg, struct lr_err *e)
{
	const char *why;

	switch (ch) {
	case 'h': c->help = 1; return 0;
	case 'V': c->version = 1; return 0;
	case 'c':		/* "" is not "no -c": it must not fall back */
		if (*arg == '\0')
			return lr_errf(e, EX_USAGE, "-c: empty path");
		c->config = arg;
		return 0;
	case 't':
		if ((why = task_name_problem(arg)) != NULL)
			return lr_errf(e, EX_USAGE, "-t: \"%s\" %s", arg, why);
		c->task = arg;
		return 0;
	case 'k':
		if ((why = key_name_problem(arg)) != NULL)
			return lr_errf(e, EX_USAGE, "--key: \"%s\" %s", arg, why);
		c->key = arg;
		return 0;
	case 'v': c->verbose = 1; return 0;
	case 'q': c->quiet = 1; return 0;
	case 'e': return add_env(c, arg, e);
	case 'C': return set_opt(c, "--cwd", "cwd", arg, e);
	case 'E': return set_opt(c, "--conflict-exit", "conflict_exit", arg, e);
	case OPT_ONE_SERVER: c->o.one_server = 1; return 0;
	case OPT_NO_OVERLAP: c->o.no_overlap = 1; return 0;
	case OPT_SHELL: c->o.shell = 1; return 0;
	case OPT_FOREGROUND: c->foreground = 1; return 0;
	case OPT_TTL: return set_opt(c, "--ttl", "ttl", arg, e);
	case OPT_EVERY: return set_opt(c, "--every", "every", arg, e);
	case OPT_ON_REDIS_ERROR:
		return set_opt(c, "--on-redis-error", "on_redis_error", arg, e);
	case OPT_NO_RENEW: c->o.renew = 0; return 0;
	case OPT_ON_LOST: return set_opt(c, "--on-lost", "on_lost", arg, e);
	case OPT_KILL_MODE: return set_opt(c, "--kill-mode", "kill_mode", arg, e);
	case OPT_KILL_AFTER: return set_opt(c, "--kill-after", "kill_after", arg, e);
	case OPT_WAIT: return set_opt(c, "--wait", "wait", arg, e);
	case OPT_TIMEOUT: return set_opt(c, "--timeout", "timeout", arg, e);
	case OPT_MIN_HOLD: return set_opt(c, "--min-hold", "min_hold", arg, e);
	case OPT_SCHEDULE: return set_opt(c, "--schedule", "schedule", arg, e);
	case OPT_TIMEZONE: return set_opt(c, "--timezone", "timezone", arg, e);
	case OPT_SLOT_TOLERANCE:
		return set_opt(c, "--slot-tolerance", "slot_tolerance", arg, e);
	case OPT_URL: c->server.url = arg; return 0;
	case OPT_PASSWORD_FILE: c->server.password_file = arg; return 0;
	case OPT_CONNECT_TIMEOUT:
		return set_timeout("--connect-timeout", arg, &c->server.connect_timeout_ms, e);
	case OPT_COMMAND_TIMEOUT:
		return set_timeout("--command-timeout", arg, &c->server.command_timeout_ms, e);
	case OPT_WAIT_REPLICAS: return set_own(c, "--wait-replicas", "wait_replicas", arg, e);
	case OPT_WAIT_TIMEOUT: return set_own(c, "--wait-timeout", "wait_timeout", arg, e);
	case OPT_HISTORY: return set_opt(c, "--history", "history", arg, e);
	case OPT_HISTORY_TTL: return set_opt(c, "--history-ttl", "history_ttl", arg, e);
	case OPT_HOST:
		if (*arg == '\0' || strlen(arg) > HOST_MAX || strchr(arg, ' ') ||
		    text_has_control(arg))
			return lr_errf(e, EX_USAGE, "--host: \"%s\" is not a host name (1 to %d "
			    "bytes, no spaces or control characters)", arg, HOST_MAX);
		c->host = arg;
		return 0;
	case OPT_LOG:
		if ((why = log_spec_problem(arg)) != NULL)
			return lr_errf(e, EX_USAGE, "--log: \"%s\" %s", arg, why);
		c->log = arg;
		return 0;
	case OPT_JSON: c->json = 1; return 0;
	case OPT_FORMAT:
		if (strcmp(arg, "text") != 0 && strcmp(arg, "json") != 0 &&
		    strcmp(arg, "prometheus") != 0)
			return lr_errf(e, EX_USAGE, "--format: expected text, json or "
			    "prometheus, got \"%s\"", arg);
		c->format = arg;
		return 0;
	case OPT_STALE_AFTER:
		return set_timeout("--stale-after", arg, &c->stale_after_ms, e);
	case 'n': {
		char *end;
		long v = strtol(arg, &end, 10);
		if (*arg < '0' || *arg > '9' || *end != '\0' || v < 1 || v > 100000)
			return lr_errf(e, EX_USAGE, "--count: expected a number from 1 to "
			    "100000, got \"%s\"", arg);
		c->count = v;
		return 0;
	}
	case OPT_YES: c->yes = 1; return 0;
	case OPT_PREFIX:
		if ((why = key_prefix_problem(arg)) != NULL)
			return lr_errf(e, EX_USAGE, "--prefix: \"%s\" %s", arg, why);
		c->prefix = arg;
		return 0;
	}
	return lr_errf(e, EX_SOFTWARE, "option %d has no handler", ch);
}

/* getopt_long over argv[0..argc), stopping at the first word that is not
 * an option; apply each option when c is not NULL, else only skip them. On
 * return *stop is that word's index (argc if none) and *dashdash tells
 * whether "--" came just before it. */
static int
scan(int argc, char *argv[], struct lr_cli *c, int *stop, int *dashdash,
    struct lr_err *e)
{
	static struct option longopts[NOPTS + 1];
	const char *last_arg = NULL;
	int ch, idx;

	for (size_t i = 0; i < NOPTS; i++)
		longopts[i] = opts[i].o;
	opterr = 0;
	optind = 0;		/* full reset: scanned twice, and tests parse again */
	/* a run's options end at its command; the other verbs' words are
	 * names, so options may follow them too: getopt hands each word over
	 * in order ("-"), whatever POSIXLY_CORRECT says */
	int names = c && c->verb != VERB_RUN && c->verb != VERB_CHECK;
	size_t nw = 0;

	if (names && (c->words_ = calloc((size_t)argc + 1, sizeof(char *))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	while ((ch = getopt_long(argc, argv, names ? "-:hVc:t:k:E:C:e:vqn:" :
	    "+:hVc:t:k:E:C:e:vqn:", longopts, &idx)) != -1) {
		if (ch == 1) {		/* a word, with names */
			c->words_[nw++] = optarg;
			continue;
		}
		if (ch == '?') {
			if (optopt)
				return lr_errf(e, EX_USAGE, "unknown option '-%c'", optopt);
			return lr_errf(e, EX_USAGE, "unknown option '%s'", argv[optind - 1]);
		}
		if (ch == ':') {
			if (optopt && optopt <= CHAR_MAX)
				return lr_errf(e, EX_USAGE, "option '-%c' needs an argument", optopt);
			return lr_errf(e, EX_USAGE, "option '%s' needs an argument",
			    argv[optind - 1]);
		}
		last_arg = optarg;
		if (c == NULL)
			continue;
		for (size_t i = 0; i < NOPTS; i++) {
			if (opts[i].o.val != ch)
				continue;
			if (!(opts[i].verbs & V(c->verb)))
				return lr_errf(e, EX_USAGE, "option '--%s' does not apply to "
				    "`lockrun %s`", opts[i].o.name, verb_names[c->verb]);
			break;
		}
		if (apply(c, ch, optarg, e) != 0)
			return -1;
	}
	*stop = optind;
	*dashdash = optind > 1 && strcmp(argv[optind - 1], "--") == 0 &&
	    argv[optind - 1] != last_arg;
	if (names) {		/* and the words after "--" */
		while (optind < argc)
			c->words_[nw++] = argv[optind++];
		*stop = argc;
		if (nw > 0)
			c->cmd = c->words_;
	}
	return 0;
}

int
cli_parse(int argc, char *argv[], struct lr_cli *c, struct lr_err *e)
{
	char **words = NULL;
	int stop, dashdash, n = 0;

	memset(c, 0, sizeof(*c));
	task_init(&c->o);
	c->server.connect_timeout_ms = c->server.command_timeout_ms = LR_UNSET;
	c->stale_after_ms = c->count = LR_UNSET;
	/* (1) find the verb: the first word after the options, unless "--"
	 * said it is a command */
	if (scan(argc, argv, NULL, &stop, &dashdash, e) != 0)
		return -1;
	c->verb = VERB_RUN;
	for (int v = 0; stop < argc && !dashdash && v < NVERBS; v++) {
		if (strcmp(argv[stop], verb_names[v]) == 0) {
			c->verb = (enum lr_verb)v;
			break;
		}
	}
	/* (2) parse again without the verb word, checking each option applies */
	if (stop < argc && !dashdash && strcmp(argv[stop], verb_names[c->verb]) == 0) {
		if ((words = calloc((size_t)argc + 1, sizeof(*words))) == NULL)
			return lr_errf(e, EX_OSERR, "out of memory");
		for (int i = 0; i < argc; i++)
			if (i != stop)
				words[n++] = argv[i];
		c->argv_ = words;
		argc = n;
		argv = words;
	}
	if (scan(argc, argv, c, &stop, &dashdash, e) != 0)
		return -1;
	if (stop < argc)
		c->cmd = argv + stop;
	return 0;
}

void
cli_free(struct lr_cli *c)
{
	task_free(&c->o);
	settings_free(&c->server.own);
	free(c->argv_);
	free(c->words_);
	c->argv_ = c->words_ = NULL;
}
