/* SPDX-License-Identifier: BSD-2-Clause */
/* cron.c -- walk wall-clock days, hours and minutes to a cron schedule's
 * fire times around an instant, in its zone, then its seconds within the
 * minute found; pure, libc only. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/civil.h"
#include "core/cron.h"
#include "core/zone.h"

#define DAY		86400LL
#define SCAN_DAYS	(8 * 366LL)	/* "none within 8 years" */
#define SHIFT_MAX	(3 * 3600LL)	/* more than any clock change back in use */
#define T_MIN		(-62135596800LL)	/* 0001-01-01T00:00:00Z */
#define T_MAX		253402300799LL		/* 9999-12-31T23:59:59Z */

/*
 * Time. A "wall" time is local date and time counted in seconds as if it
 * were UTC (civil_days * DAY + seconds into the day); an instant is
 * a time_t. The scans walk wall times that match the fields, skipping
 * days arithmetically, and map each to the instants it names in the zone.
 */

void
cron_utc(time_t t, struct tm *tm)
{
	long long days = civil_floor_div((long long)t, 86400), secs = (long long)t - days * 86400;
	long long y;
	int m, d;

	civil_from_days(days, &y, &m, &d);
	memset(tm, 0, sizeof(*tm));
	tm->tm_year = (int)(y - 1900);
	tm->tm_mon = m - 1;
	tm->tm_mday = d;
	tm->tm_hour = (int)(secs / 3600);
	tm->tm_min = (int)(secs / 60 % 60);
	tm->tm_sec = (int)(secs % 60);
	tm->tm_wday = civil_weekday(days);
}

/* The lowest bit from..top set in mask, or -1. */
static int
bit_up(uint64_t mask, int from, int top)
{
	for (int b = from; b <= top; b++)
		if (mask >> b & 1)
			return b;
	return -1;
}

/* The highest bit 0..from set in mask, or -1. */
static int
bit_down(uint64_t mask, int from)
{
	for (int b = from; b >= 0; b--)
		if (mask >> b & 1)
			return b;
	return -1;
}

/* Whether c fires on wall day z. If not because of the month, set *skip
 * to 1: the caller may jump to the month's end. */
static int
day_fires(const struct lr_cron *c, long long z, int *skip)
{
	long long y;
	int m, d, wd = civil_weekday(z);
	int dom, dow;

	civil_from_days(z, &y, &m, &d);
	*skip = !(c->month >> m & 1);
	if (*skip)
		return 0;
	dom = c->dom >> d & 1;
	dow = c->dow >> wd & 1;
	/* Vixie: a restricted day of month OR a restricted day of week, but
	 * both when either field begins with '*' */
	return c->dom_star || c->dow_star ? dom && dow : dom || dow;
}

/* The earliest wall minute >= w at which c fires, or -1 past limit. */
static long long
wall_up(const struct lr_cron *c, long long w, long long limit)
{
	long long z, y, sec;
	int h, min, mo, d, skip;

	w = civil_floor_div(w + 59, 60) * 60;
	z = civil_floor_div(w, DAY);
	sec = w - z * DAY;
	h = (int)(sec / 3600);
	min = (int)(sec % 3600 / 60);
	for (; z * DAY <= limit; h = min = 0) {
		if (day_fires(c, z, &skip)) {
			int hh = h, mm = bit_up(c->minute, min, 59);

			if (!(c->hour >> h & 1) || mm == -1) {
				hh = bit_up(c->hour, h + 1, 23);
				mm = bit_up(c->minute, 0, 59);
			}
			if (hh != -1) {
				w = z * DAY + hh * 3600 + mm * 60;
				return w <= limit ? w : -1;
			}
		}
		if (skip) {		/* to the 1st of the next month */
			civil_from_days(z, &y, &mo, &d);
			z = mo == 12 ? civil_days(y + 1, 1, 1) :
			    civil_days(y, mo + 1, 1);
		} else
			z++;
	}
	return -1;
}

/* The latest wall minute <= w at which c fires, or -1 before limit. */
static long long
wall_down(const struct lr_cron *c, long long w, long long limit)
{
	long long z, y, sec;
	int h, min, mo, d, skip;

	w = civil_floor_div(w, 60) * 60;
	z = civil_floor_div(w, DAY);
	sec = w - z * DAY;
	h = (int)(sec / 3600);
	min = (int)(sec % 3600 / 60);
	for (; (z + 1) * DAY > limit; h = 23, min = 59) {
		if (day_fires(c, z, &skip)) {
			int hh = h, mm = bit_down(c->minute, min);

			if (!(c->hour >> h & 1) || mm == -1) {
				hh = bit_down(c->hour, h - 1);
				mm = bit_down(c->minute, 59);
			}
			if (hh != -1) {
				w = z * DAY + hh * 3600 + mm * 60;
				return w >= limit ? w : -1;
			}
		}
		if (skip) {		/* to the last day of the month before */
			civil_from_days(z, &y, &mo, &d);
			z = civil_days(y, mo, 1);
		}
		z--;
	}
	return -1;
}

/* How far z's clock went back between instants from and to, or 0. */
static long
zone_back(const struct lr_zone *z, long long from, long long to)
{
	long d = zone_offset(z, from, NULL) - zone_offset(z, to, NULL);

	return d > 0 ? d : 0;
}

/* The instants at which c fires for wall time w, in order, into inst;
 * how many (0-2). cron(8) runs a fixed-time job once when the clock goes
 * back and at the jump when it leaps over it, and schedules a wild one
 * (every minute or every hour of something) by the clock as it reads. */
static int
fire_instants(const struct lr_cron *c, const struct lr_zone *z, long long w,
    long long inst[2])
{
	int k = zone_instants(z, w, inst);

	if (k == 2 && !c->wild)
		return 1;
	if (k == 1 && c->wild && inst[0] + zone_offset(z, inst[0], NULL) != w)
		return 0;	/* the jump's instant: w itself never occurred */
	return k;
}

/* cron_next() in zone z. Wall times from wall(t) on are tried in order;
 * the first that fires after t is the answer unless the clock went back
 * just before it, when the next few wall hours may name earlier instants.
 * If the clock goes back soon after t, walls before wall(t) may fire
 * after t too, so the walk starts that much earlier. */
static time_t
scan_up(const struct lr_cron *c, const struct lr_zone *z, long long t)
{
	long long wt = t + zone_offset(z, t, NULL), limit = wt + SCAN_DAYS * DAY;
	long long w, best = -1, inst[2];
	int found = 0;

	w = wt - zone_back(z, t, t + SHIFT_MAX);
	for (; (w = wall_up(c, w, limit)) != -1; w += 60) {
		int k = fire_instants(c, z, w, inst);

		for (int i = 0; i < k; i++) {
			if (inst[i] <= t || (found && inst[i] >= best))
				continue;
			if (!found)	/* later walls matter only after a jump back */
				limit = w + zone_back(z, inst[i] - SHIFT_MAX > t ?
				    inst[i] - SHIFT_MAX : t + 1, inst[i]);
			best = inst[i];
			found = 1;
		}
	}
	return found ? (time_t)best : (time_t)-1;
}

/* cron_prev() in zone z: scan_up() mirrored. */
static time_t
scan_down(const struct lr_cron *c, const struct lr_zone *z, long long t)
{
	long long wt = t + zone_offset(z, t, NULL), limit = wt - SCAN_DAYS * DAY;
	long long w, best = -1, inst[2];
	int found = 0;

	w = wt + zone_back(z, t - SHIFT_MAX, t);
	for (; (w = wall_down(c, w, limit)) != -1; w -= 60) {
		int k = fire_instants(c, z, w, inst);

		for (int i = 0; i < k; i++) {
			if (inst[i] > t || (found && inst[i] <= best))
				continue;
			if (!found)	/* earlier walls matter only before a jump back */
				limit = w - zone_back(z, inst[i], inst[i] + SHIFT_MAX < t ?
				    inst[i] + SHIFT_MAX : t);
			best = inst[i];
			found = 1;
		}
	}
	return found ? (time_t)best : (time_t)-1;
}

/* c's zone, loaded by cron_set_tz() before; UTC should its file have
 * gone since (glibc reads an unknown TZ as UTC too). NULL if c->tz is
 * not a string. */
static const struct lr_zone *
cron_zone(const struct lr_cron *c)
{
	const struct lr_zone *z;

	if (memchr(c->tz, '\0', sizeof(c->tz)) == NULL)
		return NULL;
	z = zone_load(c->tz, NULL);
	return z != NULL ? z : zone_utc();
}

/* The latest minute at which c fires at or before t, as an instant. */
static time_t
minute_prev(const struct lr_cron *c, time_t t)
{
	const struct lr_zone *z = cron_zone(c);

	if ((long long)t < T_MIN + SCAN_DAYS * DAY || (long long)t > T_MAX || z == NULL)
		return (time_t)-1;
	return scan_down(c, z, (long long)t);
}

/* The earliest minute at which c fires after t, as an instant. */
static time_t
minute_next(const struct lr_cron *c, time_t t)
{
	const struct lr_zone *z = cron_zone(c);

	if ((long long)t < T_MIN || (long long)t > T_MAX - SCAN_DAYS * DAY || z == NULL)
		return (time_t)-1;
	return scan_up(c, z, (long long)t);
}

/*
 * Seconds. A fire time is a minute at which the five fields fire plus a
 * second of the first field (second 0 alone for five fields). Minutes that
 * fire are at least a minute apart, so only the latest one at or before t
 * can have a second on either side of t.
 */

time_t
cron_prev(const struct lr_cron *c, time_t t)
{
	time_t m = minute_prev(c, t);
	int s;

	if (m == (time_t)-1)
		return m;
	if ((s = bit_down(c->second, (int)(t - m < 59 ? t - m : 59))) != -1)
		return m + s;
	if ((m = minute_prev(c, m - 1)) == (time_t)-1)
		return m;
	return m + bit_down(c->second, 59);
}

time_t
cron_next(const struct lr_cron *c, time_t t)
{
	time_t m;
	int s;

	if (c->second > 1 && (m = minute_prev(c, t)) != (time_t)-1 && t - m < 59 &&
	    (s = bit_up(c->second, (int)(t - m) + 1, 59)) != -1)
		return m + s;	/* later in the minute that fired last */
	if ((m = minute_next(c, t)) == (time_t)-1)
		return m;
	return m + bit_up(c->second, 0, 59);
}

/* The unit that says a gap of s seconds best: "5 seconds", "2 minutes";
 * one of a unit is "hour" when bare is set, else "1 hour". */
static void
gap_words(long s, int bare, char *buf, size_t n)
{
	long v = s % 3600 == 0 ? s / 3600 : s % 60 == 0 ? s / 60 : s;
	const char *unit = s % 3600 == 0 ? "hour" : s % 60 == 0 ? "minute" : "second";

	if (v == 1)
		snprintf(buf, n, "%s%s", bare ? "" : "1 ", unit);
	else
		snprintf(buf, n, "%ld %ss", v, unit);
}

void
cron_per_day(const struct lr_cron *c, char *buf, size_t n)
{
	long count = 0, first = -1, last = -1, gap = -1, min = 86400;
	int even = 1;
	char g[32];

	for (long h = 0; h < 24; h++)
		for (long m = 0; (c->hour >> h & 1) && m < 60; m++)
			for (long s = 0; (c->minute >> m & 1) && s < 60; s++) {
				long at = h * 3600 + m * 60 + s;

				if (!(c->second >> s & 1))
					continue;
				if (last >= 0) {
					even &= gap < 0 || at - last == gap;
					gap = at - last;
					min = gap < min ? gap : min;
				} else
					first = at;
				last = at;
				count++;
			}
	if (count > 1) {	/* the gap over midnight */
		even &= 86400 - last + first == gap;
		min = 86400 - last + first < min ? 86400 - last + first : min;
	}
	if (count > 1 && even) {
		gap_words(gap, 1, g, sizeof(g));
		snprintf(buf, n, "every %s, %ld times a day", g, count);
	} else if (count > 1) {
		gap_words(min, 0, g, sizeof(g));
		snprintf(buf, n, "%ld times a day, at least %s apart", count, g);
	} else
		snprintf(buf, n, "once a day");
	if (!c->dom_star || !c->dow_star || c->month != 0x1ffe)
		snprintf(buf + strlen(buf), n - strlen(buf), " on the days it fires");
}

int
cron_min_gap(const struct lr_cron *c)
{
	int gap = 60, first = bit_up(c->second, 0, 59), last = first;

	for (int s = first + 1; s <= 59; s++) {
		if (!(c->second >> s & 1))
			continue;
		if (s - last < gap)
			gap = s - last;
		last = s;
	}
	/* the last second of one minute to the first of the next */
	return 60 - last + first < gap ? 60 - last + first : gap;
}
