/* SPDX-License-Identifier: BSD-2-Clause */
/* rfleet.h -- status's read of every task and the slot claims pushed to
 * a scheduler, in Redis (ops.h's states, watch and claims, for redis.c). */
#ifndef LR_RFLEET_H
#define LR_RFLEET_H

#include "backend/ops.h"
#include "backend/redis/rconn.h"

int	rfleet_states(struct lr_backend *b, struct lr_conn *c, const struct lr_keys *k,
	    size_t n, int counts, struct lr_state *out, long long *now_ms, struct lr_err *e);
int	rfleet_watch(struct lr_backend *b, struct lr_conn *c, const char *prefix,
	    struct lr_err *e);
int	rfleet_claims(struct lr_conn *c, void (*cb)(void *arg, const char *key,
	    const char *value), void *arg, struct lr_err *e);

#endif
