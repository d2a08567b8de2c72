/* SPDX-License-Identifier: BSD-2-Clause */
/* pg_status.h -- status's read of every task, and pause and resume, in
 * PostgreSQL (ops.h's states and pause), and logs' read of the runs' stories. */
#ifndef LR_PG_STATUS_H
#define LR_PG_STATUS_H

#include "backend/ops.h"

int	pg_states(struct lr_backend *b, const struct lr_keys *k, size_t n, int counts,
	    struct lr_state *out, long long *now_ms, struct lr_err *e);
int	pg_pause(struct lr_backend *b, const struct lr_keys *k, const struct lr_pause *p,
	    int resume, char *buf, size_t n, struct lr_err *e);
int	pg_trigger(struct lr_backend *b, const struct lr_keys *k, const char *value,
	    long long ttl_ms, struct lr_err *e);
int	pg_take(struct lr_backend *b, const struct lr_keys *k, size_t n,
	    const struct lr_take *tk, struct lr_lock *w, unsigned char *taken,
	    struct lr_err *e);
int	pg_missed(struct lr_backend *b, const struct lr_keys *k, size_t n,
	    const struct lr_missed *m, unsigned char *won, struct lr_err *e);
int	pg_stories(struct lr_backend *b, const struct lr_keys *k, const char *const *fields,
	    size_t n, char **values, size_t *lens, struct lr_err *e);

#endif
