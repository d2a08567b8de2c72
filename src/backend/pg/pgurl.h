/* SPDX-License-Identifier: BSD-2-Clause */
/* pgurl.h -- the values in a postgres:// URL that libpq parses without a
 * word and refuses only when it connects; pure, libc only. */
#ifndef LR_PGURL_H
#define LR_PGURL_H

#include "core/err.h"

/* Would libpq take value for URL parameter keyword (as its
 * PQconninfoParse() names them: port, sslmode, connect_timeout, ...)?
 * Returns 0 if so, or -1 with e = EX_USAGE, "postgres URL: sslmode:
 * \"verify_full\" is not one of disable, allow, ...". A bad one would
 * otherwise be found only at connect time and look like a server that
 * cannot be reached (69), so that on_server_error: run ran the command
 * unlocked. */
int	pgurl_check(const char *keyword, const char *value, struct lr_err *e);

#endif
