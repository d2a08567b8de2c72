/* SPDX-License-Identifier: BSD-2-Clause */
/* defer_test.c -- the race a scheduler sits out (sched/defer.c): a start
 * put off comes due at its time and not before, and is dropped when its
 * schedule changed or its deadline or next fire time passed; a slot the
 * server said is claimed starts nothing, a task another scheduler won
 * last is put off, one this scheduler won is not; a watch that fails is
 * tried again after a doubling wait. Over a backend of the test's own. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/keys.h"
#include "sched/defer.h"

#define SLOT	1781524800	/* 2026-06-15T12:00:00Z, a fire time of every 10s */
#define MS(t)	((long long)(t) * 1000)

static struct sched_task task;
static struct defer df;

/* The fake server: whether a watch succeeds, how often it was asked, and
 * the claim it pushes at the next read. */
static struct {
	int	watch_fails, watches;
	char	key[KEY_MAX], value[600];
} f;

static int
fake_watch(struct lr_backend *b, const char *prefix, struct lr_err *e)
{
	(void)b, (void)prefix;
	f.watches++;
	if (f.watch_fails)
		return lr_errf(e, EX_UNAVAILABLE, "refused");
	return 0;
}

static int
fake_claims(struct lr_backend *b, void (*cb)(void *, const char *, const char *), void *arg,
    struct lr_err *e)
{
	(void)b, (void)e;
	if (f.key[0])
		cb(arg, f.key, f.value);
	f.key[0] = '\0';
	return 0;
}

static int
fake_fd(const struct lr_backend *b)
{
	(void)b;
	return 3;
}

static struct lr_backend_ops ops = { .name = "fake", .watch = fake_watch,
    .claims = fake_claims, .fd = fake_fd };
static struct lr_backend be = { .ops = &ops };
static struct defer_src src = { .be = &be, .prefix = "lockrun:", .host = "web1" };

/* Pids this scheduler's runs have: 4242 only. */
static int
ours(void *arg, long pid)
{
	(void)arg;
	return pid == 4242;
}

static void
setup(void)
{
	struct lr_err e = LR_ERR_INIT;
	int pos;

	memset(&f, 0, sizeof(f));
	task = (struct sched_task){ .name = "fast", .one_server = 1, .deadline_ms = 60000 };
	cr_assert(eq(int, schedule_init(&task.sched, NULL, "UTC", 10000, LR_UNSET, &pos, &e), 0),
	    "%s", e.msg);
	df = (struct defer){ .ours = ours };
}

static void
teardown(void)
{
	defer_free(&df);
}

TestSuite(defer, .init = setup, .fini = teardown);

/* The last start handed to start_one(). */
static struct {
	int	n;
	char	name[64];
	time_t	slot;
} started;

static void
start_one(void *arg, const char *name, time_t slot)
{
	(void)arg;
	started.n++;
	snprintf(started.name, sizeof(started.name), "%s", name);
	started.slot = slot;
}

Test(defer, a_start_put_off_comes_due_at_its_time_and_not_before)
{
	memset(&started, 0, sizeof(started));
	cr_assert(eq(int, defer_put_off(&df, &task, SLOT, MS(SLOT)), 1));
	/* a quarter of the 10s gap is 2.5s: DEFER_MAX_MS caps it */
	cr_assert(eq(i64, defer_next_ms(&df), MS(SLOT) + DEFER_MAX_MS));
	defer_due(&df, MS(SLOT) + DEFER_MAX_MS - 1, start_one, NULL);
	cr_assert(eq(int, started.n, 0), "not before its time");
	defer_due(&df, MS(SLOT) + DEFER_MAX_MS, start_one, NULL);
	cr_assert(eq(int, started.n, 1));
	cr_assert(eq(str, started.name, "fast"));
	cr_assert(eq(i64, (long long)started.slot, SLOT));
	cr_assert(eq(i64, defer_next_ms(&df), 0), "none left");
	defer_due(&df, MS(SLOT) + 5000, start_one, NULL);
	cr_assert(eq(int, started.n, 1), "once");
}

Test(defer, no_time_to_spare_starts_now)
{
	task.deadline_ms = 0;
	cr_assert(eq(int, defer_put_off(&df, &task, SLOT, MS(SLOT)), 0));
	cr_assert(eq(i64, defer_next_ms(&df), 0));
}

Test(defer, a_start_that_comes_too_late_or_off_its_schedule_is_dropped)
{
	cr_assert(eq(int, defer_go(&df, &task, SLOT, MS(SLOT) + DEFER_MAX_MS), 1));
	cr_assert(eq(int, defer_go(&df, &task, SLOT, MS(SLOT + 10)), -1),
	    "its next fire time came: missed");
	task.deadline_ms = 500;
	cr_assert(eq(int, defer_go(&df, &task, SLOT, MS(SLOT) + 501), -1),
	    "its starting_deadline passed: missed");
	cr_assert(eq(int, defer_go(&df, &task, SLOT + 1, MS(SLOT + 1)), 0),
	    "no fire time of its schedule (read again meanwhile)");
}

/* The server pushes a claim of task's slot by host and pid. */
static void
push_claim(time_t slot, const char *host, long pid)
{
	struct lr_keys k;

	keys_build(&k, src.prefix, task.name, slot, schedule_stamp_ms(&task.sched));
	snprintf(f.key, sizeof(f.key), "%s", k.slot);
	snprintf(f.value, sizeof(f.value), "id1 7 %s %ld 2026-06-15T12:00:00Z", host, pid);
	defer_read(&df);
}

Test(defer, a_claimed_slot_starts_nothing_and_another_s_last_win_puts_off)
{
	df.src = &src;
	defer_watch(&df, &task, 1, MS(SLOT));
	cr_assert(eq(int, f.watches, 1));
	cr_assert(eq(int, defer_fd(&df), 3), "watching");
	/* before any claim: start now */
	cr_assert(eq(int, defer_hold(&df, &task, SLOT, MS(SLOT)), 0));

	push_claim(SLOT, "web2", 99);
	cr_assert(eq(int, defer_hold(&df, &task, SLOT, MS(SLOT)), 1), "told it is claimed");
	cr_assert(eq(u64, df.skipped, 1));
	cr_assert(eq(int, defer_hold(&df, &task, SLOT + 10, MS(SLOT + 10)), 2),
	    "web2 won the last one: put off");
	cr_assert(eq(i64, defer_next_ms(&df), MS(SLOT + 10) + DEFER_MAX_MS));
	cr_assert(eq(int, defer_hold(&df, &task, SLOT + 20, MS(SLOT + 20) + DEFER_MAX_MS), 0),
	    "asked too late to put off: now");

	/* the put-off start's slot claimed meanwhile: not started */
	push_claim(SLOT + 10, "web2", 99);
	cr_assert(eq(int, defer_go(&df, &task, SLOT + 10, MS(SLOT + 10) + DEFER_MAX_MS), 0));

	/* this scheduler's own run won the last: the next starts on time */
	push_claim(SLOT + 20, "web1", 4242);
	cr_assert(eq(int, defer_hold(&df, &task, SLOT + 30, MS(SLOT + 30)), 0));
	/* same host, a pid not of this scheduler's runs: another's */
	push_claim(SLOT + 30, "web1", 4243);
	cr_assert(eq(int, defer_hold(&df, &task, SLOT + 40, MS(SLOT + 40)), 2));
}

Test(defer, a_task_the_claims_cannot_help_is_never_held)
{
	df.src = &src;
	task.one_server = 0;
	defer_watch(&df, &task, 1, MS(SLOT));
	cr_assert(eq(int, f.watches, 0), "nothing to watch for");
	cr_assert(eq(int, defer_hold(&df, &task, SLOT, MS(SLOT)), 0));
}

Test(defer, a_failed_watch_is_tried_again_after_a_doubling_wait)
{
	df.src = &src;
	f.watch_fails = 1;
	defer_watch(&df, &task, 1, MS(SLOT));
	cr_assert(eq(int, f.watches, 1));
	cr_assert(eq(int, defer_fd(&df), -1));
	defer_watch(&df, &task, 1, MS(SLOT) + DEFER_RETRY_MS - 1);
	cr_assert(eq(int, f.watches, 1), "not before the wait is over");
	defer_watch(&df, &task, 1, MS(SLOT) + DEFER_RETRY_MS);
	cr_assert(eq(int, f.watches, 2));
	defer_watch(&df, &task, 1, MS(SLOT) + 3 * DEFER_RETRY_MS - 1);
	cr_assert(eq(int, f.watches, 2), "the wait doubled");
	f.watch_fails = 0;
	defer_watch(&df, &task, 1, MS(SLOT) + 3 * DEFER_RETRY_MS);
	cr_assert(eq(int, f.watches, 3));
	cr_assert(eq(int, defer_fd(&df), 3));
	cr_assert(eq(int, df.failing, 0));
}
