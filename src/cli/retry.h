/* SPDX-License-Identifier: BSD-2-Clause */
/* retry.h -- a failed run's next attempts (retries:, retry_delay:), for
 * run.c: the same run goes again, holding its lock and its slot. */
#ifndef LR_RETRY_H
#define LR_RETRY_H

#include "cli/run_state.h"
#include "proc/supervise.h"

/* Attempt number attempt (from 1) starts: LOCKRUN_ATTEMPT for the
 * command. Returns attempt, for the hooks. */
int	retry_attempt(struct lr_run *r, int attempt);

/* Attempt number attempt ended with status (s as supervise() left it):
 * should the run go again? Not after a success, the last attempt, a lost
 * lock (the command may still run where the lock went), a command that
 * could not start (status -1) or a signal that asks lockrun to end. Else
 * say so, wait the attempt's delay (task_retry_delay()) holding the lock
 * -- its lease renewed, s->be permitting -- and return 1 with s ready for
 * the next attempt; 0 when the run ends here: a signal, or a lease that
 * could not be kept while waiting, ends it too. */
int	retry_next(struct lr_run *r, struct lr_supervise *s, int attempt, int status);

#endif
