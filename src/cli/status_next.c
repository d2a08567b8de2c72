/* SPDX-License-Identifier: BSD-2-Clause */
/* status_next.c -- each task's next fire time for `lockrun status` (its
 * NEXT column, and --html's Next), as a scheduler would compute it here
 * and now from the whole config: status itself reads only the names. */
#include <stdlib.h>
#include <time.h>

#include "cli/status.h"
#include "core/zone.h"
#include "sched/due.h"

/* Each of names[0..n) its schedule, by its place in nx->full's tasks
 * (config_task()'s table): linear in the number of tasks, not names
 * times tasks. */
static void
fill(struct status_next *nx, const char *const *names, size_t n, size_t nt)
{
	const struct sched_task **of = calloc(nx->full.ntasks + 1, sizeof(*of));
	const struct lr_task *task;
	time_t now = time(NULL);

	if (of == NULL)
		return;
	for (size_t j = 0; j < nt; j++)
		if ((task = config_task(&nx->full, nx->tasks[j].name)) != NULL)
			of[task - nx->full.tasks] = &nx->tasks[j];
	for (size_t i = 0; i < n; i++) {
		struct crond_task_view *v = &nx->v[i];
		struct lr_err e = LR_ERR_INIT;
		const struct sched_task *s;
		const struct lr_zone *z;
		time_t next;

		if ((task = config_task(&nx->full, names[i])) == NULL ||
		    (s = of[task - nx->full.tasks]) == NULL ||
		    (next = schedule_next(&s->sched, now)) == (time_t)-1)
			continue;
		v->tz = s->sched.has_cron ? s->sched.cron.tz : "";
		v->next_ms = (long long)next * 1000;
		v->subminute = schedule_subminute(&s->sched);
		z = zone_load(v->tz, &e);
		v->next_offset_s = z ? zone_offset(z, next, NULL) : 0;
	}
	free(of);
}

int
status_next_read(struct status_next *nx, const struct lr_config *cfg,
    const char *const *names, size_t n)
{
	struct lr_err e = LR_ERR_INIT;
	size_t nt = 0;

	*nx = (struct status_next){ 0 };
	config_init(&nx->full);
	if ((nx->v = calloc(n + 1, sizeof(*nx->v))) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		nx->v[i] = (struct crond_task_view){ .name = names[i], .tz = "", .next_ms = -1 };
	/* a config that cannot be read in full now (it changed since) leaves
	 * every time unknown: status still shows the locks */
	if (config_is_set(cfg) && config_reload(cfg, &nx->full, &e) == 0 &&
	    due_tasks(&nx->full, NULL, &nx->tasks, &nt, &e) == 0)
		fill(nx, names, n, nt);
	return 0;
}

void
status_next_free(struct status_next *nx)
{
	free(nx->v);
	free(nx->tasks);
	config_free(&nx->full);
	*nx = (struct status_next){ 0 };
}
