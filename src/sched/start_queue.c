/* SPDX-License-Identifier: BSD-2-Clause */
/* start_queue.c -- the runs to start, first due first started. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/start_queue.h"

int
start_queue_push(struct start_queue *q, const char *task, time_t slot)
{
	if (q->head + q->n == q->cap) {
		if (q->head > 0) {	/* room at the front: move down */
			memmove(q->v, q->v + q->head, q->n * sizeof(*q->v));
			q->head = 0;
		} else {
			size_t cap = q->cap ? q->cap * 2 : 64;
			struct start_entry *v = realloc(q->v, cap * sizeof(*v));

			if (v == NULL)
				return -1;
			q->v = v;
			q->cap = cap;
		}
	}
	snprintf(q->v[q->head + q->n].task, sizeof(q->v[0].task), "%s", task);
	q->v[q->head + q->n++].slot = slot;
	return 0;
}

int
start_queue_pop(struct start_queue *q, struct start_entry *e)
{
	if (q->n == 0)
		return 0;
	*e = q->v[q->head++];
	if (--q->n == 0)
		q->head = 0;
	return 1;
}

int
start_queue_take(struct start_queue *q, const char *task, struct start_entry *e)
{
	for (size_t i = q->head; i < q->head + q->n; i++)
		if (q->v[i].slot >= 0 && strcmp(q->v[i].task, task) == 0) {	/* not triggered */
			*e = q->v[i];
			memmove(&q->v[i], &q->v[i + 1], (q->head + q->n - i - 1) * sizeof(*q->v));
			if (--q->n == 0)
				q->head = 0;
			return 1;
		}
	return 0;
}

size_t
start_queue_clear(struct start_queue *q)
{
	size_t n = q->n;

	q->head = q->n = 0;
	return n;
}

void
start_queue_free(struct start_queue *q)
{
	free(q->v);
	*q = (struct start_queue){ NULL, 0, 0, 0 };
}
