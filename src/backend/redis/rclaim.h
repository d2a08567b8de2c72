/* SPDX-License-Identifier: BSD-2-Clause */
/* rclaim.h -- a scheduler's claims of its runs' slots before it forks
 * them, in Redis (ops.h's claim, for redis.c): claim.lua for each, in
 * one round trip. */
#ifndef LR_RCLAIM_H
#define LR_RCLAIM_H

#include "backend/ops.h"
#include "backend/redis/rconn.h"

/* ops.h's claim over c: won set in each cl[i] answered (0 in the rest).
 * Returns 0, or -1 with e when the connection broke under them. */
int	rclaim_many(struct lr_conn *c, struct lr_claim *cl, size_t n, struct lr_err *e);

/* ops.h's schedulers over c (schedulers.lua). Returns 0, or -1 with e. */
int	rclaim_schedulers(struct lr_conn *c, const char *prefix, const char *me,
	    long long window_ms, void (*cb)(void *arg, const char *name), void *arg,
	    struct lr_err *e);

#endif
