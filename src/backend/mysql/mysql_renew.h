/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_renew.h -- a lease renewed in MySQL/MariaDB: one (renew_send and
 * renew_recv, a run's own), or a scheduler's many in one exchange
 * (renew_many); ops.h says what each answers. */
#ifndef LR_MYSQL_RENEW_H
#define LR_MYSQL_RENEW_H

#include "backend/ops.h"

int	my_renew_send(struct lr_backend *b, struct lr_lock *l, long long cap_ms,
	    long long wait_ms, struct lr_err *e);
int	my_renew_recv(struct lr_backend *b, struct lr_lock *l, enum renew_outcome *out,
	    struct lr_err *e);
int	my_renew_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
	    long long cap_ms, long long wait_ms, enum renew_outcome *out, int *rc,
	    struct lr_err *err, struct lr_err *e);

#endif
