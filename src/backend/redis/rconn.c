/* SPDX-License-Identifier: BSD-2-Clause */
/* rconn.c -- connect to Redis as the URL says and route each command: the
 * sentinels say where the master is, a cluster's redirects are followed,
 * a plain URL goes to its one server (rconn.h). */
#include <sys/socket.h>
#include <sys/un.h>

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "backend/redis/rcluster.h"
#include "backend/redis/rconn.h"
#include "backend/redis/rerr.h"
#include "backend/redis/rlink.h"
#include "backend/redis/sentinel.h"

void
rconn_init(struct lr_conn *rc)
{
	memset(rc, 0, sizeof(*rc));
	rlink_init(&rc->link);
}

int
rconn_fail(const struct lr_conn *rc, const char *doing, struct lr_err *e)
{
	return rlink_fail(&rc->link, doing, e);
}

int
rconn_append(struct lr_conn *rc, int argc, const char **argv)
{
	char *cmd = NULL;
	int len, rc_;

	if (rc->cluster == NULL)
		return rlink_append(&rc->link, argc, argv);
	/* a cluster notes each command as sent, to send it again elsewhere */
	if (!rlink_is_open(&rc->link))
		return -1;
	if ((len = redisFormatCommandArgv(&cmd, argc, argv, NULL)) < 0)
		return rlink_break(&rc->link, "out of memory");
	rc_ = rcluster_append(rc->cluster, &rc->link, cmd, (size_t)len);
	redisFreeCommand(cmd);
	return rc_;
}

int
rconn_flush(struct lr_conn *rc, const char *doing, struct lr_err *e)
{
	return rlink_flush(&rc->link, doing, e);
}

/* Through Sentinel, a READONLY reply means the master we found is a
 * replica now: what the sentinels say next is where to go, so this
 * connection is done. Frees r and returns 1 then (rc closed); else 0. */
static int
demoted(struct lr_conn *rc, redisReply *r)
{
	if (!rc->url || !rc->url->nsentinels || !sentinel_demoted(r))
		return 0;
	freeReplyObject(r);
	rlink_break(&rc->link, "no longer the master (READONLY): a failover moved it");
	rc->demoted = 1;
	return 1;
}

redisReply *
rconn_reply(struct lr_conn *rc, const char *doing, struct lr_err *e)
{
	for (;;) {
		redisReply *r = rlink_reply(&rc->link, doing, e);
		int followed;

		if (r == NULL)
			return NULL;
		if (demoted(rc, r)) {
			rconn_fail(rc, doing, e);
			return NULL;
		}
		if (rc->cluster == NULL ||
		    (followed = rcluster_reply(rc->cluster, &rc->link, &r, 0, e)) == 0)
			return r;
		if (followed < 0)
			return NULL;
		/* redirected, asked again, or ASKING's answer: read on */
	}
}

redisReply *
rconn_command(struct lr_conn *rc, const char *doing, int argc, const char **argv,
    struct lr_err *e)
{
	if (rconn_append(rc, argc, argv) != 0) {
		rconn_fail(rc, doing, e);
		return NULL;
	}
	return rconn_reply(rc, doing, e);
}

int
rconn_read(struct lr_conn *rc, redisReply **r, const char *doing, struct lr_err *e)
{
	for (;;) {
		int got = rlink_read(&rc->link, r, doing, e), followed;

		if (got > 0 && demoted(rc, *r))
			return rconn_fail(rc, doing, e);
		if (got <= 0 || rc->cluster == NULL ||
		    (followed = rcluster_reply(rc->cluster, &rc->link, r, rc->read_by, e)) == 0)
			return got;
		if (followed != 2)	/* sent again elsewhere, or failed */
			return followed > 0 ? 0 : -1;
		/* ASKING's answer: the command's may have come with it */
	}
}

void
rconn_defer(struct lr_conn *rc)
{
	rlink_defer(&rc->link);
}

int
rconn_handshake_error(const struct lr_conn *rc, struct lr_err *e)
{
	return rlink_handshake_error(&rc->link, e);
}

/* Fill rc->addr from the URL: a unix socket path, or the host's first
 * IPv4 address, else its first IPv6 one (hiredis's order). */
static int
resolve(struct lr_conn *rc, struct lr_err *e)
{
	const struct lr_url *u = rc->url;
	int rv;

	if (u->is_unix) {
		struct sockaddr_un *sun = (struct sockaddr_un *)&rc->addr.ss;
		sun->sun_family = AF_UNIX;
		snprintf(sun->sun_path, sizeof(sun->sun_path), "%s", u->path);
		rc->addr.len = sizeof(*sun);
		return 0;
	}
	if ((rv = rlink_lookup(u->host, u->port, &rc->addr)) != 0) {
		lr_errf(e, EX_UNAVAILABLE, "redis %s: cannot resolve %s: %s", rc->link.where,
		    u->host, gai_strerror(rv));
		e->kind = LR_ERR_TRANSPORT;
		return -1;
	}
	return 0;
}

/* A new URL: forget what was found for the old one. */
static void
forget(struct lr_conn *rc)
{
	rc->addr.len = 0;
	sentinel_free(rc->sentinel);
	rc->sentinel = NULL;
	rcluster_free(rc->cluster);
	rc->cluster = NULL;
}

/* The state a sentinel or cluster URL keeps between connections. */
static int
route_state(struct lr_conn *rc, struct lr_err *e)
{
	const struct lr_url *u = rc->url;

	if (u->nsentinels && rc->sentinel == NULL &&
	    (rc->sentinel = sentinel_new(u, rc->sentinel_password)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	if (u->cluster && rc->cluster == NULL && (rc->cluster = rcluster_new(u)) == NULL)
		return lr_errf(e, EX_OSERR, "out of memory");
	return 0;
}

int
rconn_open(struct lr_conn *rc, const struct lr_url *u, const char *password,
    long long connect_ms, long long command_ms, struct lr_err *e)
{
	struct lr_link *l = &rc->link;

	rurl_where(u, l->where, sizeof(l->where));
	if (rc->url != u)
		forget(rc);
	rc->url = u;
	rc->password = password;
	l->setup = (struct rlink_setup){ .tls = u->tls, .tls_host = u->host,
	    .tls_opts = rc->tls_opts, .user = u->user, .password = password, .db = u->db };
	l->connect_timeout_ms = connect_ms;
	rlink_set_command_timeout(l, command_ms);
	l->why[0] = '\0';
	rc->demoted = 0;
	if (route_state(rc, e) != 0)
		return -1;
	if (u->nsentinels)	/* where the master is now: ask, every time */
		return sentinel_connect(rc->sentinel, l, connect_ms, e);
	if (u->cluster)		/* its seeds are resolved by rcluster.c */
		return rcluster_connect(rc->cluster, l, connect_ms, e);
	if (rc->addr.len == 0 && resolve(rc, e) != 0)
		return -1;
	return rlink_connect(l, &rc->addr, connect_ms, e);
}

int
rconn_reopen(struct lr_conn *rc, long long cap_ms, struct lr_err *e)
{
	struct rlink_timeouts saved;
	long long connect_ms;
	int rc_;

	rconn_close(rc);
	connect_ms = rlink_cap(&rc->link, cap_ms, &saved);
	rc_ = rconn_open(rc, rc->url, rc->password, connect_ms, rc->link.command_timeout_ms,
	    e);
	rlink_uncap(&rc->link, &saved);	/* the capped timeouts were for this only */
	return rc_;
}

int
rconn_recheck_master(struct lr_conn *rc, long long cap_ms)
{
	if (rc->url == NULL || !rc->url->nsentinels)
		return 0;
	return sentinel_recheck(rc->sentinel, &rc->link, cap_ms);
}

int
rconn_ping(struct lr_conn *rc, struct lr_err *e)
{
	const char *argv[] = { "PING" };
	redisReply *r = rconn_command(rc, "PING", 1, argv, e);
	int rc_ = 0;

	if (r == NULL)
		return -1;
	if (r->type == REDIS_REPLY_ERROR) {
		struct lr_err why;
		rerr_classify(r->str, &why);
		rc_ = lr_errf(e, EX_UNAVAILABLE, "redis %s: PING: %s", rc->link.where, why.msg);
	}
	freeReplyObject(r);
	return rc_;
}

int
rconn_fd(const struct lr_conn *rc)
{
	return rc->link.fd;
}

void
rconn_allow_objects(struct lr_conn *rc, size_t n)
{
	rlink_allow_objects(&rc->link, n);
}

int
rconn_is_open(const struct lr_conn *rc)
{
	return rlink_is_open(&rc->link);
}

void
rconn_close(struct lr_conn *rc)
{
	rlink_close(&rc->link);
}

void
rconn_free(struct lr_conn *rc)
{
	rlink_free(&rc->link);
	forget(rc);
}

int
rconn_reply_error(const char *where, const redisReply *r, const char *doing,
    struct lr_err *e)
{
	struct lr_err why;

	rerr_classify(r->type == REDIS_REPLY_ERROR ? r->str : "ERR unexpected reply", &why);
	return lr_errf(e, EX_UNAVAILABLE, "redis %s: %s: %s", where, doing, why.msg);
}
