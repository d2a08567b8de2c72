/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql_lock.h -- a lease taken and given back in MySQL/MariaDB: one
 * (acquire, release, a run's own), or a scheduler's many in one exchange
 * (acquire_many, release_many); ops.h says what each answers. */
#ifndef LR_MYSQL_LOCK_H
#define LR_MYSQL_LOCK_H

#include "backend/ops.h"

int	my_acquire(struct lr_backend *b, struct lr_lock *l, enum lock_outcome *out,
	    struct lr_err *e);
int	my_acquire_many(struct lr_backend *b, struct lr_lock *const *l, size_t n,
	    enum lock_outcome *out, int *rc, struct lr_err *err, struct lr_err *e);
int	my_release(struct lr_backend *b, const struct lr_lock *l,
	    const struct lr_ending *end, struct lr_err *e);
int	my_release_many(struct lr_backend *b, const struct lr_lock *const *l,
	    const struct lr_ending *end, size_t n, int *rc, struct lr_err *err,
	    struct lr_err *e);

#endif
