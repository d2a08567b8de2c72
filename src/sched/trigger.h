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
 * runs'), and the prefix of the keys. */
struct trigger_src {
	struct lr_backend	*be;
	const char		*prefix;
	int			 failing;	/* the last look failed (said once) */
};

/* crond_opts.poll: take the triggers of the n tasks t (arg: a struct
 * trigger_src), setting taken[i] for each task whose trigger this
 * scheduler took. Returns 0, or -1 (logged once until a look succeeds;
 * the connection is closed and opened again at the next look). */
int	trigger_take(void *arg, const struct sched_task *t, size_t n, unsigned char *taken);

#endif
