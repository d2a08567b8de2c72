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

/* A take's mark (struct lr_take) holds a trigger for the task's
 * starting_deadline and this much more: its taker starts the run, and
 * tries again, within the starting_deadline from the take, and the last
 * try's acquire reaches the server within its command timeout; past the
 * mark, any scheduler takes it again (its taker died before the run
 * started). */
#define TRIGGER_TAKE_SLACK_MS	10000

/* The mark a take by this scheduler (pid, host) at the second at leaves,
 * into buf[n] ("host/pid/at"): a run started for it and its drop are
 * told it again from its slot (-at). */
void	trigger_take_id(char *buf, size_t n, const char *host, time_t at);

/* Where the triggers are: a backend of the scheduler's own (not the
 * runs'), and the prefix of the keys; the take's window (ops.h: its
 * offset, measured by each answer, moves the next take's). */
struct trigger_src {
	struct lr_backend	*be;
	const char		*prefix;
	const char		*host;		/* ours, for the take's mark */
	int			 failing;	/* the last look failed (said once) */
	struct lr_lock		 win;
};

/* crond_opts.poll: take the triggers of the n tasks t (arg: a struct
 * trigger_src), setting taken[i] to 1 for each task whose trigger this
 * scheduler took (marked: trigger_take_id(), at the second at); a take
 * refused by its window (the clocks further apart
 * than the last answer said) is made again at once, the window moved.
 * Returns 0, or -1 (logged once until a look succeeds; the connection is
 * closed and opened again at the next look), taken[i] set then too for
 * each trigger taken before the failure: its run is started all the same. */
int	trigger_take(void *arg, const struct sched_task *t, size_t n, unsigned char *taken,
	    time_t at);

/* A scheduler's look for triggered runs: poll (crond_opts.poll, NULL:
 * none) with arg, next at real_ms() next. */
struct trigger_look {
	int		(*poll)(void *arg, const struct sched_task *t, size_t n,
			    unsigned char *taken, time_t at);
	void		*arg;
	long long	 next;
};

/* At each expiry of the scheduler's timer: when l's next look came (or the
 * clock was stepped back so far that it would come late), take the
 * triggers of the n tasks t and call start(sarg, i, slot) for each task i
 * taken, slot the take's second, negated (a triggered start's); the next
 * look is TRIGGER_POLL_S later. */
void	trigger_check(struct trigger_look *l, long long now_ms, const struct sched_task *t,
	    size_t n, void (*start)(void *sarg, size_t i, time_t slot), void *sarg);

#endif
