/* cli.c -- getopt_long into a struct lr_cli; usage text. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "duration.h"
#include "keys.h"

enum {				/* long-only options */
	OPT_ONE_SERVER = CHAR_MAX + 1,
	OPT_NO_OVERLAP,
	OPT_TTL,
	OPT_EVERY,
	OPT_REDIS,
	OPT_PASSWORD_FILE,
	OPT_CONNECT_TIMEOUT,
	OPT_COMMAND_TIMEOUT,
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
};

static const struct option longopts[] = {
	{ "help",		no_argument,		NULL, 'h' },
	{ "version",		no_argument,		NULL, 'V' },
	{ "config",		required_argument,	NULL, 'c' },
	{ "task",		required_argument,	NULL, 't' },
	{ "key",		required_argument,	NULL, 'k' },
	{ "one-server",		no_argument,		NULL, OPT_ONE_SERVER },
	{ "no-overlap",		no_argument,		NULL, OPT_NO_OVERLAP },
	{ "ttl",		required_argument,	NULL, OPT_TTL },
	{ "every",		required_argument,	NULL, OPT_EVERY },
	{ "conflict-exit",	required_argument,	NULL, 'E' },
	{ "redis",		required_argument,	NULL, OPT_REDIS },
	{ "password-file",	required_argument,	NULL, OPT_PASSWORD_FILE },
	{ "connect-timeout",	required_argument,	NULL, OPT_CONNECT_TIMEOUT },
	{ "command-timeout",	required_argument,	NULL, OPT_COMMAND_TIMEOUT },
	{ "prefix",		required_argument,	NULL, OPT_PREFIX },
	{ "on-redis-error",	required_argument,	NULL, OPT_ON_REDIS_ERROR },
	{ "cwd",		required_argument,	NULL, 'C' },
	{ "env",		required_argument,	NULL, 'e' },
	{ "shell",		no_argument,		NULL, OPT_SHELL },
	{ "foreground",		no_argument,		NULL, OPT_FOREGROUND },
	{ "no-renew",		no_argument,		NULL, OPT_NO_RENEW },
	{ "on-lost",		required_argument,	NULL, OPT_ON_LOST },
	{ "kill-mode",		required_argument,	NULL, OPT_KILL_MODE },
	{ "kill-after",		required_argument,	NULL, OPT_KILL_AFTER },
	{ "wait",		required_argument,	NULL, OPT_WAIT },
	{ "timeout",		required_argument,	NULL, OPT_TIMEOUT },
	{ "min-hold",		required_argument,	NULL, OPT_MIN_HOLD },
	{ "schedule",		required_argument,	NULL, OPT_SCHEDULE },
	{ "timezone",		required_argument,	NULL, OPT_TIMEZONE },
	{ "slot-tolerance",	required_argument,	NULL, OPT_SLOT_TOLERANCE },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "quiet",		no_argument,		NULL, 'q' },
	{ NULL,			0,			NULL, 0 },
};

void
cli_usage(FILE *fp)
{
	fputs(
"usage: lockrun [options] -t task [-- command [arg ...]]\n"
"       lockrun [options] [-k key] [--] command [arg ...]\n"
"       lockrun check [options] [-t task | -- command [arg ...]]\n"
"\n"
"Run a command at most once at a time (--no-overlap, the default) and/or once\n"
"per scheduled slot (--one-server) across all servers sharing one Redis.\n"
"`lockrun check` validates, prints the keys, slot and fire times a run would\n"
"use, and reaches Redis, without taking a lock.\n"
"\n"
"  -t, --task NAME          run task NAME from the config file\n"
"  -k, --key NAME           lock name (default: the task name, else derived\n"
"                           from the command line)\n"
"  -c, --config FILE        config file (default: $LOCKRUN_CONFIG, else\n"
"                           /etc/lockrun/lockrun.yaml if it exists)\n"
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
"      --redis URL          redis://[user[:password]@]host[:port][/db] or\n"
"                           unix:///path[?db=N] (default $LOCKRUN_REDIS_URL,\n"
"                           the config, redis://127.0.0.1:6379/0)\n"
"      --password-file FILE read the Redis password from FILE\n"
"      --connect-timeout DURATION, --command-timeout DURATION  (default 2s)\n"
"      --on-redis-error fail|run  when Redis cannot be reached (default fail)\n"
"      --prefix STR         key prefix (default \"lockrun:\")\n"
"  -C, --cwd DIR            run the command in DIR\n"
"  -e, --env NAME=VALUE     add to the command's environment (repeatable)\n"
"      --shell              run the command string with /bin/sh -c\n"
"      --foreground         keep the command in lockrun's process group, so\n"
"                           it can read the terminal and gets its signals\n"
"  -v, --verbose            say what was decided, also when skipping\n"
"  -q, --quiet              no warnings, only errors\n"
"  -h, --help               show this help\n"
"  -V, --version            show the version\n"
"\n"
"Durations: 500ms, 90s, 10m, 1h30m, or plain seconds.\n"
"Exit: the command's status (128+N if killed by signal N); the conflict\n"
"status when skipped; 124 --timeout; 64 usage, 69 Redis unavailable,\n"
"70 internal error, 71 fork/exec failed, 78 bad config, 126/127 command\n"
"not executable/found.\n",
	    fp);
}

/* Set the task option called name from the argument of --opt. */
static int
set_opt(struct lr_cli *c, const char *opt, const char *name, const char *arg,
    struct lr_err *e)
{
	char why[300];

	if (task_set(&c->o, name, arg, why, sizeof(why)) < 0)
		return lr_errf(e, EX_USAGE, "%s: %s", opt, why);
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

static int
add_env(struct lr_cli *c, const char *arg, struct lr_err *e)
{
	const char *eq = strchr(arg, '=');
	char name[256], why[300];

	if (eq == NULL || (size_t)(eq - arg) >= sizeof(name))
		return lr_errf(e, EX_USAGE, "--env: expected NAME=VALUE, got \"%s\"", arg);
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	if (task_add_env(&c->o, name, eq + 1, why, sizeof(why)) != 0)
		return lr_errf(e, EX_USAGE, "--env: %s", why);
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
	case 't': c->task = arg; return 0;
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
	case OPT_REDIS: c->redis.url = arg; return 0;
	case OPT_PASSWORD_FILE: c->redis.password_file = arg; return 0;
	case OPT_CONNECT_TIMEOUT:
		return set_timeout("--connect-timeout", arg, &c->redis.connect_timeout_ms, e);
	case OPT_COMMAND_TIMEOUT:
		return set_timeout("--command-timeout", arg, &c->redis.command_timeout_ms, e);
	case OPT_PREFIX:
		if ((why = key_prefix_problem(arg)) != NULL)
			return lr_errf(e, EX_USAGE, "--prefix: \"%s\" %s", arg, why);
		c->prefix = arg;
		return 0;
	}
	return lr_errf(e, EX_SOFTWARE, "option %d has no handler", ch);
}

int
cli_parse(int argc, char *argv[], struct lr_cli *c, struct lr_err *e)
{
	int ch;

	memset(c, 0, sizeof(*c));
	task_init(&c->o);
	c->redis.connect_timeout_ms = c->redis.command_timeout_ms = LR_UNSET;
	opterr = 0;
	optind = 0;		/* full reset, so tests may parse twice */
	while ((ch = getopt_long(argc, argv, "+:hVc:t:k:E:C:e:vq", longopts, NULL)) != -1) {
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
		if (apply(c, ch, optarg, e) != 0)
			return -1;
	}
	if (optind < argc)
		c->cmd = argv + optind;
	return 0;
}

void
cli_free(struct lr_cli *c)
{
	task_free(&c->o);
}
