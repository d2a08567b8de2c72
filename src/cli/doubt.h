/* SPDX-License-Identifier: BSD-2-Clause */
/* doubt.h -- a run whose lock server's answer cannot be taken as it is
 * (doubt.c), for run.c. */
#ifndef LR_DOUBT_H
#define LR_DOUBT_H

#include "cli/ctx.h"
#include "core/err.h"

/* The acquire failed after it was sent (x->lock.in_doubt): take back
 * whatever it may have taken, by this run's owner id, on a new connection,
 * and append to e->msg how that went. Returns 0 when it was taken back
 * (or had taken nothing), -1 when withdrawing failed or there was no
 * doubt (nothing done). The connection is closed either way. */
int	run_withdraw(struct lr_ctx *x, struct lr_err *e);

/* LOCK_CLOCK_OFF: -1 with e, EX_TEMPFAIL: the one line main() says. */
int	run_clock_off(const struct lr_ctx *x, struct lr_err *e);

#endif
