/* SPDX-License-Identifier: BSD-2-Clause */
/* view.c -- the counts a scheduler keeps for its watcher (crond.h's
 * struct crond_view, which cron --listen exposes): how late its starts
 * are, as a histogram. */
#include "sched/crond.h"

void
crond_view_lag(struct crond_view *v, long long lag_ms)
{
	static const long long bounds[CROND_LAG_NBOUNDS] = CROND_LAG_BOUNDS;
	size_t b = 0;

	if (lag_ms < 0)
		lag_ms = 0;
	while (b < CROND_LAG_NBOUNDS && lag_ms > bounds[b])
		b++;
	v->lag[b]++;
	v->starts++;
	v->lag_sum_ms += lag_ms;
}
