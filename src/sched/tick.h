/* SPDX-License-Identifier: BSD-2-Clause */
/* tick.h -- `lockrun tick`: start every task due this minute, wait for all. */
#ifndef LR_TICK_H
#define LR_TICK_H

#include "config/config.h"
#include "sched/leases.h"
#include "sched/starter.h"

/* Start each task of cfg that is due at now_ms (due_now()) as its own run
 * (starter_spawn()), all at once, and wait for them, passing on TERM, INT,
 * HUP and QUIT. Says one summary line. Returns 0 when each due task ran
 * with status 0 or was skipped (its conflict_exit), else the status of the
 * first task in the config that failed; or -1 with e when none could be
 * started as asked (bad config, fork). With ls (and sp->lease_url), the
 * runs' lock requests go over its one connection, kept while they run.
 * A task that does not run on host (hosts:, host_match:) is not started,
 * and said (due_tasks()).
 */
int	tick_run(const struct lr_config *cfg, const char *host, const struct sched_spawner *sp,
	    struct leases *ls,
	    long long now_ms, struct lr_err *e);

#endif
