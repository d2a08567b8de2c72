/* SPDX-License-Identifier: BSD-2-Clause */
/* defer.h -- the race a scheduler sits out. Every scheduler of a fleet
 * starts a run at each fire time of a task, and all but one are skipped:
 * for a task every second on five servers, five round trips a second. So
 * the server pushes each slot claim as it is made (ops.h, watch and
 * claims) to the schedulers that watch, and for a one-server task under a
 * minute (schedule_subminute()):
 *
 *  - a slot the scheduler was told is claimed starts nothing here;
 *  - a task whose last claim it was told of was another scheduler's is
 *    started late, by a quarter of its period at most 1s (never past its
 *    starting_deadline): by then the usual winner's claim has come, and
 *    the slot is skipped without a round trip; if it has not come (that
 *    scheduler died, is stopped, lost its server), the run starts and
 *    claims the slot, and this scheduler wins the next ones on time.
 *
 * A slot is skipped only on a claim the server made of that very slot key,
 * in the script that made it; everything else starts the run as before,
 * at most DEFER_MAX_MS late, within the slot (the tolerance is at most a
 * quarter of the period: schedule.h). So no slot goes unrun for the sake
 * of the saving, and the locks decide as they always did (lockrun(7)). */
#ifndef LR_SCHED_DEFER_H
#define LR_SCHED_DEFER_H

#include <stddef.h>
#include <time.h>

#include "backend/ops.h"
#include "sched/due.h"

#define DEFER_MAX_MS	1000	/* how late a task that lost is started */
#define DEFER_RETRY_MS	5000	/* a watch that failed is tried again, */
#define DEFER_RETRY_MAX_MS 60000	/* doubling up to this */

/* Where the claims come from: a backend of the scheduler's own, set up and
 * not connected, that serves nothing else; the keys' prefix, and this
 * host as runs name it in their locks' values. */
struct defer_src {
	struct lr_backend	*be;
	const char		*prefix;
	const char		*host;
};

struct defer {
	struct defer_src	*src;		/* NULL: no claims pushed */
	int			 up;		/* watching */
	int			 failing;	/* the last watch failed (said once) */
	long long		 next_ms;	/* wall ms: watch again then */
	long long		 retry_ms;	/* the wait before, or 0 */
	/* is pid one of this scheduler's runs? */
	int			(*ours)(void *arg, long pid);
	void			*ours_arg;
	struct defer_task {		/* per task name, what the claims said */
		char		*name;
		char		 told[KEY_MAX];	/* the last slot key claimed */
		int		 behind;	/* that claim was another's */
	}			*t;
	size_t			 nt, capt;
	struct defer_wait {		/* a start put off */
		char		*name;
		time_t		 slot;
		long long	 due_ms;	/* wall ms */
	}			*w;
	size_t			 nw, capw;
	unsigned long long	 skipped;	/* slots skipped on a claim */
};

/* Keep the claims of those of the n tasks t that can use them, and watch
 * them if none is watched yet (and the wait after the last failure is
 * over: DEFER_RETRY_MS, doubling to DEFER_RETRY_MAX_MS): connects, in the
 * caller's thread, within the connect timeout. */
void	defer_watch(struct defer *df, const struct sched_task *t, size_t n, long long now_ms);

/* The watch's socket, for poll(2), or -1. */
int	defer_fd(const struct defer *df);

/* The socket is readable: take in the claims that came. */
void	defer_read(struct defer *df);

/* Fire time slot of task t came at now_ms: 1 if the slot was claimed (told
 * so: start nothing), 2 if its start is put off (defer_due() starts it),
 * 0 to start it now. */
int	defer_hold(struct defer *df, const struct sched_task *t, time_t slot, long long now_ms);

/* Put the start of slot of task t off by defer_by() from now_ms, another
 * scheduler ranking first for it (claim.h): defer_due() starts it then.
 * Returns 1 when put off, 0 to start it now (no time to spare, or out of
 * memory). */
int	defer_put_off(struct defer *df, const struct sched_task *t, time_t slot, long long now_ms);

/* The earliest start put off, in wall ms; 0: none. */
long long defer_next_ms(const struct defer *df);

/* A start put off came at now_ms: 1 to start it; 0 when the slot was
 * claimed meanwhile (said), or the task's schedule is not what it was (a
 * config read again); -1 when its starting_deadline or its next fire time
 * has passed (a loop held up meanwhile): said missed here, once, as a
 * start too late anywhere else is (the caller notes it for the fleet). */
int	defer_go(struct defer *df, const struct sched_task *t, time_t slot, long long now_ms);

/* Hand each start put off that is due by now_ms to start(arg, name,
 * slot), which asks defer_go() first. */
void	defer_due(struct defer *df, long long now_ms,
	    void (*start)(void *arg, const char *name, time_t slot), void *arg);

void	defer_free(struct defer *df);

#endif
