/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_renew.h -- a lease renewed in PostgreSQL: one (renew_send and
 * renew_recv, a run's own), or a scheduler's many in one round trip and
 * one transaction (renew_many); ops.h says what each answers. */
#ifndef LR_PG_RENEW_H
#define LR_PG_RENEW_H

#include "backend/ops.h"

int	pg_renew_send(struct lr_backend *b, struct lr_lock *l, long long cap_ms,
	    long long wait_ms, struct lr_err *e);
int	pg_renew_recv(struct lr_backend *b, struct lr_lock *l, enum renew_outcome *out,
	    struct lr_err *e);
int	pg_renew_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
	    long long cap_ms, long long wait_ms, enum renew_outcome *out, int *rc,
	    struct lr_err *err, struct lr_err *e);

#endif
