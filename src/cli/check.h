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
	const char		 *host;		/* run_on: all: this host, whose
						 * slot key it is; else NULL */
};

#endif
