/* SPDX-License-Identifier: BSD-2-Clause */
/* start_queue_test.c -- the scheduler's runs to start, first due first
 * (sched/start_queue.c), and which of its runs are still getting ready
 * (sched/run_table.c), which decides how many more it starts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "sched/run_table.h"
#include "sched/start_queue.h"

/* Pushes and pops interleaved across the queue's growth and its move to
 * the front: every start comes out once, in the order it went in. */
Test(start_queue, come_out_first_in_first_out_across_growth)
{
	struct start_queue q = { 0 };
	struct start_entry e;
	char name[32];
	int next_in = 0, next_out = 0;

	for (int round = 0; round < 50; round++) {
		for (int k = 0; k < 7; k++, next_in++) {
			snprintf(name, sizeof(name), "t%d", next_in);
			cr_assert(eq(int, start_queue_push(&q, name, (time_t)next_in), 0));
		}
		for (int k = 0; k < 5; k++, next_out++) {
			cr_assert(eq(int, start_queue_pop(&q, &e), 1));
			snprintf(name, sizeof(name), "t%d", next_out);
			cr_assert(eq(str, e.task, name));
			cr_assert(eq(i64, (long long)e.slot, next_out));
		}
	}
	while (start_queue_pop(&q, &e) == 1) {
		snprintf(name, sizeof(name), "t%d", next_out);
		cr_assert(eq(str, e.task, name));
		next_out++;
	}
	cr_assert(eq(int, next_out, next_in));
	cr_assert(eq(int, start_queue_pop(&q, &e), 0));
	start_queue_free(&q);
}

Test(start_queue, a_stop_drops_what_was_not_started)
{
	struct start_queue q = { 0 };
	struct start_entry e;

	cr_assert(eq(int, start_queue_push(&q, "a", 1), 0));
	cr_assert(eq(int, start_queue_push(&q, "b", (time_t)-1), 0));
	cr_assert(eq(sz, start_queue_clear(&q), 2));
	cr_assert(eq(int, start_queue_pop(&q, &e), 0));
	cr_assert(eq(int, start_queue_push(&q, "c", 3), 0));
	cr_assert(eq(int, start_queue_pop(&q, &e), 1));
	cr_assert(eq(str, e.task, "c"));
	start_queue_free(&q);
}

/* Getting ready: alive, its socket open, and it has not told it took its
 * lock, skipped, or waits for a held one. */
Test(start_queue, only_runs_not_yet_decided_are_getting_ready)
{
	struct run_table t = { 0 };
	struct running *r;

	for (int i = 0; i < 6; i++) {
		cr_assert(ne(ptr, (r = run_table_add(&t)), NULL));
		r->pid = 100 + i;
		r->was = r->pid;
		r->lease = 10 + i;
	}
	t.v[1]->outcome.ran = 1;
	t.v[2]->outcome.skipped = 1;
	t.v[3]->outcome.waiting = 1;
	t.v[4]->pid = 0;		/* reaped */
	cr_assert(eq(sz, run_table_starting(&t), 2));
	t.v[5]->lease = -1;	/* its socket ended */
	cr_assert(eq(sz, run_table_starting(&t), 1));
	cr_assert(eq(sz, run_table_live(&t), 5));
	cr_assert(run_table_was(&t, 104));
	cr_assert(not(run_table_was(&t, 99)));
	run_table_free(&t);
}

/* A task's start for a slot taken out of the queue (a scheduler whose
 * server is away gives a held start up for the task's next one): the
 * first of that task, not a triggered one, the order of the rest kept. */
Test(start_queue, take_removes_the_first_slot_start_of_a_task)
{
	struct start_queue q = { 0 };
	struct start_entry e;

	cr_assert(eq(int, start_queue_push(&q, "a", (time_t)-1), 0));	/* triggered */
	cr_assert(eq(int, start_queue_push(&q, "b", 60), 0));
	cr_assert(eq(int, start_queue_push(&q, "a", 60), 0));
	cr_assert(eq(int, start_queue_push(&q, "c", 60), 0));
	cr_assert(eq(int, start_queue_take(&q, "a", &e), 1));
	cr_assert(eq(str, e.task, "a"));
	cr_assert(eq(i64, (long long)e.slot, 60));
	cr_assert(eq(int, start_queue_take(&q, "a", &e), 0), "a triggered start stays");
	cr_assert(eq(int, start_queue_take(&q, "d", &e), 0));
	cr_assert(eq(int, start_queue_pop(&q, &e), 1));
	cr_assert(eq(str, e.task, "a"));
	cr_assert(eq(i64, (long long)e.slot, -1));
	cr_assert(eq(int, start_queue_pop(&q, &e), 1));
	cr_assert(eq(str, e.task, "b"));
	cr_assert(eq(int, start_queue_take(&q, "c", &e), 1));
	cr_assert(eq(int, start_queue_pop(&q, &e), 0));
	start_queue_free(&q);
}
