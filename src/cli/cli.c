/* SPDX-License-Identifier: BSD-2-Clause */
/* cli.c -- the command line: the options, one row each, from which
 * getopt_long's tables, the check that a verb takes an option, the
 * settings it sets and --help are all made; a struct lr_cli out of argv. */
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/verbs.h"
#include "config/crontab.h"
#include "core/duration.h"
#include "core/keys.h"
#include "core/near.h"
#include "core/text.h"
#include "out/log.h"
#include "proc/spawn.h"

/* What an option does with its argument. */
enum opt_to {
	TO_TASK,	/* task_set(setting, value or the argument) into the run's task */
	TO_OWN,		/* a setting one backend alone reads (backend.h), as text */
	TO_FLAG,	/* the int at `off` in struct lr_cli becomes 1 */
	TO_STRING,	/* the string at `off` becomes the argument (after `problem`) */
	TO_APPLY,	/* apply(), by `id`: what is none of these */
};

enum { A_CONFIG = 1, A_CRONTAB, A_SYSTEM_CRONTAB, A_TASK, A_ENV, A_CONNECT_TIMEOUT, A_COMMAND_TIMEOUT, A_FORMAT, A_STALE_AFTER,
	A_COUNT, A_FOR };

/* --host: 1 to HOST_MAX bytes, no spaces or control characters. */
static const char *
host_problem(const char *arg)
{
	if (*arg == '\0' || strlen(arg) > HOST_MAX || strchr(arg, ' ') ||
	    text_has_control(arg))
		return "is not a host name (1 to 64 bytes, no spaces or control characters)";
	return NULL;
}

/* The options: one row each, in the order --help shows them. A verb takes
 * an option when its row's groups (verbs.h) meet the verb's. */
static const struct cli_opt {
	const char	*name;		/* the long name, without "--" */
	char		 letter;	/* the short name, or 0 */
	const char	*arg;		/* its argument, as --help names it; NULL: none */
	unsigned	 groups;	/* OG_*: the verbs that take it */
	enum opt_to	 to;
	const char	*setting;	/* TO_TASK, TO_OWN: the setting's name */
	const char	*value;		/* a flag's value for the setting; NULL: the argument */
	size_t		 off;		/* TO_FLAG, TO_STRING: the field */
	int		 id;		/* TO_APPLY: apply()'s case */
	const char	*(*problem)(const char *arg);	/* TO_STRING: what is wrong with it */
	const char	*help;		/* --help's lines; NULL: not shown (an alias) */
} opts[] = {
#define F(field)	offsetof(struct lr_cli, field)
	{ "task", 't', "NAME", OG_RUN, TO_APPLY, NULL, NULL, 0, A_TASK, NULL,
	    "run task NAME from the config file" },
	{ "key", 'k', "NAME", OG_RUN, TO_STRING, NULL, NULL, F(key), 0, key_name_problem,
	    "lock name (default: the task name, else derived\nfrom the command line)" },
	{ "no-overlap", 0, NULL, OG_RUN, TO_TASK, "no_overlap", "true", 0, 0, NULL,
	    "skip if a copy is still running anywhere" },
	{ "overlap", 0, NULL, OG_RUN, TO_TASK, "no_overlap", "false", 0, 0, NULL,
	    "not that: copies may run at the same time" },
	{ "concurrency", 0, "allow|forbid|replace", OG_RUN, TO_TASK, "concurrency", NULL, 0, 0,
	    NULL, "Kubernetes' words for --overlap and --no-overlap;\nreplace: stop a running "
	    "copy, then run" },
	{ "one-server", 0, NULL, OG_RUN, TO_TASK, "one_server", "true", 0, 0, NULL,
	    "skip if this slot already ran anywhere" },
	{ "no-one-server", 0, NULL, OG_RUN, TO_TASK, "one_server", "false", 0, 0, NULL,
	    "not that: claim no slot" },
	{ "schedule", 0, "'EXPR'", OG_RUN, TO_TASK, "schedule", NULL, 0, 0, NULL,
	    "the cron schedule that starts this run: its fire\ntimes are the --one-server "
	    "slots (5 fields, or\n@hourly, @daily, ...)" },
	{ "timezone", 0, "ZONE", OG_RUN, TO_TASK, "timezone", NULL, 0, 0, NULL,
	    "read the schedule and --between in ZONE (default:\nlocal time)" },
	{ "between", 0, "HH:MM-HH:MM", OG_RUN, TO_TASK, "between", NULL, 0, 0, NULL,
	    "run only at these times of day (in --timezone);\nat others, skip at once" },
	{ "not-between", 0, "HH:MM-HH:MM", OG_RUN, TO_TASK, "not_between", NULL, 0, 0, NULL,
	    "never run at these times of day" },
	{ "every", 0, "DURATION", OG_RUN, TO_TASK, "every", NULL, 0, 0, NULL,
	    "fixed slots instead of a schedule (default 1m)" },
	{ "slot-tolerance", 0, "DURATION", OG_RUN, TO_TASK, "slot_tolerance", NULL, 0, 0,
	    NULL, "a start this much before a fire time\nbelongs to it (default 5s)" },
	{ "clock-tolerance", 0, "DURATION", OG_RUN, TO_TASK, "clock_tolerance", NULL, 0, 0,
	    NULL, "claim no slot when this host's clock and\nthe lock server's differ by "
	    "more (default 3\ntimes the slot tolerance; 0: no check)" },
	{ "ttl", 0, "DURATION", OG_RUN, TO_TASK, "ttl", NULL, 0, 0, NULL,
	    "lease of the no-overlap lock, renewed every ttl/3\nwhile the command runs "
	    "(default 30s)" },
	{ "no-renew", 0, NULL, OG_RUN, TO_TASK, "renew", "false", 0, 0, NULL,
	    "a fixed TTL: no renewal" },
	{ "on-lost", 0, "term|ignore", OG_RUN, TO_TASK, "on_lost", NULL, 0, 0, NULL,
	    "when the lock is lost or Redis stops confirming\nit: stop the command in time "
	    "(default) or log" },
	{ "kill-after", 0, "DURATION", OG_RUN, TO_TASK, "kill_after", NULL, 0, 0, NULL,
	    "SIGTERM to SIGKILL when stopping the command\n(default and limit: the smaller "
	    "of 10s, ttl/3)" },
	{ "kill-mode", 0, "tree|process", OG_RUN, TO_TASK, "kill_mode", NULL, 0, 0, NULL,
	    "hold the lock until the command's whole\nprocess tree is gone, and stop all of "
	    "it (default);\nor wait for and signal its main process only" },
	{ "wait", 0, "DURATION", OG_RUN, TO_TASK, "wait", NULL, 0, 0, NULL,
	    "wait this long for a held lock (default: skip)" },
	{ "timeout", 0, "DURATION", OG_RUN, TO_TASK, "timeout", NULL, 0, 0, NULL,
	    "stop the command after this long; exit 124" },
	{ "min-hold", 0, "DURATION", OG_RUN, TO_TASK, "min_hold", NULL, 0, 0, NULL,
	    "keep the lock at least this long after taking it" },
	{ "retries", 0, "N", OG_RUN, TO_TASK, "retries", NULL, 0, 0, NULL,
	    "run a failed command again up to N times, holding\nthe lock and the slot "
	    "(default 0)" },
	{ "retry-delay", 0, "DURATION", OG_RUN, TO_TASK, "retry_delay", NULL, 0, 0, NULL,
	    "before the first retry, doubled for each next\n(default 10s, at most 1h)" },
	{ "conflict-exit", 'E', "N", OG_RUN, TO_TASK, "conflict_exit", NULL, 0, 0, NULL,
	    "exit status when skipped (default 0)" },
	{ "on-server-error", 0, "fail|run", OG_RUN, TO_TASK, "on_server_error", NULL, 0, 0,
	    NULL, "when the server cannot be reached (default\nfail); --on-redis-error is "
	    "its old name" },
	{ "on-redis-error", 0, "fail|run", OG_RUN, TO_TASK, "on_redis_error", NULL, 0, 0,
	    NULL, NULL },
	{ "wait-replicas", 0, "N", OG_RUN, TO_OWN, "wait_replicas", NULL, 0, 0, NULL,
	    "after taking or renewing the lock, WAIT until N\nreplicas have it; fewer: the "
	    "lock is not trusted\n(default 0: do not wait)" },
	{ "wait-timeout", 0, "DURATION", OG_RUN, TO_OWN, "wait_timeout", NULL, 0, 0, NULL,
	    "how long WAIT may take (default 100ms)" },
	{ "history", 0, "N", OG_HISTORY, TO_TASK, "history", NULL, 0, 0, NULL,
	    "keep the task's last N decisions in Redis\n(default 100; 0: no history)" },
	{ "history-ttl", 0, "DURATION", OG_HISTORY, TO_TASK, "history_ttl", NULL, 0, 0, NULL,
	    "drop the history this long after its last\nwrite (default 35d)" },
	{ "keep-output", 0, "BYTES", OG_RUN, TO_TASK, "keep_output", NULL, 0, 0, NULL,
	    "keep the last BYTES of the command's output with\nits run (default 16KiB; 0: "
	    "none)" },
	{ "keep-runs", 0, "N", OG_RUN, TO_TASK, "keep_runs", NULL, 0, 0, NULL,
	    "keep the last N successful runs' stories\n(default 20)" },
	{ "keep-failed-runs", 0, "N", OG_RUN, TO_TASK, "keep_failed_runs", NULL, 0, 0, NULL,
	    "keep the last N failed runs' stories (default 20)" },
	{ "cwd", 'C', "DIR", OG_RUN, TO_TASK, "cwd", NULL, 0, 0, NULL,
	    "run the command in DIR" },
	{ "env", 'e', "NAME=VALUE", OG_RUN, TO_APPLY, NULL, NULL, 0, A_ENV, NULL,
	    "add to the command's environment (repeatable)" },
	{ "shell", 0, NULL, OG_RUN, TO_TASK, "shell", "true", 0, 0, NULL,
	    "run the command string with /bin/sh -c" },
	{ "foreground", 0, NULL, OG_RUN, TO_FLAG, NULL, NULL, F(foreground), 0, NULL,
	    "keep the command in lockrun's process group, so\nit can read the terminal and "
	    "gets its signals" },
	{ "json", 0, NULL, OG_JSON, TO_FLAG, NULL, NULL, F(json), 0, NULL,
	    "one JSON object per task or entry, one per line" },
	{ "format", 0, "text|json|prometheus", OG_STATUS, TO_APPLY, NULL, NULL, 0, A_FORMAT,
	    NULL, "prometheus: the text exposition\nformat, for node_exporter's textfile "
	    "collector" },
	{ "stale-after", 0, "DURATION", OG_STATUS, TO_APPLY, NULL, NULL, 0, A_STALE_AFTER,
	    NULL, "exit 1 when a lock has been held this long" },
	{ "count", 'n', "N", OG_COUNT, TO_APPLY, NULL, NULL, 0, A_COUNT, NULL,
	    "show the last N (default 20)" },
	{ "all", 0, NULL, OG_STATUS, TO_FLAG, NULL, NULL, F(all), 0, NULL,
	    "also the locks and runs under the prefix that no\ntask of the config names "
	    "(-k NAME's; the default\nwhen the config has no tasks)" },
	{ "long", 'l', NULL, OG_STATUS, TO_FLAG, NULL, NULL, F(wide), 0, NULL,
	    "every column, times in UTC (default: those that\nfit 100 columns, times "
	    "relative to now)" },
	{ "html", 0, "FILE", OG_STATUS, TO_STRING, NULL, NULL, F(html), 0, NULL,
	    "also write the status page (what cron --listen\nserves at /) to FILE" },
	{ "yes", 0, NULL, OG_YES, TO_FLAG, NULL, NULL, F(yes), 0, NULL,
	    "free it without asking (needed without a terminal)" },
	{ "for", 0, "DURATION", OG_PAUSE, TO_APPLY, NULL, NULL, 0, A_FOR, NULL,
	    "the pause lifts itself after DURATION" },
	{ "until", 0, "TIME", OG_PAUSE, TO_STRING, NULL, NULL, F(until), 0, NULL,
	    "the pause lifts itself at TIME, UTC or with an\noffset: 2026-12-01T06:00Z, "
	    "...T08:00+02:00" },
	{ "reason", 0, "TEXT", OG_PAUSE, TO_STRING, NULL, NULL, F(reason), 0, NULL,
	    "why, for whoever finds it paused" },
	{ "run", 0, "ID", OG_LOGS, TO_STRING, NULL, NULL, F(run_id), 0, NULL,
	    "logs: the run with this id (history's RUN)" },
	{ "slot", 0, "TIME", OG_LOGS, TO_STRING, NULL, NULL, F(slot), 0, NULL,
	    "logs: the run of this slot (2026-11-21T17:45:00Z)" },
	{ "failed", 0, NULL, OG_LOGS, TO_FLAG, NULL, NULL, F(failed), 0, NULL,
	    "logs: the last run that failed" },
	{ "here", 0, NULL, OG_TRIGGER, TO_FLAG, NULL, NULL, F(here), 0, NULL,
	    "run it on this host now, in the foreground" },
	{ "listen", 0, "ADDR", OG_LISTEN, TO_STRING, NULL, NULL, F(listen), 0, NULL,
	    "serve /metrics, /healthz, /readyz and a status\npage at / over HTTP on ADDR: "
	    "[HOST:]PORT (the\nloopback address without HOST), [ADDRESS]:PORT\nor unix:PATH" },
	{ "config", 'c', "FILE", OG_ALL, TO_APPLY, NULL, NULL, 0, A_CONFIG, NULL,
	    "config file (default: $LOCKRUN_CONFIG, else\n/etc/lockrun/lockrun.yaml if it "
	    "exists)" },
	{ "crontab", 0, "FILE", OG_ALL, TO_APPLY, NULL, NULL, 0, A_CRONTAB, NULL,
	    "also read the crontab FILE: each job line a task\n(with a user field in "
	    "/etc/crontab and\n/etc/cron.d/*)" },
	{ "system-crontab", 0, "FILE", OG_ALL, TO_APPLY, NULL, NULL, 0, A_SYSTEM_CRONTAB,
	    NULL, "the same, FILE in the /etc/crontab form (a user\nfield after the "
	    "schedule)" },
	{ "url", 0, "URL", OG_ALL, TO_STRING, NULL, NULL, F(server.url), 0, NULL,
	    "where the lock lives: redis://[user[:password]@]host\n[:port][/db], "
	    "unix://[user@]/path[?db=N], rediss://,\nredis+sentinel://, redis+cluster://,\n"
	    "postgres://[user@]host[:port]/db (postgresql://),\nmysql://[user@]host[:port]/db "
	    "(mariadb://) (default\n$LOCKRUN_URL, $LOCKRUN_REDIS_URL, the config,\n"
	    "redis://127.0.0.1:6379/0); --redis URL is the same" },
	{ "redis", 0, "URL", OG_ALL, TO_STRING, NULL, NULL, F(server.url), 0, NULL, NULL },
	{ "password-file", 0, "FILE", OG_ALL, TO_STRING, NULL, NULL, F(server.password_file),
	    0, NULL, "read the server's password from FILE" },
	{ "connect-timeout", 0, "DURATION", OG_ALL, TO_APPLY, NULL, NULL, 0,
	    A_CONNECT_TIMEOUT, NULL, "connecting may take this long (default 2s)" },
	{ "command-timeout", 0, "DURATION", OG_ALL, TO_APPLY, NULL, NULL, 0,
	    A_COMMAND_TIMEOUT, NULL, "a command may take this long (default 2s)" },
	{ "prefix", 0, "STR", OG_ALL, TO_STRING, NULL, NULL, F(prefix), 0, key_prefix_problem,
	    "key prefix (default \"lockrun:\")" },
	{ "host", 0, "NAME", OG_ALL, TO_STRING, NULL, NULL, F(host), 0, host_problem,
	    "the name recorded for this host (default: the\nnode name, uname -n)" },
	{ "log", 0, "stderr|syslog|json[:FILE]", OG_ALL, TO_STRING, NULL, NULL, F(log), 0,
	    log_spec_problem, "where lockrun's messages go\n(default stderr; syslog and json "
	    "get every\nline, -v and -q apply to stderr's)" },
	{ "verbose", 'v', NULL, OG_ALL, TO_FLAG, NULL, NULL, F(verbose), 0, NULL,
	    "say what was decided, also when skipping" },
	{ "quiet", 'q', NULL, OG_ALL, TO_FLAG, NULL, NULL, F(quiet), 0, NULL,
	    "no warnings, only errors" },
	{ "help", 'h', NULL, OG_ALL, TO_FLAG, NULL, NULL, F(help), 0, NULL, "show this help" },
	{ "version", 'V', NULL, OG_ALL, TO_FLAG, NULL, NULL, F(version), 0, NULL,
	    "show the version" },
#undef F
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))
#define HELP_COL 27	/* where --help's text starts */

/* One option's lines of --help. */
static void
usage_opt(FILE *fp, const struct cli_opt *o)
{
	int n = o->letter ? fprintf(fp, "  -%c, --%s", o->letter, o->name) :
	    fprintf(fp, "      --%s", o->name);
	const char *h = o->help;

	if (o->arg)
		n += fprintf(fp, " %s", o->arg);
	fprintf(fp, "%*s", n < HELP_COL - 1 ? HELP_COL - n : 2, "");
	for (const char *nl; (nl = strchr(h, '\n')) != NULL; h = nl + 1)
		fprintf(fp, "%.*s\n%*s", (int)(nl - h), h, HELP_COL, "");
	fprintf(fp, "%s\n", h);
}

void
cli_usage(FILE *fp, enum lr_verb v)
{
	const struct lr_verb_def *d = &lr_verbs[v];

	fputs(d->usage, fp);
	for (int common = 0; common < 2; common++) {	/* the verb's own, then every verb's */
		for (size_t i = 0; i < NOPTS; i++)
			if (opts[i].help && (opts[i].groups & d->groups) &&
			    !(opts[i].groups & OG_ALL) == !common)
				usage_opt(fp, &opts[i]);
		if (!common)
			fputc('\n', fp);
	}
	fputs(d->footer, fp);
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

/* What cannot be a row: an option whose argument is read its own way. */
static int
apply(struct lr_cli *c, int id, const char *arg, struct lr_err *e)
{
	const char *why;
	char *end;
	long v;

	switch (id) {
	case A_CONFIG:		/* "" is not "no -c": it must not fall back */
		if (*arg == '\0')
			return lr_errf(e, EX_USAGE, "-c: empty path");
		c->config = arg;
		return 0;
	case A_CRONTAB: case A_SYSTEM_CRONTAB:
		if (*arg == '\0')
			return lr_errf(e, EX_USAGE, "--%scrontab: empty path", id == A_CRONTAB ?
			    "" : "system-");
		if (c->ncrontabs == CONFIG_CRONTABS_MAX)
			return lr_errf(e, EX_USAGE, "--crontab: at most %d files",
			    CONFIG_CRONTABS_MAX);
		c->crontabs[c->ncrontabs++] = (struct lr_crontab){ .path = (char *)arg,
		    .users = id == A_SYSTEM_CRONTAB || crontab_path_has_users(arg),
		    .given = 1 };
		return 0;
	case A_TASK:		/* named -t in its message, as it is mostly given */
		if ((why = keys_name_problem(arg)) != NULL)
			return lr_errf(e, EX_USAGE, "-t: \"%s\" %s", arg, why);
		c->task = arg;
		return 0;
	case A_ENV: return add_env(c, arg, e);
	case A_CONNECT_TIMEOUT:
		return set_timeout("--connect-timeout", arg, &c->server.connect_timeout_ms, e);
	case A_COMMAND_TIMEOUT:
		return set_timeout("--command-timeout", arg, &c->server.command_timeout_ms, e);
	case A_FORMAT:
		if (strcmp(arg, "text") != 0 && strcmp(arg, "json") != 0 &&
		    strcmp(arg, "prometheus") != 0)
			return lr_errf(e, EX_USAGE, "--format: expected text, json or "
			    "prometheus, got \"%s\"", arg);
		c->format = arg;
		return 0;
	case A_STALE_AFTER:
		return set_timeout("--stale-after", arg, &c->stale_after_ms, e);
	case A_FOR:
		return set_timeout("--for", arg, &c->pause_for_ms, e);
	case A_COUNT:
		v = strtol(arg, &end, 10);
		if (*arg < '0' || *arg > '9' || *end != '\0' || v < 1 || v > 100000)
			return lr_errf(e, EX_USAGE, "--count: expected a number from 1 to "
			    "100000, got \"%s\"", arg);
		c->count = v;
		return 0;
	}
	return lr_errf(e, EX_SOFTWARE, "option %d has no handler", id);
}

/* One option, as its row says. Returns 0 or -1. */
static int
take(struct lr_cli *c, const struct cli_opt *o, const char *arg, struct lr_err *e)
{
	const char *why, *text = o->value ? o->value : arg;
	struct lr_err te;

	switch (o->to) {
	case TO_TASK:
		if (task_set(&c->o, o->setting, text, &te) < 0)
			return lr_errf(e, EX_USAGE, "--%s: %s", o->name, te.msg);
		return 0;
	case TO_OWN:
		if (backend_setting(NULL, o->setting, text, &te) < 0)
			return lr_errf(e, EX_USAGE, "--%s: %s", o->name, te.msg);
		snprintf(te.msg, sizeof(te.msg), "--%s", o->name);
		return settings_add(&c->server.own, NULL, o->setting, text, NULL, te.msg,
		    EX_USAGE, e);
	case TO_FLAG:
		*(int *)((char *)c + o->off) = 1;
		return 0;
	case TO_STRING:
		if (o->problem && (why = o->problem(arg)) != NULL)
			return lr_errf(e, EX_USAGE, "--%s: \"%s\" %s", o->name, arg, why);
		*(const char **)((char *)c + o->off) = arg;
		return 0;
	case TO_APPLY:
		return apply(c, o->id, arg, e);
	}
	return lr_errf(e, EX_SOFTWARE, "--%s has no handler", o->name);
}

/* The row of what getopt_long() returned: a letter, or OPT_BASE + row. */
#define OPT_BASE	(CHAR_MAX + 1)

static const struct cli_opt *
row_of(int ch)
{
	if (ch >= OPT_BASE)
		return &opts[ch - OPT_BASE];
	for (size_t i = 0; i < NOPTS; i++)
		if (opts[i].letter == ch)
			return &opts[i];
	return NULL;
}

/* An unknown long option and the nearest: "... (did you mean --one-server?)". */
static int
unknown_option(const char *arg, struct lr_err *e)
{
	const char *names[NOPTS];
	size_t near[NEAR_MAX] = { 0 }, k = 0;
	char word[64];

	for (size_t i = 0; i < NOPTS; i++)
		names[i] = opts[i].name;
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	if (strncmp(arg, "--", 2) == 0)
		k = near_words(word, names, NOPTS, near);
	lr_errf(e, EX_USAGE, "unknown option '%s'%s", arg, k ? " (did you mean" : "");
	for (size_t i = 0; i < k; i++)
		snprintf(strchr(e->msg, '\0'), sizeof(e->msg) - strlen(e->msg), "%s --%s%s",
		    i == 0 ? "" : i + 1 == k ? " or" : ",", names[near[i]], i + 1 == k ? "?)" : "");
	return -1;
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
	static char shorts[2 + 2 * NOPTS + 1];
	const struct cli_opt *o;
	const char *last_arg = NULL;
	int ch, idx;
	size_t n = 2;

	for (size_t i = 0; i < NOPTS; i++) {
		longopts[i] = (struct option){ opts[i].name, opts[i].arg ? required_argument :
		    no_argument, NULL, opts[i].letter ? opts[i].letter : OPT_BASE + (int)i };
		if (opts[i].letter) {
			shorts[n++] = opts[i].letter;
			if (opts[i].arg)
				shorts[n++] = ':';
		}
	}
	opterr = 0;
	optind = 0;		/* full reset: scanned twice, and tests parse again */
	/* a run's options end at its command; the other verbs' words are
	 * names, so options may follow them too: getopt hands each word over
	 * in order ("-"), whatever POSIXLY_CORRECT says */
	int names = c && !lr_verbs[c->verb].command;
	size_t nw = 0;

	shorts[0] = names ? '-' : '+';
	shorts[1] = ':';
	if (names && (c->words_ = calloc((size_t)argc + 1, sizeof(char *))) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	while ((ch = getopt_long(argc, argv, shorts, longopts, &idx)) != -1) {
		if (ch == 1) {		/* a word, with names */
			c->words_[nw++] = optarg;
			continue;
		}
		if (ch == '?') {
			if (optopt && optopt <= CHAR_MAX)
				return lr_errf(e, EX_USAGE, "unknown option '-%c'", optopt);
			return unknown_option(argv[optind - 1], e);
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
		if ((o = row_of(ch)) == NULL)
			return lr_errf(e, EX_SOFTWARE, "option %d has no row", ch);
		if (!(o->groups & lr_verbs[c->verb].groups))
			return lr_errf(e, EX_USAGE, "option '--%s' does not apply to "
			    "`lockrun %s`", o->name, lr_verbs[c->verb].name);
		if (take(c, o, optarg, e) != 0)
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

/* Is word, taken for a command, rather a verb mistyped ("stauts")? Near
 * a verb and no program in PATH: refused with the verb it is near (a
 * program of that name still runs, as any command does). */
static int
mistyped_verb(const char *word, struct lr_err *e)
{
	const char *names[NVERBS];
	char found[PATH_MAX];
	struct lr_err fe;
	size_t near[NEAR_MAX], k;

	if (strchr(word, '/') != NULL)
		return 0;
	for (size_t v = 0; v < NVERBS; v++)
		names[v] = lr_verbs[v].name;
	if ((k = near_words(word, names, NVERBS, near)) == 0 ||
	    near_distance(word, names[near[0]]) > 2 ||
	    spawn_find(word, getenv("PATH"), found, sizeof(found), &fe) == 0)
		return 0;
	lr_errf(e, EX_USAGE, "\"%s\" is no verb (did you mean %s?) and no program in "
	    "PATH; to run a program of that name: lockrun -- %s", word, names[near[0]], word);
	return 1;
}

int
cli_parse(int argc, char *argv[], struct lr_cli *c, struct lr_err *e)
{
	char **words = NULL;
	int stop, dashdash, n = 0;

	memset(c, 0, sizeof(*c));
	c->def = &lr_verbs[VERB_RUN];
	task_init(&c->o);
	c->server.connect_timeout_ms = c->server.command_timeout_ms = LR_UNSET;
	c->stale_after_ms = c->count = c->pause_for_ms = LR_UNSET;
	/* (1) find the verb: the first word after the options, unless "--"
	 * said it is a command */
	if (scan(argc, argv, NULL, &stop, &dashdash, e) != 0)
		return -1;
	c->verb = VERB_RUN;
	c->def = &lr_verbs[VERB_RUN];
	for (int v = 0; stop < argc && !dashdash && v < NVERBS; v++) {
		if (strcmp(argv[stop], lr_verbs[v].name) == 0) {
			c->verb = (enum lr_verb)v;
			c->def = &lr_verbs[v];
			break;
		}
	}
	if (c->verb == VERB_RUN && stop < argc && !dashdash &&
	    strcmp(argv[stop], lr_verbs[VERB_RUN].name) != 0 && mistyped_verb(argv[stop], e))
		return -1;
	/* (2) parse again without the verb word, checking each option applies */
	if (stop < argc && !dashdash && strcmp(argv[stop], lr_verbs[c->verb].name) == 0) {
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
