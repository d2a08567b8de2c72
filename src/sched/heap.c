/* SPDX-License-Identifier: BSD-2-Clause */
/* heap.c -- a binary min-heap in an array, ordered by fire time. */
#include <stdlib.h>

#include "sched/heap.h"

static void
swap(struct heap_entry *a, struct heap_entry *b)
{
	struct heap_entry t = *a;

	*a = *b;
	*b = t;
}

int
heap_push(struct heap *h, time_t at, size_t task, time_t retry)
{
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 16;
		struct heap_entry *v = realloc(h->v, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		h->v = v;
		h->cap = cap;
	}
	i = h->n++;
	h->v[i] = (struct heap_entry){ at, task, retry };
	while (i > 0 && h->v[(i - 1) / 2].at > h->v[i].at) {	/* sift up */
		swap(&h->v[(i - 1) / 2], &h->v[i]);
		i = (i - 1) / 2;
	}
	return 0;
}

int
heap_pop(struct heap *h, struct heap_entry *out)
{
	size_t i = 0;

	if (h->n == 0)
		return -1;
	*out = h->v[0];
	h->v[0] = h->v[--h->n];
	for (;;) {		/* sift down */
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && h->v[l].at < h->v[m].at)
			m = l;
		if (r < h->n && h->v[r].at < h->v[m].at)
			m = r;
		if (m == i)
			return 0;
		swap(&h->v[i], &h->v[m]);
		i = m;
	}
}

const struct heap_entry *
heap_top(const struct heap *h)
{
	return h->n ? &h->v[0] : NULL;
}

void
heap_free(struct heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
