/* SPDX-License-Identifier: BSD-2-Clause */
/* rconn.h -- a connection to Redis as a URL names it: through Sentinel to
 * the master, to a Redis Cluster's node that serves the keys, or straight
 * to one server. It routes; the socket itself is a link (rlink.h), and
 * sentinel.c and rcluster.c, on top of links, find where it goes. */
#ifndef LR_RCONN_H
#define LR_RCONN_H

#include <stddef.h>

#include "core/err.h"
#include "backend/redis/rlink.h"
#include "backend/redis/rurl.h"
#include "backend/redis/tls.h"

struct lr_cluster;
struct lr_sentinel;
struct redisReply;

/* A connection, and what it takes to make it again. url and password are
 * borrowed and must outlive the connection. */
struct lr_conn {
	struct lr_link		 link;		/* the socket in use; link.where
						 * names the server it reached */
	const struct lr_url	*url;
	const char		*password;
	const struct lr_tls_opts *tls_opts;	/* for rediss://; NULL: defaults */
	struct lr_addr		 addr;		/* redis://, unix://: resolved once,
						 * at the first open */
	/* redis+sentinel:// (sentinel.h): the master is found at each open */
	const char		*sentinel_password;	/* for the sentinels; borrowed */
	struct lr_sentinel	*sentinel;	/* what the sentinels said; owned */
	int			 demoted;	/* the last break was a READONLY reply */
	struct lr_cluster	*cluster;	/* redis+cluster:// (rcluster.h), or NULL */
	long long		 read_by;	/* rconn_read(): a cluster redirect it
						 * follows connects by then (monotonic
						 * ms); 0: within the connect timeout */
};

/* Connect to u within connect_ms, then AUTH and SELECT as needed in one
 * round trip (none when there is no password and db is 0). For a
 * redis+sentinel:// URL, ask the sentinels for the master first, every
 * time (sentinel.h); for a cluster URL, connect to the node last found
 * serving the keys, else the first seed that answers (rcluster.h);
 * otherwise the host name
 * is resolved here, once: later reconnects go to the same address, so
 * that no name lookup (which no timeout bounds) happens while a lock is
 * held. Returns 0, or -1 with e = EX_UNAVAILABLE (lr_err_broke(e) when
 * unreachable or timed out, clear when auth was refused) or EX_CONFIG (no
 * such db). The socket is close-on-exec. */
int	rconn_open(struct lr_conn *rc, const struct lr_url *u, const char *password,
	    long long connect_ms, long long command_ms, struct lr_err *e);

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

/* Before a renewal through Sentinel: close rc when the sentinel that
 * answered last names another master now, within cap_ms (sentinel.h,
 * sentinel_recheck()), so that the renewal reconnects there. Returns 1
 * when it closed rc; 0 otherwise, and always for other URLs. */
int	rconn_recheck_master(struct lr_conn *rc, long long cap_ms);

void	rconn_init(struct lr_conn *rc);	/* closed, nothing allocated */

/* Queue a command (argv: C strings). Returns 0, or -1 when closed. */
int	rconn_append(struct lr_conn *rc, int argc, const char **argv);

/* Write out what is queued, within the command timeout. Returns 0, or -1
 * with e = EX_UNAVAILABLE, lr_err_broke(e) (the connection is closed). */
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
 * with lr_err_broke(e): "redis HOST: DOING: no answer within 2s".
 * Returns -1. */
int	rconn_fail(const struct lr_conn *rc, const char *doing, struct lr_err *e);

/* Report an error reply r (or one not of the shape asked for) from the
 * server where, while doing what, as one line: "redis WHERE: DOING: why"
 * (rerr_classify()), EX_UNAVAILABLE. Returns -1. */
int	rconn_reply_error(const char *where, const struct redisReply *r, const char *doing,
	    struct lr_err *e);

#endif
