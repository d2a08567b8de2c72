/* SPDX-License-Identifier: BSD-2-Clause */
/* mysql.h -- the lock in MySQL/MariaDB, as a backend (backend.h): what
 * backend.c needs of backend/mysql, whose other headers are its own. */
#ifndef LR_MYSQL_H
#define LR_MYSQL_H

#include "backend/ops.h"

/* Set b up from b->cfg, loading libmariadb (dlopen), without connecting.
 * Returns 0, or -1 with e as backend_init(). */
int	mysql_backend_init(struct lr_backend *b, struct lr_err *e);

/* Parse url as a MySQL URL. Returns 0, or -1 with e = EX_USAGE. */
int	mysql_check_url(const char *url, struct lr_err *e);

#endif
