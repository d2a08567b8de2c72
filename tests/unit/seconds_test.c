/* SPDX-License-Identifier: BSD-2-Clause */
/* seconds_test.c -- schedules under a minute: the 6-field cron form with a
 * leading seconds field, its fire times, and the slot arithmetic and
 * tolerance rule of periods under a minute. Instants are worked out by
 * hand from T_1745 = 2026-11-21T17:45:00Z. */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>

#include "core/cron.h"
#include "core/duration.h"
#include "core/err.h"
#include "core/keys.h"
#include "core/schedule.h"

#define B(n)		((uint64_t)1 << (n))
#define R(lo, hi)	((B(hi) << 1) - B(lo))
#define T_1745		1795283100LL	/* 2026-11-21T17:45:00Z */
#define MS(t)		((long long)(t) * 1000)

static struct lr_cron
utc(const char *expr)
{
	struct lr_cron c;
	struct lr_err err = { 0 };
	int pos = -1;

	cr_assert(eq(int, cron_parse(expr, &c, &pos, &err), 0), "%s: %s", expr, err.msg);
	cr_assert(eq(int, cron_set_tz(&c, "UTC", &err), 0), "%s", err.msg);
	return c;
}

static struct lr_schedule
sched(const char *expr, long long every_ms, long long tol)
{
	struct lr_schedule s;
	struct lr_err err = { 0 };
	int pos;

	cr_assert(eq(int, schedule_init(&s, expr, expr ? "UTC" : NULL, every_ms, tol,
	    &pos, &err), 0), "%s", err.msg);
	return s;
}

Test(seconds, six_fields_read_the_first_as_seconds)
{
	struct lr_cron c = utc("*/10 * * * * *");

	cr_assert(eq(u64, c.second, B(0) | B(10) | B(20) | B(30) | B(40) | B(50)));
	cr_assert(eq(u64, c.minute, R(0, 59)));
	cr_assert(eq(int, c.seconds, 1));
	c = utc("5-7,30 0 12 * * mon");
	cr_assert(eq(u64, c.second, R(5, 7) | B(30)));
	cr_assert(eq(u64, c.minute, B(0)));
	cr_assert(eq(u32, c.hour, (uint32_t)B(12)));
	cr_assert(eq(u8, c.dow, (uint8_t)B(1)));
	cr_assert(eq(int, c.dow_star, 0));
	cr_assert(eq(int, c.dom_star, 1));
}

Test(seconds, five_fields_fire_at_second_zero)
{
	struct lr_cron c = utc("*/10 * * * *");

	cr_assert(eq(u64, c.second, B(0)));
	cr_assert(eq(int, c.seconds, 0));
	cr_assert(eq(u64, c.minute, B(0) | B(10) | B(20) | B(30) | B(40) | B(50)));
}

struct bad {
	char	expr[40];
	char	why[128];
	int	pos;
};

ParameterizedTestParameters(seconds, rejects)
{
	static struct bad cases[] = {
		{ "60 * * * * *", "field 1 (second): 60 is out of range 0-59", 0 },
		{ "0 60 * * * *", "field 2 (minute): 60 is out of range 0-59", 2 },
		{ "*/0 * * * * *", "field 1 (second): step 0 is not allowed", 0 },
		{ "*/61 * * * * *", "field 1 (second): step 61 is out of range 1-60", 0 },
		{ "0 0 0 * 13 *", "field 5 (month): 13 is out of range 1-12", 8 },
		{ "0 0 0 * * 8", "field 6 (day of week): 8 is out of range 0-7", 10 },
		{ "0 0 0 30 2 *", "never fires: no month in it has that day", 0 },
		{ "0 0 0 * * * *", "expected 5 fields (minute hour day-of-month month "
		    "day-of-week), or 6 with a leading second, got 7", 0 },
		{ "@every 10s", "unknown shortcut \"@every\" (a fixed period is every:, "
		    "such as every: 10s)", 0 },
		{ "0 0 * *", "expected 5 fields (minute hour day-of-month month "
		    "day-of-week), or 6 with a leading second, got 4", 0 },
	};
	return cr_make_param_array(struct bad, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad *b, seconds, rejects)
{
	struct lr_cron c;
	struct lr_err err = { 0 };
	int pos = -1;

	cr_assert(eq(int, cron_parse(b->expr, &c, &pos, &err), -1), "\"%s\"", b->expr);
	cr_assert(eq(str, err.msg, b->why), "\"%s\"", b->expr);
	cr_assert(eq(int, pos, b->pos), "\"%s\"", b->expr);
}

Test(seconds, fire_times_step_through_the_minute)
{
	struct lr_cron c = utc("*/10 * * * * *");

	cr_assert(eq(i64, (long long)cron_next(&c, T_1745 + 2), T_1745 + 10));
	cr_assert(eq(i64, (long long)cron_prev(&c, T_1745 + 2), T_1745));
	cr_assert(eq(i64, (long long)cron_next(&c, T_1745 + 50), T_1745 + 60),
	    "17:45:50 -> 17:46:00");
	cr_assert(eq(i64, (long long)cron_prev(&c, T_1745 + 59), T_1745 + 50));
	cr_assert(eq(i64, (long long)cron_prev(&c, T_1745 + 40), T_1745 + 40),
	    "a fire time is its own latest");
	cr_assert(eq(i64, (long long)cron_next(&c, T_1745 + 40), T_1745 + 50));
}

Test(seconds, fire_times_cross_to_the_next_firing_minute)
{
	struct lr_cron c = utc("30 0 * * * *");	/* hh:00:30 */

	cr_assert(eq(i64, (long long)cron_next(&c, T_1745 + 2),
	    T_1745 + 15 * 60 + 30), "18:00:30");
	cr_assert(eq(i64, (long long)cron_prev(&c, T_1745 + 2),
	    T_1745 - 45 * 60 + 30), "17:00:30");
	cr_assert(eq(i64, (long long)cron_prev(&c, T_1745 - 45 * 60 + 29),
	    T_1745 - 105 * 60 + 30), "17:00:29 -> 16:00:30");
	cr_assert(eq(i64, (long long)cron_next(&c, T_1745 - 45 * 60 + 29),
	    T_1745 - 45 * 60 + 30), "17:00:29 -> 17:00:30");
}

Test(seconds, second_zero_of_six_fields_is_the_five_field_schedule)
{
	struct lr_cron five = utc("*/7 3-20 * * *"), six = utc("0 */7 3-20 * * *");

	for (long long t = T_1745 - 86400; t < T_1745 + 86400; t += 7919) {
		cr_assert(eq(i64, (long long)cron_next(&six, t), (long long)cron_next(&five, t)));
		cr_assert(eq(i64, (long long)cron_prev(&six, t), (long long)cron_prev(&five, t)));
	}
}

Test(seconds, the_shortest_gap_comes_from_the_seconds)
{
	struct lr_cron a = utc("*/10 * * * * *"), b = utc("0,1 * * * * *");
	struct lr_cron c = utc("30 * * * * *"), d = utc("0,50 * * * * *");
	struct lr_cron e = utc("* * * * *");

	cr_assert(eq(int, cron_min_gap(&a), 10));
	cr_assert(eq(int, cron_min_gap(&b), 1));
	cr_assert(eq(int, cron_min_gap(&c), 60));
	cr_assert(eq(int, cron_min_gap(&d), 10), "50 to the next minute's 0");
	cr_assert(eq(int, cron_min_gap(&e), 60));
}

Test(seconds, fixed_slots_under_a_minute_take_a_quarter_tolerance)
{
	struct lr_schedule s = sched(NULL, 2000, LR_UNSET);

	cr_assert(eq(i64, s.tolerance_ms, 500));
	cr_assert(eq(i64, (long long)schedule_slot(&s, MS(T_1745 + 2) + 600), T_1745 + 2));
	cr_assert(eq(i64, (long long)schedule_slot(&s, MS(T_1745 + 3) + 600), T_1745 + 4),
	    "0.4s early joins the coming slot");
	cr_assert(eq(i64, (long long)schedule_slot(&s, MS(T_1745 + 3) + 400), T_1745 + 2),
	    "0.6s early is still the slot before");
	cr_assert(eq(i64, schedule_slot_ttl_ms(&s, MS(T_1745 + 2), T_1745 + 2), 2500));
	cr_assert(eq(int, schedule_subminute(&s), 1));
}

Test(seconds, six_field_slots_are_stamped_to_the_second)
{
	struct lr_schedule s = sched("*/5 * * * * *", 0, LR_UNSET);
	struct lr_keys k;

	cr_assert(eq(i64, s.tolerance_ms, 1250));
	cr_assert(eq(i64, (long long)schedule_slot(&s, MS(T_1745 + 3) + 800), T_1745 + 5));
	cr_assert(eq(i64, (long long)schedule_slot(&s, MS(T_1745 + 3) + 700), T_1745));
	cr_assert(eq(i64, schedule_slot_ttl_ms(&s, MS(T_1745 + 5), T_1745 + 5), 6250));
	keys_build(&k, "p:", "six", T_1745 + 5, schedule_stamp_ms(&s));
	cr_assert(eq(str, k.slot, "p:{six}:slot:20261121T174505Z"));
	s = sched("*/5 * * * *", 0, LR_UNSET);
	keys_build(&k, "p:", "six", T_1745, schedule_stamp_ms(&s));
	cr_assert(eq(str, k.slot, "p:{six}:slot:20261121T1745Z"), "5 fields: unchanged");
}

Test(seconds, tick_leaves_seconds_schedules_to_cron)
{
	struct lr_schedule a = sched(NULL, 2000, LR_UNSET), b = sched(NULL, 300000, LR_UNSET);
	struct lr_schedule c = sched(NULL, 90000, LR_UNSET);
	struct lr_schedule d = sched("*/10 * * * * *", 0, LR_UNSET);
	struct lr_schedule f = sched("0 */5 * * * *", 0, LR_UNSET);
	struct lr_schedule g = sched("* * * * *", 0, LR_UNSET);

	cr_assert(eq(int, schedule_subminute(&a), 1));
	cr_assert(eq(int, schedule_subminute(&b), 0));
	cr_assert(eq(int, schedule_subminute(&c), 1), "90s falls off the minute");
	cr_assert(eq(int, schedule_subminute(&d), 1));
	cr_assert(eq(int, schedule_subminute(&f), 0), "second 0 only: a minute schedule");
	cr_assert(eq(int, schedule_subminute(&g), 0));
}

struct tol {
	char		expr[24];	/* "" for every */
	long long	every_ms, tol_ms;
	char		why[128];	/* "" when accepted */
};

ParameterizedTestParameters(seconds, tolerance_rule)
{
	static struct tol cases[] = {
		{ "", 2000, 500, "" },
		{ "", 2000, 501, "slot_tolerance 501ms must be at most a quarter of the "
		    "slot (2s) when slots are under a minute apart" },
		{ "", 10000, 5000, "slot_tolerance 5s must be at most a quarter of the "
		    "slot (10s) when slots are under a minute apart" },
		{ "", 1000, 250, "" },
		{ "", 120000, 59000, "" },
		{ "", 120000, 60000, "slot_tolerance 1m must be under half the slot (2m)" },
		{ "*/5 * * * * *", 0, 2000, "slot_tolerance 2s must be at most a quarter "
		    "of the slot (5s) when slots are under a minute apart" },
		{ "0,1 * * * * *", 0, 300, "slot_tolerance 300ms must be at most a "
		    "quarter of the slot (1s) when slots are under a minute apart" },
		{ "* * * * *", 0, 29000, "" },
	};
	return cr_make_param_array(struct tol, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct tol *t, seconds, tolerance_rule)
{
	struct lr_schedule s;
	struct lr_err err = { 0 };
	int pos, rc;

	rc = schedule_init(&s, t->expr[0] ? t->expr : NULL, NULL, t->every_ms, t->tol_ms,
	    &pos, &err);
	if (t->why[0] == '\0') {
		cr_assert(eq(int, rc, 0), "%s/%lld: %s", t->expr, t->every_ms, err.msg);
		return;
	}
	cr_assert(eq(int, rc, -1));
	cr_assert(eq(int, err.status, EX_CONFIG));
	cr_assert(eq(str, err.msg, t->why));
}
