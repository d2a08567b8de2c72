/* SPDX-License-Identifier: BSD-2-Clause */
/* away.h -- while the lock server is away, the scheduler forks nothing.
 * A run forked while its server refuses connections (or the connection is
 * cut) takes no lock, exits 69 and is forked again after a backoff: a fork,
 * its setup and a few lines each time, hundreds in a minute's outage. So
 * before it starts what is due, cron asks its own connection (leases.h)
 * whether the server answers (ops.h's ping, one round trip, over the
 * connection its runs' lock requests go over; not when the server answered
 * within AWAY_FRESH_MS), and while it does not:
 *
 *  - the starts due wait in the queue (start_queue.h), forking nothing; a task's
 *    start waiting there gives way to its next fire time, as a start that
 *    late could no longer claim its slot: that slot is given up;
 *  - the server is asked again after a backoff, on the monotonic clock,
 *    from AWAY_FIRST_MS doubling to AWAY_MAX_MS, up to half of it taken
 *    off at random (so that a fleet's schedulers do not ask together);
 *  - once it answers, the starts waiting go, but those past their task's
 *    starting_deadline or their next fire time: given up.
 *
 * It says one line when the server goes away, one when it is back (how
 * many slots were given up meanwhile), and one per task for the first slot
 * it gives up in an outage (the others counted in the line when it is
 * back); a given-up one-server minute slot is recorded as missed for the
 * fleet (missed.h). Runs in progress are not touched: their renewals go on
 * over the connection as before. */
#ifndef LR_SCHED_AWAY_H
#define LR_SCHED_AWAY_H

#include <stddef.h>
#include <time.h>

#include "sched/due.h"
#include "sched/heap.h"
#include "sched/leases.h"
#include "sched/missed.h"
#include "sched/run_table.h"
#include "sched/start_queue.h"

#define AWAY_FIRST_MS	1000	/* the first ask after the server went away */
#define AWAY_MAX_MS	10000	/* doubling up to this */
#define AWAY_FRESH_MS	1000	/* an answer this recent: starts go unasked */

struct away {
	struct leases	*ls;		/* the scheduler's connection; NULL: the
					 * runs connect themselves, nothing held */
	int		 down;		/* the server did not answer */
	long long	 seen_ms;	/* mono: it last answered */
	long long	 down_ms;	/* mono: it went away */
	long long	 next_ms;	/* mono: ask again then */
	long long	 wait_ms;	/* the backoff now */
	char		**said;		/* tasks whose slot given up was said */
	size_t		 nsaid;
	unsigned long	 quiet;		/* slots given up, not said one by one */
	size_t		 recheck;	/* starts queued when it came back: each
					 * is looked at before it goes */
	char		 why[512];	/* what the last ask found */
};

/* May the due starts (due of them) go now? 1, or 0 while the server is
 * away (said when it goes, and when it is back; recheck is set then to
 * due). Asks the server, within the connection's timeouts, when it is
 * away and the backoff is over, or when due > 0 and it has not answered
 * for AWAY_FRESH_MS; never when a->ls is NULL. */
int	away_ready(struct away *a, size_t due, long long now_mono);

/* The start of slot of task t, popped from the queue at now_ms (wall):
 * when it was queued before the server came back (a->recheck), and its
 * starting_deadline or its next fire time has passed, it is given up
 * (away_gave_up()): returns 1; else 0, and it starts. */
int	away_late(struct away *a, const struct sched_task *t, time_t slot, long long now_ms,
	    struct missed_queue *mq);

/* While the server is away: the starts held in q (those of the n tasks
 * t, for a slot) whose starting_deadline or next fire time passed by
 * now_ms (wall) are given up (away_gave_up()) and taken out of q. */
void	away_expire(struct away *a, struct start_queue *q, const struct sched_task *t, size_t n,
	    long long now_ms, struct missed_queue *mq);

/* Slot of task t will not start here (why: "its next fire time came"):
 * said, the first of t in this outage, else counted; noted as missed
 * (missed_note()). */
void	away_gave_up(struct away *a, const struct sched_task *t, time_t slot, const char *why,
	    struct missed_queue *mq);

/* Run r took no lock because the server could not be reached (69, r's
 * report says it ran nothing): its slot onto h (as a retry: heap.h), its
 * task's index among the n tasks t, after a backoff (due_retry_s()) if
 * that is within the task's starting_deadline, and said; the server is
 * asked before the next start. Returns 1 if it will be tried again, else
 * 0. */
int	away_retry(struct away *a, struct heap *h, const struct sched_task *t, size_t n,
	    const struct running *r);

/* When to wake for the next ask, on the wall clock (ms), given now on
 * both clocks; 0 when none is due (the server is not away). */
long long away_wake_ms(const struct away *a, long long now_real, long long now_mono);

void	away_free(struct away *a);

#endif
