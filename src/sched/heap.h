/* SPDX-License-Identifier: BSD-2-Clause */
/* heap.h -- a min-heap of fire times: the next one due is always on top,
 * so a thousand tasks cost no scan between fire times. */
#ifndef LR_HEAP_H
#define LR_HEAP_H

#include <stddef.h>
#include <time.h>

struct heap_entry {
	time_t	at;		/* the fire time, or when to try a slot again */
	size_t	task;		/* its index in the scheduler's tasks */
	time_t	retry;		/* the slot to start again at `at`; 0: none;
				 * below 0: a triggered run (crond.c) */
};

struct heap {
	struct heap_entry	*v;
	size_t			 n, cap;
};

/* Add an entry. Returns 0, or -1 when out of memory. */
int	heap_push(struct heap *h, time_t at, size_t task, time_t retry);

/* Take the earliest entry into *out. Returns 0, or -1 when empty. */
int	heap_pop(struct heap *h, struct heap_entry *out);

/* The earliest entry, or NULL when empty. */
const struct heap_entry *heap_top(const struct heap *h);

void	heap_free(struct heap *h);

#endif
