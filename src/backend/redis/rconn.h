/* SPDX-License-Identifier: BSD-2-Clause */
/* rconn.h -- a connection to Redis: URL, password, AUTH/SELECT, timeouts.
 * lockrun owns the socket (and its TLS session): hiredis only formats
 * commands and parses replies, so every transport is one pollable fd. */
#ifndef LR_RCONN_H
#define LR_RCONN_H

#include <sys/socket.h>

#include "core/err.h"
#include "backend/redis/rreader.h"
#include "backend/redis/rurl.h"
#include "core/task.h"
#include "backend/redis/tls.h"

struct lr_cluster;
struct redisReader;
struct redisReply;

/* A connection, and what it takes to make it again. url and password are
 * borrowed and must outlive the connection. */
struct lr_conn {
	int			 fd;		/* non-blocking; -1 when closed */
	struct lr_tls		*tls;		/* the TLS session, or NULL */
	struct redisReader	*reader;	/* replies parsed from what was read */
	struct rreader_bounds	 bounds;	/* what one reply may hold (rreader.h) */
	char			*out;		/* commands formatted, not yet sent */
	size_t			 outlen, outcap;
	char			 why[200];	/* why the connection last broke */
	char			 timeout_why[48]; /* "no answer within 2s" */
	char			 where[300];	/* "127.0.0.1:6379", for messages */
	const struct lr_url	*url;
	const char		*password;
	const struct lr_tls_opts *tls_opts;	/* for rediss://; NULL: defaults */
	long long		 connect_timeout_ms;
	long long		 command_timeout_ms;
	struct sockaddr_storage	 addr;		/* resolved once, at the first open */
	socklen_t		 addrlen;	/* 0 until then */
	/* redis+sentinel:// (sentinel.c): the master is found at each open */
	const char		*sentinel_password;	/* for the sentinels; borrowed */
	struct lr_sentinel	*sentinel;	/* what the sentinels said; owned */
	int			 demoted;	/* the last break was a READONLY reply */
	/* A run's first command goes out with AUTH/SELECT (rconn_defer()) */
	int			 defer;		/* the next open queues AUTH/SELECT */
	int			 pending;	/* their replies, not read yet */
	int			 pending_auth;	/* the first of them answers AUTH */
	int			 hs_failed;	/* one was an error: hs_err says */
	struct lr_err		 hs_err;
	struct lr_cluster	*cluster;	/* redis+cluster:// (rcluster.c), or NULL */
	long long		 read_by;	/* rconn_read(): a cluster redirect it
						 * follows connects by then (monotonic
						 * ms); 0: within the connect timeout */
};

/* The password to use, first found of: the file given on the command line
 * (cli_file), $LOCKRUN_REDIS_PASSWORD, the config's password_file
 * (cfg_file), the URL's. Writes "" for none. Returns 0, or -1 with
 * e = EX_CONFIG when a file cannot be read, is open to other users (any
 * permission bit for "others"), or its line does not fit. */
int	rconn_password(const char *cli_file, const char *cfg_file, const struct lr_url *u,
	    char *buf, size_t n, struct lr_err *e);

/* Connect to u within connect_ms, then AUTH and SELECT as needed in one
 * round trip (none when there is no password and db is 0). For a
 * redis+sentinel:// URL, ask the sentinels for the master first, every
 * time (sentinel.h); for a cluster URL, connect to the node last found
 * serving the keys, else the first seed that answers (rcluster.h);
 * otherwise the host name
 * is resolved here, once: later reconnects go to the same address, so
 * that no name lookup (which no timeout bounds) happens while a lock is
 * held. Returns 0, or -1 with e = EX_UNAVAILABLE (e->transport set when
 * unreachable or timed out, clear when auth was refused) or EX_CONFIG (no
 * such db). The socket is close-on-exec. */
int	rconn_open(struct lr_conn *rc, const struct lr_url *u, const char *password,
	    long long connect_ms, long long command_ms, struct lr_err *e);

/* Connect to rc->addr (rc->where names it) within connect_ms: TLS as the
 * URL says, then AUTH/SELECT as rconn_open() does. For sentinel.c, which
 * fills rc->addr with the master it found. Returns 0, or -1 with e. */
int	rconn_attach(struct lr_conn *rc, long long connect_ms, struct lr_err *e);

/* Set the command timeout, and the words that report it. */
void	rconn_set_command_timeout(struct lr_conn *rc, long long ms);

/* The environment variable name into buf, when it is set and not empty:
 * returns 1; 0 when it is not (buf untouched); -1 with e = EX_CONFIG when
 * it does not fit. */
int	rconn_env_secret(const char *name, char *buf, size_t n, struct lr_err *e);

/* The first line of the file at path into buf, as a password; what names
 * the setting in messages ("password_file"). Returns 0, or -1 with
 * e = EX_CONFIG as rconn_password() says. */
int	rconn_read_secret(const char *path, const char *what, char *buf, size_t n,
	    struct lr_err *e);

/* Make the next rconn_open() queue AUTH and SELECT instead of waiting for
 * their answers, so that they go out with the first command and cost no
 * round trip of their own. Their answers are read before that command's;
 * a refusal does not stop the command, which Redis has run by then (as the
 * "default" user, or in database 0, when those need no password): the
 * caller asks rconn_handshake_error() and undoes what it did. */
void	rconn_defer(struct lr_conn *rc);

/* -1 with e set as a refused AUTH or SELECT is reported, when one of the
 * deferred handshake's answers was an error; else 0. */
int	rconn_handshake_error(const struct lr_conn *rc, struct lr_err *e);

/* Close and connect again as rconn_open() did, but give up after cap_ms
 * if that is sooner than the connect timeout. */
int	rconn_reopen(struct lr_conn *rc, long long cap_ms, struct lr_err *e);

void	rconn_init(struct lr_conn *rc);	/* closed, nothing allocated */

/* Queue a command (argv: C strings). Returns 0, or -1 when closed. */
int	rconn_append(struct lr_conn *rc, int argc, const char **argv);

/* Write out what is queued, within the command timeout. Returns 0, or -1
 * with e = EX_UNAVAILABLE, transport set (the connection is closed). */
int	rconn_flush(struct lr_conn *rc, const char *doing, struct lr_err *e);

/* Write out what is queued, then wait for the next reply, within the
 * command timeout. On a cluster, a MOVED or ASK reply is followed (each
 * hop within the connect and command timeouts, at most
 * CLUSTER_MAX_REDIRECTS for a command), TRYAGAIN and CLUSTERDOWN are asked
 * again and a MOVED to a node that does not answer goes back to the seeds,
 * each until the command timeout (rcluster.h), and the reply is the node's
 * that serves the key. Returns it (the caller frees it with freeReplyObject)
 * or NULL with e as rconn_flush() sets it. doing names the command in
 * messages. */
struct redisReply *rconn_reply(struct lr_conn *rc, const char *doing, struct lr_err *e);

/* rconn_append() then rconn_reply(). */
struct redisReply *rconn_command(struct lr_conn *rc, const char *doing, int argc,
	    const char **argv, struct lr_err *e);

/* Without blocking, read what has arrived (call when the socket is
 * readable). Returns 1 with *r set, 0 when no reply is complete yet, -1
 * with e as above. On a cluster, a MOVED or ASK reply is followed (a
 * blocking connect, by read_by), and TRYAGAIN or CLUSTERDOWN asked again
 * after a pause (blocking, until read_by at the latest), and the command
 * sent again: 0, and the socket may have changed. */
int	rconn_read(struct lr_conn *rc, struct redisReply **r, const char *doing,
	    struct lr_err *e);

/* Let one reply hold up to n objects (rreader.h), for a command whose
 * answer the user sized (history -n). */
void	rconn_allow_objects(struct lr_conn *rc, size_t n);

/* PING: one round trip. Returns 0, or -1 with e = EX_UNAVAILABLE. */
int	rconn_ping(struct lr_conn *rc, struct lr_err *e);

/* The socket, for poll(2); -1 when closed. */
int	rconn_fd(const struct lr_conn *rc);
int	rconn_is_open(const struct lr_conn *rc);

void	rconn_close(struct lr_conn *rc);	/* may be opened again */
void	rconn_free(struct lr_conn *rc);		/* closed, buffers freed */

/* Report why the connection broke while doing what, as EX_UNAVAILABLE
 * with e->transport set: "redis HOST: DOING: no answer within 2s".
 * Returns -1. */
int	rconn_fail(const struct lr_conn *rc, const char *doing, struct lr_err *e);

#endif
