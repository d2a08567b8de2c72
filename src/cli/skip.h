/* SPDX-License-Identifier: BSD-2-Clause */
/* skip.h -- what a run says when it skips (skip.c), for run.c. */
#ifndef LR_SKIP_H
#define LR_SKIP_H

#include "cli/run_state.h"

/* Say why the run skipped (out: LOCK_HELD, LOCK_SLOT_TAKEN, LOCK_PAUSED),
 * as an event: who holds what (the holder's value "id token host pid
 * start" in r->lock.holder), or who paused the task. status is lockrun's
 * exit status. */
void	run_report_skip(const struct lr_run *r, enum lock_outcome out, int status);

/* Say that task x->cli.task does not run on this host (hosts:,
 * host_match:; why from where_here()): skipped, with exit status. */
void	run_report_elsewhere(const struct lr_run *r, const char *why, int status);

/* Say that the run is outside its times of day (between:, not_between:;
 * why from window_allows()): skipped, with exit status. */
void	run_report_window(const struct lr_run *r, const char *why, int status);

/* Say that its condition (when:, whose program is prog) exited with
 * status cond: skipped, with exit status. */
void	run_report_condition(const struct lr_run *r, const char *prog, int cond,
	    int status);

#endif
