/* SPDX-License-Identifier: BSD-2-Clause */
/* pgurl.h -- the values in a postgres:// URL that libpq parses without a
 * word and refuses only when it connects; pure, libc only. */
#ifndef LR_PGURL_H
#define LR_PGURL_H

#include <stddef.h>

/* The problem with the value of URL parameter keyword (as libpq's
 * PQconninfoParse() names them: port, sslmode, connect_timeout, ...), into
 * why[n] ("sslmode: \"verify_full\" is not one of disable, allow, ..."), or
 * NULL when libpq would take it. A bad one would otherwise be found only
 * at connect time and look like a server that cannot be reached (69), so
 * that on_redis_error: run ran the command unlocked. */
const char *pgurl_problem(const char *keyword, const char *value, char *why, size_t n);

#endif
