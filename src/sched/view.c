/* SPDX-License-Identifier: BSD-2-Clause */
/* view.c -- the counts a scheduler keeps for its watcher (crond.h's
 * struct crond_view, which cron --listen exposes): how late its starts
 * are, as a histogram; and the tasks it is told. */
#include <stdlib.h>

#include "core/schedule.h"
#include "core/zone.h"
#include "sched/view.h"

void
view_lag(struct crond_view *v, long long lag_ms)
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

void
view_tell(struct crond_view *v, void (*watch)(void *arg, const struct crond_view *v),
    void *arg, const struct sched_task *t, size_t n, const struct heap *h,
    const size_t *running)
{
	struct crond_task_view *tv;

	if (watch == NULL || (tv = calloc(n + 1, sizeof(*tv))) == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		tv[i] = (struct crond_task_view){ .name = t[i].name,
		    .tz = t[i].sched.has_cron ? t[i].sched.cron.tz : "", .next_ms = -1,
		    .subminute = schedule_subminute(&t[i].sched), .running = running[i] };
	for (size_t k = 0; k < h->n; k++) {
		struct crond_task_view *x = &tv[h->v[k].task];
		struct lr_err e = LR_ERR_INIT;
		const struct lr_zone *z = zone_load(x->tz, &e);

		x->next_ms = (long long)h->v[k].at * 1000;
		x->next_offset_s = z ? zone_offset(z, h->v[k].at, NULL) : 0;
	}
	v->tasks = tv;
	v->ntasks = n;
	watch(arg, v);
	v->tasks = NULL;
	free(tv);
}
