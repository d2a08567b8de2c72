/* rconn.h -- a connection to Redis: URL, password, AUTH/SELECT, timeouts. */
#ifndef LR_RCONN_H
#define LR_RCONN_H

#include "err.h"
#include "rurl.h"
#include "task.h"

struct redisContext;

struct lr_conn {
	struct redisContext	*c;
	char			 where[300];	/* "127.0.0.1:6379", for messages */
	long long		 command_timeout_ms;
};

/* The password to use: $LOCKRUN_REDIS_PASSWORD, else the first line of
 * opts->password_file, else the URL's. Writes "" for none. Returns 0, or
 * -1 with e = EX_CONFIG when the file cannot be read. */
int	rconn_password(const struct lr_redis_opts *opts, const struct lr_url *u,
	    char *buf, size_t n, struct lr_err *e);

/* Connect to u within connect_ms, then AUTH and SELECT as needed in one
 * round trip (none when there is no password and db is 0). Returns 0, or
 * -1 with e = EX_UNAVAILABLE (unreachable, timed out, auth refused) or
 * EX_CONFIG (no such db). The socket is close-on-exec. */
int	rconn_open(struct lr_conn *rc, const struct lr_url *u, const char *password,
	    long long connect_ms, long long command_ms, struct lr_err *e);

void	rconn_close(struct lr_conn *rc);

/* Report the connection's last error while doing what, as EX_UNAVAILABLE:
 * "redis HOST: DOING: no answer within 2s". Returns -1. */
int	rconn_fail(const struct lr_conn *rc, const char *doing, struct lr_err *e);

#endif
