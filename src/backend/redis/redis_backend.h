/* SPDX-License-Identifier: BSD-2-Clause */
/* redis_backend.h -- the lock in Redis, as a backend (backend.h). */
#ifndef LR_REDIS_BACKEND_H
#define LR_REDIS_BACKEND_H

#include "backend/backend.h"
#include "backend/redis/rurl.h"
#include "backend/redis/tls.h"

/* What a Redis backend needs beyond the URL: the URL parsed, the
 * passwords and the TLS settings. Borrowed; must outlive the backend. */
struct lr_redis_setup {
	const struct lr_url	 *url;
	const char		 *password;
	const char		 *sentinel_password;	/* redis+sentinel:// */
	const struct lr_tls_opts *tls;
};

/* Set b up (cfg->extra is a struct lr_redis_setup), without connecting.
 * Returns 0, or -1 with e = EX_OSERR. */
int	redis_backend_init(struct lr_backend *b, struct lr_err *e);

#endif
