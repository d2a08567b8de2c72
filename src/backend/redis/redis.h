/* SPDX-License-Identifier: BSD-2-Clause */
/* redis.h -- the lock in Redis, as a backend (backend.h): what backend.c
 * needs of backend/redis, whose other headers are its own. */
#ifndef LR_REDIS_H
#define LR_REDIS_H

#include "backend/ops.h"

/* Set b up from b->cfg, without connecting: parse the URL, read the
 * sentinels' password (redis+sentinel://) and load OpenSSL (rediss://).
 * Returns 0, or -1 with e: EX_USAGE for a bad URL, EX_CONFIG for an
 * unreadable password file, EX_UNAVAILABLE when OpenSSL cannot be loaded,
 * EX_OSERR. */
int	redis_backend_init(struct lr_backend *b, struct lr_err *e);

/* Parse url as a Redis URL. Returns 0, or -1 with e = EX_USAGE. */
int	redis_check_url(const char *url, struct lr_err *e);
/* The same, the message without "redis URL: " (rurl_problem()). */
int	redis_url_problem(const char *url, struct lr_err *e);

/* The settings under redis: (rsettings.c): one, and across them, as
 * backend.h's backend_setting() and backend_settings_check(). */
int	redis_setting(const char *key, const char *value, struct lr_err *e);
int	redis_settings_check(const struct lr_settings *s, long long command_ms,
	    struct lr_err *e);

#endif
