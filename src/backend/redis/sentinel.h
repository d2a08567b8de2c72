/* SPDX-License-Identifier: BSD-2-Clause */
/* sentinel.h -- find the Redis master through Redis Sentinel, at every
 * connect and reconnect, and notice when the sentinels move it. */
#ifndef LR_SENTINEL_H
#define LR_SENTINEL_H

#include <stddef.h>

#include "core/err.h"

struct lr_link;
struct lr_sentinel;
struct lr_url;
struct redisReply;

/* What the sentinels of u (a redis+sentinel:// URL) are asked with: their
 * own password (sentinel_password()). Both are borrowed and must outlive
 * the result. NULL: out of memory. */
struct lr_sentinel *sentinel_new(const struct lr_url *u, const char *password);

/* For rconn_open() with a redis+sentinel:// URL: ask the sentinels, in the
 * URL's order, for the master's address (each within a share of
 * connect_ms), connect l there (as l->setup says) and confirm with ROLE
 * that it is a master. A sentinel that does not answer, a master that
 * cannot be reached or says it is a replica, sends lockrun on to the next
 * sentinel, and round again until connect_ms has passed. Returns 0, or -1
 * with e = EX_UNAVAILABLE naming the sentinels asked and why:
 * lr_err_broke(e) when nothing answered or the master could not be
 * reached, clear when the sentinels do not know the master or it refused
 * (AUTH), so that on_server_error: run does not apply. */
int	sentinel_connect(struct lr_sentinel *s, struct lr_link *l, long long connect_ms,
	    struct lr_err *e);

/* Before a renewal, with l open on the master sentinel_connect() found:
 * ask the sentinel that answered last, within cap_ms (at most the connect
 * timeout), where the master is. When it names another address, close l,
 * so that the renewal reconnects through the sentinels, and return 1: a
 * master demoted by a failover can take writes for seconds before the
 * sentinels reconfigure it, and those writes are lost. Returns 0
 * otherwise, also when that sentinel does not answer (then the next one
 * is asked next time). */
int	sentinel_recheck(struct lr_sentinel *s, struct lr_link *l, long long cap_ms);

/* Is r a READONLY error: a master turned replica? */
int	sentinel_demoted(const struct redisReply *r);

/* The sentinels' own password: $LOCKRUN_SENTINEL_PASSWORD, else the first
 * line of cfg_file (redis.sentinel_password_file, which must not be open
 * to other users), else "". Returns 0, or -1 with e = EX_CONFIG. */
int	sentinel_password(const char *cfg_file, char *buf, size_t n, struct lr_err *e);

void	sentinel_free(struct lr_sentinel *s);	/* NULL: a no-op */

#endif
