/* SPDX-License-Identifier: BSD-2-Clause */
/* skip.h -- what a run says when it skips (skip.c), for run.c. */
#ifndef LR_SKIP_H
#define LR_SKIP_H

#include "cli/ctx.h"

/* Say why the run skipped (out: LOCK_HELD, LOCK_SLOT_TAKEN, LOCK_PAUSED),
 * as an event: who holds what (the holder's value "id token host pid
 * start" in x->lock.holder), or who paused the task. status is lockrun's
 * exit status. */
void	run_report_skip(const struct lr_ctx *x, enum lock_outcome out, int status);

/* The scheduler recorded a slot of this task as missed (MISSED_VAR,
 * sched/runs.h, its Unix seconds): run the task's on_missed hook, told
 * that slot, and nothing else. Returns the hook's status (0 when there
 * is none), or -1 with e. */
int	run_missed(struct lr_ctx *x, struct lr_err *e);

#endif
