/* SPDX-License-Identifier: BSD-2-Clause */
/* schedule.c -- slot arithmetic over cron schedules and fixed periods;
 * pure, libc only. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/duration.h"
#include "core/err.h"
#include "core/schedule.h"


int
schedule_init(struct lr_schedule *s, const char *expr, const char *tz,
    long long every_ms, long long tolerance_ms, int *pos, struct lr_err *e)
{
	char a[32], b[32];
	struct lr_err ze;
	long long limit;

	memset(s, 0, sizeof(*s));
	*pos = -1;		/* a fault outside the expression, unless set below */
	s->every_ms = every_ms;
	if (expr && strcmp(expr, LR_REBOOT) == 0) {
		s->reboot = 1;
		return 0;
	}
	if (expr) {
		if (cron_parse(expr, &s->cron, pos, e) != 0)
			return -1;
		s->has_cron = 1;
		*pos = -1;
	}
	if (tz && cron_set_tz(&s->cron, tz, &ze) != 0)
		return lr_errf(e, EX_CONFIG, "timezone: %s", ze.msg);
	limit = schedule_gap_ms(s);
	if (tolerance_ms == LR_UNSET)
		tolerance_ms = SCHEDULE_TOLERANCE_MS < limit / 4 ?
		    SCHEDULE_TOLERANCE_MS : limit / 4;
	else if (limit < 60000 && tolerance_ms * 4 > limit) {
		return lr_errf(e, EX_CONFIG, "slot_tolerance %s must be at most a quarter of "
		    "the slot (%s) when slots are under a minute apart",
		    duration_format(tolerance_ms, a, sizeof(a)),
		    duration_format(limit, b, sizeof(b)));
	} else if (tolerance_ms * 2 >= limit) {
		return lr_errf(e, EX_CONFIG, "slot_tolerance %s must be under half the slot (%s)",
		    duration_format(tolerance_ms, a, sizeof(a)),
		    duration_format(limit, b, sizeof(b)));
	}
	s->tolerance_ms = tolerance_ms;
	return 0;
}

/* floor(a / b) for b > 0, also for a < 0 */
static long long
floor_div(long long a, long long b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

time_t
schedule_slot(const struct lr_schedule *s, long long now_ms)
{
	long long t = now_ms + s->tolerance_ms;

	if (s->reboot)
		return (time_t)-1;
	if (s->has_cron)
		return cron_prev(&s->cron, (time_t)floor_div(t, 1000));
	return (time_t)(floor_div(t, s->every_ms) * s->every_ms / 1000);
}

time_t
schedule_next(const struct lr_schedule *s, time_t t)
{
	long long every_s = s->every_ms / 1000;

	if (s->reboot)
		return (time_t)-1;
	if (s->has_cron)
		return cron_next(&s->cron, t);
	return (time_t)((floor_div((long long)t, every_s) + 1) * every_s);
}

long long
schedule_slot_ttl_ms(const struct lr_schedule *s, long long now_ms, time_t slot)
{
	time_t next = schedule_next(s, slot);
	long long ttl;

	if (next == (time_t)-1)		/* the last fire time there is */
		next = slot + 366LL * 86400;
	ttl = (long long)next * 1000 + s->tolerance_ms - now_ms;
	return ttl < 1000 ? 1000 : ttl;
}

long long
schedule_stamp_ms(const struct lr_schedule *s)
{
	if (s->has_cron)
		return s->cron.seconds ? 1000 : 60000;
	return s->every_ms;
}

long long
schedule_gap_ms(const struct lr_schedule *s)
{
	return s->has_cron ? cron_min_gap(&s->cron) * 1000LL : s->every_ms;
}

int
schedule_subminute(const struct lr_schedule *s)
{
	if (s->reboot)
		return 0;
	if (s->has_cron)
		return s->cron.second != 1;
	return s->every_ms % 60000 != 0;
}
