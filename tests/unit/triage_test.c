/* SPDX-License-Identifier: BSD-2-Clause */
/* triage_test.c -- which tasks the status page lists first and counts
 * (web/triage.c). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/duration.h"
#include "web/rows.h"
#include "web/triage.h"

#define NOW	1781524800000LL		/* 2026-06-15T12:00:00Z */

/* A task that has nothing recorded: free, never ran. */
static struct row
fresh(const char *name)
{
	struct row w;

	rows_read(&w, name, &(struct lr_state){ .ttl_ms = -1 }, NOW, 0, LR_UNSET);
	return w;
}

/* A task whose last run ended with event ev and status st (ABSENT: none),
 * started at start. */
static struct row
ended(const char *name, const char *ev, long long st, long long start)
{
	struct row w = fresh(name);

	w.has_last = 1;
	w.l_event = ev;
	w.l_status = st;
	w.l_start = start;
	w.l_token = 7;
	return w;
}

Test(triage, trouble_first_then_the_paused_then_the_rest_each_in_order)
{
	struct row rows[8];
	size_t idx[8], want[] = { 2, 3, 5, 7, 1, 0, 4, 6 };

	rows[0] = ended("ok", "released", 0, NOW - 60000);
	rows[1] = fresh("paused");
	rows[1].paused = 1;
	rows[2] = ended("failing", "released", 3, NOW - 60000);
	rows[3] = ended("freed", "unlocked", ABSENT, NOW - 60000);
	rows[4] = ended("running", "running", ABSENT, NOW - 1000);
	rows[4].held = 1;
	rows[5] = ended("missed-since", "released", 0, NOW - 3600000);
	rows[5].missed = 2;
	rows[5].missed_ms = NOW - 60000;
	/* a slot missed before the last run started: that run answered it */
	rows[6] = ended("missed-before", "released", 0, NOW - 60000);
	rows[6].missed = 1;
	rows[6].missed_ms = NOW - 3600000;
	rows[7] = fresh("unreadable");
	rows[7].error = "a value past what lockrun reads";
	triage_order(rows, 8, idx);
	for (size_t i = 0; i < 8; i++)
		cr_assert(eq(sz, idx[i], want[i]), "place %zu: %s", i, rows[idx[i]].name);
}

Test(triage, a_lost_run_is_lost_not_failing_and_a_timeout_fails)
{
	struct row lost = ended("a", "lost", 143, NOW);
	struct row unknown = ended("b", "unknown", ABSENT, NOW);
	struct row timeout = ended("c", "stopped-timeout", 124, NOW);

	cr_assert(eq(u32, triage_of(&lost), 1u << TRIAGE_LOST));
	cr_assert(eq(u32, triage_of(&unknown), 1u << TRIAGE_LOST));
	cr_assert(eq(u32, triage_of(&timeout), 1u << TRIAGE_FAILING));
}

Test(triage, the_summary_counts_each_kind_and_says_when_none)
{
	struct row rows[4];
	size_t count[NTRIAGE];
	char buf[256];

	rows[0] = ended("failing", "released", 1, NOW);
	rows[0].paused = 1;		/* counted in both */
	rows[1] = ended("also-failing", "released", 2, NOW);
	rows[2] = ended("ok", "released", 0, NOW);
	rows[3] = fresh("missed");
	rows[3].missed = 1;
	rows[3].missed_ms = NOW;
	triage_count(rows, 4, count);
	cr_assert(eq(str, triage_summary(count, 12, buf, sizeof(buf)),
	    "12 tasks: 2 failing, 1 paused, 1 missed"));
	triage_count(rows + 2, 1, count);
	cr_assert(eq(str, triage_summary(count, 1, buf, sizeof(buf)),
	    "1 task, none failing, lost, paused or missed"));
	triage_count(rows, 4, count);
	cr_assert(eq(str, triage_summary(count, 12, buf, 10), "12 tasks:"), "cut to fit");
}
