/* SPDX-License-Identifier: BSD-2-Clause */
/* pg.h -- the lock in PostgreSQL, as a backend (backend.h): what
 * backend.c needs of backend/pg, whose other headers are its own. */
#ifndef LR_PG_H
#define LR_PG_H

#include "backend/ops.h"

/* Set b up from b->cfg, loading libpq (dlopen), without connecting.
 * Returns 0, or -1 with e as backend_init(). */
int	pg_backend_init(struct lr_backend *b, struct lr_err *e);

#endif
