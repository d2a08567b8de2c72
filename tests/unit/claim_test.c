/* SPDX-License-Identifier: BSD-2-Clause */
/* claim_test.c -- who claims a slot first (sched/claim.c): among a fleet's
 * schedulers exactly one ranks first for each task and fire time, each
 * about as often as the others; a scheduler alone, or one that knows no
 * fleet, claims everything at once. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "sched/claim.h"

#define FLEET	3

static struct claim_src src[FLEET];
static char *names[FLEET] = { "web1 100", "web1 101", "web2 100" };
static struct sched_task task;

/* Scheduler i of FLEET, each knowing the whole fleet. */
static void
fleet_setup(void)
{
	struct lr_err e = LR_ERR_INIT;
	int pos;

	cr_assert(eq(int, schedule_init(&task.sched, "* * * * *", "UTC", LR_UNSET, LR_UNSET,
	    &pos, &e), 0), "%s", e.msg);
	task.one_server = 1;
	for (int i = 0; i < FLEET; i++) {
		snprintf(src[i].me, sizeof(src[i].me), "%s", names[i]);
		src[i].fleet = names;
		src[i].nfleet = FLEET;
	}
}

Test(claim, exactly_one_of_the_fleet_ranks_first_and_each_about_a_third)
{
	char name[32];
	int first[FLEET] = { 0 };

	fleet_setup();
	task.name = name;
	for (int t = 0; t < 300; t++)
		for (time_t slot = 1781524800; slot < 1781524800 + 10 * 60; slot += 60) {
			int n = 0;

			snprintf(name, sizeof(name), "t%02d", t);
			for (int i = 0; i < FLEET; i++)
				if (claim_first(&src[i], &task, slot)) {
					first[i]++;
					n++;
				}
			cr_assert(eq(int, n, 1), "%s at %lld: %d first", name, (long long)slot, n);
		}
	/* 3,000 slots: a third is 1,000; a fair spread stays well within 800 */
	for (int i = 0; i < FLEET; i++)
		cr_assert(ge(int, first[i], 800), "%s first for %d of 3000: %d, %d, %d",
		    names[i], first[i], first[0], first[1], first[2]);
}

Test(claim, alone_or_without_a_fleet_a_scheduler_claims_at_once)
{
	fleet_setup();
	task.name = "t00";
	src[0].nfleet = 1;	/* alone */
	cr_assert(eq(int, claim_first(&src[0], &task, 1781524800), 1));
	src[0].nfleet = 0;	/* the note failed: unknown */
	cr_assert(eq(int, claim_first(&src[0], &task, 1781524800), 1));
	cr_assert(eq(int, claim_first(NULL, &task, 1781524800), 1));
	src[0].nfleet = FLEET;	/* a triggered run claims no slot: at once */
	cr_assert(eq(int, claim_first(&src[0], &task, -1), 1));
	cr_assert(eq(int, claim_first(&src[1], &task, -1), 1));
}
