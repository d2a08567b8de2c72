/* SPDX-License-Identifier: BSD-2-Clause */
/* window_test.c -- the times of day a task may run at (core/window.h):
 * the text read, the edges, a window across midnight, and what a window
 * means on the days Berlin's clock changes (2026-03-29 02:00 -> 03:00,
 * 2026-10-25 03:00 -> 02:00). Each instant carries its UTC time. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "core/err.h"
#include "core/window.h"
#include "core/zone.h"

#define H	3600LL
#define SPRING	1774746000LL	/* 2026-03-29T01:00Z: 02:00 CET becomes 03:00 CEST */
#define FALL	1792890000LL	/* 2026-10-25T01:00Z: 03:00 CEST becomes 02:00 CET */
#define NOON	1781524800LL	/* 2026-06-15T12:00Z */

static const struct lr_zone *
berlin(void)
{
	struct lr_err e = { 0 };
	const struct lr_zone *z = zone_load("Europe/Berlin", &e);

	cr_assert(ne(ptr, (void *)z, NULL), "%s", e.msg);
	return z;
}

static int
allows(const char *between, const char *not_between, const struct lr_zone *z, long long t)
{
	char why[200];

	return window_allows(between, not_between, z, "Europe/Berlin", t, why, sizeof(why));
}

/* How many minutes of [from, to) window_allows() says yes to. */
static long
minutes_open(const char *between, const struct lr_zone *z, long long from, long long to)
{
	long n = 0;

	for (long long t = from; t < to; t += 60)
		n += allows(between, NULL, z, t);
	return n;
}

Test(window, reads_hh_mm_dash_hh_mm)
{
	struct lr_window w;

	cr_assert(eq(ptr, (void *)window_parse("08:00-18:00", &w), NULL));
	cr_assert(eq(long, w.from_s, 8 * 3600));
	cr_assert(eq(long, w.to_s, 18 * 3600));
	cr_assert(eq(ptr, (void *)window_parse("8:30 - 23:59", &w), NULL));
	cr_assert(eq(long, w.from_s, 8 * 3600 + 30 * 60));
	cr_assert(eq(long, w.to_s, 23 * 3600 + 59 * 60));
	cr_assert(eq(ptr, (void *)window_parse("22:00-00:00", &w), NULL), "to midnight");
}

Test(window, refuses_what_is_not_a_window)
{
	static const char *const bad[] = { "", "08:00", "08:00-", "24:00-01:00",
	    "08:60-09:00", "08:0-09:00", "8-18", "08:00-18:00x", "08:00 18:00",
	    "-08:00-18:00", "08:00-18:00-20:00", "x" };
	struct lr_window w;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert(eq(str, (char *)window_parse(bad[i], &w),
		    "is not HH:MM-HH:MM (e.g. 08:00-18:00)"), "\"%s\"", bad[i]);
	cr_assert(ne(ptr, strstr(window_parse("06:00-06:00", &w), "starts where it ends"),
	    NULL));
}

Test(window, holds_its_start_and_not_its_end)
{
	struct lr_window w;

	window_parse("08:00-18:00", &w);
	cr_assert(eq(int, window_holds(&w, 8 * 3600 - 1), 0));
	cr_assert(eq(int, window_holds(&w, 8 * 3600), 1));
	cr_assert(eq(int, window_holds(&w, 18 * 3600 - 1), 1));
	cr_assert(eq(int, window_holds(&w, 18 * 3600), 0));
}

Test(window, wraps_midnight)
{
	struct lr_window w;

	window_parse("22:00-06:00", &w);
	cr_assert(eq(int, window_holds(&w, 22 * 3600), 1));
	cr_assert(eq(int, window_holds(&w, 0), 1));
	cr_assert(eq(int, window_holds(&w, 6 * 3600 - 1), 1));
	cr_assert(eq(int, window_holds(&w, 6 * 3600), 0));
	cr_assert(eq(int, window_holds(&w, 12 * 3600), 0));
	cr_assert(eq(int, window_holds(&w, 22 * 3600 - 1), 0));
}

/* The zone's clock decides: 12:00Z is 14:00 in Berlin's summer. */
Test(window, is_read_on_the_zone_s_clock)
{
	const struct lr_zone *z = berlin();
	char why[200];

	cr_assert(eq(int, window_allows("13:00-15:00", NULL, z, "Europe/Berlin", NOON, why,
	    sizeof(why)), 1));
	cr_assert(eq(str, why, "14:00 Europe/Berlin is within between 13:00-15:00"));
	cr_assert(eq(int, window_allows("11:00-13:00", NULL, z, "Europe/Berlin", NOON, why,
	    sizeof(why)), 0));
	cr_assert(eq(str, why, "14:00 Europe/Berlin is outside between 11:00-13:00"));
	cr_assert(eq(int, window_allows(NULL, "22:00-06:00", zone_utc(), "UTC", NOON, why,
	    sizeof(why)), 1));
	cr_assert(eq(str, why, "12:00 UTC is outside not_between 22:00-06:00"));
}

Test(window, not_between_cuts_a_hole_in_between)
{
	const struct lr_zone *z = berlin();
	char why[200];

	/* 14:00, 14:30 and 16:00 Berlin */
	cr_assert(eq(int, window_allows("08:00-18:00", "14:00-15:00", z, "Europe/Berlin",
	    NOON, why, sizeof(why)), 0));
	cr_assert(eq(str, why, "14:00 Europe/Berlin is within not_between 14:00-15:00"));
	cr_assert(eq(int, allows("08:00-18:00", "14:00-15:00", z, NOON + 30 * 60), 0));
	cr_assert(eq(int, window_allows("08:00-18:00", "14:00-15:00", z, "Europe/Berlin",
	    NOON + 2 * H, why, sizeof(why)), 1));
	cr_assert(eq(str, why, "16:00 Europe/Berlin is within between 08:00-18:00 and "
	    "outside not_between 14:00-15:00"));
	cr_assert(eq(int, allows(NULL, NULL, z, NOON), 1), "no window: any time");
}

/* 2026-03-29: 02:00-02:59 does not occur in Berlin. A window inside the
 * gap holds no instant that day (and does the day before and after); one
 * across it is shorter by the hour skipped. */
Test(window, the_hour_skipped_in_spring_is_never_inside)
{
	const struct lr_zone *z = berlin();

	cr_assert(eq(int, allows("02:00-03:00", NULL, z, SPRING - 1), 0), "01:59:59 CET");
	cr_assert(eq(int, allows("02:00-03:00", NULL, z, SPRING), 0), "03:00 CEST");
	cr_assert(eq(long, minutes_open("02:00-03:00", z, SPRING - 12 * H, SPRING + 12 * H),
	    0), "never that day");
	cr_assert(eq(long, minutes_open("02:00-03:00", z, SPRING - 24 * H - 12 * H,
	    SPRING - 12 * H), 60), "an hour the day before");
	cr_assert(eq(long, minutes_open("02:00-03:00", z, SPRING + 12 * H,
	    SPRING + 36 * H), 60), "an hour the day after");
	cr_assert(eq(long, minutes_open("01:30-03:30", z, SPRING - 12 * H, SPRING + 12 * H),
	    60), "two hours of wall clock, one of them skipped");
	cr_assert(eq(int, allows("01:30-03:30", NULL, z, SPRING - 30 * 60), 1), "01:30 CET");
	cr_assert(eq(int, allows("01:30-03:30", NULL, z, SPRING + 29 * 60), 1), "03:29 CEST");
	cr_assert(eq(int, allows("01:30-03:30", NULL, z, SPRING + 30 * 60), 0), "03:30 CEST");
}

/* 2026-10-25: 02:00-02:59 occurs twice in Berlin, in CEST then in CET. A
 * window over it holds both: two hours. */
Test(window, the_hour_repeated_in_autumn_is_inside_twice)
{
	const struct lr_zone *z = berlin();

	cr_assert(eq(int, allows("02:00-03:00", NULL, z, FALL - H - 1), 0), "01:59:59 CEST");
	cr_assert(eq(int, allows("02:00-03:00", NULL, z, FALL - H), 1), "02:00 CEST");
	cr_assert(eq(int, allows("02:00-03:00", NULL, z, FALL - 1), 1), "02:59:59 CEST");
	cr_assert(eq(int, allows("02:00-03:00", NULL, z, FALL), 1), "02:00 CET");
	cr_assert(eq(int, allows("02:00-03:00", NULL, z, FALL + H - 1), 1), "02:59:59 CET");
	cr_assert(eq(int, allows("02:00-03:00", NULL, z, FALL + H), 0), "03:00 CET");
	cr_assert(eq(long, minutes_open("02:00-03:00", z, FALL - 12 * H, FALL + 12 * H), 120));
	cr_assert(eq(long, minutes_open("22:00-06:00", z, FALL - 12 * H, FALL + 12 * H),
	    9 * 60), "a night an hour longer");
}

Test(window, next_open_is_the_first_minute_a_run_may_go)
{
	const struct lr_zone *z = berlin();

	/* 14:00 Berlin, between 15:00-16:00: 13:00Z */
	cr_assert(eq(i64, window_next_open("15:00-16:00", NULL, z, NOON), NOON + H));
	cr_assert(eq(i64, window_next_open("13:00-15:00", NULL, z, NOON + 1), NOON + 60),
	    "already open: the next whole minute");
	/* from the evening before the spring change, 02:00 comes on the 30th */
	cr_assert(eq(i64, window_next_open("02:00-03:00", NULL, z, SPRING - 6 * H),
	    SPRING + 23 * H), "2026-03-30T00:00Z, 02:00 CEST");
}
