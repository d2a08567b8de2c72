/* SPDX-License-Identifier: BSD-2-Clause */
/* crond.h -- `lockrun cron`: the foreground scheduler for containers and
 * systemd services. */
#ifndef LR_CROND_H
#define LR_CROND_H

#include "config/config.h"
#include "sched/claim.h"
#include "sched/defer.h"
#include "sched/leases.h"
#include "sched/starter.h"
#include "sched/view.h"

struct crond_opts {
	struct lr_config		*cfg;	/* read whole; replaced on SIGHUP */
	const struct sched_spawner	*sp;
	int				 json;	/* --log json: output as records */
	/* told of the tasks and counts when ready and after each start,
	 * end and reload, in the scheduler's thread; NULL: nobody */
	void				(*watch)(void *arg, const struct crond_view *v);
	void				*watch_arg;
	const char			*server;	/* the runs' URL, for people */
	const char			*host;		/* this host, as runs name it: a
							 * task not on it is not scheduled */
	/* every TRIGGER_POLL_S (trigger.h), take the triggers of the tasks:
	 * taken[i] 1 for each to start a triggered run of, marked as taken
	 * at the second at (trigger_take_id()); 0, or -1 (it said
	 * why; those taken before the failure start too). NULL: none are
	 * looked for */
	int				(*poll)(void *arg, const struct sched_task *t,
					    size_t n, unsigned char *taken, time_t at);
	void				*poll_arg;
	struct missed_src		*missed;	/* where missed slots are
							 * recorded (missed.h), or NULL */
	struct defer_src		*claims;	/* the slot claims the server
							 * pushes (defer.h), or NULL */
	struct claim_src		*claim;		/* where a turn's slots are
							 * claimed before their runs
							 * are forked (claim.h), or
							 * NULL */
	struct leases			*leases;	/* the connection the runs' lock
						 * requests go over (sp->lease_url
						 * set), or NULL */
};

/* Sleep until the next fire time of any task (one absolute CLOCK_REALTIME
 * timer that a clock step cancels), start each task then due as its own
 * run (starter_spawn(), pinned to its fire time), relay the runs' output line
 * by line, and keep going. A fire time missed (a clock step, a pause) runs
 * once, late, if its task's starting_deadline allows, else is logged as
 * missed; the older ones are never caught up; a slot started is never
 * started again here, whatever the clock does, but when its run could
 * not reach the server (69, no lock taken): then after a backoff (due.h) while
 * within the starting_deadline. While the server does not answer its
 * connection (o->leases), it forks nothing: the starts due wait, and go
 * once it answers if still within their starting_deadline (away.h); a
 * timer, poll(2) or signal read that fails stops it, -1 with EX_OSERR, its
 * runs told as by SIGTERM. It says what cron(8) says: ready, each
 * run's start and end or skip, each missed slot (report.h). SIGHUP reads the config
 * again (a bad one is logged and the old one kept); SIGTERM and SIGINT
 * stop starting, pass the signal on, wait for the runs. Returns 0 then,
 * or -1 with e when it cannot run at all, or could not go on. */
int	crond_run(const struct crond_opts *o, struct lr_err *e);

#endif
