/* SPDX-License-Identifier: BSD-2-Clause */
/* due.h -- which of a config's tasks are scheduled, and when each is due. */
#ifndef LR_DUE_H
#define LR_DUE_H

#include <stddef.h>
#include <time.h>

#include "config/config.h"
#include "core/schedule.h"
#include "sched/heap.h"

/* One scheduled task as tick and cron see it: its name, its merged
 * settings' slots, how late a missed fire time may still start, and what
 * its skip exits with. */
struct sched_task {
	const char		*name;		/* the config's */
	struct lr_schedule	 sched;
	long long		 deadline_ms;	/* starting_deadline */
	long long		 random_delay_ms;	/* random_delay: 0, or whole seconds */
	int			 conflict_exit;	/* a skip's status */
	int			 output_inherit;	/* output: inherit: cron does not
						 * relay its lines */
	int			 one_server;	/* a slot record says whether a fire
						 * time ran anywhere */
	int			 history;	/* its history's settings, for */
	long long		 history_ttl_ms;	/* a missed slot's record */
	int			 on_missed;	/* it has an on_missed hook */
	long long		 ttl_ms;	/* its runs' lease: they renew every third */
	long long		 clock_tol_ms;	/* one-server: its runs' clock
						 * tolerance (0: no check) */
	int			 run_on_all;	/* run_on: all: every scheduler
						 * claims its own slot key, with no
						 * ranking, defer or missed record */
	int			 limit;		/* limit: N: a slot is N places,
						 * taken by the runs' acquires
						 * alone (no claim, no defer) */
	char *const		*hosts;		/* the hosts that run it (the
						 * config's), or NULL: where_here() */
	const char		*host_match;
	const char		*between;	/* its times of day (the config's),
						 * or NULL: due_window() */
	const char		*not_between;
	const char		*timezone;	/* their clock; NULL: local */
};

/* The tasks of cfg that have a schedule: (a task's own or the
 * defaults') or an every: of their own (one in defaults only sets the
 * slot length),
 * merged over the defaults as `lockrun -t NAME` merges them, into a new
 * array *out of *n. With host not NULL, only those that run on host
 * (hosts:, host_match:; core/where.h): each left out is said, once a
 * call. Every task must have been read (config_load() with
 * only NULL). Returns 0, or -1 with e (EX_CONFIG naming the task). */
int	due_tasks(const struct lr_config *cfg, const char *host, struct sched_task **out,
	    size_t *n, struct lr_err *e);

/* Is task t due at now_ms: is its slot (the latest fire time at or before
 * now plus the tolerance, the rule a run applies) a fire time of the
 * minute now plus the tolerance falls in? A tick late by up to a minute
 * still finds the fire time it was started for. Meant for minute
 * schedules: tick leaves the others (schedule_subminute()) to cron. */
int	due_now(const struct sched_task *t, long long now_ms);

/* Is slot (a fire time) within t's times of day (between:, not_between:,
 * core/window.h), as a run of it would find (cli/when.c)? 1 if so (or t
 * has none); else 0, said ("skipped", with why): the slot is not
 * claimed, no run is started, nothing is recorded. */
int	due_window(const struct sched_task *t, time_t slot);

/* A run of slot could not reach the server at now: how many seconds
 * until it is tried again. Half the time since the fire time, from 1s up
 * to DUE_RETRY_MAX_S, so that a server back at once is tried at once and
 * one that stays away is not asked every second; of that, up to half
 * taken off by rnd (random()), so that a fleet's schedulers do not ask
 * together. */
#define DUE_RETRY_MAX_S	10
long long due_retry_s(time_t slot, time_t now, long rnd);

/* random_delay: slot of task t (index i) starts its delay after the
 * fire time (task_random_delay(), the same on every server), onto h as a
 * retry is. Returns 1 if so (said), 0 when it starts now. */
int	due_delay(struct heap *h, const struct sched_task *t, size_t i, time_t slot,
	    long long now_ms);

#endif
