/* SPDX-License-Identifier: BSD-2-Clause */
/* check.h -- `lockrun check`: what a run would use, without running. */
#ifndef LR_CHECK_H
#define LR_CHECK_H

#include <stdio.h>

#include "core/schedule.h"
#include "core/task.h"

struct lr_check {
	const struct lr_task	 *t;		/* merged and finished */
	const char		 *task;		/* -t name, or NULL */
	const char		 *name;		/* the lock name */
	const char		 *prefix;
	const struct lr_schedule *sched;	/* when one-server */
	char *const		 *argv;		/* what would be executed */
};

/* Print the run's keys, lease timing, the slot a start at now_ms would
 * claim with its key and TTL, and the next five fire times. */
void	check_print(FILE *fp, const struct lr_check *c, long long now_ms);

#endif
