/* SPDX-License-Identifier: BSD-2-Clause */
/* cron.h -- cron expressions as Vixie and Debian cron read them: parse the
 * five fields (or six, with a leading seconds field), and find the fire
 * times around an instant in a time zone. */
#ifndef LR_CRON_H
#define LR_CRON_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct lr_err;

struct lr_cron {
	uint64_t second;	/* bit s set: second s (0-59); bit 0 alone for
				 * five fields */
	uint64_t minute;	/* bit m set: minute m (0-59) */
	uint32_t hour;		/* bits 0-23 */
	uint32_t dom;		/* bits 1-31 */
	uint16_t month;		/* bits 1-12 */
	uint8_t  dow;		/* bits 0-6, Sunday = 0 (7 is read as 0) */
	int	 dom_star;	/* day-of-month field began with '*' */
	int	 dow_star;	/* day-of-week field began with '*' */
	int	 wild;		/* minute or hour field began with '*' */
	int	 seconds;	/* written with six fields */
	char	 tz[64];	/* IANA zone name, "" = the process's local zone */
};

/* Parse a 5-field cron expression ("30 9-17 * * mon-fri"), a 6-field one
 * whose first field is the second (as supercronic and Quartz read it:
 * "0/10 * * * * *" is every ten seconds), or a shortcut (@hourly @daily
 * @midnight @weekly @monthly @yearly @annually) into *c,
 * which it fills whole: c->tz becomes "", so call cron_set_tz() after.
 * Items are *, N, N-M, each with an optional /STEP; N/STEP means N to the
 * field's end (day of week ends at 6). Months and days of the week may be
 * written as three-letter English names, in any case.
 * Returns 0, or -1 with *c untouched, e set to one message (EX_CONFIG)
 * and *pos to the 0-based byte offset in expr of the field or list item
 * at fault (0 for whole-expression problems, such as a schedule that
 * never fires).
 * pos and e may be NULL. */
int	cron_parse(const char *expr, struct lr_cron *c, int *pos, struct lr_err *e);

/* Set the zone the fields are read in, as CRON_TZ does: an IANA name
 * ("Europe/Berlin") naming a zone file under $TZDIR or, when that is unset
 * or empty, /usr/share/zoneinfo (read by core/zone.c, which keeps it).
 * "" or NULL means the process's local zone, as zone_load() finds it at
 * each walk. Returns 0, or -1 with e set and c->tz untouched when tz is a
 * path (absolute, or with ".."), too long, or not a zone file. */
int	cron_set_tz(struct lr_cron *c, const char *tz, struct lr_err *e);

/* The latest fire time <= t, or (time_t)-1 if there is none within 8
 * years (or t is outside years 1-9999). Across a DST change, as Vixie and
 * Debian cron do: a schedule whose minute or hour field begins with '*'
 * (wild) fires at the wall times that occur, in both hours of a clock set
 * back and not at all in the hour jumped over; any other (a fixed time)
 * fires a wall time skipped by the jump at the first instant after it, and
 * one that occurs twice only the first time. The zone comes from
 * core/zone.c: TZ and tzset(3) are left
 * alone. Safe with other threads once c's zone has been loaded (by
 * cron_set_tz(), or a first walk in the local zone). */
time_t	cron_prev(const struct lr_cron *c, time_t t);

/* The earliest fire time > t, or (time_t)-1 if none within 8 years. As
 * cron_prev() for DST and zones. */
time_t	cron_next(const struct lr_cron *c, time_t t);

/* The shortest time in seconds there can be between two fire times of c,
 * counted from its fields alone (at most 60 for a 6-field expression,
 * whose seconds may be 1s apart; 60 for five fields). */
int	cron_min_gap(const struct lr_cron *c);

/* How often c fires on a day it fires, in words, into buf[n]: "every 5
 * seconds, 17280 times a day", "3 times a day, at least 10s apart", with
 * " on the days it fires" when its day or month fields choose days. For
 * the line that says what a six-field schedule means. */
void	cron_per_day(const struct lr_cron *c, char *buf, size_t n);

/* Break t down as UTC into tm, as gmtime_r(3) does, but without touching
 * the time zone: glibc's gmtime_r reads /etc/localtime on first use, a
 * file opened and parsed on every run for nothing. */
void	cron_utc(time_t t, struct tm *tm);

#endif
