/* SPDX-License-Identifier: BSD-2-Clause */
/* acquire.h -- a run takes its lock (acquire.c), for run.c. */
#ifndef LR_ACQUIRE_H
#define LR_ACQUIRE_H

#include "backend/lock.h"
#include "cli/run_state.h"
#include "core/err.h"

/* Set up r->lock (keys, slot, window, the trigger's take and the slot's
 * claim) and take it: one round trip when the server answers plainly (two
 * when the clocks are too far apart for the request's window); with
 * --wait, a held lock is asked again with jittered backoff until the
 * deadline; a connection that broke under it (not a slow server) is
 * withdrawn from and asked once more on a new one. Returns 0 with *out
 * set (and *sig when a signal cut a wait short), or -1 with e. */
int	acquire_settled(struct lr_run *r, enum lock_outcome *out, int *sig,
	    struct lr_err *e);

#endif
