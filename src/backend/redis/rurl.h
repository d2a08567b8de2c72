/* SPDX-License-Identifier: BSD-2-Clause */
/* rurl.h -- Redis URLs: redis://[user[:password]@]host[:port][/db],
 * rediss://... (the same over TLS), unix://[user[:password]@]/path[?db=N]
 * redis+sentinel://[user[:password]@]host[:port][,...]/MASTER[/db]
 * and redis+cluster://[user[:password]@]host:port[,host:port...][/0]. */
#ifndef LR_RURL_H
#define LR_RURL_H

#include <stddef.h>

#include "core/err.h"

#define RURL_SENTINELS_MAX	8
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
	/* redis+sentinel:// (sentinel_url.c): the sentinels to ask, in order,
	 * and the name they know the master by; host and port stay unset */
	int	nsentinels;	/* 0: not a sentinel URL */
	struct lr_hostport {
		char	host[256];
		int	port;	/* 26379 when not given */
	}	sentinel[RURL_SENTINELS_MAX];
	char	master[128];
	int	cluster;	/* redis+cluster://: host and port are the first
				 * seed node, nodes[] every one */
	int	nnodes;
	struct lr_node {
		char	host[256];
		int	port;
	}	nodes[RURL_NODES_MAX];
};

/* Parse url into u. Returns 0, or -1 with e->status EX_USAGE and a
 * message that never repeats the password: it shows no part of url but
 * its scheme. */
int	rurl_parse(const char *url, struct lr_url *u, struct lr_err *e);

/* The part of a redis+sentinel:// URL after the scheme, into u (which
 * rurl_parse() has cleared). Returns 0, or -1 as rurl_parse(). */
int	rurl_parse_sentinel(const char *rest, struct lr_url *u, struct lr_err *e);

/* Where u points, for messages: "127.0.0.1:6379", "[::1]:6380",
 * "unix:/run/redis.sock", "sentinel:MASTER". Never includes credentials.
 * Returns buf. */
char	*rurl_where(const struct lr_url *u, char *buf, size_t n);

/* Copy [s, s+len) into dst[n], decoding %XX. Returns 0, or -1 when it
 * does not fit, an escape is malformed, or it would decode to a NUL. */
int	rurl_pct_decode(const char *s, size_t len, char *dst, size_t n);

/* The pieces of an authority that every URL lockrun reads shares:
 * [user[:password]], percent-decoded into user[un] and password[pn]
 * (0, or -1: too long or a bad escape); the last '@' in [s, end), or
 * NULL; host[:port] or [v6addr][:port], all of [hp, end), into host[n]
 * ("" when there is none) and *port (left alone when there is none):
 * 0, or -1 with *why a short reason. None shows any of the text. */
int	rurl_userinfo(const char *s, size_t len, char *user, size_t un, char *password,
	    size_t pn);
const char *rurl_last_at(const char *s, const char *end);
int	rurl_hostport(const char *hp, const char *end, char *host, size_t n, int *port,
	    const char **why);

/* Does url (any scheme) carry a password: user:password@ before the
 * path, or a password= parameter (libpq takes one)? */
int	rurl_has_password(const char *url);

/* Where url holds a password: the userinfo's after ':' and each query
 * "password=" value, as offsets into url, at most n of them. Returns how
 * many. */
struct rurl_span {
	size_t	off, len;
};
size_t	rurl_password_spans(const char *url, struct rurl_span *s, size_t n);

/* The decimal that is all of [s, s+len), if it is in [lo, hi]: 0 with
 * *out set, else -1. */
int	rurl_decimal(const char *s, size_t len, long lo, long hi, int *out);

#endif
