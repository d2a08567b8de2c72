/* SPDX-License-Identifier: BSD-2-Clause */
/* rurl.c -- parse Redis URLs; pure, libc only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/redis/rurl.h"

static int parse_userinfo(const char *s, size_t len, struct lr_url *u,
    struct lr_err *e);

/* unix://[user[:password]@]/path[?db=N]. Messages never show the URL:
 * user:password@ or a ?password= may be in it. */
static int
parse_unix(const char *rest, struct lr_url *u, struct lr_err *e)
{
	const char *q, *at = NULL;
	struct url_param p;
	size_t plen;

	u->is_unix = 1;
	if (rest[0] != '/' && rest[strcspn(rest, "@/?")] == '@') {
		at = rest + strcspn(rest, "@");
		if (parse_userinfo(rest, (size_t)(at - rest), u, e) != 0)
			return -1;
		rest = at + 1;
	}
	q = strchr(rest, '?');
	plen = q ? (size_t)(q - rest) : strlen(rest);
	if (plen == 0 || rest[0] != '/')
		return lr_errf(e, EX_USAGE, "expected unix:///path/to/socket");
	if (plen >= sizeof(u->path))
		return lr_errf(e, EX_USAGE, "socket path is longer than %zu bytes",
		    sizeof(u->path) - 1);
	memcpy(u->path, rest, plen);
	u->path[plen] = '\0';
	if (q == NULL)
		return 0;
	/* one parameter, db, and nothing after its number */
	q++;
	if (!url_query_next(&q, &p) || !url_param_is(&p, "db") || p.value == NULL ||
	    url_decimal(p.value, strlen(p.value), 0, 1000000, &u->db) != 0)
		return lr_errf(e, EX_USAGE, "expected ?db=N after the socket path");
	return 0;
}

/* userinfo is [user[:password]]; it is never echoed in messages. */
static int
parse_userinfo(const char *s, size_t len, struct lr_url *u, struct lr_err *e)
{
	if (url_userinfo(s, len, u->user, sizeof(u->user), u->password,
	    sizeof(u->password)) != 0)
		return lr_errf(e, EX_USAGE, "bad user or password "
		    "(too long, or a malformed %%XX escape)");
	return 0;
}

/* host[:port] or [v6addr][:port], all of [hp, end), into host[n] and
 * *port (left alone when there is none). */
static int
parse_hostport(const char *hp, const char *end, char *host, size_t n, int *port,
    struct lr_err *e)
{
	struct lr_err why;

	if (url_hostport(hp, end, host, n, port, &why) != 0)
		return lr_errf(e, EX_USAGE, "%s", why.msg);
	if (host[0] == '\0')
		return lr_errf(e, EX_USAGE, "no host (expected redis://host[:port][/db])");
	return 0;
}

/* [user[:password]@] before the path, if any; returns where the host
 * part starts, or NULL with e set. */
static const char *
parse_authority(const char *rest, const char *slash, struct lr_url *u, struct lr_err *e)
{
	const char *at = url_last_at(rest, slash);

	if (at && parse_userinfo(rest, (size_t)(at - rest), u, e) != 0)
		return NULL;
	return at ? at + 1 : rest;
}

/* redis://[user[:password]@]host[:port][/db]; no message shows the URL. */
static int
parse_tcp(const char *rest, struct lr_url *u, struct lr_err *e)
{
	const char *slash = rest + strcspn(rest, "/"), *hp;

	if ((hp = parse_authority(rest, slash, u, e)) == NULL ||
	    parse_hostport(hp, slash, u->host, sizeof(u->host), &u->port, e) != 0)
		return -1;
	if (*slash == '/' && slash[1] != '\0' &&
	    url_decimal(slash + 1, strlen(slash + 1), 0, 1000000, &u->db) != 0)
		return lr_errf(e, EX_USAGE, "database after '/' must be a number");
	return 0;
}

/* redis+cluster://[user[:password]@]host:port[,host:port...][/0]: the
 * seed nodes, each with the default port when it has none. A cluster has
 * only database 0. */
static int
parse_cluster(const char *rest, struct lr_url *u, struct lr_err *e)
{
	const char *slash = rest + strcspn(rest, "/"), *hp;
	int db = 0;

	u->cluster = 1;
	if ((hp = parse_authority(rest, slash, u, e)) == NULL)
		return -1;
	for (;;) {
		const char *comma = memchr(hp, ',', (size_t)(slash - hp)), *end;
		struct lr_hostport *n = &u->nodes[u->nnodes];

		end = comma ? comma : slash;
		if (u->nnodes == RURL_NODES_MAX)
			return lr_errf(e, EX_USAGE, "more than %d cluster nodes",
			    RURL_NODES_MAX);
		n->port = 6379;
		if (parse_hostport(hp, end, n->host, sizeof(n->host), &n->port, e) != 0)
			return -1;
		u->nnodes++;
		if (comma == NULL)
			break;
		hp = comma + 1;
	}
	snprintf(u->host, sizeof(u->host), "%s", u->nodes[0].host);
	u->port = u->nodes[0].port;
	if (*slash == '/' && slash[1] != '\0' &&
	    (url_decimal(slash + 1, strlen(slash + 1), 0, 1000000, &db) != 0 || db != 0))
		return lr_errf(e, EX_USAGE, "a Redis Cluster has only database 0");
	return 0;
}

/* redis+sentinel://[user[:password]@]host[:port][,...]/MASTER[/db]: the
 * user and password are the master's; the list and the master are
 * sentinel_url.c's to read. */
static int
parse_sentinel(const char *rest, struct lr_url *u, struct lr_err *e)
{
	const char *slash = rest + strcspn(rest, "/"), *hp;
	int n;

	if ((hp = parse_authority(rest, slash, u, e)) == NULL)
		return -1;
	u->port = 0;
	if (*slash != '/')	/* the master's name is not optional */
		return sentinel_url_master("", u->master, sizeof(u->master), &u->db, e);
	if ((n = sentinel_url_list(hp, slash, u->sentinel, e)) < 0)
		return -1;
	u->nsentinels = n;
	return sentinel_url_master(slash + 1, u->master, sizeof(u->master), &u->db, e);
}

/* Not a scheme we know. Show the scheme when there is one ("http://"),
 * and nothing else: the text may be the password, given where the URL
 * goes, or "host:password@...". */
static int
bad_scheme(const char *url, struct lr_err *e)
{
	size_t n = strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789+.-");

	if (n > 0 && strncmp(url + n, "://", 3) == 0)
		return lr_errf(e, EX_USAGE, "expected redis://host[:port][/db], "
		    "rediss://..., unix:///path[?db=N], redis+sentinel://..., "
		    "redis+cluster://..., postgres://... or mysql://..., got \"%.*s...\"",
		    (int)n, url);
	return lr_errf(e, EX_USAGE, "expected redis://host[:port][/db], "
	    "rediss://..., unix:///path[?db=N], redis+sentinel://... or redis+cluster://...");
}

int
rurl_problem(const char *url, struct lr_url *u, struct lr_err *e)
{
	memset(u, 0, sizeof(*u));
	u->port = 6379;
	if (strncmp(url, "redis://", 8) == 0)
		return parse_tcp(url + 8, u, e);
	if (strncmp(url, "unix://", 7) == 0)
		return parse_unix(url + 7, u, e);
	if (strncmp(url, "redis+cluster://", 16) == 0)
		return parse_cluster(url + 16, u, e);
	if (strncmp(url, "rediss://", 9) == 0) {
		u->tls = 1;
		return parse_tcp(url + 9, u, e);
	}
	if (strncmp(url, "redis+sentinel://", 17) == 0)
		return parse_sentinel(url + 17, u, e);
	return bad_scheme(url, e);
}

int
rurl_parse(const char *url, struct lr_url *u, struct lr_err *e)
{
	struct lr_err why;

	if (rurl_problem(url, u, &why) == 0)
		return 0;
	return lr_errf(e, why.status, "redis URL: %s", why.msg);
}

char *
rurl_where(const struct lr_url *u, char *buf, size_t n)
{
	if (u->is_unix)
		snprintf(buf, n, "unix:%s", u->path);
	else if (u->nsentinels)
		snprintf(buf, n, "sentinel:%s", u->master);
	else if (strchr(u->host, ':'))
		snprintf(buf, n, "[%s]:%d", u->host, u->port);
	else
		snprintf(buf, n, "%s:%d", u->host, u->port);
	return buf;
}
