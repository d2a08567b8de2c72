/* SPDX-License-Identifier: BSD-2-Clause */
/* task.c -- run settings: set from text, merge, free; pure, libc only. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/duration.h"
#include "core/err.h"
#include "core/schedule.h"
#include "core/task.h"
#include "core/where.h"
#include "core/window.h"

/* K_WINDOW: a string window_parse() reads */
enum kind { K_BOOL, K_DURATION, K_EXIT, K_COUNT, K_LIMIT, K_BYTES, K_STRING, K_CHOICE,
	K_WINDOW };

#define HISTORY_MAX 100000	/* entries; a stream this long is ~10 MB */

/* The words of a K_CHOICE option, in the order of its enum's values. */
static const char *const on_server_error_words[] = { "fail", "run", NULL };
static const char *const on_lost_words[] = { "term", "ignore", NULL };
static const char *const kill_mode_words[] = { "tree", "process", NULL };
static const char *const run_on_words[] = { "one", "all", NULL };	/* enum lr_run_on */
static const char *const concurrency_words[] = { "allow", "forbid", "replace", NULL };

static const struct option_def {
	const char	*name;
	enum kind	 kind;
	size_t		 off;
	long long	 min_ms;	/* K_DURATION: smallest accepted; 0 allows "0" */
	int		 whole_s;	/* K_DURATION: whole seconds only */
	const char *const *words;	/* K_CHOICE */
} options[] = {
	{ "shell",		K_BOOL,		offsetof(struct lr_task, shell), 0, 0, NULL },
	{ "one_server",		K_BOOL,		offsetof(struct lr_task, one_server), 0, 0, NULL },
	{ "no_overlap",		K_BOOL,		offsetof(struct lr_task, no_overlap), 0, 0, NULL },
	{ "ttl",		K_DURATION,	offsetof(struct lr_task, ttl_ms), 1000, 0, NULL },
	{ "every",		K_DURATION,	offsetof(struct lr_task, every_ms), 1000, 1, NULL },
	{ "conflict_exit",	K_EXIT,		offsetof(struct lr_task, conflict_exit), 0, 0, NULL },
	{ "cwd",		K_STRING,	offsetof(struct lr_task, cwd), 0, 0, NULL },
	{ "output",		K_STRING,	offsetof(struct lr_task, output), 0, 0, NULL },
	{ "on_server_error",	K_CHOICE,	offsetof(struct lr_task, on_server_error), 0, 0,
	    on_server_error_words },
	{ "on_redis_error",	K_CHOICE,	offsetof(struct lr_task, on_server_error), 0, 0,
	    on_server_error_words },	/* its name before PostgreSQL and MySQL */
	{ "renew",		K_BOOL,		offsetof(struct lr_task, renew), 0, 0, NULL },
	{ "on_lost",		K_CHOICE,	offsetof(struct lr_task, on_lost), 0, 0,
	    on_lost_words },
	{ "kill_mode",		K_CHOICE,	offsetof(struct lr_task, kill_mode), 0, 0,
	    kill_mode_words },
	{ "kill_after",		K_DURATION,	offsetof(struct lr_task, kill_after_ms), 1, 0, NULL },
	{ "wait",		K_DURATION,	offsetof(struct lr_task, wait_ms), 0, 0, NULL },
	{ "timeout",		K_DURATION,	offsetof(struct lr_task, timeout_ms), 1, 0, NULL },
	{ "min_hold",		K_DURATION,	offsetof(struct lr_task, min_hold_ms), 1, 0, NULL },
	{ "schedule",		K_STRING,	offsetof(struct lr_task, schedule), 0, 0, NULL },
	{ "timezone",		K_STRING,	offsetof(struct lr_task, timezone), 0, 0, NULL },
	{ "slot_tolerance",	K_DURATION,	offsetof(struct lr_task, slot_tolerance_ms), 0, 0, NULL },
	{ "clock_tolerance",	K_DURATION,	offsetof(struct lr_task, clock_tolerance_ms), 0, 0, NULL },
	{ "history",		K_COUNT,	offsetof(struct lr_task, history), 0, 0, NULL },
	{ "history_ttl",	K_DURATION,	offsetof(struct lr_task, history_ttl_ms), 1000, 0, NULL },
	{ "keep_output",	K_BYTES,	offsetof(struct lr_task, keep_output), 0, 0, NULL },
	{ "keep_runs",		K_COUNT,	offsetof(struct lr_task, keep_runs), 0, 0, NULL },
	{ "keep_failed_runs",	K_COUNT,	offsetof(struct lr_task, keep_failed_runs), 0, 0, NULL },
	{ "hook_timeout",	K_DURATION,	offsetof(struct lr_task, hook_timeout_ms), 1, 0, NULL },
	{ "starting_deadline",	K_DURATION,	offsetof(struct lr_task, starting_deadline_ms), 0, 0,
	    NULL },
	{ "retries",		K_COUNT,	offsetof(struct lr_task, retries), 0, 0, NULL },
	{ "retry_delay",	K_DURATION,	offsetof(struct lr_task, retry_delay_ms), 0, 0, NULL },
	{ "user",		K_STRING,	offsetof(struct lr_task, user), 0, 0, NULL },
	{ "group",		K_STRING,	offsetof(struct lr_task, group), 0, 0, NULL },
	{ "mailto",		K_STRING,	offsetof(struct lr_task, mailto), 0, 0, NULL },
	{ "random_delay",	K_DURATION,	offsetof(struct lr_task, random_delay_ms), 0, 1, NULL },
	{ "run_on",		K_CHOICE,	offsetof(struct lr_task, run_on), 0, 0, run_on_words },
	{ "host_match",		K_STRING,	offsetof(struct lr_task, host_match), 0, 0, NULL },
	{ "between",		K_WINDOW,	offsetof(struct lr_task, between), 0, 0, NULL },
	{ "not_between",	K_WINDOW,	offsetof(struct lr_task, not_between), 0, 0, NULL },
	{ "concurrency",	K_CHOICE,	offsetof(struct lr_task, concurrency), 0, 0,
	    concurrency_words },
	{ "limit",		K_LIMIT,	offsetof(struct lr_task, limit), 0, 0, NULL },
};

#define DEFAULT_KILL_AFTER_MS 10000

/* The built-in values: what is left unset after the command line, the
 * task and the defaults. Kill-after is left unset: it depends on the TTL. */
static const struct lr_task task_builtin = {
	.shell = 0, .one_server = 0, .no_overlap = 0,
	.ttl_ms = 30000, .every_ms = 60000,
	.conflict_exit = 0, .on_server_error = ON_SERVER_ERROR_FAIL,
	.renew = 1, .on_lost = ON_LOST_TERM, .kill_mode = KILL_MODE_TREE,
	.kill_after_ms = LR_UNSET,
	.wait_ms = 0, .timeout_ms = 0, .min_hold_ms = 0,
	.slot_tolerance_ms = LR_UNSET,	/* depends on the schedule: schedule.c */
	.clock_tolerance_ms = LR_UNSET,	/* depends on the slot tolerance: run.c */
	/* longer than the longest month: a monthly job keeps its history */
	.history = 100, .history_ttl_ms = 35LL * 24 * 3600 * 1000,
	/* as Kubernetes keeps a CronJob's last runs: enough to read a
	 * failure's story after a weekend of hourly runs had more */
	.keep_output = 16384, .keep_runs = 20, .keep_failed_runs = 20,
	.hook_timeout_ms = 30000,	/* a ping that has not answered by then won't */
	.starting_deadline_ms = 300000,	/* cron: a 5-minute-late start still runs */
	.retries = 0, .retry_delay_ms = 10000,	/* as a Kubernetes Job's first back-off */
	.random_delay_ms = 0, .run_on = RUN_ON_ONE, .limit = 1,
};

void
task_init(struct lr_task *t)
{
	memset(t, 0, sizeof(*t));
	t->shell = t->one_server = t->no_overlap = LR_UNSET;
	t->ttl_ms = t->every_ms = LR_UNSET;
	t->conflict_exit = t->on_server_error = LR_UNSET;
	t->renew = t->on_lost = t->kill_mode = LR_UNSET;
	t->kill_after_ms = t->wait_ms = t->timeout_ms = t->min_hold_ms = LR_UNSET;
	t->slot_tolerance_ms = t->clock_tolerance_ms = LR_UNSET;
	t->history = LR_UNSET;
	t->history_ttl_ms = LR_UNSET;
	t->keep_output = t->keep_runs = t->keep_failed_runs = LR_UNSET;
	t->hook_timeout_ms = t->starting_deadline_ms = LR_UNSET;
	t->retries = LR_UNSET;
	t->retry_delay_ms = t->random_delay_ms = LR_UNSET;
	t->run_on = t->concurrency = t->limit = LR_UNSET;
}

long long
task_random_delay(const char *name, long long slot, long long max_ms)
{
	unsigned long long h = 14695981039346656037ULL;	/* FNV-1a, 64 bits */
	unsigned long long s = (unsigned long long)slot;

	if (max_ms < 1000)
		return 0;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h *= 1099511628211ULL;		/* a 0 byte between name and slot */
	for (int i = 0; i < 8; i++, s >>= 8)
		h = (h ^ (s & 0xff)) * 1099511628211ULL;
	h ^= h >> 33;	/* FNV's low bits mix poorly: fold the high ones in */
	return (long long)(h % (unsigned long long)(max_ms / 1000 + 1)) * 1000;
}

long long
task_retry_delay(const struct lr_task *t, int n)
{
	long long d = t->retry_delay_ms > 0 ? t->retry_delay_ms : 0;
	long long cap = d > LR_RETRY_DELAY_CAP_MS ? d : LR_RETRY_DELAY_CAP_MS;

	for (int i = 1; i < n && d < cap; i++)
		d *= 2;
	return d < cap ? d : cap;
}

void
task_free(struct lr_task *t)
{
	if (t == NULL)
		return;
	free(t->name);
	strv_free(t->argv);
	free(t->argv_at);
	free(t->cwd);
	free(t->output);
	strv_free(t->env);
	free(t->schedule);
	free(t->timezone);
	free(t->user);
	free(t->group);
	free(t->mailto);
	free(t->host_match);
	strv_free(t->hosts);
	free(t->between);
	free(t->not_between);
	strv_free(t->when);
	strv_free(t->on_start);
	strv_free(t->on_success);
	strv_free(t->on_failure);
	strv_free(t->on_missed);
	task_init(t);
}

size_t
strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

void
strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Concatenate a then b into a new vector (either may be NULL). */
static char **
strv_cat(char *const *a, char *const *b)
{
	size_t na = strv_len(a), nb = strv_len(b);
	char **v = calloc(na + nb + 1, sizeof(*v));

	if (v == NULL)
		return NULL;
	for (size_t i = 0; i < na + nb; i++) {
		if ((v[i] = strdup(i < na ? a[i] : b[i - na])) == NULL) {
			strv_free(v);
			return NULL;
		}
	}
	return v;
}

char **
strv_dup(char *const *v)
{
	return strv_cat(v, NULL);
}

int
task_inherit(struct lr_task *dst, const struct lr_task *src)
{
	/* --every given nearer masks a schedule given further away, and the
	 * other way round: the nearer level chose how slots are cut */
	int every_near = dst->every_ms != LR_UNSET && dst->schedule == NULL;
	int sched_near = dst->schedule != NULL;
	/* so do concurrency and no_overlap, two names of one choice: the
	 * nearer level that names either decides */
	int overlap_near = dst->concurrency != LR_UNSET || dst->no_overlap != LR_UNSET;

	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		if ((every_near && options[i].off == offsetof(struct lr_task, schedule)) ||
		    (sched_near && options[i].off == offsetof(struct lr_task, every_ms)) ||
		    (overlap_near && (options[i].off == offsetof(struct lr_task, concurrency) ||
		    options[i].off == offsetof(struct lr_task, no_overlap))))
			continue;
		char *d = (char *)dst + options[i].off;
		const char *s = (const char *)src + options[i].off;
		if (options[i].kind == K_DURATION) {
			if (*(long long *)d == LR_UNSET)
				*(long long *)d = *(const long long *)s;
		} else if (options[i].kind == K_STRING || options[i].kind == K_WINDOW) {
			if (*(char **)d == NULL && *(char *const *)s != NULL &&
			    (*(char **)d = strdup(*(char *const *)s)) == NULL)
				return -1;
		} else if (*(int *)d == LR_UNSET)
			*(int *)d = *(const int *)s;
	}
	if (dst->name == NULL && src->name && (dst->name = strdup(src->name)) == NULL)
		return -1;
	if (dst->argv == NULL && src->argv && ((dst->argv = strv_dup(src->argv)) == NULL ||
	    (src->argv_at && (dst->argv_at = strdup(src->argv_at)) == NULL)))
		return -1;
	/* a hook given nearer replaces the whole list given further away, as
	 * hosts and when do */
	if ((dst->on_start == NULL && src->on_start &&
	    (dst->on_start = strv_dup(src->on_start)) == NULL) ||
	    (dst->on_success == NULL && src->on_success &&
	    (dst->on_success = strv_dup(src->on_success)) == NULL) ||
	    (dst->on_failure == NULL && src->on_failure &&
	    (dst->on_failure = strv_dup(src->on_failure)) == NULL) ||
	    (dst->on_missed == NULL && src->on_missed &&
	    (dst->on_missed = strv_dup(src->on_missed)) == NULL) ||
	    (dst->hosts == NULL && src->hosts && (dst->hosts = strv_dup(src->hosts)) == NULL) ||
	    (dst->when == NULL && src->when && (dst->when = strv_dup(src->when)) == NULL))
		return -1;
	if (src->env) {
		char **env = strv_cat(src->env, dst->env);
		if (env == NULL)
			return -1;
		strv_free(dst->env);
		dst->env = env;
	}
	return 0;
}

static int
set_bool(int *dst, const char *text, struct lr_err *e)
{
	if (strcmp(text, "true") == 0)
		*dst = 1;
	else if (strcmp(text, "false") == 0)
		*dst = 0;
	else {
		return lr_errf(e, EX_CONFIG, "expected true or false, got \"%s\"", text);
	}
	return 1;
}

static int
set_duration(const struct option_def *o, long long *dst, const char *text,
    struct lr_err *e)
{
	long long ms;

	if (duration_parse(text, &ms) != 0 || (ms == 0 && o->min_ms > 0)) {
		return lr_errf(e, EX_CONFIG, "\"%s\" is not a %sduration "
		    "(e.g. 500ms, 90s, 10m, 1h30m)", text, o->min_ms ? "positive " : "");
	}
	if (ms < o->min_ms) {
		return lr_errf(e, EX_CONFIG, "\"%s\" is shorter than 1s", text);
	}
	if (o->whole_s && ms % 1000 != 0) {
		return lr_errf(e, EX_CONFIG, "\"%s\" is not a whole number of seconds", text);
	}
	*dst = ms;
	return 1;
}

static int
set_exit(int *dst, const char *text, struct lr_err *e)
{
	char *end;
	long v = strtol(text, &end, 10);

	if (*text == '\0' || *end != '\0' || v < 0 || v > 255 ||
	    (*text < '0' || *text > '9')) {
		return lr_errf(e, EX_CONFIG, "expected an exit status from 0 to 255, got \"%s\"", text);
	}
	*dst = (int)v;
	return 1;
}

static int
set_count(int *dst, const char *text, struct lr_err *e)
{
	char *end;
	long v = strtol(text, &end, 10);

	if (*text < '0' || *text > '9' || *end != '\0' || v > HISTORY_MAX) {
		return lr_errf(e, EX_CONFIG, "expected a count from 0 to %d, got \"%s\"", HISTORY_MAX, text);
	}
	*dst = (int)v;
	return 1;
}

/* limit: how many copies may hold the lock at once, 1 to LR_LIMIT_MAX. */
static int
set_limit(int *dst, const char *text, struct lr_err *e)
{
	char *end;
	long v = strtol(text, &end, 10);

	if (*text < '0' || *text > '9' || *end != '\0' || v < 1 || v > LR_LIMIT_MAX)
		return lr_errf(e, EX_CONFIG, "expected a limit from 1 to %d, got \"%s\"",
		    LR_LIMIT_MAX, text);
	*dst = (int)v;
	return 1;
}

/* A size in bytes: digits, then nothing (bytes), K or KiB, M or MiB
 * (powers of 1024); at most LR_KEEP_OUTPUT_MAX, since a run's tail rides
 * with its release in one request, and is read back in one reply. */
static int
set_bytes(int *dst, const char *text, struct lr_err *e)
{
	static const struct { const char *unit; long long mult; } units[] = {
		{ "", 1 }, { "K", 1024 }, { "KiB", 1024 }, { "M", 1048576 },
		{ "MiB", 1048576 },
	};
	char *end;
	long long v = strtoll(text, &end, 10);

	for (size_t i = 0; *text >= '0' && *text <= '9' &&
	    i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0 && v <= LR_KEEP_OUTPUT_MAX &&
		    v * units[i].mult <= LR_KEEP_OUTPUT_MAX) {
			*dst = (int)(v * units[i].mult);
			return 1;
		}
	return lr_errf(e, EX_CONFIG, "expected a size from 0 to 256KiB (e.g. 4096, 16KiB), "
	    "got \"%s\"", text);
}

/* A window of the day, "HH:MM-HH:MM" (core/window.h), kept as written. */
static int
set_window(char **dst, const char *text, struct lr_err *e)
{
	struct lr_window w;
	const char *why = window_parse(text, &w);

	if (why != NULL)
		return lr_errf(e, EX_CONFIG, "\"%s\" %s", text, why);
	free(*dst);
	if ((*dst = strdup(text)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	return 1;
}

/* One of words: its index into dst. */
static int
set_choice(const char *const *words, int *dst, const char *text, struct lr_err *e)
{
	char list[256];
	size_t len = 0;

	for (int i = 0; words[i]; i++)
		if (strcmp(words[i], text) == 0) {
			*dst = i;
			return 1;
		}
	len = (size_t)snprintf(list, sizeof(list), "expected %s", words[0]);
	for (int i = 1; words[i] && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
		    words[i + 1] ? ", " : " or ", words[i]);
	return lr_errf(e, EX_CONFIG, "%s, got \"%s\"", list, text);
}

int
task_setting(const struct lr_task *t, size_t i, const char **name, char *buf, size_t n)
{
	const struct option_def *o;
	const char *at;
	long long v;

	if (i >= sizeof(options) / sizeof(options[0]))
		return -1;
	o = &options[i];
	at = (const char *)t + o->off;
	*name = o->name;
	if (strcmp(o->name, "on_redis_error") == 0)	/* on_server_error's old name */
		return 0;
	if (o->kind == K_STRING || o->kind == K_WINDOW) {
		const char *s = *(char *const *)at;

		if (s == NULL)
			return 0;
		snprintf(buf, n, "%s", s);
		return 1;
	}
	v = o->kind == K_DURATION ? *(const long long *)at : *(const int *)at;
	if (v == LR_UNSET)
		return 0;
	switch (o->kind) {
	case K_BOOL:
		snprintf(buf, n, "%s", v ? "true" : "false");
		break;
	case K_DURATION:
		duration_format(v, buf, n);
		break;
	case K_CHOICE:
		snprintf(buf, n, "%s", o->words[v]);
		break;
	default:	/* K_EXIT, K_COUNT, K_LIMIT, K_BYTES */
		snprintf(buf, n, "%lld", v);
		break;
	}
	return 1;
}

int
task_set(struct lr_task *t, const char *name, const char *text, struct lr_err *e)
{
	const struct option_def *o = NULL;
	char *dst;

	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (strcmp(options[i].name, name) == 0)
			o = &options[i];
	if (o == NULL)
		return 0;
	dst = (char *)t + o->off;
	switch (o->kind) {
	case K_BOOL:
		return set_bool((int *)dst, text, e);
	case K_DURATION:
		return set_duration(o, (long long *)dst, text, e);
	case K_EXIT:
		return set_exit((int *)dst, text, e);
	case K_COUNT:
		return set_count((int *)dst, text, e);
	case K_LIMIT:
		return set_limit((int *)dst, text, e);
	case K_BYTES:
		return set_bytes((int *)dst, text, e);
	case K_STRING:
		if (*text == '\0') {
			return lr_errf(e, EX_CONFIG, "is empty");
		}
		free(*(char **)dst);
		if ((*(char **)dst = strdup(text)) == NULL) {
			return lr_errf(e, EX_OSERR, "out of memory");
		}
		return 1;
	case K_CHOICE:
		return set_choice(o->words, (int *)dst, text, e);
	case K_WINDOW:
		return set_window((char **)dst, text, e);
	}
	return 0;
}

/* The schedule, its zone and the tolerance, whenever given (given: every
 * or slot_tolerance was, before the built-in values), into sched: a
 * tolerance that cannot work for its period is refused even where no slot
 * is claimed, since tick and cron claim them. */
static int
check_slots(const struct lr_task *t, int given, struct lr_schedule *sched,
    struct lr_err *e)
{
	struct lr_err se;
	int pos;

	if (!t->one_server && !t->schedule && !t->timezone && !given)
		return 0;
	if (schedule_init(sched, t->schedule, t->timezone, t->every_ms,
	    t->slot_tolerance_ms, &pos, &se) == 0)
		return 0;
	if (pos >= 0)
		return lr_errf(e, EX_CONFIG, "schedule \"%s\": %s", t->schedule, se.msg);
	return lr_errf(e, EX_CONFIG, "%s", se.msg);
}

int
task_inherit_defaults(struct lr_task *t, const struct lr_task *defaults)
{
	/* one meaning for a schedule: a run that has one claims its slot
	 * once across the fleet and never overlaps, unless told otherwise,
	 * however it starts (a crontab line, tick, cron, by hand). The
	 * defaults' every is only the slots' length for one-server runs
	 * without a schedule; their schedule is every task's schedule */
	int scheduled = t->schedule != NULL || t->every_ms != LR_UNSET;

	if (task_inherit(t, defaults) != 0)
		return -1;
	/* @reboot has no slot: one-server does not apply (task_finish()) */
	if (t->schedule && strcmp(t->schedule, LR_REBOOT) == 0 && t->one_server == LR_UNSET)
		t->one_server = 0;
	/* run_on: all runs on every server at once: the no-overlap lock is
	 * the fleet's one (prefix{name}), so it is off unless named, and
	 * named it is refused (task_finish()) */
	if (t->run_on == RUN_ON_ALL && t->no_overlap == LR_UNSET && t->concurrency == LR_UNSET)
		t->no_overlap = 0;
	/* concurrency: names no_overlap, at its level (task_inherit()) */
	if (t->concurrency != LR_UNSET && t->no_overlap == LR_UNSET)
		t->no_overlap = t->concurrency != CONCURRENCY_ALLOW;
	if (scheduled || t->schedule != NULL) {
		if (t->one_server == LR_UNSET)
			t->one_server = 1;
		if (t->no_overlap == LR_UNSET)
			t->no_overlap = 1;
	}
	return 0;
}

int
task_resolve(struct lr_task *t, const struct lr_task *over, const struct lr_task *task,
    const struct lr_task *defaults, struct lr_schedule *sched, struct lr_err *e)
{
	if ((over && task_inherit(t, over) != 0) || (task && task_inherit(t, task) != 0) ||
	    task_inherit_defaults(t, defaults) != 0)
		return lr_errf(e, EX_OSERR, "out of memory");
	return task_finish(t, sched, e);
}

const char *
task_no_effect(const struct lr_task *given, const struct lr_task *t, int cmdline,
    const char **setting)
{
	static const char off[] = "has no effect: one-server is off (no slot is claimed)";

	if (given->slot_tolerance_ms != LR_UNSET && t->one_server != 1)
		return *setting = "slot_tolerance", off;
	if (given->timezone && t->schedule == NULL && t->between == NULL &&
	    t->not_between == NULL)
		return *setting = "timezone", "has no effect without a cron schedule "
		    "or a window (every: cuts periods from the epoch; between: and "
		    "not_between: are read on its clock)";
	if (given->every_ms != LR_UNSET && t->one_server != 1 && t->schedule == NULL)
		return *setting = "every", off;
	if (cmdline && given->schedule && t->one_server != 1)
		return *setting = "schedule", "has no effect: one-server is off (a run "
		    "started by hand claims no slot; tick and cron read a schedule from "
		    "the config)";
	return *setting = NULL, NULL;
}

int
task_concurrency_check(const struct lr_task *t, struct lr_err *e)
{
	if (t->concurrency == LR_UNSET || t->no_overlap == LR_UNSET)
		return 0;
	if (t->no_overlap != (t->concurrency != CONCURRENCY_ALLOW))
		return lr_errf(e, EX_CONFIG, "concurrency: %s contradicts no_overlap: %s "
		    "(forbid and replace are no_overlap: true, allow is no_overlap: false; give "
		    "one of them)", concurrency_words[t->concurrency],
		    t->no_overlap ? "true" : "false");
	return 0;
}

int
task_finish(struct lr_task *t, struct lr_schedule *sched, struct lr_err *e)
{
	struct lr_schedule unused;
	char a[32], b[32];
	int slots_given = t->every_ms != LR_UNSET || t->slot_tolerance_ms != LR_UNSET;

	if (task_concurrency_check(t, e) != 0)
		return -1;
	/* run_on: all: a slot key per server (keys_slot_host()), so a slot */
	if (t->run_on == RUN_ON_ALL && t->one_server != 1)
		return lr_errf(e, EX_CONFIG, "run_on: all needs one-server (a schedule): it "
		    "claims each slot once per server");
	if (t->run_on == RUN_ON_ALL && t->no_overlap == 1)
		return lr_errf(e, EX_CONFIG, "no_overlap does not go with run_on: all: its "
		    "lock is one for the whole fleet, and every server runs the slot at "
		    "once (a per-server no-overlap lock is not built yet)");
	if (t->run_on == RUN_ON_ALL && t->limit > 1)
		return lr_errf(e, EX_CONFIG, "limit does not go with run_on: all: each server "
		    "claims its own slot once, there are no places to share");
	/* no-overlap unless one-server is what was asked for: switching
	 * one_server off must not leave a run with no lock at all */
	if (t->no_overlap == LR_UNSET)
		t->no_overlap = t->one_server != 1;
	if (!t->no_overlap && t->one_server != 1) {
		return lr_errf(e, EX_CONFIG, "no_overlap and one_server are both off: there is "
		    "nothing to lock");
	}
	if (task_inherit(t, &task_builtin) != 0) {
		return lr_errf(e, EX_OSERR, "out of memory");
	}
	if (t->kill_after_ms == LR_UNSET)
		t->kill_after_ms = t->ttl_ms / 3 < DEFAULT_KILL_AFTER_MS ?
		    t->ttl_ms / 3 : DEFAULT_KILL_AFTER_MS;
	/* a lost lock must be able to stop the command, SIGKILL included,
	 * before the lease ends, and still leave room to renew */
	if (t->no_overlap && t->renew && t->on_lost == ON_LOST_TERM &&
	    t->kill_after_ms > t->ttl_ms / 3) {
		return lr_errf(e, EX_CONFIG, "kill_after %s must be at most a third of ttl %s "
		    "(a lost lock must be stopped before the lease ends)",
		    duration_format(t->kill_after_ms, a, sizeof(a)),
		    duration_format(t->ttl_ms, b, sizeof(b)));
	}
	if (t->schedule && strcmp(t->schedule, LR_REBOOT) == 0 && t->one_server == 1)
		return lr_errf(e, EX_CONFIG, "one_server does not apply to @reboot: a boot "
		    "has no slot, each host runs the task once per boot of its own");
	if (t->group && !t->user)
		return lr_errf(e, EX_CONFIG, "group needs a user to run as (give user too)");
	if (check_slots(t, slots_given, sched ? sched : &unused, e) != 0)
		return -1;
	if (t->min_hold_ms > 0 && !t->no_overlap) {
		return lr_errf(e, EX_CONFIG, "min_hold applies to the no-overlap lock, which is off");
	}
	if (t->min_hold_ms > 0 && t->one_server && !t->schedule &&
	    t->min_hold_ms > t->every_ms) {
		return lr_errf(e, EX_CONFIG, "min_hold %s is longer than the slot (every %s)",
		    duration_format(t->min_hold_ms, a, sizeof(a)),
		    duration_format(t->every_ms, b, sizeof(b)));
	}
	return 0;
}

/* What lockrun itself gives the command (cli/run.c, export_env()): a task's
 * env applies after it, so it could forge the token or the key. */
static const char *const own_env[] = {
	"LOCKRUN_KEY", "LOCKRUN_TOKEN", "LOCKRUN_TASK", "LOCKRUN_SLOT", "LOCKRUN_ATTEMPT",
};

/* Is name one a task may set? Returns 0, or -1 with e. */
static int
env_name_check(const char *name, struct lr_err *e)
{
	if (*name == '\0' || strchr(name, '=') != NULL ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_") != strlen(name) || (*name >= '0' && *name <= '9')) {
		return lr_errf(e, EX_CONFIG, "\"%s\" is not a valid environment variable name", name);
	}
	for (size_t i = 0; i < sizeof(own_env) / sizeof(own_env[0]); i++) {
		if (strcmp(name, own_env[i]) == 0) {
			return lr_errf(e, EX_CONFIG, "%s is set by lockrun itself", name);
		}
	}
	return 0;
}

int
task_add_env(struct lr_task *t, const char *name, const char *value, struct lr_err *e)
{
	size_t cnt = strv_len(t->env);
	char **v, *kv;

	if (env_name_check(name, e) != 0)
		return -1;
	if ((v = realloc(t->env, (cnt + 2) * sizeof(*v))) == NULL)
		goto oom;
	t->env = v;		/* v[cnt] is still the terminator */
	if ((kv = malloc(strlen(name) + strlen(value) + 2)) == NULL)
		goto oom;
	sprintf(kv, "%s=%s", name, value);
	v[cnt] = kv;
	v[cnt + 1] = NULL;
	return 0;
oom:
	return lr_errf(e, EX_OSERR, "out of memory");
}
