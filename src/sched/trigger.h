/* SPDX-License-Identifier: BSD-2-Clause */
/* trigger.h -- how a scheduler learns of `lockrun trigger`: it asks the
 * backend every TRIGGER_POLL_S for the triggers of its tasks, in one round
 * trip, and starts a triggered run of each it took (trigger.c). */
#ifndef LR_SCHED_TRIGGER_H
#define LR_SCHED_TRIGGER_H

#include <stddef.h>

#include "backend/ops.h"
#include "sched/due.h"

#define TRIGGER_POLL_S	5	/* how often a scheduler looks */

/* Where the triggers are: a backend of the scheduler's own (not the
 * runs'), and the prefix of the keys; the take's window (ops.h: its
 * offset, measured by each answer, moves the next take's). */
struct trigger_src {
	struct lr_backend	*be;
	const char		*prefix;
	int			 failing;	/* the last look failed (said once) */
	struct lr_lock		 win;
};

/* crond_opts.poll: take the triggers of the n tasks t (arg: a struct
 * trigger_src), setting taken[i] to 1 for each task whose trigger this
 * scheduler took; a take refused by its window (the clocks further apart
 * than the last answer said) is made again at once, the window moved.
 * Returns 0, or -1 (logged once until a look succeeds; the connection is
 * closed and opened again at the next look), taken[i] set then too for
 * each trigger taken before the failure: its run is started all the same. */
int	trigger_take(void *arg, const struct sched_task *t, size_t n, unsigned char *taken);

/* A scheduler's look for triggered runs: poll (crond_opts.poll, NULL:
 * none) with arg, next at real_ms() next. */
struct trigger_look {
	int		(*poll)(void *arg, const struct sched_task *t, size_t n,
			    unsigned char *taken);
	void		*arg;
	long long	 next;
};

/* At each expiry of the scheduler's timer: when l's next look came (or the
 * clock was stepped back so far that it would come late), take the
 * triggers of the n tasks t and call start(sarg, i) for each task i taken;
 * the next look is TRIGGER_POLL_S later. */
void	trigger_check(struct trigger_look *l, long long now_ms, const struct sched_task *t,
	    size_t n, void (*start)(void *sarg, size_t i), void *sarg);

#endif
