/* SPDX-License-Identifier: BSD-2-Clause */
/* rurl.h -- Redis URLs: redis://[user[:password]@]host[:port][/db],
 * rediss://... (the same over TLS), unix://[user[:password]@]/path[?db=N]
 * redis+sentinel://[user[:password]@]host[:port][,...]/MASTER[/db]
 * and redis+cluster://[user[:password]@]host:port[,host:port...][/0]. */
#ifndef LR_RURL_H
#define LR_RURL_H

#include <stddef.h>

#include "core/err.h"
#include "core/url.h"
#include "backend/redis/sentinel_url.h"

#define RURL_SENTINELS_MAX	SENTINEL_URL_MAX
#define RURL_NODES_MAX	16	/* seed nodes in a redis+cluster:// URL */

struct lr_url {
	int	is_unix;
	int	tls;		/* rediss:// */
	char	host[256];	/* TCP host, brackets stripped from [v6] */
	int	port;
	char	path[108];	/* unix socket path (sun_path size) */
	int	db;
	char	user[128];	/* ACL user, percent-decoded, or "" */
	char	password[256];	/* percent-decoded, or "" */
	/* redis+sentinel:// (sentinel_url.h): the sentinels to ask, in order,
	 * and the name they know the master by; host and port stay unset */
	int	nsentinels;	/* 0: not a sentinel URL */
	struct lr_hostport sentinel[RURL_SENTINELS_MAX];
	char	master[128];
	int	cluster;	/* redis+cluster://: host and port are the first
				 * seed node, nodes[] every one */
	int	nnodes;
	struct lr_hostport nodes[RURL_NODES_MAX];
};

/* Parse url into u. Returns 0, or -1 with e->status EX_USAGE and a
 * message that never repeats the password: it shows no part of url but
 * its scheme. */
int	rurl_parse(const char *url, struct lr_url *u, struct lr_err *e);

/* rurl_parse() whose message says what is wrong without naming its
 * subject ("port must be a number..."): for a caller that names it (a
 * config's url: key). */
int	rurl_problem(const char *url, struct lr_url *u, struct lr_err *e);

/* Where u points, for messages: "127.0.0.1:6379", "[::1]:6380",
 * "unix:/run/redis.sock", "sentinel:MASTER". Never includes credentials.
 * Returns buf. */
char	*rurl_where(const struct lr_url *u, char *buf, size_t n);

#endif
