/* SPDX-License-Identifier: BSD-2-Clause */
/* batch.h -- many leases over one connection: a backend's batch form
 * where it has one (ops.h), else one call each, in turn. */
#ifndef LR_BATCH_H
#define LR_BATCH_H

#include <stddef.h>

#include "backend/ops.h"

/* Renew the n leases l[i] over b's connection (opened again first if it
 * is closed, within cap_ms), each renewal answered within wait_ms; each
 * answer as renew_recv() gives it, in rc[i] (1 with out[i], or -1 with
 * err[i]). A broken connection is closed, for the next call to open. */
void	backend_renew_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
	    long long cap_ms, long long wait_ms, enum renew_outcome *out, int *rc,
	    struct lr_err *err);

/* Acquire the n locks l[i] over b's connection (an acquire opens it),
 * each decided as acquire() decides it: rc[i] 0 with out[i], or -1 with
 * err[i]. A broken connection is closed, for the next call to open. */
void	backend_acquire_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
	    enum lock_outcome *out, int *rc, struct lr_err *err);

/* Release the n locks l[i], each ending as end[i] says, over b's
 * connection (opened again first if it is closed, within cap_ms): rc[i]
 * as release() returns it (-1 with err[i]). A broken connection is
 * closed, for the next call to open. */
void	backend_release_many(struct lr_backend *b, const struct lr_lock *const *l,
	    const struct lr_ending *end, size_t n, long long cap_ms, int *rc,
	    struct lr_err *err);

#endif
