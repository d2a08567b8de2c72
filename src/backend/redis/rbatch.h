/* SPDX-License-Identifier: BSD-2-Clause */
/* rbatch.h -- the Redis backend's batch forms (ops.h), for redis.c. */
#ifndef LR_RBATCH_H
#define LR_RBATCH_H

#include "backend/ops.h"

/* ops.h's renew_many: one script call for them all (rlock.h,
 * lock_renew_many()), on one server; 1 (one at a time) on a Cluster, whose
 * keys are in many slots, and with wait_replicas, whose WAIT is per
 * renewal. */
int	redis_renew_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
	    long long cap_ms, enum renew_outcome *out, int *rc, struct lr_err *err,
	    struct lr_err *e);

#endif
