/* SPDX-License-Identifier: BSD-2-Clause */
/* missed_test.c -- the fire times a scheduler records as missed
 * (sched/missed.c): which are noted, once each; a start queued past its
 * next fire time is not started; a slot is recorded once its deadline
 * passed and not before, a task dropped from the config is forgotten, and
 * a server that cannot be reached keeps the rest for the next look. Over
 * a backend of the test's own. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "sched/missed.h"
#include "sched/trigger.h"

#define SLOT	1781524800	/* 2026-06-15T12:00:00Z */
#define MS(t)	((long long)(t) * 1000)

static struct sched_task task;
static struct missed_queue q;

/* The fake server: each record asked, and what it answers. */
static struct {
	int	records, closes;
	int	broken;		/* the next record fails */
	char	keys[4][KEY_MAX];
} f;

static int
fake_missed(struct lr_backend *b, const struct lr_keys *k, size_t n, const struct lr_missed *m,
    unsigned char *won, struct lr_err *e)
{
	(void)b, (void)m;
	cr_assert(eq(sz, n, 1));
	if (f.broken)
		return lr_errk(e, LR_ERR_TRANSPORT, EX_UNAVAILABLE, "cut");
	if (f.records < 4)
		snprintf(f.keys[f.records], KEY_MAX, "%s", k->slot);
	f.records++;
	won[0] = 2;	/* another scheduler recorded it: no hook here */
	return 0;
}

static void
fake_close(struct lr_backend *b)
{
	(void)b;
	f.closes++;
}

static struct lr_backend_ops ops = { .name = "fake", .missed = fake_missed,
    .close = fake_close };
static struct lr_backend be = { .ops = &ops };
static struct missed_src src = { .be = &be, .prefix = "lockrun:", .host = "web1" };

static void
setup(void)
{
	struct lr_err e = LR_ERR_INIT;
	int pos;

	memset(&f, 0, sizeof(f));
	src.failing = 0;
	task = (struct sched_task){ .name = "nightly", .one_server = 1, .history = 20,
	    .deadline_ms = 60000 };
	cr_assert(eq(int, schedule_init(&task.sched, "*/5 * * * *", "UTC", LR_UNSET, LR_UNSET,
	    &pos, &e), 0), "%s", e.msg);
	q = (struct missed_queue){ 0 };
}

static void
teardown(void)
{
	missed_free(&q);
}

TestSuite(missed, .init = setup, .fini = teardown);

Test(missed, a_slot_is_noted_once_and_only_where_the_fleet_can_decide_it)
{
	missed_note(&q, &task, SLOT);
	missed_note(&q, &task, SLOT);
	cr_assert(eq(sz, q.n, 1), "once");
	cr_assert(eq(i64, q.v[0].due_ms, MS(SLOT) + 60000), "recorded after its deadline");
	missed_note(&q, &task, SLOT + 300);
	cr_assert(eq(sz, q.n, 2));

	task.one_server = 0;
	missed_note(&q, &task, SLOT + 600);
	task.one_server = 1;
	task.history = 0;
	missed_note(&q, &task, SLOT + 600);
	cr_assert(eq(sz, q.n, 2), "no slot record, or no history to record it in");
}

Test(missed, a_start_queued_past_its_next_fire_time_is_not_started)
{
	/* SLOT's next fire time is long past by any clock this runs on */
	cr_assert(eq(int, missed_if_passed(&q, &task, SLOT, SLOT + 300), 1));
	cr_assert(eq(sz, q.n, 0), "a later slot started since: not noted");
	cr_assert(eq(int, missed_if_passed(&q, &task, SLOT, SLOT), 1));
	cr_assert(eq(sz, q.n, 1), "the task's last slot: noted for the fleet");
	/* a slot in 2100: its next fire time has not come */
	cr_assert(eq(int, missed_if_passed(&q, &task, 4102444800, 4102444800), 0));
	cr_assert(eq(int, missed_if_passed(&q, &task, -SLOT, -SLOT), 0), "triggered");
	task.one_server = 0;
	cr_assert(eq(int, missed_if_passed(&q, &task, SLOT, SLOT), 0), "no slot to claim");
}

Test(missed, a_slot_is_recorded_after_its_deadline_and_a_dropped_task_forgotten)
{
	struct sched_task other = task;

	missed_note(&q, &task, SLOT);
	missed_note(&q, &task, SLOT + 300);
	other.name = "gone";
	missed_note(&q, &other, SLOT);
	cr_assert(eq(sz, q.n, 3));

	/* SLOT's deadline passed, SLOT+300's not; "gone" is not in the config */
	missed_flush(&q, &src, MS(SLOT) + 60000, &task, 1, NULL);
	cr_assert(eq(int, f.records, 1));
	cr_assert(ne(ptr, strstr(f.keys[0], "{nightly}:slot:20260615T1200Z"), NULL), "%s", f.keys[0]);
	cr_assert(eq(sz, q.n, 1));
	cr_assert(eq(str, q.v[0].task, "nightly"));
	cr_assert(eq(i64, q.next_ms, MS(SLOT + 300) + 60000), "looked at again then");
	missed_flush(&q, &src, MS(SLOT + 300), &task, 1, NULL);
	cr_assert(eq(int, f.records, 1), "not before its time");
	missed_flush(&q, &src, MS(SLOT + 300) + 60000, &task, 1, NULL);
	cr_assert(eq(int, f.records, 2));
	cr_assert(eq(sz, q.n, 0));
}

Test(missed, a_server_away_keeps_the_slots_for_the_next_look)
{
	missed_note(&q, &task, SLOT);
	missed_note(&q, &task, SLOT + 300);
	f.broken = 1;
	missed_flush(&q, &src, MS(SLOT + 400), &task, 1, NULL);
	cr_assert(eq(sz, q.n, 2), "both kept");
	cr_assert(eq(int, f.closes, 1), "the connection closed once");
	cr_assert(eq(int, src.failing, 1));
	cr_assert(eq(i64, q.next_ms, MS(SLOT + 400) + TRIGGER_POLL_S * 1000LL));
	missed_flush(&q, &src, MS(SLOT + 400) + 1, &task, 1, NULL);
	cr_assert(eq(int, f.closes, 1), "not asked again before the next look");

	f.broken = 0;
	missed_flush(&q, &src, MS(SLOT + 400) + TRIGGER_POLL_S * 1000LL, &task, 1, NULL);
	cr_assert(eq(int, f.records, 2));
	cr_assert(eq(sz, q.n, 0));
	cr_assert(eq(int, src.failing, 0));
}

Test(missed, a_backend_that_keeps_no_missed_slots_empties_the_queue)
{
	missed_note(&q, &task, SLOT);
	missed_flush(&q, NULL, MS(SLOT + 400), &task, 1, NULL);
	cr_assert(eq(sz, q.n, 0));
}
