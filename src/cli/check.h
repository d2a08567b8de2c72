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

/* The line that says how far this host's clock is from the lock
 * server's: offset_ms is the server's minus ours, measured against the
 * middle of a round trip of rtt_ms, so it is right within rtt_ms / 2:
 * "clock       this host is 12 ms behind the lock server (+/- 1 ms)". */
void	check_clock_print(FILE *fp, long long offset_ms, long long rtt_ms);

#endif
