/* SPDX-License-Identifier: BSD-2-Clause */
/* heap_test.c -- the scheduler's fire times (sched/heap.c): whatever the
 * order they are pushed in, they come out earliest first, each with its
 * task and its retry, and an empty heap says so. */
#include <stdlib.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "sched/heap.h"

Test(heap, an_empty_heap_has_no_top_and_pops_nothing)
{
	struct heap h = { 0 };
	struct heap_entry e;

	cr_assert(eq(ptr, (void *)heap_top(&h), NULL));
	cr_assert(eq(int, heap_pop(&h, &e), -1));
	heap_free(&h);
}

Test(heap, entries_come_out_earliest_first_with_their_task_and_retry)
{
	struct heap h = { 0 };
	struct heap_entry e;
	time_t last = 0;

	/* 1,000 fire times in a scrambled order (a multiplier prime to 1,000),
	 * each task's retry its own index negated */
	for (size_t i = 0; i < 1000; i++) {
		size_t t = (i * 617) % 1000;

		cr_assert(eq(int, heap_push(&h, (time_t)(100000 + t * 60), t, -(time_t)t), 0));
	}
	cr_assert(eq(i64, (long long)heap_top(&h)->at, 100000));
	for (size_t i = 0; i < 1000; i++) {
		cr_assert(eq(int, heap_pop(&h, &e), 0));
		cr_assert(e.at >= last, "entry %zu came out of order: %lld after %lld", i,
		    (long long)e.at, (long long)last);
		cr_assert(eq(i64, (long long)e.at, (long long)(100000 + e.task * 60)));
		cr_assert(eq(i64, (long long)e.retry, -(long long)e.task));
		last = e.at;
	}
	cr_assert(eq(int, heap_pop(&h, &e), -1));
	heap_free(&h);
}

Test(heap, equal_fire_times_all_come_out)
{
	struct heap h = { 0 };
	struct heap_entry e;
	unsigned seen = 0;

	for (size_t t = 0; t < 8; t++)
		cr_assert(eq(int, heap_push(&h, 500, t, 0), 0));
	cr_assert(eq(int, heap_push(&h, 400, 9, 0), 0));
	cr_assert(eq(int, heap_pop(&h, &e), 0));
	cr_assert(eq(sz, e.task, 9), "the earlier one first");
	while (heap_pop(&h, &e) == 0) {
		cr_assert(eq(i64, (long long)e.at, 500));
		seen |= 1u << e.task;
	}
	cr_assert(eq(u32, seen, 0xffu), "each task once");
	heap_free(&h);
}
