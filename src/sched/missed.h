/* SPDX-License-Identifier: BSD-2-Clause */
/* missed.h -- a fire time that passed its task's starting_deadline with
 * no run started for it here: the scheduler records it in the backend,
 * once across the fleet (ops.h's missed), over its own connection, and
 * starts the task's on_missed hook where it recorded it (missed.c). */
#ifndef LR_SCHED_MISSED_H
#define LR_SCHED_MISSED_H

#include <stddef.h>
#include <time.h>

#include "backend/ops.h"
#include "sched/due.h"
#include "sched/starter.h"

#define MISSED_QUEUE_MAX	1024	/* slots waiting for a reachable backend */

/* Where the slots are recorded: the scheduler's own backend (the one it
 * looks for triggers on), the keys' prefix, and the host named. */
struct missed_src {
	struct lr_backend	*be;
	const char		*prefix;
	const char		*host;
	int			 failing;	/* the last try failed (said once) */
};

/* The slots noticed and not recorded yet: one whose deadline has not
 * passed (a run that gave up a little before it), or the backend could not
 * be reached: looked at again no sooner than next_ms (0: at once). */
struct missed_queue {
	struct missed_slot {
		char		*task;
		time_t		 slot;
		long long	 due_ms;	/* the slot's deadline: not before */
	}		*v;
	size_t		 n, cap;
	long long	 next_ms;
};

/* Add slot of task to q, unless it is there, or q is full (said).
 * Whether any server ran it is for missed_flush() to find out. Only a
 * one-server task's minute slots can be decided by the fleet's record,
 * and only with a history: others are left out. */
void	missed_note(struct missed_queue *q, const struct sched_task *t, time_t slot);

/* A one-server start of slot of task t queued past the slot's next fire
 * time (behind a stalled connection, a busy scheduler): its claim could
 * find the slot key of a run that took the slot gone (backend/lock.c,
 * lock_window()), so it is not started. Says the slot missed here, once,
 * and notes it in q when it is the task's last slot started. Returns 1
 * then, else 0 (start it). */
int	missed_if_passed(struct missed_queue *q, const struct sched_task *t, time_t slot,
	    time_t last);

/* Record the slots of q whose task is among the n tasks t (others were
 * dropped from the config: forgotten), one round trip per slot, and start
 * the on_missed hook (sp, starter_spawn()) of each that this scheduler
 * recorded. On failure the rest stay, to be tried again TRIGGER_POLL_S
 * later (said once until a try succeeds). src NULL: the backend keeps no
 * missed slots; q is emptied. */
void	missed_flush(struct missed_queue *q, struct missed_src *src, long long now_ms,
	    const struct sched_task *t, size_t n, const struct sched_spawner *sp);

void	missed_free(struct missed_queue *q);

#endif
