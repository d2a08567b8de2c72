/* SPDX-License-Identifier: BSD-2-Clause */
/* due_test.c -- the scheduler's backoff for a run that could not reach
 * the server (due_retry_s()). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "sched/due.h"

#define SLOT 1781524800	/* 2026-06-15T12:00:00Z */

Test(due, a_retry_waits_half_the_time_since_the_fire_time)
{
	cr_assert(eq(i64, due_retry_s(SLOT, SLOT, -1), 1));	/* at once: 1s */
	cr_assert(eq(i64, due_retry_s(SLOT, SLOT + 1, -1), 1));
	cr_assert(eq(i64, due_retry_s(SLOT, SLOT + 4, -1), 2));
	cr_assert(eq(i64, due_retry_s(SLOT, SLOT + 9, -1), 4));
	cr_assert(eq(i64, due_retry_s(SLOT, SLOT + 20, -1), 10));
	cr_assert(eq(i64, due_retry_s(SLOT, SLOT + 3600, -1), DUE_RETRY_MAX_S));
	/* a clock that went back: still a second, never now or before */
	cr_assert(eq(i64, due_retry_s(SLOT, SLOT - 30, -1), 1));
}

Test(due, the_random_part_takes_off_at_most_half)
{
	for (long rnd = 0; rnd < 100; rnd++) {
		long long w = due_retry_s(SLOT, SLOT + 40, rnd);
		cr_assert(w >= 5 && w <= 10, "rnd %ld: %lld", rnd, w);
		cr_assert(eq(i64, due_retry_s(SLOT, SLOT + 1, rnd), 1));
	}
	cr_assert(eq(i64, due_retry_s(SLOT, SLOT + 40, 5), 5));
	cr_assert(eq(i64, due_retry_s(SLOT, SLOT + 40, 6), 10));
}
