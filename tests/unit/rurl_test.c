/* SPDX-License-Identifier: BSD-2-Clause */
/* rurl_test.c -- Redis URLs. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "backend/redis/rurl.h"

static struct lr_url
parse_ok(const char *url)
{
	struct lr_url u;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, rurl_parse(url, &u, &e), 0), "%s: %s", url, e.msg);
	return u;
}

static void
parse_bad(const char *url, const char *msg)
{
	struct lr_url u;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, rurl_parse(url, &u, &e), -1), "%s", url);
	cr_assert(eq(int, e.status, 64));
	cr_assert(eq(str, e.msg, (char *)msg));
}

Test(rurl, host_only_defaults_port_and_db)
{
	struct lr_url u = parse_ok("redis://cache.internal");

	cr_assert(eq(str, u.host, "cache.internal"));
	cr_assert(eq(int, u.port, 6379));
	cr_assert(eq(int, u.db, 0));
	cr_assert(eq(int, u.is_unix, 0));
	cr_assert(eq(str, u.password, ""));
}

Test(rurl, host_port_db)
{
	struct lr_url u = parse_ok("redis://10.0.0.5:6380/7");

	cr_assert(eq(str, u.host, "10.0.0.5"));
	cr_assert(eq(int, u.port, 6380));
	cr_assert(eq(int, u.db, 7));
}

Test(rurl, rediss_is_the_same_url_over_tls)
{
	struct lr_url u = parse_ok("rediss://cron:pw@cache.internal:6380/2");
	struct lr_url v = parse_ok("redis://cache.internal");

	cr_assert(eq(int, u.tls, 1));
	cr_assert(eq(int, v.tls, 0));
	cr_assert(eq(str, u.host, "cache.internal"));
	cr_assert(eq(int, u.port, 6380));
	cr_assert(eq(int, u.db, 2));
	cr_assert(eq(str, u.user, "cron"));
	cr_assert(eq(str, u.password, "pw"));
}

Test(rurl, password_only_and_user_password)
{
	struct lr_url u = parse_ok("redis://:s3cret@h:1/0");
	struct lr_url v = parse_ok("redis://cron:p%40ss%3Aword@h");

	cr_assert(eq(str, u.user, ""));
	cr_assert(eq(str, u.password, "s3cret"));
	cr_assert(eq(str, v.user, "cron"));
	cr_assert(eq(str, v.password, "p@ss:word"), "percent-decoded");
}

Test(rurl, ipv6_in_brackets)
{
	struct lr_url u = parse_ok("redis://[::1]:6390/2");
	char where[64];

	cr_assert(eq(str, u.host, "::1"));
	cr_assert(eq(int, u.port, 6390));
	cr_assert(eq(int, u.db, 2));
	cr_assert(eq(str, rurl_where(&u, where, sizeof(where)), "[::1]:6390"));
}

Test(rurl, unix_socket_with_a_user)
{
	struct lr_url u = parse_ok("unix://cron@/run/redis/redis.sock?db=2");
	struct lr_url v = parse_ok("unix://cron:p%40ss@/tmp/r.sock");
	char where[160];

	cr_assert(eq(int, u.is_unix, 1));
	cr_assert(eq(str, u.user, "cron"));
	cr_assert(eq(str, u.password, ""));
	cr_assert(eq(str, u.path, "/run/redis/redis.sock"));
	cr_assert(eq(int, u.db, 2));
	cr_assert(eq(str, v.user, "cron"));
	cr_assert(eq(str, v.password, "p@ss"));
	cr_assert(eq(str, v.path, "/tmp/r.sock"));
	cr_assert(eq(str, rurl_where(&v, where, sizeof(where)), "unix:/tmp/r.sock"),
	    "no credentials in messages");
}

Test(rurl, unix_socket_with_db)
{
	struct lr_url u = parse_ok("unix:///run/redis/redis.sock?db=4");
	struct lr_url v = parse_ok("unix:///tmp/r.sock");
	char where[64];

	cr_assert(eq(int, u.is_unix, 1));
	cr_assert(eq(str, u.path, "/run/redis/redis.sock"));
	cr_assert(eq(int, u.db, 4));
	cr_assert(eq(int, v.db, 0));
	cr_assert(eq(str, rurl_where(&u, where, sizeof(where)), "unix:/run/redis/redis.sock"));
}

Test(rurl, where_never_shows_credentials)
{
	struct lr_url u = parse_ok("redis://cron:topsecret@h:7000");
	char where[64];

	cr_assert(eq(str, rurl_where(&u, where, sizeof(where)), "h:7000"));
}

Test(rurl, rejects_malformed_urls)
{
	parse_bad("http://h", "redis URL: expected redis://host[:port][/db], "
	    "rediss://..., unix:///path[?db=N], redis+sentinel://..., redis+cluster://..., postgres://... or mysql://..., got \"http...\"");
	parse_bad("redis://", "redis URL: no host (expected redis://host[:port][/db])");
	parse_bad("redis://h:0", "redis URL: port must be a number from 1 to 65535");
	parse_bad("redis://h:65536", "redis URL: port must be a number from 1 to 65535");
	parse_bad("redis://h:x1", "redis URL: port must be a number from 1 to 65535");
	parse_bad("redis://h/db1", "redis URL: database after '/' must be a number");
	parse_bad("redis://[::1", "redis URL: missing ']' after IPv6 address");
	parse_bad("unix://relative.sock", "redis URL: expected unix:///path/to/socket");
	parse_bad("unix:///s?database=1", "redis URL: expected ?db=N after the socket path");
	parse_bad("rediss://", "redis URL: no host (expected redis://host[:port][/db])");
}

Test(rurl, bad_escape_does_not_echo_the_password)
{
	struct lr_url u;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, rurl_parse("redis://u:hunter2%G@h", &u, &e), -1));
	cr_assert(eq(ptr, strstr(e.msg, "hunter2"), NULL), "%s", e.msg);
}

/* url carries the password s3cr3t: the message must name the problem,
 * exactly msg, and never repeat the password. */
static void
bad_secret(const char *url, const char *msg)
{
	struct lr_url u;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, rurl_parse(url, &u, &e), -1), "%s", url);
	cr_assert(eq(ptr, strstr(e.msg, "s3cr3t"), NULL), "%s: %s", url, e.msg);
	cr_assert(eq(int, e.status, 64));
	cr_assert(eq(str, e.msg, (char *)msg), "%s", url);
}

/* head, then n copies of c, then tail, in buf. */
static const char *
long_url(char *buf, size_t size, const char *head, char c, size_t n, const char *tail)
{
	size_t h = strlen(head);

	cr_assert(h + n + strlen(tail) < size);
	memcpy(buf, head, h);
	memset(buf + h, c, n);
	strcpy(buf + h + n, tail);
	return buf;
}

Test(rurl, unix_errors_do_not_echo_the_password)
{
	char buf[512];

	bad_secret("unix://user:s3cr3t@/x?db=abc",
	    "redis URL: expected ?db=N after the socket path");
	bad_secret("unix://:s3cr3t@run/redis.sock",
	    "redis URL: expected unix:///path/to/socket");
	bad_secret("unix://:s3/cr3t@/run/redis.sock",
	    "redis URL: expected unix:///path/to/socket");
	bad_secret("unix:///x?db=abc&password=s3cr3t",
	    "redis URL: expected ?db=N after the socket path");
	bad_secret("unix:///x?password=s3cr3t",
	    "redis URL: expected ?db=N after the socket path");
	bad_secret(long_url(buf, sizeof(buf), "unix:///", 'p', 120, "?db=0&password=s3cr3t"),
	    "redis URL: socket path is longer than 107 bytes");
}

Test(rurl, tcp_errors_do_not_echo_the_password)
{
	char buf[512];

	bad_secret("redis://u:s3cr3t%zz@h", "redis URL: bad user or password "
	    "(too long, or a malformed %XX escape)");
	bad_secret(long_url(buf, sizeof(buf), "redis://u:s3cr3t", 'x', 300, "@h"),
	    "redis URL: bad user or password (too long, or a malformed %XX escape)");
	bad_secret("redis://:s3cr3t@[::1", "redis URL: missing ']' after IPv6 address");
	bad_secret("redis://:s3cr3t@[::1]x", "redis URL: expected ':port' after ']'");
	bad_secret("redis://:s3cr3t@", "redis URL: no host (expected "
	    "redis://host[:port][/db])");
	bad_secret("redis://:s3cr3t@:6379/0", "redis URL: no host (expected "
	    "redis://host[:port][/db])");
	bad_secret(long_url(buf, sizeof(buf), "redis://:s3cr3t@", 'h', 300, ""),
	    "redis URL: host name is too long");
	bad_secret("redis://:s3cr3t@h:0", "redis URL: port must be a number from 1 to 65535");
	bad_secret("redis://u:s3/cr3t@h", "redis URL: port must be a number from 1 to 65535");
	bad_secret("redis://:s3cr3t@h/x", "redis URL: database after '/' must be a number");
}

Test(rurl, scheme_errors_do_not_echo_the_password)
{
	bad_secret("rediss://:s3cr3t@h:0", "redis URL: port must be a number from 1 to 65535");
	bad_secret("http://u:s3cr3t@h", "redis URL: expected redis://host[:port][/db], "
	    "rediss://..., unix:///path[?db=N], redis+sentinel://..., redis+cluster://..., postgres://... or mysql://..., got \"http...\"");
	/* no scheme: perhaps the password itself, given where the URL goes */
	bad_secret("s3cr3t", "redis URL: expected redis://host[:port][/db], "
	    "rediss://..., unix:///path[?db=N], redis+sentinel://... or redis+cluster://...");
	bad_secret(":s3cr3t@h", "redis URL: expected redis://host[:port][/db], "
	    "rediss://..., unix:///path[?db=N], redis+sentinel://... or redis+cluster://...");
	bad_secret("redis:/u:s3cr3t@h", "redis URL: expected redis://host[:port][/db], "
	    "rediss://..., unix:///path[?db=N], redis+sentinel://... or redis+cluster://...");
}

Test(rurl, sentinel_url_lists_the_sentinels_and_the_master)
{
	struct lr_url u = parse_ok("redis+sentinel://cron:s3cr3t@10.0.0.1:26380,sentinel-b,"
	    "[::1]:26381/mymaster/3");
	char where[64];

	cr_assert(eq(int, u.nsentinels, 3));
	cr_assert(eq(str, u.sentinel[0].host, "10.0.0.1"));
	cr_assert(eq(int, u.sentinel[0].port, 26380));
	cr_assert(eq(str, u.sentinel[1].host, "sentinel-b"));
	cr_assert(eq(int, u.sentinel[1].port, 26379), "the sentinel port by default");
	cr_assert(eq(str, u.sentinel[2].host, "::1"));
	cr_assert(eq(int, u.sentinel[2].port, 26381));
	cr_assert(eq(str, u.master, "mymaster"));
	cr_assert(eq(int, u.db, 3));
	cr_assert(eq(str, u.user, "cron"), "user and password are the master's");
	cr_assert(eq(str, u.password, "s3cr3t"));
	cr_assert(eq(int, u.tls, 0));
	cr_assert(eq(str, rurl_where(&u, where, sizeof(where)), "sentinel:mymaster"));
}

Test(rurl, sentinel_url_with_one_sentinel_and_no_db)
{
	struct lr_url u = parse_ok("redis+sentinel://127.0.0.1/m");
	struct lr_url v = parse_ok("redis+sentinel://:p%40ss@h:1/m/");
	struct lr_url w = parse_ok("redis://h");

	cr_assert(eq(int, u.nsentinels, 1));
	cr_assert(eq(int, u.sentinel[0].port, 26379));
	cr_assert(eq(int, u.db, 0));
	cr_assert(eq(str, u.password, ""));
	cr_assert(eq(str, v.password, "p@ss"), "percent-decoded");
	cr_assert(eq(int, v.db, 0));
	cr_assert(eq(int, w.nsentinels, 0), "not a sentinel URL");
}

Test(rurl, sentinel_url_errors_do_not_echo_the_password)
{
	char buf[512];

	bad_secret("redis+sentinel://:s3cr3t@h:1", "redis URL: no master name "
	    "(expected redis+sentinel://[user[:password]@]host[:port][,host[:port]...]"
	    "/MASTER[/db])");
	bad_secret("redis+sentinel://:s3cr3t@h:1/", "redis URL: no master name "
	    "(expected redis+sentinel://[user[:password]@]host[:port][,host[:port]...]"
	    "/MASTER[/db])");
	bad_secret("redis+sentinel://:s3cr3t@h:1//0", "redis URL: no master name "
	    "(expected redis+sentinel://[user[:password]@]host[:port][,host[:port]...]"
	    "/MASTER[/db])");
	bad_secret("redis+sentinel://:s3cr3t@h:1,/m", "redis URL: empty sentinel address "
	    "in the list");
	bad_secret("redis+sentinel://:s3cr3t@/m", "redis URL: empty sentinel address "
	    "in the list");
	bad_secret("redis+sentinel://:s3cr3t@a,b:0/m", "redis URL: sentinel 2: port must "
	    "be a number from 1 to 65535");
	bad_secret("redis+sentinel://:s3cr3t@[::1/m", "redis URL: sentinel 1: missing ']' "
	    "after IPv6 address");
	bad_secret("redis+sentinel://u:s3/cr3t@h/m", "redis URL: sentinel 1: port must "
	    "be a number from 1 to 65535");
	bad_secret("redis+sentinel://u:s3cr3t%zz@h/m", "redis URL: bad user or password "
	    "(too long, or a malformed %XX escape)");
	bad_secret(long_url(buf, sizeof(buf), "redis+sentinel://u:s3cr3t", 'x', 300, "@h/m"),
	    "redis URL: bad user or password (too long, or a malformed %XX escape)");
	bad_secret("redis+sentinel://:s3cr3t@h/m/x", "redis URL: database after the "
	    "master name must be a number");
	bad_secret("redis+sentinel://:s3cr3t@h/m/1/2", "redis URL: database after the "
	    "master name must be a number");
	bad_secret("redis+sentinel://:s3cr3t@h/my\tmaster", "redis URL: master name has "
	    "a space or a control character");
	bad_secret(long_url(buf, sizeof(buf), "redis+sentinel://:s3cr3t@h/", 'm', 200, ""),
	    "redis URL: master name is longer than 127 bytes");
	bad_secret("redis+sentinel://:s3cr3t@a,b,c,d,e,f,g,h,i/m",
	    "redis URL: more than 8 sentinels");
}

Test(rurl, cluster_seed_nodes)
{
	struct lr_url u = parse_ok("redis+cluster://10.0.0.1:7000,10.0.0.2,[::1]:7002");

	cr_assert(eq(int, u.cluster, 1));
	cr_assert(eq(int, u.tls, 0));
	cr_assert(eq(int, u.nnodes, 3));
	cr_assert(eq(str, u.nodes[0].host, "10.0.0.1"));
	cr_assert(eq(int, u.nodes[0].port, 7000));
	cr_assert(eq(str, u.nodes[1].host, "10.0.0.2"));
	cr_assert(eq(int, u.nodes[1].port, 6379));
	cr_assert(eq(str, u.nodes[2].host, "::1"));
	cr_assert(eq(int, u.nodes[2].port, 7002));
	/* the first seed is the URL's host, for messages */
	cr_assert(eq(str, u.host, "10.0.0.1"));
	cr_assert(eq(int, u.port, 7000));
	cr_assert(eq(int, u.db, 0));
}

Test(rurl, cluster_one_seed_with_credentials_and_db_0)
{
	struct lr_url u = parse_ok("redis+cluster://cron:p%40ss@cache-1:6380/0");

	cr_assert(eq(int, u.cluster, 1));
	cr_assert(eq(int, u.nnodes, 1));
	cr_assert(eq(str, u.nodes[0].host, "cache-1"));
	cr_assert(eq(int, u.nodes[0].port, 6380));
	cr_assert(eq(str, u.user, "cron"));
	cr_assert(eq(str, u.password, "p@ss"));
}

Test(rurl, plain_urls_are_not_clusters)
{
	struct lr_url u = parse_ok("redis://10.0.0.1:7000");

	cr_assert(eq(int, u.cluster, 0));
	cr_assert(eq(int, u.nnodes, 0));
}

Test(rurl, cluster_rejects_other_dbs_and_bad_nodes)
{
	parse_bad("redis+cluster://a:7000/3", "redis URL: a Redis Cluster has only database 0");
	parse_bad("redis+cluster://a:7000,,b:7001",
	    "redis URL: no host (expected redis://host[:port][/db])");
	parse_bad("redis+cluster://a:7000,b:0",
	    "redis URL: port must be a number from 1 to 65535");
	parse_bad("redis+cluster://", "redis URL: no host (expected redis://host[:port][/db])");
	parse_bad("redis+cluster://a:1,a:2,a:3,a:4,a:5,a:6,a:7,a:8,a:9,a:10,a:11,a:12,"
	    "a:13,a:14,a:15,a:16,a:17", "redis URL: more than 16 cluster nodes");
}

Test(rurl, cluster_errors_do_not_echo_the_password)
{
	struct lr_url u;
	struct lr_err e = LR_ERR_INIT;

	cr_assert(eq(int, rurl_parse("redis+cluster://u:hunter2@a:1,hunter2:x", &u, &e), -1));
	cr_assert(eq(ptr, strstr(e.msg, "hunter2"), NULL), "%s", e.msg);
}
