/* SPDX-License-Identifier: BSD-2-Clause */
/* rtrigger.h -- `lockrun trigger` in Redis: the trigger key, its entry in
 * the prefix's list of triggered tasks, and a scheduler's look and take
 * (ops.h's trigger, asked and take, for redis.c). */
#ifndef LR_RTRIGGER_H
#define LR_RTRIGGER_H

#include "backend/ops.h"
#include "backend/redis/rconn.h"

int	rtrigger_set(struct lr_backend *b, struct lr_conn *c, const struct lr_keys *k,
	    const char *value, long long ttl_ms, struct lr_err *e);
int	rtrigger_asked(struct lr_conn *c, const char *prefix,
	    void (*cb)(void *arg, const char *name), void *arg, struct lr_err *e);
int	rtrigger_take(struct lr_backend *b, struct lr_conn *c, const struct lr_keys *k,
	    size_t n, const struct lr_take *tk, struct lr_lock *w, unsigned char *taken,
	    struct lr_err *e);

#endif
