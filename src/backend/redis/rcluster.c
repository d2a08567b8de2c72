/* SPDX-License-Identifier: BSD-2-Clause */
/* rcluster.c -- Redis Cluster connections: seed nodes, the node that
 * serves the keys, and MOVED/ASK redirects followed. */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hiredis/hiredis.h>

#include "core/duration.h"
#include "core/lease.h"
#include "backend/redis/cluster.h"
#include "backend/redis/rcluster.h"
#include "backend/redis/rlink.h"
#include "backend/redis/rurl.h"

struct lr_cluster {
	const struct lr_url *url;		/* the seeds */
	struct lr_addr	seed[RURL_NODES_MAX];	/* resolved at the first dial */
	int		nseeds;
	int		resolved;
	struct lr_addr	home;		/* the node reconnects go to: the last
					 * that answered, or MOVED's; len 0: none */
	int		pinned;		/* dial home only: a redirect's target */
	char		*log;		/* the commands unanswered, as sent */
	size_t		 loglen, logcap;
	size_t		*lens;		/* the length of each, oldest first */
	size_t		 nlens, lenscap;
	int		 hops;		/* redirects for the oldest command */
	int		 tries;		/* TRYAGAIN/CLUSTERDOWN for it */
	long long	 retry_until;	/* ask again until then (monotonic ms) */
	int		 refreshes;	/* seeds asked again for it: MOVED to a
					 * node that does not answer */
	long long	 refresh_until;	/* ... until then (monotonic ms) */
	int		 ask_there;	/* this connection is on the node an ASK
					 * named: each command goes after ASKING */
};

/* ASKING, as sent: queued in front of each command while ask_there. */
static const char asking_cmd[] = "*1\r\n$6\r\nASKING\r\n";

struct lr_cluster *
rcluster_new(const struct lr_url *u)
{
	struct lr_cluster *cl = calloc(1, sizeof(*cl));

	if (cl != NULL)
		cl->url = u;
	return cl;
}

void
rcluster_free(struct lr_cluster *cl)
{
	if (cl == NULL)
		return;
	free(cl->log);
	free(cl->lens);
	free(cl);
}

/* "10.0.0.1:7000", "[::1]:7000". */
static void
addr_where(const struct lr_addr *a, char *buf, size_t n)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (a->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&a->ss;
		inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, n, "[%s]:%d", ip, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&a->ss;
		inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip));
		snprintf(buf, n, "%s:%d", ip, ntohs(s4->sin_port));
	}
}

/* Resolve every seed, once: no name lookup (which no timeout bounds)
 * happens later, while a lock is held. Seeds that do not resolve are left
 * out; none is an error. */
static int
resolve_seeds(struct lr_cluster *cl, const char *where, struct lr_err *e)
{
	const struct lr_url *u = cl->url;
	int rv = 0;

	for (int i = 0; i < u->nnodes; i++) {
		int r = rlink_lookup(u->nodes[i].host, u->nodes[i].port, &cl->seed[cl->nseeds]);
		if (r == 0)
			cl->nseeds++;
		else
			rv = r;
	}
	cl->resolved = 1;
	if (cl->nseeds > 0)
		return 0;
	lr_errf(e, EX_UNAVAILABLE, "redis cluster %s: cannot resolve %s: %s", where,
	    u->nnodes > 1 ? "any seed node" : u->host, gai_strerror(rv));
	e->kind = LR_ERR_TRANSPORT;
	return -1;
}

/* A new connection: nothing on it is in flight, redirected or asked
 * again yet. */
static void
fresh(struct lr_cluster *cl)
{
	cl->loglen = cl->nlens = 0;
	cl->hops = cl->tries = 0;
	cl->refreshes = cl->ask_there = 0;
}

/* A connected socket for l: to home when a node is remembered, else (or
 * when it does not answer) to each seed in turn. Returns 0, or -1 with
 * e = EX_UNAVAILABLE, lr_err_broke(e). */
static int
dial(struct lr_cluster *cl, struct lr_link *l, long long ms, struct lr_err *e)
{
	struct lr_addr cand[RURL_NODES_MAX + 1], home = cl->home;
	long long deadline = mono_ms() + ms;
	int n = 0, rc = -1;

	if (!cl->resolved && resolve_seeds(cl, l->where, e) != 0)
		return -1;
	if (home.len > 0)
		cand[n++] = home;
	for (int i = 0; i < cl->nseeds && !cl->pinned; i++)
		if (home.len == 0 || cl->seed[i].len != home.len ||
		    memcmp(&cl->seed[i].ss, &home.ss, home.len) != 0)
			cand[n++] = cl->seed[i];
	for (int i = 0; i < n && rc != 0; i++) {
		long long share = (deadline - mono_ms()) / (n - i);

		addr_where(&cand[i], l->where, sizeof(l->where));
		if ((rc = rlink_dial(l, &cand[i], share < 1 ? 1 : share, e)) == 0)
			cl->home = cand[i];	/* the node that answered */
	}
	if (rc == 0)
		return 0;
	if (n > 1) {
		char last[sizeof(e->msg)];
		snprintf(last, sizeof(last), "%s", e->msg);
		lr_errf(e, EX_UNAVAILABLE, "redis cluster: none of %d nodes answers; last: %s",
		    n, last);
		e->kind = LR_ERR_TRANSPORT;
	}
	return -1;
}

int
rcluster_connect(struct lr_cluster *cl, struct lr_link *l, long long ms,
    struct lr_err *e)
{
	long long by = mono_ms() + ms;

	fresh(cl);
	if (dial(cl, l, ms, e) != 0)
		return -1;
	/* the TLS handshake is part of connecting: what is left of its time */
	return rlink_ready(l, by - mono_ms(), e);
}

/* Close l and connect again as rcluster_connect() does, within cap_ms
 * when that is sooner than the timeouts (rlink_cap()). */
static int
rcluster_reopen(struct lr_cluster *cl, struct lr_link *l, long long cap_ms,
    struct lr_err *e)
{
	struct rlink_timeouts saved;
	long long connect_ms;
	int rc;

	rlink_close(l);
	connect_ms = rlink_cap(l, cap_ms, &saved);
	rc = rcluster_connect(cl, l, connect_ms, e);
	rlink_uncap(l, &saved);		/* the capped timeouts were for this only */
	return rc;
}

/* Note cmd[0..len) as sent and unanswered. Returns 0, or -1 when out of
 * memory. */
static int
logged(struct lr_cluster *cl, const char *cmd, size_t len)
{
	if (cl->loglen + len > cl->logcap) {
		size_t cap = (cl->loglen + len) * 2;
		char *p = realloc(cl->log, cap);
		if (p == NULL)
			return -1;
		cl->log = p;
		cl->logcap = cap;
	}
	if (cl->nlens == cl->lenscap) {
		size_t cap = cl->lenscap ? cl->lenscap * 2 : 8;
		size_t *p = realloc(cl->lens, cap * sizeof(*p));
		if (p == NULL)
			return -1;
		cl->lens = p;
		cl->lenscap = cap;
	}
	memcpy(cl->log + cl->loglen, cmd, len);
	cl->loglen += len;
	cl->lens[cl->nlens++] = len;
	return 0;
}

/* Queue cmd[0..len) on l and log it. */
static int
queue(struct lr_cluster *cl, struct lr_link *l, const char *cmd, size_t len)
{
	if (logged(cl, cmd, len) != 0)
		return rlink_break(l, "out of memory");
	return rlink_append_raw(l, cmd, len);
}

int
rcluster_append(struct lr_cluster *cl, struct lr_link *l, const char *cmd, size_t len)
{
	if (!rlink_is_open(l))
		return -1;
	/* on the node an ASK named, the slot is not its own yet: ASKING
	 * (pipelined, no round trip) lets it serve the command */
	if (cl->ask_there && queue(cl, l, asking_cmd, sizeof(asking_cmd) - 1) != 0)
		return -1;
	return queue(cl, l, cmd, len);
}

/* Is the logged command cmd[0..len) the ASKING put in front? */
static int
is_asking(const char *cmd, size_t len)
{
	return len == sizeof(asking_cmd) - 1 && memcmp(cmd, asking_cmd, len) == 0;
}

/* Drop the oldest command from the log. */
static void
pop(struct lr_cluster *cl)
{
	if (cl->nlens == 0)
		return;
	cl->loglen -= cl->lens[0];
	memmove(cl->log, cl->log + cl->lens[0], cl->loglen);
	memmove(cl->lens, cl->lens + 1, (cl->nlens - 1) * sizeof(*cl->lens));
	cl->nlens--;
}

/* The oldest command was answered. */
static void
answered(struct lr_cluster *cl)
{
	pop(cl);
	cl->hops = cl->tries = cl->refreshes = 0;
}

/* The commands in the log, ASKINGs not counted. */
static size_t
in_flight(const struct lr_cluster *cl)
{
	size_t n = 0, off = 0;

	for (size_t i = 0; i < cl->nlens; off += cl->lens[i++])
		n += !is_asking(cl->log + off, cl->lens[i]);
	return n;
}

/* Where to: the node named, or (no host) the one that answered. */
static int
target(const struct lr_link *l, const struct cluster_redirect *to, struct lr_addr *a,
    struct lr_err *e)
{
	int rv;

	if (to->host[0] == '\0') {
		a->len = sizeof(a->ss);
		if (getpeername(l->fd, (struct sockaddr *)&a->ss, &a->len) != 0)
			return lr_errf(e, EX_UNAVAILABLE, "redis %s: cannot tell its address",
			    l->where);
		if (a->ss.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&a->ss)->sin6_port = htons((uint16_t)to->port);
		else
			((struct sockaddr_in *)&a->ss)->sin_port = htons((uint16_t)to->port);
		return 0;
	}
	if ((rv = rlink_lookup(to->host, to->port, a)) != 0) {
		lr_errf(e, EX_UNAVAILABLE, "redis %s: %s to %s:%d: cannot resolve it: %s",
		    l->where, to->ask ? "ASK" : "MOVED", to->host, to->port, gai_strerror(rv));
		e->kind = LR_ERR_TRANSPORT;
		return -1;
	}
	return 0;
}

/* Queue and send again the commands unanswered (rcluster_append() puts
 * ASKING in front of each on a node an ASK named, so the old ASKINGs are
 * left out); the log, set aside (cl->log is empty), is freed. */
static int
resend(struct lr_cluster *cl, struct lr_link *l, char *log, size_t *lens, size_t nlens,
    struct lr_err *e)
{
	size_t off = 0;
	int rc_ = 1;

	for (size_t i = 0; i < nlens && rc_ == 1; off += lens[i++])
		if (!is_asking(log + off, lens[i]) &&
		    rcluster_append(cl, l, log + off, lens[i]) != 0)
			rc_ = rlink_fail(l, "redirect", e);
	if (rc_ == 1 && rlink_flush(l, "redirect", e) != 0)
		rc_ = -1;
	free(log);
	free(lens);
	return rc_;
}

/* Set the log aside (the caller owns it now) and start an empty one. */
static void
take_log(struct lr_cluster *cl, char **log, size_t **lens, size_t *nlens)
{
	*log = cl->log;
	*lens = cl->lens;
	*nlens = cl->nlens;
	cl->log = NULL;
	cl->lens = NULL;
	cl->loglen = cl->logcap = cl->nlens = cl->lenscap = 0;
}

/* MOVED named a node that does not answer (a master killed, its replica
 * not yet promoted): ask the seeds again, after a pause, until they name
 * another node or the time for it is up -- by, else the command timeout
 * from the first such answer. e says why the node did not answer. The
 * log, set aside, is freed. Returns 1 sent again, or -1 with e. */
static int
refresh(struct lr_cluster *cl, struct lr_link *l, char *log, size_t *lens, size_t nlens,
    long long by, struct lr_err *e)
{
	long long now = mono_ms(), pause;
	int n = cl->refreshes;
	struct timespec ts;

	if (n == 0)
		cl->refresh_until = by > 0 ? by : now + l->command_timeout_ms;
	if (now >= cl->refresh_until) {
		free(log);
		free(lens);
		return -1;
	}
	pause = lease_backoff_delay(n, 0.5);
	if (pause > cl->refresh_until - now)
		pause = cl->refresh_until - now;
	ts = (struct timespec){ pause / 1000, (pause % 1000) * 1000000 };
	nanosleep(&ts, NULL);
	cl->home.len = 0;		/* forget it: dial the seeds */
	if (rcluster_reopen(cl, l, cl->refresh_until - mono_ms(), e) != 0) {
		free(log);
		free(lens);
		return -1;
	}
	cl->refreshes = n + 1;		/* the reopen reset it */
	return resend(cl, l, log, lens, nlens, e);
}

/* Connect to the node to names, by `by` (0: within the connect timeout),
 * and queue there again the commands unanswered: after ASKING for ASK
 * (rcluster_append() puts it in front while this connection lasts); a
 * MOVED to a node that does not answer asks the seeds again (refresh()). */
static int
follow(struct lr_cluster *cl, struct lr_link *l, const struct cluster_redirect *to,
    long long by, struct lr_err *e)
{
	struct lr_addr home = cl->home, there;
	char *log;
	size_t *lens, nlens;
	long long cap = by > 0 ? by - mono_ms() : LLONG_MAX / 4;
	int rc_, refreshes = cl->refreshes;

	if (target(l, to, &there, e) != 0) {
		rlink_close(l);
		return -1;
	}
	if (cap <= 0) {
		rlink_close(l);
		lr_errf(e, EX_UNAVAILABLE, "redis %s: redirected (%s) with no time left",
		    l->where, to->ask ? "ASK" : "MOVED");
		e->kind = LR_ERR_TRANSPORT;
		return -1;
	}
	/* set aside: the new connection's AUTH goes through the log */
	take_log(cl, &log, &lens, &nlens);
	cl->home = there;
	cl->pinned = 1;
	rc_ = rcluster_reopen(cl, l, cap, e);
	cl->pinned = 0;
	if (rc_ == 0) {
		cl->ask_there = to->ask;
		rc_ = resend(cl, l, log, lens, nlens, e);
	} else if (!to->ask && lr_err_broke(e)) {
		cl->refreshes = refreshes;	/* the reopen reset it */
		rc_ = refresh(cl, l, log, lens, nlens, by, e);
	} else {
		free(log);
		free(lens);
	}
	if (to->ask)			/* once: the keys' node is still home */
		cl->home = home;
	return rc_;
}

/* TRYAGAIN (a multi-key command while its slot moves) or CLUSTERDOWN (a
 * failover under way): worth asking the same node again, for a while. */
static int
unsettled(const char *msg)
{
	return strncmp(msg, "TRYAGAIN", 8) == 0 || strncmp(msg, "CLUSTERDOWN", 11) == 0;
}

/* Pause (backoff, no jitter needed: one client) and send the one command
 * in flight again on the same connection, until by, or (by 0) while the
 * command timeout since the first such answer lasts. Returns 1 sent, 0
 * time is up. */
static int
ask_again(struct lr_cluster *cl, struct lr_link *l, long long by, struct lr_err *e)
{
	long long now = mono_ms(), pause;
	char *log;
	size_t *lens, nlens;
	struct timespec ts;

	if (cl->tries == 0)
		cl->retry_until = by > 0 ? by : now + l->command_timeout_ms;
	if (now >= cl->retry_until)
		return 0;
	pause = lease_backoff_delay(cl->tries++, 0.5);
	if (pause > cl->retry_until - now)
		pause = cl->retry_until - now;
	ts = (struct timespec){ pause / 1000, (pause % 1000) * 1000000 };
	nanosleep(&ts, NULL);
	take_log(cl, &log, &lens, &nlens);
	return resend(cl, l, log, lens, nlens, e);
}

int
rcluster_reply(struct lr_cluster *cl, struct lr_link *l, redisReply **r, long long by,
    struct lr_err *e)
{
	struct cluster_redirect to;
	char said[200];
	int hops, tries = cl->tries;

	if (cl->nlens > 0 && is_asking(cl->log, cl->lens[0])) {
		pop(cl);		/* ASKING's +OK: the command's answer is next */
		freeReplyObject(*r);
		*r = NULL;
		return 2;
	}
	/* alone in flight (not behind WAIT, which would answer first) */
	if ((*r)->type == REDIS_REPLY_ERROR && in_flight(cl) == 1 && unsettled((*r)->str)) {
		int again = ask_again(cl, l, by, e);
		if (again != 0) {
			freeReplyObject(*r);
			*r = NULL;
			return again;
		}
	}
	if ((*r)->type != REDIS_REPLY_ERROR || cl->nlens == 0 ||
	    cluster_redirect_parse((*r)->str, &to) <= 0) {
		answered(cl);
		return 0;
	}
	snprintf(said, sizeof(said), "%s", (*r)->str);
	freeReplyObject(*r);
	*r = NULL;
	hops = ++cl->hops;
	/* while the seeds name a node that does not answer, time decides */
	if (hops > CLUSTER_MAX_REDIRECTS && cl->refreshes == 0) {
		rlink_close(l);
		return lr_errf(e, EX_UNAVAILABLE, "redis %s: the cluster redirected a "
		    "command more than %d times (last: %s)", l->where, CLUSTER_MAX_REDIRECTS,
		    said);
	}
	if (follow(cl, l, &to, by, e) != 1)
		return -1;
	cl->hops = hops;	/* the reopen's AUTH reset them */
	cl->tries = tries;
	return 1;
}
