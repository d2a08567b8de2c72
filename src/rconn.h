/* rconn.h -- a connection to Redis: URL, password, AUTH/SELECT, timeouts. */
#ifndef LR_RCONN_H
#define LR_RCONN_H

#include <sys/socket.h>

#include "err.h"
#include "rurl.h"
#include "task.h"

struct redisContext;

/* A connection, and what it takes to make it again. url and password are
 * borrowed and must outlive the connection. */
struct lr_conn {
	struct redisContext	*c;		/* NULL when closed */
	char			 where[300];	/* "127.0.0.1:6379", for messages */
	const struct lr_url	*url;
	const char		*password;
	long long		 connect_timeout_ms;
	long long		 command_timeout_ms;
	struct sockaddr_storage	 addr;		/* resolved once, at the first open */
	socklen_t		 addrlen;	/* 0 until then */
};

/* The password to use, first found of: the file given on the command line
 * (cli_file), $LOCKRUN_REDIS_PASSWORD, the config's password_file
 * (cfg_file), the URL's. Writes "" for none. Returns 0, or -1 with
 * e = EX_CONFIG when a file cannot be read, is open to other users (any
 * permission bit for "others"), or its line does not fit. */
int	rconn_password(const char *cli_file, const char *cfg_file, const struct lr_url *u,
	    char *buf, size_t n, struct lr_err *e);

/* Connect to u within connect_ms, then AUTH and SELECT as needed in one
 * round trip (none when there is no password and db is 0). The host name
 * is resolved here, once: later reconnects go to the same address, so
 * that no name lookup (which no timeout bounds) happens while a lock is
 * held. Returns 0, or -1 with e = EX_UNAVAILABLE (e->transport set when
 * unreachable or timed out, clear when auth was refused) or EX_CONFIG (no
 * such db). The socket is close-on-exec. */
int	rconn_open(struct lr_conn *rc, const struct lr_url *u, const char *password,
	    long long connect_ms, long long command_ms, struct lr_err *e);

/* Close and connect again as rconn_open() did, but give up after cap_ms
 * if that is sooner than the connect timeout. */
int	rconn_reopen(struct lr_conn *rc, long long cap_ms, struct lr_err *e);

/* PING: one round trip. Returns 0, or -1 with e = EX_UNAVAILABLE. */
int	rconn_ping(struct lr_conn *rc, struct lr_err *e);

/* The socket, for poll(2); -1 when closed. */
int	rconn_fd(const struct lr_conn *rc);

void	rconn_close(struct lr_conn *rc);

/* Report the connection's last error while doing what, as EX_UNAVAILABLE
 * with e->transport set: "redis HOST: DOING: no answer within 2s".
 * Returns -1. */
int	rconn_fail(const struct lr_conn *rc, const char *doing, struct lr_err *e);

#endif
