/* SPDX-License-Identifier: BSD-2-Clause */
/* rurl.c -- parse Redis URLs; pure, libc only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/redis/rurl.h"

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
rurl_pct_decode(const char *s, size_t len, char *dst, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == '%') {
			int hi, lo;
			if (i + 2 >= len)
				return -1;
			hi = hexval(s[i + 1]);
			lo = hexval(s[i + 2]);
			if (hi < 0 || lo < 0 || (hi | lo) == 0)
				return -1;
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		if (o + 1 >= n)
			return -1;
		dst[o++] = c;
	}
	dst[o] = '\0';
	return 0;
}

size_t
rurl_password_spans(const char *url, struct rurl_span *s, size_t n)
{
	const char *p = strstr(url, "://"), *slash, *at = NULL, *colon, *q;
	size_t got = 0;

	if (p == NULL)
		return 0;
	p += 3;
	slash = p + strcspn(p, "/");
	for (const char *c = p; c < slash; c++)	/* the last '@', as parsing takes it */
		if (*c == '@')
			at = c;
	if (at != NULL && (colon = memchr(p, ':', (size_t)(at - p))) != NULL && got < n)
		s[got++] = (struct rurl_span){ (size_t)(colon + 1 - url), (size_t)(at - colon - 1) };
	for (q = strchr(p, '?'); q != NULL; q = strchr(q + 1, '&'))
		if (strncmp(q + 1, "password=", 9) == 0 && got < n) {
			const char *v = q + 10;
			s[got++] = (struct rurl_span){ (size_t)(v - url), strcspn(v, "&#") };
		}
	return got;
}

int
rurl_has_password(const char *url)
{
	struct rurl_span s[1];

	return rurl_password_spans(url, s, 1) > 0;
}

int
rurl_decimal(const char *s, size_t len, long lo, long hi, int *out)
{
	long v = 0;

	if (len == 0 || len > 9)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_userinfo(const char *s, size_t len, struct lr_url *u,
    struct lr_err *e);

/* unix://[user[:password]@]/path[?db=N]. Messages never show the URL:
 * user:password@ or a ?password= may be in it. */
static int
parse_unix(const char *rest, struct lr_url *u, struct lr_err *e)
{
	const char *q, *at = NULL;
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
		return lr_errf(e, EX_USAGE, "redis URL: expected unix:///path/to/socket");
	if (plen >= sizeof(u->path))
		return lr_errf(e, EX_USAGE, "redis URL: socket path is longer than %zu bytes",
		    sizeof(u->path) - 1);
	memcpy(u->path, rest, plen);
	u->path[plen] = '\0';
	if (q == NULL)
		return 0;
	if (strncmp(q + 1, "db=", 3) != 0 ||
	    rurl_decimal(q + 4, strlen(q + 4), 0, 1000000, &u->db) != 0)
		return lr_errf(e, EX_USAGE, "redis URL: expected ?db=N after the socket path");
	return 0;
}

int
rurl_userinfo(const char *s, size_t len, char *user, size_t un, char *password,
    size_t pn)
{
	const char *colon = memchr(s, ':', len);
	size_t ulen = colon ? (size_t)(colon - s) : len;

	if (rurl_pct_decode(s, ulen, user, un) != 0 ||
	    (colon && rurl_pct_decode(colon + 1, len - ulen - 1, password, pn) != 0))
		return -1;
	return 0;
}

/* userinfo is [user[:password]]; it is never echoed in messages. */
static int
parse_userinfo(const char *s, size_t len, struct lr_url *u, struct lr_err *e)
{
	if (rurl_userinfo(s, len, u->user, sizeof(u->user), u->password,
	    sizeof(u->password)) != 0)
		return lr_errf(e, EX_USAGE, "redis URL: bad user or password "
		    "(too long, or a malformed %%XX escape)");
	return 0;
}

const char *
rurl_last_at(const char *s, const char *end)
{
	const char *at = NULL;

	for (; s < end; s++)
		if (*s == '@')
			at = s;
	return at;
}

int
rurl_hostport(const char *hp, const char *end, char *host, size_t n, int *port,
    const char **why)
{
	const char *portp = NULL, *hend;
	size_t hostlen;

	if (hp < end && *hp == '[') {		/* [v6addr]:port */
		if ((hend = memchr(hp, ']', (size_t)(end - hp))) == NULL) {
			*why = "missing ']' after IPv6 address";
			return -1;
		}
		hp++;
		if ((hostlen = (size_t)(hend - hp)) == 0) {
			*why = "no address between '[' and ']'";
			return -1;
		}
		if (hend + 1 < end && hend[1] == ':')
			portp = hend + 2;
		else if (hend + 1 != end) {
			*why = "expected ':port' after ']'";
			return -1;
		}
	} else {
		const char *colon = memchr(hp, ':', (size_t)(end - hp));
		hostlen = (size_t)((colon ? colon : end) - hp);
		if (colon)
			portp = colon + 1;
	}
	if (hostlen >= n) {
		*why = "host name is too long";
		return -1;
	}
	memcpy(host, hp, hostlen);
	host[hostlen] = '\0';
	if (portp && rurl_decimal(portp, (size_t)(end - portp), 1, 65535, port) != 0) {
		*why = "port must be a number from 1 to 65535";
		return -1;
	}
	return 0;
}

/* host[:port] or [v6addr][:port], all of [hp, end), into host[n] and
 * *port (left alone when there is none). */
static int
parse_hostport(const char *hp, const char *end, char *host, size_t n, int *port,
    struct lr_err *e)
{
	const char *why;

	if (rurl_hostport(hp, end, host, n, port, &why) != 0)
		return lr_errf(e, EX_USAGE, "redis URL: %s", why);
	if (host[0] == '\0')
		return lr_errf(e, EX_USAGE, "redis URL: no host (expected redis://host[:port][/db])");
	return 0;
}

/* [user[:password]@] before the path, if any; returns where the host
 * part starts, or NULL with e set. */
static const char *
parse_authority(const char *rest, const char *slash, struct lr_url *u, struct lr_err *e)
{
	const char *at = rurl_last_at(rest, slash);

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
	    rurl_decimal(slash + 1, strlen(slash + 1), 0, 1000000, &u->db) != 0)
		return lr_errf(e, EX_USAGE, "redis URL: database after '/' must be a number");
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
		struct lr_node *n = &u->nodes[u->nnodes];

		end = comma ? comma : slash;
		if (u->nnodes == RURL_NODES_MAX)
			return lr_errf(e, EX_USAGE, "redis URL: more than %d cluster nodes",
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
	    (rurl_decimal(slash + 1, strlen(slash + 1), 0, 1000000, &db) != 0 || db != 0))
		return lr_errf(e, EX_USAGE, "redis URL: a Redis Cluster has only database 0");
	return 0;
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
		return lr_errf(e, EX_USAGE, "redis URL: expected redis://host[:port][/db], "
		    "rediss://..., unix:///path[?db=N], redis+sentinel://..., "
		    "redis+cluster://..., postgres://... or mysql://..., got \"%.*s...\"",
		    (int)n, url);
	return lr_errf(e, EX_USAGE, "redis URL: expected redis://host[:port][/db], "
	    "rediss://..., unix:///path[?db=N], redis+sentinel://... or redis+cluster://...");
}

int
rurl_parse(const char *url, struct lr_url *u, struct lr_err *e)
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
		return rurl_parse_sentinel(url + 17, u, e);
	return bad_scheme(url, e);
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
