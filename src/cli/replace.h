/* SPDX-License-Identifier: BSD-2-Clause */
/* replace.h -- concurrency: replace: the copy still running is told to
 * stop, and the run takes the lock once it is free (replace.c), for acquire.c. */
#ifndef LR_REPLACE_H
#define LR_REPLACE_H

#include "cli/run_state.h"

/* The acquire found the no-overlap lock held (r->lock.holder): with
 * concurrency: replace, the first time, unless this run's slot ran already
 * (then the copy may be that slot's: nothing is replaced, the run skips
 * as held), tell that holder to stop, as
 * `lockrun unlock` does (its key becomes a tombstone: it learns so at its
 * next renewal, stops its tree, SIGTERM then SIGKILL after kill_after,
 * and deletes the tombstone at its release; newcomers are held off until
 * then, or until its lease ends), and move *deadline (mono ms) to when
 * the lock must be free by: a TTL from now. A holder already told to stop
 * (a tombstone) is waited for, never freed. Returns 0 (also when there is
 * nothing to do), or -1 with e. */
int	replace_running(struct lr_run *r, long long *deadline, struct lr_err *e);

#endif
