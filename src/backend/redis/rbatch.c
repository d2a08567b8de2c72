/* SPDX-License-Identifier: BSD-2-Clause */
/* rbatch.c -- the Redis backend's batch forms (rbatch.h). */
#include <stdio.h>

#include "backend/redis/rbatch.h"
#include "backend/redis/rimpl.h"
#include "backend/redis/rlock.h"

int
redis_renew_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
    long long cap_ms, enum renew_outcome *out, int *rc, struct lr_err *err,
    struct lr_err *e)
{
	struct lr_conn *c = &((struct redis_impl *)b->impl)->conn;

	for (size_t i = 0; i < n; i++)
		if (l[i]->wait_replicas > 0)
			return 1;
	if (c->cluster)
		return 1;
	/* through Sentinel: go where the sentinels say the master is now */
	rconn_recheck_master(c, cap_ms);
	if (rconn_fd(c) < 0 && rconn_reopen(c, cap_ms, e) != 0)
		return -1;
	snprintf(b->where, sizeof(b->where), "%s", c->link.where);
	return lock_renew_many(c, l, n, out, rc, err, e);
}
