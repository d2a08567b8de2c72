/* SPDX-License-Identifier: BSD-2-Clause */
/* cron_test.c -- cron expressions: fields, messages, fire times, DST.
 * Expected instants were worked out apart from this code (Python's
 * calendar.timegm and zoneinfo); each carries its UTC and wall time. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>

#include "core/err.h"
#include "core/cron.h"

#define B(n)		((uint64_t)1 << (n))
#define R(lo, hi)	((B(hi) << 1) - B(lo))		/* bits lo..hi */
#define ALL_MIN		R(0, 59)
#define ALL_HOUR	((uint32_t)R(0, 23))
#define ALL_DOM		((uint32_t)R(1, 31))
#define ALL_MON		((uint16_t)R(1, 12))
#define ALL_DOW		((uint8_t)R(0, 6))
#define NY		"America/New_York"
#define BERLIN		"Europe/Berlin"

/* Parse expr in zone tz ("" for local), asserting both succeed. */
static struct lr_cron
cron_in(const char *expr, const char *tz)
{
	struct lr_cron c;
	struct lr_err err = { 0 };
	int pos = -1;

	cr_assert(eq(int, cron_parse(expr, &c, &pos, &err), 0),
	    "%s: %s", expr, err.msg);
	cr_assert(eq(int, cron_set_tz(&c, tz, &err), 0), "%s: %s", tz, err.msg);
	return c;
}

static long long
next_of(const char *expr, const char *tz, long long t)
{
	struct lr_cron c = cron_in(expr, tz);

	return (long long)cron_next(&c, (time_t)t);
}

static long long
prev_of(const char *expr, const char *tz, long long t)
{
	struct lr_cron c = cron_in(expr, tz);

	return (long long)cron_prev(&c, (time_t)t);
}

struct good {
	char		expr[40];
	uint64_t	minute;
	uint32_t	hour, dom;
	uint16_t	month;
	uint8_t		dow;
	int		dom_star, dow_star;
};

ParameterizedTestParameters(cron, parses)
{
	static struct good cases[] = {
		{ "* * * * *", ALL_MIN, ALL_HOUR, ALL_DOM, ALL_MON, ALL_DOW, 1, 1 },
		{ "*/15 * * * *", B(0) | B(15) | B(30) | B(45), ALL_HOUR, ALL_DOM,
		    ALL_MON, ALL_DOW, 1, 1 },
		{ "0 9-17 * * mon-fri", B(0), R(9, 17), ALL_DOM, ALL_MON, R(1, 5), 1, 0 },
		{ "1-30/2 * * * *", B(1) | B(3) | B(5) | B(7) | B(9) | B(11) | B(13) |
		    B(15) | B(17) | B(19) | B(21) | B(23) | B(25) | B(27) | B(29),
		    ALL_HOUR, ALL_DOM, ALL_MON, ALL_DOW, 1, 1 },
		{ "5/20 * * * *", B(5) | B(25) | B(45), ALL_HOUR, ALL_DOM, ALL_MON,
		    ALL_DOW, 1, 1 },
		{ "0 0 1,15 * *", B(0), B(0), B(1) | B(15), ALL_MON, ALL_DOW, 0, 1 },
		{ "0 0 * jan,JUL,Dec *", B(0), B(0), ALL_DOM, B(1) | B(7) | B(12),
		    ALL_DOW, 1, 1 },
		{ "0 0 * * 7", B(0), B(0), ALL_DOM, ALL_MON, B(0), 1, 0 },
		{ "0 0 * * 5-7", B(0), B(0), ALL_DOM, ALL_MON, B(0) | B(5) | B(6), 1, 0 },
		{ "0 0 * * sun-sat", B(0), B(0), ALL_DOM, ALL_MON, ALL_DOW, 1, 0 },
		{ "0 0 */2 * *", B(0), B(0), B(1) | B(3) | B(5) | B(7) | B(9) | B(11) |
		    B(13) | B(15) | B(17) | B(19) | B(21) | B(23) | B(25) | B(27) |
		    B(29) | B(31), ALL_MON, ALL_DOW, 1, 1 },
		{ "0 0 * * 1/2", B(0), B(0), ALL_DOM, ALL_MON, B(1) | B(3) | B(5), 1, 0 },
		{ "0 0 * * 7/2", B(0), B(0), ALL_DOM, ALL_MON, B(0), 1, 0 },
		{ "59 23 31 12 *", B(59), B(23), B(31), B(12), ALL_DOW, 0, 1 },
		{ " 0\t0  * * *\t", B(0), B(0), ALL_DOM, ALL_MON, ALL_DOW, 1, 1 },
		{ "0 0 * feb-apr/2 *", B(0), B(0), ALL_DOM, B(2) | B(4), ALL_DOW, 1, 1 },
		{ "0,30 */6 * * *", B(0) | B(30), B(0) | B(6) | B(12) | B(18), ALL_DOM,
		    ALL_MON, ALL_DOW, 1, 1 },
		{ "0 0 13 * 5", B(0), B(0), B(13), ALL_MON, B(5), 0, 0 },
		{ "0 12 * * Mon,wed,FRI", B(0), B(12), ALL_DOM, ALL_MON,
		    B(1) | B(3) | B(5), 1, 0 },
		{ "00 07 * * *", B(0), B(7), ALL_DOM, ALL_MON, ALL_DOW, 1, 1 },
		{ "0 0 *,15 * 1-7/3", B(0), B(0), ALL_DOM, ALL_MON,
		    B(1) | B(4) | B(0), 1, 0 },
		{ "@hourly", B(0), ALL_HOUR, ALL_DOM, ALL_MON, ALL_DOW, 1, 1 },
		{ "@daily", B(0), B(0), ALL_DOM, ALL_MON, ALL_DOW, 1, 1 },
		{ "@midnight", B(0), B(0), ALL_DOM, ALL_MON, ALL_DOW, 1, 1 },
		{ "@weekly", B(0), B(0), ALL_DOM, ALL_MON, B(0), 1, 0 },
		{ "@monthly", B(0), B(0), B(1), ALL_MON, ALL_DOW, 0, 1 },
		{ "@yearly", B(0), B(0), B(1), B(1), ALL_DOW, 0, 1 },
		{ "  @annually ", B(0), B(0), B(1), B(1), ALL_DOW, 0, 1 },
	};
	return cr_make_param_array(struct good, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct good *g, cron, parses)
{
	struct lr_cron c;
	struct lr_err err = { 0 };
	int pos = -1;

	memset(&c, 0x5a, sizeof(c));
	cr_assert(eq(int, cron_parse(g->expr, &c, &pos, &err), 0),
	    "\"%s\": %s", g->expr, err.msg);
	cr_assert(eq(u64, c.minute, g->minute), "\"%s\"", g->expr);
	cr_assert(eq(u32, c.hour, g->hour), "\"%s\"", g->expr);
	cr_assert(eq(u32, c.dom, g->dom), "\"%s\"", g->expr);
	cr_assert(eq(u16, c.month, g->month), "\"%s\"", g->expr);
	cr_assert(eq(u8, c.dow, g->dow), "\"%s\"", g->expr);
	cr_assert(eq(int, c.dom_star, g->dom_star), "\"%s\"", g->expr);
	cr_assert(eq(int, c.dow_star, g->dow_star), "\"%s\"", g->expr);
	cr_assert(eq(str, c.tz, ""), "\"%s\": the zone is reset", g->expr);
}

struct bad {
	char	expr[40];
	char	why[320];
	int	pos;
};

ParameterizedTestParameters(cron, rejects)
{
	static struct bad cases[] = {
		{ "60 * * * *", "field 1 (minute): 60 is out of range 0-59", 0 },
		{ "0 24 * * *", "field 2 (hour): 24 is out of range 0-23", 2 },
		{ "0 0 0 * *", "field 3 (day of month): 0 is out of range 1-31", 4 },
		{ "0 0 * 13 *", "field 4 (month): 13 is out of range 1-12", 6 },
		{ "0 0 * * 8", "field 5 (day of week): 8 is out of range 0-7", 8 },
		{ "0 0 * * mon,fry", "field 5 (day of week): unknown name \"fry\"", 12 },
		{ "0 */0 * * *", "field 2 (hour): step 0 is not allowed", 2 },
		{ "0 0 31-1 * *", "field 3 (day of month): range 31-1 runs backwards", 4 },
		{ "0 0 * *", "expected 5 fields (minute hour day-of-month month "
		    "day-of-week), or 6 with a leading second, got 4", 0 },
		{ "", "expected 5 fields (minute hour day-of-month month "
		    "day-of-week), or 6 with a leading second, got 0", 0 },
		{ "@reboot", "@reboot has no fire times: it is a schedule of its own "
		    "(a task's schedule: '@reboot' runs once per boot), not a cron expression", 0 },
		{ "@Daily", "unknown shortcut \"@Daily\"", 0 },
		{ "@daily 5 ", "unexpected \"5\" after @daily", 7 },
		{ "5x * * * *", "field 1 (minute): \"5x\" is not a number", 0 },
		{ "1,,2 * * * *", "field 1 (minute): empty list item", 2 },
		{ "0 1, * * *", "field 2 (hour): empty list item", 4 },
		{ "0 0 30 2 *", "never fires: no month in it has that day", 0 },
		{ "0 0 31 4,6,9,11 *", "never fires: no month in it has that day", 0 },
		{ "*-5 * * * *", "field 1 (minute): unexpected \"-5\" in \"*-5\"", 0 },
		{ "1-2-3 * * * *", "field 1 (minute): unexpected \"-3\" in \"1-2-3\"", 0 },
		{ "1-5/2/3 * * * *",
		    "field 1 (minute): unexpected \"/3\" in \"1-5/2/3\"", 0 },
		{ "*/ * * * *", "field 1 (minute): missing step in \"*/\"", 0 },
		{ "0 -5 * * *", "field 2 (hour): missing number in \"-5\"", 2 },
		{ "0 0 1-/2 * *", "field 3 (day of month): missing number in \"1-/2\"", 4 },
		{ "0 0 * jan-foo *", "field 4 (month): unknown name \"foo\"", 6 },
		{ "0 0 * * sat-sun",
		    "field 5 (day of week): range sat-sun runs backwards", 8 },
		{ "*/61 * * * *", "field 1 (minute): step 61 is out of range 1-60", 0 },
		{ "0 0 * * */8", "field 5 (day of week): step 8 is out of range 1-7", 8 },
		{ "0 mon * * *", "field 2 (hour): \"mon\" is not a number", 2 },
		{ "0 0 * * monday", "field 5 (day of week): unknown name \"monday\"", 8 },
		{ "0 0 L * *", "field 3 (day of month): \"L\" is not a number", 4 },
		{ "*/x * * * *", "field 1 (minute): step \"x\" is not a number", 0 },
		{ "99999999999 * * * *",
		    "field 1 (minute): 99999999999 is out of range 0-59", 0 },
		{ "0 0 1 * 5#2", "field 5 (day of week): \"5#2\" is not a number", 8 },
		{ "0 0 ? * 1", "field 3 (day of month): \"?\" is not a number", 4 },
	};
	return cr_make_param_array(struct bad, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad *b, cron, rejects)
{
	struct lr_cron c, before;
	struct lr_err err = { 0 };
	int pos = -1;

	memset(&c, 0x5a, sizeof(c));
	before = c;
	cr_assert(eq(int, cron_parse(b->expr, &c, &pos, &err), -1),
	    "\"%s\"", b->expr);
	cr_assert(eq(str, err.msg, b->why), "\"%s\"", b->expr);
	cr_assert(eq(int, pos, b->pos), "\"%s\": %s", b->expr, err.msg);
	cr_assert(eq(int, memcmp(&c, &before, sizeof(c)), 0), "untouched on error");
}

Test(cron, reports_with_no_buffers)
{
	struct lr_cron c;

	cr_assert(eq(int, cron_parse("61 * * * *", &c, NULL, NULL), -1));
	cr_assert(eq(int, cron_parse(NULL, &c, NULL, NULL), -1));
}

Test(cron, errors_are_config_errors_with_the_field_named)
{
	struct lr_cron c;
	struct lr_err err = { 0 };
	int pos = -1;

	cr_assert(eq(int, cron_parse("0 0 * * fry", &c, &pos, &err), -1));
	cr_assert(eq(str, err.msg, "field 5 (day of week): unknown name \"fry\""));
	cr_assert(eq(int, err.status, EX_CONFIG));
	cr_assert(eq(int, pos, 8));
}

Test(cron, next_crosses_month_ends)
{
	/* 2026-01-31T12:00Z -> 2026-02-01T00:00Z */
	cr_assert(eq(i64, next_of("0 0 * * *", "UTC", 1769860800), 1769904000));
	/* 2026-01-31T09:00Z -> 2026-03-31T08:30Z: February has no 31st */
	cr_assert(eq(i64, next_of("30 8 31 * *", "UTC", 1769850000), 1774945800));
}

Test(cron, prev_crosses_month_ends)
{
	/* 2026-03-01T00:00Z -> 2026-01-31T08:30Z */
	cr_assert(eq(i64, prev_of("30 8 31 * *", "UTC", 1772323200), 1769848200));
}

Test(cron, leap_day_waits_for_a_leap_year)
{
	/* from 2026-01-01T00:00Z: 2028-02-29 ahead, 2024-02-29 behind */
	cr_assert(eq(i64, next_of("0 0 29 2 *", "UTC", 1767225600), 1835395200));
	cr_assert(eq(i64, prev_of("0 0 29 2 *", "UTC", 1767225600), 1709164800));
	/* 2100 is not a leap year: 2096-03-01 -> 2104-02-29 */
	cr_assert(eq(i64, next_of("0 0 29 2 *", "UTC", 3981398400), 4233686400));
}

Test(cron, nothing_within_eight_years_is_minus_one)
{
	/* Feb 29 on a Sunday (AND rule: day of week begins with '*'): 2032,
	 * then 2060; from 2033-01-01 that is too far */
	cr_assert(eq(i64, next_of("0 0 29 2 */7", "UTC", 1988150400), -1));
	cr_assert(eq(i64, prev_of("0 0 29 2 */7", "UTC", 1988150400), 1961625600));
}

Test(cron, restricted_day_fields_are_ored)
{
	struct lr_cron c = cron_in("0 0 13 * 5", "UTC");
	/* from 2026-04-01: Fridays 3, 10, then Monday 13, then Friday 17 */
	static const long long want[] = { 1775174400, 1775779200, 1776038400,
	    1776384000 };
	long long t = 1775001600;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		t = (long long)cron_next(&c, (time_t)t);
		cr_assert(eq(i64, t, want[i]), "fire %zu", i);
	}
	cr_assert(eq(i64, (long long)cron_prev(&c, (time_t)(t - 1)), 1776038400));
}

Test(cron, a_star_day_field_makes_it_and)
{
	/* 13th only: 2026-04-13; Fridays only: 2026-04-03 */
	cr_assert(eq(i64, next_of("0 0 13 * *", "UTC", 1775001600), 1776038400));
	cr_assert(eq(i64, next_of("0 0 * * 5", "UTC", 1775001600), 1775174400));
	/* Vixie reads only the first byte, so a stepped star is a star: odd
	 * days that are Fridays, 04-03 then 04-17 */
	cr_assert(eq(i64, next_of("0 0 */2 * 5", "UTC", 1775001600), 1775174400));
	cr_assert(eq(i64, next_of("0 0 */2 * 5", "UTC", 1775174400), 1776384000));
}

Test(cron, shortcuts_fire_when_they_say)
{
	long long wed = 1772625600;	/* 2026-03-04T12:00Z, a Wednesday */

	cr_assert(eq(i64, next_of("@weekly", "UTC", wed), 1772928000));	/* 03-08 */
	cr_assert(eq(i64, prev_of("@weekly", "UTC", wed), 1772323200));	/* 03-01 */
	cr_assert(eq(i64, next_of("@monthly", "UTC", wed), 1775001600));	/* 04-01 */
	cr_assert(eq(i64, prev_of("@monthly", "UTC", wed), 1772323200));
	cr_assert(eq(i64, next_of("@yearly", "UTC", wed), 1798761600));	/* 2027 */
	cr_assert(eq(i64, prev_of("@yearly", "UTC", wed), 1767225600));	/* 2026 */
	cr_assert(eq(i64, next_of("@hourly", "UTC", wed), wed + 3600));
	cr_assert(eq(i64, next_of("@daily", "UTC", wed), wed + 12 * 3600));
}

Test(cron, steps_and_ranges_skip_the_weekend)
{
	/* Friday 2026-03-06T17:50Z -> Monday 03-09T09:00Z, and back from
	 * Monday 08:00 to Friday 17:45 */
	cr_assert(eq(i64, next_of("*/15 9-17 * * mon-fri", "UTC", 1772819400),
	    1773046800));
	cr_assert(eq(i64, prev_of("*/15 9-17 * * mon-fri", "UTC", 1773043200),
	    1772819100));
}

Test(cron, next_is_strictly_after_and_prev_includes_t)
{
	long long t = 1772625600;	/* 2026-03-04T12:00Z */

	cr_assert(eq(i64, next_of("0 12 * * *", "UTC", t), t + 86400));
	cr_assert(eq(i64, prev_of("0 12 * * *", "UTC", t), t));
	cr_assert(eq(i64, prev_of("0 12 * * *", "UTC", t + 59), t), "seconds floor");
	cr_assert(eq(i64, next_of("0 12 * * *", "UTC", t - 1), t));
}

Test(cron, spring_forward_gap_fires_at_the_jump)
{
	/* New York 2026-03-08: 02:00 EST -> 03:00 EDT at 07:00Z. 02:30 does
	 * not exist that day, so it fires at 07:00Z; the next day at 02:30
	 * EDT, 06:30Z */
	struct lr_cron c = cron_in("30 2 * * *", NY);

	cr_assert(eq(i64, (long long)cron_next(&c, 1772928000), 1772953200));
	cr_assert(eq(i64, (long long)cron_next(&c, 1772953200), 1773037800));
	cr_assert(eq(i64, (long long)cron_prev(&c, 1772971200), 1772953200));
	/* 02:00 and 02:45 fall in the same gap */
	cr_assert(eq(i64, next_of("0,45 2 * * *", NY, 1772928000), 1772953200));
}

Test(cron, fall_back_repeat_fires_a_fixed_time_once)
{
	/* New York 2026-11-01: 02:00 EDT -> 01:00 EST at 06:00Z. 01:30 is
	 * 05:30Z (EDT) and 06:30Z (EST): a fixed time fires the first, as
	 * cron(8) does; the day after, 06:30Z (EST) */
	struct lr_cron c = cron_in("30 1 * * *", NY);

	cr_assert(eq(i64, (long long)cron_next(&c, 1793505600), 1793511000));
	cr_assert(eq(i64, (long long)cron_next(&c, 1793511000), 1793601000),
	    "not again at 01:30 EST");
	cr_assert(eq(i64, (long long)cron_prev(&c, 1793516400), 1793511000));
	cr_assert(eq(i64, (long long)cron_prev(&c, 1793514600), 1793511000));
}

Test(cron, fall_back_repeat_fires_a_wild_schedule_in_both_hours)
{
	/* minute or hour beginning with '*': by the clock, both 01:30s */
	struct lr_cron c = cron_in("30 * * * *", NY);

	cr_assert(eq(i64, (long long)cron_next(&c, 1793511000), 1793514600));
	cr_assert(eq(i64, (long long)cron_prev(&c, 1793514599), 1793511000));
	cr_assert(eq(i64, next_of("*/30 1 * * *", NY, 1793511000), 1793512800),
	    "01:00 EST, 06:00Z: the minute field is wild");
	cr_assert(eq(i64, next_of("@hourly", NY, 1793509200), 1793512800),
	    "01:00 EDT 05:00Z, then 01:00 EST 06:00Z");
}

Test(cron, spring_forward_gap_is_not_caught_up_by_a_wild_schedule)
{
	/* New York 2026-03-08, 07:00Z: 02:00 EST -> 03:00 EDT. 02:15 never
	 * occurs: an hourly :15 fires 01:15 EST (06:15Z), then 03:15 EDT
	 * (07:15Z), not at the jump */
	cr_assert(eq(i64, next_of("15 * * * *", NY, 1772950500), 1772954100));
	cr_assert(eq(i64, prev_of("15 * * * *", NY, 1772954099), 1772950500));
	cr_assert(eq(i64, next_of("15 2 * * *", NY, 1772950500), 1772953200),
	    "a fixed 02:15 fires at the jump");
}

Test(cron, fall_back_orders_by_instant_not_wall_time)
{
	/* 01:00 EDT 05:00Z, 01:30 EDT 05:30Z, 01:00 EST 06:00Z, 01:30 EST
	 * 06:30Z, 02:00 EST 07:00Z; a wild hour fires all of them */
	cr_assert(eq(i64, next_of("0,30 * * * *", NY, 1793510400), 1793511000),
	    "05:20Z -> 05:30Z, not 06:00Z");
	cr_assert(eq(i64, next_of("0,30 * * * *", NY, 1793511000), 1793512800));
	cr_assert(eq(i64, prev_of("0,30 * * * *", NY, 1793513400), 1793512800),
	    "06:10Z -> 06:00Z, not 05:30Z");
	cr_assert(eq(i64, next_of("0 1,2 * * *", NY, 1793512200), 1793516400),
	    "05:50Z (01:50 EDT) -> 07:00Z (02:00 EST): 01:00 EST is a repeat");
	cr_assert(eq(i64, prev_of("0 1,2 * * *", NY, 1793516400), 1793516400));
	cr_assert(eq(i64, prev_of("0 1,2 * * *", NY, 1793516399), 1793509200));
}

Test(cron, berlin_changes_at_one_utc)
{
	/* 2026-03-29: 02:00 CET -> 03:00 CEST at 01:00Z; 02:30 fires then,
	 * and at 00:30Z the next day */
	cr_assert(eq(i64, next_of("30 2 * * *", BERLIN, 1774742400), 1774746000));
	cr_assert(eq(i64, next_of("30 2 * * *", BERLIN, 1774746000), 1774830600));
	/* 2026-10-25: 03:00 CEST -> 02:00 CET at 01:00Z; 02:30 is 00:30Z
	 * and 01:30Z: it fires the first, then 01:30Z the next day */
	cr_assert(eq(i64, next_of("30 2 * * *", BERLIN, 1792886400), 1792888200));
	cr_assert(eq(i64, next_of("30 2 * * *", BERLIN, 1792888200), 1792978200));
	cr_assert(eq(i64, next_of("30 * * * *", BERLIN, 1792888200), 1792891800));
	/* summer: 09:00 CEST is 07:00Z on 2026-07-01 */
	cr_assert(eq(i64, next_of("0 9 * * *", BERLIN, 1782864000), 1782889200));
}

Test(cron, empty_zone_is_the_local_one)
{
	cr_assert(eq(int, setenv("TZ", "Asia/Kolkata", 1), 0));
	tzset();
	/* 09:00 IST on 2026-06-01 is 03:30Z */
	cr_assert(eq(i64, next_of("0 9 * * *", "", 1780272000), 1780284600));
	cr_assert(eq(str, getenv("TZ"), "Asia/Kolkata"));
}

Test(cron, callers_tz_is_put_back)
{
	struct lr_cron c = cron_in("30 1 * * *", NY);
	time_t t = 1780272000;	/* 2026-06-01T00:00Z */
	struct tm tm;

	cr_assert(eq(int, setenv("TZ", "Asia/Tokyo", 1), 0));
	tzset();
	cr_assert(ne(i64, (long long)cron_next(&c, t), -1));
	cr_assert(ne(i64, (long long)cron_prev(&c, t), -1));
	cr_assert(eq(str, getenv("TZ"), "Asia/Tokyo"));
	localtime_r(&t, &tm);
	cr_assert(eq(long, tm.tm_gmtoff, 9 * 3600L), "local time is Tokyo's again");

	cr_assert(eq(int, unsetenv("TZ"), 0));
	tzset();
	cr_assert(ne(i64, (long long)cron_next(&c, t), -1));
	cr_assert(eq(ptr, getenv("TZ"), NULL), "an unset TZ stays unset");
}

Test(cron, zones_are_names_of_zone_files)
{
	struct lr_cron c = cron_in("0 0 * * *", BERLIN);
	struct lr_err err = { 0 };

	cr_assert(eq(str, c.tz, BERLIN));
	cr_assert(eq(int, cron_set_tz(&c, "Mars/Olympus", &err), -1));
	cr_assert(eq(str, err.msg, "unknown time zone \"Mars/Olympus\" (no zone file "
	    "/usr/share/zoneinfo/Mars/Olympus)"));
	cr_assert(eq(int, cron_set_tz(&c, "America", &err), -1),
	    "a directory is not a zone");
	cr_assert(eq(int, cron_set_tz(&c, "/etc/localtime", &err), -1));
	cr_assert(eq(str, err.msg, "time zone \"/etc/localtime\" must be a name such "
	    "as Europe/Berlin, not a path"));
	cr_assert(eq(int, cron_set_tz(&c, "../../../etc/passwd", &err),
	    -1));
	cr_assert(eq(int, cron_set_tz(&c, "America/Argentina/ComodRivadaviaXXXXXXXX"
	    "XXXXXXXXXXXXXXXXXXXXXXXX", &err), -1));
	cr_assert(eq(str, err.msg, "time zone name is longer than 63 bytes"));
	cr_assert(eq(str, c.tz, BERLIN), "unchanged by the failures");
	cr_assert(eq(int, cron_set_tz(&c, "", &err), 0));
	cr_assert(eq(str, c.tz, ""));
}

Test(cron, zone_files_are_found_under_tzdir)
{
	struct lr_cron c = cron_in("0 0 * * *", "");
	struct lr_err err = { 0 };

	cr_assert(eq(int, setenv("TZDIR", "/nonexistent", 1), 0));
	cr_assert(eq(int, cron_set_tz(&c, "UTC", &err), -1));
	cr_assert(eq(str, err.msg, "unknown time zone \"UTC\" (no zone file "
	    "/nonexistent/UTC)"));
}

/* A search that must cross two years finds the leap day (how long it
 * takes is make bench's, not a test's). */
Test(cron, yearly_search_finds_the_leap_day)
{
	struct lr_cron c = cron_in("0 0 29 2 *", NY);
	long long t = 1767225600;	/* 2026-01-01T00:00Z */

	for (int i = 0; i < 1000; i++)
		t = (long long)cron_next(&c, (time_t)(1767225600 + i * 3600));
	cr_assert(eq(i64, t, 1835413200), "2028-02-29T05:00Z");
}

/* cron_utc() agrees with gmtime_r() over four centuries, leap days and
 * negative times included. */
Test(cron, utc_breakdown_matches_gmtime)
{
	for (long long t = -2208988800LL; t < 10413792000LL; t += 86400LL * 97 + 3607) {
		struct tm a, b;
		time_t tt = (time_t)t;

		gmtime_r(&tt, &a);
		cron_utc(tt, &b);
		cr_assert(a.tm_year == b.tm_year && a.tm_mon == b.tm_mon &&
		    a.tm_mday == b.tm_mday && a.tm_hour == b.tm_hour && a.tm_min == b.tm_min &&
		    a.tm_sec == b.tm_sec && a.tm_wday == b.tm_wday, "t=%lld", t);
	}
}

/* Six fields are read seconds first; a sixth field that can only be a
 * year (supercronic's reading) is refused by name, at its place. */
Test(cron, a_sixth_field_that_is_a_year_is_named)
{
	struct lr_cron c;
	struct lr_err e;
	int pos = -1;

	cr_assert(eq(int, cron_parse("0 3 * * * 2027", &c, &pos, &e), -1));
	cr_assert(eq(int, pos, 10));
	cr_assert(ne(ptr, strstr(e.msg, "2027 can only be a year"), NULL), "%s", e.msg);
	cr_assert(eq(int, cron_parse("0 3 * * * 5", &c, &pos, &e), 0), "a weekday");
}

static const char *
per_day(const char *expr)
{
	static char buf[96];
	struct lr_cron c;
	struct lr_err e;

	cr_assert(eq(int, cron_parse(expr, &c, NULL, &e), 0), "%s", e.msg);
	cron_per_day(&c, buf, sizeof(buf));
	return buf;
}

Test(cron, how_often_a_schedule_fires_a_day_in_words)
{
	cr_assert(eq(str, (char *)per_day("*/5 * * * * *"), "every 5 seconds, 17280 times a day"));
	cr_assert(eq(str, (char *)per_day("30 2 * * * *"), "every hour, 24 times a day"));
	cr_assert(eq(str, (char *)per_day("0 */15 * * * *"), "every 15 minutes, 96 times a day"));
	cr_assert(eq(str, (char *)per_day("0,10,11 0 0 * * *"), "3 times a day, at least "
	    "1 second apart"));
	cr_assert(eq(str, (char *)per_day("0 30 2 * * *"), "once a day"));
	cr_assert(eq(str, (char *)per_day("0 30 2 * * 1-5"), "once a day on the days it fires"));
	cr_assert(eq(str, (char *)per_day("* * * * 6 *"), "every second, 86400 times a day on "
	    "the days it fires"));
}
