/* SPDX-License-Identifier: BSD-2-Clause */
/* when.h -- whether a run goes at all, decided before its lock is asked:
 * its times of day (between:, not_between:) and its condition (when:),
 * for run.c, and what check -t says of them. */
#ifndef LR_WHEN_H
#define LR_WHEN_H

#include "cli/run_state.h"

/* The instant tick or cron started this run for (LOCKRUN_SLOT_AT, Unix
 * ms), when it is no more than a minute ahead of our clock and a day
 * behind it; else 0. Read, not taken out of the environment. */
long long when_pinned_at(void);

/* between:, not_between: (core/window.h), read on the clock of the
 * task's timezone. Returns 1 when the run goes (also for a triggered run:
 * asked for now, it is held to no time of day); 0 when it is outside
 * them: said in one line (event skipped-window, shown on a terminal and
 * with -v, as every skip), nothing asked of the server, nothing
 * recorded: the caller exits with conflict_exit. -1 with e when the
 * zone cannot be read. */
int	when_window(struct lr_run *r, struct lr_err *e);

/* when: run the task's condition (none: 1) as a hook is run (as the
 * task's user, in its cwd, with its env and LOCKRUN_TASK, _KEY, _SLOT,
 * LOCKRUN_HOOK=when; stopped at hook_timeout). Exit 0: returns 1, the
 * run goes on. Any other status: the slot is skipped, said (event
 * skipped-condition) and recorded in the history as skipped-condition
 * with that status, in one round trip (a failure to record is a
 * warning); returns 0, and the caller exits with conflict_exit. Returns
 * -1 with e when the condition could not be started (127 not found, 126
 * not executable). After ctx_server() and run_prepare(); a run whose
 * user, group or cwd this host lacks (r->cannot_start) asks nothing:
 * it goes on, to say so with its lock. */
int	when_condition(struct lr_run *r, struct lr_err *e);

/* For check -t: the run's times of day and condition, when it has them,
 * on stdout: whether a run started now goes, and why; when the next may. */
void	when_print(const struct lr_run *r);

#endif
