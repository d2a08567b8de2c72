/* SPDX-License-Identifier: BSD-2-Clause */
/* rcluster.h -- a connection to a Redis Cluster, as hooks of rconn.c: dial
 * the node last seen serving the keys, else the first seed node that
 * answers; follow MOVED (for good) and ASK (once) by sending again, on a
 * connection to the node named, every command not yet answered. */
#ifndef LR_RCLUSTER_H
#define LR_RCLUSTER_H

#include <stddef.h>

struct lr_cluster;
struct lr_conn;
struct lr_err;
struct redisReply;

void	rcluster_free(struct lr_cluster *cl);	/* NULL: nothing */

/* ASKING, as sent: rconn_append_raw() queues it in front of each command
 * while rcluster_ask_there(rc), and rcluster_reply() drops its +OK. */
extern const char rcluster_asking_cmd[];

/* Is rc connected to the node an ASK named (not the one serving the slot
 * for good)? Its commands must go after ASKING. */
int	rcluster_ask_there(const struct lr_conn *rc);

/* A connected socket for rc (rc->url is a cluster URL): to rc->addr when
 * a node is remembered, else (or when it does not answer) to each seed in
 * turn, each given an equal share of what is left of ms. The seeds' names
 * are resolved at the first call only. The node that answers is
 * remembered in rc->addr and named in rc->where. Returns the fd, or -1
 * with e = EX_UNAVAILABLE, e->transport set. */
int	rcluster_dial(struct lr_conn *rc, long long ms, struct lr_err *e);

/* rconn_append() queued cmd[0..len): note it as sent and unanswered.
 * Returns 0, or -1 when out of memory. */
int	rcluster_sent(struct lr_conn *rc, const char *cmd, size_t len);

/* The connection closed: nothing is in flight any more. */
void	rcluster_closed(struct lr_conn *rc);

/* *r is the reply to the oldest command unanswered. Returns 0 when it is
 * the answer (pass it on); 2 when it answered an ASKING (*r freed: read
 * on); 1 when it was MOVED or ASK and was followed, or TRYAGAIN or
 * CLUSTERDOWN for the one command in flight and it was sent again after a
 * pause: *r is freed -- read on; -1 with e when that could not be done
 * (more than CLUSTER_MAX_REDIRECTS for one command, or the node does not
 * answer by `by`, a monotonic ms, or within the connect timeout when by
 * is 0): *r is freed and the connection closed. Asking again ends at by
 * (0: the command timeout after the first such answer); then the answer
 * is passed on. A MOVED to a node that does not answer sends the command
 * to the seeds again, after a pause, until then. MOVED moves rc->addr
 * (the node reconnects go to) for good; ASK does not. Only pipelines that
 * read, or a single command, may be sent again safely: lockrun sends no
 * other kind. */
int	rcluster_reply(struct lr_conn *rc, struct redisReply **r, long long by,
	    struct lr_err *e);

/* rconn.c's, for rcluster.c: dial rc->addr within ms (see rconn.c); queue
 * cmd[0..len) as it is, and note it sent. */
int	rconn_dial(struct lr_conn *rc, long long ms, struct lr_err *e);
int	rconn_append_raw(struct lr_conn *rc, const char *cmd, size_t len);

#endif
