/* SPDX-License-Identifier: BSD-2-Clause */
/* due.c -- a config's scheduled tasks, merged as a run merges them, and the
 * slot rule applied to find the ones due. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/duration.h"
#include "core/task.h"
#include "core/text.h"
#include "core/where.h"
#include "core/window.h"
#include "core/zone.h"
#include "out/log.h"
#include "sched/due.h"

/* Merge task over the defaults and complete it; 1 if it has a schedule
 * and runs on host (NULL: any; one left out is said). */
static int
merge_one(const struct lr_config *cfg, const char *host, const struct lr_task *task,
    struct sched_task *st, struct lr_err *e)
{
	char why[300];
	struct lr_task t;
	struct lr_err te;
	int rc = 0;

	/* every: schedules a task only where the task says it: in defaults it
	 * is the slot length of crontab runs, as it always was */
	if (task->schedule == NULL && cfg->defaults.schedule == NULL &&
	    task->every_ms == LR_UNSET)
		return 0;
	st->name = task->name;
	/* its protections are a run's (task_inherit_defaults(): a schedule
	 * means one-server and no-overlap unless the task says otherwise) */
	task_init(&t);
	if (task_resolve(&t, NULL, task, &cfg->defaults, &st->sched, &te) != 0) {
		char file[4096];

		config_task_file(cfg, task->name, file, sizeof(file));
		rc = te.status == EX_OSERR ? lr_errf(e, EX_OSERR, "%s", te.msg) :
		    lr_errf(e, te.status, "%s: tasks.%s: %s", file, task->name, te.msg);
	}
	else {
		st->deadline_ms = t.starting_deadline_ms;
		st->random_delay_ms = t.random_delay_ms;
		st->conflict_exit = t.conflict_exit;
		st->output_inherit = t.output && strcmp(t.output, "inherit") == 0;
		st->one_server = t.one_server;
		st->history = t.history;
		st->history_ttl_ms = t.history_ttl_ms;
		st->on_missed = t.on_missed != NULL;
		st->ttl_ms = t.ttl_ms;
		st->clock_tol_ms = t.clock_tolerance_ms != LR_UNSET ? t.clock_tolerance_ms :
		    LR_CLOCK_TOLERANCE_FACTOR * st->sched.tolerance_ms;
		st->run_on_all = t.run_on == RUN_ON_ALL;
		st->limit = t.limit;
		/* the config's own (t's are copies, freed below): the task's,
		 * else the defaults', as task_inherit() chose */
		st->hosts = task->hosts ? task->hosts : cfg->defaults.hosts;
		st->host_match = task->host_match ? task->host_match :
		    cfg->defaults.host_match;
		st->between = task->between ? task->between : cfg->defaults.between;
		st->not_between = task->not_between ? task->not_between :
		    cfg->defaults.not_between;
		st->timezone = task->timezone ? task->timezone : cfg->defaults.timezone;
		rc = 1;
		if (host && !where_here(t.hosts, t.host_match, host, why, sizeof(why))) {
			lr_event(LOG_INFO, "not-here", NULL, "%s: not scheduled on this "
			    "host: %s", task->name, why);
			rc = 0;
		}
	}
	task_free(&t);
	return rc;
}

int
due_tasks(const struct lr_config *cfg, const char *host, struct sched_task **out,
    size_t *n, struct lr_err *e)
{
	struct sched_task *v = calloc(cfg->ntasks + 1, sizeof(*v));

	*out = v;
	*n = 0;
	if (v == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	for (size_t i = 0; i < cfg->ntasks; i++) {
		int rc = merge_one(cfg, host, &cfg->tasks[i], &v[*n], e);
		if (rc < 0)
			return -1;
		*n += (size_t)rc;
	}
	return 0;
}

/* floor(a / b) for b > 0, also for a < 0 */
static long long
floor_div(long long a, long long b)
{
	return a / b - (a % b != 0 && a < 0);
}

int
due_now(const struct sched_task *t, long long now_ms)
{
	time_t slot = schedule_slot(&t->sched, now_ms);
	long long minute = floor_div(now_ms + t->sched.tolerance_ms, 60000) * 60;

	return slot != (time_t)-1 && (long long)slot >= minute;
}

int
due_window(const struct sched_task *t, time_t slot)
{
	const struct lr_zone *z;
	struct lr_err ze;
	char why[300], at[TEXT_ISO_MAX];

	if (t->between == NULL && t->not_between == NULL)
		return 1;
	/* checked when the config was read; a zone file gone since is UTC */
	if ((z = zone_load(t->timezone ? t->timezone : "", &ze)) == NULL)
		z = zone_utc();
	if (window_allows(t->between, t->not_between, z, t->timezone ? t->timezone :
	    "local time", (long long)slot, why, sizeof(why)))
		return 1;
	lr_event(LOG_INFO, "skipped", NULL, "%s %s: skipped: %s", t->name,
	    text_iso((long long)slot * 1000, TEXT_ISO_S, at, sizeof(at)), why);
	return 0;
}

long long
due_retry_s(time_t slot, time_t now, long rnd)
{
	long long wait = ((long long)now - slot) / 2;

	if (wait < 1)
		wait = 1;
	if (wait > DUE_RETRY_MAX_S)
		wait = DUE_RETRY_MAX_S;
	return wait - (rnd < 0 ? 0 : rnd % (wait / 2 + 1));
}

int
due_delay(struct heap *h, const struct sched_task *t, size_t i, time_t slot, long long now_ms)
{
	long long delay = task_random_delay(t->name, slot, t->random_delay_ms);
	char at[TEXT_ISO_MAX], by[32];

	if (delay == 0 || now_ms >= (long long)slot * 1000 + delay ||
	    heap_push(h, slot + (time_t)(delay / 1000), i, slot) != 0)
		return 0;
	lr_event(LOG_INFO, "delayed", NULL, "%s: fire time %s starts %s after it "
	    "(random_delay)", t->name, text_iso((long long)slot * 1000, TEXT_ISO_S, at,
	    sizeof(at)), duration_human(delay, by, sizeof(by)));
	return 1;
}
