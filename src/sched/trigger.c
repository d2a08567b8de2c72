/* SPDX-License-Identifier: BSD-2-Clause */
/* trigger.c -- a scheduler takes the triggers of its tasks (trigger.h):
 * one round trip each TRIGGER_POLL_S, from the scheduler's loop, which
 * keeps its one absolute timer (armed at the next fire time or the next
 * look, whichever is sooner). A trigger is a key (row) next to the task's
 * lock; taking it deletes it, so exactly one scheduler of the fleet takes
 * each, and starts the run (`lockrun -t NAME`, triggered: no slot, the
 * no-overlap lock). */
#include <stdlib.h>

#include "core/keys.h"
#include "out/log.h"
#include "sched/trigger.h"

int
trigger_take(void *arg, const struct sched_task *t, size_t n, unsigned char *taken)
{
	struct trigger_src *src = arg;
	struct lr_err e = LR_ERR_INIT;
	struct lr_keys *k;
	int rc;

	if (n == 0 || src->be->ops->take == NULL)
		return 0;
	if ((k = calloc(n, sizeof(*k))) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		keys_build(&k[i], src->prefix, t[i].name, (time_t)-1, 60000);
	rc = src->be->ops->take(src->be, k, n, taken, &e);
	free(k);
	if (rc != 0) {
		src->be->ops->close(src->be);	/* what is left of the answer goes too */
		if (!src->failing)
			lr_event(LOG_WARNING, "trigger", NULL, "cannot look for triggered "
			    "runs: %s; looking again every %ds", e.msg, TRIGGER_POLL_S);
		src->failing = 1;
		return -1;
	}
	src->failing = 0;
	return 0;
}

void
trigger_check(struct trigger_look *l, long long now_ms, const struct sched_task *t,
    size_t n, void (*start)(void *sarg, size_t i), void *sarg)
{
	const long long every = TRIGGER_POLL_S * 1000LL;
	unsigned char *taken;

	if (l->poll == NULL || (now_ms < l->next && l->next - now_ms <= every))
		return;
	l->next = now_ms + every;
	if ((taken = calloc(n + 1, 1)) == NULL)
		return;
	if (l->poll(l->arg, t, n, taken) == 0)
		for (size_t i = 0; i < n; i++)
			if (taken[i])
				start(sarg, i);
	free(taken);
}
