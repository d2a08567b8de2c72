/* SPDX-License-Identifier: BSD-2-Clause */
/* rcluster.h -- a connection to a Redis Cluster, on a link (rlink.h):
 * dial the node last seen serving the keys, else the first seed node that
 * answers; follow MOVED (for good) and ASK (once) by sending again, on a
 * connection to the node named, every command not yet answered. rconn.c
 * sends a cluster URL's commands through here. */
#ifndef LR_RCLUSTER_H
#define LR_RCLUSTER_H

#include <stddef.h>

struct lr_cluster;
struct lr_err;
struct lr_link;
struct lr_url;
struct redisReply;

/* The cluster the seeds of u (a redis+cluster:// URL, borrowed: it must
 * outlive the result) belong to, not yet dialled. NULL: out of memory. */
struct lr_cluster *rcluster_new(const struct lr_url *u);
void	rcluster_free(struct lr_cluster *cl);	/* NULL: nothing */

/* Connect l within ms, and make it ready (rlink_ready()): to the node
 * remembered, else (or when it does not answer) to each seed in turn,
 * each given an equal share of what is left of ms. The seeds' names are
 * resolved at the first call only. The node that answers is remembered
 * and named in l->where. Nothing is in flight on the new connection.
 * Returns 0, or -1 with e as rlink_ready() sets it (EX_UNAVAILABLE,
 * lr_err_broke(e), when no node answers). */
int	rcluster_connect(struct lr_cluster *cl, struct lr_link *l, long long ms,
	    struct lr_err *e);


/* Queue cmd[0..len) on l, and note it as sent and unanswered; after
 * ASKING, on the node an ASK named. Returns 0, or -1 when l is closed or
 * out of memory (then closed). */
int	rcluster_append(struct lr_cluster *cl, struct lr_link *l, const char *cmd,
	    size_t len);

/* *r is the reply to the oldest command unanswered. Returns 0 when it is
 * the answer (pass it on); 2 when it answered an ASKING (*r freed: read
 * on); 1 when it was MOVED or ASK and was followed, or TRYAGAIN or
 * CLUSTERDOWN for the one command in flight and it was sent again after a
 * pause: *r is freed -- read on; -1 with e when that could not be done
 * (more than CLUSTER_MAX_REDIRECTS for one command, or the node does not
 * answer by `by`, a monotonic ms, or within the connect timeout when by
 * is 0): *r is freed and l closed. Asking again ends at by (0: the
 * command timeout after the first such answer); then the answer is passed
 * on. A MOVED to a node that does not answer sends the command to the
 * seeds again, after a pause, until then. MOVED moves the node reconnects
 * go to for good; ASK does not. Only pipelines that read, or a single
 * command, may be sent again safely: lockrun sends no other kind. */
int	rcluster_reply(struct lr_cluster *cl, struct lr_link *l, struct redisReply **r,
	    long long by, struct lr_err *e);

#endif
