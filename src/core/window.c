/* SPDX-License-Identifier: BSD-2-Clause */
/* window.c -- the times of day a task may run at (window.h); pure, libc
 * only, its zone read by core/zone.c. */
#include <stdio.h>
#include <string.h>

#include "core/civil.h"
#include "core/window.h"
#include "core/zone.h"

#define DAY_S	86400L

/* "H:MM" or "HH:MM" at *p into *s (seconds after midnight), *p moved past
 * it. Returns 0, or -1. */
static int
clock_time(const char **p, long *s)
{
	const char *c = *p;
	int h = 0, m;

	if (c[0] < '0' || c[0] > '9')
		return -1;
	h = c[0] - '0';
	c++;
	if (*c >= '0' && *c <= '9')
		h = h * 10 + (*c++ - '0');
	if (*c++ != ':' || c[0] < '0' || c[0] > '5' || c[1] < '0' || c[1] > '9' || h > 23)
		return -1;
	m = (c[0] - '0') * 10 + (c[1] - '0');
	*p = c + 2;
	*s = h * 3600L + m * 60L;
	return 0;
}

const char *
window_parse(const char *text, struct lr_window *w)
{
	const char *p = text;

	if (clock_time(&p, &w->from_s) != 0)
		return "is not HH:MM-HH:MM (e.g. 08:00-18:00)";
	p += strspn(p, " ");
	if (*p++ != '-')
		return "is not HH:MM-HH:MM (e.g. 08:00-18:00)";
	p += strspn(p, " ");
	if (clock_time(&p, &w->to_s) != 0 || *p != '\0')
		return "is not HH:MM-HH:MM (e.g. 08:00-18:00)";
	if (w->from_s == w->to_s)
		return "starts where it ends (a window of no time, or of the whole day: "
		    "leave the setting out for the whole day)";
	return NULL;
}

int
window_holds(const struct lr_window *w, long s)
{
	if (w->from_s < w->to_s)
		return s >= w->from_s && s < w->to_s;
	return s >= w->from_s || s < w->to_s;	/* wraps midnight */
}

/* The seconds after midnight z's clock reads at t. */
static long
wall_of_day(const struct lr_zone *z, long long t)
{
	long long wall = t + zone_offset(z, t, NULL);

	return (long)(wall - civil_floor_div(wall, DAY_S) * DAY_S);
}

/* Is s inside the window text (NULL: none given, which holds nothing)? */
static int
inside(const char *text, long s)
{
	struct lr_window w;

	return text != NULL && window_parse(text, &w) == NULL && window_holds(&w, s);
}

int
window_allows(const char *between, const char *not_between, const struct lr_zone *z,
    const char *zname, long long t, char *why, size_t n)
{
	long s = wall_of_day(z, t);
	char at[80];

	snprintf(at, sizeof(at), "%02ld:%02ld %s", s / 3600, s / 60 % 60, zname);
	if (between && !inside(between, s)) {
		snprintf(why, n, "%s is outside between %s", at, between);
		return 0;
	}
	if (inside(not_between, s)) {
		snprintf(why, n, "%s is within not_between %s", at, not_between);
		return 0;
	}
	if (between && not_between)
		snprintf(why, n, "%s is within between %s and outside not_between %s", at,
		    between, not_between);
	else if (between)
		snprintf(why, n, "%s is within between %s", at, between);
	else if (not_between)
		snprintf(why, n, "%s is outside not_between %s", at, not_between);
	else
		snprintf(why, n, "no between or not_between: any time of day");
	return 1;
}

long long
window_next_open(const char *between, const char *not_between, const struct lr_zone *z,
    long long t)
{
	long long m = civil_floor_div(t + 59, 60) * 60;
	char why[8];

	for (long long end = m + 2 * DAY_S; m <= end; m += 60)
		if (window_allows(between, not_between, z, "", m, why, sizeof(why)))
			return m;
	return -1;
}
