/* rurl_test.c -- Redis URLs. */
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "rurl.h"

static struct lr_url
parse_ok(const char *url)
{
	struct lr_url u;
	struct lr_err e = { 0, "", 0 };

	cr_assert(eq(int, rurl_parse(url, &u, &e), 0), "%s: %s", url, e.msg);
	return u;
}

static void
parse_bad(const char *url, const char *msg)
{
	struct lr_url u;
	struct lr_err e = { 0, "", 0 };

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
	parse_bad("http://h", "redis URL: expected redis://host[:port][/db] or "
	    "unix:///path[?db=N], got \"http...\"");
	parse_bad("redis://", "redis URL: no host (expected redis://host[:port][/db])");
	parse_bad("redis://h:0", "redis URL: port must be a number from 1 to 65535");
	parse_bad("redis://h:65536", "redis URL: port must be a number from 1 to 65535");
	parse_bad("redis://h:x1", "redis URL: port must be a number from 1 to 65535");
	parse_bad("redis://h/db1", "redis URL: database after '/' must be a number");
	parse_bad("redis://[::1", "redis URL: missing ']' after IPv6 address");
	parse_bad("unix://relative.sock", "redis URL \"unix://relative.sock\": "
	    "expected unix:///path/to/socket");
	parse_bad("unix:///s?database=1", "redis URL \"unix:///s?database=1\": "
	    "expected ?db=N after the socket path");
	parse_bad("rediss://h", "redis URL: rediss:// (TLS) needs hiredis_ssl, "
	    "which this build does not have");
}

Test(rurl, bad_escape_does_not_echo_the_password)
{
	struct lr_url u;
	struct lr_err e = { 0, "", 0 };

	cr_assert(eq(int, rurl_parse("redis://u:hunter2%G@h", &u, &e), -1));
	cr_assert(eq(ptr, strstr(e.msg, "hunter2"), NULL), "%s", e.msg);
}
