/* SPDX-License-Identifier: BSD-2-Clause */
/* start_queue.h -- the runs the scheduler has to start, in the order they
 * came due, started a few at a time (crond.c): at most STARTS_AT_ONCE runs
 * getting ready at once (forked, and not yet said whether they took their
 * lock), and the scheduler's loop turning between starts, so that it
 * answers its runs' lock requests -- their renewals too -- while a
 * thousand tasks due at one fire time start. A thousand runs forked at
 * once, all getting ready together on a few CPUs, left the scheduler a
 * thousandth of them: the starts took 50 s, and renewals went unanswered
 * long enough for leases to be given up (lockrun(7), AT FLEET SCALE). */
#ifndef LR_SCHED_START_QUEUE_H
#define LR_SCHED_START_QUEUE_H

#include <stddef.h>
#include <time.h>

#define STARTS_AT_ONCE	32

struct start_entry {
	char	task[256];	/* its name: a config read again renumbers */
	time_t	slot;		/* below 0: triggered (crond.c, TRIGGERED()) */
};

struct start_queue {
	struct start_entry	*v;
	size_t			 head, n, cap;	/* v[head .. head + n - 1] */
};

/* Queue a start of task for slot. Returns 0, or -1 when out of memory. */
int	start_queue_push(struct start_queue *q, const char *task, time_t slot);

/* The next start into *e, out of the queue. Returns 1, or 0 when empty. */
int	start_queue_pop(struct start_queue *q, struct start_entry *e);

/* Take the first start of task for a slot (not a triggered one) out of
 * the queue, into *e. Returns 1, or 0 when there is none. */
int	start_queue_take(struct start_queue *q, const char *task, struct start_entry *e);

/* Drop every start queued (a scheduler stopping); how many there were. */
size_t	start_queue_clear(struct start_queue *q);

void	start_queue_free(struct start_queue *q);

#endif
