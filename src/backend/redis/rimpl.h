/* SPDX-License-Identifier: BSD-2-Clause */
/* rimpl.h -- the Redis backend's state behind lr_backend.impl, for
 * redis.c. */
#ifndef LR_RIMPL_H
#define LR_RIMPL_H

#include "backend/redis/rconn.h"
#include "backend/redis/rsettings.h"
#include "backend/redis/rurl.h"

/* The connection, and what it is made from: the URL parsed, the
 * passwords (wiped when freed) and the backend's own settings (their
 * strings borrowed). */
struct redis_impl {
	struct lr_conn		 conn;
	struct lr_url		 url;
	char			 password[512];
	char			 sentinel_password[512];	/* redis+sentinel:// */
	struct rsettings	 set;
};

#endif
