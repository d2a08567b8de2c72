/* SPDX-License-Identifier: BSD-2-Clause */
/* view.h -- what a scheduler tells its watcher (cron --listen's page and
 * metrics): its tasks' next fire times and runs, and its counts. */
#ifndef LR_SCHED_VIEW_H
#define LR_SCHED_VIEW_H

#include <stddef.h>

#include "sched/due.h"
#include "sched/heap.h"

/* The start lag's histogram: a start's delay behind its fire time falls in
 * the first bucket whose bound (ms) is at least it, or past the last. */
#define CROND_LAG_BOUNDS	{ 10, 50, 100, 250, 500, 1000, 5000, 30000 }
#define CROND_LAG_NBOUNDS	8

/* One task as the scheduler sees it: its next fire time (Unix ms; -1:
 * none), its zone ("": the local one) and that zone's offset from UTC then,
 * whether its fire times can fall off a whole minute (schedule_subminute():
 * a reader shows their seconds), and its runs in progress. */
struct crond_task_view {
	const char	*name;
	const char	*tz;
	long long	 next_ms;
	long		 next_offset_s;
	int		 subminute;
	size_t		 running;
};

/* What the scheduler tells a watcher (crond_opts.watch) after each change:
 * borrowed for the call only. */
struct crond_view {
	const struct crond_task_view	*tasks;
	size_t				 ntasks;
	unsigned long long		 reloads, reload_failures;
	char				 reload_error[256];	/* why the last
							 * reload failed ("": it
							 * did not) */
	long long			 reload_error_ms;	/* when (Unix ms) */
	unsigned long long		 missed;	/* fire times not started */
	unsigned long long		 sat_out;	/* fire times started nowhere
							 * here: told they ran elsewhere
							 * (defer.h) */
	unsigned long long		 lag[CROND_LAG_NBOUNDS + 1];	/* per bucket */
	unsigned long long		 starts;
	long long			 lag_sum_ms;
};

/* A start lag_ms behind its fire time, into v's histogram (view.c). */
void	view_lag(struct crond_view *v, long long lag_ms);

/* Tell watch (NULL: nobody) the n tasks t, with their next fire times
 * from the heap h and running[i] runs in progress each, and the counts
 * in v. */
void	view_tell(struct crond_view *v, void (*watch)(void *arg,
	    const struct crond_view *v), void *arg, const struct sched_task *t, size_t n,
	    const struct heap *h, const size_t *running);

#endif
