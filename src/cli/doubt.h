/* SPDX-License-Identifier: BSD-2-Clause */
/* doubt.h -- a run whose lock server's answer cannot be taken as it is
 * (doubt.c), for run.c. */
#ifndef LR_DOUBT_H
#define LR_DOUBT_H

#include "cli/run_state.h"
#include "core/err.h"

/* The acquire failed after it was sent (r->lock.in_doubt): take back
 * whatever it may have taken, by this run's owner id, on a new connection,
 * and append to e->msg how that went. Returns 0 when it was taken back
 * (or had taken nothing), -1 when withdrawing failed or there was no
 * doubt (nothing done). The connection is closed either way. */
int	run_withdraw(struct lr_run *r, struct lr_err *e);

/* LOCK_CLOCK_OFF: -1 with e, EX_TEMPFAIL: the one line main() says. */
int	run_clock_off(const struct lr_run *r, struct lr_err *e);

/* Too late to start: the slot's next fire time passed before the server
 * took the claim (lock_slot_passed()), or the lease was answered too
 * late (run_lease_late()). The slot is missed: one error line, event
 * too-late, from which the scheduler that started this run learns not to
 * try it again, and says "missed" once (sched/report.c). Returns the
 * run's status, EX_UNAVAILABLE. */
int	run_too_late(const struct lr_run *r, const char *why);

/* Is the lease the acquire's answer left (counted from x->acquired_at, no
 * earlier than the server's lease started) too short to start the command
 * under (lease_too_late(): its first renewal point passed)? A command
 * started then could be stopped at once (LOST LOCK, 0 ms left): its lock
 * is released instead, and the slot is missed. Says how much was left. */
int	run_lease_late(const struct lr_run *r);

#endif
